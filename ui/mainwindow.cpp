#include "mainwindow.h"

#include "activitymodels.h"
#include "alwaysruledialog.h"
#include "audit/auditfilter.h"
#include "common/jsondiff.h"
#include "common/jsonparse.h"
#include "engine/consolecore.h"
#include "denydialog.h"
#include "jsonhighlighter.h"
#include "queuemodel.h"
#include "queueproxy.h"

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
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace holdpoint {

using protocol::ReviewAction;
using protocol::ReviewScope;

namespace {

QPushButton *makeButton(const QString &text, const QString &name, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(name);
    b->setFocusPolicy(Qt::NoFocus); // the keyboard stays on the queue or the editor
    return b;
}

// Letter shortcuts act only while the queue has focus, so typing in the
// argument editor or the filter never approves or denies anything.
QShortcut *queueShortcut(const QKeySequence &key, QWidget *view, std::function<void()> fn)
{
    auto *s = new QShortcut(key, view);
    s->setContext(Qt::WidgetShortcut);
    QObject::connect(s, &QShortcut::activated, view, std::move(fn));
    return s;
}

QTableView *makeTable(QAbstractItemModel *model, const QString &name, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 10);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QString html(const Json &value)
{
    return QueueModel::displaySafe(toQString(value.is_string() ? value.get<std::string>() : dumpJson(value)), 300)
        .toHtmlEscaped();
}

// The application icon with the pending count on it, for the tray.
QIcon badgeIcon(int pending)
{
    QPixmap pm = QIcon(QStringLiteral(":/holdpoint/icons/holdpoint.png")).pixmap(64, 64);
    if (pm.isNull()) {
        pm = QPixmap(64, 64);
        pm.fill(QColor(0x2c, 0x3e, 0x50));
    }
    if (pending > 0) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(QColor(0xc0, 0x39, 0x2b));
        p.setPen(Qt::NoPen);
        p.drawEllipse(QRect(28, 0, 36, 36));
        p.setPen(Qt::white);
        QFont f = p.font();
        f.setBold(true);
        f.setPixelSize(pending > 99 ? 14 : 20);
        p.setFont(f);
        p.drawText(QRect(28, 0, 36, 36), Qt::AlignCenter, pending > 99 ? QStringLiteral("99+") : QString::number(pending));
    }
    return QIcon(pm);
}

} // namespace

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
    m_auditBanner = new QLabel(central);
    m_auditBanner->setObjectName(QStringLiteral("auditBanner"));
    m_auditBanner->setTextFormat(Qt::PlainText);
    m_auditBanner->setWordWrap(true);
    m_auditBanner->setMargin(10);
    m_auditBanner->setStyleSheet(QStringLiteral("background: #c0392b; color: white; font-weight: bold;"));
    m_auditBanner->setVisible(false);
    layout->addWidget(m_auditBanner);

    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildQueueTab(), tr("&Queue"));
    m_tabs->addTab(buildTurnsTab(), tr("&Turns"));
    m_tabs->addTab(buildHistoryTab(), tr("Hi&story"));
    m_tabs->addTab(buildAgentsTab(), tr("A&gents"));
    m_tabs->addTab(buildPolicyTab(), tr("&Policy"));
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
    statusBar()->addPermanentWidget(m_statusLabel, 1);
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
        m_policyTabError->setText(why.isEmpty() ? tr("Last reload: fine.") : tr("Last reload refused: %1").arg(why));
    };
    connect(m_core, &ConsoleCore::policyReloadFailed, this, showPolicyError);
    connect(m_core, &ConsoleCore::policyReloaded, this, [this, showPolicyError] {
        showPolicyError(QString());
        m_policyModel->refresh();
        m_policyFiles->setText(tr("Files: %1").arg(m_core->policyFiles().isEmpty() ? tr("the built-in default")
                                                                                    : m_core->policyFiles().join(QStringLiteral(", "))));
        statusBar()->showMessage(tr("Policy reloaded"), 5000);
    });
    if (!m_core->lastPolicyError().isEmpty())
        showPolicyError(m_core->lastPolicyError());
    connect(m_core, &ConsoleCore::auditAvailabilityChanged, this, [this] {
        updateAuditBanner();
        updateActions();
        updateTitleAndStatus();
    });

    // Presence: the tray shows the count and announces escalations while
    // the window is in the background.
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(badgeIcon(0), this);
        m_tray->setObjectName(QStringLiteral("tray"));
        connect(m_tray, &QSystemTrayIcon::activated, this, [this] {
            showNormal();
            raise();
            activateWindow();
        });
        m_tray->show();
    }

    connect(m_core, &ConsoleCore::activity, this, [this](const Json &record) {
        m_turns->addRecord(record);
        m_history->addRecord(record);
    });
    connect(m_core, &ConsoleCore::connectionsChanged, this, [this] {
        updateTitleAndStatus();
        m_agents->refresh();
    });
    // The Agents view's "last activity" and the status bar stay current.
    m_refresh.setInterval(1000);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        m_agents->refresh();
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
    m_view = makeTable(m_proxy, QStringLiteral("queueView"), splitter);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->horizontalHeader()->setStretchLastSection(false);
    // Everything but the arguments fits its content; the arguments take the
    // rest, so no column hides behind a horizontal scroll bar.
    QHeaderView *header = m_view->horizontalHeader();
    header->setMinimumSectionSize(48);
    for (int c = 0; c < QueueModel::ColumnCount; ++c)
        header->setSectionResizeMode(c, QHeaderView::Interactive);
    header->setSectionResizeMode(QueueModel::Arguments, QHeaderView::Stretch);
    const QFontMetrics fm = m_view->fontMetrics();
    const int em = fm.horizontalAdvance(u'M');
    auto fit = [&](int column, const QString &widest) {
        const QString title = m_model->headerData(column, Qt::Horizontal).toString();
        m_view->setColumnWidth(column, std::max(fm.horizontalAdvance(title), fm.horizontalAdvance(widest)) + em * 2);
    };
    fit(QueueModel::Waiting, QStringLiteral("88m 88s"));
    fit(QueueModel::TimeLeft, QStringLiteral("88m 88s"));
    m_view->setColumnWidth(QueueModel::Agent, 9 * em);
    m_view->setColumnWidth(QueueModel::Tool, 8 * em);
    m_view->setColumnWidth(QueueModel::Reason, 15 * em);
    m_view->setColumnWidth(QueueModel::Warnings, 8 * em);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

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
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::updateActions);
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
    queueShortcut(QKeySequence(Qt::Key_R), m_view, [this] { m_revealButton->toggle(); });
    queueShortcut(QKeySequence(Qt::Key_Slash), m_view, [this] { focusFilter(); });
    queueShortcut(QKeySequence(Qt::Key_Escape), m_view, [this] {
        // Back out one step: an open dialog, a multiple selection, the filter.
        if (m_denyDialog)
            m_denyDialog->reject();
        else if (m_alwaysDialog)
            m_alwaysDialog->reject();
        else if (m_view->selectionModel()->selectedRows().size() > 1)
            selectRow(m_view->currentIndex().row());
        else if (!m_filter->text().isEmpty())
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

QWidget *MainWindow::buildTurnsTab()
{
    auto *page = new QWidget(this);
    auto *l = new QVBoxLayout(page);
    l->setContentsMargins(6, 6, 6, 6);
    auto *intro = new QLabel(tr("Each session's turns, call by call. Loop detection's findings are tinted: amber for a "
                                "warning, orange for a blocked call, red for a halted turn."),
                             page);
    intro->setWordWrap(true);
    l->addWidget(intro);
    m_turns = new TurnsModel(this);
    m_turnsView = new QTreeView(page);
    m_turnsView->setObjectName(QStringLiteral("turnsView"));
    m_turnsView->setModel(m_turns);
    m_turnsView->setAlternatingRowColors(true);
    m_turnsView->setUniformRowHeights(true);
    m_turnsView->header()->setStretchLastSection(true);
    m_turnsView->setColumnWidth(TurnsModel::Name, 300);
    m_turnsView->setColumnWidth(TurnsModel::Tool, 140);
    m_turnsView->setColumnWidth(TurnsModel::Outcome, 160);
    m_turnsView->setColumnWidth(TurnsModel::DecidedBy, 180);
    // New sessions and turns open as they arrive.
    connect(m_turns, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent, int first) {
        if (!parent.isValid() || !parent.parent().isValid()) {
            m_turnsView->expand(parent);
            m_turnsView->expand(m_turns->index(first, 0, parent));
        }
    });
    l->addWidget(m_turnsView, 1);
    return page;
}

QWidget *MainWindow::buildHistoryTab()
{
    auto *page = new QWidget(this);
    auto *l = new QVBoxLayout(page);
    l->setContentsMargins(6, 6, 6, 6);
    m_history = new HistoryModel(this);
    m_historyProxy = new HistoryProxy(m_history, this);
    auto *bar = new QHBoxLayout;
    m_historyAgent = new QComboBox(page);
    m_historyAgent->setObjectName(QStringLiteral("historyAgent"));
    m_historyAgent->addItem(tr("All agents"));
    m_historyTool = new QComboBox(page);
    m_historyTool->setObjectName(QStringLiteral("historyTool"));
    m_historyTool->addItem(tr("All tools"));
    m_historyDecision = new QComboBox(page);
    m_historyDecision->setObjectName(QStringLiteral("historyDecision"));
    m_historyDecision->addItems({tr("Any decision"), QStringLiteral("allow"), QStringLiteral("modify"),
                                 QStringLiteral("deny"), QStringLiteral("halt")});
    m_historyDecidedBy = new QLineEdit(page);
    m_historyDecidedBy->setObjectName(QStringLiteral("historyDecidedBy"));
    m_historyDecidedBy->setPlaceholderText(tr("Decided by (human, timeout, guardrail:\u2026)"));
    m_historyDecidedBy->setClearButtonEnabled(true);
    m_historySince = new QComboBox(page);
    m_historySince->setObjectName(QStringLiteral("historySince"));
    m_historySince->addItems({tr("Any time"), tr("Last hour"), tr("Last 24 hours"), tr("Last 7 days")});
    for (QWidget *w : {static_cast<QWidget *>(m_historyAgent), static_cast<QWidget *>(m_historyTool),
                       static_cast<QWidget *>(m_historyDecision), static_cast<QWidget *>(m_historyDecidedBy),
                       static_cast<QWidget *>(m_historySince)})
        bar->addWidget(w, w == m_historyDecidedBy ? 1 : 0);
    l->addLayout(bar);
    for (QComboBox *c : {m_historyAgent, m_historyTool, m_historyDecision, m_historySince})
        connect(c, &QComboBox::currentIndexChanged, this, &MainWindow::applyHistoryFilter);
    connect(m_historyDecidedBy, &QLineEdit::textChanged, this, &MainWindow::applyHistoryFilter);
    // The filters offer what the history holds.
    connect(m_history, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        for (int row = first; row <= last; ++row) {
            const Json &r = m_history->record(row);
            for (auto [combo, key] : {std::pair {m_historyAgent, "agent"}, std::pair {m_historyTool, "tool"}}) {
                const QString v = toQString(r.value(key, std::string()));
                if (!v.isEmpty() && combo->findData(v) < 0)
                    combo->addItem(QueueModel::displaySafe(v, 60), v);
            }
        }
    });
    auto *view = makeTable(m_historyProxy, QStringLiteral("historyView"), page);
    view->setColumnWidth(HistoryModel::Time, 160);
    view->setColumnWidth(HistoryModel::Decision, 130);
    view->setColumnWidth(HistoryModel::DecidedBy, 170);
    view->horizontalHeader()->setStretchLastSection(false);
    view->horizontalHeader()->setSectionResizeMode(HistoryModel::Reason, QHeaderView::Stretch);
    view->setColumnWidth(HistoryModel::Call, 200);
    l->addWidget(view, 1);
    auto *note = new QLabel(tr("Decided calls from the audit log and this session. Export the full log with "
                               "`holdpoint-ctl audit export --format csv`."),
                            page);
    note->setTextFormat(Qt::PlainText);
    l->addWidget(note);
    return page;
}

QWidget *MainWindow::buildAgentsTab()
{
    auto *page = new QWidget(this);
    auto *l = new QVBoxLayout(page);
    l->setContentsMargins(6, 6, 6, 6);
    m_agents = new AgentsModel(m_core, this);
    auto *view = makeTable(m_agents, QStringLiteral("agentsView"), page);
    view->setColumnWidth(AgentsModel::Agent, 160);
    view->setColumnWidth(AgentsModel::Framework, 150);
    view->setColumnWidth(AgentsModel::State, 220);
    view->setColumnWidth(AgentsModel::Standing, 260);
    l->addWidget(view, 1);
    return page;
}

QWidget *MainWindow::buildPolicyTab()
{
    auto *page = new QWidget(this);
    auto *l = new QVBoxLayout(page);
    l->setContentsMargins(6, 6, 6, 6);
    m_policyFiles = new QLabel(page);
    m_policyFiles->setObjectName(QStringLiteral("policyFiles"));
    m_policyFiles->setTextFormat(Qt::PlainText);
    m_policyFiles->setWordWrap(true);
    m_policyFiles->setText(tr("Files: %1").arg(m_core->policyFiles().isEmpty()
                                                   ? tr("the built-in default")
                                                   : m_core->policyFiles().join(QStringLiteral(", "))));
    auto *userFile = new QLabel(tr("\u201cAlways\u201d rules go to: %1").arg(m_core->userPolicyFile()), page);
    userFile->setTextFormat(Qt::PlainText);
    m_policyTabError = new QLabel(page);
    m_policyTabError->setObjectName(QStringLiteral("policyTabError"));
    m_policyTabError->setTextFormat(Qt::PlainText);
    m_policyTabError->setWordWrap(true);
    m_policyTabError->setText(m_core->lastPolicyError().isEmpty()
                                  ? tr("Last reload: fine.")
                                  : tr("Last reload refused: %1").arg(m_core->lastPolicyError()));
    m_policyModel = new PolicyModel(m_core, this);
    auto *view = makeTable(m_policyModel, QStringLiteral("policyView"), page);
    view->setColumnWidth(PolicyModel::Position, 40);
    view->setColumnWidth(PolicyModel::Name, 200);
    view->setColumnWidth(PolicyModel::OnFailure, 160);
    auto *reload = new QPushButton(tr("Reload policy files"), page);
    reload->setObjectName(QStringLiteral("reloadPolicy"));
    reload->setEnabled(!m_core->policyFiles().isEmpty());
    connect(reload, &QPushButton::clicked, this, [this] { m_core->reloadPolicy(); });
    connect(m_core, &ConsoleCore::policyReloaded, reload, [this, reload] { reload->setEnabled(!m_core->policyFiles().isEmpty()); });
    l->addWidget(m_policyFiles);
    l->addWidget(userFile);
    l->addWidget(m_policyTabError);
    l->addWidget(view, 1);
    auto *row = new QHBoxLayout;
    row->addWidget(reload);
    row->addStretch();
    l->addLayout(row);
    return page;
}

void MainWindow::loadRecentActivity()
{
    // The views start with what the audit log remembers, so a restart does
    // not blank a turn under review.
    for (const Json &r : m_core->recentActivity(20'000)) {
        m_turns->addRecord(r);
        m_history->addRecord(r);
    }
}

const QueueItem *MainWindow::currentItem() const
{
    return m_core->queue()->find(m_currentId);
}

std::vector<std::string> MainWindow::selectedIds() const
{
    std::vector<std::string> ids;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex &i : rows)
        ids.push_back(i.data(QueueModel::ItemIdRole).toString().toStdString());
    if (ids.empty() && !m_currentId.empty())
        ids.push_back(m_currentId);
    return ids;
}

void MainWindow::selectRow(int row)
{
    if (row < 0 || row >= m_proxy->rowCount()) {
        m_view->setCurrentIndex({});
        onCurrentChanged();
        return;
    }
    const QModelIndex index = m_proxy->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void MainWindow::moveSelection(int delta, bool extend)
{
    const int rows = m_proxy->rowCount();
    if (rows == 0)
        return;
    const int row = std::clamp(m_view->currentIndex().isValid() ? m_view->currentIndex().row() + delta : 0, 0, rows - 1);
    if (!extend)
        return selectRow(row);
    // Shift+J/K: the selection grows with the cursor, for a batch decision.
    const QModelIndex index = m_proxy->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void MainWindow::toggleSelection()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_view->selectionModel()->select(current, QItemSelectionModel::Toggle | QItemSelectionModel::Rows);
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
    m_title->setText(QueueModel::displaySafe(toQString(item->toolName), 80) + QStringLiteral("  \u2014  ")
                     + QueueModel::displaySafe(toQString(item->agent.name), 60));
    QStringList meta;
    if (!item->agent.framework.empty())
        meta << tr("framework %1").arg(QueueModel::displaySafe(toQString(item->agent.framework), 40));
    meta << tr("session %1").arg(toQString(item->sessionId));
    if (item->turnId)
        meta << tr("turn %1").arg(QueueModel::displaySafe(toQString(*item->turnId), 60));
    meta << tr("call %1").arg(QueueModel::displaySafe(toQString(item->callId), 60)) << tr("item %1").arg(toQString(item->id));
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
    QStringList lines;
    const QString who = m_editedArgs ? tr("your edits") : tr("rewritten by guardrails");
    lines << QStringLiteral("<i>%1</i>").arg(who.toHtmlEscaped());
    for (const ArgsChange &c : changes) {
        const QString path = QueueModel::displaySafe(toQString(c.path), 120).toHtmlEscaped();
        switch (c.kind) {
        case ArgsChange::Added:
            lines << QStringLiteral("<span style=\"color:#1e8449\">+ %1: %2</span>").arg(path, html(c.after));
            break;
        case ArgsChange::Removed:
            lines << QStringLiteral("<span style=\"color:#c0392b\">\u2212 %1: %2</span>").arg(path, html(c.before));
            break;
        case ArgsChange::Changed:
            lines << QStringLiteral("~ %1: <span style=\"color:#c0392b\"><s>%2</s></span> \u2192 "
                                    "<span style=\"color:#1e8449\">%3</span>")
                         .arg(path, html(c.before), html(c.after));
            break;
        }
    }
    m_diff->setHtml(lines.join(QStringLiteral("<br>")));
}

QString MainWindow::trailHtml(const QueueItem &item, bool revealed)
{
    // What each guardrail said, then the warnings and any rewrite, masked
    // like everything else a person sees of the call.
    auto text = [&](const Json &j) {
        const std::string s = j.is_string() ? j.get<std::string>() : dumpJson(j);
        return QueueModel::displaySafe(toQString(revealed ? s : maskText(s, item.redactions)), 400).toHtmlEscaped();
    };
    QStringList lines;
    for (const Json &v : item.trail) {
        const std::string action = v.value("action", std::string());
        const char *colour = action == "deny" || action == "halt" || action == "error" ? "#c0392b"
                             : action == "ask" || action == "warn"                    ? "#b9770e"
                             : action == "pass"                                       ? "#7f8c8d"
                                                                                      : "#1e8449";
        QString line = QStringLiteral("<b>%1</b> <span style=\"color:%2\">%3</span>")
                           .arg(text(v.value("guardrail", Json(""))), QLatin1String(colour), text(Json(action)));
        if (!v.value("reason", std::string()).empty())
            line += QStringLiteral(" \u2014 ") + text(v["reason"]);
        if (!v.value("code", std::string()).empty())
            line += QStringLiteral(" <i>(%1)</i>").arg(text(v["code"]));
        lines << line;
    }
    for (const protocol::Warning &w : item.warnings)
        lines << QStringLiteral("<span style=\"color:#b9770e\">\u26a0 %1</span> %2")
                     .arg(text(Json(w.guardrail)), text(Json(w.message)));
    return lines.isEmpty() ? QString() : tr("Guardrails:") + QStringLiteral("<br>") + lines.join(QStringLiteral("<br>"));
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
        // Underline where the parser stopped.
        static const QRegularExpression where(QStringLiteral("line (\\d+), column (\\d+)"));
        if (const auto m = where.match(toQString(why)); m.hasMatch()) {
            QTextCursor c(m_argsEditor->document()->findBlockByNumber(m.captured(1).toInt() - 1));
            c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, std::max(0, m.captured(2).toInt() - 1));
            c.movePosition(QTextCursor::Right, QTextCursor::KeepAnchor);
            QTextEdit::ExtraSelection mark;
            mark.cursor = c;
            mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            mark.format.setUnderlineColor(QColor(0xc0, 0x39, 0x2b));
            mark.format.setBackground(QColor(0xc0, 0x39, 0x2b, 60));
            marks << mark;
        }
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
        statusBar()->showMessage(toQString(out.message), 8000);
        return false;
    }
    statusBar()->showMessage(tr("%1: %2").arg(toQString(protocol::decisionKindName(out.decision.kind)), toQString(r.id)), 4000);
    return true;
}

void MainWindow::afterDecision(int row)
{
    // A scope never lingers into the next decision.
    setScope(Scope::Call);
    selectRow(std::min(row, m_proxy->rowCount() - 1));
    m_view->setFocus();
}

bool MainWindow::dialogOpen() const
{
    // While a dialog asks something, the queue's keys decide nothing.
    return m_denyDialog || m_alwaysDialog;
}

void MainWindow::approve()
{
    const std::vector<std::string> ids = selectedIds();
    if (ids.empty() || !m_core->auditAvailable() || dialogOpen())
        return;
    const int row = m_view->currentIndex().row();
    if (ids.size() > 1) {
        int done = 0;
        for (const std::string &id : ids)
            done += decide(id, ReviewAction::Approve, {}, std::nullopt) ? 1 : 0;
        statusBar()->showMessage(tr("Approved %1 of %2 calls").arg(done).arg(ids.size()), 6000);
        return afterDecision(row);
    }
    switch (scope()) {
    case Scope::Always: return decideAlways(true, {});
    case Scope::Turn: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Turn); break;
    case Scope::Session: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt, ReviewScope::Session); break;
    case Scope::Call: decide(ids.front(), ReviewAction::Approve, {}, std::nullopt); break;
    }
    afterDecision(row);
}

void MainWindow::approveWithEdits()
{
    if (!m_editedArgs || !m_core->auditAvailable() || dialogOpen())
        return;
    const int row = m_view->currentIndex().row();
    decide(m_currentId, ReviewAction::Edit, {}, m_editedArgs);
    afterDecision(row);
}

void MainWindow::halt()
{
    if (dialogOpen())
        return;
    const std::vector<std::string> ids = selectedIds();
    const int row = m_view->currentIndex().row();
    for (const std::string &id : ids)
        decide(id, ReviewAction::Halt, tr("turn halted by %1").arg(toQString(m_core->reviewerName())),
               std::nullopt);
    if (!ids.empty())
        afterDecision(row);
}

void MainWindow::deny()
{
    const std::vector<std::string> ids = selectedIds();
    const QueueItem *item = currentItem();
    if (ids.empty() || !item || dialogOpen())
        return;
    const QString what = ids.size() > 1 ? tr("%n calls", nullptr, int(ids.size()))
                                        : QueueModel::displaySafe(toQString(item->toolName), 80);
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
        const int row = m_view->currentIndex().row();
        // Items may have timed out meanwhile; decide() then says so.
        const ReviewScope s = chosen == Scope::Turn ? ReviewScope::Turn : chosen == Scope::Session ? ReviewScope::Session : ReviewScope::Call;
        int done = 0;
        for (const std::string &id : ids)
            done += decide(id, ReviewAction::Deny, reason, std::nullopt, s) ? 1 : 0;
        if (ids.size() > 1)
            statusBar()->showMessage(tr("Denied %1 of %2 calls").arg(done).arg(ids.size()), 6000);
        afterDecision(row);
    });
    connect(dialog, &QDialog::finished, this, [this] { m_view->setFocus(); });
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
            statusBar()->showMessage(tr("The rule was not added: %1").arg(error), 10000);
            return;
        }
        const int row = m_view->currentIndex().row();
        decide(id, allow ? ReviewAction::Approve : ReviewAction::Deny, reason, std::nullopt);
        statusBar()->showMessage(tr("Rule added to %1").arg(m_core->userPolicyFile()), 6000);
        afterDecision(row);
    });
    connect(dialog, &QDialog::finished, this, [this] { m_view->setFocus(); });
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
    m_view->setFocus();
}

void MainWindow::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void MainWindow::notifyEscalated(int firstRow, int lastRow)
{
    if (isActiveWindow())
        return;
    QApplication::alert(this);
    if (!m_tray || !m_tray->isVisible())
        return;
    const int n = lastRow - firstRow + 1;
    const QModelIndex first = m_proxy->index(firstRow, 0);
    const QString who = first.siblingAtColumn(QueueModel::Agent).data().toString();
    const QString tool = first.siblingAtColumn(QueueModel::Tool).data().toString();
    m_tray->showMessage(n == 1 ? tr("%1 wants to run %2").arg(who, tool) : tr("%n calls need a person", nullptr, n),
                        first.siblingAtColumn(QueueModel::Reason).data().toString(), QSystemTrayIcon::Warning, 8000);
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

void MainWindow::applyHistoryFilter()
{
    audit::Filter f;
    if (m_historyAgent->currentIndex() > 0)
        f.agent = m_historyAgent->currentData().toString().toStdString();
    if (m_historyTool->currentIndex() > 0)
        f.tool = m_historyTool->currentData().toString().toStdString();
    if (m_historyDecision->currentIndex() > 0)
        f.decision = m_historyDecision->currentText().toStdString();
    f.decidedBy = m_historyDecidedBy->text().trimmed().toStdString();
    static const char *const ages[] = {"", "1h", "24h", "7d"};
    if (m_historySince->currentIndex() > 0)
        f.since = audit::parseTimeBound(ages[m_historySince->currentIndex()], m_core->clock()->now()).value_or(std::string());
    m_historyProxy->setFilter(f);
}

void MainWindow::updateTitleAndStatus()
{
    const int pending = m_model->rowCount();
    setWindowTitle(pending > 0 ? tr("(%1) Holdpoint").arg(pending) : tr("Holdpoint"));
    QString status = tr("Listening on %1   \u00b7   %n agent connection(s)", nullptr, m_core->agentConnections()).arg(m_core->url())
                     + tr("   \u00b7   %n pending", nullptr, pending);
    if (m_proxy->rowCount() != pending)
        status += tr(" (%1 shown)").arg(m_proxy->rowCount());
    status += m_core->auditAvailable() ? tr("   \u00b7   audit log: recording (%1 records)").arg(m_core->auditRecords())
                                 : tr("   \u00b7   audit log: CANNOT WRITE, refusing every call");
    m_statusLabel->setText(status);
    if (m_tray) {
        m_tray->setIcon(badgeIcon(pending));
        m_tray->setToolTip(pending > 0 ? tr("Holdpoint: %n call(s) waiting", nullptr, pending) : tr("Holdpoint: queue clear"));
    }
}

} // namespace holdpoint
