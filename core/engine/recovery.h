// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the audit log says was going on when the console last stopped
// (AUDIT.md "Recovery"): calls still waiting for a person, and decided calls
// an agent may ask for again; read (recoverCalls), then put back into the
// session table and the queue (restoreCalls).

#include "common/clock.h"
#include "common/json.h"
#include "engine/consoletypes.h"
#include "engine/sessiontable.h"
#include "queue/queueitem.h"
#include "queue/queuestore.h"

#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

struct RecoveredCall
{
    std::string sessionId;
    std::string callId;
    protocol::AgentInfo agent;
    std::string toolName;
    Json args; // as logged: masked when `masked`
    bool masked = false; // the log kept its secrets masked
    std::optional<Json> decision; // decided: the decision message as first sent
    std::optional<QueueItem> item; // pending: back in the queue, agent not connected
};

// The calls in `auditDir`'s records since `recordsSince`, in the order they
// were first received; the latest incarnation of each: a call received
// again after a crash that left it unanswered starts afresh. Calls that
// never got an answer are left out: the agent's re-send starts them again.
// `newId` names a pending item whose escalation record lacks one.
std::vector<RecoveredCall> recoverCalls(
    const QString &auditDir, TimeMs recordsSince, const std::function<std::string()> &newId);

// Puts recovered calls back: decided ones into their sessions, to answer a
// re-send; pending ones into `queue` as well, orphaned since `now` (nobody
// waits for them yet, so their grace period starts). A call the sessions
// or the queue already hold is left as it is.
RecoveryReport restoreCalls(
    std::vector<RecoveredCall> calls, SessionTable &sessions, QueueStore &queue, TimeMs now);

} // namespace holdpoint
