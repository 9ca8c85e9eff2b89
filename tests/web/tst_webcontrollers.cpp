// SPDX-License-Identifier: Apache-2.0
// The controllers' refusals (WEB.md "Refusals"), a row each, through the
// gate, the route table and the controllers the page runs
// (webcontrollers.h), on real device sessions and a fake reviewer desk,
// without a socket: pairing codes spent, expired, unknown or guessed; a
// review of a call decided meanwhile, changed since, or refused by the
// engine; and a trusted proxy's header from whom it may come.

#include "web/webpage.h"

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

enum class Pairing
{
    Fresh, // a link made now
    Spent, // redeemed once already
    Expired, // made over 5 minutes ago
    Unknown, // never made here
    PeerGuessed, // a wrong code after 5 wrong ones from the same address this minute
    CodeGuessed, // the same wrong code a 4th time this minute, from 4 addresses
    FreshAfterGuesses, // a link made now, from an address that sent 5 wrong ones
    NotAReviewer, // made for a reviewer the console no longer admits
};

struct PairRow
{
    Pairing pairing = Pairing::Fresh;
    QByteArray body {}; // empty: {"code": the code}
    int status = 200;
    QByteArray error {};
    bool logged = false;
};

enum class Item
{
    Waiting,
    Gone, // never, or no longer, on the desk
    DecidedHere, // resolved while the page showed it
};

struct ReviewRow
{
    Item item = Item::Waiting;
    Json fields = { { "action", "approve" } };
    bool staleVersion = false;
    bool team = false;
    std::optional<protocol::ErrorCode> deskRefuses {};
    int status = 200;
    QByteArray error {};
    bool reachesDesk = false;
};

} // namespace

Q_DECLARE_METATYPE(PairRow)
Q_DECLARE_METATYPE(ReviewRow)

class TestWebControllers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pairing_data();
    void pairing();
    void reviews_data();
    void reviews();
    void trustedHeader_data();
    void trustedHeader();
    void liveFeedFirstMessage_data();
    void liveFeedFirstMessage();
    void liveFeedSendsAndEndsByWhose();
};

void TestWebControllers::pairing_data()
{
    QTest::addColumn<PairRow>("row");
    QTest::newRow("a fresh link") << PairRow {};
    QTest::newRow("a fresh link after 5 wrong codes from the same address")
        << PairRow { .pairing = Pairing::FreshAfterGuesses };
    QTest::newRow("410 spent") << PairRow {
        .pairing = Pairing::Spent, .status = 410, .error = "pairing_used", .logged = true
    };
    QTest::newRow("410 expired") << PairRow {
        .pairing = Pairing::Expired, .status = 410, .error = "pairing_expired", .logged = true
    };
    QTest::newRow("410 unknown") << PairRow {
        .pairing = Pairing::Unknown, .status = 410, .error = "pairing_unknown", .logged = true
    };
    QTest::newRow("429 a 6th wrong code from one address") << PairRow {
        .pairing = Pairing::PeerGuessed, .status = 429, .error = "rate_limited", .logged = true
    };
    QTest::newRow("429 a 4th try of the same wrong code") << PairRow {
        .pairing = Pairing::CodeGuessed, .status = 429, .error = "rate_limited", .logged = true
    };
    QTest::newRow("403 a reviewer removed since")
        << PairRow { .pairing = Pairing::NotAReviewer, .status = 403, .error = "forbidden" };
    QTest::newRow("400 code not a string")
        << PairRow { .body = R"({"code": 5})", .status = 400, .error = "invalid" };
    QTest::newRow("400 unknown field") << PairRow {
        .body = R"({"code": "x", "reviewer": "owner"})", .status = 400, .error = "invalid"
    };
    QTest::newRow("400 not JSON") << PairRow {
        .body = "code=x", .status = 400, .error = "invalid"
    };
}

void TestWebControllers::pairing()
{
    QFETCH(PairRow, row);
    Page page;
    const auto post
        = [&page](const QByteArray &body, const QString &from = QStringLiteral("127.0.0.1")) {
              PageRequest r = request(M::Post, QStringLiteral("/api/pair"), body);
              r.peer = QHostAddress(from);
              return page.run(r);
          };
    const auto codeBody = [](const std::string &code) {
        return QByteArray::fromStdString(dumpJson({ { "code", code } }));
    };
    std::string code = page.sessions.pair("owner", "test").code;
    switch (row.pairing) {
    case Pairing::Fresh:
        break;
    case Pairing::Spent:
        QCOMPARE(post(codeBody(code)).status, 200);
        break;
    case Pairing::Expired:
        page.clock.advance(PairingLifetimeMs + 1);
        break;
    case Pairing::Unknown:
        code = std::string(32, 'b');
        break;
    case Pairing::PeerGuessed:
    case Pairing::FreshAfterGuesses:
        for (int i = 0; i < int(PairingFailuresPerPeer); ++i)
            QCOMPARE(post(codeBody(std::string(32, char('c' + i)))).status, 410);
        if (row.pairing == Pairing::PeerGuessed)
            code = std::string(32, 'z');
        break;
    case Pairing::CodeGuessed:
        code = std::string(32, 'y');
        for (int i = 0; i < int(PairingFailuresPerCode); ++i)
            QCOMPARE(post(codeBody(code), QStringLiteral("127.0.0.%1").arg(10 + i)).status, 410);
        break;
    case Pairing::NotAReviewer:
        page.desk.reviewers.clear();
        break;
    }
    const PageReply reply = post(row.body.isEmpty() ? codeBody(code) : row.body);
    QCOMPARE(reply.status, row.status);
    QCOMPARE(reply.logged.isEmpty(), !row.logged);
    if (row.logged)
        QCOMPARE(reply.logged, QStringLiteral("pairing code refused"));
    const Json answer = Json::parse(reply.body.toStdString(), nullptr, false);
    if (row.status != 200) {
        QCOMPARE(answer.value("error", std::string()), row.error.toStdString());
        QVERIFY(std::none_of(reply.headers.begin(), reply.headers.end(),
            [](const auto &h) { return h.first == "Set-Cookie"; }));
        // Only the spent link's own session is left, if any.
        QCOMPARE(page.sessions.list().size(), std::size_t(row.pairing == Pairing::Spent ? 1 : 0));
        return;
    }
    // The cookie, strict, and the device key for the page's own storage.
    QCOMPARE(answer.value("reviewer", std::string()), std::string("owner"));
    QVERIFY(!answer.value("device", std::string()).empty());
    const auto cookie = std::find_if(reply.headers.begin(), reply.headers.end(),
        [](const auto &h) { return h.first == "Set-Cookie"; });
    QVERIFY(cookie != reply.headers.end());
    QVERIFY(cookie->second.startsWith("__Host-holdpoint="));
    QVERIFY(cookie->second.contains("; HttpOnly; Secure; SameSite=Strict;"));
    QCOMPARE(page.sessions.list().size(), std::size_t(1));
}

void TestWebControllers::reviews_data()
{
    QTest::addColumn<ReviewRow>("row");
    QTest::newRow("approve") << ReviewRow { .reachesDesk = true };
    QTest::newRow("deny a call that changed since")
        << ReviewRow { .fields = { { "action", "deny" }, { "reason", "no" } },
               .staleVersion = true,
               .reachesDesk = true };
    QTest::newRow("team mode: sent, settled by the database")
        << ReviewRow { .team = true, .reachesDesk = true };
    QTest::newRow("409 a call no longer waiting")
        << ReviewRow { .item = Item::Gone, .status = 409, .error = "already_decided" };
    QTest::newRow("409 decided meanwhile, by whom")
        << ReviewRow { .item = Item::DecidedHere, .status = 409, .error = "already_decided" };
    QTest::newRow("409 approve a call that changed since")
        << ReviewRow { .staleVersion = true, .status = 409, .error = "changed" };
    QTest::newRow("409 edit a call that changed since")
        << ReviewRow { .fields = { { "action", "edit" }, { "args", { { "path", "/tmp/y" } } } },
               .staleVersion = true,
               .status = 409,
               .error = "changed" };
    QTest::newRow("409 the engine: resolved meanwhile")
        << ReviewRow { .deskRefuses = protocol::ErrorCode::AlreadyResolved,
               .status = 409,
               .error = "already_decided",
               .reachesDesk = true };
    QTest::newRow("422 the engine refuses")
        << ReviewRow { .deskRefuses = protocol::ErrorCode::Forbidden,
               .status = 422,
               .error = "refused",
               .reachesDesk = true };
    QTest::newRow("400 an always rule")
        << ReviewRow { .fields = { { "action", "approve" }, { "scope", "always" } },
               .status = 400,
               .error = "invalid" };
    QTest::newRow("400 unknown field")
        << ReviewRow { .fields = { { "action", "approve" }, { "decided_by", "human:boss" } },
               .status = 400,
               .error = "invalid" };
    QTest::newRow("400 deny without a reason")
        << ReviewRow { .fields = { { "action", "deny" } }, .status = 400, .error = "invalid" };
    QTest::newRow("400 edit without args")
        << ReviewRow { .fields = { { "action", "edit" } }, .status = 400, .error = "invalid" };
    QTest::newRow("400 unknown action")
        << ReviewRow { .fields = { { "action", "run" } }, .status = 400, .error = "invalid" };
}

void TestWebControllers::reviews()
{
    QFETCH(ReviewRow, row);
    Page page;
    const PairedDevice d = page.pair();
    QByteArray body = page.reviewBody(row.fields);
    if (row.staleVersion)
        page.desk.pending.front().args["path"] = "/etc/passwd";
    page.desk.teamMode = row.team;
    if (row.deskRefuses) {
        page.desk.outcome.ok = false;
        page.desk.outcome.code = *row.deskRefuses;
        page.desk.outcome.message = "refused by the engine";
    }
    if (row.item != Item::Waiting) {
        QueueItem gone = page.desk.pending.front();
        page.desk.pending.clear();
        if (row.item == Item::DecidedHere) {
            gone.state = ItemState::Decided;
            gone.decision = protocol::Decision {};
            gone.decision->decidedBy = "human:alice";
            page.items.remember(gone, Start + 1000);
        }
    }
    PageRequest r = request(M::Post, ReviewPath, body);
    present(r, d.token, d.key, QByteArray::fromStdString(d.csrf));
    const PageReply reply = page.run(r);
    QCOMPARE(reply.status, row.status);
    QCOMPARE(page.desk.reviews, row.reachesDesk ? 1 : 0);
    const Json answer = Json::parse(reply.body.toStdString(), nullptr, false);
    if (row.status != 200) {
        QCOMPARE(answer.value("error", std::string()), row.error.toStdString());
        if (row.item == Item::DecidedHere) {
            QCOMPARE(answer.value("decided_by", std::string()), std::string("human:alice"));
            QCOMPARE(answer.value("state", std::string()), std::string("decided"));
        }
        return;
    }
    QCOMPARE(answer.value("outcome", std::string()), std::string(row.team ? "sent" : "decided"));
    // In team mode the answer waits for the database's word, for this reviewer.
    QCOMPARE(reply.settles, row.team ? ItemId.toStdString() : std::string());
    QCOMPARE(reply.settlesFor, row.team ? std::string("owner") : std::string());
}

void TestWebControllers::trustedHeader_data()
{
    QTest::addColumn<QString>("peer");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<bool>("team");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("error");
    const HeaderList secret { { "X-Holdpoint-Proxy-Secret", ProxySecret } };
    const auto with = [&](HeaderList h, bool proven = true) {
        if (proven)
            h += secret;
        return h;
    };
    QTest::newRow("the proxy, with its secret")
        << QStringLiteral("127.0.0.1") << with({ { ProxyHeader, "owner" } }) << false << 200
        << QByteArray();
    QTest::newRow("401 the proxy's address without the secret")
        << QStringLiteral("127.0.0.1") << with({ { ProxyHeader, "owner" } }, false) << false << 401
        << QByteArray("no_session");
    QTest::newRow("401 a wrong secret")
        << QStringLiteral("127.0.0.1")
        << HeaderList { { ProxyHeader, "owner" }, { "X-Holdpoint-Proxy-Secret", "guess" } } << false
        << 401 << QByteArray("no_session");
    QTest::newRow("401 a peer not listed")
        << QStringLiteral("10.0.0.5") << with({ { ProxyHeader, "owner" } }) << false << 401
        << QByteArray("no_session");
    QTest::newRow("401 the name header twice")
        << QStringLiteral("127.0.0.1")
        << with({ { ProxyHeader, "owner" }, { ProxyHeader, "mallory" } }) << false << 401
        << QByteArray("no_session");
    QTest::newRow("401 a name the console does not know")
        << QStringLiteral("127.0.0.1") << with({ { ProxyHeader, "mallory" } }) << false << 401
        << QByteArray("no_session");
    QTest::newRow("401 not a reviewer name")
        << QStringLiteral("127.0.0.1") << with({ { ProxyHeader, "own er" } }) << false << 401
        << QByteArray("no_session");
    QTest::newRow("403 team: a name the database does not map")
        << QStringLiteral("127.0.0.1") << with({ { ProxyHeader, "mallory" } }) << true << 403
        << QByteArray("not_a_reviewer");
}

void TestWebControllers::trustedHeader()
{
    QFETCH(QString, peer);
    QFETCH(HeaderList, headers);
    QFETCH(bool, team);
    QFETCH(int, status);
    QFETCH(QByteArray, error);
    Page page(TrustedHeader { ProxyHeader, { QHostAddress::LocalHost }, ProxySecret });
    page.desk.teamMode = team;
    PageRequest r = request(M::Get, QStringLiteral("/api/me"));
    r.peer = QHostAddress(peer);
    setHeaders(r, headers);
    const PageReply reply = page.run(r);
    QCOMPARE(reply.status, status);
    const Json answer = Json::parse(reply.body.toStdString(), nullptr, false);
    if (status != 200) {
        QCOMPARE(answer.value("error", std::string()), error.toStdString());
        return;
    }
    QCOMPARE(answer.value("reviewer", std::string()), std::string("owner"));
    QCOMPARE(answer.value("via", std::string()), std::string("web (X-Remote-User from 127.0.0.1)"));
    QCOMPARE(answer.value("session", std::string("-")), std::string());
}

void TestWebControllers::liveFeedFirstMessage_data()
{
    QTest::addColumn<QByteArray>("message"); // KEY: the device's key, OTHER: another device's
    QTest::addColumn<bool>("proves");
    QTest::newRow("the device key") << QByteArray(R"({"type":"hello","device":"KEY"})") << true;
    QTest::newRow("another device's key")
        << QByteArray(R"({"type":"hello","device":"OTHER"})") << false;
    QTest::newRow("a key never made here")
        << QByteArray(R"({"type":"hello","device":"x"})") << false;
    QTest::newRow("no key") << QByteArray(R"({"type":"hello"})") << false;
    QTest::newRow("a ping first") << QByteArray(R"({"type":"ping"})") << false;
    QTest::newRow("the key alone") << QByteArray("KEY") << false;
}

void TestWebControllers::liveFeedFirstMessage()
{
    QFETCH(QByteArray, message);
    QFETCH(bool, proves);
    Page page;
    const PairedDevice own = page.pair();
    const PairedDevice other = page.pair();
    // Admitted on its cookie alone, as a browser's upgrade is.
    PageRequest upgrade = request(M::Get, QStringLiteral("/api/live"));
    present(upgrade, own.token, {});
    const auto who = page.pairing.lookup(upgrade, true).caller;
    QVERIFY(who);
    const LiveFeedController::Opened opened = page.feed.open(*who);
    // Sent nothing, counted for nothing, until its first message.
    QVERIFY(!opened.first);
    QVERIFY(page.feed.awaitingKey(opened.id));
    QVERIFY(page.feed.everyone().empty());
    QCOMPARE(page.sessions.openPages(own.id), 0);

    message.replace("OTHER", other.key).replace("KEY", own.key);
    const LiveFeedController::Heard heard = page.feed.heard(opened.id, message.toStdString());
    if (!proves) {
        // Closed (1008) by the transport, recorded, and sent nothing.
        QVERIFY(heard.kind == LiveFeedController::Heard::Kind::Refused);
        QVERIFY(heard.first.empty());
        QVERIFY(heard.logged.contains(QStringLiteral("a session's cookie without its device key")));
        QVERIFY(!heard.logged.contains(QString::fromLatin1(own.key)));
        QVERIFY(page.feed.everyone().empty());
        QCOMPARE(page.sessions.openPages(own.id), 0);
        return;
    }
    QVERIFY(heard.kind == LiveFeedController::Heard::Kind::Proven);
    const Json first = Json::parse(heard.first, nullptr, false);
    QCOMPARE(first.value("type", std::string()), std::string("snapshot"));
    QCOMPARE(first["items"].size(), std::size_t(1));
    QCOMPARE(first["items"][0].value("id", std::string()), ItemId.toStdString());
    QVERIFY(!page.feed.awaitingKey(opened.id));
    QCOMPARE(page.feed.everyone(), std::vector<LiveFeedController::Id> { opened.id });
    QCOMPARE(page.sessions.openPages(own.id), 1);
    // Later messages are pings: nothing to do, and a second hello proves nothing more.
    QVERIFY(page.feed.heard(opened.id, message.toStdString()).kind
        == LiveFeedController::Heard::Kind::Nothing);
    page.feed.closed(opened.id);
    QCOMPARE(page.sessions.openPages(own.id), 0);
    QVERIFY(page.feed.everyone().empty());
}

void TestWebControllers::liveFeedSendsAndEndsByWhose()
{
    Page page;
    const PairedDevice phone = page.pair();
    const PairedDevice laptop = page.pair();
    const auto deviceFeed = [&page](const PairedDevice &d, bool prove) {
        PageRequest upgrade = request(M::Get, QStringLiteral("/api/live"));
        present(upgrade, d.token, {});
        const LiveFeedController::Id id
            = page.feed.open(*page.pairing.lookup(upgrade, true).caller).id;
        if (prove)
            page.feed.heard(
                id, dumpJson({ { "type", "hello" }, { "device", d.key.toStdString() } }));
        return id;
    };
    const LiveFeedController::Id phonePage = deviceFeed(phone, true);
    const LiveFeedController::Id phoneTab = deviceFeed(phone, true);
    const LiveFeedController::Id laptopPage = deviceFeed(laptop, false);
    // A trusted header's page has no session and needs no key: the snapshot at once.
    const LiveFeedController::Opened proxied
        = page.feed.open(Caller { { "owner", "web (X-Remote-User)", {} }, {}, "csrf", true });
    QVERIFY(proxied.first);

    // A change goes to every page that proved its session, never to one still to.
    QCOMPARE(page.feed.everyone(),
        (std::vector<LiveFeedController::Id> { phonePage, phoneTab, proxied.id }));
    // A refusal to the session whose click it was; a trusted header's to its reviewer's sessionless
    // pages.
    QCOMPARE(page.feed.of(phone.id, "owner"),
        (std::vector<LiveFeedController::Id> { phonePage, phoneTab }));
    QCOMPARE(page.feed.of(laptop.id, "owner"), std::vector<LiveFeedController::Id> {});
    QCOMPARE(page.feed.of({}, "owner"), std::vector<LiveFeedController::Id> { proxied.id });
    QCOMPARE(page.sessions.openPages(phone.id), 2);
    QCOMPARE(page.sessions.openPages(laptop.id), 0);

    // A revoke ends the session's pages, told first when they proved it.
    const auto ended = page.feed.select(
        [&](const LiveFeedController::Feed &f) { return f.sessionId == phone.id; });
    QCOMPARE(ended.size(), std::size_t(2));
    QVERIFY(ended[0].proven && ended[1].proven);
    const auto unproven = page.feed.select(
        [&](const LiveFeedController::Feed &f) { return f.sessionId == laptop.id; });
    QCOMPARE(unproven.size(), std::size_t(1));
    QVERIFY(!unproven[0].proven);
    QVERIFY(page.feed.awaitingKey(laptopPage));
    page.feed.closed(phonePage);
    QCOMPARE(page.sessions.openPages(phone.id), 1);
    page.feed.closed(laptopPage);
    QVERIFY(!page.feed.awaitingKey(laptopPage));
    QCOMPARE(page.feed.size(), std::size_t(2));
}

QTEST_GUILESS_MAIN(TestWebControllers)
#include "tst_webcontrollers.moc"
