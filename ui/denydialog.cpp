// SPDX-License-Identifier: Apache-2.0
#include "denydialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace holdpoint {

QStringList DenyDialog::quickReasons()
{
    return { tr("Not allowed for this task"), tr("Touches files outside the project"),
        tr("Destructive; ask me first"), tr("Wrong target; check the arguments"),
        tr("Contains a secret") };
}

DenyDialog::DenyDialog(const QString &what, const QStringList &recentReasons, QWidget *parent)
    : QDialog(parent)
    , m_reason(new QComboBox(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Deny call"));
    setObjectName(QStringLiteral("denyDialog"));
    auto *layout = new QVBoxLayout(this);
    auto *label = new QLabel(
        tr("Why deny <b>%1</b>? The agent sees this reason.").arg(what.toHtmlEscaped()), this);
    label->setWordWrap(true);
    layout->addWidget(label);

    m_reason->setObjectName(QStringLiteral("denyReason"));
    m_reason->setEditable(true);
    m_reason->setInsertPolicy(QComboBox::NoInsert);
    QStringList offered = recentReasons;
    for (const QString &q : quickReasons()) {
        if (!offered.contains(q))
            offered << q;
    }
    m_reason->addItems(offered);
    m_reason->setCurrentIndex(-1);
    m_reason->lineEdit()->setPlaceholderText(tr("Type a reason, or pick one (\u2193)"));
    m_reason->setMinimumWidth(420);
    layout->addWidget(m_reason);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Deny"));
    m_buttons->button(QDialogButtonBox::Ok)->setObjectName(QStringLiteral("denyOk"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QComboBox::editTextChanged, this, &DenyDialog::updateOk);
    updateOk();
}

QString DenyDialog::reason() const
{
    return m_reason->currentText().trimmed();
}

void DenyDialog::updateOk()
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!reason().isEmpty());
}

} // namespace holdpoint
