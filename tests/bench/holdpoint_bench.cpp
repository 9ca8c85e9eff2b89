// SPDX-License-Identifier: Apache-2.0
// holdpoint-bench: performance figures, each next to a baseline measured in
// the same run so ratios hold on a noisy machine. Prints one table; with
// --json FILE also writes the figures. --quick is small enough for CI.
//
// Scenarios (--scenario NAME to run one):
//  rtt         one agent, sequential auto-allowed calls through a real
//              console process (chain, audit sync, decision); baselines: a
//              bare QWebSocketServer echo process answering the same JSON,
//              and that echo plus one fdatasync per message on the same disk.
//  throughput  1, 16, 64 and 256 agents in a separate load process making
//              durable auto-allowed calls, and the console's CPU per call
//              (getrusage); baseline: the echo-plus-sync server.
//  chain       the guardrail chain alone, ns per call; baseline: one copy of
//              the call's args.
//  queue       10,000 and 100,000 pending escalations: enqueue time, heap
//              per pending call beyond its args (glibc's count of bytes in
//              use, which freed memory reused cannot blur), the UI filter proxy's
//              refilter time, approving one item in the middle.
//  audit       query time over 100,000 records; baseline: reading the log
//              once, line by line, without parsing.
//  replay      the coding-agent trace (tests/bench/trace): prompts before
//              and after accepting every suggested rule, must_ask calls
//              that would run alone; 100,000 recorded calls read and
//              replayed; baseline: parsing every record of their log.
//  mcp         a tools/call round trip through holdpoint-ctl mcp-proxy next
//              to the same call direct to the same server (needs node and
//              tests/mcp/node_modules; otherwise reported as skipped), and
//              with --peer-hitl DIR through mcp-hitl-wrapper too, all
//              interleaved.
//  web         an approval from the reviewer page (its POST, as the click
//              sends it) until the agent has the decision; baseline: the
//              same approval with `holdpoint-ctl approve`, interleaved.
//  page        the reviewer page in Chromium (tests/web-e2e/bench.mjs): its
//              longest task while 500 calls arrive at once and while it
//              loads with them waiting, on a CPU throttled 4x, and a
//              decision on one device until the other device's card is
//              gone; baselines: the cards made in one task, JSON.parse of
//              the queue, the tap's POST round trip (skipped without node,
//              tests/web-e2e/node_modules or Chromium).
//  hook        `holdpoint-ctl hook claude-code` as an agent CLI runs it, a
//              process per auto-allowed call, from spawn to exit; baseline:
//              minclient.c doing the same exchange; the full program's hook
//              for reference; interleaved.
//  team        on a PostgreSQL cluster of its own (fsync on): an escalation
//              at a gateway seen in a second console, an approval there
//              reaching the agent, the auto-allowed rtt with --team,
//              1000 escalations/s over four gateways, and 10,000 pending
//              over 20 gateways; baselines: one console alone, measured
//              interleaved, and the burst with every instance acting as
//              schema 3 (skipped without the server).

#include "bench.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <cstdio>

using namespace holdpoint;
using namespace holdpoint::bench;

int main(int argc, char **argv)
{
    // A child process of our own: the echo baselines.
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--serve-echo")
            return serveEcho(argc, argv);

    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Holdpoint benchmarks, each against a baseline measured in the same run."));
    parser.addHelpOption();
    const QCommandLineOption quick(
        QStringLiteral("quick"), QStringLiteral("Small runs, for CI (under 60 s in all)."));
    const QCommandLineOption json(QStringLiteral("json"),
        QStringLiteral("Also write the figures to FILE."), QStringLiteral("file"));
    const QCommandLineOption only(QStringLiteral("scenario"),
        QStringLiteral("Run only this scenario (repeatable)."), QStringLiteral("name"));
    const QCommandLineOption peer(QStringLiteral("peer-hitl"),
        QStringLiteral("Also run the mcp scenario through mcp-hitl-wrapper, built in DIR "
                       "(tests/bench/README.md)."),
        QStringLiteral("dir"));
    parser.addOptions({ quick, json, only, peer });
    parser.process(app);

    const bool q = parser.isSet(quick);
    const QStringList wanted = parser.values(only);
    auto want = [&](const char *name) {
        return wanted.isEmpty() || wanted.contains(QLatin1String(name));
    };
    Table table;
    if (want("rtt"))
        rttScenario(q, &table);
    if (want("throughput"))
        throughputScenario(q, &table);
    if (want("chain"))
        chainScenario(q, &table);
    if (want("queue"))
        queueScenario(q, &table);
    if (want("audit"))
        auditScenario(q, &table);
    if (want("replay"))
        replayScenario(q, &table);
    if (want("mcp"))
        mcpScenario(q, parser.value(peer), &table);
    if (want("web"))
        webScenario(q, &table);
    if (want("page"))
        pageScenario(q, &table);
    if (want("hook"))
        hookScenario(q, &table);
    if (want("team"))
        teamScenario(q, &table);

    table.print(q);
    if (parser.isSet(json)) {
        QFile f(parser.value(json));
        if (!f.open(QIODevice::WriteOnly)) {
            std::fprintf(
                stderr, "holdpoint-bench: cannot write %s\n", qPrintable(parser.value(json)));
            return 1;
        }
        f.write(QByteArray::fromStdString(dumpJson(table.json(q), 2) + "\n"));
    }
    return table.failed() ? 1 : 0;
}
