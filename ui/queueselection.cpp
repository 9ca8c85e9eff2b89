#include "queueselection.h"

#include "queuemodel.h"

#include <QItemSelectionModel>
#include <QTableView>

#include <algorithm>

namespace holdpoint {

QueueSelection::QueueSelection(QTableView *view)
    : m_view(view)
{
}

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
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    return true;
}

void QueueSelection::move(int delta, bool extend)
{
    const int rows = m_view->model()->rowCount();
    if (rows == 0)
        return;
    const int row = std::clamp(m_view->currentIndex().isValid() ? m_view->currentIndex().row() + delta : 0, 0, rows - 1);
    if (!extend) {
        selectRow(row);
        return;
    }
    const QModelIndex index = m_view->model()->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void QueueSelection::toggle()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_view->selectionModel()->select(current, QItemSelectionModel::Toggle | QItemSelectionModel::Rows);
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

} // namespace holdpoint
