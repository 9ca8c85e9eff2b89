// SPDX-License-Identifier: Apache-2.0
// core/wire: the Qt-free pieces holdpoint-ctl's hooks run on, checked
// against what the rest of Holdpoint uses for the same thing (libcrypto's
// SHA-256, Qt's SHA-1 and base64, the protocol's rules, QDir's paths).

#include "common/sha256.h"
#include "engine/broker.h"
#include "protocol/protocol.h"
#include "server/endpoint.h"
#include "wire/digest.h"
#include "wire/endpoint.h"
#include "wire/files.h"
#include "wire/messages.h"
#include "wire/utf8.h"
#include "wire/websocket.h"

#include <QCryptographicHash>
#include <QDir>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace holdpoint;

// getrandom(2) as this executable sees it: the linker binds core/wire's
// calls to this definition before libc's, so a test can make it fail.
static int g_getrandomErrno = 0; // 0: the real system call
static int g_getrandomFailed = 0;
extern "C" ssize_t getrandom(void *buf, size_t length, unsigned int flags)
{
    if (g_getrandomErrno != 0) {
        ++g_getrandomFailed;
        errno = g_getrandomErrno;
        return -1;
    }
    return ::syscall(SYS_getrandom, buf, length, flags);
}

// connect(2) and poll(2) likewise: a connect still in progress whose poll
// fails (ENOMEM), when set.
static bool g_pollFails = false;
extern "C" int connect(int fd, const sockaddr *address, socklen_t length)
{
    if (g_pollFails) {
        errno = EINPROGRESS;
        return -1;
    }
    return int(::syscall(SYS_connect, fd, address, length));
}
extern "C" int poll(pollfd *fds, nfds_t n, int timeoutMs)
{
    if (g_pollFails) {
        errno = ENOMEM;
        return -1;
    }
    return int(::syscall(SYS_poll, fds, n, timeoutMs));
}

class TestWire : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void digestsMatchLibraries();
    void utf8AsTheJsonParserReadsIt();
    void limitsMatchTheProtocol();
    void idsAndResultsAsTheProtocolSays_data();
    void idsAndResultsAsTheProtocolSays();
    void hello();
    void wsUrls_data();
    void wsUrls();
    void absolutePathsAsQDir_data();
    void absolutePathsAsQDir();
    void runtimeDirAsQt();
    void defaultMessageCap();
    void randomWithoutGetrandom();
    void connectPollFails();
};

void TestWire::digestsMatchLibraries()
{
    // Every padding case: empty, within one block, the 55/56/64 edges, many.
    for (int n = 0; n < 300; ++n) {
        std::string s;
        for (int i = 0; i < n; ++i)
            s += char(i * 7 + n);
        const QByteArray q = QByteArray::fromStdString(s);
        const auto one = wire::sha1(s);
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(one.data()), 20),
            QCryptographicHash::hash(q, QCryptographicHash::Sha1));
        QCOMPARE(wire::sha256Hex(s), sha256Hex(s));
        QCOMPARE(QByteArray::fromStdString(wire::base64(s)), q.toBase64());
    }
    // RFC 6455 §1.3's example handshake.
    const auto accept = wire::sha1("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    QCOMPARE(wire::base64(std::string(reinterpret_cast<const char *>(accept.data()), 20)),
        std::string("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
}

void TestWire::utf8AsTheJsonParserReadsIt()
{
    // nlohmann's lexer follows RFC 3629's table: inside a JSON string it
    // takes exactly the well-formed sequences.
    const auto parses = [](const std::string &s) {
        return !Json::parse("\"" + s + "\"", nullptr, false).is_discarded();
    };
    std::string s;
    int checked = 0;
    const auto check = [&] {
        ++checked;
        if (wire::isUtf8(s) != parses(s))
            QFAIL(("disagree on " + wire::base64(s)).c_str());
    };
    // Every lead byte with every second byte; after the three- and
    // four-byte leads, a third and fourth byte of each kind; and every
    // sequence cut short.
    for (int a = 0x80; a <= 0xff; ++a) {
        s = { char(a) };
        check();
        for (int b = 0x20; b <= 0xff; ++b) {
            if (b == '"' || b == '\\')
                continue;
            s = { char(a), char(b) };
            check();
            if (a < 0xe0 || (b & 0xc0) != 0x80)
                continue;
            // A third byte only needs to be a continuation or not: the edges.
            for (int c : { 0x20, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf,
                     0xe0, 0xf0, 0xf5, 0xff }) {
                s = { char(a), char(b), char(c) };
                check();
                s += 'x';
                check();
                s.back() = char(0x80 | (c & 0x3f));
                check();
                s.back() = char(0xc0);
                check();
            }
        }
    }
    QVERIFY(checked > 50'000);
    QVERIFY(wire::isUtf8("plain ascii, \xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"));
    QVERIFY(!wire::isUtf8("\xed\xa0\x80")); // a surrogate
    QVERIFY(!wire::isUtf8("\xf4\x90\x80\x80")); // past U+10FFFF
}

void TestWire::limitsMatchTheProtocol()
{
    QCOMPARE(wire::ProtocolVersion, protocol::Version);
    QCOMPARE(wire::MaxDepth, protocol::MaxDepth);
    QCOMPARE(wire::MaxIdLength, protocol::MaxIdLength);
    QCOMPARE(wire::MaxToolNameLength, protocol::MaxToolNameLength);
    QCOMPARE(wire::MaxResultBytes, protocol::MaxResultBytes);
}

void TestWire::idsAndResultsAsTheProtocolSays_data()
{
    QTest::addColumn<QByteArray>("id");
    QTest::newRow("plain") << QByteArray("toolu_01");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("tab") << QByteArray("a\tb");
    QTest::newRow("del") << QByteArray("a\x7f");
    QTest::newRow("utf-8") << QByteArray("ça");
    QTest::newRow("256") << QByteArray(256, 'x');
    QTest::newRow("257") << QByteArray(257, 'x');
}

void TestWire::idsAndResultsAsTheProtocolSays()
{
    QFETCH(QByteArray, id);
    QCOMPARE(wire::isValidId(id.toStdString()), protocol::isValidId(id.toStdString()));
    const Json result { { "out", std::string(std::size_t(id.size()) * 2000, 'r') } };
    QVERIFY(wire::compactResult(result) == protocol::compactResult(result));
}

void TestWire::hello()
{
    wire::Hello h;
    h.token = "t";
    h.agentName = "claude-code";
    h.framework = "claude-code";
    h.user = "alice";
    h.capabilities = { false, true };
    h.sessionId = "s1";
    QVERIFY(wire::helloMessage(h)
        == Json::parse(R"({"type":"hello","protocol":1,"role":"agent","token":"t",
        "agent":{"name":"claude-code","framework":"claude-code","user":"alice"},"capabilities":{"modify":false},"session_id":"s1"})"));
    h.role = "reviewer";
    h.framework.clear();
    h.capabilities = {};
    h.sessionId.reset();
    QVERIFY(wire::helloMessage(h)
        == Json::parse(
            R"({"type":"hello","protocol":1,"role":"reviewer","token":"t","agent":{"name":"claude-code"}})"));
}

void TestWire::wsUrls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("path");
    QTest::newRow("console") << "ws://127.0.0.1:41027/" << true << "127.0.0.1" << 41027 << "/";
    QTest::newRow("no path") << "ws://localhost:8080" << true << "localhost" << 8080 << "/";
    QTest::newRow("no port") << "ws://127.0.0.1/x?y=1" << true << "127.0.0.1" << 80 << "/x?y=1";
    QTest::newRow("ipv6") << "ws://[::1]:9/" << true << "::1" << 9 << "/";
    QTest::newRow("wss") << "wss://127.0.0.1:1/" << false << "" << 0 << "";
    QTest::newRow("port 0") << "ws://127.0.0.1:0/" << false << "" << 0 << "";
    QTest::newRow("port text") << "ws://127.0.0.1:http/" << false << "" << 0 << "";
    QTest::newRow("user") << "ws://me@127.0.0.1:1/" << false << "" << 0 << "";
    QTest::newRow("no host") << "ws://:1/" << false << "" << 0 << "";
}

void TestWire::wsUrls()
{
    QFETCH(QString, url);
    QFETCH(bool, ok);
    wire::WsUrl u;
    QCOMPARE(wire::parseWsUrl(url.toStdString(), &u), ok);
    if (!ok)
        return;
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, path);
    QCOMPARE(QString::fromStdString(u.host), host);
    QCOMPARE(u.port, port);
    QCOMPARE(QString::fromStdString(u.path), path);
}

void TestWire::absolutePathsAsQDir_data()
{
    QTest::addColumn<QString>("path");
    for (const char *p :
        { "/a/b", "/a//b/", "/a/./b/../c", "rel/x", "./rel/../y", "/..", "/", "a/../../b" })
        QTest::newRow(p) << QString::fromLatin1(p);
}

// resolveDataDir() makes a --data-dir absolute as QDir::absolutePath() did.
void TestWire::absolutePathsAsQDir()
{
    QFETCH(QString, path);
    QCOMPARE(
        QString::fromStdString(wire::absolutePath(path.toStdString())), QDir(path).absolutePath());
    QCOMPARE(QString::fromStdString(wire::resolveDataDir(path.toStdString())),
        QDir(path).absolutePath());
}

// As QStandardPaths::RuntimeLocation in Qt 6.4: XDG_RUNTIME_DIR when it is a
// directory of ours (made 0700), else $TMPDIR/runtime-USER, created 0700; a
// symlink or another user's directory is never used.
void TestWire::runtimeDirAsQt()
{
    QTemporaryDir tmp;
    const QByteArray savedXdg = qgetenv("XDG_RUNTIME_DIR"), savedTmp = qgetenv("TMPDIR");
    const auto restore = qScopeGuard([&] {
        for (const auto &[name, value] :
            { std::pair { "XDG_RUNTIME_DIR", savedXdg }, std::pair { "TMPDIR", savedTmp } }) {
            if (value.isNull())
                qunsetenv(name);
            else
                qputenv(name, value);
        }
    });
    qputenv("TMPDIR", tmp.path().toUtf8());
    const std::string fallback = tmp.path().toStdString() + "/runtime-" + wire::currentOsUser();
    const auto mode = [](const std::string &path) {
        struct stat st
        {
        };
        return ::lstat(path.c_str(), &st) == 0 ? int(st.st_mode & 07777) : -1;
    };
    std::string dir, error;

    // Ours, too open: used, and made 0700.
    const std::string xdg = tmp.path().toStdString() + "/xdg";
    QVERIFY(::mkdir(xdg.c_str(), 0755) == 0);
    qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(xdg));
    QVERIFY2(wire::runtimeDir(&dir, &error), error.c_str());
    QCOMPARE(dir, xdg);
    QCOMPARE(mode(xdg), 0700);

    // A symlink to it: the fallback, created 0700.
    const std::string link = tmp.path().toStdString() + "/link";
    QVERIFY(::symlink(xdg.c_str(), link.c_str()) == 0);
    qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(link));
    QVERIFY2(wire::runtimeDir(&dir, &error), error.c_str());
    QCOMPARE(dir, fallback);
    QCOMPARE(mode(fallback), 0700);

    // None set: the fallback, its mode fixed.
    qunsetenv("XDG_RUNTIME_DIR");
    QVERIFY(::chmod(fallback.c_str(), 0777) == 0);
    QVERIFY2(wire::runtimeDir(&dir, &error), error.c_str());
    QCOMPARE(dir, fallback);
    QCOMPARE(mode(fallback), 0700);

    // A fallback that is a symlink (someone made it first): refused.
    QVERIFY(::rmdir(fallback.c_str()) == 0);
    QVERIFY(::symlink(xdg.c_str(), fallback.c_str()) == 0);
    QVERIFY(!wire::runtimeDir(&dir, &error));
    QVERIFY2(error.find("symlink") != std::string::npos, error.c_str());
    QVERIFY(::unlink(fallback.c_str()) == 0);

    if (::geteuid() != 0)
        QSKIP("directories of another user need root to make");
    // Another user's, whether set or in the fallback's place: refused.
    QVERIFY(::chown(xdg.c_str(), 65534, 65534) == 0);
    QVERIFY(::mkdir(fallback.c_str(), 0700) == 0 && ::chown(fallback.c_str(), 65534, 65534) == 0);
    qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(xdg));
    QVERIFY(!wire::runtimeDir(&dir, &error));
    QVERIFY2(error.find("not by this user") != std::string::npos, error.c_str());
}

// A welcome without max_message_bytes: the console's own default applies.
void TestWire::defaultMessageCap()
{
    QCOMPARE(wire::DefaultMaxMessageBytes, BrokerConfig {}.maxMessageBytes);
    QCOMPARE(qint64(wire::DefaultMaxMessageBytes), EndpointConfig {}.maxMessageBytes);
    QCOMPARE(wire::MaxNameLength, protocol::MaxNameLength);
}

// getrandom failing for good (ENOSYS: an old kernel, a seccomp filter) is
// no endless loop: /dev/urandom gives the bytes.
void TestWire::randomWithoutGetrandom()
{
    g_getrandomErrno = ENOSYS;
    const auto restore = qScopeGuard([] { g_getrandomErrno = 0; });
    unsigned char bytes[64] {};
    QVERIFY(wire::randomBytes(bytes, sizeof bytes));
    QVERIFY(
        std::any_of(std::begin(bytes), std::end(bytes), [](unsigned char b) { return b != 0; }));
    const std::string a = wire::randomId("x-"), b = wire::randomId("x-");
    QVERIFY(a.size() > 2 && a.rfind("x-", 0) == 0);
    QVERIFY(a != b);
    QVERIFY(g_getrandomFailed >= 3); // it was this getrandom that failed
}

// A poll(2) error while connecting is an error, not a connection.
void TestWire::connectPollFails()
{
    g_pollFails = true;
    const auto restore = qScopeGuard([] { g_pollFails = false; });
    wire::WsUrl url;
    QVERIFY(wire::parseWsUrl("ws://127.0.0.1:9/", &url));
    wire::WebSocketClient ws;
    std::string error;
    QVERIFY(!ws.open(url, wire::monotonicMs() + 1000, &error));
    QCOMPARE(error, std::string(std::strerror(ENOMEM)));
}

QTEST_GUILESS_MAIN(TestWire)
#include "tst_wire.moc"
