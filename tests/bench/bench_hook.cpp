// SPDX-License-Identifier: Apache-2.0
// The hook scenario: what an agent CLI pays per tool call for a command hook,
// the whole process from fork/exec until it has exited with its answer read,
// for an auto-allowed PreToolUse against a real headless console. Baseline:
// minclient.c, a few dozen lines of C with plain sockets doing the same
// exchange (handshake, hello, tool_call, decision) with the same console.
// Also the full program's `hook claude-code` (what every hook ran before the
// front), for reference. The three run interleaved, call by call.

#include "bench.h"
#include "peer.h"

#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace holdpoint::bench {

namespace {

// Runs `argv` with `input` on its stdin (a file, as a pipe would need a
// writer) and its stdout read to the end; the time from the spawn to its
// exit in ms, or -1 when it failed.
double timeProcess(const std::vector<std::string> &argv, const QString &inputFile, std::string *out)
{
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const QByteArray input = QFile::encodeName(inputFile);
    posix_spawn_file_actions_addopen(
        &actions, 0, inputFile.isEmpty() ? "/dev/null" : input.constData(), O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    pid_t pid = 0;
    const auto start = SteadyClock::now();
    const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    out->clear();
    char buf[4096];
    for (ssize_t n; rc == 0 && (n = ::read(pipeFds[0], buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        out->append(buf, std::size_t(n));
    }
    ::close(pipeFds[0]);
    int status = 0;
    if (rc != 0 || ::waitpid(pid, &status, 0) != pid)
        return -1;
    const double ms = msBetween(start, SteadyClock::now());
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

} // namespace

void hookScenario(bool quick, Table *table)
{
    const int calls = quick ? 15 : 200;
    QTemporaryDir tmp;
    QString error;
    auto console = startConsole(tmp.path(), &error);
    if (!console)
        return table->fail("hook", error.toStdString());
    const std::string port = std::to_string(console->url.port());
    const std::string token = console->agentToken.toStdString();
    const std::string dataDir = console->dataDir.toStdString();
    const QString inputFile = tmp.filePath(QStringLiteral("input.json"));
    const QString fullCtl = QStringLiteral(HOLDPOINT_CTL_FULL_BIN);

    std::vector<double> front, minimal, full;
    for (int i = 0; i < calls; ++i) {
        for (int which = 0; which < 3; ++which) {
            // A new call each time: a tool_use_id the console knows would be
            // answered from its records, without the chain and the audit.
            const std::string id = "hook-" + std::to_string(i) + "-" + std::to_string(which);
            std::vector<std::string> argv;
            if (which == 0) {
                argv = { MINCLIENT_BIN, port, token, id };
            } else {
                QFile f(inputFile);
                if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
                    return table->fail("hook", "cannot write " + inputFile.toStdString());
                f.write(QByteArray::fromStdString(dumpJson(
                    Json { { "hook_event_name", "PreToolUse" }, { "session_id", "bench-hook" },
                        { "tool_name", "bench_op" }, { "tool_input", { { "n", i } } },
                        { "tool_use_id", id }, { "cwd", "/tmp" } })));
                f.close();
                argv = { which == 1 ? std::string(HOLDPOINT_CTL_BIN) : fullCtl.toStdString(),
                    "--data-dir", dataDir, "hook", "claude-code" };
            }
            std::string out;
            const double ms = timeProcess(argv, which == 0 ? QString() : inputFile, &out);
            const bool allowed = which == 0
                ? out.find("\"decision\":\"allow\"") != std::string::npos
                : out.find("\"permissionDecision\":\"allow\"") != std::string::npos;
            if (ms < 0 || !allowed)
                return table->fail("hook", argv[0] + " did not answer allow: " + out);
            (which == 0 ? minimal : which == 1 ? front : full).push_back(ms);
        }
    }
    const std::string variant = std::to_string(calls) + " processes each, interleaved";
    for (const auto &[name, p] : { std::pair { "p50", 0.5 }, std::pair { "p99", 0.99 } }) {
        table->add({ "hook", variant, std::string(name) + " holdpoint-ctl hook claude-code", "ms",
            percentile(front, p), "minclient.c", percentile(minimal, p), "at most 2.0 x" });
        table->add({ "hook", variant, std::string(name) + " full program's hook (before the front)",
            "ms", percentile(full, p), "minclient.c", percentile(minimal, p), "" });
    }
}

} // namespace holdpoint::bench
