#pragma once

#include <QString>
#include <QStringList>

#include <string>

namespace holdpoint {

// A command hook's input: stdin, up to one byte past `maxBytes` so that the
// parser can tell the input is too long. False when stdin cannot be read.
bool readHookInput(std::size_t maxBytes, std::string *out);

// `holdpoint-ctl hook gemini [--fail-open]`: Gemini CLI's BeforeTool and
// AfterTool command hook (resources/integrations/gemini). `args` starts with
// "hook", "gemini". Returns the exit code (exitcodes.h, geminihook).
int runGeminiHook(const QStringList &args, const QString &dataDirFlag);

} // namespace holdpoint
