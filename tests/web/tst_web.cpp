// SPDX-License-Identifier: Apache-2.0
// The reviewer page's server (core/web/WEB.md) on loopback, with a real
// console and a real agent: who gets in, what every refusal looks like, and
// that a decision made from the page reaches the agent exactly once.

#include "web/webconsole.h"
#include "web/webserver.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

class TestWeb : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyAnswerCarriesTheSecurityHeaders();
    void pairingSetsAStrictCookieAndWorksOnce();
    void pairingExpiresAfterFiveMinutes();
    void pairingAttemptsAreRateLimited();
    void pairingThroughTheReviewerProtocol();
    void noSessionIsRefused();
    void crossOriginPostIsRefusedAndDecidesNothing();
    void postWithoutCsrfIsRefused();
    void getNeverChangesState();
    void oversizedBodyIsRefusedBeforeItIsRead();
    void slowAndChunkedRequestsAreRefused();
    void connectionsAreCountedAcrossUpgrades();
    void aRemovedReviewerLosesTheirOpenPage();
    void theConsoleExitsCleanlyWithThePage();
    void badBodiesGetClearErrors();
    void foreignHostIsRefused();
    void webSocketUpgradeChecksOriginAndSession();
    void approveDenyEditAndHaltReachTheAgent();
    void aStaleClickIsRefusedWithWhoDecided();
    void liveFeedShowsNewCallsAndRemovesDecidedOnes();
    void revokingASessionClosesItsPage();
    void sessionsSurviveARestartAndTheFileHoldsNoToken();
    void trustedHeaderOnlyFromListedPeers();
    void configProblemsAreRefused();
    void servesOverTls();
};

void TestWeb::everyAnswerCarriesTheSecurityHeaders()
{
    WebConsole c;
    QVERIFY(c.started);
    for (const QByteArray &path : { QByteArray("/"), QByteArray("/app.js"), QByteArray("/json.js"),
             QByteArray("/queue.js"), QByteArray("/app.css"), QByteArray("/review.css"),
             QByteArray("/api/me"), QByteArray("/nope") }) {
        const HttpReply r = http(c.port(), "GET", path);
        QVERIFY2(r.status != 0, path.constData());
        const QByteArray csp = r.header("Content-Security-Policy");
        QVERIFY2(csp.contains("frame-ancestors 'none'"), csp.constData());
        QVERIFY2(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), csp.constData());
        QCOMPARE(r.header("X-Content-Type-Options"), QByteArray("nosniff"));
        QCOMPARE(r.header("Referrer-Policy"), QByteArray("no-referrer"));
    }
    const HttpReply page = http(c.port(), "GET", "/pair");
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.contains("<script src=\"/app.js\""));
    QVERIFY(page.body.contains("<script src=\"/json.js\""));
    QVERIFY(page.body.contains("<script src=\"/queue.js\""));
    // Each stylesheet the page links is served, as CSS.
    for (const QByteArray &sheet : { QByteArray("/app.css"), QByteArray("/review.css") }) {
        QVERIFY2(page.body.contains(QByteArray("<link rel=\"stylesheet\" href=\"" + sheet + "\">")),
            sheet.constData());
        const HttpReply css = http(c.port(), "GET", sheet);
        QCOMPARE(css.status, 200);
        QCOMPARE(css.header("Content-Type"), QByteArray("text/css; charset=utf-8"));
    }
    QVERIFY2(!page.body.contains("<script>") && !page.body.contains("style=\""),
        "inline script or style");
    QCOMPARE(http(c.port(), "GET", "/api/items").header("Cache-Control"), QByteArray("no-store"));
}

void TestWeb::pairingSetsAStrictCookieAndWorksOnce()
{
    WebConsole c;
    QVERIFY(c.started);
    const QString url = c.web->pair("owner", "test").url;
    QVERIFY2(url.startsWith(QLatin1String(c.origin) + QLatin1String("/pair#")), qPrintable(url));
    const std::string code = url.section(u'#', 1).toStdString();
    const HttpReply first = c.redeem(code);
    QCOMPARE(first.status, 200);
    const QByteArray cookie = first.header("Set-Cookie");
    QVERIFY2(cookie.startsWith("__Host-holdpoint="), cookie.constData());
    for (const char *attribute : { "; Path=/", "; HttpOnly", "; Secure", "; SameSite=Strict" })
        QVERIFY2(cookie.contains(attribute), cookie.constData());
    QVERIFY(!cookie.contains("Domain="));
    // The page keeps the device key of the answer; with the cookie it signs in.
    const Device device = deviceFrom(first);
    QCOMPARE(device.key.size(), 64);
    const HttpReply me = http(c.port(), "GET", "/api/me", {}, device.headers());
    QCOMPARE(me.status, 200);
    QCOMPARE(me.json()["reviewer"], "owner");
    QVERIFY(!me.json()["csrf"].get<std::string>().empty());

    const HttpReply second = c.redeem(code);
    QCOMPARE(second.status, 410);
    QCOMPARE(second.error(), "pairing_used");
    QVERIFY(second.header("Set-Cookie").isEmpty());
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(1));
}

void TestWeb::pairingExpiresAfterFiveMinutes()
{
    WebConsole c;
    QVERIFY(c.started);
    const std::string late = c.web->pair("owner", "test").url.section(u'#', 1).toStdString();
    const std::string inTime = c.web->pair("owner", "test").url.section(u'#', 1).toStdString();
    c.clock.advance(PairingLifetimeMs - 1);
    QCOMPARE(c.redeem(inTime).status, 200);
    c.clock.advance(1);
    const HttpReply r = c.redeem(late);
    QCOMPARE(r.status, 410);
    QCOMPARE(r.error(), "pairing_expired");
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(1));
}

void TestWeb::pairingAttemptsAreRateLimited()
{
    WebConsole c;
    QVERIFY(c.started);
    for (int i = 0; i < int(PairingFailuresPerPeer); ++i)
        QCOMPARE(c.redeem("guess" + std::to_string(i)).error(), "pairing_unknown");
    const HttpReply limited = c.redeem("guess");
    QCOMPARE(limited.status, 429);
    QCOMPARE(limited.error(), "rate_limited");
    // A valid code from the same address is redeemed all the same: behind a
    // proxy that address is every phone's (WEB.md "Refusals").
    const std::string code = c.web->pair("owner", "test").url.section(u'#', 1).toStdString();
    QCOMPARE(c.redeem(code).status, 200);
    // The limit is a window: a minute later wrong codes are answered again.
    c.clock.advance(PairingFailureWindowMs);
    QCOMPARE(c.redeem("guess").error(), "pairing_unknown");
}

void TestWeb::pairingThroughTheReviewerProtocol()
{
    WebConsole c;
    QVERIFY(c.started);
    TestSocket reviewer;
    const QByteArray token = [&] {
        QFile f(c.core->dataDir() + QStringLiteral("/reviewer.token"));
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
    }();
    QVERIFY(reviewer.hello(QUrl(c.core->url()), token.toStdString(), "reviewer").is_object());
    reviewer.send({ { "type", "web" }, { "action", "pair" } });
    const Json paired = reviewer.next("web");
    QCOMPARE(paired["reviewer"], "owner");
    const std::string url = paired["url"];
    QCOMPARE(c.redeem(url.substr(url.find('#') + 1)).status, 200);
    reviewer.send({ { "type", "web" }, { "action", "sessions" } });
    const Json sessions = reviewer.next("web");
    QCOMPARE(sessions["sessions"].size(), std::size_t(1));
    QCOMPARE(sessions["sessions"][0]["reviewer"], "owner");
    const std::string listed = dumpJson(sessions);
    QVERIFY(listed.find("sha256") == std::string::npos && listed.find("csrf") == std::string::npos);
    reviewer.send({ { "type", "web" }, { "action", "revoke" }, { "session", "nosuch" } });
    QVERIFY(reviewer.next("error")["message"].get<std::string>().find("no session")
        != std::string::npos);
    // An agent may not ask.
    TestSocket agent;
    QVERIFY(agent.hello(QUrl(c.core->url()), c.core->agentToken().toStdString()).is_object());
    agent.send({ { "type", "web" }, { "action", "pair" } });
    QCOMPARE(agent.next("error")["code"], "forbidden");
}

void TestWeb::noSessionIsRefused()
{
    WebConsole c;
    QVERIFY(c.started);
    const Json item = c.submit("c1");
    QVERIFY(item.is_object());
    for (const QByteArray &cookie :
        { QByteArray(), QByteArray("__Host-holdpoint=0000"), QByteArray("other=1") }) {
        Headers h { { "Origin", c.origin } };
        if (!cookie.isEmpty())
            h.append({ "Cookie", cookie });
        QCOMPARE(http(c.port(), "GET", "/api/items", {}, h).error(), "no_session");
        const HttpReply r = http(c.port(), "POST",
            "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
            R"({"action":"approve","version":"x"})", h);
        QCOMPARE(r.status, 401);
    }
    QCOMPARE(c.core->queue()->size(), 1);
}

void TestWeb::crossOriginPostIsRefusedAndDecidesNothing()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const Json item = c.submit("c1");
    const QByteArray path = "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review";
    const Json body { { "action", "approve" }, { "version", item["version"] } };
    for (const QByteArray &from : { QByteArray("https://evil.example"),
             QByteArray("http://127.0.0.1:1"), QByteArray("null") }) {
        const HttpReply r = c.post(d, path, body, from);
        QCOMPARE(r.status, 403);
        QCOMPARE(r.error(), "bad_origin");
    }
    // No Origin at all is no better.
    const HttpReply none = http(c.port(), "POST", path, QByteArray::fromStdString(dumpJson(body)),
        d.headers({ { "X-CSRF-Token", d.csrf } }));
    QCOMPARE(none.error(), "bad_origin");
    QCOMPARE(c.core->queue()->size(), 1);
    QVERIFY(c.agent->noneOf("decision"));
}

void TestWeb::postWithoutCsrfIsRefused()
{
    WebConsole c;
    QVERIFY(c.started);
    auto d = c.pairDevice();
    const Json item = c.submit("c1");
    const QByteArray path = "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review";
    const Json body { { "action", "approve" }, { "version", item["version"] } };
    for (const QByteArray &csrf :
        { QByteArray(), QByteArray("0123"), QByteArray::fromStdString(std::string(64, 'a')) }) {
        d.csrf = csrf;
        const HttpReply r = c.post(d, path, body);
        QCOMPARE(r.status, 403);
        QCOMPARE(r.error(), "bad_csrf");
    }
    QCOMPARE(c.core->queue()->size(), 1);
}

void TestWeb::getNeverChangesState()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const Json item = c.submit("c1");
    const std::string code = c.web->pair("owner", "test").url.section(u'#', 1).toStdString();
    const Headers h = d.headers({ { "Origin", c.origin }, { "X-CSRF-Token", d.csrf } });
    QCOMPARE(
        http(c.port(), "GET",
            "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review?action=approve", {}, h)
            .status,
        405);
    QCOMPARE(
        http(c.port(), "GET", "/api/pair?code=" + QByteArray::fromStdString(code), {}, h).status,
        405);
    QCOMPARE(http(c.port(), "GET", "/api/logout", {}, h).status, 405);
    QCOMPARE(http(c.port(), "PUT", "/api/logout", {}, h).status, 405);
    QCOMPARE(c.core->queue()->size(), 1);
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(2)); // the device, and submit()'s reader
    QCOMPARE(c.redeem(code).status, 200); // the GET spent nothing
}

void TestWeb::oversizedBodyIsRefusedBeforeItIsRead()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const Json item = c.submit("c1");
    const std::string big(200 * 1024, 'x');
    const HttpReply r = c.post(d, "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
        { { "action", "deny" }, { "reason", big }, { "version", item["version"] } });
    QCOMPARE(r.status, 413);
    QCOMPARE(r.error(), "too_large");
    QVERIFY(r.closed);
    // A body announced as huge is refused as soon as the cap is passed,
    // though the client never finishes sending it.
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(s.waitForConnected(WaitMs));
    s.write("POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port())
        + "\r\nOrigin: " + c.origin + "\r\nContent-Length: 1000000000\r\n\r\n"
        + QByteArray(70 * 1024, '{'));
    const HttpReply partial = readReply(s);
    QCOMPARE(partial.status, 413);
    QCOMPARE(c.core->queue()->size(), 1);
    // The server is still there for everyone else.
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 200);
}

void TestWeb::slowAndChunkedRequestsAreRefused()
{
    WebConfig config;
    config.requestMs = 300;
    WebConsole c(config);
    QVERIFY(c.started);
    // A request that never finishes arriving (slowloris) is answered 408.
    QTcpSocket slow;
    slow.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(slow.waitForConnected(WaitMs));
    slow.write(
        "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port()) + "\r\nX-Slow: ");
    const HttpReply late = readReply(slow);
    QCOMPARE(late.status, 408);
    QVERIFY(late.closed);
    // An oversized WebSocket upgrade is refused like any request, and never upgraded.
    const auto d = c.pairDevice();
    QTcpSocket big;
    big.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(big.waitForConnected(WaitMs));
    big.write("GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port())
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
          "dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Sec-WebSocket-Version: 13\r\nOrigin: https://evil.example\r\nCookie: "
        + d.cookie + "\r\nX-Pad: " + QByteArray(70 * 1024, 'a') + "\r\n\r\n");
    QByteArray answer;
    QVERIFY(QTest::qWaitFor(
        [&] {
            answer += big.readAll();
            return big.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs));
    answer += big.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 413"), answer.left(100).constData());
    QVERIFY2(!answer.contains("101 Switching Protocols"), answer.constData());
    QCOMPARE(c.web->liveConnections(), 0);
    // A chunked body is not taken, and the connection ends with the answer.
    QTcpSocket chunked;
    chunked.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(chunked.waitForConnected(WaitMs));
    chunked.write("POST /api/logout HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port())
        + "\r\nOrigin: " + c.origin + "\r\nCookie: " + d.cookie + "\r\nX-Holdpoint-Device: " + d.key
        + "\r\nX-CSRF-Token: " + d.csrf
        + "\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    const HttpReply te = readReply(chunked);
    QCOMPARE(te.status, 400);
    QVERIFY(te.closed);
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 200); // not logged out
}

void TestWeb::connectionsAreCountedAcrossUpgrades()
{
    WebConfig config;
    config.maxConnections = 16; // 4 from one address
    WebConsole c(config);
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    // More upgrades, one after another, than the listener admits at once:
    // each one's slot comes back when its page goes.
    for (int i = 0; i < 24; ++i) {
        LiveFeed page(c.port(), c.origin, d);
        QVERIFY2(page.connected(), qPrintable(QString::number(i)));
        QVERIFY(page.next("snapshot").is_object());
    }
    QTRY_COMPARE(c.web->liveConnections(), 0);
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 200);
    // And the cap holds: four pages from one address that proved their
    // session (none of them makes room), and the fifth is turned away.
    std::vector<std::unique_ptr<LiveFeed>> open;
    for (int i = 0; i < 4; ++i) {
        open.push_back(std::make_unique<LiveFeed>(c.port(), c.origin, d));
        QVERIFY(open.back()->connected());
        QVERIFY(open.back()->next("snapshot").is_object());
    }
    LiveFeed fifth(c.port(), c.origin, d);
    QVERIFY(!fifth.connected());
}

void TestWeb::aRemovedReviewerLosesTheirOpenPage()
{
    WebConsole c;
    QVERIFY(c.started);
    QProcess add;
    add.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), c.core->dataDir(), QStringLiteral("reviewer"),
            QStringLiteral("add"), QStringLiteral("bob"), QStringLiteral("--out"),
            c.dir.path() + QStringLiteral("/bob.json") });
    QVERIFY(add.waitForFinished(WaitMs) && add.exitCode() == 0);
    QTRY_VERIFY(c.core->namedReviewer("bob").has_value());
    const auto bob = c.pairDevice("bob");
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, bob.headers()).json()["reviewer"], "bob");
    LiveFeed page(c.port(), c.origin, bob);
    QVERIFY(page.connected());
    QVERIFY(page.next("snapshot").is_object());
    QProcess remove;
    remove.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), c.core->dataDir(), QStringLiteral("reviewer"),
            QStringLiteral("remove"), QStringLiteral("bob") });
    QVERIFY(remove.waitForFinished(WaitMs) && remove.exitCode() == 0);
    QVERIFY(page.next("revoked").is_object());
    QVERIFY(page.waitClosed());
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, bob.headers()).status, 401);
    QVERIFY(c.web->sessions()->list().empty());
}

void TestWeb::theConsoleExitsCleanlyWithThePage()
{
    QTemporaryDir data;
    QProcess console;
    console.setProcessChannelMode(QProcess::MergedChannels);
    console.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"),
            data.path() + QStringLiteral("/d"), QStringLiteral("--web"),
            QStringLiteral("127.0.0.1:0") });
    QByteArray out;
    QVERIFY(QTest::qWaitFor(
        [&] {
            out += console.readAll();
            return out.contains("listening on");
        },
        WaitMs));
    const qsizetype at = out.indexOf("reviewer page at http://127.0.0.1:");
    QVERIFY(at >= 0);
    const quint16 port = quint16(out.mid(at + 34, out.indexOf(' ', at + 34) - at - 34).toUInt());
    QCOMPARE(http(port, "GET", "/").status, 200);
    console.terminate();
    QVERIFY(console.waitForFinished(WaitMs));
    QCOMPARE(console.exitStatus(), QProcess::NormalExit);
    QCOMPARE(console.exitCode(), 0);
}

void TestWeb::badBodiesGetClearErrors()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const Json item = c.submit("c1");
    const QByteArray path = "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review";
    const Json version = item["version"];
    struct Case
    {
        QByteArray body;
        const char *says;
    };
    // The wire's own parser reads the rest, with holdpoint-ctl's rules and words.
    const Case cases[] = {
        { "{not json", "" },
        { "[1]", "JSON object" },
        { R"({"action":"approve"})", "version: missing" },
        { R"({"action":"approve","version":"v","extra":1})", "extra: unknown field" },
        { R"({"action":1,"version":"v"})", "action: expected" },
        { R"({"action":"launch","version":"v"})", "expected one of approve, deny, edit, halt" },
        { R"({"action":"deny","version":"v"})", "reason: required for deny" },
        { R"({"action":"deny","version":"v","reason":"   "})", "reason: required for deny" },
        { R"({"action":"edit","version":"v"})", "args: required for edit" },
        { R"({"action":"edit","version":"v","args":[1]})", "args: expected an object" },
        { R"({"action":"halt","version":"v","scope":"session"})",
            "only approve and deny reach beyond one call" },
        { R"({"action":"approve","version":"v","scope":"always"})", "desktop console" },
        { R"({"action":"approve","version":"v","scope":"forever"})",
            "expected one of call, turn, session" },
    };
    for (const Case &k : cases) {
        const HttpReply r = http(c.port(), "POST", path, k.body,
            d.headers({ { "Origin", c.origin }, { "X-CSRF-Token", d.csrf } }));
        QVERIFY2(r.status == 400 && r.error() == "invalid", k.body.constData());
        QVERIFY2(r.json()["message"].get<std::string>().find(k.says) != std::string::npos,
            r.body.constData());
    }
    QCOMPARE(c.core->queue()->size(), 1);
    Q_UNUSED(version)
}

void TestWeb::foreignHostIsRefused()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1.
    const HttpReply r = http(c.port(), "GET", "/api/items", {},
        d.headers({ { "Host", "evil.example:" + QByteArray::number(c.port()) } }));
    QCOMPARE(r.status, 421);
    QCOMPARE(http(c.port(), "GET", "/api/me", {},
                 d.headers({ { "Host", "localhost:" + QByteArray::number(c.port()) } }))
                 .status,
        200);
}

void TestWeb::webSocketUpgradeChecksOriginAndSession()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const auto upgrade = [&](const QByteArray &origin, const QByteArray &cookie,
                             const QByteArray &path = "/api/live") {
        QTcpSocket s;
        s.connectToHost(QHostAddress::LocalHost, c.port());
        s.waitForConnected(WaitMs);
        QByteArray req = "GET " + path
            + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port())
            + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
              "dGhlIHNhbXBsZSBub25jZQ==\r\n"
              "Sec-WebSocket-Version: 13\r\n";
        if (!origin.isEmpty())
            req += "Origin: " + origin + "\r\n";
        if (!cookie.isEmpty())
            req += "Cookie: " + cookie + "\r\n";
        s.write(req + "\r\n");
        QByteArray data;
        (void)QTest::qWaitFor(
            [&] {
                data += s.readAll();
                return data.contains("\r\n\r\n") || s.state() != QAbstractSocket::ConnectedState;
            },
            WaitMs);
        return data.left(data.indexOf("\r\n"));
    };
    QCOMPARE(upgrade("https://evil.example", d.cookie), QByteArray("HTTP/1.1 403 Forbidden"));
    QCOMPARE(upgrade({}, d.cookie), QByteArray("HTTP/1.1 403 Forbidden"));
    QCOMPARE(upgrade(c.origin, {}), QByteArray("HTTP/1.1 403 Forbidden"));
    QCOMPARE(upgrade(c.origin, d.cookie, "/"), QByteArray("HTTP/1.1 403 Forbidden"));
    QCOMPARE(upgrade(c.origin, d.cookie), QByteArray("HTTP/1.1 101 Switching Protocols"));
    QTRY_COMPARE(c.web->liveConnections(), 0); // the raw socket closed again
}

void TestWeb::approveDenyEditAndHaltReachTheAgent()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();

    Json item = c.submit("a1");
    Json r = c.review(d, item, { { "action", "approve" } });
    QCOMPARE(r["outcome"], "decided");
    Json decision = c.agent->next("decision");
    QCOMPARE(decision["call_id"], "a1");
    QCOMPARE(decision["decision"], "allow");
    QCOMPARE(decision["decided_by"], "human:owner");

    item = c.submit("d1");
    QCOMPARE(c.review(d, item, { { "action", "deny" }, { "reason", "not that file" } })["outcome"],
        "decided");
    decision = c.agent->next("decision");
    QCOMPARE(decision["decision"], "deny");
    QCOMPARE(decision["reason"], "not that file");

    item = c.submit("e1");
    const Json edited { { "path", "/tmp/safe" } };
    QCOMPARE(c.review(d, item, { { "action", "edit" }, { "args", edited } })["outcome"], "decided");
    decision = c.agent->next("decision");
    QCOMPARE(decision["decision"], "modify");
    QCOMPARE(decision["args"], edited);

    item = c.submit("h1");
    QCOMPARE(
        c.review(d, item, { { "action", "halt" }, { "reason", "stop" } })["outcome"], "decided");
    QCOMPARE(c.agent->next("decision")["decision"], "halt");

    // The audit log says the page decided, and through which session.
    QTRY_VERIFY([&] {
        for (const Json &rec : c.core->recentActivity(100))
            if (rec["event"] == "decision"
                && rec.value("via", std::string()).rfind("web session ", 0) == 0)
                return true;
        return false;
    }());
}

void TestWeb::aStaleClickIsRefusedWithWhoDecided()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const Json item = c.submit("s1");
    // Decided at the desktop meanwhile.
    protocol::Review desk;
    desk.id = item["id"];
    QVERIFY(c.core->review(desk).ok);
    QCOMPARE(c.agent->next("decision")["decision"], "allow");
    const HttpReply r = c.post(d, "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
        { { "action", "deny" }, { "reason", "late" }, { "version", item["version"] } });
    QCOMPARE(r.status, 409);
    QCOMPARE(r.error(), "already_decided");
    QCOMPARE(r.json()["decided_by"], "human:owner");
    QVERIFY(r.json()["message"].get<std::string>().find("already decided by human:owner at 20")
        != std::string::npos);
    QVERIFY(c.agent->noneOf("decision")); // nothing acted twice

    // A version the page no longer shows is refused too.
    const Json other = c.submit("s2");
    const HttpReply changed
        = c.post(d, "/api/items/" + QByteArray::fromStdString(other["id"]) + "/review",
            { { "action", "approve" }, { "version", "0000000000000000" } });
    QCOMPARE(changed.status, 409);
    QCOMPARE(changed.error(), "changed");
    QCOMPARE(c.core->queue()->size(), 1);
}

void TestWeb::liveFeedShowsNewCallsAndRemovesDecidedOnes()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const auto other = c.pairDevice();
    const Json first = c.submit("l1");
    LiveFeed one(c.port(), c.origin, d), two(c.port(), c.origin, other);
    QVERIFY(one.connected());
    QVERIFY(two.connected());
    const Json snapshot = one.next("snapshot");
    QCOMPARE(snapshot["items"].size(), std::size_t(1));
    QCOMPARE(snapshot["items"][0]["id"], first["id"]);
    QVERIFY(two.next("snapshot").is_object());

    const Json second = c.submit("l2");
    QCOMPARE(one.next("added")["item"]["id"], second["id"]);
    QCOMPARE(two.next("added")["item"]["id"], second["id"]);
    // A decision from one page clears the card on the other.
    QCOMPARE(c.review(d, second, { { "action", "approve" } })["outcome"], "decided");
    const Json removed = two.next("removed");
    QCOMPARE(removed["id"], second["id"]);
    QCOMPARE(removed["decided_by"], "human:owner");
    QCOMPARE(removed["state"], "decided");
    QCOMPARE(one.next("removed")["id"], second["id"]);
}

void TestWeb::revokingASessionClosesItsPage()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    LiveFeed page(c.port(), c.origin, d);
    QVERIFY(page.connected());
    QVERIFY(page.next("snapshot").is_object());
    const std::string id = c.web->sessions()->list().at(0).id;
    QVERIFY(c.web->revoke(id));
    QVERIFY(page.next("revoked").is_object());
    QVERIFY(page.waitClosed());
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 401);
    // Logging out from the page ends its own session the same way.
    const auto e = c.pairDevice();
    QCOMPARE(c.post(e, "/api/logout", Json::object()).status, 200);
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, e.headers()).status, 401);
}

void TestWeb::sessionsSurviveARestartAndTheFileHoldsNoToken()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const QString file = c.core->dataDir() + QStringLiteral("/web-sessions.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(!bytes.contains(d.cookie.mid(d.cookie.indexOf('=') + 1)));
    QVERIFY(!bytes.contains(d.key));
    QCOMPARE(QFile::permissions(file)
            & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
        QFile::Permissions());
    // A second server on the same data reads it back.
    WebConfig config;
    config.sessionsFile = file;
    WebServer again(c.core.get(), config);
    QString error;
    QVERIFY2(again.start(&error), qPrintable(error));
    QCOMPARE(http(again.port(), "GET", "/api/me", {}, d.headers()).json()["reviewer"], "owner");
}

void TestWeb::trustedHeaderOnlyFromListedPeers()
{
    WebConfig listed;
    listed.authHeader = "X-Forwarded-User";
    listed.trustedProxies = { QHostAddress(QStringLiteral("10.9.9.9")) };
    WebConsole notListed(listed);
    QVERIFY(notListed.started);
    const HttpReply refused
        = http(notListed.port(), "GET", "/api/me", {}, { { "X-Forwarded-User", "owner" } });
    QCOMPARE(refused.status, 401);
    QCOMPARE(refused.error(), "no_session");

    // A proxy on loopback shares its address with every local process, so
    // it proves itself with a secret as well.
    listed.trustedProxies = { QHostAddress::LocalHost };
    QVERIFY(webConfigProblem(listed).contains(QLatin1String("--web-proxy-secret-file")));
    listed.proxySecret = "a-secret-only-the-proxy-knows";
    WebConsole proxied(listed);
    QVERIFY(proxied.started);
    const Headers proxy { { "X-Forwarded-User", "owner" },
        { "X-Holdpoint-Proxy-Secret", listed.proxySecret } };
    const HttpReply me = http(proxied.port(), "GET", "/api/me", {}, proxy);
    QCOMPARE(me.status, 200);
    QCOMPARE(me.json()["reviewer"], "owner");
    QVERIFY(me.json()["via"].get<std::string>().find("X-Forwarded-User") != std::string::npos);
    // Without the secret, with a wrong one, or with the name sent twice (a
    // proxy that appends): nobody.
    QCOMPARE(http(proxied.port(), "GET", "/api/me", {}, { { "X-Forwarded-User", "owner" } }).status,
        401);
    QCOMPARE(http(proxied.port(), "GET", "/api/me", {},
                 { { "X-Forwarded-User", "owner" },
                     { "X-Holdpoint-Proxy-Secret", "a-secret-only-the-proxy-knowz" } })
                 .status,
        401);
    QCOMPARE(http(proxied.port(), "GET", "/api/me", {},
                 proxy + Headers { { "X-Forwarded-User", "mallory" } })
                 .status,
        401);
    // Someone the console does not know is nobody, from any proxy.
    QCOMPARE(http(proxied.port(), "GET", "/api/me", {},
                 { { "X-Forwarded-User", "mallory" },
                     { "X-Holdpoint-Proxy-Secret", listed.proxySecret } })
                 .status,
        401);
    // The header's reviewer decides, with the header's CSRF token.
    const Json item = proxied.submit("t1");
    const HttpReply r = http(proxied.port(), "POST",
        "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
        QByteArray::fromStdString(
            dumpJson({ { "action", "approve" }, { "version", item["version"] } })),
        proxy
            + Headers { { "Origin", proxied.origin },
                { "X-CSRF-Token",
                    QByteArray::fromStdString(me.json()["csrf"].get<std::string>()) } });
    QCOMPARE(r.status, 200);
    QCOMPARE(proxied.agent->next("decision")["decided_by"], "human:owner");
}

void TestWeb::configProblemsAreRefused()
{
    WebConfig open;
    open.address = QHostAddress::AnyIPv4;
    QVERIFY(webConfigProblem(open).contains(QLatin1String("needs TLS")));
    WebConfig half;
    half.authHeader = "X-Forwarded-User";
    QVERIFY(webConfigProblem(half).contains(QLatin1String("go together")));
    WebConfig cookie;
    cookie.authHeader = "Cookie";
    cookie.trustedProxies = { QHostAddress::LocalHost };
    QVERIFY(!webConfigProblem(cookie).isEmpty());
    // Nor the header the page's device key travels in.
    WebConfig deviceKey = cookie;
    deviceKey.authHeader = "X-Holdpoint-Device";
    deviceKey.proxySecret = "a-secret-only-the-proxy-knows";
    QVERIFY(webConfigProblem(deviceKey).contains(QLatin1String("cannot name the reviewer")));
    QHostAddress a;
    quint16 port = 0;
    QString error;
    QVERIFY(parseWebAddress(QStringLiteral("[::1]:8765"), &a, &port, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHostIPv6));
    QCOMPARE(port, quint16(8765));
    QVERIFY(!parseWebAddress(QStringLiteral("8765"), &a, &port, &error));
    QVERIFY(!parseWebAddress(QStringLiteral("example.com:8765"), &a, &port, &error));

    // The console itself refuses them before listening.
    const auto words = [](const char *text) { return QString::fromLatin1(text).split(u' '); };
    for (const QStringList &args : { words("--web 0.0.0.0:0"),
             words("--web 127.0.0.1:0 --web-auth-header X-User --web-trusted-proxy *"),
             words("--web-cert /nonexistent") }) {
        QTemporaryDir data;
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_BIN),
            words("--headless --data-dir") + QStringList { data.path() } + args);
        QVERIFY(p.waitForFinished(WaitMs));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(!p.readAllStandardError().isEmpty(), qPrintable(args.join(u' ')));
    }
}

void TestWeb::servesOverTls()
{
    QTemporaryDir keys;
    const QString cert = keys.path() + QStringLiteral("/cert.pem"),
                  key = keys.path() + QStringLiteral("/key.pem");
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
        QString::fromLatin1("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 "
                            "-subj /CN=localhost")
                .split(u' ')
            + QStringList { QStringLiteral("-keyout"), key, QStringLiteral("-out"), cert });
    QVERIFY(openssl.waitForFinished(WaitMs) && openssl.exitCode() == 0);
    WebConfig config;
    config.certFile = cert;
    config.keyFile = key;
    WebConsole c(config);
    QVERIFY(c.started);
    QVERIFY(c.origin.startsWith("https://"));
    QSslSocket s;
    s.setPeerVerifyMode(QSslSocket::VerifyNone);
    s.connectToHostEncrypted(QStringLiteral("127.0.0.1"), c.port());
    // The server runs on this thread: wait with the event loop running.
    QTRY_VERIFY_WITH_TIMEOUT(s.isEncrypted(), WaitMs);
    s.write(request("GET", "/", c.port(), {}, {}));
    const HttpReply r = readReply(s);
    QCOMPARE(r.status, 200);
    QVERIFY(r.header("Strict-Transport-Security").startsWith("max-age="));
    // Plain HTTP on the TLS port gets nothing.
    QCOMPARE(http(c.port(), "GET", "/").status, 0);
}

QTEST_GUILESS_MAIN(TestWeb)
#include "tst_web.moc"
