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

constexpr char CookieName[] = "__Host-holdpoint";
constexpr char Csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
constexpr char AnsweredProperty[] = "holdpoint_answered";
// What a trusted proxy proves itself with (WEB.md "Who gets in"), lower case.
constexpr char ProxySecretHeader[] = "x-holdpoint-proxy-secret";

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
    return a.protocol() == QAbstractSocket::IPv6Protocol ? u'[' + a.toString() + u']' : a.toString();
}

// Header names a proxy may not claim for the reviewer's name.
bool reservedHeader(const QByteArray &name)
{
    static const QByteArray reserved[] = { "cookie", "host", "origin", "authorization", "content-length",
        "content-type", "connection", "upgrade", "x-csrf-token", "transfer-encoding", ProxySecretHeader, DeviceKeyHeader };
    const QByteArray lower = name.toLower();
    return std::find(std::begin(reserved), std::end(reserved), lower) != std::end(reserved);
}

bool headerNameValid(const QByteArray &name)
{
    if (name.isEmpty() || name.size() > 64)
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

// The header's value; empty when it is missing or sent more than once (a
// proxy that appends instead of replacing must not let a client add a name).
QByteArray headerValue(const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &name)
{
    QByteArray value;
    int seen = 0;
    for (const auto &h : headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0 && ++seen == 1)
            value = h.second;
    return seen == 1 ? value : QByteArray();
}

QByteArray cookieToken(const QList<QPair<QByteArray, QByteArray>> &headers)
{
    for (const auto &h : headers) {
        if (h.first.compare("cookie", Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray &pair : h.second.split(';')) {
            const QByteArray p = pair.trimmed();
            if (p.startsWith(CookieName) && p.size() > qsizetype(sizeof CookieName) - 1 && p[sizeof CookieName - 1] == '=')
                return p.mid(qsizetype(sizeof CookieName));
        }
    }
    return {};
}

} // namespace

bool parseWebAddress(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const qsizetype colon = text.lastIndexOf(u':');
    QString host = text.left(colon);
    bool ok = colon > 0;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (colon <= 0 || !ok || p > 65535) {
        *error = QStringLiteral("--web: expected ADDRESS:PORT, e.g. 127.0.0.1:8765, got \"%1\"").arg(text);
        return false;
    }
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    if (!address->setAddress(host)) {
        *error = QStringLiteral("--web: \"%1\" is not an IP address (use 127.0.0.1, ::1 or an interface's address)")
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
        return QStringLiteral("--web %1 is not a loopback address, so it needs TLS: add --web-cert and --web-key, "
                              "or listen on 127.0.0.1 behind a reverse proxy that terminates TLS (README, "
                              "\"Approve from your phone\")")
            .arg(c.address.toString());
    // Listening everywhere is fine; being reached at "0.0.0.0" is not: the
    // Host and Origin checks and the pairing links would all name it.
    if (isWildcard(c.address) && c.origins.isEmpty())
        return QStringLiteral("--web %1 listens on every address, and no browser can be sent there: add "
                              "--web-origin with the address clients will use (e.g. https://192.0.2.10:8765 or "
                              "https://review.example.com), or give --web that one address")
            .arg(hostText(c.address));
    if (c.authHeader.isEmpty() != c.trustedProxies.isEmpty())
        return QStringLiteral("--web-auth-header and --web-trusted-proxy go together: the header is believed "
                              "only from the proxies listed");
    const bool loopbackProxy = std::any_of(c.trustedProxies.begin(), c.trustedProxies.end(), [](const QHostAddress &a) {
        return a.isLoopback() || a.isEqual(QHostAddress::LocalHost, QHostAddress::TolerantConversion);
    });
    if (loopbackProxy && c.proxySecret.isEmpty())
        return QStringLiteral("--web-trusted-proxy on loopback needs --web-proxy-secret-file: every process on this "
                              "machine connects from loopback too, so the proxy must also prove itself with the "
                              "secret in X-Holdpoint-Proxy-Secret");
    if (!c.authHeader.isEmpty() && c.authHeader.compare(ProxySecretHeader, Qt::CaseInsensitive) == 0)
        return QStringLiteral("--web-auth-header: %1 carries the proxy's secret, not a name; give the header the "
                              "proxy puts the signed-in person's name in (e.g. X-Forwarded-User)")
            .arg(QString::fromLatin1(c.authHeader));
    if (!c.authHeader.isEmpty() && (!headerNameValid(c.authHeader) || reservedHeader(c.authHeader)))
        return QStringLiteral("--web-auth-header: \"%1\" cannot name the reviewer; give the header the proxy puts "
                              "the signed-in person's name in (e.g. X-Forwarded-User)")
            .arg(QString::fromLatin1(c.authHeader));
    for (const QString &o : c.origins) {
        const QUrl url(o);
        if (!url.isValid() || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http"))
            || url.host().isEmpty() || !url.path().isEmpty() || url.hasQuery() || !url.userName().isEmpty())
            return QStringLiteral("--web-origin: \"%1\" is not an origin like https://review.example.com").arg(o);
    }
    return {};
}

WebServer::WebServer(ConsoleCore *core, WebConfig config, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_core(core)
    , m_config(std::move(config))
    , m_sessions(m_config.sessionsFile, core->clock())
    , m_secret(generateToken())
{
}

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
    if (!m_config.certFile.isEmpty() && !(tls = loadWebTls(m_config.certFile, m_config.keyFile, error)))
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
    m_origins = m_config.origins;
    if (!isWildcard(m_config.address))
        m_origins << scheme + hostText(m_config.address) + port;
    if (m_config.address.isEqual(QHostAddress::LocalHost) || m_config.address.isEqual(QHostAddress::LocalHostIPv6))
        m_origins << scheme + QStringLiteral("localhost") + port;
    for (const QString &o : std::as_const(m_origins))
        m_hosts.insert(QUrl(o).authority().toUtf8());
    // The listening address itself, as a proxy in front may name it.
    if (!isWildcard(m_config.address))
        m_hosts.insert((hostText(m_config.address) + port).toUtf8());

    connect(this, &QAbstractHttpServer::newWebSocketConnection, this, &WebServer::acceptLive);
    ReviewQueue *queue = m_core->queue();
    // Serialised only when a page is open to see it.
    connect(queue, &QueueStore::itemAdded, this, [this](const QueueItem &item) {
        if (!m_live.empty())
            broadcast({ { "type", "added" }, { "item", itemJson(item) } });
    });
    connect(queue, &QueueStore::itemUpdated, this, [this](const QueueItem &item) {
        if (!m_live.empty())
            broadcast({ { "type", "updated" }, { "item", itemJson(item) } });
    });
    connect(queue, &QueueStore::resolved, this, &WebServer::onResolved);
    // A reviewer removed from the console may no longer decide from a phone
    // either, nor watch the queue through a page already open.
    connect(m_core, &ConsoleCore::namedReviewersChanged, this, &WebServer::dropRemovedReviewers);
    if (team::TeamStore *team = m_core->team()) {
        // Only a team store settles a review later (parks its click). Each
        // outcome names the reviewer it is for, and goes to that reviewer's
        // oldest waiting click on the item alone: another person's click on
        // the same item, or the desktop's review, waits for its own.
        connect(team, &QueueStore::reviewRefused, this,
            [this](const std::string &id, const std::string &message, const std::string &reviewer) {
                answerParked(id, [&](const Parked &p) {
                    return p.fallback.settlesFor == reviewer ? std::optional(WebServer::error(422, "refused", message))
                                                             : std::nullopt;
                }, true);
                const auto it = m_awaiting.find(id);
                if (it == m_awaiting.end() || it->second.second != reviewer)
                    return;
                sendTo(it->second.first, it->second.second, { { "type", "refused" }, { "id", id }, { "message", message } });
                m_awaiting.erase(it);
            });
        connect(team, &QueueStore::voteCounted, this,
            [this](const std::string &id, int approvals, int required, const std::string &reviewer) {
                answerParked(id, [&](const Parked &p) {
                    return p.fallback.settlesFor == reviewer
                        ? std::optional(json({ { "outcome", "voted" }, { "approvals", approvals }, { "required", required } }))
                        : std::nullopt;
                }, true);
            });
        connect(team, &team::TeamStore::actingReviewersChanged, this, &WebServer::dropRemovedReviewers);
        team->followActingReviewers();
    }
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
    return m_origins.value(0);
}

WebServer::Pairing WebServer::pair(const std::string &reviewer, const std::string &via)
{
    const PairingCode code = m_sessions.pair(reviewer, via);
    return { origin() + QStringLiteral("/pair#") + toQString(code.code), code.expires };
}

Json WebServer::sessionsJson() const
{
    Json list = Json::array();
    for (const WebSession &s : m_sessions.list()) {
        int open = 0;
        for (const Live &l : m_live)
            open += l.proven && l.sessionId == s.id;
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

bool WebServer::originAllowed(const QHttpServerRequest &request) const
{
    const QByteArray origin = request.value("origin");
    return !origin.isEmpty() && m_origins.contains(QString::fromUtf8(origin), Qt::CaseSensitive);
}

bool WebServer::hostAllowed(const QByteArray &host) const
{
    return m_hosts.contains(host);
}

void WebServer::dropRemovedReviewers()
{
    if (teamUnknown()) {
        // Nobody is admitted until the database answers again; the pages
        // close, but their sessions stay for when it is back.
        endLive([](const Live &) { return true; }, QStringLiteral("the team database is unreachable"), false);
        return;
    }
    for (const WebSession &s : m_sessions.list())
        if (!identityFor(s.reviewer, {}))
            m_sessions.revokeReviewer(s.reviewer);
    endLive([this](const Live &l) { return !identityFor(l.reviewer, {}); }, QStringLiteral("reviewer removed"));
}

bool WebServer::teamUnknown() const
{
    return m_core->team() && !m_core->team()->actingKnown();
}

std::optional<ReviewerIdentity> WebServer::identityFor(const std::string &reviewer, const std::string &via) const
{
    // In team mode the database says whom this login may decide as: an
    // enabled reviewer mapped to it, as last read (teamstore.h). A name it
    // does not list, or any name while it cannot be asked, is nobody.
    if (m_core->team()) {
        if (m_core->team()->mayActAs(reviewer) != team::TeamStore::Acting::Yes)
            return std::nullopt;
        return ReviewerIdentity { reviewer, via, {} };
    }
    if (reviewer == m_core->reviewerName())
        return ReviewerIdentity { reviewer, via, m_core->reviewerOsUser() };
    if (const auto named = m_core->namedReviewer(reviewer))
        return ReviewerIdentity { reviewer, via, named->osUser };
    return std::nullopt;
}

std::optional<WebServer::Caller> WebServer::caller(
    const QList<QPair<QByteArray, QByteArray>> &headers, const QHostAddress &peer, std::string *refusedName, bool keyLater)
{
    if (!m_config.authHeader.isEmpty()) {
        const bool trusted = std::any_of(m_config.trustedProxies.begin(), m_config.trustedProxies.end(),
            [&](const QHostAddress &p) { return p.isEqual(peer, QHostAddress::TolerantConversion); });
        const QByteArray named = headerValue(headers, m_config.authHeader).trimmed();
        const bool proven = m_config.proxySecret.isEmpty()
            || Endpoint::constantTimeEquals(headerValue(headers, ProxySecretHeader), m_config.proxySecret);
        if (trusted && proven && !named.isEmpty()) {
            const std::string name = named.toStdString();
            if (!reviewerNameProblem(name).empty())
                return std::nullopt;
            const std::string via = "web (" + m_config.authHeader.toStdString() + " from " + peer.toString().toStdString() + ")";
            auto identity = identityFor(name, via);
            if (!identity) {
                if (refusedName)
                    *refusedName = name;
                return std::nullopt;
            }
            return Caller { std::move(*identity), {}, sha256Hex(m_secret.toStdString() + ':' + name) };
        }
    }
    // The cookie reaches every port of this host; the device key only the
    // page's own origin (WEB.md "Who gets in"). Either alone is nobody.
    const WebSession *session = keyLater ? m_sessions.findByToken(cookieToken(headers))
                                         : m_sessions.authenticate(cookieToken(headers), headerValue(headers, DeviceKeyHeader));
    if (!session) {
        if (!keyLater && m_sessions.findByToken(cookieToken(headers)))
            Q_EMIT refused(peer.toString(),
                QStringLiteral("a session's cookie without its device key (a process on another port of this host?)"));
        return std::nullopt;
    }
    auto identity = identityFor(session->reviewer, "web session " + session->id + " (paired via " + session->pairedVia + ")");
    if (!identity) {
        if (refusedName)
            *refusedName = session->reviewer;
        // Unknown is not no: a session outlives the database's absence.
        if (!teamUnknown())
            m_sessions.revokeReviewer(session->reviewer);
        return std::nullopt;
    }
    return Caller { std::move(*identity), session->id, session->csrf, !keyLater };
}

bool WebServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    WebListener::requestDone(socket, request.headers().size(), request.body().size());
    // As Qt HTTP Server tells an upgrade: it hands the socket on only then.
    const bool upgrade = request.value("upgrade").compare("websocket", Qt::CaseInsensitive) == 0
        && request.value("connection").toLower().contains("upgrade");
    if (WebListener::refused(socket))
        return !upgrade; // the guard answered already; true on an upgrade would hand the socket on
    if (!upgrade) {
        Reply reply = route(request, socket);
        if (!reply.settles.empty())
            park(socket, std::move(reply));
        else
            send(socket, request, reply);
        return true;
    }
    // A WebSocket is refused before the upgrade, with a status a browser shows.
    const char *why = nullptr;
    if (request.url().path() != QLatin1String("/api/live"))
        why = "no WebSocket here";
    else if (!hostAllowed(request.value("host")))
        why = "unknown Host";
    else if (!originAllowed(request))
        why = "foreign or missing Origin";
    else if (!caller(request.headers(), request.remoteAddress(), nullptr, true))
        why = "no session";
    if (why) {
        Q_EMIT refused(request.remoteAddress().toString(), QStringLiteral("WebSocket upgrade: %1").arg(QLatin1String(why)));
        send(socket, request, error(403, "forbidden", std::string("WebSocket refused: ") + why));
        return false;
    }
    if (m_upgraded.size() > 256)
        std::erase_if(m_upgraded, [](const auto &e) { return e.second.isNull(); });
    m_upgraded[peerKey(socket->peerAddress(), socket->peerPort())] = socket;
    WebListener::handOver(socket);
    return true;
}

void WebServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    if (!socket->property(AnsweredProperty).toBool() && !WebListener::refused(socket))
        send(socket, request, error(404, "not_found", "nothing here"));
}

WebServer::Reply WebServer::route(const QHttpServerRequest &request, QTcpSocket *socket)
{
    const QString path = request.url().path();
    const bool get = request.method() == QHttpServerRequest::Method::Get;
    const bool post = request.method() == QHttpServerRequest::Method::Post;
    if (!hostAllowed(request.value("host")))
        return error(421, "bad_host", "this server does not answer for that Host");
    if (request.body().size() > m_config.maxRequestBytes)
        return error(413, "too_large", "the body is over the limit");
    // The listener refuses any Transfer-Encoding before Qt parses a byte
    // (httpframing.h); this stays for a request that reaches here another way.
    if (!request.value("transfer-encoding").isEmpty()) {
        Reply r = error(400, "invalid", "Transfer-Encoding is not taken here; send a Content-Length");
        r.close = true;
        return r;
    }
    if (!path.startsWith(QLatin1String("/api/"))) {
        if (!get)
            return error(405, "method_not_allowed", "the page's files are read with GET");
        return staticFile(path);
    }
    const bool reviewPath = path.startsWith(QLatin1String("/api/items/")) && path.endsWith(QLatin1String("/review"));
    const bool postPath = path == QLatin1String("/api/pair") || path == QLatin1String("/api/logout") || reviewPath;
    const bool getPath = path == QLatin1String("/api/me") || path == QLatin1String("/api/items");
    if ((postPath && !post) || (getPath && !get))
        return error(405, "method_not_allowed",
            postPath ? "this changes state, so it takes a POST" : "this is read with GET");
    if (!postPath && !getPath)
        return error(404, "not_found", "no such API");
    if (post && !originAllowed(request)) {
        Q_EMIT refused(request.remoteAddress().toString(), QStringLiteral("POST %1 with Origin \"%2\"")
                                                               .arg(path, QString::fromUtf8(request.value("origin").left(200))));
        return error(403, "bad_origin", "a change is taken only from the page's own origin");
    }
    // Fail closed: without the database's word on whom this login may act
    // as, nobody reads, pairs or decides (and no session is revoked).
    if (teamUnknown())
        return error(503, "team_unavailable",
            "the team database cannot say now who may use this page; try again when it is back");
    if (path == QLatin1String("/api/pair"))
        return redeem(request, request.remoteAddress());
    std::string refusedName;
    const auto who = caller(request.headers(), request.remoteAddress(), &refusedName);
    if (!who && !refusedName.empty() && m_core->team())
        return error(403, "not_a_reviewer",
            refusedName + " is not a reviewer this console's team login may act as (disabled, or never mapped to it); "
                          "the team database's owner decides that");
    if (!who)
        return error(401, "no_session", "this device is not paired, or its session ended; pair it again");
    // A connection that carried a valid session is kept when the listener
    // makes room for others (WEB.md "Refusals").
    WebListener::trust(socket);
    if (post) {
        const QByteArray csrf = request.value("x-csrf-token");
        if (!Endpoint::constantTimeEquals(csrf, QByteArray::fromStdString(who->csrf)))
            return error(403, "bad_csrf", "the request lacks this session's CSRF token; reload the page");
    }
    if (path == QLatin1String("/api/me"))
        return me(*who);
    if (path == QLatin1String("/api/items"))
        return items();
    if (path == QLatin1String("/api/logout"))
        return logout(*who);
    const QString id = path.mid(qsizetype(strlen("/api/items/")), path.size() - qsizetype(strlen("/api/items/")) - qsizetype(strlen("/review")));
    return review(*who, id.toStdString(), request.body());
}

WebServer::Reply WebServer::staticFile(const QString &path) const
{
    static const std::pair<const char *, const char *> files[] = {
        { "index.html", "text/html; charset=utf-8" },
        { "app.js", "text/javascript; charset=utf-8" },
        { "json.js", "text/javascript; charset=utf-8" },
        { "queue.js", "text/javascript; charset=utf-8" },
        { "app.css", "text/css; charset=utf-8" },
        { "review.css", "text/css; charset=utf-8" },
        { "icon.svg", "image/svg+xml" },
    };
    QString name = path.mid(1);
    if (name.isEmpty() || name == QLatin1String("pair"))
        name = QStringLiteral("index.html");
    for (const auto &[file, type] : files) {
        if (name != QLatin1String(file))
            continue;
        QFile f(QStringLiteral(":/holdpoint/web/") + name);
        if (!f.open(QIODevice::ReadOnly))
            return error(500, "missing", "the page's files are missing from this build");
        Reply r;
        r.body = f.readAll();
        r.contentType = type;
        return r;
    }
    return error(404, "not_found", "nothing here");
}

WebServer::Reply WebServer::error(int status, const char *code, const std::string &message)
{
    return json({ { "error", code }, { "message", message } }, status);
}

WebServer::Reply WebServer::json(const Json &body, int status)
{
    Reply r;
    r.status = status;
    r.body = QByteArray::fromStdString(dumpJson(body));
    return r;
}

std::vector<std::pair<QByteArray, QByteArray>> WebServer::answerHeaders(const Reply &reply) const
{
    std::vector<std::pair<QByteArray, QByteArray>> h { { "Content-Type", reply.contentType },
        { "Content-Security-Policy", Csp }, { "X-Content-Type-Options", "nosniff" }, { "X-Frame-Options", "DENY" },
        { "Referrer-Policy", "no-referrer" }, { "Cross-Origin-Opener-Policy", "same-origin" },
        { "Cross-Origin-Resource-Policy", "same-origin" },
        { "Cache-Control", reply.contentType.startsWith("application/json") ? "no-store" : "no-cache" } };
    if (m_listener && m_listener->tls())
        h.emplace_back("Strict-Transport-Security", "max-age=31536000");
    h.insert(h.end(), reply.headers.begin(), reply.headers.end());
    if (reply.close)
        h.emplace_back("Connection", "close");
    h.emplace_back("Content-Length", QByteArray::number(reply.body.size()));
    return h;
}

void WebServer::send(QTcpSocket *socket, const QHttpServerRequest &request, const Reply &reply)
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
