// SPDX-License-Identifier: Apache-2.0
#include "queueproxy.h"

#include "queuemodel.h"

#include <algorithm>

namespace holdpoint {

QueueProxy::QueueProxy(QueueModel *source, QObject *parent)
    : QAbstractProxyModel(parent)
    , m_source(source)
    , m_queue(source->queue())
{
    QAbstractProxyModel::setSourceModel(source);
    connect(source, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &, int first, int last) {
            for (int row = first; row <= last; ++row)
                if (const QueueItem *item = m_source->itemAt(row); item && accepts(*item))
                    insertItem(item);
        });
    // Removed while the source is about to remove them, so each row's item
    // is still there to be looked up.
    connect(source, &QAbstractItemModel::rowsAboutToBeRemoved, this,
        [this](const QModelIndex &, int first, int last) {
            for (int row = last; row >= first; --row)
                if (const long rank = rankOf(m_source->itemAt(row)); rank >= 0)
                    removeRank(rank);
        });
    connect(source, &QAbstractItemModel::dataChanged, this, &QueueProxy::forwardDataChanged);
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); });
    connect(source, &QAbstractItemModel::modelReset, this, [this] {
        rebuild();
        endResetModel();
    });
    connect(source, &QAbstractItemModel::headerDataChanged, this,
        &QAbstractItemModel::headerDataChanged);
    rebuild();
}

bool QueueProxy::less(const Entry &a, const Entry &b) const
{
    // Ties keep arrival order, oldest first.
    switch (m_key) {
    case SortKey::Risk:
        if (a.risk != b.risk)
            return a.risk > b.risk;
        break;
    case SortKey::Agent:
        if (a.item->agent.name != b.item->agent.name)
            return a.item->agent.name < b.item->agent.name;
        break;
    case SortKey::Age:
        break;
    }
    if (a.item->receivedAt != b.item->receivedAt)
        return a.item->receivedAt < b.item->receivedAt;
    return a.item->arrival < b.item->arrival;
}

bool QueueProxy::accepts(const QueueItem &item) const
{
    if (m_turn
        && (item.sessionId != m_turn->session
            || item.turnId.value_or(std::string()) != m_turn->turn))
        return false;
    return m_filter.empty() || m_filter.matches(item);
}

long QueueProxy::rankOf(const QueueItem *item) const
{
    const auto it = item ? m_shown.find(item) : m_shown.end();
    if (it == m_shown.end())
        return -1;
    return m_rows.find(Entry { item, it->second }, lessFn());
}

const QueueItem *QueueProxy::itemAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_rows.size() ? m_rows.at(std::size_t(row)).item
                                                        : nullptr;
}

void QueueProxy::insertItem(const QueueItem *item)
{
    const Entry entry { item, item->risk };
    const int rank = int(m_rows.lowerBound(entry, lessFn()));
    beginInsertRows({}, rank, rank);
    m_rows.insertAt(std::size_t(rank), entry);
    m_shown.emplace(item, item->risk);
    endInsertRows();
}

void QueueProxy::removeRank(long rank)
{
    beginRemoveRows({}, int(rank), int(rank));
    m_shown.erase(m_rows.at(std::size_t(rank)).item);
    m_rows.eraseAt(std::size_t(rank));
    endRemoveRows();
}

// An item changed in a way that may change whether it shows or where.
void QueueProxy::update(const QueueItem *item)
{
    const long r0 = rankOf(item);
    const bool accepted = accepts(*item);
    if (r0 < 0) {
        if (accepted)
            insertItem(item);
        return;
    }
    if (!accepted)
        return removeRank(r0);
    const Entry now { item, item->risk };
    long row = r0;
    if (now.risk != m_rows.at(std::size_t(r0)).risk) {
        // Where the new key belongs among the rows as they are (the old
        // entry included): r0 or just after it means it stays in place.
        const long r1 = long(m_rows.lowerBound(now, lessFn()));
        if (r1 != r0 && r1 != r0 + 1) {
            beginMoveRows({}, int(r0), int(r0), {}, int(r1));
            m_rows.eraseAt(std::size_t(r0));
            row = r1 > r0 ? r1 - 1 : r1;
            m_rows.insertAt(std::size_t(row), now);
            m_shown[item] = now.risk;
            endMoveRows();
        } else {
            m_rows.at(std::size_t(r0)).risk = now.risk;
            m_shown[item] = now.risk;
        }
    }
    Q_EMIT dataChanged(index(int(row), 0), index(int(row), columnCount() - 1));
}

void QueueProxy::forwardDataChanged(
    const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    if (!topLeft.isValid() || !bottomRight.isValid())
        return;
    // DisplayRole alone is the live columns' tick: no key or filter changed.
    const bool displayOnly = roles.size() == 1 && roles.front() == Qt::DisplayRole;
    if (!displayOnly) {
        for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
            if (const QueueItem *item = m_source->itemAt(row))
                update(item);
        return;
    }
    if (m_rows.empty())
        return;
    const int span = bottomRight.row() - topLeft.row() + 1;
    if (span > 64) {
        // A tick over every row: one signal for the shown rows, not 100,000.
        Q_EMIT dataChanged(
            index(0, topLeft.column()), index(rowCount() - 1, bottomRight.column()), roles);
        return;
    }
    for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
        if (const long rank = rankOf(m_source->itemAt(row)); rank >= 0)
            Q_EMIT dataChanged(
                index(int(rank), topLeft.column()), index(int(rank), bottomRight.column()), roles);
    }
}

void QueueProxy::rebuild()
{
    std::vector<Entry> entries;
    m_shown.clear();
    m_queue->forEachPending([&](const QueueItem &item) {
        if (accepts(item)) {
            entries.push_back({ &item, item.risk });
            m_shown.emplace(&item, item.risk);
        }
    });
    std::sort(entries.begin(), entries.end(), lessFn());
    m_rows.assign(std::move(entries));
}

void QueueProxy::refilter()
{
    // As QSortFilterProxyModel does: rows that leave are removed and rows
    // that come are inserted, in runs, so the selection and the current
    // row stay on the items that still show.
    std::vector<Entry> shown;
    shown.reserve(m_rows.size());
    m_rows.forEach([&](const Entry &e) { shown.push_back(e); });
    for (long end = long(shown.size()); end > 0;) {
        if (accepts(*shown[std::size_t(end - 1)].item)) {
            --end;
            continue;
        }
        long first = end - 1;
        while (first > 0 && !accepts(*shown[std::size_t(first - 1)].item))
            --first;
        beginRemoveRows({}, int(first), int(end - 1));
        for (long i = first; i < end; ++i)
            m_shown.erase(shown[std::size_t(i)].item);
        m_rows.eraseAt(std::size_t(first), std::size_t(end - first));
        endRemoveRows();
        end = first;
    }

    std::vector<Entry> coming;
    m_queue->forEachPending([&](const QueueItem &item) {
        if (!m_shown.contains(&item) && accepts(item))
            coming.push_back({ &item, item.risk });
    });
    std::sort(coming.begin(), coming.end(), lessFn());
    std::size_t next = 0;
    while (next < coming.size()) {
        // Each run goes where its first entry belongs; it ends before the
        // first row already shown that sorts before the run's next entry.
        const std::size_t rank = m_rows.lowerBound(coming[next], lessFn());
        std::size_t end = next + 1;
        if (rank < m_rows.size()) {
            const Entry &after = m_rows.at(rank);
            while (end < coming.size() && less(coming[end], after))
                ++end;
        } else {
            end = coming.size();
        }
        beginInsertRows({}, int(rank), int(rank + (end - next) - 1));
        m_rows.insertAt(rank, coming.begin() + std::ptrdiff_t(next), end - next);
        for (std::size_t i = next; i < end; ++i)
            m_shown.emplace(coming[i].item, coming[i].risk);
        endInsertRows();
        next = end;
    }
}

void QueueProxy::setFilterText(const QString &text)
{
    if (text.toStdString() == m_filter.text())
        return;
    m_filter.setText(text.toStdString());
    refilter();
}

void QueueProxy::setTurn(std::optional<Turn> turn)
{
    m_turn = std::move(turn);
    refilter();
}

void QueueProxy::setSortKey(SortKey key)
{
    if (key == m_key)
        return;
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<const QueueItem *> items;
    items.reserve(std::size_t(before.size()));
    for (const QModelIndex &i : before)
        items.push_back(itemAt(i.row()));
    m_key = key;
    rebuild();
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i) {
        const long rank = rankOf(items[std::size_t(i)]);
        after.push_back(rank < 0 ? QModelIndex() : index(int(rank), before[i].column()));
    }
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

QModelIndex QueueProxy::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || std::size_t(row) >= m_rows.size() || column < 0
        || column >= columnCount())
        return {};
    return createIndex(row, column);
}

QModelIndex QueueProxy::parent(const QModelIndex &) const
{
    return {};
}

int QueueProxy::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int QueueProxy::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_source->columnCount();
}

bool QueueProxy::hasChildren(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_rows.empty();
}

QModelIndex QueueProxy::sibling(int row, int column, const QModelIndex &) const
{
    return index(row, column);
}

QVariant QueueProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal)
        return m_source->headerData(section, orientation, role);
    return QAbstractItemModel::headerData(section, orientation, role);
}

QModelIndex QueueProxy::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!proxyIndex.isValid() || proxyIndex.model() != this)
        return {};
    const QueueItem *item = itemAt(proxyIndex.row());
    const int row = item ? m_queue->rowOf(item) : -1;
    return row < 0 ? QModelIndex() : m_source->index(row, proxyIndex.column());
}

QModelIndex QueueProxy::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!sourceIndex.isValid() || sourceIndex.model() != m_source)
        return {};
    const long rank = rankOf(m_source->itemAt(sourceIndex.row()));
    return rank < 0 ? QModelIndex() : index(int(rank), sourceIndex.column());
}

} // namespace holdpoint
