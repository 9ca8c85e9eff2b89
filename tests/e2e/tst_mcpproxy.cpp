// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl mcp-proxy with a scripted server: what the SDK test cannot
// show. Unknown methods, server-to-client requests and replies pass through
// byte for byte; a waiting call can be cancelled; the server's stderr stays
// off stdout; the server's exit code is passed on.

#include "common/consoleprocess.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

class TestMcpProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void passthroughCancelAndExit();
    void traceStampsEachHop();
};

void TestMcpProxy::passthroughCancelAndExit()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("p.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"default":"allow","guardrails":[{"type":"annotations","destructive":"ask","open_world":"pass"}]})");
    f.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);

    QProcess proxy;
    proxy.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), console.dataDir(), QStringLiteral("mcp-proxy"),
            QStringLiteral("--server-name"), QStringLiteral("fake"), QStringLiteral("--"),
            QStringLiteral("/usr/bin/python3"),
            QStringLiteral(
                HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/fake_mcp_server.py") });
    QVERIFY(proxy.waitForStarted(WaitMs));
    QByteArray out;
    auto send = [&](const char *line) { proxy.write(QByteArray(line) + '\n'); };
    // The next line from the proxy's stdout that contains `needle`.
    auto lineWith = [&](const QByteArray &needle) {
        QByteArray found;
        (void)QTest::qWaitFor(
            [&] {
                out += proxy.readAllStandardOutput();
                for (const QByteArray &line : out.split('\n')) {
                    if (line.contains(needle)) {
                        found = line;
                        return true;
                    }
                }
                return false;
            },
            WaitMs);
        return found;
    };

    send(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    // Python's ", " separators prove the line was not re-serialised.
    QCOMPARE(lineWith("serverInfo"),
        QByteArray(
            R"({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}})"));
    send(R"({"jsonrpc":"2.0","id":"probe-1","method":"vendor/unknownProbe","params":{"x":1}})");
    QCOMPARE(lineWith("vendor/unknownProbe"),
        QByteArray(
            R"({"jsonrpc": "2.0", "id": "probe-1", "result": {"echo": {"x": 1}, "method": "vendor/unknownProbe"}})"));
    send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
    QVERIFY(!lineWith("\"danger\"").isEmpty());

    // A server-to-client request reaches us, and our reply reaches the server.
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    QCOMPARE(lineWith("sampling/createMessage"),
        QByteArray(
            R"({"jsonrpc": "2.0", "id": "srv-1", "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}})"));
    send(
        R"({"jsonrpc":"2.0","id":"srv-1","result":{"role":"assistant","content":{"type":"text","text":"hi"}}})");
    QVERIFY(lineWith("client_replied").contains(R"("text": "hi")"));

    // A destructive call waits for a person; other calls go on meanwhile.
    send(
        R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"danger","arguments":{"rm":"all"}}})");
    const Json item = reviewer->next("escalated")["item"];
    QCOMPARE(item["annotations"], Json({ { "destructiveHint", true } })); // learnt from tools/list
    QCOMPARE(item["context"]["mcp_server"], Json("fake"));
    send(
        R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"n":11}}})");
    QVERIFY(lineWith("\\\"n\\\": 11").startsWith(R"({"jsonrpc": "2.0", "id": 11,)"));
    // The client gives up on the waiting call: it is cancelled at the console.
    send(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"user stopped"}})");
    const Json resolved = reviewer->next("resolved");
    QCOMPARE(resolved["id"], item["id"]);
    QCOMPARE(resolved["state"], Json("cancelled"));

    proxy.closeWriteChannel(); // the client is done
    QVERIFY(proxy.waitForFinished(WaitMs));
    QCOMPARE(proxy.exitCode(), 5); // the server's
    out += proxy.readAllStandardOutput();
    QVERIFY2(!out.contains("\"id\": 10") && !out.contains("\"id\":10"),
        out.constData()); // no answer to the cancelled call
    QVERIFY(!out.contains("fake server starting"));
    QVERIFY(proxy.readAllStandardError().contains("fake server starting"));
}

// HOLDPOINT_MCP_TRACE: a line per forwarded call, its hops in order; a
// refused call leaves none.
void TestMcpProxy::traceStampsEachHop()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("p.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"default":"allow","guardrails":[{"type":"rules","rules":[{"when":{"tool":"danger"},"action":"deny"}]}]})");
    f.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    const QString trace = dir.filePath(QStringLiteral("trace.jsonl"));
    QProcess proxy;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOLDPOINT_MCP_TRACE"), trace);
    proxy.setProcessEnvironment(env);
    proxy.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), console.dataDir(), QStringLiteral("mcp-proxy"),
            QStringLiteral("--"), QStringLiteral("/usr/bin/python3"),
            QStringLiteral(
                HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/fake_mcp_server.py") });
    QVERIFY(proxy.waitForStarted(WaitMs));
    QByteArray out;
    auto waitFor = [&](const QByteArray &needle) {
        return QTest::qWaitFor(
            [&] {
                out += proxy.readAllStandardOutput();
                return out.contains(needle);
            },
            WaitMs);
    };
    proxy.write(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
        "\n");
    QVERIFY(waitFor("serverInfo"));
    proxy.write(
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"danger","arguments":{}}})"
        "\n");
    QVERIFY(waitFor("Denied by Holdpoint"));
    proxy.write(
        R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"n":8}}})"
        "\n");
    QVERIFY(waitFor("\"id\": 8"));
    proxy.closeWriteChannel();
    QVERIFY(proxy.waitForFinished(WaitMs));

    QFile t(trace);
    QVERIFY(t.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = t.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    const Json line = Json::parse(lines.front().toStdString());
    QCOMPARE(line["rpc_id"], Json("8"));
    qint64 previous = 0;
    for (const char *hop :
        { "read", "to_console", "decision", "to_server", "server_answer", "to_client" }) {
        const qint64 at = line[hop].get<qint64>();
        QVERIFY2(at > 0 && at >= previous, hop);
        previous = at;
    }
}

QTEST_GUILESS_MAIN(TestMcpProxy)
#include "tst_mcpproxy.moc"
