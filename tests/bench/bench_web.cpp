// SPDX-License-Identifier: Apache-2.0
// The web scenario: a person's approval from the reviewer page, from the
// moment the page sends it (the click's POST) to the agent holding its
// decision, next to the same approval made with `holdpoint-ctl approve`,
// measured interleaved against one console. The page scenario: the page
// itself in Chromium (tests/web-e2e/bench.mjs).

#include "bench.h"
#include "peer.h"

#include <QFileInfo>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>

#include <tuple>

namespace holdpoint::bench {

namespace {

// One HTTP/1.1 exchange on a kept-alive connection to another process, so
// blocking here holds up nobody; the status, and the body.
std::pair<int, Json> exchange(QTcpSocket &s, const QByteArray &request)
{
    s.write(request);
    QByteArray data;
    qsizetype bodyAt = -1;
    qint64 length = 0;
    while (s.waitForReadyRead(10'000)) {
        data += s.readAll();
        if (bodyAt < 0 && (bodyAt = data.indexOf("\r\n\r\n")) >= 0) {
            bodyAt += 4;
            const qsizetype at = data.toLower().indexOf("content-length:");
            length = at < 0
                ? 0
                : data.mid(at + 15, data.indexOf("\r\n", at) - at - 15).trimmed().toLongLong();
        }
        if (bodyAt >= 0 && data.size() - bodyAt >= length)
            return { data.mid(9, 3).toInt(),
                Json::parse(data.mid(bodyAt, length).toStdString(), nullptr, false) };
    }
    return { 0, Json() };
}

QByteArray request(const QByteArray &method, const QByteArray &path, const QByteArray &origin,
    const QByteArray &cookie, const QByteArray &csrf, const QByteArray &body = {})
{
    QByteArray r = method + ' ' + path + " HTTP/1.1\r\nHost: " + origin.mid(7)
        + "\r\nOrigin: " + origin + "\r\n";
    if (!cookie.isEmpty())
        r += "Cookie: " + cookie + "\r\nX-CSRF-Token: " + csrf + "\r\n";
    if (method == "POST")
        r += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
            + "\r\n";
    return r + "\r\n" + body;
}

} // namespace

void webScenario(bool quick, Table *table)
{
    const int calls = quick ? 20 : 300;
    QTemporaryDir tmp;
    QString error;
    quint16 port = 0;
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        port = probe.serverPort();
    }
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(port);
    auto console = startConsole(
        tmp.path(), &error, { QStringLiteral("--web"), QStringLiteral("127.0.0.1:%1").arg(port) });
    if (!console)
        return table->fail("web", error.toStdString());
    QProcess pair;
    pair.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), console->dataDir, QStringLiteral("web"),
            QStringLiteral("pair"), QStringLiteral("--no-qr") });
    if (!pair.waitForFinished(10'000) || pair.exitCode() != 0)
        return table->fail("web", "holdpoint-ctl web pair failed");
    const QByteArray link = pair.readAllStandardOutput().trimmed().split('\n').last();

    QTcpSocket http;
    http.connectToHost(QHostAddress::LocalHost, port);
    http.setSocketOption(QAbstractSocket::LowDelayOption, 1);
    if (!http.waitForConnected(10'000))
        return table->fail("web", "cannot reach the reviewer page");
    http.write(request("POST", "/api/pair", origin, {}, {},
        QByteArray::fromStdString(
            dumpJson({ { "code", link.mid(link.indexOf('#') + 1).toStdString() } }))));
    // The answer's head holds the cookie, its body the device key (64 hex digits).
    QByteArray paired;
    const auto deviceAt = [&paired] {
        const qsizetype at = paired.indexOf("\"device\":\"");
        return at >= 0 && paired.size() >= at + 10 + 64 ? at + 10 : qsizetype(-1);
    };
    while (deviceAt() < 0 && http.waitForReadyRead(10'000))
        paired += http.readAll();
    const qsizetype at = paired.indexOf("__Host-holdpoint=");
    if (at < 0 || deviceAt() < 0)
        return table->fail("web", "pairing gave no session cookie or device key");
    // Both halves of the session on every request, as the page sends them.
    const QByteArray cookie = paired.mid(at, paired.indexOf(';', at) - at)
        + "\r\nX-Holdpoint-Device: " + paired.mid(deviceAt(), 64);
    http.readAll();
    const auto [meStatus, me] = exchange(http, request("GET", "/api/me", origin, cookie, {}));
    const QByteArray csrf = QByteArray::fromStdString(me.value("csrf", std::string()));
    if (meStatus != 200 || csrf.isEmpty())
        return table->fail("web", "GET /api/me failed with " + std::to_string(meStatus));

    Peer agent, reviewer;
    if (!agent.connectAs(console->url, console->agentToken, "agent", &error)
        || !reviewer.connectAs(console->url, console->reviewerToken, "reviewer", &error))
        return table->fail("web", error.toStdString());

    std::vector<double> web, ctl;
    for (int i = 0; i < 2 * calls; ++i) {
        const bool fromPage = i % 2 == 0;
        const std::string callId = "w" + std::to_string(i);
        agent.send({ { "type", "tool_call" }, { "call_id", callId }, { "tool_name", "deploy" },
            { "args", { { "n", i } } } });
        const auto escalated = reviewer.next("escalated", 10'000);
        if (!escalated)
            return table->fail("web", "call " + callId + " never escalated");
        const std::string id = escalated->json["item"].value("id", std::string());
        SteadyClock::time_point sent;
        std::unique_ptr<QProcess> approve;
        if (fromPage) {
            // What the page showed: the item's version (read before the click).
            const auto [status, items]
                = exchange(http, request("GET", "/api/items", origin, cookie, csrf));
            std::string version;
            for (const Json &item : items.value("items", Json::array()))
                if (item.value("id", std::string()) == id)
                    version = item.value("version", std::string());
            const QByteArray body = QByteArray::fromStdString(
                dumpJson({ { "action", "approve" }, { "version", version } }));
            sent = SteadyClock::now();
            const auto [reviewed, answer] = exchange(http,
                request("POST", "/api/items/" + QByteArray::fromStdString(id) + "/review", origin,
                    cookie, csrf, body));
            if (reviewed != 200)
                return table->fail("web", "the page's approval was refused: " + dumpJson(answer));
        } else {
            sent = SteadyClock::now();
            approve = std::make_unique<QProcess>();
            approve->start(QStringLiteral(HOLDPOINT_CTL_BIN),
                { QStringLiteral("--data-dir"), console->dataDir, QStringLiteral("approve"),
                    QString::fromStdString(id) });
        }
        const auto decision = agent.next("decision", 10'000);
        if (!decision)
            return table->fail("web", "no decision for " + callId);
        (fromPage ? web : ctl).push_back(msBetween(sent, decision->at));
        if (approve)
            approve->waitForFinished(10'000);
    }
    const std::string variant = std::to_string(calls) + " approvals each, interleaved";
    for (const auto &[name, p] : { std::pair { "p50", 0.5 }, std::pair { "p99", 0.99 } })
        table->add({ "web", variant, std::string(name) + " page POST → agent", "ms",
            percentile(web, p), "holdpoint-ctl approve → agent", percentile(ctl, p), "" });
}

// The reviewer page in Debian's Chromium, driven by tests/web-e2e/bench.mjs
// (puppeteer-core), its rows added to `table`.
void pageScenario(bool quick, Table *table)
{
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        return table->skip("page", "node is not installed");
    if (!QFileInfo::exists(QStringLiteral(
            HOLDPOINT_SOURCE_DIR "/tests/web-e2e/node_modules/puppeteer-core/package.json")))
        return table->skip(
            "page", "tests/web-e2e/node_modules is missing (cd tests/web-e2e && npm ci)");
    const QString chromium
        = qEnvironmentVariable("HOLDPOINT_CHROMIUM", QStringLiteral("/usr/bin/chromium"));
    if (!QFileInfo(chromium).isExecutable())
        return table->skip("page", "Chromium is not installed (" + chromium.toStdString() + ")");
    QProcessEnvironment env;
    env.insert(QStringLiteral("BENCH_QUICK"), quick ? QStringLiteral("1") : QStringLiteral("0"));
    std::string error;
    const Json r
        = runNodeBench(QStringLiteral("web-e2e"), QStringLiteral("bench.mjs"), env, &error);
    if (r.is_null())
        return table->fail("page", error);
    if (!r.contains("burst") || !r.contains("load") || !r.contains("clear"))
        return table->fail("page", "tests/web-e2e/bench.mjs printed no result");
    const std::string throttle = "CPU throttled " + std::to_string(r.value("throttle", 0)) + "x";
    const Json &burst = r["burst"];
    const std::string burstVariant
        = std::to_string(burst.value("calls", 0)) + " calls at once, " + throttle;
    table->add({ "page", burstVariant, "longest task", "ms", burst.value("longest_task_ms", 0.0),
        "every card made and laid out in one task", burst.value("one_task_ms", 0.0),
        "at most 100 ms" });
    table->add(
        { "page", burstVariant, "until every card shows", "ms", burst.value("all_shown_ms", 0.0),
            "until the console has them all waiting", burst.value("all_waiting_ms", 0.0), "" });
    const Json &load = r["load"];
    const std::string loadVariant
        = "loaded with " + std::to_string(load.value("calls", 0)) + " waiting, " + throttle;
    table->add({ "page", loadVariant, "longest task", "ms", load.value("longest_task_ms", 0.0),
        "JSON.parse of the same queue", load.value("json_parse_ms", 0.0), "at most 100 ms" });
    table->add(
        { "page", loadVariant, "until every card shows", "ms", load.value("all_shown_ms", 0.0),
            "the same page loaded with one waiting", load.value("one_shown_ms", 0.0), "" });
    const Json &clear = r["clear"];
    const std::string clearVariant
        = std::to_string(clear.value("decisions", 0)) + " decisions on a second device";
    for (const auto &[name, key, post] :
        { std::tuple { "p50", "p50", "post_p50" }, std::tuple { "p99", "p99", "post_p99" } })
        table->add(
            { "page", clearVariant, std::string(name) + " POST answer → card gone on the other",
                "ms", clear.value(key, 0.0), "a tap (puppeteer) → POST answer",
                clear.value(post, 0.0), std::string(name) == "p50" ? "under 1000 ms" : "" });
}

} // namespace holdpoint::bench
