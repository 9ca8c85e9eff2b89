#include "queueproxy.h"

#include "queuemodel.h"

namespace holdpoint {

QueueProxy::QueueProxy(QueueModel *source, QObject *parent)
    : QSortFilterProxyModel(parent)
    , m_source(source)
{
    setSourceModel(source);
    // Sorting reads the items, not a role the live cells change every
    // second, so the ticking countdown never re-sorts 10,000 rows.
    setSortRole(QueueModel::SortKeyRole);
    setDynamicSortFilter(true);
    sort(0, Qt::AscendingOrder);
}

void QueueProxy::setFilterText(const QString &text)
{
    if (text.toStdString() == m_filter.text())
        return;
    m_filter.setText(text.toStdString());
    invalidateRowsFilter();
}

void QueueProxy::setTurn(std::optional<Turn> turn)
{
    m_turn = std::move(turn);
    invalidateRowsFilter();
}

void QueueProxy::setSortKey(SortKey key)
{
    if (key == m_key)
        return;
    m_key = key;
    invalidate();
    sort(0, Qt::AscendingOrder);
}

bool QueueProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    if (m_filter.empty() && !m_turn)
        return true;
    const QueueItem *item = m_source->itemAt(sourceRow);
    if (!item)
        return false;
    if (m_turn && (item->sessionId != m_turn->session || item->turnId.value_or(std::string()) != m_turn->turn))
        return false;
    return m_filter.empty() || m_filter.matches(*item);
}

bool QueueProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QueueItem *a = m_source->itemAt(left.row());
    const QueueItem *b = m_source->itemAt(right.row());
    if (!a || !b)
        return false;
    // Ties keep arrival order, oldest first.
    switch (m_key) {
    case SortKey::Risk:
        if (a->risk != b->risk)
            return a->risk > b->risk;
        break;
    case SortKey::Agent:
        if (a->agent.name != b->agent.name)
            return a->agent.name < b->agent.name;
        break;
    case SortKey::Age:
        break;
    }
    return a->receivedAt != b->receivedAt ? a->receivedAt < b->receivedAt : left.row() < right.row();
}

} // namespace holdpoint
