// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace holdpoint {

// `holdpoint-ctl hook gemini [--fail-open]`: Gemini CLI's BeforeAgent,
// BeforeTool and AfterTool command hook (resources/integrations/gemini).
// `args` starts with "hook", "gemini". Returns the exit code (exitcodes.h,
// geminihook). No Qt, as hookcommand.h.
int runGeminiHook(const std::vector<std::string> &args, const std::string &dataDirFlag);

} // namespace holdpoint
