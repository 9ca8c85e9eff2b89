// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the broker tells its connections besides a decision (PROTOCOL.md
// "Reviewer role", "Calls and decisions"): the messages themselves, shaped
// here so that the broker only decides who hears them.

#include "common/json.h"
#include "guardrails/chain.h"
#include "queue/queueitem.h"
#include "queue/queuestore.h"
#include "server/messagehandler.h"

#include <QString>

#include <optional>
#include <string>

namespace holdpoint {

// The audit log became writable again, or stopped being.
Json auditStateMessage(bool available, const QString &error);
// Team mode: the team database link came up or went down.
Json teamStateMessage(const QueueStore::Link &link);
// `reviewer`: the name a reviewer connection's token stands for.
Json welcomeMessage(const HelloOutcome &outcome, const std::string &serverName,
    std::int64_t maxMessageBytes, const std::optional<std::string> &reviewer);
// An agent's call waits for a person.
Json pendingMessage(const QueueItem &item);
// A reviewer's first message: every pending item, and the team link's state.
Json queueMessage(const QueueStore &queue);
Json escalatedMessage(const QueueItem &item);
Json updatedMessage(const QueueItem &item);
// To every reviewer: an item left the queue.
Json resolvedMessage(const QueueItem &item);
// To the reviewer whose review the store settled later.
Json reviewedMessage(const QueueItem &item);
// A call_id used again for a different call.
Json callIdConflictMessage(const std::string &callId);
// The answer to a tool_result: `after` null when nothing was checked (a
// repeated result, or a call that never ran).
Json afterCallMessage(const std::string &callId, const AfterOutcome *after);

} // namespace holdpoint
