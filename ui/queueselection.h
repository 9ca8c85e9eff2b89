#pragma once

// The queue's cursor and selection, and the moves the keys make: which calls
// a decision acts on is what this says. Kept apart from the window so the
// rules live in one place.

#include <QtGlobal>

#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QTableView;
QT_END_NAMESPACE

namespace holdpoint {

class QueueSelection final
{
public:
    explicit QueueSelection(QTableView *view);

    // Makes `row` current and alone selected. Returns false when there is no
    // such row: then nothing is current.
    bool selectRow(int row);
    // j/k (and Shift+J/K with `extend`, which grows the selection with the cursor).
    void move(int delta, bool extend);
    // x: the current row in or out of the selection.
    void toggle();
    // Back to the current row alone; false when nothing more was selected.
    bool collapse();
    int currentRow() const;
    // The selected calls' ids, or `currentId` alone when nothing is selected.
    std::vector<std::string> selectedIds(const std::string &currentId) const;

private:
    QTableView *m_view;
};

} // namespace holdpoint
