// SPDX-License-Identifier: Apache-2.0
// The session table: deadlines, disconnects and the grace period, resuming, idle expiry and the
// bounded memory of decided calls.

#include "engine/enginefixture.h"

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

class TestSessions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void timeoutMayShortenButNotLengthen_data();
    void timeoutMayShortenButNotLengthen();
    void timeoutDeniesTheAgent();
    void disconnectStartsGraceThenAbandons();
    void resumeWithinGraceReattaches();
    void decisionWhileDisconnectedIsKeptForTheResend();
    void idleSessionsAreForgottenAfterTheirRetention();
    void sessionWithAPendingCallIsKept();
    void otherConnectionOfSessionKeepsCallAttached();
    void decidedCallMemoryIsBounded();
    void decidedCallBytesAreBounded();
};

void TestSessions::timeoutMayShortenButNotLengthen_data()
{
    QTest::addColumn<double>("timeoutS");
    QTest::addColumn<qint64>("expectedMs");
    QTest::newRow("shorter") << 10.0 << qint64(10'000);
    QTest::newRow("fractional") << 0.25 << qint64(250);
    QTest::newRow("longer is capped") << 1000.0 << qint64(300'000);
}

void TestSessions::timeoutMayShortenButNotLengthen()
{
    QFETCH(double, timeoutS);
    QFETCH(qint64, expectedMs);
    Fixture f;
    f.call(f.agent(), "c1", { { "p", 1 } }, "t", timeoutS);
    QCOMPARE(f.queue.at(0).deadline - f.queue.at(0).receivedAt, expectedMs);
}

void TestSessions::timeoutDeniesTheAgent()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1", { { "p", 1 } }, "t", 5.0);
    f.clock.advance(4999);
    QVERIFY(f.out.ofType(a, "decision").empty());
    f.clock.advance(1);
    QCOMPARE(f.out.last(a, "decision"),
        Json::parse(
            R"({"type":"decision","call_id":"c1","decision":"deny","reason":"timed out after 5 s waiting for a reviewer","decided_by":"timeout","code":"timeout","warnings":[]})"));
    QCOMPARE(f.out.last(r, "resolved")["state"], Json("timed_out"));
}

void TestSessions::disconnectStartsGraceThenAbandons()
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
    QCOMPARE(d["reason"],
        Json("abandoned: the agent disconnected and did not re-send the call within 60 s"));
}

void TestSessions::resumeWithinGraceReattaches()
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

void TestSessions::decisionWhileDisconnectedIsKeptForTheResend()
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

void TestSessions::idleSessionsAreForgottenAfterTheirRetention()
{
    BrokerConfig config;
    config.sessionRetentionMs = 300'000;
    config.graceMs = 60'000;
    Fixture f(config);
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1", { { "path", "decided" } });
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    f.call(a, "c2", { { "path", "pending" } });
    f.broker.onDisconnected(a);
    QCOMPARE(f.broker.sessionCount(), 1);
    // c2 waits until its grace ends (abandoned at 60 s); the session is
    // still remembered at 300 s, so re-sends get their decisions...
    f.clock.advance(299'000);
    QCOMPARE(f.broker.sessionCount(), 1);
    const ConnectionId b = f.agent(std::string("s1"));
    f.call(b, "c1", { { "path", "decided" } });
    QCOMPARE(f.out.last(b, "decision")["decision"], Json("allow"));
    f.broker.onDisconnected(b);
    // ... and forgotten once idle for the whole retention.
    f.clock.advance(299'000);
    QCOMPARE(f.broker.sessionCount(), 1);
    f.clock.advance(2'000);
    QCOMPARE(f.broker.sessionCount(), 0);
    const ConnectionId c = f.agent(std::string("s1"));
    f.call(c, "c1", { { "path", "something else" } }); // a new call now, no conflict
    QCOMPARE(f.queue.size(), 1);
}

void TestSessions::sessionWithAPendingCallIsKept()
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

void TestSessions::otherConnectionOfSessionKeepsCallAttached()
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

void TestSessions::decidedCallMemoryIsBounded()
{
    BrokerConfig config;
    config.rememberedCallsPerSession = 2;
    Fixture f(config);
    const ConnectionId a = f.agent();
    for (const char *id : { "c1", "c2", "c3" }) {
        f.call(a, id);
        QVERIFY(f.review(f.itemOf(id), ReviewAction::Approve).ok);
    }
    f.call(a, "c3"); // remembered
    QCOMPARE(f.queue.size(), 0);
    f.call(a, "c1"); // forgotten: a new call
    QCOMPARE(f.queue.size(), 1);
}

void TestSessions::decidedCallBytesAreBounded()
{
    // About 2.7 KB each while its args wait for the after-call checks
    // (SessionTable::weigh), about 1.4 KB once its result came.
    BrokerConfig config;
    config.rememberedBytesPerSession = 6000;
    const Json big = { { "content", std::string(1000, 'x') } };
    struct Agent
    {
        Fixture f;
        ConnectionId a;
        explicit Agent(const BrokerConfig &config)
            : f(config)
        {
            f.broker.setPolicy(policyOf(R"({"default":"allow"})"));
            a = f.agent();
        }
        // A re-send with other args: refused while its call is remembered,
        // else decided as a new call (which the rest of a test must allow for).
        bool remembered(const char *id)
        {
            f.call(a, id, { { "content", "other" } });
            return f.out.raw[a].back().find("call_id_conflict") != std::string::npos;
        }
        void result(const char *id)
        {
            ToolResult r;
            r.callId = id;
            r.ok = true;
            r.result = "done";
            f.broker.onMessage(a, Message(r));
        }
    };

    {
        Agent s(config);
        for (const char *id : { "c1", "c2", "c3" })
            s.f.call(s.a, id, big);
        QVERIFY(s.remembered("c3"));
        QVERIFY(s.remembered("c2"));
        QVERIFY(!s.remembered("c1")); // the oldest made room
    }
    {
        // Results let go of the args kept for them: two calls with results
        // and a new one fit where three without did not.
        Agent s(config);
        s.f.call(s.a, "c1", big);
        s.f.call(s.a, "c2", big);
        s.result("c1");
        s.result("c2");
        s.f.call(s.a, "c3", big);
        QVERIFY(s.remembered("c1"));
        QVERIFY(s.remembered("c2"));
        QVERIFY(s.remembered("c3"));
    }
    {
        // What waits for the after-call checks counts, context too.
        Agent s(config);
        for (const char *id : { "c1", "c2" }) {
            ToolCall c;
            c.callId = id;
            c.toolName = "write_file";
            c.args = { { "path", "a.txt" } };
            c.context = { { "notes", std::string(2'500, 'n') } };
            s.f.broker.onMessage(s.a, Message(std::move(c)));
        }
        s.f.call(s.a, "c3", { { "path", "b.txt" } });
        QVERIFY(s.remembered("c3"));
        QVERIFY(s.remembered("c2"));
        QVERIFY(!s.remembered("c1"));
    }
    {
        // One call over the whole budget is still remembered, alone.
        Agent s(config);
        s.f.call(s.a, "c1", big);
        s.f.call(s.a, "huge", { { "content", std::string(20'000, 'z') } });
        QVERIFY(s.remembered("huge"));
        QVERIFY(!s.remembered("c1"));
    }
}

QTEST_GUILESS_MAIN(TestSessions)
#include "tst_sessions.moc"
