// SPDX-License-Identifier: Apache-2.0
// The reviewer page's controllers (WEB.md "The API"): who am I, pairing,
// the queue and a decision, made through the desk as the caller's reviewer.
#include "webcontrollers.h"

#include "common/jsonparse.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"
#include "server/endpoint.h"

#include <QFile>
#include <QSysInfo>

namespace holdpoint {

namespace {

constexpr std::size_t MaxBodyDepth = protocol::MaxDepth;
constexpr qint64 MaxDecidedRemembered = 4096;

// A JSON object body with only `allowed` keys, or why not.
bool parseBody(const QByteArray &body, std::initializer_list<const char *> allowed, Json *out,
    std::string *why)
{
    if (!parseStrictJson(
            std::string_view(body.constData(), std::size_t(body.size())), MaxBodyDepth, out, why))
        return false;
    if (!out->is_object()) {
        *why = "the body must be a JSON object";
        return false;
    }
    for (const auto &entry : out->items()) {
        const std::string &key = entry.key();
        if (std::none_of(
                allowed.begin(), allowed.end(), [&key](const char *a) { return key == a; })) {
            *why = key + ": unknown field";
            return false;
        }
    }
    return true;
}

bool stringField(
    const Json &body, const char *key, bool required, std::string *out, std::string *why)
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

PairingController::PairingController(
    WebSessions &sessions, ReviewerDesk &desk, TrustedHeader trusted, QByteArray secret)
    : m_sessions(sessions)
    , m_desk(desk)
    , m_trusted(std::move(trusted))
    , m_secret(std::move(secret))
{ }

CallerLookup PairingController::lookup(const PageRequest &request, bool keyLater)
{
    CallerLookup found;
    const HeaderList &headers = request.headers;
    if (!m_trusted.name.isEmpty()) {
        const bool trusted = std::any_of(
            m_trusted.proxies.begin(), m_trusted.proxies.end(), [&](const QHostAddress &p) {
                return p.isEqual(request.peer, QHostAddress::TolerantConversion);
            });
        const QByteArray named = headerValue(headers, m_trusted.name).trimmed();
        const bool proven = m_trusted.proxySecret.isEmpty()
            || Endpoint::constantTimeEquals(
                headerValue(headers, ProxySecretHeader), m_trusted.proxySecret);
        if (trusted && proven && !named.isEmpty()) {
            const std::string name = named.toStdString();
            if (!reviewerNameProblem(name).empty())
                return found;
            const std::string via = "web (" + m_trusted.name.toStdString() + " from "
                + request.peer.toString().toStdString() + ")";
            auto identity = m_desk.identityFor(name, via);
            if (!identity) {
                if (m_desk.team())
                    found.notAReviewer = name;
                return found;
            }
            found.caller = Caller { std::move(*identity), {},
                sha256Hex(m_secret.toStdString() + ':' + name) };
            return found;
        }
    }
    // The cookie reaches every port of this host; the device key only the
    // page's own origin (WEB.md "Who gets in"). Either alone is nobody.
    const QByteArray &token = request.cookie;
    const WebSession *session = keyLater ? m_sessions.findByToken(token)
                                         : m_sessions.authenticate(token, request.deviceKey);
    if (!session) {
        found.cookieWithoutKey = !keyLater && m_sessions.findByToken(token);
        return found;
    }
    auto identity = m_desk.identityFor(session->reviewer,
        "web session " + session->id + " (paired via " + session->pairedVia + ")");
    if (!identity) {
        const std::string reviewer = session->reviewer;
        if (m_desk.team())
            found.notAReviewer = reviewer;
        // Unknown is not no: a session outlives the database's absence.
        if (!m_desk.teamUnknown())
            m_sessions.revokeReviewer(reviewer);
        return found;
    }
    found.caller = Caller { std::move(*identity), session->id, session->csrf, !keyLater };
    return found;
}

PageReply PairingController::me(const Caller &caller) const
{
    return jsonReply({ { "reviewer", caller.identity.name }, { "via", caller.identity.via },
        { "session", caller.sessionId }, { "csrf", caller.csrf }, { "team", m_desk.team() },
        { "console", QSysInfo::machineHostName().toStdString() } });
}

PageReply PairingController::redeem(const PageRequest &request)
{
    const QString peer = request.peer.toString();
    Json body;
    std::string why, code;
    if (!parseBody(request.body, { "code" }, &body, &why)
        || !stringField(body, "code", true, &code, &why)) {
        m_sessions.pairingFailed(peer, std::string());
        return errorReply(400, "invalid", why);
    }
    // A valid code is redeemed whatever others guessed: behind a proxy
    // every phone shares one address, and a code is 128 random bits, so
    // the limits below only quiet a guesser, never guard a code.
    PairingRefusal refusal = PairingRefusal::Unknown;
    const bool throttled = m_sessions.pairingThrottled(peer, code);
    const auto redeemed = m_sessions.redeem(code, request.userAgent.toStdString(), &refusal);
    if (!redeemed) {
        m_sessions.pairingFailed(peer, code);
        PageReply r;
        if (throttled)
            r = errorReply(429, "rate_limited",
                "too many wrong pairing codes from here, or of this code; wait a minute");
        else if (refusal == PairingRefusal::Used)
            r = errorReply(
                410, "pairing_used", "this pairing link was used already; each link works once");
        else if (refusal == PairingRefusal::Expired)
            r = errorReply(
                410, "pairing_expired", "this pairing link expired; links work for 5 minutes");
        else
            r = errorReply(
                410, "pairing_unknown", "this pairing link is not one this console made");
        r.logged = QStringLiteral("pairing code refused");
        return r;
    }
    if (!m_desk.identityFor(redeemed->session.reviewer, {})) {
        m_sessions.revoke(redeemed->session.id);
        return errorReply(
            403, "forbidden", redeemed->session.reviewer + " may no longer decide here");
    }
    // The device key goes to the page alone, which keeps it in its origin's
    // storage and sends it with the cookie on every request.
    PageReply r = jsonReply({ { "reviewer", redeemed->session.reviewer },
        { "session", redeemed->session.id }, { "device", redeemed->deviceKey.toStdString() } });
    r.headers.emplace_back("Set-Cookie",
        QByteArray("__Host-holdpoint=") + redeemed->token
            + "; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age="
            + QByteArray::number(WebSessionIdleMs / 1000));
    return r;
}

PageReply PairingController::logout(const Caller &caller)
{
    if (!caller.sessionId.empty())
        m_sessions.revoke(caller.sessionId);
    PageReply r = jsonReply({ { "ok", true } });
    r.headers.emplace_back(
        "Set-Cookie", "__Host-holdpoint=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0");
    return r;
}

ItemsController::ItemsController(ReviewerDesk &desk)
    : m_desk(desk)
{ }

Json ItemsController::itemJson(const QueueItem &item) const
{
    Json j = itemToJson(item);
    // What a reviewer decides on; any change to it makes an earlier look stale.
    const Json seen { { "args", j["args"] }, { "edited_args", j.value("edited_args", Json()) },
        { "proposed_args", j.value("proposed_args", Json()) },
        { "votes", j.value("votes", Json()) }, { "turn_findings", j["turn_findings"] } };
    j["version"] = sha256Hex(dumpJson(seen)).substr(0, 16);
    return j;
}

Json ItemsController::snapshot() const
{
    Json list = Json::array();
    m_desk.forEachPending([&](const QueueItem &item) { list.push_back(itemJson(item)); });
    return { { "now", formatTimestamp(m_desk.now()) }, { "items", std::move(list) } };
}

PageReply ItemsController::items() const
{
    return jsonReply(snapshot());
}

PageReply ItemsController::review(
    const Caller &caller, const std::string &id, const QByteArray &raw)
{
    Json body;
    std::string why, version;
    if (!parseBody(raw, { "action", "version", "scope", "reason", "args" }, &body, &why)
        || !stringField(body, "version", true, &version, &why))
        return errorReply(400, "invalid", why);
    if (body.value("scope", Json()) == "always")
        return errorReply(400, "invalid",
            "scope: \"always\" rules are made at the desktop console, where the rule dialog is");
    // The rest is the reviewer wire's review message, read by its own parser
    // (PROTOCOL.md "Reviewer role"): the same rules as holdpoint-ctl's.
    body.erase("version");
    body["type"] = "review";
    body["id"] = id;
    protocol::ParseResult parsed = protocol::parseMessage(dumpJson(body));
    const auto *reviewed = parsed.ok() ? std::get_if<protocol::Review>(&*parsed.message) : nullptr;
    if (!reviewed)
        return errorReply(400, "invalid", parsed.error.message);
    const protocol::Review &r = *reviewed;

    const QueueItem *item = m_desk.find(id);
    if (!item) {
        const auto d = m_decided.find(id);
        if (d == m_decided.end())
            return errorReply(409, "already_decided", "this call is no longer waiting");
        return jsonReply(
            { { "error", "already_decided" },
                { "message",
                    "already decided by " + d->second.decidedBy + " at "
                        + formatTimestamp(d->second.at) },
                { "decided_by", d->second.decidedBy },
                { "decided_at", formatTimestamp(d->second.at) }, { "state", d->second.state } },
            409);
    }
    // What an approval or an edit agrees to must be what the page showed; a
    // deny or a halt stops the call whatever it has become since.
    const bool agrees
        = r.action == protocol::ReviewAction::Approve || r.action == protocol::ReviewAction::Edit;
    if (agrees && itemJson(*item)["version"] != version)
        return errorReply(409, "changed",
            "this call changed since you looked (an edit, an approval or its turn); review it "
            "again");

    const ReviewOutcome outcome = m_desk.review(r, caller.identity);
    if (!outcome.ok) {
        if (outcome.code == protocol::ErrorCode::UnknownItem
            || outcome.code == protocol::ErrorCode::AlreadyResolved)
            return errorReply(409, "already_decided", outcome.message);
        return errorReply(422, "refused", outcome.message);
    }
    // A team database settles every decision: a reviewer elsewhere may have
    // got there first, and the feed says so ("refused").
    if (outcome.later || m_desk.team()) {
        m_awaiting[id] = { caller.sessionId, caller.identity.name };
        // The HTTP answer waits for the database's, so a refusal is said
        // to the click itself; "sent" if the database is slower than that.
        PageReply sent = jsonReply({ { "outcome", "sent" } });
        sent.settles = id;
        sent.settlesFor = caller.identity.name;
        return sent;
    }
    if (outcome.voted)
        return jsonReply({ { "outcome", "voted" }, { "approvals", outcome.approvals },
            { "required", outcome.required } });
    return jsonReply({ { "outcome", "decided" }, { "decided_by", outcome.decision.decidedBy } });
}

void ItemsController::remember(const QueueItem &item, TimeMs at)
{
    const std::string decidedBy = item.decision ? item.decision->decidedBy : std::string();
    if (m_decided
            .emplace(item.id, Decided { decidedBy, std::string(itemStateName(item.state)), at })
            .second) {
        m_decidedOrder.push_back(item.id);
        if (qint64(m_decidedOrder.size()) > MaxDecidedRemembered) {
            m_decided.erase(m_decidedOrder.front());
            m_decidedOrder.pop_front();
        }
    }
    m_awaiting.erase(item.id);
}

std::optional<std::pair<std::string, std::string>> ItemsController::takeAwaiting(
    const std::string &id, const std::string &reviewer)
{
    const auto it = m_awaiting.find(id);
    if (it == m_awaiting.end() || it->second.second != reviewer)
        return std::nullopt;
    auto awaited = std::move(it->second);
    m_awaiting.erase(it);
    return awaited;
}

PageReply staticFile(const QString &path)
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
            return errorReply(500, "missing", "the page's files are missing from this build");
        PageReply r;
        r.body = f.readAll();
        r.contentType = type;
        return r;
    }
    return errorReply(404, "not_found", "nothing here");
}

RouteTable webRoutes(PairingController &pairing, ItemsController &items)
{
    using M = PageRequest::Method;
    constexpr const char *Post = "this changes state, so it takes a POST";
    constexpr const char *Get = "this is read with GET";
    return {
        { M::Get, QStringLiteral("/api/me"), true,
            [&pairing](const RouteCall &c) { return pairing.me(*c.caller); }, Get },
        { M::Get, QStringLiteral("/api/items"), true,
            [&items](const RouteCall &) { return items.items(); }, Get },
        { M::Post, QStringLiteral("/api/pair"), false,
            [&pairing](const RouteCall &c) { return pairing.redeem(c.request); }, Post },
        { M::Post, QStringLiteral("/api/logout"), true,
            [&pairing](const RouteCall &c) { return pairing.logout(*c.caller); }, Post },
        { M::Post, QStringLiteral("/api/items/{id}/review"), true,
            [&items](const RouteCall &c) { return items.review(*c.caller, c.id, c.request.body); },
            Post },
        { M::Get, QStringLiteral("*"), false,
            [](const RouteCall &c) { return staticFile(c.request.path); },
            "the page's files are read with GET" },
    };
}

} // namespace holdpoint
