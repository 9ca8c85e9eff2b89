// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page (WEB.md): static files, a JSON API and one live
// WebSocket per page, served on the console's event loop and deciding
// through its engine as the reviewer the session belongs to.

#include "common/json.h"
#include "protocol/protocol.h"
#include "queue/queuestore.h"
#include "web/websessions.h"

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QPointer>
#include <QSet>
#include <QTcpSocket>
#include <QWebSocket>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint {

class ConsoleCore;
class WebListener;

struct WebConfig
{
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = 0;
    QString certFile, keyFile; // both or neither: TLS
    // Public origins the page is reached at besides the listening address
    // (a reverse proxy's https://review.example.com).
    QStringList origins;
    // Single sign-on: a header naming the reviewer, read only from these peers.
    QByteArray authHeader;
    QList<QHostAddress> trustedProxies;
    // What the proxy sends in X-Holdpoint-Proxy-Secret; required when a
    // trusted proxy is on loopback, where every local process is too.
    QByteArray proxySecret;
    qint64 maxRequestBytes = 64 * 1024;
    int requestMs = 10'000; // a request's first byte to its last
    int maxConnections = 256; // open at once, pages included; a quarter of it per address

    QString sessionsFile; // empty: sessions end with the process
};

// Checks what a person typed; empty when it is usable, else why not.
QString webConfigProblem(const WebConfig &config);
// Parses "ADDR:PORT" ("127.0.0.1:8765", "[::1]:8765", "localhost:8765").
bool parseWebAddress(const QString &text, QHostAddress *address, quint16 *port, QString *error);

class WebServer final : public QAbstractHttpServer
{
    Q_OBJECT
public:
    WebServer(ConsoleCore *core, WebConfig config, QObject *parent = nullptr);
    ~WebServer() override;

    bool start(QString *error);
    quint16 port() const;
    // Where the page is: the first public origin, else the listening one.
    QString origin() const;
    WebSessions *sessions() { return &m_sessions; }

    // A pairing link for `reviewer`, who asked through `via`.
    struct Pairing
    {
        QString url;
        TimeMs expires = 0;
    };
    Pairing pair(const std::string &reviewer, const std::string &via);
    // The sessions and a revoke, as `holdpoint-ctl web` shows and asks for them.
    Json sessionsJson() const;
    bool revoke(const std::string &id);
    int liveConnections() const { return int(m_live.size()); }

Q_SIGNALS:
    // A request refused for a reason worth recording (a foreign Origin, a
    // bad pairing code, an oversized body). Never carries a secret.
    void refused(const QString &peer, const QString &why);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Caller
    {
        ReviewerIdentity identity;
        std::string sessionId; // empty for a trusted header
        std::string csrf;
        // False for a live feed admitted on its cookie alone: it must send
        // the device key in its first message before it is sent anything.
        bool proven = true;
    };
    struct Reply
    {
        int status = 200;
        QByteArray body;
        QByteArray contentType = "application/json";
        std::vector<std::pair<QByteArray, QByteArray>> headers;
        bool close = false; // and end the connection
        // Team mode: answered when the database settles this item for
        // `settlesFor` (decided, voted or refused); this reply if it has
        // not within SettleMs.
        std::string settles;
        std::string settlesFor;
    };
    struct Parked
    {
        QPointer<QTcpSocket> socket;
        Reply fallback;
        quint64 ticket = 0;
    };
    struct Live
    {
        std::unique_ptr<QWebSocket> socket;
        std::string sessionId;
        std::string reviewer;
        qint64 lastHeard = 0;
        // Sent the session's device key (or came through a trusted proxy):
        // until then it is sent nothing and counts for nothing.
        bool proven = false;
    };
    struct Decided
    {
        std::string decidedBy;
        std::string state;
        TimeMs at = 0;
    };

    void send(QTcpSocket *socket, const QHttpServerRequest &request, const Reply &reply);
    // What every answer carries besides its status and body.
    std::vector<std::pair<QByteArray, QByteArray>> answerHeaders(const Reply &reply) const;
    // A team review's answer waits for the database (webapi.cpp).
    void park(QTcpSocket *socket, Reply fallback);
    void answerParked(const std::string &id, const std::function<std::optional<Reply>(const Parked &)> &answer,
        bool first = false);
    static Reply error(int status, const char *code, const std::string &message);
    static Reply json(const Json &body, int status = 200);
    Reply route(const QHttpServerRequest &request, QTcpSocket *socket);
    Reply staticFile(const QString &path) const;
    bool originAllowed(const QHttpServerRequest &request) const;
    bool hostAllowed(const QByteArray &host) const;
    // Who is calling, or nullopt; `refusedName`, if given, is set to the
    // name a session or trusted header carried that may not use the page.
    // A session needs its cookie and its device key (X-Holdpoint-Device);
    // with `keyLater` (a live feed's upgrade, which a browser cannot give a
    // header) the cookie alone admits it, unproven.
    std::optional<Caller> caller(const QList<QPair<QByteArray, QByteArray>> &headers, const QHostAddress &peer,
        std::string *refusedName = nullptr, bool keyLater = false);
    std::optional<ReviewerIdentity> identityFor(const std::string &reviewer, const std::string &via) const;
    // Team mode, and the database cannot say now whom this login may act as.
    bool teamUnknown() const;

    // The API (webapi.cpp).
    Reply me(const Caller &caller) const;
    Reply items() const;
    Reply redeem(const QHttpServerRequest &request, const QHostAddress &peer);
    Reply logout(const Caller &caller);
    Reply review(const Caller &caller, const std::string &id, const QByteArray &body);
    Json itemJson(const QueueItem &item) const;
    Json answer(const ReviewerIdentity &who, const protocol::WebRequest &request, std::string *error);

    // The live feed.
    void acceptLive();
    // A live feed's first message: the device key that proves its session.
    void onLiveHello(QWebSocket *socket, const QString &message);
    // The feed proved its session: its connection is one the listener
    // keeps when it makes room (WebListener::trust).
    void trustLive(QWebSocket *socket);
    static std::string peerKey(const QHostAddress &address, quint16 port);
    void dropRemovedReviewers();
    void dispose(QWebSocket *socket);
    void broadcast(const Json &message);
    void sendTo(const std::string &sessionId, const std::string &reviewer, const Json &message);
    void onResolved(const QueueItem &item);
    void onSessionRevoked(const std::string &id);
    void pingLive();
    std::vector<QPointer<QWebSocket>> liveSockets(const std::function<bool(const Live &)> &which) const;
    // Closes the pages `which` picks; `signedOut` tells them first that
    // their session ended (the page then stops reconnecting).
    void endLive(const std::function<bool(const Live &)> &which, const QString &why, bool signedOut = true);
    Json snapshot() const;

    QPointer<ConsoleCore> m_core;
    WebConfig m_config;
    WebListener *m_listener = nullptr;
    WebSessions m_sessions;
    QStringList m_origins; // exact Origin values admitted
    QSet<QByteArray> m_hosts; // Host values admitted (no DNS rebinding)
    QByteArray m_secret; // per process: the CSRF token of a trusted-header caller
    std::vector<Live> m_live;
    QTimer *m_pinger = nullptr;
    // Recently decided items, for "decided by whom and when" on a stale click.
    std::unordered_map<std::string, Decided> m_decided;
    std::deque<std::string> m_decidedOrder;
    // Team mode: reviews sent to the database, by item, with whose session.
    std::unordered_map<std::string, std::pair<std::string, std::string>> m_awaiting;
    // Team mode: review requests whose answer waits for the database, by item.
    std::unordered_multimap<std::string, Parked> m_parked;
    quint64 m_parkTickets = 0;
    // Connections upgraded to a live feed, by peer "address:port", until the
    // feed proves its session (the QWebSocket hides its QTcpSocket).
    std::unordered_map<std::string, QPointer<QTcpSocket>> m_upgraded;
};

} // namespace holdpoint
