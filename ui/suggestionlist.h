// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Insights view's suggested rules (issue 46 §2, core/replay/REPLAY.md
// "Suggestions"): what the person's own decisions suggest, computed from
// the audit log on a thread of its own, each shown in plain words with the
// prompts it would have saved, over how many days and agents, and its proof.
// Accepting one (after a confirmation that shows the rule) writes it to the
// user policy file through the console, as "always" does: the console's own
// audit log records it and the policy is reloaded. Dismissing one hides it
// for as long as the window is open.

#include "common/json.h"
#include "replay/suggest.h"

#include <QList>
#include <QPointer>
#include <QWidget>

#include <set>
#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QDialog;
class QLabel;
class QThread;
class QVBoxLayout;
QT_END_NAMESPACE

namespace holdpoint {

class ConsoleCore;

class SuggestionList final : public QWidget
{
    Q_OBJECT
public:
    explicit SuggestionList(ConsoleCore *core, QWidget *parent = nullptr);
    // Waits for a computation still under way.
    ~SuggestionList() override;

    // Computes the suggestions again from the log and the policy in force
    // (the caller has made the log durable), and shows them once done.
    void refresh();
    // What the list shows now, most prompts saved first.
    const std::vector<replay::Suggestion> &shown() const { return m_shown; }
    // The confirmation open for an "Accept", if any.
    QDialog *confirmation() const { return m_confirm; }
    // At most this many are listed.
    static constexpr std::size_t MaxShown = 12;

Q_SIGNALS:
    // After each computation is shown.
    void refreshed();
    // A suggestion was accepted (true) or could not be (false, `message` says why).
    void acceptFinished(bool ok, const QString &message);

private:
    void showResult(std::vector<replay::Suggestion> found, const QString &error);
    void rebuildRows();
    QWidget *rowFor(const replay::Suggestion &s);
    void confirmAccept(const replay::Suggestion &s);
    void accept(const replay::Suggestion &s);
    void dismiss(const Json &rule);

    ConsoleCore *m_core;
    QLabel *m_status;
    QVBoxLayout *m_rows;
    std::vector<replay::Suggestion> m_found; // the newest computation's
    std::vector<replay::Suggestion> m_shown; // those of m_found not dismissed
    std::set<std::string> m_dismissed; // rules, as JSON
    quint64 m_generation = 0; // the newest refresh's; an older result is dropped
    QList<QThread *> m_finders;
    QPointer<QDialog> m_confirm;
};

} // namespace holdpoint
