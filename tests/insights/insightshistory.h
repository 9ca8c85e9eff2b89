// SPDX-License-Identifier: Apache-2.0
#pragma once

// Audit histories for the insights suites, written by the real AuditLog:
// a small one whose every figure is known (knownHistory, its figures
// spelled out in tst_insights), and a week of a team's coding agents for
// the screenshot (realisticHistory).

#include "audit/auditlog.h"
#include "common/clock.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <string>
#include <vector>

namespace holdpoint::test {

struct HistoryRecord
{
    TimeMs at = 0;
    std::string event;
    Json fields;
};

class History
{
public:
    std::vector<HistoryRecord> records;

    // A call and the chain's verdicts, as the engine writes it.
    void call(TimeMs at, const std::string &session, const std::string &id,
        const std::string &agent, const std::string &tool, const Json &args, const Json &trail,
        const std::string &outcome)
    {
        records.push_back({ at, "call",
            { { "session", session }, { "call_id", id }, { "agent", agent }, { "tool", tool },
                { "args", args }, { "trail", trail }, { "outcome", outcome } } });
    }
    void escalated(TimeMs at, const std::string &session, const std::string &id,
        const std::string &agent, const std::string &tool, const std::string &item,
        const Json &proposedArgs = nullptr)
    {
        Json f { { "session", session }, { "call_id", id }, { "agent", agent }, { "tool", tool },
            { "item", item }, { "reason", "needs a person" },
            { "deadline", formatTimestamp(at + 300'000) }, { "warnings", Json::array() } };
        if (!proposedArgs.is_null())
            f["proposed_args"] = proposedArgs;
        records.push_back({ at, "escalated", std::move(f) });
    }
    void decision(TimeMs at, const std::string &session, const std::string &id,
        const std::string &agent, const std::string &tool, const std::string &item,
        const std::string &kind, const std::string &decidedBy, const std::string &state,
        bool edited = false, const Json &args = nullptr)
    {
        Json f { { "session", session }, { "call_id", id }, { "agent", agent }, { "tool", tool },
            { "decision", kind }, { "decided_by", decidedBy }, { "state", state },
            { "reason", "decided" } };
        if (!item.empty())
            f["item"] = item;
        if (edited)
            f["edited"] = true;
        if (!args.is_null())
            f["args"] = args;
        records.push_back({ at, "decision", std::move(f) });
    }
    void ruleAdded(TimeMs at, const Json &rule)
    {
        records.push_back({ at, "policy_rule_added",
            { { "file", "/home/alice/.local/share/holdpoint/policy.json" }, { "rule", rule } } });
    }

    // A call a person decided `after` ms after it was escalated.
    void asked(TimeMs at, const std::string &session, const std::string &id,
        const std::string &agent, const std::string &tool, const Json &args, const Json &trail,
        TimeMs after, const std::string &kind, const std::string &state = "decided",
        bool edited = false)
    {
        call(at, session, id, agent, tool, args, trail, "ask");
        const std::string item = "it-" + session + "-" + id;
        escalated(at, session, id, agent, tool, item);
        decision(at + after, session, id, agent, tool, item, state == "timed_out" ? "deny" : kind,
            state == "timed_out" ? "timeout" : "human:alice", state, edited,
            kind == "modify" ? Json { { "command", "edited" } } : Json());
    }
    // A call the chain decided at once.
    void decided(TimeMs at, const std::string &session, const std::string &id,
        const std::string &agent, const std::string &tool, const Json &args, const Json &trail,
        const std::string &outcome, const std::string &decidedBy)
    {
        call(at, session, id, agent, tool, args, trail, outcome);
        decision(at, session, id, agent, tool, {}, outcome, decidedBy, "auto");
    }
};

inline Json verdict(
    const std::string &guardrail, const std::string &code, const std::string &action, int rule = -1)
{
    Json v { { "guardrail", guardrail }, { "code", code }, { "action", action },
        { "reason", "said so" } };
    if (rule >= 0)
        v["metadata"] = { { "rule", rule } };
    return v;
}

inline Json gitStatusRule()
{
    return { { "when", { { "tool", "Bash" }, { "agent", "coder" } } },
        { "match", "Bash(git status:*)" }, { "action", "allow" }, { "code", "always_allowed" },
        { "reason", "always allowed by a reviewer" },
        { "comment", "added from the Holdpoint console by alice" } };
}

// Every figure of this history is spelled out in tst_insights.
inline History knownHistory(TimeMs t0)
{
    constexpr TimeMs Min = 60'000;
    const Json askShell = Json::array({ verdict("rules", "ask-shell", "ask", 0) });
    History h;
    h.ruleAdded(t0 + 5 * Min, gitStatusRule());
    h.asked(t0, "s1", "c1", "coder", "Bash", { { "command", "make" } }, askShell, 4'000, "allow");
    h.asked(t0 + 10 * Min, "s1", "c2", "coder", "Bash", { { "command", "curl x" } }, askShell,
        20'000, "deny");
    h.asked(t0 + 70 * Min, "s1", "c3", "coder", "Bash", { { "command", "rm a" } }, askShell, 90'000,
        "modify", "decided", true);
    h.asked(t0 + 20 * Min, "s2", "w1", "writer", "Write", { { "file_path", "/tmp/a" } },
        Json::array(), 300'000, "deny", "timed_out");
    // A guardrail's rewrite, approved as proposed: an approval, not an edit.
    h.call(t0 + 40 * Min, "s2", "w2", "writer", "Write", { { "file_path", "../a" } },
        Json::array({ verdict("protected_paths", "outside_workspace", "ask") }), "ask");
    h.escalated(
        t0 + 40 * Min, "s2", "w2", "writer", "Write", "it-w2", Json { { "file_path", "a" } });
    h.decision(t0 + 40 * Min + 45'000, "s2", "w2", "writer", "Write", "it-w2", "modify",
        "human:alice", "decided", false, Json { { "file_path", "a" } });
    // Decided by the chain.
    h.decided(t0 + 30 * Min, "s1", "a1", "coder", "Read", { { "file_path", "src/a.cpp" } },
        Json::array({ verdict("rules", "reads", "allow", 1) }), "allow", "guardrail:rules");
    h.decided(t0 + 31 * Min, "s1", "a2", "coder", "Bash", { { "command", "rm -rf /" } },
        Json::array({ verdict("rules", "no-rm", "deny", 2) }), "deny", "guardrail:rules");
    h.decided(t0 + 32 * Min, "s1", "a3", "coder", "Read", { { "file_path", "src/b.cpp" } },
        Json::array({ verdict("rules", "reads", "allow", 1),
            verdict("annotations", "read_only", "allow") }),
        "allow", "guardrail:rules");
    h.decided(t0 + 33 * Min, "s1", "a4", "coder", "Bash", { { "command", "git status --short" } },
        Json::array({ verdict("console", "always_allowed", "allow", 0) }), "allow",
        "guardrail:console");
    // A standing decision: alice approved Edit for the rest of the session.
    h.decided(t0 + 34 * Min, "s2", "a5", "writer", "Edit", { { "file_path", "b" } }, Json::array(),
        "allow", "human:alice");
    // The default allows from here on: a rule's allow saves nothing.
    h.decided(t0 + 150 * Min, "s3", "a6", "tester", "Glob", { { "pattern", "*" } }, Json::array(),
        "allow", "policy:default");
    h.decided(t0 + 160 * Min, "s3", "a7", "tester", "Read", { { "file_path", "c" } },
        Json::array({ verdict("rules", "reads", "allow", 1) }), "allow", "guardrail:rules");
    return h;
}

// Writes the records, oldest first, through the real AuditLog into `auditDir`.
inline bool writeHistory(const QString &auditDir, std::vector<HistoryRecord> records)
{
    std::stable_sort(
        records.begin(), records.end(), [](const auto &a, const auto &b) { return a.at < b.at; });
    SystemClock clock;
    AuditConfig config;
    config.dir = auditDir;
    AuditLog log(config, &clock);
    log.open();
    for (const HistoryRecord &r : records)
        log.append(r.at, r.event, r.fields);
    return log.waitDurable(10'000);
}

} // namespace holdpoint::test
