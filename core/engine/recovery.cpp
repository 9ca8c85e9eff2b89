// SPDX-License-Identifier: Apache-2.0
#include "recovery.h"

#include "audit/auditfile.h"
#include "engine/callrecords.h"
#include "queue/approvals.h"

#include <QDateTime>

#include <unordered_map>

namespace holdpoint {

using namespace protocol;

namespace {

TimeMs parseTime(const std::string &text)
{
    return QDateTime::fromString(QString::fromStdString(text), Qt::ISODateWithMs)
        .toMSecsSinceEpoch();
}

std::vector<Warning> warningsFromJson(const Json &j)
{
    std::vector<Warning> out;
    if (!j.is_array())
        return out;
    for (const Json &w : j)
        if (w.is_object())
            out.push_back({ w.value("guardrail", std::string()), w.value("code", std::string()),
                w.value("message", std::string()) });
    return out;
}

// The queue item a logged escalation stands for.
QueueItem itemFromRecords(const RecoveredCall &c, const Json &call, const Json &escalated,
    const std::vector<Json> &votes, const std::function<std::string()> &newId)
{
    Escalation e;
    e.call.callId = c.callId;
    e.call.toolName = c.toolName;
    e.call.args = c.args;
    e.call.context = call.value("context", Json::object());
    e.call.annotations = call.value("annotations", Json::object());
    if (call.contains("turn"))
        e.call.turnId = call["turn"].get<std::string>();
    e.reason = escalated.value("reason", std::string());
    // Restored with its approval rule, so a restart never lets one person
    // approve what needs two.
    if (escalated.contains("approvals")) {
        e.approvals = approvalRuleFromJson(escalated["approvals"]);
        e.requester = escalated.value("requester", std::string());
    }
    e.trail = call.value("trail", Json::array());
    e.warnings = warningsFromJson(escalated.value("warnings", Json::array()));
    if (escalated.contains("proposed_args")) {
        e.proposedArgs = escalated["proposed_args"];
        e.patch = escalated.value("patch", Json::array());
    }
    TimeMs deadline = parseTime(escalated.value("ts", std::string()));
    if (const TimeMs d = parseTime(escalated.value("deadline", std::string())); d > 0)
        deadline = d;
    std::string id = escalated.contains("item") ? escalated["item"].get<std::string>() : newId();
    QueueItem item = makeQueueItem(std::move(id), c.sessionId, c.agent, std::move(e),
        parseTime(call.value("ts", std::string())), deadline);
    item.agentConnected = false;
    item.secretsPending = c.masked;
    // The approvals given before the restart count still, unless the log
    // kept the arguments masked: then the re-sent call is approved afresh.
    if (!c.masked && item.approvals.voted()) {
        for (const Json &r : votes) {
            Vote v { r.value("reviewer", std::string()), r.value("via", std::string()),
                r.value("args", Json::object()), r.value("args_sha256", std::string()),
                r.value("edit", false), parseTime(r.value("ts", std::string())) };
            if (!v.reviewer.empty())
                applyVote(item, std::move(v));
        }
    }
    return item;
}

} // namespace

std::vector<RecoveredCall> recoverCalls(
    const QString &auditDir, TimeMs recordsSince, const std::function<std::string()> &newId)
{
    struct Seen
    {
        Json call, escalated, decision;
        std::vector<Json> votes;
        bool listed = false;
    };
    std::unordered_map<std::string, std::unordered_map<std::string, Seen>> seen;
    std::vector<std::pair<std::string, std::string>> order;
    audit::forEachRecord(
        auditDir,
        [&](std::string_view, const Json &r) {
            const std::string &event = r["event"].get_ref<const std::string &>();
            if (event != "call" && event != "escalated" && event != "decision" && event != "vote")
                return true;
            const std::string sid = r.value("session", std::string());
            const std::string cid = r.value("call_id", std::string());
            if (sid.empty() || cid.empty())
                return true;
            Seen &s = seen[sid][cid];
            if (event == "call") {
                if (!s.decision.is_null())
                    return true;
                s.call = r;
                s.escalated = Json();
                s.votes.clear();
                if (!s.listed) {
                    s.listed = true;
                    order.emplace_back(sid, cid);
                }
            } else if (event == "escalated") {
                s.escalated = r;
            } else if (event == "vote") {
                s.votes.push_back(r);
            } else {
                s.decision = r;
            }
            return true;
        },
        recordsSince);

    std::vector<RecoveredCall> out;
    for (const auto &[sid, cid] : order) {
        const Seen &s = seen[sid][cid];
        if (s.call.is_null() || (s.decision.is_null() && s.escalated.is_null()))
            continue;
        RecoveredCall c;
        c.sessionId = sid;
        c.callId = cid;
        c.agent.name = s.call.value("agent", std::string());
        c.agent.framework = s.call.value("framework", std::string());
        c.agent.user = s.call.value("user", std::string());
        c.agent.capabilities = capabilitiesFromJson(s.call.value("capabilities", Json()));
        c.toolName = s.call.value("tool", std::string());
        c.args = s.call["args"];
        c.masked = s.call.value("masked", false);
        if (!s.decision.is_null())
            c.decision = decisionFromRecords(s.decision, s.call);
        else
            c.item = itemFromRecords(c, s.call, s.escalated, s.votes, newId);
        out.push_back(std::move(c));
    }
    return out;
}

namespace {

std::optional<protocol::DecisionKind> kindFromName(const std::string &name)
{
    using protocol::DecisionKind;
    for (DecisionKind k :
        { DecisionKind::Allow, DecisionKind::Deny, DecisionKind::Modify, DecisionKind::Halt })
        if (protocol::decisionKindName(k) == name)
            return k;
    return std::nullopt;
}

} // namespace

RecoveryReport restoreCalls(
    std::vector<RecoveredCall> calls, SessionTable &sessions, QueueStore &queue, TimeMs now)
{
    RecoveryReport report;
    for (RecoveredCall &r : calls) {
        auto [session, created] = sessions.restore(r.sessionId, r.agent);
        report.sessions += created ? 1 : 0;
        if (session->calls.contains(r.callId))
            continue;
        if (r.item && queue.find(r.item->id))
            continue;
        Call &call = session->calls[r.callId];
        call.toolName = r.toolName;
        if (r.masked)
            call.masked = std::make_unique<MaskedCall>(MaskedCall { r.args, Json() });
        else
            call.digest = callDigest(call.toolName, r.args);

        if (r.decision) {
            call.decisionText = dumpJson(*r.decision);
            call.kind
                = kindFromName((*r.decision)["decision"]).value_or(protocol::DecisionKind::Deny);
            if (call.masked)
                call.masked->decision = std::move(*r.decision);
            sessions.recordDecided(*session, r.callId);
            ++report.decided;
            continue;
        }
        r.item->agent = session->agent;
        call.itemId = r.item->id;
        sessions.orphan(call, now);
        queue.enqueue(std::move(*r.item));
        ++report.pending;
    }
    sessions.settle();
    return report;
}

} // namespace holdpoint
