#include "common/policies.h"
#include "guardrails/chain.h"
#include "server/broker.h"

#include <QSignalSpy>
#include "common/jsoncompare.h"

#include <QTest>

#include <map>

using namespace holdpoint;
using namespace holdpoint::protocol;
using holdpoint::test::policyOf;

namespace {

class Recorder final : public Outbound
{
public:
    void send(ConnectionId c, const std::string &text) override
    {
        sent[c].push_back(Json::parse(text));
        raw[c].push_back(text);
    }
    void close(ConnectionId c, CloseCode code, const std::string &) override { closed[c] = code; }

    std::vector<Json> ofType(ConnectionId c, const std::string &type) const
    {
        std::vector<Json> out;
        if (auto it = sent.find(c); it != sent.end())
            for (const auto &j : it->second)
                if (j.value("type", std::string()) == type)
                    out.push_back(j);
        return out;
    }
    Json last(ConnectionId c, const std::string &type) const
    {
        auto all = ofType(c, type);
        return all.empty() ? Json() : all.back();
    }

    std::map<ConnectionId, std::vector<Json>> sent;
    std::map<ConnectionId, std::vector<std::string>> raw;
    std::map<ConnectionId, CloseCode> closed;
};

struct Fixture
{
    explicit Fixture(BrokerConfig config = {})
        : broker(&queue, &out, withDefaults(std::move(config)))
    {
    }
    static BrokerConfig withDefaults(BrokerConfig c)
    {
        c.reviewerName = "alice";
        c.serverName = "holdpoint/test";
        return c;
    }

    ConnectionId agent(const std::optional<std::string> &session = std::nullopt, const std::string &name = "coder")
    {
        const ConnectionId cid = next++;
        Hello h;
        h.token = "x";
        h.agent = {name, "autogen"};
        h.sessionId = session;
        broker.onHello(cid, h);
        return cid;
    }
    ConnectionId reviewer()
    {
        const ConnectionId cid = next++;
        Hello h;
        h.token = "x";
        h.role = Role::Reviewer;
        broker.onHello(cid, h);
        return cid;
    }
    void call(ConnectionId cid, const std::string &callId, const Json &args = {{"path", "a.txt"}},
              const std::string &tool = "write_file", std::optional<double> timeoutS = std::nullopt,
              std::optional<std::string> turn = std::nullopt)
    {
        ToolCall c;
        c.callId = callId;
        c.toolName = tool;
        c.args = args;
        c.timeoutS = timeoutS;
        c.turnId = std::move(turn);
        broker.onMessage(cid, Message(std::move(c)));
    }
    std::string itemOf(const std::string &callId) const
    {
        for (int r = 0; r < queue.size(); ++r)
            if (queue.at(r).callId == callId)
                return queue.at(r).id;
        return {};
    }
    ReviewOutcome review(const std::string &id, ReviewAction action, const std::string &reason = {},
                         std::optional<Json> args = std::nullopt)
    {
        Review r;
        r.id = id;
        r.action = action;
        r.reason = reason;
        r.args = std::move(args);
        return broker.review(r, broker.humanDecider());
    }
    std::string sessionOf(ConnectionId cid) const { return out.last(cid, "welcome").value("session_id", std::string()); }

    ManualClock clock {1'000'000};
    ReviewQueue queue {&clock};
    Recorder out;
    Broker broker;
    ConnectionId next = 1;
};


// Warns after a failed call, and records the turn markers it sees.
class AfterWatcher final : public Guardrail
{
public:
    std::string_view name() const override { return "watcher"; }
    Verdict beforeCall(const CallView &, const GuardContext &) override { return Verdict::pass(); }
    Verdict afterCall(const CallView &call, const ResultView &result, const GuardContext &) override
    {
        ++afterCalls;
        lastArgs = call.args;
        return result.ok ? Verdict::pass() : Verdict::make(Action::Warn, "failed", call.toolName + " failed");
    }
    void onTurnStart(const std::string &session, const std::string &turn) override { turns.push_back("start " + session + " " + turn); }
    void onTurnEnd(const std::string &session, const std::string &turn) override { turns.push_back("end " + session + " " + turn); }
    int afterCalls = 0;
    Json lastArgs;
    std::vector<std::string> turns;
};

} // namespace

class TestBroker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void welcomeAssignsOrKeepsSession();
    void everyCallEscalatesWithDefaultAsk();
    void reviewActionsDeliverDecisions_data();
    void reviewActionsDeliverDecisions();
    void reviewRefusals_data();
    void reviewRefusals();
    void duplicateWhilePendingIsTheSameItem();
    void duplicateAfterDecisionGetsTheSameDecision();
    void conflictingCallIdIsRefused_data();
    void conflictingCallIdIsRefused();
    void sameCallIdInAnotherSessionIsSeparate();
    void timeoutMayShortenButNotLengthen_data();
    void timeoutMayShortenButNotLengthen();
    void timeoutDeniesTheAgent();
    void disconnectStartsGraceThenAbandons();
    void resumeWithinGraceReattaches();
    void decisionWhileDisconnectedIsKeptForTheResend();
    void idleSessionsAreForgottenAfterTheirRetention();
    void sessionWithAPendingCallIsKept();
    void otherConnectionOfSessionKeepsCallAttached();
    void cancel();
    void haltAbortsTheWholeTurn();
    void callWithoutTurnIdTakesTheCurrentTurn();
    void toolResult();
    void reviewerRoleSeesQueueAndEvents();
    void rolesAreEnforced();
    void decidedCallMemoryIsBounded();
    void policyDefaultDecidesWithoutAPerson_data();
    void policyDefaultDecidesWithoutAPerson();
    void guardrailAllowAnswersAtOnce();
    void guardrailDenyReasonAndCodeReachTheAgent();
    void guardrailRewriteIsReturned();
    void laterDenyBeatsEarlierAsk();
    void escalationCarriesTrailAndProposedArgs();
    void afterCallChecksRunOncePerCallThatRan();
    void turnMarkersReachGuardrails();
    void secretsAreMaskedForReviewersNotForTheAgent();
    void rateLimitOnTheConsoleClock();
};

void TestBroker::welcomeAssignsOrKeepsSession()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const Json w = f.out.last(a, "welcome");
    QCOMPARE(w["protocol"], Json(1));
    QCOMPARE(w["server"], Json("holdpoint/test"));
    QVERIFY(w["session_id"].get<std::string>().starts_with("s-"));
    QCOMPARE(w["resumed"], Json(false));

    const ConnectionId b = f.agent(std::string("my-session"));
    QCOMPARE(f.sessionOf(b), std::string("my-session"));
    QCOMPARE(f.out.last(b, "welcome")["resumed"], Json(false));
    const ConnectionId c = f.agent(std::string("my-session"));
    QCOMPARE(f.out.last(c, "welcome")["resumed"], Json(true));
    QCOMPARE(f.broker.sessionCount(), 2);
}

void TestBroker::everyCallEscalatesWithDefaultAsk()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "x"}}, "write_file");
    QCOMPARE(f.queue.size(), 1);
    const QueueItem &item = f.queue.at(0);
    QCOMPARE(item.reason, std::string("no guardrail decided; the default policy is ask"));
    QCOMPARE(item.agent.name, std::string("coder"));
    QCOMPARE(item.sessionId, f.sessionOf(a));
    QCOMPARE(item.receivedAt, TimeMs(1'000'000));
    QCOMPARE(item.deadline, TimeMs(1'000'000 + 300'000));
    const Json pending = f.out.last(a, "pending");
    QCOMPARE(pending, Json({{"type", "pending"}, {"call_id", "c1"}, {"id", item.id}, {"reason", item.reason}}));
    QVERIFY(f.out.ofType(a, "decision").empty());
}

void TestBroker::reviewActionsDeliverDecisions_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("editedArgs");
    QTest::addColumn<QString>("expected");

    QTest::newRow("approve") << int(ReviewAction::Approve) << "" << ""
                             << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"approved by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("approve with reason") << int(ReviewAction::Approve) << "looks fine" << ""
                                         << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"looks fine","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("edit") << int(ReviewAction::Edit) << "" << R"({"path":"b.txt"})"
                          << R"({"type":"decision","call_id":"c1","decision":"modify","args":{"path":"b.txt"},"reason":"approved with edited arguments by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("deny") << int(ReviewAction::Deny) << "not in this repo" << ""
                          << R"({"type":"decision","call_id":"c1","decision":"deny","reason":"not in this repo","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("halt") << int(ReviewAction::Halt) << "" << ""
                          << R"({"type":"decision","call_id":"c1","decision":"halt","reason":"turn halted by a reviewer","decided_by":"human:alice","warnings":[]})";
}

void TestBroker::reviewActionsDeliverDecisions()
{
    QFETCH(int, action);
    QFETCH(QString, reason);
    QFETCH(QString, editedArgs);
    QFETCH(QString, expected);
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    std::optional<Json> args;
    if (!editedArgs.isEmpty())
        args = Json::parse(editedArgs.toStdString());
    const ReviewOutcome out = f.review(f.itemOf("c1"), ReviewAction(action), reason.toStdString(), args);
    QVERIFY2(out.ok, out.message.c_str());
    QCOMPARE(f.queue.size(), 0);
    const auto decisions = f.out.ofType(a, "decision");
    QCOMPARE(decisions.size(), std::size_t(1)); // exactly one per tool_call
    QCOMPARE(decisions[0], Json::parse(expected.toStdString()));
}

void TestBroker::reviewRefusals_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown item") << int(ReviewAction::Approve) << "" << "" << "nope" << int(ErrorCode::UnknownItem)
                                  << "id: no pending item \"nope\"; it may have been decided, timed out or cancelled";
    QTest::newRow("deny without reason") << int(ReviewAction::Deny) << " " << "" << "" << int(ErrorCode::MissingField)
                                         << "reason: required for deny, expected a non-empty string";
    QTest::newRow("edit without args") << int(ReviewAction::Edit) << "" << "" << "" << int(ErrorCode::MissingField)
                                       << "args: required for edit, expected an object";
    QTest::newRow("edit unchanged") << int(ReviewAction::Edit) << "" << R"({"path":"a.txt"})" << ""
                                    << int(ErrorCode::InvalidField) << "args: identical to the call's own args; use action approve";
}

void TestBroker::reviewRefusals()
{
    QFETCH(int, action);
    QFETCH(QString, reason);
    QFETCH(QString, args);
    QFETCH(QString, id);
    QFETCH(int, code);
    QFETCH(QString, message);
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    std::optional<Json> parsed;
    if (!args.isEmpty())
        parsed = Json::parse(args.toStdString());
    const ReviewOutcome out =
        f.review(id.isEmpty() ? f.itemOf("c1") : id.toStdString(), ReviewAction(action), reason.toStdString(), parsed);
    QVERIFY(!out.ok);
    QCOMPARE(int(out.code), code);
    QCOMPARE(toQString(out.message), message);
    QCOMPARE(f.queue.size(), 1); // nothing decided
    QVERIFY(f.out.ofType(a, "decision").empty());
}

void TestBroker::duplicateWhilePendingIsTheSameItem()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    const std::string id = f.itemOf("c1");
    QSignalSpy added(&f.queue, &ReviewQueue::added);
    f.call(a, "c1");
    QCOMPARE(added.count(), 0);
    QCOMPARE(f.queue.size(), 1);
    const auto pendings = f.out.ofType(a, "pending");
    QCOMPARE(pendings.size(), std::size_t(2));
    QCOMPARE(pendings[1]["id"], Json(id));
    QVERIFY(f.review(id, ReviewAction::Approve).ok);
    QCOMPARE(f.out.ofType(a, "decision").size(), std::size_t(1)); // one connection, one decision
}

void TestBroker::duplicateAfterDecisionGetsTheSameDecision()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "a.txt"}, {"mode", "w"}});
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Deny, "no").ok);
    const std::string first = f.out.raw[a].back();
    QSignalSpy added(&f.queue, &ReviewQueue::added);
    // Same args in another key order are the same call.
    f.call(a, "c1", Json::parse(R"({"mode":"w","path":"a.txt"})"));
    QCOMPARE(added.count(), 0);
    QCOMPARE(f.out.raw[a].back(), first);
}

void TestBroker::conflictingCallIdIsRefused_data()
{
    QTest::addColumn<bool>("decideFirst");
    QTest::newRow("while pending") << false;
    QTest::newRow("after decision") << true;
}

void TestBroker::conflictingCallIdIsRefused()
{
    QFETCH(bool, decideFirst);
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "a.txt"}});
    if (decideFirst)
        QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    for (const auto &[args, tool] : {std::pair {Json {{"path", "b.txt"}}, std::string("write_file")},
                                     std::pair {Json {{"path", "a.txt"}}, std::string("delete_file")}}) {
        f.call(a, "c1", args, tool);
        const Json err = f.out.last(a, "error");
        QCOMPARE(err["code"], Json("call_id_conflict"));
        QCOMPARE(err["call_id"], Json("c1"));
        QCOMPARE(err["message"], Json("call_id: \"c1\" was already used in this session for a different tool_name or "
                                      "args; use a new call_id for a new call"));
    }
    QCOMPARE(f.queue.size(), decideFirst ? 0 : 1);
}

void TestBroker::sameCallIdInAnotherSessionIsSeparate()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId b = f.agent();
    f.call(a, "c1");
    f.call(b, "c1");
    QCOMPARE(f.queue.size(), 2);
    QVERIFY(f.queue.at(0).id != f.queue.at(1).id);
    QVERIFY(f.review(f.queue.at(1).id, ReviewAction::Deny, "b only").ok);
    QVERIFY(f.out.ofType(a, "decision").empty());
    QCOMPARE(f.out.last(b, "decision")["decision"], Json("deny"));
}

void TestBroker::timeoutMayShortenButNotLengthen_data()
{
    QTest::addColumn<double>("timeoutS");
    QTest::addColumn<qint64>("expectedMs");
    QTest::newRow("shorter") << 10.0 << qint64(10'000);
    QTest::newRow("fractional") << 0.25 << qint64(250);
    QTest::newRow("longer is capped") << 1000.0 << qint64(300'000);
}

void TestBroker::timeoutMayShortenButNotLengthen()
{
    QFETCH(double, timeoutS);
    QFETCH(qint64, expectedMs);
    Fixture f;
    f.call(f.agent(), "c1", {{"p", 1}}, "t", timeoutS);
    QCOMPARE(f.queue.at(0).deadline - f.queue.at(0).receivedAt, expectedMs);
}

void TestBroker::timeoutDeniesTheAgent()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1", {{"p", 1}}, "t", 5.0);
    f.clock.advance(4999);
    QVERIFY(f.out.ofType(a, "decision").empty());
    f.clock.advance(1);
    QCOMPARE(f.out.last(a, "decision"),
             Json::parse(R"({"type":"decision","call_id":"c1","decision":"deny","reason":"timed out after 5 s waiting for a reviewer","decided_by":"timeout","code":"timeout","warnings":[]})"));
    QCOMPARE(f.out.last(r, "resolved")["state"], Json("timed_out"));
}

void TestBroker::disconnectStartsGraceThenAbandons()
{
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1");
    const std::string id = f.itemOf("c1");
    f.broker.onDisconnected(a);
    QVERIFY(!f.queue.find(id)->agentConnected);
    f.clock.advance(59'999);
    QVERIFY(f.queue.find(id));
    std::optional<QueueItem> seen;
    connect(&f.queue, &ReviewQueue::resolved, this, [&](const QueueItem &i) { seen = i; });
    f.clock.advance(1);
    QVERIFY(!f.queue.find(id));
    QVERIFY(seen);
    QCOMPARE(seen->state, ItemState::Abandoned);
    QCOMPARE(seen->decision->code, std::string("abandoned"));
    QCOMPARE(seen->decision->decidedBy, std::string("timeout"));

    // Coming back later with the same call gets the recorded outcome, not a new prompt.
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(b, "c1");
    QCOMPARE(f.queue.size(), 0);
    const Json d = f.out.last(b, "decision");
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["reason"], Json("abandoned: the agent disconnected and did not re-send the call within 60 s"));
}

void TestBroker::resumeWithinGraceReattaches()
{
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1");
    const std::string id = f.itemOf("c1");
    f.broker.onDisconnected(a);
    f.clock.advance(30'000);

    const ConnectionId b = f.agent(std::string("s1"));
    QCOMPARE(f.out.last(b, "welcome")["resumed"], Json(true));
    f.call(b, "c1");
    QCOMPARE(f.queue.size(), 1);
    QCOMPARE(f.out.last(b, "pending")["id"], Json(id));
    QVERIFY(f.queue.find(id)->agentConnected);
    f.clock.advance(60'000); // past the grace period: re-attached, so not abandoned
    QVERIFY(f.queue.find(id));
    QVERIFY(f.review(id, ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(b, "decision")["decision"], Json("allow"));
    QVERIFY(f.out.ofType(a, "decision").empty());
}

void TestBroker::decisionWhileDisconnectedIsKeptForTheResend()
{
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1");
    f.broker.onDisconnected(a);
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Deny, "too risky").ok);
    f.clock.advance(120'000); // the grace alarm must not touch a decided call
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(b, "c1");
    QCOMPARE(f.out.last(b, "decision")["reason"], Json("too risky"));
}

void TestBroker::idleSessionsAreForgottenAfterTheirRetention()
{
    BrokerConfig config;
    config.sessionRetentionMs = 300'000;
    config.graceMs = 60'000;
    Fixture f(config);
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1", {{"path", "decided"}});
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    f.call(a, "c2", {{"path", "pending"}});
    f.broker.onDisconnected(a);
    QCOMPARE(f.broker.sessionCount(), 1);
    // c2 waits until its grace ends (abandoned at 60 s); the session is
    // still remembered at 300 s, so re-sends get their decisions...
    f.clock.advance(299'000);
    QCOMPARE(f.broker.sessionCount(), 1);
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(b, "c1", {{"path", "decided"}});
    QCOMPARE(f.out.last(b, "decision")["decision"], Json("allow"));
    f.broker.onDisconnected(b);
    // ... and forgotten once idle for the whole retention.
    f.clock.advance(299'000);
    QCOMPARE(f.broker.sessionCount(), 1);
    f.clock.advance(2'000);
    QCOMPARE(f.broker.sessionCount(), 0);
    const ConnectionId c = f.agent(std::string("s1"));
    f.call(c, "c1", {{"path", "something else"}}); // a new call now, no conflict
    QCOMPARE(f.queue.size(), 1);
}

void TestBroker::sessionWithAPendingCallIsKept()
{
    BrokerConfig config;
    config.sessionRetentionMs = 1'000;
    config.graceMs = 3'600'000;
    Fixture f(config);
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1");
    f.broker.onDisconnected(a);
    f.clock.advance(10'000);
    QCOMPARE(f.broker.sessionCount(), 1); // c1 is still waiting for its agent
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(b, "c1");
    QCOMPARE(f.out.last(b, "pending")["call_id"], Json("c1"));
}

void TestBroker::otherConnectionOfSessionKeepsCallAttached()
{
    // Hook-style clients open one connection per call within one session.
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(a, "c1");
    f.call(b, "c1"); // b also waits for c1
    f.broker.onDisconnected(a);
    const std::string id = f.itemOf("c1");
    QVERIFY(f.queue.find(id)->agentConnected);
    f.clock.advance(120'000);
    QVERIFY(f.queue.find(id));
    QVERIFY(f.review(id, ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(b, "decision")["decision"], Json("allow"));
}

void TestBroker::cancel()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1");
    f.broker.onMessage(a, Message(Cancel {"c1"}));
    QCOMPARE(f.queue.size(), 0);
    QCOMPARE(f.out.last(a, "decision"),
             Json::parse(R"({"type":"decision","call_id":"c1","decision":"deny","reason":"cancelled by the agent","decided_by":"agent","code":"cancelled","warnings":[]})"));
    QCOMPARE(f.out.last(r, "resolved")["state"], Json("cancelled"));

    f.broker.onMessage(a, Message(Cancel {"c1"}));
    QCOMPARE(f.out.last(a, "error")["code"], Json("already_resolved"));
    f.broker.onMessage(a, Message(Cancel {"zzz"}));
    QCOMPARE(f.out.last(a, "error")["code"], Json("unknown_call"));
    QCOMPARE(f.out.ofType(a, "decision").size(), std::size_t(1));
}

void TestBroker::haltAbortsTheWholeTurn()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId other = f.agent();
    f.call(a, "c1", {{"n", 1}}, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c2", {{"n", 2}}, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c3", {{"n", 3}}, "t", std::nullopt, std::string("turn-2"));
    f.call(other, "c4", {{"n", 4}}, "t", std::nullopt, std::string("turn-1")); // another session's turn-1
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Halt, "runaway").ok);
    const auto decisions = f.out.ofType(a, "decision");
    QCOMPARE(decisions.size(), std::size_t(2));
    QCOMPARE(decisions[0]["call_id"], Json("c1"));
    QCOMPARE(decisions[0]["reason"], Json("runaway"));
    QCOMPARE(decisions[1]["call_id"], Json("c2"));
    QCOMPARE(decisions[1]["decision"], Json("halt"));
    QCOMPARE(decisions[1]["reason"], Json("runaway (turn halted with call c1)"));
    QCOMPARE(f.queue.size(), 2);
    QVERIFY(!f.itemOf("c3").empty());
    QVERIFY(!f.itemOf("c4").empty());
}

void TestBroker::callWithoutTurnIdTakesTheCurrentTurn()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c0");
    f.broker.onMessage(a, Message(TurnStart {"t7"}));
    f.call(a, "c1");
    f.broker.onMessage(a, Message(TurnEnd {"t7"}));
    f.call(a, "c2");
    QVERIFY(!f.queue.find(f.itemOf("c0"))->turnId);
    QCOMPARE(f.queue.find(f.itemOf("c1"))->turnId.value(), std::string("t7"));
    QVERIFY(!f.queue.find(f.itemOf("c2"))->turnId);
}

void TestBroker::toolResult()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    f.broker.onMessage(a, Message(ToolResult {"c1", true, Json("ok")}));
    QCOMPARE(f.out.last(a, "error")["code"], Json("call_pending"));
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    f.broker.onMessage(a, Message(ToolResult {"c1", false, Json("boom")}));
    QCOMPARE(f.out.last(a, "after_call"), Json::parse(R"({"type":"after_call","call_id":"c1","action":"allow","reason":"","warnings":[]})"));
    f.broker.onMessage(a, Message(ToolResult {"nope", true, {}}));
    QCOMPARE(f.out.last(a, "error")["code"], Json("unknown_call"));
}

void TestBroker::reviewerRoleSeesQueueAndEvents()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    const ConnectionId r = f.reviewer();
    QCOMPARE(f.out.sent[r][0]["type"], Json("welcome"));
    QCOMPARE(f.out.sent[r][1]["type"], Json("queue")); // always right after welcome
    QCOMPARE(f.out.sent[r][1]["items"].size(), std::size_t(1));
    QCOMPARE(f.out.sent[r][1]["items"][0]["call_id"], Json("c1"));

    f.call(a, "c2", {{"path", "b"}});
    const Json escalated = f.out.last(r, "escalated");
    QCOMPARE(escalated["item"]["call_id"], Json("c2"));
    QCOMPARE(escalated["item"]["args"], Json({{"path", "b"}}));

    Review review;
    review.id = escalated["item"]["id"].get<std::string>();
    review.action = ReviewAction::Edit;
    review.args = Json {{"path", "c"}};
    f.broker.onMessage(r, Message(review));
    QCOMPARE(f.out.last(r, "reviewed"), Json({{"type", "reviewed"}, {"id", review.id}, {"decision", "modify"}}));
    QCOMPARE(f.out.last(r, "resolved"),
             Json({{"type", "resolved"}, {"id", review.id}, {"state", "decided"}, {"decision", "modify"}, {"decided_by", "human:alice"}}));
    QCOMPARE(f.out.last(a, "decision")["args"], Json({{"path", "c"}}));

    f.broker.onMessage(r, Message(review)); // decided already
    QCOMPARE(f.out.last(r, "error")["code"], Json("unknown_item"));
}

void TestBroker::rolesAreEnforced()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    Review review;
    review.id = f.itemOf("c1");
    f.broker.onMessage(a, Message(review));
    QCOMPARE(f.out.last(a, "error")["code"], Json("forbidden"));
    QCOMPARE(f.queue.size(), 1);

    const ConnectionId r = f.reviewer();
    f.call(r, "x");
    QCOMPARE(f.out.last(r, "error")["code"], Json("forbidden"));
    QCOMPARE(f.queue.size(), 1);

    f.broker.onMessage(a, Message(Hello {}));
    QCOMPARE(f.out.last(a, "error")["code"], Json("duplicate_hello"));
}

void TestBroker::decidedCallMemoryIsBounded()
{
    BrokerConfig config;
    config.rememberedCallsPerSession = 2;
    Fixture f(config);
    const ConnectionId a = f.agent();
    for (const char *id : {"c1", "c2", "c3"}) {
        f.call(a, id);
        QVERIFY(f.review(f.itemOf(id), ReviewAction::Approve).ok);
    }
    f.call(a, "c3"); // remembered
    QCOMPARE(f.queue.size(), 0);
    f.call(a, "c1"); // forgotten: a new call
    QCOMPARE(f.queue.size(), 1);
}

void TestBroker::policyDefaultDecidesWithoutAPerson_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("expected");
    QTest::newRow("allow") << int(DefaultAction::Allow)
                           << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"no guardrail decided; the default policy is allow","decided_by":"policy:default","warnings":[]})";
    QTest::newRow("deny") << int(DefaultAction::Deny)
                          << R"({"type":"decision","call_id":"c1","decision":"deny","reason":"no guardrail decided; the default policy is deny","decided_by":"policy:default","warnings":[]})";
}

void TestBroker::policyDefaultDecidesWithoutAPerson()
{
    QFETCH(int, action);
    QFETCH(QString, expected);
    Fixture f;
    Policy p;
    p.defaultAction = DefaultAction(action);
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1");
    QCOMPARE(f.queue.size(), 0);
    QVERIFY(f.out.ofType(a, "pending").empty());
    QCOMPARE(f.out.last(a, "decision"), Json::parse(expected.toStdString()));
    QVERIFY(f.out.ofType(r, "escalated").empty());
    // Idempotent like any decision: the same answer, and conflicts still refused.
    f.call(a, "c1");
    QCOMPARE(f.out.ofType(a, "decision").size(), std::size_t(2));
    QCOMPARE(f.out.raw[a].back(), f.out.raw[a][f.out.raw[a].size() - 2]);
    f.call(a, "c1", {{"path", "b.txt"}});
    QCOMPARE(f.out.last(a, "error")["code"], Json("call_id_conflict"));
}

void TestBroker::guardrailAllowAnswersAtOnce()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"read_file"},"action":"allow","reason":"reads are fine"}]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "README.md"}}, "read_file");
    QCOMPARE(f.queue.size(), 0);
    QCOMPARE(f.out.last(a, "decision"),
             Json::parse(R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"README.md"},"reason":"reads are fine","decided_by":"guardrail:rules","warnings":[]})"));
    f.call(a, "c2", {{"path", "x"}}, "write_file"); // no rule: the default asks
    QCOMPARE(f.queue.size(), 1);
}

void TestBroker::guardrailDenyReasonAndCodeReachTheAgent()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"protected_paths","paths":["/etc"]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "/tmp/../etc/passwd"}});
    QCOMPARE(f.out.last(a, "decision"),
             Json::parse(R"js({"type":"decision","call_id":"c1","decision":"deny","reason":"path /tmp/../etc/passwd is protected (/etc)","decided_by":"guardrail:protected_paths","code":"protected_path","warnings":[]})js"));
    QCOMPARE(f.queue.size(), 0);
}

void TestBroker::guardrailRewriteIsReturned()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","clamp":{"timeout":{"max":60}},"reason":"timeout clamped","code":"clamp"}]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"command", "make"}, {"timeout", 900}}, "bash");
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({{"command", "make"}, {"timeout", 60}}));
    QCOMPARE(d["decided_by"], Json("policy:default"));
}

void TestBroker::laterDenyBeatsEarlierAsk()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[
        {"type":"rules","name":"ask-writes","rules":[{"when":{"tool":"write_file"},"action":"ask","reason":"writes need a look"}]},
        {"type":"protected_paths","paths":["/etc"]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"path", "/etc/hosts"}});
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    QCOMPARE(f.out.last(a, "decision")["decided_by"], Json("guardrail:protected_paths"));
    f.call(a, "c2", {{"path", "/home/x"}});
    QCOMPARE(f.queue.size(), 1);
    QCOMPARE(f.queue.at(0).reason, std::string("writes need a look"));
}

void TestBroker::escalationCarriesTrailAndProposedArgs()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","clamp":{"timeout":{"max":60}},"reason":"timeout clamped","code":"clamp_timeout"}]}]})"));
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1", {{"command", "make"}, {"timeout", 900}}, "bash");
    const Json item = f.out.last(r, "escalated")["item"];
    QCOMPARE(item["args"], Json({{"command", "make"}, {"timeout", 900}}));
    QCOMPARE(item["proposed_args"], Json({{"command", "make"}, {"timeout", 60}}));
    QCOMPARE(item["patch"], Json::parse(R"([{"op":"replace","path":"/timeout","value":60}])"));
    QCOMPARE(item["trail"][0]["action"], Json("modify"));
    QCOMPARE(item["trail"][0]["code"], Json("clamp_timeout"));
    QCOMPARE(item["reason"], Json("no guardrail decided; the default policy is ask"));

    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({{"command", "make"}, {"timeout", 60}}));

    // A reviewer may put the agent's own arguments back: that is a plain allow.
    f.call(a, "c2", {{"command", "make"}, {"timeout", 900}}, "bash");
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Edit, {}, Json {{"command", "make"}, {"timeout", 900}}).ok);
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
    // Editing to what the guardrails proposed is no edit at all.
    f.call(a, "c3", {{"command", "make"}, {"timeout", 900}}, "bash");
    const ReviewOutcome same = f.review(f.itemOf("c3"), ReviewAction::Edit, {}, Json {{"command", "make"}, {"timeout", 60}});
    QVERIFY(!same.ok);
    QCOMPARE(same.code, ErrorCode::InvalidField);
}

void TestBroker::afterCallChecksRunOncePerCallThatRan()
{
    Fixture f;
    auto watcher = std::make_shared<AfterWatcher>();
    Policy p = policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","set":{"cwd":"/sandbox"},"reason":"sandboxed"}]}]})");
    p.chain->add({watcher, false, std::chrono::microseconds(100'000)});
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"command", "make"}}, "bash");
    f.broker.onMessage(a, Message(ToolResult {"c1", false, Json("exit 2")}));
    QCOMPARE(f.out.last(a, "after_call"),
             Json::parse(R"({"type":"after_call","call_id":"c1","action":"warn","reason":"bash failed","warnings":[{"guardrail":"watcher","code":"failed","message":"bash failed"}]})"));
    QCOMPARE(watcher->lastArgs, Json({{"command", "make"}, {"cwd", "/sandbox"}})); // the args it ran with
    f.broker.onMessage(a, Message(ToolResult {"c1", false, Json("exit 2")}));
    QCOMPARE(watcher->afterCalls, 1);
    QCOMPARE(f.out.last(a, "after_call")["action"], Json("allow"));

    // A call a person approved is checked too; a denied one never ran.
    Policy ask = policyOf(R"({})");
    ask.chain->add({watcher, false, std::chrono::microseconds(100'000)});
    f.broker.setPolicy(ask);
    f.call(a, "c2", {{"command", "ls"}}, "bash");
    f.call(a, "c3", {{"command", "rm"}}, "bash");
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Approve).ok);
    QVERIFY(f.review(f.itemOf("c3"), ReviewAction::Deny, "no").ok);
    f.broker.onMessage(a, Message(ToolResult {"c2", true, Json("ok")}));
    f.broker.onMessage(a, Message(ToolResult {"c3", true, Json("ok")}));
    QCOMPARE(watcher->afterCalls, 2);
}

void TestBroker::turnMarkersReachGuardrails()
{
    Fixture f;
    auto watcher = std::make_shared<AfterWatcher>();
    Policy p;
    p.chain->add({watcher, false, std::chrono::microseconds(100'000)});
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent(std::string("s9"));
    f.broker.onMessage(a, Message(TurnStart {"t1"}));
    f.broker.onMessage(a, Message(TurnEnd {"t1"}));
    QCOMPARE(watcher->turns, (std::vector<std::string> {"start s9 t1", "end s9 t1"}));
}

void TestBroker::secretsAreMaskedForReviewersNotForTheAgent()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"secrets"}]})"));
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    const Json args = {{"url", "https://deploy.test/"}, {"headers", {{"Authorization", "Bearer AKIAIOSFODNN7EXAMPLE"}}}};
    f.call(a, "c1", args, "http_request");
    const std::string wire = f.out.raw[r].back();
    QVERIFY2(wire.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos, wire.c_str());
    const Json item = Json::parse(wire)["item"];
    QCOMPARE(item["args"]["headers"]["Authorization"], Json("Bearer [secret:aws_access_key_id:1]"));
    QCOMPARE(item["redacted"], Json::parse(R"([{"placeholder":"[secret:aws_access_key_id:1]","kind":"aws_access_key_id"}])"));
    QCOMPARE(item["reason"], Json("arguments contain secrets: aws_access_key_id in headers.Authorization, bearer_token in headers.Authorization"));

    // A reviewer's queue snapshot is masked too.
    const ConnectionId r2 = f.reviewer();
    QVERIFY(f.out.raw[r2].back().find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);

    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(a, "decision")["args"], args); // the agent runs with the real value

    // An edit made on the masked view keeps the real value where the placeholder stayed.
    f.call(a, "c2", args, "http_request");
    Json edited = Json::parse(f.out.raw[r].back())["item"]["args"];
    edited["url"] = "https://staging.test/";
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Edit, {}, edited).ok);
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["args"]["url"], Json("https://staging.test/"));
    QCOMPARE(d["args"]["headers"]["Authorization"], Json("Bearer AKIAIOSFODNN7EXAMPLE"));
}

void TestBroker::rateLimitOnTheConsoleClock()
{
    Fixture f; // its clock is a ManualClock: time moves only when the test says
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":2,"window_s":60}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", {{"n", 1}});
    f.clock.advance(30'000);
    f.call(a, "c2", {{"n", 2}});
    f.call(a, "c3", {{"n", 3}});
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    QCOMPARE(f.out.last(a, "decision")["reason"],
             Json("rate limit: at most 2 calls per 60 s per session; the next call is possible in 30 s"));
    f.clock.advance(29'999);
    f.call(a, "c4", {{"n", 4}});
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    f.clock.advance(1); // c1 leaves the window
    f.call(a, "c5", {{"n", 5}});
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
}

QTEST_GUILESS_MAIN(TestBroker)
#include "tst_broker.moc"
