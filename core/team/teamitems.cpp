// SPDX-License-Identifier: Apache-2.0
#include "teamitems.h"

#include "protocol/protocol.h"

#include <QDateTime>

namespace holdpoint::team {

using protocol::Decision;
using protocol::DecisionKind;

namespace {

TimeMs parseTime(const Json &j, const char *key)
{
    if (!j.contains(key) || !j[key].is_string())
        return NoDeadline;
    const QDateTime t
        = QDateTime::fromString(toQString(j[key].get<std::string>()), Qt::ISODateWithMs);
    return t.isValid() ? t.toMSecsSinceEpoch() : NoDeadline;
}

std::string str(const Json &j, const char *key)
{
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

} // namespace

std::optional<QueueItem> itemFromRow(const Row &row)
{
    const Json j = Json::parse(row.itemText, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    QueueItem item;
    item.id = row.id;
    item.callId = row.callId;
    // Sessions are the gateway's; two gateways may well both have an "s1".
    item.sessionId = row.gateway + "/" + row.sessionId;
    if (j.contains("agent") && j["agent"].is_object()) {
        const Json &a = j["agent"];
        item.agent.name = str(a, "name");
        item.agent.framework = str(a, "framework");
        item.agent.user = str(a, "user");
        if (a.contains("capabilities"))
            item.agent.capabilities = protocol::capabilitiesFromJson(a["capabilities"]);
    }
    item.toolName = row.tool;
    item.args = j.value("args", Json::object());
    item.context = j.value("context", Json());
    item.annotations = j.value("annotations", Json());
    item.turnId = row.turnId;
    if (j.contains("proposed_args")) {
        item.proposedArgs = j["proposed_args"];
        item.patch = j.value("patch", Json::array());
    }
    item.reason = str(j, "reason");
    item.trail = j.value("trail", Json::array());
    if (j.contains("warnings") && j["warnings"].is_array()) {
        for (const Json &w : j["warnings"])
            if (w.is_object())
                item.warnings.push_back({ str(w, "guardrail"), str(w, "code"), str(w, "message") });
    }
    if (j.contains("turn_findings"))
        item.turnFindings = protocol::turnFindingsFromJson(j["turn_findings"]);
    if (row.turnFindingsText) // newer than those it was escalated with
        if (const Json f = Json::parse(*row.turnFindingsText, nullptr, false); f.is_array())
            item.turnFindings = protocol::turnFindingsFromJson(f);
    item.receivedAt = row.createdAt;
    item.deadline = row.deadline;
    if (const TimeMs received = parseTime(j, "received_at"); received != NoDeadline)
        item.receivedAt = received;
    item.agentConnected = j.value("agent_connected", true);
    if (row.agentConnected) // changed since it was escalated
        item.agentConnected = *row.agentConnected;
    if (j.contains("approvals")) {
        item.approvals = protocol::approvalRuleFromJson(j["approvals"]);
        item.requester = str(j, "requester");
    }
    applyVotes(item, row);
    return item;
}

void applyVotes(QueueItem &item, const Row &row)
{
    item.votes = protocol::votesFromJson(Json::parse(row.votesText, nullptr, false));
    item.editedArgs.reset();
    if (row.proposalText)
        if (const Json p = Json::parse(*row.proposalText, nullptr, false);
            p.is_object() && p.contains("args"))
            item.editedArgs = unmaskJson(p["args"], item.redactions);
}

std::optional<protocol::Review> reviewFromText(const std::string &text, const std::string &id)
{
    Json j = Json::parse(text, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    j["type"] = "review";
    j["id"] = id;
    auto parsed = protocol::parseMessage(dumpJson(j));
    if (parsed.message)
        if (auto *review = std::get_if<protocol::Review>(&*parsed.message))
            return *review;
    return std::nullopt;
}

bool reviewMatches(const protocol::Review &review, const std::string &decision)
{
    switch (review.action) {
    case protocol::ReviewAction::Approve:
        return decision == "allow" || decision == "modify";
    case protocol::ReviewAction::Edit:
        return decision == "modify";
    case protocol::ReviewAction::Deny:
        return decision == "deny";
    case protocol::ReviewAction::Halt:
        return decision == "halt";
    }
    return false;
}

protocol::Review reviewOf(const std::string &id, const Decision &d)
{
    protocol::Review r;
    r.id = id;
    r.reason = d.reason;
    r.action = d.kind == DecisionKind::Deny ? protocol::ReviewAction::Deny
        : d.kind == DecisionKind::Halt      ? protocol::ReviewAction::Halt
                                            : protocol::ReviewAction::Approve;
    return r;
}

ItemState stateOf(const std::string &teamState)
{
    if (teamState == "decided")
        return ItemState::Decided;
    if (teamState == "cancelled")
        return ItemState::Cancelled;
    if (teamState == "abandoned")
        return ItemState::Abandoned;
    return ItemState::TimedOut; // timed_out, unavailable
}

std::string teamStateOf(ItemState state)
{
    switch (state) {
    case ItemState::Cancelled:
        return "cancelled";
    case ItemState::Abandoned:
        return "abandoned";
    case ItemState::TimedOut:
        return "timed_out";
    default:
        return "unavailable";
    }
}

Decision decisionOf(const Row &row)
{
    Decision d;
    d.kind = row.decision == "allow" ? DecisionKind::Allow
        : row.decision == "modify"   ? DecisionKind::Modify
        : row.decision == "halt"     ? DecisionKind::Halt
                                     : DecisionKind::Deny;
    d.decidedBy = row.decidedBy;
    d.code = row.code;
    d.reason = row.reason;
    return d;
}

Json callFields(const QueueItem &item, const std::string &gateway)
{
    Json j { { "call_id", item.callId }, { "gateway", gateway }, { "item", item.id },
        { "session", item.sessionId }, { "tool", item.toolName } };
    if (!item.agent.name.empty())
        j["agent"] = item.agent.name;
    if (item.turnId)
        j["turn"] = *item.turnId;
    return j;
}

Withdraw withdrawalOf(const QueueItem &item, const std::string &gateway,
    const std::string &teamState, const Decision &decision)
{
    Withdraw w;
    w.id = item.id;
    w.gateway = gateway;
    w.state = teamState;
    w.code = decision.code;
    w.reason = decision.reason;
    w.decidedBy = decision.decidedBy;
    return w;
}

Withdraw lostAnswerOf(const Row &row)
{
    QueueItem item;
    item.id = row.id;
    item.callId = row.callId;
    item.sessionId = row.sessionId;
    item.toolName = row.tool;
    item.turnId = row.turnId;
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "team";
    d.code = "answer_lost";
    d.reason = "pending in the team, but its gateway had answered the call already: a failover "
               "lost that answer; the gateway's audit log has what its agent was told";
    return withdrawalOf(item, row.gateway, "unavailable", d);
}

} // namespace holdpoint::team
