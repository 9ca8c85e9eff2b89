// SPDX-License-Identifier: Apache-2.0
#include "weblistener.h"

#include <QPointer>
#include <QSslSocket>
#include <QTimer>

namespace holdpoint {

// Lives as the socket's child, so it goes when the socket goes, whoever
// deletes it: Qt HTTP Server disconnects every signal of a socket it
// upgrades, which a count kept by a `destroyed` connection would miss.
class ConnectionGuard final : public QObject
{
public:
    ConnectionGuard(WebListener *listener, QTcpSocket *socket)
        : QObject(socket)
        , m_listener(listener)
        , m_socket(socket)
        , m_peer(socket->peerAddress().toString())
    {
        setObjectName(QStringLiteral("holdpoint_guard"));
        for (QTimer *t : { &m_idle, &m_request })
            t->setSingleShot(true);
        m_idle.setInterval(listener->m_limits.idleMs);
        m_request.setInterval(listener->m_limits.requestMs);
        connect(&m_idle, &QTimer::timeout, this, [this] { m_socket->abort(); });
        connect(&m_request, &QTimer::timeout, this,
            [this] { refuse(408, "too_slow", QStringLiteral("a request took over %1 ms to arrive").arg(m_request.interval())); });
        m_idle.start();
    }
    ~ConnectionGuard() override
    {
        if (m_listener)
            m_listener->closed(m_peer);
    }

    static ConnectionGuard *of(const QObject *socket)
    {
        return socket ? socket->findChild<ConnectionGuard *>(QStringLiteral("holdpoint_guard"), Qt::FindDirectChildrenOnly)
                      : nullptr;
    }

    bool refused() const { return m_refused; }
    void requestDone() { m_request.stop(); }
    void handOver()
    {
        m_idle.stop();
        m_request.stop();
        m_handedOver = true;
    }

    // Qt HTTP Server reads everything available on each readyRead, inside a
    // transaction it commits at the end of each request: what is available
    // now is what arrived since, and no transaction means a new request.
    void onReadyRead()
    {
        if (m_handedOver)
            return;
        if (m_refused) {
            m_socket->skip(m_socket->bytesAvailable());
            return;
        }
        m_idle.start();
        if (!m_socket->isTransactionStarted()) {
            m_bytes = 0;
            m_request.start();
        }
        m_bytes += m_socket->bytesAvailable();
        if (m_bytes > m_listener->m_limits.maxRequestBytes)
            refuse(413, "too_large", QStringLiteral("a request over %1 bytes").arg(m_listener->m_limits.maxRequestBytes));
    }

private:
    void refuse(int status, const char *error, const QString &why)
    {
        m_refused = true;
        m_idle.stop();
        m_request.stop();
        const QByteArray body = QByteArrayLiteral("{\"error\":\"") + error + QByteArrayLiteral("\",\"message\":\"")
            + why.toUtf8() + QByteArrayLiteral("\"}");
        const QByteArray reason = status == 413 ? QByteArrayLiteral("Payload Too Large") : QByteArrayLiteral("Request Timeout");
        m_socket->write(QByteArrayLiteral("HTTP/1.1 ") + QByteArray::number(status) + ' ' + reason
            + QByteArrayLiteral("\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
                                "X-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ")
            + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n") + body);
        if (m_listener)
            Q_EMIT m_listener->guardRefused(m_peer, why);
        m_socket->disconnectFromHost();
    }

    QPointer<WebListener> m_listener;
    QTcpSocket *m_socket;
    QString m_peer;
    QTimer m_idle, m_request;
    qint64 m_bytes = 0;
    bool m_refused = false;
    bool m_handedOver = false;
};

WebListener::WebListener(WebListenerLimits limits, std::optional<QSslConfiguration> tls, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_tls(std::move(tls))
{
}

bool WebListener::refused(const QObject *socket)
{
    const ConnectionGuard *guard = ConnectionGuard::of(socket);
    return guard && guard->refused();
}

void WebListener::requestDone(QObject *socket)
{
    if (ConnectionGuard *guard = ConnectionGuard::of(socket))
        guard->requestDone();
}

void WebListener::handOver(QObject *socket)
{
    if (ConnectionGuard *guard = ConnectionGuard::of(socket))
        guard->handOver();
}

void WebListener::incomingConnection(qintptr descriptor)
{
    QTcpSocket *socket = m_tls ? new QSslSocket(this) : new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    const QString peer = socket->peerAddress().toString();
    if (m_open >= m_limits.maxConnections || m_perPeer.value(peer) >= m_limits.maxConnectionsPerPeer) {
        Q_EMIT guardRefused(peer, QStringLiteral("too many connections"));
        socket->abort();
        socket->deleteLater();
        return;
    }
    ++m_open;
    ++m_perPeer[peer];
    auto *guard = new ConnectionGuard(this, socket);
    // Connected before Qt HTTP Server's own readyRead handler, so the guard
    // always sees the bytes first.
    connect(socket, &QIODevice::readyRead, guard, &ConnectionGuard::onReadyRead);
    if (!m_tls) {
        admit(socket);
        return;
    }
    auto *ssl = static_cast<QSslSocket *>(socket);
    ssl->setSslConfiguration(*m_tls);
    connect(ssl, &QSslSocket::encrypted, this, [this, ssl] { admit(ssl); });
    connect(ssl, &QSslSocket::sslErrors, ssl, [this, ssl](const QList<QSslError> &errors) {
        Q_EMIT guardRefused(ssl->peerAddress().toString(), QStringLiteral("TLS: ") + errors.value(0).errorString());
    });
    connect(ssl, &QAbstractSocket::disconnected, ssl, &QObject::deleteLater);
    ssl->startServerEncryption();
}

void WebListener::admit(QTcpSocket *socket)
{
    addPendingConnection(socket);
}

void WebListener::closed(const QString &peer)
{
    --m_open;
    if (--m_perPeer[peer] <= 0)
        m_perPeer.remove(peer);
}

} // namespace holdpoint
