// SPDX-License-Identifier: Apache-2.0
// WEB.md's refusals, a row each, through the gate and the route table the
// page runs (webgate.h), on real device sessions and a fake reviewer desk,
// without a socket. Each row is what an attacker sends (a foreign Host or
// Origin, a cookie without its device key, another session's key or CSRF
// token ...) against a call waiting on the desk; a refusal decides nothing,
// and says what the console records. tst_web, tst_weblocal and the Chromium
// suite send the same over real sockets to a real engine; the controllers'
// own refusals are tst_webcontrollers'.

#include "web/webpage.h"

#include <tuple>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

enum class Setup
{
    Plain,
    Revoked, // the device's session revoked (Devices dialog, web revoke, sign-out)
    Idle, // the device unused for longer than a session lasts
    TeamUnknown, // team mode; the database cannot say now whom this login may act as
    TeamUnmapped, // team mode; the database does not map the device's reviewer to this login
    TeamMapped, // team mode; it does
};

struct GateRow
{
    M method = M::Post;
    QString path = ReviewPath;
    QByteArray host = Host;
    QByteArray origin = Origin; // on a POST
    Half cookie = Half::Own;
    Half key = Half::Own;
    Half csrf = Half::Own; // on a POST
    Setup setup = Setup::Plain;
    qsizetype padTo = 0; // the body padded with spaces to this many bytes
    bool transferEncoding = false;
    int status = 200;
    QByteArray error {};
    QString logged {}; // what the console records; empty: nothing
};

struct UpgradeRow
{
    QString path = QStringLiteral("/api/live");
    QByteArray host = Host;
    QByteArray origin = Origin;
    Half cookie = Half::Own;
    QString refusedFor {}; // empty: admitted
};

} // namespace

Q_DECLARE_METATYPE(GateRow)
Q_DECLARE_METATYPE(UpgradeRow)

class TestWebGate : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void refusals_data();
    void refusals();
    void upgrades_data();
    void upgrades();
    void liveFeedHello_data();
    void liveFeedHello();
    void routeTable();
};

void TestWebGate::refusals_data()
{
    QTest::addColumn<GateRow>("row");
    const QString cookieLog = QStringLiteral("a session's cookie without its device key");
    // The rows that pass: what the refusals below change one thing of.
    QTest::newRow("a review from the paired page") << GateRow {};
    QTest::newRow("the queue, read by the paired page")
        << GateRow { .method = M::Get, .path = QStringLiteral("/api/items") };
    QTest::newRow("the page itself, with no session") << GateRow {
        .method = M::Get, .path = QStringLiteral("/"), .cookie = Half::None, .key = Half::None
    };
    QTest::newRow("the pairing link, with no session") << GateRow {
        .method = M::Get, .path = QStringLiteral("/pair"), .cookie = Half::None, .key = Half::None
    };
    QTest::newRow("localhost names the same page")
        << GateRow { .host = "localhost:8765", .origin = "http://localhost:8765" };
    QTest::newRow("team mode, a mapped reviewer") << GateRow { .setup = Setup::TeamMapped };

    // 421: DNS rebinding, a name that resolves here but is not the page's.
    QTest::newRow("421 foreign Host")
        << GateRow { .host = "evil.example:8765", .status = 421, .error = "bad_host" };
    QTest::newRow("421 another port's Host")
        << GateRow { .host = "127.0.0.1:5173", .status = 421, .error = "bad_host" };
    QTest::newRow("421 no Host") << GateRow { .method = M::Get,
        .path = QStringLiteral("/"),
        .host = "",
        .status = 421,
        .error = "bad_host" };
    // 413 and 400: what the listener refuses first, should it ever reach here.
    QTest::newRow("413 a body over 64 KiB")
        << GateRow { .padTo = 64 * 1024 + 1, .status = 413, .error = "too_large" };
    QTest::newRow("64 KiB exactly") << GateRow { .padTo = 64 * 1024 };
    QTest::newRow("400 Transfer-Encoding")
        << GateRow { .transferEncoding = true, .status = 400, .error = "invalid" };
    // 404 and 405: no route, or another method's.
    QTest::newRow("404 unknown API") << GateRow { .method = M::Get,
        .path = QStringLiteral("/api/secrets"),
        .status = 404,
        .error = "not_found" };
    QTest::newRow("404 a WebSocket path read as a page") << GateRow {
        .method = M::Get, .path = QStringLiteral("/api/live"), .status = 404, .error = "not_found"
    };
    QTest::newRow("404 a file the page does not have") << GateRow {
        .method = M::Get, .path = QStringLiteral("/etc/passwd"), .status = 404, .error = "not_found"
    };
    QTest::newRow("405 GET of a review")
        << GateRow { .method = M::Get, .status = 405, .error = "method_not_allowed" };
    QTest::newRow("405 GET of logout") << GateRow { .method = M::Get,
        .path = QStringLiteral("/api/logout"),
        .status = 405,
        .error = "method_not_allowed" };
    QTest::newRow("405 GET of pair") << GateRow { .method = M::Get,
        .path = QStringLiteral("/api/pair"),
        .status = 405,
        .error = "method_not_allowed" };
    QTest::newRow("405 POST to the queue") << GateRow {
        .path = QStringLiteral("/api/items"), .status = 405, .error = "method_not_allowed"
    };
    QTest::newRow("405 POST to a file") << GateRow {
        .path = QStringLiteral("/index.html"), .status = 405, .error = "method_not_allowed"
    };
    QTest::newRow("405 PUT") << GateRow { .method = M::Other,
        .path = QStringLiteral("/api/me"),
        .status = 405,
        .error = "method_not_allowed" };
    // 403 bad_origin: a state change from another origin, or none.
    QTest::newRow("403 Origin of another port") << GateRow { .origin = "http://127.0.0.1:5173",
        .status = 403,
        .error = "bad_origin",
        .logged
        = QStringLiteral("POST /api/items/a1/review with Origin \"http://127.0.0.1:5173\"") };
    QTest::newRow("403 Origin https of the same host")
        << GateRow { .origin = "https://127.0.0.1:8765",
               .status = 403,
               .error = "bad_origin",
               .logged = QStringLiteral("with Origin") };
    QTest::newRow("403 Origin null") << GateRow { .origin = "null",
        .status = 403,
        .error = "bad_origin",
        .logged = QStringLiteral("with Origin \"null\"") };
    QTest::newRow("403 no Origin") << GateRow { .origin = "",
        .status = 403,
        .error = "bad_origin",
        .logged = QStringLiteral("with Origin \"\"") };
    // What the console records is one line of text a person reads: a path
    // and an Origin are the sender's, and may not write a line of their
    // own, clear the terminal or turn the line around (visibletext.h).
    QTest::newRow("403 a path that writes a log line of its own") << GateRow { .path
        = QStringLiteral("/api/items/x\nholdpoint: reviewer page at http://evil.example/review"),
        .origin = "http://evil.example",
        .status = 403,
        .error = "bad_origin",
        .logged = QStringLiteral("POST /api/items/x⟨U+000A⟩holdpoint: reviewer page at") };
    QTest::newRow("403 a path with a terminal escape and a bidi override")
        << GateRow { .path = QStringLiteral("/api/items/x\u001b[2J\t\u202Efdp.exe/review"),
               .origin = "http://evil.example",
               .status = 403,
               .error = "bad_origin",
               .logged = QStringLiteral("x⟨U+001B⟩[2J⟨U+0009⟩⟨U+202E⟩fdp.exe") };
    QTest::newRow("403 an Origin with a line break") << GateRow { .origin
        = "http://evil.example\r\nholdpoint: forged",
        .status = 403,
        .error = "bad_origin",
        .logged = QStringLiteral("with Origin \"http://evil.example⟨U+000D⟩⟨U+000A⟩holdpoint") };
    QTest::newRow("403 no Origin on pair") << GateRow { .path = QStringLiteral("/api/pair"),
        .origin = "",
        .cookie = Half::None,
        .key = Half::None,
        .status = 403,
        .error = "bad_origin",
        .logged = QStringLiteral("POST /api/pair") };
    // 401 no_session: nobody, half a session, or one that ended.
    QTest::newRow("401 no cookie, no key") << GateRow {
        .cookie = Half::None, .key = Half::None, .status = 401, .error = "no_session"
    };
    QTest::newRow("401 cookie without its key")
        << GateRow { .key = Half::None, .status = 401, .error = "no_session", .logged = cookieLog };
    QTest::newRow("401 cookie without its key, reading") << GateRow { .method = M::Get,
        .path = QStringLiteral("/api/me"),
        .key = Half::None,
        .status = 401,
        .error = "no_session",
        .logged = cookieLog };
    QTest::newRow("401 cookie with another device's key") << GateRow {
        .key = Half::Other, .status = 401, .error = "no_session", .logged = cookieLog
    };
    QTest::newRow("401 key without its cookie")
        << GateRow { .cookie = Half::None, .status = 401, .error = "no_session" };
    QTest::newRow("401 a cookie never made here")
        << GateRow { .cookie = Half::Unknown, .status = 401, .error = "no_session" };
    QTest::newRow("401 a revoked session")
        << GateRow { .setup = Setup::Revoked, .status = 401, .error = "no_session" };
    QTest::newRow("401 a session unused for 31 days")
        << GateRow { .setup = Setup::Idle, .status = 401, .error = "no_session" };
    QTest::newRow("401 logout without a session")
        << GateRow { .path = QStringLiteral("/api/logout"),
               .key = Half::None,
               .status = 401,
               .error = "no_session",
               .logged = cookieLog };
    // 403 bad_csrf: a POST without this session's token.
    QTest::newRow("403 no CSRF token")
        << GateRow { .csrf = Half::None, .status = 403, .error = "bad_csrf" };
    QTest::newRow("403 another session's CSRF token")
        << GateRow { .csrf = Half::Other, .status = 403, .error = "bad_csrf" };
    QTest::newRow("403 a made-up CSRF token")
        << GateRow { .csrf = Half::Unknown, .status = 403, .error = "bad_csrf" };
    QTest::newRow("403 logout without the CSRF token")
        << GateRow { .path = QStringLiteral("/api/logout"),
               .csrf = Half::None,
               .status = 403,
               .error = "bad_csrf" };
    // Team mode: the database's word on whom this login may act as.
    QTest::newRow("503 team database silent")
        << GateRow { .setup = Setup::TeamUnknown, .status = 503, .error = "team_unavailable" };
    QTest::newRow("503 team database silent, pairing")
        << GateRow { .path = QStringLiteral("/api/pair"),
               .cookie = Half::None,
               .key = Half::None,
               .setup = Setup::TeamUnknown,
               .status = 503,
               .error = "team_unavailable" };
    QTest::newRow("503 team database silent, reading") << GateRow { .method = M::Get,
        .path = QStringLiteral("/api/items"),
        .setup = Setup::TeamUnknown,
        .status = 503,
        .error = "team_unavailable" };
    QTest::newRow("the page's files while the database is silent") << GateRow { .method = M::Get,
        .path = QStringLiteral("/app.js"),
        .cookie = Half::None,
        .key = Half::None,
        .setup = Setup::TeamUnknown };
    QTest::newRow("403 a reviewer the database does not map")
        << GateRow { .setup = Setup::TeamUnmapped, .status = 403, .error = "not_a_reviewer" };
}

void TestWebGate::refusals()
{
    QFETCH(GateRow, row);
    Page page;
    const PairedDevice own = page.pair();
    const PairedDevice other = page.pair();
    QVERIFY(!own.token.isEmpty() && !other.token.isEmpty());
    switch (row.setup) {
    case Setup::Plain:
        break;
    case Setup::Revoked:
        QVERIFY(page.sessions.revoke(own.id));
        break;
    case Setup::Idle:
        page.clock.advance(WebSessionIdleMs + 24 * 3600'000);
        break;
    case Setup::TeamUnknown:
        page.desk.teamMode = page.desk.unknown = true;
        break;
    case Setup::TeamUnmapped:
        page.desk.teamMode = true;
        page.desk.reviewers.clear();
        break;
    case Setup::TeamMapped:
        page.desk.teamMode = true;
        break;
    }
    QByteArray body = row.path == ReviewPath ? page.reviewBody() : QByteArray("{}");
    if (row.padTo > 0)
        body += QByteArray(row.padTo - body.size(), ' ');
    PageRequest r = request(row.method, row.path, body);
    r.host = row.host;
    if (row.method == M::Post)
        r.origin = row.origin;
    r.transferEncoding = row.transferEncoding;
    const auto half = [&](Half h, const QByteArray &own_, const QByteArray &other_) {
        return h == Half::Own    ? own_
            : h == Half::Other   ? other_
            : h == Half::Unknown ? QByteArray(43, 'A')
                                 : QByteArray();
    };
    present(r, half(row.cookie, own.token, other.token), half(row.key, own.key, other.key),
        row.method == M::Post ? half(
            row.csrf, QByteArray::fromStdString(own.csrf), QByteArray::fromStdString(other.csrf))
                              : QByteArray());

    GateVerdict verdict;
    const PageReply reply = page.run(r, &verdict);
    QCOMPARE(reply.status, row.status);
    if (row.status == 200) {
        QVERIFY(verdict.allowed());
        QVERIFY(reply.logged.isEmpty());
        QCOMPARE(page.desk.reviews, row.path == ReviewPath ? 1 : 0);
        return;
    }
    QCOMPARE(errorOf(reply), row.error.toStdString());
    // Refused by the gate; only a file the page does not have is the files
    // route's own 404.
    if (verdict.allowed())
        QCOMPARE(verdict.route->path, QStringLiteral("*"));
    else
        QVERIFY(!verdict.route);
    // Nothing reached the desk, and what the console records says why.
    QCOMPARE(page.desk.reviews, 0);
    if (row.logged.isEmpty())
        QVERIFY2(reply.logged.isEmpty(), qPrintable(reply.logged));
    else
        QVERIFY2(reply.logged.contains(row.logged), qPrintable(reply.logged));
    for (const char32_t cp : reply.logged.toUcs4()) {
        const QChar::Category c = QChar::category(cp);
        QVERIFY2(c != QChar::Other_Control && c != QChar::Other_Format && c != QChar::Separator_Line
                && c != QChar::Separator_Paragraph,
            qPrintable(reply.logged));
    }
    // The listener keeps a connection that carried a valid session, and
    // only such a one.
    QCOMPARE(verdict.sessionValid, row.error == "bad_csrf");
    // No secret in what is answered or recorded.
    for (const QByteArray &secret : { own.token, own.key, other.token, other.key }) {
        QVERIFY(!reply.body.contains(secret));
        QVERIFY(!reply.logged.contains(QString::fromLatin1(secret)));
    }
    // A team database that cannot say never costs a session.
    if (row.setup == Setup::TeamUnknown)
        QVERIFY(page.sessions.find(own.id));
}

void TestWebGate::upgrades_data()
{
    QTest::addColumn<UpgradeRow>("row");
    QTest::newRow("the paired page's feed") << UpgradeRow {};
    QTest::newRow("403 no WebSocket here") << UpgradeRow { .path = QStringLiteral("/api/items"),
        .refusedFor = QStringLiteral("no WebSocket here") };
    QTest::newRow("403 foreign Host")
        << UpgradeRow { .host = "evil.example:8765", .refusedFor = QStringLiteral("unknown Host") };
    QTest::newRow("403 Origin of another port") << UpgradeRow { .origin = "http://127.0.0.1:5173",
        .refusedFor = QStringLiteral("foreign or missing Origin") };
    QTest::newRow("403 no Origin")
        << UpgradeRow { .origin = "", .refusedFor = QStringLiteral("foreign or missing Origin") };
    QTest::newRow("403 no session")
        << UpgradeRow { .cookie = Half::None, .refusedFor = QStringLiteral("no session") };
    QTest::newRow("403 a cookie never made here")
        << UpgradeRow { .cookie = Half::Unknown, .refusedFor = QStringLiteral("no session") };
}

void TestWebGate::upgrades()
{
    QFETCH(UpgradeRow, row);
    Page page;
    const PairedDevice own = page.pair();
    PageRequest r = request(M::Get, row.path);
    r.host = row.host;
    r.origin = row.origin;
    // A browser cannot put a header on an upgrade: the cookie alone.
    present(r,
        row.cookie == Half::Own           ? own.token
            : row.cookie == Half::Unknown ? QByteArray(43, 'A')
                                          : QByteArray(),
        {});
    const UpgradeVerdict v = gateUpgrade(r, page.rules,
        [&page](const PageRequest &q, bool keyLater) { return page.pairing.lookup(q, keyLater); });
    if (row.refusedFor.isEmpty()) {
        QVERIFY(!v.refusal);
        QVERIFY(v.caller);
        // Admitted on its cookie, and sent nothing until its first message
        // proves the device key.
        QVERIFY(!v.caller->proven);
        QCOMPARE(v.caller->sessionId, own.id);
        return;
    }
    QVERIFY(v.refusal);
    QVERIFY(!v.caller);
    QCOMPARE(v.refusal->status, 403);
    QCOMPARE(v.refusal->logged, QStringLiteral("WebSocket upgrade: ") + row.refusedFor);
}

void TestWebGate::liveFeedHello_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<bool>("proves");
    QTest::newRow("the device key") << QByteArray(R"({"type":"hello","device":"KEY"})") << true;
    QTest::newRow("another key") << QByteArray(R"({"type":"hello","device":"OTHER"})") << false;
    QTest::newRow("no key") << QByteArray(R"({"type":"hello"})") << false;
    QTest::newRow("a key not a string") << QByteArray(R"({"type":"hello","device":5})") << false;
    QTest::newRow("another message first")
        << QByteArray(R"({"type":"ping","device":"KEY"})") << false;
    QTest::newRow("not JSON") << QByteArray("KEY") << false;
    QTest::newRow("not an object") << QByteArray(R"(["hello","KEY"])") << false;
}

void TestWebGate::liveFeedHello()
{
    QFETCH(QByteArray, message);
    QFETCH(bool, proves);
    QCOMPARE(helloProves(message.toStdString(), [](const QByteArray &key) { return key == "KEY"; }),
        proves);
}

void TestWebGate::routeTable()
{
    // The table WEB.md "The API" lists, and what a session each path needs.
    Page page;
    std::vector<std::tuple<M, QString, bool>> listed;
    for (const Route &r : page.routes)
        listed.emplace_back(r.method, r.path, r.needsSession);
    const std::vector<std::tuple<M, QString, bool>> expected {
        { M::Get, QStringLiteral("/api/me"), true },
        { M::Get, QStringLiteral("/api/items"), true },
        { M::Post, QStringLiteral("/api/pair"), false },
        { M::Post, QStringLiteral("/api/logout"), true },
        { M::Post, QStringLiteral("/api/items/{id}/review"), true },
        { M::Get, QStringLiteral("*"), false },
    };
    QVERIFY(listed == expected);
    std::string id;
    QVERIFY(routeMatches(QStringLiteral("/api/items/{id}/review"), ReviewPath, &id));
    QCOMPARE(id, ItemId.toStdString());
    QVERIFY(!routeMatches(
        QStringLiteral("/api/items/{id}/review"), QStringLiteral("/api/items/a1"), &id));
    QVERIFY(routeMatches(QStringLiteral("*"), QStringLiteral("/app.js"), &id));
    QVERIFY(!routeMatches(QStringLiteral("*"), QStringLiteral("/api/app.js"), &id));
}

QTEST_GUILESS_MAIN(TestWebGate)
#include "tst_webgate.moc"
