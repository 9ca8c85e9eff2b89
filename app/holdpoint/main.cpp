// SPDX-License-Identifier: Apache-2.0
// holdpoint: the approval console. With a window by default, --headless
// without one (reviewers then decide through the reviewer role).

#include "client/demoagent.h"
#include "common/clock.h"
#include "common/signals.h"
#include "engine/consolecore.h"
#include "engine/consolemetrics.h"
#include "guardrails/chain.h"
#include "mainwindow.h"
#include "options.h"
#include "webfront.h"

#include <QApplication>
#include <cstdio>
#include <memory>

using namespace holdpoint;

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "holdpoint: %s\n", qPrintable(message));
    return 1;
}

// What a person watching the terminal should know once the console listens.
void reportStart(const ConsoleCore &core)
{
    std::fprintf(stderr, "holdpoint %s listening on %s (data dir %s)\n", HOLDPOINT_VERSION,
        qPrintable(core.url()), qPrintable(core.dataDir()));
    if (const QString warning = core.policyWarning(); !warning.isEmpty())
        std::fprintf(stderr, "holdpoint: WARNING: %s\n", qPrintable(warning));
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
            core.team()->instanceKind().c_str(), core.team()->instanceId().c_str());
}

// ... and what changes while it runs.
void reportChanges(ConsoleCore *core, QObject *context)
{
    QObject::connect(core, &ConsoleCore::policyReloaded, context, [core] {
        std::fprintf(
            stderr, "holdpoint: policy reloaded (%d guardrails)\n", core->policy().chain->size());
    });
    QObject::connect(core, &ConsoleCore::policyReloadFailed, context, [](const QString &why) {
        std::fprintf(stderr,
            "holdpoint: policy edit refused, the previous policy stays in force: %s\n",
            qPrintable(why));
    });
    QObject::connect(core, &ConsoleCore::teamAvailabilityChanged, context,
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
    QObject::connect(core, &ConsoleCore::auditAvailabilityChanged, context,
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
}

// --demo: a simulated agent on the console's own endpoint.
std::unique_ptr<DemoAgent> startDemoAgent(const ConsoleCore &core, QObject *context)
{
    EndpointInfo self;
    self.url = QUrl(core.url());
    self.agentToken = core.agentToken();
    auto agent = std::make_unique<DemoAgent>(self);
    QObject::connect(agent.get(), &DemoAgent::stopped, context, [](const QString &why) {
        std::fprintf(stderr, "holdpoint: demo agent stopped: %s\n", qPrintable(why));
    });
    agent->start();
    return agent;
}

// Without a window, the event loop is Qt's own rather than GLib's, unless
// QT_NO_GLIB says otherwise. GLib's wakes itself (an eventfd write, a poll
// set rebuilt) each time a socket's write notifier is switched on and off
// again, which Qt does for every message sent: about 2 µs of CPU per
// decision (tests/bench/README.md). A window keeps GLib's, for the desktop
// libraries (input methods, themes) that expect it. The setting is taken
// back once the loop exists, so no child process inherits it.
std::unique_ptr<QCoreApplication> makeApplication(int &argc, char **argv)
{
    if (wantsWindow(argc, argv))
        return std::make_unique<QApplication>(argc, argv);
    const bool chosen = qEnvironmentVariableIsSet("QT_NO_GLIB");
    if (!chosen)
        qputenv("QT_NO_GLIB", "1");
    auto app = std::make_unique<QCoreApplication>(argc, argv);
    if (!chosen)
        qunsetenv("QT_NO_GLIB");
    return app;
}

} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> app = makeApplication(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("holdpoint"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HOLDPOINT_VERSION));
    // Wayland matches the window to its desktop entry (and icon) by this id.
    if (qobject_cast<QApplication *>(app.get()))
        QGuiApplication::setDesktopFileName(QStringLiteral(HOLDPOINT_APP_ID));

    LaunchRequest request = parseLaunchOptions(QCoreApplication::arguments());
    if (request.status == LaunchRequest::Status::Exit) {
        std::fputs(qPrintable(request.output), stdout);
        return 0;
    }
    if (request.status == LaunchRequest::Status::Error)
        return fail(request.error);
    LaunchOptions &options = request.options;

    // Before the core, whose audit log reports into it, and gone after it.
    std::unique_ptr<ConsoleMetrics> metrics = options.metrics
        ? std::make_unique<ConsoleMetrics>(&options.console, options.team.has_value())
        : nullptr;
    // The program chooses the queue: this process's, or the team's in
    // PostgreSQL; the console knows only the QueueStore seam.
    SystemClock clock;
    std::unique_ptr<SharedQueue> team = teamStore(options, &clock);
    ConsoleCore core(std::move(options.console), std::move(team), &clock);
    WebFront front(std::move(options.front));
    QString error;
    if (!core.start(&error) || !front.start(&core, &error)
        || (metrics && !metrics->start(&core, *options.metrics, &error)))
        return fail(error);
    // SIGINT and SIGTERM end the event loop normally, so the endpoint and
    // token files are removed as on any clean exit.
    onTerminationSignal(app.get(), [app = app.get()] { app->quit(); });
    reportStart(core);
    if (metrics)
        std::fprintf(stderr, "holdpoint: metrics on %s/metrics (probes: /healthz, /readyz)\n",
            qPrintable(metrics->url()));
    reportChanges(&core, app.get());

    std::unique_ptr<MainWindow> window;
    if (!options.headless) {
        window = std::make_unique<MainWindow>(
            &core, front.page() ? front.page()->sessions() : nullptr);
        window->show();
    }
    std::unique_ptr<DemoAgent> agent = options.demo ? startDemoAgent(core, app.get()) : nullptr;
    const int rc = app->exec();
    agent.reset();
    window.reset();
    front.stop();
    core.stop();
    return rc;
}
