// SPDX-License-Identifier: Apache-2.0
#include "detailpane.h"

#include "approvaltext.h"
#include "common/jsondiff.h"
#include "common/jsonparse.h"
#include "common/mixedscript.h"
#include "common/visibletext.h"
#include "detailhtml.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "jsonhighlighter.h"
#include "queue/approvals.h"
#include "widgethelpers.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace holdpoint {

DetailPane::DetailPane(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
    , m_title(new QLabel(this))
    , m_hidden(new QLabel(this))
    , m_meta(new QLabel(this))
    , m_reason(new QLabel(this))
    , m_trail(new QLabel(this))
    , m_turn(new QLabel(this))
    , m_approvals(new QLabel(this))
    , m_context(new QPlainTextEdit(this))
    , m_diff(new QTextBrowser(this))
    , m_revealButton(makeButton(tr("Reveal secrets  [R]"), QStringLiteral("revealButton"), this))
    , m_editState(new QLabel(this))
    , m_argsEditor(new QPlainTextEdit(this))
    , m_argsStatus(new QLabel(this))
    , m_approveNote(new QLabel(this))
    , m_approveButton(makeButton(tr("&Approve  [A]"), QStringLiteral("approveButton"), this))
    , m_editButton(makeButton(
          tr("Approve with edits  [Ctrl+Enter]"), QStringLiteral("approveEditsButton"), this))
    , m_denyButton(makeButton(tr("&Deny\u2026  [D]"), QStringLiteral("denyButton"), this))
    , m_haltButton(makeButton(tr("&Halt turn  [H]"), QStringLiteral("haltButton"), this))
{
    auto *d = new QVBoxLayout(this);
    d->setContentsMargins(8, 0, 0, 0);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    m_title->setTextFormat(Qt::PlainText);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_hidden->setObjectName(QStringLiteral("hiddenCharacters"));
    m_hidden->setTextFormat(Qt::PlainText);
    m_hidden->setWordWrap(true);
    m_hidden->setStyleSheet(QStringLiteral(
        "background: #c0392b; color: white; font-weight: bold; padding: 4px; border-radius: 3px;"));
    m_hidden->setVisible(false);
    m_meta->setObjectName(QStringLiteral("detailMeta"));
    m_meta->setTextFormat(Qt::PlainText);
    m_meta->setWordWrap(true);
    m_meta->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason->setTextFormat(Qt::PlainText);
    m_reason->setWordWrap(true);
    m_trail->setObjectName(QStringLiteral("trail"));
    m_trail->setTextFormat(Qt::RichText);
    m_trail->setWordWrap(true);
    m_trail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_turn->setObjectName(QStringLiteral("turnFindings"));
    m_turn->setTextFormat(Qt::RichText);
    m_turn->setWordWrap(true);
    m_turn->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_approvals->setObjectName(QStringLiteral("approvals"));
    m_approvals->setTextFormat(Qt::RichText);
    m_approvals->setWordWrap(true);
    m_approvals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_approvals->setVisible(false);
    m_approveNote->setObjectName(QStringLiteral("approveNote"));
    m_approveNote->setTextFormat(Qt::PlainText);
    m_approveNote->setWordWrap(true);
    m_approveNote->setVisible(false);
    m_context->setObjectName(QStringLiteral("contextView"));
    m_context->setReadOnly(true);
    m_context->setFocusPolicy(Qt::ClickFocus);
    m_context->setMaximumHeight(110);
    m_diff->setObjectName(QStringLiteral("argsDiff"));
    m_diff->setFocusPolicy(Qt::ClickFocus);
    m_diff->setMaximumHeight(90);
    m_argsEditor->setObjectName(QStringLiteral("argsEditor"));
    m_argsEditor->setFocusPolicy(Qt::ClickFocus);
    m_argsEditor->installEventFilter(this);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_argsEditor->setFont(mono);
    m_context->setFont(mono);
    new JsonHighlighter(m_argsEditor->document());
    new JsonHighlighter(m_context->document());
    m_argsStatus->setObjectName(QStringLiteral("argsStatus"));
    m_argsStatus->setTextFormat(Qt::PlainText);
    m_argsStatus->setWordWrap(true);
    m_revealButton->setCheckable(true);
    m_revealButton->setToolTip(
        tr("Show the real values of masked secrets in this call. Recorded in the audit log."));
    // Editing is a mode: it must show, with the keys that leave it.
    m_editState->setObjectName(QStringLiteral("editState"));
    m_editState->setTextFormat(Qt::PlainText);
    m_editState->setText(tr("EDITING the arguments \u2014 Ctrl+Enter approves with them \u00b7 Esc "
                            "goes back to the queue"));
    m_editState->setStyleSheet(
        QStringLiteral("background: #1f6fb2; color: white; font-weight: bold; padding: 3px;"));
    m_editState->setVisible(false);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_approveButton);
    buttons->addWidget(m_editButton);
    buttons->addStretch();
    buttons->addWidget(m_denyButton);
    buttons->addWidget(m_haltButton);
    auto *argsHeader = new QHBoxLayout;
    argsHeader->addWidget(
        new QLabel(tr("Arguments  [E] edit \u00b7 Esc back to the queue"), this), 1);
    argsHeader->addWidget(m_revealButton);
    d->addWidget(m_title);
    d->addWidget(m_hidden);
    d->addWidget(m_meta);
    d->addWidget(m_reason);
    d->addWidget(m_trail);
    d->addWidget(m_turn);
    d->addWidget(m_approvals);
    d->addWidget(new QLabel(tr("Context and MCP annotations"), this));
    d->addWidget(m_context);
    d->addLayout(argsHeader);
    d->addWidget(m_editState);
    d->addWidget(m_argsEditor, 1);
    d->addWidget(m_argsStatus);
    d->addWidget(new QLabel(tr("Changes from the agent's arguments"), this));
    d->addWidget(m_diff);
    d->addWidget(m_approveNote);
    d->addLayout(buttons);

    connect(m_approveButton, &QPushButton::clicked, this, &DetailPane::approveClicked);
    connect(m_editButton, &QPushButton::clicked, this, &DetailPane::approveWithEditsClicked);
    connect(m_denyButton, &QPushButton::clicked, this, &DetailPane::denyClicked);
    connect(m_haltButton, &QPushButton::clicked, this, &DetailPane::haltClicked);
    connect(m_revealButton, &QPushButton::toggled, this, &DetailPane::setRevealed);
    connect(m_argsEditor, &QPlainTextEdit::textChanged, this, &DetailPane::onArgsEdited);
}

const QueueItem *DetailPane::item() const
{
    return m_id.empty() ? nullptr : m_core->queue()->find(m_id);
}

Json DetailPane::shown(const QueueItem &item, const Json &value) const
{
    return m_revealed ? value : item.masked(value);
}

Json DetailPane::standing(const QueueItem &item) const
{
    // One person's call: what the guardrails proposed, else the agent's
    // own. A call that needs several: the latest edit, once someone made one.
    return shown(item, approvedArgs(item));
}

bool DetailPane::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_argsEditor
        && (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut))
        showEditing(event->type() == QEvent::FocusIn);
    return QWidget::eventFilter(watched, event);
}

void DetailPane::showEditing(bool editing)
{
    // Editing a team item's arguments takes its lease, so no one else
    // decides it underneath (TEAM.md "Statements"); leaving gives it back.
    if (editing && !m_id.empty()) {
        m_claimed = m_id;
        m_core->claimItem(m_id);
    } else if (!editing && !m_claimed.empty()) {
        m_core->releaseItem(m_claimed);
        m_claimed.clear();
    }
    m_editState->setVisible(editing);
    m_argsEditor->setStyleSheet(
        editing ? QStringLiteral("QPlainTextEdit { border: 2px solid #1f6fb2; }") : QString());
}

void DetailPane::setRevealed(bool revealed)
{
    const QueueItem *current = item();
    if (revealed && (!current || current->redactions.empty()))
        revealed = false;
    else if (revealed && !m_revealed)
        m_core->recordReveal(*current); // who looked at which secrets is part of the record
    m_revealed = revealed;
    {
        const QSignalBlocker block(m_revealButton);
        m_revealButton->setChecked(revealed);
    }
    refresh();
}

void DetailPane::toggleRevealed()
{
    setRevealed(!m_revealed);
}

QString DetailPane::cannotEdit(const QueueItem &item)
{
    return tr("%1 cannot take edited arguments (it said so when it connected): approve or deny the "
              "call as sent")
        .arg(displaySafe(toQString(item.agent.name), 60));
}

void DetailPane::showItem(
    const std::string &id, const QString &emptyTitle, const QString &emptyHint)
{
    if (id != m_id && m_revealed) {
        // A reveal is for one call only.
        m_revealed = false;
        const QSignalBlocker block(m_revealButton);
        m_revealButton->setChecked(false);
    }
    const bool sameItem = id == m_id && !m_id.empty();
    if (!sameItem && !m_claimed.empty()) {
        m_core->releaseItem(m_claimed);
        m_claimed.clear();
    }
    m_id = id;
    m_batch = false;
    const QueueItem *item = this->item();
    const bool has = item != nullptr;
    m_argsEditor->setEnabled(has);
    // An agent that cannot take edited arguments would run the call
    // unedited: its arguments show, but do not edit.
    const bool editable = has && item->agent.capabilities.modify;
    m_argsEditor->setReadOnly(has && !editable);
    m_editButton->setToolTip(has && !editable ? cannotEdit(*item) : QString());
    m_revealButton->setVisible(has && !item->redactions.empty());
    m_hidden->setVisible(has && item->hiddenText != 0);
    if (has && item->hiddenText != 0) {
        // The names as masked for people (itemToJson's): a secret lends none.
        const std::string names = item->hiddenText & HiddenMixedScript
            ? lookAlikeNamesLine(itemToJson(*item).value("mixed_script", Json::array()))
            : std::string();
        m_hidden->setText(
            tr("\u26a0 %1. Read them before you decide: what runs is the agent's own text.%2")
                .arg(toQString(hiddenTextWarning(item->hiddenText)).toUpper(),
                    names.empty() ? QString() : u'\n' + toQString(names)));
    }
    if (!has) {
        m_title->setText(emptyTitle);
        m_meta->setText(emptyHint);
        m_reason->clear();
        m_trail->clear();
        m_turn->clear();
        m_approvals->clear();
        m_approvals->setVisible(false);
        m_context->clear();
        m_diff->clear();
        const QSignalBlocker block(m_argsEditor);
        m_argsEditor->clear();
        m_shownArgs.clear();
        m_argsStatus->clear();
        m_editedArgs.reset();
        Q_EMIT editsChanged();
        return;
    }
    m_title->setText(displaySafe(toQString(item->toolName), 80) + QStringLiteral("  \u2014  ")
        + displaySafe(toQString(item->agent.name), 60));
    showMeta(*item);
    m_trail->setText(trailHtml(*item, m_revealed));
    Json ctx = Json::object();
    if (!item->context.empty())
        ctx["context"] = item->context;
    if (!item->annotations.empty())
        ctx["annotations"] = item->annotations;
    m_context->setPlainText(
        ctx.empty() ? tr("(none sent)") : toQString(visibleJson(shown(*item, ctx), 2)));
    {
        // What approving runs (the guardrails' proposal, or a reviewer's
        // edit on a call that needs several people) is what the editor
        // starts from; secrets stay masked unless revealed.
        // Hidden and look-alike characters as JSON escapes (\u202E): seen,
        // and an edit still parses back to exactly what the agent sent.
        const QString args = toQString(visibleJson(standing(*item), 2));
        const bool edited = sameItem && m_argsEditor->toPlainText() != m_shownArgs;
        m_shownArgs = args;
        const QSignalBlocker block(m_argsEditor);
        if (!edited)
            m_argsEditor->setPlainText(args);
    }
    onArgsEdited();
}

void DetailPane::showMeta(const QueueItem &item)
{
    QStringList meta;
    if (!item.agent.framework.empty())
        meta << tr("framework %1").arg(displaySafe(toQString(item.agent.framework), 40));
    meta << tr("session %1").arg(toQString(item.sessionId));
    if (item.turnId)
        meta << tr("turn %1").arg(displaySafe(toQString(*item.turnId), 60));
    meta << tr("call %1").arg(displaySafe(toQString(item.callId), 60))
         << tr("item %1").arg(toQString(item.id));
    meta << tr("risk %1").arg(item.risk);
    if (!item.agent.capabilities.modify)
        meta << tr("takes no edits");
    if (!item.agent.capabilities.halt)
        meta << tr("a halt denies this call; its agent stops as far as it can");
    if (!item.agentConnected)
        meta << tr("AGENT DISCONNECTED");
    if (item.team) {
        meta << tr("host %1 (gateway %2)")
                    .arg(displaySafe(toQString(item.team->host), 60),
                        displaySafe(toQString(item.team->gateway), 80));
        if (!item.team->online)
            meta << tr("AGENT HOST OFFLINE");
        if (!item.team->editingBy.empty())
            meta << tr("BEING EDITED BY %1").arg(displaySafe(toQString(item.team->editingBy), 60));
    }
    if (item.secretsPending)
        meta << tr("restored after a restart: secrets return when the agent re-sends");
    m_meta->setText(meta.join(QStringLiteral("  \u00b7  ")));
    m_reason->setText(tr("Why: %1").arg(
        visibleText(toQString(m_revealed ? item.reason : maskText(item.reason, item.redactions)))));
    m_turn->setText(turnFindingsHtml(item));
    const QString approvals = approvalsHtml(item, m_revealed);
    m_approvals->setText(approvals);
    m_approvals->setVisible(!approvals.isEmpty());
}

void DetailPane::refresh()
{
    showItem(m_id);
}

void DetailPane::showBatch(const std::vector<const QueueItem *> &items)
{
    // What a batch decision would reach, before the key is pressed.
    m_batch = true;
    m_title->setText(tr("%n calls selected", nullptr, int(items.size())));
    unsigned hidden = 0;
    for (const QueueItem *item : items)
        hidden |= item->hiddenText;
    m_hidden->setVisible(hidden != 0);
    m_hidden->setText(tr("\u26a0 Some of these calls hold %1.")
                          .arg(toQString(hiddenTextWarning(hidden)).toUpper()));
    m_meta->setText(batchSummary(items));
    m_reason->setText(
        tr("A, D and H decide all of them; a move without Shift selects one call again."));
    // Nothing of one call may pass for the batch's: only what they share shows.
    m_trail->clear();
    m_turn->setText(batchFindingsHtml(items));
    m_approvals->clear();
    m_approvals->setVisible(false);
    m_context->clear();
    m_diff->clear();
    m_argsStatus->clear();
    const QSignalBlocker block(m_argsEditor);
    m_argsEditor->clear();
    m_argsEditor->setEnabled(false);
    m_shownArgs.clear();
    m_editedArgs.reset();
    Q_EMIT editsChanged();
}

void DetailPane::setActions(bool recording, std::size_t selected)
{
    const bool has = selected > 0 && item() != nullptr;
    // While the log cannot be written nothing can be approved: the banner
    // says why. Denying and halting stay possible (they are refused anyway).
    // Another reviewer's editor holds a team item: only a halt goes through.
    const QueueItem *current = has ? item() : nullptr;
    const bool heldElsewhere = current && current->team && !current->team->editingBy.empty();
    // A call that needs several people: this reviewer may have approved it
    // already, or have started its agent. Deny and halt stay theirs.
    const bool one = current && selected == 1;
    const QString refused = one ? approveRefusal(*m_core, *current) : QString();
    const bool mayEdit = !one || mayEditVoted(*m_core, *current);
    m_approveButton->setEnabled(has && recording && !heldElsewhere && refused.isEmpty());
    m_editButton->setEnabled(
        has && recording && !heldElsewhere && m_editedArgs.has_value() && selected <= 1 && mayEdit);
    m_denyButton->setEnabled(has && !heldElsewhere);
    const QString held = heldElsewhere
        ? tr("being edited by %1: only a halt goes through until they are done")
              .arg(displaySafe(toQString(current->team->editingBy), 60))
        : QString();
    m_approveButton->setToolTip(held.isEmpty() ? refused : held);
    m_denyButton->setToolTip(held);
    if (current && current->agent.capabilities.modify && one)
        m_editButton->setToolTip(mayEdit ? QString() : refused);
    const QString note = !refused.isEmpty() ? approveRefusalShort(*m_core, *current)
        : one && recording                  ? voteHint(*current)
                                            : QString();
    m_approveNote->setText(note);
    m_approveNote->setToolTip(refused);
    m_approveNote->setStyleSheet(
        refused.isEmpty() ? QString() : QStringLiteral("color: #a04000; font-weight: bold;"));
    m_approveNote->setVisible(!note.isEmpty());
    m_haltButton->setEnabled(has);
    m_approveButton->setText(
        selected > 1 ? tr("&Approve %1  [A]").arg(selected) : tr("&Approve  [A]"));
    m_denyButton->setText(
        selected > 1 ? tr("&Deny %1\u2026  [D]").arg(selected) : tr("&Deny\u2026  [D]"));
}

void DetailPane::showDiff(const QueueItem *item)
{
    if (!item) {
        m_diff->clear();
        return;
    }
    // Two kinds of change, each under its own heading: what the guardrails
    // rewrote, and what the reviewer edited on top of that.
    const Json original = shown(*item, item->args);
    const Json proposed = shown(*item, item->proposedArgs.value_or(item->args));
    QStringList parts;
    if (const auto rewrite = describeChanges(original, proposed); !rewrite.empty())
        parts << changesHtml(rewrite, tr("rewritten by guardrails"));
    // On a call that needs several people, the edit that stands is another
    // reviewer's (or this one's, sent earlier): approving approves it.
    const Json now = standing(*item);
    if (item->editedArgs)
        if (const auto theirs = describeChanges(proposed, now); !theirs.empty())
            parts << changesHtml(theirs,
                editAuthor(*item).empty()
                    ? tr("edited by a reviewer")
                    : tr("edited by %1").arg(displaySafe(toQString(editAuthor(*item)), 40)));
    if (m_editedArgs)
        if (const auto edits = describeChanges(now, *m_editedArgs); !edits.empty())
            parts << changesHtml(edits, tr("your edits"));
    m_diff->setHtml(parts.isEmpty() ? tr("<i>None: approving runs the agent's own arguments.</i>")
                                    : parts.join(QStringLiteral("<br>")));
}

void DetailPane::onArgsEdited()
{
    m_editedArgs.reset();
    QList<QTextEdit::ExtraSelection> marks;
    const QueueItem *item = this->item();
    if (!item) {
        m_argsEditor->setExtraSelections(marks);
        Q_EMIT editsChanged();
        return;
    }
    if (!item->agent.capabilities.modify) {
        m_argsStatus->setText(QStringLiteral("\u2716 ") + cannotEdit(*item));
        m_argsEditor->setExtraSelections(marks);
        showDiff(item);
        Q_EMIT editsChanged();
        return;
    }
    const std::string text = m_argsEditor->toPlainText().toStdString();
    Json parsed;
    std::string why;
    if (!parseStrictJson(text, protocol::MaxDepth, &parsed, &why)) {
        m_argsStatus->setText(tr("\u2716 Invalid JSON: %1").arg(toQString(why)));
        marks = parseErrorMarks(m_argsEditor->document(), toQString(why));
    } else if (!parsed.is_object()) {
        m_argsStatus->setText(tr("\u2716 Arguments must be a JSON object, not %1")
                                  .arg(QLatin1String(parsed.type_name())));
    } else if (parsed == standing(*item)) {
        m_argsStatus->setText(tr("\u2714 Valid JSON, unchanged"));
    } else {
        m_argsStatus->setText(
            tr("\u2714 Valid JSON, edited: Ctrl+Enter approves with these arguments"));
        m_editedArgs = std::move(parsed);
    }
    m_argsEditor->setExtraSelections(marks);
    showDiff(item);
    Q_EMIT editsChanged();
}

} // namespace holdpoint
