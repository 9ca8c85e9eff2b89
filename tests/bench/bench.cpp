#include "bench.h"

#include "client/endpointinfo.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QHostAddress>
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
    m_failures.push_back({scenario, why});
}

void Table::print(bool quick) const
{
    std::printf("%-10s %-28s %-12s %14s %-6s %-22s %14s %8s  %s\n", "scenario", "variant", "figure", "value", "unit",
                "baseline", "baseline", "ratio", "target");
    for (const Row &r : m_rows) {
        const double ratio = r.baselineValue != 0 ? r.value / r.baselineValue : 0;
        std::printf("%-10s %-28s %-12s %14.2f %-6s %-22s %14.2f %8.2f  %s\n", r.scenario.c_str(), r.variant.c_str(),
                    r.figure.c_str(), r.value, r.unit.c_str(), r.baseline.c_str(), r.baselineValue, ratio,
                    r.target.c_str());
    }
    for (const auto &[scenario, why] : m_skipped)
        std::printf("%-10s skipped: %s\n", scenario.c_str(), why.c_str());
    for (const auto &[scenario, why] : m_failures)
        std::printf("%-10s FAILED: %s\n", scenario.c_str(), why.c_str());
    std::printf("(%s run; ratio = value / baseline, measured in the same run)\n", quick ? "quick" : "full");
}

Json Table::json(bool quick) const
{
    Json rows = Json::array();
    for (const Row &r : m_rows)
        rows.push_back({{"scenario", r.scenario}, {"variant", r.variant}, {"figure", r.figure}, {"unit", r.unit},
                        {"value", r.value}, {"baseline", r.baseline}, {"baseline_value", r.baselineValue},
                        {"ratio", r.baselineValue != 0 ? r.value / r.baselineValue : 0}, {"target", r.target}});
    Json skipped = Json::array();
    for (const auto &[scenario, why] : m_skipped)
        skipped.push_back({{"scenario", scenario}, {"why", why}});
    Json failures = Json::array();
    for (const auto &[scenario, why] : m_failures)
        failures.push_back({{"scenario", scenario}, {"why", why}});
    return Json {{"mode", quick ? "quick" : "full"}, {"rows", rows}, {"skipped", skipped}, {"failures", failures}};
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

std::unique_ptr<Child> startConsole(const QString &root, QString *error)
{
    auto child = std::make_unique<Child>();
    child->dataDir = root + QStringLiteral("/console");
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
                          {QStringLiteral("--headless"), QStringLiteral("--data-dir"), child->dataDir,
                           QStringLiteral("--policy"), policy, QStringLiteral("--max-connections"), QStringLiteral("2048")});
    if (!child->process->waitForStarted(10'000)) {
        *error = QStringLiteral("cannot start %1").arg(QStringLiteral(HOLDPOINT_BIN));
        return nullptr;
    }
    EndpointInfo info;
    QString why;
    for (int i = 0; i < 1000; ++i) {
        if (readEndpointInfo(child->dataDir, false, &info, &why) && info.pid == child->process->processId()) {
            child->url = info.url;
            child->agentToken = info.agentToken;
            return child;
        }
        QThread::msleep(10); // polling a file another process writes
    }
    *error = QStringLiteral("the console did not start: ") + why;
    return nullptr;
}

std::unique_ptr<Child> startEcho(const QString &syncFile, QString *error)
{
    auto child = std::make_unique<Child>();
    child->process = std::make_unique<QProcess>();
    child->process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QStringList args {QStringLiteral("--serve-echo")};
    if (!syncFile.isEmpty())
        args << QStringLiteral("--sync") << syncFile;
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
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string_view(argv[i]) == "--sync")
            syncPath = QString::fromLocal8Bit(argv[i + 1]);
    int fd = -1;
    if (!syncPath.isEmpty()) {
        fd = ::open(QFile::encodeName(syncPath).constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0)
            return 1;
    }
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
            QObject::connect(s, &QWebSocket::textMessageReceived, s, [s, fd](const QString &text) {
                // Parse and answer the same JSON the console would: a
                // welcome for hello, a decision carrying the args back.
                const std::string in = text.toStdString();
                const Json m = Json::parse(in, nullptr, false);
                Json answer;
                if (m.value("type", std::string()) == "hello") {
                    answer = {{"type", "welcome"}, {"protocol", 1}, {"server", "echo"},
                              {"session_id", m.value("session_id", std::string("s-echo"))}, {"resumed", false}};
                } else {
                    answer = {{"type", "decision"}, {"call_id", m.value("call_id", std::string())},
                              {"decision", "allow"}, {"args", m.value("args", Json::object())},
                              {"reason", "echo"}, {"decided_by", "echo"}, {"warnings", Json::array()}};
                }
                if (fd >= 0) {
                    const std::string line = in + "\n";
                    if (::write(fd, line.data(), line.size()) < 0 || ::fdatasync(fd) != 0)
                        return;
                }
                s->sendTextMessage(QString::fromStdString(dumpJson(answer)));
                s->flush();
            });
        }
    });
    std::printf("ws://127.0.0.1:%d/\n", tcp.serverPort());
    std::fflush(stdout);
    return app.exec();
}

std::vector<double> sequentialCalls(const QUrl &url, const QByteArray &token, int calls, QString *error)
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
        const Json call {{"type", "tool_call"},
                         {"call_id", "c" + std::to_string(sent)},
                         {"tool_name", "bench_op"},
                         {"args", {{"path", "src/main.cpp"}, {"line", sent}, {"content", "int main() { return 0; }"}}}};
        started = SteadyClock::now();
        ws.sendTextMessage(QString::fromStdString(dumpJson(call)));
        watchdog.start(10'000);
    };
    QObject::connect(&ws, &QWebSocket::connected, &loop, [&] {
        for (QAbstractSocket *tcp : ws.findChildren<QAbstractSocket *>())
            tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        ws.sendTextMessage(QString::fromStdString(dumpJson(
            Json {{"type", "hello"}, {"protocol", 1}, {"token", token.toStdString()}, {"role", "agent"},
                  {"agent", {{"name", "bench"}}}})));
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
        latencies.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - started).count());
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

} // namespace holdpoint::bench
