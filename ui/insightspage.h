// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Insights view: where reviewers' time goes, as charts drawn from the
// audit log's figures (core/insights/INSIGHTS.md). It reads the log when
// first shown, on a thread of its own so a long history never freezes the
// window, then adds each record the console writes (or, in team mode, the
// team's audit brings) and redraws a moment later, so a burst of calls
// costs one redraw.

#include "insights/insights.h"

#include <QList>
#include <QTimer>
#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QComboBox;
class QGroupBox;
class QLabel;
class QThread;
class QVBoxLayout;
QT_END_NAMESPACE

namespace holdpoint {

class ConsoleCore;
class SuggestionList;

class InsightsPage final : public QWidget
{
    Q_OBJECT
public:
    explicit InsightsPage(ConsoleCore *core, QWidget *parent = nullptr);
    // Waits for a reading of the log still under way.
    ~InsightsPage() override;

    // Reads the log again (the window, "always" rules added since) and
    // redraws once it has.
    void reload();
    // The figures the charts show now.
    const insights::Figures &figures() const { return m_figures; }
    // The charts, by name: escalationsPerHour, escalationsPerAgent,
    // timeToDecision, decisionsPerTool, decisionsPerRule, promptsSaved.
    QChart *chart(const QString &name) const;
    // The rules the person's own decisions suggest (issue 46, "Suggest
    // rules"), in a box titled "Suggested rules" below the charts: computed
    // again, on a thread of its own, each time the log is read.
    QGroupBox *suggestionsBox() const { return m_suggestions; }
    QVBoxLayout *suggestionsLayout() const { return m_suggestionsLayout; }
    SuggestionList *suggestionList() const { return m_suggestionList; }
    // How long after a record the charts are redrawn.
    static constexpr int RedrawDelayMs = 1500;

Q_SIGNALS:
    // After every redraw.
    void redrawn();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void onRecord(const Json &record);
    void redraw();
    TimeMs sinceBound() const;

    ConsoleCore *m_core;
    insights::Builder m_builder;
    insights::Figures m_figures;
    bool m_loaded = false; // m_builder holds the log
    bool m_loading = false; // a loader reads it
    bool m_stale = false;
    quint64 m_generation = 0; // the newest reload's; an older loader's result is dropped
    std::vector<Json> m_arrived; // records written while a loader reads
    QList<QThread *> m_loaders;
    QTimer m_redraw;
    QComboBox *m_since;
    QLabel *m_totals;
    QGroupBox *m_suggestions;
    QVBoxLayout *m_suggestionsLayout;
    SuggestionList *m_suggestionList;
    QMap<QString, QChart *> m_charts;
};

} // namespace holdpoint
