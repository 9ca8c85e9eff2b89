// SPDX-License-Identifier: Apache-2.0
// A waiting call shows its turn's loop findings as they happen: in the
// queue's model, in the detail pane and over the reviewer wire; T opens the
// turn with the calls involved marked, and the Turns view narrows the queue
// to a turn (Enter) or halts it (H). Real agents over loopback, real keys.

#include "activitymodels.h"
#include "activitytabs.h"
#include "queuemodel.h"
#include "queueproxy.h"
#include "windowharness.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTreeView>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// bash runs at once, so its failures drive loop detection; the rest waits.
const char *const LoopPolicy = R"({"version":1,"default":"ask","guardrails":[
    {"type":"rules","rules":[{"when":{"tool":"bash"},"action":"allow"}]},
    {"type":"loop_detection"}]})";

// The agent runs `make` in `turn` and reports that it failed.
void failBash(WindowHarness &h, const std::string &callId, const std::string &turn)
{
    h.agent->send(h.call(callId, "bash", { { "command", "make" } }, turn));
    QCOMPARE(h.decisionFor(callId)["decision"], Json("allow"));
    h.agent->send(Json { { "type", "tool_result" }, { "call_id", callId }, { "ok", false },
        { "result", "exit 2" } });
}

QString cell(WindowHarness &h, int row, int column)
{
    return h.view()->model()->index(row, column).data().toString();
}

QModelIndex callRow(TurnsModel *model, const QModelIndex &turn, const QString &callId)
{
    for (int i = 0; i < model->rowCount(turn); ++i)
        if (model->index(i, TurnsModel::Name, turn).data().toString().endsWith(callId))
            return model->index(i, TurnsModel::Name, turn);
    return {};
}

} // namespace

class TestTurnFindings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void waitingCallShowsFindingsThatFireLater();
    void turnKeyOpensTheTurnWithItsCallsMarked();
    void turnsViewNarrowsTheQueueAndHaltsTheTurn();
};

void TestTurnFindings::waitingCallShowsFindingsThatFireLater()
{
    WindowHarness h(LoopPolicy);
    QVERIFY(h.started && h.welcomed);
    QFile tokenFile(h.dir.path() + QStringLiteral("/data/reviewer.token"));
    QVERIFY(tokenFile.open(QIODevice::ReadOnly));
    TestSocket reviewer;
    QVERIFY(
        reviewer.hello(QUrl(h.core->url()), tokenFile.readAll().trimmed().toStdString(), "reviewer")
            .is_object());

    h.agent->send(Json { { "type", "turn_start" }, { "turn_id", "t1" } });
    QVERIFY(h.submit("w1", "write_file", { { "path", "notes.txt" } }, "t1"));
    QCOMPARE(reviewer.next("escalated")["item"]["turn_findings"], Json::array());
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    auto *findings = h.child<QLabel>("turnFindings");
    QVERIFY(findings->text().contains(QStringLiteral("no loop findings so far")));
    QCOMPARE(cell(h, 0, QueueModel::Warnings), QString());
    // The reviewer has started an edit; what arrives later must not undo it.
    const QString edit = QStringLiteral("{\"path\": \"notes-draft.txt\"}");
    h.window->argsEditor()->setPlainText(edit);

    failBash(h, "b1", "t1");
    failBash(h, "b2", "t1"); // the second identical failure: loop detection warns
    const Json updated = reviewer.next("updated");
    QCOMPARE(updated["item"]["call_id"], Json("w1"));
    QCOMPARE(updated["item"]["turn_findings"][0]["pattern"], Json("exact_failure"));
    QCOMPARE(updated["item"]["turn_findings"][0]["count"], Json(2));
    QCOMPARE(updated["item"]["turn_findings"][0]["call_ids"], Json::parse(R"(["b1","b2"])"));

    QTRY_COMPARE(cell(h, 0, QueueModel::Warnings), QStringLiteral("\u27f2 2/5"));
    QVERIFY(cell(h, 0, QueueModel::Reason)
                .startsWith(QStringLiteral("agent is retrying a failing call (2/5)")));
    QVERIFY2(findings->text().contains(QStringLiteral("agent is retrying a failing call (2/5)")),
        qPrintable(findings->text()));
    QVERIFY(findings->text().contains(QStringLiteral("b1, b2")));
    QCOMPARE(h.window->argsEditor()->toPlainText(), edit);

    // The hint changes with the count, on the wire and on screen.
    failBash(h, "b3", "t1");
    QCOMPARE(reviewer.next("updated")["item"]["turn_findings"][0]["count"], Json(3));
    QTRY_VERIFY(
        findings->text().contains(QStringLiteral("agent is retrying a failing call (3/5)")));
    QVERIFY(findings->text().contains(QStringLiteral("same_tool_failure"))); // three bash failures
    QCOMPARE(cell(h, 0, QueueModel::Warnings), QStringLiteral("\u27f2 3/5 +1"));
    QVERIFY(h.view()
                ->model()
                ->index(0, QueueModel::Warnings)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("this exact bash call failed 3 times in this turn")));
    QCOMPARE(h.window->argsEditor()->toPlainText(), edit);
}

void TestTurnFindings::turnKeyOpensTheTurnWithItsCallsMarked()
{
    WindowHarness h(LoopPolicy);
    QVERIFY(h.started && h.welcomed);
    h.agent->send(Json { { "type", "turn_start" }, { "turn_id", "t1" } });
    QVERIFY(h.submit("w1", "write_file", { { "path", "notes.txt" } }, "t1"));
    failBash(h, "b1", "t1");
    failBash(h, "b3", "t1");
    failBash(h, "b2", "t1");
    h.view()->setFocus();
    QTRY_VERIFY(!h.core->queue()->at(0).turnFindings.empty());
    QTRY_COMPARE(h.core->queue()->at(0).turnFindings.front().count, 3);
    TurnsModel *turns = h.window->turnsModel();
    QTRY_COMPARE(turns->rowCount(), 1); // the call records reached the view

    h.key(Qt::Key_T);
    QCOMPARE(h.window->tabs()->currentWidget(), h.window->turnsTab());
    QTreeView *view = h.window->turnsTab()->view();
    QCOMPARE(QApplication::focusWidget(), view);
    const QModelIndex turn = view->currentIndex();
    QCOMPARE(turns->turnAt(turn)->turn, std::string("t1"));
    // The calls the findings name are marked; the others are not.
    for (const char *id : { "b1", "b2", "b3" })
        QVERIFY2(
            callRow(turns, turn, QString::fromLatin1(id)).data(TurnsModel::HighlightRole).toBool(),
            id);
    QVERIFY(!callRow(turns, turn, QStringLiteral("w1")).data(TurnsModel::HighlightRole).toBool());
}

void TestTurnFindings::turnsViewNarrowsTheQueueAndHaltsTheTurn()
{
    WindowHarness h(LoopPolicy);
    QVERIFY(h.started && h.welcomed);
    TestSocket other;
    QVERIFY(h.connectAgent(other, "researcher"));
    h.agent->send(Json { { "type", "turn_start" }, { "turn_id", "t1" } });
    QVERIFY(h.submit("w1", "write_file", { { "path", "a" } }, "t1"));
    QVERIFY(h.submit("w2", "write_file", { { "path", "b" } }, "t1"));
    other.send(h.call(
        "r1", "web_fetch", { { "url", "https://example.test/" } }, "t1")); // another session's t1
    QTRY_COMPARE(h.core->queue()->size(), 3);
    h.view()->setFocus();

    // From the queue to the turn, and Enter brings back only its waiting calls.
    h.key(Qt::Key_T);
    QCOMPARE(QApplication::focusWidget(), h.window->turnsTab()->view());
    h.key(Qt::Key_Return);
    QCOMPARE(h.window->tabs()->currentIndex(), 0);
    QCOMPARE(QApplication::focusWidget(), h.view());
    QCOMPARE(h.view()->model()->rowCount(), 2);
    auto *chip = h.child<QLabel>("turnFilter");
    QVERIFY(chip->isVisible());
    QVERIFY(chip->text().contains(QStringLiteral("turn t1")));
    h.key(Qt::Key_Escape);
    QCOMPARE(h.view()->model()->rowCount(), 3);
    QVERIFY(!chip->isVisible());

    // H on the turn halts it: both of its waiting calls, not the other session's.
    h.key(Qt::Key_T);
    h.key(Qt::Key_H);
    QCOMPARE(h.decisionFor("w1")["decision"], Json("halt"));
    QCOMPARE(h.decisionFor("w2")["decision"], Json("halt"));
    QCOMPARE(h.core->queue()->size(), 1);
    QCOMPARE(h.core->queue()->at(0).callId, std::string("r1"));
    // Nothing of it waits any more: saying so beats doing nothing.
    auto *banner = h.child<QLabel>("errorBanner");
    QVERIFY(!banner->isVisible());
    h.key(Qt::Key_H);
    QVERIFY(banner->isVisible());
    QVERIFY(banner->text().contains(QStringLiteral("nothing to halt")));
}

QTEST_MAIN(TestTurnFindings)
#include "tst_turnfindings.moc"
