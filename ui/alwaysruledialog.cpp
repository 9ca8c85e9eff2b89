#include "alwaysruledialog.h"

#include "itemtext.h"
#include "jsonhighlighter.h"
#include "queuemodel.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace holdpoint {

AlwaysRuleDialog::AlwaysRuleDialog(const Json &rule, const QString &file, const std::vector<Json> &matches,
                                   std::size_t scanned, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("alwaysRuleDialog"));
    const bool allow = rule.value("action", std::string()) == "allow";
    setWindowTitle(allow ? tr("Always allow?") : tr("Always deny?"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("This rule goes first in the \u201cconsole\u201d rules of %1, and takes effect at once. "
           "Later guardrails (secrets, protected paths, loop detection) still apply.")
            .arg(file),
        this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::PlainText);
    layout->addWidget(intro);

    auto *ruleView = new QPlainTextEdit(this);
    ruleView->setObjectName(QStringLiteral("proposedRule"));
    ruleView->setReadOnly(true);
    ruleView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    ruleView->setPlainText(toQString(dumpJson(rule, 2)));
    ruleView->setMaximumHeight(ruleView->fontMetrics().height() * 12);
    new JsonHighlighter(ruleView->document());
    layout->addWidget(ruleView);

    auto *count = new QLabel(this);
    count->setObjectName(QStringLiteral("matchCount"));
    count->setTextFormat(Qt::PlainText);
    count->setText(matches.empty()
                       ? tr("It would have matched none of the last %1.").arg(counted(int(scanned), tr("recorded call"), tr("recorded calls")))
                       : tr("It would have matched these of the last %1 recorded calls (newest first):").arg(scanned));
    layout->addWidget(count);
    m_matches = new QListWidget(this);
    m_matches->setObjectName(QStringLiteral("pastMatches"));
    for (const Json &r : matches) {
        const QDateTime t = QDateTime::fromString(QString::fromStdString(r.value("ts", std::string())), Qt::ISODateWithMs);
        m_matches->addItem(QStringLiteral("%1   %2   %3   %4")
                               .arg(t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                                    displaySafe(toQString(r.value("agent", std::string())), 30),
                                    displaySafe(toQString(r.value("tool", std::string())), 30),
                                    summarizeArgs(r.value("args", Json::object()), 100)));
    }
    m_matches->setVisible(!matches.empty());
    layout->addWidget(m_matches, 1);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *ok = m_buttons->addButton(allow ? tr("Add rule and approve") : tr("Add rule and deny"),
                                           QDialogButtonBox::AcceptRole);
    ok->setObjectName(QStringLiteral("addRuleButton"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);
    ok->setDefault(true);
    resize(720, 520);
}

} // namespace holdpoint
