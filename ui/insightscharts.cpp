// SPDX-License-Identifier: Apache-2.0
#include "insightscharts.h"

#include "itemtext.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHorizontalBarSeries>
#include <QHorizontalPercentBarSeries>
#include <QHorizontalStackedBarSeries>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>

namespace holdpoint::insightscharts {

namespace {

const QColor Approved(0x27, 0xae, 0x60);
const QColor Edited(0x29, 0x80, 0xb9);
const QColor Denied(0xc0, 0x39, 0x2b);
const QColor Halted(0x8e, 0x44, 0xad);
const QColor TimedOut(0x95, 0xa5, 0xa6);
const QColor Escalated(0xd3, 0x54, 0x00);

void clear(QChart *chart, const QString &title)
{
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setTitle(title);
}

// A count axis: whole numbers, starting at zero.
QValueAxis *countAxis(double max)
{
    auto *axis = new QValueAxis;
    axis->setRange(0, std::max(1.0, max));
    axis->applyNiceNumbers();
    axis->setLabelFormat(QStringLiteral("%d"));
    return axis;
}

// Names an agent or a tool chose: hidden characters shown, cut short here
// (Qt Charts would cut every label of a crowded axis to "..." instead),
// and escaped, since Qt Charts draws labels as rich text.
QString label(const std::string &name)
{
    return displaySafe(toQString(name), 26).toHtmlEscaped();
}

QBarSet *barSet(const QString &name, const QColor &color)
{
    auto *set = new QBarSet(name);
    set->setColor(color);
    set->setBorderColor(color);
    return set;
}

// Horizontal bars list their first category at the bottom: the busiest
// goes last, so it is drawn on top.
template <typename Row> std::vector<Row> topRowsReversed(const std::vector<Row> &rows)
{
    std::vector<Row> out(rows.begin(), rows.begin() + qsizetype(std::min(rows.size(), MaxRows)));
    std::reverse(out.begin(), out.end());
    return out;
}

void attachHorizontal(
    QChart *chart, QAbstractBarSeries *series, const QStringList &categories, QAbstractAxis *values)
{
    chart->addSeries(series);
    auto *names = new QBarCategoryAxis;
    names->append(categories);
    names->setTruncateLabels(false);
    chart->addAxis(names, Qt::AlignLeft);
    chart->addAxis(values, Qt::AlignBottom);
    series->attachAxis(names);
    series->attachAxis(values);
}

} // namespace

void showPerHour(QChart *chart, const insights::Figures &f)
{
    std::uint64_t total = 0, max = 0;
    for (const std::uint64_t n : f.escalationsPerHour) {
        total += n;
        max = std::max(max, n);
    }
    clear(chart, QObject::tr("Escalations per hour (%1 in all)").arg(total));
    chart->legend()->hide();
    if (f.escalationsPerHour.empty())
        return;
    auto *upper = new QLineSeries;
    upper->setName(QObject::tr("Escalations"));
    for (std::size_t i = 0; i < f.escalationsPerHour.size(); ++i)
        upper->append(
            double(f.firstHour + TimeMs(i) * insights::HourMs), double(f.escalationsPerHour[i]));
    auto *area = new QAreaSeries(upper);
    // An area series does not own its line: it goes with the area, which
    // clear() deletes on the next redraw.
    upper->setParent(area);
    area->setName(upper->name());
    QColor fill = Escalated;
    fill.setAlpha(110);
    area->setBrush(fill);
    area->setPen(QPen(Escalated, 1.5));
    chart->addSeries(area);
    auto *time = new QDateTimeAxis;
    time->setFormat(
        f.escalationsPerHour.size() > 48 ? QStringLiteral("dd MMM") : QStringLiteral("hh:mm"));
    time->setRange(QDateTime::fromMSecsSinceEpoch(f.firstHour, Qt::UTC),
        QDateTime::fromMSecsSinceEpoch(
            f.firstHour + TimeMs(f.escalationsPerHour.size() - 1) * insights::HourMs, Qt::UTC));
    time->setTickCount(8);
    chart->addAxis(time, Qt::AlignBottom);
    QValueAxis *counts = countAxis(double(max));
    chart->addAxis(counts, Qt::AlignLeft);
    area->attachAxis(time);
    area->attachAxis(counts);
}

void showPerAgent(QChart *chart, const insights::Counts &agents)
{
    clear(chart, QObject::tr("Escalations per agent"));
    chart->legend()->hide();
    if (agents.empty())
        return;
    auto *series = new QHorizontalBarSeries;
    QBarSet *set = barSet(QObject::tr("Escalations"), Escalated);
    QStringList names;
    for (const auto &[agent, n] : topRowsReversed(agents)) {
        names << label(agent);
        *set << double(n);
    }
    series->append(set);
    series->setLabelsVisible(true);
    attachHorizontal(chart, series, names, countAxis(double(agents.front().second)));
}

void showTimeToDecision(QChart *chart, const insights::Figures &f)
{
    auto seconds = [](TimeMs ms) {
        return ms < 60'000 ? QObject::tr("%1 s").arg(double(ms) / 1000, 0, 'f', 1)
                           : QObject::tr("%1 min").arg(double(ms) / 60'000, 0, 'f', 1);
    };
    clear(chart,
        f.p50Ms && f.p90Ms ? QObject::tr("Time to decision: p50 %1, p90 %2 (%3 decisions)")
                                 .arg(seconds(*f.p50Ms), seconds(*f.p90Ms))
                                 .arg(f.decisionsTimed)
                           : QObject::tr("Time to decision"));
    chart->legend()->hide();
    if (f.decisionsTimed == 0)
        return;
    auto *series = new QBarSeries;
    QBarSet *set = barSet(QObject::tr("Decisions"), Edited);
    QStringList buckets;
    std::uint64_t max = 0;
    for (const insights::DurationBucket &b : f.timeToDecision) {
        buckets << toQString(b.label);
        *set << double(b.count);
        max = std::max(max, b.count);
    }
    series->append(set);
    series->setLabelsVisible(true);
    chart->addSeries(series);
    auto *names = new QBarCategoryAxis;
    names->append(buckets);
    names->setTruncateLabels(false); // short, and a neighbour's room is free
    chart->addAxis(names, Qt::AlignBottom);
    QValueAxis *counts = countAxis(double(max));
    chart->addAxis(counts, Qt::AlignLeft);
    series->attachAxis(names);
    series->attachAxis(counts);
}

void showOutcomes(QChart *chart, const QString &title,
    const std::vector<std::pair<std::string, insights::Outcomes>> &rows)
{
    clear(chart, title);
    if (rows.empty()) {
        chart->legend()->hide();
        return;
    }
    chart->legend()->show();
    chart->legend()->setAlignment(Qt::AlignRight);
    auto *series = new QHorizontalPercentBarSeries;
    QBarSet *approved = barSet(QObject::tr("Approved"), Approved);
    QBarSet *edited = barSet(QObject::tr("Edited"), Edited);
    QBarSet *denied = barSet(QObject::tr("Denied"), Denied);
    QBarSet *halted = barSet(QObject::tr("Halted"), Halted);
    QBarSet *timedOut = barSet(QObject::tr("Timed out"), TimedOut);
    QStringList names;
    for (const auto &[name, o] : topRowsReversed(rows)) {
        names << QStringLiteral("%1 (%2)").arg(label(name)).arg(o.total());
        *approved << double(o.approved);
        *edited << double(o.edited);
        *denied << double(o.denied);
        *halted << double(o.halted);
        *timedOut << double(o.timedOut + o.other);
    }
    series->append({ approved, edited, denied, halted, timedOut });
    auto *share = new QValueAxis;
    share->setRange(0, 100);
    share->setLabelFormat(QStringLiteral("%d%%"));
    attachHorizontal(chart, series, names, share);
}

void showSaved(QChart *chart, const std::vector<insights::SavedPrompts> &rows)
{
    std::uint64_t total = 0;
    for (const insights::SavedPrompts &s : rows)
        total += s.total();
    clear(chart, QObject::tr("Prompts saved per rule (%1 in all)").arg(total));
    if (rows.empty()) {
        chart->legend()->hide();
        return;
    }
    chart->legend()->show();
    chart->legend()->setAlignment(Qt::AlignRight);
    auto *series = new QHorizontalStackedBarSeries;
    QBarSet *allowed = barSet(QObject::tr("Allowed"), Approved);
    QBarSet *denied = barSet(QObject::tr("Denied or halted"), Denied);
    QStringList names;
    for (const insights::SavedPrompts &s : topRowsReversed(rows)) {
        names << label(s.rule);
        *allowed << double(s.allowed);
        *denied << double(s.denied);
    }
    series->append({ allowed, denied });
    attachHorizontal(chart, series, names, countAxis(double(rows.front().total())));
}

} // namespace holdpoint::insightscharts
