// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "client/endpointinfo.h"
#include "common/json.h"
#include "protocol/protocol.h"

#include <QObject>
#include <QTimer>
#include <QWebSocket>

#include <optional>

namespace holdpoint {

// A protocol v1 client over a real WebSocket, for holdpoint-ctl, the demo
// agent and the integrations. Emits every message the console sends.
class ConsoleClient final : public QObject
{
    Q_OBJECT
public:
    explicit ConsoleClient(QObject *parent = nullptr);
    ~ConsoleClient() override;

    // Connects and says hello. welcomed() or failed() follows.
    void connectTo(const EndpointInfo &info, protocol::Role role, const protocol::AgentInfo &agent,
                   const std::optional<std::string> &sessionId = std::nullopt, int timeoutMs = 10'000);
    // Sends one message. One larger than the console takes (its welcome's
    // max_message_bytes) is not sent, and the connection stays open: false,
    // with the reason in *whyNot. Sent anyway, the console would cut the
    // connection off mid-send with nothing said.
    bool send(const Json &message, QString *whyNot = nullptr);
    void close();
    bool isReady() const { return m_ready; }
    const std::string &sessionId() const { return m_sessionId; }

Q_SIGNALS:
    void welcomed(const Json &welcome);
    void message(const Json &message); // every message after welcome
    // The connection failed or ended; `why` is for people.
    void failed(const QString &why);

private:
    void onText(const QString &text);
    void onClosed();

    QWebSocket m_socket;
    QTimer m_timeout;
    Json m_hello;
    bool m_ready = false;
    bool m_finished = false;
    std::string m_sessionId;
    QString m_lastError;
    std::int64_t m_maxMessageBytes = 0; // 0: the console did not say
};

} // namespace holdpoint
