// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "activitymodels.h"
#include "alwaysruledialog.h"
#include "approvaltext.h"
#include "autostartaction.h"
#include "common/jsondiff.h"
#include "common/jsonparse.h"
#include "consolebanners.h"
#include "denydialog.h"
#include "detailhtml.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "jsonhighlighter.h"
#include "presence.h"
#include "queuemodel.h"
#include "queueproxy.h"
#include "widgethelpers.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace holdpoint {

using protocol::ReviewAction;
using protocol::ReviewScope;

MainWindow::MainWindow(ConsoleCore *core, WebSessions *devices, QWidget *parent)
    : QMainWindow(parent)
    , m_core(core)
    , m_devices(devices)
    , m_model(new QueueModel(core->queue(), this))
    , m_proxy(new QueueProxy(m_model, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/holdpoint/icons/holdpoint.png")));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    m_banners = new ConsoleBanners(m_core, central);
    layout->addWidget(m_banners);

    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildQueueTab(), tr("&Queue"));
    m_turnsTab = new TurnsTab(m_tabs);
    m_historyTab = new HistoryTab(m_core, m_tabs);
    m_agentsTab = new AgentsTab(m_core, m_tabs);
    m_policyTab = new PolicyTab(m_core, m_tabs);
    m_tabs->addTab(m_turnsTab, tr("&Turns"));
    connect(m_turnsTab, &TurnsTab::queueTurnRequested, this, &MainWindow::showTurnInQueue);
    connect(m_turnsTab, &TurnsTab::haltTurnRequested, this, &MainWindow::haltTurn);
    m_tabs->addTab(m_historyTab, tr("Hi&story"));
    m_tabs->addTab(m_agentsTab, tr("A&gents"));
    m_tabs->addTab(m_policyTab, tr("&Policy"));
    m_tabs->addTab(new InsightsPage(m_core, m_tabs), tr("&Insights"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *s = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), this);
        connect(s, &QShortcut::activated, this, [this, i] {
            m_tabs->setCurrentIndex(i);
            if (i == 0)
                m_view->setFocus();
        });
    }

    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    statusBar()->addPermanentWidget(m_statusLabel);
    // A refused policy edit stays on screen until a good one replaces it.
    m_policyError = new QLabel(this);
    m_policyError->setObjectName(QStringLiteral("policyError"));
    m_policyError->setTextFormat(Qt::PlainText);
    m_policyError->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
    m_policyError->setVisible(false);
    statusBar()->addPermanentWidget(m_policyError);
    // No menu bar: the window's actions are keys, and this one a button too.
    m_pairAction = DevicesDialog::makeAction(m_devices != nullptr, this);
    connect(m_pairAction, &QAction::triggered, this, &MainWindow::openDevices);
    addAction(m_pairAction);
    statusBar()->addPermanentWidget(
        makeActionButton(m_pairAction, QStringLiteral("pairDeviceButton"), this));
    addStartAtLoginAction(this); // and its Settings menu beside the button
    auto showPolicyError = [this](const QString &why) {
        m_policyError->setText(
            tr("Policy edit refused; the previous policy stays in force: %1").arg(why));
        m_policyError->setToolTip(why);
        m_policyError->setVisible(!why.isEmpty());
    };
    connect(m_core, &ConsoleCore::policyReloadFailed, this, showPolicyError);
    connect(m_core, &ConsoleCore::policyReloaded, this, [this, showPolicyError] {
        showPolicyError(QString());
        statusBar()->showMessage(tr("Policy reloaded"), 5000);
    });
    if (!m_core->lastPolicyError().isEmpty())
        showPolicyError(m_core->lastPolicyError());
    connect(m_core, &ConsoleCore::teamAvailabilityChanged, this, &MainWindow::updateActions);
    connect(m_core, &ConsoleCore::reviewerChanged, this, [this] {
        updateActions();
        updateTitleAndStatus();
    });
    // A decision the team did not take (someone decided first, or holds the
    // item): said where the reviewer looks, and the item shows as it stands.
    connect(m_core, &ConsoleCore::reviewRefused, this,
        [this](const std::string &id, const std::string &message) {
            showError(tr("Not decided: %1 (item %2)").arg(toQString(message), toQString(id)));
            updateActions();
        });
    connect(m_core, &ConsoleCore::auditAvailabilityChanged, this, [this] {
        updateActions();
        updateTitleAndStatus();
    });

    // The tray shows the count and announces escalations while the window
    // is in the background.
    m_presence = new Presence(this);

    connect(m_core, &ConsoleCore::activity, this, [this](const Json &record) {
        turnsModel()->addRecord(record);
        historyModel()->addRecord(record);
    });
    connect(m_core, &ConsoleCore::connectionsChanged, this, [this] {
        updateTitleAndStatus();
        agentsModel()->refresh();
    });
    // The Agents view's "last activity" and the status bar stay current.
    m_refresh.setInterval(1000);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        agentsModel()->refresh();
        updateTitleAndStatus();
        m_banners->refreshTeam(); // the latest reason, while reconnecting
    });
    m_refresh.start();

    loadRecentActivity();
    // Roomy where the screen allows, never wider or taller than it: the
    // detail pane and its buttons sit at the right edge.
    QSize size(1440, 860);
    if (const QScreen *s = screen())
        size = size.boundedTo(s->availableGeometry().size());
    resize(size);
    showDetail();
    updateTitleAndStatus();
    m_view->setFocus();
}

MainWindow::~MainWindow() = default;

QWidget *MainWindow::buildQueueTab()
{
    auto *page = new QWidget(this);
    auto *outer = new QVBoxLayout(page);
    outer->setContentsMargins(6, 6, 6, 6);

    auto *bar = new QHBoxLayout;
    m_filter = new QLineEdit(page);
    m_filter->setObjectName(QStringLiteral("queueFilter"));
    m_filter->setPlaceholderText(tr("Filter by agent, tool, arguments, reason\u2026  [/]"));
    m_filter->setClearButtonEnabled(true);
    m_sort = new QComboBox(page);
    m_sort->setObjectName(QStringLiteral("queueSort"));
    m_sort->addItems({ tr("Oldest first"), tr("Riskiest first"), tr("By agent") });
    m_sort->setFocusPolicy(Qt::ClickFocus);
    m_scope = new QComboBox(page);
    m_scope->setObjectName(QStringLiteral("scope"));
    m_scope->addItems({ tr("This call  [1]"), tr("Rest of this turn  [2]"),
        tr("Rest of this session  [3]"), tr("Always: add a policy rule  [4]") });
    m_scope->setFocusPolicy(Qt::ClickFocus);
    m_scope->setToolTip(tr(
        "What Approve and Deny reach. \u201cTurn\u201d and \u201csession\u201d answer this tool's "
        "later calls the same way; \u201calways\u201d writes a rule to %1.")
                            .arg(m_core->userPolicyFile()));
    bar->addWidget(m_filter, 1);
    // Enter on a turn in the Turns view narrows the queue to it, visibly.
    m_turnFilter = new QLabel(page);
    m_turnFilter->setObjectName(QStringLiteral("turnFilter"));
    m_turnFilter->setTextFormat(Qt::PlainText);
    m_turnFilter->setStyleSheet(
        QStringLiteral("background: #1f6fb2; color: white; padding: 2px 6px;"));
    m_turnFilter->setVisible(false);
    bar->addWidget(m_turnFilter);
    bar->addWidget(new QLabel(tr("Sort:"), page));
    bar->addWidget(m_sort);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Decision applies to:"), page));
    bar->addWidget(m_scope);
    outer->addLayout(bar);

    auto *splitter = new QSplitter(Qt::Horizontal, page);
    m_view = new QueueView(splitter);
    setUpTable(m_view, m_proxy, QStringLiteral("queueView"));
    m_selection = std::make_unique<QueueSelection>(m_view);
    m_view->setUpColumns();

    m_detail = new DetailPane(m_core, splitter);

    splitter->addWidget(m_view);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({ 800, 600 });
    outer->addWidget(splitter, 1);

    connect(m_detail, &DetailPane::approveClicked, this, &MainWindow::approve);
    connect(m_detail, &DetailPane::approveWithEditsClicked, this, &MainWindow::approveWithEdits);
    connect(m_detail, &DetailPane::denyClicked, this, &MainWindow::deny);
    connect(m_detail, &DetailPane::haltClicked, this, &MainWindow::halt);
    connect(m_detail, &DetailPane::editsChanged, this, &MainWindow::updateActions);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &MainWindow::onCurrentChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &MainWindow::onSelectionChanged);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterText(text);
        if (!m_view->currentIndex().isValid())
            selectRow(0);
        updateTitleAndStatus();
    });
    connect(m_filter, &QLineEdit::returnPressed, this, &MainWindow::backToQueue);
    connect(m_sort, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_proxy->setSortKey(QueueProxy::SortKey(i));
        if (const QueueItem *item = currentItem()) {
            const int row = m_core->queue()->rowOf(item->id);
            m_view->scrollTo(m_proxy->mapFromSource(m_model->index(row, 0)));
        }
    });

    queueShortcut(QKeySequence(Qt::Key_A), m_view, [this] { approve(); });
    queueShortcut(QKeySequence(Qt::Key_D), m_view, [this] { deny(); });
    queueShortcut(QKeySequence(Qt::Key_H), m_view, [this] { halt(); });
    queueShortcut(QKeySequence(Qt::Key_E), m_view, [this] { editArgs(); });
    queueShortcut(QKeySequence(Qt::Key_J), m_view, [this] { moveSelection(1); });
    queueShortcut(QKeySequence(Qt::Key_K), m_view, [this] { moveSelection(-1); });
    queueShortcut(QKeySequence(Qt::SHIFT | Qt::Key_J), m_view, [this] { moveSelection(1, true); });
    queueShortcut(QKeySequence(Qt::SHIFT | Qt::Key_K), m_view, [this] { moveSelection(-1, true); });
    queueShortcut(QKeySequence(Qt::Key_X), m_view, [this] { toggleSelection(); });
    queueShortcut(QKeySequence(Qt::Key_G), m_view, [this] { selectRow(0); });
    queueShortcut(QKeySequence(Qt::SHIFT | Qt::Key_G), m_view,
        [this] { selectRow(m_proxy->rowCount() - 1); });
    queueShortcut(QKeySequence(Qt::Key_R), m_view, [this] { m_detail->toggleRevealed(); });
    queueShortcut(QKeySequence(Qt::Key_T), m_view, [this] { openTurn(); });
    queueShortcut(QKeySequence(Qt::Key_Slash), m_view, [this] { focusFilter(); });
    queueShortcut(QKeySequence(Qt::Key_Escape), m_view, [this] {
        // Back out one step: an open dialog, a multiple selection, the filter.
        if (m_denyDialog)
            m_denyDialog->reject();
        else if (m_alwaysDialog)
            m_alwaysDialog->reject();
        else if (m_selection->collapse())
            return;
        else if (!m_filter->text().isEmpty())
            m_filter->clear();
        else if (m_proxy->turn())
            clearTurnFilter();
    });
    for (int i = 0; i < 4; ++i)
        queueShortcut(
            QKeySequence(Qt::Key(Qt::Key_1 + i)), m_view, [this, i] { setScope(Scope(i)); });
    auto *submitEdits
        = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_detail->argsEditor());
    submitEdits->setContext(Qt::WidgetShortcut);
    connect(submitEdits, &QShortcut::activated, this, &MainWindow::approveWithEdits);
    for (QWidget *w :
        { static_cast<QWidget *>(m_detail->argsEditor()), static_cast<QWidget *>(m_filter) }) {
        auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), w);
        escape->setContext(Qt::WidgetShortcut);
        connect(escape, &QShortcut::activated, this, &MainWindow::backToQueue);
    }
    auto *down = new QShortcut(QKeySequence(Qt::Key_Down), m_filter);
    down->setContext(Qt::WidgetShortcut);
    connect(down, &QShortcut::activated, this, &MainWindow::backToQueue);

    // Rows arriving or leaving keep the selection on a live item.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &, int first, int last) {
            if (!m_view->currentIndex().isValid())
                selectRow(0);
            updateTitleAndStatus();
            notifyEscalated(first, last);
        });
    // The source's signal, not the proxy's: a sort/filter proxy removes its
    // rows while the source is still about to remove them.
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_view->currentIndex().isValid() || !m_core->queue()->find(m_currentId)) {
            const int row
                = m_view->currentIndex().isValid() ? m_view->currentIndex().row() : m_lastRow;
            selectRow(std::min(row, m_proxy->rowCount() - 1));
        }
        updateTitleAndStatus();
    });
    // A waiting call changes (its turn's findings, its agent's connection):
    // the pane shows it as it is now, keeping the reviewer's edits.
    connect(m_model, &QAbstractItemModel::dataChanged, this,
        [this](const QModelIndex &tl, const QModelIndex &br) {
            const QueueItem *item = currentItem();
            if (!item || tl.column() != 0 || br.column() != QueueModel::ColumnCount - 1)
                return;
            const int row = m_core->queue()->rowOf(item->id);
            if (row >= tl.row() && row <= br.row())
                showDetail();
        });
    return page;
}

void MainWindow::loadRecentActivity()
{
    // The views start with what the audit log remembers, so a restart does
    // not blank a turn under review.
    for (const Json &r : m_core->recentActivity(20'000)) {
        turnsModel()->addRecord(r);
        historyModel()->addRecord(r);
    }
}

const QueueItem *MainWindow::currentItem() const
{
    return m_core->queue()->find(m_currentId);
}

std::vector<std::string> MainWindow::selectedIds() const
{
    return m_selection->selectedIds(m_currentId);
}

void MainWindow::selectRow(int row)
{
    if (!m_selection->selectRow(row))
        onCurrentChanged();
}

void MainWindow::moveSelection(int delta, bool extend)
{
    m_selection->move(delta, extend);
}

void MainWindow::toggleSelection()
{
    m_selection->toggle();
}

void MainWindow::setScope(Scope scope)
{
    m_scope->setCurrentIndex(int(scope));
}

MainWindow::Scope MainWindow::scope() const
{
    return Scope(m_scope->currentIndex());
}

void MainWindow::onCurrentChanged()
{
    const QModelIndex index = m_view->currentIndex();
    if (index.isValid())
        m_lastRow = index.row();
    const std::string id = index.isValid()
        ? index.data(QueueModel::ItemIdRole).toString().toStdString()
        : std::string();
    if (id == m_currentId && !id.empty())
        return;
    m_currentId = id;
    showDetail();
}

void MainWindow::showDetail()
{
    m_detail->showItem(m_currentId,
        m_proxy->rowCount() == 0 && m_model->rowCount() > 0 ? tr("Nothing matches the filter")
            : m_model->rowCount() == 0                      ? tr("The queue is clear")
                                                            : tr("No call selected"),
        m_model->rowCount() == 0 ? tr("Calls that need a person appear here as agents make them.")
                                 : QString());
    if (m_view->selectionModel()->selectedRows().size() > 1)
        showBatch(selectedIds());
}

void MainWindow::onSelectionChanged()
{
    updateActions();
    const std::vector<std::string> ids = selectedIds();
    if (ids.size() > 1)
        showBatch(ids);
    else if (m_detail->showsBatch())
        showDetail();
}

void MainWindow::showBatch(const std::vector<std::string> &ids)
{
    std::vector<const QueueItem *> items;
    for (const std::string &id : ids)
        if (const QueueItem *item = m_core->queue()->find(id))
            items.push_back(item);
    m_detail->showBatch(items);
}

void MainWindow::updateActions()
{
    const std::size_t selected = currentItem() ? selectedIds().size() : 0;
    m_detail->setActions(m_core->auditAvailable(), selected);
    // A batch is decided call by call; scopes are for one decision.
    m_scope->setEnabled(selected <= 1);
}

bool MainWindow::decide(const std::string &id, ReviewAction action, const QString &reason,
    const std::optional<Json> &args, ReviewScope scope)
{
    if (id.empty())
        return false;
    protocol::Review r;
    r.id = id;
    r.action = action;
    r.reason = reason.toStdString();
    r.args = args;
    r.scope = scope;
    const ReviewOutcome out = m_core->review(r);
    if (!out.ok) {
        showError(toQString(out.message));
        return false;
    }
    if (out.voted && !out.later)
        statusBar()->showMessage(tr("Approval counted for %1: %2 of %3; it waits for more")
                                     .arg(toQString(r.id))
                                     .arg(out.approvals)
                                     .arg(out.required),
            6000);
    else
        statusBar()->showMessage(
            tr("%1: %2").arg(
                toQString(protocol::decisionKindName(out.decision.kind)), toQString(r.id)),
            4000);
    return true;
}

void MainWindow::showError(const QString &text)
{
    m_banners->showError(text);
}

void MainWindow::afterDecision(const DecisionAnchor &anchor)
{
    // A scope never lingers into the next decision.
    setScope(Scope::Call);
    if (!m_selection->settle(anchor))
        onCurrentChanged();
    focusQueue();
}

void MainWindow::focusQueue()
{
    // Without a window manager nobody gives the window back its activation
    // when a dialog closes, and focus set on an inactive window waits for it.
    activateWindow();
    m_view->setFocus(Qt::OtherFocusReason);
}

bool MainWindow::dialogOpen() const
{
    // While a dialog asks something, the queue's keys decide nothing.
    return m_denyDialog || m_alwaysDialog;
}

void MainWindow::approve()
{
    showError({}); // a new decision: the last one's error has been seen
    const std::vector<std::string> ids = selectedIds();
    if (ids.empty() || !m_core->auditAvailable() || dialogOpen())
        return;
    const DecisionAnchor anchor = m_selection->anchorAround(ids);
    if (ids.size() > 1) {
        int done = 0;
        for (const std::string &id : ids)
            done += decide(id, ReviewAction::Approve, {}, std::nullopt) ? 1 : 0;
        statusBar()->showMessage(tr("Approved %1 of %2 calls").arg(done).arg(ids.size()), 6000);
        return afterDecision(anchor);
    }
    // A call that needs several people: the key must not do what the
    // disabled button would not, and no rule may approve such calls later.
    if (const QueueItem *item = m_core->queue()->find(ids.front())) {
        QString refused = approveRefusal(*m_core, *item);
        if (refused.isEmpty() && scope() == Scope::Always)
            refused = alwaysRefusal(*item);
        if (!refused.isEmpty())
            return showError(tr("Not approved: %1").arg(refused));
    }
    switch (scope()) {
    case Scope::Always:
        return decideAlways(true, {});
    case Scope::Turn:
        decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Turn);
        break;
    case Scope::Session:
        decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Session);
        break;
    case Scope::Call:
        decide(ids.front(), ReviewAction::Approve, {}, std::nullopt);
        break;
    }
    afterDecision(anchor);
}

void MainWindow::approveWithEdits()
{
    showError({}); // a new decision: the last one's error has been seen
    const std::optional<Json> edited = m_detail->editedArgs();
    if (!edited || !m_core->auditAvailable() || dialogOpen())
        return;
    if (const QueueItem *item = currentItem(); item && !mayEditVoted(*m_core, *item))
        return showError(tr("Not approved: %1").arg(approveRefusal(*m_core, *item)));
    const DecisionAnchor anchor = m_selection->anchorAround({ m_currentId });
    decide(m_currentId, ReviewAction::Edit, {}, edited);
    afterDecision(anchor);
}

void MainWindow::halt()
{
    showError({}); // a new decision: the last one's error has been seen
    if (dialogOpen())
        return;
    const std::vector<std::string> ids = selectedIds();
    const DecisionAnchor anchor = m_selection->anchorAround(ids);
    for (const std::string &id : ids)
        decide(id, ReviewAction::Halt,
            tr("turn halted by %1").arg(toQString(m_core->reviewerName())), std::nullopt);
    if (!ids.empty())
        afterDecision(anchor);
}

void MainWindow::deny()
{
    showError({}); // a new decision: the last one's error has been seen
    const std::vector<std::string> ids = selectedIds();
    const QueueItem *item = currentItem();
    if (ids.empty() || !item || dialogOpen())
        return;
    const QString what = ids.size() > 1 ? tr("%n calls", nullptr, int(ids.size()))
                                        : displaySafe(toQString(item->toolName), 80);
    auto *dialog = new DenyDialog(what, m_recentReasons, this);
    m_denyDialog = dialog;
    const Scope chosen = ids.size() > 1 ? Scope::Call : scope();
    connect(dialog, &QDialog::accepted, this, [this, dialog, ids, chosen] {
        const QString reason = dialog->reason();
        if (reason.isEmpty())
            return;
        m_recentReasons.removeAll(reason);
        m_recentReasons.prepend(reason);
        while (m_recentReasons.size() > 8)
            m_recentReasons.removeLast();
        if (chosen == Scope::Always && ids.size() == 1) {
            m_currentId = ids.front();
            return decideAlways(false, reason);
        }
        const DecisionAnchor anchor = m_selection->anchorAround(ids);
        // Items may have timed out meanwhile; decide() then says so.
        const ReviewScope s = chosen == Scope::Turn ? ReviewScope::Turn
            : chosen == Scope::Session              ? ReviewScope::Session
                                                    : ReviewScope::Call;
        int done = 0;
        for (const std::string &id : ids)
            done += decide(id, ReviewAction::Deny, reason, std::nullopt, s) ? 1 : 0;
        if (ids.size() > 1)
            statusBar()->showMessage(tr("Denied %1 of %2 calls").arg(done).arg(ids.size()), 6000);
        afterDecision(anchor);
    });
    connect(dialog, &QDialog::finished, this, &MainWindow::focusQueue);
    presentDialog(dialog, true);
}

void MainWindow::decideAlways(bool allow, const QString &reason)
{
    const QueueItem *item = currentItem();
    if (!item || m_alwaysDialog)
        return;
    const QueueItem call = *item; // the dialog outlives any pointer into the queue
    static constexpr std::size_t scanned = 5000;
    auto *dialog = new AlwaysRuleDialog(
        m_core->alwaysShapeFor(call, allow), call, m_core->userPolicyFile(),
        [core = m_core, call, why = reason.toStdString()](
            const RuleShape &shape) { return core->alwaysRuleFrom(shape, call, why); },
        [core = m_core](const Json &rule) { return core->pastMatches(rule, 50, scanned); }, scanned,
        this);
    m_alwaysDialog = dialog;
    const std::string id = item->id;
    connect(dialog, &QDialog::accepted, this, [this, dialog, id, allow, reason] {
        const Json rule = dialog->rule();
        QString error;
        if (!m_core->addAlwaysRule(rule, &error)) {
            showError(tr("The rule was not added: %1").arg(error));
            return;
        }
        const DecisionAnchor anchor = m_selection->anchorAround({ id });
        decide(id, allow ? ReviewAction::Approve : ReviewAction::Deny, reason, std::nullopt);
        statusBar()->showMessage(tr("Rule added to %1").arg(m_core->userPolicyFile()), 6000);
        afterDecision(anchor);
    });
    connect(dialog, &QDialog::finished, this, &MainWindow::focusQueue);
    presentDialog(dialog, true);
}

void MainWindow::editArgs()
{
    if (!currentItem())
        return;
    m_detail->argsEditor()->setFocus();
}

void MainWindow::openTurn()
{
    const QueueItem *item = currentItem();
    if (!item || dialogOpen())
        return;
    std::vector<std::string> calls;
    for (const protocol::TurnFinding &f : item->turnFindings)
        calls.insert(calls.end(), f.callIds.begin(), f.callIds.end());
    m_tabs->setCurrentWidget(m_turnsTab);
    if (!m_turnsTab->showTurn(
            toQString(item->sessionId), toQString(item->turnId.value_or(std::string())), calls))
        statusBar()->showMessage(tr("The Turns view has no call of this turn yet"), 6000);
}

void MainWindow::showTurnInQueue(const QString &session, const QString &turn)
{
    m_proxy->setTurn(QueueProxy::Turn { session.toStdString(), turn.toStdString() });
    const QString which
        = turn.isEmpty() ? tr("calls outside any turn") : tr("turn %1").arg(displaySafe(turn, 40));
    m_turnFilter->setText(
        tr("Only %1 of %2 \u00b7 Esc shows all").arg(which, displaySafe(session, 40)));
    m_turnFilter->setVisible(true);
    m_tabs->setCurrentIndex(0);
    selectRow(0);
    updateTitleAndStatus();
    focusQueue();
}

void MainWindow::clearTurnFilter()
{
    m_proxy->setTurn(std::nullopt);
    m_turnFilter->setVisible(false);
    if (const QueueItem *item = currentItem())
        m_view->scrollTo(
            m_proxy->mapFromSource(m_model->index(m_core->queue()->rowOf(item->id), 0)));
    else
        selectRow(0);
    updateTitleAndStatus();
}

void MainWindow::haltTurn(const QString &session, const QString &turn)
{
    showError({}); // a new decision: the last one's error has been seen
    if (dialogOpen())
        return;
    std::vector<std::string> ids;
    m_core->queue()->forEachPending([&](const QueueItem &item) {
        if (toQString(item.sessionId) == session
            && toQString(item.turnId.value_or(std::string())) == turn)
            ids.push_back(item.id);
    });
    if (ids.empty()) {
        showError(tr("No call of this turn is waiting for a decision, so there is nothing to halt: "
                     "a halt reaches the "
                     "agent as the answer to one of its calls."));
        return;
    }
    // Halting one call halts its turn; the console answers the others the same way.
    for (const std::string &id : ids)
        if (m_core->queue()->find(id))
            decide(id, ReviewAction::Halt,
                tr("turn halted by %1").arg(toQString(m_core->reviewerName())), std::nullopt);
    const auto halted = std::count_if(ids.begin(), ids.end(),
        [this](const std::string &id) { return !m_core->queue()->find(id); });
    statusBar()->showMessage(
        tr("Halted the turn: %1 answered")
            .arg(counted(int(halted), tr("waiting call"), tr("waiting calls"))),
        6000);
}

void MainWindow::openDevices()
{
    if (!m_devices)
        return;
    if (!m_devicesDialog) {
        m_devicesDialog = new DevicesDialog(m_core, m_devices, this);
        connect(m_devicesDialog, &QDialog::finished, this, &MainWindow::focusQueue);
    }
    presentDialog(m_devicesDialog, false);
}

void MainWindow::backToQueue()
{
    if (!m_view->currentIndex().isValid())
        selectRow(0);
    focusQueue();
}

void MainWindow::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void MainWindow::notifyEscalated(int firstRow, int lastRow)
{
    const int n = lastRow - firstRow + 1;
    const QModelIndex first = m_proxy->index(firstRow, 0);
    const QString who = first.siblingAtColumn(QueueModel::Agent).data().toString();
    const QString tool = first.siblingAtColumn(QueueModel::Tool).data().toString();
    m_presence->announce(
        n == 1 ? tr("%1 wants to run %2").arg(who, tool) : tr("%n calls need a person", nullptr, n),
        first.siblingAtColumn(QueueModel::Reason).data().toString());
}

void MainWindow::updateTitleAndStatus()
{
    const int pending = m_model->rowCount();
    setWindowTitle(pending > 0 ? tr("(%1) Holdpoint").arg(pending) : tr("Holdpoint"));
    QString status = tr("Listening on %1   \u00b7   %2")
                         .arg(m_core->url(),
                             counted(m_core->agentConnections(), tr("agent connection"),
                                 tr("agent connections")))
        + tr("   \u00b7   %n pending", nullptr, pending);
    if (m_proxy->rowCount() != pending)
        status += tr(" (%1 shown)").arg(m_proxy->rowCount());
    status += m_core->auditAvailable()
        ? tr("   \u00b7   audit log: recording (%1 records)").arg(m_core->auditRecords())
        : tr("   \u00b7   audit log: CANNOT WRITE, refusing every call");
    if (m_core->team())
        status += m_core->teamAvailable()
            ? tr("   \u00b7   team: connected as %1, deciding as %2")
                  .arg(m_core->teamInstance(),
                      m_core->reviewerError().isEmpty() ? toQString(m_core->reviewerName())
                                                        : tr("nobody"))
            : tr("   \u00b7   team: UNREACHABLE (%1)")
                  .arg(m_core->teamError().isEmpty() ? tr("connecting") : m_core->teamError());
    m_statusLabel->setText(status);
    m_presence->setPending(pending);
}

} // namespace holdpoint
