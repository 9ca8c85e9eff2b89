// SPDX-License-Identifier: Apache-2.0
// Scenarios over real sockets and processes: rtt, throughput, mcp.

#include "bench.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>

namespace holdpoint::bench {

namespace {

// Temporary dirs on the disk the console would use, not a RAM disk, so the
// syncs are real.
QString benchRoot(QTemporaryDir &dir)
{
    return dir.path();
}

} // namespace

void rttScenario(bool quick, Table *table)
{
    const int calls = quick ? 500 : 20'000;
    QTemporaryDir tmp;
    QString error;
    auto console = startConsole(benchRoot(tmp), &error);
    auto echo = startEcho(EchoSync::None, QString(), &error);
    auto echoAppend
        = startEcho(EchoSync::Append, benchRoot(tmp) + QStringLiteral("/echo-append.log"), &error);
    auto echoOverwrite = startEcho(
        EchoSync::Overwrite, benchRoot(tmp) + QStringLiteral("/echo-overwrite.log"), &error);
    if (!console || !echo || !echoAppend || !echoOverwrite)
        return table->fail("rtt", error.toStdString());

    // Warm up each, then measure them interleaved in tenths so drift on a
    // noisy machine hits all of them alike.
    const std::vector<const Child *> servers { console.get(), echo.get(), echoAppend.get(),
        echoOverwrite.get() };
    for (const Child *c : servers)
        sequentialCalls(c->url, c->agentToken, calls / 10 + 1, &error);
    std::vector<std::vector<double>> latencies(servers.size());
    const int parts = quick ? 3 : 10;
    for (int part = 0; part < parts && error.isEmpty(); ++part) {
        for (std::size_t i = 0; i < servers.size(); ++i) {
            const std::vector<double> v
                = sequentialCalls(servers[i]->url, servers[i]->agentToken, calls / parts, &error);
            latencies[i].insert(latencies[i].end(), v.begin(), v.end());
        }
    }
    if (!error.isEmpty())
        return table->fail("rtt", error.toStdString());

    const std::vector<double> &full = latencies[0];
    const std::string variant = std::to_string(full.size()) + " sequential calls";
    for (const auto &[name, p] :
        { std::pair { "p50", 0.5 }, std::pair { "p99", 0.99 }, std::pair { "p99.9", 0.999 } }) {
        const double v = percentile(full, p);
        const std::string target = p == 0.5 ? "at most 1.0 x" : p == 0.99 ? "at most 1.5 x" : "";
        table->add({ "rtt", variant, name, "µs", v, "echo + append + fdatasync",
            percentile(latencies[2], p), target });
        table->add({ "rtt", variant, name, "µs", v, "echo + overwrite + fdatasync",
            percentile(latencies[3], p), "" });
        table->add({ "rtt", variant, name, "µs", v, "bare echo", percentile(latencies[1], p), "" });
    }
}

namespace {

// CPU time (user + system, µs) of this process's children that have ended
// and been reaped: getrusage(RUSAGE_CHILDREN). A child's whole life counts
// once it is reaped, so a figure for one child is the difference across
// reaping it alone.
double reapedChildrenCpuUs()
{
    rusage u {};
    ::getrusage(RUSAGE_CHILDREN, &u);
    auto us = [](const timeval &t) { return double(t.tv_sec) * 1e6 + double(t.tv_usec); };
    return us(u.ru_utime) + us(u.ru_stime);
}

// Ends `child` as an operator would (SIGTERM, a clean exit) and returns the
// CPU it used in its whole life, or a negative value if it did not end.
double stopAndMeasure(std::unique_ptr<Child> child)
{
    const double before = reapedChildrenCpuUs();
    child->process->terminate();
    if (!child->process->waitForFinished(30'000))
        return -1;
    return reapedChildrenCpuUs() - before;
}

} // namespace

void throughputScenario(bool quick, Table *table)
{
    QTemporaryDir tmp;
    QString error;

    auto load = [&](const Child &target, int agents, int callsEach, Json *summary) {
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // The load process finds the server through a data dir's endpoint
        // file; for the echo server, write one.
        QString dataDir = target.dataDir;
        if (dataDir.isEmpty()) {
            dataDir = tmp.path() + QStringLiteral("/echo-endpoint");
            QDir().mkpath(dataDir);
            QFile f(dataDir + QStringLiteral("/endpoint.json"));
            if (!f.open(QIODevice::WriteOnly))
                return false;
            f.write(QByteArray::fromStdString(
                dumpJson(Json { { "url", target.url.toString().toStdString() },
                    { "agent_token", "echo" }, { "pid", 0 }, { "protocol", 1 } })));
        }
        p.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
            { QStringLiteral("--data-dir"), dataDir, QStringLiteral("--sessions"),
                QString::number(agents), QStringLiteral("--calls"), QString::number(callsEach),
                QStringLiteral("--window"), QStringLiteral("1"), QStringLiteral("--prefix"),
                QStringLiteral("tp%1").arg(agents) });
        if (!p.waitForFinished(600'000) || p.exitCode() != 0)
            return false;
        *summary = Json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
        return summary->is_object();
    };
    // Three servers: the console; the echo appending and syncing each
    // message; the bare echo, whose CPU per message is what the WebSocket
    // transport alone costs (one read and one send a message).
    enum Server
    {
        Console,
        EchoSynced,
        EchoBare,
        Servers
    };
    auto startServer = [&](int server, int n) {
        switch (server) {
        case Console:
            return startConsole(tmp.path(), &error, {}, QStringLiteral("console-%1").arg(n));
        case EchoSynced:
            return startEcho(
                EchoSync::Append, tmp.path() + QStringLiteral("/echo-sync-%1.log").arg(n), &error);
        default:
            return startEcho(EchoSync::None, {}, &error);
        }
    };
    // Each started and stopped with nothing to do: what it costs apart from
    // the calls, taken off the figures below.
    double idleUs[Servers] = {};
    for (int server = 0; server < Servers; ++server) {
        auto idle = startServer(server, 0);
        if (!idle)
            return table->fail("throughput", error.toStdString());
        idleUs[server] = stopAndMeasure(std::move(idle));
    }

    const int total = quick ? 2'000 : 60'000;
    int n = 0;
    for (int agents : { 1, 16, 64, 256 }) {
        // Enough calls each that connecting does not dominate, even in quick mode.
        const int each = std::max(quick ? 40 : 100, total / agents);
        // A server of its own per figure, so its whole life's CPU, taken when
        // it is stopped and reaped, is this load's and its start's alone.
        Json summary[Servers];
        double cpuUs[Servers] = {};
        for (int server = 0; server < Servers; ++server) {
            auto child = startServer(server, ++n);
            if (!child)
                return table->fail("throughput", error.toStdString());
            if (!load(*child, agents, each, &summary[server]))
                return table->fail("throughput",
                    "the load process failed at " + std::to_string(agents) + " agents");
            cpuUs[server] = stopAndMeasure(std::move(child));
            if (cpuUs[server] < 0)
                return table->fail("throughput", "a server did not stop at SIGTERM");
        }
        const Json &ours = summary[Console], &floor = summary[EchoSynced];
        const double calls = double(agents) * each;
        auto perCall = [&](int server) { return (cpuUs[server] - idleUs[server]) / calls; };
        const std::string variant = std::to_string(agents) + " agents x " + std::to_string(each);
        table->add({ "throughput", variant, "calls/s", "1/s", ours["calls_per_s"],
            "echo + append + fdatasync", floor["calls_per_s"],
            agents == 64 ? "at least 25,000 calls/s" : "" });
        table->add({ "throughput", variant, "calls/s", "1/s", ours["calls_per_s"], "bare echo",
            summary[EchoBare]["calls_per_s"], "" });
        table->add({ "throughput", variant, "p99", "ms", ours["p99_ms"],
            "echo + append + fdatasync", floor["p99_ms"], "" });
        table->add({ "throughput", variant, "console CPU per call", "µs", perCall(Console),
            "bare echo", perCall(EchoBare), "" });
        table->add({ "throughput", variant, "console CPU per call", "µs", perCall(Console),
            "echo + append + fdatasync", perCall(EchoSynced),
            agents == 64 ? "at most 20 µs" : "" });
    }
}

namespace {

bool onTmpfs(const QString &dir)
{
    struct statfs st
    {
    };
    return statfs(QFile::encodeName(dir).constData(), &st) == 0 && st.f_type == TMPFS_MAGIC;
}

// One run of tests/mcp/bench.mjs with its data under `tmpDir` (empty: the
// inherited TMPDIR), its rows added to `table`.
void mcpRun(bool quick, const QString &peerHitlDir, const QString &tmpDir, Table *table)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("BENCH_CALLS"), QString::number(quick ? 100 : 2000));
    if (!tmpDir.isEmpty())
        env.insert(QStringLiteral("TMPDIR"), tmpDir);
    if (!peerHitlDir.isEmpty())
        env.insert(QStringLiteral("PEER_HITL_DIR"), QFileInfo(peerHitlDir).absoluteFilePath());
    std::string error;
    const Json r = runNodeBench(QStringLiteral("mcp"), QStringLiteral("bench.mjs"), env, &error);
    if (r.is_null())
        return table->fail("mcp", error);
    // The rows say whether the data was on tmpfs.
    const bool tmpfs = r.value("data_fs", std::string()) == "tmpfs";
    const std::string variant
        = std::to_string(r.value("calls", 0)) + " tools/call" + (tmpfs ? ", tmpfs" : "");
    for (const char *figure : { "p50", "p99" }) {
        const double proxied = r["proxied_ms"][figure];
        const double direct = r["direct_ms"][figure];
        table->add({ "mcp", variant, figure, "ms", proxied, "direct to the server", direct, "" });
        table->add({ "mcp", variant, std::string(figure) + " added", "ms", proxied - direct,
            "direct to the server", direct, "" });
    }
    // Where a proxied call's time goes (HOLDPOINT_MCP_TRACE), each hop's
    // median next to the whole call's.
    if (r.contains("proxied_hops_us") && r["proxied_hops_us"].is_array()) {
        const double whole = double(r["proxied_ms"]["p50"]) * 1000;
        for (const Json &h : r["proxied_hops_us"])
            table->add({ "mcp", std::string("proxied, p50 of each hop") + (tmpfs ? ", tmpfs" : ""),
                h.value("hop", std::string()), "µs", h.value("us", 0.0), "whole proxied call p50",
                whole, "" });
    } else {
        table->skip("mcp hops", "the proxy's trace did not line up with the calls");
    }
    if (!r.contains("peer_ms"))
        return;
    for (const char *figure : { "p50", "p99" }) {
        const double peer = r["peer_ms"][figure];
        const double direct = r["direct_ms"][figure];
        const double proxied = r["proxied_ms"][figure];
        table->add({ "mcp", variant, std::string(figure) + " via peer", "ms", peer,
            "direct to the server", direct, "" });
        table->add({ "mcp", variant, std::string(figure) + " added", "ms", proxied - direct,
            "mcp-hitl-wrapper added", peer - direct,
            std::string(figure) != "p50" ? ""
                : tmpfs                  ? "at most 0.45 x mcp-hitl-wrapper's"
                                         : "at most 0.75 x mcp-hitl-wrapper's" });
    }
}

} // namespace

// A full run measures twice: with the data where TMPDIR puts it (the
// disk, unless TMPDIR is on tmpfs), then on /dev/shm, so both of the
// issue's MCP targets come from one run. --quick measures once.
void mcpScenario(bool quick, const QString &peerHitlDir, Table *table)
{
    if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
        return table->skip("mcp", "node is not installed");
    if (!QFileInfo::exists(QStringLiteral(
            HOLDPOINT_SOURCE_DIR "/tests/mcp/node_modules/@modelcontextprotocol/sdk/package.json")))
        return table->skip("mcp", "tests/mcp/node_modules is missing (cd tests/mcp && npm ci)");
    if (!peerHitlDir.isEmpty() && !QFileInfo::exists(peerHitlDir + QStringLiteral("/dist/cli.js")))
        return table->fail("mcp",
            "--peer-hitl: no dist/cli.js in " + peerHitlDir.toStdString()
                + " (build it as tests/bench/README.md says)");
    mcpRun(quick, peerHitlDir, {}, table);
    const QString shm = QStringLiteral("/dev/shm");
    if (quick)
        return;
    if (onTmpfs(QDir::tempPath()))
        table->skip("mcp", "TMPDIR is already on tmpfs: no run with the data on disk");
    else if (!onTmpfs(shm) || !QFileInfo(shm).isWritable())
        table->skip("mcp", "/dev/shm is not a writable tmpfs: no run with the data on tmpfs");
    else
        mcpRun(quick, peerHitlDir, shm, table);
    if (peerHitlDir.isEmpty())
        table->skip("mcp",
            "no --peer-hitl DIR: not compared with mcp-hitl-wrapper (tests/bench/README.md)");
}

} // namespace holdpoint::bench
