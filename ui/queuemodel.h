#pragma once

#include "queue/reviewqueue.h"

#include <QAbstractTableModel>
#include <QTimer>

namespace holdpoint {

// The pending queue as a table. Rows follow ReviewQueue's rows one to one;
// its about-to/done signals become begin/end calls, never a reset.
class QueueModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Waiting, Agent, Tool, Arguments, Reason, Warnings, TimeLeft, ColumnCount };
    enum Roles {
        ItemIdRole = Qt::UserRole + 1,
        // Never in a dataChanged: a proxy sorting by it is not re-sorted by
        // the live columns' ticks (QueueProxy sorts by the items themselves).
        SortKeyRole,
        RiskRole,
    };

    explicit QueueModel(ReviewQueue *queue, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const QueueItem *itemAt(int row) const;

private:
    void tick();

    ReviewQueue *m_queue;
    QTimer m_ticker;
};

} // namespace holdpoint
