// SPDX-License-Identifier: Apache-2.0
// What another process on the reviewer page's machine can do to it (issue
// 43.1 and 43.4), from that process's seat: hold the session cookie without
// its device key, fill the connection caps with idle and trickling
// connections, and send wrong pairing codes from many addresses.

#include "common/sha256.h"
#include "web/webconsole.h"
#include "web/webserver.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// One request from a chosen loopback address (Linux answers all of 127/8).
HttpReply httpFrom(const QHostAddress &from, quint16 port, const QByteArray &method,
    const QByteArray &path, const QByteArray &body, const Headers &headers)
{
    QTcpSocket s;
    if (!s.bind(from))
        return {};
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(WaitMs))
        return {};
    s.write(request(method, path, port, body, headers));
    return readReply(s);
}

QHostAddress loopback(int n)
{
    return QHostAddress(QStringLiteral("127.0.0.%1").arg(n));
}

// A live feed's upgrade in raw bytes, with fields a browser never sends
// twice (two Cookie lines, a proxy's name header and a client's), then a
// first message: what the server sends first on the feed ("snapshot", or
// "close 1008"), or why nothing came.
QByteArray firstOnFeed(
    quint16 port, const QByteArray &origin, const Headers &fields, const QByteArray &hello)
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(WaitMs))
        return "no connection";
    QByteArray head = "GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
          "dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Sec-WebSocket-Version: 13\r\nOrigin: "
        + origin + "\r\n";
    for (const auto &[name, value] : fields)
        head += name + ": " + value + "\r\n";
    s.write(head + "\r\n");
    QByteArray data;
    (void)QTest::qWaitFor(
        [&] {
            data += s.readAll();
            return data.contains("\r\n\r\n") || s.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs);
    if (!data.startsWith("HTTP/1.1 101"))
        return "not upgraded: " + data.left(data.indexOf("\r\n"));
    data = data.mid(data.indexOf("\r\n\r\n") + 4);
    // One masked text frame (RFC 6455 §5.2), short enough for a 7-bit length.
    const QByteArray mask = "\x11\x22\x33\x44";
    QByteArray frame = "\x81" + QByteArray(1, char(0x80 | hello.size())) + mask;
    for (qsizetype i = 0; i < hello.size(); ++i)
        frame += char(hello[i] ^ mask[i % 4]);
    s.write(frame);
    (void)QTest::qWaitFor(
        [&] {
            data += s.readAll();
            return data.size() >= 4 || s.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs);
    if (data.size() < 4)
        return "nothing";
    const int opcode = data[0] & 0x0f;
    if (opcode == 8)
        return "close " + QByteArray::number((uchar(data[2]) << 8) | uchar(data[3]));
    if (opcode == 1 && data.contains("\"snapshot\""))
        return "snapshot";
    return "frame " + QByteArray::number(opcode);
}

} // namespace

class TestWebLocal : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aCookieWithoutItsDeviceKeyIsNobody();
    void cookieOnlySessionsOfAnOlderFileAreDropped();
    void idleAndTricklingConnectionsNeverStarveASession();
    void wrongPairingCodesNeverRefuseAValidOne();
    void aFeedIsWhomItsUpgradeWasAdmittedFor();
};

void TestWebLocal::aCookieWithoutItsDeviceKeyIsNobody()
{
    WebConsole c;
    QVERIFY(c.started);
    const Device d = c.pairDevice();
    const Json item = c.submit("c1");
    QVERIFY(item.is_object());
    const Device stolen = d.cookieOnly();
    Device guessed = stolen;
    guessed.key = QByteArray(64, 'f');
    for (const Device &who : { stolen, guessed }) {
        const HttpReply me = http(c.port(), "GET", "/api/me", {}, who.headers());
        QCOMPARE(me.status, 401);
        QCOMPARE(me.error(), "no_session");
        QVERIFY(!me.body.contains(d.csrf)); // the CSRF token never goes to the cookie alone
        QCOMPARE(http(c.port(), "GET", "/api/items", {}, who.headers()).status, 401);
        Json body
            = { { "action", "approve" }, { "scope", "call" }, { "version", item["version"] } };
        QCOMPARE(
            c.post(who, "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review", body)
                .status,
            401);
        // The feed opens on the cookie (a browser cannot add a header to
        // an upgrade) and is closed on a wrong first message, unheard.
        LiveFeed feed(c.port(), c.origin, who);
        QVERIFY(feed.connected());
        if (who.key.isEmpty())
            feed.send({ { "type", "ping" } });
        QVERIFY(feed.waitClosed());
        QCOMPARE(feed.closeCode(), 1008);
        QVERIFY(feed.noneOf("snapshot"));
    }
    QCOMPARE(c.core->queue()->size(), 1);
    // Both halves together: the same device reads and its feed speaks.
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 200);
    LiveFeed page(c.port(), c.origin, d);
    QVERIFY(page.next("snapshot").is_object());
}

void TestWebLocal::cookieOnlySessionsOfAnOlderFileAreDropped()
{
    // A file written before device keys (version 1): its sessions have no
    // key, and whoever holds their cookie could use them. They are dropped
    // when it is read, and the file is written again at version 2.
    QTemporaryDir dir;
    const QString file = dir.path() + QStringLiteral("/web-sessions.json");
    const QByteArray token = "0123456789abcdef0123456789abcdef";
    const Json old { { "version", 1 },
        { "sessions",
            { { { "id", "s1" }, { "reviewer", "owner" }, { "paired_via", "console" },
                { "token_sha256", sha256Hex(token.toStdString()) }, { "csrf", "c" },
                { "user_agent", "phone" }, { "created", Start }, { "last_seen", Start } } } } };
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    f.write(QByteArray::fromStdString(dumpJson(old)));
    f.close();
    ManualClock clock(Start);
    WebSessions sessions(file, &clock);
    QString error;
    QVERIFY2(sessions.load(&error), qPrintable(error));
    QVERIFY(sessions.list().empty());
    QVERIFY(!sessions.findByToken(token));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json now = Json::parse(f.readAll().toStdString(), nullptr, false);
    QCOMPARE(now["version"], 2);
    QVERIFY(now["sessions"].empty());
}

void TestWebLocal::idleAndTricklingConnectionsNeverStarveASession()
{
    WebConsole c;
    QVERIFY(c.started);
    const Device d = c.pairDevice();
    // The phone's page: its live feed, and a kept-alive connection that
    // has carried its session.
    LiveFeed page(c.port(), c.origin, d);
    QVERIFY(page.next("snapshot").is_object());
    QTcpSocket keptAlive;
    keptAlive.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(keptAlive.waitForConnected(WaitMs));
    keptAlive.write(request("GET", "/api/me", c.port(), {}, d.headers()));
    QCOMPARE(readReply(keptAlive).status, 200);

    // A local process opens 300 connections from the same address: every
    // other one idle, the rest a request head trickled and never finished.
    std::vector<std::unique_ptr<QTcpSocket>> flood;
    for (int i = 0; i < 300; ++i) {
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QHostAddress::LocalHost, c.port());
        QVERIFY(QTest::qWaitFor(
            [&] {
                return s->state() != QAbstractSocket::ConnectingState
                    && s->state() != QAbstractSocket::HostLookupState;
            },
            WaitMs));
        if (i % 2)
            s->write("GET /api/items HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port())
                + "\r\nX-Slow: a");
        flood.push_back(std::move(s));
    }
    // The phone opens a new connection, and is answered.
    const HttpReply fresh = http(c.port(), "GET", "/api/items", {}, d.headers());
    QCOMPARE(fresh.status, 200);
    // Its kept-alive connection and its feed are still there.
    keptAlive.write(request("GET", "/api/me", c.port(), {}, d.headers()));
    QCOMPARE(readReply(keptAlive).status, 200);
    QVERIFY(!page.isClosed());
    QVERIFY(c.submit("after-the-flood").is_object());
    QVERIFY(page.next("added").is_object());
    // The flood made room for itself: no more of it open than the
    // per-address cap leaves beside the phone's two connections.
    int open = 0;
    QCoreApplication::processEvents();
    for (const auto &s : flood)
        open += s->state() == QAbstractSocket::ConnectedState;
    QVERIFY2(open <= 64, qPrintable(QString::number(open)));
}

void TestWebLocal::wrongPairingCodesNeverRefuseAValidOne()
{
    WebConsole c;
    QVERIFY(c.started);
    const auto redeemFrom = [&](int n, const std::string &code) {
        return httpFrom(loopback(n), c.port(), "POST", "/api/pair",
            QByteArray::fromStdString(dumpJson({ { "code", code } })), { { "Origin", c.origin } });
    };
    // 40 wrong codes in a minute, from 10 addresses: more than any one
    // address may send, and more than the old cap on all of them (30).
    for (int i = 0; i < 40; ++i) {
        const HttpReply r = redeemFrom(2 + i % 10, "guess-" + std::to_string(i));
        QVERIFY2(r.status == 410 || r.status == 429, r.body.constData());
    }
    // A valid code is redeemed, from a new address and from one that
    // guessed wrong itself (behind a proxy, every phone's address).
    QCOMPARE(redeemFrom(50, c.web->pair("owner", "test").url.section(u'#', 1).toStdString()).status,
        200);
    QCOMPARE(
        redeemFrom(2, c.web->pair("owner", "test").url.section(u'#', 1).toStdString()).status, 200);
    // A wrong code is limited per address: 127.0.0.3 sent 4, its fifth
    // is answered, its sixth is not ...
    QCOMPARE(redeemFrom(3, "guess-five").error(), "pairing_unknown");
    QCOMPARE(redeemFrom(3, "guess-six").error(), "rate_limited");
    // ... and per code, whatever the address: a spent link tried again.
    const std::string spent = c.web->pair("owner", "test").url.section(u'#', 1).toStdString();
    QCOMPARE(redeemFrom(60, spent).status, 200);
    for (int n = 61; n < 61 + int(PairingFailuresPerCode); ++n)
        QCOMPARE(redeemFrom(n, spent).error(), "pairing_used");
    QCOMPARE(redeemFrom(70, spent).error(), "rate_limited");
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(3));
}

void TestWebLocal::aFeedIsWhomItsUpgradeWasAdmittedFor()
{
    // The upgrade is admitted on the fields Qt HTTP Server read; the feed
    // must be for that caller, never for what another reading of the same
    // bytes makes of a field sent twice.
    WebConfig proxied;
    proxied.authHeader = "X-Forwarded-User";
    proxied.trustedProxies = { QHostAddress::LocalHost };
    proxied.proxySecret = "a-secret-only-the-proxy-knows";
    WebConsole c(proxied);
    QVERIFY(c.started);
    const Device a = c.pairDevice();
    const Device b = c.pairDevice();
    QVERIFY(!a.key.isEmpty() && !b.key.isEmpty());
    const auto hello = [](const Device &d) {
        return QByteArray::fromStdString(
            dumpJson({ { "type", "hello" }, { "device", d.key.toStdString() } }));
    };
    // A process that holds a's cookie (another port of this host) and goes
    // through the proxy, which adds its own name line and its secret: the
    // name sent twice names nobody, so the cookie alone admits the feed,
    // and it is sent nothing until a's key comes.
    const Headers twice { { "Cookie", a.cookie }, { "X-Forwarded-User", "mallory" },
        { "X-Forwarded-User", "owner" }, { "X-Holdpoint-Proxy-Secret", proxied.proxySecret } };
    QCOMPARE(firstOnFeed(c.port(), c.origin, twice, hello(b)), QByteArray("close 1008"));
    // Two Cookie lines: the feed is the first one's, as the upgrade was.
    const Headers cookies { { "Cookie", a.cookie }, { "Cookie", b.cookie } };
    QCOMPARE(firstOnFeed(c.port(), c.origin, cookies, hello(a)), QByteArray("snapshot"));
    QCOMPARE(firstOnFeed(c.port(), c.origin, cookies, hello(b)), QByteArray("close 1008"));
}

QTEST_GUILESS_MAIN(TestWebLocal)
#include "tst_weblocal.moc"
