#include "mainwindow.h"

#include "activitymodels.h"
#include "alwaysruledialog.h"
#include "common/jsondiff.h"
#include "common/jsonparse.h"
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
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace holdpoint {

using protocol::ReviewAction;
using protocol::ReviewScope;

MainWindow::MainWindow(ConsoleCore *core, QWidget *parent)
    : QMainWindow(parent)
    , m_core(core)
    , m_model(new QueueModel(core->queue(), this))
    , m_proxy(new QueueProxy(m_model, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/holdpoint/icons/holdpoint.png")));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    // Nothing may run while the audit log cannot be written; the window says
    // so above everything else until it can.
    m_auditBanner = makeBanner(QStringLiteral("auditBanner"), QStringLiteral("#c0392b"), central);
    layout->addWidget(m_auditBanner);
    // An error the reviewer must act on stays here until the next decision.
    m_errorBanner = makeBanner(QStringLiteral("errorBanner"), QStringLiteral("#a04000"), central);
    layout->addWidget(m_errorBanner);

    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildQueueTab(), tr("&Queue"));
    m_turnsTab = new TurnsTab(m_tabs);
    m_historyTab = new HistoryTab(m_core, m_tabs);
    m_agentsTab = new AgentsTab(m_core, m_tabs);
    m_policyTab = new PolicyTab(m_core, m_tabs);
    m_tabs->addTab(m_turnsTab, tr("&Turns"));
    m_tabs->addTab(m_historyTab, tr("Hi&story"));
    m_tabs->addTab(m_agentsTab, tr("A&gents"));
    m_tabs->addTab(m_policyTab, tr("&Policy"));
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
    auto showPolicyError = [this](const QString &why) {
        m_policyError->setText(tr("Policy edit refused; the previous policy stays in force: %1").arg(why));
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
    connect(m_core, &ConsoleCore::auditAvailabilityChanged, this, [this] {
        updateAuditBanner();
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
    });
    m_refresh.start();

    loadRecentActivity();
    resize(1440, 860);
    showDetail(nullptr);
    updateAuditBanner();
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
    m_sort->addItems({tr("Oldest first"), tr("Riskiest first"), tr("By agent")});
    m_sort->setFocusPolicy(Qt::ClickFocus);
    m_scope = new QComboBox(page);
    m_scope->setObjectName(QStringLiteral("scope"));
    m_scope->addItems({tr("This call  [1]"), tr("Rest of this turn  [2]"), tr("Rest of this session  [3]"),
                       tr("Always: add a policy rule  [4]")});
    m_scope->setFocusPolicy(Qt::ClickFocus);
    m_scope->setToolTip(tr("What Approve and Deny reach. \u201cTurn\u201d and \u201csession\u201d answer this tool's "
                           "later calls the same way; \u201calways\u201d writes a rule to %1.")
                            .arg(m_core->userPolicyFile()));
    bar->addWidget(m_filter, 1);
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

    auto *detail = new QWidget(splitter);
    auto *d = new QVBoxLayout(detail);
    d->setContentsMargins(8, 0, 0, 0);
    m_title = new QLabel(detail);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    m_title->setTextFormat(Qt::PlainText);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_meta = new QLabel(detail);
    m_meta->setObjectName(QStringLiteral("detailMeta"));
    m_meta->setTextFormat(Qt::PlainText);
    m_meta->setWordWrap(true);
    m_meta->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason = new QLabel(detail);
    m_reason->setTextFormat(Qt::PlainText);
    m_reason->setWordWrap(true);
    m_trail = new QLabel(detail);
    m_trail->setObjectName(QStringLiteral("trail"));
    m_trail->setTextFormat(Qt::RichText);
    m_trail->setWordWrap(true);
    m_trail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_context = new QPlainTextEdit(detail);
    m_context->setObjectName(QStringLiteral("contextView"));
    m_context->setReadOnly(true);
    m_context->setFocusPolicy(Qt::ClickFocus);
    m_context->setMaximumHeight(110);
    m_diff = new QTextBrowser(detail);
    m_diff->setObjectName(QStringLiteral("argsDiff"));
    m_diff->setFocusPolicy(Qt::ClickFocus);
    m_diff->setMaximumHeight(90);
    m_argsEditor = new QPlainTextEdit(detail);
    m_argsEditor->setObjectName(QStringLiteral("argsEditor"));
    m_argsEditor->setFocusPolicy(Qt::ClickFocus);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_argsEditor->setFont(mono);
    m_context->setFont(mono);
    new JsonHighlighter(m_argsEditor->document());
    new JsonHighlighter(m_context->document());
    m_argsStatus = new QLabel(detail);
    m_argsStatus->setObjectName(QStringLiteral("argsStatus"));
    m_argsStatus->setTextFormat(Qt::PlainText);
    m_argsStatus->setWordWrap(true);
    m_revealButton = makeButton(tr("Reveal secrets  [R]"), QStringLiteral("revealButton"), detail);
    m_revealButton->setCheckable(true);
    m_revealButton->setToolTip(tr("Show the real values of masked secrets in this call. Recorded in the audit log."));

    m_approveButton = makeButton(tr("&Approve  [A]"), QStringLiteral("approveButton"), detail);
    m_editButton = makeButton(tr("Approve with edits  [Ctrl+Enter]"), QStringLiteral("approveEditsButton"), detail);
    m_denyButton = makeButton(tr("&Deny\u2026  [D]"), QStringLiteral("denyButton"), detail);
    m_haltButton = makeButton(tr("&Halt turn  [H]"), QStringLiteral("haltButton"), detail);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_approveButton);
    buttons->addWidget(m_editButton);
    buttons->addStretch();
    buttons->addWidget(m_denyButton);
    buttons->addWidget(m_haltButton);

    auto *argsHeader = new QHBoxLayout;
    argsHeader->addWidget(new QLabel(tr("Arguments  [E] edit \u00b7 Esc back to the queue"), detail), 1);
    argsHeader->addWidget(m_revealButton);
    d->addWidget(m_title);
    d->addWidget(m_meta);
    d->addWidget(m_reason);
    d->addWidget(m_trail);
    d->addWidget(new QLabel(tr("Context and MCP annotations"), detail));
    d->addWidget(m_context);
    d->addLayout(argsHeader);
    d->addWidget(m_argsEditor, 1);
    d->addWidget(m_argsStatus);
    d->addWidget(new QLabel(tr("Changes from the agent's arguments"), detail));
    d->addWidget(m_diff);
    d->addLayout(buttons);

    splitter->addWidget(m_view);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({800, 600});
    outer->addWidget(splitter, 1);

    connect(m_approveButton, &QPushButton::clicked, this, &MainWindow::approve);
    connect(m_editButton, &QPushButton::clicked, this, &MainWindow::approveWithEdits);
    connect(m_denyButton, &QPushButton::clicked, this, &MainWindow::deny);
    connect(m_haltButton, &QPushButton::clicked, this, &MainWindow::halt);
    connect(m_revealButton, &QPushButton::toggled, this, &MainWindow::setSecretsRevealed);
    connect(m_argsEditor, &QPlainTextEdit::textChanged, this, &MainWindow::onArgsEdited);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::onCurrentChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::onSelectionChanged);
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
    queueShortcut(QKeySequence(Qt::SHIFT | Qt::Key_G), m_view, [this] { selectRow(m_proxy->rowCount() - 1); });
    queueShortcut(QKeySequence(Qt::Key_R), m_view, [this] { m_revealButton->toggle(); });
    queueShortcut(QKeySequence(Qt::Key_Slash), m_view, [this] { focusFilter(); });
    queueShortcut(QKeySequence(Qt::Key_Escape), m_view, [this] {
        // Back out one step: an open dialog, a multiple selection, the filter.
        if (m_denyDialog)
            m_denyDialog->reject();
        else if (m_alwaysDialog)
            m_alwaysDialog->reject();
        else if (!m_selection->collapse() && !m_filter->text().isEmpty())
            m_filter->clear();
    });
    for (int i = 0; i < 4; ++i)
        queueShortcut(QKeySequence(Qt::Key(Qt::Key_1 + i)), m_view, [this, i] { setScope(Scope(i)); });
    auto *submitEdits = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_argsEditor);
    submitEdits->setContext(Qt::WidgetShortcut);
    connect(submitEdits, &QShortcut::activated, this, &MainWindow::approveWithEdits);
    for (QWidget *w : {static_cast<QWidget *>(m_argsEditor), static_cast<QWidget *>(m_filter)}) {
        auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), w);
        escape->setContext(Qt::WidgetShortcut);
        connect(escape, &QShortcut::activated, this, &MainWindow::backToQueue);
    }
    auto *down = new QShortcut(QKeySequence(Qt::Key_Down), m_filter);
    down->setContext(Qt::WidgetShortcut);
    connect(down, &QShortcut::activated, this, &MainWindow::backToQueue);

    // Rows arriving or leaving keep the selection on a live item.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        if (!m_view->currentIndex().isValid())
            selectRow(0);
        updateTitleAndStatus();
        notifyEscalated(first, last);
    });
    // The source's signal, not the proxy's: a sort/filter proxy removes its
    // rows while the source is still about to remove them.
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_view->currentIndex().isValid() || !m_core->queue()->find(m_currentId)) {
            const int row = m_view->currentIndex().isValid() ? m_view->currentIndex().row() : m_lastRow;
            selectRow(std::min(row, m_proxy->rowCount() - 1));
        }
        updateTitleAndStatus();
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &tl, const QModelIndex &br) {
        const QueueItem *item = currentItem();
        if (!item || tl.column() != 0 || br.column() != QueueModel::ColumnCount - 1)
            return;
        const int row = m_core->queue()->rowOf(item->id);
        if (row >= tl.row() && row <= br.row())
            showDetail(item);
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
    const std::string id = index.isValid() ? index.data(QueueModel::ItemIdRole).toString().toStdString() : std::string();
    if (id == m_currentId && !id.empty())
        return;
    m_currentId = id;
    // A reveal is for one call only.
    if (m_revealed) {
        const QSignalBlocker block(m_revealButton);
        m_revealButton->setChecked(false);
        m_revealed = false;
    }
    showDetail(currentItem());
}

Json MainWindow::shown(const QueueItem &item, const Json &value) const
{
    return m_revealed ? value : item.masked(value);
}

void MainWindow::setSecretsRevealed(bool revealed)
{
    const QueueItem *item = currentItem();
    if (revealed && (!item || item->redactions.empty())) {
        const QSignalBlocker block(m_revealButton);
        m_revealButton->setChecked(false);
        return;
    }
    m_revealed = revealed;
    if (revealed) {
        m_core->recordReveal(*item);
    }
    {
        const QSignalBlocker block(m_revealButton);
        m_revealButton->setChecked(revealed);
    }
    showDetail(item);
}

void MainWindow::showDetail(const QueueItem *item)
{
    m_batchShown = false;
    const bool has = item != nullptr;
    m_argsEditor->setEnabled(has);
    m_revealButton->setVisible(has && !item->redactions.empty());
    if (!has) {
        m_title->setText(m_proxy->rowCount() == 0 && m_model->rowCount() > 0 ? tr("Nothing matches the filter")
                         : m_model->rowCount() == 0                          ? tr("The queue is clear")
                                                                             : tr("No call selected"));
        m_meta->setText(m_model->rowCount() == 0 ? tr("Calls that need a person appear here as agents make them.")
                                                 : QString());
        m_reason->clear();
        m_trail->clear();
        m_context->clear();
        m_diff->clear();
        const QSignalBlocker block(m_argsEditor);
        m_argsEditor->clear();
        m_argsStatus->clear();
        m_editedArgs.reset();
        updateActions();
        return;
    }
    m_title->setText(displaySafe(toQString(item->toolName), 80) + QStringLiteral("  \u2014  ")
                     + displaySafe(toQString(item->agent.name), 60));
    QStringList meta;
    if (!item->agent.framework.empty())
        meta << tr("framework %1").arg(displaySafe(toQString(item->agent.framework), 40));
    meta << tr("session %1").arg(toQString(item->sessionId));
    if (item->turnId)
        meta << tr("turn %1").arg(displaySafe(toQString(*item->turnId), 60));
    meta << tr("call %1").arg(displaySafe(toQString(item->callId), 60)) << tr("item %1").arg(toQString(item->id));
    meta << tr("risk %1").arg(item->risk);
    if (!item->agentConnected)
        meta << tr("AGENT DISCONNECTED");
    if (item->secretsPending)
        meta << tr("restored after a restart: secrets return when the agent re-sends");
    m_meta->setText(meta.join(QStringLiteral("  \u00b7  ")));
    m_reason->setText(tr("Why: %1").arg(toQString(m_revealed ? item->reason : maskText(item->reason, item->redactions))));
    m_trail->setText(trailHtml(*item, m_revealed));
    Json ctx = Json::object();
    if (!item->context.empty())
        ctx["context"] = item->context;
    if (!item->annotations.empty())
        ctx["annotations"] = item->annotations;
    m_context->setPlainText(ctx.empty() ? tr("(none sent)") : toQString(dumpJson(shown(*item, ctx), 2)));
    {
        // What the guardrails proposed is what approving runs, so that is what
        // the editor starts from; secrets stay masked unless revealed.
        const QSignalBlocker block(m_argsEditor);
        m_argsEditor->setPlainText(toQString(dumpJson(shown(*item, item->proposedArgs.value_or(item->args)), 2)));
    }
    onArgsEdited();
    if (m_view->selectionModel()->selectedRows().size() > 1)
        showBatch(selectedIds());
}

void MainWindow::showDiff(const QueueItem *item)
{
    if (!item) {
        m_diff->clear();
        return;
    }
    const Json original = shown(*item, item->args);
    const Json current = m_editedArgs ? *m_editedArgs : shown(*item, item->proposedArgs.value_or(item->args));
    const std::vector<ArgsChange> changes = describeChanges(original, current);
    if (changes.empty()) {
        m_diff->setHtml(tr("<i>None: approving runs the agent's own arguments.</i>"));
        return;
    }
    m_diff->setHtml(changesHtml(changes, m_editedArgs ? tr("your edits") : tr("rewritten by guardrails")));
}

void MainWindow::onArgsEdited()
{
    m_editedArgs.reset();
    QList<QTextEdit::ExtraSelection> marks;
    const QueueItem *item = currentItem();
    if (!item) {
        m_argsEditor->setExtraSelections(marks);
        updateActions();
        return;
    }
    const std::string text = m_argsEditor->toPlainText().toStdString();
    Json parsed;
    std::string why;
    if (!parseStrictJson(text, protocol::MaxDepth, &parsed, &why)) {
        m_argsStatus->setText(tr("\u2716 Invalid JSON: %1").arg(toQString(why)));
        marks = parseErrorMarks(m_argsEditor->document(), toQString(why));
    } else if (!parsed.is_object()) {
        m_argsStatus->setText(tr("\u2716 Arguments must be a JSON object, not %1").arg(QLatin1String(parsed.type_name())));
    } else if (parsed == shown(*item, item->proposedArgs.value_or(item->args))) {
        m_argsStatus->setText(tr("\u2714 Valid JSON, unchanged"));
    } else {
        m_argsStatus->setText(tr("\u2714 Valid JSON, edited: Ctrl+Enter approves with these arguments"));
        m_editedArgs = std::move(parsed);
    }
    m_argsEditor->setExtraSelections(marks);
    showDiff(item);
    updateActions();
}

void MainWindow::onSelectionChanged()
{
    updateActions();
    const std::vector<std::string> ids = selectedIds();
    if (ids.size() > 1)
        showBatch(ids);
    else if (m_batchShown)
        showDetail(currentItem());
}

void MainWindow::showBatch(const std::vector<std::string> &ids)
{
    // What a batch decision would reach, before the key is pressed.
    std::vector<const QueueItem *> items;
    for (const std::string &id : ids)
        if (const QueueItem *item = m_core->queue()->find(id))
            items.push_back(item);
    m_batchShown = true;
    m_title->setText(tr("%n calls selected", nullptr, int(ids.size())));
    m_meta->setText(batchSummary(items));
    m_reason->setText(tr("A, D and H decide all of them; a move without Shift selects one call again."));
}

void MainWindow::updateActions()
{
    const bool has = currentItem() != nullptr;
    const bool recording = m_core->auditAvailable();
    const std::size_t selected = has ? selectedIds().size() : 0;
    // While the log cannot be written nothing can be approved: the banner
    // says why. Denying and halting stay possible (they are refused anyway).
    m_approveButton->setEnabled(has && recording);
    m_editButton->setEnabled(has && recording && m_editedArgs.has_value() && selected <= 1);
    m_denyButton->setEnabled(has);
    m_haltButton->setEnabled(has);
    m_approveButton->setText(selected > 1 ? tr("&Approve %1  [A]").arg(selected) : tr("&Approve  [A]"));
    m_denyButton->setText(selected > 1 ? tr("&Deny %1\u2026  [D]").arg(selected) : tr("&Deny\u2026  [D]"));
    // A batch is decided call by call; scopes are for one decision.
    m_scope->setEnabled(selected <= 1);
}

bool MainWindow::decide(const std::string &id, ReviewAction action, const QString &reason, const std::optional<Json> &args,
                        ReviewScope scope)
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
    statusBar()->showMessage(tr("%1: %2").arg(toQString(protocol::decisionKindName(out.decision.kind)), toQString(r.id)), 4000);
    return true;
}

void MainWindow::showError(const QString &text)
{
    m_errorBanner->setText(text);
    m_errorBanner->setVisible(!text.isEmpty());
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
    switch (scope()) {
    case Scope::Always: return decideAlways(true, {});
    case Scope::Turn: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Turn); break;
    case Scope::Session: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Session); break;
    case Scope::Call: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt); break;
    }
    afterDecision(anchor);
}

void MainWindow::approveWithEdits()
{
    showError({}); // a new decision: the last one's error has been seen
    if (!m_editedArgs || !m_core->auditAvailable() || dialogOpen())
        return;
    const DecisionAnchor anchor = m_selection->anchorAround({m_currentId});
    decide(m_currentId, ReviewAction::Edit, {}, m_editedArgs);
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
        decide(id, ReviewAction::Halt, tr("turn halted by %1").arg(toQString(m_core->reviewerName())),
               std::nullopt);
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
    dialog->setAttribute(Qt::WA_DeleteOnClose);
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
        const ReviewScope s = chosen == Scope::Turn ? ReviewScope::Turn : chosen == Scope::Session ? ReviewScope::Session : ReviewScope::Call;
        int done = 0;
        for (const std::string &id : ids)
            done += decide(id, ReviewAction::Deny, reason, std::nullopt, s) ? 1 : 0;
        if (ids.size() > 1)
            statusBar()->showMessage(tr("Denied %1 of %2 calls").arg(done).arg(ids.size()), 6000);
        afterDecision(anchor);
    });
    connect(dialog, &QDialog::finished, this, &MainWindow::focusQueue);
    dialog->open();
}

void MainWindow::decideAlways(bool allow, const QString &reason)
{
    const QueueItem *item = currentItem();
    if (!item || m_alwaysDialog)
        return;
    const Json rule = m_core->alwaysRuleFor(*item, allow, reason.toStdString());
    const std::size_t scanned = 5000;
    const std::vector<Json> matches = m_core->pastMatches(rule, 50, scanned);
    auto *dialog = new AlwaysRuleDialog(rule, m_core->userPolicyFile(), matches, scanned, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_alwaysDialog = dialog;
    const std::string id = item->id;
    connect(dialog, &QDialog::accepted, this, [this, rule, id, allow, reason] {
        QString error;
        if (!m_core->addAlwaysRule(rule, &error)) {
            showError(tr("The rule was not added: %1").arg(error));
            return;
        }
        const DecisionAnchor anchor = m_selection->anchorAround({id});
        decide(id, allow ? ReviewAction::Approve : ReviewAction::Deny, reason, std::nullopt);
        statusBar()->showMessage(tr("Rule added to %1").arg(m_core->userPolicyFile()), 6000);
        afterDecision(anchor);
    });
    connect(dialog, &QDialog::finished, this, &MainWindow::focusQueue);
    dialog->open();
}

void MainWindow::editArgs()
{
    if (!currentItem())
        return;
    m_argsEditor->setFocus();
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
    m_presence->announce(n == 1 ? tr("%1 wants to run %2").arg(who, tool) : tr("%n calls need a person", nullptr, n),
                         first.siblingAtColumn(QueueModel::Reason).data().toString());
}

void MainWindow::updateAuditBanner()
{
    const bool available = m_core->auditAvailable();
    m_auditBanner->setVisible(!available);
    if (!available)
        m_auditBanner->setText(tr("The audit log cannot be written: %1. Every call is refused until it can; Holdpoint "
                                  "keeps trying every second.")
                                   .arg(m_core->auditError()));
}

void MainWindow::updateTitleAndStatus()
{
    const int pending = m_model->rowCount();
    setWindowTitle(pending > 0 ? tr("(%1) Holdpoint").arg(pending) : tr("Holdpoint"));
    QString status = tr("Listening on %1   \u00b7   %2").arg(m_core->url(), counted(m_core->agentConnections(), tr("agent connection"), tr("agent connections")))
                     + tr("   \u00b7   %n pending", nullptr, pending);
    if (m_proxy->rowCount() != pending)
        status += tr(" (%1 shown)").arg(m_proxy->rowCount());
    status += m_core->auditAvailable() ? tr("   \u00b7   audit log: recording (%1 records)").arg(m_core->auditRecords())
                                 : tr("   \u00b7   audit log: CANNOT WRITE, refusing every call");
    m_statusLabel->setText(status);
    m_presence->setPending(pending);
}

} // namespace holdpoint
