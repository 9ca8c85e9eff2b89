// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

QT_BEGIN_NAMESPACE
class QComboBox;
class QDialogButtonBox;
class QLabel;
QT_END_NAMESPACE

namespace holdpoint {

// Asks why a call is denied. The reason reaches the agent, so an empty one
// is refused; quick reasons and the session's recent ones are offered.
class DenyDialog final : public QDialog
{
    Q_OBJECT
public:
    DenyDialog(const QString &what, const QStringList &recentReasons, QWidget *parent = nullptr);
    QString reason() const;
    static QStringList quickReasons();

private:
    void updateOk();

    QComboBox *m_reason;
    QDialogButtonBox *m_buttons;
};

} // namespace holdpoint
