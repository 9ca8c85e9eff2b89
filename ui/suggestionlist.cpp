// SPDX-License-Identifier: Apache-2.0
#include "suggestionlist.h"

#include "common/visibletext.h"
#include "engine/consolecore.h"

#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace holdpoint {

namespace {

// Agents name their tools and arguments: shown as characters, never as
// markup, and with hidden code points made visible (visibletext.h).
QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(visibleText(text), parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString counted(std::size_t n, const QString &one, const QString &many)
{
    return n == 1 ? one : many.arg(n);
}

std::string ruleKey(const Json &rule)
{
    return rule.dump();
}

} // namespace

SuggestionList::SuggestionList(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
    , m_status(new QLabel(this))
    , m_rows(new QVBoxLayout)
{
    auto *l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    m_status->setObjectName(QStringLiteral("suggestionsStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setText(tr("Looking for rules your decisions suggest\u2026"));
    l->addWidget(m_status);
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_rows->setSpacing(4);
    l->addLayout(m_rows);
}

SuggestionList::~SuggestionList()
{
    for (QThread *finder : std::as_const(m_finders)) {
        finder->wait();
        delete finder;
    }
}

void SuggestionList::refresh()
{
    const quint64 generation = ++m_generation;
    struct Result
    {
        std::vector<replay::Suggestion> found;
        QString error;
    };
    auto result = std::make_shared<Result>();
    replay::SuggestOptions options;
    options.user = m_core->reviewerName();
    options.now = QDateTime::currentMSecsSinceEpoch();
    // The policy in force, from the same files the console loads: a rule
    // it already has decides those calls, so it is not suggested again.
    QThread *finder = QThread::create(
        [result, options, dir = m_core->auditDir(), files = m_core->policyFiles()] {
            result->found = replay::suggestFromLog(dir, files, options, &result->error);
        });
    connect(finder, &QThread::finished, this, [this, finder, result, generation] {
        m_finders.removeOne(finder);
        finder->deleteLater();
        if (generation != m_generation)
            return; // a newer refresh is under way
        showResult(std::move(result->found), result->error);
    });
    m_finders.append(finder);
    finder->start();
}

void SuggestionList::showResult(std::vector<replay::Suggestion> found, const QString &error)
{
    m_found = std::move(found);
    if (!error.isEmpty()) {
        m_found.clear();
        m_status->setText(tr("No suggestions: %1").arg(error));
    }
    rebuildRows();
    if (error.isEmpty() && m_shown.empty())
        m_status->setText(tr("No suggestions yet: a rule is suggested once a person has "
                             "approved the same kind of call unchanged at least %1 times, and "
                             "never denied, edited or halted one like it.")
                              .arg(replay::SuggestOptions().minSaved));
    Q_EMIT refreshed();
}

void SuggestionList::rebuildRows()
{
    // Later: a row's own button may be what asked for this.
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *row = item->widget()) {
            row->hide();
            row->deleteLater();
        }
        delete item;
    }
    m_shown.clear();
    std::size_t left = 0; // not dismissed, shown or not
    for (const replay::Suggestion &s : m_found) {
        if (m_dismissed.contains(ruleKey(s.rule)))
            continue;
        ++left;
        if (m_shown.size() < MaxShown)
            m_shown.push_back(s);
    }
    std::size_t saved = 0;
    for (const replay::Suggestion &s : m_shown) {
        m_rows->addWidget(rowFor(s));
        saved += s.saved;
    }
    if (m_shown.empty())
        return;
    QString status = tr("Rules your own decisions suggest: together they would have saved %1. "
                        "Each was checked against the whole log first.")
                         .arg(counted(saved, tr("1 prompt"), tr("%1 prompts")));
    if (left > m_shown.size())
        status += tr(" The %1 that save the most of %2 are listed; accept or dismiss some to see "
                     "the rest.")
                      .arg(m_shown.size())
                      .arg(left);
    m_status->setText(status);
}

QWidget *SuggestionList::rowFor(const replay::Suggestion &s)
{
    auto *row = new QFrame(this);
    row->setObjectName(QStringLiteral("suggestion"));
    row->setFrameShape(QFrame::StyledPanel);
    auto *h = new QHBoxLayout(row);
    auto *text = new QVBoxLayout;
    QLabel *what = plainLabel(QString::fromStdString(s.description), row);
    what->setObjectName(QStringLiteral("suggestionRule"));
    QFont bold = what->font();
    bold.setBold(true);
    what->setFont(bold);
    text->addWidget(what);
    QLabel *figures = plainLabel(tr("Would have saved %1 over %2, from %3.")
                                     .arg(counted(s.saved, tr("1 prompt"), tr("%1 prompts")),
                                         counted(s.days, tr("1 day"), tr("%1 days")),
                                         counted(s.agents, tr("1 agent"), tr("%1 agents"))),
        row);
    figures->setObjectName(QStringLiteral("suggestionSaved"));
    text->addWidget(figures);
    QLabel *proof
        = plainLabel(tr("Proof: replayed over %1, it allows only calls a person "
                        "approved unchanged; no denied, edited or halted call matches.")
                         .arg(counted(s.replayed, tr("1 recorded call"), tr("%1 recorded calls"))),
            row);
    proof->setObjectName(QStringLiteral("suggestionProof"));
    text->addWidget(proof);
    h->addLayout(text, 1);

    auto *accept = new QPushButton(tr("Accept\u2026"), row);
    accept->setObjectName(QStringLiteral("acceptSuggestion"));
    accept->setToolTip(tr("Add this rule to %1").arg(m_core->userPolicyFile()));
    auto *dismissButton = new QPushButton(tr("Dismiss"), row);
    dismissButton->setObjectName(QStringLiteral("dismissSuggestion"));
    dismissButton->setToolTip(tr("Hide this suggestion while the window is open"));
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(accept);
    buttons->addWidget(dismissButton);
    buttons->addStretch(1);
    h->addLayout(buttons);
    // Copies: the row outlives no refresh, but the list it came from is replaced.
    connect(accept, &QPushButton::clicked, this, [this, s] { confirmAccept(s); });
    connect(dismissButton, &QPushButton::clicked, this, [this, rule = s.rule] { dismiss(rule); });
    return row;
}

void SuggestionList::confirmAccept(const replay::Suggestion &s)
{
    if (m_confirm)
        return; // one at a time
    auto *dialog = new QDialog(window());
    dialog->setObjectName(QStringLiteral("acceptSuggestionDialog"));
    dialog->setWindowTitle(tr("Add a suggested rule"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *l = new QVBoxLayout(dialog);
    l->addWidget(plainLabel(tr("Add this rule to %1? From now on it decides these calls without "
                               "asking anyone:")
                                .arg(m_core->userPolicyFile()),
        dialog));
    QLabel *what = plainLabel(QString::fromStdString(s.description), dialog);
    what->setObjectName(QStringLiteral("confirmRule"));
    l->addWidget(what);
    auto *json = new QPlainTextEdit(dialog);
    json->setObjectName(QStringLiteral("confirmRuleJson"));
    json->setReadOnly(true);
    json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    json->setPlainText(QString::fromStdString(visibleJson(s.rule, 2)));
    json->setMinimumSize(480, 180);
    l->addWidget(json);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    box->button(QDialogButtonBox::Ok)->setText(tr("Add the rule"));
    // Enter alone must not add a rule: the reviewer picks the button.
    box->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(box, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    l->addWidget(box);
    connect(dialog, &QDialog::accepted, this, [this, s] { accept(s); });
    m_confirm = dialog;
    dialog->open();
}

void SuggestionList::accept(const replay::Suggestion &s)
{
    QString error;
    // The console writes the file and its own audit record, then reloads
    // the policy; the view reads the log again on policyReloaded, and this
    // list with it, where the rule now decides those calls.
    if (!m_core->acceptSuggestion(s, &error)) {
        m_status->setText(tr("The rule was not added: %1").arg(error));
        Q_EMIT acceptFinished(false, error);
        return;
    }
    // Gone from the list at once, whatever the next computation finds.
    const std::string key = ruleKey(s.rule);
    std::erase_if(m_found, [&](const replay::Suggestion &f) { return ruleKey(f.rule) == key; });
    rebuildRows();
    m_status->setText(tr("Rule added to %1.").arg(m_core->userPolicyFile()));
    Q_EMIT acceptFinished(true, QString());
}

void SuggestionList::dismiss(const Json &rule)
{
    m_dismissed.insert(ruleKey(rule));
    rebuildRows();
    if (m_shown.empty())
        m_status->setText(tr("No other suggestions."));
}

} // namespace holdpoint
