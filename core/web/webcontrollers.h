// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page's controllers (WEB.md "The API"), each over the
// reviewer desk and never a socket: who is calling and pairing
// (PairingController), the queue and a decision (ItemsController). The
// server's route table (webRoutes) sends each request that passed the gate
// to one of them; the live feed's controller (livefeedcontroller.h) sends
// what ItemsController makes of the queue's changes.

#include "web/reviewerdesk.h"
#include "web/webgate.h"
#include "web/websessions.h"

#include <deque>
#include <unordered_map>

namespace holdpoint {

// What a trusted proxy proves itself with (WEB.md "Who gets in"), lower case.
inline constexpr char ProxySecretHeader[] = "x-holdpoint-proxy-secret";

// Who may read a reviewer's name from a header (WEB.md "A trusted header").
struct TrustedHeader
{
    QByteArray name; // empty: no single sign-on
    QList<QHostAddress> proxies;
    QByteArray proxySecret; // required from a loopback proxy
};

class PairingController final
{
public:
    // `secret` is per process: a trusted-header caller's CSRF token derives from it.
    PairingController(
        WebSessions &sessions, ReviewerDesk &desk, TrustedHeader trusted, QByteArray secret);

    // Who is calling (a CallerFinder): a session needs its cookie and its
    // device key (X-Holdpoint-Device); with `keyLater`, the cookie alone
    // admits it, unproven. A session whose reviewer may no longer decide
    // here is revoked, unless the team database cannot say now.
    CallerLookup lookup(const PageRequest &request, bool keyLater);

    PageReply me(const Caller &caller) const; // GET /api/me
    PageReply redeem(const PageRequest &request); // POST /api/pair
    PageReply logout(const Caller &caller); // POST /api/logout

private:
    WebSessions &m_sessions;
    ReviewerDesk &m_desk;
    TrustedHeader m_trusted;
    QByteArray m_secret;
};

class ItemsController final
{
public:
    explicit ItemsController(ReviewerDesk &desk);

    // An item as the page gets it: the reviewer wire's, with `version`.
    Json itemJson(const QueueItem &item) const;
    // {"now", "items"}: every waiting call, oldest first.
    Json snapshot() const;
    PageReply items() const; // GET /api/items
    // POST /api/items/ID/review, as `caller`. In team mode the reply
    // settles later (PageReply::settles): the database decides.
    PageReply review(const Caller &caller, const std::string &id, const QByteArray &body);

    // An item left the queue at `at`: remembered for a stale click's "decided
    // by whom and when", and no longer awaited.
    struct Decided
    {
        std::string decidedBy;
        std::string state;
        TimeMs at = 0;
    };
    void remember(const QueueItem &item, TimeMs at);
    // Team mode: the session and reviewer whose review of `id` the database
    // refused, when it was `reviewer`'s; forgotten once taken.
    std::optional<std::pair<std::string, std::string>> takeAwaiting(
        const std::string &id, const std::string &reviewer);

private:
    ReviewerDesk &m_desk;
    std::unordered_map<std::string, Decided> m_decided;
    std::deque<std::string> m_decidedOrder;
    // Team mode: reviews sent to the database, by item, with whose session.
    std::unordered_map<std::string, std::pair<std::string, std::string>> m_awaiting;
};

// The page's static files (resources/web, compiled in), by path.
PageReply staticFile(const QString &path);

// What each path takes, and who answers it (WEB.md "The API").
RouteTable webRoutes(PairingController &pairing, ItemsController &items);

} // namespace holdpoint
