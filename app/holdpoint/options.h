// SPDX-License-Identifier: Apache-2.0
#pragma once

// The console's command line: every option with its default and its range,
// read and checked into LaunchOptions before anything listens or touches the
// data directory. main() only wires what comes out.

#include "engine/consolecore.h"
#include "metrics/metricsserver.h"
#include "notify/ntfynotifier.h"
#include "team/teamconfig.h"
#include "web/webserver.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace holdpoint {

// The console's faces beyond its window, checked.
struct WebFrontOptions
{
    // --web ADDRESS:PORT and the --web-* options: webConfigProblem() found
    // nothing, the proxy secret is read. The sessions file is the web
    // front's to set (it lives in the data directory).
    std::optional<WebConfig> page;
    // --notify-ntfy URL [--notify-ntfy-token FILE]: the URL checked and the
    // token read. The page origin is filled in once the page listens.
    std::optional<NtfyConfig> ntfy;
};

struct LaunchOptions
{
    ConsoleOptions console; // data dir resolved (not created), policy loaded
    // --team URL (or $HOLDPOINT_TEAM_URL): the queue lives in PostgreSQL
    // (core/team/TEAM.md). teamStore() makes it.
    std::optional<team::TeamConfig> team;
    bool headless = false; // no window: decide through the reviewer role
    bool demo = false; // also run the simulated agent
    WebFrontOptions front;
    // --metrics ADDRESS:PORT, a loopback address: /metrics, /healthz, /readyz.
    std::optional<metrics::Address> metrics;
};

struct LaunchRequest
{
    enum class Status
    {
        Run, // options holds what to start
        Exit, // print output on stdout and exit 0: --help or --version
        Error, // print "holdpoint: <error>" on stderr and exit 1
    };
    Status status = Status::Error;
    LaunchOptions options;
    QString output;
    QString error;
};

// Reads `arguments` (as QCoreApplication::arguments(): the program first).
// Besides the arguments it reads $HOLDPOINT_DATA_DIR, $HOLDPOINT_TEAM_URL and
// $HOLDPOINT_REVIEWER, the policy files (and <data dir>/policy.json when no
// --policy is given), the proxy secret and the ntfy token file. It creates
// nothing. --help and --version ask for nothing else.
LaunchRequest parseLaunchOptions(const QStringList &arguments);

// Before an application object exists: whether the command line wants the
// window, so a QApplication (and a display). --headless, --help and
// --version never do, so they work over ssh and in a service.
bool wantsWindow(int argc, char **argv);

// The team's queue for a console with these options: it decides as the
// reviewer the options name (else the OS user), and ends its items after
// their grace period as the broker does. Null without --team.
std::unique_ptr<SharedQueue> teamStore(const LaunchOptions &options, Clock *clock);

} // namespace holdpoint
