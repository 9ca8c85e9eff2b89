// SPDX-License-Identifier: Apache-2.0
// --metrics end to end: a real `holdpoint --headless` (and a team gateway on
// a PostgreSQL the test starts), real agents through `holdpoint-ctl submit`,
// a reviewer through `holdpoint-ctl approve`, and /metrics, /healthz and
// /readyz read over HTTP as Prometheus and a service manager read them.
// Debian's promtool (package prometheus) checks the page's format.

#include "client/endpointinfo.h"
#include "common/pgcluster.h"
#include "common/testsocket.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

struct Reply
{
    int status = 0;
    QByteArray headers;
    QByteArray body;
};

Reply request(quint16 port, const QByteArray &method, const QByteArray &path)
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    Reply r;
    if (!s.waitForConnected(WaitMs))
        return r;
    s.write(method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
        + "\r\n\r\n");
    // The server is another process: blocking reads time the scrape itself.
    QByteArray all;
    QElapsedTimer waited;
    waited.start();
    while (s.state() == QAbstractSocket::ConnectedState && waited.elapsed() < WaitMs
        && s.waitForReadyRead(int(WaitMs - waited.elapsed())))
        all += s.readAll();
    all += s.readAll();
    if (s.state() == QAbstractSocket::ConnectedState)
        return r; // never closed: one request per connection
    const qsizetype end = all.indexOf("\r\n\r\n");
    if (!all.startsWith("HTTP/1.1 ") || end < 0)
        return r;
    r.status = all.mid(9, 3).toInt();
    r.headers = all.left(end);
    r.body = all.mid(end + 4);
    return r;
}

// Every sample of an exposition: series (name and labels) -> value.
std::map<QByteArray, double> samples(const QByteArray &text)
{
    std::map<QByteArray, double> out;
    for (const QByteArray &line : text.split('\n')) {
        const qsizetype space = line.lastIndexOf(' ');
        if (line.isEmpty() || line.startsWith('#') || space < 0)
            continue;
        out[line.left(space)] = line.mid(space + 1).toDouble();
    }
    return out;
}

// A real holdpoint with --metrics on a free port, its output kept.
class Instance
{
public:
    Instance(const QString &dataDir, const QStringList &extra)
        : m_data(dataDir)
    {
        m_proc.setProgram(QStringLiteral(HOLDPOINT_BIN));
        m_proc.setArguments(QStringList { QStringLiteral("--headless"), QStringLiteral("--port"),
                                QStringLiteral("0"), QStringLiteral("--data-dir"), m_data,
                                QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:0") }
            + extra);
        m_proc.setProcessChannelMode(QProcess::MergedChannels);
        m_proc.start();
    }
    ~Instance()
    {
        if (QTest::currentTestFailed())
            qWarning("holdpoint said:\n%s", output().constData());
        if (m_proc.state() != QProcess::NotRunning) {
            m_proc.terminate();
            if (!m_proc.waitForFinished(WaitMs)) {
                m_proc.kill();
                m_proc.waitForFinished(WaitMs);
            }
        }
    }
    // Until it says where its metrics are, and its agents can connect.
    bool ready()
    {
        static const QRegularExpression said(
            QStringLiteral("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics"));
        return QTest::qWaitFor(
            [&] {
                m_output += m_proc.readAll();
                const QRegularExpressionMatch m = said.match(QString::fromUtf8(m_output));
                if (m.hasMatch())
                    m_port = quint16(m.captured(1).toUInt());
                EndpointInfo info;
                QString error;
                return m_port && readEndpointInfo(m_data, true, &info, &error)
                    && info.pid == m_proc.processId();
            },
            WaitMs * 2);
    }
    QByteArray output()
    {
        m_output += m_proc.readAll();
        return m_output;
    }
    quint16 port() const { return m_port; }
    Reply get(const QByteArray &path) const { return request(m_port, "GET", path); }
    std::map<QByteArray, double> scrape() const { return samples(get("/metrics").body); }
    // Waits until `series` reads `value` (or, `atLeast`, passes it).
    bool reaches(const QByteArray &series, double value, bool atLeast = false) const
    {
        return QTest::qWaitFor(
            [&] {
                const auto all = scrape();
                const auto it = all.find(series);
                return it != all.end() && (it->second == value || (atLeast && it->second > value));
            },
            WaitMs * 2);
    }
    QStringList ctlArgs(const QStringList &args) const
    {
        return QStringList { QStringLiteral("--data-dir"), m_data } + args;
    }

private:
    QString m_data;
    QProcess m_proc;
    QByteArray m_output;
    quint16 m_port = 0;
};

QProcess *startCtl(QProcess &p, const QStringList &args)
{
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
    return &p;
}

int runCtl(const QStringList &args, QByteArray *out = nullptr)
{
    QProcess p;
    startCtl(p, args);
    if (!p.waitForFinished(WaitMs * 3))
        return -1;
    if (out)
        *out = p.readAllStandardOutput();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

const QByteArray Decisions = "holdpoint_decisions_total";

QByteArray decisions(const char *decision, const char *decider)
{
    return Decisions + "{decision=\"" + decision + "\",decider=\"" + decider + "\"}";
}

QByteArray latency(const char *decider, const char *suffix)
{
    return QByteArray("holdpoint_decision_latency_seconds_") + suffix + "{decider=\"" + decider
        + "\"}";
}

} // namespace

class tst_MetricsE2E final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void callsAndDecisionsAreCounted();
    void readyzFollowsTheAuditLog();
    void teamLinkAndReconnects();

private:
    // promtool check metrics on `text`: fails the test on any finding; a
    // missing promtool fails it too where every suite must run (CI).
    void checkWithPromtool(const QByteArray &text);
};

void tst_MetricsE2E::checkWithPromtool(const QByteArray &text)
{
    QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty()) {
        const bool required = HOLDPOINT_REQUIRE_PROMTOOL || !qEnvironmentVariableIsEmpty("CI");
        if (required)
            QFAIL("promtool is not installed (Debian's prometheus package), and every suite must "
                  "run here (CI or HOLDPOINT_REQUIRE_ALL_SUITES)");
        QSKIP("promtool is not installed (apt-get install prometheus)");
    }
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("metrics.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setStandardInputFile(f.fileName());
    p.start(promtool, { QStringLiteral("check"), QStringLiteral("metrics") });
    QVERIFY(p.waitForFinished(WaitMs));
    const QByteArray said = p.readAll();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, said.constData());
    // It prints nothing for a page that passes every lint.
    QVERIFY2(said.trimmed().isEmpty(), said.constData());
}

void tst_MetricsE2E::callsAndDecisionsAreCounted()
{
    QTemporaryDir tmp;
    const QString policy = tmp.filePath(QStringLiteral("policy.json"));
    QFile pf(policy);
    QVERIFY(pf.open(QIODevice::WriteOnly));
    pf.write(R"({"default": "ask", "guardrails": [{"type": "rules", "rules": [
        {"when": {"tool": "read_file"}, "action": "allow", "reason": "reads are fine"},
        {"when": {"tool": "drop_table"}, "action": "deny", "reason": "never"}]}]})");
    pf.close();
    Instance console(tmp.filePath(QStringLiteral("data")), { QStringLiteral("--policy"), policy });
    QVERIFY2(console.ready(), console.output().constData());

    QElapsedTimer t;
    t.start();
    const Reply first = console.get("/metrics");
    qInfo("first scrape: %lld us, %lld bytes", qlonglong(t.nsecsElapsed() / 1000),
        qlonglong(first.body.size()));
    QCOMPARE(first.status, 200);
    QVERIFY(first.headers.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8"));
    auto before = samples(first.body);
    QCOMPARE(before["holdpoint_calls_total"], 0.0);
    QCOMPARE(before[decisions("allow", "person")], 0.0);
    QCOMPARE(before["holdpoint_audit_writable"], 1.0);
    QVERIFY(before.count("holdpoint_team_link_up") == 0); // no team, no team metrics

    // Through a real agent client: the guardrails allow one and deny one.
    auto submit = [&](const char *tool) {
        return console.ctlArgs({ QStringLiteral("submit"), QStringLiteral("--tool"),
            QString::fromLatin1(tool), QStringLiteral("--args"), QStringLiteral(R"({"path":"a"})"),
            QStringLiteral("--agent"), QStringLiteral("metrics-e2e") });
    };
    QCOMPARE(runCtl(submit("read_file")), 0);
    QCOMPARE(runCtl(submit("drop_table")), 3);
    // And one waits for a person.
    QProcess waiting;
    startCtl(waiting, submit("deploy"));
    QVERIFY(console.reaches("holdpoint_pending_items", 1));
    auto during = console.scrape();
    QCOMPARE(during["holdpoint_escalations_total"], 1.0);
    QCOMPARE(during["holdpoint_calls_total"], 3.0);
    QCOMPARE(during[decisions("allow", "guardrail")], 1.0);
    QCOMPARE(during[decisions("deny", "guardrail")], 1.0);
    QCOMPARE(during[latency("guardrail", "count")], 2.0);

    QByteArray pending;
    QCOMPARE(
        runCtl(console.ctlArgs({ QStringLiteral("pending"), QStringLiteral("--json") }), &pending),
        0);
    const Json items = Json::parse(pending.toStdString(), nullptr, false);
    QVERIFY2(items.is_array() && items.size() == 1, pending.constData());
    QCOMPARE(runCtl(console.ctlArgs(
                 { QStringLiteral("approve"), toQString(items[0]["id"].get<std::string>()) })),
        0);
    QVERIFY(waiting.waitForFinished(WaitMs));
    QCOMPARE(waiting.exitCode(), 0);

    QVERIFY(console.reaches(latency("person", "count"), 1));
    t.restart();
    const Reply after = console.get("/metrics");
    qInfo("scrape after the calls: %lld us, %lld bytes", qlonglong(t.nsecsElapsed() / 1000),
        qlonglong(after.body.size()));
    auto now = samples(after.body);
    QCOMPARE(now["holdpoint_pending_items"], 0.0);
    QCOMPARE(now["holdpoint_calls_total"], 3.0);
    QCOMPARE(now["holdpoint_escalations_total"], 1.0);
    QCOMPARE(now[decisions("allow", "person")], 1.0);
    QCOMPARE(now[decisions("deny", "guardrail")], 1.0);
    QCOMPARE(now[decisions("allow", "guardrail")], 1.0);
    QCOMPARE(now[decisions("deny", "person")], 0.0);
    double total = 0;
    for (const auto &[series, value] : now)
        if (series.startsWith(QByteArray(Decisions + '{')))
            total += value;
    QCOMPARE(total, 3.0);
    // The person took longer than the guardrails together; a guardrail's
    // answer, synced, is far under a second.
    QVERIFY(now[latency("person", "sum")] > now[latency("guardrail", "sum")]);
    QCOMPARE(now["holdpoint_decision_latency_seconds_bucket{decider=\"guardrail\",le=\"1\"}"], 2.0);
    // Every decision and call was written and synced.
    QVERIFY(now["holdpoint_audit_sync_seconds_count"] >= 1);
    QCOMPARE(now["holdpoint_audit_sync_seconds_count"], now["holdpoint_audit_write_seconds_count"]);
    QVERIFY(now["holdpoint_audit_written_bytes_total"] > 1000);
    // No label carries what an agent sent.
    QVERIFY(!after.body.contains("read_file") && !after.body.contains("metrics-e2e"));
    checkWithPromtool(after.body);

    QCOMPARE(console.get("/healthz").status, 200);
    const Reply ready = console.get("/readyz");
    QCOMPARE(ready.status, 200);
    QCOMPARE(ready.body, QByteArray("ready\n"));
    const Reply post = request(console.port(), "POST", "/metrics");
    QCOMPARE(post.status, 405);
    QVERIFY(post.headers.contains("\r\nAllow: GET, HEAD"));
    const Reply head = request(console.port(), "HEAD", "/metrics");
    QCOMPARE(head.status, 200);
    QVERIFY(head.body.isEmpty());
}

void tst_MetricsE2E::readyzFollowsTheAuditLog()
{
    // A file where the audit directory goes: the log cannot be written, so
    // the console refuses every call, and is alive but not ready.
    QTemporaryDir tmp;
    const QString data = tmp.filePath(QStringLiteral("data"));
    QVERIFY(QDir().mkpath(data));
    QFile blocker(data + QStringLiteral("/audit"));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    Instance console(data, {});
    QVERIFY2(console.ready(), console.output().constData());

    QCOMPARE(console.get("/healthz").status, 200);
    const Reply notReady = console.get("/readyz");
    QCOMPARE(notReady.status, 503);
    QVERIFY2(notReady.body.startsWith("not ready: the audit log cannot be written"),
        notReady.body.constData());
    QCOMPARE(notReady.body.count('\n'), 1);
    QVERIFY(console.reaches("holdpoint_audit_writable", 0));

    // The disk takes writes again: ready, without a restart.
    QVERIFY(blocker.remove());
    QVERIFY(QTest::qWaitFor([&] { return console.get("/readyz").status == 200; }, WaitMs * 2));
    QVERIFY(console.reaches("holdpoint_audit_writable", 1));
    checkWithPromtool(console.get("/metrics").body);
}

void tst_MetricsE2E::teamLinkAndReconnects()
{
    PgCluster pg;
    QVERIFY2(pg.start(), qPrintable(pg.lastError()));
    QVERIFY2(pg.createDatabase(QStringLiteral("metrics")), qPrintable(pg.lastError()));
    const QString url = pg.connString(QStringLiteral("metrics"));
    QCOMPARE(runCtl({ QStringLiteral("team"), QStringLiteral("init"), url }), 0);

    QTemporaryDir tmp;
    Instance gateway(tmp.filePath(QStringLiteral("data")), { QStringLiteral("--team"), url });
    QVERIFY2(gateway.ready(), gateway.output().constData());
    QVERIFY(gateway.reaches("holdpoint_team_link_up", 1));
    QVERIFY(QTest::qWaitFor([&] { return gateway.get("/readyz").status == 200; }, WaitMs));
    QCOMPARE(gateway.scrape()["holdpoint_team_reconnects_total"], 0.0);

    // The database goes away: the link is down, and so is readiness.
    QVERIFY(pg.stop());
    QVERIFY(gateway.reaches("holdpoint_team_link_up", 0));
    const Reply down = gateway.get("/readyz");
    QCOMPARE(down.status, 503);
    QVERIFY2(
        down.body.startsWith("not ready: the team database link is down"), down.body.constData());
    QCOMPARE(down.body.count('\n'), 1);
    QCOMPARE(gateway.get("/healthz").status, 200);

    // It comes back: reconnected (once, unless a slow first statement after
    // the restart cost another), ready again.
    QVERIFY(pg.startAgain());
    QVERIFY(gateway.reaches("holdpoint_team_reconnects_total", 1, true));
    QVERIFY(gateway.reaches("holdpoint_team_link_up", 1));
    QVERIFY(QTest::qWaitFor([&] { return gateway.get("/readyz").status == 200; }, WaitMs));
    checkWithPromtool(gateway.get("/metrics").body);
}

QTEST_GUILESS_MAIN(tst_MetricsE2E)
#include "tst_metrics_e2e.moc"
