// SPDX-License-Identifier: Apache-2.0
// The MCP proxy's framing and message classification.

#include "common/jsoncompare.h"
#include "integrations/mcp.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::mcp;

class TestMcp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void framesLinesAcrossChunks();
    void dropsOversizedLinesAndRecovers();
    void passesTenMebibyteLines();
    void framesAnySplit_data();
    void framesAnySplit();
    void framedMessageReadsBack_data();
    void framedMessageReadsBack();
    void classify_data();
    void classify();
    void errorResultShape();
    void shippedClientConfig();
};

void TestMcp::framesLinesAcrossChunks()
{
    LineFramer f;
    std::vector<QByteArray> lines;
    int dropped = 0;
    const QByteArray stream = "{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"";
    for (char c : stream) // one byte at a time: the worst split
        f.feed(&c, 1, &lines, &dropped);
    QCOMPARE(lines, (std::vector<QByteArray> { "{\"a\":1}", "{\"b\":2}" }));
    QCOMPARE(f.takeRest(), QByteArray("{\"c\""));
    QCOMPARE(dropped, 0);
}

void TestMcp::dropsOversizedLinesAndRecovers()
{
    LineFramer f(16);
    std::vector<QByteArray> lines;
    int dropped = 0;
    const QByteArray big(40, 'x');
    f.feed(big.constData(), 20, &lines, &dropped);
    f.feed(big.constData() + 20, 20, &lines, &dropped);
    const QByteArray tail = "\nshort\n";
    f.feed(tail.constData(), tail.size(), &lines, &dropped);
    QCOMPARE(dropped, 1);
    QCOMPARE(lines, std::vector<QByteArray> { "short" });
}

void TestMcp::passesTenMebibyteLines()
{
    LineFramer f; // default cap: 64 MiB
    std::vector<QByteArray> lines;
    int dropped = 0;
    QByteArray line(10 * 1024 * 1024, 'y');
    line.append('\n');
    for (qsizetype at = 0; at < line.size(); at += 65536)
        f.feed(
            line.constData() + at, std::min<qsizetype>(65536, line.size() - at), &lines, &dropped);
    QCOMPARE(dropped, 0);
    QCOMPARE(lines.size(), std::size_t(1));
    QCOMPARE(lines[0].size(), qsizetype(10 * 1024 * 1024));
}

// The proxy reads the client and the server through the same framer, so one
// table covers both directions. Every row is fed at every chunk size.
void TestMcp::framesAnySplit_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<int>("maxLine");
    QTest::addColumn<QByteArrayList>("lines");
    QTest::addColumn<QByteArray>("rest");
    QTest::addColumn<int>("dropped");
    const int cap = int(LineFramer::DefaultMaxLine);
    QTest::newRow("newline-delimited")
        << QByteArray("{\"a\":1}\n{\"b\":2}\n") << cap
        << QByteArrayList { "{\"a\":1}", "{\"b\":2}" } << QByteArray() << 0;
    QTest::newRow("CRLF: the \\r goes")
        << QByteArray("a\r\nb\r\n") << cap << QByteArrayList { "a", "b" } << QByteArray() << 0;
    QTest::newRow("only one \\r goes")
        << QByteArray("a\r\r\n") << cap << QByteArrayList { "a\r" } << QByteArray() << 0;
    QTest::newRow("a \\r inside stays")
        << QByteArray("a\rb\n") << cap << QByteArrayList { "a\rb" } << QByteArray() << 0;
    QTest::newRow("empty lines are no messages")
        << QByteArray("\n\r\n\na\n\n") << cap << QByteArrayList { "a" } << QByteArray() << 0;
    QTest::newRow("rest at end of stream")
        << QByteArray("a\n{\"b\"") << cap << QByteArrayList { "a" } << QByteArray("{\"b\"") << 0;
    QTest::newRow("rest as it came")
        << QByteArray("a\n b\r") << cap << QByteArrayList { "a" } << QByteArray(" b\r") << 0;
    QTest::newRow("blank rest is no message")
        << QByteArray("a\n \t\r") << cap << QByteArrayList { "a" } << QByteArray() << 0;
    QTest::newRow("at the cap: kept")
        << QByteArray("abcd\n") << 4 << QByteArrayList { "abcd" } << QByteArray() << 0;
    QTest::newRow("over the cap: dropped whole")
        << QByteArray("abcdefghij\nok\n") << 4 << QByteArrayList { "ok" } << QByteArray() << 1;
    QTest::newRow("two over the cap")
        << QByteArray("abcde\nok\nvwxyz\n") << 4 << QByteArrayList { "ok" } << QByteArray() << 2;
    QTest::newRow("rest over the cap")
        << QByteArray("ok\nabcdefgh") << 4 << QByteArrayList { "ok" } << QByteArray() << 1;
}

void TestMcp::framesAnySplit()
{
    QFETCH(QByteArray, stream);
    QFETCH(int, maxLine);
    QFETCH(QByteArrayList, lines);
    QFETCH(QByteArray, rest);
    QFETCH(int, dropped);
    const std::vector<QByteArray> expected(lines.begin(), lines.end());
    for (qsizetype chunk = 1; chunk <= stream.size(); ++chunk) {
        LineFramer f(maxLine);
        std::vector<QByteArray> got;
        int gotDropped = 0;
        for (qsizetype at = 0; at < stream.size(); at += chunk)
            f.feed(stream.constData() + at, std::min(chunk, stream.size() - at), &got, &gotDropped);
        const QByteArray context = "chunk " + QByteArray::number(chunk);
        QVERIFY2(got == expected, context.constData());
        QVERIFY2(f.takeRest() == rest, context.constData());
        QVERIFY2(gotDropped == dropped, context.constData());
    }
}

// What the proxy writes, to either side, reads back as the same one line.
void TestMcp::framedMessageReadsBack_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("compact JSON") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    QTest::newRow("a server's spaced JSON, byte for byte")
        << QByteArray(R"({"jsonrpc": "2.0", "id": 1, "result": {}})");
    QTest::newRow("newline escaped in a string")
        << QByteArray::fromStdString(dumpJson(errorResult(7, "first\nsecond")));
    QTest::newRow("not JSON, passed through") << QByteArray("hello");
}

void TestMcp::framedMessageReadsBack()
{
    QFETCH(QByteArray, line);
    const QByteArray framed = LineFramer::frame(line);
    QCOMPARE(framed, line + '\n');
    QCOMPARE(framed.count('\n'), qsizetype(1));
    LineFramer f;
    std::vector<QByteArray> lines;
    int dropped = 0;
    f.feed(framed.constData(), framed.size(), &lines, &dropped);
    QCOMPARE(lines, std::vector<QByteArray> { line });
    QCOMPARE(f.takeRest(), QByteArray());
    QCOMPARE(dropped, 0);
}

void TestMcp::classify_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("id");
    QTest::newRow("request, numeric id")
        << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}})")
        << int(Kind::Request) << "tools/call"
        << "7";
    QTest::newRow("request, string id")
        << QByteArray(R"({"jsonrpc":"2.0","id":"a-1","method":"tools/list"})") << int(Kind::Request)
        << "tools/list"
        << "\"a-1\"";
    QTest::newRow("notification") << QByteArray(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})")
                                  << int(Kind::Notification) << "notifications/cancelled"
                                  << "null";
    QTest::newRow("result") << QByteArray(R"({"jsonrpc":"2.0","id":7,"result":{}})")
                            << int(Kind::Response) << ""
                            << "7";
    QTest::newRow("error response")
        << QByteArray(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}})")
        << int(Kind::Response) << ""
        << "7";
    QTest::newRow("server-to-client request")
        << QByteArray(R"({"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}})")
        << int(Kind::Request) << "sampling/createMessage"
        << "0";
    QTest::newRow("not JSON") << QByteArray("hello") << int(Kind::Invalid) << ""
                              << "null";
    QTest::newRow("array (batch)") << QByteArray("[1]") << int(Kind::Invalid) << ""
                                   << "null";
    QTest::newRow("id of wrong type")
        << QByteArray(R"({"jsonrpc":"2.0","id":{},"result":1})") << int(Kind::Invalid) << ""
        << "null";
}

void TestMcp::classify()
{
    QFETCH(QByteArray, line);
    QFETCH(int, kind);
    QFETCH(QString, method);
    QFETCH(QString, id);
    const Message m = mcp::classify(line);
    QCOMPARE(int(m.kind), kind);
    QCOMPARE(toQString(m.method), method);
    QCOMPARE(toQString(dumpJson(m.id)), id);
}

void TestMcp::errorResultShape()
{
    QCOMPARE(errorResult("x", "Denied by Holdpoint: no"),
        Json::parse(
            R"({"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"Denied by Holdpoint: no"}],"isError":true}})"));
}

void TestMcp::shippedClientConfig()
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/integrations/mcp/mcpServers.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json config = Json::parse(f.readAll().toStdString());
    QVERIFY(!config["mcpServers"].empty());
    for (const auto &[name, server] : config["mcpServers"].items()) {
        QCOMPARE(server["command"], Json("holdpoint-ctl"));
        const Json &args = server["args"];
        QCOMPARE(args.at(0), Json("mcp-proxy"));
        const auto dashes = std::find(args.begin(), args.end(), Json("--"));
        QVERIFY2(dashes != args.end() && dashes + 1 != args.end(),
            name.c_str()); // a server command follows --
    }
}

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"
