// SPDX-License-Identifier: Apache-2.0
// One headless web instance serves the whole team's queue (core/web/WEB.md):
// real `holdpoint --team` gateways with their agents, a real headless
// console with --web under a PostgreSQL login of its own, on a PostgreSQL
// the test starts itself. The page's decisions reach agents on other hosts,
// as the reviewer each web session or trusted header names; the database
// still decides which names that login may speak for.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "web/webclient.h"

#include <QTcpServer>
#include <QtTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

constexpr char Policy[] = R"({"default": "ask"})";

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

class tst_TeamWeb final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theWebInstanceDecidesForTwoGateways();
    void onlyAnEnabledMappedReviewerUsesThePage();
    void twoPeopleApproveFromThePageAndTheirOwnLogins();
    // Last: it stops the database and starts it again.
    void theDatabaseAwayAdmitsNobodyAndRevokesNothing();

private:
    CtlResult ownerCtl(const QStringList &args) const
    {
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
            QStringList { QStringLiteral("--team"), m_url } + args);
        return finish(p);
    }
    std::unique_ptr<TestSocket> agentOn(
        const ConsoleProcess &gateway, const std::string &name) const
    {
        auto s = std::make_unique<TestSocket>();
        if (!s->hello(gateway.info().url, gateway.info().agentToken.toStdString(), "agent",
                  std::nullopt, name)
                 .is_object())
            return nullptr;
        return s;
    }

    // The web instance's command line: web_login's console for `reviewer`,
    // serving the page on `port` behind the SSO proxy that asProxy() plays.
    QStringList webInstance(const char *reviewer, quint16 port) const
    {
        return { QStringLiteral("--team"),
            m_pg.connString(QStringLiteral("web"), QStringLiteral("web_login")),
            QStringLiteral("--reviewer"), QLatin1String(reviewer), QStringLiteral("--policy"),
            m_policy, QStringLiteral("--web"), QStringLiteral("127.0.0.1:%1").arg(port),
            QStringLiteral("--web-auth-header"), QStringLiteral("X-Forwarded-User"),
            QStringLiteral("--web-trusted-proxy"), QStringLiteral("127.0.0.1"),
            QStringLiteral("--web-proxy-secret-file"), m_secretFile };
    }

    // What the SSO proxy in front sends: the reviewer's name and its secret.
    static Headers asProxy(const QByteArray &name)
    {
        return { { "X-Forwarded-User", name }, { "X-Holdpoint-Proxy-Secret", ProxySecret } };
    }
    static constexpr char ProxySecret[] = "the-proxy-and-holdpoint-share-this";

    PgCluster m_pg;
    QTemporaryDir m_dir;
    QString m_policy;
    QString m_secretFile;
    QString m_url;
};

void tst_TeamWeb::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
    m_policy = m_dir.path() + QStringLiteral("/policy.json");
    QFile f(m_policy);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(Policy) > 0 && f.flush());
    m_secretFile = m_dir.path() + QStringLiteral("/proxy.secret");
    QFile secret(m_secretFile);
    QVERIFY(secret.open(QIODevice::WriteOnly) && secret.write(ProxySecret) > 0 && secret.flush());
    QVERIFY(secret.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    QVERIFY2(m_pg.createDatabase(QStringLiteral("web")), qPrintable(m_pg.lastError()));
    m_url = m_pg.connString(QStringLiteral("web"));
    const CtlResult init = ownerCtl({ QStringLiteral("team"), QStringLiteral("init"), m_url });
    QVERIFY2(init.exitCode == 0, init.err.constData());
    QVERIFY(m_pg.psqlFile(
        QStringLiteral("web"), QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/team/roles.sql")));
    QVERIFY2(m_pg.psql(QStringLiteral("web"),
                 QStringLiteral("CREATE ROLE web_login LOGIN IN ROLE holdpoint_reviewer")),
        qPrintable(m_pg.lastError()));
    // The web instance's login may decide as alice and as bob, nobody else.
    for (const char *name : { "alice", "bob" }) {
        const CtlResult add
            = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"), QStringLiteral("add"),
                QLatin1String(name), QStringLiteral("--role"), QStringLiteral("web_login") });
        QVERIFY2(add.exitCode == 0, add.err.constData());
    }
}

void tst_TeamWeb::theWebInstanceDecidesForTwoGateways()
{
    const QStringList gateway { QStringLiteral("--team"), m_url, QStringLiteral("--policy"),
        m_policy };
    ConsoleProcess ci(gateway), server(gateway);
    QVERIFY(ci.ready());
    QVERIFY(server.ready());
    const quint16 port = freePort();
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(port);
    ConsoleProcess web(webInstance("alice", port));
    QVERIFY(web.ready());
    // The page admits nobody until the database has said whom its login may act as.
    QTRY_COMPARE_WITH_TIMEOUT(http(port, "GET", "/api/me", {}, asProxy("bob")).status, 200, WaitMs);

    // alice pairs a phone with the web instance; bob comes through the SSO proxy.
    const CtlResult pair
        = web.ctl({ QStringLiteral("web"), QStringLiteral("pair"), QStringLiteral("--no-qr") });
    QVERIFY2(pair.exitCode == 0, pair.err.constData());
    const QByteArray link = pair.out.trimmed().split('\n').last();
    const HttpReply paired = http(port, "POST", "/api/pair",
        QByteArray::fromStdString(
            dumpJson({ { "code", link.mid(link.indexOf('#') + 1).toStdString() } })),
        { { "Origin", origin } });
    QCOMPARE(paired.status, 200);
    QCOMPARE(paired.json()["reviewer"], "alice");
    const Device alice = deviceFrom(paired);
    const Json aliceMe = http(port, "GET", "/api/me", {}, alice.headers()).json();
    QCOMPARE(aliceMe["team"], true);
    const Json bobMe = http(port, "GET", "/api/me", {}, asProxy("bob")).json();
    QCOMPARE(bobMe["reviewer"], "bob");

    LiveFeed feed(port, origin, alice);
    QVERIFY(feed.connected());
    QVERIFY(feed.next("snapshot").is_object());
    auto ciAgent = agentOn(ci, "ci-agent");
    auto serverAgent = agentOn(server, "ops-agent");
    QVERIFY(ciAgent && serverAgent);
    ciAgent->send({ { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", "write_file" },
        { "args", { { "path", "/srv/ci/out" } } } });
    serverAgent->send({ { "type", "tool_call" }, { "call_id", "s1" }, { "tool_name", "restart" },
        { "args", { { "unit", "nginx" } } } });

    // The page's queue shows both gateways' calls.
    Json items;
    QTRY_VERIFY_WITH_TIMEOUT(
        (items = http(port, "GET", "/api/items", {}, alice.headers()).json()["items"]).size() == 2,
        WaitMs);
    std::map<std::string, Json> byCall;
    for (const Json &item : items)
        byCall[item["call_id"]] = item;
    QVERIFY(byCall.count("c1") && byCall.count("s1"));
    QVERIFY(byCall["c1"]["team"]["gateway"] != byCall["s1"]["team"]["gateway"]);

    // alice approves the CI call from her phone.
    const auto review = [&](const Headers &who, const QByteArray &csrf, const Json &item,
                            Json body) {
        body["version"] = item["version"];
        Headers h = who;
        h.append({ "Origin", origin });
        h.append({ "X-CSRF-Token", csrf });
        return http(port, "POST", "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
            QByteArray::fromStdString(dumpJson(body)), h);
    };
    const HttpReply approved = review(alice.headers(), QByteArray::fromStdString(aliceMe["csrf"]),
        byCall["c1"], { { "action", "approve" } });
    // The answer waits for the database's: decided, by her.
    QCOMPARE(approved.status, 200);
    QCOMPARE(approved.json()["outcome"], "decided");
    QCOMPARE(approved.json()["decided_by"], "human:alice");
    const Json ciDecision = ciAgent->next("decision");
    QCOMPARE(ciDecision["decision"], "allow");
    QCOMPARE(ciDecision["decided_by"], "human:alice");
    QCOMPARE(feed.next("removed")["id"], byCall["c1"]["id"]);

    // bob denies the other through the proxy's header.
    const HttpReply denied = review(asProxy("bob"), QByteArray::fromStdString(bobMe["csrf"]),
        byCall["s1"], { { "action", "deny" }, { "reason", "not during the release" } });
    QCOMPARE(denied.status, 200);
    const Json serverDecision = serverAgent->next("decision");
    QCOMPARE(serverDecision["decision"], "deny");
    QCOMPARE(serverDecision["reason"], "not during the release");
    QCOMPARE(serverDecision["decided_by"], "human:bob");

    // The team audit names the person and how they came in.
    const CtlResult audit
        = ownerCtl({ QStringLiteral("audit"), QStringLiteral("query"), QStringLiteral("--json") });
    int webDecisions = 0;
    for (const QByteArray &line : audit.out.split('\n')) {
        const Json j = Json::parse(line.toStdString(), nullptr, false);
        if (j.is_object() && j.value("event", std::string()) == "decision"
            && j.value("db_role", std::string()) == "web_login") {
            ++webDecisions;
            QVERIFY(j.value("via", std::string()).rfind("web", 0) == 0);
        }
    }
    QCOMPARE(webDecisions, 2);
    const CtlResult verify = ownerCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, QByteArray(verify.out + verify.err).constData());

    // carol's name through the proxy: the login may not speak for her, so
    // she reads nothing, gets no live feed, and her click is refused in its
    // own answer (and nothing is decided).
    serverAgent->send({ { "type", "tool_call" }, { "call_id", "s2" }, { "tool_name", "restart" },
        { "args", { { "unit", "db" } } } });
    Json added;
    do
        added = feed.next("added");
    while (added.is_object() && added["item"]["call_id"] != "s2");
    QVERIFY(added.is_object());
    const HttpReply carolMe = http(port, "GET", "/api/me", {}, asProxy("carol"));
    QCOMPARE(carolMe.status, 403);
    QCOMPARE(carolMe.error(), "not_a_reviewer");
    LiveFeed carolFeed(port, origin, {}, asProxy("carol"));
    QVERIFY(!carolFeed.connected());
    const HttpReply carol = review(asProxy("carol"), QByteArray::fromStdString(bobMe["csrf"]),
        added["item"], { { "action", "approve" } });
    QCOMPARE(carol.status, 403);
    QVERIFY2(carol.json()["message"].get<std::string>().find("carol") != std::string::npos,
        carol.body.constData());
    // alice, who may decide, then denies it: the only decision the agent gets.
    QTRY_VERIFY_WITH_TIMEOUT(
        http(port, "GET", "/api/items", {}, alice.headers()).json()["items"].size() == 1, WaitMs);
    const Json again = http(port, "GET", "/api/items", {}, alice.headers()).json()["items"][0];
    QCOMPARE(review(alice.headers(), QByteArray::fromStdString(aliceMe["csrf"]), again,
                 { { "action", "deny" }, { "reason", "after carol" } })
                 .status,
        200);
    const Json last = serverAgent->next("decision");
    QCOMPARE(last["call_id"], "s2");
    QCOMPARE(last["decided_by"], "human:alice");
}

// A call that needs two people: alice approves on the page; bob, on the
// same page, is the same database login, which counts as one person (TEAM.md
// "Reviewers"); frank, under his own login, completes it from holdpoint-ctl.
void tst_TeamWeb::twoPeopleApproveFromThePageAndTheirOwnLogins()
{
    const QString policy = m_dir.path() + QStringLiteral("/two.json");
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly)
        && f.write(
               R"({"default": "allow", "guardrails": [{"type": "rules", "name": "gates", "rules": [
            {"match": "deploy", "action": "ask", "approvals": {"required": 2}}]}]})")
            > 0
        && f.flush());
    QVERIFY2(m_pg.psql(QStringLiteral("web"),
                 QStringLiteral("CREATE ROLE frank_login LOGIN IN ROLE holdpoint_reviewer")),
        qPrintable(m_pg.lastError()));
    const CtlResult add
        = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"), QStringLiteral("add"),
            QStringLiteral("frank"), QStringLiteral("--role"), QStringLiteral("frank_login") });
    QVERIFY2(add.exitCode == 0, add.err.constData());
    ConsoleProcess gateway({ QStringLiteral("--team"), m_url, QStringLiteral("--policy"), policy });
    QVERIFY(gateway.ready());
    const quint16 port = freePort();
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(port);
    ConsoleProcess web(webInstance("alice", port));
    QVERIFY(web.ready());
    QTRY_COMPARE_WITH_TIMEOUT(
        http(port, "GET", "/api/me", {}, asProxy("alice")).status, 200, WaitMs);
    auto agent = agentOn(gateway, "deployer");
    QVERIFY(agent);
    agent->send({ { "type", "tool_call" }, { "call_id", "two-people" }, { "tool_name", "deploy" },
        { "args", { { "target", "prod" } } } });
    const auto item = [&] {
        const Json items = http(port, "GET", "/api/items", {}, asProxy("alice")).json()["items"];
        for (const Json &i : items)
            if (i.value("call_id", std::string()) == "two-people")
                return i;
        return Json();
    };
    QTRY_VERIFY_WITH_TIMEOUT(item().is_object(), WaitMs);
    const auto approve = [&](const QByteArray &who) {
        const Json me = http(port, "GET", "/api/me", {}, asProxy(who)).json();
        Headers h = asProxy(who);
        h.append({ "Origin", origin });
        h.append({ "X-CSRF-Token", QByteArray::fromStdString(me["csrf"]) });
        const Json shown = item();
        return http(port, "POST",
            "/api/items/" + QByteArray::fromStdString(shown["id"]) + "/review",
            QByteArray::fromStdString(
                dumpJson({ { "action", "approve" }, { "version", shown["version"] } })),
            h);
    };
    const HttpReply alice = approve("alice");
    QCOMPARE(alice.status, 200);
    QVERIFY2(alice.json()["outcome"] == "voted", alice.body.constData());
    QCOMPARE(alice.json()["approvals"], 1);
    const HttpReply bob = approve("bob");
    QCOMPARE(bob.status, 422);
    QVERIFY2(bob.json()["message"].get<std::string>().find("one login counts as one person")
            != std::string::npos,
        bob.body.constData());
    QVERIFY(agent->noneOf("decision"));
    QProcess ctl;
    ctl.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--team"),
            m_pg.connString(QStringLiteral("web"), QStringLiteral("frank_login")),
            QStringLiteral("approve"), QString::fromStdString(item()["id"]) });
    const CtlResult frank = finish(ctl);
    QVERIFY2(frank.exitCode == 0, frank.err.constData());
    const Json decision = agent->next("decision");
    QCOMPARE(decision["decision"], "allow");
    QCOMPARE(decision["decided_by"], "human:alice,human:frank");
}

void tst_TeamWeb::onlyAnEnabledMappedReviewerUsesThePage()
{
    // dave decides as the web instance's login; erin is a reviewer too, of
    // another login, which this instance may not act for.
    for (const auto &[name, role] :
        { std::pair { "dave", "web_login" }, std::pair { "erin", "other_login" } }) {
        QVERIFY(m_pg.psql(QStringLiteral("web"),
            QStringLiteral("DO $$ BEGIN CREATE ROLE %1 LOGIN IN ROLE holdpoint_reviewer; "
                           "EXCEPTION WHEN duplicate_object THEN NULL; END $$")
                .arg(QLatin1String(role))));
        const CtlResult add
            = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"), QStringLiteral("add"),
                QLatin1String(name), QStringLiteral("--role"), QLatin1String(role) });
        QVERIFY2(add.exitCode == 0, add.err.constData());
    }
    ConsoleProcess gateway(
        { QStringLiteral("--team"), m_url, QStringLiteral("--policy"), m_policy });
    QVERIFY(gateway.ready());
    const quint16 port = freePort();
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(port);
    ConsoleProcess web(webInstance("dave", port));
    QVERIFY(web.ready());
    QTRY_COMPARE_WITH_TIMEOUT(
        http(port, "GET", "/api/me", {}, asProxy("dave")).status, 200, WaitMs);

    // dave's phone, paired with `web pair`, reads the team's queue.
    const CtlResult pair
        = web.ctl({ QStringLiteral("web"), QStringLiteral("pair"), QStringLiteral("--no-qr") });
    QVERIFY2(pair.exitCode == 0, pair.err.constData());
    const QByteArray link = pair.out.trimmed().split('\n').last();
    const HttpReply paired = http(port, "POST", "/api/pair",
        QByteArray::fromStdString(
            dumpJson({ { "code", link.mid(link.indexOf('#') + 1).toStdString() } })),
        { { "Origin", origin } });
    QCOMPARE(paired.status, 200);
    QCOMPARE(paired.json()["reviewer"], "dave");
    const Device dave = deviceFrom(paired);
    auto agent = agentOn(gateway, "agent");
    QVERIFY(agent);
    agent->send({ { "type", "tool_call" }, { "call_id", "d1" }, { "tool_name", "write_file" },
        { "args", { { "path", "/srv/d1" } } } });
    Json items;
    QTRY_VERIFY_WITH_TIMEOUT(
        (items = http(port, "GET", "/api/items", {}, dave.headers()).json()["items"]).size() >= 1,
        WaitMs);
    const Json item = items[0];

    // Names the database does not map to this login read nothing: unknown,
    // differently cased, a system user's, another login's reviewer.
    for (const QByteArray &name :
        { QByteArray("mallory"), QByteArray("DAVE"), QByteArray("root"), QByteArray("erin") }) {
        const HttpReply r = http(port, "GET", "/api/items", {}, asProxy(name));
        QCOMPARE(r.status, 403);
        QCOMPARE(r.error(), "not_a_reviewer");
        QVERIFY2(!r.body.contains("/srv/d1"), r.body.constData());
        LiveFeed refused(port, origin, {}, asProxy(name));
        QVERIFY2(!refused.connected(), name.constData());
    }
    // erin's click is refused in its own answer, and decides nothing.
    // Each click carries its caller's own CSRF token, as the page does.
    const auto review = [&](Headers who, const Json &body) {
        who.append({ "Origin", origin });
        const Json me = http(port, "GET", "/api/me", {}, who).json();
        who.append({ "X-CSRF-Token",
            QByteArray::fromStdString(
                me.is_object() ? me.value("csrf", std::string("none")) : "none") });
        Json b = body;
        b["version"] = item["version"];
        return http(port, "POST", "/api/items/" + QByteArray::fromStdString(item["id"]) + "/review",
            QByteArray::fromStdString(dumpJson(b)), who);
    };
    const HttpReply erin = review(asProxy("erin"), { { "action", "approve" } });
    QCOMPARE(erin.status, 403);
    QCOMPARE(erin.error(), "not_a_reviewer");

    // dave is disabled: within seconds his open page is signed out, his
    // phone reads nothing, and no new device is paired for him.
    LiveFeed daveFeed(port, origin, dave);
    QVERIFY(daveFeed.connected());
    QVERIFY(daveFeed.next("snapshot").is_object());
    QElapsedTimer since;
    since.start();
    const CtlResult disable = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"),
        QStringLiteral("disable"), QStringLiteral("dave") });
    QVERIFY2(disable.exitCode == 0, disable.err.constData());
    // A click at once, before this console has read the list again, or
    // just after: either way the refusal is in the click's own answer.
    const HttpReply first = review(asProxy("dave"), { { "action", "approve" } });
    QVERIFY2(first.status == 422 || first.status == 403, first.body.constData());
    QVERIFY2(first.body.contains("dave"), first.body.constData());
    QVERIFY(daveFeed.next("revoked").is_object());
    QVERIFY(daveFeed.waitClosed());
    // Well before the session would have expired, with room for a loaded machine.
    QVERIFY2(since.elapsed() < 30'000, qPrintable(QString::number(since.elapsed())));
    const HttpReply phone = http(port, "GET", "/api/items", {}, dave.headers());
    QCOMPARE(phone.status, 401); // the session ended with the feed
    QVERIFY(!phone.body.contains("/srv/d1"));
    const HttpReply header = http(port, "GET", "/api/items", {}, asProxy("dave"));
    QCOMPARE(header.status, 403);
    const CtlResult again
        = web.ctl({ QStringLiteral("web"), QStringLiteral("pair"), QStringLiteral("--no-qr") });
    QVERIFY2(again.exitCode != 0, again.out.constData());
    QVERIFY2(again.err.contains("dave may not decide"), again.err.constData());
    // His click through the proxy is refused in the HTTP answer.
    const HttpReply click = review(asProxy("dave"), { { "action", "approve" } });
    QCOMPARE(click.status, 403);
    QVERIFY(agent->noneOf("decision"));

    // alice, still enabled and mapped, reads on; dave enabled again does too.
    QCOMPARE(http(port, "GET", "/api/items", {}, asProxy("alice")).status, 200);
    const CtlResult enable
        = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"), QStringLiteral("add"),
            QStringLiteral("dave"), QStringLiteral("--role"), QStringLiteral("web_login") });
    QVERIFY2(enable.exitCode == 0, enable.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(
        http(port, "GET", "/api/items", {}, asProxy("dave")).status, 200, WaitMs);

    // Unmapped from this login (enabled still, for other logins): the same.
    QVERIFY2(m_pg.psql(QStringLiteral("web"),
                 QStringLiteral("DELETE FROM holdpoint.reviewer_logins WHERE login = 'web_login' "
                                "AND name = 'dave'")),
        qPrintable(m_pg.lastError()));
    QTRY_COMPARE_WITH_TIMEOUT(
        http(port, "GET", "/api/items", {}, asProxy("dave")).status, 403, WaitMs);
    QCOMPARE(http(port, "GET", "/api/items", {}, asProxy("alice")).status, 200);
}

void tst_TeamWeb::theDatabaseAwayAdmitsNobodyAndRevokesNothing()
{
    const quint16 port = freePort();
    const QByteArray origin = "http://127.0.0.1:" + QByteArray::number(port);
    ConsoleProcess web({ QStringLiteral("--team"),
        m_pg.connString(QStringLiteral("web"), QStringLiteral("web_login")),
        QStringLiteral("--reviewer"), QStringLiteral("alice"), QStringLiteral("--policy"), m_policy,
        QStringLiteral("--web"), QStringLiteral("127.0.0.1:%1").arg(port) });
    QVERIFY(web.ready());
    // 401 (not 503) once the database has said whom the login acts as.
    QTRY_COMPARE_WITH_TIMEOUT(http(port, "GET", "/api/me").status, 401, WaitMs);
    const CtlResult pair
        = web.ctl({ QStringLiteral("web"), QStringLiteral("pair"), QStringLiteral("--no-qr") });
    QVERIFY2(pair.exitCode == 0, pair.err.constData());
    const QByteArray link = pair.out.trimmed().split('\n').last();
    // Redeemed once the database has said whom the login may act as (a
    // 503 before that spends nothing).
    HttpReply paired;
    QVERIFY(QTest::qWaitFor(
        [&] {
            paired = http(port, "POST", "/api/pair",
                QByteArray::fromStdString(
                    dumpJson({ { "code", link.mid(link.indexOf('#') + 1).toStdString() } })),
                { { "Origin", origin } });
            return paired.status != 503;
        },
        WaitMs));
    QCOMPARE(paired.status, 200);
    const Device alice = deviceFrom(paired);
    QCOMPARE(http(port, "GET", "/api/items", {}, alice.headers()).status, 200);
    LiveFeed feed(port, origin, alice);
    QVERIFY(feed.connected());
    QVERIFY(feed.next("snapshot").is_object());

    // The database goes: nobody is admitted, the page closes, but it is
    // not signed out, and the session stays.
    QVERIFY2(m_pg.stopImmediate(), qPrintable(m_pg.lastError()));
    QVERIFY(feed.waitClosed(3 * WaitMs));
    QVERIFY(feed.noneOf("revoked"));
    QTRY_COMPARE_WITH_TIMEOUT(http(port, "GET", "/api/items", {}, alice.headers()).error(),
        std::string("team_unavailable"), WaitMs);
    LiveFeed refused(port, origin, alice);
    QVERIFY(!refused.connected());

    // Back: the same cookie reads again.
    QVERIFY2(m_pg.startAgain(), qPrintable(m_pg.lastError()));
    QTRY_COMPARE_WITH_TIMEOUT(
        http(port, "GET", "/api/items", {}, alice.headers()).status, 200, 3 * WaitMs);
}

QTEST_GUILESS_MAIN(tst_TeamWeb)
#include "tst_team_web.moc"
