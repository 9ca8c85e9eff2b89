// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

namespace holdpoint {

// `holdpoint-ctl hook gemini [--fail-open]`: Gemini CLI's BeforeTool and
// AfterTool command hook (resources/integrations/gemini). `args` starts with
// "hook", "gemini". Returns the exit code (exitcodes.h, geminihook).
int runGeminiHook(const QStringList &args, const QString &dataDirFlag);

} // namespace holdpoint
