// SPDX-License-Identifier: Apache-2.0
// Nothing runs without a yes, from the seat of an agent that can stop, kill
// or flood the console, and of a process that squats its port: every C++
// client (the three hooks, mcp-proxy, holdpoint-ctl submit) denies a call
// whose console went silent, and fail-open lets a call through only when no
// console can be reached for it (core/wire/failopen.h, PROTOCOL.md "When
// the console cannot be asked"). Real `holdpoint --headless` processes,
// stopped with SIGSTOP, and listeners scripted on loopback.

#include "common/scriptedconsole.h"

#include <QElapsedTimer>
#include <QTcpServer>

#include <csignal>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// Short, so that each test stays fast; the shipped bound is 10 s.
constexpr int SilenceMs = 1000;

QProcessEnvironment shortSilence()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOLDPOINT_SILENCE_MS"), QString::number(SilenceMs));
    return env;
}

QByteArray fixture(const QString &path)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/") + path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::unique_ptr<QProcess> startCtl(
    const QString &dataDir, const QStringList &args, const QByteArray &input = {})
{
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(shortSilence());
    p->start(QStringLiteral(HOLDPOINT_CTL_BIN),
        QStringList { QStringLiteral("--data-dir"), dataDir } + args);
    if (!input.isEmpty()) {
        p->write(input);
        p->closeWriteChannel();
    }
    return p;
}

QString askPolicy(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("policy.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(R"({"default":"ask"})");
    return path;
}

// The console stopped (SIGSTOP) for as long as this lives, or until
// resume(), which says for how long; continued (SIGCONT) even when a check
// ends the test early, so a failure never leaves a stopped process behind.
class Stopped
{
public:
    explicit Stopped(ConsoleProcess &console)
        : m_pid(pid_t(console.process().processId()))
    {
        m_stopped = ::kill(m_pid, SIGSTOP) == 0;
        m_timer.start();
    }
    ~Stopped() { resume(); }
    Stopped(const Stopped &) = delete;
    Stopped &operator=(const Stopped &) = delete;

    bool ok() const { return m_stopped; }
    qint64 resume()
    {
        if (m_stopped) {
            m_took = m_timer.elapsed();
            m_stopped = false;
            m_resumed = ::kill(m_pid, SIGCONT) == 0;
        }
        return m_took;
    }
    bool resumed() const { return m_resumed; }

private:
    pid_t m_pid;
    bool m_stopped = false;
    bool m_resumed = false;
    qint64 m_took = -1;
    QElapsedTimer m_timer;
};

const QStringList FailOpen { QStringLiteral("--fail-open") };

// mcp-proxy with the scripted MCP server, its stdout collected.
struct Proxy
{
    std::unique_ptr<QProcess> p;
    QByteArray out;

    Proxy(const QString &dataDir, const QStringList &options)
    {
        p = startCtl(dataDir,
            QStringList { QStringLiteral("mcp-proxy") } + options
                + QStringList { QStringLiteral("--"), QStringLiteral("/usr/bin/python3"),
                    QStringLiteral(
                        HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/fake_mcp_server.py") });
        p->waitForStarted(WaitMs);
        send(
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    }
    ~Proxy()
    {
        p->closeWriteChannel();
        if (!p->waitForFinished(WaitMs))
            p->kill();
    }
    void send(const QByteArray &line) { p->write(line + '\n'); }
    // A tools/call of `tool` with id `id`, arguments {"n": id}.
    void call(int id, const char *tool = "danger")
    {
        send(QStringLiteral(
            R"({"jsonrpc":"2.0","id":%1,"method":"tools/call","params":{"name":"%2","arguments":{"n":%1}}})")
                 .arg(id)
                 .arg(QLatin1String(tool))
                 .toUtf8());
    }
    // The proxy's answer to request `id`, once it came; null until then.
    Json answer(int id, int timeoutMs = WaitMs)
    {
        Json found;
        (void)QTest::qWaitFor(
            [&] {
                out += p->readAllStandardOutput();
                for (const QByteArray &line : out.split('\n')) {
                    const Json j = Json::parse(line.toStdString(), nullptr, false);
                    if (j.is_object() && j.value("id", Json()) == Json(id)) {
                        found = j;
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }
};

// Whether an MCP answer is the server's result (the call ran).
bool ran(const Json &answer)
{
    return answer.is_object() && answer.contains("result")
        && !answer["result"].value("isError", false);
}

} // namespace

class TestHungConsole : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void hookDeniesStoppedConsole_data();
    void hookDeniesStoppedConsole();
    void hookPingsWhileWaiting();
    void hookEndsWaitBeforeAgentTimeout();
    void afterCallHookEndsWaitToo();
    void hookFailOpenRows_data();
    void hookFailOpenRows();
    void proxyDeniesStoppedConsole();
    void proxyFailOpenRows_data();
    void proxyFailOpenRows();
    void proxyBlocksCallOfKilledConsole();
    void proxyReconnectsAfterRestart_data();
    void proxyReconnectsAfterRestart();
    void proxyErrorWithoutCallId();
    void submitDeniesStoppedConsole();
};

void TestHungConsole::hookDeniesStoppedConsole_data()
{
    QTest::addColumn<QString>("hook");
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("claude-code") << QStringLiteral("claude-code")
                                 << fixture(QStringLiteral("claude-code/pre_read.json"));
    QTest::newRow("codex") << QStringLiteral("codex")
                           << fixture(QStringLiteral("codex/pre_bash.json"));
    QTest::newRow("gemini") << QStringLiteral("gemini")
                            << fixture(QStringLiteral("gemini/before_write_file.json"));
}

// The agent stops the console (SIGSTOP) while a call waits for a person:
// the hook blocks it within the silence bound, with or without --fail-open,
// and the person's approval after SIGCONT reaches nobody.
void TestHungConsole::hookDeniesStoppedConsole()
{
    QFETCH(QString, hook);
    QFETCH(QByteArray, input);
    QVERIFY(!input.isEmpty());
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"), askPolicy(dir) });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    for (const bool failOpen : { false, true }) {
        // A call id of its own each time: a decided one would be answered
        // again from the console's memory.
        Json in = Json::parse(input.toStdString());
        if (in.contains("tool_use_id"))
            in["tool_use_id"] = failOpen ? "call_open" : "call_closed";
        auto p = startCtl(console.dataDir(),
            QStringList { QStringLiteral("hook"), hook } + (failOpen ? FailOpen : QStringList {}),
            QByteArray::fromStdString(dumpJson(in)));
        const Json item = reviewer->next("escalated")["item"];
        QVERIFY(item.is_object());
        Stopped stopped(console);
        QVERIFY(stopped.ok());
        const CtlResult r = collect(*p);
        const qint64 took = stopped.resume();
        QVERIFY(stopped.resumed());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QByteArray());
        QVERIFY2(r.err.contains("went silent (no answer to pings for 1000 ms)"), r.err.constData());
        // The message names the bound; this rules out an end that came from
        // something else (the test's own timeout), with room for a loaded machine.
        QVERIFY2(took < SilenceMs * 10, qPrintable(QString::number(took)));
        // The late approval: the hook is gone, so the call never runs.
        reviewer->send({ { "type", "review" }, { "id", item["id"] }, { "action", "approve" } });
        const Json answer = reviewer->next("resolved");
        QVERIFY(answer.is_object());
        QCOMPARE(p->state(), QProcess::NotRunning);
    }
}

// While it waits, the hook pings; a console that answers them keeps the
// call waiting past the silence bound, and one that stops answering ends it.
void TestHungConsole::hookPingsWhileWaiting()
{
    QTemporaryDir dir;
    ScriptedConsole console;
    QVERIFY(console.listen());
    QVERIFY(writeEndpoint(dir.path(), console.url()));
    auto p
        = startCtl(dir.path(), { QStringLiteral("hook"), QStringLiteral("claude-code") }, PreRead);
    QVERIFY(console.accept());
    QCOMPARE(console.welcome()["type"], Json("tool_call"));
    QVERIFY(QTest::qWaitFor([&] { return console.pings() >= 2; }, WaitMs));
    // A pong for each ping, for three silence bounds: still waiting.
    QElapsedTimer t;
    t.start();
    int answered = 0;
    while (t.elapsed() < SilenceMs * 3) {
        QTest::qWait(50);
        for (const int pings = console.pings(); answered < pings; ++answered)
            console.sendFrame(0xA, "hp");
    }
    QCOMPARE(p->state(), QProcess::Running);
    // Silent from here: blocked.
    const CtlResult r = collect(*p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("went silent"), r.err.constData());
}

// A console whose own timeout is longer than the agent CLI's (330 s in the
// shipped snippets) would let the CLI's timeout decide, and Codex and Gemini
// CLI run the call then. The hook ends the wait itself, with a block and a
// cancel (HOLDPOINT_HOOK_WAIT_MS shortens its 320 s here).
void TestHungConsole::hookEndsWaitBeforeAgentTimeout()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"), askPolicy(dir) });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = shortSilence();
    env.insert(QStringLiteral("HOLDPOINT_HOOK_WAIT_MS"), QStringLiteral("2500"));
    p->setProcessEnvironment(env);
    p->start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), console.dataDir(), QStringLiteral("hook"),
            QStringLiteral("codex") });
    p->write(fixture(QStringLiteral("codex/pre_bash.json")));
    p->closeWriteChannel();
    const Json item = reviewer->next("escalated")["item"];
    QVERIFY(item.is_object());
    const CtlResult r = collect(*p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no answer within 2 s"), r.err.constData());
    const Json resolved = reviewer->next("resolved");
    QCOMPARE(resolved["id"], item["id"]);
    QCOMPARE(resolved["state"], Json("cancelled"));
}

// A PostToolUse hook gets 30 s from the snippets: a console that answers
// pings but never the tool_result does not outlast it either, and no cancel
// goes out for a call that already ran.
void TestHungConsole::afterCallHookEndsWaitToo()
{
    QTemporaryDir dir;
    ScriptedConsole console;
    QVERIFY(console.listen());
    QVERIFY(writeEndpoint(dir.path(), console.url()));
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = shortSilence();
    env.insert(QStringLiteral("HOLDPOINT_HOOK_WAIT_MS"), QStringLiteral("2500"));
    p->setProcessEnvironment(env);
    p->start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), dir.path(), QStringLiteral("hook"),
            QStringLiteral("claude-code") });
    p->write(fixture(QStringLiteral("claude-code/post_bash_failed.json")));
    p->closeWriteChannel();
    QVERIFY(console.accept());
    QCOMPARE(console.welcome()["type"], Json("tool_result"));
    int answered = 0;
    QVERIFY(QTest::qWaitFor(
        [&] {
            for (const int pings = console.pings(); answered < pings; ++answered)
                console.sendFrame(0xA, "hp");
            return p->state() == QProcess::NotRunning;
        },
        WaitMs));
    const CtlResult r = collect(*p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no answer within 2 s"), r.err.constData());
    QVERIFY(answered >= 2); // it pinged, and heard the pongs, all along
    const auto last = console.nextFrame();
    QVERIFY(last);
    QCOMPARE(last->first, 0x8); // a close, no cancel
}

void TestHungConsole::hookFailOpenRows_data()
{
    QTest::addColumn<QString>("row");
    QTest::addColumn<int>("failOpenExit");
    QTest::addColumn<QString>("hook");
    QTest::addColumn<QByteArray>("input");
    const struct
    {
        const char *name, *row;
        int exit;
        bool everyHook; // the quick rows run against all three hooks
    } rows[] = {
        { "no endpoint file", "absent", 0, true },
        { "connection refused", "refused", 0, true },
        { "squatter says nothing", "silent", 2, false },
        { "squatter speaks HTTP", "http", 2, true },
        { "squatter sends garbage", "garbage", 2, true },
        { "only binary frames", "binary", 2, false },
        { "welcome for protocol 2", "protocol2", 2, true },
        { "connection_limit", "connection_limit", 2, true },
        { "auth_failed", "auth_failed", 2, true },
        { "closed after the call", "closed", 2, true },
        { "silent after the call", "stalled", 2, true },
    };
    const struct
    {
        const char *hook;
        QByteArray input;
    } hooks[] = {
        { "claude-code", PreRead },
        { "codex", fixture(QStringLiteral("codex/pre_bash.json")) },
        { "gemini", fixture(QStringLiteral("gemini/before_write_file.json")) },
    };
    for (const auto &h : hooks)
        for (const auto &r : rows)
            if (r.everyHook || h.hook == std::string_view("claude-code"))
                QTest::newRow(qPrintable(
                    QStringLiteral("%1: %2").arg(QLatin1String(h.hook), QLatin1String(r.name))))
                    << QString::fromLatin1(r.row) << r.exit << QString::fromLatin1(h.hook)
                    << h.input;
}

// Each row of the fail-open table against the hooks with --fail-open: only
// "no console reachable" lets the call through.
void TestHungConsole::hookFailOpenRows()
{
    QFETCH(QString, row);
    QFETCH(int, failOpenExit);
    QFETCH(QString, hook);
    QFETCH(QByteArray, input);
    QTemporaryDir dir;
    ScriptedConsole console;
    QVERIFY(console.listen());
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    const QString squatUrl = QStringLiteral("ws://127.0.0.1:%1").arg(squatter.serverPort());
    if (row == u"refused") {
        QTcpServer gone;
        QVERIFY(gone.listen(QHostAddress::LocalHost, 0));
        const QString url = QStringLiteral("ws://127.0.0.1:%1").arg(gone.serverPort());
        gone.close();
        QVERIFY(writeEndpoint(dir.path(), url));
    } else if (row == u"silent" || row == u"http" || row == u"garbage") {
        QVERIFY(writeEndpoint(dir.path(), squatUrl));
    } else if (row != u"absent") {
        QVERIFY(writeEndpoint(dir.path(), console.url()));
    }
    QElapsedTimer t;
    t.start();
    auto p = startCtl(
        dir.path(), { QStringLiteral("hook"), hook, QStringLiteral("--fail-open") }, input);
    QTcpSocket *peer = nullptr;
    if (row == u"silent" || row == u"http" || row == u"garbage") {
        QVERIFY(QTest::qWaitFor([&] { return squatter.hasPendingConnections(); }, WaitMs));
        peer = squatter.nextPendingConnection();
        if (row == u"http")
            peer->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
        else if (row == u"garbage")
            peer->write(QByteArray(64, '\x07') + "\r\n\r\n"); // a head, of garbage
        peer->flush();
    } else if (row != u"absent" && row != u"refused") {
        QVERIFY(console.accept());
        if (row == u"binary") {
            QCOMPARE(console.nextMessage()["type"], Json("hello"));
            console.sendFrame(0x2, R"({"type":"welcome","protocol":1})");
        } else if (row == u"protocol2") {
            QCOMPARE(console.nextMessage()["type"], Json("hello"));
            console.send({ { "type", "welcome" }, { "protocol", 2 }, { "session_id", "s" } });
        } else if (row == u"connection_limit" || row == u"auth_failed") {
            QCOMPARE(console.nextMessage()["type"], Json("hello"));
            console.send(
                { { "type", "error" }, { "code", row.toStdString() }, { "message", "no" } });
        } else {
            const Json call = console.welcome();
            QCOMPARE(call["type"], Json("tool_call"));
            console.send({ { "type", "pending" }, { "call_id", call["call_id"] }, { "id", "i1" },
                { "reason", "waits" } });
            if (row == u"closed")
                console.sendFrame(0x8, QByteArray("\x03\xe9going away", 12));
        }
    }
    const CtlResult r = collect(*p);
    QCOMPARE(r.exitCode, failOpenExit);
    QCOMPARE(r.out, QByteArray());
    if (failOpenExit == 2)
        QVERIFY2(r.err.startsWith("Holdpoint blocked this call: "), r.err.constData());
    // No row waits past the hook's 10 s connect deadline (with room for a loaded machine).
    QVERIFY2(t.elapsed() < 10'000 + WaitMs, qPrintable(QString::number(t.elapsed())));
}

// mcp-proxy: the console stopped while a call waits; the MCP client gets an
// error within the silence bound, the server never gets the call, and after
// SIGCONT the next call is put to the console again.
void TestHungConsole::proxyDeniesStoppedConsole()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"), askPolicy(dir) });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    Proxy proxy(console.dataDir(), FailOpen);
    QVERIFY(!proxy.answer(1).is_null());
    proxy.call(10);
    const Json item = reviewer->next("escalated")["item"];
    QVERIFY(item.is_object());
    Stopped stopped(console);
    QVERIFY(stopped.ok());
    const Json answer = proxy.answer(10);
    const qint64 took = stopped.resume();
    QVERIFY(stopped.resumed());
    QVERIFY(answer.is_object());
    QVERIFY(!ran(answer));
    QVERIFY2(dumpJson(answer).find("went silent") != std::string::npos, dumpJson(answer).c_str());
    // The message names the bound; this rules out an end that came from
    // something else (the test's own timeout), with room for a loaded machine.
    QVERIFY2(took < SilenceMs * 10, qPrintable(QString::number(took)));
    reviewer->send({ { "type", "review" }, { "id", item["id"] }, { "action", "approve" } });
    (void)reviewer->next("resolved", 2000);
    // The next call: asked again, and decided by the person.
    proxy.call(11);
    const Json again = reviewer->next("escalated")["item"];
    QVERIFY(again.is_object());
    reviewer->send({ { "type", "review" }, { "id", again["id"] }, { "action", "approve" } });
    QVERIFY(ran(proxy.answer(11)));
    QVERIFY(!ran(proxy.answer(10, 0))); // the late approval ran nothing
}

void TestHungConsole::proxyFailOpenRows_data()
{
    QTest::addColumn<QString>("row");
    QTest::addColumn<bool>("forwarded");
    QTest::newRow("no endpoint file") << QStringLiteral("absent") << true;
    QTest::newRow("connection refused") << QStringLiteral("refused") << true;
    QTest::newRow("squatter says nothing") << QStringLiteral("silent") << false;
    QTest::newRow("squatter sends garbage") << QStringLiteral("garbage") << false;
    QTest::newRow("welcome for protocol 2") << QStringLiteral("protocol2") << false;
    QTest::newRow("connection_limit") << QStringLiteral("connection_limit") << false;
    QTest::newRow("not a JSON object") << QStringLiteral("array") << false;
}

// The fail-open table against mcp-proxy --fail-open.
void TestHungConsole::proxyFailOpenRows()
{
    QFETCH(QString, row);
    QFETCH(bool, forwarded);
    QTemporaryDir dir;
    ScriptedConsole console;
    QVERIFY(console.listen());
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    if (row == u"refused") {
        QTcpServer gone;
        QVERIFY(gone.listen(QHostAddress::LocalHost, 0));
        const QString url = QStringLiteral("ws://127.0.0.1:%1").arg(gone.serverPort());
        gone.close();
        QVERIFY(writeEndpoint(dir.path(), url));
    } else if (row == u"silent" || row == u"garbage") {
        QVERIFY(writeEndpoint(
            dir.path(), QStringLiteral("ws://127.0.0.1:%1").arg(squatter.serverPort())));
    } else if (row != u"absent") {
        QVERIFY(writeEndpoint(dir.path(), console.url()));
    }
    Proxy proxy(dir.path(), FailOpen);
    QVERIFY(!proxy.answer(1).is_null());
    if (row == u"silent" || row == u"garbage") {
        QVERIFY(QTest::qWaitFor([&] { return squatter.hasPendingConnections(); }, WaitMs));
        QTcpSocket *peer = squatter.nextPendingConnection();
        if (row == u"garbage")
            peer->write(QByteArray(64, '\x07'));
        peer->flush();
    } else if (row != u"absent" && row != u"refused") {
        QVERIFY(console.accept());
        QCOMPARE(console.nextMessage()["type"], Json("hello"));
        if (row == u"protocol2")
            console.send({ { "type", "welcome" }, { "protocol", 2 }, { "session_id", "s" } });
        else if (row == u"connection_limit")
            console.send({ { "type", "error" }, { "code", "connection_limit" },
                { "message", "the console already serves 512 connections" } });
        else
            console.sendFrame(0x1, "[1]");
    }
    proxy.call(10);
    const Json answer = proxy.answer(10, WaitMs + 5000);
    QVERIFY(answer.is_object());
    QCOMPARE(ran(answer), forwarded);
}

// An agent kills the console while its call waits for a person: the call is
// refused even with --fail-open, and so is nothing later (the port is
// closed: fail-open forwards); once the console is back, calls are asked
// again.
void TestHungConsole::proxyBlocksCallOfKilledConsole()
{
    QTemporaryDir dir;
    const QString policy = askPolicy(dir);
    const QString data = dir.filePath(QStringLiteral("data"));
    auto console = std::make_unique<ConsoleProcess>(
        data, QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(console->ready());
    auto reviewer = console->reviewer();
    QVERIFY(reviewer);
    Proxy proxy(data, FailOpen);
    QVERIFY(!proxy.answer(1).is_null());
    proxy.call(10);
    QVERIFY(reviewer->next("escalated").is_object());
    console->process().kill();
    QVERIFY(console->process().waitForFinished(WaitMs));
    QVERIFY(!ran(proxy.answer(10)));
    // endpoint.json is left behind by a killed console; nothing listens.
    proxy.call(11, "echo");
    QVERIFY(ran(proxy.answer(11)));
    reviewer.reset();
    console = std::make_unique<ConsoleProcess>(
        data, QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(console->ready());
    reviewer = console->reviewer();
    QVERIFY(reviewer);
    proxy.call(12);
    const Json item = reviewer->next("escalated")["item"];
    QVERIFY(item.is_object());
    reviewer->send(
        { { "type", "review" }, { "id", item["id"] }, { "action", "deny" }, { "reason", "no" } });
    const Json denied = proxy.answer(12);
    QVERIFY(!ran(denied));
    QVERIFY2(dumpJson(denied).find("Denied by Holdpoint") != std::string::npos,
        dumpJson(denied).c_str());
}

void TestHungConsole::proxyReconnectsAfterRestart_data()
{
    QTest::addColumn<bool>("failOpen");
    QTest::newRow("fail closed") << false;
    QTest::newRow("fail open") << true;
}

// The console restarts (a new token): the proxy reads endpoint.json again
// on the next call, and the new console decides it.
void TestHungConsole::proxyReconnectsAfterRestart()
{
    QFETCH(bool, failOpen);
    QTemporaryDir dir;
    const QString policy = askPolicy(dir);
    const QString data = dir.filePath(QStringLiteral("data"));
    auto console = std::make_unique<ConsoleProcess>(
        data, QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(console->ready());
    auto reviewer = console->reviewer();
    QVERIFY(reviewer);
    Proxy proxy(data, failOpen ? FailOpen : QStringList {});
    QVERIFY(!proxy.answer(1).is_null());
    proxy.call(10);
    Json item = reviewer->next("escalated")["item"];
    reviewer->send({ { "type", "review" }, { "id", item["id"] }, { "action", "approve" } });
    QVERIFY(ran(proxy.answer(10)));
    reviewer.reset();
    console->process().terminate();
    QVERIFY(console->process().waitForFinished(WaitMs));
    console = std::make_unique<ConsoleProcess>(
        data, QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(console->ready());
    reviewer = console->reviewer();
    QVERIFY(reviewer);
    proxy.call(11);
    item = reviewer->next("escalated")["item"];
    QVERIFY(item.is_object());
    reviewer->send({ { "type", "review" }, { "id", item["id"] }, { "action", "approve" } });
    QVERIFY(ran(proxy.answer(11)));
}

// Arguments nested 80 deep: the console answers too_deep without a call_id
// (it could not read that far); the proxy refuses the call at once instead
// of waiting for the MCP client's timeout.
void TestHungConsole::proxyErrorWithoutCallId()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"), askPolicy(dir) });
    QVERIFY(console.ready());
    Proxy proxy(console.dataDir(), {});
    QVERIFY(!proxy.answer(1).is_null());
    QByteArray nested = "0";
    for (int i = 0; i < 80; ++i)
        nested = "{\"n\":" + nested + "}";
    proxy.send(
        R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"danger","arguments":{"deep":)"
        + nested + "}}}");
    const Json answer = proxy.answer(10);
    QVERIFY(!ran(answer));
    QVERIFY2(dumpJson(answer).find("too_deep") != std::string::npos, dumpJson(answer).c_str());
}

// holdpoint-ctl submit: the console stopped while the call waits; it fails
// (exit 2, never 0) within the silence bound.
void TestHungConsole::submitDeniesStoppedConsole()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"), askPolicy(dir) });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto p = startCtl(console.dataDir(),
        { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("write_file"),
            QStringLiteral("--args"), QStringLiteral(R"({"path":"x"})") });
    QVERIFY(reviewer->next("escalated").is_object());
    Stopped stopped(console);
    QVERIFY(stopped.ok());
    const CtlResult r = collect(*p);
    const qint64 took = stopped.resume();
    QVERIFY(stopped.resumed());
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.out, QByteArray());
    QVERIFY2(r.err.contains("went silent"), r.err.constData());
    // The message names the bound; this rules out an end that came from
    // something else (the test's own timeout), with room for a loaded machine.
    QVERIFY2(took < SilenceMs * 10, qPrintable(QString::number(took)));
}

QTEST_GUILESS_MAIN(TestHungConsole)
#include "tst_hungconsole.moc"
