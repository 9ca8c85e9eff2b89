// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the benchmark's scenarios share: the table, timing, and the helper
// processes they measure against.

#include "common/json.h"

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace holdpoint::bench {

using SteadyClock = std::chrono::steady_clock;

// One figure next to its baseline. `lowerIsBetter` decides how the ratio reads.
struct Row
{
    std::string scenario;
    std::string variant;
    std::string figure; // e.g. "p50", "calls/s"
    std::string unit; // e.g. "µs"
    double value = 0;
    std::string baseline; // what was measured alongside
    double baselineValue = 0;
    std::string target; // the goal, for people; never asserted
};

class Table
{
public:
    void add(Row row) { m_rows.push_back(std::move(row)); }
    void skip(const std::string &scenario, const std::string &why)
    {
        m_skipped.push_back({ scenario, why });
    }
    void fail(const std::string &scenario, const std::string &why);
    bool failed() const { return !m_failures.empty(); }
    void print(bool quick) const;
    Json json(bool quick) const;

private:
    std::vector<Row> m_rows;
    std::vector<std::pair<std::string, std::string>> m_skipped;
    std::vector<std::pair<std::string, std::string>> m_failures;
};

double percentile(std::vector<double> values, double p);
// Heap bytes this process has allocated and not freed (glibc's own count,
// so memory freed earlier and reused does not hide what a structure holds;
// resident memory elsewhere).
qint64 heapBytes();

// A process that must be killed when the scenario ends.
struct Child
{
    std::unique_ptr<QProcess> process;
    QString dataDir;
    QUrl url;
    QByteArray agentToken;
    QByteArray reviewerToken;
    ~Child();
};

// A real `holdpoint --headless` on the data dir `root`/`name`, with a policy
// that allows the tool "bench_op" at once and asks a person for the rest;
// `extra` goes on its command line.
std::unique_ptr<Child> startConsole(const QString &root, QString *error,
    const QStringList &extra = {}, const QString &name = QStringLiteral("console"));
// This binary in --serve-echo mode; `syncFile` non-empty adds one
// fdatasync per message to that file.
// How the echo server logs each message before answering: not at all, or
// with fdatasync after appending to a file, or after overwriting the zeros
// of a file padded ahead (as the console's audit log does).
enum class EchoSync
{
    None,
    Append,
    Overwrite
};
std::unique_ptr<Child> startEcho(EchoSync sync, const QString &syncFile, QString *error);

// A benchmark script of node's, tests/<dir>/<script>, run in that folder
// with HOLDPOINT_BIN, HOLDPOINT_CTL_BIN and `env` set: the one JSON object it
// prints. Null, with `error` saying why, when it failed or printed none.
Json runNodeBench(
    const QString &dir, const QString &script, const QProcessEnvironment &env, std::string *error);
int serveEcho(int argc, char **argv);

// Sequential tool calls over one connection; latencies in µs.
std::vector<double> sequentialCalls(
    const QUrl &url, const QByteArray &token, int calls, QString *error);

void rttScenario(bool quick, Table *table);
void throughputScenario(bool quick, Table *table);
void chainScenario(bool quick, Table *table);
void queueScenario(bool quick, Table *table);
void auditScenario(bool quick, Table *table);
// A policy replayed over history: the trace's prompts before and after the
// suggested rules, and 100,000 recorded calls replayed (core/replay).
void replayScenario(bool quick, Table *table);
// With `peerHitlDir`, also through mcp-hitl-wrapper built there.
void mcpScenario(bool quick, const QString &peerHitlDir, Table *table);
// An approval from the reviewer page next to one from holdpoint-ctl.
void webScenario(bool quick, Table *table);
// The reviewer page in Chromium: a burst of calls, a load, a second device.
void pageScenario(bool quick, Table *table);
// A command hook's whole process per call next to a minimal C client's.
void hookScenario(bool quick, Table *table);
// Team mode on a PostgreSQL cluster of its own (skipped without the server).
void teamScenario(bool quick, Table *table);

} // namespace holdpoint::bench
