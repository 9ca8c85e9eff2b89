// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page's parts as WebServer::start() puts them together (the
// gate, the route table, the controllers, real device sessions) over a fake
// reviewer desk, without a socket: what tst_webgate and tst_webcontrollers
// send their rows through, and the live feed's controller.

#include "web/livefeedcontroller.h"
#include "web/reviewerdesk.h"
#include "web/webcontrollers.h"
#include "web/webgate.h"
#include "web/websessions.h"

#include <QTest>

#include <set>

namespace holdpoint::test {

inline constexpr TimeMs Start = 1'800'000'000'000;
inline const QByteArray Host = "127.0.0.1:8765";
inline const QByteArray Origin = "http://127.0.0.1:8765";
inline const QByteArray ItemId = "a1";
inline const QString ReviewPath = QStringLiteral("/api/items/a1/review");
inline const QByteArray ProxyHeader = "X-Remote-User";
inline const QByteArray ProxySecret = "proxy-secret-of-the-test";

// The desk as the engine would be it: one call waiting, the reviewers it
// knows, and a review() that counts what reached it.
class FakeDesk final : public ReviewerDesk
{
public:
    std::vector<QueueItem> pending;
    std::set<std::string> reviewers { "owner" };
    bool teamMode = false;
    bool unknown = false; // team mode: the database cannot say now
    ReviewOutcome outcome;
    int reviews = 0;

    FakeDesk()
    {
        QueueItem item;
        item.id = ItemId.toStdString();
        item.callId = "c1";
        item.sessionId = "s1";
        item.toolName = "write_file";
        item.args = { { "path", "/tmp/x" } };
        item.receivedAt = Start;
        pending.push_back(item);
        outcome.ok = true;
        outcome.decision.decidedBy = "human:owner";
    }
    void forEachPending(const std::function<void(const QueueItem &)> &fn) const override
    {
        for (const QueueItem &i : pending)
            fn(i);
    }
    const QueueItem *find(const std::string &id) const override
    {
        for (const QueueItem &i : pending)
            if (i.id == id)
                return &i;
        return nullptr;
    }
    TimeMs now() const override { return Start; }
    bool team() const override { return teamMode; }
    bool teamUnknown() const override { return teamMode && unknown; }
    std::optional<ReviewerIdentity> identityFor(
        const std::string &reviewer, const std::string &via) const override
    {
        if (teamUnknown() || !reviewers.count(reviewer))
            return std::nullopt;
        return ReviewerIdentity { reviewer, via, {} };
    }
    bool managesEveryDevice(const std::string &reviewer) const override
    {
        return !teamMode && reviewer == "owner";
    }
    ReviewOutcome review(const protocol::Review &, const ReviewerIdentity &) override
    {
        ++reviews;
        return outcome;
    }
};

struct PairedDevice
{
    QByteArray token, key;
    std::string csrf, id;
};

// The page's parts as WebServer::start() puts them together, on the fake desk.
struct Page
{
    explicit Page(TrustedHeader trusted = {})
        : pairing(sessions, desk, std::move(trusted), "per-process-secret")
        , routes(webRoutes(pairing, items))
    {
        rules.hosts = { Host, "localhost:8765" };
        rules.origins = { QString::fromLatin1(Origin), QStringLiteral("http://localhost:8765") };
        sessions.setOrigin(QString::fromLatin1(Origin));
    }

    PairedDevice pair(const std::string &reviewer = "owner")
    {
        PairingRefusal refusal;
        const auto r = sessions.redeem(sessions.pair(reviewer, "test").code, "test", &refusal);
        return r ? PairedDevice { r->token, r->deviceKey, r->session.csrf, r->session.id }
                 : PairedDevice {};
    }
    // What WebServer::route() does with a request, less the socket.
    PageReply run(const PageRequest &request, GateVerdict *seen = nullptr)
    {
        GateVerdict v = gate(request, rules, routes, desk.teamUnknown(),
            [this](const PageRequest &r, bool keyLater) { return pairing.lookup(r, keyLater); });
        PageReply reply = v.refusal
            ? *v.refusal
            : v.route->handler(RouteCall { request, v.caller ? &*v.caller : nullptr, v.id });
        if (seen)
            *seen = std::move(v);
        return reply;
    }
    QByteArray reviewBody(const Json &fields = { { "action", "approve" } }) const
    {
        Json body = fields;
        body["version"] = items.itemJson(desk.pending.front())["version"];
        return QByteArray::fromStdString(dumpJson(body));
    }

    ManualClock clock { Start };
    FakeDesk desk;
    WebSessions sessions { QString(), &clock };
    PairingController pairing;
    ItemsController items { desk };
    LiveFeedController feed { items, sessions };
    RouteTable routes;
    GateRules rules;
};

inline PageRequest request(
    PageRequest::Method method, const QString &path, const QByteArray &body = {})
{
    PageRequest r;
    r.method = method;
    r.path = path;
    r.peer = QHostAddress::LocalHost;
    r.host = Host;
    r.origin = method == PageRequest::Method::Post ? Origin : QByteArray();
    r.body = body;
    return r;
}

inline void present(
    PageRequest &r, const QByteArray &token, const QByteArray &key, const QByteArray &csrf = {})
{
    if (!token.isEmpty())
        r.headers.append({ "Cookie", "theme=dark; __Host-holdpoint=" + token });
    if (!key.isEmpty())
        r.headers.append({ "X-Holdpoint-Device", key });
    if (!csrf.isEmpty()) {
        r.csrf = csrf;
        r.headers.append({ "X-CSRF-Token", csrf });
    }
    setHeaders(r, r.headers);
}

inline std::string errorOf(const PageReply &r)
{
    return Json::parse(r.body.toStdString(), nullptr, false).value("error", std::string());
}

using M = PageRequest::Method;

// Whose session each half of a request is.
enum class Half
{
    None,
    Own, // the paired device's
    Other, // another paired device's (the same reviewer's)
    Unknown, // one this console never made
};

} // namespace holdpoint::test
