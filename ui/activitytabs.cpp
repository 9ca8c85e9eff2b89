// SPDX-License-Identifier: Apache-2.0
#include "activitytabs.h"

#include "activitymodels.h"
#include "audit/auditfilter.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "widgethelpers.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

namespace holdpoint {

namespace {

QVBoxLayout *pageLayout(QWidget *page)
{
    auto *l = new QVBoxLayout(page);
    l->setContentsMargins(6, 6, 6, 6);
    return l;
}

} // namespace

TurnsTab::TurnsTab(QWidget *parent)
    : QWidget(parent)
    , m_model(new TurnsModel(this))
    , m_view(new QTreeView(this))
{
    auto *l = pageLayout(this);
    auto *intro = new QLabel(
        tr("Each session's turns, call by call. Loop detection's findings are tinted: amber for a "
           "warning, orange for a blocked call, red for a halted turn. On a turn, Enter shows its "
           "waiting calls in the queue and H halts it."),
        this);
    intro->setWordWrap(true);
    l->addWidget(intro);
    m_view->setObjectName(QStringLiteral("turnsView"));
    m_view->setModel(m_model);
    m_view->setAlternatingRowColors(true);
    m_view->setUniformRowHeights(true);
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(TurnsModel::Name, 300);
    m_view->setColumnWidth(TurnsModel::Tool, 140);
    m_view->setColumnWidth(TurnsModel::Outcome, 160);
    m_view->setColumnWidth(TurnsModel::DecidedBy, 180);
    // New sessions and turns open as they arrive.
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &under, int first) {
            if (!under.isValid() || !under.parent().isValid()) {
                m_view->expand(under);
                m_view->expand(m_model->index(first, 0, under));
            }
        });
    l->addWidget(m_view, 1);
    for (int key : { int(Qt::Key_Return), int(Qt::Key_Enter), int(Qt::Key_H) }) {
        auto *s = new QShortcut(QKeySequence(key), m_view);
        s->setContext(Qt::WidgetShortcut);
        connect(
            s, &QShortcut::activated, this, [this, key] { requestForCurrent(key == Qt::Key_H); });
    }
}

bool TurnsTab::showTurn(
    const QString &session, const QString &turn, const std::vector<std::string> &callIds)
{
    m_model->setHighlighted(session.toStdString(), callIds);
    const QModelIndex index = m_model->turnIndex({ session.toStdString(), turn.toStdString() });
    if (!index.isValid())
        return false;
    m_view->expand(index.parent());
    m_view->expand(index);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtTop);
    m_view->setFocus();
    return true;
}

void TurnsTab::requestForCurrent(bool halt)
{
    const std::optional<TurnsModel::TurnKey> key = m_model->turnAt(m_view->currentIndex());
    if (!key)
        return;
    const QString session = toQString(key->session), turn = toQString(key->turn);
    if (halt)
        Q_EMIT haltTurnRequested(session, turn);
    else
        Q_EMIT queueTurnRequested(session, turn);
}

HistoryTab::HistoryTab(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
    , m_model(new HistoryModel(this))
    , m_proxy(new HistoryProxy(m_model, this))
    , m_agent(new QComboBox(this))
    , m_tool(new QComboBox(this))
    , m_decision(new QComboBox(this))
    , m_decidedBy(new QLineEdit(this))
    , m_since(new QComboBox(this))
{
    auto *l = pageLayout(this);
    auto *bar = new QHBoxLayout;
    m_agent->setObjectName(QStringLiteral("historyAgent"));
    m_agent->addItem(tr("All agents"));
    m_tool->setObjectName(QStringLiteral("historyTool"));
    m_tool->addItem(tr("All tools"));
    m_decision->setObjectName(QStringLiteral("historyDecision"));
    m_decision->addItems({ tr("Any decision"), QStringLiteral("allow"), QStringLiteral("modify"),
        QStringLiteral("deny"), QStringLiteral("halt") });
    m_decidedBy->setObjectName(QStringLiteral("historyDecidedBy"));
    m_decidedBy->setPlaceholderText(tr("Decided by (human, timeout, guardrail:\u2026)"));
    m_decidedBy->setClearButtonEnabled(true);
    m_since->setObjectName(QStringLiteral("historySince"));
    m_since->addItems({ tr("Any time"), tr("Last hour"), tr("Last 24 hours"), tr("Last 7 days") });
    for (QWidget *w : { static_cast<QWidget *>(m_agent), static_cast<QWidget *>(m_tool),
             static_cast<QWidget *>(m_decision), static_cast<QWidget *>(m_decidedBy),
             static_cast<QWidget *>(m_since) })
        bar->addWidget(w, w == m_decidedBy ? 1 : 0);
    l->addLayout(bar);
    for (QComboBox *c : { m_agent, m_tool, m_decision, m_since })
        connect(c, &QComboBox::currentIndexChanged, this, &HistoryTab::applyFilter);
    connect(m_decidedBy, &QLineEdit::textChanged, this, &HistoryTab::applyFilter);
    // The filters offer what the history holds.
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &, int first, int last) {
            for (int row = first; row <= last; ++row) {
                const Json &r = m_model->record(row);
                for (auto [combo, key] :
                    { std::pair { m_agent, "agent" }, std::pair { m_tool, "tool" } }) {
                    const QString v = toQString(r.value(key, std::string()));
                    if (!v.isEmpty() && combo->findData(v) < 0)
                        combo->addItem(displaySafe(v, 60), v);
                }
            }
        });
    auto *view = makeTable(m_proxy, QStringLiteral("historyView"), this);
    view->setColumnWidth(HistoryModel::Time, 160);
    view->setColumnWidth(HistoryModel::Arguments, 320);
    view->setColumnWidth(HistoryModel::Decision, 130);
    view->setColumnWidth(HistoryModel::DecidedBy, 170);
    view->horizontalHeader()->setStretchLastSection(false);
    view->horizontalHeader()->setSectionResizeMode(HistoryModel::Reason, QHeaderView::Stretch);
    view->setColumnWidth(HistoryModel::Call, 200);
    l->addWidget(view, 1);
    auto *note = new QLabel(
        tr("Decided calls from the audit log and this session. Export the full log with "
           "`holdpoint-ctl audit export --format csv`."),
        this);
    note->setTextFormat(Qt::PlainText);
    l->addWidget(note);
}

void HistoryTab::applyFilter()
{
    audit::Filter f;
    if (m_agent->currentIndex() > 0)
        f.agent = m_agent->currentData().toString().toStdString();
    if (m_tool->currentIndex() > 0)
        f.tool = m_tool->currentData().toString().toStdString();
    if (m_decision->currentIndex() > 0)
        f.decision = m_decision->currentText().toStdString();
    f.decidedBy = m_decidedBy->text().trimmed().toStdString();
    static const char *const ages[] = { "", "1h", "24h", "7d" };
    if (m_since->currentIndex() > 0)
        f.since = audit::parseTimeBound(ages[m_since->currentIndex()], m_core->clock()->now())
                      .value_or(std::string());
    m_proxy->setFilter(f);
}

AgentsTab::AgentsTab(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_model(new AgentsModel(core, this))
{
    auto *l = pageLayout(this);
    auto *view = makeTable(m_model, QStringLiteral("agentsView"), this);
    view->setColumnWidth(AgentsModel::Agent, 160);
    view->setColumnWidth(AgentsModel::Framework, 150);
    view->setColumnWidth(AgentsModel::State, 220);
    view->setColumnWidth(AgentsModel::Standing, 260);
    l->addWidget(view, 1);
}

PolicyTab::PolicyTab(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
    , m_model(new PolicyModel(core, this))
    , m_files(new QLabel(this))
    , m_error(new QLabel(this))
{
    auto *l = pageLayout(this);
    m_files->setObjectName(QStringLiteral("policyFiles"));
    m_files->setTextFormat(Qt::PlainText);
    m_files->setWordWrap(true);
    showFiles();
    auto *userFile
        = new QLabel(tr("\u201cAlways\u201d rules go to: %1").arg(m_core->userPolicyFile()), this);
    userFile->setTextFormat(Qt::PlainText);
    m_error->setObjectName(QStringLiteral("policyTabError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    showReloadError(m_core->lastPolicyError());
    auto *view = makeTable(m_model, QStringLiteral("policyView"), this);
    view->setColumnWidth(PolicyModel::Position, 40);
    view->setColumnWidth(PolicyModel::Name, 200);
    view->setColumnWidth(PolicyModel::OnFailure, 160);
    auto *reload = new QPushButton(tr("Reload policy files"), this);
    reload->setObjectName(QStringLiteral("reloadPolicy"));
    reload->setEnabled(!m_core->policyFiles().isEmpty());
    connect(reload, &QPushButton::clicked, this, [this] { m_core->reloadPolicy(); });
    connect(m_core, &ConsoleCore::policyReloaded, this, [this, reload] {
        reload->setEnabled(!m_core->policyFiles().isEmpty());
        showReloadError({});
        m_model->refresh();
        showFiles();
    });
    connect(m_core, &ConsoleCore::policyReloadFailed, this, &PolicyTab::showReloadError);
    l->addWidget(m_files);
    l->addWidget(userFile);
    l->addWidget(m_error);
    l->addWidget(view, 1);
    auto *row = new QHBoxLayout;
    row->addWidget(reload);
    row->addStretch();
    l->addLayout(row);
}

void PolicyTab::showFiles()
{
    m_files->setText(tr("Files: %1")
                         .arg(m_core->policyFiles().isEmpty()
                                 ? tr("the built-in default")
                                 : m_core->policyFiles().join(QStringLiteral(", "))));
}

void PolicyTab::showReloadError(const QString &why)
{
    m_error->setText(
        why.isEmpty() ? tr("Last reload: fine.") : tr("Last reload refused: %1").arg(why));
}

} // namespace holdpoint
