// SPDX-License-Identifier: Apache-2.0
// The metrics registry and its Prometheus text (exact output for known
// inputs, bucket math, escaping, naming rules), the request parser and
// routes of its HTTP server, and the server itself on a real loopback socket.

#include "common/testsocket.h"
#include "engine/consolemetrics.h"
#include "metrics/metricsserver.h"
#include "metrics/registry.h"

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QtTest>

#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace holdpoint;
using namespace holdpoint::metrics;

namespace {

// One request on a fresh connection; the whole answer, once the server closed.
QByteArray exchange(quint16 port, const QByteArray &request)
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(test::WaitMs))
        return {};
    s.write(request);
    QByteArray reply;
    const bool closed = QTest::qWaitFor(
        [&] {
            reply += s.readAll();
            return s.state() == QAbstractSocket::UnconnectedState;
        },
        test::WaitMs);
    return closed ? reply + s.readAll() : QByteArray();
}

} // namespace

class tst_Metrics final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void expositionOfKnownValues();
    void labelsAreDeclaredAndBounded();
    void countsKeptElsewhereAreReadAtExposition();
    void histogramBuckets_data();
    void histogramBuckets();
    void histogramFromManyThreads();
    void formatValue_data();
    void formatValue();
    void escaping_data();
    void escaping();
    void namesFollowTheConventions_data();
    void namesFollowTheConventions();
    void requestHead_data();
    void requestHead();
    void routes_data();
    void routes();
    void address_data();
    void address();
    void deciders_data();
    void deciders();
    void serverOnLoopback();
    void idleConnectionsCannotStarveTheProbes();
};

void tst_Metrics::expositionOfKnownValues()
{
    Registry r;
    Counter &calls = r.counter("holdpoint_test_calls_total", "Calls.");
    r.gauge("holdpoint_test_pending", "Waiting.", [] { return 3.0; });
    Family<Counter> &decisions = r.counters("holdpoint_test_decisions_total", "By kind.",
        { Label { "decision", { "allow", "deny" } },
            Label { "decider", { "guardrail", "person" } } });
    Histogram &h = r.histogram("holdpoint_test_latency_seconds", "Latency.", { 0.1, 1 });
    calls.inc();
    calls.inc(2);
    decisions.find({ "deny", "person" })->inc();
    h.observe(0.05);
    h.observe(0.1); // le is inclusive
    h.observe(7);
    const std::string expected
        = "# HELP holdpoint_test_calls_total Calls.\n"
          "# TYPE holdpoint_test_calls_total counter\n"
          "holdpoint_test_calls_total 3\n"
          "# HELP holdpoint_test_pending Waiting.\n"
          "# TYPE holdpoint_test_pending gauge\n"
          "holdpoint_test_pending 3\n"
          "# HELP holdpoint_test_decisions_total By kind.\n"
          "# TYPE holdpoint_test_decisions_total counter\n"
          "holdpoint_test_decisions_total{decision=\"allow\",decider=\"guardrail\"} 0\n"
          "holdpoint_test_decisions_total{decision=\"allow\",decider=\"person\"} 0\n"
          "holdpoint_test_decisions_total{decision=\"deny\",decider=\"guardrail\"} 0\n"
          "holdpoint_test_decisions_total{decision=\"deny\",decider=\"person\"} 1\n"
          "# HELP holdpoint_test_latency_seconds Latency.\n"
          "# TYPE holdpoint_test_latency_seconds histogram\n"
          "holdpoint_test_latency_seconds_bucket{le=\"0.1\"} 2\n"
          "holdpoint_test_latency_seconds_bucket{le=\"1\"} 2\n"
          "holdpoint_test_latency_seconds_bucket{le=\"+Inf\"} 3\n"
          "holdpoint_test_latency_seconds_sum 7.15\n"
          "holdpoint_test_latency_seconds_count 3\n";
    QCOMPARE(QString::fromStdString(r.exposition()), QString::fromStdString(expected));
}

// A count another object keeps (the team connection's reconnects) is read
// when the page is written, as a counter; the naming rules still hold.
void tst_Metrics::countsKeptElsewhereAreReadAtExposition()
{
    Registry r;
    double reconnects = 0;
    r.counter("holdpoint_test_reconnects_total", "Reopened.", [&] { return reconnects; });
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        r.counter("holdpoint_test_reconnects", "Reopened.", [] { return 0.0; }));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, r.counter("holdpoint_test_none_total", "None.", {}));
    reconnects = 2;
    QCOMPARE(QString::fromStdString(r.exposition()),
        QStringLiteral("# HELP holdpoint_test_reconnects_total Reopened.\n"
                       "# TYPE holdpoint_test_reconnects_total counter\n"
                       "holdpoint_test_reconnects_total 2\n"));
}

void tst_Metrics::labelsAreDeclaredAndBounded()
{
    Registry r;
    Family<Histogram> &f = r.histograms("holdpoint_test_wait_seconds", "Wait.", { 1 },
        { Label { "decider", { "guardrail", "person" } } });
    QCOMPARE(f.size(), std::size_t(2));
    QVERIFY(f.find({ "person" }));
    // A value nobody declared (say, a tool's name) has no series to go to.
    QCOMPARE(f.find({ "write_file" }), nullptr);
    QCOMPARE(f.find({}), nullptr);
    QCOMPARE(f.find({ "person", "extra" }), nullptr);
    f.find({ "person" })->observe(0.5);
    const std::string text = r.exposition();
    QVERIFY(text.find("holdpoint_test_wait_seconds_bucket{decider=\"person\",le=\"1\"} 1\n")
        != std::string::npos);
    QVERIFY(text.find("holdpoint_test_wait_seconds_count{decider=\"guardrail\"} 0\n")
        != std::string::npos);
}

void tst_Metrics::histogramBuckets_data()
{
    QTest::addColumn<QList<double>>("observations");
    QTest::addColumn<QList<quint64>>("cumulative"); // le 0.001, 0.01, 1, +Inf
    QTest::addColumn<double>("sum");
    QTest::newRow("none") << QList<double> {} << QList<quint64> { 0, 0, 0, 0 } << 0.0;
    QTest::newRow("on a bound") << QList<double> { 0.01 } << QList<quint64> { 0, 1, 1, 1 } << 0.01;
    QTest::newRow("just above") << QList<double> { 0.0100001 } << QList<quint64> { 0, 0, 1, 1 }
                                << 0.0100001;
    QTest::newRow("below the first")
        << QList<double> { 0, -1 } << QList<quint64> { 2, 2, 2, 2 } << -1.0;
    QTest::newRow("beyond the last")
        << QList<double> { 5, 1e9 } << QList<quint64> { 0, 0, 0, 2 } << 1e9 + 5;
    QTest::newRow("NaN is ignored")
        << QList<double> { qQNaN(), 0.5 } << QList<quint64> { 0, 0, 1, 1 } << 0.5;
    QTest::newRow("spread") << QList<double> { 0.0005, 0.005, 0.5, 50 }
                            << QList<quint64> { 1, 2, 3, 4 } << 50.5055;
}

void tst_Metrics::histogramBuckets()
{
    QFETCH(QList<double>, observations);
    QFETCH(QList<quint64>, cumulative);
    QFETCH(double, sum);
    Histogram h({ 0.001, 0.01, 1 });
    for (double v : observations)
        h.observe(v);
    const Histogram::Snapshot s = h.snapshot();
    QCOMPARE(QList<quint64>(s.cumulative.begin(), s.cumulative.end()), cumulative);
    QCOMPARE(s.count, cumulative.last());
    QCOMPARE(s.sum, sum);
}

void tst_Metrics::histogramFromManyThreads()
{
    Histogram h({ 1, 2 });
    Counter c;
    constexpr int Threads = 4, Each = 20'000;
    std::vector<std::thread> threads;
    for (int t = 0; t < Threads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < Each; ++i) {
                h.observe(t % 3);
                c.inc();
            }
        });
    for (std::thread &t : threads)
        t.join();
    const Histogram::Snapshot s = h.snapshot();
    QCOMPARE(s.count, quint64(Threads * Each));
    QCOMPARE(s.cumulative[0], quint64(3 * Each)); // threads 0, 1 and 3 observe 0 or 1
    QCOMPARE(s.sum, double(Each * (0 + 1 + 2 + 0)));
    QCOMPARE(c.value(), double(Threads * Each));
}

void tst_Metrics::formatValue_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0");
    QTest::newRow("integer") << 42.0 << QStringLiteral("42");
    QTest::newRow("fraction") << 0.0005 << QStringLiteral("0.0005");
    QTest::newRow("small") << 0.00005 << QStringLiteral("5e-05");
    QTest::newRow("large") << 1e21 << QStringLiteral("1e+21");
    QTest::newRow("large integer, as Go writes it")
        << 1000000005.0 << QStringLiteral("1.000000005e+09");
    QTest::newRow("round trip") << 0.1 << QStringLiteral("0.1");
    QTest::newRow("negative") << -2.5 << QStringLiteral("-2.5");
    QTest::newRow("+Inf") << qInf() << QStringLiteral("+Inf");
    QTest::newRow("-Inf") << -qInf() << QStringLiteral("-Inf");
    QTest::newRow("NaN") << qQNaN() << QStringLiteral("NaN");
}

void tst_Metrics::formatValue()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(metrics::formatValue(value)), text);
}

void tst_Metrics::escaping_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("help");
    QTest::addColumn<QString>("label");
    QTest::newRow("plain") << QStringLiteral("a b") << QStringLiteral("a b")
                           << QStringLiteral("a b");
    QTest::newRow("backslash") << QStringLiteral("C:\\x") << QStringLiteral("C:\\\\x")
                               << QStringLiteral("C:\\\\x");
    QTest::newRow("quote") << QStringLiteral("say \"hi\"") << QStringLiteral("say \"hi\"")
                           << QStringLiteral("say \\\"hi\\\"");
    QTest::newRow("newline") << QStringLiteral("two\nlines") << QStringLiteral("two\\nlines")
                             << QStringLiteral("two\\nlines");
    QTest::newRow("utf-8") << QStringLiteral("é") << QStringLiteral("é") << QStringLiteral("é");
}

void tst_Metrics::escaping()
{
    QFETCH(QString, raw);
    QFETCH(QString, help);
    QFETCH(QString, label);
    QCOMPARE(QString::fromStdString(escapeHelp(raw.toStdString())), help);
    QCOMPARE(QString::fromStdString(escapeLabelValue(raw.toStdString())), label);

    Registry r;
    r.gauges("holdpoint_test_info", raw.toStdString(), { Label { "value", { raw.toStdString() } } })
        .at(0)
        .set(1);
    const QString text = QString::fromStdString(r.exposition());
    QVERIFY(text.startsWith(QStringLiteral("# HELP holdpoint_test_info ") + help + u'\n'));
    QVERIFY(text.endsWith(
        QStringLiteral("holdpoint_test_info{value=\"") + label + QStringLiteral("\"} 1\n")));
}

void tst_Metrics::namesFollowTheConventions_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("label");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("counter") << QByteArray("counter") << QByteArray("holdpoint_x_total")
                             << QByteArray("") << true;
    QTest::newRow("counter without _total")
        << QByteArray("counter") << QByteArray("holdpoint_x") << QByteArray("") << false;
    QTest::newRow("gauge with _total")
        << QByteArray("gauge") << QByteArray("holdpoint_x_total") << QByteArray("") << false;
    QTest::newRow("gauge") << QByteArray("gauge") << QByteArray("holdpoint_x_bytes")
                           << QByteArray("") << true;
    QTest::newRow("reserved suffix")
        << QByteArray("gauge") << QByteArray("holdpoint_x_count") << QByteArray("") << false;
    QTest::newRow("dash") << QByteArray("gauge") << QByteArray("holdpoint-x") << QByteArray("")
                          << false;
    QTest::newRow("leading digit")
        << QByteArray("gauge") << QByteArray("1holdpoint") << QByteArray("") << false;
    QTest::newRow("reserved prefix")
        << QByteArray("gauge") << QByteArray("__x") << QByteArray("") << false;
    QTest::newRow("bad label") << QByteArray("gauge") << QByteArray("holdpoint_x")
                               << QByteArray("a-b") << false;
    QTest::newRow("reserved label")
        << QByteArray("gauge") << QByteArray("holdpoint_x") << QByteArray("__a") << false;
    QTest::newRow("le on a histogram")
        << QByteArray("histogram") << QByteArray("holdpoint_x_seconds") << QByteArray("le")
        << false;
    QTest::newRow("histogram") << QByteArray("histogram") << QByteArray("holdpoint_x_seconds")
                               << QByteArray("decider") << true;
}

void tst_Metrics::namesFollowTheConventions()
{
    QFETCH(QByteArray, kind);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, label);
    QFETCH(bool, accepted);
    Registry r;
    std::vector<Label> labels;
    if (!label.isEmpty())
        labels.push_back(Label { label.toStdString(), { "a" } });
    bool ok = true;
    try {
        if (kind == "counter")
            r.counters(name.toStdString(), "help", labels);
        else if (kind == "gauge")
            r.gauges(name.toStdString(), "help", labels);
        else
            r.histograms(name.toStdString(), "help", { 1 }, labels);
    } catch (const std::invalid_argument &) {
        ok = false;
    }
    QCOMPARE(ok, accepted);
    if (ok) // and never twice
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.gauge(name.toStdString(), "again"));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, r.histogram("holdpoint_y_seconds", "h", { 1, 1 }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.gauge("holdpoint_z", ""));
}

void tst_Metrics::requestHead_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("host");
    using S = RequestHead::Status;
    QTest::newRow("scrape") << QByteArray("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9788\r\n"
                                          "Accept: text/plain\r\n\r\n")
                            << int(S::Complete) << QByteArray("GET") << QByteArray("/metrics")
                            << QByteArray("127.0.0.1:9788");
    QTest::newRow("query dropped")
        << QByteArray("HEAD /readyz?verbose=1 HTTP/1.0\r\n\r\n") << int(S::Complete)
        << QByteArray("HEAD") << QByteArray("/readyz") << QByteArray();
    QTest::newRow("not finished") << QByteArray("GET /metrics HTTP/1.1\r\nHost: x\r\n")
                                  << int(S::Incomplete) << QByteArray() << QByteArray()
                                  << QByteArray();
    QTest::newRow("absolute form")
        << QByteArray("GET http://x/metrics HTTP/1.1\r\n\r\n") << int(S::Malformed) << QByteArray()
        << QByteArray() << QByteArray();
    QTest::newRow("lower-case method")
        << QByteArray("get /metrics HTTP/1.1\r\n\r\n") << int(S::Malformed) << QByteArray()
        << QByteArray() << QByteArray();
    QTest::newRow("not HTTP/1") << QByteArray("GET /metrics HTTP/2\r\n\r\n") << int(S::Malformed)
                                << QByteArray() << QByteArray() << QByteArray();
    QTest::newRow("two hosts") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
                               << int(S::Malformed) << QByteArray("GET") << QByteArray("/")
                               << QByteArray("a");
    QTest::newRow("header without colon")
        << QByteArray("GET / HTTP/1.1\r\nnonsense\r\n\r\n") << int(S::Malformed)
        << QByteArray("GET") << QByteArray("/") << QByteArray();
}

void tst_Metrics::requestHead()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, host);
    const RequestHead head = parseRequestHead(bytes);
    QCOMPARE(int(head.status), status);
    QCOMPARE(head.method, method);
    QCOMPARE(head.path, path);
    QCOMPARE(head.host, host);
}

void tst_Metrics::routes_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<bool>("ready");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("metrics") << QByteArray("GET") << QByteArray("/metrics") << QByteArray() << true
                             << 200 << QByteArray("# HELP holdpoint_test_up");
    QTest::newRow("healthz") << QByteArray("GET") << QByteArray("/healthz")
                             << QByteArray("localhost:1") << false << 200 << QByteArray("ok\n");
    QTest::newRow("ready") << QByteArray("GET") << QByteArray("/readyz") << QByteArray("[::1]:1")
                           << true << 200 << QByteArray("ready\n");
    QTest::newRow("not ready") << QByteArray("HEAD") << QByteArray("/readyz") << QByteArray()
                               << false << 503
                               << QByteArray("not ready: the audit log cannot be written: a b\n");
    QTest::newRow("POST") << QByteArray("POST") << QByteArray("/metrics") << QByteArray() << true
                          << 405 << QByteArray("only GET and HEAD\n");
    QTest::newRow("DELETE") << QByteArray("DELETE") << QByteArray("/healthz") << QByteArray()
                            << true << 405 << QByteArray("only GET and HEAD\n");
    QTest::newRow("unknown path") << QByteArray("GET") << QByteArray("/debug") << QByteArray()
                                  << true << 404 << QByteArray("not found");
    QTest::newRow("rebinding") << QByteArray("GET") << QByteArray("/metrics")
                               << QByteArray("attacker.example:9788") << true << 403
                               << QByteArray("this page answers only to a loopback Host");
}

void tst_Metrics::routes()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, host);
    QFETCH(bool, ready);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    Registry r;
    r.gauge("holdpoint_test_up", "Up.").set(1);
    Routes routes { &r,
        [ready] {
            return ready ? QString() : QStringLiteral("the audit log cannot be written: a\nb");
        },
        9788 };
    RequestHead head;
    head.status = RequestHead::Status::Complete;
    head.method = method;
    head.path = path;
    head.host = host;
    const Response response = answer(head, routes);
    QCOMPARE(response.status, status);
    QVERIFY2(response.body.startsWith(body), response.body.constData());
    QCOMPARE(response.allowHeader, status == 405);
    const QByteArray wire = serialize(response, method != "HEAD");
    QVERIFY(wire.startsWith(QByteArray("HTTP/1.1 " + QByteArray::number(status) + ' ')));
    QVERIFY(wire.contains(
        QByteArray("\r\nContent-Length: " + QByteArray::number(response.body.size()) + "\r\n")));
    QCOMPARE(wire.endsWith(response.body), method != "HEAD" || response.body.isEmpty());
    if (path == "/metrics" && status == 200)
        QVERIFY(wire.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
}

void tst_Metrics::address_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QByteArray>("said"); // the address, or part of the error
    QTest::newRow("IPv4 loopback")
        << QByteArray("127.0.0.1:9788") << true << QByteArray("127.0.0.1");
    QTest::newRow("another 127/8")
        << QByteArray("127.0.0.2:9788") << true << QByteArray("127.0.0.2");
    QTest::newRow("IPv6 loopback") << QByteArray("[::1]:9788") << true << QByteArray("::1");
    QTest::newRow("localhost") << QByteArray("localhost:0") << true << QByteArray("127.0.0.1");
    QTest::newRow("every interface")
        << QByteArray("0.0.0.0:9788") << false << QByteArray("through a local agent");
    QTest::newRow("LAN") << QByteArray("192.168.1.20:9788") << false
                         << QByteArray("terminates TLS");
    QTest::newRow("no port") << QByteArray("127.0.0.1") << false
                             << QByteArray("expected ADDRESS:PORT");
    QTest::newRow("port too big") << QByteArray("127.0.0.1:70000") << false
                                  << QByteArray("expected ADDRESS:PORT");
    QTest::newRow("a name") << QByteArray("metrics.local:9788") << false
                            << QByteArray("not an IP address");
}

void tst_Metrics::address()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, ok);
    QFETCH(QByteArray, said);
    Address a;
    QString error;
    QCOMPARE(parseAddress(QString::fromLatin1(text), &a, &error), ok);
    if (ok)
        QCOMPARE(a.address.toString(), QString::fromLatin1(said));
    else
        QVERIFY2(error.contains(QString::fromLatin1(said)), qPrintable(error));
}

void tst_Metrics::deciders_data()
{
    QTest::addColumn<QByteArray>("decidedBy");
    QTest::addColumn<QByteArray>("state");
    QTest::addColumn<QByteArray>("decider");
    QTest::newRow("rule") << QByteArray("guardrail:rules") << QByteArray("auto")
                          << QByteArray("guardrail");
    QTest::newRow("default") << QByteArray("policy:default") << QByteArray("auto")
                             << QByteArray("guardrail");
    QTest::newRow("reviewer") << QByteArray("human:alice") << QByteArray("decided")
                              << QByteArray("person");
    QTest::newRow("two reviewers")
        << QByteArray("human:alice,human:bob") << QByteArray("decided") << QByteArray("person");
    QTest::newRow("rest of the turn")
        << QByteArray("human:alice") << QByteArray("auto") << QByteArray("standing");
    QTest::newRow("timeout") << QByteArray("timeout") << QByteArray("timed_out")
                             << QByteArray("timeout");
    QTest::newRow("cancelled") << QByteArray("agent") << QByteArray("cancelled")
                               << QByteArray("agent");
    QTest::newRow("audit down") << QByteArray("audit") << QByteArray("auto") << QByteArray("audit");
    QTest::newRow("team") << QByteArray("team") << QByteArray("abandoned") << QByteArray("team");
    QTest::newRow("a tool's name never becomes a label")
        << QByteArray("write_file") << QByteArray("auto") << QByteArray("other");
}

void tst_Metrics::deciders()
{
    QFETCH(QByteArray, decidedBy);
    QFETCH(QByteArray, state);
    QFETCH(QByteArray, decider);
    const std::string_view got = deciderClass(decidedBy.toStdString(), state.toStdString());
    QCOMPARE(QByteArray(got.data(), qsizetype(got.size())), decider);
}

void tst_Metrics::serverOnLoopback()
{
    Registry r;
    Counter &c = r.counter("holdpoint_test_requests_total", "Requests.");
    c.inc(5);
    QString why;
    Server server(&r, [&] { return why; });
    QString error;
    QVERIFY(!server.listen(Address { QHostAddress(QStringLiteral("10.1.2.3")), 0 }, &error));
    QVERIFY(server.listen(Address {}, &error));
    QVERIFY(server.url().startsWith(QStringLiteral("http://127.0.0.1:")));

    const QByteArray get
        = exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    QVERIFY2(get.startsWith("HTTP/1.1 200 OK\r\n"), get.constData());
    QVERIFY(get.endsWith("holdpoint_test_requests_total 5\n"));
    const QByteArray head = exchange(server.port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
    QVERIFY(head.startsWith("HTTP/1.1 200 OK\r\n"));
    QVERIFY(head.endsWith("\r\n\r\n")); // headers alone
    const QByteArray post
        = exchange(server.port(), "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    QVERIFY2(post.startsWith("HTTP/1.1 405 Method Not Allowed\r\n"), post.constData());
    QVERIFY(post.contains("\r\nAllow: GET, HEAD\r\n"));
    // A head that never ends is cut off at the cap, not buffered for ever.
    const QByteArray huge = exchange(server.port(),
        "GET /metrics HTTP/1.1\r\nX-Pad: " + QByteArray(MaxRequestHeadBytes, 'a') + "\r\n\r\n");
    QVERIFY2(huge.startsWith("HTTP/1.1 431 "), huge.left(40).constData());
    QVERIFY(exchange(server.port(), "garbage\r\n\r\n").startsWith("HTTP/1.1 400 "));

    QVERIFY(exchange(server.port(), "GET /readyz HTTP/1.1\r\n\r\n").endsWith("\r\n\r\nready\n"));
    why = QStringLiteral("the team database link is down");
    const QByteArray notReady = exchange(server.port(), "GET /readyz HTTP/1.1\r\n\r\n");
    QVERIFY(notReady.startsWith("HTTP/1.1 503 Service Unavailable\r\n"));
    QVERIFY(notReady.endsWith("\r\n\r\nnot ready: the team database link is down\n"));
}

// Any local process may open connections and send nothing. Once the server
// holds MaxConnections, the oldest idle one makes room for the next, so the
// liveness probe still answers; and an idle one is dropped after RequestMs.
void tst_Metrics::idleConnectionsCannotStarveTheProbes()
{
    Registry r;
    Server server(&r, [] { return QString(); });
    QString error;
    QVERIFY2(server.listen(Address {}, &error), qPrintable(error));
    std::vector<std::unique_ptr<QTcpSocket>> idle;
    for (int i = 0; i < Server::MaxConnections + 4; ++i) {
        idle.push_back(std::make_unique<QTcpSocket>());
        idle.back()->connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(idle.back()->waitForConnected(test::WaitMs));
    }
    QElapsedTimer clock;
    clock.start();
    const QByteArray probe = exchange(server.port(), "GET /healthz HTTP/1.1\r\n\r\n");
    QVERIFY2(probe.startsWith("HTTP/1.1 200 OK\r\n"), probe.constData());
    QVERIFY2(clock.elapsed() < Server::RequestMs, qPrintable(QString::number(clock.elapsed())));
    // The oldest were dropped to make room; the newest are dropped in time.
    QTRY_COMPARE_WITH_TIMEOUT(
        idle.front()->state(), QAbstractSocket::UnconnectedState, test::WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        idle.back()->state(), QAbstractSocket::UnconnectedState, Server::RequestMs + test::WaitMs);
}

QTEST_GUILESS_MAIN(tst_Metrics)
#include "tst_metrics.moc"
