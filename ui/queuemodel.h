// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "queue/reviewqueue.h"

#include <QAbstractTableModel>
#include <QTimer>

namespace holdpoint {

// The pending queue as a table. Rows follow ReviewQueue's rows one to one;
// its about-to/done signals become begin/end calls, never a reset. The
// live columns' once-a-second ticks change DisplayRole alone; every other
// change names no roles (QueueProxy relies on this).
class QueueModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Approvals: "1/2" on a call that needs several people (approvals.h),
    // empty on one that needs one.
    enum Column
    {
        Waiting,
        Agent,
        Tool,
        Arguments,
        Reason,
        Warnings,
        Approvals,
        TimeLeft,
        ColumnCount
    };
    enum Roles
    {
        ItemIdRole = Qt::UserRole + 1,
        RiskRole,
    };

    explicit QueueModel(ReviewQueue *queue, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const QueueItem *itemAt(int row) const;
    ReviewQueue *queue() const { return m_queue; }

private:
    void tick();

    ReviewQueue *m_queue;
    QTimer m_ticker;
};

} // namespace holdpoint
