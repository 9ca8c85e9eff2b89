// SPDX-License-Identifier: Apache-2.0
#include "queueselection.h"

#include "queuemodel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace holdpoint {

namespace {

std::string idAt(const QAbstractItemModel *model, int row)
{
    return model->index(row, 0).data(QueueModel::ItemIdRole).toString().toStdString();
}

} // namespace

void QueueView::setUpColumns()
{
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    horizontalHeader()->setStretchLastSection(false);
    QHeaderView *header = horizontalHeader();
    header->setMinimumSectionSize(48);
    for (int c = 0; c < QueueModel::ColumnCount; ++c)
        header->setSectionResizeMode(c, QHeaderView::Interactive);
    header->setSectionResizeMode(QueueModel::Arguments, QHeaderView::Stretch);
    const QFontMetrics fm = fontMetrics();
    const int em = fm.horizontalAdvance(u'M');
    auto fit = [&](int column, const QString &widest) {
        const QString title = model()->headerData(column, Qt::Horizontal).toString();
        setColumnWidth(
            column, std::max(fm.horizontalAdvance(title), fm.horizontalAdvance(widest)) + em * 2);
    };
    fit(QueueModel::Waiting, QStringLiteral("88m 88s"));
    fit(QueueModel::TimeLeft, QStringLiteral("88m 88s"));
    fit(QueueModel::Approvals, QStringLiteral("10/10"));
    setColumnWidth(QueueModel::Agent, 9 * em);
    setColumnWidth(QueueModel::Tool, 8 * em);
    // Tool names are what a reviewer scans first: the column grows to the
    // longest one it has shown (up to a limit), never cutting "run_command".
    connect(model(), &QAbstractItemModel::rowsInserted, this,
        [this, em](const QModelIndex &, int first, int last) {
            int width = columnWidth(QueueModel::Tool);
            for (int row = first; row <= last && row < first + 200; ++row) {
                const QString tool = model()->index(row, QueueModel::Tool).data().toString();
                width = std::max(
                    width, std::min(fontMetrics().horizontalAdvance(tool) + em * 2, 24 * em));
            }
            if (width != columnWidth(QueueModel::Tool))
                setColumnWidth(QueueModel::Tool, width);
        });
    setColumnWidth(QueueModel::Reason, 15 * em);
    setColumnWidth(QueueModel::Warnings, 8 * em);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

QModelIndex QueueView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers)
{
    const int rows = model() ? model()->rowCount() : 0;
    if (rows > 0 && (cursorAction == MoveHome || cursorAction == MoveEnd)) {
        const int column = std::max(0, currentIndex().column());
        return model()->index(cursorAction == MoveHome ? 0 : rows - 1, column);
    }
    return QTableView::moveCursor(cursorAction, modifiers);
}

QItemSelectionModel::SelectionFlags QueueView::selectionCommand(
    const QModelIndex &index, const QEvent *event) const
{
    if (event && event->type() == QEvent::KeyPress
        && !(static_cast<const QKeyEvent *>(event)->modifiers() & Qt::ShiftModifier))
        return QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows;
    return QTableView::selectionCommand(index, event);
}

QueueSelection::QueueSelection(QTableView *view)
    : m_view(view)
{ }

int QueueSelection::currentRow() const
{
    return m_view->currentIndex().isValid() ? m_view->currentIndex().row() : -1;
}

bool QueueSelection::selectRow(int row)
{
    if (row < 0 || row >= m_view->model()->rowCount()) {
        m_view->setCurrentIndex({});
        return false;
    }
    const QModelIndex index = m_view->model()->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    return true;
}

void QueueSelection::move(int delta, bool extend)
{
    const int rows = m_view->model()->rowCount();
    if (rows == 0)
        return;
    const int row = std::clamp(
        m_view->currentIndex().isValid() ? m_view->currentIndex().row() + delta : 0, 0, rows - 1);
    if (!extend) {
        selectRow(row);
        return;
    }
    const QModelIndex index = m_view->model()->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void QueueSelection::toggle()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_view->selectionModel()->select(
            current, QItemSelectionModel::Toggle | QItemSelectionModel::Rows);
}

bool QueueSelection::collapse()
{
    if (m_view->selectionModel()->selectedRows().size() <= 1)
        return false;
    selectRow(m_view->currentIndex().row());
    return true;
}

std::vector<std::string> QueueSelection::selectedIds(const std::string &currentId) const
{
    std::vector<std::string> ids;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex &i : rows)
        ids.push_back(i.data(QueueModel::ItemIdRole).toString().toStdString());
    if (ids.empty() && !currentId.empty())
        ids.push_back(currentId);
    return ids;
}

DecisionAnchor QueueSelection::anchorAround(const std::vector<std::string> &ids) const
{
    const QAbstractItemModel *model = m_view->model();
    const std::unordered_set<std::string> decided(ids.begin(), ids.end());
    const int rows = model->rowCount();
    int first = rows;
    int last = -1;
    for (int row = 0; row < rows; ++row) {
        if (decided.contains(idAt(model, row))) {
            first = std::min(first, row);
            last = std::max(last, row);
        }
    }
    DecisionAnchor anchor;
    if (last < 0)
        return anchor;
    for (int row = last + 1; row < rows; ++row)
        if (std::string id = idAt(model, row); !decided.contains(id))
            anchor.after.push_back(std::move(id));
    for (int row = first - 1; row >= 0; --row)
        anchor.before.push_back(idAt(model, row));
    return anchor;
}

bool QueueSelection::settle(const DecisionAnchor &anchor)
{
    const QAbstractItemModel *model = m_view->model();
    std::unordered_map<std::string, int> rowOf;
    for (int row = 0; row < model->rowCount(); ++row)
        rowOf.emplace(idAt(model, row), row);
    for (const auto *ids : { &anchor.after, &anchor.before })
        for (const std::string &id : *ids)
            if (auto it = rowOf.find(id); it != rowOf.end())
                return selectRow(it->second);
    // Nothing around the decided calls is left: the first call shown, if any.
    return selectRow(0);
}

} // namespace holdpoint
