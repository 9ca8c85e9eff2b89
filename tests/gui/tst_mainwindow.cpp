// SPDX-License-Identifier: Apache-2.0
// The console window with real widgets (offscreen), over a real
// ConsoleCore, with each decision checked at a real agent connection.

#include "common/testsocket.h"
#include "denydialog.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "mainwindow.h"
#include "policy/policy.h"
#include "queuemodel.h"
#include "windowharness.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

using namespace holdpoint;
using namespace holdpoint::test;

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void queueModelPassesTheModelTester();
    void queueModelSignalsFollowTheQueue();
    void approveByClick();
    void denyRequiresAReason();
    void denyWithReasonByKeyboard();
    void editThenApprove();
    void invalidJsonBlocksApproveWithEdits();
    void haltTurnByKeyboard();
    void keyboardMovesThroughTheQueue();
    void lettersTypedInTheEditorDecideNothing();
    void titleShowsPendingCount();
    void windowFitsTheScreen();
    void controlCharactersAreEscapedForDisplay();
    void refusedPolicyEditIsShownUntilAGoodOne();
    void trailWarningsAndRewriteAreShownMasked();
};

void TestMainWindow::queueModelPassesTheModelTester()
{
    ManualClock clock(0);
    ReviewQueue queue(&clock);
    QueueModel model(&queue);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<std::string> ids;
    for (int i = 0; i < 20; ++i) {
        QueueItem item;
        item.id = queue.newId();
        item.callId = std::to_string(i);
        item.toolName = std::string("write_file");
        item.args = { { "i", i } };
        item.receivedAt = 0;
        item.deadline = 1000 + i;
        ids.push_back(item.id);
        queue.add(std::move(item));
    }
    queue.setAgentConnected(ids[3], false);
    protocol::Decision d;
    d.kind = protocol::DecisionKind::Allow;
    QVERIFY(queue.resolve(ids[10], ItemState::Decided, d));
    QVERIFY(queue.resolve(ids[0], ItemState::Decided, d));
    clock.advance(1005); // times out items 1 to 5 (item 0 was decided already)
    QCOMPARE(model.rowCount(), 13);
}

void TestMainWindow::queueModelSignalsFollowTheQueue()
{
    ManualClock clock(0);
    ReviewQueue queue(&clock);
    QueueModel model(&queue);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

    QueueItem a;
    a.id = "a";
    a.toolName = "read_file";
    a.args = { { "path", "x" } };
    a.deadline = 5000;
    queue.add(a);
    QueueItem b = a;
    b.id = "b";
    queue.add(b);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(inserted.at(1).at(1).toInt(), 1);
    QCOMPARE(model.data(model.index(1, QueueModel::Tool)).toString(), QStringLiteral("read_file"));
    QCOMPARE(
        model.data(model.index(1, QueueModel::Arguments)).toString(), QStringLiteral("path=x"));

    queue.setAgentConnected("b", false);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 1);
    QVERIFY(model.data(model.index(1, QueueModel::Reason))
                .toString()
                .startsWith(QStringLiteral("agent disconnected")));

    protocol::Decision d;
    QVERIFY(queue.resolve("a", ItemState::Decided, d));
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(1).toInt(), 0);
    QCOMPARE(model.data(model.index(0, QueueModel::Reason), QueueModel::ItemIdRole).toString(),
        QStringLiteral("b"));
    QCOMPARE(model.data(model.index(0, QueueModel::TimeLeft)).toString(), QStringLiteral("5s"));
    QCOMPARE(reset.count(), 0);
}

void TestMainWindow::approveByClick()
{
    WindowHarness h;
    QVERIFY(h.started && h.welcomed && h.active);
    QVERIFY(h.submit("c1", "write_file", { { "path", "a.txt" } }));
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QTest::mouseClick(h.child<QPushButton>("approveButton"), Qt::LeftButton);
    const Json d = h.agent->next("decision");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["args"], Json({ { "path", "a.txt" } }));
    QCOMPARE(d["decided_by"], Json("human:tester"));
    QCOMPARE(h.core->queue()->size(), 0);
    QCOMPARE(h.child<QLabel>("detailTitle")->text(), QStringLiteral("The queue is clear"));
}

void TestMainWindow::denyRequiresAReason()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a.txt" } }));
    QTest::mouseClick(h.child<QPushButton>("denyButton"), Qt::LeftButton);
    DenyDialog *dialog = h.window->denyDialog();
    QVERIFY(dialog);
    auto *ok = dialog->findChild<QPushButton *>(QStringLiteral("denyOk"));
    QVERIFY(!ok->isEnabled());
    auto *reason = dialog->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("   "));
    QVERIFY(!ok->isEnabled()); // blanks are not a reason
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QVERIFY(dialog->isVisible());
    QTest::keyClick(dialog, Qt::Key_Escape);
    QTRY_VERIFY(!h.window->denyDialog());
    QCOMPARE(h.core->queue()->size(), 1);
    QVERIFY(h.agent->noneOf("decision"));
}

void TestMainWindow::denyWithReasonByKeyboard()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "/etc/passwd" } }));
    h.view()->setFocus();
    QTest::keyClick(h.view(), Qt::Key_D);
    DenyDialog *dialog = h.window->denyDialog();
    QVERIFY(dialog);
    auto *reason = dialog->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("outside the project"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    const Json d = h.agent->next("decision");
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["reason"], Json("outside the project"));
    // Keystrokes go back to the queue (offscreen, the window is not re-activated).
    QTRY_COMPARE(h.window->focusWidget(), h.view());

    // The reason is offered first next time.
    h.window->activateWindow(); // as the window manager does when a dialog closes
    QVERIFY(QTest::qWaitForWindowActive(h.window.get()));
    QVERIFY(h.submit("c2", "write_file", { { "path", "/etc/shadow" } }));
    QTest::keyClick(h.view(), Qt::Key_D);
    QVERIFY(h.window->denyDialog());
    QCOMPARE(
        h.window->denyDialog()->findChild<QComboBox *>(QStringLiteral("denyReason"))->itemText(0),
        QStringLiteral("outside the project"));
}

void TestMainWindow::editThenApprove()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a.txt" } }));
    h.view()->setFocus();
    QTest::keyClick(h.view(), Qt::Key_E);
    QPlainTextEdit *editor = h.window->argsEditor();
    QTRY_VERIFY(editor->hasFocus());
    auto *approveEdits = h.child<QPushButton>("approveEditsButton");
    QVERIFY(!approveEdits->isEnabled()); // unchanged
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("{\"path\": \"sandbox/a.txt\"}"));
    QVERIFY(approveEdits->isEnabled());
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    const Json d = h.agent->next("decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({ { "path", "sandbox/a.txt" } }));
}

void TestMainWindow::invalidJsonBlocksApproveWithEdits()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a.txt" } }));
    QPlainTextEdit *editor = h.window->argsEditor();
    auto *approveEdits = h.child<QPushButton>("approveEditsButton");
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("{\"path\": \"b.txt\","));
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, QStringLiteral("  \"mode\": }"));
    QVERIFY(!approveEdits->isEnabled());
    QCOMPARE(h.child<QLabel>("argsStatus")->text(),
        QStringLiteral("\u2716 Invalid JSON: parse error at line 2, column 11: syntax error while "
                       "parsing value - "
                       "unexpected '}'; expected '[', '{', or a literal"));
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier); // does nothing
    QTest::mouseClick(approveEdits, Qt::LeftButton);
    QCOMPARE(h.core->queue()->size(), 1);

    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("[1, 2]"));
    QVERIFY(!approveEdits->isEnabled());
    QCOMPARE(h.child<QLabel>("argsStatus")->text(),
        QStringLiteral("\u2716 Arguments must be a JSON object, not array"));
    QVERIFY(h.agent->noneOf("decision"));
}

void TestMainWindow::haltTurnByKeyboard()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "n", 1 } }, "turn-1"));
    QVERIFY(h.submit("c2", "write_file", { { "n", 2 } }, "turn-1"));
    QVERIFY(h.submit("c3", "write_file", { { "n", 3 } }, "turn-2"));
    h.view()->setFocus();
    QTest::keyClick(h.view(), Qt::Key_H);
    const Json first = h.agent->next("decision");
    const Json second = h.agent->next("decision");
    QCOMPARE(first["decision"], Json("halt"));
    QCOMPARE(second["decision"], Json("halt"));
    QCOMPARE(second["call_id"], Json("c2"));
    QCOMPARE(h.core->queue()->size(), 1);
    QCOMPARE(h.core->queue()->at(0).callId, std::string("c3"));
}

void TestMainWindow::keyboardMovesThroughTheQueue()
{
    WindowHarness h;
    for (const char *id : { "c1", "c2", "c3" })
        QVERIFY(h.submit(id, "write_file", { { "id", id } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QTest::keyClick(h.view(), Qt::Key_J);
    QTest::keyClick(h.view(), Qt::Key_J);
    QCOMPARE(h.view()->currentIndex().row(), 2);
    QTest::keyClick(h.view(), Qt::Key_J); // stays on the last row
    QCOMPARE(h.view()->currentIndex().row(), 2);
    QTest::keyClick(h.view(), Qt::Key_K);
    QCOMPARE(h.view()->currentIndex().row(), 1);
    QTest::keyClick(h.view(), Qt::Key_Down);
    QCOMPARE(h.view()->currentIndex().row(), 2);
    QTest::keyClick(h.view(), Qt::Key_A); // approves c3; the selection stays on a live row
    QCOMPARE(h.agent->next("decision")["call_id"], Json("c3"));
    QCOMPARE(h.view()->currentIndex().row(), 1);
    QTest::keyClick(h.view(), Qt::Key_A);
    QCOMPARE(h.agent->next("decision")["call_id"], Json("c2"));
    QTest::keyClick(h.view(), Qt::Key_A);
    QCOMPARE(h.agent->next("decision")["call_id"], Json("c1"));
    QCOMPARE(h.core->queue()->size(), 0); // cleared without the mouse
}

void TestMainWindow::lettersTypedInTheEditorDecideNothing()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a.txt" } }));
    h.window->argsEditor()->setFocus();
    QTest::keyClicks(h.window->argsEditor(), QStringLiteral("adhe"));
    QVERIFY(!h.window->denyDialog());
    QCOMPARE(h.core->queue()->size(), 1);
    QTest::keyClick(h.window->argsEditor(), Qt::Key_Escape);
    QTRY_VERIFY(h.view()->hasFocus());
    QVERIFY(h.agent->noneOf("decision"));
}

void TestMainWindow::titleShowsPendingCount()
{
    WindowHarness h;
    QCOMPARE(h.window->windowTitle(), QStringLiteral("Holdpoint"));
    QVERIFY(h.submit("c1", "write_file", { { "a", 1 } }));
    QVERIFY(h.submit("c2", "write_file", { { "a", 2 } }));
    QCOMPARE(h.window->windowTitle(), QStringLiteral("(2) Holdpoint"));
    QTest::mouseClick(h.child<QPushButton>("approveButton"), Qt::LeftButton);
    QCOMPARE(h.window->windowTitle(), QStringLiteral("(1) Holdpoint"));
}

// On a small screen the window shrinks to it: the decision buttons sit at
// its right edge and must not fall off it.
void TestMainWindow::windowFitsTheScreen()
{
    WindowHarness h;
    const QSize available = h.window->screen()->availableGeometry().size();
    QVERIFY2(h.window->width() <= available.width() && h.window->height() <= available.height(),
        qPrintable(QStringLiteral("%1x%2 on %3x%4")
                       .arg(h.window->width())
                       .arg(h.window->height())
                       .arg(available.width())
                       .arg(available.height())));
}

void TestMainWindow::controlCharactersAreEscapedForDisplay()
{
    QCOMPARE(displaySafe(QStringLiteral("rm\u001b[2J -rf\n/"), 100),
        QStringLiteral("rm⟨U+001B⟩[2J -rf\u21b5/"));
    QCOMPARE(
        displaySafe(QStringLiteral("a\u202eb"), 100), QStringLiteral("a⟨U+202E⟩b")); // RTL override
    QCOMPARE(displaySafe(QStringLiteral("abcdef"), 3), QStringLiteral("abc\u2026"));
    QCOMPARE(summarizeArgs(Json { { "cmd", "ls" }, { "n", 2 } }), QStringLiteral("cmd=ls  n=2"));
}

void TestMainWindow::refusedPolicyEditIsShownUntilAGoodOne()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("policy.json"));
    auto write = [&](const QByteArray &text) {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
    };
    write(R"({"default":"ask"})");
    ConsoleOptions o;
    o.dataDir = dir.filePath(QStringLiteral("data"));
    o.policyFiles = { file };
    o.policy = *loadPolicyFiles(o.policyFiles).policy;
    ConsoleCore core(o);
    QString error;
    QVERIFY(core.start(&error));
    MainWindow window(&core);
    window.show();
    auto *banner = window.findChild<QLabel *>(QStringLiteral("policyError"));
    QVERIFY(banner);
    QVERIFY(!banner->isVisible());
    write(R"({"default":"sometimes"})");
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), WaitMs);
    QCOMPARE(banner->text(),
        QStringLiteral("Policy edit refused; the previous policy stays in force: ") + file
            + QStringLiteral(
                ": default: unknown action \"sometimes\" (expected one of: ask, allow, deny)"));
    write(R"({"default":"deny"})");
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), WaitMs);
}

void TestMainWindow::trailWarningsAndRewriteAreShownMasked()
{
    QTemporaryDir dir;
    ConsoleOptions o;
    o.dataDir = dir.filePath(QStringLiteral("data"));
    o.policy = *parsePolicy(R"js({"guardrails":[
        {"type":"rules","rules":[{"when":{"tool":"deploy"},"action":"modify","clamp":{"replicas":{"max":3}},"reason":"at most 3 replicas","code":"clamp"}]},
        {"type":"rules","name":"note","rules":[{"when":{"tool":"deploy"},"action":"warn","reason":"deploying {args.token}","code":"fyi"}]},
        {"type":"secrets"}]})js",
        QStringLiteral("p.json"))
                    .policy;
    ConsoleCore core(o);
    QString error;
    QVERIFY(core.start(&error));
    MainWindow window(&core);
    window.show();
    TestSocket agent;
    QVERIFY(agent.hello(QUrl(core.url()), core.agentToken().toStdString()).is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", "deploy" },
        { "args",
            { { "replicas", 10 }, { "token", "ghp_0123456789abcdefghijABCDEFGHIJ012345" } } } });
    QTRY_COMPARE(core.queue()->size(), 1);
    QTRY_VERIFY(!window.findChild<QLabel *>(QStringLiteral("trail"))->text().isEmpty());
    const QString trail = window.findChild<QLabel *>(QStringLiteral("trail"))->text();
    QVERIFY2(trail.contains(QStringLiteral("at most 3 replicas")), qPrintable(trail));
    QVERIFY(trail.contains(QStringLiteral("<i>(clamp)</i>")));
    QVERIFY(trail.contains(QStringLiteral("deploying [secret:github_token:1]")));
    QVERIFY(trail.contains(QStringLiteral("secret_detected")));
    // The rewrite shows as a change from the agent's own arguments.
    const QString diff
        = window.findChild<QTextBrowser *>(QStringLiteral("argsDiff"))->toPlainText();
    QVERIFY2(diff.contains(QStringLiteral("rewritten by guardrails")), qPrintable(diff));
    QVERIFY2(diff.contains(QStringLiteral("~ /replicas: 10 \u2192 3")), qPrintable(diff));
    QVERIFY(!diff.contains(QStringLiteral("ghp_0123456789")));
    QVERIFY(!trail.contains(QStringLiteral("ghp_0123456789")));
    // The editor starts from what approving runs: the clamped, masked arguments.
    const Json shown = Json::parse(window.argsEditor()->toPlainText().toStdString());
    QCOMPARE(shown, Json({ { "replicas", 3 }, { "token", "[secret:github_token:1]" } }));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
