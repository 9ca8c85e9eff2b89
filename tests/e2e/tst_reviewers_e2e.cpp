// SPDX-License-Identifier: Apache-2.0
// Alone mode's second reviewer (issue 26), with real processes: the owner
// of a `holdpoint --headless` gives bob a credential with `holdpoint-ctl
// reviewer add`, and calls that need two people are decided by the owner's
// reviewer token and bob's, each named by the token it came with.

#include "common/consoleprocess.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

std::string ownOsUser()
{
    const passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_name ? pw->pw_name : std::string();
}

QString writeFile(const QString &path, const QByteArray &bytes, QFileDevice::Permissions mode)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        return {};
    f.close();
    return QFile::setPermissions(path, mode) ? path : QString();
}

int modeOf(const QString &path)
{
    struct stat st
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
}

constexpr QFileDevice::Permissions Private = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

// Every record of the console's audit log, oldest first.
std::vector<Json> auditRecords(const ConsoleProcess &console)
{
    std::vector<Json> out;
    const CtlResult r = console.ctl({ QStringLiteral("audit"), QStringLiteral("export") });
    for (const QByteArray &line : r.out.split('\n'))
        if (!line.isEmpty())
            out.push_back(Json::parse(line.toStdString(), nullptr, false));
    return out;
}

} // namespace

class TestReviewersE2E : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void twoPeopleDecide();
    void removedReviewerIsRefusedAndClosed();
    void reviewerNameCannotBeChosen();
    void requesterMayNotApprove();
    void votesSurviveARestart();
    void timeoutAtOneOfTwoIsADeny();
    void badCredentials_data();
    void badCredentials();
    void addRefuses_data();
    void addRefuses();
    void untrustedReviewersFileAdmitsNobody();

private:
    // A console needing `required` approvals on every call, with bob added.
    std::unique_ptr<ConsoleProcess> startConsole(const QString &approvals);
    CtlResult addReviewer(const QString &name, const QString &osUser, QString *credential);
    CtlResult asBob(const QStringList &args) const;
    QString submitAndWait(std::unique_ptr<QProcess> *submit);

    std::unique_ptr<QTemporaryDir> m_tmp;
    std::unique_ptr<ConsoleProcess> m_console;
    std::unique_ptr<TestSocket> m_owner;
    QString m_bob;
};

void TestReviewersE2E::init()
{
    m_owner.reset();
    m_console.reset();
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
}

std::unique_ptr<ConsoleProcess> TestReviewersE2E::startConsole(const QString &approvals)
{
    const QString policy = writeFile(m_tmp->filePath(QStringLiteral("policy.json")),
        QStringLiteral(R"({"default": "ask", "default_approvals": %1})").arg(approvals).toUtf8(),
        Private);
    auto console
        = std::make_unique<ConsoleProcess>(QStringList { QStringLiteral("--policy"), policy });
    if (!console->ready())
        return nullptr;
    return console;
}

CtlResult TestReviewersE2E::addReviewer(
    const QString &name, const QString &osUser, QString *credential)
{
    *credential = m_tmp->filePath(name + QStringLiteral(".json"));
    QStringList args { QStringLiteral("reviewer"), QStringLiteral("add"), name,
        QStringLiteral("--out"), *credential };
    if (!osUser.isEmpty())
        args += { QStringLiteral("--os-user"), osUser };
    return m_console->ctl(args);
}

CtlResult TestReviewersE2E::asBob(const QStringList &args) const
{
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        QStringList { QStringLiteral("--credential"), m_bob } + args);
    return finish(p);
}

// Starts `holdpoint-ctl submit` and returns the id of its queue item.
QString TestReviewersE2E::submitAndWait(std::unique_ptr<QProcess> *submit)
{
    *submit = m_console->startCtl({ QStringLiteral("submit"), QStringLiteral("--tool"),
        QStringLiteral("deploy"), QStringLiteral("--args"), QStringLiteral(R"({"env":"prod"})"),
        QStringLiteral("--agent"), QStringLiteral("ci") });
    const Json escalated = m_owner->next("escalated");
    return escalated.is_object()
        ? QString::fromStdString(escalated["item"]["id"].get<std::string>())
        : QString();
}

void TestReviewersE2E::twoPeopleDecide()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    const CtlResult added = addReviewer(QStringLiteral("bob"), QStringLiteral("bob-e2e"), &m_bob);
    QCOMPARE(added.exitCode, 0);
    QVERIFY2(added.out.contains("added reviewer bob (OS user bob-e2e)"), added.out.constData());

    // The credential is bob's alone; the data directory keeps a digest.
    QCOMPARE(modeOf(m_bob), 0600);
    QFile credentialFile(m_bob);
    QVERIFY(credentialFile.open(QIODevice::ReadOnly));
    const CredentialParse credential = parseCredentialFile(credentialFile.readAll().toStdString());
    QVERIFY2(credential.error.empty(), credential.error.c_str());
    QCOMPARE(credential.credential.url, m_console->info().url.toString().toStdString());
    const QString reviewersPath = m_console->dataDir() + QStringLiteral("/reviewers.json");
    QFile reviewers(reviewersPath);
    QVERIFY(reviewers.open(QIODevice::ReadOnly));
    const QByteArray stored = reviewers.readAll();
    QVERIFY(!stored.contains(QByteArray::fromStdString(credential.credential.token)));
    QVERIFY(stored.contains(QByteArray::fromStdString(sha256Hex(credential.credential.token))));
    QCOMPARE(modeOf(reviewersPath), 0600);
    QVERIFY(!added.out.contains(QByteArray::fromStdString(credential.credential.token)));
    const Json listed = m_console
                            ->ctl({ QStringLiteral("reviewer"), QStringLiteral("list"),
                                QStringLiteral("--json") })
                            .json();
    QCOMPARE(listed.size(), std::size_t(1));
    QCOMPARE(listed[0]["name"], Json("bob"));
    QCOMPARE(listed[0]["os_user"], Json("bob-e2e"));
    QVERIFY(!listed[0].contains("token_sha256"));

    m_owner = m_console->reviewer();
    QVERIFY(m_owner);
    std::unique_ptr<QProcess> submit;
    const QString id = submitAndWait(&submit);
    QVERIFY(!id.isEmpty());

    // bob first; his second approval is his, again, and does not count.
    const CtlResult first = asBob({ QStringLiteral("approve"), id });
    QCOMPARE(first.exitCode, 0);
    QCOMPARE(first.json()["type"], Json("voted"));
    QCOMPARE(first.json()["approvals"], Json(1));
    const CtlResult again = asBob(
        { QStringLiteral("approve"), id, QStringLiteral("--reviewer"), QStringLiteral("bob") });
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("bob approved these arguments already"), again.err.constData());
    QCOMPARE(submit->state(), QProcess::Running);

    const CtlResult owner = m_console->ctl({ QStringLiteral("approve"), id });
    QCOMPARE(owner.exitCode, 0);
    QCOMPARE(owner.json()["type"], Json("reviewed"));
    const CtlResult submitted = finish(*submit);
    QCOMPARE(submitted.exitCode, 0);
    const std::string decidedBy = "human:bob,human:" + ownOsUser();
    QCOMPARE(submitted.json()["decision"], Json("allow"));
    QCOMPARE(submitted.json()["decided_by"], Json(decidedBy));

    // The log says who, and how each authenticated.
    std::vector<Json> votes;
    Json decision;
    for (const Json &r : auditRecords(*m_console)) {
        if (r.value("item", std::string()) != id.toStdString())
            continue;
        if (r.value("event", std::string()) == "vote")
            votes.push_back(r);
        else if (r.value("event", std::string()) == "decision")
            decision = r;
    }
    QCOMPARE(votes.size(), std::size_t(2)); // bob's second approval is not one
    QCOMPARE(votes[0]["reviewer"], Json("bob"));
    QCOMPARE(votes[0]["decided_by"], Json("human:bob"));
    QCOMPARE(votes[1]["reviewer"], Json(ownOsUser()));
    // bob's named credential and the owner's reviewer token say which they were.
    QCOMPARE(votes[0]["via"], Json("reviewer credential (holdpoint-ctl)"));
    QCOMPARE(votes[1]["via"], Json("reviewer token (holdpoint-ctl)"));
    QVERIFY(decision.is_object());
    QCOMPARE(decision["decided_by"], Json(decidedBy));
    QCOMPARE(decision["approvers"], (Json { "bob", ownOsUser() }));
    // Adding bob is on the record too, without his token or its digest.
    std::vector<Json> changes;
    for (const Json &r : auditRecords(*m_console))
        if (r.value("event", std::string()) == "reviewers_changed")
            changes.push_back(r);
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0]["reviewers"], (Json::parse(R"([{"name": "bob", "os_user": "bob-e2e"}])")));
    QVERIFY(dumpJson(changes[0]).find(credential.credential.token) == std::string::npos);
    QVERIFY(dumpJson(changes[0]).find(sha256Hex(credential.credential.token)) == std::string::npos);
}

void TestReviewersE2E::removedReviewerIsRefusedAndClosed()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    QCOMPARE(addReviewer(QStringLiteral("bob"), {}, &m_bob).exitCode, 0);
    QCOMPARE(asBob({ QStringLiteral("pending") }).exitCode, 0);

    QFile f(m_bob);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const CredentialParse credential = parseCredentialFile(f.readAll().toStdString());
    TestSocket bob;
    QVERIFY(bob.hello(m_console->info().url, credential.credential.token, "reviewer").is_object());
    QVERIFY(bob.next("queue").is_object());

    const CtlResult removed = m_console->ctl(
        { QStringLiteral("reviewer"), QStringLiteral("remove"), QStringLiteral("bob") });
    QCOMPARE(removed.exitCode, 0);
    // The open connection is closed, told why, without a restart.
    const Json error = bob.next("error");
    QCOMPARE(error["code"], Json("auth_failed"));
    QVERIFY(error["message"].get<std::string>().find("bob is no longer") != std::string::npos);
    QVERIFY(bob.waitClosed());

    const CtlResult refused = asBob({ QStringLiteral("pending") });
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("auth_failed"), refused.err.constData());
    QVERIFY2(refused.err.contains("ask them for a new one"), refused.err.constData());
    // The removal is on the record: the console now admits nobody else.
    QVERIFY(QTest::qWaitFor(
        [&] {
            Json last;
            for (const Json &r : auditRecords(*m_console))
                if (r.value("event", std::string()) == "reviewers_changed")
                    last = r;
            return last.is_object() && last["reviewers"] == Json::array();
        },
        WaitMs));
    QVERIFY(m_console->ctl({ QStringLiteral("reviewer"), QStringLiteral("list") })
                .out.startsWith("no reviewers"));
    const CtlResult twice = m_console->ctl(
        { QStringLiteral("reviewer"), QStringLiteral("remove"), QStringLiteral("bob") });
    QCOMPARE(twice.exitCode, 2);
    QVERIFY(twice.err.contains("no reviewer \"bob\""));
}

void TestReviewersE2E::reviewerNameCannotBeChosen()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    QCOMPARE(addReviewer(QStringLiteral("bob"), {}, &m_bob).exitCode, 0);
    m_owner = m_console->reviewer();
    QVERIFY(m_owner);
    std::unique_ptr<QProcess> submit;
    const QString id = submitAndWait(&submit);
    QVERIFY(!id.isEmpty());

    const CtlResult spoofed = asBob(
        { QStringLiteral("approve"), id, QStringLiteral("--reviewer"), QStringLiteral("alice") });
    QCOMPARE(spoofed.exitCode, 2);
    QVERIFY2(
        spoofed.err.contains("reviewer \"alice\"") && spoofed.err.contains("use --reviewer bob"),
        spoofed.err.constData());
    // Nothing reached the console: the call still needs two approvals.
    const Json pending
        = m_console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(pending.size(), std::size_t(1));
    QVERIFY(!pending[0].contains("votes") || pending[0]["votes"].empty());
    // The variable counts like the option.
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOLDPOINT_REVIEWER"), QStringLiteral("alice"));
    env.insert(QStringLiteral("HOLDPOINT_CREDENTIAL"), m_bob);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN), { QStringLiteral("approve"), id });
    const CtlResult fromEnv = finish(p);
    QCOMPARE(fromEnv.exitCode, 2);
    QVERIFY(fromEnv.err.contains("use --reviewer bob"));
    // The owner's token is the owner: another name is refused, not recorded.
    const CtlResult owner = m_console->ctl(
        { QStringLiteral("approve"), id, QStringLiteral("--reviewer"), QStringLiteral("mallory") });
    QCOMPARE(owner.exitCode, 2);
    QVERIFY2(owner.err.contains("reviewer \"mallory\"")
            && owner.err.contains(QByteArray::fromStdString("use --reviewer " + ownOsUser())),
        owner.err.constData());
    QVERIFY(m_console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") })
                .json()[0]["votes"]
                .empty());
    submit->kill();
    submit->waitForFinished(WaitMs);
}

void TestReviewersE2E::requesterMayNotApprove()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2, "exclude_requester": true})"));
    QVERIFY(m_console);
    QString carol;
    QCOMPARE(addReviewer(QStringLiteral("carol"), QStringLiteral("carol-e2e"), &carol).exitCode, 0);
    QCOMPARE(addReviewer(QStringLiteral("bob"), QStringLiteral("bob-e2e"), &m_bob).exitCode, 0);
    m_owner = m_console->reviewer();
    QVERIFY(m_owner);

    // An agent carol started: the hello says so (hooks send their process owner).
    TestSocket agent;
    QVERIFY(agent.open(m_console->info().url));
    agent.send({ { "type", "hello" }, { "protocol", 1 },
        { "token", m_console->info().agentToken.toStdString() },
        { "agent", { { "name", "coder" }, { "user", "carol-e2e" } } } });
    QVERIFY(agent.next("welcome").is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", "deploy" },
        { "args", { { "env", "prod" } } } });
    const Json escalated = m_owner->next("escalated");
    QVERIFY(escalated.is_object());
    const QString id = QString::fromStdString(escalated["item"]["id"].get<std::string>());

    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--credential"), carol, QStringLiteral("approve"), id });
    const CtlResult refused = finish(p);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("forbidden") && refused.err.contains("carol started this agent"),
        refused.err.constData());
    QCOMPARE(asBob({ QStringLiteral("approve"), id }).json()["approvals"], Json(1));
    QCOMPARE(m_console->ctl({ QStringLiteral("approve"), id }).json()["type"], Json("reviewed"));
    const Json d = agent.next("decision");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["decided_by"], Json("human:bob,human:" + ownOsUser()));
}

void TestReviewersE2E::votesSurviveARestart()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    QCOMPARE(addReviewer(QStringLiteral("bob"), QStringLiteral("bob-e2e"), &m_bob).exitCode, 0);
    const QString data = m_console->dataDir();
    const QStringList extra { QStringLiteral("--policy"),
        m_tmp->filePath(QStringLiteral("policy.json")) };
    const Json call { { "type", "tool_call" }, { "call_id", "r1" }, { "tool_name", "deploy" },
        { "args", { { "env", "prod" } } } };
    QString id;
    // An agent that says which OS user started it, as every client we ship does.
    const auto agentAs = [](const ConsoleProcess &console) {
        auto s = std::make_unique<TestSocket>();
        if (!s->open(console.info().url))
            return std::unique_ptr<TestSocket>();
        s->send(Json { { "type", "hello" }, { "protocol", 1 }, { "role", "agent" },
            { "session_id", "s-restart" }, { "token", console.info().agentToken.toStdString() },
            { "agent", { { "name", "deployer" }, { "user", "dave" } } } });
        return s->next("welcome").is_object() ? std::move(s) : std::unique_ptr<TestSocket>();
    };
    {
        auto agent = agentAs(*m_console);
        QVERIFY(agent);
        agent->send(call);
        QVERIFY(agent->next("pending").is_object());
        const Json items
            = m_console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        QCOMPARE(items.size(), std::size_t(1));
        id = QString::fromStdString(items[0]["id"].get<std::string>());
        QCOMPARE(asBob({ QStringLiteral("approve"), id }).json()["approvals"], Json(1));
        // Killed, as a crash would: the vote is in the log already.
        ::kill(pid_t(m_console->process().processId()), SIGKILL);
        QVERIFY(m_console->process().waitForFinished(WaitMs));
    }
    // On the same data directory: the console on another port, bob's
    // credential re-issued for it (the token itself is unchanged).
    ConsoleProcess again(data, extra);
    QVERIFY(again.ready());
    QFile credentialFile(m_bob);
    QVERIFY(credentialFile.open(QIODevice::ReadOnly));
    Json credential = Json::parse(credentialFile.readAll().toStdString());
    credentialFile.close();
    credential["url"] = again.info().url.toString().toStdString();
    QVERIFY(!writeFile(m_bob, QByteArray::fromStdString(dumpJson(credential)), Private).isEmpty());
    // Restored from the log, before the agent is back: who started it too.
    const Json restored = again.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(restored.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(restored[0]["agent"].value("user", std::string())),
        QStringLiteral("dave"));

    auto agent = agentAs(again);
    QVERIFY(agent);
    agent->send(call);
    QVERIFY(agent->next("pending").is_object());
    const Json items = again.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(items.size(), std::size_t(1));
    QCOMPARE(items[0]["id"], Json(id.toStdString()));
    if (items[0]["approvals_given"] != Json(1))
        for (const Json &r : auditRecords(again))
            qWarning("%s", r.dump().c_str());
    QVERIFY2(items[0]["approvals_given"] == Json(1), items[0].dump().c_str());
    QCOMPARE(items[0]["votes"][0]["reviewer"], Json("bob"));
    // Still bob's: his approval counts once, after the restart too.
    const CtlResult twice = asBob({ QStringLiteral("approve"), id });
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("bob approved these arguments already"), twice.err.constData());
    QCOMPARE(again.ctl({ QStringLiteral("approve"), id }).json()["type"], Json("reviewed"));
    const Json d = agent->next("decision");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["decided_by"], Json("human:bob,human:" + ownOsUser()));
    const CtlResult verify = again.ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void TestReviewersE2E::timeoutAtOneOfTwoIsADeny()
{
    const QString policy = writeFile(m_tmp->filePath(QStringLiteral("policy.json")),
        QByteArrayLiteral(R"({"default": "ask", "default_approvals": {"required": 2}})"), Private);
    m_console = std::make_unique<ConsoleProcess>(QStringList {
        QStringLiteral("--policy"), policy, QStringLiteral("--timeout"), QStringLiteral("2") });
    QVERIFY(m_console->ready());
    m_owner = m_console->reviewer();
    QVERIFY(m_owner);
    std::unique_ptr<QProcess> submit;
    const QString id = submitAndWait(&submit);
    QVERIFY(!id.isEmpty());
    QCOMPARE(m_console->ctl({ QStringLiteral("approve"), id }).json()["type"], Json("voted"));
    const CtlResult submitted = finish(*submit);
    QCOMPARE(submitted.json()["decision"], Json("deny"));
    QCOMPARE(submitted.json()["code"], Json("timeout"));
    int votes = 0;
    for (const Json &r : auditRecords(*m_console))
        if (r.value("item", std::string()) == id.toStdString()
            && r.value("event", std::string()) == "vote")
            ++votes;
    QCOMPARE(votes, 1);
    const CtlResult verify = m_console->ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void TestReviewersE2E::badCredentials_data()
{
    QTest::addColumn<QByteArray>("content"); // empty: no such file
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("message");
    const QByteArray good
        = R"({"version": 1, "kind": "holdpoint-reviewer-credential", "url": "ws://127.0.0.1:1/",
        "reviewer": "bob", "token": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})";
    QTest::newRow("missing") << QByteArray() << 0600 << "no credential";
    QTest::newRow("readable by others") << good << 0644 << "permissions 0644";
    QTest::newRow("group writable") << good << 0620 << "are too open";
    QTest::newRow("not JSON") << QByteArray("token=abc") << 0600 << "is not a reviewer credential";
    QByteArray unknown = good;
    unknown.replace("\"version\"", "\"expires\": 0, \"version\"");
    QTest::newRow("unknown field") << unknown << 0600 << "expires: unknown field";
    QByteArray version = good;
    version.replace("\"version\": 1", "\"version\": 2");
    QTest::newRow("other version") << version << 0600 << "version: expected 1, got 2";
    QByteArray shortToken = good;
    shortToken.replace("0123456789abcdef\"", "\"");
    QTest::newRow("short token") << shortToken << 0600 << "token: expected 64 lowercase hex digits";
    QByteArray badName = good;
    badName.replace("\"bob\"", "\"bob smith\"");
    QTest::newRow("bad name") << badName << 0600 << "reviewer: expected a letter or digit";
}

void TestReviewersE2E::badCredentials()
{
    QFETCH(QByteArray, content);
    QFETCH(int, mode);
    QFETCH(QString, message);
    const QString path = m_tmp->filePath(QStringLiteral("cred.json"));
    if (!content.isEmpty()) {
        QVERIFY(!writeFile(path, content, Private).isEmpty());
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(mode)), 0);
    }
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("pending"), QStringLiteral("--credential"), path });
    const CtlResult r = finish(p);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(!r.err.contains("0123456789abcdef0123"));
}

void TestReviewersE2E::addRefuses_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString self = QString::fromStdString(ownOsUser());
    QTest::newRow("bad name") << QStringList { QStringLiteral("add"), QStringLiteral("bob smith") }
                              << "is not a reviewer name";
    QTest::newRow("too long") << QStringList { QStringLiteral("add"), QString(40, u'a') }
                              << "longer than 32";
    QTest::newRow("the owner") << QStringList { QStringLiteral("add"), self }
                               << "is you, the console's own reviewer";
    QTest::newRow("the owner's OS user") << QStringList { QStringLiteral("add"),
        QStringLiteral("me2"), QStringLiteral("--os-user"), self }
                                         << "is you; a second reviewer is another person";
    QTest::newRow("taken") << QStringList { QStringLiteral("add"), QStringLiteral("bob") }
                           << "reviewer bob exists (added";
    QTest::newRow("same person twice") << QStringList { QStringLiteral("add"),
        QStringLiteral("robert"), QStringLiteral("--os-user"), QStringLiteral("bob") }
                                       << "OS user bob is reviewer bob already";
    QTest::newRow("file exists") << QStringList { QStringLiteral("add"), QStringLiteral("dave"),
        QStringLiteral("--out"), QStringLiteral("EXISTING") }
                                 << "exists; remove it or give another --out FILE";
    QTest::newRow("remove nobody")
        << QStringList { QStringLiteral("remove"), QStringLiteral("zed") } << "no reviewer \"zed\"";
    QTest::newRow("unknown sub") << QStringList { QStringLiteral("rotate"), QStringLiteral("bob") }
                                 << "expected `add NAME";
    QTest::newRow("credential") << QStringList { QStringLiteral("list"),
        QStringLiteral("--credential"), QStringLiteral("x") }
                                << "Unknown option 'credential'";
}

void TestReviewersE2E::addRefuses()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    QCOMPARE(addReviewer(QStringLiteral("bob"), {}, &m_bob).exitCode, 0);
    QFile reviewers(m_console->dataDir() + QStringLiteral("/reviewers.json"));
    QVERIFY(reviewers.open(QIODevice::ReadOnly));
    const QByteArray before = reviewers.readAll();
    args.replaceInStrings(QStringLiteral("EXISTING"), m_bob);
    const CtlResult r = m_console->ctl(QStringList { QStringLiteral("reviewer") } + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    reviewers.seek(0);
    QCOMPARE(reviewers.readAll(), before); // unchanged: each refusal comes before any write
}

void TestReviewersE2E::untrustedReviewersFileAdmitsNobody()
{
    m_console = startConsole(QStringLiteral(R"({"required": 2})"));
    QVERIFY(m_console);
    QCOMPARE(addReviewer(QStringLiteral("bob"), {}, &m_bob).exitCode, 0);
    const QString path = m_console->dataDir() + QStringLiteral("/reviewers.json");

    // Writable by others: anyone could add themselves, so nobody is admitted.
    QVERIFY(QFile::setPermissions(path, Private | QFileDevice::WriteOther));
    const CtlResult open = asBob({ QStringLiteral("pending") });
    QCOMPARE(open.exitCode, 2);
    QVERIFY2(open.err.contains("auth_failed"), open.err.constData());
    const CtlResult listed = m_console->ctl({ QStringLiteral("reviewer"), QStringLiteral("list") });
    QCOMPARE(listed.exitCode, 2);
    QVERIFY2(listed.err.contains("are too open"), listed.err.constData());
    QVERIFY(QFile::setPermissions(path, Private));
    QCOMPARE(asBob({ QStringLiteral("pending") }).exitCode, 0);

    // A field this version does not know: refused, with where.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("\"added\"", "\"role\": \"admin\", \"added\"");
    QVERIFY(!writeFile(path, text, Private).isEmpty());
    const CtlResult unknown
        = m_console->ctl({ QStringLiteral("reviewer"), QStringLiteral("list") });
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("reviewers[0].role: unknown field"), unknown.err.constData());
    QCOMPARE(asBob({ QStringLiteral("pending") }).exitCode, 2);
}

QTEST_GUILESS_MAIN(TestReviewersE2E)
#include "tst_reviewers_e2e.moc"
