#pragma once

// How the window writes what agents sent: bounded, on one line, and unable
// to forge how a row looks.

#include "common/clock.h"
#include "common/json.h"

#include <QString>

namespace holdpoint {

// The arguments on one line a reviewer can scan: key=value pairs, strings
// unquoted, shortened to `maxChars`.
QString summarizeArgs(const Json &args, int maxChars = 120);
// "12s", "4m 05s", "1h 02m".
QString formatDuration(TimeMs ms);
// Truncates with an ellipsis, shows newlines as ↵ and escapes control
// and format characters, so no value can forge how a row looks.
QString displaySafe(const QString &text, int maxChars);

} // namespace holdpoint
