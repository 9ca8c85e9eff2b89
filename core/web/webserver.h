// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page (WEB.md): static files, a JSON API and one live
// WebSocket per page, served on the console's event loop and deciding
// through its engine as the reviewer the session belongs to. This is the
// transport: it turns what Qt HTTP Server parsed into a PageRequest, passes
// it through the gate (webgate.h) and the route table to a controller
// (webcontrollers.h) over the reviewer desk (reviewerdesk.h), and writes
// the answer.

#include "common/json.h"
#include "protocol/protocol.h"
#include "queue/queuestore.h"
#include "web/consoledesk.h"
#include "web/livefeedcontroller.h"
#include "web/webcontrollers.h"
#include "web/webgate.h"
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
    // The device sessions: all the window's Devices dialog needs.
    WebSessions *sessions() { return &m_sessions; }

    // A pairing link for `reviewer`, who asked through `via`.
    using Pairing = PairingLink;
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
    struct Parked
    {
        QPointer<QTcpSocket> socket;
        PageReply fallback;
        quint64 ticket = 0;
    };
    // An open page's socket; whose it is and whether it proved its session
    // is the feed controller's (livefeedcontroller.h).
    struct Live
    {
        std::unique_ptr<QWebSocket> socket;
        LiveFeedController::Id feed = 0;
        qint64 lastHeard = 0;
    };

    void send(QTcpSocket *socket, const QHttpServerRequest &request, const PageReply &reply);
    // What every answer carries besides its status and body.
    std::vector<std::pair<QByteArray, QByteArray>> answerHeaders(const PageReply &reply) const;
    // A team review's answer waits for the database (webapi.cpp).
    void park(QTcpSocket *socket, PageReply fallback);
    void answerParked(const std::string &id,
        const std::function<std::optional<PageReply>(const Parked &)> &answer, bool first = false);
    // Through the gate, then the route table's handler (webgate.h).
    PageReply route(const PageRequest &request, QTcpSocket *socket);
    CallerLookup lookup(const PageRequest &request, bool keyLater);
    // holdpoint-ctl web pair / sessions / revoke, through the reviewer wire.
    Json answer(
        const ReviewerIdentity &who, const protocol::WebRequest &request, std::string *error);

    // The live feed (webfeed.cpp).
    void acceptLive();
    // A live feed's message: the first proves its session with the device key.
    void onLiveMessage(QWebSocket *socket, LiveFeedController::Id feed, const QString &message);
    QWebSocket *socketOf(LiveFeedController::Id feed) const;
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
    void onReviewRefused(
        const std::string &id, const std::string &message, const std::string &reviewer);
    void onVoteCounted(
        const std::string &id, int approvals, int required, const std::string &reviewer);
    void pingLive();
    std::vector<QPointer<QWebSocket>> liveSockets(
        const std::vector<LiveFeedController::Id> &feeds) const;
    // Closes the pages `which` picks; `signedOut` tells them first that
    // their session ended (the page then stops reconnecting).
    void endLive(const std::function<bool(const LiveFeedController::Feed &)> &which,
        const QString &why, bool signedOut = true);

    QPointer<ConsoleCore> m_core;
    WebConfig m_config;
    WebListener *m_listener = nullptr;
    WebSessions m_sessions;
    GateRules m_rules;
    QByteArray m_secret; // per process: the CSRF token of a trusted-header caller
    // Made by start(): the desk over the engine, the controllers over it,
    // and the route table that sends each request to one of them.
    std::unique_ptr<ConsoleDesk> m_desk;
    std::unique_ptr<PairingController> m_pairing;
    std::unique_ptr<ItemsController> m_items;
    std::unique_ptr<LiveFeedController> m_feed;
    RouteTable m_routes;
    std::vector<Live> m_live;
    QTimer *m_pinger = nullptr;
    // Team mode: review requests whose answer waits for the database, by item.
    std::unordered_multimap<std::string, Parked> m_parked;
    quint64 m_parkTickets = 0;
    // Connections upgraded to a live feed, by peer "address:port": the
    // socket until the feed proves its session (the QWebSocket hides its
    // QTcpSocket), and the request the gate admitted until the feed opens,
    // whose caller the feed is for.
    struct Upgraded
    {
        QPointer<QTcpSocket> socket;
        std::optional<PageRequest> request;
    };
    std::unordered_map<std::string, Upgraded> m_upgraded;
};

} // namespace holdpoint
