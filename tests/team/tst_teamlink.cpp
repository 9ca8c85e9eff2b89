// SPDX-License-Identifier: Apache-2.0
// The team link when the network misbehaves (issue 28 §1): a real gateway
// reaches PostgreSQL through a proxy of the test's own (tests/common/
// tcpproxy.h) that silences the connections open at one moment, holds new
// ones, or delays every chunk; a reviewer console reaches it directly.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "common/tcpproxy.h"
#include "common/teamdatabase.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

Json approve(const std::string &id)
{
    return Json { { "type", "review" }, { "id", id }, { "action", "approve" } };
}

// The item id of an `escalated` message, or "" if none came.
std::string escalatedId(const Json &m, const std::string &callId)
{
    if (!m.is_object() || !m.contains("item")
        || m["item"].value("call_id", std::string()) != callId)
        return {};
    return m["item"].value("id", std::string());
}

constexpr char DownLine[] = "the console's team link is down: ";
constexpr char Silent[] = "no answer from the team database in 5 s";

} // namespace

class tst_TeamLink final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void silentLinkIsNoticedAndTheDecisionDelivered();
    void silentLinkIsReportedDown();
    void slowLinkBreaksNothing();

private:
    bool startProxy(TcpProxy &proxy) const { return proxy.start(m_pg.socketPath()); }
    QString proxied(const TcpProxy &proxy) const
    {
        return QStringLiteral("host=127.0.0.1 port=%1 dbname=%2 user=%3")
            .arg(QString::number(proxy.port()), m_db, m_pg.adminUser());
    }
    // Whether `pending` at this instance says its team link is down.
    static QByteArray linkReport(const ConsoleProcess &c)
    {
        const CtlResult r = c.ctl({ QStringLiteral("pending") });
        return r.exitCode == 0 ? r.err : QByteArray("pending failed: ") + r.err;
    }

    PgCluster m_pg;
    QString m_db;
    QString m_url;
    int m_databases = 0;
};

void tst_TeamLink::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
}

void tst_TeamLink::init()
{
    m_db = QStringLiteral("link%1").arg(++m_databases);
    QString error;
    m_url = createTeamDatabase(m_pg, m_db, { QStringLiteral("alice") }, &error);
    QVERIFY2(!m_url.isEmpty(), qPrintable(error));
}

void tst_TeamLink::cleanup()
{
    m_pg.dropDatabase(m_db);
}

// The gateway's connection goes silent with a call pending. A reviewer
// decides it meanwhile, and the agent makes another call. Within 15 s the
// gateway notices (its heartbeat hears nothing in 5 s), reconnects, reads
// the state again and delivers the decision; the second call, which waited
// behind the stuck statement, reaches the team and is decided.
void tst_TeamLink::silentLinkIsNoticedAndTheDecisionDelivered()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    ConsoleProcess gateway(teamArgs(proxied(proxy)));
    ConsoleProcess alice(teamArgs(m_url, QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto aliceView = alice.reviewer();
    auto agent = gateway.agent();
    QVERIFY(aliceView && agent);
    agent->send(toolCall("c1"));
    QVERIFY(agent->next("pending").is_object());
    const std::string first = escalatedId(aliceView->next("escalated"), "c1");
    QVERIFY(!first.empty());
    QCOMPARE(proxy.accepted(), 1);

    proxy.silence();
    QElapsedTimer clock;
    clock.start();
    aliceView->send(approve(first));
    QVERIFY(aliceView->next("reviewed").is_object());
    agent->send(toolCall("c2"));
    QVERIFY(agent->next("pending").is_object());

    const Json decision = agent->next("decision", 60'000);
    const qint64 delivered = clock.elapsed();
    QVERIFY2(decision.is_object(), "the decision made during the silence never reached the agent");
    QCOMPARE(decision.value("call_id", std::string()), std::string("c1"));
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("human:alice"));
    qInfo("delivered %lld ms after the approval", delivered);
    QVERIFY(proxy.accepted() >= 2);

    const std::string second = escalatedId(aliceView->next("escalated", 15'000), "c2");
    QVERIFY2(!second.empty(), "the call made after the freeze never reached the team");
    const qint64 reached = clock.elapsed();
    aliceView->send(approve(second));
    const Json decided = agent->next("decision", 15'000);
    QCOMPARE(decided.value("call_id", std::string()), std::string("c2"));
    QCOMPARE(decided.value("decision", std::string()), std::string("allow"));
    qInfo("silenced at 0: decision delivered at %lld ms, the later call at the team at %lld ms, "
          "decided and delivered at %lld ms",
        delivered, reached, clock.elapsed());
}

// While the link is silent and no new connection gets through, the
// gateway says so: to its reviewer connections (a `team` message) and in
// `holdpoint-ctl pending`, with the reason. Then it comes back.
void tst_TeamLink::silentLinkIsReportedDown()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    ConsoleProcess gateway(teamArgs(proxied(proxy)));
    QVERIFY(gateway.ready());
    QByteArray report;
    QTRY_VERIFY2_WITH_TIMEOUT(
        !(report = linkReport(gateway)).contains(DownLine) && proxy.accepted() == 1,
        report.constData(), 15'000);
    auto view = gateway.reviewer();
    QVERIFY(view);

    proxy.setHoldNew(true);
    proxy.silence();
    QElapsedTimer clock;
    clock.start();
    const Json down = view->next("team", 30'000);
    const qint64 noticed = clock.elapsed();
    QVERIFY2(down.is_object(), "the gateway never said its team link was down");
    QCOMPARE(down.value("available", true), false);
    QCOMPARE(down.value("error", std::string()), std::string(Silent));
    // An idle link: the next heartbeat (every 2 s) hears nothing for 5 s;
    // the error's own words say which bound ended it.
    qInfo("noticed after %lld ms", noticed);
    report = linkReport(gateway);
    QVERIFY2(report.contains(QByteArray(QByteArray(DownLine) + Silent)), report.constData());

    proxy.setHoldNew(false);
    const Json up = view->next("team", 15'000);
    QVERIFY2(up.is_object(), "the gateway never said its team link was back");
    QCOMPARE(up.value("available", false), true);
    QVERIFY(!up.contains("error"));
    report = linkReport(gateway);
    QVERIFY2(!report.contains(DownLine), report.constData());
    // The held attempt, or another after it if libpq's connect_timeout ran out first.
    QVERIFY(proxy.accepted() >= 2);
    qInfo("reported down %lld ms after the silence, up again %lld ms after it", noticed,
        clock.elapsed());
}

// Every chunk waits 200 ms each way: a round trip of escalation, decision
// and delivery still works, and the 5 s deadline never fires (one
// connection all along).
void tst_TeamLink::slowLinkBreaksNothing()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    proxy.setDelayMs(200);
    QElapsedTimer clock;
    clock.start();
    ConsoleProcess gateway(teamArgs(proxied(proxy)));
    ConsoleProcess alice(teamArgs(m_url, QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto aliceView = alice.reviewer();
    auto agent = gateway.agent();
    QVERIFY(aliceView && agent);
    agent->send(toolCall("s1"));
    QVERIFY(agent->next("pending").is_object());
    const qint64 asked = clock.elapsed();
    const std::string id = escalatedId(aliceView->next("escalated", 15'000), "s1");
    QVERIFY(!id.empty());
    const qint64 escalated = clock.elapsed();
    aliceView->send(approve(id));
    const Json decision = agent->next("decision", 15'000);
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    const qint64 delivered = clock.elapsed();
    QByteArray report = linkReport(gateway);
    QVERIFY2(!report.contains(DownLine), report.constData());
    QCOMPARE(proxy.accepted(), 1);
    qInfo(
        "200 ms each way: asked at %lld ms, at the team after %lld ms, delivered %lld ms after the "
        "approval was sent; one connection",
        asked, escalated - asked, delivered - escalated);
}

QTEST_GUILESS_MAIN(tst_TeamLink)
#include "tst_teamlink.moc"
