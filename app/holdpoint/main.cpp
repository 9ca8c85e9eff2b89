// SPDX-License-Identifier: Apache-2.0
// holdpoint: the approval console. With a window by default, --headless
// without one (reviewers then decide through the reviewer role).

#include "client/demoagent.h"
#include "common/datadir.h"
#include "common/signals.h"
#include "engine/consolecore.h"
#include "guardrails/chain.h"
#include "mainwindow.h"
#include "webfront.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSysInfo>
#include <cstdio>
#include <memory>

using namespace holdpoint;

namespace {

bool wantsHeadless(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--headless" || a == "--version" || a == "-v" || a == "--help" || a == "-h")
            return true;
    }
    return false;
}

int fail(const QString &message)
{
    std::fprintf(stderr, "holdpoint: %s\n", qPrintable(message));
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> app = wantsHeadless(argc, argv)
        ? std::make_unique<QCoreApplication>(argc, argv)
        : std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("holdpoint"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HOLDPOINT_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Holdpoint approval console: agents submit tool calls over a loopback WebSocket; "
        "a person approves, denies or edits them before they run."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption headless(QStringLiteral("headless"),
        QStringLiteral("Run without a window; decide through the reviewer role (holdpoint-ctl)."));
    const QCommandLineOption demo(QStringLiteral("demo"),
        QStringLiteral("Also start a simulated agent that sends a realistic mix of calls."));
    const QCommandLineOption port(QStringLiteral("port"),
        QStringLiteral("Port on 127.0.0.1 (0 picks a free one)."), QStringLiteral("port"),
        QStringLiteral("0"));
    const QCommandLineOption dataDir(QStringLiteral("data-dir"),
        QStringLiteral(
            "Data directory (default: $HOLDPOINT_DATA_DIR, else the platform's app data dir)."),
        QStringLiteral("dir"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
        QStringLiteral("Seconds a call waits for a person before it is denied (default 300)."),
        QStringLiteral("seconds"), QStringLiteral("300"));
    const QCommandLineOption grace(QStringLiteral("grace"),
        QStringLiteral(
            "Seconds a disconnected agent has to come back for its pending calls (default 60)."),
        QStringLiteral("seconds"), QStringLiteral("60"));
    const QCommandLineOption origin(QStringLiteral("allow-origin"),
        QStringLiteral(
            "Admit WebSocket handshakes with exactly this Origin (repeatable; default none)."),
        QStringLiteral("origin"));
    const QCommandLineOption maxMessage(QStringLiteral("max-message-bytes"),
        QStringLiteral("Largest message accepted; larger ones close with 1009 (default 1048576)."),
        QStringLiteral("bytes"), QStringLiteral("1048576"));
    const QCommandLineOption maxConnections(QStringLiteral("max-connections"),
        QStringLiteral("Most simultaneous connections (default 512)."), QStringLiteral("n"),
        QStringLiteral("512"));
    const QCommandLineOption policy(QStringLiteral("policy"),
        QStringLiteral("Policy file (repeatable; later files add to and override earlier ones). "
                       "Default: the shipped default policy, which asks a person."),
        QStringLiteral("file"));
    const QCommandLineOption helloTimeout(QStringLiteral("hello-timeout-ms"),
        QStringLiteral("Milliseconds a new connection has to send hello (default 5000)."),
        QStringLiteral("ms"), QStringLiteral("5000"));
    const QCommandLineOption idleTimeout(QStringLiteral("idle-timeout-ms"),
        QStringLiteral("Close a connection silent this long: no message and no answer to pings "
                       "(default 90000)."),
        QStringLiteral("ms"), QStringLiteral("90000"));
    const QCommandLineOption retention(QStringLiteral("session-retention"),
        QStringLiteral("Seconds an agent session with no connection and nothing pending is "
                       "remembered, so re-sent calls get their decisions (default 600)."),
        QStringLiteral("seconds"), QStringLiteral("600"));
    const QCommandLineOption auditMaxMb(QStringLiteral("audit-max-mb"),
        QStringLiteral("Start a new audit log file once one passes this many MiB (default 64)."),
        QStringLiteral("MiB"), QStringLiteral("64"));
    const QCommandLineOption auditKeep(QStringLiteral("audit-keep"),
        QStringLiteral(
            "Keep this many audit log files, deleting the oldest (default 0: keep all)."),
        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption team(QStringLiteral("team"),
        QStringLiteral("Join a team: share one queue and audit in this PostgreSQL database (a "
                       "libpq connection string or URI; default $HOLDPOINT_TEAM_URL). The password "
                       "goes in ~/.pgpass, PGPASSFILE or PGPASSWORD."),
        QStringLiteral("url"));
    const QCommandLineOption reviewer(QStringLiteral("reviewer"),
        QStringLiteral("Who decides at this console: decisions carry decided_by \"human:NAME\" "
                       "(default $HOLDPOINT_REVIEWER, else the OS user)."),
        QStringLiteral("name"));
    parser.addOptions(
        { headless, demo, port, dataDir, policy, timeout, grace, origin, maxMessage, maxConnections,
            helloTimeout, auditMaxMb, auditKeep, idleTimeout, retention, team, reviewer });
    WebFront front(&parser);
    parser.process(*app);

    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument \"%1\"; see --help")
                        .arg(parser.positionalArguments().first()));

    auto number = [&](const QCommandLineOption &o, qint64 min, qint64 max, bool *ok) {
        const qint64 v = parser.value(o).toLongLong(ok);
        if (*ok && (v < min || v > max))
            *ok = false;
        if (!*ok)
            std::fprintf(stderr,
                "holdpoint: --%s: expected a whole number from %lld to %lld, got \"%s\"\n",
                qPrintable(o.names().first()), min, max, qPrintable(parser.value(o)));
        return v;
    };
    bool ok = true;
    ConsoleOptions options;
    options.dataDir = resolveDataDir(parser.value(dataDir));
    options.port = quint16(number(port, 0, 65535, &ok));
    if (ok)
        options.broker.defaultTimeoutMs = number(timeout, 1, 24 * 3600, &ok) * 1000;
    if (ok)
        options.broker.graceMs = number(grace, 0, 24 * 3600, &ok) * 1000;
    if (ok)
        options.endpoint.maxMessageBytes = number(maxMessage, 1024, 256LL * 1024 * 1024, &ok);
    if (ok)
        options.endpoint.maxConnections = int(number(maxConnections, 1, 100000, &ok));
    if (ok)
        options.endpoint.helloTimeoutMs = int(number(helloTimeout, 10, 600000, &ok));
    if (ok)
        options.broker.sessionRetentionMs = number(retention, 0, 7 * 24 * 3600, &ok) * 1000;
    if (ok)
        options.endpoint.idleTimeoutMs = int(number(idleTimeout, 100, 3'600'000, &ok));
    if (ok)
        options.audit.maxSegmentBytes = number(auditMaxMb, 1, 1024 * 1024, &ok) * 1024 * 1024;
    if (ok)
        options.audit.keepSegments = int(number(auditKeep, 0, 1000000, &ok));
    if (!ok)
        return 1;
    options.endpoint.allowedOrigins = parser.values(origin);
    options.broker.reviewerName = parser.isSet(reviewer)
        ? parser.value(reviewer).toStdString()
        : qEnvironmentVariable("HOLDPOINT_REVIEWER").toStdString();
    if (const QString url
        = parser.isSet(team) ? parser.value(team) : qEnvironmentVariable("HOLDPOINT_TEAM_URL");
        !url.isEmpty()) {
        try {
            team::checkConnectionString(url.toStdString());
        } catch (const team::TeamError &e) {
            return fail(QString::fromUtf8(e.what()));
        }
        team::TeamConfig t;
        t.url = url.toStdString();
        t.self.kind = parser.isSet(headless) ? "gateway" : "console";
        t.self.host = QSysInfo::machineHostName().toStdString();
        options.team = std::move(t);
    }
    // An invalid policy stops the console: it never runs on a policy it could not read.
    QStringList policyFiles = parser.values(policy);
    // Without --policy: the built-in default, then the rules a reviewer made
    // "always" in the console (policy.json in the data dir), if any.
    if (const QString own = options.dataDir + QStringLiteral("/policy.json");
        policyFiles.isEmpty() && QFileInfo::exists(own))
        policyFiles = QStringList { defaultPolicyPath(), own };
    PolicyResult loaded = loadPolicyFiles(policyFiles);
    if (!loaded.policy)
        return fail(loaded.error);
    options.policy = std::move(*loaded.policy);
    options.policyFiles = policyFiles;

    ConsoleCore core(options);
    QString error;
    if (!core.start(&error) || !front.start(&core, &error))
        return fail(error);
    // SIGINT and SIGTERM end the event loop normally, so the endpoint and
    // token files are removed as on any clean exit.
    onTerminationSignal(app.get(), [app = app.get()] { app->quit(); });
    QObject::connect(&core, &ConsoleCore::policyReloaded, app.get(), [&core] {
        std::fprintf(
            stderr, "holdpoint: policy reloaded (%d guardrails)\n", core.policy().chain->size());
    });
    QObject::connect(&core, &ConsoleCore::policyReloadFailed, app.get(), [](const QString &why) {
        std::fprintf(stderr,
            "holdpoint: policy edit refused, the previous policy stays in force: %s\n",
            qPrintable(why));
    });
    std::fprintf(stderr, "holdpoint %s listening on %s (data dir %s)\n", HOLDPOINT_VERSION,
        qPrintable(core.url()), qPrintable(core.dataDir()));
    if (core.recovery().pending || core.recovery().decided)
        std::fprintf(stderr,
            "holdpoint: restored %d pending and %d decided calls from the audit log\n",
            core.recovery().pending, core.recovery().decided);
    if (core.auditOpen().tornBytes)
        std::fprintf(stderr,
            "holdpoint: removed an incomplete last audit record (%lld bytes) left by a crash\n",
            qlonglong(core.auditOpen().tornBytes));
    if (!core.auditOpen().problem.empty())
        std::fprintf(stderr,
            "holdpoint: WARNING: the audit log failed its check: %s (recorded; run `holdpoint-ctl "
            "audit verify`)\n",
            core.auditOpen().problem.c_str());
    if (!core.auditAvailable())
        std::fprintf(stderr,
            "holdpoint: the audit log cannot be written, so every call is refused until it can: "
            "%s\n",
            qPrintable(core.auditError()));
    if (core.team())
        std::fprintf(stderr, "holdpoint: joining the team as %s %s\n",
            core.team()->config().self.kind.c_str(), core.team()->config().self.id.c_str());
    QObject::connect(&core, &ConsoleCore::teamAvailabilityChanged, app.get(),
        [](bool available, const QString &why) {
            if (available)
                std::fprintf(stderr, "holdpoint: connected to the team database\n");
            else
                std::fprintf(stderr,
                    "holdpoint: the team database is unreachable; escalated calls wait up to their "
                    "deadline, "
                    "then are denied (team_unavailable): %s\n",
                    qPrintable(why));
        });
    QObject::connect(&core, &ConsoleCore::auditAvailabilityChanged, app.get(),
        [](bool available, const QString &why) {
            if (available)
                std::fprintf(stderr,
                    "holdpoint: the audit log takes writes again; calls are decided normally\n");
            else
                std::fprintf(stderr,
                    "holdpoint: the audit log cannot be written, so every call is refused until it "
                    "can: %s\n",
                    qPrintable(why));
        });

    std::unique_ptr<MainWindow> window;
    if (!parser.isSet(headless)) {
        window = std::make_unique<MainWindow>(&core, front.page());
        window->show();
    }
    std::unique_ptr<DemoAgent> agent;
    if (parser.isSet(demo)) {
        EndpointInfo self;
        self.url = QUrl(core.url());
        self.agentToken = core.agentToken();
        agent = std::make_unique<DemoAgent>(self);
        QObject::connect(agent.get(), &DemoAgent::stopped, app.get(), [](const QString &why) {
            std::fprintf(stderr, "holdpoint: demo agent stopped: %s\n", qPrintable(why));
        });
        agent->start();
    }
    const int rc = app->exec();
    agent.reset();
    window.reset();
    front.stop();
    core.stop();
    return rc;
}
