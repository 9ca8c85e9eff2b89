// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page's gate and route table (WEB.md "The shape"): a request
// as a value, the one check every request passes (Host, size, route and
// method, Origin, the team database's word, session, CSRF), and the table
// of what each path takes. No socket, no Qt HTTP Server object and no
// engine here, so every refusal is a row of a table in a test
// (tests/web/tst_webgate.cpp). Modelled on qBittorrent's WebApplication,
// whose every request passes one gate before its controller sees it.

#include "common/json.h"
#include "queue/queuestore.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace holdpoint {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// What the gate and the controllers read of a request, as the transport
// parsed it (webserver.cpp), or as a test writes it.
struct PageRequest
{
    enum class Method
    {
        Get,
        Post,
        Other,
    };
    Method method = Method::Get;
    QString path; // the URL's path, decoded
    QHostAddress peer;
    QByteArray host;
    QByteArray origin;
    QByteArray csrf; // X-CSRF-Token
    QByteArray userAgent;
    bool transferEncoding = false; // any Transfer-Encoding
    // The session's two halves (WEB.md "Who gets in"): the token of the
    // `__Host-holdpoint` cookie, and the device key the page sends in
    // X-Holdpoint-Device (empty when missing or sent twice).
    QByteArray cookie;
    QByteArray deviceKey;
    // Every field as received; a trusted proxy's headers are read from
    // these (headerValue).
    HeaderList headers;
    QByteArray body;
};

// The header's value; empty when it is missing or sent more than once (a
// proxy that appends instead of replacing must not let a client add a name).
QByteArray headerValue(const HeaderList &headers, const QByteArray &name);
// The session cookie's token (`__Host-holdpoint`), or empty.
QByteArray cookieToken(const HeaderList &headers);
// Keeps `headers` as the request's fields and reads the session's two
// halves from them.
void setHeaders(PageRequest &request, HeaderList headers);

// An answer, before the transport adds what every answer carries.
struct PageReply
{
    int status = 200;
    QByteArray body;
    QByteArray contentType = "application/json";
    std::vector<std::pair<QByteArray, QByteArray>> headers;
    bool close = false; // and end the connection
    // Team mode: answered when the database settles this item for
    // `settlesFor` (decided, voted or refused); this reply if it has not in time.
    std::string settles;
    std::string settlesFor;
    // What the console records of it (the `refused` signal, its log line);
    // empty for an answer worth no record. Never a secret.
    QString logged;
};

// {"error": CODE, "message": ...} (WEB.md "Refusals").
PageReply errorReply(int status, const char *code, const std::string &message);
PageReply jsonReply(const Json &body, int status = 200);

// Who is calling: a reviewer, through a session or a trusted header.
struct Caller
{
    ReviewerIdentity identity;
    std::string sessionId; // empty for a trusted header
    std::string csrf;
    // False for a live feed admitted on its cookie alone: it must send the
    // device key in its first message before it is sent anything.
    bool proven = true;
};

// What looking up the caller found (PairingController::lookup).
struct CallerLookup
{
    std::optional<Caller> caller;
    // Team mode: the name a session or trusted header carried that the
    // database does not let this login act as (403 not_a_reviewer).
    std::string notAReviewer;
    // A session's cookie came without its device key, or with another's:
    // recorded, as a process on another port of this host sends that.
    bool cookieWithoutKey = false;
};
// `keyLater`: a live feed's upgrade, which a browser cannot give a header;
// the cookie alone admits it, unproven.
using CallerFinder = std::function<CallerLookup(const PageRequest &, bool keyLater)>;

// A route's handler: the request, its caller (null on a route that needs
// no session) and the `{id}` its path named.
struct RouteCall
{
    const PageRequest &request;
    const Caller *caller = nullptr;
    std::string id;
};
using RouteHandler = std::function<PageReply(const RouteCall &)>;

struct Route
{
    PageRequest::Method method;
    // An exact path, a path with one `{id}` ("/api/items/{id}/review"), or
    // "*": any path outside /api/ (the page's files).
    QString path;
    bool needsSession = false;
    RouteHandler handler;
    // What a request for this path with another method is told (405).
    const char *methodHint = "";
};
using RouteTable = std::vector<Route>;

// Whether `path` is one `pattern` names; `id` gets what `{id}` stood for.
bool routeMatches(const QString &pattern, const QString &path, std::string *id);

// What the gate holds a request against; fixed when the page starts.
struct GateRules
{
    QSet<QByteArray> hosts; // Host values admitted (no DNS rebinding)
    QStringList origins; // exact Origin values admitted
    qint64 maxRequestBytes = 64 * 1024;
};

struct GateVerdict
{
    // Refused: the answer, with what is recorded of it.
    std::optional<PageReply> refusal;
    // Allowed: the route to run, the caller when it needs a session, and
    // the `{id}` of its path.
    const Route *route = nullptr;
    std::optional<Caller> caller;
    std::string id;
    // The request carried a valid session or trusted header (whatever came
    // of it after): its connection is one the listener keeps (trust()).
    bool sessionValid = false;
    bool allowed() const { return !refusal; }
};

// The one check every request passes, in WEB.md's order: Host (421), size
// (413), Transfer-Encoding (400), route and method (404, 405), a POST's
// Origin (403 bad_origin), the team database's word on /api/ (503),
// session (401 no_session, 403 not_a_reviewer) and a POST's CSRF token
// (403 bad_csrf). `teamUnknown`: team mode, and the database cannot say now
// whom this login may act as. `who` is asked only when a route needs a session.
GateVerdict gate(const PageRequest &request, const GateRules &rules, const RouteTable &routes,
    bool teamUnknown, const CallerFinder &who);

// A WebSocket upgrade: only /api/live, from an admitted Host and Origin,
// with a session (the device key may come in the feed's first message).
// Refused with 403 before the upgrade; the caller when admitted.
struct UpgradeVerdict
{
    std::optional<PageReply> refusal;
    std::optional<Caller> caller;
};
UpgradeVerdict gateUpgrade(
    const PageRequest &request, const GateRules &rules, const CallerFinder &who);

// Whether a live feed's first message proves its session: {"type":
// "hello", "device": KEY} with `matches` true for KEY.
bool helloProves(
    const std::string &message, const std::function<bool(const QByteArray &key)> &matches);

} // namespace holdpoint
