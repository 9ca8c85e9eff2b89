// SPDX-License-Identifier: Apache-2.0
#include "metricsserver.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace holdpoint::metrics {

namespace {

bool isLoopback(const QHostAddress &a)
{
    return a.isLoopback() || a.isEqual(QHostAddress::LocalHost, QHostAddress::TolerantConversion);
}

// The Host header's name without its port: "127.0.0.1:9788" -> "127.0.0.1",
// "[::1]:9788" -> "::1".
QByteArray hostName(const QByteArray &host)
{
    if (host.startsWith('[')) {
        const qsizetype close = host.indexOf(']');
        return close > 0 ? host.mid(1, close - 1) : QByteArray();
    }
    const qsizetype colon = host.indexOf(':');
    return colon < 0 ? host : host.left(colon);
}

// A page on loopback is still reachable from a browser through DNS
// rebinding, where the Host names the attacker's domain: only loopback
// names are answered. A client that sends no Host (HTTP/1.0) is no browser.
bool hostAllowed(const QByteArray &host)
{
    if (host.isEmpty())
        return true;
    const QByteArray name = hostName(host).toLower();
    if (name == "localhost")
        return true;
    QHostAddress a;
    return a.setAddress(QString::fromLatin1(name)) && isLoopback(a);
}

Response text(int status, const char *reason, QByteArray body)
{
    Response r;
    r.status = status;
    r.reason = reason;
    r.body = std::move(body);
    return r;
}

} // namespace

bool parseAddress(const QString &text, Address *out, QString *error)
{
    const qsizetype colon = text.lastIndexOf(u':');
    QString host = text.left(colon);
    bool ok = colon > 0;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (colon <= 0 || !ok || p > 65535) {
        *error = QStringLiteral("--metrics: expected ADDRESS:PORT, e.g. 127.0.0.1:9788, got \"%1\"")
                     .arg(text);
        return false;
    }
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    QHostAddress address;
    if (!address.setAddress(host)) {
        *error = QStringLiteral("--metrics: \"%1\" is not an IP address (use 127.0.0.1 or ::1)")
                     .arg(host);
        return false;
    }
    // The page is plain HTTP: anywhere but loopback it would need TLS.
    if (!isLoopback(address)) {
        *error = QStringLiteral(
            "--metrics %1 is not a loopback address: metrics are served on 127.0.0.1 or ::1 "
            "only. Scrape them from elsewhere through a local agent (Prometheus' agent mode, "
            "an OpenTelemetry collector) or a reverse proxy that terminates TLS")
                     .arg(address.toString());
        return false;
    }
    out->address = address;
    out->port = quint16(p);
    return true;
}

RequestHead parseRequestHead(const QByteArray &bytes)
{
    RequestHead head;
    const qsizetype end = bytes.indexOf("\r\n\r\n");
    if (end < 0) {
        // RFC 9112 §2.2 lets a server accept a bare LF; we do not, and
        // say so only once the cap passed (the caller's 431).
        return head;
    }
    const QList<QByteArray> lines = bytes.left(end).split('\n');
    const QList<QByteArray> start = lines.first().trimmed().split(' ');
    head.status = RequestHead::Status::Malformed;
    if (start.size() != 3 || start[0].isEmpty() || !start[1].startsWith('/')
        || !start[2].startsWith("HTTP/1."))
        return head;
    for (const char c : start[0])
        if (c < 'A' || c > 'Z')
            return head;
    head.method = start[0];
    const qsizetype query = start[1].indexOf('?');
    head.path = query < 0 ? start[1] : start[1].left(query);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return head;
        if (line.left(colon).toLower() == "host") {
            if (!head.host.isEmpty())
                return head; // §3.2: more than one Host is a 400
            head.host = line.mid(colon + 1).trimmed();
        }
    }
    head.status = RequestHead::Status::Complete;
    return head;
}

Response answer(const RequestHead &head, const Routes &routes)
{
    if (head.status != RequestHead::Status::Complete)
        return text(400, "Bad Request", "bad request\n");
    if (!hostAllowed(head.host))
        return text(403, "Forbidden", "this page answers only to a loopback Host\n");
    const bool known = head.path == "/metrics" || head.path == "/healthz" || head.path == "/readyz";
    if (!known)
        return text(404, "Not Found", "not found: try /metrics, /healthz or /readyz\n");
    if (head.method != "GET" && head.method != "HEAD") {
        Response r = text(405, "Method Not Allowed", "only GET and HEAD\n");
        r.allowHeader = true;
        return r;
    }
    if (head.path == "/healthz")
        return text(200, "OK", "ok\n");
    if (head.path == "/readyz") {
        QString why = routes.notReady ? routes.notReady() : QString();
        if (why.isEmpty())
            return text(200, "OK", "ready\n");
        why.replace(u'\n', u' ').replace(u'\r', u' ');
        return text(503, "Service Unavailable", "not ready: " + why.toUtf8() + '\n');
    }
    Response r = text(200, "OK", QByteArray::fromStdString(routes.registry->exposition()));
    r.contentType = QByteArray(ContentType.data(), qsizetype(ContentType.size()));
    return r;
}

QByteArray serialize(const Response &r, bool withBody)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + ' ' + r.reason + "\r\n";
    out += "Content-Type: " + r.contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n";
    if (r.allowHeader)
        out += "Allow: GET, HEAD\r\n";
    out += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: "
           "close\r\n\r\n";
    if (withBody)
        out += r.body;
    return out;
}

Server::Server(const Registry *registry, std::function<QString()> notReady, QObject *parent)
    : QObject(parent)
    , m_server(std::make_unique<QTcpServer>())
{
    m_routes.registry = registry;
    m_routes.notReady = std::move(notReady);
    connect(m_server.get(), &QTcpServer::newConnection, this, &Server::onConnection);
}

Server::~Server() = default;

bool Server::listen(const Address &address, QString *error)
{
    if (!isLoopback(address.address)) {
        *error = QStringLiteral("--metrics: %1 is not a loopback address")
                     .arg(address.address.toString());
        return false;
    }
    if (!m_server->listen(address.address, address.port)) {
        *error = QStringLiteral("--metrics: cannot listen on %1:%2: %3")
                     .arg(address.address.toString(), QString::number(address.port),
                         m_server->errorString());
        return false;
    }
    m_routes.port = m_server->serverPort();
    return true;
}

quint16 Server::port() const
{
    return m_server->serverPort();
}

QString Server::url() const
{
    const QHostAddress a = m_server->serverAddress();
    const QString host = a.protocol() == QAbstractSocket::IPv6Protocol
        ? QStringLiteral("[%1]").arg(a.toString())
        : a.toString();
    return QStringLiteral("http://%1:%2").arg(host, QString::number(port()));
}

void Server::onConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        if (m_open.size() >= std::size_t(MaxConnections)) {
            auto oldest = m_open.end();
            for (auto it = m_open.begin(); it != m_open.end(); ++it)
                if (!it->second.answered
                    && (oldest == m_open.end() || it->second.order < oldest->second.order))
                    oldest = it;
            if (oldest == m_open.end()) { // all answered, and closing
                socket->abort();
                socket->deleteLater();
                continue;
            }
            QTcpSocket *idle = oldest->first;
            m_open.erase(oldest);
            idle->abort(); // its disconnected() finds it gone from m_open
            idle->deleteLater();
        }
        Pending pending;
        pending.order = ++m_connections;
        m_open.emplace(socket, std::move(pending));
        socket->setParent(this);
        auto *deadline = new QTimer(socket);
        deadline->setSingleShot(true);
        connect(deadline, &QTimer::timeout, socket, &QTcpSocket::abort);
        deadline->start(RequestMs);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
            if (const auto it = m_open.find(socket); it != m_open.end())
                onReadyRead(socket, it->second);
        });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_open.erase(socket);
            socket->deleteLater();
        });
    }
}

void Server::onReadyRead(QTcpSocket *socket, Pending &pending)
{
    if (pending.answered) {
        socket->readAll(); // a body, or a second request: one per connection
        return;
    }
    pending.head += socket->read(MaxRequestHeadBytes + 1 - pending.head.size());
    const RequestHead head = parseRequestHead(pending.head);
    Response response;
    if (head.status == RequestHead::Status::Incomplete) {
        if (pending.head.size() <= MaxRequestHeadBytes)
            return;
        response = text(431, "Request Header Fields Too Large", "request head too large\n");
    } else {
        response = answer(head, m_routes);
    }
    pending.answered = true;
    pending.head.clear();
    socket->write(serialize(response, head.method != "HEAD"));
    socket->readAll(); // unread bytes at close would reset the connection, answer and all
    socket->disconnectFromHost();
}

} // namespace holdpoint::metrics
