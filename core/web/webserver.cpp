// SPDX-License-Identifier: Apache-2.0
// The reviewer page's transport: listening, who is calling, what every
// answer carries, and which request goes where (WEB.md). The API itself is
// in webapi.cpp, the live feed in webfeed.cpp.
#include "webserver.h"

#include "common/datadir.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"
#include "engine/consolecore.h"
#include "web/weblistener.h"
#include "web/webtls.h"

#include <QFile>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QTimer>

namespace holdpoint {

namespace {

constexpr char Csp[]
    = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
constexpr char AnsweredProperty[] = "holdpoint_answered";

bool isLoopback(const QHostAddress &a)
{
    return a.isLoopback();
}

// 0.0.0.0 or ::, which no browser can be sent to: the page's origin and
// its pairing links need the address clients use.
bool isWildcard(const QHostAddress &a)
{
    return a == QHostAddress::AnyIPv4 || a == QHostAddress::AnyIPv6 || a == QHostAddress::Any;
}

QString hostText(const QHostAddress &a)
{
    return a.protocol() == QAbstractSocket::IPv6Protocol ? u'[' + a.toString() + u']'
                                                         : a.toString();
}

// Header names a proxy may not claim for the reviewer's name.
bool reservedHeader(const QByteArray &name)
{
    static const QByteArray reserved[] = { "cookie", "host", "origin", "authorization",
        "content-length", "content-type", "connection", "upgrade", "x-csrf-token",
        "transfer-encoding", ProxySecretHeader, DeviceKeyHeader };
    const QByteArray lower = name.toLower();
    return std::find(std::begin(reserved), std::end(reserved), lower) != std::end(reserved);
}

bool headerNameValid(const QByteArray &name)
{
    if (name.isEmpty() || name.size() > 64)
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '-' || c == '_';
    });
}

} // namespace

bool parseWebAddress(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const qsizetype colon = text.lastIndexOf(u':');
    QString host = text.left(colon);
    bool ok = colon > 0;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (colon <= 0 || !ok || p > 65535) {
        *error = QStringLiteral("--web: expected ADDRESS:PORT, e.g. 127.0.0.1:8765, got \"%1\"")
                     .arg(text);
        return false;
    }
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    if (!address->setAddress(host)) {
        *error = QStringLiteral(
            "--web: \"%1\" is not an IP address (use 127.0.0.1, ::1 or an interface's address)")
                     .arg(host);
        return false;
    }
    *port = quint16(p);
    return true;
}

QString webConfigProblem(const WebConfig &c)
{
    if (c.certFile.isEmpty() != c.keyFile.isEmpty())
        return QStringLiteral("--web-cert and --web-key go together");
    if (!isLoopback(c.address) && c.certFile.isEmpty())
        return QStringLiteral(
            "--web %1 is not a loopback address, so it needs TLS: add --web-cert and --web-key, "
            "or listen on 127.0.0.1 behind a reverse proxy that terminates TLS (README, "
            "\"Approve from your phone\")")
            .arg(c.address.toString());
    // Listening everywhere is fine; being reached at "0.0.0.0" is not: the
    // Host and Origin checks and the pairing links would all name it.
    if (isWildcard(c.address) && c.origins.isEmpty())
        return QStringLiteral(
            "--web %1 listens on every address, and no browser can be sent there: add "
            "--web-origin with the address clients will use (e.g. https://192.0.2.10:8765 or "
            "https://review.example.com), or give --web that one address")
            .arg(hostText(c.address));
    if (c.authHeader.isEmpty() != c.trustedProxies.isEmpty())
        return QStringLiteral(
            "--web-auth-header and --web-trusted-proxy go together: the header is believed "
            "only from the proxies listed");
    const bool loopbackProxy
        = std::any_of(c.trustedProxies.begin(), c.trustedProxies.end(), [](const QHostAddress &a) {
              return a.isLoopback()
                  || a.isEqual(QHostAddress::LocalHost, QHostAddress::TolerantConversion);
          });
    if (loopbackProxy && c.proxySecret.isEmpty())
        return QStringLiteral(
            "--web-trusted-proxy on loopback needs --web-proxy-secret-file: every process on this "
            "machine connects from loopback too, so the proxy must also prove itself with the "
            "secret in X-Holdpoint-Proxy-Secret");
    if (!c.authHeader.isEmpty()
        && c.authHeader.compare(ProxySecretHeader, Qt::CaseInsensitive) == 0)
        return QStringLiteral(
            "--web-auth-header: %1 carries the proxy's secret, not a name; give the header the "
            "proxy puts the signed-in person's name in (e.g. X-Forwarded-User)")
            .arg(QString::fromLatin1(c.authHeader));
    if (!c.authHeader.isEmpty() && (!headerNameValid(c.authHeader) || reservedHeader(c.authHeader)))
        return QStringLiteral(
            "--web-auth-header: \"%1\" cannot name the reviewer; give the header the proxy puts "
            "the signed-in person's name in (e.g. X-Forwarded-User)")
            .arg(QString::fromLatin1(c.authHeader));
    for (const QString &o : c.origins) {
        const QUrl url(o);
        if (!url.isValid()
            || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http"))
            || url.host().isEmpty() || !url.path().isEmpty() || url.hasQuery()
            || !url.userName().isEmpty())
            return QStringLiteral(
                "--web-origin: \"%1\" is not an origin like https://review.example.com")
                .arg(o);
    }
    return {};
}

WebServer::WebServer(ConsoleCore *core, WebConfig config, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_core(core)
    , m_config(std::move(config))
    , m_sessions(m_config.sessionsFile, core->clock())
    , m_secret(generateToken())
{ }

WebServer::~WebServer()
{
    if (m_core)
        m_core->setWebHandler({});
    // A socket deleted here reports its disconnect at once; nobody must
    // act on it while m_live itself is being taken apart.
    for (const Live &l : m_live)
        l.socket->disconnect(this);
    m_live.clear();
}

bool WebServer::start(QString *error)
{
    if (const QString problem = webConfigProblem(m_config); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (!m_sessions.load(error))
        return false;
    std::optional<QSslConfiguration> tls;
    if (!m_config.certFile.isEmpty()
        && !(tls = loadWebTls(m_config.certFile, m_config.keyFile, error)))
        return false;
    WebListenerLimits limits;
    limits.maxRequestBytes = m_config.maxRequestBytes;
    limits.requestMs = m_config.requestMs;
    limits.maxConnections = m_config.maxConnections;
    limits.maxConnectionsPerPeer = std::max(1, m_config.maxConnections / 4);
    m_listener = new WebListener(limits, tls, this);
    connect(m_listener, &WebListener::guardRefused, this, &WebServer::refused);
    if (!m_listener->listen(m_config.address, m_config.port)) {
        *error = QStringLiteral("--web %1:%2: %3")
                     .arg(m_config.address.toString())
                     .arg(m_config.port)
                     .arg(m_listener->errorString());
        return false;
    }
    bind(m_listener);

    const QString scheme = tls ? QStringLiteral("https://") : QStringLiteral("http://");
    const QString port = u':' + QString::number(m_listener->serverPort());
    // The page's own origin is the address it listens on: pairing links
    // and the Origin check name that, never another loopback address where
    // nothing of ours listens (127.0.0.2 is not 127.0.0.1). "localhost"
    // reaches 127.0.0.1 and ::1 only.
    QStringList &origins = m_rules.origins;
    origins = m_config.origins;
    if (!isWildcard(m_config.address))
        origins << scheme + hostText(m_config.address) + port;
    if (m_config.address.isEqual(QHostAddress::LocalHost)
        || m_config.address.isEqual(QHostAddress::LocalHostIPv6))
        origins << scheme + QStringLiteral("localhost") + port;
    for (const QString &o : std::as_const(origins))
        m_rules.hosts.insert(QUrl(o).authority().toUtf8());
    // The listening address itself, as a proxy in front may name it.
    if (!isWildcard(m_config.address))
        m_rules.hosts.insert((hostText(m_config.address) + port).toUtf8());
    m_sessions.setOrigin(origin());

    connect(this, &QAbstractHttpServer::newWebSocketConnection, this, &WebServer::acceptLive);
    m_rules.maxRequestBytes = m_config.maxRequestBytes;
    m_desk = std::make_unique<ConsoleDesk>(m_core);
    m_pairing = std::make_unique<PairingController>(m_sessions, *m_desk,
        TrustedHeader { m_config.authHeader, m_config.trustedProxies, m_config.proxySecret },
        m_secret);
    m_items = std::make_unique<ItemsController>(*m_desk);
    m_feed = std::make_unique<LiveFeedController>(*m_items, m_sessions);
    m_routes = webRoutes(*m_pairing, *m_items);
    // Serialised only when a page is open to see it.
    connect(m_desk.get(), &ReviewerDesk::itemAdded, this, [this](const QueueItem &item) {
        if (!m_live.empty())
            broadcast({ { "type", "added" }, { "item", m_items->itemJson(item) } });
    });
    connect(m_desk.get(), &ReviewerDesk::itemUpdated, this, [this](const QueueItem &item) {
        if (!m_live.empty())
            broadcast({ { "type", "updated" }, { "item", m_items->itemJson(item) } });
    });
    connect(m_desk.get(), &ReviewerDesk::resolved, this, &WebServer::onResolved);
    // Only a team store settles a review later (parks its click).
    connect(m_desk.get(), &ReviewerDesk::reviewRefused, this, &WebServer::onReviewRefused);
    connect(m_desk.get(), &ReviewerDesk::voteCounted, this, &WebServer::onVoteCounted);
    connect(m_desk.get(), &ReviewerDesk::reviewersChanged, this, &WebServer::dropRemovedReviewers);
    m_desk->follow();
    connect(&m_sessions, &WebSessions::revoked, this, &WebServer::onSessionRevoked);
    m_core->setWebHandler([this](const ReviewerIdentity &who, const protocol::WebRequest &request,
                              std::string *why) { return answer(who, request, why); });
    m_pinger = new QTimer(this);
    m_pinger->setInterval(20'000);
    connect(m_pinger, &QTimer::timeout, this, &WebServer::pingLive);
    m_pinger->start();
    return true;
}

quint16 WebServer::port() const
{
    return m_listener ? m_listener->serverPort() : 0;
}

QString WebServer::origin() const
{
    return m_rules.origins.value(0);
}

WebServer::Pairing WebServer::pair(const std::string &reviewer, const std::string &via)
{
    return m_sessions.pairingLink(reviewer, via);
}

Json WebServer::sessionsJson() const
{
    Json list = Json::array();
    for (const WebSession &s : m_sessions.list()) {
        const int open = m_sessions.openPages(s.id);
        list.push_back({ { "id", s.id }, { "reviewer", s.reviewer }, { "paired_via", s.pairedVia },
            { "user_agent", s.userAgent }, { "created", formatTimestamp(s.created) },
            { "last_seen", formatTimestamp(s.lastSeen) }, { "open_pages", open } });
    }
    return list;
}

bool WebServer::revoke(const std::string &id)
{
    return m_sessions.revoke(id);
}

void WebServer::dropRemovedReviewers()
{
    if (m_desk->teamUnknown()) {
        // Nobody is admitted until the database answers again; the pages
        // close, but their sessions stay for when it is back.
        endLive([](const LiveFeedController::Feed &) { return true; },
            QStringLiteral("the team database is unreachable"), false);
        return;
    }
    for (const WebSession &s : m_sessions.list())
        if (!m_desk->identityFor(s.reviewer, {}))
            m_sessions.revokeReviewer(s.reviewer);
    endLive(
        [this](const LiveFeedController::Feed &f) { return !m_desk->identityFor(f.reviewer, {}); },
        QStringLiteral("reviewer removed"));
}

namespace {

// What the gate and the controllers read of what Qt HTTP Server parsed.
PageRequest pageRequest(const QHttpServerRequest &request)
{
    PageRequest r;
    r.method = request.method() == QHttpServerRequest::Method::Get ? PageRequest::Method::Get
        : request.method() == QHttpServerRequest::Method::Post     ? PageRequest::Method::Post
                                                                   : PageRequest::Method::Other;
    r.path = request.url().path();
    r.peer = request.remoteAddress();
    r.host = request.value("host");
    r.origin = request.value("origin");
    r.csrf = request.value("x-csrf-token");
    r.userAgent = request.value("user-agent");
    r.transferEncoding = !request.value("transfer-encoding").isEmpty();
    setHeaders(r, request.headers());
    r.body = request.body();
    return r;
}

} // namespace

bool WebServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    WebListener::requestDone(socket, request.headers().size(), request.body().size());
    // As Qt HTTP Server tells an upgrade: it hands the socket on only then.
    const bool upgrade = request.value("upgrade").compare("websocket", Qt::CaseInsensitive) == 0
        && request.value("connection").toLower().contains("upgrade");
    if (WebListener::refused(socket))
        return !upgrade; // the guard answered already; true on an upgrade would hand the socket on
    const PageRequest page = pageRequest(request);
    if (!upgrade) {
        PageReply reply = route(page, socket);
        if (!reply.logged.isEmpty())
            Q_EMIT refused(page.peer.toString(), reply.logged);
        if (!reply.settles.empty())
            park(socket, std::move(reply));
        else
            send(socket, request, reply);
        return true;
    }
    // A WebSocket is refused before the upgrade, with a status a browser shows.
    const UpgradeVerdict verdict = gateUpgrade(
        page, m_rules, [this](const PageRequest &r, bool keyLater) { return lookup(r, keyLater); });
    if (verdict.refusal) {
        Q_EMIT refused(page.peer.toString(), verdict.refusal->logged);
        send(socket, request, *verdict.refusal);
        return false;
    }
    if (m_upgraded.size() > 256)
        std::erase_if(m_upgraded, [](const auto &e) { return e.second.socket.isNull(); });
    m_upgraded[peerKey(socket->peerAddress(), socket->peerPort())] = { socket, page };
    WebListener::handOver(socket);
    return true;
}

void WebServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    if (!socket->property(AnsweredProperty).toBool() && !WebListener::refused(socket))
        send(socket, request, errorReply(404, "not_found", "nothing here"));
}

CallerLookup WebServer::lookup(const PageRequest &request, bool keyLater)
{
    return m_pairing->lookup(request, keyLater);
}

PageReply WebServer::route(const PageRequest &request, QTcpSocket *socket)
{
    const GateVerdict verdict = gate(request, m_rules, m_routes, m_desk->teamUnknown(),
        [this](const PageRequest &r, bool keyLater) { return lookup(r, keyLater); });
    // A connection that carried a valid session is kept when the listener
    // makes room for others (WEB.md "Refusals").
    if (verdict.sessionValid)
        WebListener::trust(socket);
    if (verdict.refusal)
        return *verdict.refusal;
    return verdict.route->handler(
        RouteCall { request, verdict.caller ? &*verdict.caller : nullptr, verdict.id });
}

std::vector<std::pair<QByteArray, QByteArray>> WebServer::answerHeaders(
    const PageReply &reply) const
{
    std::vector<std::pair<QByteArray, QByteArray>> h { { "Content-Type", reply.contentType },
        { "Content-Security-Policy", Csp }, { "X-Content-Type-Options", "nosniff" },
        { "X-Frame-Options", "DENY" }, { "Referrer-Policy", "no-referrer" },
        { "Cross-Origin-Opener-Policy", "same-origin" },
        { "Cross-Origin-Resource-Policy", "same-origin" },
        { "Cache-Control",
            reply.contentType.startsWith("application/json") ? "no-store" : "no-cache" } };
    if (m_listener && m_listener->tls())
        h.emplace_back("Strict-Transport-Security", "max-age=31536000");
    h.insert(h.end(), reply.headers.begin(), reply.headers.end());
    if (reply.close)
        h.emplace_back("Connection", "close");
    h.emplace_back("Content-Length", QByteArray::number(reply.body.size()));
    return h;
}

void WebServer::send(QTcpSocket *socket, const QHttpServerRequest &request, const PageReply &reply)
{
    if (!socket->isOpen())
        return;
    socket->setProperty(AnsweredProperty, true);
    QHttpServerResponder r = makeResponder(request, socket);
    r.writeStatusLine(QHttpServerResponder::StatusCode(reply.status));
    for (const auto &[name, value] : answerHeaders(reply))
        r.writeHeader(name, value);
    r.writeBody(reply.body);
    if (reply.close)
        socket->disconnectFromHost();
}

} // namespace holdpoint
