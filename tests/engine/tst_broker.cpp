// SPDX-License-Identifier: Apache-2.0
// Message handling: sessions said hello, calls, re-sends and conflicts, cancel, tool results, roles
// and the reviewer wire.

#include "engine/enginefixture.h"

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

class TestBroker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void welcomeAssignsOrKeepsSession();
    void everyCallEscalatesWithDefaultAsk();
    void duplicateWhilePendingIsTheSameItem();
    void duplicateAfterDecisionGetsTheSameDecision();
    void conflictingCallIdIsRefused_data();
    void conflictingCallIdIsRefused();
    void sameCallIdInAnotherSessionIsSeparate();
    void cancel();
    void callWithoutTurnIdTakesTheCurrentTurn();
    void toolResult();
    void reviewerRoleSeesQueueAndEvents();
    void rolesAreEnforced();
    void turnMarkersReachGuardrails();
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
    f.call(a, "c1", { { "path", "x" } }, "write_file");
    QCOMPARE(f.queue.size(), 1);
    const QueueItem &item = f.queue.at(0);
    QCOMPARE(item.reason, std::string("no guardrail decided; the default policy is ask"));
    QCOMPARE(item.agent.name, std::string("coder"));
    QCOMPARE(item.sessionId, f.sessionOf(a));
    QCOMPARE(item.receivedAt, TimeMs(1'000'000));
    QCOMPARE(item.deadline, TimeMs(1'000'000 + 300'000));
    const Json pending = f.out.last(a, "pending");
    QCOMPARE(pending,
        Json({ { "type", "pending" }, { "call_id", "c1" }, { "id", item.id },
            { "reason", item.reason } }));
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
    f.call(a, "c1", { { "path", "a.txt" }, { "mode", "w" } });
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
    f.call(a, "c1", { { "path", "a.txt" } });
    if (decideFirst)
        QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    for (const auto &[args, tool] :
        { std::pair { Json { { "path", "b.txt" } }, std::string("write_file") },
            std::pair { Json { { "path", "a.txt" } }, std::string("delete_file") } }) {
        f.call(a, "c1", args, tool);
        const Json err = f.out.last(a, "error");
        QCOMPARE(err["code"], Json("call_id_conflict"));
        QCOMPARE(err["call_id"], Json("c1"));
        QCOMPARE(err["message"],
            Json("call_id: \"c1\" was already used in this session for a different tool_name or "
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

void TestBroker::cancel()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1");
    f.broker.onMessage(a, Message(Cancel { "c1" }));
    QCOMPARE(f.queue.size(), 0);
    QCOMPARE(f.out.last(a, "decision"),
        Json::parse(
            R"({"type":"decision","call_id":"c1","decision":"deny","reason":"cancelled by the agent","decided_by":"agent","code":"cancelled","warnings":[]})"));
    QCOMPARE(f.out.last(r, "resolved")["state"], Json("cancelled"));

    f.broker.onMessage(a, Message(Cancel { "c1" }));
    QCOMPARE(f.out.last(a, "error")["code"], Json("already_resolved"));
    f.broker.onMessage(a, Message(Cancel { "zzz" }));
    QCOMPARE(f.out.last(a, "error")["code"], Json("unknown_call"));
    QCOMPARE(f.out.ofType(a, "decision").size(), std::size_t(1));
}

void TestBroker::callWithoutTurnIdTakesTheCurrentTurn()
{
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c0");
    f.broker.onMessage(a, Message(TurnStart { "t7" }));
    f.call(a, "c1");
    f.broker.onMessage(a, Message(TurnEnd { "t7" }));
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
    f.broker.onMessage(a, Message(ToolResult { "c1", true, Json("ok") }));
    QCOMPARE(f.out.last(a, "error")["code"], Json("call_pending"));
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    f.broker.onMessage(a, Message(ToolResult { "c1", false, Json("boom") }));
    QCOMPARE(f.out.last(a, "after_call"),
        Json::parse(
            R"({"type":"after_call","call_id":"c1","action":"allow","reason":"","warnings":[]})"));
    f.broker.onMessage(a, Message(ToolResult { "nope", true, {} }));
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

    f.call(a, "c2", { { "path", "b" } });
    const Json escalated = f.out.last(r, "escalated");
    QCOMPARE(escalated["item"]["call_id"], Json("c2"));
    QCOMPARE(escalated["item"]["args"], Json({ { "path", "b" } }));

    Review review;
    review.id = escalated["item"]["id"].get<std::string>();
    review.action = ReviewAction::Edit;
    review.args = Json { { "path", "c" } };
    f.broker.onMessage(r, Message(review));
    QCOMPARE(f.out.last(r, "reviewed"),
        Json({ { "type", "reviewed" }, { "id", review.id }, { "decision", "modify" } }));
    QCOMPARE(f.out.last(r, "resolved"),
        Json({ { "type", "resolved" }, { "id", review.id }, { "state", "decided" },
            { "decision", "modify" }, { "decided_by", "human:alice" } }));
    QCOMPARE(f.out.last(a, "decision")["args"], Json({ { "path", "c" } }));

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

void TestBroker::turnMarkersReachGuardrails()
{
    Fixture f;
    auto watcher = std::make_shared<AfterWatcher>();
    Policy p;
    p.chain->add({ watcher, false, std::chrono::microseconds(100'000) });
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent(std::string("s9"));
    f.broker.onMessage(a, Message(TurnStart { "t1" }));
    f.broker.onMessage(a, Message(TurnEnd { "t1" }));
    QCOMPARE(watcher->turns, (std::vector<std::string> { "start s9 t1", "end s9 t1" }));
}

QTEST_GUILESS_MAIN(TestBroker)
#include "tst_broker.moc"
