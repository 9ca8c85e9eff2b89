// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/reviewertokens.h"
#include "server/endpointconfig.h"
#include "server/messagehandler.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>

#include <memory>
#include <unordered_map>
#include <unordered_set>

QT_BEGIN_NAMESPACE
class QWebSocket;
class QWebSocketServer;
class QTcpServer;
class QWebSocketCorsAuthenticator;
class QTimer;
class QFileSystemWatcher;
QT_END_NAMESPACE

namespace holdpoint {

// The loopback WebSocket endpoint (PROTOCOL.md "Connecting"): admits only
// local, authenticated clients and hands their parsed messages to a
// MessageHandler. It owns no decision logic.
class Endpoint final : public QObject, public Outbound
{
    Q_OBJECT
public:
    explicit Endpoint(EndpointConfig config, QObject *parent = nullptr);
    ~Endpoint() override;

    void setHandler(MessageHandler *handler) { m_handler = handler; }
    bool listen(QString *error);
    quint16 port() const;
    QString url() const;
    int connectionCount() const { return int(m_connections.size()); }

    void send(ConnectionId connection, const std::string &text) override;
    void close(ConnectionId connection, CloseCode code, const std::string &reason) override;

    static bool constantTimeEquals(const QByteArray &a, const QByteArray &b);

    // Rereads EndpointConfig::reviewersFile if it changed, and closes the
    // connections of reviewers it no longer lists (a removed token must not
    // keep deciding). Runs on each reviewer hello and when the data
    // directory changes; callable by tests.
    void refreshReviewers();
    // The named reviewers admitted now.
    const std::vector<NamedReviewer> &namedReviewers() const { return m_namedReviewers; }

Q_SIGNALS:
    // A client that was turned away: bad Origin, Host or token, too many
    // connections, no hello in time. `detail` never contains a secret.
    void rejected(const QString &peer, const QString &why);
    // The named reviewers admitted changed (added, removed, re-issued, or
    // the file refused): `reviewers` is [{name, os_user}], never a token or
    // its digest; `problem` says why the file admits nobody, if it does not.
    void reviewersChanged(const Json &reviewers, const QString &problem);

private:
    struct Connection
    {
        QWebSocket *socket = nullptr;
        QTimer *helloTimer = nullptr;
        qint64 lastHeard = 0; // steady ms
        bool authenticated = false;
        bool closing = false;
        // A named reviewer's (reviewers.json), to close it once removed.
        std::string reviewerName;
        std::string reviewerOsUser;
        std::string reviewerTokenSha256;
    };

    void onNewConnection();
    void onOriginCheck(QWebSocketCorsAuthenticator *authenticator);
    void onText(ConnectionId id, const QString &text);
    void onBinary(ConnectionId id);
    void onDisconnected(ConnectionId id);
    void handleHello(ConnectionId id, Connection &c, const std::string &text);
    void reject(
        ConnectionId id, CloseCode code, protocol::ErrorCode error, const std::string &message);
    bool hostAllowed(QWebSocket *socket) const;
    void keepAlive();
    void heard(ConnectionId id);
    void closeRemovedReviewers();

    EndpointConfig m_config;
    MessageHandler *m_handler = nullptr;
    std::unique_ptr<QWebSocketServer> m_server;
    std::unique_ptr<QTcpServer> m_tcp;
    std::unordered_map<ConnectionId, Connection> m_connections;
    ConnectionId m_nextId = 1;
    QTimer *m_keepAlive = nullptr;
    QFileSystemWatcher *m_reviewersWatcher = nullptr;
    std::vector<NamedReviewer> m_namedReviewers;
    std::string m_reviewersStamp; // what the file was when last read: inode, size, times
    std::string m_reviewersProblem; // why the file was refused; never a token
    std::unordered_set<quint16>
        m_upgraded; // peer ports upgraded since their handshake timer started
    // While send(), close(), reject() or keepAlive() runs, a disconnect it
    // causes is reported from the event loop: the connection entry stays
    // valid under it, and the handler is never called back in the middle of
    // its own send(). See HoldDisconnects.
    int m_disconnectHolds = 0;
};

} // namespace holdpoint
