#pragma once

// The detail pane's rich text: what each guardrail said about a call, and
// how its arguments changed. Everything is masked unless revealed, bounded,
// and escaped, so no value an agent sent can forge the pane.

#include "common/jsondiff.h"
#include "queue/queueitem.h"

#include <QString>

#include <vector>

namespace holdpoint {

// Each guardrail's verdict, then the warnings; empty when there are none.
QString trailHtml(const QueueItem &item, bool revealed);

// The changes under a heading that says whose they are.
QString changesHtml(const std::vector<ArgsChange> &changes, const QString &whose);

} // namespace holdpoint
