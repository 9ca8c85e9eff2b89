// SPDX-License-Identifier: Apache-2.0
#include "brokermessages.h"

namespace holdpoint {

using namespace protocol;

namespace {

// Whether the link to the team database is up, and if not why: in the
// queue snapshot and on each change.
Json linkJson(const QueueStore::Link &link)
{
    Json j { { "available", link.up } };
    if (!link.up)
        j["error"] = link.why.toStdString();
    return j;
}

} // namespace

Json auditStateMessage(bool available, const QString &error)
{
    Json j { { "type", "audit" }, { "available", available } };
    if (!available)
        j["error"] = error.toStdString();
    return j;
}

Json teamStateMessage(const QueueStore::Link &link)
{
    Json j = linkJson(link);
    j["type"] = "team";
    return j;
}

Json welcomeMessage(const HelloOutcome &outcome, const std::string &serverName,
    std::int64_t maxMessageBytes, const std::optional<std::string> &reviewer)
{
    Json welcome { { "type", "welcome" }, { "protocol", Version }, { "server", serverName },
        { "session_id", outcome.sessionId }, { "resumed", outcome.resumed },
        { "max_message_bytes", maxMessageBytes } };
    if (reviewer)
        welcome["reviewer"] = *reviewer;
    return welcome;
}

Json pendingMessage(const QueueItem &item)
{
    return Json { { "type", "pending" }, { "call_id", item.callId }, { "id", item.id },
        { "reason", item.reason } };
}

Json queueMessage(const QueueStore &queue)
{
    Json items = Json::array();
    queue.forEachPending([&](const QueueItem &item) { items.push_back(itemToJson(item)); });
    Json message { { "type", "queue" }, { "items", std::move(items) } };
    if (const auto link = queue.link())
        message["team"] = linkJson(*link);
    return message;
}

Json escalatedMessage(const QueueItem &item)
{
    return Json { { "type", "escalated" }, { "item", itemToJson(item) } };
}

Json updatedMessage(const QueueItem &item)
{
    return Json { { "type", "updated" }, { "item", itemToJson(item) } };
}

Json resolvedMessage(const QueueItem &item)
{
    const Decision &d = *item.decision;
    return Json { { "type", "resolved" }, { "id", item.id }, { "state", itemStateName(item.state) },
        { "decision", decisionKindName(d.kind) }, { "decided_by", d.decidedBy } };
}

Json reviewedMessage(const QueueItem &item)
{
    return Json { { "type", "reviewed" }, { "id", item.id },
        { "decision", decisionKindName(item.decision->kind) } };
}

Json callIdConflictMessage(const std::string &callId)
{
    return errorToJson(ErrorCode::CallIdConflict,
        "call_id: \"" + callId
            + "\" was already used in this session for a different tool_name or args; "
              "use a new call_id for a new call",
        callId);
}

Json afterCallMessage(const std::string &callId, const AfterOutcome *after)
{
    Json answer { { "type", "after_call" }, { "call_id", callId }, { "action", "allow" },
        { "reason", "" } };
    if (!after) {
        answer["warnings"] = Json::array();
        return answer;
    }
    answer["action"] = actionName(after->action);
    answer["reason"] = after->reason;
    answer["warnings"] = warningsToJson(after->warnings);
    return answer;
}

} // namespace holdpoint
