// SPDX-License-Identifier: Apache-2.0
#pragma once

// Plain HTTP/1.1 over a QTcpSocket, to see exactly what the reviewer page's
// server answers to the requests a browser (or an attacker) sends.

#include "common/testsocket.h"

#include <QNetworkRequest>
#include <QSslSocket>
#include <QTcpSocket>

namespace holdpoint::test {

struct HttpReply
{
    int status = 0; // 0: no answer
    QByteArray head;
    QByteArray body;
    bool closed = false; // the server closed the connection after answering

    QByteArray header(const QByteArray &name) const
    {
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }
    Json json() const { return Json::parse(body.toStdString(), nullptr, false); }
    std::string error() const { return json().value("error", std::string()); }
};

using Headers = QList<QPair<QByteArray, QByteArray>>;

// A paired device as the page is one (WEB.md "Who gets in"): the session
// cookie, the device key the page keeps in its origin's storage, and the
// CSRF token /api/me gave it.
struct Device
{
    QByteArray cookie; // "__Host-holdpoint=..."
    QByteArray key;
    QByteArray csrf;

    // What the page sends with every request: the cookie and the device key.
    Headers headers(Headers more = {}) const
    {
        if (!cookie.isEmpty())
            more.append({ "Cookie", cookie });
        if (!key.isEmpty())
            more.append({ "X-Holdpoint-Device", key });
        return more;
    }
    // The cookie alone, as a process on another port of this host gets it.
    Device cookieOnly() const { return { cookie, {}, csrf }; }
};

inline HttpReply readReply(QTcpSocket &s)
{
    HttpReply r;
    QByteArray data;
    qsizetype bodyAt = -1;
    qint64 length = -1;
    (void)QTest::qWaitFor(
        [&] {
            data += s.readAll();
            if (bodyAt < 0 && (bodyAt = data.indexOf("\r\n\r\n")) >= 0) {
                bodyAt += 4;
                r.head = data.left(bodyAt);
                const QByteArray cl = r.header("Content-Length");
                length = cl.isEmpty() ? 0 : cl.toLongLong();
            }
            return (bodyAt >= 0 && data.size() - bodyAt >= length)
                || s.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs);
    data += s.readAll();
    if (bodyAt < 0)
        return r;
    r.status = data.mid(9, 3).toInt();
    r.body = data.mid(bodyAt, length);
    // Only an answer that says so is waited on to see the connection close.
    r.closed = r.header("Connection").compare("close", Qt::CaseInsensitive) == 0
        && QTest::qWaitFor([&] { return s.state() != QAbstractSocket::ConnectedState; }, WaitMs);
    return r;
}

inline QByteArray request(const QByteArray &method, const QByteArray &path, quint16 port,
    const QByteArray &body, const Headers &headers)
{
    QByteArray req = method + ' ' + path + " HTTP/1.1\r\n";
    bool host = false;
    for (const auto &[name, value] : headers) {
        req += name + ": " + value + "\r\n";
        host = host || name.compare("host", Qt::CaseInsensitive) == 0;
    }
    if (!host)
        req += "Host: 127.0.0.1:" + QByteArray::number(port) + "\r\n";
    if (method == "POST" || !body.isEmpty())
        req += "Content-Type: application/json\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n";
    return req + "\r\n" + body;
}

inline HttpReply http(quint16 port, const QByteArray &method, const QByteArray &path,
    const QByteArray &body = {}, const Headers &headers = {})
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(WaitMs))
        return {};
    s.write(request(method, path, port, body, headers));
    return readReply(s);
}

// The device a pairing answer (POST /api/pair) made: its cookie and key.
inline Device deviceFrom(const HttpReply &paired)
{
    return { paired.header("Set-Cookie").split(';').first(),
        QByteArray::fromStdString(paired.json().value("device", std::string())), {} };
}

// The page's live feed, opened as a browser opens it: with an Origin and
// the session cookie (or a proxy's headers), then the device key as its
// first message when the device has one.
class LiveFeed : public TestSocket
{
public:
    LiveFeed(quint16 port, const QByteArray &origin, const Device &device, const Headers &more = {})
        : TestSocket(QString::fromLatin1(origin))
    {
        QNetworkRequest request(QUrl(QStringLiteral("ws://127.0.0.1:%1/api/live").arg(port)));
        if (!device.cookie.isEmpty())
            request.setRawHeader("Cookie", device.cookie);
        for (const auto &[name, value] : more)
            request.setRawHeader(name, value);
        m_upgraded = open(request);
        if (m_upgraded && !device.key.isEmpty())
            send({ { "type", "hello" }, { "device", device.key.toStdString() } });
    }
    bool connected() const { return m_upgraded; }

private:
    bool m_upgraded = false;
};

} // namespace holdpoint::test
