// SPDX-License-Identifier: Apache-2.0
#pragma once

// Test helpers over real sockets. Every wait is for an event with a
// deadline (QTest::qWaitFor), never a fixed sleep.

#include "common/json.h"
#include "common/jsoncompare.h"

#include <QNetworkRequest>
#include <QTcpSocket>
#include <QTest>
#include <QWebSocket>

#include <deque>
#include <optional>

namespace holdpoint::test {

inline constexpr int WaitMs = 10'000;

// An agent's tool_call message: `tool` with `args`, a deploy to prod unless
// the test says otherwise.
inline Json toolCall(const std::string &callId, const std::string &tool = "deploy",
    Json args = Json { { "target", "prod" } })
{
    return Json { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", tool },
        { "args", std::move(args) } };
}

class TestSocket : public QObject
{
public:
    explicit TestSocket(const QString &origin = {})
        : m_ws(origin)
    {
        connect(&m_ws, &QWebSocket::textMessageReceived, this, [this](const QString &t) {
            const std::string s = t.toStdString();
            m_inbox.push_back(Json::parse(s, nullptr, false));
        });
        connect(&m_ws, &QWebSocket::connected, this, [this] { m_connected = true; });
        connect(&m_ws, &QWebSocket::disconnected, this, [this] { m_closed = true; });
    }

    bool open(const QUrl &url) { return open(QNetworkRequest(url)); }
    // With headers of the caller's (a cookie, say).
    bool open(const QNetworkRequest &request)
    {
        // True once the upgrade succeeded, even if the server closes at once.
        m_ws.open(request);
        return QTest::qWaitFor([&] { return m_connected || m_closed; }, WaitMs) && m_connected;
    }

    // Connects and says hello; returns the welcome, or a null Json.
    Json hello(const QUrl &url, const std::string &token, const std::string &role = "agent",
        const std::optional<std::string> &session = std::nullopt,
        const std::string &agent = "tester")
    {
        if (!open(url))
            return {};
        Json h { { "type", "hello" }, { "protocol", 1 }, { "token", token }, { "role", role },
            { "agent", { { "name", agent } } } };
        if (session)
            h["session_id"] = *session;
        send(h);
        return next("welcome");
    }

    void send(const Json &j) { m_ws.sendTextMessage(toQString(dumpJson(j))); }
    void sendRaw(const QString &text) { m_ws.sendTextMessage(text); }
    void sendBinary(const QByteArray &bytes) { m_ws.sendBinaryMessage(bytes); }

    // The first received message of `type` (earlier ones of other types are
    // kept for later calls). Null when none arrives in time.
    Json next(const std::string &type, int timeoutMs = WaitMs)
    {
        Json found;
        (void)QTest::qWaitFor(
            [&] {
                for (auto it = m_inbox.begin(); it != m_inbox.end(); ++it) {
                    if (it->is_object() && it->value("type", std::string()) == type) {
                        found = *it;
                        m_inbox.erase(it);
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }

    // True if no message of `type` is waiting now (after the event loop ran).
    bool noneOf(const std::string &type)
    {
        QCoreApplication::processEvents();
        for (const auto &m : m_inbox)
            if (m.is_object() && m.value("type", std::string()) == type)
                return false;
        return true;
    }

    bool waitClosed(int timeoutMs = WaitMs)
    {
        return QTest::qWaitFor([&] { return m_closed; }, timeoutMs);
    }
    bool isClosed() const { return m_closed; }
    int closeCode() const { return int(m_ws.closeCode()); }
    void close() { m_ws.close(); }
    void abort() { m_ws.abort(); }
    QWebSocket &socket() { return m_ws; }

private:
    QWebSocket m_ws;
    std::deque<Json> m_inbox;
    bool m_connected = false;
    bool m_closed = false;
};

// A raw HTTP upgrade with chosen Host and Origin headers, to see exactly
// what the server answers before any WebSocket library gets involved.
struct RawHandshake
{
    QByteArray statusLine;
    QByteArray rest;
};

inline RawHandshake rawHandshake(
    quint16 port, const QByteArray &host, const QByteArray &origin = {})
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(WaitMs))
        return {};
    QByteArray req = "GET / HTTP/1.1\r\nHost: " + host
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    if (!origin.isEmpty())
        req += "Origin: " + origin + "\r\n";
    s.write(req + "\r\n");
    QByteArray data;
    // Read until the server refuses the upgrade, sends a close frame
    // (opcode 0x8 with FIN), or drops the connection.
    (void)QTest::qWaitFor(
        [&] {
            data += s.readAll();
            return s.state() != QAbstractSocket::ConnectedState || data.contains('\x88')
                || data.startsWith("HTTP/1.1 403");
        },
        WaitMs);
    data += s.readAll();
    RawHandshake r;
    const qsizetype eol = data.indexOf("\r\n");
    r.statusLine = data.left(eol);
    r.rest = data.mid(eol + 2);
    return r;
}

} // namespace holdpoint::test
