// SPDX-License-Identifier: Apache-2.0
// The reviewer page's live feed (WEB.md, `GET /api/live`): one WebSocket
// per open page. A decision made anywhere reaches every page as "removed"
// the moment the queue resolves the item.
#include "webserver.h"

#include "engine/consolecore.h"
#include "protocol/decider.h"
#include "web/weblistener.h"

#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <string_view>
#include <vector>

namespace holdpoint {

namespace {

constexpr qint64 MaxDecidedRemembered = 4096;
constexpr qint64 SilentLiveMs = 60'000; // no pong for this long: the page is gone
constexpr int HelloMs = 10'000; // a feed admitted on its cookie must send its device key by then

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

QList<QPair<QByteArray, QByteArray>> headersOf(const QNetworkRequest &request)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    for (const QByteArray &name : request.rawHeaderList())
        headers.append({ name, request.rawHeader(name) });
    return headers;
}

} // namespace

// Closing or aborting a socket may report its disconnect at once, which
// takes it out of m_live: act on a copy.
std::vector<QPointer<QWebSocket>> WebServer::liveSockets(const std::function<bool(const Live &)> &which) const
{
    std::vector<QPointer<QWebSocket>> out;
    for (const Live &l : m_live)
        if (which(l))
            out.emplace_back(l.socket.get());
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
        // Authenticated again from the upgrade's own headers: the check in
        // handleRequest admitted the upgrade, this one names the reviewer.
        // A browser cannot put a header on an upgrade, so a device's feed
        // is admitted on its cookie and proves its key in its first message.
        const auto who = caller(headersOf(socket->request()), socket->peerAddress(), nullptr, true);
        if (!who) {
            socket->close(QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no session"));
            dispose(socket.release());
            continue;
        }
        QWebSocket *ws = socket.get();
        ws->setMaxAllowedIncomingMessageSize(4096);
        ws->setMaxAllowedIncomingFrameSize(4096);
        const auto heard = [this, ws] {
            for (Live &l : m_live)
                if (l.socket.get() == ws)
                    l.lastHeard = steadyMs();
        };
        connect(ws, &QWebSocket::textMessageReceived, this, [this, ws, heard](const QString &message) {
            heard();
            onLiveHello(ws, message);
        });
        connect(ws, &QWebSocket::pong, this, heard);
        connect(ws, &QWebSocket::binaryMessageReceived, ws,
            [ws] { ws->close(QWebSocketProtocol::CloseCodeDatatypeNotSupported, QStringLiteral("text only")); });
        connect(ws, &QWebSocket::disconnected, this, [this, ws] {
            const auto it = std::find_if(m_live.begin(), m_live.end(), [ws](const Live &l) { return l.socket.get() == ws; });
            if (it == m_live.end())
                return;
            dispose(it->socket.release());
            m_live.erase(it);
        });
        m_live.push_back({ std::move(socket), who->sessionId, who->identity.name, steadyMs(), who->proven });
        if (who->proven) {
            trustLive(ws);
            Json first = snapshot();
            first["type"] = "snapshot";
            ws->sendTextMessage(QString::fromStdString(dumpJson(first)));
            continue;
        }
        QTimer::singleShot(HelloMs, ws, [this, ws] {
            const auto it = std::find_if(m_live.begin(), m_live.end(), [ws](const Live &l) { return l.socket.get() == ws; });
            if (it != m_live.end() && !it->proven)
                ws->close(QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no device key"));
        });
    }
}

void WebServer::onLiveHello(QWebSocket *ws, const QString &message)
{
    const auto it = std::find_if(m_live.begin(), m_live.end(), [ws](const Live &l) { return l.socket.get() == ws; });
    if (it == m_live.end() || it->proven)
        return; // pings, once proven
    // {"type": "hello", "device": KEY}, the page's first message; anything
    // else, or a key that is not this session's, ends the feed unheard.
    const Json hello = Json::parse(message.toStdString(), nullptr, false);
    const Json *key = hello.is_object() && hello.value("type", Json()) == "hello" && hello.contains("device")
            && hello["device"].is_string()
        ? &hello["device"]
        : nullptr;
    if (!key || !m_sessions.deviceMatches(it->sessionId, QByteArray::fromStdString(key->get<std::string>()))) {
        Q_EMIT refused(ws->peerAddress().toString(),
            QStringLiteral("live feed: a session's cookie without its device key (a process on another port of this host?)"));
        ws->close(QWebSocketProtocol::CloseCodePolicyViolated, QStringLiteral("no device key"));
        return;
    }
    it->proven = true;
    trustLive(ws);
    Json first = snapshot();
    first["type"] = "snapshot";
    ws->sendTextMessage(QString::fromStdString(dumpJson(first)));
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
    if (it->second)
        WebListener::trust(it->second);
    m_upgraded.erase(it);
}

void WebServer::broadcast(const Json &message)
{
    if (m_live.empty())
        return;
    const QString text = QString::fromStdString(dumpJson(message));
    for (const Live &l : m_live)
        if (l.proven)
            l.socket->sendTextMessage(text);
}

void WebServer::sendTo(const std::string &sessionId, const std::string &reviewer, const Json &message)
{
    const QString text = QString::fromStdString(dumpJson(message));
    for (const Live &l : m_live)
        if (l.proven && (sessionId.empty() ? l.sessionId.empty() && l.reviewer == reviewer : l.sessionId == sessionId))
            l.socket->sendTextMessage(text);
}

void WebServer::onResolved(const QueueItem &item)
{
    const std::string decidedBy = item.decision ? item.decision->decidedBy : std::string();
    const std::string state(itemStateName(item.state));
    const TimeMs at = m_core->clock()->now();
    if (m_decided.emplace(item.id, Decided { decidedBy, state, at }).second) {
        m_decidedOrder.push_back(item.id);
        if (qint64(m_decidedOrder.size()) > MaxDecidedRemembered) {
            m_decided.erase(m_decidedOrder.front());
            m_decidedOrder.pop_front();
        }
    }
    m_awaiting.erase(item.id);
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
            return std::optional(json({ { "outcome", "decided" }, { "decided_by", decidedBy } }));
        return std::optional(json({ { "error", "already_decided" },
            { "message", "already decided by " + decidedBy + " at " + formatTimestamp(at) }, { "decided_by", decidedBy },
            { "decided_at", formatTimestamp(at) }, { "state", state } }, 409));
    });
    broadcast({ { "type", "removed" }, { "id", item.id }, { "state", state }, { "decided_by", decidedBy },
        { "decided_at", formatTimestamp(at) } });
}

void WebServer::onSessionRevoked(const std::string &id)
{
    endLive([&id](const Live &l) { return l.sessionId == id; }, QStringLiteral("session ended"));
}

// Tells the pages `which` picks that they are signed out, then closes them.
void WebServer::endLive(const std::function<bool(const Live &)> &which, const QString &why, bool signedOut)
{
    for (const QPointer<QWebSocket> &ws : liveSockets(which)) {
        if (!ws)
            continue;
        const bool proven = std::any_of(m_live.begin(), m_live.end(),
            [&ws](const Live &l) { return l.socket.get() == ws.data() && l.proven; });
        if (signedOut && proven)
            ws->sendTextMessage(QStringLiteral("{\"type\":\"revoked\"}"));
        ws->close(QWebSocketProtocol::CloseCodePolicyViolated, why);
    }
}

void WebServer::pingLive()
{
    const qint64 now = steadyMs();
    for (const QPointer<QWebSocket> &ws : liveSockets([now](const Live &l) { return now - l.lastHeard > SilentLiveMs; }))
        if (ws)
            ws->abort();
    for (const Live &l : m_live)
        l.socket->ping();
}

} // namespace holdpoint
