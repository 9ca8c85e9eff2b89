// SPDX-License-Identifier: Apache-2.0
#pragma once

// The queue's cursor and selection, and the moves the keys make: which calls
// a decision acts on is what this says. Kept apart from the window so the
// rules live in one place.

#include <QTableView>

#include <string>
#include <vector>

namespace holdpoint {

// The queue's table. Like a file manager: every move without Shift (arrows
// with or without Ctrl, Home/End, PageUp/PageDown) leaves the current call
// alone selected, so a key never decides a selection that is off screen;
// Home and End go to the first and the last call.
class QueueView final : public QTableView
{
    Q_OBJECT
public:
    using QTableView::QTableView;
    // Many calls at once, whole rows; every column but the arguments fits its
    // content and the arguments take the rest, so no column hides behind a
    // horizontal scroll bar. After setModel().
    void setUpColumns();

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    QItemSelectionModel::SelectionFlags selectionCommand(
        const QModelIndex &index, const QEvent *event) const override;
};

// The calls around those a decision is about to take, in view order:
// where the cursor goes once they have left the queue.
struct DecisionAnchor
{
    std::vector<std::string> after; // first one first
    std::vector<std::string> before; // nearest one first
};

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

    // Taken before deciding `ids`.
    DecisionAnchor anchorAround(const std::vector<std::string> &ids) const;
    // After the decision: the first call still pending after the decided
    // ones (or, with none left after them, the nearest before them) becomes
    // current and alone selected. Returns false when the queue shows none.
    bool settle(const DecisionAnchor &anchor);

private:
    QTableView *m_view;
};

} // namespace holdpoint
