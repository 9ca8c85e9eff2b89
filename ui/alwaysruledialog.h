// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/json.h"
#include "engine/ruleshape.h"

#include <QDialog>
#include <QTimer>

#include <functional>
#include <vector>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
QT_END_NAMESPACE

namespace holdpoint {

// "Always": the rule a decision would add to the user's policy file, as
// narrow as the call in front of the reviewer, who widens or narrows each
// part (agent; each argument exact, prefix, glob or any) and sees at once
// in words, as JSON and by the past calls it would have matched, what the
// rule covers. A rule that allows the tool with any arguments for every
// agent needs a second, explicit confirmation.
class AlwaysRuleDialog final : public QDialog
{
    Q_OBJECT
public:
    using RuleOf = std::function<Json(const RuleShape &)>;
    using MatchesOf = std::function<std::vector<Json>(const Json &rule)>;

    AlwaysRuleDialog(RuleShape shape, const QueueItem &item, const QString &file, RuleOf ruleOf,
        MatchesOf matchesOf, std::size_t scanned, QWidget *parent = nullptr);

    const RuleShape &shape() const { return m_shape; }
    Json rule() const { return m_ruleOf(m_shape); }
    QListWidget *matchList() const { return m_matches; }
    // The matched history is looked up a moment after the last change, so
    // typing a pattern does not rescan the log per key; this does it now.
    void flushPreview();

Q_SIGNALS:
    void previewUpdated();

private:
    struct ArgRow
    {
        QComboBox *kind;
        QLineEdit *pattern;
    };
    void readControls();
    void onKindChanged(std::size_t index);
    void showShape();
    void updatePreview();

    RuleShape m_shape;
    Json m_masked; // the call's arguments as people may see them
    std::string m_agentName;
    RuleOf m_ruleOf;
    MatchesOf m_matchesOf;
    std::size_t m_scanned;
    QLabel *m_summary;
    QComboBox *m_agent;
    std::vector<ArgRow> m_rows;
    QPlainTextEdit *m_ruleView;
    QLabel *m_count;
    QListWidget *m_matches;
    QCheckBox *m_confirm;
    QPushButton *m_ok;
    QTimer m_preview;
};

} // namespace holdpoint
