#pragma once

#include "queue/queuefilter.h"

#include <QSortFilterProxyModel>

#include <optional>
#include <string>

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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QueueModel *m_source;
    QueueFilter m_filter;
    std::optional<Turn> m_turn;
    SortKey m_key = SortKey::Age;
};

} // namespace holdpoint
