// SPDX-License-Identifier: Apache-2.0
// The console's command line: parseLaunchOptions() called directly for every
// option's default, range and message, and the real `holdpoint` binary for
// --help/--version (exit 0, no display, no data dir) and for bad options
// (exit 1, the message on stderr, nothing started).

#include "holdpoint/options.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

namespace {

constexpr int WaitMs = 30'000;

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs holdpoint where no display exists: a QApplication there aborts
// (xcb cannot connect), so only a command line that never makes one exits
// normally. $HOLDPOINT_DATA_DIR points at `dataDir`, which does not exist yet.
Run runHoldpoint(const QStringList &args, const QString &dataDir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("HOLDPOINT_TEAM_URL"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    env.insert(QStringLiteral("HOLDPOINT_DATA_DIR"), dataDir);
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HOLDPOINT_BIN), args);
    p.closeWriteChannel();
    if (!p.waitForFinished(WaitMs)) {
        p.kill();
        p.waitForFinished(WaitMs);
        return {};
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

QStringList words(const char *text)
{
    return QString::fromLatin1(text).split(u' ', Qt::SkipEmptyParts);
}

bool writeFile(const QString &path, const QByteArray &bytes, QFileDevice::Permissions mode)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.setPermissions(mode);
}

constexpr QFileDevice::Permissions Private = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

} // namespace

class TestConsoleOptions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();

    void defaults();
    void valuesReachTheConsole();
    void numbersOutOfRange_data();
    void numbersOutOfRange();
    void firstBadNumberIsTheOneNamed();
    void helpAndVersionAskForNothingElse_data();
    void helpAndVersionAskForNothingElse();
    void refusals_data();
    void refusals();
    void environmentFillsIn();
    void ownPolicyFollowsTheDefault();
    void teamSelfKind();
    void webAndNotifierSettingsArriveChecked();
    void wantsWindow_data();
    void wantsWindow();

    void binaryHelpAndVersion_data();
    void binaryHelpAndVersion();
    void binaryRefusesBadOptions_data();
    void binaryRefusesBadOptions();

private:
    // parseLaunchOptions() on a fresh data dir of this test's.
    LaunchRequest parse(const QStringList &args) const;

    QTemporaryDir m_tmp;
    QString m_data;
};

void TestConsoleOptions::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    qunsetenv("HOLDPOINT_TEAM_URL");
    qunsetenv("HOLDPOINT_REVIEWER");
    qunsetenv("HOLDPOINT_DATA_DIR");
}

void TestConsoleOptions::init()
{
    static int n = 0;
    m_data = m_tmp.filePath(QStringLiteral("data-%1").arg(++n));
}

LaunchRequest TestConsoleOptions::parse(const QStringList &args) const
{
    return parseLaunchOptions(
        QStringList { QStringLiteral("holdpoint"), QStringLiteral("--data-dir"), m_data } + args);
}

void TestConsoleOptions::defaults()
{
    const LaunchRequest r = parse({});
    QVERIFY2(r.status == LaunchRequest::Status::Run, qPrintable(r.error));
    const LaunchOptions &o = r.options;
    QCOMPARE(o.console.dataDir, m_data);
    QCOMPARE(o.console.port, quint16(0));
    QCOMPARE(o.console.broker.defaultTimeoutMs, TimeMs(300'000));
    QCOMPARE(o.console.broker.graceMs, TimeMs(60'000));
    QCOMPARE(o.console.broker.sessionRetentionMs, TimeMs(600'000));
    QCOMPARE(o.console.endpoint.maxMessageBytes, qint64(1'048'576));
    QCOMPARE(o.console.endpoint.maxConnections, 512);
    QCOMPARE(o.console.endpoint.helloTimeoutMs, 5000);
    QCOMPARE(o.console.endpoint.idleTimeoutMs, 90'000);
    QVERIFY(o.console.endpoint.allowedOrigins.isEmpty());
    QCOMPARE(o.console.audit.maxSegmentBytes, 64LL * 1024 * 1024);
    QCOMPARE(o.console.audit.keepSegments, 0);
    QVERIFY(!o.team);
    QVERIFY(o.console.policyFiles.isEmpty()); // the built-in default, not watched
    QVERIFY(o.console.policy.chain);
    QVERIFY(!o.headless);
    QVERIFY(!o.demo);
    QVERIFY(!o.front.page);
    QVERIFY(!o.front.ntfy);
    // Reading the options creates nothing.
    QVERIFY(!QFileInfo::exists(m_data));
}

void TestConsoleOptions::valuesReachTheConsole()
{
    const LaunchRequest r
        = parse(words("--headless --demo --port 65535 --timeout 7 --grace 8 --session-retention 9 "
                      "--max-message-bytes 2048 --max-connections 3 --hello-timeout-ms 10 "
                      "--idle-timeout-ms 100 --audit-max-mb 2 --audit-keep 1000000 "
                      "--allow-origin https://a.example --allow-origin https://b.example "
                      "--reviewer alice"));
    QVERIFY2(r.status == LaunchRequest::Status::Run, qPrintable(r.error));
    const LaunchOptions &o = r.options;
    QVERIFY(o.headless);
    QVERIFY(o.demo);
    QCOMPARE(o.console.port, quint16(65535));
    QCOMPARE(o.console.broker.defaultTimeoutMs, TimeMs(7000));
    QCOMPARE(o.console.broker.graceMs, TimeMs(8000));
    QCOMPARE(o.console.broker.sessionRetentionMs, TimeMs(9000));
    QCOMPARE(o.console.endpoint.maxMessageBytes, qint64(2048));
    QCOMPARE(o.console.endpoint.maxConnections, 3);
    QCOMPARE(o.console.endpoint.helloTimeoutMs, 10);
    QCOMPARE(o.console.endpoint.idleTimeoutMs, 100);
    QCOMPARE(o.console.audit.maxSegmentBytes, 2LL * 1024 * 1024);
    QCOMPARE(o.console.audit.keepSegments, 1'000'000);
    QCOMPARE(o.console.endpoint.allowedOrigins, words("https://a.example https://b.example"));
    QCOMPARE(o.console.broker.reviewerName, std::string("alice"));
}

void TestConsoleOptions::numbersOutOfRange_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("range"); // "MIN to MAX"
    const QList<std::array<const char *, 3>> rows {
        { "port", "70000", "0 to 65535" },
        { "port", "-1", "0 to 65535" },
        { "port", "x", "0 to 65535" },
        { "port", "1.5", "0 to 65535" },
        { "port", "", "0 to 65535" },
        { "timeout", "0", "1 to 86400" },
        { "timeout", "86401", "1 to 86400" },
        { "grace", "-1", "0 to 86400" },
        { "max-message-bytes", "1023", "1024 to 268435456" },
        { "max-connections", "0", "1 to 100000" },
        { "hello-timeout-ms", "9", "10 to 600000" },
        { "idle-timeout-ms", "99", "100 to 3600000" },
        { "team-timeout-ms", "99", "100 to 600000" },
        { "session-retention", "604801", "0 to 604800" },
        { "audit-max-mb", "0", "1 to 1048576" },
        { "audit-keep", "1000001", "0 to 1000000" },
    };
    for (const auto &[option, value, range] : rows)
        QTest::addRow("--%s %s", option, value)
            << QString::fromLatin1(option) << QString::fromLatin1(value)
            << QString::fromLatin1(range);
}

void TestConsoleOptions::numbersOutOfRange()
{
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, range);
    const LaunchRequest r = parse({ QStringLiteral("--") + option + u'=' + value });
    QVERIFY(r.status == LaunchRequest::Status::Error);
    QCOMPARE(r.error,
        QStringLiteral("--%1: expected a whole number from %2, got \"%3\"")
            .arg(option, range, value));
    QVERIFY(r.output.isEmpty());
}

void TestConsoleOptions::firstBadNumberIsTheOneNamed()
{
    const LaunchRequest r = parse(words("--audit-keep -5 --port x --timeout 0"));
    QVERIFY(r.status == LaunchRequest::Status::Error);
    QCOMPARE(r.error, QStringLiteral("--port: expected a whole number from 0 to 65535, got \"x\""));
}

void TestConsoleOptions::helpAndVersionAskForNothingElse_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected"); // a line of the output
    const QString version = QStringLiteral("holdpoint " HOLDPOINT_VERSION "\n");
    QTest::newRow("--version") << words("--version") << version;
    QTest::newRow("-v") << words("-v") << version;
    QTest::newRow("--help") << words("--help") << QStringLiteral("  --port <port>");
    QTest::newRow("-h") << words("-h") << QStringLiteral("  --web <address:port>");
    QTest::newRow("--help-all") << words("--help-all") << QStringLiteral("  --notify-ntfy <url>");
    // Neither looks at the other options, nor at the data dir or a policy.
    QTest::newRow("--help with bad values")
        << words("--port 70000 --policy /nonexistent.json --help")
        << QStringLiteral("  --policy <file>");
    QTest::newRow("--version before --help") << words("--help --version") << version;
}

void TestConsoleOptions::helpAndVersionAskForNothingElse()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const LaunchRequest r = parse(args);
    QVERIFY2(r.status == LaunchRequest::Status::Exit, qPrintable(r.error));
    QVERIFY(r.error.isEmpty());
    if (expected.startsWith(u"holdpoint ")) {
        QCOMPARE(r.output, expected);
    } else {
        QVERIFY2(r.output.startsWith(u"Usage: "), qPrintable(r.output));
        QVERIFY2(r.output.contains(u'\n' + expected), qPrintable(r.output));
        // Only what this console takes: no promise of Qt's own options.
        QVERIFY2(!r.output.contains(u"help-all") && !r.output.contains(u"Qt specific"),
            qPrintable(r.output));
    }
    QVERIFY(!QFileInfo::exists(m_data));
}

void TestConsoleOptions::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    QTest::newRow("positional") << words("--headless extra")
                                << QStringLiteral("unexpected argument \"extra\"; see --help");
    QTest::newRow("unknown option")
        << words("--bogus") << QStringLiteral("Unknown option 'bogus'.");
    QTest::newRow("missing value")
        << words("--port") << QStringLiteral("Missing value after '--port'.");
    QTest::newRow("policy missing")
        << words("--policy /nonexistent/missing.json")
        << QStringLiteral("/nonexistent/missing.json: cannot read: No such file or directory");
    QTest::newRow("team URL with a password")
        << words("--team postgresql://u:secret@db.example.com/holdpoint")
        << QStringLiteral(
               "the team URL holds a password, which would show in the process list and the "
               "shell's "
               "history: put it in ~/.pgpass (or the file PGPASSFILE names), or in PGPASSWORD");
    QTest::newRow("--web-* without --web") << words(
        "--web-cert /nonexistent") << QStringLiteral("the --web-* options need --web ADDRESS:PORT");
    QTest::newRow("--web not an address") << words("--web example.com:8765") << QString();
    QTest::newRow("--web open without TLS")
        << words("--web 0.0.0.0:0")
        << QStringLiteral("--web 0.0.0.0 is not a loopback address, so it needs TLS: add "
                          "--web-cert and --web-key, "
                          "or listen on 127.0.0.1 behind a reverse proxy that terminates TLS "
                          "(README, \"Approve "
                          "from your phone\")");
    QTest::newRow("--web-trusted-proxy *")
        << words("--web 127.0.0.1:0 --web-auth-header X-User --web-trusted-proxy *")
        << QStringLiteral(
               "--web-trusted-proxy: \"*\" is not one address; every proxy is listed by its own "
               "address, and * is refused");
    QTest::newRow("--web-cert without --web-key")
        << words("--web 127.0.0.1:0 --web-cert /nonexistent")
        << QStringLiteral("--web-cert and --web-key go together");
    QTest::newRow("--notify-ntfy-token without --notify-ntfy")
        << words("--notify-ntfy-token /nonexistent")
        << QStringLiteral("--notify-ntfy-token needs --notify-ntfy URL");
    QTest::newRow("--notify-ntfy not http")
        << words("--notify-ntfy ftp://ntfy.example.com/topic")
        << QStringLiteral("ntfy topic URL: the scheme must be https or http, not \"ftp\"");
}

// Each refused with its own message, before anything is created.
void TestConsoleOptions::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    const LaunchRequest r = parse(args);
    QVERIFY(r.status == LaunchRequest::Status::Error);
    if (error.isEmpty())
        QVERIFY(!r.error.isEmpty());
    else
        QCOMPARE(r.error, error);
    QVERIFY(!QFileInfo::exists(m_data));
}

void TestConsoleOptions::environmentFillsIn()
{
    qputenv("HOLDPOINT_REVIEWER", "from-env");
    qputenv("HOLDPOINT_DATA_DIR", QFile::encodeName(m_data + QStringLiteral("/env")));
    const LaunchRequest fromEnv = parseLaunchOptions(words("holdpoint"));
    const LaunchRequest flagWins = parseLaunchOptions(words("holdpoint --reviewer bob --data-dir")
        + QStringList { m_data + QStringLiteral("/flag") });
    qunsetenv("HOLDPOINT_REVIEWER");
    qunsetenv("HOLDPOINT_DATA_DIR");
    QVERIFY2(fromEnv.status == LaunchRequest::Status::Run, qPrintable(fromEnv.error));
    QCOMPARE(fromEnv.options.console.broker.reviewerName, std::string("from-env"));
    QCOMPARE(fromEnv.options.console.dataDir, m_data + QStringLiteral("/env"));
    QVERIFY2(flagWins.status == LaunchRequest::Status::Run, qPrintable(flagWins.error));
    QCOMPARE(flagWins.options.console.broker.reviewerName, std::string("bob"));
    QCOMPARE(flagWins.options.console.dataDir, m_data + QStringLiteral("/flag"));
}

// Without --policy, the rules a reviewer made "always" (<data dir>/policy.json)
// come after the built-in default; with --policy, only the files given.
void TestConsoleOptions::ownPolicyFollowsTheDefault()
{
    QVERIFY(QDir().mkpath(m_data));
    const QString own = m_data + QStringLiteral("/policy.json");
    QVERIFY(writeFile(own, R"({"default": "deny"})", Private));
    const LaunchRequest implicit = parse({});
    QVERIFY2(implicit.status == LaunchRequest::Status::Run, qPrintable(implicit.error));
    QCOMPARE(implicit.options.console.policyFiles, QStringList({ defaultPolicyPath(), own }));
    QCOMPARE(implicit.options.console.policy.defaultAction, DefaultAction::Deny);

    const QString other = m_tmp.filePath(QStringLiteral("other.json"));
    QVERIFY(writeFile(other, R"({"default": "allow"})", Private));
    const LaunchRequest given = parse({ QStringLiteral("--policy"), other });
    QVERIFY2(given.status == LaunchRequest::Status::Run, qPrintable(given.error));
    QCOMPARE(given.options.console.policyFiles, QStringList { other });
    QCOMPARE(given.options.console.policy.defaultAction, DefaultAction::Allow);

    QVERIFY(writeFile(own, R"({"default": "sometimes"})", Private));
    const LaunchRequest invalid = parse({});
    QVERIFY(invalid.status == LaunchRequest::Status::Error);
    QVERIFY2(
        invalid.error.startsWith(own + QStringLiteral(": default: unknown action \"sometimes\"")),
        qPrintable(invalid.error));
}

void TestConsoleOptions::teamSelfKind()
{
    const QString url = QStringLiteral("host=db.example.com dbname=holdpoint");
    const LaunchRequest gateway
        = parse({ QStringLiteral("--headless"), QStringLiteral("--team"), url });
    QVERIFY2(gateway.status == LaunchRequest::Status::Run, qPrintable(gateway.error));
    QVERIFY(gateway.options.team);
    QCOMPARE(gateway.options.team->url, url.toStdString());
    QCOMPARE(gateway.options.team->self.kind, std::string("gateway"));
    QVERIFY(!gateway.options.team->self.host.empty());
    QCOMPARE(gateway.options.team->connection.answerTimeoutMs, TimeMs(5'000));
    const LaunchRequest patient = parse({ QStringLiteral("--team"), url,
        QStringLiteral("--team-timeout-ms"), QStringLiteral("20000") });
    QVERIFY2(patient.status == LaunchRequest::Status::Run, qPrintable(patient.error));
    QCOMPARE(patient.options.team->connection.answerTimeoutMs, TimeMs(20'000));

    qputenv("HOLDPOINT_TEAM_URL", url.toUtf8());
    const LaunchRequest console = parse({});
    qunsetenv("HOLDPOINT_TEAM_URL");
    QVERIFY2(console.status == LaunchRequest::Status::Run, qPrintable(console.error));
    QVERIFY(console.options.team);
    QCOMPARE(console.options.team->self.kind, std::string("console"));
}

// The web front gets settings read and checked: the address parsed, the
// proxy secret and the ntfy token read from their files.
void TestConsoleOptions::webAndNotifierSettingsArriveChecked()
{
    const QString secret = m_tmp.filePath(QStringLiteral("proxy-secret"));
    QVERIFY(writeFile(secret, "0123456789abcdef-proxy\n", Private));
    const QString token = m_tmp.filePath(QStringLiteral("ntfy-token"));
    QVERIFY(writeFile(token, "tk_secret_token\n", Private));
    const LaunchRequest r
        = parse(words("--web 127.0.0.1:8765 --web-origin https://review.example.com "
                      "--web-auth-header X-Forwarded-User --web-trusted-proxy 127.0.0.1 "
                      "--notify-ntfy https://ntfy.example.com/holdpoint-alice")
            + QStringList { QStringLiteral("--web-proxy-secret-file"), secret,
                QStringLiteral("--notify-ntfy-token"), token });
    QVERIFY2(r.status == LaunchRequest::Status::Run, qPrintable(r.error));
    QVERIFY(r.options.front.page);
    const WebConfig &page = *r.options.front.page;
    QCOMPARE(page.address, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(page.port, quint16(8765));
    QCOMPARE(page.origins, QStringList { QStringLiteral("https://review.example.com") });
    QCOMPARE(page.authHeader, QByteArray("X-Forwarded-User"));
    QCOMPARE(page.trustedProxies, QList<QHostAddress> { QHostAddress(QHostAddress::LocalHost) });
    QCOMPARE(page.proxySecret, QByteArray("0123456789abcdef-proxy"));
    QVERIFY(r.options.front.ntfy);
    QCOMPARE(r.options.front.ntfy->topicUrl,
        QUrl(QStringLiteral("https://ntfy.example.com/holdpoint-alice")));
    QCOMPARE(r.options.front.ntfy->token, QByteArray("tk_secret_token"));
    QVERIFY(r.options.front.ntfy->pageOrigin.isEmpty()); // the page's, once it listens

    // A secret others can read, or too short, is refused.
    QVERIFY(writeFile(secret, "0123456789abcdef-proxy\n", Private | QFileDevice::ReadOther));
    const QStringList withSecret
        = words("--web 127.0.0.1:0 --web-auth-header X-User --web-trusted-proxy 127.0.0.1")
        + QStringList { QStringLiteral("--web-proxy-secret-file"), secret };
    const LaunchRequest readable = parse(withSecret);
    QVERIFY(readable.status == LaunchRequest::Status::Error);
    QVERIFY2(readable.error.startsWith(u"--web-proxy-secret-file: "), qPrintable(readable.error));
    QVERIFY(writeFile(secret, "short\n", Private));
    const LaunchRequest tooShort = parse(withSecret);
    QVERIFY(tooShort.status == LaunchRequest::Status::Error);
    QCOMPARE(tooShort.error,
        QStringLiteral("--web-proxy-secret-file: the secret must be at least 16 characters"));
    // A loopback proxy without any secret: every local process is loopback too.
    const LaunchRequest noSecret
        = parse(words("--web 127.0.0.1:0 --web-auth-header X-User --web-trusted-proxy 127.0.0.1"));
    QVERIFY(noSecret.status == LaunchRequest::Status::Error);
    QVERIFY2(
        noSecret.error.startsWith(u"--web-trusted-proxy on loopback needs --web-proxy-secret-file"),
        qPrintable(noSecret.error));
}

void TestConsoleOptions::wantsWindow_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("window");
    QTest::newRow("nothing") << QStringList {} << true;
    QTest::newRow("--demo --port 0") << words("--demo --port 0") << true;
    QTest::newRow("--headless") << words("--headless") << false;
    QTest::newRow("--port 1 --headless") << words("--port 1 --headless") << false;
    for (const char *flag : { "--help", "-h", "--help-all", "--version", "-v" })
        QTest::addRow("%s", flag) << words("--demo") + QStringList { QString::fromLatin1(flag) }
                                  << false;
    // a value, not the flag
    QTest::newRow("--reviewer=--headless") << words("--reviewer=--headless") << true;
}

void TestConsoleOptions::wantsWindow()
{
    QFETCH(QStringList, args);
    QFETCH(bool, window);
    std::vector<QByteArray> bytes { QByteArray("holdpoint") };
    for (const QString &a : std::as_const(args))
        bytes.push_back(a.toLocal8Bit());
    std::vector<char *> argv;
    for (QByteArray &b : bytes)
        argv.push_back(b.data());
    QCOMPARE(holdpoint::wantsWindow(int(argv.size()), argv.data()), window);
}

void TestConsoleOptions::binaryHelpAndVersion_data()
{
    QTest::addColumn<QString>("flag");
    for (const char *flag : { "--help", "-h", "--version", "-v" })
        QTest::newRow(flag) << QString::fromLatin1(flag);
}

// Exit 0 with the text on stdout, where no display exists, without creating
// the data dir.
void TestConsoleOptions::binaryHelpAndVersion()
{
    QFETCH(QString, flag);
    const QString data = m_data;
    const Run r = runHoldpoint({ flag }, data);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    if (flag == u"--version" || flag == u"-v") {
        QCOMPARE(r.out, QByteArray("holdpoint " HOLDPOINT_VERSION "\n"));
    } else {
        QVERIFY2(r.out.startsWith("Usage: "), r.out.constData());
        QVERIFY2(r.out.contains("[options]\n"), r.out.constData());
        for (const char *line : { "\n  --headless ", "\n  --port <port> ", "\n  --policy <file> ",
                 "\n  --web <address:port> ", "\n  --notify-ntfy <url> ", "\n  -v, --version " })
            QVERIFY2(r.out.contains(line), line);
    }
    QVERIFY(!QFileInfo::exists(data));
}

void TestConsoleOptions::binaryRefusesBadOptions_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("err");
    QTest::newRow("--port 70000")
        << words("--port 70000")
        << QByteArray(
               "holdpoint: --port: expected a whole number from 0 to 65535, got \"70000\"\n");
    QTest::newRow("--timeout 0")
        << words("--timeout 0")
        << QByteArray("holdpoint: --timeout: expected a whole number from 1 to 86400, got \"0\"\n");
    QTest::newRow("--policy missing.json")
        << words("--policy missing.json")
        << QByteArray("holdpoint: missing.json: cannot read: No such file or directory\n");
    QTest::newRow("unknown option")
        << words("--bogus") << QByteArray("holdpoint: Unknown option 'bogus'.\n");
    QTest::newRow("positional") << words(
        "stray") << QByteArray("holdpoint: unexpected argument \"stray\"; see --help\n");
    QTest::newRow("--web-* without --web")
        << words("--web-key /nonexistent")
        << QByteArray("holdpoint: the --web-* options need --web ADDRESS:PORT\n");
}

// Exit 1, the message alone on stderr, nothing on stdout. The data dir is
// never created: the console makes it before it listens, so nothing
// listened, and no endpoint.json sent an agent to it.
void TestConsoleOptions::binaryRefusesBadOptions()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, err);
    const QString data = m_data;
    const Run r = runHoldpoint(QStringList { QStringLiteral("--headless") } + args, data);
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err, err);
    QVERIFY(r.out.isEmpty());
    QVERIFY(!QFileInfo::exists(data));
}

QTEST_GUILESS_MAIN(TestConsoleOptions)
#include "tst_consoleoptions.moc"
