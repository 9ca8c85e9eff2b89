// SPDX-License-Identifier: Apache-2.0
// One test per rule of core/guardrails/README.md, named after its heading.

#include "common/jsoncompare.h"
#include "guardrails/chain.h"

#include <QTest>

using namespace holdpoint;

namespace {

qint64 g_fakeNs = 0;

// A guardrail whose verdicts a test scripts; it records what it saw.
class Scripted final : public Guardrail
{
public:
    using Script = std::function<Verdict(const CallView &)>;
    Scripted(std::string name, Script script)
        : m_name(std::move(name))
        , m_script(std::move(script))
    { }
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &) override
    {
        ++calls;
        seenArgs.push_back(call.args);
        return m_script(call);
    }
    Verdict afterCall(const CallView &call, const ResultView &, const GuardContext &) override
    {
        ++afterCalls;
        return after ? after(call) : Verdict::pass();
    }
    void onTurnStart(const std::string &, const std::string &) override
    {
        if (throwOnTurn)
            throw std::runtime_error("turn");
    }

    int calls = 0;
    int afterCalls = 0;
    bool throwOnTurn = false;
    Script after;
    std::vector<Json> seenArgs;

private:
    std::string m_name;
    Script m_script;
};

Verdict says(Action a, const std::string &code = "c", const std::string &reason = "r")
{
    return Verdict::make(a, code, reason);
}

struct Harness
{
    Harness()
    {
        chain.setMonotonicClock([] { return g_fakeNs; });
    }
    std::shared_ptr<Scripted> add(
        const std::string &name, Scripted::Script script, bool failOpen = false)
    {
        auto g = std::make_shared<Scripted>(name, std::move(script));
        chain.add({ g, failOpen, std::chrono::microseconds(1000) });
        return g;
    }
    ChainOutcome before(DefaultAction fallback = DefaultAction::Ask)
    {
        const CallView view { session, agent, callId, tool, args, annotations, context, turn };
        return chain.beforeCall(view, { 0 }, fallback);
    }
    AfterOutcome afterCall(bool ok = true)
    {
        const CallView view { session, agent, callId, tool, args, annotations, context, turn };
        const Json result = "out";
        return chain.afterCall(view, { ok, result }, { 0 });
    }

    GuardrailChain chain;
    std::string session = "s1";
    protocol::AgentInfo agent { "coder", {} };
    std::string callId = "c1";
    std::string tool = "write_file";
    Json args = { { "path", "a.txt" } };
    Json annotations = Json::object();
    Json context = Json::object();
    std::optional<std::string> turn;
};

} // namespace

class TestChain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void order_runsInPolicyOrder();
    void order_eachSeesArgsAsLeftBefore();
    void order_trailHasEveryVerdict();
    void verdicts_passSaysNothing();
    void verdicts_denyAndHaltShortCircuit_data();
    void verdicts_denyAndHaltShortCircuit();
    void verdicts_modifyReplacesArgsAndKeepsThePatch();
    void verdicts_modifyDoesNotLetTheCallRunByItself();
    void verdicts_warnTravelsAndDoesNotDecide();
    void verdicts_askGoesOnAndLaterDenyWins();
    void verdicts_firstAskGivesTheReason();
    void verdicts_allowRunsUnlessLaterAskDenyOrHalt_data();
    void verdicts_allowRunsUnlessLaterAskDenyOrHalt();
    void outcome_defaultApplies_data();
    void outcome_defaultApplies();
    void outcome_defaultAllowWithRewriteIsModify();
    void failures_failClosed_data();
    void failures_failClosed();
    void failures_failOpenGoesOnWithAWarning();
    void failures_turnMarkerThrowIsContained();
    void afterTheCall_allowWarnHalt();
    void afterTheCall_failureHaltsUnlessFailOpen();
};

void TestChain::order_runsInPolicyOrder()
{
    Harness h;
    std::vector<std::string> order;
    for (const char *n : { "first", "second", "third" })
        h.add(n, [&order, n](const CallView &) {
            order.push_back(n);
            return Verdict::pass();
        });
    h.before();
    QCOMPARE(order, (std::vector<std::string> { "first", "second", "third" }));
}

void TestChain::order_eachSeesArgsAsLeftBefore()
{
    Harness h;
    h.add("rewrite", [](const CallView &) {
        return Verdict::modify({ { "path", "sandbox/a.txt" } }, "sandbox", "moved");
    });
    auto later = h.add("later", [](const CallView &) { return Verdict::pass(); });
    h.before();
    QCOMPARE(later->seenArgs.at(0), Json({ { "path", "sandbox/a.txt" } }));
}

void TestChain::order_trailHasEveryVerdict()
{
    Harness h;
    h.add("a", [](const CallView &) { return says(Action::Pass, "", ""); });
    h.add("b", [](const CallView &) { return says(Action::Warn, "w", "careful"); });
    h.add("c", [](const CallView &) { return says(Action::Allow, "ok", "fine"); });
    const ChainOutcome o = h.before();
    QCOMPARE(trailToJson(o.trail), Json::parse(R"([
        {"guardrail":"a","action":"pass","reason":"","code":""},
        {"guardrail":"b","action":"warn","reason":"careful","code":"w"},
        {"guardrail":"c","action":"allow","reason":"fine","code":"ok"}])"));
}

void TestChain::verdicts_passSaysNothing()
{
    Harness h;
    h.add("quiet", [](const CallView &) { return Verdict::pass(); });
    const ChainOutcome o = h.before(DefaultAction::Ask);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.decidedBy, std::string("policy:default"));
}

void TestChain::verdicts_denyAndHaltShortCircuit_data()
{
    QTest::addColumn<int>("action");
    QTest::newRow("deny") << int(Action::Deny);
    QTest::newRow("halt") << int(Action::Halt);
}

void TestChain::verdicts_denyAndHaltShortCircuit()
{
    QFETCH(int, action);
    Harness h;
    h.add("asker", [](const CallView &) { return says(Action::Ask, "a", "check"); });
    h.add("stopper", [action](const CallView &) {
        return says(Action(action), "protected_path", "/etc is protected");
    });
    auto after = h.add("after", [](const CallView &) { return says(Action::Allow); });
    const ChainOutcome o = h.before();
    QCOMPARE(int(o.action), action);
    QCOMPARE(o.decidedBy, std::string("guardrail:stopper"));
    QCOMPARE(o.reason, std::string("/etc is protected"));
    QCOMPARE(o.code, std::string("protected_path"));
    QCOMPARE(after->calls, 0);
    QCOMPARE(o.trail.size(), std::size_t(2));
}

void TestChain::verdicts_modifyReplacesArgsAndKeepsThePatch()
{
    Harness h;
    h.args = { { "path", "a.txt" }, { "timeout", 900 } };
    h.add("clamp", [](const CallView &c) {
        Json a = c.args;
        a["timeout"] = 60;
        return Verdict::modify(a, "clamped", "timeout clamped to 60");
    });
    h.add("strip", [](const CallView &c) {
        Json a = c.args;
        a.erase("path");
        a["file"] = "a.txt";
        return Verdict::modify(a, "renamed", "path is file");
    });
    h.add("allow", [](const CallView &) { return says(Action::Allow, "ok", "fine"); });
    const ChainOutcome o = h.before();
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.args.value(), Json({ { "file", "a.txt" }, { "timeout", 60 } }));
    QCOMPARE(o.patch, Json::diff(h.args, *o.args));
    QCOMPARE(trailToJson(o.trail)[0]["patch"],
        Json::parse(R"([{"op":"replace","path":"/timeout","value":60}])"));
    QCOMPARE(trailToJson(o.trail)[1]["patch"],
        Json::parse(
            R"([{"op":"remove","path":"/path"},{"op":"add","path":"/file","value":"a.txt"}])"));
}

void TestChain::verdicts_modifyDoesNotLetTheCallRunByItself()
{
    Harness h;
    h.add("rewrite", [](const CallView &) {
        return Verdict::modify({ { "path", "b" } }, "m", "moved");
    });
    const ChainOutcome o = h.before(DefaultAction::Ask);
    QCOMPARE(o.action, Action::Ask); // still up to a person
    QCOMPARE(o.args.value(), Json({ { "path", "b" } }));
}

void TestChain::verdicts_warnTravelsAndDoesNotDecide()
{
    Harness h;
    h.add("loop", [](const CallView &) {
        return says(Action::Warn, "exact_failure", "same call failed twice");
    });
    h.add("other", [](const CallView &) { return says(Action::Warn, "w2", "second"); });
    const ChainOutcome o = h.before(DefaultAction::Deny);
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.decidedBy, std::string("policy:default"));
    QCOMPARE(o.warnings.size(), std::size_t(2));
    QCOMPARE(o.warnings[0].guardrail, std::string("loop"));
    QCOMPARE(o.warnings[0].code, std::string("exact_failure"));
    QCOMPARE(o.warnings[0].message, std::string("same call failed twice"));
}

void TestChain::verdicts_askGoesOnAndLaterDenyWins()
{
    Harness h;
    h.add("asker", [](const CallView &) { return says(Action::Ask, "a", "a person should look"); });
    auto denier
        = h.add("denier", [](const CallView &) { return says(Action::Deny, "d", "never"); });
    const ChainOutcome o = h.before();
    QCOMPARE(denier->calls, 1);
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.reason, std::string("never"));
}

void TestChain::verdicts_firstAskGivesTheReason()
{
    Harness h;
    h.add("first", [](const CallView &) { return says(Action::Ask, "a1", "destructive tool"); });
    h.add("second", [](const CallView &) { return says(Action::Ask, "a2", "open world"); });
    h.add("allower", [](const CallView &) { return says(Action::Allow); });
    const ChainOutcome o = h.before(DefaultAction::Allow);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.reason, std::string("destructive tool"));
    QCOMPARE(o.code, std::string("a1"));
    QCOMPARE(o.decidedBy, std::string("guardrail:first"));
}

void TestChain::verdicts_allowRunsUnlessLaterAskDenyOrHalt_data()
{
    QTest::addColumn<int>("later");
    QTest::addColumn<int>("expected");
    QTest::newRow("nothing later") << int(Action::Pass) << int(Action::Allow);
    QTest::newRow("later allow") << int(Action::Allow) << int(Action::Allow);
    QTest::newRow("later ask") << int(Action::Ask) << int(Action::Ask);
    QTest::newRow("later deny") << int(Action::Deny) << int(Action::Deny);
    QTest::newRow("later halt") << int(Action::Halt) << int(Action::Halt);
}

void TestChain::verdicts_allowRunsUnlessLaterAskDenyOrHalt()
{
    QFETCH(int, later);
    QFETCH(int, expected);
    Harness h;
    h.add("rules", [](const CallView &) { return says(Action::Allow, "rule", "reads are fine"); });
    h.add("later", [later](const CallView &) { return says(Action(later), "l", "later says"); });
    const ChainOutcome o = h.before(DefaultAction::Deny);
    QCOMPARE(int(o.action), expected);
    if (Action(expected) == Action::Allow) {
        QCOMPARE(o.decidedBy, std::string("guardrail:rules"));
        QCOMPARE(o.reason, std::string("reads are fine"));
        QVERIFY(!o.args);
    }
}

void TestChain::outcome_defaultApplies_data()
{
    QTest::addColumn<int>("fallback");
    QTest::addColumn<int>("expected");
    QTest::addColumn<QString>("reason");
    QTest::newRow("ask") << int(DefaultAction::Ask) << int(Action::Ask)
                         << "no guardrail decided; the default policy is ask";
    QTest::newRow("allow") << int(DefaultAction::Allow) << int(Action::Allow)
                           << "no guardrail decided; the default policy is allow";
    QTest::newRow("deny") << int(DefaultAction::Deny) << int(Action::Deny)
                          << "no guardrail decided; the default policy is deny";
}

void TestChain::outcome_defaultApplies()
{
    QFETCH(int, fallback);
    QFETCH(int, expected);
    QFETCH(QString, reason);
    Harness h; // an empty chain: nothing decides
    const ChainOutcome o = h.before(DefaultAction(fallback));
    QCOMPARE(int(o.action), expected);
    QCOMPARE(o.decidedBy, std::string("policy:default"));
    QCOMPARE(toQString(o.reason), reason);
    QVERIFY(o.trail.empty());
}

void TestChain::outcome_defaultAllowWithRewriteIsModify()
{
    Harness h;
    h.add("rewrite", [](const CallView &) {
        return Verdict::modify({ { "path", "b" } }, "m", "moved");
    });
    const ChainOutcome o = h.before(DefaultAction::Allow);
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.decidedBy, std::string("policy:default"));
    QCOMPARE(o.args.value(), Json({ { "path", "b" } }));
}

void TestChain::failures_failClosed_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("throws std::exception") << 0 << "guardrail broken failed: threw: boom";
    QTest::newRow("throws something else")
        << 1 << "guardrail broken failed: threw an unknown exception";
    QTest::newRow("over its budget")
        << 2 << "guardrail broken failed: took 1500 us, over its budget of 1000 us";
    QTest::newRow("modify without args")
        << 3 << "guardrail broken failed: returned modify without an arguments object";
}

void TestChain::failures_failClosed()
{
    QFETCH(int, kind);
    QFETCH(QString, reason);
    Harness h;
    h.add("asker", [](const CallView &) { return says(Action::Allow); });
    h.add("broken", [kind](const CallView &) -> Verdict {
        switch (kind) {
        case 0:
            throw std::runtime_error("boom");
        case 1:
            throw 42;
        case 2:
            g_fakeNs += 1'500'000;
            return says(Action::Allow); // its verdict is discarded
        default:
            return says(Action::Modify);
        }
    });
    auto after = h.add("after", [](const CallView &) { return says(Action::Allow); });
    const ChainOutcome o = h.before(DefaultAction::Allow);
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.code, std::string("guardrail_error"));
    QCOMPARE(o.decidedBy, std::string("guardrail:broken"));
    QCOMPARE(toQString(o.reason), reason);
    QCOMPARE(after->calls, 0);
    const Json last = trailToJson(o.trail).back();
    QCOMPARE(last["action"], Json("error"));
    QCOMPARE(last["code"], Json("guardrail_error"));
    QCOMPARE(last["fail_open"], Json(false));
}

void TestChain::failures_failOpenGoesOnWithAWarning()
{
    Harness h;
    h.add(
        "broken", [](const CallView &) -> Verdict { throw std::runtime_error("boom"); },
        /*failOpen=*/true);
    auto after = h.add("after", [](const CallView &) { return says(Action::Allow, "ok", "fine"); });
    const ChainOutcome o = h.before(DefaultAction::Ask);
    QCOMPARE(after->calls, 1);
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.warnings.size(), std::size_t(1));
    QCOMPARE(o.warnings[0].code, std::string("guardrail_error"));
    QCOMPARE(
        o.warnings[0].message, std::string("guardrail broken failed (fail_open): threw: boom"));
    QCOMPARE(trailToJson(o.trail)[0]["action"], Json("error"));
    QCOMPARE(trailToJson(o.trail)[0]["fail_open"], Json(true));
}

void TestChain::failures_turnMarkerThrowIsContained()
{
    Harness h;
    auto g = h.add("fragile", [](const CallView &) { return Verdict::pass(); });
    g->throwOnTurn = true;
    h.chain.onTurnStart("s1", "t1");
    const auto health = h.chain.health();
    QCOMPARE(health.size(), std::size_t(1));
    QVERIFY(!health[0].ok);
    QCOMPARE(health[0].detail, std::string("threw on a turn marker"));
    QCOMPARE(h.chain.takeTurnFailures(), std::vector<std::string> { "fragile" });
    QVERIFY(h.chain.takeTurnFailures().empty());
    QVERIFY(h.chain.health()[0].ok);
}

void TestChain::afterTheCall_allowWarnHalt()
{
    Harness h;
    auto a = h.add("a", [](const CallView &) { return Verdict::pass(); });
    auto b = h.add("b", [](const CallView &) { return Verdict::pass(); });
    auto c = h.add("c", [](const CallView &) { return Verdict::pass(); });
    QCOMPARE(h.afterCall().action, Action::Allow);

    a->after = [](const CallView &) { return says(Action::Warn, "w1", "first warning"); };
    b->after = [](const CallView &) { return says(Action::Warn, "w2", "second warning"); };
    AfterOutcome o = h.afterCall();
    QCOMPARE(o.action, Action::Warn);
    QCOMPARE(o.reason, std::string("first warning; second warning"));
    QCOMPARE(o.warnings.size(), std::size_t(2));

    b->after = [](const CallView &) { return says(Action::Halt, "loop", "same failure 8 times"); };
    const int cBefore = c->afterCalls;
    o = h.afterCall();
    QCOMPARE(o.action, Action::Halt);
    QCOMPARE(o.reason, std::string("same failure 8 times"));
    QCOMPARE(c->afterCalls, cBefore); // short-circuited
}

void TestChain::afterTheCall_failureHaltsUnlessFailOpen()
{
    for (const bool failOpen : { false, true }) {
        Harness h;
        auto g = h.add(
            "broken", [](const CallView &) { return Verdict::pass(); }, failOpen);
        g->after = [](const CallView &) -> Verdict { throw std::runtime_error("boom"); };
        const AfterOutcome o = h.afterCall();
        QCOMPARE(o.action, failOpen ? Action::Warn : Action::Halt);
        QCOMPARE(o.reason,
            std::string("guardrail broken failed: threw: boom") + (failOpen ? " (fail_open)" : ""));
    }
}

QTEST_GUILESS_MAIN(TestChain)
#include "tst_chain.moc"
