// SPDX-License-Identifier: Apache-2.0
// Rolling upgrades (TEAM.md "Versions"): real `holdpoint --team` processes
// keep working against a newer schema whose versions above theirs are all
// additive, refuse one that is not, and a fleet halfway through an upgrade
// (instances of schema 3 and 4 together) shares one queue.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "common/teamdatabase.h"

#include "team/teamdb.h"

#include <pqxx/pqxx>

#include <QtTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// A version that exists only for this test, the one after this build's:
// what a later holdpoint's additive migration could do (a table, a
// function, an overload of an existing one), marked additive as it would
// mark itself.
const int NextVersion = team::SchemaVersion + 1;
QString additiveNextVersion()
{
    return QStringLiteral(R"SQL(
CREATE TABLE holdpoint.test_next_notes (item_id text PRIMARY KEY, note text NOT NULL);
CREATE FUNCTION holdpoint.test_next_note(p_id text, p_note text) RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$ INSERT INTO holdpoint.test_next_notes VALUES (p_id, p_note) $$;
CREATE FUNCTION holdpoint.expire_due(p_instance text, p_limit integer) RETURNS SETOF text
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$ SELECT holdpoint.expire_due(p_instance) LIMIT p_limit $$;
INSERT INTO holdpoint.schema_versions (version, additive, applied_at) VALUES (%1, true, clock_timestamp());
)SQL")
        .arg(NextVersion);
}

// One after it that is not: it changes what an existing function means, so
// it moves schema_version, as a migration that is not additive does.
QString breakingVersionAfterIt()
{
    return QStringLiteral(R"SQL(
INSERT INTO holdpoint.schema_versions (version, additive, applied_at) VALUES (%1, false, clock_timestamp());
UPDATE holdpoint.schema_version SET version = %1;
)SQL")
        .arg(NextVersion + 1);
}

team::Escalation escalation(const std::string &id)
{
    team::Escalation e;
    e.id = id;
    e.gateway = "gw-a";
    e.host = "host-a";
    e.sessionId = "s1";
    e.callId = "call-" + id;
    e.tool = "Bash";
    e.item = Json { { "id", id }, { "tool_name", "Bash" }, { "args", { { "command", "ls" } } } };
    e.waitMs = 300'000;
    e.audit = Json { { "item", id }, { "tool", "Bash" } };
    return e;
}

// The NOTIFY payloads on the team channel, in the order they arrive.
class Listener final : public pqxx::notification_receiver
{
public:
    explicit Listener(pqxx::connection_base &c)
        : pqxx::notification_receiver(c, team::NotifyChannel)
    { }
    void operator()(const std::string &payload, int) override { payloads.push_back(payload); }
    std::vector<std::string> payloads;
};

} // namespace

class tst_TeamUpgrade final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void keepsWorkingAgainstAnAdditiveNewerSchema();
    void refusesANewerSchemaThatIsNotAdditive();
    void refusesANewerVersionThatDoesNotSayWhatItIs();
    void aFleetHalfwayThroughAnUpgradeSharesOneQueue();
    void aBatchIsOneNotificationAndOldListenersGetOneEach();

private:
    QStringList teamArgs(const QString &reviewer = {}) const
    {
        return test::teamArgs(m_url, reviewer);
    }
    CtlResult teamCtl(const QStringList &args) const { return test::teamCtl(m_url, args); }
    // An instance acting as one of schema `version` (HOLDPOINT_TEAM_AS_VERSION).
    std::unique_ptr<ConsoleProcess> startAs(int version, const QStringList &args) const
    {
        if (version)
            qputenv("HOLDPOINT_TEAM_AS_VERSION", QByteArray::number(version));
        auto p = std::make_unique<ConsoleProcess>(args);
        qunsetenv("HOLDPOINT_TEAM_AS_VERSION");
        return p;
    }
    // An escalation at `gateway`, seen at `console`, approved there, and
    // delivered to the agent.
    void escalateAndApprove(
        ConsoleProcess &gateway, ConsoleProcess &console, const std::string &callId)
    {
        auto view = console.reviewer();
        auto agent = gateway.agent();
        QVERIFY(view && agent);
        agent->send(toolCall(callId));
        QVERIFY(agent->next("pending").is_object());
        Json seen;
        do
            seen = view->next("escalated");
        while (seen.is_object() && seen["item"].value("call_id", std::string()) != callId);
        QVERIFY2(seen.is_object(), "the escalation never reached the console");
        const std::string id = seen["item"]["id"];
        view->send(Json { { "type", "review" }, { "id", id }, { "action", "approve" } });
        const Json decision = agent->next("decision");
        QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
        QCOMPARE(decision.value("call_id", std::string()), callId);
    }

    PgCluster m_pg;
    QString m_db;
    QString m_url;
    int m_databases = 0;
};

void tst_TeamUpgrade::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
}

void tst_TeamUpgrade::init()
{
    m_db = QStringLiteral("upgrade%1").arg(++m_databases);
    QString error;
    m_url = createTeamDatabase(m_pg, m_db, { QStringLiteral("alice") }, &error);
    QVERIFY2(!m_url.isEmpty(), qPrintable(error));
}

void tst_TeamUpgrade::cleanup()
{
    m_pg.dropDatabase(m_db);
}

void tst_TeamUpgrade::keepsWorkingAgainstAnAdditiveNewerSchema()
{
    ConsoleProcess gateway(teamArgs());
    ConsoleProcess console(teamArgs(QStringLiteral("alice")));
    QVERIFY(gateway.ready() && console.ready());
    escalateAndApprove(gateway, console, "before");

    // The owner applies the next version, which this build does not know.
    QVERIFY2(m_pg.psql(m_db, additiveNextVersion()), qPrintable(m_pg.lastError()));
    // What an instance reads when it (re)connects: it says so and goes on.
    const CtlResult pending = teamCtl({ QStringLiteral("pending") });
    QCOMPARE(pending.exitCode, 0);
    QVERIFY2(pending.err.contains(QByteArray::fromStdString("schema version "
                 + std::to_string(NextVersion) + ", newer than this holdpoint knows ("
                 + std::to_string(team::SchemaVersion) + ")"))
            && pending.err.contains("additive") && pending.err.contains("upgrade"),
        pending.err.constData());

    // Running instances go on, and new ones start against it.
    escalateAndApprove(gateway, console, "after");
    ConsoleProcess lateGateway(teamArgs());
    ConsoleProcess lateConsole(teamArgs(QStringLiteral("alice")));
    QVERIFY(lateGateway.ready() && lateConsole.ready());
    escalateAndApprove(lateGateway, console, "late-gateway");
    escalateAndApprove(gateway, lateConsole, "late-console");
    // `team init` of this build leaves the newer schema as it is.
    const CtlResult init = teamCtl({ QStringLiteral("team"), QStringLiteral("init"), m_url });
    QCOMPARE(init.exitCode, 0);
    QVERIFY2(init.out.contains(QByteArray::fromStdString(
                 "version " + std::to_string(NextVersion) + "; nothing to do")),
        init.out.constData());
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void tst_TeamUpgrade::refusesANewerSchemaThatIsNotAdditive()
{
    QVERIFY2(m_pg.psql(m_db, additiveNextVersion()), qPrintable(m_pg.lastError()));
    QVERIFY2(m_pg.psql(m_db, breakingVersionAfterIt()), qPrintable(m_pg.lastError()));
    const CtlResult pending = teamCtl({ QStringLiteral("pending") });
    QVERIFY(pending.exitCode != 0);
    QVERIFY2(pending.err.contains(QByteArray::fromStdString("schema version "
                 + std::to_string(NextVersion + 1) + ", newer than this holdpoint knows ("
                 + std::to_string(team::SchemaVersion) + ")"))
            && pending.err.contains(QByteArray::fromStdString(
                "version " + std::to_string(NextVersion + 1) + " is not additive"))
            && pending.err.contains("upgrade holdpoint on this machine"),
        pending.err.constData());

    // An instance starts, and its reviewers are shown why the team is not
    // there (the red banner); what it escalates waits, then is denied.
    ConsoleProcess gateway(teamArgs());
    QVERIFY(gateway.ready());
    std::string why;
    QVERIFY(QTest::qWaitFor(
        [&] {
            TestSocket view;
            if (!view.hello(
                         gateway.info().url, gateway.info().reviewerToken.toStdString(), "reviewer")
                     .is_object())
                return false;
            const Json queue = view.next("queue");
            why = queue.is_object()
                ? queue.value("team", Json::object()).value("error", std::string())
                : std::string();
            return why.find("is not additive") != std::string::npos;
        },
        WaitMs));
    QVERIFY2(why.find("upgrade holdpoint on this machine") != std::string::npos, why.c_str());
}

void tst_TeamUpgrade::refusesANewerVersionThatDoesNotSayWhatItIs()
{
    // The next version left no mark, the one after it did: never taken as
    // additive.
    QVERIFY2(m_pg.psql(m_db,
                 QStringLiteral("INSERT INTO holdpoint.schema_versions VALUES (%1, true, now())")
                     .arg(NextVersion + 1)),
        qPrintable(m_pg.lastError()));
    const CtlResult pending = teamCtl({ QStringLiteral("pending") });
    QVERIFY(pending.exitCode != 0);
    QVERIFY2(pending.err.contains(QByteArray::fromStdString("schema version "
                 + std::to_string(NextVersion + 1) + ", newer than this holdpoint knows"))
            && pending.err.contains("does not say whether every version since is additive"),
        pending.err.constData());
}

void tst_TeamUpgrade::aFleetHalfwayThroughAnUpgradeSharesOneQueue()
{
    // A gateway and a console still of schema 3, with ones of schema 4, on
    // the version-4 database: each console sees, and decides, both gateways'
    // calls. (Those of 3 read one `new` per item, which the new gateway sends
    // while they heartbeat; the new console reads both forms.)
    auto oldGateway = startAs(3, teamArgs());
    auto oldConsole = startAs(3, teamArgs(QStringLiteral("alice")));
    ConsoleProcess newGateway(teamArgs());
    ConsoleProcess newConsole(teamArgs(QStringLiteral("alice")));
    QVERIFY(oldGateway->ready() && oldConsole->ready() && newGateway.ready() && newConsole.ready());
    QString known;
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_pg.psql(m_db,
                       QStringLiteral(
                           "SELECT count(*) FILTER (WHERE knows IS NULL) || '/' || count(*)"
                           " FROM holdpoint.instances"),
                       &known)
                && known.trimmed() == QStringLiteral("2/4");
        },
        WaitMs));
    escalateAndApprove(newGateway, *oldConsole, "new-to-old");
    escalateAndApprove(*oldGateway, newConsole, "old-to-new");
    escalateAndApprove(newGateway, newConsole, "new-to-new");
    escalateAndApprove(*oldGateway, *oldConsole, "old-to-old");
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void tst_TeamUpgrade::aBatchIsOneNotificationAndOldListenersGetOneEach()
{
    using namespace holdpoint::team;
    auto c = team::connect(m_url.toStdString());
    auto listening = team::connect(m_url.toStdString());
    Listener heard(*listening);
    // What was announced up to now: notifications arrive in commit order,
    // so everything before a marker sent last has come once the marker has.
    auto drain = [&] {
        {
            pqxx::nontransaction tx(*c);
            tx.exec("SELECT pg_notify('holdpoint', 'end')");
        }
        const QDeadlineTimer deadline(10'000);
        while (
            std::find(heard.payloads.begin(), heard.payloads.end(), "end") == heard.payloads.end()
            && !deadline.hasExpired())
            listening->await_notification(1, 0);
        std::vector<std::string> out;
        out.swap(heard.payloads);
        if (!out.empty() && out.back() == "end")
            out.pop_back();
        return out;
    };
    heartbeat(*c, Instance { "gw-a", "gateway", "host-a", {}, {}, 60'000 });
    escalate(*c, std::vector { escalation("n1"), escalation("n2"), escalation("n3") });
    QCOMPARE(drain(), (std::vector<std::string> { "new-batch n1 n2 n3" }));

    // Ids that fill more than one payload are split under 8000 bytes, in order.
    std::vector<Escalation> many;
    std::string expected;
    for (int i = 0; i < 700; ++i) {
        many.push_back(escalation("long-" + std::to_string(100000 + i)));
        expected += (i ? " " : "") + many.back().id;
    }
    escalate(*c, many);
    const std::vector<std::string> parts = drain();
    QVERIFY(parts.size() >= 2);
    std::string joined;
    for (const std::string &p : parts) {
        QVERIFY(p.size() < 8000);
        QVERIFY(p.rfind("new-batch ", 0) == 0);
        joined += (joined.empty() ? "" : " ") + p.substr(10);
    }
    QCOMPARE(joined, expected);

    // While an instance of version 3 heartbeats, it gets one `new` per item
    // too; a single escalate() always sends one.
    Instance old { "gw-old", "gateway", "host-old", {}, {}, 60'000 };
    old.knows = 3;
    heartbeat(*c, old);
    escalate(*c, std::vector { escalation("o1"), escalation("o2") });
    QCOMPARE(drain(), (std::vector<std::string> { "new o1", "new o2", "new-batch o1 o2" }));
    escalate(*c, escalation("o3"));
    QCOMPARE(drain(), (std::vector<std::string> { "new o3" }));
    // Once it is gone (its heartbeat older than the window), only batches.
    QVERIFY(m_pg.psql(m_db,
        QStringLiteral("UPDATE holdpoint.instances SET heartbeat_at = now() - interval '2 minutes'"
                       " WHERE id = 'gw-old'")));
    escalate(*c, std::vector { escalation("o4") });
    QCOMPARE(drain(), (std::vector<std::string> { "new-batch o4" }));
    const CtlResult verify = teamCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

QTEST_GUILESS_MAIN(tst_TeamUpgrade)
#include "tst_team_upgrade.moc"
