#include "mainwindow.h"

#include "common/jsonparse.h"
#include "console/consolecore.h"
#include "guardrails/chain.h"
#include "denydialog.h"
#include "queuemodel.h"

#include <QAction>
#include <QApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

namespace holdpoint {

namespace {

QPushButton *makeButton(const QString &text, const QString &name, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(name);
    b->setFocusPolicy(Qt::NoFocus); // the keyboard stays on the queue or the editor
    return b;
}

// Letter shortcuts act only while the queue has focus, so typing in the
// argument editor never approves or denies anything by accident.
QShortcut *queueShortcut(const QKeySequence &key, QWidget *view, std::function<void()> fn)
{
    auto *s = new QShortcut(key, view);
    s->setContext(Qt::WidgetShortcut);
    QObject::connect(s, &QShortcut::activated, view, std::move(fn));
    return s;
}

} // namespace

MainWindow::MainWindow(ConsoleCore *core, QWidget *parent)
    : QMainWindow(parent)
    , m_core(core)
    , m_model(new QueueModel(core->queue(), this))
{
    setObjectName(QStringLiteral("mainWindow"));
    auto *splitter = new QSplitter(Qt::Horizontal, this);

    m_view = new QTableView(splitter);
    m_view->setObjectName(QStringLiteral("queueView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 10);
    // Everything but the arguments fits its content; the arguments take the
    // rest, so no column hides behind a horizontal scroll bar.
    QHeaderView *header = m_view->horizontalHeader();
    header->setStretchLastSection(false);
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
    m_view->setColumnWidth(QueueModel::Agent, 8 * em);
    m_view->setColumnWidth(QueueModel::Tool, 8 * em);
    m_view->setColumnWidth(QueueModel::Reason, 12 * em);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto *detail = new QWidget(splitter);
    auto *d = new QVBoxLayout(detail);
    m_title = new QLabel(detail);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    m_title->setTextFormat(Qt::PlainText);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_meta = new QLabel(detail);
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
    m_context->setReadOnly(true);
    m_context->setFocusPolicy(Qt::ClickFocus);
    m_context->setMaximumHeight(130);
    m_argsEditor = new QPlainTextEdit(detail);
    m_argsEditor->setObjectName(QStringLiteral("argsEditor"));
    m_argsEditor->setFocusPolicy(Qt::ClickFocus);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_argsEditor->setFont(mono);
    m_context->setFont(mono);
    m_argsStatus = new QLabel(detail);
    m_argsStatus->setObjectName(QStringLiteral("argsStatus"));
    m_argsStatus->setTextFormat(Qt::PlainText);

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

    auto *contextLabel = new QLabel(tr("Context and annotations"), detail);
    auto *argsLabel = new QLabel(tr("Arguments  [E] to edit, Esc back to the queue"), detail);
    d->addWidget(m_title);
    d->addWidget(m_meta);
    d->addWidget(m_reason);
    d->addWidget(m_trail);
    d->addWidget(contextLabel);
    d->addWidget(m_context);
    d->addWidget(argsLabel);
    d->addWidget(m_argsEditor, 1);
    d->addWidget(m_argsStatus);
    d->addLayout(buttons);

    splitter->addWidget(m_view);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({780, 520});
    setCentralWidget(splitter);

    m_statusLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_statusLabel, 1);
    // A refused policy edit stays on screen until a good one replaces it.
    m_policyError = new QLabel(this);
    m_policyError->setObjectName(QStringLiteral("policyError"));
    m_policyError->setTextFormat(Qt::PlainText);
    m_policyError->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
    m_policyError->setVisible(false);
    statusBar()->addPermanentWidget(m_policyError);
    connect(m_core, &ConsoleCore::policyReloadFailed, this, [this](const QString &why) {
        m_policyError->setText(tr("Policy edit refused; the previous policy stays in force: %1").arg(why));
        m_policyError->setToolTip(why);
        m_policyError->setVisible(true);
    });
    connect(m_core, &ConsoleCore::policyReloaded, this, [this] {
        m_policyError->setVisible(false);
        statusBar()->showMessage(tr("Policy reloaded"), 5000);
    });

    connect(m_approveButton, &QPushButton::clicked, this, &MainWindow::approve);
    connect(m_editButton, &QPushButton::clicked, this, &MainWindow::approveWithEdits);
    connect(m_denyButton, &QPushButton::clicked, this, &MainWindow::deny);
    connect(m_haltButton, &QPushButton::clicked, this, &MainWindow::halt);
    connect(m_argsEditor, &QPlainTextEdit::textChanged, this, &MainWindow::onArgsEdited);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::onCurrentChanged);

    queueShortcut(QKeySequence(Qt::Key_A), m_view, [this] { approve(); });
    queueShortcut(QKeySequence(Qt::Key_D), m_view, [this] { deny(); });
    queueShortcut(QKeySequence(Qt::Key_H), m_view, [this] { halt(); });
    queueShortcut(QKeySequence(Qt::Key_E), m_view, [this] { editArgs(); });
    queueShortcut(QKeySequence(Qt::Key_J), m_view, [this] { moveSelection(1); });
    queueShortcut(QKeySequence(Qt::Key_K), m_view, [this] { moveSelection(-1); });
    auto *submitEdits = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_argsEditor);
    submitEdits->setContext(Qt::WidgetShortcut);
    connect(submitEdits, &QShortcut::activated, this, &MainWindow::approveWithEdits);
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), m_argsEditor);
    escape->setContext(Qt::WidgetShortcut);
    connect(escape, &QShortcut::activated, this, &MainWindow::backToQueue);

    // Rows arriving or leaving keep the selection on a live item.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_view->currentIndex().isValid())
            selectRow(0);
        updateTitleAndStatus();
    });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &, int first) {
        if (!m_view->currentIndex().isValid() || !m_core->queue()->find(m_currentId))
            selectRow(std::min(first, m_model->rowCount() - 1));
        updateTitleAndStatus();
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &tl, const QModelIndex &br) {
        const int row = m_view->currentIndex().row();
        if (row >= tl.row() && row <= br.row() && tl.column() == 0 && br.column() == QueueModel::ColumnCount - 1)
            showDetail(currentItem());
    });
    connect(m_core->broker(), &Broker::connectionsChanged, this, &MainWindow::updateTitleAndStatus);

    resize(1300, 800);
    showDetail(nullptr);
    updateTitleAndStatus();
    m_view->setFocus();
}

MainWindow::~MainWindow() = default;

const QueueItem *MainWindow::currentItem() const
{
    return m_core->queue()->find(m_currentId);
}

void MainWindow::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_view->setCurrentIndex({});
        onCurrentChanged();
        return;
    }
    m_view->setCurrentIndex(m_model->index(row, 0));
    m_view->scrollTo(m_model->index(row, 0));
}

void MainWindow::moveSelection(int delta)
{
    const int rows = m_model->rowCount();
    if (rows == 0)
        return;
    const int row = m_view->currentIndex().isValid() ? m_view->currentIndex().row() + delta : 0;
    selectRow(std::clamp(row, 0, rows - 1));
}

void MainWindow::onCurrentChanged()
{
    const QueueItem *item = m_model->itemAt(m_view->currentIndex().row());
    const std::string id = item ? item->id : std::string();
    if (id == m_currentId && item)
        return;
    m_currentId = id;
    showDetail(item);
}

void MainWindow::showDetail(const QueueItem *item)
{
    const bool has = item != nullptr;
    for (QWidget *w : {static_cast<QWidget *>(m_approveButton), static_cast<QWidget *>(m_denyButton),
                       static_cast<QWidget *>(m_haltButton), static_cast<QWidget *>(m_argsEditor)})
        w->setEnabled(has);
    if (!has) {
        m_title->setText(m_model->rowCount() == 0 ? tr("The queue is clear") : tr("No call selected"));
        m_meta->setText(m_model->rowCount() == 0 ? tr("Calls that need a person appear here as agents make them.")
                                                 : QString());
        m_reason->clear();
        m_trail->clear();
        m_context->clear();
        const QSignalBlocker block(m_argsEditor);
        m_argsEditor->clear();
        m_argsStatus->clear();
        m_editButton->setEnabled(false);
        m_editedArgs.reset();
        return;
    }
    m_title->setText(QueueModel::displaySafe(toQString(item->toolName), 80) + QStringLiteral("  \u2014  ")
                     + QueueModel::displaySafe(toQString(item->agent.name), 60));
    QStringList meta;
    if (!item->agent.framework.empty())
        meta << tr("framework %1").arg(toQString(item->agent.framework));
    meta << tr("session %1").arg(toQString(item->sessionId));
    if (item->turnId)
        meta << tr("turn %1").arg(toQString(*item->turnId));
    meta << tr("call %1").arg(toQString(item->callId)) << tr("item %1").arg(toQString(item->id));
    if (!item->agentConnected)
        meta << tr("AGENT DISCONNECTED");
    m_meta->setText(meta.join(QStringLiteral("  \u00b7  ")));
    m_reason->setText(tr("Why: %1").arg(toQString(maskText(item->reason, item->redactions))));
    m_trail->setText(trailHtml(*item));
    Json ctx = Json::object();
    if (!item->context.empty())
        ctx["context"] = item->context;
    if (!item->annotations.empty())
        ctx["annotations"] = item->annotations;
    m_context->setPlainText(toQString(dumpJson(masked(*item, ctx), 2)));
    {
        // What the guardrails proposed is what approving runs, so that is what
        // the editor starts from; secrets stay masked.
        const QSignalBlocker block(m_argsEditor);
        m_argsEditor->setPlainText(toQString(dumpJson(masked(*item, item->proposedArgs.value_or(item->args)), 2)));
    }
    onArgsEdited();
}

QString MainWindow::trailHtml(const QueueItem &item)
{
    // What each guardrail said, then the warnings and any rewrite, masked
    // like everything else a person sees of the call.
    auto text = [&](const Json &j) { return toQString(maskText(j.is_string() ? j.get<std::string>() : dumpJson(j), item.redactions)).toHtmlEscaped(); };
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
    if (item.proposedArgs)
        lines << tr("Guardrails rewrote the arguments: %1").arg(text(item.patch));
    return lines.isEmpty() ? QString() : tr("Guardrails:") + QStringLiteral("<br>") + lines.join(QStringLiteral("<br>"));
}

void MainWindow::onArgsEdited()
{
    m_editedArgs.reset();
    const QueueItem *item = currentItem();
    if (!item) {
        m_editButton->setEnabled(false);
        return;
    }
    const std::string text = m_argsEditor->toPlainText().toStdString();
    Json parsed;
    std::string why;
    if (!parseStrictJson(text, protocol::MaxDepth, &parsed, &why)) {
        m_argsStatus->setText(tr("\u2716 Invalid JSON: %1").arg(toQString(why)));
    } else if (!parsed.is_object()) {
        m_argsStatus->setText(tr("\u2716 Arguments must be a JSON object, not %1").arg(QLatin1String(parsed.type_name())));
    } else if (parsed == masked(*item, item->proposedArgs.value_or(item->args))) {
        m_argsStatus->setText(tr("\u2714 Valid JSON, unchanged"));
    } else {
        m_argsStatus->setText(tr("\u2714 Valid JSON, edited: Ctrl+Enter approves with these arguments"));
        m_editedArgs = std::move(parsed);
    }
    m_editButton->setEnabled(m_editedArgs.has_value());
}

void MainWindow::decide(const std::string &id, int action, const QString &reason, const std::optional<Json> &args)
{
    if (id.empty())
        return;
    protocol::Review r;
    r.id = id;
    r.action = protocol::ReviewAction(action);
    r.reason = reason.toStdString();
    r.args = args;
    const int row = m_view->currentIndex().row();
    const ReviewOutcome out = m_core->broker()->review(r, m_core->broker()->humanDecider());
    if (!out.ok) {
        statusBar()->showMessage(toQString(out.message), 8000);
        return;
    }
    statusBar()->showMessage(tr("%1: %2").arg(toQString(protocol::decisionKindName(out.decision.kind)),
                                              toQString(r.id)),
                             4000);
    selectRow(std::min(row, m_model->rowCount() - 1));
    m_view->setFocus();
}

void MainWindow::approve()
{
    decide(m_currentId, int(protocol::ReviewAction::Approve), {}, std::nullopt);
}

void MainWindow::approveWithEdits()
{
    if (!m_editedArgs)
        return;
    decide(m_currentId, int(protocol::ReviewAction::Edit), {}, m_editedArgs);
}

void MainWindow::halt()
{
    decide(m_currentId, int(protocol::ReviewAction::Halt), tr("turn halted by %1").arg(toQString(m_core->broker()->config().reviewerName)),
           std::nullopt);
}

void MainWindow::deny()
{
    const QueueItem *item = currentItem();
    if (!item || m_denyDialog)
        return;
    const std::string id = item->id;
    auto *dialog = new DenyDialog(QueueModel::displaySafe(toQString(item->toolName), 80), m_recentReasons, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_denyDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, id] {
        const QString reason = dialog->reason();
        if (reason.isEmpty())
            return;
        m_recentReasons.removeAll(reason);
        m_recentReasons.prepend(reason);
        while (m_recentReasons.size() > 8)
            m_recentReasons.removeLast();
        // The item may have timed out meanwhile; decide() then says so.
        decide(id, int(protocol::ReviewAction::Deny), reason, std::nullopt);
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
    m_view->setFocus();
}

void MainWindow::updateTitleAndStatus()
{
    const int pending = m_model->rowCount();
    setWindowTitle(pending > 0 ? tr("(%1) Holdpoint").arg(pending) : tr("Holdpoint"));
    const Broker *b = m_core->broker();
    m_statusLabel->setText(tr("Listening on %1   \u00b7   %n agent connection(s)", nullptr, b->agentConnections())
                               .arg(m_core->url())
                           + tr("   \u00b7   %n pending", nullptr, pending));
}

} // namespace holdpoint
