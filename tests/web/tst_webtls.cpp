// SPDX-License-Identifier: Apache-2.0
// The reviewer page's TLS and single sign-on set-up is checked at start
// (WEB.md "TLS"): certificates and keys made by the real openssl, each
// mistake refused with a message that says what to fix, and a page on
// another loopback address paired and posted to at that address.

#include "web/webconsole.h"

#include <QProcess>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

struct KeyPair
{
    QString cert, key;
};

// A self-signed certificate and its key, by openssl, the key at mode 0600.
KeyPair makeCert(
    const QString &dir, const QString &name, const QString &cn = QStringLiteral("localhost"))
{
    const KeyPair k { dir + u'/' + name + QStringLiteral(".crt"),
        dir + u'/' + name + QStringLiteral(".key") };
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
        QString::fromLatin1("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1")
                .split(u' ')
            + QStringList { QStringLiteral("-subj"), QStringLiteral("/CN=") + cn,
                QStringLiteral("-keyout"), k.key, QStringLiteral("-out"), k.cert });
    if (!openssl.waitForFinished(WaitMs) || openssl.exitCode() != 0)
        return {};
    QFile::setPermissions(k.key, QFile::ReadOwner | QFile::WriteOwner);
    return k;
}

// What `holdpoint --headless --web ...` says before it exits; empty if it
// did not exit with 1.
QString consoleRefusal(const QStringList &args)
{
    QTemporaryDir data;
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_BIN),
        QStringList { QStringLiteral("--headless"), QStringLiteral("--data-dir"), data.path() }
            + args);
    if (!p.waitForFinished(WaitMs)) {
        p.kill();
        p.waitForFinished(WaitMs);
        return {};
    }
    return p.exitCode() == 1 ? QString::fromUtf8(p.readAllStandardError()) : QString();
}

QString startError(const WebConfig &config)
{
    QTemporaryDir dir;
    ManualClock clock(Start);
    ConsoleOptions o;
    o.dataDir = dir.path();
    o.broker.reviewerName = "owner";
    ConsoleCore core(o, &clock);
    QString error;
    if (!core.start(&error))
        return QStringLiteral("console: ") + error;
    WebServer web(&core, config);
    return web.start(&error) ? QString() : error;
}

} // namespace

class TestWebTls : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aKeyThatIsNotTheCertificatesIsRefused();
    void aKeyOthersMayReadIsRefused_data();
    void aKeyOthersMayReadIsRefused();
    void anotherLoopbackAddressIsThePagesOrigin();
    void theSecretsHeaderCannotNameTheReviewer_data();
    void theSecretsHeaderCannotNameTheReviewer();
    void aWildcardAddressNeedsTheOriginClientsUse_data();
    void aWildcardAddressNeedsTheOriginClientsUse();
    void anotherUsersKeyIsRefused();
    void aFifoIsRefusedNotWaitedOn_data();
    void aFifoIsRefusedNotWaitedOn();
    void aCertificateFileOver1MiBIsRefused();

private:
    QTemporaryDir m_keys;
    KeyPair m_a, m_b;
};

void TestWebTls::initTestCase()
{
    m_a = makeCert(m_keys.path(), QStringLiteral("a"));
    m_b = makeCert(m_keys.path(), QStringLiteral("b"));
    QVERIFY2(
        !m_a.cert.isEmpty() && !m_b.cert.isEmpty(), "openssl could not make the test certificates");
}

void TestWebTls::aKeyThatIsNotTheCertificatesIsRefused()
{
    WebConfig config;
    config.certFile = m_a.cert;
    config.keyFile = m_b.key;
    const QString error = startError(config);
    QVERIFY2(error.contains(QLatin1String("is not the key of --web-cert")), qPrintable(error));
    QVERIFY2(error.contains(m_b.key) && error.contains(m_a.cert), qPrintable(error));
    // The matching pair starts (the check is not refusing everything).
    config.keyFile = m_a.key;
    QCOMPARE(startError(config), QString());
    // And the console itself refuses the mismatch before it listens.
    const QString said = consoleRefusal({ QStringLiteral("--web"), QStringLiteral("127.0.0.1:0"),
        QStringLiteral("--web-cert"), m_a.cert, QStringLiteral("--web-key"), m_b.key });
    QVERIFY2(said.contains(QLatin1String("is not the key of --web-cert")), qPrintable(said));
}

void TestWebTls::aKeyOthersMayReadIsRefused_data()
{
    QTest::addColumn<int>("mode"); // octal
    QTest::addColumn<bool>("refused");
    QTest::newRow("0600") << 0600 << false;
    QTest::newRow("0400") << 0400 << false;
    QTest::newRow("0644") << 0644 << true;
    QTest::newRow("0640") << 0640 << true;
    QTest::newRow("0604") << 0604 << true;
}

void TestWebTls::aKeyOthersMayReadIsRefused()
{
    QFETCH(int, mode);
    QFETCH(bool, refused);
    QTemporaryDir dir;
    const KeyPair k = makeCert(dir.path(), QStringLiteral("k"));
    QVERIFY(!k.key.isEmpty());
    QCOMPARE(::chmod(QFile::encodeName(k.key).constData(), mode_t(mode)), 0);
    WebConfig config;
    config.certFile = k.cert;
    config.keyFile = k.key;
    const QString error = startError(config);
    if (!refused) {
        QCOMPARE(error, QString());
        return;
    }
    const QString octal = QString::number(mode, 8).rightJustified(4, u'0');
    QVERIFY2(error.contains(QStringLiteral("permissions ") + octal), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("chmod 600 ") + k.key), qPrintable(error));
    if (mode == 0644) {
        const QString said
            = consoleRefusal({ QStringLiteral("--web"), QStringLiteral("127.0.0.1:0"),
                QStringLiteral("--web-cert"), k.cert, QStringLiteral("--web-key"), k.key });
        QVERIFY2(said.contains(QStringLiteral("chmod 600")), qPrintable(said));
    }
}

void TestWebTls::anotherLoopbackAddressIsThePagesOrigin()
{
    WebConfig config;
    config.address = QHostAddress(QStringLiteral("127.0.0.2"));
    config.certFile = m_a.cert;
    config.keyFile = m_a.key;
    WebConsole c(config);
    QVERIFY(c.started);
    const QByteArray origin = "https://127.0.0.2:" + QByteArray::number(c.port());
    QCOMPARE(c.origin, origin);
    const QString link = c.web->pair("owner", "test").url;
    QVERIFY2(link.startsWith(QString::fromLatin1(origin + "/pair#")), qPrintable(link));

    // Paired over TLS at that address, from that origin.
    const auto post = [&](const QByteArray &from, const std::string &code) {
        QSslSocket s;
        s.setPeerVerifyMode(QSslSocket::VerifyNone);
        s.connectToHostEncrypted(QStringLiteral("127.0.0.2"), c.port());
        if (!QTest::qWaitFor([&] { return s.isEncrypted(); }, WaitMs))
            return HttpReply {};
        s.write(request("POST", "/api/pair", c.port(),
            QByteArray::fromStdString(dumpJson({ { "code", code } })),
            { { "Host", "127.0.0.2:" + QByteArray::number(c.port()) }, { "Origin", from } }));
        return readReply(s);
    };
    const std::string code = link.section(u'#', 1).toStdString();
    // Another loopback address is another origin, and nothing of ours is there.
    const HttpReply elsewhere = post("https://127.0.0.1:" + QByteArray::number(c.port()), code);
    QCOMPARE(elsewhere.status, 403);
    QCOMPARE(elsewhere.error(), "bad_origin");
    const HttpReply paired = post(origin, code);
    QCOMPARE(paired.status, 200);
    QCOMPARE(paired.json()["reviewer"], "owner");
    QVERIFY(paired.header("Set-Cookie").startsWith("__Host-holdpoint="));
}

void TestWebTls::theSecretsHeaderCannotNameTheReviewer_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::newRow("as documented") << QByteArray("X-Holdpoint-Proxy-Secret");
    QTest::newRow("lower case") << QByteArray("x-holdpoint-proxy-secret");
}

void TestWebTls::theSecretsHeaderCannotNameTheReviewer()
{
    QFETCH(QByteArray, header);
    QTemporaryDir dir;
    const QString secretFile = dir.path() + QStringLiteral("/secret");
    QFile f(secretFile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("a-secret-only-the-proxy-knows\n");
    f.close();
    QFile::setPermissions(secretFile, QFile::ReadOwner | QFile::WriteOwner);

    WebConfig config;
    config.authHeader = header;
    config.trustedProxies = { QHostAddress::LocalHost };
    config.proxySecret = "a-secret-only-the-proxy-knows";
    const QString problem = webConfigProblem(config);
    QVERIFY2(problem.contains(QLatin1String("carries the proxy's secret")), qPrintable(problem));
    QVERIFY2(problem.contains(QLatin1String("X-Forwarded-User")), qPrintable(problem));
    // The control: a name header of its own is fine.
    config.authHeader = "X-Forwarded-User";
    QCOMPARE(webConfigProblem(config), QString());
    // The console refuses it at start.
    const QString said = consoleRefusal({ QStringLiteral("--web"), QStringLiteral("127.0.0.1:0"),
        QStringLiteral("--web-auth-header"), QString::fromLatin1(header),
        QStringLiteral("--web-trusted-proxy"), QStringLiteral("127.0.0.1"),
        QStringLiteral("--web-proxy-secret-file"), secretFile });
    QVERIFY2(said.contains(QLatin1String("carries the proxy's secret")), qPrintable(said));
}

void TestWebTls::aWildcardAddressNeedsTheOriginClientsUse_data()
{
    QTest::addColumn<QString>("address");
    QTest::newRow("0.0.0.0") << QStringLiteral("0.0.0.0");
    QTest::newRow("::") << QStringLiteral("::");
}

void TestWebTls::aWildcardAddressNeedsTheOriginClientsUse()
{
    // Every address, but no origin a browser can be sent to: the page
    // would print, pair to and check Host and Origin against "0.0.0.0".
    QFETCH(QString, address);
    WebConfig config;
    config.address = QHostAddress(address);
    config.certFile = m_a.cert;
    config.keyFile = m_a.key;
    const QString problem = webConfigProblem(config);
    QVERIFY2(problem.contains(QLatin1String("add --web-origin")), qPrintable(problem));
    const QString web
        = (address.contains(u':') ? u'[' + address + u']' : address) + QStringLiteral(":0");
    const QString said = consoleRefusal({ QStringLiteral("--web"), web,
        QStringLiteral("--web-cert"), m_a.cert, QStringLiteral("--web-key"), m_a.key });
    QVERIFY2(said.contains(QLatin1String("add --web-origin")), qPrintable(said));

    // With the origin clients use, that is the page's origin, its pairing
    // links' and the Host it answers for; "0.0.0.0" is none of them.
    config.origins = { QStringLiteral("https://review.example.test:9443") };
    QCOMPARE(webConfigProblem(config), QString());
    WebConsole c(config);
    QVERIFY(c.started);
    QCOMPARE(c.origin, QByteArray("https://review.example.test:9443"));
    QVERIFY(c.web->pair("owner", "test")
                .url.startsWith(QStringLiteral("https://review.example.test:9443/pair#")));
    const auto get = [&](const QByteArray &host) {
        QSslSocket s;
        s.setPeerVerifyMode(QSslSocket::VerifyNone);
        // Qt listens on :: for IPv6 alone.
        s.connectToHostEncrypted(
            address.contains(u':') ? QStringLiteral("::1") : QStringLiteral("127.0.0.1"), c.port());
        if (!QTest::qWaitFor([&] { return s.isEncrypted(); }, WaitMs))
            return HttpReply {};
        s.write(request("GET", "/", c.port(), {}, { { "Host", host } }));
        return readReply(s);
    };
    QCOMPARE(get("review.example.test:9443").status, 200);
    const QByteArray wildcard
        = (address.contains(u':') ? "[" + address.toLatin1() + "]" : address.toLatin1()) + ':'
        + QByteArray::number(c.port());
    QCOMPARE(get(wildcard).error(), "bad_host");
}

void TestWebTls::anotherUsersKeyIsRefused()
{
    // Root reads anyone's 0600 file; the key must still be its own.
    if (geteuid() != 0)
        QSKIP("needs root to give the key to another user");
    QTemporaryDir dir;
    const KeyPair k = makeCert(dir.path(), QStringLiteral("k"));
    QVERIFY(!k.key.isEmpty());
    WebConfig config;
    config.certFile = k.cert;
    config.keyFile = k.key;
    QCOMPARE(startError(config), QString()); // the control: its own key
    QCOMPARE(::chown(QFile::encodeName(k.key).constData(), 65534, 65534), 0);
    const QString error = startError(config);
    QVERIFY2(error.contains(QLatin1String("--web-key"))
            && error.contains(QLatin1String("belongs to another user")),
        qPrintable(error));
}

void TestWebTls::aFifoIsRefusedNotWaitedOn_data()
{
    QTest::addColumn<bool>("asKey");
    QTest::newRow("--web-key") << true;
    QTest::newRow("--web-cert") << false;
}

void TestWebTls::aFifoIsRefusedNotWaitedOn()
{
    // open(2) on a FIFO waits for a writer: start-up would hang for good.
    QFETCH(bool, asKey);
    QTemporaryDir dir;
    const QString fifo = dir.path() + QStringLiteral("/fifo");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QString cert = asKey ? m_a.cert : fifo;
    const QString key = asKey ? fifo : m_a.key;
    const QString said = consoleRefusal({ QStringLiteral("--web"), QStringLiteral("127.0.0.1:0"),
        QStringLiteral("--web-cert"), cert, QStringLiteral("--web-key"), key });
    QVERIFY2(said.contains(fifo + QStringLiteral(" is not a regular file")), qPrintable(said));
}

void TestWebTls::aCertificateFileOver1MiBIsRefused()
{
    // A good certificate first, then more than 1 MiB: read whole or not at all.
    QTemporaryDir dir;
    const QString big = dir.path() + QStringLiteral("/big.crt");
    QFile in(m_a.cert);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QFile out(big);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(in.readAll());
    out.write(QByteArray(1024 * 1024, '\n'));
    out.close();
    WebConfig config;
    config.certFile = big;
    config.keyFile = m_a.key;
    const QString error = startError(config);
    QVERIFY2(
        error.contains(QLatin1String("--web-cert")) && error.contains(QLatin1String("larger than")),
        qPrintable(error));
}

QTEST_GUILESS_MAIN(TestWebTls)
#include "tst_webtls.moc"
