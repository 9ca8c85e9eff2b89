// SPDX-License-Identifier: Apache-2.0
// Team mode end to end: real `holdpoint --team` processes (gateways and
// reviewer consoles), real agents on their loopback endpoints, and
// holdpoint-ctl, all on one PostgreSQL the test starts itself.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "common/teamdatabase.h"

#include <QtTest>

#include <csignal>
#include <set>

using namespace holdpoint;
using namespace holdpoint::test;

class tst_TeamE2E final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void escalationReachesEveryConsoleAndTheDecisionItsAgent();
    void twoReviewersRaceAndTheLoserIsTold();
    void teamCtlDecidesForAGateway();
    void aGatewayAppliesOnlyWhatTheDatabaseDecided();
    void killedGatewayKeepsItsItemsAndAnswersTheResend();
    void unreachableDatabaseDeniesWithTeamUnavailable();
    void autoDecisionsReachTheTeamAudit();
    void insightsCountTheWholeTeam();
    void secretsStayOutOfTheTeamDatabase();
    void thousandEscalationsConvergeEverywhere();
    void immediateRestartLosesNothing();
    void loopFindingsFollowTheirItems();
    void deadlineEndsACallOnceAcrossTheTeam();
    void agentDisconnectShowsInEveryConsole();

private:
    QStringList teamArgs(const QString &reviewer = {}) const
    {
        return test::teamArgs(m_url, reviewer);
    }
    CtlResult teamCtl(const QStringList &args) const
    {
        return test::teamCtl(m_url, args, QStringLiteral("carol"));
    }
    // The ids `holdpoint-ctl --team URL pending --json` lists.
    QStringList teamPending() const
    {
        QStringList ids;
        const Json items = teamCtl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        if (items.is_array())
            for (const Json &i : items)
                ids << toQString(i.value("id", std::string()));
        return ids;
    }

    // The ids an instance's own queue shows (`holdpoint-ctl pending --json`).
    static QStringList pendingAt(const ConsoleProcess &c)
    {
        QStringList ids;
        const Json items = c.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        if (items.is_array())
            for (const Json &i : items)
                ids << toQString(i.value("id", std::string()));
        ids.sort();
        return ids;
    }
    int auditCount(const char *event)
    {
        QString out;
        if (!m_pg.psql(m_db,
                QStringLiteral("SELECT count(*) FROM holdpoint.audit WHERE event = '%1'")
                    .arg(QLatin1String(event)),
                &out))
            return -1;
        return out.trimmed().toInt();
    }

    PgCluster m_pg;
    QString m_db;
    QString m_url;
    int m_databases = 0;
};

void tst_TeamE2E::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
}

void tst_TeamE2E::init()
{
    m_db = QStringLiteral("e2e%1").arg(++m_databases);
    // One login for every process here, deciding as alice, bob or carol.
    QString error;
    m_url = createTeamDatabase(m_pg, m_db,
        { QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol") }, &error);
    QVERIFY2(!m_url.isEmpty(), qPrintable(error));
}

void tst_TeamE2E::cleanup()
{
    if (!m_pg.isRunning())
        QVERIFY(m_pg.startAgain());
    m_pg.dropDatabase(m_db);
}

void tst_TeamE2E::escalationReachesEveryConsoleAndTheDecisionItsAgent()
{
    ConsoleProcess gatewayA(teamArgs());
    ConsoleProcess gatewayB(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    ConsoleProcess bob(teamArgs(QStringLiteral("bob")));
    QVERIFY(gatewayA.ready() && gatewayB.ready() && alice.ready() && bob.ready());
    auto aliceView = alice.reviewer();
    auto bobView = bob.reviewer();
    QVERIFY(aliceView && bobView);

    auto agent = gatewayA.agent();
    QVERIFY(agent);
    agent->send(toolCall("c1"));
    QVERIFY(agent->next("pending").is_object());

    // Both reviewer consoles show it, with its host and gateway.
    const Json atAlice = aliceView->next("escalated");
    const Json atBob = bobView->next("escalated");
    QVERIFY2(
        atAlice.is_object() && atBob.is_object(), "the escalation did not reach both consoles");
    const std::string itemId = atAlice["item"]["id"];
    QCOMPARE(atBob["item"]["id"].get<std::string>(), itemId);
    QVERIFY(atAlice["item"]["team"]["gateway"].get<std::string>().rfind("gateway-", 0) == 0);
    QCOMPARE(atAlice["item"]["team"]["online"].get<bool>(), true);
    QCOMPARE(teamPending(), QStringList { toQString(itemId) });
    // Every instance mirrors the team queue, gateways too.
    QVERIFY(QTest::qWaitFor(
        [&] {
            return gatewayB.ctl({ QStringLiteral("pending") })
                .out.contains(QByteArray::fromStdString(itemId));
        },
        WaitMs));

    const CtlResult approved = alice.ctl({ QStringLiteral("approve"), toQString(itemId) });
    QVERIFY2(approved.exitCode == 0, approved.err.constData());
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("human:alice"));
    QCOMPARE(decision.value("call_id", std::string()), std::string("c1"));
    QVERIFY(bobView->next("resolved").is_object());
    QVERIFY(teamPending().isEmpty());
    // The gateway copies the delivery to the team's audit, about a second
    // behind, named by the item.
    QVERIFY(QTest::qWaitFor(
        [&] {
            QString out;
            return m_pg.psql(m_db,
                       QStringLiteral("SELECT line FROM holdpoint.audit WHERE event = 'delivered'"),
                       &out)
                && out.contains(QStringLiteral("\"item\":\"%1\"").arg(toQString(itemId)))
                && out.contains(QLatin1String("\"connections\":1"));
        },
        WaitMs));
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void tst_TeamE2E::twoReviewersRaceAndTheLoserIsTold()
{
    ConsoleProcess gateway(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    ConsoleProcess bob(teamArgs(QStringLiteral("bob")));
    QVERIFY(gateway.ready() && alice.ready() && bob.ready());
    auto aliceView = alice.reviewer();
    auto bobView = bob.reviewer();
    auto agent = gateway.agent();
    QVERIFY(aliceView && bobView && agent);
    agent->send(toolCall("race"));
    const std::string id = aliceView->next("escalated")["item"]["id"];
    QVERIFY(bobView->next("escalated").is_object());

    aliceView->send(Json { { "type", "review" }, { "id", id }, { "action", "approve" } });
    bobView->send(
        Json { { "type", "review" }, { "id", id }, { "action", "deny" }, { "reason", "no" } });
    // One is told its decision was made; the other is refused, and only then
    // is it certain that it was told nothing more.
    QVERIFY2(
        QTest::qWaitFor(
            [&] { return !aliceView->noneOf("reviewed") || !bobView->noneOf("reviewed"); }, WaitMs),
        "neither was told their decision was made");
    const bool aliceWon = !aliceView->noneOf("reviewed");
    auto &loser = aliceWon ? bobView : aliceView;
    const Json error = loser->next("error");
    QVERIFY2(loser->noneOf("reviewed"), "both were told their decision was made");
    QCOMPARE(error.value("code", std::string()), std::string("already_resolved"));
    QVERIFY2(error.value("message", std::string()).find("already_decided: decided by human:")
            != std::string::npos,
        error.dump().c_str());
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decided_by", std::string()),
        aliceWon ? std::string("human:alice") : std::string("human:bob"));
    QVERIFY(agent->noneOf("decision"));
}

void tst_TeamE2E::teamCtlDecidesForAGateway()
{
    ConsoleProcess gateway(teamArgs());
    QVERIFY(gateway.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    agent->send(toolCall("d1"));
    QVERIFY(agent->next("pending").is_object());
    QStringList ids;
    QVERIFY(QTest::qWaitFor([&] { return !(ids = teamPending()).isEmpty(); }, WaitMs));
    qputenv("HOLDPOINT_REVIEWER", "carol");
    const CtlResult denied = teamCtl({ QStringLiteral("deny"), ids.first(),
        QStringLiteral("--reason"), QStringLiteral("not today") });
    qunsetenv("HOLDPOINT_REVIEWER");
    QVERIFY2(denied.exitCode == 0, denied.err.constData());
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("deny"));
    QCOMPARE(decision.value("reason", std::string()), std::string("not today"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("human:carol"));
    // Decided is decided: a second answer is refused and says by whom.
    const CtlResult again = teamCtl({ QStringLiteral("approve"), ids.first() });
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("already_decided") && again.err.contains("human:carol"),
        again.err.constData());
}

// A row whose review text says approve while its decision says deny (not
// something schema 5 writes: only a hand in the table could) is never
// applied as an allow: the gateway denies the call.
void tst_TeamE2E::aGatewayAppliesOnlyWhatTheDatabaseDecided()
{
    ConsoleProcess gateway(teamArgs());
    QVERIFY(gateway.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    agent->send(toolCall("m1"));
    QVERIFY(agent->next("pending").is_object());
    QStringList ids;
    QVERIFY(QTest::qWaitFor([&] { return !(ids = teamPending()).isEmpty(); }, WaitMs));
    QVERIFY2(m_pg.psql(m_db,
                 QStringLiteral("UPDATE holdpoint.items SET state = 'decided', decision = 'deny',"
                                " review = '{\"action\":\"approve\"}', decided_by = 'human:carol',"
                                " decided_at = clock_timestamp() WHERE id = '%1';"
                                "SELECT pg_notify('holdpoint', 'decided %1')")
                     .arg(ids.first())),
        qPrintable(m_pg.lastError()));
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("deny"));
    QCOMPARE(decision.value("code", std::string()), std::string("invalid_review"));
}

void tst_TeamE2E::killedGatewayKeepsItsItemsAndAnswersTheResend()
{
    QTemporaryDir dir;
    const QString data = dir.path() + QStringLiteral("/gw");
    std::string id;
    {
        ConsoleProcess gateway(data, teamArgs());
        QVERIFY(gateway.ready());
        auto agent = gateway.agent(std::string("s-kill"));
        QVERIFY(agent);
        agent->send(toolCall("k1"));
        QVERIFY(agent->next("pending").is_object());
        QStringList ids;
        QVERIFY(QTest::qWaitFor([&] { return !(ids = teamPending()).isEmpty(); }, WaitMs));
        id = ids.first().toStdString();
        ::kill(pid_t(gateway.process().processId()), SIGKILL);
        QVERIFY(gateway.process().waitForFinished(WaitMs));
    }
    // The item outlives its gateway, and a reviewer decides it meanwhile.
    QCOMPARE(teamPending(), QStringList { toQString(id) });
    const CtlResult approved = teamCtl({ QStringLiteral("approve"), toQString(id) });
    QVERIFY2(approved.exitCode == 0, approved.err.constData());

    ConsoleProcess again(data, teamArgs());
    QVERIFY(again.ready());
    auto agent = again.agent(std::string("s-kill"));
    QVERIFY(agent);
    agent->send(toolCall("k1"));
    const Json decision = agent->next("decision", 20'000);
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    QVERIFY(decision.value("decided_by", std::string()).rfind("human:", 0) == 0);
}

void tst_TeamE2E::unreachableDatabaseDeniesWithTeamUnavailable()
{
    ConsoleProcess gateway(
        teamArgs() + QStringList { QStringLiteral("--timeout"), QStringLiteral("3") });
    QVERIFY(gateway.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    QVERIFY2(m_pg.stopImmediate(), qPrintable(m_pg.lastError()));
    agent->send(toolCall("u1"));
    QVERIFY(agent->next("pending").is_object());
    const Json decision = agent->next("decision", 20'000);
    QCOMPARE(decision.value("decision", std::string()), std::string("deny"));
    QCOMPARE(decision.value("code", std::string()), std::string("team_unavailable"));
    // Back up: the gateway reconnects on its own and the team learns the
    // item ended; nothing waits there for a reviewer.
    QVERIFY2(m_pg.startAgain(), qPrintable(m_pg.lastError()));
    QVERIFY(QTest::qWaitFor(
        [&] {
            QString out;
            return m_pg.psql(m_db, QStringLiteral("SELECT state FROM holdpoint.items"), &out)
                && out.trimmed() == QStringLiteral("unavailable");
        },
        20'000));
    // And it escalates again.
    agent->send(toolCall("u2"));
    QVERIFY(QTest::qWaitFor([&] { return teamPending().size() == 1; }, 20'000));
}

void tst_TeamE2E::autoDecisionsReachTheTeamAudit()
{
    QTemporaryDir dir;
    const QString policy = writeAutoAllowPolicy(dir.path());
    QVERIFY(!policy.isEmpty());
    ConsoleProcess gateway(teamArgs() + QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(gateway.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    for (int i = 0; i < 5; ++i) {
        agent->send(toolCall("auto" + std::to_string(i), "auto_op"));
        QCOMPARE(agent->next("decision").value("decision", std::string()), std::string("allow"));
    }
    // Copied in batches, about a second behind; the chain still holds.
    QVERIFY(QTest::qWaitFor(
        [&] {
            const CtlResult r = teamCtl({ QStringLiteral("audit"), QStringLiteral("query"),
                QStringLiteral("--decision"), QStringLiteral("allow"), QStringLiteral("--json") });
            return r.exitCode == 0 && r.out.count('\n') == 5;
        },
        WaitMs));
    const CtlResult calls = teamCtl({ QStringLiteral("audit"), QStringLiteral("query"),
        QStringLiteral("--event"), QStringLiteral("call"), QStringLiteral("--tool"),
        QStringLiteral("auto_op"), QStringLiteral("--json") });
    QCOMPARE(calls.out.count('\n'), 5);
    QVERIFY(calls.out.contains("\"gateway\":\"gateway-"));
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());

    // policy replay --team reads the same table: under a policy that asks
    // about everything, the five auto-allowed calls would have waited.
    const QString askAll = dir.path() + QStringLiteral("/ask-all.json");
    QFile ask(askAll);
    QVERIFY(ask.open(QIODevice::WriteOnly));
    ask.write(R"({"version": 1, "default": "ask", "guardrails": []})");
    ask.close();
    const CtlResult replay = teamCtl({ QStringLiteral("policy"), QStringLiteral("replay"),
        QStringLiteral("--policy"), askAll, QStringLiteral("--json") });
    QVERIFY2(replay.exitCode == 0, replay.out.constData());
    const Json report = Json::parse(replay.out.toStdString(), nullptr, false);
    QVERIFY2(report.is_object(), replay.out.constData());
    QCOMPARE(report.value("from", std::string()), std::string("the team's audit"));
    std::size_t toAsk = 0;
    for (const Json &t : report["transitions"])
        if (t["from"] == "allow" && t["to"] == "ask")
            toAsk = t["count"].get<std::size_t>();
    QVERIFY2(toAsk >= 5, replay.out.constData());
}

void tst_TeamE2E::insightsCountTheWholeTeam()
{
    // Two gateways' calls, decided by a rule or by alice: `holdpoint-ctl
    // --team URL insights` reads them all from the team's audit, where the
    // gateways' copies of calls arrive after the database's own lines.
    QTemporaryDir dir;
    const QString policy = writeAutoAllowPolicy(dir.path());
    QVERIFY(!policy.isEmpty());
    ConsoleProcess gatewayA(teamArgs() + QStringList { QStringLiteral("--policy"), policy });
    ConsoleProcess gatewayB(teamArgs() + QStringList { QStringLiteral("--policy"), policy });
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gatewayA.ready() && gatewayB.ready() && alice.ready());
    auto view = alice.reviewer();
    auto agentA = gatewayA.agent();
    auto agentB = gatewayB.agent();
    QVERIFY(view && agentA && agentB);
    for (const char *id : { "auto1", "auto2" }) {
        agentA->send(toolCall(id, "auto_op"));
        QCOMPARE(agentA->next("decision").value("decision", std::string()), std::string("allow"));
    }
    agentA->send(toolCall("d1"));
    const std::string first = view->next("escalated")["item"]["id"];
    agentB->send(toolCall("d2"));
    const std::string second = view->next("escalated")["item"]["id"];
    QVERIFY(alice.ctl({ QStringLiteral("approve"), toQString(first) }).exitCode == 0);
    QVERIFY(alice
                .ctl({ QStringLiteral("deny"), toQString(second), QStringLiteral("--reason"),
                    QStringLiteral("no") })
                .exitCode
        == 0);
    QCOMPARE(agentA->next("decision").value("decision", std::string()), std::string("allow"));
    QCOMPARE(agentB->next("decision").value("decision", std::string()), std::string("deny"));

    Json figures;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     const CtlResult r
                         = teamCtl({ QStringLiteral("insights"), QStringLiteral("--json") });
                     figures = r.json();
                     return r.exitCode == 0 && figures.is_object()
                         && figures["totals"]["calls"] == 4
                         && figures["totals"]["auto_decided"] == 2;
                 },
                 WaitMs),
        figures.dump().c_str());
    QCOMPARE(figures["totals"]["escalations"], Json(2));
    QCOMPARE(figures["totals"]["decided_by_person"], Json(2));
    QCOMPARE(figures["time_to_decision"]["decisions"], Json(2));
    QCOMPARE(figures["per_tool"].size(), 1u);
    QCOMPARE(figures["per_tool"][0]["tool"], Json("deploy"));
    QCOMPARE(figures["per_tool"][0]["approved"], Json(1));
    QCOMPARE(figures["per_tool"][0]["denied"], Json(1));
    QCOMPARE(figures["per_rule"][0]["rule"], Json("policy default"));
    std::uint64_t perAgent = 0;
    for (const Json &a : figures["escalations_per_agent"])
        perAgent += a["count"].get<std::uint64_t>();
    QCOMPARE(perAgent, 2u);
    QCOMPARE(figures["totals"]["prompts_saved"], Json(2));
    QCOMPARE(figures["prompts_saved"].size(), 1u);
    QCOMPARE(figures["prompts_saved"][0]["kind"], Json("rule"));
    QCOMPARE(figures["prompts_saved"][0]["allowed"], Json(2));
}

void tst_TeamE2E::secretsStayOutOfTheTeamDatabase()
{
    // protected_paths quotes the path it stopped in its reason, and a
    // reviewer at the gateway's own console who revealed the secrets edits
    // with their real values: the agent runs with them, the team's tables
    // hold none.
    QTemporaryDir dir;
    const QString policy = dir.path() + QStringLiteral("/policy.json");
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"guardrails": [{"type": "secrets", "action": "warn"},
        {"type": "protected_paths", "paths": ["/srv"], "action": "ask"}]})");
    f.close();
    ConsoleProcess gateway(
        teamArgs(QStringLiteral("alice")) + QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(gateway.ready());
    auto view = gateway.reviewer();
    auto agent = gateway.agent();
    QVERIFY(view && agent);
    const std::string secret = "AKIAIOSFODNN7EXAMPLE";
    const Json args = { { "path", "/srv/keys/" + secret }, { "mode", "0600" } };
    agent->send(Json { { "type", "tool_call" }, { "call_id", "s1" }, { "tool_name", "write_file" },
        { "args", args } });
    QVERIFY(agent->next("pending").is_object());
    const Json item = view->next("escalated")["item"];
    QVERIFY2(item.dump().find(secret) == std::string::npos, item.dump().c_str());
    Json edited = args;
    edited["mode"] = "0400";
    view->send(Json { { "type", "review" }, { "id", item["id"] }, { "action", "edit" },
        { "args", edited }, { "reason", "kept under /srv/keys/" + secret } });
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("modify"));
    QCOMPARE(decision["args"], edited);
    // Everything of this call the team keeps, once its delivery is copied.
    QVERIFY(QTest::qWaitFor([&] { return auditCount("delivered") == 1; }, WaitMs));
    QString out;
    QVERIFY(m_pg.psql(m_db,
        QStringLiteral(
            "SELECT string_agg(line, E'\\n') FROM holdpoint.audit UNION ALL "
            "SELECT concat_ws(E'\\n', item, review, proposal, reason) FROM holdpoint.items"),
        &out));
    QVERIFY2(out.contains(QLatin1String("is protected")) && out.contains(QLatin1String("0400"))
            && out.contains(QLatin1String("kept under /srv/keys/[secret:")),
        qPrintable(out));
    QVERIFY2(!out.contains(QString::fromStdString(secret)), qPrintable(out));
}

void tst_TeamE2E::thousandEscalationsConvergeEverywhere()
{
    ConsoleProcess gatewayA(teamArgs());
    ConsoleProcess gatewayB(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    ConsoleProcess bob(teamArgs(QStringLiteral("bob")));
    QVERIFY(gatewayA.ready() && gatewayB.ready() && alice.ready() && bob.ready());
    std::vector<std::unique_ptr<TestSocket>> agents;
    for (ConsoleProcess *g : { &gatewayA, &gatewayA, &gatewayB, &gatewayB }) {
        agents.push_back(g->agent());
        QVERIFY(agents.back());
    }
    // All at once: nothing waits for an answer before the next is sent.
    constexpr int Total = 1000;
    for (int i = 0; i < Total; ++i)
        agents[std::size_t(i) % agents.size()]->send(toolCall("burst" + std::to_string(i)));

    QStringList team;
    QVERIFY2(QTest::qWaitFor([&] { return (team = teamPending()).size() == Total; }, 60'000),
        qPrintable(QStringLiteral("the team has %1 of %2").arg(team.size()).arg(Total)));
    team.sort();
    for (const ConsoleProcess *c : { &gatewayA, &gatewayB, &alice, &bob }) {
        QStringList shown;
        QVERIFY2(QTest::qWaitFor([&] { return (shown = pendingAt(*c)) == team; }, 60'000),
            qPrintable(QStringLiteral("%1 shows %2 of the team's %3 items")
                           .arg(c->dataDir())
                           .arg(shown.size())
                           .arg(Total)));
    }
    QCOMPARE(auditCount("escalated"), Total);
}

void tst_TeamE2E::immediateRestartLosesNothing()
{
    ConsoleProcess gateway(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    constexpr int Total = 50;
    for (int i = 0; i < Total; ++i)
        agent->send(toolCall("r" + std::to_string(i)));
    QStringList ids;
    QVERIFY(QTest::qWaitFor([&] { return (ids = teamPending()).size() == Total; }, WaitMs));
    ids.sort();
    QVERIFY(QTest::qWaitFor([&] { return pendingAt(alice) == ids; }, WaitMs));

    // The server dies without a shutdown checkpoint and comes back.
    QVERIFY2(m_pg.restartImmediate(), qPrintable(m_pg.lastError()));
    QStringList after = teamPending();
    after.sort();
    QCOMPARE(after, ids);

    // Both instances reconnect on their own: half is decided in alice's
    // console, half with holdpoint-ctl --team, each exactly once.
    for (int i = 0; i < Total; ++i) {
        if (i % 2 == 0) {
            CtlResult r;
            // Until alice's console has its connection back, it refuses
            // (nothing written) and says why; then it decides.
            QVERIFY2(QTest::qWaitFor(
                         [&] {
                             r = alice.ctl({ QStringLiteral("approve"), ids[i] });
                             return r.exitCode == 0 || r.err.contains("already_decided");
                         },
                         20'000),
                r.err.constData());
            QVERIFY2(r.exitCode == 0, r.err.constData());
        } else {
            const CtlResult r = teamCtl({ QStringLiteral("approve"), ids[i] });
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
    }
    std::set<std::string> answered;
    for (int i = 0; i < Total; ++i) {
        const Json d = agent->next("decision", 20'000);
        QCOMPARE(d.value("decision", std::string()), std::string("allow"));
        QVERIFY(answered.insert(d.value("call_id", std::string())).second);
    }
    QCOMPARE(int(answered.size()), Total);
    QVERIFY(agent->noneOf("decision"));
    QVERIFY(teamPending().isEmpty());
    QVERIFY(QTest::qWaitFor(
        [&] { return pendingAt(alice).isEmpty() && pendingAt(gateway).isEmpty(); }, WaitMs));
    QCOMPARE(auditCount("escalated"), Total);
    QCOMPARE(auditCount("decision"), Total);

    // And the team carries on.
    auto aliceView = alice.reviewer();
    QVERIFY(aliceView);
    agent->send(toolCall("after"));
    QVERIFY(aliceView->next("escalated").is_object());
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void tst_TeamE2E::loopFindingsFollowTheirItems()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("loop.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"default": "ask", "guardrails": [
        {"type": "loop_detection", "exact_failure": {"warn": 2, "block": 5}},
        {"type": "rules", "rules": [{"when": {"tool": "read_file"}, "action": "allow"}]}]})");
    f.close();
    ConsoleProcess gateway(teamArgs() + QStringList { QStringLiteral("--policy"), policy });
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    agent->send(Json { { "type", "turn_start" }, { "turn_id", "t1" } });
    agent->send(Json { { "type", "tool_call" }, { "call_id", "w1" }, { "tool_name", "write_file" },
        { "turn_id", "t1" }, { "args", { { "path", "a.txt" } } } });
    QVERIFY(QTest::qWaitFor([&] { return pendingAt(alice).size() == 1; }, WaitMs));
    auto findingsAtAlice = [&] {
        const Json items
            = alice.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        return items.is_array() && items.size() == 1
            ? items[0].value("turn_findings", Json::array())
            : Json::array();
    };
    QVERIFY(findingsAtAlice().empty());

    // While it waits, the same read fails three times in the turn: the
    // gateway's loop detection warns, and alice's copy of the item shows it.
    for (int i = 0; i < 3; ++i) {
        const std::string id = "r" + std::to_string(i);
        agent->send(Json { { "type", "tool_call" }, { "call_id", id }, { "tool_name", "read_file" },
            { "turn_id", "t1" }, { "args", { { "path", "same.txt" } } } });
        QCOMPARE(agent->next("decision").value("decision", std::string()), std::string("allow"));
        agent->send(Json { { "type", "tool_result" }, { "call_id", id }, { "ok", false },
            { "result", { { "error", "no such file" } } } });
        QVERIFY(agent->next("after_call").is_object());
    }
    Json findings;
    QVERIFY2(QTest::qWaitFor([&] { return !(findings = findingsAtAlice()).empty(); }, WaitMs),
        "the loop finding did not reach the other console");
    QCOMPARE(findings[0].value("pattern", std::string()), std::string("exact_failure"));
    QCOMPARE(findings[0].value("level", std::string()), std::string("warn"));
    QCOMPARE(findings[0].value("count", 0), 3);
}

void tst_TeamE2E::deadlineEndsACallOnceAcrossTheTeam()
{
    // Two gateways and a console all run expire_due; the call times out
    // once, and its agent hears it once.
    const QStringList shortDeadline { QStringLiteral("--timeout"), QStringLiteral("2") };
    ConsoleProcess gateway(teamArgs() + shortDeadline);
    ConsoleProcess other(teamArgs() + shortDeadline);
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && other.ready() && alice.ready());
    auto agent = gateway.agent();
    QVERIFY(agent);
    agent->send(toolCall("late"));
    QVERIFY(agent->next("pending").is_object());
    const Json decision = agent->next("decision", 20'000);
    QCOMPARE(decision.value("decision", std::string()), std::string("deny"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("timeout"));
    QVERIFY(QTest::qWaitFor(
        [&] { return pendingAt(alice).isEmpty() && pendingAt(other).isEmpty(); }, WaitMs));
    QCOMPARE(auditCount("decision"), 1);
    QVERIFY(agent->noneOf("decision"));
}

void tst_TeamE2E::agentDisconnectShowsInEveryConsole()
{
    ConsoleProcess gateway(teamArgs());
    ConsoleProcess alice(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && alice.ready());
    auto connectedAtAlice = [&]() -> std::optional<bool> {
        const Json items
            = alice.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        if (!items.is_array() || items.size() != 1)
            return std::nullopt;
        return items[0].value("agent_connected", true);
    };
    {
        auto agent = gateway.agent(std::string("s-drop"));
        QVERIFY(agent);
        agent->send(toolCall("d1"));
        QVERIFY(agent->next("pending").is_object());
        QVERIFY(QTest::qWaitFor([&] { return connectedAtAlice() == true; }, WaitMs));
        agent->abort(); // the agent's process dies; its call waits out the grace period
    }
    QVERIFY(QTest::qWaitFor([&] { return connectedAtAlice() == false; }, WaitMs));

    // It comes back and asks again: connected, everywhere.
    auto again = gateway.agent(std::string("s-drop"));
    QVERIFY(again);
    again->send(toolCall("d1"));
    QVERIFY(QTest::qWaitFor([&] { return connectedAtAlice() == true; }, WaitMs));
}

QTEST_GUILESS_MAIN(tst_TeamE2E)
#include "tst_team_e2e.moc"
