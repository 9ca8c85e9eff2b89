// SPDX-License-Identifier: Apache-2.0
// TeamConnection on a real PostgreSQL: statements on its own thread,
// LISTEN/NOTIFY, and what happens when the server dies under it
// (`pg_ctl restart -m immediate`, a server kept down) or goes silent behind
// a proxy (the answer deadline), and the TCP settings every connection gets.

#include "common/pgcluster.h"
#include "common/tcpproxy.h"
#include "team/teamconnection.h"

#include <QElapsedTimer>
#include <QtTest>

#include <pqxx/pqxx>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

using namespace holdpoint;
using namespace holdpoint::team;
using holdpoint::test::PgCluster;
using holdpoint::test::TcpProxy;

namespace {

Escalation escalation(const std::string &id)
{
    Escalation e;
    e.id = id;
    e.gateway = "gw-a";
    e.host = "host-a";
    e.sessionId = "s1";
    e.callId = "call-" + id;
    e.tool = "Bash";
    e.item = Json { { "id", id }, { "tool_name", "Bash" }, { "args", { { "command", "ls" } } } };
    e.waitMs = 300'000;
    e.audit = Json { { "item", id } };
    return e;
}

Decide approval(const std::string &id)
{
    Decide d;
    d.id = id;
    d.instance = "console-a";
    d.reviewer = "alice";
    d.via = "test";
    d.action = "approve";
    return d;
}

} // namespace

class tst_TeamConnection final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void runsJobsInOrderOffTheCallersThread();
    void notificationsReachOtherInstances();
    void survivesAnImmediateRestartWithFiftyPending();
    void waitsWhileDownOrFailsFastWhenAsked();
    void reportsAnUnreachableServer();
    void answerDeadlineShutsABlockedReadDown();
    void answerDeadlineNeverTouchesAReusedDescriptor();
    void serverEndsATransactionLeftIdle();
    void silentConnectionIsLostAtTheDeadline();
    void jobsBehindAStuckOneWaitNoLongerThanItsDeadline();
    void slowLinkIsNotASilentOne();
    void tcpSettingsUnlessTheUrlSetsThem_data();
    void tcpSettingsUnlessTheUrlSetsThem();

private:
    std::string url() const { return m_pg.connString(m_db).toStdString(); }
    static TeamConnection::Options fast()
    {
        TeamConnection::Options o;
        o.minBackoffMs = 50;
        o.maxBackoffMs = 400;
        return o;
    }

    // The database through `proxy`, over TCP on 127.0.0.1.
    std::string proxied(const TcpProxy &proxy) const
    {
        return QStringLiteral("host=127.0.0.1 port=%1 dbname=%2 user=%3")
            .arg(QString::number(proxy.port()), m_db, m_pg.adminUser())
            .toStdString();
    }
    bool startProxy(TcpProxy &proxy) const { return proxy.start(m_pg.socketPath()); }
    static TeamConnection::Options deadline(TimeMs ms)
    {
        TeamConnection::Options o = fast();
        o.answerTimeoutMs = ms;
        return o;
    }
    static TimeMs beat(pqxx::connection_base &c)
    {
        return heartbeat(c, Instance { "gw-a", "gateway", "host-a", {}, {}, 60'000 });
    }

    PgCluster m_pg;
    QString m_db;
    int m_databases = 0;
};

void tst_TeamConnection::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
}

void tst_TeamConnection::init()
{
    m_db = QStringLiteral("conn%1").arg(++m_databases);
    QVERIFY2(m_pg.createDatabase(m_db), qPrintable(m_pg.lastError()));
    auto c = team::connect(url());
    migrate(*c);
    pqxx::nontransaction tx(*c);
    tx.exec(
        PgCluster::mapReviewersSql(m_pg.adminUser(), { QStringLiteral("alice") }).toStdString());
}

void tst_TeamConnection::cleanup()
{
    if (!m_pg.isRunning())
        QVERIFY(m_pg.startAgain());
    m_pg.dropDatabase(m_db);
}

void tst_TeamConnection::runsJobsInOrderOffTheCallersThread()
{
    TeamConnection conn(url(), fast());
    QSignalSpy up(&conn, &TeamConnection::connected);
    conn.start();
    std::vector<int> order;
    Qt::HANDLE jobThread = nullptr;
    for (int i = 0; i < 20; ++i) {
        conn.run<int>(
            [i, &jobThread](pqxx::connection_base &c) {
                jobThread = QThread::currentThreadId();
                heartbeat(c, Instance { "gw-a", "gateway", "host-a", {}, {}, 60'000 });
                return i;
            },
            [&order](int v) { order.push_back(v); });
    }
    QTRY_COMPARE_WITH_TIMEOUT(order.size(), std::size_t(20), 10'000);
    for (int i = 0; i < 20; ++i)
        QCOMPARE(order[std::size_t(i)], i);
    QVERIFY(jobThread != QThread::currentThreadId());
    QCOMPARE(up.count(), 1);
    QVERIFY(conn.isConnected());
}

void tst_TeamConnection::notificationsReachOtherInstances()
{
    TeamConnection gatewayConn(url(), fast());
    TeamConnection consoleConn(url(), fast());
    QSignalSpy notified(&consoleConn, &TeamConnection::notified);
    QSignalSpy consoleUp(&consoleConn, &TeamConnection::connected);
    consoleConn.start();
    QTRY_COMPARE_WITH_TIMEOUT(consoleUp.count(), 1, 10'000);
    gatewayConn.start();
    bool escalated = false;
    gatewayConn.run<Escalated>(
        [](pqxx::connection_base &c) {
            heartbeat(c, Instance { "gw-a", "gateway", "host-a", {}, {}, 60'000 });
            return escalate(c, escalation("n1"));
        },
        [&](Escalated) { escalated = true; });
    QTRY_VERIFY_WITH_TIMEOUT(escalated, 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(notified.count(), 1, 10'000);
    QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("new"));
    QCOMPARE(notified.at(0).at(1).toString(), QStringLiteral("n1"));

    // The notifying connection hears its own decision too, and claims are announced.
    QSignalSpy gatewayHeard(&gatewayConn, &TeamConnection::notified);
    consoleConn.run<Claimed>(
        [](pqxx::connection_base &c) {
            heartbeat(c, Instance { "console-a", "console", "host-c", {}, {}, 60'000 });
            return claim(c, "n1", "console-a", "alice", 15'000);
        },
        [](Claimed) {});
    consoleConn.run<Decided>(
        [](pqxx::connection_base &c) { return decide(c, approval("n1")); }, [](Decided) {});
    QTRY_COMPARE_WITH_TIMEOUT(gatewayHeard.count(), 2, 10'000);
    QCOMPARE(gatewayHeard.at(0).at(0).toString(), QStringLiteral("claim"));
    QCOMPARE(gatewayHeard.at(1).at(0).toString(), QStringLiteral("decided"));
    QCOMPARE(gatewayHeard.at(1).at(1).toString(), QStringLiteral("n1"));
}

void tst_TeamConnection::survivesAnImmediateRestartWithFiftyPending()
{
    TeamConnection conn(url(), fast());
    QSignalSpy up(&conn, &TeamConnection::connected);
    QSignalSpy down(&conn, &TeamConnection::disconnected);
    QSignalSpy heard(&conn, &TeamConnection::notified);
    conn.start();
    int escalated = 0;
    for (int i = 0; i < 50; ++i) {
        conn.run<Escalated>(
            [i](pqxx::connection_base &c) {
                if (i == 0)
                    heartbeat(c, Instance { "gw-a", "gateway", "host-a", {}, {}, 60'000 });
                return escalate(c, escalation("p" + std::to_string(i)));
            },
            [&](Escalated e) { escalated += e.created ? 1 : 0; });
    }
    int decided = 0;
    for (int i = 0; i < 10; ++i)
        conn.run<Decided>(
            [i](pqxx::connection_base &c) { return decide(c, approval("p" + std::to_string(i))); },
            [&](Decided d) { decided += d.outcome == Decided::Outcome::Decided ? 1 : 0; });
    QTRY_COMPARE_WITH_TIMEOUT(decided, 10, 20'000);
    QCOMPARE(escalated, 50);
    QTRY_COMPARE_WITH_TIMEOUT(heard.count(), 60, 10'000);

    QVERIFY2(m_pg.restartImmediate(), qPrintable(m_pg.lastError()));
    // Work given while the server restarts waits, then runs once.
    int secondRound = 0;
    int again = 0;
    for (int i = 10; i < 20; ++i)
        conn.run<Decided>(
            [i](pqxx::connection_base &c) { return decide(c, approval("p" + std::to_string(i))); },
            [&](Decided d) {
                secondRound += d.outcome == Decided::Outcome::Decided ? 1 : 0;
                again += d.outcome == Decided::Outcome::AlreadyDecided ? 1 : 0;
            });
    QTRY_VERIFY_WITH_TIMEOUT(down.count() >= 1, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(up.count() >= 2, 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(secondRound + again, 10, 30'000);
    // A decision whose commit was lost with its reply comes back as this
    // instance's own; none is made twice.
    std::vector<Row> pending;
    std::vector<Row> all;
    bool read = false;
    conn.run<int>(
        [&](pqxx::connection_base &c) {
            pending = pendingRows(c);
            std::vector<std::string> ids;
            for (int i = 0; i < 50; ++i)
                ids.push_back("p" + std::to_string(i));
            all = rows(c, ids);
            return 0;
        },
        [&](int) { read = true; });
    QTRY_VERIFY_WITH_TIMEOUT(read, 20'000);
    QCOMPARE(all.size(), std::size_t(50));
    QCOMPARE(pending.size(), std::size_t(30));
    for (const Row &r : all) {
        if (r.state == "decided") {
            QCOMPARE(r.decidedBy, std::string("human:alice"));
            QCOMPARE(r.decidedByInstance, std::string("console-a"));
        }
    }
    QString out;
    QVERIFY(m_pg.psql(m_db,
        QStringLiteral("SELECT count(*), count(DISTINCT line::json->>'item') FROM holdpoint.audit "
                       "WHERE event = 'decision'"),
        &out));
    QCOMPARE(out.trimmed(), QStringLiteral("20|20"));

    // LISTEN is back after the reconnect.
    const int before = int(heard.count());
    conn.run<Decided>(
        [](pqxx::connection_base &c) { return decide(c, approval("p49")); }, [](Decided) {});
    QTRY_COMPARE_WITH_TIMEOUT(int(heard.count()), before + 1, 10'000);
    QCOMPARE(heard.last().at(1).toString(), QStringLiteral("p49"));
}

void tst_TeamConnection::waitsWhileDownOrFailsFastWhenAsked()
{
    TeamConnection conn(url(), fast());
    QSignalSpy up(&conn, &TeamConnection::connected);
    QSignalSpy down(&conn, &TeamConnection::disconnected);
    conn.start();
    QTRY_COMPARE_WITH_TIMEOUT(up.count(), 1, 10'000);
    QVERIFY2(m_pg.stopImmediate(), qPrintable(m_pg.lastError()));
    // The socket closing is enough to notice; no statement needed.
    QTRY_COMPARE_WITH_TIMEOUT(down.count(), 1, 10'000);
    QVERIFY(!conn.isConnected());

    QString failure;
    bool failedRetryable = false;
    conn.run<TimeMs>(
        [](pqxx::connection_base &c) {
            return heartbeat(c, Instance { "c", "console", "h", {}, {}, 0 });
        },
        [](TimeMs) { QFAIL("ran while the server was down"); },
        [&](const TeamError &e) {
            failure = QString::fromStdString(e.what());
            failedRetryable = e.retryable();
        },
        TeamConnection::WhenDown::Fail);
    QTRY_VERIFY_WITH_TIMEOUT(!failure.isEmpty(), 10'000);
    QVERIFY2(failure.contains(QStringLiteral("unreachable")), qPrintable(failure));
    QVERIFY(failedRetryable);

    bool ran = false;
    conn.run<TimeMs>(
        [](pqxx::connection_base &c) {
            return heartbeat(c, Instance { "c", "console", "h", {}, {}, 0 });
        },
        [&](TimeMs t) { ran = t > 0; });
    QVERIFY2(m_pg.startAgain(), qPrintable(m_pg.lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(ran, 30'000);
    QCOMPARE(up.count(), 2);
}

void tst_TeamConnection::reportsAnUnreachableServer()
{
    TeamConnection conn(m_pg.connString(QStringLiteral("no_such_db")).toStdString(), fast());
    QSignalSpy down(&conn, &TeamConnection::disconnected);
    conn.start();
    QTRY_COMPARE_WITH_TIMEOUT(down.count(), 1, 10'000);
    QVERIFY2(down.at(0).at(0).toString().contains(QStringLiteral("no_such_db")),
        qPrintable(down.at(0).at(0).toString()));
    QVERIFY(!conn.isConnected());
}

// The watchdog alone, on a socket pair: a read blocked past the deadline
// returns (end of file) and disarm() says so; a span that ends in time
// leaves the socket as it was.
void tst_TeamConnection::answerDeadlineShutsABlockedReadDown()
{
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    AnswerDeadline deadline(300);
    QCOMPARE(deadline.message(), std::string("no answer from the team database in 300 ms"));
    deadline.arm(pair[0]);
    QCOMPARE(::write(pair[1], "x", 1), ssize_t(1));
    char c = 0;
    QCOMPARE(::read(pair[0], &c, 1), ssize_t(1));
    QVERIFY(!deadline.disarm());

    QElapsedTimer clock;
    clock.start();
    deadline.arm(pair[0]);
    QCOMPARE(::read(pair[0], &c, 1), ssize_t(0)); // blocks until the deadline shuts it down
    const qint64 took = clock.elapsed();
    QVERIFY(deadline.disarm());
    QVERIFY2(took >= 290 && took < 10'000,
        qPrintable(
            QString::number(took))); // not before; the upper bound has room for a loaded machine
    QVERIFY(!deadline.disarm());
    ::close(pair[0]);
    ::close(pair[1]);

    // run() turns what a cut-short call threw into a connection failure.
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    try {
        deadline.run(pair[0], [&] {
            if (::read(pair[0], &c, 1) == 0)
                throw std::runtime_error("end of file");
        });
        QFAIL("no exception");
    } catch (const TeamError &e) {
        QCOMPARE(std::string(e.what()), deadline.message());
        QCOMPARE(e.sqlState(), std::string("08006"));
        QVERIFY(e.retryable());
    }
    QCOMPARE(deadline.run(pair[0], [] { return 7; }), 7);
    ::close(pair[0]);
    ::close(pair[1]);
}

// libpq closes its descriptor itself, inside the armed call, when the
// connection ends; another file may then get that number before the owner
// disarms. The deadline firing then must reach the team socket only.
void tst_TeamConnection::answerDeadlineNeverTouchesAReusedDescriptor()
{
    int team[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, team), 0);
    AnswerDeadline deadline(200);
    deadline.arm(team[0]);
    const int number = team[0];
    ::close(team[0]);
    int other[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, other), 0);
    QCOMPARE(other[0], number); // the lowest free number: the one just closed
    // The deadline shuts the team socket down: its peer reads the end.
    QVERIFY(::fcntl(team[1], F_SETFL, O_NONBLOCK) == 0);
    char c = 0;
    QTRY_COMPARE_WITH_TIMEOUT(::read(team[1], &c, 1), ssize_t(0), 5'000);
    QVERIFY(deadline.disarm());
    // The other socket, with the same number, still carries data both ways.
    QCOMPARE(::write(other[0], "a", 1), ssize_t(1));
    QCOMPARE(::read(other[1], &c, 1), ssize_t(1));
    QCOMPARE(::write(other[1], "b", 1), ssize_t(1));
    QCOMPARE(::read(other[0], &c, 1), ssize_t(1));
    QCOMPARE(c, 'b');
    ::close(team[1]);
    ::close(other[0]);
    ::close(other[1]);
}

// A transaction whose client went silent between a statement and its COMMIT
// would hold its locks (audit_head's, every escalation's) until the server's
// keepalives gave up. Each connection asks the server to end it after three
// answer deadlines, unless the role or database sets a limit of its own.
void tst_TeamConnection::serverEndsATransactionLeftIdle()
{
    const auto setting = [this](TeamConnection::Options options) {
        TeamConnection conn(url(), options);
        conn.start();
        std::string value;
        conn.run<std::string>(
            [](pqxx::connection_base &c) {
                pqxx::nontransaction tx(c);
                return tx.exec("SHOW idle_in_transaction_session_timeout")[0][0].as<std::string>();
            },
            [&value](std::string v) { value = std::move(v); });
        if (!QTest::qWaitFor([&value] { return !value.empty(); }, 10'000))
            return std::string("(no answer)");
        return value;
    };
    QCOMPARE(setting(fast()), std::string("15s"));
    QCOMPARE(setting(deadline(2'000)), std::string("6s"));
    const QString role = m_pg.adminUser();
    QVERIFY2(m_pg.psql(m_db,
                 QStringLiteral("ALTER ROLE %1 SET idle_in_transaction_session_timeout = '7s'")
                     .arg(role)),
        qPrintable(m_pg.lastError()));
    const std::string own = setting(fast());
    QVERIFY(m_pg.psql(
        m_db, QStringLiteral("ALTER ROLE %1 RESET idle_in_transaction_session_timeout").arg(role)));
    QCOMPARE(own, std::string("7s"));
}

// The proxy silences the open connection: the job on it hears nothing, so
// at the deadline the connection counts as lost, reconnects (new
// connections pass) and the job runs again there.
void tst_TeamConnection::silentConnectionIsLostAtTheDeadline()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    TeamConnection conn(proxied(proxy), deadline(1'000));
    QSignalSpy up(&conn, &TeamConnection::connected);
    QSignalSpy down(&conn, &TeamConnection::disconnected);
    conn.start();
    QTRY_COMPARE_WITH_TIMEOUT(up.count(), 1, 10'000);
    QCOMPARE(conn.reconnects(), quint64(0));

    proxy.silence();
    QElapsedTimer clock;
    clock.start();
    TimeMs answered = 0;
    conn.run<TimeMs>(beat, [&](TimeMs t) { answered = t; });
    QVERIFY(down.wait(15'000));
    const qint64 noticed = clock.elapsed();
    QCOMPARE(
        down.at(0).at(0).toString(), QStringLiteral("no answer from the team database in 1 s"));
    QVERIFY2(noticed >= 900 && noticed < 10'000, qPrintable(QString::number(noticed)));
    QTRY_VERIFY_WITH_TIMEOUT(answered > 0, 5'000);
    QCOMPARE(up.count(), 2);
    QCOMPARE(conn.reconnects(), quint64(1));
    QVERIFY(conn.isConnected());
    QCOMPARE(proxy.accepted(), 2);
    qInfo("noticed after %lld ms, answered after %lld ms", noticed, clock.elapsed());
}

// A job that must not wait fails with a retryable error; the rest run
// after the reconnect, none later than the stuck job's deadline plus a
// reconnect.
void tst_TeamConnection::jobsBehindAStuckOneWaitNoLongerThanItsDeadline()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    TeamConnection conn(proxied(proxy), deadline(1'000));
    QSignalSpy up(&conn, &TeamConnection::connected);
    conn.start();
    QTRY_COMPARE_WITH_TIMEOUT(up.count(), 1, 10'000);
    proxy.silence();
    QElapsedTimer clock;
    clock.start();
    std::vector<qint64> doneAt;
    for (int i = 0; i < 5; ++i)
        conn.run<TimeMs>(beat, [&](TimeMs) { doneAt.push_back(clock.elapsed()); });
    QString failure;
    bool retryable = false;
    conn.run<TimeMs>(
        beat, [](TimeMs) { QFAIL("ran on a silent connection"); },
        [&](const TeamError &e) {
            failure = QString::fromStdString(e.what());
            retryable = e.retryable();
        },
        TeamConnection::WhenDown::Fail);
    QTRY_COMPARE_WITH_TIMEOUT(doneAt.size(), std::size_t(5), 10'000);
    QVERIFY2(failure.contains(QStringLiteral("no answer from the team database in 1 s")),
        qPrintable(failure));
    QVERIFY(retryable);
    QVERIFY2(doneAt.back() < 10'000,
        qPrintable(
            QString::number(doneAt.back()))); // a second deadline would be 2 s; room for load
}

// Each answer comes 400 ms after its question, and a job of eight
// statements takes twice the 1.5 s deadline: answers keep arriving, so the
// connection is not lost.
void tst_TeamConnection::slowLinkIsNotASilentOne()
{
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    proxy.setDelayMs(200);
    TeamConnection conn(proxied(proxy), deadline(1'500));
    QSignalSpy up(&conn, &TeamConnection::connected);
    QSignalSpy down(&conn, &TeamConnection::disconnected);
    conn.start();
    QTRY_COMPARE_WITH_TIMEOUT(up.count(), 1, 15'000);
    QElapsedTimer clock;
    clock.start();
    int beats = 0;
    conn.run<int>(
        [](pqxx::connection_base &c) {
            for (int i = 0; i < 8; ++i)
                beat(c);
            return 8;
        },
        [&](int n) { beats = n; });
    QTRY_COMPARE_WITH_TIMEOUT(beats, 8, 15'000);
    QVERIFY2(clock.elapsed() > 3'000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(down.count(), 0);
    QCOMPARE(conn.reconnects(), quint64(0));
}

void tst_TeamConnection::tcpSettingsUnlessTheUrlSetsThem_data()
{
    QTest::addColumn<QString>("extra"); // %1 host, %2 port, %3 database, %4 user
    QTest::addColumn<int>("idle");
    QTest::addColumn<int>("userTimeout");
    const QString kv = QStringLiteral("host=%1 port=%2 dbname=%3 user=%4");
    const QString uri = QStringLiteral("postgresql://%4@%1:%2/%3");
    QTest::newRow("key=value") << kv << 5 << 10'000;
    QTest::newRow("key=value, set")
        << kv + QStringLiteral(" keepalives_idle=30 tcp_user_timeout=0") << 30 << 0;
    QTest::newRow("uri") << uri << 5 << 10'000;
    QTest::newRow("uri, set") << uri + QStringLiteral("?keepalives_idle=30") << 30 << 10'000;
    // Several hosts, the first one closed: the second is used, with the defaults.
    QTest::newRow("two hosts") << QStringLiteral(
        "host=%1,%1 port=1,%2 dbname=%3 user=%4 target_session_attrs=read-write")
                               << 5 << 10'000;
    QTest::newRow("two hosts, uri")
        << QStringLiteral("postgresql://%4@%1:1,%1:%2/%3?target_session_attrs=any") << 5 << 10'000;
}

void tst_TeamConnection::tcpSettingsUnlessTheUrlSetsThem()
{
    QFETCH(QString, extra);
    QFETCH(int, idle);
    QFETCH(int, userTimeout);
    TcpProxy proxy;
    QVERIFY(startProxy(proxy));
    const std::string url = extra
                                .arg(QStringLiteral("127.0.0.1"), QString::number(proxy.port()),
                                    m_db, m_pg.adminUser())
                                .toStdString();
    auto c = team::connect(url);
    const int fd = c->sock();
    const auto option = [fd](int level, int name) {
        int v = -1;
        socklen_t size = sizeof v;
        return ::getsockopt(fd, level, name, &v, &size) == 0 ? v : -1;
    };
    QCOMPARE(option(SOL_SOCKET, SO_KEEPALIVE), 1);
    QCOMPARE(option(IPPROTO_TCP, TCP_KEEPIDLE), idle);
    QCOMPARE(option(IPPROTO_TCP, TCP_KEEPINTVL), 2);
    QCOMPARE(option(IPPROTO_TCP, TCP_KEEPCNT), 3);
    QCOMPARE(option(IPPROTO_TCP, TCP_USER_TIMEOUT), userTimeout);
    QCOMPARE(beat(*c) > 0, true);
}

QTEST_GUILESS_MAIN(tst_TeamConnection)
#include "tst_teamconnection.moc"
