// SPDX-License-Identifier: Apache-2.0
// Who decided, for sure, and calls that need two people: real `holdpoint
// --team` gateways and consoles, real holdpoint-ctl processes under their
// own PostgreSQL login roles, on a PostgreSQL the test starts itself. The
// reviewers are mapped with `holdpoint-ctl team reviewer add`, as a user
// would.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"

#include <QtTest>

#include <algorithm>
#include <memory>
#include <set>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// deploy needs two people, never the one who started the agent; note needs
// one; an edit of a deploy voids the approvals given before it, and of a
// release keeps them.
constexpr char Policy[]
    = R"({"default": "allow", "guardrails": [{"type": "rules", "name": "gates", "rules": [
    {"match": "deploy", "action": "ask", "reason": "production",
     "approvals": {"required": 2, "exclude_requester": true, "on_edit": "reset"}},
    {"match": "release", "action": "ask", "approvals": {"required": 2, "on_edit": "keep"}},
    {"match": "note", "action": "ask", "reason": "one person"}]}]})";

QString str(const Json &j, const char *key)
{
    return j.is_object() && j.contains(key) && j[key].is_string()
        ? toQString(j[key].get<std::string>())
        : QString();
}

} // namespace

class tst_TeamApprovals final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void spoofedNameIsRefusedAndTheMappedNameDecides();
    void loginWithoutAReviewerIsRefused();
    void twoReviewersTogetherMakeExactlyOneAllow();
    void desktopAndCtlAreOneVote();
    void requesterIsRefusedAVote();
    void denyAfterOneApprovalEndsIt();
    void editResetsAndTheAgentRunsOnlyWhatTwoApproved();
    void editWithKeepCountsTheEarlierApproval();
    void timeoutAtOneOfTwoIsADeny();

private:
    // holdpoint-ctl --team as `login` (the database's identity for it),
    // with HOLDPOINT_REVIEWER set only when `claim` is given.
    CtlResult ctlAs(const QString &login, const QStringList &args, const QString &claim = {}) const
    {
        auto p = startCtlAs(login, args, claim);
        return finish(*p);
    }
    std::unique_ptr<QProcess> startCtlAs(
        const QString &login, const QStringList &args, const QString &claim = {}) const
    {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("HOLDPOINT_REVIEWER"));
        if (!claim.isEmpty())
            env.insert(QStringLiteral("HOLDPOINT_REVIEWER"), claim);
        p->setProcessEnvironment(env);
        p->start(QStringLiteral(HOLDPOINT_CTL_BIN),
            QStringList { QStringLiteral("--team"), m_pg.connString(m_db, login) } + args);
        return p;
    }
    CtlResult ownerCtl(const QStringList &args) const { return ctlAs({}, args); }

    QStringList gatewayArgs(const QStringList &more = {}) const
    {
        return QStringList { QStringLiteral("--team"), m_url, QStringLiteral("--policy"), m_policy }
        + more;
    }
    // An agent on `gateway` whose hello says it runs as OS user `user`.
    static std::unique_ptr<TestSocket> agentAs(
        const ConsoleProcess &gateway, const std::string &user)
    {
        auto s = std::make_unique<TestSocket>();
        if (!s->open(gateway.info().url))
            return nullptr;
        s->send(Json { { "type", "hello" }, { "protocol", 1 }, { "role", "agent" },
            { "token", gateway.info().agentToken.toStdString() },
            { "agent", { { "name", "deployer" }, { "user", user } } } });
        if (!s->next("welcome").is_object())
            return nullptr;
        return s;
    }
    // A gateway (with `more` arguments) whose agent, running as OS user
    // `user`, sent `callId` of `tool`; `id` is its item once the team queue
    // has it (empty if it never came).
    struct Waiting
    {
        std::unique_ptr<ConsoleProcess> gateway;
        std::unique_ptr<TestSocket> agent;
        QString id;
        bool ok() const { return agent && !id.isEmpty(); }
    };
    Waiting waiting(const std::string &callId, const std::string &tool = "deploy",
        const std::string &user = "dave", const QStringList &more = {}) const
    {
        Waiting w;
        w.gateway = std::make_unique<ConsoleProcess>(gatewayArgs(more));
        if (!w.gateway->ready() || !(w.agent = agentAs(*w.gateway, user)))
            return w;
        w.agent->send(toolCall(callId, tool));
        w.id = str(teamItem(callId), "id");
        return w;
    }
    // The team queue's item for `callId`, as holdpoint-ctl pending --json
    // shows it (null until it is there).
    Json teamItem(const std::string &callId) const
    {
        Json found;
        (void)QTest::qWaitFor(
            [&] {
                const Json items
                    = ownerCtl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
                if (items.is_array())
                    for (const Json &i : items)
                        if (i.value("call_id", std::string()) == callId)
                            found = i;
                return !found.is_null();
            },
            WaitMs);
        return found;
    }
    // The team audit's records of `event` for `item`, oldest first.
    Json teamAudit(const QString &item, const QString &event) const
    {
        const CtlResult r = ownerCtl(
            { QStringLiteral("audit"), QStringLiteral("query"), QStringLiteral("--json") });
        std::vector<Json> found;
        for (const QByteArray &line : r.out.split('\n')) {
            const Json j = Json::parse(line.toStdString(), nullptr, false);
            if (str(j, "item") == item && str(j, "event") == event)
                found.push_back(j);
        }
        std::sort(found.begin(), found.end(),
            [](const Json &a, const Json &b) { return a.value("seq", 0) < b.value("seq", 0); });
        return Json(found);
    }
    // `audit verify` on the team's audit and on a gateway's own file log.
    void verifyAudits(const ConsoleProcess &gateway) const
    {
        const CtlResult team = ownerCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
        QVERIFY2(team.exitCode == 0, QByteArray(team.out + team.err).constData());
        const CtlResult file = gateway.ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
        QVERIFY2(file.exitCode == 0, QByteArray(file.out + file.err).constData());
    }

    PgCluster m_pg;
    QTemporaryDir m_dir;
    QString m_policy;
    QString m_db;
    QString m_url;
    int m_databases = 0;
};

void tst_TeamApprovals::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
    m_policy = m_dir.path() + QStringLiteral("/policy.json");
    QFile f(m_policy);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(Policy) > 0 && f.flush());
}

void tst_TeamApprovals::init()
{
    m_db = QStringLiteral("approvals%1").arg(++m_databases);
    QVERIFY2(m_pg.createDatabase(m_db), qPrintable(m_pg.lastError()));
    m_url = m_pg.connString(m_db);
    const CtlResult init = ownerCtl({ QStringLiteral("team"), QStringLiteral("init"), m_url });
    QVERIFY2(init.exitCode == 0, init.err.constData());
    QVERIFY(m_pg.psqlFile(m_db, QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/team/roles.sql")));
    QVERIFY2(
        m_pg.psql(m_db,
            QStringLiteral(
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alice_login') "
                "THEN CREATE ROLE alice_login LOGIN IN ROLE holdpoint_reviewer; "
                "CREATE ROLE bob_login LOGIN IN ROLE holdpoint_reviewer; "
                "CREATE ROLE carol_login LOGIN IN ROLE holdpoint_reviewer; "
                "CREATE ROLE eve_login LOGIN IN ROLE holdpoint_reviewer; END IF; END $$")),
        qPrintable(m_pg.lastError()));
    // Each person their own login; the owner's login (the gateways', and the
    // desktop console's here) decides as alice or carol.
    for (const auto &[name, login] :
        { std::pair { "alice", "alice_login" }, { "bob", "bob_login" }, { "carol", "carol_login" },
            { "alice", "holdpoint_admin" }, { "carol", "holdpoint_admin" } }) {
        const CtlResult add
            = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"), QStringLiteral("add"),
                QLatin1String(name), QStringLiteral("--role"), QLatin1String(login) });
        QVERIFY2(add.exitCode == 0, add.err.constData());
    }
}

void tst_TeamApprovals::cleanup()
{
    m_pg.dropDatabase(m_db);
}

void tst_TeamApprovals::spoofedNameIsRefusedAndTheMappedNameDecides()
{
    Waiting w = waiting("n1", "note", "dave");
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;

    // bob's login says it is alice: refused, with the name it may use.
    const CtlResult spoof = ctlAs(
        QStringLiteral("bob_login"), { QStringLiteral("approve"), id }, QStringLiteral("alice"));
    QVERIFY(spoof.exitCode != 0);
    QVERIFY2(spoof.err.contains("may not decide as \"alice\"; it decides as: bob"),
        spoof.err.constData());
    // --reviewer is the same claim, refused the same way.
    const CtlResult flag = ctlAs(QStringLiteral("bob_login"),
        { QStringLiteral("approve"), id, QStringLiteral("--reviewer"), QStringLiteral("alice") });
    QVERIFY(flag.exitCode != 0);
    QVERIFY2(flag.err.contains("may not decide as \"alice\""), flag.err.constData());
    QVERIFY(agent->noneOf("decision"));

    const CtlResult ok = ctlAs(QStringLiteral("bob_login"), { QStringLiteral("approve"), id });
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    const Json decision = agent->next("decision");
    QCOMPARE(str(decision, "decision"), QStringLiteral("allow"));
    QCOMPARE(str(decision, "decided_by"), QStringLiteral("human:bob"));
    const Json lines = teamAudit(id, QStringLiteral("decision"));
    QCOMPARE(lines.size(), std::size_t(1));
    QCOMPARE(str(lines[0], "decided_by"), QStringLiteral("human:bob"));
    QCOMPARE(str(lines[0], "reviewer"), QStringLiteral("bob"));
    // How bob authenticated: his database login, through holdpoint-ctl.
    QCOMPARE(str(lines[0], "db_role"), QStringLiteral("bob_login"));
    QCOMPARE(str(lines[0], "via"), QStringLiteral("holdpoint-ctl"));
    verifyAudits(gateway);
    // Both readers of the team audit say which login wrote each line.
    const CtlResult verified = ownerCtl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verified.out.contains("written by ") && verified.out.contains("bob_login (1)"),
        verified.out.constData());
    const CtlResult table = ownerCtl({ QStringLiteral("audit"), QStringLiteral("query") });
    QVERIFY2(
        table.out.contains("WRITER") && table.out.contains("bob_login"), table.out.constData());
}

void tst_TeamApprovals::loginWithoutAReviewerIsRefused()
{
    Waiting w = waiting("n1", "note", "dave");
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;
    const CtlResult r = ctlAs(QStringLiteral("eve_login"),
        { QStringLiteral("deny"), id, QStringLiteral("--reason"), QStringLiteral("x") });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("the database login eve_login is not a reviewer"), r.err.constData());
    QVERIFY2(
        r.err.contains("holdpoint-ctl team reviewer add NAME --role eve_login"), r.err.constData());
    // Nothing was decided: the call still waits, and a reviewer decides it.
    QVERIFY(agent->noneOf("decision"));
    QCOMPARE(str(teamItem("n1"), "id"), id);
    // A disabled reviewer is refused the same way.
    const CtlResult off = ownerCtl({ QStringLiteral("team"), QStringLiteral("reviewer"),
        QStringLiteral("disable"), QStringLiteral("bob") });
    QVERIFY2(off.exitCode == 0, off.err.constData());
    const CtlResult bob = ctlAs(QStringLiteral("bob_login"), { QStringLiteral("approve"), id });
    QVERIFY(bob.exitCode != 0);
    QVERIFY2(bob.err.contains("bob_login is not a reviewer"), bob.err.constData());
    QVERIFY(agent->noneOf("decision"));
    verifyAudits(gateway);
}

void tst_TeamApprovals::twoReviewersTogetherMakeExactlyOneAllow()
{
    ConsoleProcess gateway(gatewayArgs());
    QVERIFY(gateway.ready());
    auto agent = agentAs(gateway, "dave");
    QVERIFY(agent);
    constexpr int Calls = 100;
    for (int i = 0; i < Calls; ++i)
        agent->send(toolCall("r" + std::to_string(i)));
    std::vector<QString> ids;
    QVERIFY(QTest::qWaitFor(
        [&] {
            const Json items
                = ownerCtl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
            ids.clear();
            if (items.is_array())
                for (const Json &i : items)
                    ids.push_back(str(i, "id"));
            return ids.size() == std::size_t(Calls);
        },
        20'000));

    // alice and bob approve each call at the same moment, ten calls at a time.
    int voted = 0, decided = 0;
    for (int start = 0; start < Calls; start += 10) {
        std::vector<std::unique_ptr<QProcess>> running;
        for (int i = start; i < start + 10; ++i) {
            running.push_back(
                startCtlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), ids[i] }));
            running.push_back(
                startCtlAs(QStringLiteral("bob_login"), { QStringLiteral("approve"), ids[i] }));
        }
        for (auto &p : running) {
            const CtlResult r = finish(*p);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            (r.out.contains("\"voted\"") ? voted : decided) += 1;
        }
    }
    QCOMPARE(voted, Calls);
    QCOMPARE(decided, Calls);

    std::set<std::string> answered;
    for (int i = 0; i < Calls; ++i) {
        const Json d = agent->next("decision");
        QCOMPARE(str(d, "decision"), QStringLiteral("allow"));
        const QString by = str(d, "decided_by");
        QVERIFY2(by == QStringLiteral("human:alice,human:bob")
                || by == QStringLiteral("human:bob,human:alice"),
            qPrintable(by));
        QVERIFY(answered.insert(d.value("call_id", std::string())).second);
    }
    QVERIFY(agent->noneOf("decision"));
    // One final decision per item in the team's audit, two votes each.
    QString out;
    QVERIFY(m_pg.psql(m_db,
        QStringLiteral("SELECT count(*), count(DISTINCT line::jsonb ->> 'item') FROM "
                       "holdpoint.audit WHERE event = 'decision'"),
        &out));
    QCOMPARE(out.trimmed(), QStringLiteral("%1|%1").arg(Calls));
    QVERIFY(m_pg.psql(m_db, QStringLiteral("SELECT count(*) FROM holdpoint.votes"), &out));
    QCOMPARE(out.trimmed(), QString::number(2 * Calls));
    verifyAudits(gateway);
}

void tst_TeamApprovals::desktopAndCtlAreOneVote()
{
    ConsoleProcess gateway(gatewayArgs());
    ConsoleProcess desk(QStringList {
        QStringLiteral("--team"), m_url, QStringLiteral("--reviewer"), QStringLiteral("alice") });
    QVERIFY(gateway.ready() && desk.ready());
    auto agent = agentAs(gateway, "dave");
    QVERIFY(agent);
    agent->send(toolCall("d1"));
    const QString id = str(teamItem("d1"), "id");
    QVERIFY(!id.isEmpty());

    // alice approves at her desk (the console's reviewer connection) ...
    auto reviewer = desk.reviewer();
    QVERIFY(reviewer);
    QVERIFY(QTest::qWaitFor(
        [&] {
            return desk.ctl({ QStringLiteral("pending"), QStringLiteral("--json") })
                .out.contains(id.toUtf8());
        },
        WaitMs));
    reviewer->send(
        Json { { "type", "review" }, { "id", id.toStdString() }, { "action", "approve" } });
    const Json voted = reviewer->next("voted");
    QVERIFY2(voted.is_object(), "the desk's approval was not counted");
    QCOMPARE(voted.value("approvals", 0), 1);
    QCOMPARE(voted.value("required", 0), 2);
    // ... and again from holdpoint-ctl under her own login: the same person.
    const CtlResult again = ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id });
    QVERIFY(again.exitCode != 0);
    QVERIFY2(again.err.contains("alice approved these arguments already; waiting for someone other "
                                "than you (1/2 approvals)"),
        again.err.constData());
    QVERIFY(agent->noneOf("decision"));
    const Json item = teamItem("d1");
    QCOMPARE(item.value("approvals_given", 0), 1);
    QCOMPARE(item["votes"].size(), std::size_t(1));
    QCOMPARE(str(item["votes"][0], "reviewer"), QStringLiteral("alice"));

    const CtlResult bob = ctlAs(QStringLiteral("bob_login"), { QStringLiteral("approve"), id });
    QVERIFY2(bob.exitCode == 0, bob.err.constData());
    const Json d = agent->next("decision");
    QCOMPARE(str(d, "decision"), QStringLiteral("allow"));
    QCOMPARE(str(d, "decided_by"), QStringLiteral("human:alice,human:bob"));
    const Json votes = teamAudit(id, QStringLiteral("vote"));
    QCOMPARE(votes.size(), std::size_t(2));
    QCOMPARE(str(votes[0], "reviewer"), QStringLiteral("alice"));
    QCOMPARE(str(votes[0], "db_role"), QStringLiteral("holdpoint_admin")); // the desk's login
    QCOMPARE(str(votes[1], "db_role"), QStringLiteral("bob_login"));
    QCOMPARE(str(votes[1], "reviewer"), QStringLiteral("bob"));
    const Json decision = teamAudit(id, QStringLiteral("decision"));
    QCOMPARE(decision.size(), std::size_t(1));
    QCOMPARE(decision[0]["approvers"], (Json { "alice", "bob" }));
    // Her votes are found by her name.
    const CtlResult hers = ownerCtl({ QStringLiteral("audit"), QStringLiteral("query"),
        QStringLiteral("--decided-by"), QStringLiteral("alice"), QStringLiteral("--json") });
    QVERIFY2(hers.out.contains("\"event\":\"vote\"") && hers.out.contains("\"event\":\"decision\""),
        hers.out.constData());
    verifyAudits(gateway);
}

void tst_TeamApprovals::requesterIsRefusedAVote()
{
    ConsoleProcess gateway(gatewayArgs());
    QVERIFY(gateway.ready());
    // carol started this agent (her reviewer's OS user is carol).
    auto agent = agentAs(gateway, "carol");
    QVERIFY(agent);
    agent->send(toolCall("q1"));
    const Json item = teamItem("q1");
    const QString id = str(item, "id");
    QVERIFY(!id.isEmpty());
    QCOMPARE(str(item, "requester"), QStringLiteral("carol"));
    const CtlResult r = ctlAs(QStringLiteral("carol_login"), { QStringLiteral("approve"), id });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("carol started this agent (as OS user carol), and this call needs "
                            "approval from someone else"),
        r.err.constData());
    QCOMPARE(teamItem("q1").value("approvals_given", -1), 0);
    QVERIFY(agent->noneOf("decision"));
    // She may still stop it.
    const CtlResult deny = ctlAs(QStringLiteral("carol_login"),
        { QStringLiteral("deny"), id, QStringLiteral("--reason"), QStringLiteral("mine, wrong") });
    QVERIFY2(deny.exitCode == 0, deny.err.constData());
    QCOMPARE(str(agent->next("decision"), "decided_by"), QStringLiteral("human:carol"));
    verifyAudits(gateway);
}

void tst_TeamApprovals::denyAfterOneApprovalEndsIt()
{
    Waiting w = waiting("x1", "deploy", "dave");
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;
    const CtlResult a = ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id });
    QVERIFY2(a.exitCode == 0 && a.out.contains("\"voted\""), QByteArray(a.out + a.err).constData());
    const CtlResult b = ctlAs(QStringLiteral("bob_login"),
        { QStringLiteral("deny"), id, QStringLiteral("--reason"),
            QStringLiteral("not on a Friday") });
    QVERIFY2(b.exitCode == 0, b.err.constData());
    const Json d = agent->next("decision");
    QCOMPARE(str(d, "decision"), QStringLiteral("deny"));
    QCOMPARE(str(d, "reason"), QStringLiteral("not on a Friday"));
    QCOMPARE(str(d, "decided_by"), QStringLiteral("human:bob"));
    QCOMPARE(teamAudit(id, QStringLiteral("vote")).size(), std::size_t(1));
    verifyAudits(gateway);
}

void tst_TeamApprovals::editResetsAndTheAgentRunsOnlyWhatTwoApproved()
{
    Waiting w = waiting("e1", "deploy", "dave");
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;
    QVERIFY(ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id })
                .out.contains("\"voted\""));
    // bob edits: his approval of the new arguments; alice's no longer counts.
    const CtlResult edit = ctlAs(QStringLiteral("bob_login"),
        { QStringLiteral("edit"), id, QStringLiteral("--args"),
            QStringLiteral(R"({"target": "staging"})") });
    QVERIFY2(edit.exitCode == 0 && edit.out.contains("\"voted\""),
        QByteArray(edit.out + edit.err).constData());
    Json item = teamItem("e1");
    QCOMPARE(item.value("approvals_given", -1), 1);
    QCOMPARE(item["edited_args"], (Json { { "target", "staging" } }));
    QVERIFY(agent->noneOf("decision"));
    // bob again: refused, it is someone else's turn.
    QVERIFY(ctlAs(QStringLiteral("bob_login"), { QStringLiteral("approve"), id }).exitCode != 0);
    QVERIFY(agent->noneOf("decision"));
    // alice approves what stands now: the edited arguments run.
    const CtlResult a = ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id });
    QVERIFY2(a.exitCode == 0, a.err.constData());
    const Json d = agent->next("decision");
    QCOMPARE(str(d, "decision"), QStringLiteral("modify"));
    QCOMPARE(d["args"], (Json { { "target", "staging" } }));
    QCOMPARE(str(d, "decided_by"), QStringLiteral("human:bob,human:alice"));
    QVERIFY(agent->noneOf("decision"));
    const Json votes = teamAudit(id, QStringLiteral("vote"));
    QCOMPARE(votes.size(), std::size_t(3));
    QCOMPARE(str(votes[1], "verdict"), QStringLiteral("edit"));
    QCOMPARE(str(votes[2], "args_sha256"), str(votes[1], "args_sha256"));
    QVERIFY(str(votes[0], "args_sha256") != str(votes[1], "args_sha256"));
    verifyAudits(gateway);
}

void tst_TeamApprovals::editWithKeepCountsTheEarlierApproval()
{
    Waiting w = waiting("k1", "release", "dave");
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;
    QVERIFY(ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id })
                .out.contains("\"voted\""));
    const CtlResult edit = ctlAs(QStringLiteral("bob_login"),
        { QStringLiteral("edit"), id, QStringLiteral("--args"),
            QStringLiteral(R"({"target": "canary"})") });
    QVERIFY2(edit.exitCode == 0 && !edit.out.contains("\"voted\""),
        QByteArray(edit.out + edit.err).constData());
    const Json d = agent->next("decision");
    QCOMPARE(str(d, "decision"), QStringLiteral("modify"));
    QCOMPARE(d["args"], (Json { { "target", "canary" } }));
    QCOMPARE(str(d, "decided_by"), QStringLiteral("human:alice,human:bob"));
    verifyAudits(gateway);
}

void tst_TeamApprovals::timeoutAtOneOfTwoIsADeny()
{
    Waiting w
        = waiting("t1", "deploy", "dave", { QStringLiteral("--timeout"), QStringLiteral("3") });
    QVERIFY(w.ok());
    ConsoleProcess &gateway = *w.gateway;
    TestSocket *agent = w.agent.get();
    const QString id = w.id;
    QVERIFY(ctlAs(QStringLiteral("alice_login"), { QStringLiteral("approve"), id })
                .out.contains("\"voted\""));
    const Json d = agent->next("decision", 20'000);
    QCOMPARE(str(d, "decision"), QStringLiteral("deny"));
    QCOMPARE(str(d, "code"), QStringLiteral("timeout"));
    // The vote stays in the audit, beside the timeout.
    QVERIFY(
        QTest::qWaitFor([&] { return teamAudit(id, QStringLiteral("vote")).size() == 1; }, WaitMs));
    QCOMPARE(str(teamAudit(id, QStringLiteral("vote"))[0], "reviewer"), QStringLiteral("alice"));
    verifyAudits(gateway);
}

QTEST_GUILESS_MAIN(tst_TeamApprovals)
#include "tst_team_approvals.moc"
