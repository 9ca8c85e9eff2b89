// SPDX-License-Identifier: Apache-2.0
// TeamActivity, what a console's History and Turns views read from the team
// audit, across an asynchronous failover on real PostgreSQL: a primary and a
// streaming standby that stops receiving, so the standby lacks the newest
// lines the console already read. After the promotion the table goes on
// from an earlier seq with other lines, and the console must read those too.

#include "common/pgcluster.h"
#include "team/teamactivity.h"
#include "team/teamconnection.h"
#include "team/teamdb.h"

#include <QSignalSpy>
#include <QtTest>

#include <pqxx/pqxx>

using namespace holdpoint;
using namespace holdpoint::team;
using holdpoint::test::PgCluster;

namespace {

constexpr int WaitMs = 30'000; // a reconnect's backoff is at most 5 s, plus the promotion

// Lines of `gateway`'s own log, as it copies them (schema 5 takes a
// gateway's copies only for its own instance, and only of its kinds).
std::vector<AuditEvent> marked(const char *gateway, std::initializer_list<const char *> marks)
{
    std::vector<AuditEvent> events;
    for (const char *m : marks)
        events.push_back({ "call", Json { { "gateway", gateway }, { "mark", m } } });
    return events;
}

// Registers an instance for the writing login, as its first heartbeat does.
void registered(pqxx::connection_base &c, const char *id)
{
    heartbeat(c, Instance { id, "gateway", "host", {}, {}, 60'000 });
}

QStringList list(const char *commaSeparated)
{
    return QString::fromLatin1(commaSeparated).split(QLatin1Char(','));
}

} // namespace

class tst_TeamActivity final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followsTheNewLinesAfterAnAsynchronousFailover();

private:
    QStringList marks() const
    {
        QStringList out;
        for (const Json &r : m_records)
            out << QString::fromStdString(r.value("mark", std::string("?")));
        return out;
    }
    QString auditCount(PgCluster &cluster)
    {
        QString out;
        return cluster.psql(QStringLiteral("team"),
                   QStringLiteral("SELECT count(*) FROM holdpoint.audit"), &out)
            ? out.trimmed()
            : QString();
    }

    std::vector<Json> m_records;
};

void tst_TeamActivity::followsTheNewLinesAfterAnAsynchronousFailover()
{
    PgCluster primary;
    PgCluster standby;
    PgCluster::Options options;
    options.replication = true;
    QVERIFY2(primary.start(options), qPrintable(primary.lastError()));
    QVERIFY2(primary.createDatabase(QStringLiteral("team")), qPrintable(primary.lastError()));
    QVERIFY2(
        standby.startStandby(primary, QStringLiteral("standby")), qPrintable(standby.lastError()));
    const std::string url = QStringLiteral("host=%1,%2 port=%3,%4 dbname=team user=%5 "
                                           "target_session_attrs=read-write")
                                .arg(primary.socketDir(), standby.socketDir())
                                .arg(primary.port())
                                .arg(standby.port())
                                .arg(primary.adminUser())
                                .toStdString();

    TeamConnection::Options fast;
    fast.maxBackoffMs = 500;
    TeamConnection conn(url, fast);
    TeamActivity activity(&conn, "console-x");
    connect(&activity, &TeamActivity::record, this,
        [this](const Json &record) { m_records.push_back(record); });
    QSignalSpy connected(&conn, &TeamConnection::connected);
    conn.start();
    QVERIFY2(connected.wait(WaitMs), qPrintable(conn.lastError()));

    {
        auto writer = team::connect(primary.connString(QStringLiteral("team")).toStdString());
        registered(*writer, "gw-a");
        appendAudit(*writer, "gw-a", marked("gw-a", { "a1", "a2", "a3" }));
        activity.follow();
        QTRY_COMPARE_WITH_TIMEOUT(marks(), list("a1,a2,a3"), WaitMs);
        // The standby has those three, and then receives nothing more.
        QTRY_COMPARE_WITH_TIMEOUT(auditCount(standby), QStringLiteral("3"), WaitMs);
        QVERIFY2(standby.stopReceiving(), qPrintable(standby.lastError()));
        appendAudit(*writer, "gw-a", marked("gw-a", { "a4", "a5" }));
        activity.follow();
        QTRY_COMPARE_WITH_TIMEOUT(marks().size(), 5, WaitMs);
    }
    QCOMPARE(auditCount(standby), QStringLiteral("3"));

    QVERIFY2(primary.killPostmaster(), qPrintable(primary.lastError()));
    QVERIFY2(standby.promote(), qPrintable(standby.lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(conn.isConnected() && conn.reconnects() >= 1, WaitMs);

    // On the new primary the lines after a3 are others, with the seqs that
    // a4 and a5 had: the console reads them, and nothing twice.
    auto writer = team::connect(standby.connString(QStringLiteral("team")).toStdString());
    registered(*writer, "gw-b");
    registered(*writer, "console-x");
    appendAudit(*writer, "gw-b", marked("gw-b", { "b4", "b5" }));
    activity.follow();
    QTRY_COMPARE_WITH_TIMEOUT(marks(), list("a1,a2,a3,a4,a5,b4,b5"), WaitMs);
    appendAudit(*writer, "gw-b", marked("gw-b", { "b6" }));
    activity.follow();
    QTRY_COMPARE_WITH_TIMEOUT(marks(), list("a1,a2,a3,a4,a5,b4,b5,b6"), WaitMs);
    // Its own lines are still skipped.
    appendAudit(*writer, "console-x", marked("console-x", { "own" }));
    appendAudit(*writer, "gw-b", marked("gw-b", { "b8" }));
    activity.follow();
    QTRY_COMPARE_WITH_TIMEOUT(marks().size(), 9, WaitMs);
    QCOMPARE(marks().last(), QStringLiteral("b8"));
}

QTEST_GUILESS_MAIN(tst_TeamActivity)
#include "tst_teamactivity.moc"
