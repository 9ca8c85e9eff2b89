// SPDX-License-Identifier: Apache-2.0
#include "webgate.h"

#include "common/visibletext.h"
#include "server/endpoint.h"
#include "web/websessions.h"

namespace holdpoint {

namespace {

constexpr char CookieName[] = "__Host-holdpoint";
constexpr QLatin1StringView IdMark("{id}");

// A value the sender chose (a path, an Origin), as one line a person reads
// in the console's log: every hidden code point, line feed and tab included,
// written as ⟨U+XXXX⟩ (visibletext.h), so it cannot start a line of its own,
// clear the terminal or turn the line around.
QString loggable(const QString &text)
{
    return visibleText(text.left(200))
        .replace(u'\n', QStringLiteral("⟨U+000A⟩"))
        .replace(u'\t', QStringLiteral("⟨U+0009⟩"));
}

PageReply refuse(int status, const char *code, const std::string &message, QString logged = {})
{
    PageReply r = errorReply(status, code, message);
    r.logged = std::move(logged);
    return r;
}

} // namespace

QByteArray headerValue(const HeaderList &headers, const QByteArray &name)
{
    QByteArray value;
    int seen = 0;
    for (const auto &h : headers)
        if (h.first.compare(name, Qt::CaseInsensitive) == 0 && ++seen == 1)
            value = h.second;
    return seen == 1 ? value : QByteArray();
}

QByteArray cookieToken(const HeaderList &headers)
{
    for (const auto &h : headers) {
        if (h.first.compare("cookie", Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray &pair : h.second.split(';')) {
            const QByteArray p = pair.trimmed();
            if (p.startsWith(CookieName) && p.size() > qsizetype(sizeof CookieName) - 1
                && p[sizeof CookieName - 1] == '=')
                return p.mid(qsizetype(sizeof CookieName));
        }
    }
    return {};
}

void setHeaders(PageRequest &request, HeaderList headers)
{
    request.headers = std::move(headers);
    request.cookie = cookieToken(request.headers);
    request.deviceKey = headerValue(request.headers, DeviceKeyHeader);
}

PageReply errorReply(int status, const char *code, const std::string &message)
{
    return jsonReply({ { "error", code }, { "message", message } }, status);
}

PageReply jsonReply(const Json &body, int status)
{
    PageReply r;
    r.status = status;
    r.body = QByteArray::fromStdString(dumpJson(body));
    return r;
}

bool routeMatches(const QString &pattern, const QString &path, std::string *id)
{
    if (pattern == QLatin1String("*"))
        return !path.startsWith(QLatin1String("/api/"));
    const qsizetype mark = pattern.indexOf(IdMark);
    if (mark < 0)
        return path == pattern;
    const QString prefix = pattern.left(mark);
    const QString suffix = pattern.mid(mark + IdMark.size());
    if (!path.startsWith(prefix) || !path.endsWith(suffix))
        return false;
    // What lies between them; a path shorter than both reads as the rest
    // after the prefix, as QString::mid does with a negative length.
    *id = path.mid(prefix.size(), path.size() - prefix.size() - suffix.size()).toStdString();
    return true;
}

GateVerdict gate(const PageRequest &request, const GateRules &rules, const RouteTable &routes,
    bool teamUnknown, const CallerFinder &who)
{
    GateVerdict v;
    const QString peer = request.peer.toString();
    if (!rules.hosts.contains(request.host)) {
        v.refusal = refuse(421, "bad_host", "this server does not answer for that Host");
        return v;
    }
    if (request.body.size() > rules.maxRequestBytes) {
        v.refusal = refuse(413, "too_large", "the body is over the limit");
        return v;
    }
    // The listener refuses any Transfer-Encoding before Qt parses a byte
    // (httpframing.h); this stays for a request that reaches here another way.
    if (request.transferEncoding) {
        v.refusal
            = refuse(400, "invalid", "Transfer-Encoding is not taken here; send a Content-Length");
        v.refusal->close = true;
        return v;
    }
    const Route *found = nullptr;
    const char *hint = nullptr;
    for (const Route &r : routes) {
        std::string id;
        if (!routeMatches(r.path, request.path, &id))
            continue;
        if (r.method == request.method) {
            found = &r;
            v.id = std::move(id);
            break;
        }
        if (!hint)
            hint = r.methodHint;
    }
    if (!found) {
        v.refusal = hint ? refuse(405, "method_not_allowed", hint)
                         : refuse(404, "not_found", "no such API");
        return v;
    }
    const bool post = request.method == PageRequest::Method::Post;
    if (post
        && (request.origin.isEmpty()
            || !rules.origins.contains(QString::fromUtf8(request.origin), Qt::CaseSensitive))) {
        v.refusal = refuse(403, "bad_origin", "a change is taken only from the page's own origin",
            QStringLiteral("POST %1 with Origin \"%2\"")
                .arg(loggable(request.path), loggable(QString::fromUtf8(request.origin))));
        return v;
    }
    // Fail closed: without the database's word on whom this login may act
    // as, nobody reads, pairs or decides (and no session is revoked).
    if (request.path.startsWith(QLatin1String("/api/")) && teamUnknown) {
        v.refusal = refuse(503, "team_unavailable",
            "the team database cannot say now who may use this page; try again when it is back");
        return v;
    }
    v.route = found;
    if (!found->needsSession)
        return v;
    CallerLookup lookup = who(request, false);
    if (!lookup.caller) {
        if (!lookup.notAReviewer.empty())
            v.refusal = refuse(403, "not_a_reviewer",
                lookup.notAReviewer
                    + " is not a reviewer this console's team login may act as (disabled, or never "
                      "mapped to it); "
                      "the team database's owner decides that");
        else
            v.refusal = refuse(401, "no_session",
                "this device is not paired, or its session ended; pair it again",
                lookup.cookieWithoutKey
                    ? QStringLiteral("a session's cookie without its device key (a process on "
                                     "another port of this host?)")
                    : QString());
        v.route = nullptr;
        return v;
    }
    v.sessionValid = true;
    if (post
        && !Endpoint::constantTimeEquals(
            request.csrf, QByteArray::fromStdString(lookup.caller->csrf))) {
        v.refusal = refuse(
            403, "bad_csrf", "the request lacks this session's CSRF token; reload the page");
        v.route = nullptr;
        return v;
    }
    v.caller = std::move(lookup.caller);
    return v;
}

UpgradeVerdict gateUpgrade(
    const PageRequest &request, const GateRules &rules, const CallerFinder &who)
{
    UpgradeVerdict v;
    const char *why = nullptr;
    if (request.path != QLatin1String("/api/live"))
        why = "no WebSocket here";
    else if (!rules.hosts.contains(request.host))
        why = "unknown Host";
    else if (request.origin.isEmpty()
        || !rules.origins.contains(QString::fromUtf8(request.origin), Qt::CaseSensitive))
        why = "foreign or missing Origin";
    else if (!(v.caller = who(request, true).caller))
        why = "no session";
    if (why) {
        v.caller.reset();
        v.refusal = refuse(403, "forbidden", std::string("WebSocket refused: ") + why,
            QStringLiteral("WebSocket upgrade: %1").arg(QLatin1String(why)));
    }
    return v;
}

bool helloProves(
    const std::string &message, const std::function<bool(const QByteArray &key)> &matches)
{
    const Json hello = Json::parse(message, nullptr, false);
    if (!hello.is_object() || hello.value("type", Json()) != "hello" || !hello.contains("device")
        || !hello["device"].is_string())
        return false;
    return matches(QByteArray::fromStdString(hello["device"].get<std::string>()));
}

} // namespace holdpoint
