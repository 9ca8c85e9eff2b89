// SPDX-License-Identifier: Apache-2.0
#include "queuemodel.h"

#include "approvaltext.h"
#include "common/visibletext.h"
#include "itemtext.h"
#include "queue/approvals.h"

#include <QColor>

namespace holdpoint {

QueueModel::QueueModel(ReviewQueue *queue, QObject *parent)
    : QAbstractTableModel(parent)
    , m_queue(queue)
{
    connect(
        queue, &ReviewQueue::aboutToAdd, this, [this](int row) { beginInsertRows({}, row, row); });
    connect(queue, &ReviewQueue::added, this, [this](int) { endInsertRows(); });
    connect(queue, &ReviewQueue::aboutToRemove, this,
        [this](int row) { beginRemoveRows({}, row, row); });
    connect(queue, &ReviewQueue::removed, this, [this](int) { endRemoveRows(); });
    connect(queue, &ReviewQueue::changed, this, [this](int row) {
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    });
    // The waiting time and the countdown are live; only those cells change.
    connect(&m_ticker, &QTimer::timeout, this, &QueueModel::tick);
    m_ticker.start(1000);
}

int QueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_queue->size();
}

int QueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const QueueItem *QueueModel::itemAt(int row) const
{
    return row >= 0 && row < m_queue->size() ? &m_queue->at(row) : nullptr;
}

QVariant QueueModel::data(const QModelIndex &index, int role) const
{
    const QueueItem *item = itemAt(index.row());
    if (!item || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    if (role == ItemIdRole)
        return toQString(item->id);
    if (role == RiskRole)
        return item->risk;
    const TimeMs now = m_queue->clock()->now();
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Waiting:
            return formatDuration(now - item->receivedAt);
        case Agent:
            return displaySafe(toQString(item->agent.name), 60);
        case Tool:
            return displaySafe(toQString(item->toolName), 60);
        case Arguments:
            return summarizeArgs(item->masked(approvedArgs(*item)));
        case Reason:
            return whyText(*item, itemSignals(*item));
        case Warnings: {
            // The turn's loop first, as a marker with its count against the stop threshold.
            QString loop;
            if (!item->turnFindings.empty()) {
                const protocol::TurnFinding &f = item->turnFindings.front();
                loop = QStringLiteral("\u27f2 %1/%2").arg(f.count).arg(f.stopAt);
                if (item->turnFindings.size() > 1)
                    loop += QStringLiteral(" +%1").arg(item->turnFindings.size() - 1);
            }
            if (item->warnings.empty())
                return loop;
            const QString first = displaySafe(
                toQString(maskText(item->warnings.front().message, item->redactions)), 60);
            const QString warned = item->warnings.size() == 1
                ? QStringLiteral("\u26a0 ") + first
                : QStringLiteral("\u26a0 %1 (+%2)").arg(first).arg(item->warnings.size() - 1);
            return loop.isEmpty() ? warned : loop + QStringLiteral("  ") + warned;
        }
        case Approvals:
            return item->approvals.voted()
                ? QStringLiteral("%1/%2").arg(approvalCount(*item)).arg(item->approvals.required)
                : QString();
        case TimeLeft:
            return item->deadline == NoDeadline ? QString() : formatDuration(item->deadline - now);
        case ColumnCount:
            break;
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Approvals && item->approvals.voted())
        return approvalsSummary(*item);
    if (role == Qt::ToolTipRole && index.column() == Warnings
        && (!item->warnings.empty() || !item->turnFindings.empty())) {
        QStringList lines;
        for (const protocol::TurnFinding &f : item->turnFindings)
            lines << tr("this turn: %1 \u2014 %2")
                         .arg(toQString(protocol::turnFindingHint(f)),
                             toQString(maskText(f.message, item->redactions)));
        for (const protocol::Warning &w : item->warnings)
            lines << toQString(w.guardrail) + QStringLiteral(": ")
                    + toQString(maskText(w.message, item->redactions));
        return visibleText(lines.join(u'\n'));
    }
    if (role == Qt::ToolTipRole && index.column() == Arguments)
        return toQString(visibleJson(item->masked(approvedArgs(*item)), 2)).left(4000);
    if (role == Qt::ToolTipRole && index.column() == Reason)
        return displaySafe(toQString(maskText(item->reason, item->redactions)), 2000);
    if (role == Qt::ForegroundRole && index.column() == Warnings && !item->turnFindings.empty()) {
        const protocol::TurnFinding &f = item->turnFindings.front();
        return f.count >= f.stopAt ? QColor(0xc0, 0x39, 0x2b) : QColor(0xb9, 0x77, 0x0e);
    }
    if (role == Qt::ForegroundRole && !item->agentConnected)
        return QColor(Qt::gray);
    // Nothing to say beyond the policy's default: quiet, so real findings stand out.
    if (role == Qt::ForegroundRole && index.column() == Reason
        && onlyTheDefaultAsked(itemSignals(*item)))
        return QColor(0x8a, 0x8a, 0x8a);
    if (role == Qt::TextAlignmentRole && (index.column() == Waiting || index.column() == TimeLeft))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::TextAlignmentRole && index.column() == Approvals)
        return int(Qt::AlignCenter);
    return {};
}

QVariant QueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Waiting:
        return tr("Waiting");
    case Agent:
        return tr("Agent");
    case Tool:
        return tr("Tool");
    case Arguments:
        return tr("Arguments");
    case Reason:
        return tr("Why");
    case Warnings:
        return tr("Warnings");
    case Approvals:
        return tr("Approvals");
    case TimeLeft:
        return tr("Time left");
    case ColumnCount:
        break;
    }
    return {};
}

void QueueModel::tick()
{
    const int rows = rowCount();
    if (rows == 0)
        return;
    Q_EMIT dataChanged(index(0, Waiting), index(rows - 1, Waiting), { Qt::DisplayRole });
    Q_EMIT dataChanged(index(0, TimeLeft), index(rows - 1, TimeLeft), { Qt::DisplayRole });
}

} // namespace holdpoint
