// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Insights view's charts, each drawn afresh from the figures: a chart
// holds a few dozen points at most, so a redraw replaces its series.

#include "insights/insights.h"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace holdpoint::insightscharts {

// At most this many tools, rules or agents per chart, the busiest.
inline constexpr std::size_t MaxRows = 8;

// A line of escalations per hour, over a time axis.
void showPerHour(QChart *chart, const insights::Figures &figures);
// One horizontal bar per agent.
void showPerAgent(QChart *chart, const insights::Counts &agents);
// The histogram, p50 and p90 in the title.
void showTimeToDecision(QChart *chart, const insights::Figures &figures);
// How each tool's (or rule's) escalations ended, as shares of a bar.
void showOutcomes(QChart *chart, const QString &title,
    const std::vector<std::pair<std::string, insights::Outcomes>> &rows);
// Allowed and denied calls per rule that decided them alone.
void showSaved(QChart *chart, const std::vector<insights::SavedPrompts> &rows);

} // namespace holdpoint::insightscharts
