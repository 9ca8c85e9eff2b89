#pragma once

#include "queue/queuefilter.h"

#include <QSortFilterProxyModel>

namespace holdpoint {

class QueueModel;

// The queue as the reviewer arranges it: a thin proxy whose filter is
// core's QueueFilter and whose sort keys are the item's own (arrival, risk,
// agent), so neither depends on how a cell is drawn.
class QueueProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum class SortKey { Age, Risk, Agent };

    explicit QueueProxy(QueueModel *source, QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return QString::fromStdString(m_filter.text()); }
    void setSortKey(SortKey key);
    SortKey sortKey() const { return m_key; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QueueModel *m_source;
    QueueFilter m_filter;
    SortKey m_key = SortKey::Age;
};

} // namespace holdpoint
