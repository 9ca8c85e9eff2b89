// SPDX-License-Identifier: Apache-2.0
#pragma once

// A console written by hand over a QTcpServer, for the tests of
// holdpoint-ctl's hooks (tst_hookfront, tst_hookrefusals), and what they
// share: a hook process, its result, an endpoint.json.

#include "common/consoleprocess.h"

#include <QCryptographicHash>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

namespace holdpoint::test {

// A console written by hand over a QTcpServer, for what no well-behaved
// server sends the hook: fragments, pings mid-wait, a frame too large, a
// wrong handshake, a close at any point. Server frames are unmasked (RFC
// 6455 §5.1); it unmasks the client's.
class ScriptedConsole
{
public:
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    quint16 port() const { return m_server.serverPort(); }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1").arg(port()); }

    // Waits for the hook's upgrade request and answers it: 101 with the
    // right accept, or `response` as it is when given.
    bool accept(const QByteArray &response = {}, const QByteArray &connection = "Upgrade")
    {
        if (!QTest::qWaitFor([&] { return m_server.hasPendingConnections(); }, WaitMs))
            return false;
        m_peer = m_server.nextPendingConnection();
        QByteArray head;
        if (!QTest::qWaitFor(
                [&] {
                    head += m_peer->readAll();
                    return head.contains("\r\n\r\n");
                },
                WaitMs))
            return false;
        m_in = head.mid(head.indexOf("\r\n\r\n") + 4);
        const qsizetype at = head.indexOf("Sec-WebSocket-Key: ") + 19;
        const QByteArray key = head.mid(at, head.indexOf("\r\n", at) - at);
        const QByteArray accept = QCryptographicHash::hash(
            QByteArray(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"), QCryptographicHash::Sha1)
                                      .toBase64();
        m_peer->write(!response.isEmpty()
                ? response
                : "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
                    + connection + "\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n");
        m_peer->flush();
        return true;
    }

    // The client's next frame that is not a pong (those are kept for
    // waitPong) or a ping (counted in pings()), as opcode and unmasked
    // payload.
    std::optional<std::pair<int, QByteArray>> nextFrame()
    {
        if (!QTest::qWaitFor([&] { return parseFrames(), !m_frames.isEmpty(); }, WaitMs))
            return std::nullopt;
        return m_frames.takeFirst();
    }
    Json nextMessage()
    {
        const auto f = nextFrame();
        return f && f->first == 0x1 ? Json::parse(f->second.toStdString(), nullptr, false) : Json();
    }
    // The client's pings so far.
    int pings()
    {
        parseFrames();
        return m_pings;
    }
    // Until the client's pong for `payload` arrived.
    bool waitPong(const QByteArray &payload)
    {
        return QTest::qWaitFor([&] { return parseFrames(), m_pongs.contains(payload); }, WaitMs);
    }

    void sendFrame(int opcode, const QByteArray &payload, bool fin = true)
    {
        QByteArray f;
        f += char((fin ? 0x80 : 0) | opcode);
        if (payload.size() < 126) {
            f += char(payload.size());
        } else if (payload.size() < 65536) {
            f += char(126);
            f += char(payload.size() >> 8);
            f += char(payload.size() & 0xff);
        } else {
            f += char(127);
            for (int i = 7; i >= 0; --i)
                f += char((quint64(payload.size()) >> (8 * i)) & 0xff);
        }
        m_peer->write(f + payload);
        m_peer->flush();
    }
    void send(const Json &j) { sendFrame(0x1, QByteArray::fromStdString(dumpJson(j))); }
    void writeRaw(const QByteArray &bytes)
    {
        m_peer->write(bytes);
        m_peer->flush();
    }
    void abort() { m_peer->abort(); }

    // hello in, welcome out (saying max_message_bytes unless it is 0), the
    // hook's first message back.
    Json welcome(std::int64_t maxMessageBytes = 1048576)
    {
        const Json hello = nextMessage();
        if (hello.value("type", std::string()) != "hello")
            return Json();
        Json w { { "type", "welcome" }, { "protocol", 1 },
            { "session_id", hello.value("session_id", std::string("s")) } };
        if (maxMessageBytes > 0)
            w["max_message_bytes"] = maxMessageBytes;
        send(w);
        return nextMessage();
    }

private:
    // Every complete client frame read so far, into m_frames and m_pongs.
    void parseFrames()
    {
        m_in += m_peer->readAll();
        while (m_in.size() >= 2) {
            const int opcode = quint8(m_in[0]) & 0x0f;
            quint64 length = quint8(m_in[1]) & 0x7f;
            qsizetype at = 2;
            if (length >= 126) {
                const int bytes = length == 126 ? 2 : 8;
                if (m_in.size() < 2 + bytes)
                    return;
                length = 0;
                for (int i = 0; i < bytes; ++i)
                    length = length << 8 | quint8(m_in[2 + i]);
                at += bytes;
            }
            if (quint64(m_in.size()) < at + 4 + length)
                return;
            const QByteArray mask = m_in.mid(at, 4);
            QByteArray payload = m_in.mid(at + 4, qsizetype(length));
            for (qsizetype i = 0; i < payload.size(); ++i)
                payload[i] = char(payload[i] ^ mask[i % 4]);
            m_in.remove(0, at + 4 + qsizetype(length));
            if (opcode == 0xA)
                m_pongs.append(payload);
            else if (opcode == 0x9)
                ++m_pings;
            else
                m_frames.append({ opcode, payload });
        }
    }

    QList<std::pair<int, QByteArray>> m_frames;
    QTcpServer m_server;
    QTcpSocket *m_peer = nullptr;
    QByteArray m_in;
    QByteArrayList m_pongs;
    int m_pings = 0;
};

inline constexpr char PreRead[]
    = R"({"hook_event_name":"PreToolUse","session_id":"s-front","tool_name":"Read",
    "tool_input":{"file_path":"/tmp/x"},"tool_use_id":"toolu_front"})";

inline std::unique_ptr<QProcess> startHook(
    const QString &dataDir, const QStringList &extra = {}, const QByteArray &input = PreRead)
{
    auto p = std::make_unique<QProcess>();
    p->start(QStringLiteral(HOLDPOINT_CTL_BIN),
        QStringList { QStringLiteral("--data-dir"), dataDir, QStringLiteral("hook"),
            QStringLiteral("claude-code") }
            + extra);
    p->write(input);
    p->closeWriteChannel();
    return p;
}

// What finish() gives, for a process that may have ended while the test's
// event loop ran (waitForFinished() is then false).
inline CtlResult collect(QProcess &p)
{
    if (p.state() != QProcess::NotRunning && !p.waitForFinished(WaitMs * 3))
        return {};
    CtlResult r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline bool writeEndpoint(
    const QString &dataDir, const QString &url, const std::string &token = "t0k3n")
{
    QFile f(dataDir + QStringLiteral("/endpoint.json"));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(QByteArray::fromStdString(
        dumpJson({ { "url", url.toStdString() }, { "agent_token", token }, { "pid", 1 } })));
    return true;
}

inline const Json Allow { { "type", "decision" }, { "call_id", "toolu_front" },
    { "decision", "allow" }, { "reason", "fine" }, { "args", Json::object() } };

} // namespace holdpoint::test
