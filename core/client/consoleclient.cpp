// SPDX-License-Identifier: Apache-2.0
#include "consoleclient.h"

#include "common/datadir.h"
#include "wire/failopen.h"
#include "wire/messages.h"

#include <QAbstractSocket>

namespace holdpoint {

ConsoleClient::ConsoleClient(QObject *parent)
    : QObject(parent)
{
    m_timeout.setSingleShot(true);
    // Each message in one frame. Qt splits a message into frames of 512 KiB
    // by default, and Qt's receiver (6.4) closes with 1007 "Invalid UTF-8"
    // when a frame boundary falls inside a character: a call of 600 KB of
    // CJK text never reached the console.
    m_socket.setOutgoingFrameSize(QWebSocket::maxOutgoingFrameSize());
    connect(&m_socket, &QWebSocket::connected, this, [this] {
        // Small messages go out at once, not after the peer's delayed ACK.
        for (QAbstractSocket *tcp : m_socket.findChildren<QAbstractSocket *>())
            tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_socket.sendTextMessage(toQString(dumpJson(m_hello)));
    });
    connect(&m_socket, &QWebSocket::textMessageReceived, this, &ConsoleClient::onText);
    connect(&m_socket, &QWebSocket::pong, this, [this] { m_heard.start(); });
    m_silenceMs = wire::silenceBoundMs();
    m_ping.setInterval(int(wire::pingIntervalMs(m_silenceMs)));
    connect(&m_ping, &QTimer::timeout, this, [this] {
        if (m_heard.elapsed() >= m_silenceMs)
            return failWith(
                QStringLiteral("the console at %1 went silent (no answer to pings for %2 ms)")
                    .arg(m_socket.requestUrl().toString())
                    .arg(m_silenceMs));
        m_socket.ping();
    });
    connect(&m_socket, &QWebSocket::disconnected, this, &ConsoleClient::onClosed);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_lastError = QStringLiteral("the console at %1 did not answer in time")
                          .arg(m_socket.requestUrl().toString());
        m_socket.abort();
    });
}

ConsoleClient::~ConsoleClient()
{
    // ~QWebSocket reports a disconnect; nobody may hear it from a client
    // that is already half destroyed.
    m_socket.disconnect(this);
    m_timeout.disconnect(this);
    m_ping.disconnect(this);
}

void ConsoleClient::connectTo(const EndpointInfo &info, protocol::Role role,
    const protocol::AgentInfo &agent, const std::optional<std::string> &sessionId, int timeoutMs)
{
    const QByteArray &token
        = role == protocol::Role::Reviewer ? info.reviewerToken : info.agentToken;
    // The same hello as the hooks' (wire/messages.h).
    wire::Hello hello;
    hello.role = std::string(protocol::roleName(role));
    hello.token = token.toStdString();
    hello.agentName = agent.name;
    hello.framework = agent.framework;
    hello.user = agent.user;
    hello.capabilities = { agent.capabilities.modify, agent.capabilities.halt };
    hello.sessionId = sessionId;
    m_hello = wire::helloMessage(hello);
    m_timeout.start(timeoutMs);
    m_socket.open(info.url);
}

bool ConsoleClient::send(const Json &message, QString *whyNot)
{
    const std::string text = dumpJson(message);
    if (m_maxMessageBytes > 0 && std::int64_t(text.size()) > m_maxMessageBytes) {
        if (whyNot)
            *whyNot
                = QStringLiteral("the message is %1 bytes, more than the console takes (%2 bytes, "
                                 "holdpoint --max-message-bytes)")
                      .arg(qint64(text.size()))
                      .arg(qint64(m_maxMessageBytes));
        return false;
    }
    m_socket.sendTextMessage(toQString(text));
    // Out now rather than when the event loop next polls: a call waits on it.
    m_socket.flush();
    return true;
}

void ConsoleClient::failWith(const QString &why)
{
    m_lastError = why;
    m_ping.stop();
    m_socket.abort();
}

void ConsoleClient::close()
{
    m_finished = true;
    m_ping.stop();
    // A socket the console already dropped has nothing to close; closing it
    // anyway makes Qt print "device not open" into a hook's reason.
    if (m_socket.state() != QAbstractSocket::UnconnectedState)
        m_socket.close();
}

void ConsoleClient::onText(const QString &text)
{
    if (m_finished)
        return;
    m_heard.start();
    const std::string utf8 = text.toStdString();
    Json j = Json::parse(utf8, nullptr, false);
    if (!j.is_object())
        return failWith(
            QStringLiteral("the console broke the protocol: a message that is not a JSON object"));
    const std::string type = j.value("type", std::string());
    if (!m_ready) {
        if (type == "welcome") {
            if (const auto p = j.find("protocol"); p == j.end() || !p->is_number_integer()
                || p->get<std::int64_t>() != wire::ProtocolVersion)
                return failWith(QStringLiteral("the console's welcome is not for protocol %1")
                                    .arg(wire::ProtocolVersion));
            m_timeout.stop();
            m_ready = true;
            m_sessionId = j.value("session_id", std::string());
            if (const auto it = j.find("max_message_bytes");
                it != j.end() && it->is_number_integer())
                m_maxMessageBytes = it->get<std::int64_t>();
            m_ping.start();
            Q_EMIT welcomed(j);
        } else if (type == "error") {
            // Refused: at once, whether or not the console closes after it.
            failWith(QStringLiteral("the console refused the connection: %1: %2")
                         .arg(toQString(j.value("code", std::string())),
                             toQString(j.value("message", std::string()))));
        } else {
            failWith(QStringLiteral("the console broke the protocol: \"%1\" before its welcome")
                         .arg(toQString(type.substr(0, 64))));
        }
        return;
    }
    Q_EMIT message(j);
}

void ConsoleClient::onClosed()
{
    m_timeout.stop();
    m_ping.stop();
    const bool wasReady = m_ready;
    m_ready = false;
    if (m_finished)
        return;
    m_finished = true;
    // Nothing listened: the one network failure that means "no console".
    m_refused = !wasReady && m_lastError.isEmpty()
        && m_socket.error() == QAbstractSocket::ConnectionRefusedError;
    QString why = m_lastError;
    if (why.isEmpty()) {
        why = wasReady ? QStringLiteral("the console closed the connection")
                       : QStringLiteral("cannot connect to the console at %1: %2")
                             .arg(m_socket.requestUrl().toString(), m_socket.errorString());
        if (m_socket.closeCode() != QWebSocketProtocol::CloseCodeNormal && wasReady)
            why += QStringLiteral(" (close code %1 %2)")
                       .arg(int(m_socket.closeCode()))
                       .arg(m_socket.closeReason());
    }
    Q_EMIT failed(why);
}

} // namespace holdpoint
