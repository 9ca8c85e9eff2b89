// SPDX-License-Identifier: Apache-2.0
// The team's queue, presence and audit shipper over a fake link
// (tests/common/faketeamlink.h): leases, deadlines, batching and resync,
// with time moved by hand. No PostgreSQL, and nothing waits: each test
// answers the requests itself and advances a manual clock.

#include "common/faketeamlink.h"
#include "common/jsoncompare.h"
#include "team/teamqueue.h"

#include <QTest>

using namespace holdpoint;
using holdpoint::test::FakeTeamLink;
using team::TeamQueue;

namespace {

constexpr TimeMs Start = 1'800'000'000'000;

QueueItem makeItem(TeamQueue &q, const std::string &callId, TimeMs deadline)
{
    QueueItem item;
    item.id = q.newId();
    item.callId = callId;
    item.sessionId = "s1";
    item.agent = { "coder", "autogen" };
    item.toolName = "write_file";
    item.args = { { "path", callId + ".txt" } };
    item.receivedAt = Start;
    item.deadline = deadline;
    return item;
}

// Another gateway's pending row, as the database returns it.
team::Row remoteRow(const std::string &id)
{
    QueueItem item;
    item.id = id;
    item.callId = "c-" + id;
    item.sessionId = "s9";
    item.toolName = "read_file";
    item.args = { { "path", "x" } };
    item.receivedAt = Start;
    item.deadline = Start + 60'000;
    team::Row r;
    r.id = id;
    r.gateway = "gw-other";
    r.host = "other";
    r.sessionId = "s9";
    r.callId = item.callId;
    r.tool = item.toolName;
    r.itemText = itemToJson(item).dump();
    r.createdAt = Start;
    r.deadline = item.deadline;
    r.state = "pending";
    r.gatewayOnline = true;
    r.now = Start;
    return r;
}

team::EscalationOutcome written()
{
    return { team::Escalated { "pending", true }, {} };
}

} // namespace

class tst_TeamQueue : public QObject
{
    Q_OBJECT

private:
    struct Fixture
    {
        ManualClock clock { Start };
        FakeTeamLink *link = nullptr;
        std::unique_ptr<TeamQueue> queue;

        explicit Fixture(const std::string &kind = "gateway")
        {
            team::TeamConfig config;
            config.self.id = "gw-self";
            config.self.kind = kind;
            config.self.host = "here";
            config.requestedReviewer = "alice";
            config.heartbeatMs = 2'000;
            config.leaseMs = 15'000;
            auto fake = std::make_unique<FakeTeamLink>();
            link = fake.get();
            queue = std::make_unique<TeamQueue>(config, &clock, std::move(fake));
            queue->start();
        }
        // The link opens, and the requests every open makes are answered:
        // who this login is, a heartbeat, and a resync that finds `pending`.
        void connect(std::vector<team::Row> pending = {})
        {
            link->up();
            FakeTeamLink::answer(link->identities, team::ReviewerSelf { "alice", "alice" });
            FakeTeamLink::answer(link->beats, team::BeatAnswer {});
            FakeTeamLink::answer(link->resyncs, team::Resync { std::move(pending), {} });
        }
    };

private Q_SLOTS:
    void escalationsWrittenWhileOneIsOnItsWayGoTogether()
    {
        Fixture f;
        f.connect();
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        QCOMPARE(f.link->escalations.size(), 1u);
        QCOMPARE(f.link->escalations.front().request.size(), 1u);
        f.queue->enqueue(makeItem(*f.queue, "c2", Start + 60'000));
        f.queue->enqueue(makeItem(*f.queue, "c3", Start + 60'000));
        QCOMPARE(f.link->escalations.size(), 1u); // the next batch waits for the first
        FakeTeamLink::answer(f.link->escalations, std::vector { written() });
        QCOMPARE(f.link->escalations.size(), 1u);
        const auto &batch = f.link->escalations.front().request;
        QCOMPARE(batch.size(), 2u);
        QCOMPARE(batch[0].callId, "c2");
        QCOMPARE(batch[1].callId, "c3");
        QCOMPARE(batch[0].gateway, "gw-self");
        QCOMPARE(batch[0].waitMs, 60'000);
        QCOMPARE(f.queue->pendingCount(), 3);
    }

    void anEscalationTheTeamRefusesIsDeniedHere()
    {
        Fixture f;
        f.connect();
        std::vector<QueueItem> resolved;
        QObject::connect(f.queue.get(), &QueueStore::resolved, f.queue.get(),
            [&resolved](const QueueItem &i) { resolved.push_back(i); });
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        FakeTeamLink::answer(f.link->escalations,
            std::vector { team::EscalationOutcome { std::nullopt, "no such tool" } });
        QCOMPARE(resolved.size(), 1u);
        const auto item = resolved.at(0);
        QCOMPARE(item.state, ItemState::TimedOut);
        QCOMPARE(item.decision->kind, protocol::DecisionKind::Deny);
        QCOMPARE(item.decision->code, "team_unavailable");
        QCOMPARE(f.link->withdrawals.size(), 1u);
        QCOMPARE(f.link->withdrawals[0].state, "unavailable");
    }

    void aDeadlineWithoutTheDatabaseDeniesHere()
    {
        Fixture f; // never connected
        std::vector<QueueItem> resolved;
        QObject::connect(f.queue.get(), &QueueStore::resolved, f.queue.get(),
            [&resolved](const QueueItem &i) { resolved.push_back(i); });
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 30'000));
        QCOMPARE(f.link->escalations.size(), 1u); // waits for the link
        f.clock.advance(29'999);
        QCOMPARE(resolved.size(), 0u);
        f.clock.advance(1);
        QCOMPARE(resolved.size(), 1u);
        const auto item = resolved.at(0);
        QCOMPARE(item.state, ItemState::TimedOut);
        QCOMPARE(item.decision->decidedBy, "timeout");
        QCOMPARE(item.decision->code, "team_unavailable");
        QVERIFY(item.decision->reason.find("unreachable") != std::string::npos);
        QCOMPARE(f.link->withdrawals.size(), 1u);
        QCOMPARE(f.queue->pendingCount(), 0);
    }

    void aDeadlineWithTheDatabaseIsTheDatabases()
    {
        Fixture f;
        f.connect();
        std::vector<QueueItem> resolved;
        QObject::connect(f.queue.get(), &QueueStore::resolved, f.queue.get(),
            [&resolved](const QueueItem &i) { resolved.push_back(i); });
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 10'500));
        FakeTeamLink::answer(f.link->escalations, std::vector { written() });
        f.link->expiries.clear(); // the heartbeats' own
        f.clock.advance(10'500);
        // Asked to end it; still pending here until the database says so.
        QCOMPARE(f.link->expiries, std::vector<std::string> { "gw-self" });
        QCOMPARE(resolved.size(), 0u);
        QCOMPARE(f.queue->pendingCount(), 1);
        // Its clock may be behind ours: asked again a second later.
        f.clock.advance(999);
        QCOMPARE(f.link->expiries.size(), 1u);
        f.clock.advance(1);
        QCOMPARE(f.link->expiries.size(), 2u);
        // The database ended it: a notification, and the row read back.
        f.link->notify(QStringLiteral("decided"), QString::fromStdString(resolvedId(*f.queue)));
        QTRY_COMPARE(f.link->rowReads.size(), 1u);
        team::Row r = remoteRow(f.link->rowReads.front().request.at(0));
        r.gateway = "gw-self";
        r.state = "timed_out";
        r.decision = "deny";
        r.decidedBy = "timeout";
        FakeTeamLink::answer(f.link->rowReads, std::vector { r });
        QCOMPARE(resolved.size(), 1u);
        QCOMPARE(resolved.at(0).state, ItemState::TimedOut);
    }

    void theHeartbeatRunsOnTheClockOneAtATime()
    {
        Fixture f;
        f.link->up();
        QCOMPARE(f.link->beats.size(), 1u); // at connect
        f.clock.advance(2'000);
        QCOMPARE(f.link->beats.size(), 1u); // the first is on its way still
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer {});
        f.clock.advance(1'999);
        QCOMPARE(f.link->beats.size(), 0u);
        f.clock.advance(1);
        QCOMPARE(f.link->beats.size(), 1u);
        QCOMPARE(f.link->beats.front().request.self.id, "gw-self");
        QCOMPARE(f.link->beats.front().request.agents, "[]");
        // Down: no beat, and none queued for later.
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer {});
        f.link->down(QStringLiteral("gone"));
        f.clock.advance(10'000);
        QCOMPARE(f.link->beats.size(), 0u);
        QCOMPARE(f.link->count("beat (down)"), 0);
    }

    void aLeaseIsTakenRenewedWithEachBeatAndLost()
    {
        Fixture f("console");
        f.connect();
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        FakeTeamLink::answer(f.link->escalations, std::vector { written() });
        const std::string id = pendingId(*f.queue);
        f.queue->claim(id);
        QCOMPARE(f.link->claims.size(), 1u);
        QCOMPARE(f.link->claims.front().request.reviewer, "alice"); // the database's name
        QCOMPARE(f.link->claims.front().request.leaseMs, 15'000);
        FakeTeamLink::answer(
            f.link->claims, team::Claimed { true, "alice", Start + 15'000, "pending" });
        f.clock.advance(2'000);
        QCOMPARE(f.link->beats.size(), 1u);
        QCOMPARE(f.link->beats.front().request.claims, std::vector<std::string> { id });
        QCOMPARE(f.link->beats.front().request.claimAs, "alice");
        // The renewal failed (another console took it after ours ran out).
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer { {}, { id } });
        f.clock.advance(2'000);
        QVERIFY(f.link->beats.front().request.claims.empty());
        // A lease no longer held is not released.
        f.queue->release(id);
        QVERIFY(f.link->releases.empty());
    }

    void aLeaseRefusedOrReleasedIsNotRenewed()
    {
        Fixture f("console");
        f.connect();
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        FakeTeamLink::answer(f.link->escalations, std::vector { written() });
        const std::string id = pendingId(*f.queue);
        f.queue->claim(id);
        FakeTeamLink::answer(
            f.link->claims, team::Claimed { false, "bob", Start + 15'000, "pending" });
        f.clock.advance(2'000);
        QVERIFY(f.link->beats.front().request.claims.empty());
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer {});
        f.queue->claim(id);
        FakeTeamLink::answer(
            f.link->claims, team::Claimed { true, "alice", Start + 17'000, "pending" });
        f.queue->release(id);
        QCOMPARE(f.link->releases, std::vector<std::string> { id });
        f.clock.advance(2'000);
        QVERIFY(f.link->beats.front().request.claims.empty());
    }

    void copiesGoInBatchesOnTheClock()
    {
        Fixture f;
        f.connect();
        const Json call = { { "event", "call" }, { "ts", "2027-01-15T08:00:00.000Z" },
            { "session", "s1" }, { "call_id", "c1" } };
        f.queue->copyRecord(call);
        f.queue->copyRecord(Json { { "event", "escalated" } }); // in the team's audit already
        f.queue->copyRecord(call);
        f.clock.advance(999);
        QVERIFY(f.link->appends.empty());
        f.clock.advance(1);
        QCOMPARE(f.link->appends.size(), 1u);
        const auto &sent = f.link->appends.front().request;
        QCOMPARE(sent.events.size(), 2u);
        QCOMPARE(sent.events[0].event, "call");
        QCOMPARE(sent.events[0].fields["gateway"], Json("gw-self"));
        QCOMPARE(sent.events[0].fields["at"], Json("2027-01-15T08:00:00.000Z"));
        QVERIFY(!sent.events[0].fields.contains("ts"));
        QCOMPARE(sent.once->batch, 1);
        // 64 waiting go at once, without the clock.
        for (int i = 0; i < 64; ++i)
            f.queue->copyRecord(call);
        QCOMPARE(f.link->appends.size(), 2u);
        QCOMPARE(f.link->appends.back().request.events.size(), 64u);
        QCOMPARE(f.link->appends.back().request.once->batch, 2);
        QCOMPARE(f.link->appends.back().request.once->run, sent.once->run);
    }

    void copiesRefusedAreCountedInTheNextBatch()
    {
        Fixture f;
        f.connect();
        const Json call = { { "event", "call" }, { "ts", "2027-01-15T08:00:00.000Z" } };
        f.queue->copyRecord(call);
        f.queue->copyRecord(call);
        f.clock.advance(1'000);
        FakeTeamLink::fail(f.link->appends, team::TeamError("refused"));
        QCOMPARE(f.queue->shipper().lost(), 2u);
        QCOMPARE(f.queue->shipper().inFlight(), 0u);
        f.queue->copyRecord(call);
        f.clock.advance(1'000);
        const auto &events = f.link->appends.front().request.events;
        QCOMPARE(events.size(), 2u);
        QCOMPARE(events[1].event, "records_lost");
        QCOMPARE(events[1].fields["count"], Json(2));
        QCOMPARE(f.queue->shipper().lost(), 0u);
    }

    void aDeliveryIsCopiedNamedByItsItem()
    {
        Fixture f;
        f.connect();
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        const std::string id = pendingId(*f.queue);
        f.queue->copyRecord(
            Json { { "event", "delivered" }, { "session", "s1" }, { "call_id", "c9" } });
        f.queue->copyRecord(
            Json { { "event", "delivered" }, { "session", "s1" }, { "call_id", "c1" } });
        f.clock.advance(1'000);
        const auto &events = f.link->appends.front().request.events;
        QCOMPARE(events.size(), 1u); // not an escalated call's: not copied
        QCOMPARE(events[0].fields["item"], Json(id));
    }

    void resyncAddsWhatIsNewRemovesWhatIsGoneAndWritesWhatWasLost()
    {
        Fixture f("console");
        f.connect({ remoteRow("r1"), remoteRow("r2") });
        QCOMPARE(f.queue->pendingCount(), 2);
        QVERIFY(f.queue->find("r1")->team);
        QVERIFY(!f.queue->find("r1")->team->local);
        f.queue->enqueue(makeItem(*f.queue, "c1", Start + 60'000));
        FakeTeamLink::answer(f.link->escalations, std::vector { written() });
        const std::string local = f.link->count("escalate") ? localId(*f.queue) : std::string();

        // Lost and back: the database kept r1, ended r2, and lost ours (a
        // failover to a standby that had not received it).
        std::vector<QueueItem> resolved;
        QObject::connect(f.queue.get(), &QueueStore::resolved, f.queue.get(),
            [&resolved](const QueueItem &i) { resolved.push_back(i); });
        f.link->down(QStringLiteral("cut"));
        f.link->up();
        FakeTeamLink::answer(f.link->identities, team::ReviewerSelf { "alice", "alice" });
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer {});
        QCOMPARE(f.link->resyncs.size(), 1u);
        auto shown = f.link->resyncs.front().request;
        std::sort(shown.begin(), shown.end());
        std::vector<std::string> expected { "r1", "r2", local };
        std::sort(expected.begin(), expected.end());
        QCOMPARE(shown, expected);
        team::Row ended = remoteRow("r2");
        ended.state = "decided";
        ended.decision = "deny";
        ended.decidedBy = "human:bob";
        FakeTeamLink::answer(
            f.link->resyncs, team::Resync { { remoteRow("r1") }, { remoteRow("r1"), ended } });
        QCOMPARE(resolved.size(), 1u);
        QCOMPARE(resolved.at(0).id, "r2");
        QVERIFY(f.queue->find("r1"));
        // Ours is written again; twice changes nothing in the database.
        QCOMPARE(f.link->escalations.size(), 1u);
        QCOMPARE(f.link->escalations.front().request.at(0).id, local);
        QCOMPARE(f.queue->pendingCount(), 2);

        // A remote item the team has no row for any more is gone here too.
        f.link->down(QStringLiteral("cut"));
        f.link->up();
        FakeTeamLink::answer(f.link->identities, team::ReviewerSelf { "alice", "alice" });
        FakeTeamLink::answer(f.link->beats, team::BeatAnswer {});
        FakeTeamLink::answer(f.link->resyncs, team::Resync {});
        QCOMPARE(resolved.size(), 2u);
        QCOMPARE(resolved.at(1).id, "r1");
        QCOMPARE(resolved.at(1).state, ItemState::Abandoned);
    }

    void aPersonsDecisionWhileDownIsRefusedNotQueued()
    {
        Fixture f("console");
        f.connect({ remoteRow("r1") });
        std::vector<std::string> refused;
        QObject::connect(f.queue.get(), &QueueStore::reviewRefused, f.queue.get(),
            [&refused](const std::string &, const std::string &message, const std::string &) {
                refused.push_back(message);
            });
        f.link->down(QStringLiteral("cut"));
        protocol::Decision d;
        d.kind = protocol::DecisionKind::Allow;
        d.decidedBy = "human:alice";
        QVERIFY(f.queue->resolve("r1", ItemState::Decided, d));
        QCOMPARE(refused.size(), 1u);
        QVERIFY(refused.at(0).rfind("not decided:", 0) == 0);
        QVERIFY(f.queue->find("r1")); // still pending here
        QVERIFY(f.link->reviews.empty());
    }

private:
    static std::string pendingId(const TeamQueue &q)
    {
        std::string id;
        q.forEachPending([&](const QueueItem &item) { id = item.id; });
        return id;
    }
    static std::string localId(const TeamQueue &q)
    {
        std::string id;
        q.forEachPending([&](const QueueItem &item) {
            if (item.team && item.team->local)
                id = item.id;
        });
        return id;
    }
    static std::string resolvedId(const TeamQueue &q) { return pendingId(q); }
};

QTEST_GUILESS_MAIN(tst_TeamQueue)
#include "tst_teamqueue.moc"
