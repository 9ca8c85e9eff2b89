// SPDX-License-Identifier: Apache-2.0
// Team mode across a failover (TEAM.md "Failover"): a primary and a
// streaming standby that the test starts itself (pg_basebackup -R), real
// `holdpoint --team` gateways and consoles on a multi-host URL, real agents.
// The primary's postmaster is killed with SIGKILL and the standby promoted;
// the instances follow it through libpq's host list and their reconnect loop.
//
// - Synchronous replication (remote_apply): nothing an agent or a reviewer
//   was told is lost, nothing is decided twice, the audit chain verifies.
// - Asynchronous replication: what the standby had not received is lost, and
//   every such call ends denied, never allowed.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "common/teamdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

#include <map>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

constexpr int FollowMs = 30'000; // a reconnect's backoff is at most 5 s, plus the promotion

} // namespace

class tst_TeamFailover final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void multiHostUrlIsChecked();
    void synchronousFailoverLosesNothing();
    void asynchronousFailoverDeniesWhatItLost();

private:
    // A primary with a streaming standby, the team schema, and one login
    // deciding as alice or carol; the URL names both, the primary first.
    bool startPair();
    QStringList teamArgs(const QString &reviewer = {}) const
    {
        return test::teamArgs(m_url, reviewer);
    }
    CtlResult teamCtl(const QStringList &args) const
    {
        return test::teamCtl(m_url, args, QStringLiteral("carol"));
    }
    // What a holdpoint-ctl run said, for a failed check.
    static QByteArray said(const CtlResult &r)
    {
        return "exit code " + QByteArray::number(r.exitCode) + ": " + r.err + r.out;
    }
    // One value from `cluster`'s team database ("" when the query fails).
    static QString value(PgCluster &cluster, const QString &sql)
    {
        QString out;
        return cluster.psql(QStringLiteral("team"), sql, &out) ? out.trimmed() : QString();
    }
    static QString stateOf(PgCluster &cluster, const std::string &id)
    {
        return value(cluster,
            QStringLiteral("SELECT coalesce(state || ' ' || coalesce(code, ''), 'none') FROM "
                           "(SELECT 1) one LEFT JOIN holdpoint.items ON id = '%1'")
                .arg(toQString(id)));
    }
    // The agent's decisions, by call id, until `count` have come.
    static std::map<std::string, Json> decisions(TestSocket &agent, int count)
    {
        std::map<std::string, Json> got;
        for (int i = 0; i < count; ++i) {
            const Json d = agent.next("decision", FollowMs);
            if (!d.is_object())
                break;
            got[d.value("call_id", std::string())] = d;
        }
        return got;
    }
    // Kills the primary's postmaster, promotes the standby, and says how long
    // until a call made then shows at `console`.
    void failOver(TestSocket &agent, TestSocket &console, const std::string &callId);

    std::unique_ptr<PgCluster> m_primary;
    std::unique_ptr<PgCluster> m_standby;
    QString m_url;
};

bool tst_TeamFailover::startPair()
{
    m_primary = std::make_unique<PgCluster>();
    m_standby = std::make_unique<PgCluster>();
    PgCluster::Options options;
    options.replication = true;
    if (!m_primary->start(options) || !m_primary->createDatabase(QStringLiteral("team"))) {
        qWarning("%s", qPrintable(m_primary->lastError()));
        return false;
    }
    // The copy is taken once the primary is set up, so it starts current.
    if (!m_standby->startStandby(*m_primary, QStringLiteral("standby"))) {
        qWarning("%s", qPrintable(m_standby->lastError()));
        return false;
    }
    // Both hosts, the primary first; libpq tries each in turn and keeps the
    // one that accepts writes.
    m_url = QStringLiteral("host=%1,%2 port=%3,%4 dbname=team user=%5 "
                           "target_session_attrs=read-write")
                .arg(m_primary->socketDir(), m_standby->socketDir())
                .arg(m_primary->port())
                .arg(m_standby->port())
                .arg(m_primary->adminUser());
    const CtlResult init = teamCtl({ QStringLiteral("team"), QStringLiteral("init"), m_url });
    if (init.exitCode != 0) {
        qWarning("team init: %s", init.err.constData());
        return false;
    }
    if (!m_primary->psql(QStringLiteral("team"),
            PgCluster::mapReviewersSql(
                m_primary->adminUser(), { QStringLiteral("alice"), QStringLiteral("carol") }))) {
        qWarning("%s", qPrintable(m_primary->lastError()));
        return false;
    }
    return true;
}

void tst_TeamFailover::init()
{
    m_url.clear();
}

void tst_TeamFailover::cleanup()
{
    // The standby first: a synchronous primary would wait for it to stop.
    m_standby.reset();
    m_primary.reset();
}

void tst_TeamFailover::failOver(TestSocket &agent, TestSocket &console, const std::string &callId)
{
    QElapsedTimer t;
    t.start();
    QVERIFY2(m_primary->killPostmaster(), qPrintable(m_primary->lastError()));
    // Until the promotion the URL finds no host that takes writes, and says so.
    const CtlResult before = teamCtl({ QStringLiteral("pending") });
    QVERIFY2(before.exitCode != 0 && before.err.contains("read-only"), said(before).constData());
    QVERIFY2(m_standby->promote(), qPrintable(m_standby->lastError()));
    const qint64 promoted = t.elapsed();
    agent.send(toolCall(callId));
    // The console may show items again first: those whose ending was lost.
    QDeadlineTimer deadline(FollowMs);
    Json shown;
    while (!deadline.hasExpired()
        && (shown = console.next("escalated", int(deadline.remainingTime()))).is_object()
        && shown["item"].value("call_id", std::string()) != callId) { }
    QVERIFY2(shown.is_object(), "a call made after the promotion did not reach the console");
    qInfo("failover: promoted %lld ms after the kill; a new call reached the console %lld ms "
          "after the promotion",
        promoted, t.elapsed() - promoted);
}

void tst_TeamFailover::multiHostUrlIsChecked()
{
    // One cluster is enough: the second host does not exist, so libpq's
    // error names both, and a URL with a password is still refused.
    PgCluster pg;
    QVERIFY2(pg.start(), qPrintable(pg.lastError()));
    QVERIFY(pg.createDatabase(QStringLiteral("team")));
    const QString missing = QDir::tempPath() + QStringLiteral("/holdpoint-no-such-dir");
    const QString twoHosts = QStringLiteral(
        "host=%1,%2 port=%3,%3 dbname=team user=%4 target_session_attrs=read-write")
                                 .arg(missing, pg.socketDir())
                                 .arg(pg.port())
                                 .arg(pg.adminUser());
    QTemporaryDir dataDir; // for the instances refused at start
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("team"), QStringLiteral("init"), twoHosts });
    CtlResult r = finish(p);
    QVERIFY2(r.exitCode == 0, said(r).constData());

    const QString bothGone = QStringLiteral("host=%1,%1/b port=%2,%2 dbname=team "
                                            "target_session_attrs=read-write")
                                 .arg(missing)
                                 .arg(pg.port());
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--team"), bothGone, QStringLiteral("pending") });
    r = finish(p);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(QFile::encodeName(missing + QStringLiteral("/.s.PGSQL")))
            && r.err.contains(QFile::encodeName(missing + QStringLiteral("/b/.s.PGSQL"))),
        r.err.constData());

    p.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), dataDir.path(),
            QStringLiteral("--team"), twoHosts + QStringLiteral(" password=hunter2") });
    r = finish(p);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("holds a password") && !r.err.contains("hunter2"), r.err.constData());

    // Lists that do not pair up are refused at start, not retried forever.
    p.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), dataDir.path(),
            QStringLiteral("--team"),
            QStringLiteral("host=%1,%2,%2 port=%3,%3 dbname=team")
                .arg(missing, pg.socketDir())
                .arg(pg.port()) });
    r = finish(p);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("names 2 ports for 3 hosts"), r.err.constData());
}

void tst_TeamFailover::synchronousFailoverLosesNothing()
{
    QVERIFY(startPair());
    // remote_apply: a commit returns once the standby has applied it, so
    // whatever an agent or a reviewer was told is on the standby already.
    QVERIFY2(m_primary->requireSynchronousStandby(
                 QStringLiteral("standby"), QStringLiteral("remote_apply")),
        qPrintable(m_primary->lastError()));

    ConsoleProcess gateway(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto agent = gateway.agent();
    auto aliceView = alice.reviewer();
    QVERIFY(agent && aliceView);

    agent->send(toolCall("waits"));
    const std::string waits = agent->next("pending").value("id", std::string());
    agent->send(toolCall("decided"));
    const std::string decided = agent->next("pending").value("id", std::string());
    QVERIFY(aliceView->next("escalated").is_object() && aliceView->next("escalated").is_object());
    aliceView->send(Json { { "type", "review" }, { "id", decided }, { "action", "approve" } });
    QCOMPARE(agent->next("decision").value("call_id", std::string()), std::string("decided"));
    // remote_apply: applied on the standby before the commit returned, so
    // before the agent heard it; no waiting here.
    QCOMPARE(stateOf(*m_standby, decided), QStringLiteral("decided"));
    const QString auditBefore
        = value(*m_primary, QStringLiteral("SELECT max(seq) FROM holdpoint.audit"));

    failOver(*agent, *aliceView, "after");
    if (QTest::currentTestFailed())
        return;

    // What was decided stays decided, what waited still waits.
    QCOMPARE(stateOf(*m_standby, decided), QStringLiteral("decided"));
    QCOMPARE(stateOf(*m_standby, waits), QStringLiteral("pending"));
    QVERIFY(value(*m_standby, QStringLiteral("SELECT max(seq) FROM holdpoint.audit")).toLongLong()
        >= auditBefore.toLongLong());
    // Decided is decided: a second answer is refused.
    const CtlResult again = teamCtl({ QStringLiteral("deny"), toQString(decided),
        QStringLiteral("--reason"), QStringLiteral("twice") });
    QVERIFY2(again.exitCode == 2 && again.err.contains("already_decided"), said(again).constData());

    // Decisions on the new primary reach the agent: one survived the
    // failover, one is made after it.
    const std::string after = value(
        *m_standby, QStringLiteral("SELECT id FROM holdpoint.items WHERE call_id = 'after'"))
                                  .toStdString();
    CtlResult r = teamCtl({ QStringLiteral("approve"), toQString(waits) });
    QVERIFY2(r.exitCode == 0, said(r).constData());
    aliceView->send(Json { { "type", "review" }, { "id", after }, { "action", "deny" },
        { "reason", "after the failover" } });
    const auto got = decisions(*agent, 2);
    QCOMPARE(int(got.size()), 2);
    QCOMPARE(got.at("waits").value("decision", std::string()), std::string("allow"));
    QCOMPARE(got.at("after").value("decision", std::string()), std::string("deny"));
    QVERIFY(agent->noneOf("decision"));
    QCOMPARE(value(*m_standby,
                 QStringLiteral("SELECT count(*) FROM holdpoint.audit WHERE event = 'decision'")),
        QStringLiteral("3"));
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, said(verify).constData());
}

void tst_TeamFailover::asynchronousFailoverDeniesWhatItLost()
{
    QVERIFY(startPair());
    ConsoleProcess gateway(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto agent = gateway.agent();
    auto aliceView = alice.reviewer();
    QVERIFY(agent && aliceView);

    std::map<std::string, std::string> ids;
    for (const char *call : { "kept", "allowed", "denied" }) {
        agent->send(toolCall(call));
        ids[call] = agent->next("pending").value("id", std::string());
        QVERIFY(aliceView->next("escalated").is_object());
    }
    // The standby has the three escalations, then receives nothing more:
    // stopReceiving() empties its primary_conninfo and waits until its WAL
    // receiver is gone. What the primary commits from here on exists there
    // alone and is lost when it dies, every run the same.
    QTRY_COMPARE_WITH_TIMEOUT(
        value(*m_standby, QStringLiteral("SELECT count(*) FROM holdpoint.items")),
        QStringLiteral("3"), WaitMs);
    QVERIFY2(m_standby->stopReceiving(), qPrintable(m_standby->lastError()));

    // Lost: an allow and a deny that the agent received, and an escalation.
    aliceView->send(
        Json { { "type", "review" }, { "id", ids["allowed"] }, { "action", "approve" } });
    aliceView->send(Json {
        { "type", "review" }, { "id", ids["denied"] }, { "action", "deny" }, { "reason", "no" } });
    auto got = decisions(*agent, 2);
    QCOMPARE(got["allowed"].value("decision", std::string()), std::string("allow"));
    QCOMPARE(got["denied"].value("decision", std::string()), std::string("deny"));
    agent->send(toolCall("escalated"));
    ids["escalated"] = agent->next("pending").value("id", std::string());
    QVERIFY(aliceView->next("escalated").is_object());
    QCOMPARE(stateOf(*m_primary, ids["allowed"]), QStringLiteral("decided"));
    QCOMPARE(stateOf(*m_primary, ids["escalated"]), QStringLiteral("pending"));
    // The standby, read-only still, has none of it.
    QCOMPARE(stateOf(*m_standby, ids["allowed"]), QStringLiteral("pending"));
    QCOMPARE(stateOf(*m_standby, ids["denied"]), QStringLiteral("pending"));
    QCOMPARE(stateOf(*m_standby, ids["escalated"]), QStringLiteral("none"));
    const QString lines = QStringLiteral("SELECT count(*) FROM holdpoint.audit");
    QVERIFY(value(*m_standby, lines).toInt() < value(*m_primary, lines).toInt());

    failOver(*agent, *aliceView, "after");
    if (QTest::currentTestFailed())
        return;

    // The gateway finds the calls it answered pending again, and ends them
    // as denies there too, so no one can decide them a second time.
    for (const char *call : { "allowed", "denied" }) {
        QTRY_COMPARE_WITH_TIMEOUT(
            stateOf(*m_standby, ids[call]), QStringLiteral("unavailable answer_lost"), FollowMs);
        const CtlResult r = teamCtl({ QStringLiteral("approve"), toQString(ids[call]) });
        QVERIFY2(r.exitCode == 2 && r.err.contains("already_decided"), said(r).constData());
    }
    // It writes the escalation the standby never had again: the call still
    // waits for a person, as before the failover, and so does the kept one.
    QTRY_COMPARE_WITH_TIMEOUT(
        stateOf(*m_standby, ids["escalated"]), QStringLiteral("pending"), FollowMs);
    QCOMPARE(stateOf(*m_standby, ids["kept"]), QStringLiteral("pending"));
    QVERIFY(agent->noneOf("decision"));

    // And the team carries on: decisions made now reach the agent.
    const std::string after = value(
        *m_standby, QStringLiteral("SELECT id FROM holdpoint.items WHERE call_id = 'after'"))
                                  .toStdString();
    for (const std::string &id : { ids["kept"], after }) {
        const CtlResult r = teamCtl({ QStringLiteral("approve"), toQString(id) });
        QVERIFY2(r.exitCode == 0, said(r).constData());
    }
    const CtlResult r = teamCtl({ QStringLiteral("deny"), toQString(ids["escalated"]),
        QStringLiteral("--reason"), QStringLiteral("after the failover") });
    QVERIFY2(r.exitCode == 0, said(r).constData());
    got = decisions(*agent, 3);
    QCOMPARE(int(got.size()), 3);
    QCOMPARE(got["kept"].value("decision", std::string()), std::string("allow"));
    QCOMPARE(got["after"].value("decision", std::string()), std::string("allow"));
    QCOMPARE(got["escalated"].value("decision", std::string()), std::string("deny"));
    QVERIFY(agent->noneOf("decision"));
    // The chain on the new primary is the one the standby had, and goes on.
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, said(verify).constData());
}

QTEST_GUILESS_MAIN(tst_TeamFailover)
#include "tst_team_failover.moc"
