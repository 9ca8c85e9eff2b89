// SPDX-License-Identifier: Apache-2.0
#include "callrecords.h"

#include "common/jsonwriter.h"
#include "protocol/decider.h"
#include "queue/approvals.h"

#include <algorithm>
#include <cmath>

namespace holdpoint {

using namespace protocol;

Sha256Digest callDigest(const std::string &toolName, const Json &args)
{
    // nlohmann's default object keeps keys sorted, so dump() is canonical:
    // the same arguments in another key order give the same digest.
    thread_local std::string text; // reused: this runs for every call
    text.assign(toolName);
    text += '\0';
    appendJson(text, args);
    return sha256(text);
}

void fitToCapabilities(ChainOutcome &outcome, const AgentInfo &agent)
{
    if (agent.capabilities.modify || !outcome.args
        || (outcome.action != Action::Allow && outcome.action != Action::Ask))
        return;
    // The agent would run its own arguments, not the rewritten ones: a
    // person decides on the call as sent, and no rewrite is offered.
    const std::string why = "agent \"" + agent.name + "\" cannot take edited arguments";
    if (outcome.action == Action::Allow) {
        // Which guardrails rewrote it, and why, from the trail.
        std::string rewrites;
        for (const TrailEntry &entry : outcome.trail) {
            if (entry.failed || entry.action != Action::Modify)
                continue;
            rewrites += rewrites.empty() ? "" : "; ";
            rewrites += entry.guardrail + ": " + entry.reason;
        }
        outcome.action = Action::Ask;
        outcome.reason = "a guardrail would rewrite the arguments (" + rewrites + "), but " + why
            + ": approve or deny the call as sent";
        outcome.code.clear();
    } else {
        outcome.reason += " (a guardrail's rewrite is not offered: " + why + ")";
    }
    outcome.args.reset();
    outcome.patch = Json();
}

Escalation escalationOf(ToolCall call, ChainOutcome &&outcome)
{
    Escalation e;
    e.call = std::move(call);
    e.reason = std::move(outcome.reason);
    e.trail = trailToJson(outcome.trail);
    e.warnings = std::move(outcome.warnings);
    if (outcome.args) {
        e.proposedArgs = std::move(outcome.args);
        e.patch = std::move(outcome.patch);
    }
    e.redactions = std::move(outcome.redactions);
    e.approvals = outcome.approvals;
    return e;
}

QueueItem makeQueueItem(std::string id, const std::string &sessionId, const AgentInfo &agent,
    Escalation &&e, TimeMs receivedAt, TimeMs deadline)
{
    QueueItem item;
    item.id = std::move(id);
    item.callId = std::move(e.call.callId);
    item.sessionId = sessionId;
    item.agent = agent;
    item.toolName = std::move(e.call.toolName);
    item.args = std::move(e.call.args);
    item.context = std::move(e.call.context);
    item.annotations = std::move(e.call.annotations);
    item.turnId = std::move(e.call.turnId);
    item.redactions = std::move(e.redactions);
    item.reason = std::move(e.reason);
    item.trail = std::move(e.trail);
    item.warnings = std::move(e.warnings);
    item.proposedArgs = std::move(e.proposedArgs);
    if (item.proposedArgs)
        item.patch = std::move(e.patch);
    item.approvals = e.approvals;
    item.requester = std::move(e.requester);
    item.receivedAt = receivedAt;
    item.deadline = deadline;
    return item;
}

Json callRecord(const ToolCall &call, const AgentInfo &agent, const ChainOutcome &outcome)
{
    Json record { { "call_id", call.callId }, { "tool", call.toolName },
        { "args", maskJson(call.args, outcome.redactions) },
        { "outcome",
            outcome.action == Action::Ask ? std::string("ask")
                                          : std::string(actionName(outcome.action)) },
        { "trail", maskJson(trailToJson(outcome.trail), outcome.redactions) } };
    if (!agent.framework.empty())
        record["framework"] = agent.framework;
    // Who started the agent: a call restored after a restart still shows it,
    // as it showed before.
    if (!agent.user.empty())
        record["user"] = agent.user;
    if (!agent.capabilities.all())
        record["capabilities"] = capabilitiesToJson(agent.capabilities);
    if (!call.annotations.is_null() && !call.annotations.empty())
        record["annotations"] = maskJson(call.annotations, outcome.redactions);
    if (!call.context.is_null() && !call.context.empty())
        record["context"] = maskJson(call.context, outcome.redactions);
    if (call.turnId)
        record["turn"] = *call.turnId;
    if (!outcome.redactions.empty())
        record["masked"] = true;
    return record;
}

Json escalatedRecord(const QueueItem &item)
{
    Json escalated { { "call_id", item.callId }, { "tool", item.toolName }, { "item", item.id },
        { "reason", maskText(item.reason, item.redactions) },
        { "deadline", formatTimestamp(item.deadline) },
        { "warnings", item.masked(warningsToJson(item.warnings)) } };
    if (item.approvals.voted()) {
        escalated["approvals"] = approvalRuleToJson(item.approvals);
        escalated["requester"] = item.requester;
    }
    if (item.proposedArgs) {
        escalated["proposed_args"] = item.masked(*item.proposedArgs);
        escalated["patch"] = item.masked(item.patch);
    }
    return escalated;
}

void writeCallRecord(std::string &out, const RecordSubject &subject, const ToolCall &call,
    const AgentInfo &agent, const ChainOutcome &outcome)
{
    if (!outcome.redactions.empty()) {
        // Masking may rename keys and so reorder them: the tree sorts them
        // again, as it always did. Only calls holding secrets come here.
        Json record = callRecord(call, agent, outcome);
        record["session"] = subject.session;
        record["agent"] = subject.agent;
        appendJson(out, record);
        return;
    }
    // The members in the order a dumped object has them.
    JsonWriter w(out);
    w.beginObject();
    w.member("agent", subject.agent);
    if (!call.annotations.is_null() && !call.annotations.empty())
        w.member("annotations", call.annotations);
    w.member("args", call.args);
    w.member("call_id", call.callId);
    if (!agent.capabilities.all())
        w.member("capabilities", capabilitiesToJson(agent.capabilities));
    if (!call.context.is_null() && !call.context.empty())
        w.member("context", call.context);
    if (!agent.framework.empty())
        w.member("framework", agent.framework);
    w.member("outcome",
        outcome.action == Action::Ask ? std::string_view("ask") : actionName(outcome.action));
    w.member("session", subject.session);
    w.member("tool", call.toolName);
    w.key("trail");
    writeTrail(w, outcome.trail);
    if (call.turnId)
        w.member("turn", *call.turnId);
    if (!agent.user.empty())
        w.member("user", agent.user);
    w.endObject();
}

void writeDecisionRecord(std::string &out, const RecordSubject &subject,
    const DecisionFields &fields, std::string_view callId, const Decision &decision)
{
    JsonWriter w(out);
    w.beginObject();
    w.member("agent", subject.agent);
    if (fields.approvers) {
        w.key("approvers").beginArray();
        for (const std::string &name : *fields.approvers)
            w.string(name);
        w.endArray();
    }
    if (!fields.args.is_null())
        w.member("args", fields.args);
    w.member("call_id", callId);
    if (!decision.code.empty())
        w.member("code", decision.code);
    w.member("decided_by", decision.decidedBy);
    w.member("decision", decisionKindName(decision.kind));
    if (fields.edited)
        w.member("edited", true);
    if (!fields.item.empty())
        w.member("item", fields.item);
    if (fields.osUser)
        w.member("os_user", *fields.osUser);
    if (fields.secret())
        w.member("reason", maskText(decision.reason, *fields.redactions));
    else
        w.member("reason", decision.reason);
    w.member("session", subject.session);
    w.member("state", fields.state);
    w.member("tool", fields.tool);
    if (!fields.via.empty())
        w.member("via", fields.via);
    if (!decision.warnings.empty()) {
        if (fields.secret()) {
            // A warning may quote the call, as a reason may.
            w.member("warnings", maskJson(warningsToJson(decision.warnings), *fields.redactions));
        } else {
            w.key("warnings");
            writeWarnings(w, decision.warnings);
        }
    }
    w.endObject();
}

void writeDeliveredRecord(std::string &out, const RecordSubject &subject, std::string_view callId,
    std::string_view toolName, DecisionKind kind, std::size_t connections, bool again,
    bool auditUnavailable)
{
    JsonWriter w(out);
    w.beginObject();
    if (again)
        w.member("again", true);
    w.member("agent", subject.agent);
    w.member("call_id", callId);
    if (auditUnavailable)
        w.member("code", "audit_unavailable");
    w.key("connections").number(std::uint64_t(connections));
    w.member("decision", decisionKindName(kind));
    w.member("session", subject.session);
    w.member("tool", toolName);
    w.endObject();
}

Json decisionFromRecords(const Json &decision, const Json &call)
{
    Json j { { "type", "decision" }, { "call_id", decision.value("call_id", std::string()) },
        { "decision", decision.value("decision", std::string("deny")) },
        { "reason", decision.value("reason", std::string()) },
        { "decided_by", decision.value("decided_by", std::string()) } };
    const std::string kind = j["decision"];
    if (kind == "modify")
        j["args"] = decision.value("args", Json::object());
    else if (kind == "allow")
        j["args"] = call.value("args", Json::object());
    if (decision.contains("code"))
        j["code"] = decision["code"];
    j["warnings"] = decision.value("warnings", Json::array());
    return j;
}

Decision chainDecision(
    ChainOutcome &&outcome, ToolCall &call, DecisionFields *fields, std::unique_ptr<RanCall> *ran)
{
    Decision d;
    d.decidedBy = std::move(outcome.decidedBy);
    d.reason = std::move(outcome.reason);
    d.warnings = std::move(outcome.warnings);
    fields->tool = call.toolName;
    fields->state = "auto";
    fields->redactions = &outcome.redactions;
    if (outcome.action != Action::Allow) {
        d.kind = outcome.action == Action::Halt ? DecisionKind::Halt : DecisionKind::Deny;
        d.code = std::move(outcome.code);
        return d;
    }
    d.kind = outcome.args ? DecisionKind::Modify : DecisionKind::Allow;
    if (d.kind == DecisionKind::Modify)
        fields->args = maskJson(*outcome.args, outcome.redactions);
    *ran = std::make_unique<RanCall>(
        RanCall { call.toolName, outcome.args ? std::move(*outcome.args) : std::move(call.args),
            std::move(call.annotations), std::move(call.context), call.turnId });
    return d;
}

DecisionFields reviewedFields(
    const QueueItem &item, const std::string &consoleReviewer, std::unique_ptr<RanCall> *ran)
{
    const Decision &d = *item.decision;
    DecisionFields fields;
    fields.tool = item.toolName;
    fields.item = item.id;
    fields.state = itemStateName(item.state);
    fields.redactions = &item.redactions;
    if (d.kind == DecisionKind::Allow || d.kind == DecisionKind::Modify) {
        *ran = std::make_unique<RanCall>(
            RanCall { item.toolName, d.args, item.annotations, item.context, item.turnId });
        const Json &shown = item.proposedArgs.value_or(item.args);
        if (d.kind == DecisionKind::Modify)
            fields.args = item.masked(d.args);
        fields.edited = d.args != shown;
    }
    if (protocol::peopleIn(d.decidedBy).size() > 1)
        fields.approvers = decidersOf(d.decidedBy);
    else if (d.decidedBy == protocol::Decider::person(consoleReviewer).text())
        fields.osUser = consoleReviewer;
    // How the person authenticated: the console, a reviewer token, a web session.
    fields.via = d.via;
    return fields;
}

Json afterCallRecord(const std::string &callId, const RanCall &ran, bool ok,
    const AfterOutcome &after, const std::vector<Redaction> &redactions)
{
    return Json { { "call_id", callId }, { "tool", ran.toolName }, { "ok", ok },
        { "action", actionName(after.action) }, { "reason", maskText(after.reason, redactions) },
        { "warnings", maskJson(warningsToJson(after.warnings), redactions) },
        { "trail", maskJson(trailToJson(after.trail), redactions) } };
}

std::string unmaskedDecisionText(
    Json decision, const Json &resentArgs, const std::vector<Redaction> &redactions)
{
    if (decision["decision"] == "allow")
        decision["args"] = resentArgs;
    else if (decision["decision"] == "modify")
        decision["args"] = unmaskJson(decision["args"], redactions);
    return dumpJson(decision);
}

TimeMs escalationTimeout(const std::optional<double> &timeoutS, TimeMs defaultMs)
{
    if (!timeoutS)
        return defaultMs;
    return std::min<TimeMs>(defaultMs, std::max<TimeMs>(1, TimeMs(std::llround(*timeoutS * 1000))));
}

Decision auditRefusal(const QString &auditError)
{
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "audit";
    d.code = "audit_unavailable";
    d.reason = "the audit log cannot be written, so nothing may run: " + auditError.toStdString();
    return d;
}

Decision cancelledDecision()
{
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "agent";
    d.code = "cancelled";
    d.reason = "cancelled by the agent";
    return d;
}

Decision abandonedDecision(TimeMs graceMs)
{
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "timeout";
    d.code = "abandoned";
    d.reason = "abandoned: the agent disconnected and did not re-send the call within "
        + std::to_string(graceMs / 1000) + " s";
    return d;
}

} // namespace holdpoint
