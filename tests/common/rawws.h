// SPDX-License-Identifier: Apache-2.0
#pragma once

// A WebSocket client written by hand over a QTcpSocket, for what no
// well-behaved library would send: invalid UTF-8, frames cut short, a
// client that never reads.

#include "common/testsocket.h"

#include <QRandomGenerator>
#include <QTcpSocket>

namespace holdpoint::test {

class RawWebSocket
{
public:
    // Connects and completes the upgrade. False if the server refused.
    bool open(quint16 port)
    {
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        if (!m_socket.waitForConnected(WaitMs))
            return false;
        m_socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
            + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
        QByteArray data;
        const bool upgraded = QTest::qWaitFor(
            [&] {
                data += m_socket.readAll();
                return data.contains("\r\n\r\n")
                    || m_socket.state() != QAbstractSocket::ConnectedState;
            },
            WaitMs);
        m_buffer = data.mid(data.indexOf("\r\n\r\n") + 4);
        return upgraded && data.startsWith("HTTP/1.1 101");
    }
    // One client frame (masked, as clients must). `cut` sends only that
    // many bytes of it: a frame stalled halfway.
    void sendFrame(quint8 opcode, const QByteArray &payload, qsizetype cut = -1)
    {
        QByteArray f;
        f += char(0x80 | opcode);
        const qsizetype n = payload.size();
        if (n < 126) {
            f += char(0x80 | n);
        } else if (n < 65536) {
            f += char(0x80 | 126);
            f += char((n >> 8) & 0xff);
            f += char(n & 0xff);
        } else {
            f += char(0x80 | 127);
            for (int i = 7; i >= 0; --i)
                f += char((quint64(n) >> (8 * i)) & 0xff);
        }
        const quint32 mask = QRandomGenerator::global()->generate();
        const char m[4] = { char(mask >> 24), char(mask >> 16), char(mask >> 8), char(mask) };
        f.append(m, 4);
        for (qsizetype i = 0; i < n; ++i)
            f += char(payload[i] ^ m[i % 4]);
        m_socket.write(cut >= 0 ? f.left(cut) : f);
        m_socket.flush();
    }
    void sendText(const QByteArray &utf8) { sendFrame(0x1, utf8); }
    // Says hello as an agent and waits for the welcome.
    bool hello(const std::string &token)
    {
        sendText(QByteArray::fromStdString(dumpJson(Json { { "type", "hello" }, { "protocol", 1 },
            { "token", token }, { "role", "agent" }, { "agent", { { "name", "raw" } } } })));
        return waitFor([](const QByteArray &d) { return d.contains("\"welcome\""); });
    }
    // Waits until what arrived so far satisfies `done`.
    bool waitFor(const std::function<bool(const QByteArray &)> &done, int timeoutMs = WaitMs)
    {
        return QTest::qWaitFor(
            [&] {
                m_buffer += m_socket.readAll();
                return done(m_buffer);
            },
            timeoutMs);
    }
    // True once the server closed the connection (close frame or EOF).
    bool waitClosed(int timeoutMs = WaitMs)
    {
        return QTest::qWaitFor(
            [&] {
                m_buffer += m_socket.readAll();
                return m_socket.state() != QAbstractSocket::ConnectedState;
            },
            timeoutMs);
    }
    // The close code in the server's close frame, or 0.
    int closeCode() const
    {
        const qsizetype at = m_buffer.lastIndexOf(char(0x88));
        if (at < 0 || at + 3 >= m_buffer.size())
            return 0;
        return (quint8(m_buffer[at + 2]) << 8) | quint8(m_buffer[at + 3]);
    }
    const QByteArray &received() const { return m_buffer; }
    QTcpSocket &socket() { return m_socket; }

private:
    QTcpSocket m_socket;
    QByteArray m_buffer;
};

} // namespace holdpoint::test
