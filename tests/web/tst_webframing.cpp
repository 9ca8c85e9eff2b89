// SPDX-License-Identifier: Apache-2.0
// A request the reviewer page cannot frame ends its connection (RFC 9112
// §6.3, WEB.md "Refusals"): raw bytes on a real socket, each framing error
// followed by a second request hidden in what a lenient reader would take
// for its body. Exactly one answer, a 400, and a closed socket; the hidden
// request changes nothing.

#include "web/httpframing.h"
#include "web/webconsole.h"
#include "web/weblistener.h"

#include <QAbstractHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QSignalSpy>
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

QByteArray manyFields(int n)
{
    QByteArray fields;
    for (int i = 0; i < n; ++i)
        fields += "X-" + QByteArray::number(i) + ": a\r\n";
    return fields;
}

// The listener in front of a bare Qt HTTP Server that answers every
// request it is given, as WebServer does: to see what the listener does
// when its framer and Qt's parser read the same bytes differently.
class BareServer final : public QAbstractHttpServer
{
public:
    int answered = 0;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override
    {
        WebListener::requestDone(socket, request.headers().size(), request.body().size());
        if (WebListener::refused(socket))
            return true;
        ++answered;
        makeResponder(request, socket).write(QByteArrayLiteral("{}"), "application/json");
        return true;
    }
    void missingHandler(const QHttpServerRequest &, QTcpSocket *) override { }
};

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
    void aRequestQtReadsOtherwiseEndsTheConnection();
    void wellFramedRequestsKeepTheConnection();
};

void TestWebFraming::framerRefuses_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QString>("why");
    const QByteArray get = "GET / HTTP/1.1\r\nHost: h\r\n";
    QTest::newRow("two lengths") << get + "Content-Length: 0\r\nContent-Length: 5\r\n\r\n"
                                 << "more than one Content-Length";
    QTest::newRow("two equal lengths") << get + "Content-Length: 5\r\nContent-Length: 5\r\n\r\n"
                                       << "more than one Content-Length";
    QTest::newRow("a list") << get + "Content-Length: 0, 5\r\n\r\n"
                            << "one decimal number";
    QTest::newRow("plus") << get + "Content-Length: +5\r\n\r\n"
                          << "one decimal number";
    QTest::newRow("minus") << get + "Content-Length: -1\r\n\r\n"
                           << "one decimal number";
    QTest::newRow("hex") << get + "Content-Length: 0x10\r\n\r\n"
                         << "one decimal number";
    QTest::newRow("empty") << get + "Content-Length: \r\n\r\n"
                           << "one decimal number";
    QTest::newRow("huge") << get + "Content-Length: 99999999999999999999\r\n\r\n"
                          << "one decimal number";
    QTest::newRow("chunked") << get + "Transfer-Encoding: chunked\r\n\r\n"
                             << "Transfer-Encoding";
    QTest::newRow("identity") << get + "transfer-encoding: identity\r\n\r\n"
                              << "Transfer-Encoding";
    QTest::newRow("space before colon") << get + "Content-Length : 5\r\n\r\n"
                                        << "between a field name and its colon";
    QTest::newRow("obs-fold") << get + "X-A: 1\r\n Content-Length: 5\r\n\r\n"
                              << "obs-fold";
    QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: h\n\n") << "bare LF";
    QTest::newRow("bare CR") << get + "X-A: 1\rContent-Length: 5\r\n\r\n"
                             << "bare CR";
    QTest::newRow("NUL") << get + QByteArray("X-A: a\0b\r\n\r\n", 13) << "NUL";
    QTest::newRow("two hosts") << get + "Host: other\r\n\r\n"
                               << "more than one Host";
    QTest::newRow("no host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << "without a Host";
    QTest::newRow("HTTP/2 text") << QByteArray("GET / HTTP/2.0\r\nHost: h\r\n\r\n")
                                 << "only HTTP/1.1";
    QTest::newRow("two spaces") << QByteArray("GET  / HTTP/1.1\r\nHost: h\r\n\r\n")
                                << "request target";
    QTest::newRow("no name") << get + ": x\r\n\r\n"
                             << "without a name";
    // Host and 100 more: past Qt's parser's limit (httpframing.h).
    QTest::newRow("101 fields") << get + manyFields(100) + "\r\n"
                                << "more than 100 header fields";
    QTest::newRow("a field line over 8 KiB")
        << get + "X-A: " + QByteArray(MaxFieldLineBytes - 4, 'a') + "\r\n\r\n"
        << "over 8192 bytes";
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
    const QByteArray post
        = "\r\nPOST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 11\r\n"
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
    // Up to Qt's parser's limits, and no further (httpframing.h).
    framer.reset();
    const QByteArray full = "GET / HTTP/1.1\r\nHost: h\r\n" + manyFields(98)
        + "X-Long: " + QByteArray(MaxFieldLineBytes - 8, 'a') + "\r\n\r\n";
    QCOMPARE(framer.feed(full, &used), RequestFramer::Status::Complete);
    QCOMPARE(framer.fields(), MaxHeaderFields);
    // HTTP/1.0 needs no Host.
    framer.reset();
    QCOMPARE(framer.feed("GET / HTTP/1.0\r\n\r\n", &used), RequestFramer::Status::Complete);
    QCOMPARE(framer.contentLength(), 0);
}

void TestWebFraming::unframeableRequestsEndTheConnection_data()
{
    QTest::addColumn<QByteArray>("head"); // {HOST} and {N}: the Host and the hidden request's size
    QTest::addColumn<QByteArray>("before"); // what comes between the head and the hidden request
    QTest::newRow("two Content-Lengths")
        << QByteArray("Content-Length: 0\r\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("two equal Content-Lengths")
        << QByteArray("Content-Length: {N}\r\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("Content-Length 0, N")
        << QByteArray("Content-Length: 0, {N}\r\n") << QByteArray();
    QTest::newRow("Content-Length +N") << QByteArray("Content-Length: +{N}\r\n") << QByteArray();
    QTest::newRow("Content-Length -1") << QByteArray("Content-Length: -1\r\n") << QByteArray();
    QTest::newRow("chunked") << QByteArray("Transfer-Encoding: chunked\r\n")
                             << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked and a length")
        << QByteArray("Content-Length: {N}\r\nTransfer-Encoding: chunked\r\n")
        << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked, cased and spaced")
        << QByteArray("TRANSFER-ENCODING:  Chunked \r\n") << QByteArray("0\r\n\r\n");
    QTest::newRow("chunked twice")
        << QByteArray("Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n")
        << QByteArray("0\r\n\r\n");
    QTest::newRow("space before the colon")
        << QByteArray("Content-Length : {N}\r\n") << QByteArray();
    QTest::newRow("bare LF") << QByteArray("X-Pad: a\nContent-Length: {N}\r\n") << QByteArray();
    QTest::newRow("folded") << QByteArray("X-Pad: a\r\n Content-Length: {N}\r\n") << QByteArray();
    QTest::newRow("two Hosts") << QByteArray("Host: evil.example\r\nContent-Length: 0\r\n")
                               << QByteArray();
    QTest::newRow("pipelined") << QByteArray("Content-Length: 0\r\n") << QByteArray();
    // Qt 6.4 reads a head of more than 100 fields as one with none, answers
    // it body-less, and then answers the body as the next request.
    QTest::newRow("101 fields and a body") << manyFields(99) + "Content-Length: {N}\r\n"
                                           << QByteArray();
    QTest::newRow("200 fields and a body") << manyFields(198) + "Content-Length: {N}\r\n"
                                           << QByteArray();
    QTest::newRow("a body after an 8 KiB field") << "X-Pad: " + QByteArray(MaxFieldLineBytes, 'a')
            + "\r\nContent-Length: {N}\r\n" << QByteArray();
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
    const QByteArray hidden = "POST /api/logout HTTP/1.1\r\nHost: " + host
        + "\r\nOrigin: " + c.origin + "\r\nCookie: " + d.cookie + "\r\nX-Holdpoint-Device: " + d.key
        + "\r\nX-CSRF-Token: " + d.csrf + "\r\nContent-Length: 0\r\n\r\n";
    const QByteArray smuggling = "POST /api/me HTTP/1.1\r\nHost: " + host + "\r\n"
        + head.replace("{N}", QByteArray::number(before.size() + hidden.size())) + "\r\n" + before
        + hidden;

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
    QCOMPARE(http(c.port(), "GET", "/api/me", {}, d.headers()).status, 200);
    QCOMPARE(c.web->sessions()->list().size(), std::size_t(1));
}

void TestWebFraming::framingErrorsAcrossWritesAreCaughtToo()
{
    WebConsole c;
    QVERIFY(c.started);
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, c.port());
    QVERIFY(s.waitForConnected(WaitMs));
    QTcpSocket *server = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((server = c.web->findChild<QTcpSocket *>()), WaitMs);
    QSignalSpy read(server, &QIODevice::readyRead);
    // A well-formed start, and the second length only once the server has
    // read the first part (the listener frames on readyRead, ahead of this
    // spy), so the two reach it in different reads.
    const QByteArray first = "POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:"
        + QByteArray::number(c.port()) + "\r\nContent-Length: 0\r\n";
    s.write(first);
    QTRY_VERIFY_WITH_TIMEOUT(read.count() >= 1, WaitMs);
    s.write("Content-Length: 5\r\n\r\nGET /");
    bool closed = false;
    const QByteArray answer = readUntilClosed(s, &closed);
    QVERIFY(closed);
    QVERIFY2(answer.startsWith("HTTP/1.1 400 "), answer.constData());
    QCOMPARE(oneResponseSize(answer), answer.size());
    QVERIFY(read.count() >= 2);
}

void TestWebFraming::aRequestQtReadsOtherwiseEndsTheConnection()
{
    // The framer let through more fields than Qt reads (the seam stands
    // for any framing the two parsers disagree on): the request is still
    // refused, once, and nothing after it is answered.
    WebListenerLimits limits;
    limits.maxHeaderFields = 1000;
    BareServer server;
    // The server's child, as WebServer keeps it: the sockets go first.
    auto *listening = new WebListener(limits, std::nullopt, &server);
    WebListener &listener = *listening;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    server.bind(&listener);
    const QByteArray host = "Host: 127.0.0.1:" + QByteArray::number(listener.serverPort()) + "\r\n";
    const QByteArray hidden = "GET /hidden HTTP/1.1\r\n" + host + "\r\n";
    const QByteArray outer = "POST /outer HTTP/1.1\r\n" + host + manyFields(150)
        + "Content-Length: " + QByteArray::number(hidden.size()) + "\r\n\r\n" + hidden;
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, listener.serverPort());
    QVERIFY(s.waitForConnected(WaitMs));
    s.write(outer);
    bool closed = false;
    const QByteArray answer = readUntilClosed(s, &closed);
    QVERIFY(closed);
    QVERIFY2(answer.startsWith("HTTP/1.1 400 "), answer.constData());
    QCOMPARE(oneResponseSize(answer), answer.size());
    QCOMPARE(server.answered, 0);

    // The control: the same server answers a request both read alike.
    QTcpSocket ok;
    ok.connectToHost(QHostAddress::LocalHost, listener.serverPort());
    QVERIFY(ok.waitForConnected(WaitMs));
    ok.write(hidden);
    QCOMPARE(readReply(ok).status, 200);
    QCOMPARE(server.answered, 1);
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
        s.write(request("GET", "/api/me", c.port(), {}, d.headers()));
        const HttpReply r = readReply(s);
        QCOMPARE(r.status, 200);
        QVERIFY(!r.closed);
        QCOMPARE(s.state(), QAbstractSocket::ConnectedState);
    }
    // A body of exactly its length, then the next request.
    s.write(
        request("POST", "/api/pair", c.port(), R"({"code":"nope"})", { { "Origin", c.origin } }));
    QCOMPARE(readReply(s).error(), "pairing_unknown");
    s.write(request("GET", "/api/me", c.port(), {}, d.headers()));
    QCOMPARE(readReply(s).status, 200);
}

QTEST_GUILESS_MAIN(TestWebFraming)
#include "tst_webframing.moc"
