// SPDX-License-Identifier: Apache-2.0
// The reviewer page's answers that outlive a request: a team review's
// answer, which waits for the database's, and holdpoint-ctl's web pair,
// sessions and revoke (the API's controllers are in webcontrollers.cpp).
#include "webserver.h"

#include "engine/consolecore.h"
#include "web/weblistener.h"

#include <QTcpSocket>
#include <QTimer>

namespace holdpoint {

namespace {

// How long a team review's answer waits for the database's: its own answer
// deadline is 5 s (TEAM.md "Connecting").
constexpr int SettleMs = 6'000;

} // namespace

// Each outcome names the reviewer it is for, and goes to that reviewer's
// oldest waiting click on the item alone: another person's click on the
// same item, or the desktop's review, waits for its own.
void WebServer::onReviewRefused(
    const std::string &id, const std::string &message, const std::string &reviewer)
{
    answerParked(
        id,
        [&](const Parked &p) {
            return p.fallback.settlesFor == reviewer
                ? std::optional(errorReply(422, "refused", message))
                : std::nullopt;
        },
        true);
    if (const auto awaited = m_items->takeAwaiting(id, reviewer))
        sendTo(awaited->first, awaited->second,
            { { "type", "refused" }, { "id", id }, { "message", message } });
}

void WebServer::onVoteCounted(
    const std::string &id, int approvals, int required, const std::string &reviewer)
{
    answerParked(
        id,
        [&](const Parked &p) {
            return p.fallback.settlesFor == reviewer
                ? std::optional(jsonReply({ { "outcome", "voted" }, { "approvals", approvals },
                    { "required", required } }))
                : std::nullopt;
        },
        true);
}

void WebServer::park(QTcpSocket *socket, PageReply fallback)
{
    const std::string id = fallback.settles;
    const quint64 ticket = ++m_parkTickets;
    // Nothing else is read on this connection until it is answered: Qt
    // would answer a next request first, out of order.
    WebListener::hold(socket, true);
    m_parked.emplace(id, Parked { socket, std::move(fallback), ticket });
    QTimer::singleShot(SettleMs, this, [this, id, ticket]() {
        answerParked(id, [ticket](const Parked &p) -> std::optional<PageReply> {
            if (p.ticket != ticket)
                return std::nullopt;
            return p.fallback;
        });
    });
}

// Answers the parked clicks on `id` that `answer` has a reply for (with
// `first`, the oldest of them only), in bytes of our own: the request
// object Qt HTTP Server parsed them into is another request's by now.
void WebServer::answerParked(const std::string &id,
    const std::function<std::optional<PageReply>(const Parked &)> &answer, bool first)
{
    const auto [from, to] = m_parked.equal_range(id);
    std::vector<decltype(m_parked)::iterator> oldestFirst;
    for (auto it = from; it != to; ++it)
        oldestFirst.push_back(it);
    std::sort(oldestFirst.begin(), oldestFirst.end(),
        [](const auto &a, const auto &b) { return a->second.ticket < b->second.ticket; });
    std::vector<std::pair<QPointer<QTcpSocket>, PageReply>> due;
    for (const auto &it : oldestFirst) {
        std::optional<PageReply> reply = answer(it->second);
        if (!reply)
            continue;
        due.emplace_back(it->second.socket, std::move(*reply));
        m_parked.erase(it);
        if (first)
            break;
    }
    for (const auto &[socket, reply] : due) {
        if (!socket || !socket->isOpen() || WebListener::refused(socket))
            continue;
        WebListener::hold(socket, false);
        QByteArray bytes = "HTTP/1.1 " + QByteArray::number(reply.status) + " \r\n";
        for (const auto &[name, value] : answerHeaders(reply))
            bytes += name + ": " + value + "\r\n";
        socket->write(bytes + "\r\n" + reply.body);
    }
}

Json WebServer::answer(
    const ReviewerIdentity &who, const protocol::WebRequest &request, std::string *error)
{
    // The console's owner manages every device; anyone else, their own.
    const bool owner = m_desk->managesEveryDevice(who.name);
    switch (request.action) {
    case protocol::WebAction::Pair: {
        // While the team database cannot be asked the code is made anyway:
        // redeeming it checks again, and refuses then.
        if (!m_desk->identityFor(who.name, {}) && !m_desk->teamUnknown()) {
            *error = who.name + " may not decide on this console";
            return {};
        }
        const PairingLink p = pair(who.name, who.via);
        return { { "action", "pair" }, { "url", p.url.toStdString() },
            { "expires", formatTimestamp(p.expires) }, { "reviewer", who.name } };
    }
    case protocol::WebAction::Sessions: {
        Json mine = Json::array();
        for (Json &s : sessionsJson())
            if (owner || s["reviewer"] == who.name)
                mine.push_back(std::move(s));
        return { { "action", "sessions" }, { "sessions", std::move(mine) } };
    }
    case protocol::WebAction::Revoke: {
        const WebSession *s = m_sessions.find(request.session);
        if (!s || (!owner && s->reviewer != who.name)) {
            *error = "no session \"" + request.session
                + "\" of yours; `holdpoint-ctl web sessions` lists them";
            return {};
        }
        m_sessions.revoke(request.session);
        if (!m_sessions.lastError().isEmpty()) {
            *error = "the session ended now, but " + m_sessions.lastError().toStdString()
                + "; it would be back after a restart";
            return {};
        }
        return { { "action", "revoke" }, { "session", request.session }, { "revoked", true } };
    }
    }
    return {};
}

} // namespace holdpoint
