// SPDX-License-Identifier: Apache-2.0
#include "options.h"

#include "common/datadir.h"
#include "common/reviewertokens.h"
#include "policy/policy.h"
#include "team/teamdb.h"
#include "team/teamstore.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QSysInfo>

#include <string_view>

namespace holdpoint {

namespace {

// A proxy secret file holds one line; anything longer is not one.
constexpr qint64 MaxProxySecretBytes = 4096;
constexpr qsizetype MinProxySecretChars = 16;

QCommandLineOption option(const char *name, const char *description,
    const char *valueName = nullptr, const char *defaultValue = nullptr)
{
    return QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(description),
        valueName ? QString::fromLatin1(valueName) : QString(),
        defaultValue ? QString::fromLatin1(defaultValue) : QString());
}

// Every option, in the order --help lists them.
struct Options
{
    QCommandLineOption headless = option(
        "headless", "Run without a window; decide through the reviewer role (holdpoint-ctl).");
    QCommandLineOption demo
        = option("demo", "Also start a simulated agent that sends a realistic mix of calls.");
    QCommandLineOption port
        = option("port", "Port on 127.0.0.1 (0 picks a free one).", "port", "0");
    QCommandLineOption dataDir = option("data-dir",
        "Data directory (default: $HOLDPOINT_DATA_DIR, else the platform's app data dir).", "dir");
    QCommandLineOption policy = option("policy",
        "Policy file (repeatable; later files add to and override earlier ones). "
        "Default: the shipped default policy, which asks a person.",
        "file");
    QCommandLineOption timeout = option("timeout",
        "Seconds a call waits for a person before it is denied (default 300).", "seconds", "300");
    QCommandLineOption grace = option("grace",
        "Seconds a disconnected agent has to come back for its pending calls (default 60).",
        "seconds", "60");
    QCommandLineOption origin = option("allow-origin",
        "Admit WebSocket handshakes with exactly this Origin (repeatable; default none).",
        "origin");
    QCommandLineOption maxMessage = option("max-message-bytes",
        "Largest message accepted; larger ones close with 1009 (default 1048576).", "bytes",
        "1048576");
    QCommandLineOption maxConnections
        = option("max-connections", "Most simultaneous connections (default 512).", "n", "512");
    QCommandLineOption helloTimeout = option("hello-timeout-ms",
        "Milliseconds a new connection has to send hello (default 5000).", "ms", "5000");
    QCommandLineOption auditMaxMb = option("audit-max-mb",
        "Start a new audit log file once one passes this many MiB (default 64).", "MiB", "64");
    QCommandLineOption auditKeep = option("audit-keep",
        "Keep this many audit log files, deleting the oldest (default 0: keep all).", "n", "0");
    QCommandLineOption idleTimeout = option("idle-timeout-ms",
        "Close a connection silent this long: no message and no answer to pings "
        "(default 90000).",
        "ms", "90000");
    QCommandLineOption retention = option("session-retention",
        "Seconds an agent session with no connection and nothing pending is "
        "remembered, so re-sent calls get their decisions (default 600).",
        "seconds", "600");
    QCommandLineOption team = option("team",
        "Join a team: share one queue and audit in this PostgreSQL database (a "
        "libpq connection string or URI; default $HOLDPOINT_TEAM_URL). The password "
        "goes in ~/.pgpass, PGPASSFILE or PGPASSWORD.",
        "url");
    QCommandLineOption teamTimeout = option("team-timeout-ms",
        "Milliseconds a statement to the team database may go unanswered before the connection "
        "counts as lost and is opened again (default 5000).",
        "ms", "5000");
    QCommandLineOption agentGroup = option("agent-group",
        "Let members of this OS group connect agents: the data directory becomes 0710 and "
        "endpoint.json (address and agent token) 0640, both the group's; the reviewer token "
        "and the audit log stay yours alone.",
        "group");
    QCommandLineOption reviewer = option("reviewer",
        "Who decides at this console: decisions carry decided_by \"human:NAME\" "
        "(default $HOLDPOINT_REVIEWER, else the OS user).",
        "name");

    // The reviewer page (--web) and the notifier (--notify-ntfy).
    QCommandLineOption web = option("web",
        "Serve the reviewer page for phones and browsers on ADDRESS:PORT (e.g. 127.0.0.1:8765). "
        "Any address but loopback needs --web-cert and --web-key.",
        "address:port");
    QCommandLineOption webCert
        = option("web-cert", "The page's TLS certificate chain (PEM).", "file");
    QCommandLineOption webKey
        = option("web-key", "The page's TLS private key (PEM, unencrypted).", "file");
    QCommandLineOption webOrigin = option("web-origin",
        "A public origin the page is reached at through a reverse proxy, e.g. "
        "https://review.example.com (repeatable).",
        "origin");
    QCommandLineOption webAuthHeader = option("web-auth-header",
        "Single sign-on: the header in which a trusted proxy names the reviewer "
        "(e.g. X-Forwarded-User).",
        "name");
    QCommandLineOption webTrustedProxy = option("web-trusted-proxy",
        "The address of a proxy whose --web-auth-header is believed (repeatable; never *).",
        "address");
    QCommandLineOption webProxySecret = option("web-proxy-secret-file",
        "A file (mode 0600) with the secret the trusted proxy sends in X-Holdpoint-Proxy-Secret; "
        "required when the proxy is on loopback, where every local process is too.",
        "file");
    QCommandLineOption ntfy = option("notify-ntfy",
        "Tell reviewers away from the desk that a call waits: publish to this ntfy topic URL "
        "(e.g. https://ntfy.example.com/holdpoint-alice). Never with the call's arguments.",
        "url");
    QCommandLineOption ntfyToken
        = option("notify-ntfy-token", "A file (mode 0600) holding the ntfy access token.", "file");
    QCommandLineOption metrics = option("metrics",
        "Serve Prometheus metrics (/metrics) and health probes (/healthz; /readyz: the audit "
        "log takes writes and, in team mode, the team link is up) over HTTP on ADDRESS:PORT, a "
        "loopback address (e.g. 127.0.0.1:9788; port 0 picks one). Scrape from elsewhere "
        "through a local agent or a proxy that terminates TLS.",
        "address:port");

    QList<QCommandLineOption> all() const
    {
        return { headless, demo, port, dataDir, policy, timeout, grace, origin, maxMessage,
            maxConnections, helloTimeout, auditMaxMb, auditKeep, idleTimeout, retention, team,
            teamTimeout, agentGroup, reviewer, web, webCert, webKey, webOrigin, webAuthHeader,
            webTrustedProxy, webProxySecret, ntfy, ntfyToken, metrics };
    }
};

// Reads whole numbers in a range; the first one out of range (or not a
// number) is the error, and the rest are not looked at.
class Numbers
{
public:
    explicit Numbers(const QCommandLineParser &parser)
        : m_parser(parser)
    { }

    qint64 read(const QCommandLineOption &o, qint64 min, qint64 max)
    {
        if (!m_error.isEmpty())
            return min;
        bool ok = false;
        const qint64 v = m_parser.value(o).toLongLong(&ok);
        if (ok && v >= min && v <= max)
            return v;
        m_error = QStringLiteral("--%1: expected a whole number from %2 to %3, got \"%4\"")
                      .arg(o.names().constFirst(), QString::number(min), QString::number(max),
                          m_parser.value(o));
        return min;
    }
    const QString &error() const { return m_error; }

private:
    const QCommandLineParser &m_parser;
    QString m_error;
};

bool readNumbers(
    const QCommandLineParser &parser, const Options &o, ConsoleOptions *console, QString *error)
{
    Numbers n(parser);
    console->port = quint16(n.read(o.port, 0, 65535));
    console->broker.defaultTimeoutMs = n.read(o.timeout, 1, 24 * 3600) * 1000;
    console->broker.graceMs = n.read(o.grace, 0, 24 * 3600) * 1000;
    console->endpoint.maxMessageBytes = n.read(o.maxMessage, 1024, 256LL * 1024 * 1024);
    console->endpoint.maxConnections = int(n.read(o.maxConnections, 1, 100000));
    console->endpoint.helloTimeoutMs = int(n.read(o.helloTimeout, 10, 600000));
    console->broker.sessionRetentionMs = n.read(o.retention, 0, 7 * 24 * 3600) * 1000;
    console->endpoint.idleTimeoutMs = int(n.read(o.idleTimeout, 100, 3'600'000));
    console->audit.maxSegmentBytes = n.read(o.auditMaxMb, 1, 1024 * 1024) * 1024 * 1024;
    console->audit.keepSegments = int(n.read(o.auditKeep, 0, 1000000));
    *error = n.error();
    return error->isEmpty();
}

// --team, else $HOLDPOINT_TEAM_URL. The URL is checked here (no password in
// it, one libpq can parse); the database is not asked until the console starts.
bool readTeam(const QCommandLineParser &parser, const Options &o,
    std::optional<team::TeamConfig> *team, QString *error)
{
    const QString url
        = parser.isSet(o.team) ? parser.value(o.team) : qEnvironmentVariable("HOLDPOINT_TEAM_URL");
    Numbers n(parser);
    const TimeMs answerTimeoutMs = n.read(o.teamTimeout, 100, 600'000);
    if (!n.error().isEmpty()) {
        *error = n.error();
        return false;
    }
    if (url.isEmpty())
        return true;
    try {
        team::checkConnectionString(url.toStdString());
    } catch (const team::TeamError &e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
    team::TeamConfig t;
    t.url = url.toStdString();
    t.connection.answerTimeoutMs = answerTimeoutMs;
    t.self.kind = parser.isSet(o.headless) ? "gateway" : "console";
    t.self.host = QSysInfo::machineHostName().toStdString();
    *team = std::move(t);
    return true;
}

bool readPage(
    const QCommandLineParser &parser, const Options &o, WebFrontOptions *front, QString *error)
{
    const bool anyWebOption = parser.isSet(o.webCert) || parser.isSet(o.webKey)
        || parser.isSet(o.webOrigin) || parser.isSet(o.webAuthHeader)
        || parser.isSet(o.webTrustedProxy) || parser.isSet(o.webProxySecret);
    if (!parser.isSet(o.web)) {
        if (anyWebOption)
            *error = QStringLiteral("the --web-* options need --web ADDRESS:PORT");
        return !anyWebOption;
    }
    WebConfig config;
    if (!parseWebAddress(parser.value(o.web), &config.address, &config.port, error))
        return false;
    config.certFile = parser.value(o.webCert);
    config.keyFile = parser.value(o.webKey);
    config.origins = parser.values(o.webOrigin);
    config.authHeader = parser.value(o.webAuthHeader).toLatin1();
    for (const QString &proxy : parser.values(o.webTrustedProxy)) {
        QHostAddress address;
        if (proxy.trimmed() == QLatin1String("*") || !address.setAddress(proxy.trimmed())) {
            *error = QStringLiteral(
                "--web-trusted-proxy: \"%1\" is not one address; every proxy is listed by "
                "its own address, and * is refused")
                         .arg(proxy);
            return false;
        }
        config.trustedProxies << address;
    }
    if (parser.isSet(o.webProxySecret)) {
        QByteArray secret;
        if (!readPrivateFile(parser.value(o.webProxySecret), MaxProxySecretBytes, &secret, error)) {
            *error = QStringLiteral("--web-proxy-secret-file: ") + *error;
            return false;
        }
        config.proxySecret = secret.trimmed();
        if (config.proxySecret.size() < MinProxySecretChars) {
            *error = QStringLiteral(
                "--web-proxy-secret-file: the secret must be at least 16 characters");
            return false;
        }
    }
    // The certificate and key files are read when the page starts; what a
    // person typed is checked now, before anything listens.
    if (const QString problem = webConfigProblem(config); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    front->page = std::move(config);
    return true;
}

bool readNotifier(
    const QCommandLineParser &parser, const Options &o, WebFrontOptions *front, QString *error)
{
    if (!parser.isSet(o.ntfy)) {
        if (parser.isSet(o.ntfyToken))
            *error = QStringLiteral("--notify-ntfy-token needs --notify-ntfy URL");
        return !parser.isSet(o.ntfyToken);
    }
    front->ntfy = NtfyConfig::fromOptions(
        NtfyOptions { parser.value(o.ntfy), parser.value(o.ntfyToken), QString() }, error);
    return front->ntfy.has_value();
}

bool readMetrics(
    const QCommandLineParser &parser, const Options &o, LaunchOptions *launch, QString *error)
{
    if (!parser.isSet(o.metrics))
        return true;
    metrics::Address address;
    if (!metrics::parseAddress(parser.value(o.metrics), &address, error))
        return false;
    launch->metrics = address;
    return true;
}

// An invalid policy stops the console: it never runs on a policy it could
// not read. Without --policy: the built-in default, then the rules a
// reviewer made "always" in the console (policy.json in the data dir), if any.
bool readPolicy(
    const QCommandLineParser &parser, const Options &o, ConsoleOptions *console, QString *error)
{
    QStringList files = parser.values(o.policy);
    if (const QString own = console->dataDir + QStringLiteral("/policy.json");
        files.isEmpty() && QFileInfo::exists(own))
        files = QStringList { defaultPolicyPath(), own };
    PolicyResult loaded = loadPolicyFiles(files);
    if (!loaded.policy) {
        *error = loaded.error;
        return false;
    }
    console->policy = std::move(*loaded.policy);
    console->policyFiles = files;
    return true;
}

LaunchRequest failed(const QString &error)
{
    LaunchRequest r;
    r.status = LaunchRequest::Status::Error;
    r.error = error;
    return r;
}

LaunchRequest exitWith(const QString &output)
{
    LaunchRequest r;
    r.status = LaunchRequest::Status::Exit;
    r.output = output;
    return r;
}

} // namespace

LaunchRequest parseLaunchOptions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Holdpoint approval console: agents submit tool calls over a loopback WebSocket; "
        "a person approves, denies or edits them before they run."));
    // Not addHelpOption(): its --help-all promises Qt's own options, which
    // need the window's application object. --help-all still works, as
    // --help, and is not listed.
    const QCommandLineOption help({ QStringLiteral("h"), QStringLiteral("help") },
        QStringLiteral("Displays help on commandline options."));
    QCommandLineOption helpAll(QStringLiteral("help-all"));
    helpAll.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOptions({ help, helpAll });
    const QCommandLineOption version = parser.addVersionOption();
    const Options o;
    parser.addOptions(o.all());

    // As QCommandLineParser::process() does, in its order, but returned
    // rather than printed and exited on, so a test can look.
    if (!parser.parse(arguments))
        return failed(parser.errorText());
    if (parser.isSet(version))
        return exitWith(QStringLiteral("holdpoint " HOLDPOINT_VERSION "\n"));
    if (parser.isSet(help) || parser.isSet(helpAll))
        return exitWith(parser.helpText());
    if (!parser.positionalArguments().isEmpty())
        return failed(QStringLiteral("unexpected argument \"%1\"; see --help")
                          .arg(parser.positionalArguments().constFirst()));

    LaunchRequest r;
    r.status = LaunchRequest::Status::Run;
    LaunchOptions &launch = r.options;
    launch.headless = parser.isSet(o.headless);
    launch.demo = parser.isSet(o.demo);
    ConsoleOptions &console = launch.console;
    console.dataDir = resolveDataDir(parser.value(o.dataDir));
    console.endpoint.allowedOrigins = parser.values(o.origin);
    console.agentGroup = parser.value(o.agentGroup);
    // Checked here too, so a group that does not exist creates nothing.
    if (QString why; parser.isSet(o.agentGroup) && !groupId(console.agentGroup, &why))
        return failed(why);
    console.broker.reviewerName = parser.isSet(o.reviewer)
        ? parser.value(o.reviewer).toStdString()
        : qEnvironmentVariable("HOLDPOINT_REVIEWER").toStdString();
    QString error;
    if (!readNumbers(parser, o, &console, &error) || !readTeam(parser, o, &launch.team, &error)
        || !readPage(parser, o, &launch.front, &error)
        || !readNotifier(parser, o, &launch.front, &error)
        || !readMetrics(parser, o, &launch, &error) || !readPolicy(parser, o, &console, &error))
        return failed(error);
    return r;
}

bool wantsWindow(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--headless" || a == "--version" || a == "-v" || a == "--help" || a == "-h"
            || a == "--help-all")
            return false;
    }
    return true;
}

std::unique_ptr<SharedQueue> teamStore(const LaunchOptions &options, Clock *clock)
{
    if (!options.team)
        return nullptr;
    team::TeamConfig t = *options.team;
    const std::string &requested = options.console.broker.reviewerName;
    if (t.self.reviewer.empty())
        t.self.reviewer = requested.empty() ? currentOsUser() : requested;
    if (t.requestedReviewer.empty())
        t.requestedReviewer = requested;
    t.self.graceMs = options.console.broker.graceMs;
    return std::make_unique<team::TeamStore>(std::move(t), clock);
}

} // namespace holdpoint
