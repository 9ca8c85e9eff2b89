// SPDX-License-Identifier: Apache-2.0
#include "bench.h"

#include "audit/auditlog.h"
#include "client/endpointinfo.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QHostAddress>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <unistd.h>

namespace holdpoint::bench {

void Table::fail(const std::string &scenario, const std::string &why)
{
    std::fprintf(stderr, "holdpoint-bench: %s: %s\n", scenario.c_str(), why.c_str());
    m_failures.push_back({ scenario, why });
}

void Table::print(bool quick) const
{
    // Columns as wide as their widest cell.
    int variantWidth = 7, figureWidth = 6, baselineWidth = 8;
    for (const Row &r : m_rows) {
        variantWidth = std::max(variantWidth, int(r.variant.size()));
        figureWidth = std::max(figureWidth, int(r.figure.size()));
        baselineWidth = std::max(baselineWidth, int(r.baseline.size()));
    }
    std::printf("%-10s %-*s %-*s %12s %-6s %-*s %12s %7s  %s\n", "scenario", variantWidth,
        "variant", figureWidth, "figure", "value", "unit", baselineWidth, "baseline", "baseline",
        "ratio", "target");
    for (const Row &r : m_rows) {
        const double ratio = r.baselineValue != 0 ? r.value / r.baselineValue : 0;
        // The unit may hold a multi-byte character ("µs"): pad by bytes plus one.
        const int unitWidth = 6
            + int(r.unit.size()
                - std::size_t(std::count_if(r.unit.begin(), r.unit.end(),
                    [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; })));
        std::printf("%-10s %-*s %-*s %12.2f %-*s %-*s %12.2f %7.2f  %s\n", r.scenario.c_str(),
            variantWidth, r.variant.c_str(), figureWidth, r.figure.c_str(), r.value, unitWidth,
            r.unit.c_str(), baselineWidth, r.baseline.c_str(), r.baselineValue, ratio,
            r.target.c_str());
    }
    for (const auto &[scenario, why] : m_skipped)
        std::printf("%-10s skipped: %s\n", scenario.c_str(), why.c_str());
    for (const auto &[scenario, why] : m_failures)
        std::printf("%-10s FAILED: %s\n", scenario.c_str(), why.c_str());
    std::printf(
        "(%s run; ratio = value / baseline, measured in the same run)\n", quick ? "quick" : "full");
}

Json Table::json(bool quick) const
{
    Json rows = Json::array();
    for (const Row &r : m_rows)
        rows.push_back({ { "scenario", r.scenario }, { "variant", r.variant },
            { "figure", r.figure }, { "unit", r.unit }, { "value", r.value },
            { "baseline", r.baseline }, { "baseline_value", r.baselineValue },
            { "ratio", r.baselineValue != 0 ? r.value / r.baselineValue : 0 },
            { "target", r.target } });
    Json skipped = Json::array();
    for (const auto &[scenario, why] : m_skipped)
        skipped.push_back({ { "scenario", scenario }, { "why", why } });
    Json failures = Json::array();
    for (const auto &[scenario, why] : m_failures)
        failures.push_back({ { "scenario", scenario }, { "why", why } });
    return Json { { "mode", quick ? "quick" : "full" }, { "rows", rows }, { "skipped", skipped },
        { "failures", failures } };
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t i = std::min(values.size() - 1, std::size_t(p * double(values.size())));
    return values[i];
}

qint64 heapBytes()
{
#ifdef __GLIBC__
    const struct mallinfo2 m = mallinfo2();
    return qint64(m.uordblks + m.hblkhd);
#else
    QFile f(QStringLiteral("/proc/self/statm"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> parts = f.readAll().split(' ');
    return parts.size() > 1 ? parts[1].toLongLong() * sysconf(_SC_PAGESIZE) : 0;
#endif
}

Child::~Child()
{
    if (process && process->state() != QProcess::NotRunning) {
        process->terminate();
        if (!process->waitForFinished(5000)) {
            process->kill();
            process->waitForFinished(5000);
        }
    }
}

std::unique_ptr<Child> startConsole(
    const QString &root, QString *error, const QStringList &extra, const QString &name)
{
    auto child = std::make_unique<Child>();
    child->dataDir = root + QLatin1Char('/') + name;
    const QString policy = root + QStringLiteral("/bench-policy.json");
    QFile f(policy);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1").arg(policy);
        return nullptr;
    }
    // The shipped default (ask) plus one rule: what a real deployment that
    // auto-allows a tool runs.
    f.write(R"({"version": 1, "default": "ask", "guardrails": [
        {"type": "rules", "rules": [{"when": {"tool": ["bench_op", "auto_op"]}, "action": "allow", "reason": "benchmark"}]}]})");
    f.close();
    child->process = std::make_unique<QProcess>();
    child->process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child->process->start(QStringLiteral(HOLDPOINT_BIN),
        QStringList { QStringLiteral("--headless"), QStringLiteral("--data-dir"), child->dataDir,
            QStringLiteral("--policy"), policy, QStringLiteral("--max-connections"),
            QStringLiteral("2048") }
            + extra);
    if (!child->process->waitForStarted(10'000)) {
        *error = QStringLiteral("cannot start %1").arg(QStringLiteral(HOLDPOINT_BIN));
        return nullptr;
    }
    EndpointInfo info;
    QString why;
    for (int i = 0; i < 1000; ++i) {
        if (readEndpointInfo(child->dataDir, true, &info, &why)
            && info.pid == child->process->processId()) {
            child->url = info.url;
            child->agentToken = info.agentToken;
            child->reviewerToken = info.reviewerToken;
            return child;
        }
        QThread::msleep(10); // polling a file another process writes
    }
    *error = QStringLiteral("the console did not start: ") + why;
    return nullptr;
}

std::unique_ptr<Child> startEcho(EchoSync sync, const QString &syncFile, QString *error)
{
    auto child = std::make_unique<Child>();
    child->process = std::make_unique<QProcess>();
    child->process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QStringList args { QStringLiteral("--serve-echo") };
    if (sync != EchoSync::None)
        args << QStringLiteral("--sync") << syncFile;
    if (sync == EchoSync::Overwrite)
        args << QStringLiteral("--overwrite");
    // Qt's own event loop, as a headless console runs (app/holdpoint).
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_NO_GLIB"), QStringLiteral("1"));
    child->process->setProcessEnvironment(env);
    child->process->start(QCoreApplication::applicationFilePath(), args);
    if (!child->process->waitForStarted(10'000) || !child->process->waitForReadyRead(10'000)) {
        *error = QStringLiteral("the echo server did not start");
        return nullptr;
    }
    child->url = QUrl(QString::fromUtf8(child->process->readLine().trimmed()));
    child->agentToken = "echo";
    return child;
}

int serveEcho(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QString syncPath;
    bool overwrite = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--sync" && i + 1 < argc)
            syncPath = QString::fromLocal8Bit(argv[i + 1]);
        overwrite |= std::string_view(argv[i]) == "--overwrite";
    }
    int fd = -1;
    if (!syncPath.isEmpty()) {
        fd = ::open(QFile::encodeName(syncPath).constData(),
            O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_APPEND), 0600);
        if (fd < 0)
            return 1;
    }
    // Overwriting: zeros written and synced a chunk ahead, the same chunk
    // the console's audit log pads with.
    const std::string zeros(std::size_t(AuditConfig {}.preallocateBytes), '\0');
    off_t offset = 0, allocated = 0;
    auto log = [&](const std::string &line) {
        if (!overwrite)
            return ::write(fd, line.data(), line.size()) == ssize_t(line.size())
                && ::fdatasync(fd) == 0;
        while (offset + off_t(line.size()) > allocated) {
            if (::pwrite(fd, zeros.data(), zeros.size(), allocated) != ssize_t(zeros.size())
                || ::fdatasync(fd) != 0)
                return false;
            allocated += off_t(zeros.size());
        }
        if (::pwrite(fd, line.data(), line.size(), offset) != ssize_t(line.size())
            || ::fdatasync(fd) != 0)
            return false;
        offset += off_t(line.size());
        return true;
    };
    // The same socket handling as the console's endpoint (a deep accept
    // queue, TCP_NODELAY, a flush after each answer), so the floor is the
    // floor and not Qt's defaults.
    QWebSocketServer server(QStringLiteral("echo"), QWebSocketServer::NonSecureMode);
    QTcpServer tcp;
    tcp.setListenBacklogSize(2048);
    if (!tcp.listen(QHostAddress::LocalHost, 0))
        return 1;
    QObject::connect(&tcp, &QTcpServer::newConnection, &tcp, [&] {
        while (QTcpSocket *socket = tcp.nextPendingConnection()) {
            socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            server.handleConnection(socket);
        }
    });
    QObject::connect(&server, &QWebSocketServer::newConnection, &server, [&] {
        while (QWebSocket *s = server.nextPendingConnection()) {
            QObject::connect(s, &QWebSocket::disconnected, s, &QObject::deleteLater);
            QObject::connect(
                s, &QWebSocket::textMessageReceived, s, [s, fd, &log](const QString &text) {
                    // Parse and answer the same JSON the console would: a
                    // welcome for hello, a decision carrying the args back.
                    const std::string in = text.toStdString();
                    const Json m = Json::parse(in, nullptr, false);
                    Json answer;
                    if (m.value("type", std::string()) == "hello") {
                        answer = { { "type", "welcome" }, { "protocol", 1 }, { "server", "echo" },
                            { "session_id", m.value("session_id", std::string("s-echo")) },
                            { "resumed", false } };
                    } else {
                        answer = { { "type", "decision" },
                            { "call_id", m.value("call_id", std::string()) },
                            { "decision", "allow" }, { "args", m.value("args", Json::object()) },
                            { "reason", "echo" }, { "decided_by", "echo" },
                            { "warnings", Json::array() } };
                    }
                    if (fd >= 0 && !log(in + "\n"))
                        return;
                    s->sendTextMessage(QString::fromStdString(dumpJson(answer)));
                    s->flush();
                });
        }
    });
    std::printf("ws://127.0.0.1:%d/\n", tcp.serverPort());
    std::fflush(stdout);
    return app.exec();
}

std::vector<double> sequentialCalls(
    const QUrl &url, const QByteArray &token, int calls, QString *error)
{
    std::vector<double> latencies;
    latencies.reserve(std::size_t(calls));
    QWebSocket ws;
    QEventLoop loop;
    QTimer watchdog;
    watchdog.setSingleShot(true);
    int sent = 0;
    auto started = SteadyClock::now();
    auto sendNext = [&] {
        ++sent;
        const Json call { { "type", "tool_call" }, { "call_id", "c" + std::to_string(sent) },
            { "tool_name", "bench_op" },
            { "args",
                { { "path", "src/main.cpp" }, { "line", sent },
                    { "content", "int main() { return 0; }" } } } };
        started = SteadyClock::now();
        ws.sendTextMessage(QString::fromStdString(dumpJson(call)));
        watchdog.start(10'000);
    };
    QObject::connect(&ws, &QWebSocket::connected, &loop, [&] {
        for (QAbstractSocket *tcp : ws.findChildren<QAbstractSocket *>())
            tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        ws.sendTextMessage(QString::fromStdString(dumpJson(
            Json { { "type", "hello" }, { "protocol", 1 }, { "token", token.toStdString() },
                { "role", "agent" }, { "agent", { { "name", "bench" } } } })));
    });
    QObject::connect(&ws, &QWebSocket::textMessageReceived, &loop, [&](const QString &text) {
        const Json m = Json::parse(text.toStdString(), nullptr, false);
        const std::string type = m.value("type", std::string());
        if (type == "welcome")
            return sendNext();
        if (type != "decision") {
            *error = QStringLiteral("unexpected message: ") + text.left(200);
            return loop.quit();
        }
        if (m.value("decision", std::string()) != "allow") {
            *error = QStringLiteral("not allowed: ") + text.left(200);
            return loop.quit();
        }
        latencies.push_back(
            std::chrono::duration<double, std::micro>(SteadyClock::now() - started).count());
        if (sent >= calls)
            return loop.quit();
        sendNext();
    });
    QObject::connect(&ws, &QWebSocket::disconnected, &loop, [&] {
        if (int(latencies.size()) < calls && error->isEmpty())
            *error = QStringLiteral("disconnected: ") + ws.closeReason();
        loop.quit();
    });
    QObject::connect(&watchdog, &QTimer::timeout, &loop, [&] {
        *error = QStringLiteral("no answer within 10 s");
        loop.quit();
    });
    ws.open(url);
    watchdog.start(10'000);
    loop.exec();
    ws.close();
    return latencies;
}

Json runNodeBench(
    const QString &dir, const QString &script, const QProcessEnvironment &env, std::string *error)
{
    const QString folder = QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/") + dir;
    const std::string name = "tests/" + QString(dir + u'/' + script).toStdString();
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.setWorkingDirectory(folder);
    QProcessEnvironment all = QProcessEnvironment::systemEnvironment();
    all.insert(QStringLiteral("HOLDPOINT_BIN"), QStringLiteral(HOLDPOINT_BIN));
    all.insert(QStringLiteral("HOLDPOINT_CTL_BIN"), QStringLiteral(HOLDPOINT_CTL_BIN));
    all.insert(env);
    p.setProcessEnvironment(all);
    p.start(QStandardPaths::findExecutable(QStringLiteral("node")), { folder + u'/' + script });
    if (!p.waitForFinished(600'000) || p.exitStatus() != QProcess::NormalExit
        || p.exitCode() != 0) {
        *error = name + " failed";
        return {};
    }
    Json r = Json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
    if (!r.is_object()) {
        *error = name + " printed no JSON";
        return {};
    }
    return r;
}

} // namespace holdpoint::bench
