// SPDX-License-Identifier: Apache-2.0
#include "endpoint.h"

#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketCorsAuthenticator>
#include <QWebSocketServer>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>

namespace holdpoint {

using namespace protocol;

namespace {

// Writing to or closing a socket may report its disconnect synchronously;
// for as long as one of these lives, Endpoint::onDisconnected() defers it.
class HoldDisconnects
{
public:
    explicit HoldDisconnects(int &holds)
        : m_holds(holds)
    {
        ++m_holds;
    }
    ~HoldDisconnects() { --m_holds; }
    HoldDisconnects(const HoldDisconnects &) = delete;
    HoldDisconnects &operator=(const HoldDisconnects &) = delete;

private:
    int &m_holds;
};

} // namespace

namespace {

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

Endpoint::Endpoint(EndpointConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_server(std::make_unique<QWebSocketServer>(
          QStringLiteral("holdpoint"), QWebSocketServer::NonSecureMode))
    , m_tcp(std::make_unique<QTcpServer>())
{
    m_server->setHandshakeTimeout(m_config.handshakeTimeoutMs);
    m_keepAlive = new QTimer(this);
    m_keepAlive->setInterval(std::max(10, m_config.idleTimeoutMs / 3));
    connect(m_keepAlive, &QTimer::timeout, this, &Endpoint::keepAlive);
    m_keepAlive->start();
    connect(m_tcp.get(), &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            // QWebSocketServer times out handshakes only on connections it
            // accepted itself: a client that stalls mid-upgrade is ours to close.
            const quint16 peer = socket->peerPort();
            QTimer::singleShot(m_config.handshakeTimeoutMs, socket, [this, socket, peer] {
                if (m_upgraded.erase(peer) == 0) {
                    Q_EMIT rejected(socket->peerAddress().toString(),
                        QStringLiteral("handshake not completed within %1 ms")
                            .arg(m_config.handshakeTimeoutMs));
                    socket->abort();
                }
            });
            m_server->handleConnection(socket);
        }
    });
    connect(m_server.get(), &QWebSocketServer::newConnection, this, &Endpoint::onNewConnection);
    connect(m_server.get(), &QWebSocketServer::originAuthenticationRequired, this,
        &Endpoint::onOriginCheck);
}

Endpoint::~Endpoint()
{
    for (auto &[id, c] : m_connections) {
        QObject::disconnect(c.socket, nullptr, this, nullptr);
        c.socket->abort();
        delete c.socket;
    }
    m_connections.clear();
}

bool Endpoint::listen(QString *error)
{
    // Loopback only: the console must never be reachable from the network.
    // Our own TCP server accepts, so every socket gets TCP_NODELAY before the
    // WebSocket handshake: small decisions must not wait on Nagle's
    // algorithm for the peer's delayed ACK (40 ms on Linux). The accept
    // queue holds a burst of agents connecting at once: with Qt's default
    // of 50 the kernel drops the rest's SYNs, and they retry after 1 s.
    m_tcp->setListenBacklogSize(std::max(m_config.maxConnections, 128));
    if (!m_tcp->listen(QHostAddress::LocalHost, m_config.port)) {
        if (error)
            *error = QStringLiteral("cannot listen on 127.0.0.1:%1: %2")
                         .arg(m_config.port)
                         .arg(m_tcp->errorString());
        return false;
    }
    if (!m_config.reviewersFile.isEmpty() && !m_reviewersWatcher) {
        // holdpoint-ctl replaces the file atomically (a rename), which a
        // watch on the file itself would lose; the directory sees it.
        m_reviewersWatcher = new QFileSystemWatcher(this);
        m_reviewersWatcher->addPath(QFileInfo(m_config.reviewersFile).absolutePath());
        connect(m_reviewersWatcher, &QFileSystemWatcher::directoryChanged, this,
            &Endpoint::refreshReviewers);
        refreshReviewers();
    }
    return true;
}

void Endpoint::refreshReviewers()
{
    if (m_config.reviewersFile.isEmpty())
        return;
    // Reread only when the file changed: a new inode (every atomic write),
    // size, times (ctime covers chmod and chown) or mode.
    struct stat st
    {
    };
    std::string stamp = "absent";
    if (::stat(QFile::encodeName(m_config.reviewersFile).constData(), &st) == 0)
        stamp = std::to_string(st.st_ino) + ':' + std::to_string(st.st_size) + ':'
            + std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + ':'
            + std::to_string(st.st_ctim.tv_sec) + '.' + std::to_string(st.st_ctim.tv_nsec) + ':'
            + std::to_string(st.st_mode) + ':' + std::to_string(st.st_uid);
    if (stamp == m_reviewersStamp)
        return;
    m_reviewersStamp = stamp;
    const std::vector<NamedReviewer> before = std::move(m_namedReviewers);
    const std::string problemBefore = std::move(m_reviewersProblem);
    m_namedReviewers.clear();
    m_reviewersProblem.clear();
    if (stamp != "absent") {
        QByteArray bytes;
        QString error;
        bool missing = false;
        if (!readPrivateFile(
                m_config.reviewersFile, MaxReviewersFileBytes, &bytes, &error, &missing)) {
            if (!missing)
                m_reviewersProblem = error.toStdString();
        } else if (ReviewersParse parsed = parseReviewersFile(bytes.toStdString());
                   !parsed.error.empty()) {
            m_reviewersProblem = m_config.reviewersFile.toStdString() + ": " + parsed.error;
        } else if (const auto own = std::find_if(parsed.reviewers.begin(), parsed.reviewers.end(),
                       [this](const NamedReviewer &n) { return n.name == m_config.ownerName; });
                   own != parsed.reviewers.end()) {
            // Two people behind one name would make decided_by a guess.
            m_reviewersProblem = m_config.reviewersFile.toStdString() + ": \"" + own->name
                + "\" is this console's own reviewer; give the other person a name of their own";
        } else {
            m_namedReviewers = std::move(parsed.reviewers);
        }
        // Fail closed: a file that cannot be trusted admits nobody.
        if (!m_reviewersProblem.empty())
            Q_EMIT rejected(QStringLiteral("127.0.0.1"),
                QStringLiteral("named reviewer tokens refused: ") + toQString(m_reviewersProblem));
    }
    const auto same = [](const NamedReviewer &a, const NamedReviewer &b) {
        return a.name == b.name && a.osUser == b.osUser && a.tokenSha256 == b.tokenSha256;
    };
    if (!std::equal(
            before.begin(), before.end(), m_namedReviewers.begin(), m_namedReviewers.end(), same)
        || problemBefore != m_reviewersProblem) {
        Json listed = Json::array();
        for (const NamedReviewer &n : m_namedReviewers)
            listed.push_back(Json { { "name", n.name }, { "os_user", n.osUser } });
        Q_EMIT reviewersChanged(listed, toQString(m_reviewersProblem));
    }
    closeRemovedReviewers();
}

void Endpoint::closeRemovedReviewers()
{
    std::vector<std::pair<ConnectionId, std::string>> removed;
    for (const auto &entry : m_connections) {
        const Connection &c
            = entry.second; // a lambda below takes it (no structured binding: clang 14)
        if (!c.authenticated || c.closing || c.reviewerName.empty())
            continue;
        const bool listed = std::any_of(
            m_namedReviewers.begin(), m_namedReviewers.end(), [&c](const NamedReviewer &n) {
                return n.name == c.reviewerName && n.osUser == c.reviewerOsUser
                    && n.tokenSha256 == c.reviewerTokenSha256;
            });
        if (!listed)
            removed.emplace_back(entry.first, c.reviewerName);
    }
    for (const auto &[id, name] : removed)
        reject(id, CloseCode::PolicyViolation, ErrorCode::AuthFailed,
            "token: reviewer " + name + " is no longer one of this console's reviewers");
}

quint16 Endpoint::port() const
{
    return m_tcp->serverPort();
}

QString Endpoint::url() const
{
    return QStringLiteral("ws://127.0.0.1:%1/").arg(port());
}

bool Endpoint::constantTimeEquals(const QByteArray &a, const QByteArray &b)
{
    if (a.isEmpty() || a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

void Endpoint::onOriginCheck(QWebSocketCorsAuthenticator *authenticator)
{
    // Non-browser clients send no Origin. A browser always does, so a page
    // that tries to reach the console is refused with 403 unless its exact
    // origin was allow-listed (PROTOCOL.md "Connecting").
    const QString origin = authenticator->origin();
    const bool allowed = origin.isEmpty() || m_config.allowedOrigins.contains(origin);
    authenticator->setAllowed(allowed);
    if (!allowed)
        Q_EMIT rejected(QStringLiteral("127.0.0.1"),
            QStringLiteral("origin not allowed: %1").arg(origin.left(200)));
}

bool Endpoint::hostAllowed(QWebSocket *socket) const
{
    // DNS rebinding defence: only our own loopback names, with our port.
    QByteArray host = socket->request().rawHeader("Host").trimmed().toLower();
    if (host.isEmpty()) {
        const QUrl url = socket->request().url();
        host = (url.host() + u':' + QString::number(url.port(-1))).toLatin1().toLower();
    }
    const QByteArray port = QByteArray::number(this->port());
    return host == "127.0.0.1:" + port || host == "localhost:" + port;
}

void Endpoint::onNewConnection()
{
    while (QWebSocket *socket = m_server->nextPendingConnection()) {
        const ConnectionId id = m_nextId++;
        m_upgraded.insert(socket->peerPort());
        socket->setParent(nullptr);
        socket->setMaxAllowedIncomingMessageSize(quint64(m_config.maxMessageBytes));
        socket->setMaxAllowedIncomingFrameSize(quint64(m_config.maxMessageBytes));
        // Each message in one frame: a Qt client (holdpoint-ctl, mcp-proxy)
        // rejects a message whose 512 KiB frames split a UTF-8 character.
        socket->setOutgoingFrameSize(QWebSocket::maxOutgoingFrameSize());

        Connection c;
        c.socket = socket;
        c.helloTimer = new QTimer(socket);
        c.helloTimer->setSingleShot(true);
        c.lastHeard = steadyMs();
        m_connections.emplace(id, c);

        connect(socket, &QWebSocket::textMessageReceived, this,
            [this, id](const QString &t) { onText(id, t); });
        connect(socket, &QWebSocket::pong, this, [this, id] { heard(id); });
        connect(socket, &QWebSocket::binaryMessageReceived, this,
            [this, id](const QByteArray &) { onBinary(id); });
        connect(socket, &QWebSocket::disconnected, this, [this, id] { onDisconnected(id); });
        connect(c.helloTimer, &QTimer::timeout, this, [this, id] {
            reject(id, CloseCode::PolicyViolation, ErrorCode::HelloRequired,
                "hello: not received within " + std::to_string(m_config.helloTimeoutMs)
                    + " ms of connecting");
        });

        if (int(m_connections.size()) > m_config.maxConnections) {
            // 1008, not 1013: Qt 6.4's own client rejects 1013 as an invalid
            // close code. The error frame before it says this is retryable.
            reject(id, CloseCode::PolicyViolation, ErrorCode::ConnectionLimit,
                "the console already serves " + std::to_string(m_config.maxConnections)
                    + " connections");
            continue;
        }
        if (!hostAllowed(socket)) {
            reject(id, CloseCode::PolicyViolation, ErrorCode::Forbidden,
                "Host: expected 127.0.0.1:" + std::to_string(port())
                    + " or localhost:" + std::to_string(port()));
            continue;
        }
        c.helloTimer->start(m_config.helloTimeoutMs);
    }
}

void Endpoint::reject(ConnectionId id, CloseCode code, ErrorCode error, const std::string &message)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end() || it->second.closing)
        return;
    const HoldDisconnects hold(m_disconnectHolds);
    Connection &c = it->second;
    c.closing = true;
    c.helloTimer->stop();
    Q_EMIT rejected(c.socket->peerAddress().toString(),
        QString::fromLatin1(errorCodeName(error)) + u": " + toQString(message));
    c.socket->sendTextMessage(toQString(dumpJson(errorToJson(error, message))));
    // A close reason must fit in a control frame (RFC 6455 §5.5: 125 bytes).
    c.socket->close(
        QWebSocketProtocol::CloseCode(quint16(code)), QString::fromLatin1(errorCodeName(error)));
}

void Endpoint::onText(ConnectionId id, const QString &text)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end() || it->second.closing)
        return;
    it->second.lastHeard = steadyMs();
    const std::string utf8 = text.toStdString();
    if (!it->second.authenticated)
        return handleHello(id, it->second, utf8);

    ParseResult parsed = parseMessage(utf8);
    if (!parsed.ok()) {
        send(id,
            dumpJson(errorToJson(parsed.error.code, parsed.error.message, parsed.error.callId)));
        return;
    }
    if (m_handler)
        m_handler->onMessage(id, std::move(*parsed.message));
}

void Endpoint::handleHello(ConnectionId id, Connection &c, const std::string &text)
{
    // Nothing is processed before a successful hello (PROTOCOL.md "hello").
    ParseResult parsed = parseMessage(text);
    if (!parsed.ok()) {
        const CloseCode code = parsed.error.code == ErrorCode::UnsupportedProtocol
            ? CloseCode::ProtocolError
            : CloseCode::PolicyViolation;
        return reject(id, code, parsed.error.code, parsed.error.message);
    }
    const auto *hello = std::get_if<Hello>(&*parsed.message);
    if (!hello)
        return reject(id, CloseCode::PolicyViolation, ErrorCode::HelloRequired,
            "type: the first message must be hello");

    const QByteArray token = QByteArray::fromStdString(hello->token);
    // Who a reviewer is comes from the token alone, never from the wire.
    Hello admitted = *hello;
    admitted.reviewerName.clear();
    admitted.reviewerOsUser.clear();
    bool valid = false;
    if (hello->role != Role::Reviewer) {
        valid = constantTimeEquals(token, m_config.agentToken);
    } else if (constantTimeEquals(token, m_config.reviewerToken)) {
        valid = true;
    } else if (!m_config.reviewersFile.isEmpty()) {
        refreshReviewers(); // a reviewer added a moment ago is admitted, a removed one is not
        if (const auto named = findReviewerByToken(m_namedReviewers, token)) {
            valid = true;
            admitted.reviewerName = named->name;
            admitted.reviewerOsUser = named->osUser;
            c.reviewerName = named->name;
            c.reviewerOsUser = named->osUser;
            c.reviewerTokenSha256 = named->tokenSha256;
        } else if (!m_reviewersProblem.empty()) {
            Q_EMIT rejected(c.socket->peerAddress().toString(),
                QStringLiteral("reviewer token not recognised; named reviewer tokens are refused: ")
                    + toQString(m_reviewersProblem));
        }
    }
    if (!valid)
        return reject(id, CloseCode::PolicyViolation, ErrorCode::AuthFailed,
            std::string("token: not valid for role ") + std::string(roleName(hello->role)));

    c.helloTimer->stop();
    c.authenticated = true;
    if (m_handler)
        m_handler->onHello(id, admitted);
}

void Endpoint::heard(ConnectionId id)
{
    if (auto it = m_connections.find(id); it != m_connections.end())
        it->second.lastHeard = steadyMs();
}

void Endpoint::keepAlive()
{
    // A ping or close that finds the peer gone must not erase entries of
    // the map being walked.
    const HoldDisconnects hold(m_disconnectHolds);
    const qint64 now = steadyMs();
    std::vector<ConnectionId> silent;
    for (auto &[id, c] : m_connections) {
        if (c.closing || !c.authenticated)
            continue; // the hello timer covers the rest
        if (now - c.lastHeard > m_config.idleTimeoutMs)
            silent.push_back(id);
        else
            c.socket->ping();
    }
    for (ConnectionId id : silent) {
        Connection &c = m_connections.at(id);
        c.closing = true;
        Q_EMIT rejected(c.socket->peerAddress().toString(),
            QStringLiteral("dropped: silent for %1 ms (no message, no pong)")
                .arg(m_config.idleTimeoutMs));
        c.socket->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("idle"));
        // The socket is deleted later, so this queued call either runs or
        // is discarded with it.
        QMetaObject::invokeMethod(c.socket, &QWebSocket::abort, Qt::QueuedConnection);
    }
}

void Endpoint::onBinary(ConnectionId id)
{
    heard(id);
    auto it = m_connections.find(id);
    if (it == m_connections.end() || it->second.closing)
        return;
    if (!it->second.authenticated)
        return reject(id, CloseCode::PolicyViolation, ErrorCode::HelloRequired,
            "the first message must be a hello text frame");
    send(id,
        dumpJson(errorToJson(ErrorCode::InvalidMessage,
            "binary frames are not accepted; send each message as a JSON text frame")));
}

void Endpoint::onDisconnected(ConnectionId id)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end())
        return;
    if (m_disconnectHolds > 0) {
        // Reported once the caller is done: it may hold this entry, or be
        // the handler walking its own state (a call's waiters, the reviewers).
        it->second.closing = true;
        QMetaObject::invokeMethod(
            this, [this, id] { onDisconnected(id); }, Qt::QueuedConnection);
        return;
    }
    const bool wasAuthenticated = it->second.authenticated;
    QWebSocket *socket = it->second.socket;
    m_connections.erase(it);
    socket->deleteLater();
    if (wasAuthenticated && m_handler)
        m_handler->onDisconnected(id);
}

void Endpoint::send(ConnectionId id, const std::string &text)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end() || it->second.closing)
        return;
    const HoldDisconnects hold(m_disconnectHolds);
    QWebSocket *socket = it->second.socket;
    socket->sendTextMessage(toQString(text));
    // Out now, not on the event loop's next turn: someone is waiting for it.
    socket->flush();
    if (it->second.closing)
        return; // the write failed
    // A client that does not read would make us buffer without bound.
    if (socket->bytesToWrite() > m_config.maxBufferedBytes) {
        it->second.closing = true;
        Q_EMIT rejected(socket->peerAddress().toString(),
            QStringLiteral("dropped: more than %1 bytes unread").arg(m_config.maxBufferedBytes));
        // Deferred: abort() reports the disconnect synchronously, and the
        // caller may be iterating the very list this connection is in.
        QMetaObject::invokeMethod(socket, &QWebSocket::abort, Qt::QueuedConnection);
    }
}

void Endpoint::close(ConnectionId id, CloseCode code, const std::string &reason)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end() || it->second.closing)
        return;
    const HoldDisconnects hold(m_disconnectHolds);
    it->second.closing = true;
    it->second.socket->close(
        QWebSocketProtocol::CloseCode(quint16(code)), toQString(reason.substr(0, 120)));
}

} // namespace holdpoint
