#include "weblistener.h"

#include <QSslSocket>
#include <QTimer>

namespace holdpoint {

namespace {

constexpr char BytesProperty[] = "holdpoint_request_bytes";
constexpr char RefusedProperty[] = "holdpoint_refused";

QString peerOf(const QTcpSocket *socket)
{
    return socket->peerAddress().toString() + u':' + QString::number(socket->peerPort());
}

} // namespace

WebListener::WebListener(WebListenerLimits limits, std::optional<QSslConfiguration> tls, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_tls(std::move(tls))
{
}

bool WebListener::refused(const QObject *socket)
{
    return socket && socket->property(RefusedProperty).toBool();
}

void WebListener::handOver(QObject *socket)
{
    delete socket->findChild<QTimer *>(QStringLiteral("holdpoint_idle"), Qt::FindDirectChildrenOnly);
}

void WebListener::incomingConnection(qintptr descriptor)
{
    QTcpSocket *socket = m_tls ? new QSslSocket(this) : new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    if (m_open >= m_limits.maxConnections) {
        Q_EMIT guardRefused(peerOf(socket), QStringLiteral("too many connections"));
        socket->abort();
        socket->deleteLater();
        return;
    }
    ++m_open;
    connect(socket, &QObject::destroyed, this, [this] { --m_open; });
    // Silence ends the connection; a WebSocket, once upgraded, has pings of its own.
    auto *idle = new QTimer(socket);
    idle->setObjectName(QStringLiteral("holdpoint_idle"));
    idle->setSingleShot(true);
    idle->setInterval(m_limits.idleMs);
    connect(idle, &QTimer::timeout, socket, [socket] { socket->abort(); });
    idle->start();
    if (!m_tls) {
        admit(socket);
        return;
    }
    auto *ssl = static_cast<QSslSocket *>(socket);
    ssl->setSslConfiguration(*m_tls);
    connect(ssl, &QSslSocket::encrypted, this, [this, ssl] { admit(ssl); });
    connect(ssl, &QSslSocket::sslErrors, ssl, [this, ssl](const QList<QSslError> &errors) {
        Q_EMIT guardRefused(peerOf(ssl), QStringLiteral("TLS: ") + errors.value(0).errorString());
    });
    connect(ssl, &QAbstractSocket::disconnected, ssl, &QObject::deleteLater);
    ssl->startServerEncryption();
}

void WebListener::admit(QTcpSocket *socket)
{
    // Connected before Qt HTTP Server's own readyRead handler, so the guard
    // always sees the bytes first.
    connect(socket, &QIODevice::readyRead, this, [this, socket] { guard(socket); });
    addPendingConnection(socket);
}

void WebListener::guard(QTcpSocket *socket)
{
    if (auto *idle = socket->findChild<QTimer *>(QStringLiteral("holdpoint_idle"), Qt::FindDirectChildrenOnly))
        idle->start();
    if (refused(socket)) {
        socket->skip(socket->bytesAvailable());
        return;
    }
    // Qt HTTP Server reads everything available on each readyRead, inside a
    // transaction it commits at the end of each request: what is available
    // now is what arrived since, and no transaction means a new request.
    qint64 bytes = socket->isTransactionStarted() ? socket->property(BytesProperty).toLongLong() : 0;
    bytes += socket->bytesAvailable();
    socket->setProperty(BytesProperty, bytes);
    if (bytes > m_limits.maxRequestBytes)
        refuse(socket, 413, "too_large",
            QStringLiteral("request over %1 bytes").arg(m_limits.maxRequestBytes));
}

void WebListener::refuse(QTcpSocket *socket, int status, const char *error, const QString &why)
{
    socket->setProperty(RefusedProperty, true);
    const QByteArray body = QByteArrayLiteral("{\"error\":\"") + error + QByteArrayLiteral("\",\"message\":\"")
        + why.toUtf8() + QByteArrayLiteral("\"}");
    socket->write(QByteArrayLiteral("HTTP/1.1 ") + QByteArray::number(status)
        + QByteArrayLiteral(" Refused\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
                            "X-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ")
        + QByteArray::number(body.size()) + QByteArrayLiteral("\r\n\r\n") + body);
    Q_EMIT guardRefused(peerOf(socket), why);
    socket->disconnectFromHost();
}

} // namespace holdpoint
