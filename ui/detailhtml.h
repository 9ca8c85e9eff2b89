// SPDX-License-Identifier: Apache-2.0
#pragma once

// The detail pane's rich text: what each guardrail said about a call, and
// how its arguments changed. Everything is masked unless revealed, bounded,
// and escaped, so no value an agent sent can forge the pane.

#include "common/jsondiff.h"
#include "queue/queueitem.h"

#include <QList>
#include <QString>
#include <QTextEdit>

#include <vector>

namespace holdpoint {

// Each guardrail's verdict, then the warnings; empty when there are none.
QString trailHtml(const QueueItem &item, bool revealed);

// "This turn": what guardrails found about the item's turn so far, each
// finding with its counts, thresholds and calls, and the key that opens the
// turn; a quiet line when nothing was found.
QString turnFindingsHtml(const QueueItem &item);

// "Approvals", for a call that needs several people: how many of how many,
// who started the agent when that matters, each vote (who, how they
// authenticated, when, which arguments, an edit or not) and the arguments
// an approval approves now. Empty for a call one person decides.
QString approvalsHtml(const QueueItem &item, bool revealed);

// Which calls of a batch wait in a looping turn: "2 of 4 calls: demo-coder
// (retrying a failing call 3/5), build-bot (…)"; a quiet line when none.
QString batchFindingsHtml(const std::vector<const QueueItem *> &items);

// The changes under a heading that says whose they are.
QString changesHtml(const std::vector<ArgsChange> &changes, const QString &whose);

// What a multiple selection holds: "agents: a ×3, b ×1 · tools: bash ×4".
QString batchSummary(const std::vector<const QueueItem *> &items);

// A wavy underline where the JSON parser stopped, from its message's
// "line L, column C" (common/jsonparse.h).
QList<QTextEdit::ExtraSelection> parseErrorMarks(
    QTextDocument *document, const QString &parseError);

} // namespace holdpoint
