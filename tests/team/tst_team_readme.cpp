// SPDX-License-Identifier: Apache-2.0
// The README's "Team mode" commands, run as written: the test reads the sh
// block under that heading and runs each line through /bin/sh with
// `holdpoint` and `holdpoint-ctl` first on PATH and libpq's PG* variables
// pointing at a PostgreSQL the test starts itself. Step 2 runs as a member
// of holdpoint_gateway, step 3 as a member of holdpoint_reviewer, as the
// README's comments say.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"

#include <QtTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

struct Step
{
    int number = 0; // from the comment "# N. ..."
    QString line;
};

// The commands of the first ```sh block after "## Team mode", with the
// number of the step each belongs to.
std::vector<Step> readmeSteps(QString *error)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/README.md"));
    if (!f.open(QIODevice::ReadOnly)) {
        *error = f.errorString();
        return {};
    }
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    const qsizetype heading = lines.indexOf(QStringLiteral("## Team mode"));
    if (heading < 0) {
        *error = QStringLiteral("README.md has no \"## Team mode\" section");
        return {};
    }
    std::vector<Step> steps;
    int number = 0;
    bool inBlock = false;
    static const QRegularExpression stepComment(QStringLiteral("^#\\s*(\\d+)\\."));
    for (qsizetype i = heading + 1; i < lines.size(); ++i) {
        const QString line = lines[i].trimmed();
        if (!inBlock) {
            if (line.startsWith(QLatin1String("## ")))
                break;
            inBlock = line == QLatin1String("```sh");
            continue;
        }
        if (line == QLatin1String("```"))
            return steps;
        if (const auto m = stepComment.match(line); m.hasMatch())
            number = m.captured(1).toInt();
        else if (!line.isEmpty() && !line.startsWith(QLatin1Char('#')))
            steps.push_back({ number, line });
    }
    *error = QStringLiteral("no ```sh block closed in the Team mode section");
    return {};
}

} // namespace

class tst_TeamReadme final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theReadmeCommandsWorkAsWritten();

private:
    // The environment a line of step `step` runs in: the README's tools on
    // PATH, libpq pointed at the cluster, as the role the step names.
    QProcessEnvironment envFor(int step, const QString &dataDir = {}) const
    {
        QProcessEnvironment env = PgCluster::cleanEnvironment();
        env.insert(QStringLiteral("PATH"),
            m_bin.path() + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
        env.insert(QStringLiteral("PGHOST"), m_pg.socketDir());
        env.insert(QStringLiteral("PGPORT"), QString::number(m_pg.port()));
        env.insert(QStringLiteral("PGUSER"),
            step == 2       ? QStringLiteral("ci_runner_7")
                : step == 3 ? QStringLiteral("alice")
                            : m_pg.adminUser());
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        if (!dataDir.isEmpty())
            env.insert(QStringLiteral("HOLDPOINT_DATA_DIR"), dataDir);
        env.remove(QStringLiteral("HOLDPOINT_TEAM_URL"));
        env.remove(QStringLiteral("HOLDPOINT_REVIEWER"));
        return env;
    }
    std::unique_ptr<QProcess> shell(const Step &step, const QString &dataDir = {}) const
    {
        auto p = std::make_unique<QProcess>();
        p->setWorkingDirectory(QStringLiteral(HOLDPOINT_SOURCE_DIR));
        p->setProcessEnvironment(envFor(step.number, dataDir));
        p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // exec: the console is the shell's process, so its pid is ours.
        p->start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"), QStringLiteral("exec ") + step.line });
        return p;
    }
    bool ready(QProcess &p, const QString &dataDir, EndpointInfo *info) const
    {
        QString error;
        return QTest::qWaitFor(
            [&] {
                return p.state() == QProcess::Running
                    && readEndpointInfo(dataDir, true, info, &error) && info->pid == p.processId();
            },
            WaitMs);
    }

    PgCluster m_pg;
    QTemporaryDir m_bin;
    QTemporaryDir m_data;
};

void tst_TeamReadme::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
    QVERIFY(
        QFile::link(QStringLiteral(HOLDPOINT_BIN), m_bin.filePath(QStringLiteral("holdpoint"))));
    QVERIFY(QFile::link(
        QStringLiteral(HOLDPOINT_CTL_BIN), m_bin.filePath(QStringLiteral("holdpoint-ctl"))));
}

void tst_TeamReadme::theReadmeCommandsWorkAsWritten()
{
    QString error;
    const std::vector<Step> steps = readmeSteps(&error);
    QVERIFY2(!steps.empty(), qPrintable(error));

    // Step 1 runs to completion; steps 2 and 3 start the long-running
    // gateway and console, stopped when the test ends, however it ends.
    std::unique_ptr<QProcess> gateway, console;
    const auto stop = qScopeGuard([&] {
        for (QProcess *p : { gateway.get(), console.get() }) {
            if (!p || p->state() == QProcess::NotRunning)
                continue;
            p->terminate();
            if (!p->waitForFinished(WaitMs)) {
                p->kill();
                p->waitForFinished(WaitMs);
            }
        }
    });
    const QString gatewayData = m_data.filePath(QStringLiteral("gateway"));
    const QString consoleData = m_data.filePath(QStringLiteral("alice"));
    for (const Step &step : steps) {
        if (step.number == 1) {
            auto p = shell(step);
            QVERIFY2(p->waitForFinished(WaitMs * 3) && p->exitStatus() == QProcess::NormalExit
                    && p->exitCode() == 0,
                qPrintable(QStringLiteral("step 1 failed: ") + step.line));
            if (step.line.contains(QLatin1String("roles.sql"))) {
                // Login roles in the README's groups, as roles.sql's own
                // comment shows.
                QVERIFY2(
                    m_pg.psql(QStringLiteral("holdpoint"),
                        QStringLiteral("CREATE ROLE ci_runner_7 LOGIN IN ROLE holdpoint_gateway;"
                                       "CREATE ROLE alice LOGIN IN ROLE holdpoint_reviewer;")),
                    qPrintable(m_pg.lastError()));
            }
        } else if (step.number == 2) {
            QVERIFY2(!gateway, "two gateway commands");
            gateway = shell(step, gatewayData);
        } else if (step.number == 3) {
            QVERIFY2(!console, "two console commands");
            console = shell(step, consoleData);
        } else {
            QFAIL(qPrintable(QStringLiteral("a command outside steps 1-3: ") + step.line));
        }
    }
    QVERIFY2(gateway && console, "the README has no gateway or no console command");
    EndpointInfo gatewayInfo, consoleInfo;
    QVERIFY2(ready(*gateway, gatewayData, &gatewayInfo), "the gateway did not start");
    QVERIFY2(ready(*console, consoleData, &consoleInfo), "the reviewer console did not start");

    // An agent on the gateway's host; its call waits in the team, and the
    // reviewer's console shows it with the gateway's host.
    TestSocket agent;
    QVERIFY(agent.hello(gatewayInfo.url, gatewayInfo.agentToken.toStdString()).is_object());
    TestSocket reviewer;
    QVERIFY(reviewer.hello(consoleInfo.url, consoleInfo.reviewerToken.toStdString(), "reviewer")
                .is_object());
    agent.send(Json { { "type", "tool_call" }, { "call_id", "readme-1" }, { "tool_name", "deploy" },
        { "args", { { "target", "prod" } } } });
    const Json escalated = reviewer.next("escalated");
    QVERIFY2(escalated.is_object(), "the escalation did not reach the reviewer's console");
    const std::string id = escalated["item"].value("id", std::string());
    QVERIFY(escalated["item"]["team"].value("host", std::string()).size() > 0);

    // The gateway's role may not decide, even through the database.
    QProcess asGateway;
    asGateway.setProcessEnvironment(envFor(2));
    asGateway.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--team"), QStringLiteral("dbname=holdpoint"), QStringLiteral("approve"),
            QString::fromStdString(id) });
    const CtlResult refused = finish(asGateway);
    QVERIFY2(refused.exitCode != 0 && refused.err.contains("privilege"), refused.err.constData());

    // The reviewer approves in her console; the agent has the decision.
    QProcess approve;
    approve.setProcessEnvironment(envFor(3));
    approve.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), consoleData, QStringLiteral("approve"),
            QString::fromStdString(id) });
    const CtlResult approved = finish(approve);
    QVERIFY2(approved.exitCode == 0, approved.err.constData());
    const Json decision = agent.next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("human:alice"));
}

QTEST_GUILESS_MAIN(tst_TeamReadme)
#include "tst_team_readme.moc"
