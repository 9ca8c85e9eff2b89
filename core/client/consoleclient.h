// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "client/endpointinfo.h"
#include "common/json.h"
#include "protocol/protocol.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QWebSocket>

#include <optional>

namespace holdpoint {

// A protocol v1 client over a real WebSocket, for holdpoint-ctl, the demo
// agent and the integrations. Emits every message the console sends. Once
// welcomed it pings the console, and a console silent for
// wire::silenceBoundMs() (stopped, hung) fails the connection; so does
// anything that breaks the protocol (a message that is not a JSON object,
// a welcome for another protocol).
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
    // After failed(): whether no console could be reached at all (nothing
    // listens on the endpoint's port), the one failure here that fail-open
    // may let a call through for (wire/failopen.h).
    bool refused() const { return m_refused; }
    const std::string &sessionId() const { return m_sessionId; }

Q_SIGNALS:
    void welcomed(const Json &welcome);
    void message(const Json &message); // every message after welcome
    // The connection failed or ended; `why` is for people.
    void failed(const QString &why);

private:
    void onText(const QString &text);
    void onClosed();
    // Ends the connection with `why` as the failure's reason.
    void failWith(const QString &why);

    QWebSocket m_socket;
    QTimer m_timeout;
    QTimer m_ping;
    QElapsedTimer m_heard; // since the console last said anything
    std::int64_t m_silenceMs = 0;
    bool m_refused = false;
    Json m_hello;
    bool m_ready = false;
    bool m_finished = false;
    std::string m_sessionId;
    QString m_lastError;
    std::int64_t m_maxMessageBytes = 0; // 0: the console did not say
};

} // namespace holdpoint
