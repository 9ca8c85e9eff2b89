// SPDX-License-Identifier: Apache-2.0
// The endpoint over real loopback sockets: security checks, limits and bad
// input, with a real ConsoleCore behind it.

#include "common/inprocessconsole.h"
#include "common/rawws.h"
#include "common/testsocket.h"
#include "engine/broker.h"
#include "engine/consolecore.h"
#include "server/endpoint.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

using Console = InProcessConsole;

Json writeCall(const std::string &callId)
{
    return test::toolCall(callId, "write_file", Json { { "path", "a.txt" } });
}

// A handler that answers hello and records disconnects, noting any that
// arrive while it is itself sending.
class RecordingHandler final : public MessageHandler
{
public:
    explicit RecordingHandler(Endpoint *endpoint)
        : m_endpoint(endpoint)
    { }
    HelloOutcome onHello(ConnectionId connection, const protocol::Hello &) override
    {
        connected.push_back(connection);
        m_endpoint->send(connection,
            R"({"type":"welcome","protocol":1,"server":"test","session_id":"s","resumed":false})");
        return { "s", false };
    }
    void onMessage(ConnectionId, protocol::Message &&) override { }
    void onDisconnected(ConnectionId connection) override
    {
        disconnected.push_back(connection);
        if (sending)
            disconnectedWhileSending = true;
    }
    void send(ConnectionId connection, const std::string &text)
    {
        sending = true;
        m_endpoint->send(connection, text);
        sending = false;
    }

    std::vector<ConnectionId> connected, disconnected;
    bool sending = false;
    bool disconnectedWhileSending = false;

private:
    Endpoint *m_endpoint;
};

} // namespace

class TestEndpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listensOnLoopbackOnly();
    void filesArePrivateAndRemovedOnStop();
    void secondConsoleOnSameDataDirIsRefused();
    void foreignOriginGets403();
    void allowListedOriginIsAdmitted();
    void foreignHostGets1008_data();
    void foreignHostGets1008();
    void localhostHostIsAdmitted();
    void badTokenGets1008_data();
    void badTokenGets1008();
    void reviewerTokenGrantsReviewer();
    void firstMessageMustBeHello();
    void helloMustArriveInTime();
    void oversizedMessageGets1009WhileOthersWork();
    void badInputGetsPreciseErrorAndConnectionStaysUsable_data();
    void badInputGetsPreciseErrorAndConnectionStaysUsable();
    void connectionCapIsEnforced();
    void rejectionsAreReportedWithoutSecrets();
    void disconnectCausedBySendIsReportedAfterIt();
};

void TestEndpoint::listensOnLoopbackOnly()
{
    Console c;
    QVERIFY(c.started);
    QVERIFY(c.port() > 0);
    QCOMPARE(c.url().host(), QStringLiteral("127.0.0.1"));
}

void TestEndpoint::filesArePrivateAndRemovedOnStop()
{
    Console c;
    QVERIFY(c.started);
    const QString data = c.core->dataDir();
    const auto privateFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    const auto privateDir = privateFile | QFileDevice::ExeOwner;
    // QFileInfo reports the owner bits twice (Owner and User) for the current user.
    auto mode = [](const QString &path) {
        return QFileInfo(path).permissions()
            & ~(QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser);
    };
    QCOMPARE(mode(data), privateDir);
    QCOMPARE(mode(data + QStringLiteral("/endpoint.json")), privateFile);
    QCOMPARE(mode(data + QStringLiteral("/reviewer.token")), privateFile);
    QCOMPARE(mode(data + QStringLiteral("/console.lock")), privateFile);

    QFile f(data + QStringLiteral("/endpoint.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json j = Json::parse(f.readAll().toStdString());
    QCOMPARE(j["url"], Json(c.core->url().toStdString()));
    QCOMPARE(j["agent_token"].get<std::string>().size(), std::size_t(64)); // 256 bits, hex
    QCOMPARE(c.reviewerToken().size(), std::size_t(64));
    QVERIFY(j["agent_token"].get<std::string>() != c.reviewerToken());

    c.core->stop();
    QVERIFY(!QFile::exists(data + QStringLiteral("/endpoint.json")));
    QVERIFY(!QFile::exists(data + QStringLiteral("/reviewer.token")));
}

void TestEndpoint::secondConsoleOnSameDataDirIsRefused()
{
    Console first;
    QVERIFY(first.started);
    ConsoleOptions o;
    o.dataDir = first.core->dataDir();
    ConsoleCore second(o);
    QString error;
    QVERIFY(!second.start(&error));
    QVERIFY2(error.startsWith(QStringLiteral("another console (pid ")), qPrintable(error));
    // The first console's files are untouched.
    QTRY_VERIFY(QFile::exists(first.core->dataDir() + QStringLiteral("/endpoint.json")));
    TestSocket s;
    QVERIFY(s.hello(first.url(), first.agentToken()).is_object());
}

void TestEndpoint::foreignOriginGets403()
{
    Console c;
    const RawHandshake r = rawHandshake(
        c.port(), "127.0.0.1:" + QByteArray::number(c.port()), "https://evil.example");
    QCOMPARE(r.statusLine, QByteArray("HTTP/1.1 403 Access Forbidden"));
    QCOMPARE(c.core->broker()->agentConnections(), 0);
}

void TestEndpoint::allowListedOriginIsAdmitted()
{
    EndpointConfig config;
    config.allowedOrigins = { QStringLiteral("http://localhost:5173") };
    Console c(config);
    TestSocket ok(QStringLiteral("http://localhost:5173"));
    QVERIFY(ok.hello(c.url(), c.agentToken()).is_object());
    // Exact match only: a prefix or another port is foreign.
    const RawHandshake r = rawHandshake(
        c.port(), "127.0.0.1:" + QByteArray::number(c.port()), "http://localhost:51730");
    QCOMPARE(r.statusLine, QByteArray("HTTP/1.1 403 Access Forbidden"));
}

void TestEndpoint::foreignHostGets1008_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::newRow("other name") << QByteArray("evil.example:%1");
    QTest::newRow("rebinding name") << QByteArray("127.0.0.1.nip.io:%1");
    QTest::newRow("wrong port") << QByteArray("127.0.0.1:1");
    QTest::newRow("no port") << QByteArray("localhost");
}

void TestEndpoint::foreignHostGets1008()
{
    QFETCH(QByteArray, host);
    Console c;
    host.replace("%1", QByteArray::number(c.port()));
    const RawHandshake r = rawHandshake(c.port(), host);
    QCOMPARE(r.statusLine, QByteArray("HTTP/1.1 101 Switching Protocols"));
    // An error frame naming Host, then a close frame with code 1008 (0x03F0).
    QVERIFY2(r.rest.contains("\"code\":\"forbidden\""), r.rest.constData());
    QVERIFY2(r.rest.contains("Host: expected 127.0.0.1:"), r.rest.constData());
    QVERIFY(r.rest.contains(QByteArray("\x88", 1)));
    QVERIFY(r.rest.contains(QByteArray("\x03\xf0", 2)));
}

void TestEndpoint::localhostHostIsAdmitted()
{
    Console c;
    TestSocket s;
    QUrl url = c.url();
    url.setHost(QStringLiteral("localhost"));
    QVERIFY(s.hello(url, c.agentToken()).is_object());
}

void TestEndpoint::badTokenGets1008_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("token"); // "agent"/"reviewer" name the real tokens
    QTest::newRow("wrong agent token") << "agent"
                                       << "0000";
    QTest::newRow("reviewer token is not an agent token") << "agent"
                                                          << "reviewer";
    QTest::newRow("agent token never grants reviewer") << "reviewer"
                                                       << "agent";
    QTest::newRow("truncated agent token") << "agent"
                                           << "agent-truncated";
}

void TestEndpoint::badTokenGets1008()
{
    QFETCH(QString, role);
    QFETCH(QString, token);
    Console c;
    std::string t = token.toStdString();
    if (token == u"agent")
        t = c.agentToken();
    else if (token == u"reviewer")
        t = c.reviewerToken();
    else if (token == u"agent-truncated")
        t = c.agentToken().substr(0, 63);
    TestSocket s;
    QVERIFY(s.open(c.url()));
    s.send(
        { { "type", "hello" }, { "protocol", 1 }, { "token", t }, { "role", role.toStdString() } });
    const Json err = s.next("error");
    QCOMPARE(err["code"], Json("auth_failed"));
    QCOMPARE(err["message"], Json("token: not valid for role " + role.toStdString()));
    QVERIFY(s.waitClosed());
    QCOMPARE(s.closeCode(), 1008);
    QCOMPARE(c.core->broker()->agentConnections() + c.core->broker()->reviewerConnections(), 0);
}

void TestEndpoint::reviewerTokenGrantsReviewer()
{
    Console c;
    TestSocket agent;
    QVERIFY(agent.hello(c.url(), c.agentToken()).is_object());
    agent.send(writeCall("c1"));
    QVERIFY(agent.next("pending").is_object());

    TestSocket reviewer;
    QVERIFY(reviewer.hello(c.url(), c.reviewerToken(), "reviewer").is_object());
    const Json queue = reviewer.next("queue");
    QCOMPARE(queue["items"].size(), std::size_t(1));
    reviewer.send(
        { { "type", "review" }, { "id", queue["items"][0]["id"] }, { "action", "approve" } });
    QCOMPARE(reviewer.next("reviewed")["decision"], Json("allow"));
    QCOMPARE(agent.next("decision")["decision"], Json("allow"));
}

void TestEndpoint::firstMessageMustBeHello()
{
    Console c;
    TestSocket s;
    QVERIFY(s.open(c.url()));
    s.send(writeCall("c1"));
    QCOMPARE(s.next("error")["code"], Json("hello_required"));
    QVERIFY(s.waitClosed());
    QCOMPARE(s.closeCode(), 1008);
    QCOMPARE(c.core->queue()->size(), 0); // nothing processed before hello
}

void TestEndpoint::helloMustArriveInTime()
{
    EndpointConfig config;
    config.helloTimeoutMs = 200;
    Console c(config);
    TestSocket s;
    QVERIFY(s.open(c.url()));
    const Json err = s.next("error");
    QCOMPARE(err["code"], Json("hello_required"));
    QCOMPARE(err["message"], Json("hello: not received within 200 ms of connecting"));
    QVERIFY(s.waitClosed());
    QCOMPARE(s.closeCode(), 1008);
}

void TestEndpoint::oversizedMessageGets1009WhileOthersWork()
{
    Console c;
    TestSocket big, other;
    QVERIFY(big.hello(c.url(), c.agentToken()).is_object());
    QVERIFY(other.hello(c.url(), c.agentToken()).is_object());
    Json call = writeCall("huge");
    call["args"]["content"] = std::string(2 * 1024 * 1024, 'x');
    big.send(call);
    QVERIFY(big.waitClosed());
    QCOMPARE(big.closeCode(), 1009);
    QCOMPARE(c.core->queue()->size(), 0);

    other.send(writeCall("small"));
    QCOMPARE(other.next("pending")["call_id"], Json("small"));
    QVERIFY(!other.isClosed());
}

void TestEndpoint::badInputGetsPreciseErrorAndConnectionStaysUsable_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<bool>("binary");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");

    QTest::newRow("invalid JSON")
        << QByteArray("{\"type\":\"tool_call\",") << false << "invalid_json"
        << "parse error at line 1, column 21: syntax error while parsing object key - unexpected "
           "end of input; expected string literal";
    QTest::newRow("not an object") << QByteArray("[\"tool_call\"]") << false << "invalid_message"
                                   << "expected a JSON object, got array";
    QTest::newRow("missing tool_name")
        << QByteArray(R"({"type":"tool_call","call_id":"c9","args":{}})") << false
        << "missing_field"
        << "tool_name: required, expected a non-empty string of at most 256 bytes";
    QTest::newRow("args not an object")
        << QByteArray(R"({"type":"tool_call","call_id":"c9","tool_name":"x","args":[]})") << false
        << "invalid_field"
        << "args: expected an object, got array";
    QTest::newRow("unknown type")
        << QByteArray(R"({"type":"shutdown"})") << false << "unknown_type"
        << "type: unknown message type \"shutdown\" (expected one of: hello, turn_start, turn_end, "
           "tool_call, tool_result, cancel, review)";
    QByteArray deep = R"({"type":"tool_call","call_id":"c9","tool_name":"x","args":{"a":)";
    deep += QByteArray(100'000, '[') + QByteArray(100'000, ']') + "}}";
    QTest::newRow("100,000 levels deep") << deep << false << "too_deep"
                                         << "JSON nested deeper than 64 levels";
    QTest::newRow("duplicate keys")
        << QByteArray(R"({"type":"tool_call","call_id":"c9","tool_name":"x","args":{"p":1,"p":2}})")
        << false << "invalid_json"
        << "args: duplicate key \"p\"";
    QTest::newRow("30-digit integer") << QByteArray(
        R"({"type":"tool_call","call_id":"c9","tool_name":"x","args":{"n":123456789012345678901234567890}})")
                                      << false << "invalid_json"
                                      << "args.n: integer 123456789012345678901234567890 does not "
                                         "fit in 64 bits; send it as a string";
    QTest::newRow("binary frame")
        << QByteArray("\x01\x02", 2) << true << "invalid_message"
        << "binary frames are not accepted; send each message as a JSON text frame";
    QTest::newRow("second hello") << QByteArray(R"({"type":"hello","protocol":1,"token":"x"})")
                                  << false << "duplicate_hello"
                                  << "hello: this connection already said hello";
}

void TestEndpoint::badInputGetsPreciseErrorAndConnectionStaysUsable()
{
    QFETCH(QByteArray, payload);
    QFETCH(bool, binary);
    QFETCH(QString, code);
    QFETCH(QString, message);
    Console c;
    TestSocket s;
    QVERIFY(s.hello(c.url(), c.agentToken()).is_object());
    if (binary)
        s.sendBinary(payload);
    else
        s.sendRaw(QString::fromUtf8(payload));
    const Json err = s.next("error");
    QCOMPARE(err["code"], Json(code.toStdString()));
    QCOMPARE(err["message"], Json(message.toStdString()));
    QCOMPARE(c.core->queue()->size(), 0);

    s.send(writeCall("after"));
    QCOMPARE(s.next("pending")["call_id"], Json("after"));
    QVERIFY(!s.isClosed());
}

void TestEndpoint::connectionCapIsEnforced()
{
    EndpointConfig config;
    config.maxConnections = 3;
    Console c(config);
    std::vector<std::unique_ptr<TestSocket>> admitted;
    for (int i = 0; i < 3; ++i) {
        admitted.push_back(std::make_unique<TestSocket>());
        QVERIFY(admitted.back()->hello(c.url(), c.agentToken()).is_object());
    }
    TestSocket extra;
    QVERIFY(extra.open(c.url()));
    const Json err = extra.next("error");
    QCOMPARE(err["code"], Json("connection_limit"));
    QCOMPARE(err["message"], Json("the console already serves 3 connections"));
    QVERIFY(extra.waitClosed());
    QCOMPARE(extra.closeCode(), 1008);

    // Room again once one leaves.
    admitted.back()->close();
    QTRY_COMPARE(c.core->connectionCount(), 2);
    TestSocket again;
    QVERIFY(again.hello(c.url(), c.agentToken()).is_object());
}

void TestEndpoint::rejectionsAreReportedWithoutSecrets()
{
    Console c;
    QSignalSpy rejected(c.core.get(), &ConsoleCore::connectionRejected);
    TestSocket s;
    QVERIFY(s.open(c.url()));
    const std::string almost = c.agentToken().substr(0, 60) + "ffff";
    s.send({ { "type", "hello" }, { "protocol", 1 }, { "token", almost } });
    QVERIFY(s.waitClosed());
    QCOMPARE(rejected.count(), 1);
    const QString why = rejected.at(0).at(1).toString();
    QCOMPARE(why, QStringLiteral("auth_failed: token: not valid for role agent"));
    QVERIFY(!why.contains(QString::fromStdString(almost)));
}

QTEST_GUILESS_MAIN(TestEndpoint)
void TestEndpoint::disconnectCausedBySendIsReportedAfterIt()
{
    // The broker sends while it walks its own lists (a call's waiters, the
    // reviewers). A send that finds the peer gone must not call back into
    // it in the middle of that walk.
    EndpointConfig config;
    config.agentToken = "agent-token";
    config.reviewerToken = "reviewer-token";
    Endpoint endpoint(config);
    RecordingHandler handler(&endpoint);
    endpoint.setHandler(&handler);
    QString error;
    QVERIFY2(endpoint.listen(&error), qPrintable(error));
    RawWebSocket raw;
    QVERIFY(raw.open(endpoint.port()));
    QVERIFY(raw.hello("agent-token"));
    QCOMPARE(handler.connected.size(), std::size_t(1));

    // The peer resets the connection (linger 0 sends RST); the endpoint's
    // event loop has not seen it yet, so the next write fails at once.
    const struct linger reset
    {
        1, 0
    };
    QCOMPARE(::setsockopt(
                 int(raw.socket().socketDescriptor()), SOL_SOCKET, SO_LINGER, &reset, sizeof reset),
        0);
    raw.socket().abort();
    handler.send(handler.connected[0], R"({"type":"decision","call_id":"c1","decision":"allow"})");
    QVERIFY(!handler.disconnectedWhileSending);
    QVERIFY(QTest::qWaitFor([&] { return handler.disconnected.size() == 1; }, WaitMs));
    QCOMPARE(handler.disconnected[0], handler.connected[0]);
    QCOMPARE(endpoint.connectionCount(), 0);
}

#include "tst_endpoint.moc"
