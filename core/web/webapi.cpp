// SPDX-License-Identifier: Apache-2.0
// The reviewer page's JSON API (WEB.md "The API"): who am I, the queue,
// pairing, and a decision, made through the engine as the caller's reviewer.
#include "webserver.h"

#include "common/jsonparse.h"
#include "common/sha256.h"
#include "engine/consolecore.h"
#include "web/weblistener.h"

#include <QHttpServerRequest>
#include <QTcpSocket>
#include <QTimer>
#include <QSysInfo>

namespace holdpoint {

namespace {

constexpr std::size_t MaxBodyDepth = protocol::MaxDepth;
// How long a team review's answer waits for the database's: its own answer
// deadline is 5 s (TEAM.md "Connecting").
constexpr int SettleMs = 6'000;

// A JSON object body with only `allowed` keys, or why not.
bool parseBody(const QByteArray &body, std::initializer_list<const char *> allowed, Json *out, std::string *why)
{
    if (!parseStrictJson(std::string_view(body.constData(), std::size_t(body.size())), MaxBodyDepth, out, why))
        return false;
    if (!out->is_object()) {
        *why = "the body must be a JSON object";
        return false;
    }
    for (const auto &entry : out->items()) {
        const std::string &key = entry.key();
        if (std::none_of(allowed.begin(), allowed.end(), [&key](const char *a) { return key == a; })) {
            *why = key + ": unknown field";
            return false;
        }
    }
    return true;
}

bool stringField(const Json &body, const char *key, bool required, std::string *out, std::string *why)
{
    const auto it = body.find(key);
    if (it == body.end()) {
        if (required)
            *why = std::string(key) + ": missing";
        return !required;
    }
    if (!it->is_string()) {
        *why = std::string(key) + ": expected a string";
        return false;
    }
    *out = it->get<std::string>();
    return true;
}

} // namespace

Json WebServer::itemJson(const QueueItem &item) const
{
    Json j = itemToJson(item);
    // What a reviewer decides on; any change to it makes an earlier look stale.
    const Json seen { { "args", j["args"] }, { "edited_args", j.value("edited_args", Json()) },
        { "proposed_args", j.value("proposed_args", Json()) }, { "votes", j.value("votes", Json()) },
        { "turn_findings", j["turn_findings"] } };
    j["version"] = sha256Hex(dumpJson(seen)).substr(0, 16);
    return j;
}

Json WebServer::snapshot() const
{
    Json list = Json::array();
    m_core->queue()->forEachPending([&](const QueueItem &item) { list.push_back(itemJson(item)); });
    return { { "now", formatTimestamp(m_core->clock()->now()) }, { "items", std::move(list) } };
}

WebServer::Reply WebServer::me(const Caller &caller) const
{
    return json({ { "reviewer", caller.identity.name }, { "via", caller.identity.via },
        { "session", caller.sessionId }, { "csrf", caller.csrf }, { "team", m_core->team() != nullptr },
        { "console", QSysInfo::machineHostName().toStdString() } });
}

WebServer::Reply WebServer::items() const
{
    return json(snapshot());
}

WebServer::Reply WebServer::redeem(const QHttpServerRequest &request, const QHostAddress &peer)
{
    Json body;
    std::string why, code;
    if (!parseBody(request.body(), { "code" }, &body, &why) || !stringField(body, "code", true, &code, &why)) {
        m_sessions.pairingFailed(peer.toString(), std::string());
        return error(400, "invalid", why);
    }
    // A valid code is redeemed whatever others guessed: behind a proxy
    // every phone shares one address, and a code is 128 random bits, so
    // the limits below only quiet a guesser, never guard a code.
    PairingRefusal refusal = PairingRefusal::Unknown;
    const bool throttled = m_sessions.pairingThrottled(peer.toString(), code);
    const auto redeemed = m_sessions.redeem(code, request.value("user-agent").toStdString(), &refusal);
    if (!redeemed) {
        m_sessions.pairingFailed(peer.toString(), code);
        Q_EMIT refused(peer.toString(), QStringLiteral("pairing code refused"));
        if (throttled)
            return error(429, "rate_limited", "too many wrong pairing codes from here, or of this code; wait a minute");
        switch (refusal) {
        case PairingRefusal::Used:
            return error(410, "pairing_used", "this pairing link was used already; each link works once");
        case PairingRefusal::Expired:
            return error(410, "pairing_expired", "this pairing link expired; links work for 5 minutes");
        case PairingRefusal::Unknown:
            break;
        }
        return error(410, "pairing_unknown", "this pairing link is not one this console made");
    }
    if (!identityFor(redeemed->session.reviewer, {})) {
        m_sessions.revoke(redeemed->session.id);
        return error(403, "forbidden", redeemed->session.reviewer + " may no longer decide here");
    }
    // The device key goes to the page alone, which keeps it in its origin's
    // storage and sends it with the cookie on every request.
    Reply r = json({ { "reviewer", redeemed->session.reviewer }, { "session", redeemed->session.id },
        { "device", redeemed->deviceKey.toStdString() } });
    r.headers.emplace_back("Set-Cookie",
        QByteArray("__Host-holdpoint=") + redeemed->token
            + "; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=" + QByteArray::number(WebSessionIdleMs / 1000));
    return r;
}

WebServer::Reply WebServer::logout(const Caller &caller)
{
    if (!caller.sessionId.empty())
        m_sessions.revoke(caller.sessionId);
    Reply r = json({ { "ok", true } });
    r.headers.emplace_back("Set-Cookie", "__Host-holdpoint=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0");
    return r;
}

WebServer::Reply WebServer::review(const Caller &caller, const std::string &id, const QByteArray &raw)
{
    Json body;
    std::string why, version;
    if (!parseBody(raw, { "action", "version", "scope", "reason", "args" }, &body, &why)
        || !stringField(body, "version", true, &version, &why))
        return error(400, "invalid", why);
    if (body.value("scope", Json()) == "always")
        return error(400, "invalid", "scope: \"always\" rules are made at the desktop console, where the rule dialog is");
    // The rest is the reviewer wire's review message, read by its own parser
    // (PROTOCOL.md "Reviewer role"): the same rules as holdpoint-ctl's.
    body.erase("version");
    body["type"] = "review";
    body["id"] = id;
    protocol::ParseResult parsed = protocol::parseMessage(dumpJson(body));
    const auto *reviewed = parsed.ok() ? std::get_if<protocol::Review>(&*parsed.message) : nullptr;
    if (!reviewed)
        return error(400, "invalid", parsed.error.message);
    const protocol::Review &r = *reviewed;

    const QueueItem *item = m_core->queue()->find(id);
    if (!item) {
        const auto d = m_decided.find(id);
        if (d == m_decided.end())
            return error(409, "already_decided", "this call is no longer waiting");
        Reply reply = json({ { "error", "already_decided" },
            { "message", "already decided by " + d->second.decidedBy + " at " + formatTimestamp(d->second.at) },
            { "decided_by", d->second.decidedBy }, { "decided_at", formatTimestamp(d->second.at) },
            { "state", d->second.state } },
            409);
        return reply;
    }
    // What an approval or an edit agrees to must be what the page showed; a
    // deny or a halt stops the call whatever it has become since.
    const bool agrees = r.action == protocol::ReviewAction::Approve || r.action == protocol::ReviewAction::Edit;
    if (agrees && itemJson(*item)["version"] != version)
        return error(409, "changed", "this call changed since you looked (an edit, an approval or its turn); review it again");

    const ReviewOutcome outcome = m_core->reviewAs(r, caller.identity);
    if (!outcome.ok) {
        if (outcome.code == protocol::ErrorCode::UnknownItem || outcome.code == protocol::ErrorCode::AlreadyResolved)
            return error(409, "already_decided", outcome.message);
        return error(422, "refused", outcome.message);
    }
    // A team database settles every decision: a reviewer elsewhere may have
    // got there first, and the feed says so ("refused").
    if (outcome.later || m_core->team()) {
        m_awaiting[id] = { caller.sessionId, caller.identity.name };
        // The HTTP answer waits for the database's, so a refusal is said
        // to the click itself; "sent" if the database is slower than that.
        Reply sent = json({ { "outcome", "sent" } });
        sent.settles = id;
        sent.settlesFor = caller.identity.name;
        return sent;
    }
    if (outcome.voted)
        return json({ { "outcome", "voted" }, { "approvals", outcome.approvals }, { "required", outcome.required } });
    return json({ { "outcome", "decided" }, { "decided_by", outcome.decision.decidedBy } });
}

void WebServer::park(QTcpSocket *socket, Reply fallback)
{
    const std::string id = fallback.settles;
    const quint64 ticket = ++m_parkTickets;
    // Nothing else is read on this connection until it is answered: Qt
    // would answer a next request first, out of order.
    WebListener::hold(socket, true);
    m_parked.emplace(id, Parked { socket, std::move(fallback), ticket });
    QTimer::singleShot(SettleMs, this, [this, id, ticket]() {
        answerParked(id, [ticket](const Parked &p) -> std::optional<Reply> {
            if (p.ticket != ticket)
                return std::nullopt;
            return p.fallback;
        });
    });
}

// Answers the parked clicks on `id` that `answer` has a reply for (with
// `first`, the oldest of them only), in bytes of our own: the request
// object Qt HTTP Server parsed them into is another request's by now.
void WebServer::answerParked(
    const std::string &id, const std::function<std::optional<Reply>(const Parked &)> &answer, bool first)
{
    const auto [from, to] = m_parked.equal_range(id);
    std::vector<decltype(m_parked)::iterator> oldestFirst;
    for (auto it = from; it != to; ++it)
        oldestFirst.push_back(it);
    std::sort(oldestFirst.begin(), oldestFirst.end(),
        [](const auto &a, const auto &b) { return a->second.ticket < b->second.ticket; });
    std::vector<std::pair<QPointer<QTcpSocket>, Reply>> due;
    for (const auto &it : oldestFirst) {
        std::optional<Reply> reply = answer(it->second);
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

Json WebServer::answer(const ReviewerIdentity &who, const protocol::WebRequest &request, std::string *error)
{
    // The console's owner manages every device; anyone else, their own.
    const bool owner = !m_core->team() && who.name == m_core->reviewerName();
    switch (request.action) {
    case protocol::WebAction::Pair: {
        // While the team database cannot be asked the code is made anyway:
        // redeeming it checks again, and refuses then.
        if (!identityFor(who.name, {}) && !teamUnknown()) {
            *error = who.name + " may not decide on this console";
            return {};
        }
        const Pairing p = pair(who.name, who.via);
        return { { "action", "pair" }, { "url", p.url.toStdString() }, { "expires", formatTimestamp(p.expires) },
            { "reviewer", who.name } };
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
            *error = "no session \"" + request.session + "\" of yours; `holdpoint-ctl web sessions` lists them";
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
