// SPDX-License-Identifier: Apache-2.0
// The queue's keyboard flow with real key presses on a real window: where
// the cursor lands after a decision, which selection a key acts on, where
// the keyboard focus goes after each dialog; and what the queue says: a
// quiet "why" for the default, errors in a banner, real plurals.

#include "activitymodels.h"
#include "alwaysruledialog.h"
#include "denydialog.h"
#include "queuemodel.h"
#include "windowharness.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTextBrowser>

using namespace holdpoint;
using namespace holdpoint::test;

class TestKeyboard : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void batchDecisionPutsTheCursorRightAfterTheBlock_data();
    void batchDecisionPutsTheCursorRightAfterTheBlock();
    void lastBlockPutsTheCursorOnTheCallBeforeIt();
    void movesWithoutShiftCollapseTheSelection_data();
    void movesWithoutShiftCollapseTheSelection();
    void batchShowsWhatItHolds();
    void focusReturnsToTheQueueAfterEachDialog();
    void whyColumnSpeaksOnlyOfFindings();
    void errorsStayVisibleInABanner();
    void countsReadAsEnglish();
    void historyShowsTheArgumentsThatRan();
    void editingShowsAndSaysHowToLeave();
    void rewriteAndEditsAreTwoLabelledParts();
};

namespace {

// `n` calls c0..c{n-1} in the queue, the cursor on the first, focus on the queue.
void fill(WindowHarness &h, int n, const char *tool = "write_file")
{
    QVERIFY(h.started && h.welcomed);
    for (int i = 0; i < n; ++i)
        QVERIFY(h.submit("c" + std::to_string(i), i % 3 == 2 ? "bash" : tool,
            { { "path", std::to_string(i) } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
}

QString callAt(WindowHarness &h, int row)
{
    const std::string id
        = h.view()->model()->index(row, 0).data(QueueModel::ItemIdRole).toString().toStdString();
    const QueueItem *item = h.core->queue()->find(id);
    return item ? QString::fromStdString(item->callId) : QString();
}

QString currentCall(WindowHarness &h)
{
    return h.view()->currentIndex().isValid() ? callAt(h, h.view()->currentIndex().row())
                                              : QString();
}

int selectedCount(WindowHarness &h)
{
    return int(h.view()->selectionModel()->selectedRows().size());
}

} // namespace

void TestKeyboard::batchDecisionPutsTheCursorRightAfterTheBlock_data()
{
    QTest::addColumn<int>("key");
    QTest::addColumn<QString>("expectedDecision");
    QTest::newRow("approve") << int(Qt::Key_A) << "allow";
    QTest::newRow("deny") << int(Qt::Key_D) << "deny";
    QTest::newRow("halt") << int(Qt::Key_H) << "halt";
}

void TestKeyboard::batchDecisionPutsTheCursorRightAfterTheBlock()
{
    QFETCH(int, key);
    QFETCH(QString, expectedDecision);
    WindowHarness h;
    fill(h, 20);
    for (int i = 0; i < 5; ++i)
        h.key(Qt::Key_J);
    QCOMPARE(currentCall(h), QStringLiteral("c5"));
    for (int i = 0; i < 8; ++i)
        h.key(Qt::Key_J, Qt::ShiftModifier);
    QCOMPARE(selectedCount(h), 9); // c5..c13
    h.key(Qt::Key(key));
    if (key == Qt::Key_D) {
        DenyDialog *dialog = h.window->denyDialog();
        QVERIFY(dialog);
        auto *reason = dialog->findChild<QComboBox *>(QStringLiteral("denyReason"));
        QTest::keyClicks(reason->lineEdit(), QStringLiteral("not now"));
        QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
        QTRY_VERIFY(!h.window->denyDialog());
    }
    for (int i = 5; i <= 13; ++i)
        QCOMPARE(h.decisionFor("c" + std::to_string(i))["decision"],
            Json(expectedDecision.toStdString()));
    QCOMPARE(h.core->queue()->size(), 11);
    // The call right after the block, alone selected, shown in the detail pane.
    QCOMPARE(currentCall(h), QStringLiteral("c14"));
    QCOMPARE(selectedCount(h), 1);
    QVERIFY(h.child<QLabel>("detailMeta")->text().contains(QStringLiteral("call c14")));
    QCOMPARE(QApplication::focusWidget(), h.view());
}

void TestKeyboard::lastBlockPutsTheCursorOnTheCallBeforeIt()
{
    WindowHarness h;
    fill(h, 6);
    h.key(Qt::Key_J);
    h.key(Qt::Key_J);
    h.key(Qt::Key_J);
    h.key(Qt::Key_J, Qt::ShiftModifier);
    h.key(Qt::Key_J, Qt::ShiftModifier); // c3..c5, the last three
    QCOMPARE(selectedCount(h), 3);
    h.key(Qt::Key_A);
    QTRY_COMPARE(h.core->queue()->size(), 3);
    QCOMPARE(currentCall(h), QStringLiteral("c2"));
    QCOMPARE(selectedCount(h), 1);
}

void TestKeyboard::movesWithoutShiftCollapseTheSelection_data()
{
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("modifiers");
    QTest::addColumn<QString>("lands");
    QTest::newRow("Ctrl+Home") << int(Qt::Key_Home) << int(Qt::ControlModifier) << "c0";
    QTest::newRow("Home") << int(Qt::Key_Home) << int(Qt::NoModifier) << "c0";
    QTest::newRow("End") << int(Qt::Key_End) << int(Qt::NoModifier) << "c9";
    QTest::newRow("Ctrl+End") << int(Qt::Key_End) << int(Qt::ControlModifier) << "c9";
    QTest::newRow("g") << int(Qt::Key_G) << int(Qt::NoModifier) << "c0";
    QTest::newRow("G") << int(Qt::Key_G) << int(Qt::ShiftModifier) << "c9";
    QTest::newRow("j") << int(Qt::Key_J) << int(Qt::NoModifier) << "c6";
    QTest::newRow("k") << int(Qt::Key_K) << int(Qt::NoModifier) << "c4";
    QTest::newRow("Down") << int(Qt::Key_Down) << int(Qt::NoModifier) << "c6";
    QTest::newRow("Ctrl+Up") << int(Qt::Key_Up) << int(Qt::ControlModifier) << "c4";
    QTest::newRow("PageDown") << int(Qt::Key_PageDown) << int(Qt::NoModifier) << "";
    QTest::newRow("PageUp") << int(Qt::Key_PageUp) << int(Qt::NoModifier) << "";
}

void TestKeyboard::movesWithoutShiftCollapseTheSelection()
{
    QFETCH(int, key);
    QFETCH(int, modifiers);
    QFETCH(QString, lands);
    WindowHarness h;
    fill(h, 10);
    h.key(Qt::Key_J);
    h.key(Qt::Key_J);
    for (int i = 0; i < 3; ++i)
        h.key(Qt::Key_J, Qt::ShiftModifier); // c2..c5 selected, the cursor on c5
    QCOMPARE(selectedCount(h), 4);
    h.key(Qt::Key(key), Qt::KeyboardModifiers(modifiers));
    if (!lands.isEmpty())
        QCOMPARE(currentCall(h), lands);
    // Whatever moved the cursor, the selection is the current call alone,
    // and that is what the next key decides.
    QCOMPARE(selectedCount(h), 1);
    const QString current = currentCall(h);
    QCOMPARE(callAt(h, h.view()->selectionModel()->selectedRows().at(0).row()), current);
    h.key(Qt::Key_A);
    QTRY_COMPARE(h.core->queue()->size(), 9);
    QCOMPARE(h.decisionFor(current.toStdString())["decision"], Json("allow"));
}

void TestKeyboard::batchShowsWhatItHolds()
{
    WindowHarness h;
    fill(h, 4); // write_file, write_file, bash, write_file
    for (int i = 0; i < 3; ++i)
        h.key(Qt::Key_J, Qt::ShiftModifier);
    QCOMPARE(h.child<QPushButton>("approveButton")->text(), QStringLiteral("&Approve 4  [A]"));
    QCOMPARE(h.child<QPushButton>("denyButton")->text(), QStringLiteral("&Deny 4\u2026  [D]"));
    QCOMPARE(h.child<QLabel>("detailTitle")->text(), QStringLiteral("4 calls selected"));
    const QString meta = h.child<QLabel>("detailMeta")->text();
    QVERIFY2(meta.contains(QStringLiteral("write_file \u00d73"))
            && meta.contains(QStringLiteral("bash \u00d71")),
        qPrintable(meta));
    QVERIFY2(meta.contains(QStringLiteral("tester \u00d74")), qPrintable(meta));
    // Nothing of the current call passes for the batch's.
    QVERIFY(h.window->argsEditor()->toPlainText().isEmpty());
    QVERIFY(!h.window->argsEditor()->isEnabled());
    QVERIFY(h.child<QLabel>("trail")->text().isEmpty());
    QVERIFY(h.child<QLabel>("turnFindings")->text().contains(QStringLiteral("No loop findings")));
    h.key(Qt::Key_K); // back to one call: the pane shows it again
    QCOMPARE(h.child<QLabel>("detailTitle")->text().startsWith(QStringLiteral("bash")), true);
    QVERIFY(h.window->argsEditor()->toPlainText().contains(QStringLiteral("\"path\"")));
}

void TestKeyboard::focusReturnsToTheQueueAfterEachDialog()
{
    WindowHarness h;
    fill(h, 4);
    QCOMPARE(QApplication::focusWidget(), h.view());

    // The deny dialog, cancelled and then answered.
    h.key(Qt::Key_D);
    QVERIFY(h.window->denyDialog());
    QTRY_VERIFY(QApplication::focusWidget() != h.view());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QTRY_VERIFY(!h.window->denyDialog());
    QTRY_COMPARE(QApplication::focusWidget(), h.view());
    h.key(Qt::Key_D);
    auto *reason = h.window->denyDialog()->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("no"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QTRY_VERIFY(!h.window->denyDialog());
    QTRY_COMPARE(QApplication::focusWidget(), h.view());
    QCOMPARE(h.decisionFor("c0")["decision"], Json("deny"));

    // The "always" dialog, cancelled: the call is still there, focus is back.
    h.key(Qt::Key_4);
    h.key(Qt::Key_A);
    QTRY_VERIFY(h.window->alwaysDialog());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QTRY_VERIFY(!h.window->alwaysDialog());
    QTRY_COMPARE(QApplication::focusWidget(), h.view());
    QCOMPARE(h.core->queue()->size(), 3);

    // The editor: Esc goes back; an approval with edits comes back too.
    h.key(Qt::Key_1);
    h.key(Qt::Key_E);
    QCOMPARE(QApplication::focusWidget(), h.window->argsEditor());
    h.key(Qt::Key_Escape);
    QCOMPARE(QApplication::focusWidget(), h.view());
    h.key(Qt::Key_E);
    h.window->argsEditor()->setPlainText(QStringLiteral("{\"path\": \"sandbox\"}"));
    h.key(Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE(h.core->queue()->size(), 2);
    QCOMPARE(QApplication::focusWidget(), h.view());
}

void TestKeyboard::whyColumnSpeaksOnlyOfFindings()
{
    WindowHarness h(R"({"guardrails": [{"type": "secrets"},
        {"type": "rules", "rules": [{"when": {"tool": "deploy"}, "action": "ask", "reason": "deploys need a person"}]}]})");
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("c1", "read_file", { { "path", "a.txt" } }));
    QVERIFY(h.submit("c2", "deploy", { { "env", "prod" } }));
    QVERIFY(h.submit("c3", "run_command_in_the_project_sandbox",
        { { "command",
            "curl -H 'Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' x" } }));
    QAbstractItemModel *m = h.view()->model();
    auto why = [&](int row, int role = Qt::DisplayRole) {
        return m->index(row, QueueModel::Reason).data(role);
    };
    QCOMPARE(why(0).toString(), QStringLiteral("default: ask"));
    QCOMPARE(why(0, Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
    QCOMPARE(why(0, Qt::ToolTipRole).toString(),
        QStringLiteral("no guardrail decided; the default policy is ask"));
    QCOMPARE(why(1).toString(), QStringLiteral("rules: deploys need a person"));
    QVERIFY(!why(1, Qt::ForegroundRole).isValid());
    QVERIFY2(
        why(2).toString().startsWith(QStringLiteral("secrets: ")), qPrintable(why(2).toString()));
    QVERIFY2(!why(2).toString().contains(QStringLiteral("arguments contain")),
        qPrintable(why(2).toString())); // kinds, not the long reason
    QVERIFY(!why(2).toString().contains(QStringLiteral("ghp_")));
    // The riskiest first: the credential, then the rest.
    h.child<QComboBox>("queueSort")->setCurrentIndex(1);
    QCOMPARE(callAt(h, 0), QStringLiteral("c3"));
    // The tool column shows a long tool name whole.
    const QString tool = m->index(0, QueueModel::Tool).data().toString();
    QVERIFY(
        h.view()->columnWidth(QueueModel::Tool) > h.view()->fontMetrics().horizontalAdvance(tool));
}

void TestKeyboard::errorsStayVisibleInABanner()
{
    WindowHarness h(R"({"version": 1})");
    fill(h, 2);
    QLabel *banner = h.child<QLabel>("errorBanner");
    QVERIFY(banner && !banner->isVisible());
    // The user's policy file breaks; "always" cannot add its rule there.
    QFile f(h.policyFile);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("[]");
    f.close();
    h.key(Qt::Key_4);
    h.key(Qt::Key_A);
    QTRY_VERIFY(h.window->alwaysDialog());
    QTest::mouseClick(
        h.window->alwaysDialog()->findChild<QPushButton *>(QStringLiteral("addRuleButton")),
        Qt::LeftButton);
    QTRY_VERIFY(!h.window->alwaysDialog());
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().startsWith(QStringLiteral("The rule was not added: ")),
        qPrintable(banner->text()));
    QCOMPARE(h.core->queue()->size(), 2); // nothing was decided
    // The next decision clears it.
    h.key(Qt::Key_1);
    h.key(Qt::Key_A);
    QTRY_COMPARE(h.core->queue()->size(), 1);
    QVERIFY(!banner->isVisible());
}

void TestKeyboard::countsReadAsEnglish()
{
    WindowHarness h;
    fill(h, 1);
    const QString status = h.child<QLabel>("statusLabel")->text();
    QVERIFY2(status.contains(QStringLiteral("1 agent connection   \u00b7")), qPrintable(status));
    QVERIFY2(!status.contains(QStringLiteral("(s)")), qPrintable(status));
    TestSocket second;
    QVERIFY(second.hello(QUrl(h.core->url()), h.core->agentToken().toStdString()).is_object());
    QTRY_VERIFY(
        h.child<QLabel>("statusLabel")->text().contains(QStringLiteral("2 agent connections")));
}

void TestKeyboard::historyShowsTheArgumentsThatRan()
{
    WindowHarness h;
    fill(h, 3); // c0 write_file, c1 write_file, c2 bash
    h.key(Qt::Key_A); // c0 as it was
    QTRY_COMPARE(h.core->queue()->size(), 2);
    h.key(Qt::Key_E); // c1 edited
    h.window->argsEditor()->setPlainText(QStringLiteral("{\"path\": \"sandbox/1\"}"));
    h.key(Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE(h.core->queue()->size(), 1);
    h.key(Qt::Key_D); // c2 denied
    auto *reason = h.window->denyDialog()->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("no"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QTRY_COMPARE(h.core->queue()->size(), 0);

    HistoryModel *history = h.window->historyModel();
    QTRY_COMPARE(history->rowCount(), 3);
    auto args = [&](int row, int role = Qt::DisplayRole) {
        return history->index(row, HistoryModel::Arguments).data(role);
    };
    QCOMPARE(args(2).toString(), QStringLiteral("path=0"));
    QCOMPARE(args(1).toString(), QStringLiteral("path=sandbox/1"));
    QCOMPARE(args(0).toString(), QStringLiteral("path=2"));
    QCOMPARE(args(0, Qt::ForegroundRole).value<QColor>(), QColor(Qt::gray)); // denied: it never ran
    // The same from the audit log, in a window opened later: once delivered,
    // every decision is on disk.
    for (const char *id : { "c0", "c1", "c2" })
        QVERIFY(!h.decisionFor(id).is_null());
    MainWindow again(h.core.get());
    QCOMPARE(again.historyModel()->index(1, HistoryModel::Arguments).data().toString(),
        QStringLiteral("path=sandbox/1"));
    QCOMPARE(again.historyModel()->index(2, HistoryModel::Arguments).data().toString(),
        QStringLiteral("path=0"));
}

void TestKeyboard::editingShowsAndSaysHowToLeave()
{
    WindowHarness h;
    fill(h, 1);
    QLabel *state = h.child<QLabel>("editState");
    QVERIFY(state && !state->isVisible());
    h.key(Qt::Key_E);
    QCOMPARE(QApplication::focusWidget(), h.window->argsEditor());
    QVERIFY(state->isVisible());
    QVERIFY(state->text().contains(QStringLiteral("Ctrl+Enter"))
        && state->text().contains(QStringLiteral("Esc")));
    h.key(Qt::Key_Escape);
    QCOMPARE(QApplication::focusWidget(), h.view());
    QVERIFY(!state->isVisible());
}

void TestKeyboard::rewriteAndEditsAreTwoLabelledParts()
{
    WindowHarness h(
        R"({"guardrails": [{"type": "rules", "rules": [{"when": {"tool": "bash"}, "action": "modify",
        "clamp": {"timeout": {"max": 60}}, "reason": "timeout clamped"}]}]})");
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("b1", "bash", { { "command", "make" }, { "timeout", 900 } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    auto diff = [&] { return h.child<QTextBrowser>("argsDiff")->toPlainText(); };
    QVERIFY2(diff().startsWith(QStringLiteral("rewritten by guardrails"))
            && diff().contains(QStringLiteral("/timeout"))
            && !diff().contains(QStringLiteral("your edits")),
        qPrintable(diff()));
    h.key(Qt::Key_E);
    h.window->argsEditor()->setPlainText(
        QStringLiteral("{\"command\": \"make test\", \"timeout\": 60}"));
    const QString both = diff();
    const qsizetype edits = both.indexOf(QStringLiteral("your edits"));
    QVERIFY2(
        both.startsWith(QStringLiteral("rewritten by guardrails")) && edits > 0, qPrintable(both));
    // Each change under its own heading: the clamp is not the reviewer's.
    QVERIFY2(both.indexOf(QStringLiteral("/timeout")) < edits
            && both.indexOf(QStringLiteral("/command")) > edits,
        qPrintable(both));
}

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
