#pragma once

#include "common/json.h"

#include <QDialog>

#include <vector>

QT_BEGIN_NAMESPACE
class QDialogButtonBox;
class QListWidget;
QT_END_NAMESPACE

namespace holdpoint {

// "Always": shows the rule a decision would add to the user's policy file,
// and which past calls it would have matched, before anything is written.
class AlwaysRuleDialog final : public QDialog
{
    Q_OBJECT
public:
    AlwaysRuleDialog(const Json &rule, const QString &file, const std::vector<Json> &matches, std::size_t scanned,
                     QWidget *parent = nullptr);
    QListWidget *matchList() const { return m_matches; }

private:
    QListWidget *m_matches;
    QDialogButtonBox *m_buttons;
};

} // namespace holdpoint
