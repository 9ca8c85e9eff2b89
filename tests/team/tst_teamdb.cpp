// SPDX-License-Identifier: Apache-2.0
// The team schema and its statements on a real PostgreSQL that the test
// starts itself (tests/common/pgcluster.h): migration, exactly one decision
// per item, claims, deadlines, gateway liveness, roles and byte-exact
// storage. The team audit and TLS: tst_teamdbaudit.cpp.

#include "common/pgcluster.h"
#include "common/sha256.h"
#include "team/teamactivity.h"
#include "team/teamaudit.h"
#include "team/teamdb.h"
#include "team/teamdbfixture.h"

#include <QtTest>

#include <pqxx/pqxx>

#include <atomic>
#include <thread>

using namespace holdpoint;
using namespace holdpoint::team;
using holdpoint::test::PgCluster;
using holdpoint::test::TeamDbFixture;

class tst_TeamDb final : public QObject, public TeamDbFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startCluster(); }
    void init() { newDatabase(); }
    void cleanup() { dropDatabase(); }
    void migratesOnceWhenTenStartTogether();
    void refusesASchemaNewerThanItself();
    void upgradesFromVersionOne();
    void turnFindingsGoOntoPendingItemsOfTheTurn();
    void refusesBadConnectionStrings_data();
    void refusesBadConnectionStrings();
    void escalationIsIdempotent();
    void escalationBatchCommitsAllOrNone();
    void exactlyOneDecisionWhenTwoReviewersRace();
    void claimHoldsOthersOffButNotAHalt();
    void lapsedClaimFreesTheItem();
    void deadlineEndsAnItemExactlyOnce();
    void offlineGatewayItemsEndAfterTheirGrace();
    void withdrawNeverOverridesAReviewer();
    void valuesComeBackByteIdentical_data();
    void valuesComeBackByteIdentical();
    void gatewayRoleMayNotDecide();
};

void tst_TeamDb::migratesOnceWhenTenStartTogether()
{
    std::atomic<int> failures { 0 };
    std::vector<std::thread> threads;
    std::vector<std::string> errors(10);
    for (int i = 0; i < 10; ++i) {
        threads.emplace_back([&, i] {
            try {
                auto c = team::connect(url());
                if (migrate(*c) != SchemaVersion)
                    ++failures;
            } catch (const std::exception &e) {
                errors[i] = e.what();
                ++failures;
            }
        });
    }
    for (auto &t : threads)
        t.join();
    for (const auto &e : errors)
        QVERIFY2(e.empty(), e.c_str());
    QCOMPARE(failures.load(), 0);
    QString out;
    QVERIFY(admin(QStringLiteral("SELECT count(*) FROM holdpoint.schema_version"), &out));
    QCOMPARE(out.trimmed(), QStringLiteral("1"));
    auto c = team::connect(url());
    QCOMPARE(schemaVersion(*c), SchemaVersion);
}

void tst_TeamDb::refusesASchemaNewerThanItself()
{
    open();
    QVERIFY(admin(QStringLiteral("UPDATE holdpoint.schema_version SET version = 99")));
    auto c = team::connect(url());
    try {
        migrate(*c);
        QFAIL("a newer schema was accepted");
    } catch (const TeamError &e) {
        QVERIFY2(std::string(e.what()).find("schema version 99, newer than this holdpoint knows ("
                     + std::to_string(SchemaVersion) + ")")
                != std::string::npos,
            e.what());
        QVERIFY(!e.retryable());
    }
}

void tst_TeamDb::upgradesFromVersionOne()
{
    // A database made by a holdpoint that knew only version 1, with its
    // roles, and a gateway's login.
    QVERIFY(m_pg.psqlFile(m_db, QStringLiteral(HOLDPOINT_SOURCE_DIR "/core/team/schema/v1.sql")));
    QVERIFY(m_pg.psqlFile(m_db, QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/team/v1-grants.sql")));
    QVERIFY(m_pg.psqlFile(m_db, QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/team/roles.sql")));
    QVERIFY(admin(QStringLiteral(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gw_login') THEN "
        "CREATE ROLE gw_login LOGIN IN ROLE holdpoint_gateway; "
        "CREATE ROLE rv_login LOGIN IN ROLE holdpoint_reviewer; END IF; END $$")));
    // The gateway may not upgrade it, and says who may.
    auto gw = team::connect(url(QStringLiteral("gw_login")));
    try {
        migrate(*gw);
        QFAIL("a role that does not own the schema upgraded it");
    } catch (const TeamError &e) {
        QVERIFY2(std::string(e.what()).find(("is version 1 and this holdpoint needs version "
                     + std::to_string(SchemaVersion))
                                                .c_str())
                    != std::string::npos
                && std::string(e.what()).find("holdpoint-ctl team init") != std::string::npos,
            e.what());
    }
    // The owner upgrades it; then the gateway publishes its agents.
    auto owner = team::connect(url());
    QCOMPARE(migrate(*owner), SchemaVersion);
    QCOMPARE(schemaVersion(*owner), SchemaVersion);
    QCOMPARE(migrate(*gw), SchemaVersion);
    heartbeat(*gw, gateway("gw-a"));
    publishAgents(*gw, "gw-a", R"([{"session":"s1","agent":"claude"}])");
    try {
        publishAgents(*gw, "gw-a", R"({"session":"s1"})");
        QFAIL("agents that are not a JSON array were stored");
    } catch (const TeamError &e) {
        QCOMPARE(e.sqlState(), std::string("22023"));
    }
    const auto all = instances(*owner);
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].id, std::string("gw-a"));
    QVERIFY(all[0].online);
    QCOMPARE(Json::parse(all[0].agents)[0]["agent"].get<std::string>(), std::string("claude"));
}

void tst_TeamDb::turnFindingsGoOntoPendingItemsOfTheTurn()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    auto inTurn = [](const std::string &id, const std::string &gw, const char *turn) {
        Escalation e = escalation(id, gw);
        e.turnId = turn;
        return e;
    };
    escalate(*c,
        std::vector { inTurn("t1a", "gw-a", "t1"), inTurn("t1b", "gw-a", "t1"),
            inTurn("t2a", "gw-a", "t2"), inTurn("t1other", "gw-b", "t1") });
    decide(*c, decision("t1b", "console-1", "alice"));
    const std::string findings = R"([{"pattern":"exact_failure","count":3}])";
    // Only gw-a's pending items of session s1, turn t1.
    QCOMPARE(setTurnFindings(*c, "gw-a", "s1", std::string("t1"), findings), 1);
    for (const Row &r : rows(*c, { "t1a", "t1b", "t2a", "t1other" }))
        QCOMPARE(r.turnFindingsText.value_or(std::string("none")),
            r.id == "t1a" ? findings : std::string("none"));
    // An agent's connection: only its own gateway's pending item, only on a change.
    QVERIFY(setAgentConnected(*c, "gw-a", "t1a", false));
    QVERIFY(!setAgentConnected(*c, "gw-a", "t1a", false));
    QVERIFY(!setAgentConnected(*c, "gw-b", "t1a", true));
    QVERIFY(!setAgentConnected(*c, "gw-a", "t1b", false)); // decided
    QCOMPARE(rows(*c, { "t1a" })[0].agentConnected, std::optional<bool>(false));
    QCOMPARE(rows(*c, { "t2a" })[0].agentConnected, std::optional<bool>());
    try {
        setTurnFindings(*c, "gw-a", "s1", std::string("t1"), R"({"not":"an array"})");
        QFAIL("findings that are not a JSON array were stored");
    } catch (const TeamError &e) {
        QCOMPARE(e.sqlState(), std::string("22023"));
    }
}

void tst_TeamDb::refusesBadConnectionStrings_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message");
    QTest::newRow("password keyword") << QStringLiteral("host=/tmp dbname=x password=hunter2")
                                      << QStringLiteral("holds a password");
    QTest::newRow("password in a URI") << QStringLiteral("postgresql://bob:hunter2@localhost/db")
                                       << QStringLiteral("holds a password");
    QTest::newRow("not a connection string") << QStringLiteral("host=") + QChar(u'\'')
                                             << QStringLiteral("not a libpq connection string");
    QTest::newRow("unknown keyword")
        << QStringLiteral("hots=localhost") << QStringLiteral("not a libpq connection string");
}

void tst_TeamDb::refusesBadConnectionStrings()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    try {
        team::connect(url.toStdString());
        QFAIL("accepted");
    } catch (const TeamError &e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
        QVERIFY2(!QString::fromStdString(e.what()).contains(QStringLiteral("hunter2")),
            "the error repeats the password");
    }
}

void tst_TeamDb::escalationIsIdempotent()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    const auto first = escalate(*c, escalation("aaaa"));
    QVERIFY(first.created);
    QCOMPARE(first.state, std::string("pending"));
    const auto again = escalate(*c, escalation("aaaa"));
    QVERIFY(!again.created);
    QCOMPARE(again.state, std::string("pending"));
    // The same id for another call is refused, not merged.
    try {
        escalate(*c, escalation("aaaa", "gw-b"));
        QFAIL("an id taken by another call was accepted");
    } catch (const TeamError &e) {
        QCOMPARE(e.sqlState(), std::string("23505"));
    }
    const auto rows = pendingRows(*c);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].gateway, std::string("gw-a"));
    QCOMPARE(rows[0].host, std::string("host-gw-a"));
    QVERIFY(rows[0].gatewayOnline);
    QVERIFY(rows[0].deadline > rows[0].createdAt + 299'000);
    QString out;
    QVERIFY(admin(
        QStringLiteral("SELECT count(*) FROM holdpoint.audit WHERE event = 'escalated'"), &out));
    QCOMPARE(out.trimmed(), QStringLiteral("1"));
}

void tst_TeamDb::escalationBatchCommitsAllOrNone()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    const auto written
        = escalate(*c, std::vector { escalation("b1"), escalation("b2"), escalation("b3") });
    QCOMPARE(written.size(), std::size_t(3));
    for (const Escalated &e : written) {
        QVERIFY(e.created);
        QCOMPARE(e.state, std::string("pending"));
    }
    // A batch with one item the team refuses (its id taken by another call)
    // writes none of it, not even the good item before the bad one.
    try {
        escalate(*c, std::vector { escalation("b4"), escalation("b2", "gw-b") });
        QFAIL("a batch with a taken id was accepted");
    } catch (const TeamError &e) {
        QCOMPARE(e.sqlState(), std::string("23505"));
        QVERIFY(!e.retryable());
    }
    std::vector<std::string> ids;
    for (const Row &r : pendingRows(*c))
        ids.push_back(r.id);
    QCOMPARE(ids, (std::vector<std::string> { "b1", "b2", "b3" }));
    QString out;
    QVERIFY(admin(
        QStringLiteral("SELECT count(*) FROM holdpoint.audit WHERE event = 'escalated'"), &out));
    QCOMPARE(out.trimmed(), QStringLiteral("3"));
    QCOMPARE(verifyAudit(*c).status, audit::VerifyStatus::Intact);
}

void tst_TeamDb::exactlyOneDecisionWhenTwoReviewersRace()
{
    constexpr int Items = 100;
    {
        auto c = open();
        heartbeat(*c, gateway("gw-a"));
        for (int i = 0; i < Items; ++i)
            escalate(*c, escalation("race" + std::to_string(i)));
    }
    auto alice = open();
    auto bob = open();
    std::vector<Decided> a(Items), b(Items);
    for (int i = 0; i < Items; ++i) {
        const std::string id = "race" + std::to_string(i);
        // Both threads wait for the same go, then decide the same item.
        std::atomic<int> ready { 0 };
        auto racer = [&](pqxx::connection &conn, const std::string &instance,
                         const std::string &name, const std::string &kind, Decided &out) {
            ++ready;
            while (ready.load() < 2) { }
            out = decide(conn, decision(id, instance, name, kind));
        };
        std::thread ta(racer, std::ref(*alice), "console-alice", "alice", "allow", std::ref(a[i]));
        std::thread tb(racer, std::ref(*bob), "console-bob", "bob", "deny", std::ref(b[i]));
        ta.join();
        tb.join();
        const bool aliceWon = a[i].outcome == Decided::Outcome::Decided;
        const bool bobWon = b[i].outcome == Decided::Outcome::Decided;
        QVERIFY2(aliceWon != bobWon, id.c_str());
        const Decided &loser = aliceWon ? b[i] : a[i];
        QCOMPARE(loser.outcome, Decided::Outcome::AlreadyDecided);
        QCOMPARE(loser.decidedBy, aliceWon ? std::string("human:alice") : std::string("human:bob"));
        QVERIFY(loser.decidedAt > 0);
    }
    QString out;
    QVERIFY(admin(QStringLiteral("SELECT count(*), count(DISTINCT line::json->>'item') FROM "
                                 "holdpoint.audit WHERE event = 'decision'"),
        &out));
    QCOMPARE(out.trimmed(), QStringLiteral("%1|%1").arg(Items));
    QVERIFY(admin(
        QStringLiteral("SELECT count(*) FROM holdpoint.items WHERE state = 'decided'"), &out));
    QCOMPARE(out.trimmed(), QString::number(Items));
    QCOMPARE(verifyAudit(*alice).status, audit::VerifyStatus::Intact);
}

void tst_TeamDb::claimHoldsOthersOffButNotAHalt()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    escalate(*c, escalation("clm1"));
    heartbeat(*c, gateway("console-alice"));
    heartbeat(*c, gateway("console-bob"));
    const auto held = claim(*c, "clm1", "console-alice", "alice", 15'000);
    QVERIFY(held.held);
    QCOMPARE(held.holder, std::string("alice"));
    const auto renewed = claim(*c, "clm1", "console-alice", "alice", 15'000);
    QVERIFY(renewed.held);
    QVERIFY(renewed.until >= held.until);

    const auto taken = claim(*c, "clm1", "console-bob", "bob", 15'000);
    QVERIFY(!taken.held);
    QCOMPARE(taken.holder, std::string("alice"));
    const auto row1 = row(*c, "clm1");
    QVERIFY(row1);
    QCOMPARE(row1->claimName, std::string("alice"));

    for (const char *kind : { "allow", "deny", "modify" }) {
        const auto refused = decide(*c, decision("clm1", "console-bob", "bob", kind));
        QCOMPARE(refused.outcome, Decided::Outcome::Claimed);
        QCOMPARE(refused.holder, std::string("alice"));
    }
    const auto halted = decide(*c, decision("clm1", "console-bob", "bob", "halt"));
    QCOMPARE(halted.outcome, Decided::Outcome::Decided);
    QString out;
    // A renewal is not a new claim: one `claimed` line.
    QVERIFY(admin(
        QStringLiteral("SELECT string_agg(event, ',' ORDER BY seq) FROM holdpoint.audit"), &out));
    QCOMPARE(out.trimmed(), QStringLiteral("escalated,claimed,decision"));
}

void tst_TeamDb::lapsedClaimFreesTheItem()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    escalate(*c, escalation("lap1"));
    heartbeat(*c, gateway("console-alice"));
    heartbeat(*c, gateway("console-bob"));
    QVERIFY(claim(*c, "lap1", "console-alice", "alice", 15'000).held);
    // Alice's console died: its lease ran out (the database's clock decides).
    QVERIFY(admin(QStringLiteral(
        "UPDATE holdpoint.items SET claim_until = clock_timestamp() - interval '1 ms'")));
    QVERIFY(claim(*c, "lap1", "console-bob", "bob", 15'000).held);
    QVERIFY(release(*c, "lap1", "console-bob"));
    QVERIFY(!release(*c, "lap1", "console-bob"));
    QCOMPARE(
        decide(*c, decision("lap1", "console-carol", "carol")).outcome, Decided::Outcome::Decided);
}

void tst_TeamDb::deadlineEndsAnItemExactlyOnce()
{
    auto c = open();
    auto other = open();
    heartbeat(*c, gateway("gw-a"));
    escalate(*c, escalation("dl1", "gw-a", {}, 0));
    escalate(*c, escalation("dl2", "gw-a", {}, 300'000));
    std::vector<std::string> first, second;
    std::thread t([&] { second = expireDue(*other, "console-b"); });
    first = expireDue(*c, "console-a");
    t.join();
    QCOMPARE(first.size() + second.size(), std::size_t(1));
    QCOMPARE(expireDue(*c, "console-a").size(), std::size_t(0));
    const auto ended = row(*c, "dl1");
    QCOMPARE(ended->state, std::string("timed_out"));
    QCOMPARE(ended->decision, std::string("deny"));
    QCOMPARE(ended->code, std::string("timeout"));
    const auto late = decide(*c, decision("dl1", "console-a", "alice"));
    QCOMPARE(late.outcome, Decided::Outcome::AlreadyDecided);
    QCOMPARE(late.state, std::string("timed_out"));
    QCOMPARE(row(*c, "dl2")->state, std::string("pending"));
    QString out;
    QVERIFY(admin(
        QStringLiteral("SELECT count(*) FROM holdpoint.audit WHERE event = 'decision'"), &out));
    QCOMPARE(out.trimmed(), QStringLiteral("1"));
}

void tst_TeamDb::offlineGatewayItemsEndAfterTheirGrace()
{
    auto c = open();
    Instance gw = gateway("gw-a");
    gw.graceMs = 30'000;
    heartbeat(*c, gw);
    escalate(*c, escalation("off1"));
    QVERIFY(pendingRows(*c).at(0).gatewayOnline);
    // Stale (older than 10 s) but within its grace: shown offline, kept.
    QVERIFY(admin(QStringLiteral(
        "UPDATE holdpoint.instances SET heartbeat_at = clock_timestamp() - interval '20 s'")));
    QVERIFY(!pendingRows(*c).at(0).gatewayOnline);
    QCOMPARE(expireDue(*c, "console-a").size(), std::size_t(0));
    // Past stale + grace: abandoned, a deny.
    QVERIFY(admin(QStringLiteral(
        "UPDATE holdpoint.instances SET heartbeat_at = clock_timestamp() - interval '41 s'")));
    QCOMPARE(expireDue(*c, "console-a"), std::vector<std::string> { "off1" });
    const auto ended = row(*c, "off1");
    QCOMPARE(ended->state, std::string("abandoned"));
    QCOMPARE(ended->decision, std::string("deny"));
    QCOMPARE(ended->code, std::string("abandoned"));
    // A heartbeat after that changes nothing for the ended item.
    heartbeat(*c, gw);
    QCOMPARE(row(*c, "off1")->state, std::string("abandoned"));
}

void tst_TeamDb::withdrawNeverOverridesAReviewer()
{
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    escalate(*c, escalation("wd1"));
    escalate(*c, escalation("wd2"));
    QCOMPARE(decide(*c, decision("wd1", "console-a", "alice")).outcome, Decided::Outcome::Decided);
    Withdraw w { "wd1", "gw-a", "cancelled", "cancelled", "the agent cancelled", "agent" };
    auto result = withdraw(*c, w);
    QVERIFY(!result.withdrawn);
    QCOMPARE(result.state, std::string("decided"));
    // Only the gateway that holds the agent withdraws its item.
    w.id = "wd2";
    heartbeat(*c, gateway("gw-b"));
    w.gateway = "gw-b";
    QVERIFY(!withdraw(*c, w).withdrawn);
    w.gateway = "gw-a";
    result = withdraw(*c, w);
    QVERIFY(result.withdrawn);
    QCOMPARE(row(*c, "wd2")->decision, std::string("deny"));
    w.state = "decided";
    try {
        withdraw(*c, w);
        QFAIL("a gateway ended an item as decided");
    } catch (const TeamError &e) {
        QCOMPARE(e.sqlState(), std::string("22023"));
    }
}

void tst_TeamDb::valuesComeBackByteIdentical_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("quotes and dollars")
        << QByteArray(R"("it's $$ $1 '; DROP TABLE holdpoint.items; --" )");
    QTest::newRow("backslashes") << QByteArray(R"("C:\\temp\\x \\\" \\\\ \\n")");
    QTest::newRow("NUL escape") << QByteArray(R"("a\u0000b")");
    // (A lone surrogate never gets this far: the protocol's parser refuses it.)
    QTest::newRow("surrogate pairs and byte escapes")
        << QByteArray(R"(["\ud83d\ude00", "\\xff\\xfe", "\uffff", "\udbff\udfff"])");
    QTest::newRow("control characters") << QByteArray(R"("\u0001\u001f\t\r\n")");
    QTest::newRow("array literal syntax") << QByteArray(R"("{\"a\",\"b\"}")");
    QTest::newRow("non-ASCII") << QByteArray("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    QByteArray deep;
    for (int i = 0; i < 62; ++i)
        deep += "{\"k\":";
    deep += "\"bottom\"";
    for (int i = 0; i < 62; ++i)
        deep += '}';
    QTest::newRow("nested 64 deep with the item") << deep;
    QByteArray big = "\"";
    while (big.size() < (1 << 20))
        big += "x'\\\\\\\"$$"; // x ' \\ \" $ $ inside the JSON string
    big += '"';
    QTest::newRow("1 MiB") << big;
}

void tst_TeamDb::valuesComeBackByteIdentical()
{
    QFETCH(QByteArray, value);
    const Json parsed = Json::parse(value.toStdString());
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    Escalation e = escalation("byte1");
    e.item["args"] = Json { { "v", parsed } };
    e.sessionId = "s'$$\\";
    e.callId = value.left(200).toStdString();
    e.audit["args"] = Json { { "v", parsed } };
    escalate(*c, e);
    const auto stored = row(*c, "byte1");
    QVERIFY(stored);
    QCOMPARE(stored->itemText, dumpJson(e.item));
    QCOMPARE(stored->callId, e.callId);
    QCOMPARE(stored->sessionId, e.sessionId);
    QCOMPARE(Json::parse(stored->itemText)["args"]["v"], parsed);

    Decide d = decision("byte1", "console-a", "alice", "modify");
    d.args = Json { { "v", parsed } };
    d.reason = value.left(4096).toStdString();
    QCOMPARE(decide(*c, d).outcome, Decided::Outcome::Decided);
    const auto decided = row(*c, "byte1");
    // The review the database wrote: the action, the args as sent, the reason.
    QCOMPARE(decided->reviewText,
        dumpJson(Json { { "action", "edit" }, { "args", d.args }, { "reason", d.reason } }));
    QCOMPARE(decided->reason, d.reason);

    // The audit lines hold the fields as serialised, and the chain holds.
    std::vector<std::string> lines;
    audit::Filter all;
    queryAudit(*c, all, 0, [&](std::string_view line, const Json &) {
        lines.emplace_back(line);
        return true;
    });
    QCOMPARE(lines.size(), std::size_t(2));
    QVERIFY(lines[0].find(dumpJson(d.args)) != std::string::npos);
    QVERIFY(lines[1].find(dumpJson(e.audit["args"])) != std::string::npos);
    QCOMPARE(verifyAudit(*c).status, audit::VerifyStatus::Intact);
}

void tst_TeamDb::gatewayRoleMayNotDecide()
{
    open(); // the owner creates the schema
    QVERIFY(m_pg.psqlFile(m_db, QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/team/roles.sql")));
    QVERIFY(admin(QStringLiteral(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gw_login') THEN "
        "CREATE ROLE gw_login LOGIN IN ROLE holdpoint_gateway; "
        "CREATE ROLE rv_login LOGIN IN ROLE holdpoint_reviewer; END IF; END $$")));
    auto gw = open(QStringLiteral("gw_login"));
    heartbeat(*gw, gateway("gw-a"));
    escalate(*gw, escalation("role1"));
    QCOMPARE(pendingRows(*gw).size(), std::size_t(1));
    try {
        decide(*gw, decision("role1", "gw-a", "mallory"));
        QFAIL("the gateway role decided");
    } catch (const TeamError &e) {
        QVERIFY2(e.sqlState() == "42501", e.what());
        QVERIFY2(std::string(e.what()).find("roles.sql") != std::string::npos, e.what());
    }
    try {
        pqxx::nontransaction tx(*gw);
        tx.exec("UPDATE holdpoint.items SET state = 'decided', decision = 'allow'");
        QFAIL("the gateway role wrote the table");
    } catch (const pqxx::insufficient_privilege &) { }
    try {
        pqxx::nontransaction tx(*gw);
        tx.exec("SELECT holdpoint.audit_append('decision', 'x', '{}')");
        QFAIL("the gateway role appended to the chain directly");
    } catch (const pqxx::insufficient_privilege &) { }
    QVERIFY(
        admin(PgCluster::mapReviewersSql(QStringLiteral("rv_login"), { QStringLiteral("rita") })));
    auto rv = open(QStringLiteral("rv_login"));
    QCOMPARE(
        decide(*rv, decision("role1", "console-r", "rita")).outcome, Decided::Outcome::Decided);
    QCOMPARE(row(*gw, "role1")->decidedBy, std::string("human:rita"));
    // A migration by a role that may not create the schema says what to do.
    QVERIFY(m_pg.createDatabase(m_db + QStringLiteral("_empty")));
    try {
        auto c = team::connect(
            m_pg.connString(m_db + QStringLiteral("_empty"), QStringLiteral("gw_login"))
                .toStdString());
        QVERIFY(admin(QStringLiteral("REVOKE CREATE ON DATABASE %1_empty FROM PUBLIC").arg(m_db)));
        migrate(*c);
        QFAIL("a role without CREATE made the schema");
    } catch (const TeamError &e) {
        QVERIFY2(
            std::string(e.what()).find("holdpoint-ctl team init") != std::string::npos, e.what());
    }
    m_pg.dropDatabase(m_db + QStringLiteral("_empty"));
}

QTEST_GUILESS_MAIN(tst_TeamDb)
#include "tst_teamdb.moc"
