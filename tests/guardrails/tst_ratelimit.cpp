// SPDX-License-Identifier: Apache-2.0
// rate_limit and annotations, with time moved by hand.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "guardrails/chain.h"
#include "guardrails/ratelimit.h"
#include "policy/policy.h"

#include <QTest>

#include <algorithm>
#include <map>

using namespace holdpoint;

namespace {

struct Harness
{
    explicit Harness(const std::string &text)
        : policy(test::policyOf(text))
    { }
    ChainOutcome call(TimeMs now, const std::string &tool = "bash",
        const std::string &session = "s1", const std::string &agentName = "coder",
        const Json &annotations = Json::object())
    {
        const protocol::AgentInfo agent { agentName, {} };
        const std::string callId = "c";
        const Json args = Json::object(), context = Json::object();
        const std::optional<std::string> turn;
        const CallView view { session, agent, callId, tool, args, annotations, context, turn };
        return policy.chain->beforeCall(view, { now }, policy.defaultAction);
    }
    Policy policy;
};

} // namespace

class TestRateLimit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void slidingWindow();
    void longRunMatchesTheDefinition();
    void countsPerKey_data();
    void countsPerKey();
    void onlyListedTools();
    void askInsteadOfDeny();
    void idleKeysAreForgotten();
    void sweepKeepsLiveWindows();
    void sweepGivesBackTheTable();
    void rateLimitErrors_data();
    void rateLimitErrors();
    void annotations_data();
    void annotations();
    void annotationsAllowDeclaredReads();
};

void TestRateLimit::slidingWindow()
{
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":3,"window_s":10}]})");
    QCOMPARE(h.call(0).action, Action::Allow);
    QCOMPARE(h.call(1000).action, Action::Allow);
    QCOMPARE(h.call(2000).action, Action::Allow);
    const ChainOutcome over = h.call(3000);
    QCOMPARE(over.action, Action::Deny);
    QCOMPARE(over.code, std::string("rate_limited"));
    QCOMPARE(over.reason,
        std::string(
            "rate limit: at most 3 calls per 10 s per session; the next call is possible in 7 s"));
    QCOMPARE(trailToJson(over.trail)[0]["metadata"]["retry_in_ms"], Json(7000));
    QCOMPARE(h.call(9999).action, Action::Deny); // the first call still counts
    QCOMPARE(h.call(10000).action, Action::Allow); // it left the window exactly now
    QCOMPARE(h.call(10500).action, Action::Deny); // calls at 1 s, 2 s and 10 s count
    QCOMPARE(h.call(11000).action, Action::Allow);
}

// Many calls in bursts and pauses, so each key's window is emptied, filled
// and compacted many times: every verdict is the one the definition gives.
void TestRateLimit::longRunMatchesTheDefinition()
{
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":5,"window_s":10}]})");
    std::map<std::string, std::vector<TimeMs>> admitted;
    TimeMs now = 0;
    std::uint32_t seed = 12345;
    for (int i = 0; i < 3000; ++i) {
        seed = seed * 1664525u + 1013904223u;
        now += (seed >> 8) % 7 == 0 ? TimeMs((seed >> 12) % 15'000) : TimeMs((seed >> 12) % 900);
        const std::string session = (seed >> 20) % 3 == 0 ? "s2" : "s1";
        std::vector<TimeMs> &times = admitted[session];
        const auto inWindow
            = std::count_if(times.begin(), times.end(), [&](TimeMs t) { return t > now - 10'000; });
        const bool allowed = h.call(now, "bash", session).action == Action::Allow;
        QCOMPARE(allowed, inWindow < 5);
        if (allowed)
            times.push_back(now);
    }
}

void TestRateLimit::countsPerKey_data()
{
    QTest::addColumn<QString>("per");
    QTest::addColumn<bool>("otherSessionLimited");
    QTest::addColumn<bool>("otherAgentLimited");
    QTest::addColumn<bool>("otherToolLimited");
    QTest::newRow("session") << R"("session")" << false << true << true;
    QTest::newRow("agent") << R"("agent")" << true << false << true;
    QTest::newRow("tool") << R"("tool")" << true << true << false;
    QTest::newRow("agent and tool") << R"(["agent","tool"])" << true << false << false;
}

void TestRateLimit::countsPerKey()
{
    QFETCH(QString, per);
    QFETCH(bool, otherSessionLimited);
    QFETCH(bool, otherAgentLimited);
    QFETCH(bool, otherToolLimited);
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":1,"window_s":60,"per":)"
        + per.toStdString() + "}]}");
    QCOMPARE(h.call(0, "bash", "s1", "coder").action, Action::Allow);
    QCOMPARE(h.call(1, "bash", "s1", "coder").action, Action::Deny);
    // The same session and agent, or the same agent and tool, depending on `per`.
    QCOMPARE(h.call(2, "bash", "s2", "coder").action == Action::Deny, otherSessionLimited);
    Harness g(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":1,"window_s":60,"per":)"
        + per.toStdString() + "}]}");
    g.call(0, "bash", "s1", "coder");
    QCOMPARE(g.call(2, "bash", "s1", "reviewer-bot").action == Action::Deny, otherAgentLimited);
    Harness k(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":1,"window_s":60,"per":)"
        + per.toStdString() + "}]}");
    k.call(0, "bash", "s1", "coder");
    QCOMPARE(k.call(2, "read", "s1", "coder").action == Action::Deny, otherToolLimited);
}

void TestRateLimit::onlyListedTools()
{
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":1,"window_s":60,"tools":["slack_*"]}]})");
    QCOMPARE(h.call(0, "slack_post").action, Action::Allow);
    QCOMPARE(h.call(1, "slack_post").action, Action::Deny);
    QCOMPARE(h.call(2, "read").action, Action::Allow);
    QCOMPARE(h.call(3, "read").action, Action::Allow);
}

void TestRateLimit::askInsteadOfDeny()
{
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":1,"window_s":1.5,"action":"ask"}]})");
    h.call(0);
    const ChainOutcome o = h.call(500);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.reason,
        std::string(
            "rate limit: at most 1 call per 1.5 s per session; the next call is possible in 1 s"));
}

void TestRateLimit::idleKeysAreForgotten()
{
    Harness h(R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":5,"window_s":1}]})");
    auto &g = static_cast<RateLimitGuardrail &>(*h.policy.chain->entries().at(0).guardrail);
    const int many = int(RateLimitGuardrail::MinSweepAt) + 10;
    for (int i = 0; i < many; ++i)
        h.call(0, "bash", "s" + std::to_string(i));
    QCOMPARE(g.trackedKeys(), std::size_t(many)); // all live: nothing to forget yet
    // A second later they are idle; the next sweep forgets them.
    for (int i = 0; i < many + 1; ++i)
        h.call(2000, "bash", "t" + std::to_string(i));
    QVERIFY2(
        g.trackedKeys() <= std::size_t(many + 1), qPrintable(QString::number(g.trackedKeys())));
    QVERIFY(g.trackedKeys() < std::size_t(2 * many)); // the s-keys are gone
}

// A burst of keys grows the table; once a sweep has forgotten them, the
// table shrinks to fit the keys left, and those keep their windows.
void TestRateLimit::sweepGivesBackTheTable()
{
    Harness h(R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":2,"window_s":1}]})");
    auto &g = static_cast<RateLimitGuardrail &>(*h.policy.chain->entries().at(0).guardrail);
    // Sweeps at 10,001 and 20,003 keys find them all live; the next is at 40,007.
    const int burst = 3 * int(RateLimitGuardrail::MinSweepAt);
    for (int i = 0; i < burst; ++i)
        h.call(0, "bash", "s" + std::to_string(i));
    const int later = 4 * int(RateLimitGuardrail::MinSweepAt) + 7 - burst;
    for (int i = 0; i < later; ++i)
        h.call(2000, "bash", "t" + std::to_string(i));
    const std::size_t grown = g.tableSlots();
    QCOMPARE(g.trackedKeys(), std::size_t(later)); // the sweep forgot every s-key
    QCOMPARE(grown, std::size_t(65536)); // a quarter full, not the 131,072 slots the burst took
    QVERIFY(grown >= 2 * g.trackedKeys());
    // Every key left is found where the smaller table put it, its admission counted.
    for (int i = 0; i < later; i += 97) {
        const std::string key = "t" + std::to_string(i);
        QCOMPARE(h.call(2100, "bash", key).action, Action::Allow);
        QCOMPARE(h.call(2100, "bash", key).action, Action::Deny);
    }
    for (int i = 0; i < later; ++i)
        h.call(2200, "bash", "t" + std::to_string(i));
    QCOMPARE(g.tableSlots(), grown);

    // A table exactly half full grows for a new key, never for a key it has.
    Harness small(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":2,"window_s":1}]})");
    auto &s = static_cast<RateLimitGuardrail &>(*small.policy.chain->entries().at(0).guardrail);
    for (int i = 0; i < 8; ++i)
        small.call(0, "bash", "k" + std::to_string(i));
    QCOMPARE(s.tableSlots(), std::size_t(16));
    QCOMPARE(small.call(0, "bash", "k3").action, Action::Allow);
    QCOMPARE(s.tableSlots(), std::size_t(16));
    small.call(0, "bash", "k8");
    QCOMPARE(s.tableSlots(), std::size_t(32));
}

// The sweep moves the keys it keeps within the table: a key still in its window keeps
// every admission time it had, wherever the sweep moves it.
void TestRateLimit::sweepKeepsLiveWindows()
{
    Harness h(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":3,"window_s":10}]})");
    auto &g = static_cast<RateLimitGuardrail &>(*h.policy.chain->entries().at(0).guardrail);
    const int many = int(RateLimitGuardrail::MinSweepAt) + 10;
    for (int i = 0; i < many; ++i)
        h.call(0, "bash", "s" + std::to_string(i));
    QCOMPARE(h.call(8000, "bash", "live").action, Action::Allow);
    QCOMPARE(h.call(9000, "bash", "live").action, Action::Allow);
    // The first sweep, at MinSweepAt keys, found them all live; the next
    // comes after twice as many, when the s-keys are idle and "live" is not.
    for (int i = 0; i < 2 * many; ++i)
        h.call(12000, "bash", "t" + std::to_string(i));
    QVERIFY2(g.trackedKeys() <= std::size_t(2 * many + 1),
        qPrintable(QString::number(g.trackedKeys()))); // no s-keys
    // A t-key admitted before the sweep still counts.
    QCOMPARE(h.call(12000, "bash", "t7").action, Action::Allow);
    QCOMPARE(h.call(12000, "bash", "t7").action, Action::Allow);
    QCOMPARE(h.call(12000, "bash", "t7").action, Action::Deny);
    QCOMPARE(h.call(12000, "bash", "live").action, Action::Allow);
    const ChainOutcome over = h.call(12500, "bash", "live");
    QCOMPARE(over.action, Action::Deny);
    // The call at 8 s leaves the window at 18 s.
    QCOMPARE(over.reason,
        std::string("rate limit: at most 3 calls per 10 s per session; the next call is possible "
                    "in 5.5 s"));
    QCOMPARE(h.call(18000, "bash", "live").action, Action::Allow);
    QCOMPARE(h.call(18000, "bash", "live").action, Action::Deny);
}

void TestRateLimit::rateLimitErrors_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("error");
    QTest::newRow("no limit")
        << R"({"guardrails":[{"type":"rate_limit","window_s":1}]})"
        << "p.json: guardrails[0].limit: required, expected the number of calls allowed per window";
    QTest::newRow("no window")
        << R"({"guardrails":[{"type":"rate_limit","limit":1}]})"
        << "p.json: guardrails[0].window_s: required, expected the window in seconds";
    QTest::newRow("bad per")
        << R"({"guardrails":[{"type":"rate_limit","limit":1,"window_s":1,"per":["agent","user"]}]})"
        << "p.json: guardrails[0].per[1]: unknown value \"user\" (expected one of: session, agent, "
           "tool)";
    QTest::newRow("zero limit")
        << R"({"guardrails":[{"type":"rate_limit","limit":0,"window_s":1}]})"
        << "p.json: guardrails[0].limit: expected a number from 1 to 1000000000, got 0";
    QTest::newRow("annotations action")
        << R"({"guardrails":[{"type":"annotations","destructive":"allow"}]})"
        << "p.json: guardrails[0].destructive: unknown value \"allow\" (expected one of: ask, "
           "deny, warn, pass)";
}

void TestRateLimit::rateLimitErrors()
{
    QFETCH(QString, policy);
    QFETCH(QString, error);
    QCOMPARE(test::policyError(policy.toStdString()), error);
}

void TestRateLimit::annotations_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("hints");
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    const QString defaults = QStringLiteral("{}");
    QTest::newRow("no hints: destructive by MCP's default")
        << defaults << "{}" << int(Action::Ask)
        << "deploy may be destructive (no destructiveHint; MCP's default is true)";
    QTest::newRow("marked destructive")
        << defaults << R"({"destructiveHint":true})" << int(Action::Ask)
        << "deploy is marked destructive (destructiveHint: true)";
    QTest::newRow("not destructive")
        << defaults << R"({"destructiveHint":false})" << int(Action::Allow) << "";
    QTest::newRow("read-only clears destructive")
        << defaults << R"({"readOnlyHint":true,"destructiveHint":true})" << int(Action::Allow)
        << "";
    QTest::newRow("deny destructive")
        << R"({"destructive":"deny"})"
        << "{}" << int(Action::Deny)
        << "deploy may be destructive (no destructiveHint; MCP's default is true)";
    QTest::newRow("open world asks")
        << R"({"destructive":"pass","open_world":"ask"})"
        << R"({"destructiveHint":false})" << int(Action::Ask)
        << "deploy may reach outside systems (no openWorldHint; MCP's default is true)";
    QTest::newRow("closed world") << R"({"open_world":"deny"})"
                                  << R"({"destructiveHint":false,"openWorldHint":false})"
                                  << int(Action::Allow) << "";
    QTest::newRow("the stronger wins") << R"({"destructive":"warn","open_world":"deny"})"
                                       << R"({"openWorldHint":true})" << int(Action::Deny)
                                       << "deploy reaches outside systems (openWorldHint: true)";
}

void TestRateLimit::annotations()
{
    QFETCH(QString, config);
    QFETCH(QString, hints);
    QFETCH(int, action);
    QFETCH(QString, reason);
    Json spec = Json::parse(config.toStdString());
    spec["type"] = "annotations";
    Harness h(dumpJson(Json { { "default", "allow" }, { "guardrails", Json::array({ spec }) } }));
    const ChainOutcome o = h.call(0, "deploy", "s1", "coder", Json::parse(hints.toStdString()));
    QCOMPARE(int(o.action), action);
    if (!reason.isEmpty())
        QCOMPARE(toQString(o.reason), reason);
}

void TestRateLimit::annotationsAllowDeclaredReads()
{
    // Under a default that denies, "read_only": "allow" is what lets a
    // declared read through; without it the hint only passes.
    Harness allow(
        R"({"default":"deny","guardrails":[{"type":"annotations","read_only":"allow","destructive":"pass"}]})");
    ChainOutcome o = allow.call(0, "list_files", "s1", "coder", Json { { "readOnlyHint", true } });
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.decidedBy, std::string("guardrail:annotations"));
    QCOMPARE(o.trail.back().code, std::string("read_only"));
    QCOMPARE(
        o.trail.back().reason, std::string("list_files is marked read-only (readOnlyHint: true)"));
    QCOMPARE(allow.call(0, "list_files", "s1", "coder", Json { { "readOnlyHint", false } }).action,
        Action::Deny);
    QCOMPARE(allow.call(0, "list_files").action, Action::Deny);
    Harness pass(
        R"({"default":"deny","guardrails":[{"type":"annotations","destructive":"pass"}]})");
    QCOMPARE(pass.call(0, "list_files", "s1", "coder", Json { { "readOnlyHint", true } }).action,
        Action::Deny);
    QCOMPARE(test::policyError(R"({"guardrails":[{"type":"annotations","read_only":"ask"}]})"),
        QStringLiteral("p.json: guardrails[0].read_only: unknown value \"ask\" (expected one of: "
                       "allow, pass)"));
}

QTEST_GUILESS_MAIN(TestRateLimit)
#include "tst_ratelimit.moc"
