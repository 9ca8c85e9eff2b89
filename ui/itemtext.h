// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the window writes what agents sent: bounded, on one line, and unable
// to forge how a row looks.

#include "common/clock.h"
#include "common/json.h"
#include "queue/queuefilter.h"

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

// The queue's "why" column: what escalated the call and what was found in
// it, or a quiet "default: ask" when only the policy's default asked.
QString whyText(const QueueItem &item, const ItemSignals &found);
// Whether the why column has nothing to say beyond the default.
bool onlyTheDefaultAsked(const ItemSignals &found);

// "1 call", "3 calls": English plurals without a translation file.
QString counted(int n, const QString &one, const QString &many);

} // namespace holdpoint
