// SPDX-License-Identifier: Apache-2.0
// The reviewer page's live feed (WEB.md, `GET /api/live`): one WebSocket
// per open page. A decision made anywhere reaches every page as "removed"
// the moment the queue resolves the item.
#include "webserver.h"

#include "engine/consolecore.h"
#include "protocol/decider.h"
#include "web/weblistener.h"

#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <string_view>
#include <vector>

namespace holdpoint {

namespace {

constexpr qint64 SilentLiveMs = 60'000; // no pong for this long: the page is gone
constexpr int HelloMs = 10'000; // a feed admitted on its cookie must send its device key by then

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

QWebSocket *WebServer::socketOf(LiveFeedController::Id feed) const
{
    for (const Live &l : m_live)
        if (l.feed == feed)
            return l.socket.get();
    return nullptr;
}

// Closing or aborting a socket may report its disconnect at once, which
// takes it out of m_live: act on a copy.
std::vector<QPointer<QWebSocket>> WebServer::liveSockets(
    const std::vector<LiveFeedController::Id> &feeds) const
{
    std::vector<QPointer<QWebSocket>> out;
    for (const LiveFeedController::Id id : feeds)
        out.emplace_back(socketOf(id));
    return out;
}

// Deleted from the event loop, not inside its own signal; and with this
// server when it goes first, so a socket is never left behind.
void WebServer::dispose(QWebSocket *socket)
{
    socket->setParent(this);
    socket->deleteLater();
}

void WebServer::acceptLive()
{
    while (hasPendingWebSocketConnections()) {
        std::unique_ptr<QWebSocket> socket = nextPendingWebSocketConnection();
        if (!socket)
            continue;
        // Looked up again (a session may have ended since the upgrade was
        // admitted), on the request the gate admitted: the handshake reads
        // the same bytes its own way (socket->request()), keeping one line
        // of a field sent twice, which the gate reads as nobody (a name
        // header a proxy appended to a client's). A browser cannot put a
        // header on an upgrade, so a device's feed is admitted on its
        // cookie and proves its key in its first message.
        std::optional<Caller> who;
        if (const auto admitted
            = m_upgraded.find(peerKey(socket->peerAddress(), socket->peerPort()));
            admitted != m_upgraded.end() && admitted->second.request) {
            who = lookup(*admitted->second.request, true).caller;
            admitted->second.request.reset();
        }
        if (!who) {
            socket->close(
                QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no session"));
            dispose(socket.release());
            continue;
        }
        QWebSocket *ws = socket.get();
        ws->setMaxAllowedIncomingMessageSize(4096);
        ws->setMaxAllowedIncomingFrameSize(4096);
        const LiveFeedController::Opened opened = m_feed->open(*who);
        const LiveFeedController::Id feed = opened.id;
        const auto heard = [this, ws] {
            for (Live &l : m_live)
                if (l.socket.get() == ws)
                    l.lastHeard = steadyMs();
        };
        connect(ws, &QWebSocket::textMessageReceived, this,
            [this, ws, feed, heard](const QString &message) {
                heard();
                onLiveMessage(ws, feed, message);
            });
        connect(ws, &QWebSocket::pong, this, heard);
        connect(ws, &QWebSocket::binaryMessageReceived, ws, [ws] {
            ws->close(
                QWebSocketProtocol::CloseCodeDatatypeNotSupported, QStringLiteral("text only"));
        });
        connect(ws, &QWebSocket::disconnected, this, [this, ws, feed] {
            const auto it = std::find_if(
                m_live.begin(), m_live.end(), [ws](const Live &l) { return l.socket.get() == ws; });
            if (it == m_live.end())
                return;
            dispose(it->socket.release());
            m_live.erase(it);
            m_feed->closed(feed);
        });
        m_live.push_back({ std::move(socket), feed, steadyMs() });
        if (opened.first) {
            trustLive(ws);
            ws->sendTextMessage(QString::fromStdString(*opened.first));
            continue;
        }
        QTimer::singleShot(HelloMs, ws, [this, ws, feed] {
            if (m_feed->awaitingKey(feed))
                ws->close(
                    QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no device key"));
        });
    }
}

void WebServer::onLiveMessage(QWebSocket *ws, LiveFeedController::Id feed, const QString &message)
{
    const LiveFeedController::Heard heard = m_feed->heard(feed, message.toStdString());
    switch (heard.kind) {
    case LiveFeedController::Heard::Kind::Nothing:
        return;
    case LiveFeedController::Heard::Kind::Refused:
        Q_EMIT refused(ws->peerAddress().toString(), heard.logged);
        ws->close(QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no device key"));
        return;
    case LiveFeedController::Heard::Kind::Proven:
        trustLive(ws);
        ws->sendTextMessage(QString::fromStdString(heard.first));
        return;
    }
}

std::string WebServer::peerKey(const QHostAddress &address, quint16 port)
{
    return address.toString().toStdString() + ':' + std::to_string(port);
}

void WebServer::trustLive(QWebSocket *ws)
{
    const auto it = m_upgraded.find(peerKey(ws->peerAddress(), ws->peerPort()));
    if (it == m_upgraded.end())
        return;
    if (it->second.socket)
        WebListener::trust(it->second.socket);
    m_upgraded.erase(it);
}

void WebServer::broadcast(const Json &message)
{
    if (m_live.empty())
        return;
    const QString text = QString::fromStdString(dumpJson(message));
    for (const LiveFeedController::Id id : m_feed->everyone())
        if (QWebSocket *ws = socketOf(id))
            ws->sendTextMessage(text);
}

void WebServer::sendTo(
    const std::string &sessionId, const std::string &reviewer, const Json &message)
{
    const QString text = QString::fromStdString(dumpJson(message));
    for (const LiveFeedController::Id id : m_feed->of(sessionId, reviewer))
        if (QWebSocket *ws = socketOf(id))
            ws->sendTextMessage(text);
}

void WebServer::onResolved(const QueueItem &item)
{
    const std::string decidedBy = item.decision ? item.decision->decidedBy : std::string();
    const std::string state(itemStateName(item.state));
    const TimeMs at = m_desk->now();
    m_items->remember(item, at);
    // Approvals that completed a count are decided by everyone who gave one
    // ("human:alice,human:bob"), the click that completed it included.
    std::vector<std::string_view> deciders;
    for (std::string_view rest = decidedBy; !rest.empty();) {
        const std::size_t comma = rest.find(',');
        deciders.push_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    answerParked(item.id, [&](const Parked &p) {
        const std::string self = protocol::Decider::person(p.fallback.settlesFor).text();
        if (std::find(deciders.begin(), deciders.end(), self) != deciders.end())
            return std::optional(
                jsonReply({ { "outcome", "decided" }, { "decided_by", decidedBy } }));
        return std::optional(jsonReply(
            { { "error", "already_decided" },
                { "message", "already decided by " + decidedBy + " at " + formatTimestamp(at) },
                { "decided_by", decidedBy }, { "decided_at", formatTimestamp(at) },
                { "state", state } },
            409));
    });
    broadcast({ { "type", "removed" }, { "id", item.id }, { "state", state },
        { "decided_by", decidedBy }, { "decided_at", formatTimestamp(at) } });
}

void WebServer::onSessionRevoked(const std::string &id)
{
    endLive([&id](const LiveFeedController::Feed &f) { return f.sessionId == id; },
        QStringLiteral("session ended"));
}

// Tells the pages `which` picks that they are signed out, then closes them.
void WebServer::endLive(const std::function<bool(const LiveFeedController::Feed &)> &which,
    const QString &why, bool signedOut)
{
    for (const LiveFeedController::Feed &f : m_feed->select(which)) {
        const QPointer<QWebSocket> ws = socketOf(f.id);
        if (!ws)
            continue;
        if (signedOut && f.proven)
            ws->sendTextMessage(QStringLiteral("{\"type\":\"revoked\"}"));
        ws->close(QWebSocketProtocol::CloseCodePolicyViolated, why);
    }
}

void WebServer::pingLive()
{
    const qint64 now = steadyMs();
    std::vector<LiveFeedController::Id> silent;
    for (const Live &l : m_live)
        if (now - l.lastHeard > SilentLiveMs)
            silent.push_back(l.feed);
    for (const QPointer<QWebSocket> &ws : liveSockets(silent))
        if (ws)
            ws->abort();
    for (const Live &l : m_live)
        l.socket->ping();
}

} // namespace holdpoint
