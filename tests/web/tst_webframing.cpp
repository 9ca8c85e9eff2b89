// SPDX-License-Identifier: Apache-2.0
// A request the reviewer page cannot frame ends its connection (RFC 9112
// §6.3, WEB.md "Refusals"): raw bytes on a real socket, each framing error
// followed by a second request hidden in what a lenient reader would take
// for its body. Exactly one answer, a 400, and a closed socket; the hidden
// request changes nothing.

#include "web/httpframing.h"
#include "web/webconsole.h"

#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// Everything the server sends until it closes the connection (or WaitMs).
QByteArray readUntilClosed(QTcpSocket &s, bool *closed)
{
    QByteArray data;
    *closed = QTest::qWaitFor(
        [&] {
            data += s.readAll();
            return s.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs);
    return data + s.readAll();
}

// The bytes of one whole response at the start of `data`: -1 if there is none.
qsizetype oneResponseSize(const QByteArray &data)
{
    const qsizetype headEnd = data.indexOf("\r\n\r\n");
    if (!data.startsWith("HTTP/1.1 ") || headEnd < 0)
        return -1;
    HttpReply r;
    r.head = data.left(headEnd + 4);
    return headEnd + 4 + r.header("Content-Length").toLongLong();
}

} // namespace

class TestWebFraming : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void framerRefuses_data();
    void framerRefuses();
    void framerFramesWhatBrowsersSend();
    void unframeableRequestsEndTheConnection_data();
    void unframeableRequestsEndTheConnection();
    void framingErrorsAcrossWritesAreCaughtToo();
    void wellFramedRequestsKeepTheConnection();
};

void TestWebFraming::framerRefuses_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QString>("why");
    const QByteArray get = "GET / HTTP/1.1\r\nHost: h\r\n";
    QTest::newRow("two lengths") << get + "Content-Length: 0\r\nContent-Length: 5\r\n\r\n" << "more than one Content-Length";
    QTest::newRow("two equal lengths") << get + "Content-Length: 5\r\nContent-Length: 5\r\n\r\n" << "more than one Content-Length";
    QTest::newRow("a list") << get + "Content-Length: 0, 5\r\n\r\n" << "one decimal number";
    QTest::newRow("plus") << get + "Content-Length: +5\r\n\r\n" << "one decimal number";
    QTest::newRow("minus") << get + "Content-Length: -1\r\n\r\n" << "one decimal number";
    QTest::newRow("hex") << get + "Content-Length: 0x10\r\n\r\n" << "one decimal number";
    QTest::newRow("empty") << get + "Content-Length: \r\n\r\n" << "one decimal number";
    QTest::newRow("huge") << get + "Content-Length: 99999999999999999999\r\n\r\n" << "one decimal number";
    QTest::newRow("chunked") << get + "Transfer-Encoding: chunked\r\n\r\n" << "Transfer-Encoding";
    QTest::newRow("identity") << get + "transfer-encoding: identity\r\n\r\n" << "Transfer-Encoding";
    QTest::newRow("space before colon") << get + "Content-Length : 5\r\n\r\n" << "between a field name and its colon";
    QTest::newRow("obs-fold") << get + "X-A: 1\r\n Content-Length: 5\r\n\r\n" << "obs-fold";
    QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: h\n\n") << "bare LF";
    QTest::newRow("bare CR") << get + "X-A: 1\rContent-Length: 5\r\n\r\n" << "bare CR";
    QTest::newRow("NUL") << get + QByteArray("X-A: a\0b\r\n\r\n", 13) << "NUL";
    QTest::newRow("two hosts") << get + "Host: other\r\n\r\n" << "more than one Host";
    QTest::newRow("no host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << "without a Host";
    QTest::newRow("HTTP/2 text") << QByteArray("GET / HTTP/2.0\r\nHost: h\r\n\r\n") << "only HTTP/1.1";
    QTest::newRow("two spaces") << QByteArray("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") << "request target";
    QTest::newRow("no name") << get + ": x\r\n\r\n" << "without a name";
}

void TestWebFraming::framerRefuses()
{
    QFETCH(QByteArray, head);
    QFETCH(QString, why);
    RequestFramer framer;
    qsizetype used = 0;
    QCOMPARE(framer.feed(head, &used), RequestFramer::Status::Invalid);
    QVERIFY2(framer.error().contains(why), qPrintable(framer.error()));
}

void TestWebFraming::framerFramesWhatBrowsersSend()
{
    // Fed a byte at a time, as a slow network delivers it.
    const QByteArray post = "\r\nPOST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 11\r\n"
                            "User-Agent: caf\xc3\xa9\t\r\n\r\n{\"code\":\"\"}";
    RequestFramer framer;
    qsizetype at = 0;
    while (at < post.size() && framer.status() == RequestFramer::Status::NeedMore) {
        qsizetype used = 0;
        framer.feed(QByteArrayView(post).sliced(at, 1), &used);
        at += used;
    }
    QCOMPARE(framer.status(), RequestFramer::Status::Complete);
    QCOMPARE(framer.contentLength(), 11);
    QCOMPARE(framer.headBytes(), post.size() - 11);
    // Fed whole, it takes the head and leaves the body.
    framer.reset();
    qsizetype used = 0;
    QCOMPARE(framer.feed(post, &used), RequestFramer::Status::Complete);
    QCOMPARE(used, post.size() - 11);
    // HTTP/1.0 needs no Host.
    framer.reset();
    QCOMPARE(framer.feed("GET / HTTP/1.0\r\n\r\n", &used), RequestFramer::Status::Complete);
    QCOMPARE(framer.contentLength(), 0);
}

void TestWebFraming::unframeableRequestsEndTheConnection_data()
{
    QTest::addColumn<QByteArray>("head"); // {HOST} and {N}: the Host and the hidden request's size
    QTest::addColumn<QByteArray>("before"); // what comes between the head and the hidden request
    QTest::newRow("two Content-Lengths") << QByteArray("Content-Length: 0\r\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("two equal Content-Lengths") << QByteArray("Content-Length: {N}\r\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("Content-Length 0, N") << QByteArray("Content-Length: 0, {N}\r\n") << QByteArray();
    QTest::newRow("Content-Length +N") << QByteArray("Content-Length: +{N}\r\n") << QByteArray();
    QTest::newRow("Content-Length -1") << QByteArray("Content-Length: -1\r\n") << QByteArray();
    QTest::newRow("chunked") << QByteArray("Transfer-Encoding: chunked\r\n") << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked and a length") << QByteArray("Content-Length: {N}\r\nTransfer-Encoding: chunked\r\n")
                                          << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked, cased and spaced") << QByteArray("TRANSFER-ENCODING:  Chunked \r\n") << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked twice") << QByteArray("Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n")
                                   << QByteArray("0\r\n\r\n");
    QTest::newRow("space before the colon") << QByteArray("Content-Length : {N}\r\n") << QByteArray();
    QTest::newRow("bare LF") << QByteArray("X-Pad: a\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("folded") << QByteArray("X-Pad: a\r\n Content-Length: {N}\r\n") << QByteArray();
    QTest::newRow("two Hosts") << QByteArray("Host: evil.example\r\nContent-Length: 0\r\n") << QByteArray();
    QTest::newRow("pipelined") << QByteArray("Content-Length: 0\r\n") << QByteArray();
}

void TestWebFraming::unframeableRequestsEndTheConnection()
{
    QFETCH(QByteArray, head);
    QFETCH(QByteArray, before);
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    const QByteArray host = "127.0.0.1:" + QByteArray::number(c.port());
    // Hidden: a logout, which a second reading would carry out.
    const QByteArray hidden = "POST /api/logout HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + c.origin + "\r\nCookie: "
        + d.cookie + "\r\nX-CSRF-Token: " + d.csrf + "\r\nContent-Length: 0\r\n\r\n";
    const QByteArray smuggling = "POST /api/me HTTP/1.1\r\nHost: " + host + "\r\n"
        + head.replace("{N}", QByteArray::number(before.size() + hidden.size())) + "\r\n" + before + hidden;

    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(s.waitForConnected(WaitMs));
    s.write(smuggling);
    bool closed = false;
    const QByteArray answer = readUntilClosed(s, &closed);
    QVERIFY2(closed, answer.constData());
    QVERIFY2(answer.startsWith("HTTP/1.1 400 "), answer.constData());
    QCOMPARE(oneResponseSize(answer), answer.size()); // one answer and nothing after it
    HttpReply r;
    r.head = answer.left(answer.indexOf("\r\n\r\n") + 4);
    r.body = answer.mid(r.head.size());
    QCOMPARE(r.error(), "invalid");
    QCOMPARE(r.header("Connection"), QByteArray("close"));
    // The hidden logout never ran: the device is still signed in.
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, { { "Cookie", d.cookie } }).status, 200);
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(1));
}

void TestWebFraming::framingErrorsAcrossWritesAreCaughtToo()
{
    WebConsole c;
    QVERIFY(c.started);
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(s.waitForConnected(WaitMs));
    // A well-formed start, and the second length after the server has read it.
    s.write("POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(c.port()) + "\r\nContent-Length: 0\r\n");
    // Nothing is answered while the head is still arriving (and the server
    // reads this first part on its own).
    QVERIFY(!QTest::qWaitFor([&] { return s.bytesAvailable() > 0; }, 300));
    s.write("Content-Length: 5\r\n\r\nGET /");
    bool closed = false;
    const QByteArray answer = readUntilClosed(s, &closed);
    QVERIFY(closed);
    QVERIFY2(answer.startsWith("HTTP/1.1 400 "), answer.constData());
    QCOMPARE(oneResponseSize(answer), answer.size());
}

void TestWebFraming::wellFramedRequestsKeepTheConnection()
{
    // The control: the same socket, requests one after another, each
    // answered and the connection kept.
    WebConsole c;
    QVERIFY(c.started);
    const auto d = c.pairDevice();
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(s.waitForConnected(WaitMs));
    for (int i = 0; i < 3; ++i) {
        s.write(request("GET", "/api/me", c.port(), {}, { { "Cookie", d.cookie } }));
        const HttpReply r = readReply(s);
        QCOMPARE(r.status, 200);
        QVERIFY(!r.closed);
        QCOMPARE(s.state(), QAbstractSocket::ConnectedState);
    }
    // A body of exactly its length, then the next request.
    s.write(request("POST", "/api/pair", c.port(), R"({"code":"nope"})", { { "Origin", c.origin } }));
    QCOMPARE(readReply(s).error(), "pairing_unknown");
    s.write(request("GET", "/api/me", c.port(), {}, { { "Cookie", d.cookie } }));
    QCOMPARE(readReply(s).status, 200);
}

QTEST_GUILESS_MAIN(TestWebFraming)
#include "tst_webframing.moc"
