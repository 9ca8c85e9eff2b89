// SPDX-License-Identifier: Apache-2.0
#include "alwaysruledialog.h"

#include "common/visibletext.h"
#include "itemtext.h"
#include "jsonhighlighter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace holdpoint {

using Kind = ArgPattern::Kind;

namespace {

QString kindLabel(Kind kind)
{
    switch (kind) {
    case Kind::Exact:
        return QObject::tr("exactly");
    case Kind::Prefix:
        return QObject::tr("starts with");
    case Kind::Glob:
        return QObject::tr("matches glob");
    case Kind::Any:
        return QObject::tr("anything");
    }
    return {};
}

} // namespace

AlwaysRuleDialog::AlwaysRuleDialog(RuleShape shape, const QueueItem &item, const QString &file,
    RuleOf ruleOf, MatchesOf matchesOf, std::size_t scanned, QWidget *parent)
    : QDialog(parent)
    , m_shape(std::move(shape))
    , m_masked(item.masked(item.proposedArgs.value_or(item.args)))
    , m_agentName(item.agent.name)
    , m_ruleOf(std::move(ruleOf))
    , m_matchesOf(std::move(matchesOf))
    , m_scanned(scanned)
    , m_summary(new QLabel(this))
    , m_agent(new QComboBox(this))
    , m_ruleView(new QPlainTextEdit(this))
    , m_count(new QLabel(this))
    , m_matches(new QListWidget(this))
    , m_confirm(new QCheckBox(this))
{
    setObjectName(QStringLiteral("alwaysRuleDialog"));
    setWindowTitle(m_shape.allow ? tr("Always allow?") : tr("Always deny?"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("This rule goes first in the \u201cconsole\u201d rules of %1, and takes effect at once. "
           "Later guardrails (secrets, protected paths, loop detection) still apply. "
           "It starts as narrow as this call; widen only what you mean.")
            .arg(file),
        this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::PlainText);
    layout->addWidget(intro);

    m_summary->setObjectName(QStringLiteral("ruleSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    layout->addWidget(m_summary);

    auto *grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("Agent"), this), 0, 0);
    m_agent->setObjectName(QStringLiteral("ruleAgent"));
    const QString agent = displaySafe(toQString(item.agent.name), 60);
    m_agent->addItems({ tr("only %1").arg(agent), tr("any agent") });
    m_agent->setCurrentIndex(m_shape.agent ? 0 : 1);
    grid->addWidget(m_agent, 0, 1);
    connect(m_agent, &QComboBox::currentIndexChanged, this, [this] { showShape(); });
    for (std::size_t i = 0; i < m_shape.args.size(); ++i) {
        const ArgPattern &p = m_shape.args[i];
        const int row = int(i) + 1;
        grid->addWidget(new QLabel(displaySafe(toQString(p.key), 60), this), row, 0);
        auto *kind = new QComboBox(this);
        kind->setObjectName(QStringLiteral("ruleKind_") + toQString(p.key));
        auto *pattern = new QLineEdit(this);
        pattern->setObjectName(QStringLiteral("rulePattern_") + toQString(p.key));
        // What each kind may do with this value: text can be a prefix or a
        // glob; other values are exact or anything; a secret is never pinned.
        std::vector<Kind> kinds { Kind::Any };
        if (!p.secret && !p.value.is_null())
            kinds = p.value.is_string()
                ? std::vector { Kind::Exact, Kind::Prefix, Kind::Glob, Kind::Any }
                : std::vector { Kind::Exact, Kind::Any };
        for (Kind k : kinds)
            kind->addItem(kindLabel(k), int(k));
        kind->setCurrentIndex(kind->findData(int(p.kind)));
        if (p.secret)
            kind->setToolTip(
                tr("Holds a secret: a rule never contains one, so any value matches."));
        grid->addWidget(kind, row, 1);
        grid->addWidget(pattern, row, 2);
        m_rows.push_back({ kind, pattern });
        connect(kind, &QComboBox::currentIndexChanged, this, [this, i] { onKindChanged(i); });
        connect(pattern, &QLineEdit::textEdited, this, [this] { showShape(); });
    }
    grid->setColumnStretch(2, 1);
    layout->addLayout(grid);

    m_ruleView->setObjectName(QStringLiteral("proposedRule"));
    m_ruleView->setReadOnly(true);
    m_ruleView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_ruleView->setMaximumHeight(m_ruleView->fontMetrics().height() * 10);
    new JsonHighlighter(m_ruleView->document());
    layout->addWidget(m_ruleView);

    m_count->setObjectName(QStringLiteral("matchCount"));
    m_count->setTextFormat(Qt::PlainText);
    layout->addWidget(m_count);
    m_matches->setObjectName(QStringLiteral("pastMatches"));
    layout->addWidget(m_matches, 1);

    m_confirm->setObjectName(QStringLiteral("wideOpenConfirm"));
    m_confirm->setText(
        tr("I understand: this allows %1 with any arguments from every agent, from now on")
            .arg(displaySafe(toQString(m_shape.tool), 60)));
    m_confirm->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
    connect(m_confirm, &QCheckBox::toggled, this, [this] { showShape(); });
    layout->addWidget(m_confirm);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_ok = buttons->addButton(m_shape.allow ? tr("Add rule and approve") : tr("Add rule and deny"),
        QDialogButtonBox::AcceptRole);
    m_ok->setObjectName(QStringLiteral("addRuleButton"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    m_ok->setDefault(true);

    m_preview.setSingleShot(true);
    m_preview.setInterval(250);
    connect(&m_preview, &QTimer::timeout, this, &AlwaysRuleDialog::updatePreview);
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        onKindChanged(i); // fills the pattern fields
    showShape();
    flushPreview();
    resize(760, 600);
}

void AlwaysRuleDialog::onKindChanged(std::size_t index)
{
    const ArgPattern &p = m_shape.args[index];
    const ArgRow &row = m_rows[index];
    const Kind kind = Kind(row.kind->currentData().toInt());
    const QSignalBlocker block(row.pattern);
    row.pattern->setReadOnly(kind != Kind::Prefix && kind != Kind::Glob);
    row.pattern->setEnabled(kind != Kind::Any);
    const Json shown = m_masked.is_object() && m_masked.contains(p.key) ? m_masked[p.key] : Json();
    const QString value
        = shown.is_string() ? toQString(shown.get<std::string>()) : toQString(dumpJson(shown));
    switch (kind) {
    case Kind::Exact:
        row.pattern->setText(displaySafe(value, 300));
        break;
    case Kind::Any:
        row.pattern->clear();
        break;
    case Kind::Prefix:
    case Kind::Glob:
        // Start from the proposal when it was of this kind, else from the value itself.
        row.pattern->setText(p.kind == kind && !p.text.empty() ? toQString(p.text) : value);
        break;
    }
    showShape();
}

void AlwaysRuleDialog::readControls()
{
    m_shape.agent = m_agent->currentIndex() == 0 ? std::optional(m_agentName) : std::nullopt;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        ArgPattern &p = m_shape.args[i];
        p.kind = Kind(m_rows[i].kind->currentData().toInt());
        if (p.kind == Kind::Prefix || p.kind == Kind::Glob)
            p.text = m_rows[i].pattern->text().toStdString();
    }
}

void AlwaysRuleDialog::showShape()
{
    readControls();
    const std::string problem = shapeProblem(m_shape);
    m_summary->setText(
        toQString(problem.empty() ? describeShape(m_shape) : "Not a rule: " + problem));
    m_ruleView->setPlainText(toQString(visibleJson(rule(), 2)));
    const bool wideOpen = isWideOpen(m_shape);
    m_confirm->setVisible(wideOpen);
    if (!wideOpen) {
        const QSignalBlocker block(m_confirm);
        m_confirm->setChecked(false);
    }
    bool patternsOk = true;
    for (const ArgPattern &p : m_shape.args)
        patternsOk
            = patternsOk && ((p.kind != Kind::Prefix && p.kind != Kind::Glob) || !p.text.empty());
    m_ok->setEnabled(patternsOk && problem.empty() && (!wideOpen || m_confirm->isChecked()));
    m_preview.start();
}

void AlwaysRuleDialog::flushPreview()
{
    m_preview.stop();
    updatePreview();
}

void AlwaysRuleDialog::updatePreview()
{
    const std::vector<Json> matches = m_matchesOf(rule());
    m_count->setText(matches.empty()
            ? tr("It would have matched none of the last %1.")
                  .arg(counted(int(m_scanned), tr("recorded call"), tr("recorded calls")))
            : tr("It would have matched %1 of the last %2 recorded calls (newest first):")
                  .arg(counted(int(matches.size()), tr("call"), tr("calls")))
                  .arg(m_scanned));
    m_matches->clear();
    for (const Json &r : matches) {
        const QDateTime t = QDateTime::fromString(
            QString::fromStdString(r.value("ts", std::string())), Qt::ISODateWithMs);
        m_matches->addItem(QStringLiteral("%1   %2   %3   %4")
                               .arg(t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                                   displaySafe(toQString(r.value("agent", std::string())), 30),
                                   displaySafe(toQString(r.value("tool", std::string())), 30),
                                   summarizeArgs(r.value("args", Json::object()), 100)));
    }
    m_matches->setVisible(!matches.empty());
    Q_EMIT previewUpdated();
}

} // namespace holdpoint
