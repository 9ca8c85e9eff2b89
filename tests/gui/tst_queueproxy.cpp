// SPDX-License-Identifier: Apache-2.0
#include "queue/reviewqueue.h"
#include "queuemodel.h"
#include "queueproxy.h"

#include <QAbstractItemModelTester>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace holdpoint;

// The queue's proxy against a brute-force reference: after every change
// to the queue, the filter, the turn or the sort key, the rows it shows
// are exactly the pending items that pass, in the order the key gives,
// and a row the reviewer holds stays on its item.
class TestQueueProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesReferenceThroughRandomChanges();
    void riskChangeMovesTheRowAndKeepsTheSelection();
    void liveTicksAreForwardedOnce();
    void headersShowWhenEmpty();

private:
    // The queue with the window's model and proxy over it.
    struct Stack
    {
        ManualClock clock { 1'000'000 };
        ReviewQueue queue { &clock };
        QueueModel model { &queue };
        QueueProxy proxy { &model };
    };

    static QueueItem makeItem(ReviewQueue &q, int i, TimeMs receivedAt)
    {
        static const char *tools[] = { "read_file", "write_file", "bash", "deploy", "search" };
        static const char *agents[] = { "coder", "reviewer", "ops", "bot" };
        QueueItem item;
        item.id = q.newId();
        item.callId = "c" + std::to_string(i);
        item.sessionId = "s" + std::to_string(i % 3);
        item.turnId
            = i % 4 == 0 ? std::nullopt : std::optional<std::string>("t" + std::to_string(i % 2));
        item.agent = { agents[i % 4], "test" };
        item.toolName = tools[(i * 7) % 5];
        item.args = { { "path", "src/f" + std::to_string(i % 11) + ".cpp" } };
        item.receivedAt = receivedAt;
        return item;
    }

    static std::vector<const QueueItem *> reference(const ReviewQueue &q, const QueueFilter &filter,
        const std::optional<QueueProxy::Turn> &turn, QueueProxy::SortKey key)
    {
        std::vector<const QueueItem *> items;
        q.forEachPending([&](const QueueItem &item) {
            if (turn && (item.sessionId != turn->session || item.turnId.value_or("") != turn->turn))
                return;
            if (filter.empty() || filter.matches(item))
                items.push_back(&item);
        });
        std::stable_sort(items.begin(), items.end(), [key](const QueueItem *a, const QueueItem *b) {
            if (key == QueueProxy::SortKey::Risk && a->risk != b->risk)
                return a->risk > b->risk;
            if (key == QueueProxy::SortKey::Agent && a->agent.name != b->agent.name)
                return a->agent.name < b->agent.name;
            return a->receivedAt < b->receivedAt;
        });
        return items;
    }
};

void TestQueueProxy::matchesReferenceThroughRandomChanges()
{
    Stack stack;
    auto &[clock, queue, model, proxy] = stack;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QRandomGenerator rng(2024);
    QueueFilter filter;
    std::optional<QueueProxy::Turn> turn;
    const QString texts[] = { QString(), QStringLiteral("bash"), QStringLiteral("coder"),
        QStringLiteral("f3"), QStringLiteral("write f1") };
    int next = 0;
    // More than two blocks' worth, so rows move between blocks.
    for (int i = 0; i < 900; ++i)
        queue.add(makeItem(queue, next++, 1'000'000 + TimeMs(rng.bounded(5000))));

    QPersistentModelIndex held;
    const QueueItem *heldItem = nullptr;
    for (int step = 0; step < 1500; ++step) {
        const int op = int(rng.bounded(100));
        if (op < 35) {
            queue.add(makeItem(queue, next++, 1'000'000 + TimeMs(rng.bounded(5000))));
        } else if (op < 70 && queue.size() > 0) {
            const std::string id = queue.at(int(rng.bounded(quint32(queue.size())))).id;
            protocol::Decision d;
            d.kind = protocol::DecisionKind::Allow;
            QVERIFY(queue.resolve(id, ItemState::Decided, d));
        } else if (op < 82) {
            // A turn's loop findings change its items' risk.
            protocol::TurnFinding f;
            f.pattern = "exact_failure";
            f.count = int(rng.bounded(6));
            f.stopAt = 4;
            std::vector<protocol::TurnFinding> findings;
            if (f.count > 0)
                findings.push_back(f);
            queue.setTurnFindings("s" + std::to_string(rng.bounded(3)),
                std::optional<std::string>("t" + std::to_string(rng.bounded(2))), findings);
        } else if (op < 90) {
            const QString text = texts[rng.bounded(5)];
            proxy.setFilterText(text);
            filter.setText(text.toStdString());
        } else if (op < 95) {
            proxy.setSortKey(QueueProxy::SortKey(rng.bounded(3)));
        } else {
            turn = rng.bounded(2)
                ? std::nullopt
                : std::optional<QueueProxy::Turn>(QueueProxy::Turn {
                    "s" + std::to_string(rng.bounded(3)), "t" + std::to_string(rng.bounded(2)) });
            proxy.setTurn(turn);
        }

        const std::vector<const QueueItem *> want = reference(queue, filter, turn, proxy.sortKey());
        QCOMPARE(proxy.rowCount(), int(want.size()));
        for (std::size_t row = 0; row < want.size(); ++row) {
            if (proxy.itemAt(int(row)) != want[row])
                QFAIL(qPrintable(QStringLiteral("step %1: row %2 differs").arg(step).arg(row)));
        }
        // Both ways between the proxy and the queue's rows.
        for (int k = 0; k < 5 && !want.empty(); ++k) {
            const int row = int(rng.bounded(quint32(want.size())));
            const QModelIndex source = proxy.mapToSource(proxy.index(row, 2));
            QCOMPARE(source.row(), queue.rowOf(want[std::size_t(row)]));
            QCOMPARE(source.column(), 2);
            QCOMPARE(proxy.mapFromSource(source), proxy.index(row, 2));
            QCOMPARE(proxy.index(row, 0).data(QueueModel::ItemIdRole).toString().toStdString(),
                want[std::size_t(row)]->id);
        }
        // A held row follows its item while it shows, and dies with it.
        if (heldItem) {
            const bool shows = std::find(want.begin(), want.end(), heldItem) != want.end();
            if (shows && proxy.itemAt(held.row()) != heldItem)
                QFAIL(qPrintable(QStringLiteral("step %1 (op %2): the held row %3 lost its item")
                                     .arg(step)
                                     .arg(op)
                                     .arg(held.row())));
            if (!shows)
                QVERIFY(!held.isValid());
        }
        // Once lost, a row is not found again: hold another.
        if (!held.isValid()) {
            heldItem = nullptr;
            if (!want.empty()) {
                const int row = int(rng.bounded(quint32(want.size())));
                held = proxy.index(row, 1);
                heldItem = want[std::size_t(row)];
            }
        }
    }
}

void TestQueueProxy::riskChangeMovesTheRowAndKeepsTheSelection()
{
    Stack stack;
    auto &[clock, queue, model, proxy] = stack;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int i = 0; i < 5; ++i) {
        QueueItem item = makeItem(queue, i, 1'000'000 + i);
        item.toolName = "read_file";
        item.sessionId = "s" + std::to_string(i);
        item.turnId = "t";
        queue.add(std::move(item));
    }
    proxy.setSortKey(QueueProxy::SortKey::Risk);
    const QueueItem *last = proxy.itemAt(4);
    QCOMPARE(last->callId, std::string("c4")); // equal risk: oldest first
    QPersistentModelIndex held = proxy.index(4, 0);
    QSignalSpy moved(&proxy, &QAbstractItemModel::rowsMoved);
    QSignalSpy removed(&proxy, &QAbstractItemModel::rowsRemoved);
    protocol::TurnFinding f;
    f.pattern = "exact_failure";
    f.count = 5;
    f.stopAt = 5;
    queue.setTurnFindings("s4", std::string("t"), { f });
    QVERIFY(last->risk > proxy.itemAt(1)->risk);
    QCOMPARE(proxy.itemAt(0), last);
    QCOMPARE(moved.count(), 1);
    QCOMPARE(removed.count(), 0);
    QCOMPARE(held.row(), 0);
}

void TestQueueProxy::liveTicksAreForwardedOnce()
{
    Stack stack;
    auto &[clock, queue, model, proxy] = stack;
    for (int i = 0; i < 300; ++i)
        queue.add(makeItem(queue, i, 1'000'000 + i));
    proxy.setFilterText(QStringLiteral("bash"));
    QSignalSpy changed(&proxy, &QAbstractItemModel::dataChanged);
    QSignalSpy layout(&proxy, &QAbstractItemModel::layoutChanged);
    Q_EMIT model.dataChanged(model.index(0, QueueModel::Waiting),
        model.index(299, QueueModel::Waiting), { Qt::DisplayRole });
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex(), proxy.index(0, QueueModel::Waiting));
    QCOMPARE(
        changed.at(0).at(1).toModelIndex(), proxy.index(proxy.rowCount() - 1, QueueModel::Waiting));
    QCOMPARE(layout.count(), 0);
}

void TestQueueProxy::headersShowWhenEmpty()
{
    Stack stack;
    auto &[clock, queue, model, proxy] = stack;
    QCOMPARE(proxy.rowCount(), 0);
    QVERIFY(!proxy.hasChildren());
    QCOMPARE(proxy.headerData(QueueModel::Tool, Qt::Horizontal).toString(), QStringLiteral("Tool"));
}

QTEST_MAIN(TestQueueProxy)
#include "tst_queueproxy.moc"
