// SPDX-License-Identifier: Apache-2.0
// The review features beyond one call at a time, with real widgets
// (offscreen) over a real ConsoleCore and real agent connections: batch
// decisions, scopes, always rules, filtering and sorting, secrets revealed,
// the audit banner, and the other views' models.

#include "activitymodels.h"
#include "alwaysruledialog.h"
#include "audit/auditfile.h"
#include "common/testsocket.h"
#include "denydialog.h"
#include "engine/broker.h"
#include "engine/consolecore.h"
#include "mainwindow.h"
#include "policy/policy.h"
#include "queuemodel.h"
#include "queueproxy.h"
#include "windowharness.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTextCursor>

using namespace holdpoint;
using namespace holdpoint::test;

class TestReview : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void batchDenyWithOneReasonByKeyboard();
    void batchApproveByKeyboard();
    void filterAndSortByKeyboard();
    void approveForTheRestOfTheTurn();
    void denyForTheRestOfTheSession();
    void alwaysRuleIsShownThenWrittenToThePolicyFile();
    void alwaysRuleWithoutAPolicyFileGoesToTheDataDir();
    void invalidJsonIsUnderlinedWhereItBreaks();
    void noEditsForAnAgentThatCannotTakeThem();
    void secretsAreRevealedOnlyOnRequestAndAudited();
    void auditBannerBlocksApprovalUntilTheLogWorks();
    void historyAndTurnsFollowDecisions();
    void everyModelPassesTheModelTester();
    void hiddenCharactersAreShownEscapedAndWarned();
    void lookAlikeNamesAreMarkedAndRunAsSent();
};

void TestReview::batchDenyWithOneReasonByKeyboard()
{
    WindowHarness h;
    QVERIFY(h.started && h.welcomed);
    for (const char *id : { "c1", "c2", "c3", "c4" })
        QVERIFY(h.submit(id, "write_file", { { "path", id } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    // Shift+J grows the selection; x toggles the row under the cursor.
    h.key(Qt::Key_J, Qt::ShiftModifier);
    h.key(Qt::Key_J, Qt::ShiftModifier);
    QCOMPARE(h.view()->selectionModel()->selectedRows().size(), 3);
    h.key(Qt::Key_X);
    QCOMPARE(h.view()->selectionModel()->selectedRows().size(), 2);
    h.key(Qt::Key_X);
    QCOMPARE(h.view()->selectionModel()->selectedRows().size(), 3);
    QCOMPARE(h.child<QPushButton>("denyButton")->text(), QStringLiteral("&Deny 3\u2026  [D]"));

    h.key(Qt::Key_D);
    DenyDialog *dialog = h.window->denyDialog();
    QVERIFY(dialog);
    auto *reason = dialog->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("not during the freeze"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QTRY_VERIFY(!h.window->denyDialog());
    for (const char *id : { "c1", "c2", "c3" }) {
        const Json d = h.decisionFor(id);
        QCOMPARE(d["decision"], Json("deny"));
        QCOMPARE(d["reason"], Json("not during the freeze"));
        QCOMPARE(d["decided_by"], Json("human:tester"));
    }
    QCOMPARE(h.core->queue()->size(), 1);
    QCOMPARE(h.core->queue()->at(0).callId, std::string("c4"));
}

void TestReview::batchApproveByKeyboard()
{
    WindowHarness h;
    for (const char *id : { "c1", "c2", "c3" })
        QVERIFY(h.submit(id, "write_file", { { "path", id } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.view()->selectAll();
    QCOMPARE(h.child<QPushButton>("approveButton")->text(), QStringLiteral("&Approve 3  [A]"));
    // Scopes are for one decision at a time.
    QVERIFY(!h.child<QComboBox>("scope")->isEnabled());
    h.key(Qt::Key_A);
    for (const char *id : { "c1", "c2", "c3" })
        QCOMPARE(h.decisionFor(id)["decision"], Json("allow"));
    QCOMPARE(h.core->queue()->size(), 0);
}

void TestReview::filterAndSortByKeyboard()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "read_file", { { "path", "notes.txt" } }));
    QVERIFY(h.submit("c2", "bash", { { "command", "git push --force origin main" } }));
    QVERIFY(h.submit("c3", "write_file", { { "path", "src/main.cpp" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_Slash);
    QVERIFY(h.child<QLineEdit>("queueFilter")->hasFocus());
    QTest::keyClicks(h.child<QLineEdit>("queueFilter"), QStringLiteral("MAIN"));
    QCOMPARE(h.view()->model()->rowCount(), 2); // c2 (origin main) and c3 (src/main.cpp)
    QTest::keyClicks(h.child<QLineEdit>("queueFilter"), QStringLiteral(" push"));
    QCOMPARE(h.view()->model()->rowCount(), 1);
    QCOMPARE(h.window->windowTitle(), QStringLiteral("(3) Holdpoint"));
    h.key(Qt::Key_Return); // back to the queue, on the one match
    QVERIFY(h.view()->hasFocus());
    QCOMPARE(h.view()->currentIndex().data(QueueModel::ItemIdRole).toString().toStdString(),
        h.core->queue()->at(1).id);
    h.key(Qt::Key_Escape); // clears the filter
    QCOMPARE(h.view()->model()->rowCount(), 3);

    // Riskiest first: the shell command, then the write, then the read.
    h.child<QComboBox>("queueSort")->setCurrentIndex(1);
    auto toolAt = [&](int row) {
        return h.view()->model()->index(row, QueueModel::Tool).data().toString();
    };
    QCOMPARE(toolAt(0), QStringLiteral("bash"));
    QCOMPARE(toolAt(1), QStringLiteral("write_file"));
    QCOMPARE(toolAt(2), QStringLiteral("read_file"));
    h.child<QComboBox>("queueSort")->setCurrentIndex(0);
    QCOMPARE(toolAt(0), QStringLiteral("read_file"));
}

void TestReview::approveForTheRestOfTheTurn()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a" } }, "t1"));
    QVERIFY(h.submit("c2", "write_file", { { "path", "b" } }, "t1"));
    QVERIFY(h.submit("c3", "bash", { { "command", "ls" } }, "t1"));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_2);
    QCOMPARE(h.window->scope(), MainWindow::Scope::Turn);
    h.key(Qt::Key_A);
    // This call, the turn's other write waiting now, and later writes in
    // the turn; not the other tool, and not another turn.
    QCOMPARE(h.decisionFor("c1")["decision"], Json("allow"));
    const Json c2 = h.decisionFor("c2");
    QCOMPARE(c2["decision"], Json("allow"));
    QCOMPARE(c2["reason"], Json("approved by a reviewer (for the rest of turn t1)"));
    QCOMPARE(h.window->scope(), MainWindow::Scope::Call); // never lingers
    QCOMPARE(h.core->queue()->size(), 1);
    h.agent->send(h.call("c4", "write_file", { { "path", "c" } }, "t1"));
    const Json c4 = h.decisionFor("c4");
    QCOMPARE(c4["decision"], Json("allow"));
    QCOMPARE(c4["decided_by"], Json("human:tester"));
    h.agent->send(Json { { "type", "turn_end" }, { "turn_id", "t1" } });
    QVERIFY(h.submit("c5", "write_file", { { "path", "d" } }, "t2"));
    QCOMPARE(h.core->queue()->size(), 2);
}

void TestReview::denyForTheRestOfTheSession()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "deploy", { { "env", "prod" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_3);
    h.key(Qt::Key_D);
    QVERIFY(h.window->denyDialog());
    auto *reason = h.window->denyDialog()->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("no deploys from agents"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QCOMPARE(h.decisionFor("c1")["decision"], Json("deny"));
    h.agent->send(h.call("c2", "deploy", { { "env", "staging" } }));
    const Json c2 = h.decisionFor("c2");
    QCOMPARE(c2["decision"], Json("deny"));
    QCOMPARE(c2["code"], Json("reviewer_scope"));
    QCOMPARE(c2["reason"], Json("no deploys from agents (for the rest of the session)"));
    // The Agents view shows the standing decision.
    h.window->agentsModel()->refresh();
    bool shown = false;
    for (int r = 0; r < h.window->agentsModel()->rowCount(); ++r)
        shown |= h.window->agentsModel()->index(r, AgentsModel::Standing).data().toString()
            == QStringLiteral("deny deploy for the session");
    QVERIFY(shown);
}

void TestReview::alwaysRuleIsShownThenWrittenToThePolicyFile()
{
    WindowHarness h(
        R"({"version": 1, "comment": "mine", "default": "ask", "guardrails": [{"type": "secrets"}]})");
    QVERIFY(h.started);
    // A first call, decided by hand, that the rule would have matched.
    QVERIFY(h.submit("c0", "read_file", { { "path", "old.txt" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_A);
    QCOMPARE(h.decisionFor("c0")["decision"], Json("allow"));

    QVERIFY(h.submit("c1", "read_file", { { "path", "new.txt" } }));
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_4);
    h.key(Qt::Key_A);
    AlwaysRuleDialog *dialog = h.window->alwaysDialog();
    QVERIFY(dialog);
    auto proposed = [dialog] {
        return Json::parse(dialog->findChild<QPlainTextEdit *>(QStringLiteral("proposedRule"))
                               ->toPlainText()
                               .toStdString());
    };
    // As narrow as the call: this agent, this tool, this path.
    QCOMPARE(proposed()["when"],
        Json::parse(
            R"({"tool":"read_file","agent":"tester","args":{"path":{"equals":"new.txt"}}})"));
    QCOMPARE(proposed()["action"], Json("allow"));
    QCOMPARE(dialog->matchList()->count(), 1); // the call itself
    // The reviewer means any path: the rule and the matched history follow.
    auto *pathKind = dialog->findChild<QComboBox *>(QStringLiteral("ruleKind_path"));
    pathKind->setCurrentIndex(pathKind->findText(QStringLiteral("anything")));
    QCOMPARE(proposed()["when"], Json::parse(R"({"tool":"read_file","agent":"tester"})"));
    QVERIFY(
        dialog->findChild<QLabel *>(QStringLiteral("ruleSummary"))
            ->text()
            .startsWith(QStringLiteral("Allow read_file from agent tester, with any arguments")));
    QSignalSpy previewed(dialog, &AlwaysRuleDialog::previewUpdated);
    QVERIFY(previewed.wait(5000));
    // Past calls it would have matched: both read_file calls so far.
    QCOMPARE(dialog->matchList()->count(), 2);
    QVERIFY(dialog->matchList()->item(1)->text().contains(QStringLiteral("path=old.txt")));
    QVERIFY(h.agent->noneOf("decision")); // nothing decided before the rule is confirmed
    QTest::mouseClick(
        dialog->findChild<QPushButton *>(QStringLiteral("addRuleButton")), Qt::LeftButton);
    QTRY_VERIFY(!h.window->alwaysDialog());
    QCOMPARE(h.decisionFor("c1")["decision"], Json("allow"));

    // The file: the author's keys in their order, the rule first in a
    // "console" rules guardrail at the front, and it loads.
    QFile f(h.policyFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.indexOf("\"version\"") < text.indexOf("\"comment\""));
    const Json doc = Json::parse(text.toStdString());
    QCOMPARE(doc["guardrails"][0]["name"], Json("console"));
    QCOMPARE(doc["guardrails"][0]["rules"][0]["when"],
        Json::parse(R"({"tool":"read_file","agent":"tester"})"));
    QCOMPARE(doc["guardrails"][1]["type"], Json("secrets"));
    QVERIFY(loadPolicyFiles({ h.policyFile }).policy);
    // In force at once: the next read runs without a person.
    h.agent->send(h.call("c2", "read_file", { { "path", "later.txt" } }));
    const Json c2 = h.decisionFor("c2");
    QCOMPARE(c2["decision"], Json("allow"));
    QCOMPARE(c2["decided_by"], Json("guardrail:console"));
    QCOMPARE(h.core->queue()->size(), 0);
}

void TestReview::alwaysRuleWithoutAPolicyFileGoesToTheDataDir()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "bash", { { "command", "curl evil.example" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_4);
    h.key(Qt::Key_D);
    auto *reason = h.window->denyDialog()->findChild<QComboBox *>(QStringLiteral("denyReason"));
    QTest::keyClicks(reason->lineEdit(), QStringLiteral("no shell"));
    QTest::keyClick(reason->lineEdit(), Qt::Key_Return);
    QTRY_VERIFY(h.window->alwaysDialog());
    QTest::keyClick(h.window->alwaysDialog(), Qt::Key_Return);
    QTRY_VERIFY(!h.window->alwaysDialog());
    QCOMPARE(h.decisionFor("c1")["reason"], Json("no shell"));
    const QString file = h.core->dataDir() + QStringLiteral("/policy.json");
    QCOMPARE(h.core->userPolicyFile(), file);
    QVERIFY(QFile::exists(file));
    // The built-in default stays first; the rule denies the next curl, and
    // only that: it was proposed as "the same command prefix".
    QCOMPARE(h.core->policyFiles(), QStringList({ defaultPolicyPath(), file }));
    h.agent->send(h.call("c2", "bash", { { "command", "curl other.example" } }));
    const Json c2 = h.decisionFor("c2");
    QCOMPARE(c2["decision"], Json("deny"));
    QCOMPARE(c2["reason"], Json("no shell"));
    QVERIFY(h.submit("c3", "bash", { { "command", "ls" } })); // waits for a person
}

void TestReview::invalidJsonIsUnderlinedWhereItBreaks()
{
    WindowHarness h;
    QVERIFY(h.submit("c1", "write_file", { { "path", "a" } }));
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QPlainTextEdit *editor = h.window->argsEditor();
    editor->setPlainText(QStringLiteral("{\n  \"path\": \"a\",,\n}"));
    const QString status = h.child<QLabel>("argsStatus")->text();
    QVERIFY2(status.contains(QStringLiteral("line 2, column 15")), qPrintable(status));
    QVERIFY(!h.child<QPushButton>("approveEditsButton")->isEnabled());
    const auto marks = editor->extraSelections();
    QCOMPARE(marks.size(), 1);
    QCOMPARE(marks[0].cursor.blockNumber(), 1);
    QCOMPARE(marks[0].cursor.selectedText(), QStringLiteral(","));
    editor->setPlainText(QStringLiteral("{\"path\": \"b\"}"));
    QVERIFY(editor->extraSelections().isEmpty());
    QVERIFY(h.child<QPushButton>("approveEditsButton")->isEnabled());
    QVERIFY(h.child<QTextBrowser>("argsDiff")
                ->toPlainText()
                .contains(QStringLiteral("~ /path: a \u2192 b")));
}

void TestReview::noEditsForAnAgentThatCannotTakeThem()
{
    WindowHarness h;
    TestSocket codex;
    QVERIFY(codex.open(QUrl(h.core->url())));
    codex.send(Json { { "type", "hello" }, { "protocol", 1 },
        { "token", h.core->agentToken().toStdString() }, { "agent", { { "name", "codex" } } },
        { "capabilities", { { "modify", false } } } });
    QVERIFY(codex.next("welcome").is_object());
    codex.send(h.call("c1", "shell", { { "command", "make" } }));
    QTRY_COMPARE(h.core->queue()->size(), 1);
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);

    QPlainTextEdit *editor = h.window->argsEditor();
    QVERIFY(editor->isReadOnly());
    const QString status = h.child<QLabel>("argsStatus")->text();
    QVERIFY2(
        status.contains(QStringLiteral("codex cannot take edited arguments")), qPrintable(status));
    auto *editButton = h.child<QPushButton>("approveEditsButton");
    QVERIFY(!editButton->isEnabled());
    QVERIFY(editButton->toolTip().contains(QStringLiteral("cannot take edited arguments")));
    // Text put in by other means than typing is still no edit.
    editor->setPlainText(QStringLiteral("{\"command\": \"make -j2\"}"));
    QVERIFY(!editButton->isEnabled());
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(h.core->queue()->size(), 1);

    // Approving runs the call as the agent sent it.
    h.view()->setFocus();
    h.key(Qt::Key_A);
    const Json d = codex.next("decision");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["args"], Json({ { "command", "make" } }));

    // The agent of the harness takes edits: its editor edits again.
    QVERIFY(h.submit("c2", "shell", { { "command", "make" } }));
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QVERIFY(!editor->isReadOnly());
    editor->setPlainText(QStringLiteral("{\"command\": \"make -j2\"}"));
    QVERIFY(editButton->isEnabled());
}

void TestReview::secretsAreRevealedOnlyOnRequestAndAudited()
{
    WindowHarness h(R"({"default": "ask", "guardrails": [{"type": "secrets", "action": "ask"}]})");
    const std::string token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    QVERIFY(
        h.submit("c1", "bash", { { "command", "curl -H 'Authorization: " + token + "' api" } }));
    QVERIFY(h.submit("c2", "bash", { { "command", "ls" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QPlainTextEdit *editor = h.window->argsEditor();
    QVERIFY(!editor->toPlainText().contains(QString::fromStdString(token)));
    QVERIFY(editor->toPlainText().contains(QStringLiteral("[secret:github_token:1]")));
    QVERIFY(h.child<QPushButton>("revealButton")->isVisible());
    h.key(Qt::Key_R);
    QVERIFY(editor->toPlainText().contains(QString::fromStdString(token)));
    // Moving on masks again; the other call has nothing to reveal.
    h.key(Qt::Key_J);
    QVERIFY(!h.child<QPushButton>("revealButton")->isVisible());
    h.key(Qt::Key_K);
    QVERIFY(!editor->toPlainText().contains(QString::fromStdString(token)));
    QVERIFY(!h.child<QPushButton>("revealButton")->isChecked());
    // Who looked is recorded, never what they saw.
    QVERIFY(h.core->audit()->waitDurable(WaitMs));
    int reveals = 0;
    bool leaked = false;
    Json reveal;
    audit::forEachRecord(h.core->audit()->dir(), [&](std::string_view line, const Json &r) {
        if (r["event"] == "secrets_revealed") {
            ++reveals;
            reveal = r;
        }
        leaked |= line.find(token) != std::string_view::npos;
        return true;
    });
    QVERIFY2(!leaked, "a secret reached the audit log");
    QCOMPARE(reveals, 1);
    QCOMPARE(reveal["os_user"], Json("tester"));
    QCOMPARE(reveal["kinds"], Json::array({ "github_token" }));
}

void TestReview::auditBannerBlocksApprovalUntilTheLogWorks()
{
    WindowHarness h({}, /*blockAudit=*/true);
    QVERIFY(h.started);
    QVERIFY(!h.core->audit()->available());
    QLabel *banner = h.child<QLabel>("auditBanner");
    QVERIFY(banner->isVisible());
    QVERIFY(banner->text().startsWith(QStringLiteral("The audit log cannot be written")));
    QVERIFY(h.child<QLabel>("statusLabel")->text().contains(QStringLiteral("CANNOT WRITE")));
    // Nothing reaches the queue, nothing runs.
    h.agent->send(h.call("c1", "write_file", { { "path", "a" } }));
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["code"], Json("audit_unavailable"));
    QCOMPARE(h.core->queue()->size(), 0);

    QVERIFY(QFile::remove(h.core->dataDir() + QStringLiteral("/audit")));
    QTRY_VERIFY_WITH_TIMEOUT(h.core->audit()->available(), WaitMs);
    QTRY_VERIFY(!banner->isVisible());
    QVERIFY(h.submit("c2", "write_file", { { "path", "b" } }));
    QTRY_VERIFY(h.child<QPushButton>("approveButton")->isEnabled());
    QTest::mouseClick(h.child<QPushButton>("approveButton"), Qt::LeftButton);
    QCOMPARE(h.decisionFor("c2")["decision"], Json("allow"));
}

void TestReview::historyAndTurnsFollowDecisions()
{
    WindowHarness h(R"({"default": "ask", "guardrails": [
        {"type": "loop_detection", "exact_failure": {"warn": 2, "block": 5}},
        {"type": "rules", "rules": [{"when": {"tool": "read_file"}, "action": "allow"}]}]})");
    // The same read fails three times: loop detection warns from the second.
    for (int i = 0; i < 3; ++i) {
        const std::string id = "r" + std::to_string(i);
        h.agent->send(h.call(id, "read_file", { { "path", "same.txt" } }, "t1"));
        QCOMPARE(h.decisionFor(id)["decision"], Json("allow"));
        h.agent->send(Json { { "type", "tool_result" }, { "call_id", id }, { "ok", false },
            { "result", { { "error", "no such file" } } } });
        const Json after = h.agent->next("after_call");
        QCOMPARE(after["action"], Json(i == 0 ? "allow" : "warn"));
    }
    QVERIFY(h.submit("w1", "write_file", { { "path", "a" } }, "t1"));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    h.key(Qt::Key_A);
    QCOMPARE(h.decisionFor("w1")["decision"], Json("allow"));

    // History: newest first, filtered with the audit query's predicate.
    HistoryModel *history = h.window->historyModel();
    QTRY_COMPARE(history->rowCount(), 4);
    QCOMPARE(history->index(0, HistoryModel::DecidedBy).data().toString(),
        QStringLiteral("human:tester"));
    audit::Filter byHuman;
    byHuman.decidedBy = "human";
    h.window->historyProxy()->setFilter(byHuman);
    QCOMPARE(h.window->historyProxy()->rowCount(), 1);
    auto *tools = h.child<QComboBox>("historyTool");
    QTRY_VERIFY(tools->findData(QStringLiteral("read_file")) > 0);
    tools->setCurrentIndex(tools->findData(QStringLiteral("read_file")));
    QCOMPARE(h.window->historyProxy()->rowCount(), 3);

    // Turns: one session, turn t1, four calls; loop detection's warning on
    // the repeated read is tinted with its pattern and count.
    TurnsModel *turns = h.window->turnsModel();
    QCOMPARE(turns->rowCount(), 1);
    const QModelIndex session = turns->index(0, 0);
    QCOMPARE(turns->rowCount(session), 1);
    const QModelIndex turn = turns->index(0, 0, session);
    QCOMPARE(turn.data().toString(), QStringLiteral("turn t1"));
    QCOMPARE(turns->rowCount(turn), 4);
    QVERIFY(turn.data(TurnsModel::LoopLevelRole).toInt() >= 1);
    QTRY_VERIFY(!turns->index(1, TurnsModel::Loop, turn).data().toString().isEmpty());
    const QString loop = turns->index(1, TurnsModel::Loop, turn).data().toString();
    QVERIFY2(loop.startsWith(QStringLiteral("warn: ")) && loop.contains(QStringLiteral("times")),
        qPrintable(loop));
    QCOMPARE(turns->index(3, TurnsModel::Outcome, turn).data().toString(), QStringLiteral("allow"));
    QCOMPARE(turns->index(3, TurnsModel::DecidedBy, turn).data().toString(),
        QStringLiteral("human:tester"));

    // A restarted window starts from the audit log.
    MainWindow again(h.core.get());
    QCOMPARE(again.historyModel()->rowCount(), 4);
    QCOMPARE(again.turnsModel()->rowCount(
                 again.turnsModel()->index(0, 0, again.turnsModel()->index(0, 0))),
        4);
}

void TestReview::everyModelPassesTheModelTester()
{
    WindowHarness h(
        R"({"default": "ask", "guardrails": [{"type": "loop_detection"}, {"type": "secrets"}]})");
    QAbstractItemModelTester proxyTester(
        h.window->queueProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester turnsTester(
        h.window->turnsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester historyTester(
        h.window->historyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester historyProxyTester(
        h.window->historyProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester agentsTester(
        h.window->agentsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester policyTester(
        h.window->policyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Traffic through every model: escalations, decisions, filters, sorts,
    // a second agent session, a disconnect, a policy refresh.
    for (int i = 0; i < 6; ++i)
        QVERIFY(h.submit("c" + std::to_string(i), i % 2 ? "bash" : "write_file", { { "n", i } },
            i < 3 ? "t1" : "t2"));
    TestSocket second;
    QVERIFY(h.connectAgent(second, "other"));
    h.window->agentsModel()->refresh();
    QCOMPARE(h.window->agentsModel()->rowCount(), 2);
    h.window->queueProxy()->setFilterText(QStringLiteral("bash"));
    h.window->queueProxy()->setSortKey(QueueProxy::SortKey::Risk);
    h.window->queueProxy()->setFilterText({});
    h.window->queueProxy()->setSortKey(QueueProxy::SortKey::Agent);
    h.view()->setFocus();
    QTRY_VERIFY(h.view()->currentIndex().isValid());
    h.view()->selectAll();
    h.key(Qt::Key_A);
    QTRY_COMPARE(h.core->queue()->size(), 0);
    audit::Filter f;
    f.tool = "bash";
    h.window->historyProxy()->setFilter(f);
    QCOMPARE(h.window->historyProxy()->rowCount(), 3);
    second.close();
    QTRY_VERIFY(h.core->broker()->agentConnections() == 1);
    h.window->agentsModel()->refresh();
    h.window->policyModel()->refresh();
    QCOMPARE(h.window->policyModel()->rowCount(),
        3); // the built-in self_guard first, then the policy's two
    QCOMPARE(h.window->policyModel()->index(0, PolicyModel::Health).data().toString(),
        QStringLiteral("ok"));
}

// A tool named to draw as "deploy_reportexe.pdf" and a command split by a
// zero-width space: the row and the pane warn, the title and the editor
// show the characters, and an edit of another argument leaves them exact.
void TestReview::hiddenCharactersAreShownEscapedAndWarned()
{
    WindowHarness h; // the built-in default policy: hidden_characters first
    const std::string tool = "deploy_report\u202Efdp.exe", command = "rm\u200B -rf /tmp/x";
    QVERIFY(h.submit("c1", tool, { { "command", command }, { "note", "keep" } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);

    const QString why = h.view()->model()->index(0, QueueModel::Reason).data().toString();
    QVERIFY2(why.startsWith(QStringLiteral("HIDDEN CHARACTERS: INVISIBLE")), qPrintable(why));
    QCOMPARE(h.view()->model()->index(0, QueueModel::Tool).data().toString(),
        QStringLiteral("deploy_report⟨U+202E⟩fdp.exe"));
    auto *banner = h.child<QLabel>("hiddenCharacters");
    QVERIFY(banner->isVisible());
    QVERIFY2(
        banner->text().contains(QStringLiteral("HIDDEN CHARACTERS")), qPrintable(banner->text()));
    QVERIFY(h.child<QLabel>("detailTitle")
                ->text()
                .startsWith(QStringLiteral("deploy_report⟨U+202E⟩fdp.exe")));
    QPlainTextEdit *editor = h.window->argsEditor();
    QVERIFY2(editor->toPlainText().contains(QStringLiteral("\"rm\\u200B -rf /tmp/x\"")),
        qPrintable(editor->toPlainText()));
    QVERIFY(!editor->toPlainText().contains(QChar(0x200B)));

    // Typed as a person would: the escape in the editor means the agent's character.
    QTextCursor cursor = editor->document()->find(QStringLiteral("keep"));
    QVERIFY(!cursor.isNull());
    editor->setTextCursor(cursor);
    editor->setFocus();
    QTest::keyClicks(editor, QStringLiteral("kept"));
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({ { "command", command }, { "note", "kept" } }));

    // Nothing hidden, no banner.
    QVERIFY(h.submit("c2", "bash", { { "command", "ls" } }));
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QVERIFY(!banner->isVisible());
}

// A tool named with a Cyrillic е and a host with a Cyrillic а (ICU's TR39
// checks): the row and the title mark the letters, the banner names the
// names, and an approval is a plain allow of the agent's own arguments.
void TestReview::lookAlikeNamesAreMarkedAndRunAsSent()
{
    WindowHarness h;
    const std::string tool = "r\u0435ad_file", url = "https://p\u0430ypal.com/login",
                      note = "Исправлена ошибка";
    QVERIFY(h.submit("c1", tool, { { "url", url }, { "note", note } }));
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);

    QCOMPARE(h.view()->model()->index(0, QueueModel::Tool).data().toString(),
        QStringLiteral("r⟨е U+0435 CYRILLIC⟩ad_file"));
    auto *banner = h.child<QLabel>("hiddenCharacters");
    QVERIFY(banner->isVisible());
    QVERIFY2(
        banner->text().contains(QStringLiteral("LOOK-ALIKE LETTERS OF ANOTHER SCRIPT IN A NAME")),
        qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QStringLiteral(
                 "look-alike names: r⟨е U+0435 CYRILLIC⟩ad_file, p⟨а U+0430 CYRILLIC⟩ypal.com")),
        qPrintable(banner->text()));
    QVERIFY(h.child<QLabel>("detailTitle")
                ->text()
                .startsWith(QStringLiteral("r⟨е U+0435 CYRILLIC⟩ad_file")));
    const QString shown = h.window->argsEditor()->toPlainText();
    QVERIFY2(
        shown.contains(QStringLiteral("\"https://p\\u0430ypal.com/login\"")), qPrintable(shown));
    QVERIFY2(
        shown.contains(QString::fromStdString(note)), qPrintable(shown)); // one script: as written

    h.key(Qt::Key_A);
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("allow")); // the agent's own arguments, untouched
}

QTEST_MAIN(TestReview)
#include "tst_review.moc"
