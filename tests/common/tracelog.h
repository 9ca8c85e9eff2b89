// SPDX-License-Identifier: Apache-2.0
#pragma once

// An agent's history written as the console's audit log: each call through
// a real chain at its recorded time, its record masked by the engine's own
// callRecord(), then the person's decision when the chain asked, and the
// tool's result. What tests/replay and `holdpoint-bench --scenario replay`
// replay against (tests/bench/trace/coding-agent.jsonl, REPLAY.md).

#include "audit/auditlog.h"
#include "common/clock.h"
#include "engine/callrecords.h"
#include "policy/policy.h"
#include "replay/history.h"

#include <QFile>
#include <QString>

#include <string>
#include <vector>

namespace holdpoint::testing {

// One call of a trace: "ts", "session", "agent", "framework", "turn",
// "call_id", "tool", "args", "person" (approve, edit, deny, halt, timeout),
// "edited_args" (with edit), "ok", "must_ask".
inline std::vector<Json> readTrace(const QString &path)
{
    std::vector<Json> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (!line.isEmpty())
            out.push_back(Json::parse(line.toStdString()));
    }
    return out;
}

struct TraceCopy
{
    TimeMs shiftMs = 0; // added to every time
    std::string suffix; // added to every session and call id
};

// Appends `trace` (oldest first) to `log` as a console running `policy` would
// have recorded it. `policy` must be fresh: its chain keeps counting.
inline void recordTrace(
    const std::vector<Json> &trace, const Policy &policy, AuditLog &log, const TraceCopy &copy = {})
{
    const GuardrailChain &chain = *policy.chain;
    for (const Json &t : trace) {
        const TimeMs at = *replay::parseRecordTime(t["ts"].get<std::string>()) + copy.shiftMs;
        const std::string session = t["session"].get<std::string>() + copy.suffix;
        protocol::AgentInfo agent;
        agent.name = t["agent"].get<std::string>();
        agent.framework = t.value("framework", std::string());
        protocol::ToolCall call;
        call.callId = t["call_id"].get<std::string>() + copy.suffix;
        call.toolName = t["tool"].get<std::string>();
        call.args = t["args"];
        if (t.contains("turn"))
            call.turnId = t["turn"].get<std::string>();
        const CallView view { session, agent, call.callId, call.toolName, call.args,
            call.annotations, call.context, call.turnId };
        ChainOutcome o = chain.beforeCall(view, { at }, policy.defaultAction);
        Json record = callRecord(call, agent, o);
        record["session"] = session;
        record["agent"] = agent.name;
        log.append(at, "call", record);

        Json decision { { "session", session }, { "agent", agent.name }, { "call_id", call.callId },
            { "tool", call.toolName } };
        bool ran = false;
        if (o.action == Action::Ask) {
            const std::string person = t.value("person", std::string("approve"));
            // As the console writes it, so a log read back is as long as a real one.
            log.append(at, "escalated",
                Json { { "session", session }, { "agent", agent.name }, { "call_id", call.callId },
                    { "tool", call.toolName }, { "item", "i-" + call.callId },
                    { "reason", maskText(o.reason, o.redactions) },
                    { "deadline", formatTimestamp(at + 600'000) }, { "warnings", Json::array() } });
            decision["item"] = "i-" + call.callId;
            decision["state"] = person == "timeout" ? "timed_out" : "decided";
            decision["decided_by"] = person == "timeout" ? "timeout" : "human:dana";
            decision["reason"] = person == "approve" ? "approved by a reviewer" : person;
            decision["decision"] = person == "approve" ? "allow"
                : person == "edit"                     ? "modify"
                : person == "halt"                     ? "halt"
                                                       : "deny";
            if (person == "edit") {
                decision["edited"] = true;
                decision["args"] = maskJson(t.value("edited_args", call.args), o.redactions);
            }
            ran = person == "approve" || person == "edit";
        } else {
            decision["state"] = "auto";
            decision["decided_by"] = o.decidedBy;
            decision["reason"] = maskText(o.reason, o.redactions);
            decision["decision"] = o.action == Action::Allow ? (o.args ? "modify" : "allow")
                                                             : std::string(actionName(o.action));
            ran = o.action == Action::Allow;
        }
        log.append(at + 1, "decision", decision);
        log.append(at + 1, "delivered",
            Json { { "session", session }, { "agent", agent.name }, { "call_id", call.callId },
                { "tool", call.toolName }, { "decision", decision["decision"] },
                { "connections", 1 } });
        if (ran) {
            const bool ok = t.value("ok", true);
            const AfterOutcome after = chain.afterCall(view, { ok, Json(call.callId) }, { at + 2 });
            log.append(at + 2, "after_call",
                Json { { "session", session }, { "agent", agent.name }, { "call_id", call.callId },
                    { "tool", call.toolName }, { "ok", ok },
                    { "action", actionName(after.action) } });
        }
    }
}

// The trace's calls labelled must_ask, as (session, call_id) keys of the history.
inline std::vector<std::string> mustAskKeys(
    const std::vector<Json> &trace, const TraceCopy &copy = {})
{
    std::vector<std::string> out;
    for (const Json &t : trace)
        if (t.value("must_ask", false))
            out.push_back(t["session"].get<std::string>() + copy.suffix + '\n'
                + t["call_id"].get<std::string>() + copy.suffix);
    return out;
}

} // namespace holdpoint::testing
