// SPDX-License-Identifier: Apache-2.0
// The window in team mode: real consoles with their windows (offscreen), a
// real gateway process with an agent, on a PostgreSQL the test starts.

#include "activitymodels.h"
#include "common/consoleprocess.h"
#include "common/pgcluster.h"
#include "common/tcpproxy.h"
#include "team/teamdb.h"
#include "team/teamstore.h"

#include "engine/consolecore.h"
#include "mainwindow.h"
#include <pqxx/pqxx>

#include <QApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QtTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// A reviewer's console in this process, its window shown.
struct TeamWindow
{
    TeamWindow(const QString &url, const std::string &reviewer)
    {
        ConsoleOptions o;
        o.dataDir = dir.path() + QStringLiteral("/data");
        o.broker.reviewerName = reviewer;
        team::TeamConfig t;
        t.url = url.toStdString();
        t.self.kind = "console";
        t.self.host = "desk-" + reviewer;
        t.self.reviewer = reviewer;
        t.requestedReviewer = reviewer;
        t.self.graceMs = o.broker.graceMs;
        core = std::make_unique<ConsoleCore>(
            o, std::make_unique<team::TeamStore>(t, &clock), &clock);
        QString error;
        started = core->start(&error);
        window = std::make_unique<MainWindow>(core.get());
        window->show();
    }
    template <typename T> T *child(const char *name) const
    {
        return window->findChild<T *>(QString::fromLatin1(name));
    }
    // Selects the first row of the queue and waits for the detail pane.
    bool selectFirst() const
    {
        QTableView *view = window->queueView();
        if (!QTest::qWaitFor([&] { return view->model()->rowCount() > 0; }, WaitMs))
            return false;
        view->setCurrentIndex(view->model()->index(0, 0));
        return true;
    }
    QString meta() const { return child<QLabel>("detailMeta")->text(); }

    QTemporaryDir dir;
    SystemClock clock;
    std::unique_ptr<ConsoleCore> core;
    std::unique_ptr<MainWindow> window;
    bool started = false;
};

} // namespace

class tst_TeamWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void redBannerWhileTheDatabaseIsDown();
    void redBannerWhileTheLinkIsSilent();
    void aNameTheLoginDoesNotMapToDecidesNothing();
    void beingEditedByHoldsTheOthersOff();
    void historyTurnsAndAgentsShowTheWholeTeam();

private:
    PgCluster m_pg;
    QString m_db;
    int m_databases = 0;
};

void tst_TeamWindow::initTestCase()
{
    QVERIFY2(m_pg.start(), qPrintable(m_pg.lastError()));
}

void tst_TeamWindow::init()
{
    m_db = QStringLiteral("gui%1").arg(++m_databases);
    QVERIFY2(m_pg.createDatabase(m_db), qPrintable(m_pg.lastError()));
    auto c = team::connect(m_pg.connString(m_db).toStdString());
    team::migrate(*c);
    pqxx::nontransaction tx(*c);
    tx.exec(PgCluster::mapReviewersSql(m_pg.adminUser(),
        { QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol") })
                .toStdString());
}

void tst_TeamWindow::cleanup()
{
    if (!m_pg.isRunning())
        QVERIFY(m_pg.startAgain());
    m_pg.dropDatabase(m_db);
}

void tst_TeamWindow::redBannerWhileTheDatabaseIsDown()
{
    TeamWindow alice(m_pg.connString(m_db), "alice");
    QVERIFY(alice.started);
    auto *banner = alice.child<QLabel>("teamBanner");
    auto *status = alice.child<QLabel>("statusLabel");
    QVERIFY(banner && status);
    QVERIFY(QTest::qWaitFor([&] { return alice.core->teamAvailable(); }, WaitMs));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("team: connected as console-")); },
        WaitMs));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("deciding as alice")); }, WaitMs));
    QVERIFY(!banner->isVisible());

    QVERIFY2(m_pg.stopImmediate(), qPrintable(m_pg.lastError()));
    QVERIFY(QTest::qWaitFor([&] { return banner->isVisible(); }, WaitMs));
    QVERIFY2(banner->text().contains(QLatin1String("team database is unreachable")),
        qPrintable(banner->text()));
    QVERIFY2(
        banner->text().contains(QLatin1String("team_unavailable")), qPrintable(banner->text()));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("team: UNREACHABLE")); }, WaitMs));

    // Back without a restart of the console.
    QVERIFY2(m_pg.startAgain(), qPrintable(m_pg.lastError()));
    QVERIFY(QTest::qWaitFor([&] { return !banner->isVisible(); }, 20'000));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("team: connected as")); }, WaitMs));
}

// A link that goes silent (tests/common/tcpproxy.h) shows as one that is
// down, with the reason, until the console gets through again.
void tst_TeamWindow::redBannerWhileTheLinkIsSilent()
{
    TcpProxy proxy;
    QVERIFY(proxy.start(m_pg.socketPath()));
    TeamWindow alice(QStringLiteral("host=127.0.0.1 port=%1 dbname=%2 user=%3")
                         .arg(QString::number(proxy.port()), m_db, m_pg.adminUser()),
        "alice");
    QVERIFY(alice.started);
    auto *banner = alice.child<QLabel>("teamBanner");
    auto *status = alice.child<QLabel>("statusLabel");
    QVERIFY(banner && status);
    QVERIFY(QTest::qWaitFor([&] { return alice.core->teamAvailable(); }, WaitMs));
    QVERIFY(!banner->isVisible());

    proxy.setHoldNew(true);
    proxy.silence();
    const QLatin1String why("no answer from the team database in 5 s");
    QVERIFY(QTest::qWaitFor([&] { return banner->isVisible(); }, 15'000));
    QVERIFY2(banner->text().contains(why), qPrintable(banner->text()));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("team: UNREACHABLE (") + why); },
        WaitMs));
    proxy.setHoldNew(false);
    QVERIFY(QTest::qWaitFor([&] { return !banner->isVisible(); }, 15'000));
}

void tst_TeamWindow::aNameTheLoginDoesNotMapToDecidesNothing()
{
    // The login maps to alice, bob and carol; "mallory" is a claim.
    TeamWindow mallory(m_pg.connString(m_db), "mallory");
    QVERIFY(mallory.started);
    auto *banner = mallory.child<QLabel>("teamBanner");
    auto *status = mallory.child<QLabel>("statusLabel");
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     return banner->isVisible()
                         && banner->text().contains(QLatin1String("cannot decide them"));
                 },
                 WaitMs),
        qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(
                 QLatin1String("may not decide as \"mallory\"; it decides as: alice, bob, carol")),
        qPrintable(banner->text()));
    // The database's reason, as a person reads it: no SQL labels or context.
    QVERIFY2(!banner->text().contains(QLatin1String("ERROR:"))
            && !banner->text().contains(QLatin1String("CONTEXT")),
        qPrintable(banner->text()));
    QVERIFY(QTest::qWaitFor(
        [&] { return status->text().contains(QLatin1String("deciding as nobody")); }, WaitMs));
    QCOMPARE(mallory.core->reviewerName(), std::string("mallory")); // the claim, never confirmed
    QVERIFY(!mallory.core->reviewerError().isEmpty());
}

void tst_TeamWindow::beingEditedByHoldsTheOthersOff()
{
    const QString url = m_pg.connString(m_db);
    ConsoleProcess gateway({ QStringLiteral("--team"), url });
    QVERIFY(gateway.ready());
    TeamWindow alice(url, "alice");
    TeamWindow bob(url, "bob");
    QVERIFY(alice.started && bob.started);
    auto agent = gateway.agent();
    QVERIFY(agent);
    agent->send(Json { { "type", "tool_call" }, { "call_id", "gui1" }, { "tool_name", "deploy" },
        { "args", { { "target", "prod" } } } });
    QVERIFY(agent->next("pending").is_object());
    QVERIFY(alice.selectFirst() && bob.selectFirst());
    // Each item shows where it came from.
    QVERIFY(
        QTest::qWaitFor([&] { return alice.meta().contains(QLatin1String("gateway-")); }, WaitMs));

    auto *approve = alice.child<QPushButton>("approveButton");
    auto *halt = alice.child<QPushButton>("haltButton");
    QVERIFY(approve && halt);
    QVERIFY(QTest::qWaitFor([&] { return approve->isEnabled(); }, WaitMs));

    // Bob starts editing the arguments: his console takes the lease.
    bob.window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(bob.window.get()));
    auto *editor = bob.child<QPlainTextEdit>("argsEditor");
    QVERIFY(editor);
    editor->setFocus();
    QVERIFY(QTest::qWaitFor(
        [&] { return alice.meta().contains(QLatin1String("BEING EDITED BY bob")); }, WaitMs));
    QVERIFY(!approve->isEnabled());
    QVERIFY(!alice.child<QPushButton>("denyButton")->isEnabled());
    QVERIFY(halt->isEnabled());
    QVERIFY2(approve->toolTip().contains(QLatin1String("being edited by bob")),
        qPrintable(approve->toolTip()));
    QVERIFY(!bob.meta().contains(QLatin1String("BEING EDITED BY")));

    // Bob leaves the editor: the lease goes back and alice may decide.
    bob.window->queueView()->setFocus();
    QVERIFY(QTest::qWaitFor(
        [&] { return !alice.meta().contains(QLatin1String("BEING EDITED BY")); }, WaitMs));
    QVERIFY(approve->isEnabled());
    QTest::mouseClick(approve, Qt::LeftButton);
    const Json decision = agent->next("decision");
    QCOMPARE(decision.value("decision", std::string()), std::string("allow"));
    QCOMPARE(decision.value("decided_by", std::string()), std::string("human:alice"));
    QVERIFY(
        QTest::qWaitFor([&] { return bob.window->queueView()->model()->rowCount() == 0; }, WaitMs));
}

void tst_TeamWindow::historyTurnsAndAgentsShowTheWholeTeam()
{
    const QString url = m_pg.connString(m_db);
    QTemporaryDir dir;
    const QString policy = writeAutoAllowPolicy(dir.path());
    QVERIFY(!policy.isEmpty());
    ConsoleProcess gateway({ QStringLiteral("--team"), url, QStringLiteral("--policy"), policy });
    QVERIFY(gateway.ready());
    TeamWindow alice(url, "alice");
    QVERIFY(alice.started);
    auto agent = gateway.agent(std::string("s-hist"));
    QVERIFY(agent);

    // One call the gateway's policy allows, one a reviewer elsewhere
    // approves with holdpoint-ctl --team, both in turn t9.
    agent->send(Json { { "type", "turn_start" }, { "turn_id", "t9" } });
    agent->send(Json { { "type", "tool_call" }, { "call_id", "a1" }, { "tool_name", "auto_op" },
        { "turn_id", "t9" }, { "args", { { "n", 1 } } } });
    QCOMPARE(agent->next("decision").value("decision", std::string()), std::string("allow"));
    agent->send(Json { { "type", "tool_call" }, { "call_id", "h1" }, { "tool_name", "deploy" },
        { "turn_id", "t9" }, { "args", { { "target", "prod" } } } });
    QVERIFY(QTest::qWaitFor([&] { return alice.core->queue()->size() == 1; }, WaitMs));
    std::string id, session;
    alice.core->queue()->forEachPending([&](const QueueItem &item) {
        id = item.id;
        session = item.sessionId;
    });
    QVERIFY2(session.rfind("gateway-", 0) == 0 && session.size() > 7
            && session.compare(session.size() - 7, 7, "/s-hist") == 0,
        session.c_str());
    QProcess ctl;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOLDPOINT_REVIEWER"), QStringLiteral("carol"));
    ctl.setProcessEnvironment(env);
    ctl.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--team"), url, QStringLiteral("approve"), toQString(id) });
    const CtlResult approved = finish(ctl);
    QVERIFY2(approved.exitCode == 0, approved.err.constData());
    QCOMPARE(
        agent->next("decision").value("decided_by", std::string()), std::string("human:carol"));

    // History: both decisions, though neither was made in this console.
    HistoryModel *history = alice.window->historyModel();
    QVERIFY(QTest::qWaitFor([&] { return history->rowCount() == 2; }, WaitMs));
    QStringList seen;
    for (int row = 0; row < 2; ++row)
        seen << history->index(row, HistoryModel::Tool).data().toString() + QLatin1Char(' ')
                + history->index(row, HistoryModel::DecidedBy).data().toString();
    seen.sort();
    QCOMPARE(seen.size(), 2);
    QVERIFY2(
        seen[0].startsWith(QLatin1String("auto_op ")) && !seen[0].contains(QLatin1String("human")),
        qPrintable(seen.join(QLatin1String(", "))));
    QCOMPARE(seen[1], QStringLiteral("deploy human:carol"));

    // Turns: the gateway's session, turn t9, both calls.
    TurnsModel *turns = alice.window->turnsModel();
    const QModelIndex turn = turns->turnIndex({ session, "t9" });
    QVERIFY(turn.isValid());
    QCOMPARE(turns->rowCount(turn), 2);

    // Agents: the gateway's agent, with the host it runs on.
    AgentsModel *agents = alice.window->agentsModel();
    int row = -1;
    QVERIFY(QTest::qWaitFor(
        [&] {
            for (int r = 0; r < agents->rowCount(); ++r)
                if (agents->index(r, AgentsModel::Session).data().toString() == toQString(session))
                    row = r;
            return row >= 0;
        },
        WaitMs));
    const QString state = agents->index(row, AgentsModel::State).data().toString();
    QVERIFY2(state.startsWith(QLatin1String("connected (1 connection), at ")), qPrintable(state));
    QCOMPARE(agents->index(row, AgentsModel::Turn).data().toString(), QStringLiteral("t9"));
    QCOMPARE(agents->index(row, AgentsModel::Agent).data().toString(), QStringLiteral("tester"));
}

QTEST_MAIN(tst_TeamWindow)
#include "tst_teamwindow.moc"
