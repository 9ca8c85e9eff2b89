// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl's front (app/holdpoint-ctl/front.cpp): its own WebSocket
// client (core/wire/websocket.h) against a console scripted frame by frame
// on loopback, against a real console, and the hand-off of every other
// command to the full program. Real processes throughout.

#include "common/scriptedconsole.h"

using namespace holdpoint;
using namespace holdpoint::test;

class TestHookFront : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void fragmentedDecisionWithPings();
    void largeDecision();
    void closedMidWait_data();
    void closedMidWait();
    void oversizedFrame();
    void handshakeRefused_data();
    void handshakeRefused();
    void consoleNotRunning();
    void wrongToken();
    void realConsoleAnswers();
    void handOff();
    void handOffPassesStdinAndEnvironment();

private:
    // `text` in a file of the test's directory; its path.
    QString writeFile(const QString &name, const char *text)
    {
        QFile f(m_dir->filePath(name));
        if (f.open(QIODevice::WriteOnly))
            f.write(text);
        return f.fileName();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    ScriptedConsole *m_console = nullptr;
    std::unique_ptr<ScriptedConsole> m_owned;
};

void TestHookFront::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_owned = std::make_unique<ScriptedConsole>();
    m_console = m_owned.get();
    QVERIFY(m_console->listen());
    QVERIFY(writeEndpoint(m_dir->path(), m_console->url()));
}

// A person takes their time: `pending`, pings the hook must answer (or the
// console's idle timeout drops it), and a decision in three fragments with a
// ping between them (RFC 6455 §5.4: control frames may come mid-message).
void TestHookFront::fragmentedDecisionWithPings()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept());
    const Json call = m_console->welcome();
    QCOMPARE(call["type"], Json("tool_call"));
    QCOMPARE(call["call_id"], Json("toolu_front"));
    m_console->send({ { "type", "pending" }, { "call_id", "toolu_front" }, { "id", "item1" },
        { "reason", "a person decides" } });
    for (const QByteArray &ping : { QByteArray("wait-1"), QByteArray("wait-2") }) {
        m_console->sendFrame(0x9, ping);
        QVERIFY(m_console->waitPong(ping));
    }
    QCOMPARE(hook->state(), QProcess::Running);
    const QByteArray text = QByteArray::fromStdString(dumpJson(Allow));
    m_console->sendFrame(0x1, text.left(10), false);
    m_console->sendFrame(0x9, "mid-message");
    m_console->sendFrame(0x0, text.mid(10, 20), false);
    m_console->sendFrame(0x0, text.mid(30), true);
    QVERIFY(m_console->waitPong("mid-message"));
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(Json::parse(r.out.toStdString()),
        Json::parse(
            R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}})"));
    QCOMPARE(r.err, QByteArray());
    // The hook closes with 1000 once answered.
    const auto close = m_console->nextFrame();
    QVERIFY(close);
    QCOMPARE(close->first, 0x8);
    QCOMPARE(close->second, QByteArray("\x03\xe8", 2));
}

// A decision past 64 KiB (a 64-bit length, many reads) with edited args.
void TestHookFront::largeDecision()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    Json d = Allow;
    d["decision"] = "modify";
    d["args"] = { { "file_path", "/tmp/x" }, { "pad", std::string(300 * 1024, 'y') } };
    m_console->send(d);
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["hookSpecificOutput"]["updatedInput"], d["args"]);
}

void TestHookFront::closedMidWait_data()
{
    QTest::addColumn<bool>("closeFrame");
    QTest::addColumn<QByteArray>("why");
    QTest::newRow("close frame") << true
                                 << QByteArray("Holdpoint blocked this call: the console closed "
                                               "the connection (close code 1001 going away)\n");
    QTest::newRow("connection dropped")
        << false << QByteArray("Holdpoint blocked this call: the console closed the connection\n");
}

// The console goes away while the hook waits for a person: blocked, even
// with --fail-open. The console had the call, perhaps before a person, and
// an agent can kill it: going away must not approve the call.
void TestHookFront::closedMidWait()
{
    QFETCH(bool, closeFrame);
    QFETCH(QByteArray, why);
    for (const bool failOpen : { false, true }) {
        if (failOpen)
            init();
        auto hook = startHook(m_dir->path(),
            failOpen ? QStringList { QStringLiteral("--fail-open") } : QStringList {});
        QVERIFY(m_console->accept());
        QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
        m_console->send({ { "type", "pending" }, { "call_id", "toolu_front" }, { "id", "item1" },
            { "reason", "waits" } });
        if (closeFrame)
            m_console->sendFrame(0x8, QByteArray("\x03\xe9going away", 12));
        else
            m_console->abort();
        const CtlResult r = collect(*hook);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.err, why);
    }
}

// A frame whose length is past the client's cap is refused before a byte of
// it is read: close 1009 (RFC 6455 §7.4.1), the call blocked.
void TestHookFront::oversizedFrame()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    QByteArray header("\x81\x7f", 2);
    for (int i = 7; i >= 0; --i)
        header += char((quint64(1) << 40) >> (8 * i));
    m_console->writeRaw(header + "{\"type\":");
    const auto close = m_console->nextFrame();
    QVERIFY(close);
    QCOMPARE(close->first, 0x8);
    QCOMPARE(close->second, QByteArray("\x03\xf1", 2));
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
        QByteArray("Holdpoint blocked this call: the console broke the protocol: the console sent "
                   "a message "
                   "larger than 33554432 bytes\n"));
}

void TestHookFront::handshakeRefused_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<QByteArray>("why");
    QTest::newRow("403")
        << QByteArray("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        << QByteArray("the console refused the WebSocket handshake (HTTP/1.1 403 Forbidden)");
    QTest::newRow("wrong accept")
        << QByteArray(
               "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        << QByteArray("the console's handshake has a wrong Sec-WebSocket-Accept");
    QTest::newRow("no upgrade")
        << QByteArray("HTTP/1.1 101 Switching Protocols\r\n\r\n")
        << QByteArray("the console's handshake response is not a WebSocket upgrade");
}

void TestHookFront::handshakeRefused()
{
    QFETCH(QByteArray, response);
    QFETCH(QByteArray, why);
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept(response));
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
        "Holdpoint blocked this call: cannot connect to the console at " + m_console->url().toUtf8()
            + ": " + why + "\n");
}

// endpoint.json names a port nobody listens on (a console that crashed).
void TestHookFront::consoleNotRunning()
{
    const QString url = m_console->url();
    m_owned.reset(); // the port is free again
    const CtlResult blocked = finish(*startHook(m_dir->path()));
    QCOMPARE(blocked.exitCode, 2);
    QCOMPARE(blocked.err,
        "Holdpoint blocked this call: cannot connect to the console at " + url.toUtf8()
            + ": Connection refused\n");
    const CtlResult open = finish(*startHook(m_dir->path(), { QStringLiteral("--fail-open") }));
    QCOMPARE(open.exitCode, 0);
    QCOMPARE(open.out, QByteArray());
    QCOMPARE(open.err, QByteArray());
}

// A real console refuses a wrong agent token with an error and a close; the
// hook says so, and blocks the call even with --fail-open: a console
// answered, so one can be reached (wire/failopen.h).
void TestHookFront::wrongToken()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    QVERIFY(writeEndpoint(m_dir->path(), console.info().url.toString(), "not-the-token"));
    const CtlResult r = finish(*startHook(m_dir->path()));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith(
                 "Holdpoint blocked this call: the console refused the connection: auth_failed: "),
        r.err.constData());
    QCOMPARE(finish(*startHook(m_dir->path(), { QStringLiteral("--fail-open") })).exitCode, 2);
}

// The whole path against a real console: its welcome, its decision, its
// ping/close handling (the console's own QWebSocketServer).
void TestHookFront::realConsoleAnswers()
{
    const QString policy = writeFile(QStringLiteral("policy.json"),
        R"({"default":"ask","guardrails":[{"type":"rules","rules":[{"match":"Read","action":"allow","reason":"reads"}]}]})");
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    const CtlResult r = finish(*startHook(console.dataDir()));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["hookSpecificOutput"]["permissionDecision"], Json("allow"));
    QCOMPARE(r.json()["hookSpecificOutput"]["permissionDecisionReason"], Json("reads"));
}

// Every command but the hooks runs in the full program, which gets the
// same argv, stdio and exit code.
void TestHookFront::handOff()
{
    auto run = [](const QStringList &args) {
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
        p.closeWriteChannel();
        return finish(p);
    };
    CtlResult r = run({ QStringLiteral("--version") });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("holdpoint-ctl " HOLDPOINT_VERSION "\n"));
    r = run({ QStringLiteral("no-such-command") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.startsWith("holdpoint-ctl: unknown command \"no-such-command\""), r.err.constData());
    // A hook's --help goes to the full program too, which blocks it off a terminal.
    r = run({ QStringLiteral("hook"), QStringLiteral("claude-code"), QStringLiteral("--help") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.startsWith("Holdpoint blocked this call: `hook claude-code --help` answers a person"),
        r.err.constData());
    r = run({ QStringLiteral("hook"), QStringLiteral("copilot") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.startsWith("holdpoint-ctl: hook: expected `hook claude-code`"), r.err.constData());
    // policy check's own code, 1, passes through.
    r = run({ QStringLiteral("policy"), QStringLiteral("check"),
        writeFile(QStringLiteral("bad.json"), R"({"default":"sometimes"})") });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("unknown action \"sometimes\""), r.err.constData());
    // --credential with a hook is the full program's usage error.
    r = run({ QStringLiteral("--credential"), QStringLiteral("x.json"), QStringLiteral("hook"),
        QStringLiteral("claude-code") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("holdpoint-ctl: --credential is a reviewer's"), r.err.constData());
}

// `submit --args @-` reads the full program's stdin, and HOLDPOINT_DATA_DIR
// reaches it: the hand-off keeps both.
void TestHookFront::handOffPassesStdinAndEnvironment()
{
    ConsoleProcess console({ QStringLiteral("--policy"),
        writeFile(QStringLiteral("policy.json"), R"({"default":"allow"})") });
    QVERIFY(console.ready());
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOLDPOINT_DATA_DIR"), console.dataDir());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("write_file"),
            QStringLiteral("--args"), QStringLiteral("@-"), QStringLiteral("--call-id"),
            QStringLiteral("from-stdin") });
    p.write(R"({"path":"notes.txt","content":"from stdin"})");
    p.closeWriteChannel();
    const CtlResult r = finish(p);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["decision"], Json("allow"));
    QCOMPARE(r.json()["call_id"], Json("from-stdin"));
    QCOMPARE(r.json()["args"]["content"], Json("from stdin"));
}

QTEST_GUILESS_MAIN(TestHookFront)
#include "tst_hookfront.moc"
