// SPDX-License-Identifier: Apache-2.0
// loop_detection at exactly its thresholds, per turn.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "guardrails/chain.h"
#include "guardrails/loopdetection.h"
#include "policy/policy.h"

#include <QTest>

using namespace holdpoint;

namespace {

struct Turn
{
    explicit Turn(const std::string &policyText
        = R"({"default":"allow","guardrails":[{"type":"loop_detection"}]})")
        : policy(test::policyOf(policyText))
    { }
    // One call: the before-call outcome, and if it ran, the after-call one.
    std::pair<ChainOutcome, std::optional<AfterOutcome>> call(const std::string &tool,
        const Json &args, bool ok, const Json &result = "boom",
        const Json &annotations = Json::object())
    {
        const protocol::AgentInfo agent { "coder", {} };
        const std::string callId = "c" + std::to_string(++calls);
        const Json context = Json::object();
        const CallView view { session, agent, callId, tool, args, annotations, context, turn };
        ChainOutcome before = policy.chain->beforeCall(view, { now }, policy.defaultAction);
        if (before.action != Action::Allow)
            return { before, std::nullopt };
        return { before, policy.chain->afterCall(view, { ok, result }, { now }) };
    }
    LoopDetectionGuardrail &guardrail()
    {
        return static_cast<LoopDetectionGuardrail &>(*policy.chain->entries().at(0).guardrail);
    }

    Policy policy;
    std::string session = "s1";
    std::optional<std::string> turn = std::string("t1");
    TimeMs now = 1000;
    int calls = 0;
};

} // namespace

class TestLoopDetection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void exactFailureWarnsAtTwoBlocksAtFive();
    void sameToolFailureWarnsAtThreeHaltsAtEight();
    void readOnlyNoProgressWarnsAtTwoBlocksAtFive();
    void progressResetsNoProgress();
    void onlyReadOnlyToolsCountForNoProgress();
    void countersResetAtTurnStart();
    void eitherRecordAloneBlocks();
    void implicitTurnWithoutMarkers();
    void callsWithoutResultsKeepNoTurn();
    void manyTurnsForgetWhatMattersLeast();
    void eventsAreKeptAgainstTheirTurn();
    void findingsStandAsTheTurnDoes();
    void noProgressFindingEndsWithProgress();
    void thresholdsAreConfigurable();
    void configurationErrors_data();
    void configurationErrors();
};

void TestLoopDetection::exactFailureWarnsAtTwoBlocksAtFive()
{
    Turn t;
    const Json args = { { "command", "pytest" } };
    QCOMPARE(t.call("bash", args, false).second->action, Action::Allow); // 1st failure
    for (int n = 2; n <= 5; ++n) {
        const auto [before, after] = t.call("bash", args, false);
        QCOMPARE(before.action, Action::Allow);
        QCOMPARE(after->action, Action::Warn);
        QCOMPARE(after->warnings.at(0).code, std::string("exact_failure"));
        QCOMPARE(after->reason,
            "this exact bash call failed " + std::to_string(n) + " times in this turn");
    }
    const auto [blocked, none] = t.call("bash", args, false);
    QCOMPARE(blocked.action, Action::Deny);
    QCOMPARE(blocked.code, std::string("exact_failure"));
    QCOMPARE(
        blocked.reason, std::string("blocked: this exact bash call failed 5 times in this turn"));
    QVERIFY(!none);
    // Other arguments are not blocked.
    QCOMPARE(t.call("bash", { { "command", "ls" } }, true).first.action, Action::Allow);
}

void TestLoopDetection::sameToolFailureWarnsAtThreeHaltsAtEight()
{
    Turn t;
    auto fail = [&](int i) {
        return t.call("bash", { { "command", "try " + std::to_string(i) } }, false);
    };
    QCOMPARE(fail(1).second->action, Action::Allow);
    QCOMPARE(fail(2).second->action, Action::Allow);
    for (int n = 3; n <= 7; ++n) {
        const AfterOutcome a = *fail(n).second;
        QCOMPARE(a.action, Action::Warn);
        QCOMPARE(a.warnings.at(0).code, std::string("same_tool_failure"));
        QCOMPARE(a.reason, "bash failed " + std::to_string(n) + " times in this turn");
    }
    const AfterOutcome eighth = *fail(8).second;
    QCOMPARE(eighth.action, Action::Halt);
    QCOMPARE(eighth.reason, std::string("bash failed 8 times in this turn; halting the turn"));
    const ChainOutcome next = fail(9).first;
    QCOMPARE(next.action, Action::Halt);
    QCOMPARE(next.code, std::string("same_tool_failure"));
    QCOMPARE(t.call("read", { { "path", "x" } }, true, "data").first.action,
        Action::Allow); // other tools go on
}

void TestLoopDetection::readOnlyNoProgressWarnsAtTwoBlocksAtFive()
{
    Turn t;
    const Json args = { { "path", "status.txt" } };
    QCOMPARE(t.call("Read", args, true, "pending").second->action, Action::Allow);
    for (int n = 2; n <= 5; ++n) {
        const AfterOutcome a = *t.call("Read", args, true, "pending").second;
        QCOMPARE(a.action, Action::Warn);
        QCOMPARE(a.warnings.at(0).code, std::string("no_progress"));
        QCOMPARE(
            a.reason, "Read returned the same result " + std::to_string(n) + " times in this turn");
    }
    const ChainOutcome blocked = t.call("Read", args, true, "pending").first;
    QCOMPARE(blocked.action, Action::Deny);
    QCOMPARE(
        blocked.reason, std::string("blocked: Read returned the same result 5 times in this turn"));
}

void TestLoopDetection::progressResetsNoProgress()
{
    Turn t;
    const Json args = { { "path", "status.txt" } };
    t.call("read", args, true, "pending");
    QCOMPARE(t.call("read", args, true, "pending").second->action, Action::Warn);
    QCOMPARE(t.call("read", args, true, "done").second->action,
        Action::Allow); // a new result is progress
    QCOMPARE(t.call("read", args, true, "done").second->action, Action::Warn);
}

void TestLoopDetection::onlyReadOnlyToolsCountForNoProgress()
{
    Turn t;
    const Json args = { { "x", 1 } };
    for (int i = 0; i < 6; ++i)
        QCOMPARE(t.call("deploy", args, true, "ok").second->action, Action::Allow);
    // ...unless the tool says it is read-only, or the name normalises to a listed one.
    const Json ro = { { "readOnlyHint", true } };
    t.call("deploy_status", args, true, "ok", ro);
    QCOMPARE(t.call("deploy_status", args, true, "ok", ro).second->action, Action::Warn);
    t.call("web-search", { { "q", "x" } }, true, "r");
    QCOMPARE(t.call("WebSearch", { { "q", "x" } }, true, "r").second->action,
        Action::Allow); // another tool name, another call
    QCOMPARE(t.call("web-search", { { "q", "x" } }, true, "r").second->action, Action::Warn);
    // readOnlyHint false wins over the name list.
    const Json rw = { { "readOnlyHint", false } };
    t.call("read", { { "p", 2 } }, true, "same", rw);
    QCOMPARE(t.call("read", { { "p", 2 } }, true, "same", rw).second->action, Action::Allow);
}

void TestLoopDetection::countersResetAtTurnStart()
{
    Turn t;
    const Json args = { { "command", "pytest" } };
    for (int i = 0; i < 5; ++i)
        t.call("bash", args, false);
    QCOMPARE(t.call("bash", args, false).first.action, Action::Deny);
    t.policy.chain->onTurnStart("s1", "t1"); // the same turn id again
    QCOMPARE(t.call("bash", args, false).second->action, Action::Allow);
    t.turn = "t2"; // and a new turn starts from nothing
    QCOMPARE(t.call("bash", args, false).second->action, Action::Allow);
}

// A call is hashed only when its turn holds a failure or a read-only result:
// each kind of record, with none of the other, must still block.
void TestLoopDetection::eitherRecordAloneBlocks()
{
    Turn t;
    const Json args = { { "command", "pytest" }, { "env", { { "CI", "1" } } } };
    for (int i = 0; i < 5; ++i)
        t.call("bash", args, false); // failures only, nothing read-only
    QCOMPARE(t.call("bash", args, false).first.code, std::string("exact_failure"));
    QCOMPARE(t.call("bash", { { "env", { { "CI", "1" } } }, { "command", "pytest" } }, false)
                 .first.action,
        Action::Deny);

    t.turn = "t2"; // read-only results only, no failure
    const Json path = { { "path", "status.txt" } };
    for (int i = 0; i < 5; ++i)
        t.call("read", path, true, "pending");
    QCOMPARE(t.call("read", path, true, "pending").first.code, std::string("no_progress"));
    QCOMPARE(t.call("bash", args, false).first.action, Action::Allow); // not this turn's failure
}

void TestLoopDetection::implicitTurnWithoutMarkers()
{
    Turn t;
    t.turn.reset();
    const Json args = { { "command", "pytest" } };
    t.call("bash", args, false);
    QCOMPARE(t.call("bash", args, false).second->action, Action::Warn);
    t.session = "s2"; // another session's implicit turn is its own
    QCOMPARE(t.call("bash", args, false).second->action, Action::Allow);
}

// A call is checked against its turn's record without adding to it: only
// results make a turn's record, so turns that only ask (here 1,500 new
// sessions, more than the 1,000 turns kept) push no record out.
void TestLoopDetection::callsWithoutResultsKeepNoTurn()
{
    Turn t;
    const Json args = { { "command", "pytest" } };
    for (int n = 1; n <= 8; ++n) // different arguments, so none is blocked as an exact repeat
        t.call("bash", { { "command", "pytest -k " + std::to_string(n) } }, false);
    const protocol::AgentInfo agent { "coder", {} };
    const std::string callId = "c", tool = "bash";
    const Json context = Json::object(), annotations = Json::object();
    for (int i = 0; i < 1500; ++i) {
        const std::string session = "other" + std::to_string(i);
        const CallView view { session, agent, callId, tool, args, annotations, context, t.turn };
        QCOMPARE(t.policy.chain->beforeCall(view, { t.now }, t.policy.defaultAction).action,
            Action::Allow);
        QVERIFY(t.guardrail().events(session, "t1").empty());
        QVERIFY(t.guardrail().turnFindings(session, "t1").empty());
    }
    const auto [halted, none] = t.call("bash", { { "command", "ls" } }, true);
    QCOMPARE(halted.action, Action::Halt);
    QCOMPARE(halted.code, std::string("same_tool_failure"));
    QVERIFY(!none);
    QCOMPARE(t.guardrail().events("s1", "t1").back().action, std::string("halt"));
}

// Past 1,000 turns with results, one is forgotten: the oldest with nothing
// on record, before any with failures, before any where a pattern fired;
// whichever of them came first.
void TestLoopDetection::manyTurnsForgetWhatMattersLeast()
{
    Turn t;
    auto in = [&t](const std::string &session) -> Turn & {
        t.session = session;
        return t;
    };
    const protocol::AgentInfo agent { "coder", {} };
    const Json args = { { "command", "make" } }, context = Json::object(),
               annotations = Json::object();
    const std::string tool = "bash";
    // 999 sessions ask first; their results come only after s1 has failed
    // eight times and "twice" twice.
    for (int i = 0; i < 999; ++i) {
        const std::string session = "early" + std::to_string(i);
        const CallView view { session, agent, "c", tool, args, annotations, context, t.turn };
        QCOMPARE(t.policy.chain->beforeCall(view, { t.now }, t.policy.defaultAction).action,
            Action::Allow);
    }
    for (int n = 1; n <= 8; ++n)
        in("s1").call("bash", { { "command", "make " + std::to_string(n) } }, false);
    in("twice").call("bash", { { "command", "a" } }, false);
    in("twice").call("bash", { { "command", "b" } }, false);
    for (int i = 0; i < 999; ++i) {
        const std::string session = "early" + std::to_string(i);
        const CallView view { session, agent, "c", tool, args, annotations, context, t.turn };
        QCOMPARE(
            t.policy.chain->afterCall(view, { true, "built" }, { t.now }).action, Action::Allow);
    }
    for (int i = 0; i < 500; ++i)
        in("late" + std::to_string(i)).call("bash", args, true, "built");
    // 1,501 turns made; the forgotten 501 are early ones, each with nothing on record.
    QCOMPARE(in("s1").call("bash", { { "command", "ls" } }, true).first.action, Action::Halt);
    const auto third = in("twice").call("bash", { { "command", "c" } }, false);
    QCOMPARE(third.second->action, Action::Warn);
    QCOMPARE(third.second->reason, std::string("bash failed 3 times in this turn"));

    // When every turn kept has fired, the oldest goes.
    Turn w;
    for (int i = 0; i <= 1000; ++i) {
        w.session = "w" + std::to_string(i);
        w.call("bash", args, false);
        QCOMPARE(w.call("bash", args, false).second->action, Action::Warn);
    }
    QVERIFY(w.guardrail().events("w0", "t1").empty());
    QCOMPARE(w.guardrail().events("w1", "t1").size(), std::size_t(1));
    QCOMPARE(w.guardrail().events("w1000", "t1").size(), std::size_t(1));

    // Two turns still counting, each new when the other comes: neither
    // pushes the other out, though every older turn has fired.
    for (int n = 1; n <= 8; ++n) {
        for (const char *session : { "a", "b" }) {
            w.session = session;
            const auto [before, after]
                = w.call("bash", { { "command", "try " + std::to_string(n) } }, false);
            QCOMPARE(before.action, Action::Allow);
            QCOMPARE(
                after->action, n >= 3 ? (n == 8 ? Action::Halt : Action::Warn) : Action::Allow);
        }
    }
}

void TestLoopDetection::eventsAreKeptAgainstTheirTurn()
{
    Turn t;
    const Json args = { { "command", "pytest" } };
    for (int i = 0; i < 6; ++i) {
        t.now += 10;
        t.call("bash", args, false);
    }
    t.policy.chain->onTurnStart("s1", "t1");
    const auto events = t.guardrail().events("s1", "t1");
    QCOMPARE(events.size(), std::size_t(5)); // warn at 2, 3, 4, 5, then the block
    QCOMPARE(events[0].pattern, std::string("exact_failure"));
    QCOMPARE(events[0].action, std::string("warn"));
    QCOMPARE(events[0].count, 2);
    QCOMPARE(events[0].threshold, 2);
    QCOMPARE(events[0].at, TimeMs(1020));
    QCOMPARE(events[4].action, std::string("block"));
    QCOMPARE(events[4].count, 5);
    QVERIFY(t.guardrail().events("s1", "other").empty());
}

void TestLoopDetection::findingsStandAsTheTurnDoes()
{
    Turn t;
    const Json args = { { "command", "pytest" } };
    t.call("bash", args, false); // c1
    QVERIFY(t.policy.chain->turnFindings("s1", "t1").empty()); // below every warn threshold
    t.call("bash", { { "command", "ls" } }, true); // c2: succeeds, counts nowhere
    t.call("bash", args, false); // c3
    t.call("bash", args, false); // c4
    QCOMPARE(
        protocol::turnFindingsToJson(t.policy.chain->turnFindings("s1", "t1")), Json::parse(R"([
        {"guardrail":"loop_detection","pattern":"exact_failure","level":"warn","tool_name":"bash","count":3,
         "warn_at":2,"stop_at":5,"call_ids":["c1","c3","c4"],"message":"this exact bash call failed 3 times in this turn"},
        {"guardrail":"loop_detection","pattern":"same_tool_failure","level":"warn","tool_name":"bash","count":3,
         "warn_at":3,"stop_at":8,"call_ids":["c1","c3","c4"],"message":"bash failed 3 times in this turn"}])"));
    QCOMPARE(protocol::turnFindingHint(t.policy.chain->turnFindings("s1", "t1").at(0)),
        std::string("agent is retrying a failing call (3/5)"));

    t.call("bash", args, false);
    t.call("bash", args, false);
    const auto stopped = t.policy.chain->turnFindings("s1", "t1");
    QCOMPARE(stopped.at(0).level, std::string("block")); // the next such call is refused
    QCOMPARE(stopped.at(0).count, 5);
    QCOMPARE(t.call("bash", args, false).first.action, Action::Deny);
    QCOMPARE(t.policy.chain->turnFindings("s1", "t1"), stopped); // a refused call adds nothing

    QVERIFY(t.policy.chain->turnFindings("s1", "t2").empty());
    QVERIFY(t.policy.chain->turnFindings("s2", "t1").empty());
    t.policy.chain->onTurnStart("s1", "t1"); // the turn starts over
    QVERIFY(t.policy.chain->turnFindings("s1", "t1").empty());
}

void TestLoopDetection::noProgressFindingEndsWithProgress()
{
    Turn t;
    t.turn.reset(); // a session without turn markers: its turn is ""
    const Json args = { { "path", "README.md" } };
    t.call("read", args, true, "same");
    t.call("read", args, true, "same");
    const auto findings = t.policy.chain->turnFindings("s1", "");
    QCOMPARE(findings.size(), std::size_t(1));
    QCOMPARE(findings[0].pattern, std::string("no_progress"));
    QCOMPARE(findings[0].callIds, (std::vector<std::string> { "c1", "c2" }));
    QCOMPARE(protocol::turnFindingHint(findings[0]),
        std::string("agent gets the same result again (2/5)"));
    t.call("read", args, true, "changed");
    QVERIFY(t.policy.chain->turnFindings("s1", "").empty());
}

void TestLoopDetection::thresholdsAreConfigurable()
{
    Turn t(
        R"({"default":"allow","guardrails":[{"type":"loop_detection","exact_failure":{"warn":1,"block":2},"read_only_tools":["status"]}]})");
    const Json args = { { "x", 1 } };
    QCOMPARE(t.call("bash", args, false).second->action, Action::Warn);
    t.call("bash", args, false);
    QCOMPARE(t.call("bash", args, false).first.action, Action::Deny);
    t.call("read", args, true, "same");
    QCOMPARE(
        t.call("read", args, true, "same").second->action, Action::Allow); // no longer read-only
}

void TestLoopDetection::configurationErrors_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown key")
        << R"({"guardrails":[{"type":"loop_detection","exact":{}}]})"
        << "p.json: guardrails[0].exact: unknown key (expected one of: type, name, fail_open, "
           "budget_ms, exact_failure, same_tool_failure, no_progress, read_only_tools)";
    QTest::newRow("wrong stop key")
        << R"({"guardrails":[{"type":"loop_detection","same_tool_failure":{"block":3}}]})"
        << "p.json: guardrails[0].same_tool_failure.block: unknown key (expected one of: warn, "
           "halt)";
    QTest::newRow("stop below warn")
        << R"({"guardrails":[{"type":"loop_detection","exact_failure":{"warn":4,"block":3}}]})"
        << "p.json: guardrails[0].exact_failure.block: must not be below warn (4)";
    QTest::newRow("zero")
        << R"({"guardrails":[{"type":"loop_detection","no_progress":{"warn":0}}]})"
        << "p.json: guardrails[0].no_progress.warn: expected a number from 1 to 1000000, got 0";
}

void TestLoopDetection::configurationErrors()
{
    QFETCH(QString, policy);
    QFETCH(QString, error);
    QCOMPARE(test::policyError(policy.toStdString()), error);
}

QTEST_GUILESS_MAIN(TestLoopDetection)
#include "tst_loopdetection.moc"
