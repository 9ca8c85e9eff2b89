// SPDX-License-Identifier: Apache-2.0
#pragma once

// The right side of the queue: one call in full (who asked, why, what each
// guardrail said, the context, the arguments in an editor with their
// changes), or what a multiple selection holds; and the decision buttons.

#include "common/json.h"

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;
QT_END_NAMESPACE

namespace holdpoint {

class ConsoleCore;
struct QueueItem;

class DetailPane final : public QWidget
{
    Q_OBJECT
public:
    DetailPane(ConsoleCore *core, QWidget *parent = nullptr);

    // The call `id` (looked up in the queue each time: it may go at any
    // moment), or with none, `emptyTitle` and `emptyHint`.
    void showItem(
        const std::string &id, const QString &emptyTitle = {}, const QString &emptyHint = {});
    // Shows the same call again, as the queue has it now; arguments the
    // reviewer has edited stay as they are.
    void refresh();
    void showBatch(const std::vector<const QueueItem *> &items);
    bool showsBatch() const { return m_batch; }
    // The buttons, for `selected` calls (0: none).
    void setActions(bool recording, std::size_t selected);

    // Valid JSON objects that differ from what approving would run.
    const std::optional<Json> &editedArgs() const { return m_editedArgs; }
    QPlainTextEdit *argsEditor() const { return m_argsEditor; }
    // Shows the call's masked secrets (recorded in the audit log) or hides them.
    void setRevealed(bool revealed);
    void toggleRevealed();

Q_SIGNALS:
    void approveClicked();
    void approveWithEditsClicked();
    void denyClicked();
    void haltClicked();
    // What the editor holds changed whether "approve with edits" can act.
    void editsChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    const QueueItem *item() const;
    Json shown(const QueueItem &item, const Json &value) const;
    void onArgsEdited();
    void showDiff(const QueueItem *item);
    void showEditing(bool editing);
    void showMeta(const QueueItem &item);
    static QString cannotEdit(const QueueItem &item);
    // What approving runs: the arguments as they stand (approvals.h), as shown.
    Json standing(const QueueItem &item) const;

    ConsoleCore *m_core;
    std::string m_id;
    std::string m_claimed; // the team item whose editor lease this pane holds
    bool m_revealed = false;
    bool m_batch = false;
    std::optional<Json> m_editedArgs;
    QString m_shownArgs; // what the editor was last given, to tell the reviewer's edits from it
    QLabel *m_title;
    QLabel *m_hidden; // the call hides characters: shown above everything else
    QLabel *m_meta;
    QLabel *m_reason;
    QLabel *m_trail;
    QLabel *m_turn;
    QLabel *m_approvals;
    QPlainTextEdit *m_context;
    QTextBrowser *m_diff;
    QPushButton *m_revealButton;
    QLabel *m_editState;
    QPlainTextEdit *m_argsEditor;
    QLabel *m_argsStatus;
    QLabel *m_approveNote; // why Approve is off for this reviewer, or what it does
    QPushButton *m_approveButton;
    QPushButton *m_editButton;
    QPushButton *m_denyButton;
    QPushButton *m_haltButton;
};

} // namespace holdpoint
