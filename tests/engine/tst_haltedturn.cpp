// SPDX-License-Identifier: Apache-2.0
// A halt halts the rest of its turn (PROTOCOL.md "Halting"): calls an
// agent sends after it was halted are halted again at once, until the turn
// ends; the pure rules of engine/haltedturn.h first, then
// through the broker for a reviewer's, a guardrail's and an after-call halt.

#include "engine/enginefixture.h"
#include "engine/haltedturn.h"

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

class TestHaltedTurn : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rules();
    void laterCallsOfAReviewerHaltedTurnAreHalted();
    void aGuardrailHaltHaltsTheTurnBeforeAnyAllow();
    void anAfterCallHaltHaltsTheTurn();
    void aHaltReasonKeepsNoSecret();
    void aHaltOutsideATurnHoldsNothing();
    void turnEndEndsTheHalt();
};

namespace {

Decision haltBy(const std::string &reason, const std::string &who)
{
    Decision d;
    d.kind = DecisionKind::Halt;
    d.reason = reason;
    d.decidedBy = who;
    return d;
}

const Json SecretArgs = { { "url", "https://deploy.test/" },
    { "headers", { { "Authorization", "Bearer AKIAIOSFODNN7EXAMPLE" } } } };
constexpr std::string_view Secret = "AKIAIOSFODNN7EXAMPLE";

// Halts `deploy` before it runs and every call after it ran, with a reason
// that quotes the call's arguments, as a guardrail of the user's may.
class QuotingHalter final : public Guardrail
{
public:
    std::string_view name() const override { return "quoting"; }
    Verdict beforeCall(const CallView &call, const GuardContext &) override
    {
        return call.toolName == "deploy"
            ? Verdict::make(Action::Halt, "stop", "saw " + dumpJson(call.args))
            : Verdict::pass();
    }
    Verdict afterCall(const CallView &call, const ResultView &, const GuardContext &) override
    {
        return Verdict::make(Action::Halt, "stop", "saw " + dumpJson(call.args));
    }
};

} // namespace

void TestHaltedTurn::rules()
{
    const std::optional<std::string> none;
    const std::optional<std::string> t1 = std::string("t1"), t2 = std::string("t2");
    Decision allow;
    allow.kind = DecisionKind::Allow;
    QVERIFY(!afterDecision(std::nullopt, t1, allow));
    // Outside a turn a halt holds nothing after it.
    QVERIFY(!afterDecision(std::nullopt, none, haltBy("runaway", "human:alice")));

    const auto halted = afterDecision(std::nullopt, t1, haltBy("runaway", "human:alice"));
    QVERIFY(halted);
    QCOMPARE(halted->turnId, std::string("t1"));
    QVERIFY(inHaltedTurn(*halted, t1));
    QVERIFY(!inHaltedTurn(*halted, t2));
    QVERIFY(inHaltedTurn(*halted, none)); // cannot show it is another turn

    // Its own repeats, and another halt of the same turn, keep the first reason.
    const Decision repeat = haltedTurnDecision(*halted);
    QCOMPARE(repeat.kind, DecisionKind::Halt);
    QCOMPARE(repeat.code, std::string("turn_halted"));
    QCOMPARE(repeat.decidedBy, std::string("human:alice"));
    QCOMPARE(repeat.reason,
        std::string("the run was halted (runaway); no tool call runs for the rest of this turn"));
    QCOMPARE(afterDecision(halted, t1, repeat)->reason, std::string("runaway"));
    QCOMPARE(afterDecision(halted, none, repeat)->reason, std::string("runaway"));
    QCOMPARE(afterDecision(halted, t1, haltBy("again", "guardrail:rules"))->reason,
        std::string("runaway"));
    // A halt in another turn replaces it.
    QCOMPARE(
        afterDecision(halted, t2, haltBy("again", "guardrail:rules"))->turnId, std::string("t2"));
    QCOMPARE(haltedTurnDecision(HaltedTurn { "t", "", "guardrail:rules" }).reason,
        std::string(
            "the run was halted (no reason given); no tool call runs for the rest of this turn"));
}

void TestHaltedTurn::laterCallsOfAReviewerHaltedTurnAreHalted()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId other = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1", { { "n", 1 } }, "bash", std::nullopt, std::string("turn-1"));
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Halt, "runaway").ok);
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("halt"));

    // The agent ignored the halt and sends the turn's next call: halted at
    // once, nobody asked, the reason says the run was halted.
    f.call(a, "c2", { { "n", 2 } }, "bash", std::nullopt, std::string("turn-1"));
    QCOMPARE(f.queue.size(), 0);
    QCOMPARE(f.out.ofType(a, "pending").size(), std::size_t(1)); // c1 only
    QCOMPARE(f.out.last(a, "decision"),
        Json::parse(
            R"({"type":"decision","call_id":"c2","decision":"halt","reason":"the run was halted (runaway); no tool call runs for the rest of this turn","decided_by":"human:alice","code":"turn_halted","warnings":[]})"));
    QCOMPARE(f.out.ofType(r, "escalated").size(), std::size_t(1)); // c1 only
    // Re-sending it gets the same decision, byte for byte.
    f.call(a, "c2", { { "n", 2 } }, "bash", std::nullopt, std::string("turn-1"));
    QCOMPARE(f.out.raw[a].back(), f.out.raw[a][f.out.raw[a].size() - 2]);

    // The next turn, and another session's turn of the same name, are asked as usual.
    f.call(a, "c3", { { "n", 3 } }, "bash", std::nullopt, std::string("turn-2"));
    f.call(other, "c4", { { "n", 4 } }, "bash", std::nullopt, std::string("turn-1"));
    QCOMPARE(f.queue.size(), 2);
    QVERIFY(!f.itemOf("c3").empty());
    QVERIFY(!f.itemOf("c4").empty());
}

void TestHaltedTurn::aGuardrailHaltHaltsTheTurnBeforeAnyAllow()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[
        {"when":{"tool":"bash","args":{"command":{"glob":"sudo *"}}},"action":"halt","reason":"no root"}]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "command", "ls" } }, "bash", std::nullopt, std::string("t"));
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
    f.call(a, "c2", { { "command", "sudo ls" } }, "bash", std::nullopt, std::string("t"));
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("halt"));
    QCOMPARE(f.out.last(a, "decision")["reason"], Json("no root"));
    // The default would allow this one; the halted turn does not.
    f.call(a, "c3", { { "command", "ls" } }, "bash", std::nullopt, std::string("t"));
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["call_id"], Json("c3"));
    QCOMPARE(d["decision"], Json("halt"));
    QCOMPARE(d["decided_by"], Json("guardrail:rules"));
    QCOMPARE(d["code"], Json("turn_halted"));
    QCOMPARE(d["reason"],
        Json("the run was halted (no root); no tool call runs for the rest of this turn"));
    // A call that names no turn cannot show another turn began: halted too.
    f.call(a, "c4", { { "command", "ls" } }, "bash");
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("halt"));
    f.call(a, "c5", { { "command", "ls" } }, "bash", std::nullopt, std::string("t2"));
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
}

void TestHaltedTurn::anAfterCallHaltHaltsTheTurn()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[
        {"type":"loop_detection","same_tool_failure":{"warn":1,"halt":2}}]})"));
    const ConnectionId a = f.agent();
    for (int n : { 1, 2 }) {
        const std::string id = "c" + std::to_string(n);
        f.call(a, id, { { "n", n } }, "bash", std::nullopt, std::string("t"));
        QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
        ToolResult result;
        result.callId = id;
        result.ok = false;
        f.broker.onMessage(a, Message(result));
    }
    QCOMPARE(f.out.last(a, "after_call")["action"], Json("halt"));
    f.call(a, "c3", { { "n", 3 } }, "read_file", std::nullopt, std::string("t"));
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("halt"));
    QCOMPARE(f.out.last(a, "decision")["decided_by"], Json("guardrail:loop_detection"));
    QCOMPARE(f.out.last(a, "decision")["code"], Json("turn_halted"));
}

void TestHaltedTurn::aHaltOutsideATurnHoldsNothing()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Halt, "stop").ok);
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("halt"));
    // As before turns were held: the next call is asked about as usual.
    f.call(a, "c2", { { "path", "b.txt" } });
    QCOMPARE(f.queue.size(), 1);
    QVERIFY(!f.itemOf("c2").empty());
}

void TestHaltedTurn::turnEndEndsTheHalt()
{
    Fixture f;
    const ConnectionId a = f.agent();
    TurnStart start;
    start.turnId = "t1";
    f.broker.onMessage(a, Message(start));
    f.call(a, "c1"); // in t1, the session's current turn
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Halt, "stop").ok);
    f.call(a, "c2", { { "path", "b.txt" } });
    QCOMPARE(f.out.last(a, "decision")["code"], Json("turn_halted"));
    TurnEnd end;
    end.turnId = "t1";
    f.broker.onMessage(a, Message(end));
    f.call(a, "c3", { { "path", "c.txt" } });
    QCOMPARE(f.queue.size(), 1);
    QVERIFY(!f.itemOf("c3").empty());
}

// A halt's reason may quote the call it stopped. The rest of its turn
// hears that reason and the records keep it, so the call's secrets are
// masked there: after the call ran, and before it could.
void TestHaltedTurn::aHaltReasonKeepsNoSecret()
{
    Fixture f;
    std::vector<std::string> records;
    connect(&f.broker, &Broker::activity, this,
        [&records](const Json &record) { records.push_back(dumpJson(record)); });
    Policy policy = policyOf(R"({"default":"allow","guardrails":[{"type":"secrets"}]})");
    policy.chain->add(
        { std::make_shared<QuotingHalter>(), false, std::chrono::microseconds(100'000) });
    f.broker.setPolicy(policy);
    const ConnectionId a = f.agent();

    // After the call ran: secrets asked, a person approved, the result halts the turn.
    f.call(a, "c1", SecretArgs, "http_request", std::nullopt, std::string("t1"));
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
    ToolResult result;
    result.callId = "c1";
    result.ok = true;
    result.result = "done";
    f.broker.onMessage(a, Message(result));
    f.call(a, "c2", { { "path", "x" } }, "read_file", std::nullopt, std::string("t1"));
    Json d = f.out.last(a, "decision");
    QCOMPARE(d["code"], Json("turn_halted"));
    QVERIFY2(d["reason"].get<std::string>().find("saw {") != std::string::npos, d.dump().c_str());
    QVERIFY2(d["reason"].get<std::string>().find(Secret) == std::string::npos, d.dump().c_str());

    // Before it could run: the agent hears its own call's reason, the record a masked one.
    f.call(a, "c3", SecretArgs, "deploy", std::nullopt, std::string("t2"));
    d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("halt"));
    QVERIFY(d["reason"].get<std::string>().find(Secret) != std::string::npos);
    f.call(a, "c4", { { "path", "x" } }, "read_file", std::nullopt, std::string("t2"));
    d = f.out.last(a, "decision");
    QCOMPARE(d["code"], Json("turn_halted"));
    QVERIFY2(d["reason"].get<std::string>().find(Secret) == std::string::npos, d.dump().c_str());

    QVERIFY(records.size() >= 8);
    for (const std::string &record : records)
        QVERIFY2(record.find(Secret) == std::string::npos, record.c_str());
}

QTEST_GUILESS_MAIN(TestHaltedTurn)
#include "tst_haltedturn.moc"
