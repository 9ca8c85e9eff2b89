// SPDX-License-Identifier: Apache-2.0
// What a hook does when the console refuses, misbehaves or cannot be
// answered: --fail-open lets a call through only when no console can be
// asked (hookcommand.h, HookFailure). Against a console scripted frame by
// frame on loopback (common/scriptedconsole.h) and a real one.

#include "common/scriptedconsole.h"

#include <QDateTime>
#include <QDir>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// A PreToolUse with these extra top-level fields (agent_type, a large input).
QByteArray preRead(const Json &extra)
{
    Json in = Json::parse(PreRead);
    for (const auto &[k, v] : extra.items())
        in[k] = v;
    return QByteArray::fromStdString(dumpJson(in));
}

QByteArray frame(int first, const QByteArray &payload)
{
    QByteArray f;
    f += char(first);
    f += char(payload.size()); // under 126 bytes here
    return f + payload;
}

// A close code as its two bytes (RFC 6455 §5.5.1).
QByteArray code2(int code)
{
    const char bytes[2] = { char(code >> 8), char(code & 0xff) };
    return QByteArray(bytes, 2);
}

QByteArray closeFrame(int code)
{
    return frame(0x88, code2(code));
}

// The permissionDecision the hook printed; null for none (nothing printed).
Json permission(const CtlResult &r)
{
    const Json out = r.json();
    if (!out.is_object() || !out.contains("hookSpecificOutput")
        || !out["hookSpecificOutput"].is_object())
        return Json();
    return out["hookSpecificOutput"].value("permissionDecision", Json());
}

const QStringList FailOpen { QStringLiteral("--fail-open") };

} // namespace

class TestHookRefusals : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void agentNameFallsBack_data();
    void agentNameFallsBack();
    void realConsoleTakesAnyAgentType();
    void refusedBeforeWelcome_data();
    void refusedBeforeWelcome();
    void brokenProtocolBlocks_data();
    void brokenProtocolBlocks();
    void defaultMessageCap();
    void binaryMessagesIgnored();
    void controlFramesMidMessage();
    void handshakeConnectionToken();
    void handshakeHeadCapped();
    void answerNotWritten();
    void geminiNotesKept_data();
    void geminiNotesKept();
    void geminiLargeNotesRead();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ScriptedConsole> m_console;
};

void TestHookRefusals::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_console = std::make_unique<ScriptedConsole>();
    QVERIFY(m_console->listen());
    QVERIFY(writeEndpoint(m_dir->path(), m_console->url()));
}

void TestHookRefusals::agentNameFallsBack_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("name");
    QTest::newRow("subagent") << preRead({ { "agent_type", "Explore" } })
                              << QStringLiteral("Explore");
    QTest::newRow("none") << preRead(Json::object()) << QStringLiteral("claude-code");
    QTest::newRow("empty") << preRead({ { "agent_type", "" } }) << QStringLiteral("claude-code");
    QTest::newRow("257 bytes") << preRead({ { "agent_type", std::string(257, 'a') } })
                               << QStringLiteral("claude-code");
    QTest::newRow("256 bytes") << preRead({ { "agent_type", std::string(256, 'a') } })
                               << QString(256, u'a');
}

// agent_type goes into the hello only when the console takes it there.
void TestHookRefusals::agentNameFallsBack()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, name);
    auto hook = startHook(m_dir->path(), FailOpen, input);
    QVERIFY(m_console->accept());
    const Json hello = m_console->nextMessage();
    QCOMPARE(hello["agent"]["name"], Json(name.toStdString()));
    m_console->send({ { "type", "welcome" }, { "protocol", 1 }, { "session_id", "s-front" } });
    QCOMPARE(m_console->nextMessage()["type"], Json("tool_call"));
    m_console->send(Allow);
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(permission(r), Json("allow"));
}

// A real console refused an agent_type of 300 bytes in the hello, and with
// --fail-open the call ran unreviewed; it is now put to the console.
void TestHookRefusals::realConsoleTakesAnyAgentType()
{
    QFile policy(m_dir->filePath(QStringLiteral("policy.json")));
    QVERIFY(policy.open(QIODevice::WriteOnly));
    policy.write(R"({"default":"deny"})");
    policy.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy.fileName() });
    QVERIFY(console.ready());
    for (const std::string &type : { std::string(), std::string(300, 'x') }) {
        const CtlResult r
            = finish(*startHook(console.dataDir(), FailOpen, preRead({ { "agent_type", type } })));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(permission(r), Json("deny"));
    }
}

void TestHookRefusals::refusedBeforeWelcome_data()
{
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("failOpenExit");
    QTest::newRow("invalid_field") << QStringLiteral("invalid_field") << 2;
    QTest::newRow("connection_limit") << QStringLiteral("connection_limit") << 2;
    QTest::newRow("auth_failed") << QStringLiteral("auth_failed") << 2;
}

// An `error` before the welcome, and no close after it: the hook says so at
// once (not after its 10 s deadline), and blocks the call even with
// --fail-open: a refusal of any kind is a console that answered.
void TestHookRefusals::refusedBeforeWelcome()
{
    QFETCH(QString, code);
    QFETCH(int, failOpenExit);
    for (const bool failOpen : { false, true }) {
        if (failOpen)
            init();
        auto hook = startHook(m_dir->path(), failOpen ? FailOpen : QStringList {});
        QVERIFY(m_console->accept());
        QCOMPARE(m_console->nextMessage()["type"], Json("hello"));
        m_console->send({ { "type", "error" }, { "code", code.toStdString() },
            { "message", "agent.name: expected 1-256 bytes" } });
        // The refusal's own words below tell it from the 10 s deadline's.
        const CtlResult r = collect(*hook);
        QCOMPARE(r.exitCode, failOpen ? failOpenExit : 2);
        QCOMPARE(r.out, QByteArray());
        if (r.exitCode == 2)
            QCOMPARE(r.err,
                "Holdpoint blocked this call: the console refused the connection: " + code.toUtf8()
                    + ": agent.name: expected 1-256 bytes\n");
    }
}

void TestHookRefusals::brokenProtocolBlocks_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("clientClose"); // the hook's close code; 0: not checked
    QByteArray huge("\x81\x7f", 2);
    for (int i = 7; i >= 0; --i)
        huge += char((quint64(1) << 40) >> (8 * i));
    QTest::newRow("masked") << QByteArray("\x81\x82"
                                          "abcd"
                                          "\x1a\x1f",
        8) << 1002;
    QTest::newRow("reserved bits") << frame(0xc1, "{}") << 1002;
    QTest::newRow("past 32 MiB") << huge << 1009;
    QTest::newRow("long ping") << QByteArray("\x89\x7e\x00\xc8", 4) + QByteArray(200, 'p') << 1002;
    QTest::newRow("fragmented ping") << frame(0x09, "p") << 1002;
    QTest::newRow("unknown control") << frame(0x8b, "") << 1002;
    QTest::newRow("continuation first") << frame(0x80, "{}") << 1002;
    QTest::newRow("text mid-message") << frame(0x01, "{") + frame(0x81, "}") << 1002;
    QTest::newRow("not UTF-8") << frame(0x81, "{\"type\":\"\xff\xfe\"}") << 1007;
    QTest::newRow("overlong UTF-8") << frame(0x81, "{\"type\":\"\xc0\xaf\"}") << 1007;
    QTest::newRow("surrogate") << frame(0x81, "{\"type\":\"\xed\xa0\x80\"}") << 1007;
    QTest::newRow("not JSON") << frame(0x81, "nope") << 1008;
    QTest::newRow("type a number") << frame(0x81, R"({"type":5,"call_id":"toolu_front"})") << 0;
    for (const int code : { 1000, 1002, 1003, 1005, 1007, 1008, 1009, 1011 })
        QTest::newRow(qPrintable(QStringLiteral("close %1").arg(code)))
            << (code == 1005 ? frame(0x88, "") : closeFrame(code)) << 0;
}

// A console that answers, but breaks the protocol or closes for any reason
// but "going away", was asked: the call is blocked even with --fail-open.
void TestHookRefusals::brokenProtocolBlocks()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, clientClose);
    auto hook = startHook(m_dir->path(), FailOpen);
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    m_console->writeRaw(bytes);
    if (clientClose) {
        const auto close = m_console->nextFrame();
        QVERIFY(close);
        QCOMPARE(close->first, 0x8);
        QCOMPARE(close->second, code2(clientClose));
    }
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.out, QByteArray());
    QVERIFY2(r.err.startsWith("Holdpoint blocked this call: "), r.err.constData());
}

// A welcome without max_message_bytes: the protocol's default, 1 MiB, is the
// console's limit, and a call past it is blocked, not sent.
void TestHookRefusals::defaultMessageCap()
{
    auto hook = startHook(m_dir->path(), FailOpen,
        preRead({ { "tool_input", { { "file_path", std::string(1024 * 1024, 'p') } } } }));
    QVERIFY(m_console->accept());
    const auto hello = m_console->nextMessage();
    QCOMPARE(hello["type"], Json("hello"));
    m_console->send({ { "type", "welcome" }, { "protocol", 1 }, { "session_id", "s-front" } });
    const auto next = m_console->nextFrame();
    QVERIFY(next);
    QCOMPARE(next->first, 0x8); // a close, never the call
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("more than the console takes (1048576 bytes"), r.err.constData());
}

// The protocol is text only; a binary message is skipped, as the Qt client
// did, never taken as the console's answer.
void TestHookRefusals::binaryMessagesIgnored()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    Json deny = Allow;
    deny["decision"] = "deny";
    m_console->sendFrame(0x2, QByteArray::fromStdString(dumpJson(deny)));
    m_console->send(Allow);
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(permission(r), Json("allow"));
}

// A ping in the middle of a message just under the 32 MiB cap is no part of
// the message: answered, and the message taken.
void TestHookRefusals::controlFramesMidMessage()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    Json d = Allow;
    d["pad"] = "";
    const std::size_t cap = 32 * 1024 * 1024;
    d["pad"] = std::string(cap - 4 - dumpJson(d).size(), 'y');
    const QByteArray text = QByteArray::fromStdString(dumpJson(d));
    QCOMPARE(std::size_t(text.size()), cap - 4);
    m_console->sendFrame(0x1, text.left(text.size() - 10), false);
    m_console->sendFrame(0x9, QByteArray(100, 'p'));
    m_console->sendFrame(0x0, text.right(10), true);
    QVERIFY(m_console->waitPong(QByteArray(100, 'p')));
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(permission(r), Json("allow"));
}

// Connection is a list of tokens (RFC 7230 §6.1): "upgrade" must be one of
// them, not part of one.
void TestHookRefusals::handshakeConnectionToken()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept({}, "keep-alive, Upgrade"));
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    m_console->send(Allow);
    QCOMPARE(collect(*hook).exitCode, 0);

    for (const QByteArray &connection :
        { QByteArray("keep-alive, notupgrade"), QByteArray("upgraded") }) {
        init();
        const CtlResult r = [&] {
            auto h = startHook(m_dir->path());
            return m_console->accept({}, connection) ? collect(*h) : CtlResult {};
        }();
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.endsWith("the console's handshake response is not a WebSocket upgrade\n"),
            r.err.constData());
    }
    init();
    auto h = startHook(m_dir->path());
    QVERIFY(m_console->accept(
        "HTTP/1.1 1010 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));
    const CtlResult r = collect(*h);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("refused the WebSocket handshake (HTTP/1.1 1010"), r.err.constData());
}

// A handshake head past 16 KiB is refused, however much of it has arrived.
void TestHookRefusals::handshakeHeadCapped()
{
    auto hook = startHook(m_dir->path());
    QVERIFY(m_console->accept("HTTP/1.1 101 Switching Protocols\r\nX-Pad: "
        + QByteArray(20 * 1024, 'x') + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));
    const CtlResult r = collect(*hook);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.endsWith("the console's handshake response is larger than 16384 bytes\n"),
        r.err.constData());
}

// A decision the agent cannot read (stdout full) is no decision: blocked.
void TestHookRefusals::answerNotWritten()
{
    QProcess p;
    p.setStandardOutputFile(QStringLiteral("/dev/full"));
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), m_dir->path(), QStringLiteral("hook"),
            QStringLiteral("claude-code"), QStringLiteral("--fail-open") });
    p.write(PreRead);
    p.closeWriteChannel();
    QVERIFY(m_console->accept());
    QCOMPARE(m_console->welcome()["type"], Json("tool_call"));
    m_console->send(Allow);
    const CtlResult r = collect(p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("Holdpoint blocked this call: cannot write the answer to stdout: "),
        r.err.constData());
}

void TestHookRefusals::geminiNotesKept_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("BeforeAgent") << QByteArray(
        R"({"hook_event_name":"BeforeAgent","session_id":"s-gem","prompt":"hi"})");
    QTest::newRow("BeforeTool") << QByteArray(
        R"({"hook_event_name":"BeforeTool","session_id":"s-gem","tool_name":"read_file","tool_input":{"path":"x"}})");
    QTest::newRow("AfterTool") << QByteArray(
        R"({"hook_event_name":"AfterTool","session_id":"s-gem","tool_name":"read_file",
        "tool_input":{"path":"x"},"tool_response":{"llmContent":"x"}})");
}

// Gemini's notes that cannot be read are left as they are, and the call is
// blocked, even with --fail-open: written over, they would lose the calls
// whose results are still to be checked.
void TestHookRefusals::geminiNotesKept()
{
    QFETCH(QByteArray, input);
    const QString dir = m_dir->filePath(QStringLiteral("gemini-hook"));
    QVERIFY(QDir().mkpath(dir));
    QFile notes(dir + u'/'
        + QString::fromLatin1(QCryptographicHash::hash("s-gem", QCryptographicHash::Sha256).toHex())
        + u".json");
    QVERIFY(notes.open(QIODevice::WriteOnly));
    const QByteArray cut = R"({"calls":[{"call_id":"gm-1","tool_name":"read_file",)"; // cut short
    notes.write(cut);
    notes.close();
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), m_dir->path(), QStringLiteral("hook"),
            QStringLiteral("gemini"), QStringLiteral("--fail-open") });
    p.write(input);
    p.closeWriteChannel();
    const CtlResult r = finish(p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("are not a JSON object; they are left as they are"), r.err.constData());
    QVERIFY(notes.open(QIODevice::ReadOnly));
    QCOMPARE(notes.readAll(), cut);
}

// Notes past 64 MiB (1000 calls' arguments may be) are read whole, not cut
// and then written over.
void TestHookRefusals::geminiLargeNotesRead()
{
    const QString dir = m_dir->filePath(QStringLiteral("gemini-hook"));
    QVERIFY(QDir().mkpath(dir));
    QFile notes(dir + u'/'
        + QString::fromLatin1(QCryptographicHash::hash("s-gem", QCryptographicHash::Sha256).toHex())
        + u".json");
    QVERIFY(notes.open(QIODevice::WriteOnly));
    // Written and checked as bytes: a test's own JSON of 65 MiB is slow unoptimised.
    const QByteArray content(65 * 1024 * 1024, 'c');
    notes.write(R"({"calls":[{"call_id":"gm-1","tool_name":"write_file","args":[{"content":")"
        + content + R"("}],"at_ms":)" + QByteArray::number(QDateTime::currentMSecsSinceEpoch())
        + "}]}");
    notes.close();
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), m_dir->path(), QStringLiteral("hook"),
            QStringLiteral("gemini") });
    p.write(R"({"hook_event_name":"BeforeAgent","session_id":"s-gem","prompt":"hi"})");
    p.closeWriteChannel();
    const CtlResult r = finish(p);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(notes.open(QIODevice::ReadOnly));
    const QByteArray after = notes.readAll();
    const QByteArray start = R"({"calls":[{"args":[{"content":")" + content + R"("}],"at_ms":)";
    const QByteArray id = R"("call_id":"gm-1")";
    const QByteArray turn = R"("turn":"gt-)";
    QVERIFY(after.startsWith(start));
    QVERIFY(after.contains(id));
    QVERIFY(after.contains(turn));
}

QTEST_GUILESS_MAIN(TestHookRefusals)
#include "tst_hookrefusals.moc"
