// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "queue/queuefilter.h"
#include "queue/rankedlist.h"

#include <QAbstractProxyModel>

#include <optional>
#include <string>
#include <unordered_map>

namespace holdpoint {

class QueueModel;
class ReviewQueue;
struct QueueItem;

// The queue as the reviewer arranges it: core's QueueFilter decides which
// items show, and the items' own keys (arrival, risk, agent) their order,
// so neither depends on how a cell is drawn.
//
// It keeps the shown items in a RankedList, so a call arriving or decided
// among 100,000 costs a binary search and one block's move, where
// QSortFilterProxyModel renumbers its whole mapping. Rows change only as
// the queue does: the per-second ticks of the live columns (DisplayRole
// alone) are forwarded without re-sorting or re-filtering anything.
class QueueProxy final : public QAbstractProxyModel
{
    Q_OBJECT
public:
    enum class SortKey
    {
        Age,
        Risk,
        Agent
    };

    explicit QueueProxy(QueueModel *source, QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return QString::fromStdString(m_filter.text()); }
    // Only the pending calls of one turn ("" is a session's calls outside
    // any turn); unset shows every turn.
    struct Turn
    {
        std::string session;
        std::string turn;
    };
    void setTurn(std::optional<Turn> turn);
    const std::optional<Turn> &turn() const { return m_turn; }
    void setSortKey(SortKey key);
    SortKey sortKey() const { return m_key; }

    const QueueItem *itemAt(int row) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &idx) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;

private:
    // A shown item with the risk it was sorted by: the one key that can
    // change while the item waits.
    struct Entry
    {
        const QueueItem *item = nullptr;
        int risk = 0;
    };
    bool less(const Entry &a, const Entry &b) const;
    auto lessFn() const
    {
        return [this](const Entry &a, const Entry &b) { return less(a, b); };
    }
    bool accepts(const QueueItem &item) const;
    long rankOf(const QueueItem *item) const;

    void insertItem(const QueueItem *item);
    void removeRank(long rank);
    void update(const QueueItem *item);
    void refilter();
    void rebuild();
    void forwardDataChanged(
        const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);

    QueueModel *m_source;
    ReviewQueue *m_queue;
    RankedList<Entry> m_rows;
    std::unordered_map<const QueueItem *, int> m_shown; // item -> risk it is sorted by
    QueueFilter m_filter;
    std::optional<Turn> m_turn;
    SortKey m_key = SortKey::Age;
};

} // namespace holdpoint
