// SPDX-License-Identifier: Apache-2.0
// The bad-input catalogue (README.md beside this file): each class of bad
// input against a real endpoint and console, its defined outcome, and a
// well-behaved client served all the while.

#include "audit/auditfile.h"
#include "common/inprocessconsole.h"
#include "common/rawws.h"
#include "common/testsocket.h"
#include "engine/broker.h"
#include "engine/consolecore.h"
#include "queuemodel.h"

#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

struct Console : InProcessConsole
{
    using InProcessConsole::InProcessConsole;
    // A well-behaved agent still gets served.
    bool stillServes()
    {
        TestSocket s;
        if (!s.hello(url(), agentToken()).is_object())
            return false;
        s.send(Json { { "type", "tool_call" }, { "call_id", "ok-" + std::to_string(++probes) },
            { "tool_name", "read_file" }, { "args", { { "path", "a" } } } });
        return s.next("pending").is_object();
    }
    // The first error the raw client received, parsed.
    static Json firstError(const RawWebSocket &raw)
    {
        const QByteArray &d = raw.received();
        const qsizetype at = d.indexOf("{\"code\"");
        if (at < 0)
            return {};
        return Json::parse(d.mid(at, d.indexOf('}', at) - at + 1).toStdString(), nullptr, false);
    }
    std::vector<Json> rejections()
    {
        core->audit()->waitDurable(WaitMs);
        std::vector<Json> out;
        audit::forEachRecord(core->audit()->dir(), [&](std::string_view, const Json &r) {
            if (r["event"] == "connection_rejected")
                out.push_back(r);
            return true;
        });
        return out;
    }

    int probes = 0;
};

Json callWithContent(const std::string &content)
{
    return Json { { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", "x" },
        { "args", { { "content", content } } } };
}

} // namespace

class TestBadInput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void invalidUtf8ClosesWith1007();
    void jsonErrors_data();
    void jsonErrors();
    void oneMebibyteStringInAField();
    void emptyToolName();
    void controlCharactersInToolNames();
    void stalledHandshakeIsClosed();
    void stalledFrameIsClosedWhenSilent();
    void silentButAnsweringPingsIsKept();
};

void TestBadInput::invalidUtf8ClosesWith1007()
{
    Console c;
    QVERIFY(c.started);
    RawWebSocket raw;
    QVERIFY(raw.open(c.port()));
    QVERIFY(raw.hello(c.agentToken()));
    raw.sendText(QByteArray(R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"p":")")
        + "\xff\xfe\xc0" + "\"}}");
    // RFC 6455 section 8.1: a text frame that is not UTF-8 fails the connection with 1007.
    QVERIFY(raw.waitClosed());
    QCOMPARE(raw.closeCode(), 1007);
    QCOMPARE(c.core->queue()->size(), 0);
    QVERIFY(c.stillServes());
}

void TestBadInput::jsonErrors_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("NaN") << QByteArray(
        R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"n":NaN}})")
                         << "invalid_json"
                         << "parse error at line 1, column 64: syntax error while parsing value - "
                            "invalid literal; last read: '\"n\":N'";
    QTest::newRow("Infinity") << QByteArray(
        R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"n":Infinity}})")
                              << "invalid_json"
                              << "parse error at line 1, column 64: syntax error while parsing "
                                 "value - invalid literal; last read: '\"n\":I'";
    QTest::newRow("-Infinity")
        << QByteArray(
               R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"n":-Infinity}})")
        << "invalid_json"
        << "parse error at line 1, column 65: syntax error while parsing value - invalid number; "
           "expected digit after '-'; last read: '-I'";
    QTest::newRow("1e400") << QByteArray(
        R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"n":1e400}})")
                           << "invalid_json"
                           << "args.n: number 1e400 is out of range";
    QTest::newRow("30 digits") << QByteArray(
        R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"n":-123456789012345678901234567890}})")
                               << "invalid_json"
                               << "args.n: integer -123456789012345678901234567890 does not fit in "
                                  "64 bits; send it as a string";
}

void TestBadInput::jsonErrors()
{
    QFETCH(QByteArray, payload);
    QFETCH(QString, code);
    QFETCH(QString, message);
    Console c;
    TestSocket s;
    QVERIFY(s.hello(c.url(), c.agentToken()).is_object());
    s.sendRaw(QString::fromUtf8(payload));
    const Json err = s.next("error");
    QCOMPARE(err["code"], Json(code.toStdString()));
    QCOMPARE(err["message"], Json(message.toStdString()));
    QCOMPARE(c.core->queue()->size(), 0);
    QVERIFY(!s.isClosed()); // the connection stays usable
    QVERIFY(c.stillServes());
}

void TestBadInput::oneMebibyteStringInAField()
{
    const std::string mib(1024 * 1024, 'x');
    {
        // Over the default 1 MiB message limit: 1009, nothing queued.
        Console c;
        RawWebSocket raw;
        QVERIFY(raw.open(c.port()));
        QVERIFY(raw.hello(c.agentToken()));
        raw.sendText(QByteArray::fromStdString(dumpJson(callWithContent(mib))));
        QVERIFY(raw.waitClosed());
        QCOMPARE(raw.closeCode(), 1009);
        QCOMPARE(c.core->queue()->size(), 0);
        QVERIFY(c.stillServes());
    }
    {
        // Under a raised limit it is queued whole, and shown cut short.
        EndpointConfig big;
        big.maxMessageBytes = 4 * 1024 * 1024;
        Console c(big);
        TestSocket s;
        QVERIFY(s.hello(c.url(), c.agentToken()).is_object());
        s.send(callWithContent(mib));
        QVERIFY(s.next("pending").is_object());
        QCOMPARE(c.core->queue()->at(0).args["content"].get<std::string>().size(), mib.size());
        QueueModel model(c.core->queue());
        const QString shown = model.index(0, QueueModel::Arguments).data().toString();
        QVERIFY(shown.size() <= 121);
        QVERIFY(shown.endsWith(QChar(0x2026)));
    }
}

void TestBadInput::emptyToolName()
{
    Console c;
    TestSocket s;
    QVERIFY(s.hello(c.url(), c.agentToken()).is_object());
    s.sendRaw(QStringLiteral(R"({"type":"tool_call","call_id":"c1","tool_name":"","args":{}})"));
    const Json err = s.next("error");
    QCOMPARE(err["code"], Json("invalid_field"));
    QCOMPARE(err["message"], Json("tool_name: expected a non-empty string of at most 256 bytes"));
    QCOMPARE(err["call_id"], Json("c1"));
    QCOMPARE(c.core->queue()->size(), 0);
}

void TestBadInput::controlCharactersInToolNames()
{
    Console c;
    TestSocket s;
    QVERIFY(s.hello(c.url(), c.agentToken()).is_object());
    // An escape sequence that would clear a terminal, a bidi override that
    // would reverse what follows, and a newline that would fake a row.
    const std::string tool = "read\x1b[2J\u202e\nfile";
    s.send(Json { { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", tool },
        { "args", { { "path", "a\x07" } } } });
    QVERIFY(s.next("pending").is_object());
    QCOMPARE(
        c.core->queue()->at(0).toolName, tool); // kept exactly, for the audit log and the decision
    QueueModel model(c.core->queue());
    QCOMPARE(model.index(0, QueueModel::Tool).data().toString(),
        QStringLiteral("read⟨U+001B⟩[2J⟨U+202E⟩\u21b5file"));
    QCOMPARE(
        model.index(0, QueueModel::Arguments).data().toString(), QStringLiteral("path=a⟨U+0007⟩"));
}

void TestBadInput::stalledHandshakeIsClosed()
{
    EndpointConfig config;
    config.handshakeTimeoutMs = 300;
    Console c(config);
    QTcpSocket stalled;
    stalled.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(stalled.waitForConnected(WaitMs));
    stalled.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr"); // and nothing more
    QVERIFY(c.stillServes());
    QVERIFY(QTest::qWaitFor(
        [&] { return stalled.state() == QAbstractSocket::UnconnectedState; }, WaitMs));
    QVERIFY(c.stillServes());
}

void TestBadInput::stalledFrameIsClosedWhenSilent()
{
    EndpointConfig config;
    config.idleTimeoutMs = 400;
    Console c(config);
    RawWebSocket raw;
    QVERIFY(raw.open(c.port()));
    QVERIFY(raw.hello(c.agentToken()));
    // Half a frame, then silence; pings go unanswered.
    raw.sendFrame(
        0x1, QByteArray(R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{}})"), 9);
    QVERIFY(c.stillServes());
    QVERIFY(raw.waitClosed());
    QCOMPARE(raw.closeCode(), 1001);
    QCOMPARE(c.core->queue()->size(), 1); // only the probe's call
    const std::vector<Json> rejected = c.rejections();
    QCOMPARE(rejected.size(), std::size_t(1));
    QCOMPARE(rejected[0]["why"], Json("dropped: silent for 400 ms (no message, no pong)"));
}

void TestBadInput::silentButAnsweringPingsIsKept()
{
    EndpointConfig config;
    config.idleTimeoutMs = 300;
    Console c(config);
    // An agent waiting a long time for a person sends nothing, but its
    // client answers pings: it must not be dropped. This one answers by
    // hand and counts the server's pings (opcode 0x9), so the wait is for
    // five keepalive rounds, not for a guessed time.
    RawWebSocket raw;
    QVERIFY(raw.open(c.port()));
    QVERIFY(raw.hello(c.agentToken()));
    raw.sendText(R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{}})");
    qsizetype answered = 0;
    QVERIFY(raw.waitFor([&](const QByteArray &d) {
        const qsizetype pings = d.count(char(0x89));
        for (; answered < pings; ++answered)
            raw.sendFrame(0xA, {});
        return pings >= 5;
    }));
    QCOMPARE(raw.socket().state(), QAbstractSocket::ConnectedState);
    QCOMPARE(c.core->broker()->agentConnections(), 1);
    QCOMPARE(c.core->queue()->size(), 1);
}

QTEST_MAIN(TestBadInput)
#include "tst_badinput.moc"
