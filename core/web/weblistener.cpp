// SPDX-License-Identifier: Apache-2.0
#include "weblistener.h"

#include "common/json.h"
#include "web/httpframing.h"

#include <QPointer>
#include <QSslSocket>
#include <QTimer>

#include <algorithm>
#include <chrono>

namespace holdpoint {

namespace {

qint64 guardClockMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

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
        , m_framer(listener->m_limits.maxHeaderFields)
        , m_since(guardClockMs())
    {
        setObjectName(QStringLiteral("holdpoint_guard"));
        for (QTimer *t : { &m_idle, &m_request })
            t->setSingleShot(true);
        m_idle.setInterval(listener->m_limits.idleMs);
        m_request.setInterval(listener->m_limits.requestMs);
        connect(&m_idle, &QTimer::timeout, this, [this] { m_socket->abort(); });
        connect(&m_request, &QTimer::timeout, this, [this] {
            refuse(408, "too_slow",
                QStringLiteral("a request took over %1 ms to arrive").arg(m_request.interval()));
        });
        m_idle.start();
    }
    ~ConnectionGuard() override
    {
        if (m_listener && m_counted)
            m_listener->closed(this, m_peer);
    }

    static ConnectionGuard *of(const QObject *socket)
    {
        return socket ? socket->findChild<ConnectionGuard *>(
                   QStringLiteral("holdpoint_guard"), Qt::FindDirectChildrenOnly)
                      : nullptr;
    }

    bool refused() const { return m_refused; }
    bool trusted() const { return m_trusted; }
    void trust() { m_trusted = true; }
    // When its present wait began: connected, a request's first byte, or
    // its last answer. A request trickled byte by byte keeps its start.
    qint64 since() const { return m_since; }
    const QString &peer() const { return m_peer; }
    // Closed to make room: no longer counted, from now.
    void evict()
    {
        m_counted = false;
        m_refused = true;
        m_idle.stop();
        m_request.stop();
        m_socket->abort();
    }
    void requestDone(qsizetype fields, qint64 bodyBytes)
    {
        if (m_refused || m_handedOver)
            return;
        m_request.stop();
        // Qt's parser found a request where ours has not finished one, or
        // finished it elsewhere: Qt 6.4 reads a head it cannot parse as
        // one with no fields and no body, and what it leaves on the socket
        // becomes its next request. The two disagree on framing, so
        // neither reading is acted on (RFC 9112 §6.3). Nothing else reads
        // the socket between Qt's parse and its handler, so a byte still
        // available is one Qt did not take as part of this request.
        if (m_phase != Phase::Answering || fields != m_framer.fields()
            || bodyBytes != m_framer.contentLength() || m_socket->bytesAvailable() != 0) {
            refuse(400, "invalid",
                QStringLiteral("a request this server's two parsers frame differently"));
            return;
        }
        m_phase = Phase::Idle;
        m_since = guardClockMs();
        ++m_handled;
    }
    void hold(bool held) { m_held = held; }
    void handOver()
    {
        m_idle.stop();
        m_request.stop();
        m_handedOver = true;
    }

    // Runs before Qt HTTP Server's own handler, which reads everything the
    // socket holds on each readyRead: what is available now is what arrived
    // since, and no byte of it reaches Qt's parser unless each request in
    // it is framed (httpframing.h) and within the caps.
    void onReadyRead()
    {
        if (m_handedOver)
            return;
        if (m_refused) {
            m_socket->skip(m_socket->bytesAvailable());
            return;
        }
        m_idle.start();
        if (m_held && m_socket->bytesAvailable() > 0)
            return refuse(
                400, "invalid", QStringLiteral("a request sent before the last one was answered"));
        const QByteArray data = m_socket->peek(m_socket->bytesAvailable());
        const qint64 cap = m_listener->m_limits.maxRequestBytes;
        for (qsizetype at = 0; at < data.size() && !m_refused;) {
            switch (m_phase) {
            case Phase::Idle:
                m_framer.reset();
                m_phase = Phase::Head;
                m_since = guardClockMs();
                m_request.start();
                break;
            case Phase::Head: {
                // No more than one byte past the cap is looked at.
                const qsizetype room
                    = qsizetype(std::max<qint64>(1, cap + 1 - m_framer.headBytes()));
                const QByteArrayView rest = QByteArrayView(data).sliced(at);
                qsizetype used = 0;
                const auto status = m_framer.feed(rest.first(std::min(room, rest.size())), &used);
                at += used;
                if (status == RequestFramer::Status::Invalid)
                    return refuse(400, "invalid", m_framer.error());
                if (m_framer.headBytes() > cap
                    || (status == RequestFramer::Status::Complete
                        && m_framer.headBytes() + m_framer.contentLength() > cap))
                    return refuse(
                        413, "too_large", QStringLiteral("a request over %1 bytes").arg(cap));
                if (status == RequestFramer::Status::Complete) {
                    m_bodyLeft = m_framer.contentLength();
                    m_phase = m_bodyLeft > 0 ? Phase::Body : Phase::Answering;
                }
                break;
            }
            case Phase::Body: {
                const qint64 take = std::min<qint64>(m_bodyLeft, data.size() - at);
                at += qsizetype(take);
                m_bodyLeft -= take;
                if (m_bodyLeft == 0)
                    m_phase = Phase::Answering;
                break;
            }
            case Phase::Answering:
                // Qt's parser would read the next request into this one's
                // (it parses all it is given in one go): a client waits for
                // each answer before it sends again (no pipelining here).
                return refuse(400, "invalid",
                    QStringLiteral("bytes after a whole request, before its answer; send one "
                                   "request at a time"));
            }
        }
        if (m_phase == Phase::Answering && !m_refused)
            checkAnsweredLater();
    }

private:
    enum class Phase
    {
        Idle, // between requests
        Head,
        Body,
        Answering, // framed whole: Qt's handler has it now
    };

    // Once the event loop is back, a request framed whole has reached the
    // handler (requestDone) or the WebSocket server (handOver). If neither,
    // Qt's parser refused what ours took: it drops the socket's signals and
    // would leave the connection open and silent, so it is answered here.
    void checkAnsweredLater()
    {
        const quint64 framed = ++m_framed;
        QTimer::singleShot(0, this, [this, framed] {
            if (m_handled >= framed || m_refused || m_handedOver)
                return;
            connect(m_socket, &QAbstractSocket::disconnected, m_socket, &QObject::deleteLater);
            refuse(400, "invalid", QStringLiteral("a request this server could not parse"));
        });
    }

    void refuse(int status, const char *error, const QString &why)
    {
        m_refused = true;
        m_idle.stop();
        m_request.stop();
        // Whatever else the socket holds is read by nobody: Qt's handler,
        // which runs next, finds nothing, and later bytes are skipped.
        m_socket->skip(m_socket->bytesAvailable());
        const QByteArray body = QByteArray::fromStdString(
            dumpJson({ { "error", error }, { "message", why.toStdString() } }));
        const QByteArray reason = status == 413 ? QByteArrayLiteral("Payload Too Large")
            : status == 408                     ? QByteArrayLiteral("Request Timeout")
                                                : QByteArrayLiteral("Bad Request");
        m_socket->write(QByteArrayLiteral("HTTP/1.1 ") + QByteArray::number(status) + ' ' + reason
            + QByteArrayLiteral(
                "\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
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
    RequestFramer m_framer;
    Phase m_phase = Phase::Idle;
    qint64 m_bodyLeft = 0;
    quint64 m_framed = 0; // requests framed whole
    quint64 m_handled = 0; // of them, those the handler was given
    qint64 m_since;
    bool m_refused = false;
    bool m_held = false; // an answer is on its way (WebListener::hold)
    bool m_handedOver = false;
    bool m_trusted = false; // carried a valid session (WebListener::trust)
    bool m_counted = true; // in the listener's counts (until evicted)
};

WebListener::WebListener(
    WebListenerLimits limits, std::optional<QSslConfiguration> tls, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_tls(std::move(tls))
{ }

bool WebListener::refused(const QObject *socket)
{
    const ConnectionGuard *guard = ConnectionGuard::of(socket);
    return guard && guard->refused();
}

void WebListener::requestDone(QObject *socket, qsizetype fields, qint64 bodyBytes)
{
    if (ConnectionGuard *guard = ConnectionGuard::of(socket))
        guard->requestDone(fields, bodyBytes);
}

void WebListener::hold(QObject *socket, bool held)
{
    if (ConnectionGuard *guard = ConnectionGuard::of(socket))
        guard->hold(held);
}

void WebListener::trust(QObject *socket)
{
    if (ConnectionGuard *guard = ConnectionGuard::of(socket))
        guard->trust();
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
    // A connection that carried no session makes room; one that did is
    // never closed for a newcomer, which has proved nothing yet.
    const bool room = (m_perPeer.value(peer) < m_limits.maxConnectionsPerPeer || makeRoom(&peer))
        && (m_open < m_limits.maxConnections || makeRoom(nullptr));
    if (!room) {
        Q_EMIT guardRefused(peer, QStringLiteral("too many connections"));
        socket->abort();
        socket->deleteLater();
        return;
    }
    ++m_open;
    ++m_perPeer[peer];
    auto *guard = new ConnectionGuard(this, socket);
    m_guards.push_back(guard);
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
        Q_EMIT guardRefused(
            ssl->peerAddress().toString(), QStringLiteral("TLS: ") + errors.value(0).errorString());
    });
    connect(ssl, &QAbstractSocket::disconnected, ssl, &QObject::deleteLater);
    ssl->startServerEncryption();
}

void WebListener::admit(QTcpSocket *socket)
{
    addPendingConnection(socket);
}

bool WebListener::makeRoom(const QString *peer)
{
    ConnectionGuard *victim = nullptr;
    for (ConnectionGuard *g : m_guards)
        if (!g->trusted() && (!peer || g->peer() == *peer)
            && (!victim || g->since() < victim->since()))
            victim = g;
    if (!victim)
        return false;
    Q_EMIT guardRefused(
        victim->peer(), QStringLiteral("closed to make room: no session, and the longest wait"));
    const QString victimPeer = victim->peer();
    closed(victim, victimPeer);
    victim->evict();
    return true;
}

void WebListener::closed(ConnectionGuard *guard, const QString &peer)
{
    std::erase(m_guards, guard);
    --m_open;
    if (--m_perPeer[peer] <= 0)
        m_perPeer.remove(peer);
}

} // namespace holdpoint
