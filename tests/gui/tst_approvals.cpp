// SPDX-License-Identifier: Apache-2.0
// Calls that need several people's approval (issue 26), with real widgets
// (offscreen) over a real ConsoleCore and a real agent connection: the
// count in the queue, the approvers in the detail pane, the Approve button
// and the `a` key refused to a reviewer who approved already or started the
// agent, a second reviewer completing the count, and an edit resetting it.

#include "common/testsocket.h"
#include "engine/broker.h"
#include "engine/consolecore.h"
#include "mainwindow.h"
#include "queue/approvals.h"
#include "queuemodel.h"
#include "queueproxy.h"
#include "windowharness.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// The policy's default ask needs two people; a rule's own ask needs one.
const char *const SomeNeedTwo
    = R"({"version":1,"default":"ask","default_approvals":{"required":2},"guardrails":[
    {"type":"rules","rules":[{"when":{"tool":"read_file"},"action":"ask","reason":"reads need a look"}]}]})";
// Every call needs two people.
const char *const TwoPeople = R"({"version":1,"default":"ask","default_approvals":{"required":2}})";
// Three people; an edit keeps the approvals given before it.
const char *const ThreeKeep
    = R"({"version":1,"default":"ask","default_approvals":{"required":3,"on_edit":"keep"}})";
// Anyone but the agent's own OS user.
const char *const NotTheRequester
    = R"({"version":1,"default":"ask","default_approvals":{"required":1,"exclude_requester":true}})";

QString cell(const WindowHarness &h, const std::string &id, int column)
{
    const QAbstractItemModel *m = h.view()->model();
    for (int row = 0; row < m->rowCount(); ++row)
        if (m->index(row, 0).data(QueueModel::ItemIdRole).toString().toStdString() == id)
            return m->index(row, column).data().toString();
    return QStringLiteral("(not shown)");
}

std::string itemOf(const WindowHarness &h, const std::string &callId)
{
    std::string id;
    h.core->queue()->forEachPending([&](const QueueItem &item) {
        if (item.callId == callId)
            id = item.id;
    });
    return id;
}

// An approval by someone other than the console's reviewer, as another
// reviewer connection would send it.
ReviewOutcome approveAs(WindowHarness &h, const std::string &id, const std::string &name,
    const std::optional<Json> &args = std::nullopt)
{
    protocol::Review r;
    r.id = id;
    r.action = args ? protocol::ReviewAction::Edit : protocol::ReviewAction::Approve;
    r.args = args;
    return h.core->broker()->review(r, ReviewerIdentity { name, "test", name });
}

} // namespace

class TestApprovals : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void countShowsInTheQueueOnlyWhereItMatters();
    void approvingOnceWaitsForSomeoneElse();
    void aVoteFromElsewhereShowsAndAnEditResetsTheCount();
    void theAgentsOwnUserMayNotApprove();
    void withKeepAnApprovalBeforeAnEditStillCounts();
};

void TestApprovals::countShowsInTheQueueOnlyWhereItMatters()
{
    WindowHarness h(SomeNeedTwo);
    QVERIFY(h.started && h.welcomed);
    QAbstractItemModelTester tester(
        h.window->queueProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(h.submit("c1", "read_file", { { "path", "README" } }));
    QVERIFY(h.submit("c2", "deploy", { { "env", "prod" } }));
    const std::string plain = itemOf(h, "c1"), deploy = itemOf(h, "c2");
    QCOMPARE(h.view()->model()->headerData(QueueModel::Approvals, Qt::Horizontal).toString(),
        QStringLiteral("Approvals"));
    QCOMPARE(cell(h, deploy, QueueModel::Approvals), QStringLiteral("0/2"));
    QCOMPARE(cell(h, plain, QueueModel::Approvals), QString());

    // An ordinary call reads as it always did: nothing about approvals.
    h.view()->setFocus();
    QTRY_COMPARE(
        h.view()->currentIndex().data(QueueModel::ItemIdRole).toString().toStdString(), plain);
    QVERIFY(!h.child<QLabel>("approvals")->isVisible());
    QVERIFY(!h.child<QLabel>("approveNote")->isVisible());
    QVERIFY(h.child<QPushButton>("approveButton")->isEnabled());
    QCOMPARE(h.child<QPushButton>("approveButton")->toolTip(), QString());

    // Sorted and filtered, the count stays with its call.
    h.window->queueProxy()->setSortKey(QueueProxy::SortKey::Agent);
    QCOMPARE(cell(h, deploy, QueueModel::Approvals), QStringLiteral("0/2"));
    h.child<QLineEdit>("queueFilter")->setText(QStringLiteral("prod"));
    QCOMPARE(h.view()->model()->rowCount(), 1);
    QCOMPARE(cell(h, deploy, QueueModel::Approvals), QStringLiteral("0/2"));
    QVERIFY(h.view()
                ->model()
                ->index(0, QueueModel::Approvals)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("0 of 2 approvals; needs 2 more")));

    // A vote from elsewhere changes the cell while the filter holds.
    QVERIFY(approveAs(h, deploy, "bob").ok);
    QCOMPARE(cell(h, deploy, QueueModel::Approvals), QStringLiteral("1/2"));
    QCOMPARE(h.view()->model()->rowCount(), 1);
    QVERIFY(h.view()
                ->model()
                ->index(0, QueueModel::Approvals)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("1 of 2 approvals (bob); needs 1 more")));
}

void TestApprovals::approvingOnceWaitsForSomeoneElse()
{
    WindowHarness h(TwoPeople);
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("c1", "write_file", { { "path", "notes.txt" } }));
    const std::string id = itemOf(h, "c1");
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    auto *approve = h.child<QPushButton>("approveButton");
    auto *note = h.child<QLabel>("approveNote");
    auto *approvals = h.child<QLabel>("approvals");
    QVERIFY(approve->isEnabled());
    QVERIFY(note->isVisible());
    QCOMPARE(note->text(),
        QStringLiteral("Needs 2 approvals: yours makes 1 of 2; the call waits for 1 more"));
    QVERIFY(approvals->isVisible());
    QVERIFY(approvals->text().contains(QStringLiteral("0 of 2 approvals; needs 2 more")));

    // No rule may approve such calls from now on: the "always" scope is refused.
    h.key(Qt::Key_4);
    h.key(Qt::Key_A);
    QVERIFY(!h.window->alwaysDialog());
    QVERIFY(h.child<QLabel>("errorBanner")->isVisible());
    QVERIFY(h.child<QLabel>("errorBanner")
                ->text()
                .contains(QStringLiteral("which a rule cannot give")));
    QCOMPARE(h.core->queue()->find(id)->votes.size(), std::size_t(0));
    h.key(Qt::Key_1);

    // The first approval counts; the call waits, and says for whom.
    h.key(Qt::Key_A);
    QCOMPARE(h.core->queue()->size(), 1);
    QCOMPARE(approvalCount(*h.core->queue()->find(id)), 1);
    QCOMPARE(cell(h, id, QueueModel::Approvals), QStringLiteral("1/2"));
    QVERIFY(!h.child<QLabel>("errorBanner")->isVisible());
    QTRY_COMPARE(
        h.view()->currentIndex().data(QueueModel::ItemIdRole).toString().toStdString(), id);
    QVERIFY(!approve->isEnabled());
    QVERIFY(approve->toolTip().contains(QStringLiteral("tester approved these arguments already")));
    QCOMPARE(note->text(), QStringLiteral("Waiting for someone other than you (1/2)"));
    QVERIFY(note->isVisible());
    QVERIFY(h.child<QPushButton>("denyButton")->isEnabled());
    QVERIFY(h.child<QPushButton>("haltButton")->isEnabled());
    QVERIFY2(approvals->text().contains(QStringLiteral("1 of 2 approvals; needs 1 more")),
        qPrintable(approvals->text()));
    QVERIFY(approvals->text().contains(QStringLiteral("<b>tester</b> \u00b7 console")));
    QVERIFY(approvals->text().contains(QStringLiteral("approved: <tt>path=notes.txt</tt>")));

    // `a` again decides nothing: the reason shows where the reviewer looks.
    QCOMPARE(QApplication::focusWidget(), h.view());
    h.key(Qt::Key_A);
    QCOMPARE(h.core->queue()->size(), 1);
    QCOMPARE(h.core->queue()->find(id)->votes.size(), std::size_t(1));
    QVERIFY(h.child<QLabel>("errorBanner")->isVisible());
    QVERIFY(h.child<QLabel>("errorBanner")
                ->text()
                .contains(QStringLiteral("waiting for someone other than you (1/2 approvals)")));

    // A second person completes it: allowed, both named.
    const ReviewOutcome bob = approveAs(h, id, "bob");
    QVERIFY2(bob.ok, bob.message.c_str());
    QVERIFY(!bob.voted);
    QCOMPARE(h.core->queue()->size(), 0);
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["decided_by"], Json("human:tester,human:bob"));
    QTRY_COMPARE(h.child<QLabel>("detailTitle")->text(), QStringLiteral("The queue is clear"));
    QVERIFY(!approvals->isVisible());
}

void TestApprovals::aVoteFromElsewhereShowsAndAnEditResetsTheCount()
{
    WindowHarness h(TwoPeople);
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("c1", "write_file", { { "path", "notes.txt" } }));
    const std::string id = itemOf(h, "c1");
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    auto *approvals = h.child<QLabel>("approvals");
    auto *note = h.child<QLabel>("approveNote");

    // The reviewer is editing when bob's approval arrives: the edit stays,
    // the count and the approvers change.
    h.key(Qt::Key_E);
    QPlainTextEdit *editor = h.window->argsEditor();
    QTRY_VERIFY(editor->hasFocus());
    const QString edit = QStringLiteral("{\"path\": \"sandbox/notes.txt\"}");
    editor->setPlainText(edit);
    QVERIFY(approveAs(h, id, "bob").ok);
    QCOMPARE(cell(h, id, QueueModel::Approvals), QStringLiteral("1/2"));
    QVERIFY2(approvals->text().contains(QStringLiteral("<b>bob</b> \u00b7 test")),
        qPrintable(approvals->text()));
    QCOMPARE(editor->toPlainText(), edit);
    QVERIFY(h.child<QPushButton>("approveButton")->isEnabled());
    QCOMPARE(note->text(),
        QStringLiteral("Needs 2 approvals: yours completes it (2 of 2) and the call runs"));
    auto *approveEdits = h.child<QPushButton>("approveEditsButton");
    QVERIFY(approveEdits->isEnabled());

    // Approving with edits approves other arguments: bob's approval is void.
    QSignalSpy updated(h.core->queue(), &QueueStore::itemUpdated);
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(updated.size(), 1);
    const QueueItem *item = h.core->queue()->find(id);
    QVERIFY(item);
    QCOMPARE(approvers(*item), std::vector<std::string>({ "tester" }));
    QCOMPARE(cell(h, id, QueueModel::Approvals), QStringLiteral("1/2"));
    QCOMPARE(cell(h, id, QueueModel::Arguments), QStringLiteral("path=sandbox/notes.txt"));
    QVERIFY(!approvals->text().contains(QStringLiteral("<b>bob</b>")));
    QVERIFY2(approvals->text().contains(QStringLiteral("<b>tester</b> \u00b7 console")),
        qPrintable(approvals->text()));
    QVERIFY(approvals->text().contains(
        QStringLiteral("edited the arguments to: <tt>path=sandbox/notes.txt</tt>")));
    QVERIFY(approvals->text().contains(QStringLiteral("(as edited by tester)")));
    QVERIFY(!h.child<QPushButton>("approveButton")->isEnabled());
    QCOMPARE(note->text(), QStringLiteral("Waiting for someone other than you (1/2)"));
    // The editor now starts from the arguments as they stand.
    QTRY_COMPARE(Json::parse(editor->toPlainText().toStdString()),
        Json({ { "path", "sandbox/notes.txt" } }));

    // Bob approves the edited arguments: they run, both named.
    QVERIFY(approveAs(h, id, "bob").ok);
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({ { "path", "sandbox/notes.txt" } }));
    QCOMPARE(d["decided_by"], Json("human:tester,human:bob"));
}

void TestApprovals::theAgentsOwnUserMayNotApprove()
{
    WindowHarness h(NotTheRequester);
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("c1", "write_file", { { "path", "notes.txt" } }));
    const std::string id = itemOf(h, "c1");
    const QString me = QString::fromStdString(ConsoleCore::currentOsUser());
    QCOMPARE(h.core->queue()->find(id)->requester, me.toStdString());
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    QCOMPARE(cell(h, id, QueueModel::Approvals), QStringLiteral("0/1"));

    auto *approve = h.child<QPushButton>("approveButton");
    auto *note = h.child<QLabel>("approveNote");
    QVERIFY(!approve->isEnabled());
    QVERIFY(
        approve->toolTip().contains(QStringLiteral("started this agent (as OS user %1)").arg(me)));
    QCOMPARE(note->text(),
        QStringLiteral("You started this agent (OS user %1): someone else must approve (0/1)")
            .arg(me));
    QVERIFY(h.child<QLabel>("approvals")
                ->text()
                .contains(QStringLiteral("Started by OS user <b>%1</b>").arg(me)));
    // Nor with edits: an edit is an approval.
    h.window->argsEditor()->setPlainText(QStringLiteral("{\"path\": \"other.txt\"}"));
    QVERIFY(h.window->argsEditor()->toPlainText().contains(QStringLiteral("other.txt")));
    QVERIFY(!h.child<QPushButton>("approveEditsButton")->isEnabled());
    QVERIFY(h.child<QPushButton>("denyButton")->isEnabled());

    h.view()->setFocus();
    h.key(Qt::Key_A);
    QCOMPARE(h.core->queue()->size(), 1);
    QVERIFY(h.core->queue()->find(id)->votes.empty());
    QVERIFY(h.child<QLabel>("errorBanner")
                ->text()
                .contains(QStringLiteral("needs approval from someone else")));

    QVERIFY(approveAs(h, id, "bob").ok);
    QCOMPARE(h.decisionFor("c1")["decided_by"], Json("human:bob"));
}

void TestApprovals::withKeepAnApprovalBeforeAnEditStillCounts()
{
    WindowHarness h(ThreeKeep);
    QVERIFY(h.started && h.welcomed);
    QVERIFY(h.submit("c1", "write_file", { { "path", "notes.txt" } }));
    const std::string id = itemOf(h, "c1");
    h.view()->setFocus();
    QTRY_COMPARE(h.view()->currentIndex().row(), 0);
    auto *approvals = h.child<QLabel>("approvals");
    QVERIFY(approveAs(h, id, "bob").ok);
    QVERIFY(approveAs(h, id, "carol", Json({ { "path", "sandbox/notes.txt" } })).ok);
    // Both count, as the queue counts them; neither is shown struck out.
    QCOMPARE(cell(h, id, QueueModel::Approvals), QStringLiteral("2/3"));
    QTRY_VERIFY2(approvals->text().contains(QStringLiteral("2 of 3 approvals")),
        qPrintable(approvals->text()));
    QVERIFY2(
        approvals->text().contains(QStringLiteral("<b>bob</b>")), qPrintable(approvals->text()));
    QVERIFY2(!approvals->text().contains(QStringLiteral("does not count")),
        qPrintable(approvals->text()));
}

QTEST_MAIN(TestApprovals)
#include "tst_approvals.moc"
