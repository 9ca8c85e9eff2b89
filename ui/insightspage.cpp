// SPDX-License-Identifier: Apache-2.0
#include "insightspage.h"

#include "engine/consolecore.h"
#include "insights/auditsource.h"
#include "insightscharts.h"
#include "suggestionlist.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace holdpoint {

namespace {

constexpr TimeMs DayMs = 24 * insights::HourMs;

} // namespace

InsightsPage::InsightsPage(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
    , m_since(new QComboBox(this))
    , m_totals(new QLabel(this))
{
    auto *l = new QVBoxLayout(this);
    l->setContentsMargins(6, 6, 6, 6);
    auto *bar = new QHBoxLayout;
    m_since->setObjectName(QStringLiteral("insightsSince"));
    m_since->addItem(tr("Last 24 hours"), QVariant::fromValue(DayMs));
    m_since->addItem(tr("Last 7 days"), QVariant::fromValue(7 * DayMs));
    m_since->addItem(tr("Last 30 days"), QVariant::fromValue(30 * DayMs));
    m_since->addItem(tr("Everything in the log"), QVariant::fromValue(TimeMs(0)));
    m_since->setCurrentIndex(1);
    connect(m_since, &QComboBox::currentIndexChanged, this, &InsightsPage::reload);
    bar->addWidget(m_since);
    m_totals->setObjectName(QStringLiteral("insightsTotals"));
    m_totals->setTextFormat(Qt::PlainText);
    m_totals->setWordWrap(true);
    bar->addWidget(m_totals, 1);
    l->addLayout(bar);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *body = new QWidget(scroll);
    auto *grid = new QGridLayout(body);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    const auto addChart = [&](const QString &name, int row, int column, int columns) {
        auto *chart = new QChart;
        chart->setObjectName(name);
        chart->setMargins(QMargins(4, 4, 4, 4));
        chart->setBackgroundRoundness(0);
        auto *view = new QChartView(chart, body);
        view->setObjectName(name + QStringLiteral("View"));
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumHeight(225);
        grid->addWidget(view, row, column, 1, columns);
        m_charts.insert(name, chart);
    };
    addChart(QStringLiteral("escalationsPerHour"), 0, 0, 1);
    addChart(QStringLiteral("promptsSaved"), 0, 1, 1);
    addChart(QStringLiteral("timeToDecision"), 1, 0, 1);
    addChart(QStringLiteral("escalationsPerAgent"), 1, 1, 1);
    addChart(QStringLiteral("decisionsPerTool"), 2, 0, 1);
    addChart(QStringLiteral("decisionsPerRule"), 2, 1, 1);
    // Issue 46's suggested rules, below the charts.
    m_suggestions = new QGroupBox(tr("Suggested rules"), body);
    m_suggestions->setObjectName(QStringLiteral("suggestedRules"));
    m_suggestionsLayout = new QVBoxLayout(m_suggestions);
    m_suggestionList = new SuggestionList(m_core, m_suggestions);
    m_suggestionsLayout->addWidget(m_suggestionList);
    grid->addWidget(m_suggestions, 3, 0, 1, 2);
    for (int c = 0; c < 2; ++c)
        grid->setColumnStretch(c, 1);
    scroll->setWidget(body);
    l->addWidget(scroll, 1);

    m_redraw.setSingleShot(true);
    m_redraw.setInterval(RedrawDelayMs);
    connect(&m_redraw, &QTimer::timeout, this, &InsightsPage::redraw);
    connect(m_core, &ConsoleCore::activity, this, &InsightsPage::onRecord);
    // An "always" rule is recorded by the console itself, not in the feed:
    // the log is read again for it, when the page is next looked at.
    connect(m_core, &ConsoleCore::policyReloaded, this, [this] {
        ++m_generation; // a reading under way may have missed the rule
        m_loading = false;
        m_loaded = false;
        m_arrived.clear();
        if (isVisible())
            reload();
    });
}

InsightsPage::~InsightsPage()
{
    for (QThread *loader : std::as_const(m_loaders)) {
        loader->wait();
        delete loader;
    }
}

QChart *InsightsPage::chart(const QString &name) const
{
    return m_charts.value(name);
}

TimeMs InsightsPage::sinceBound() const
{
    const TimeMs span = m_since->currentData().value<TimeMs>();
    return span > 0 ? QDateTime::currentMSecsSinceEpoch() - span : 0;
}

void InsightsPage::reload()
{
    const quint64 generation = ++m_generation;
    m_loaded = false;
    m_loading = true;
    m_arrived.clear();
    m_totals->setText(tr("Reading the audit log\u2026"));
    // What the console wrote outside the feed (an "always" rule) must be on
    // disk for the loader to find it: one sync at most, here. The log is
    // only read; the writer appends meanwhile, and what it appends arrives
    // through onRecord as well (the figures count a record seen twice once).
    m_core->flushAudit(2000);
    // The suggestions from the same log, on a thread of their own.
    m_suggestionList->refresh();
    auto read = std::make_shared<insights::Builder>(sinceBound());
    QThread *loader
        = QThread::create([read, dir = m_core->auditDir()] { insights::addAuditDir(dir, *read); });
    connect(loader, &QThread::finished, this, [this, loader, read, generation] {
        m_loaders.removeOne(loader);
        loader->deleteLater();
        if (generation != m_generation)
            return; // a newer reload is under way
        m_builder = std::move(*read);
        for (const Json &record : m_arrived)
            m_builder.add(record);
        m_arrived.clear();
        m_loading = false;
        m_loaded = true;
        redraw();
    });
    m_loaders.append(loader);
    loader->start();
}

void InsightsPage::onRecord(const Json &record)
{
    if (m_loading) {
        m_arrived.push_back(record); // added once the loader is done
        return;
    }
    if (!m_loaded)
        return; // the first look reads the log, this record included
    m_builder.add(record);
    if (!isVisible())
        m_stale = true;
    else if (!m_redraw.isActive())
        m_redraw.start(); // a steady stream still redraws every RedrawDelayMs
}

void InsightsPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_loaded && !m_loading)
        reload();
    else if (m_loaded && m_stale)
        redraw();
}

void InsightsPage::redraw()
{
    m_redraw.stop();
    m_stale = false;
    m_figures = m_builder.figures(QDateTime::currentMSecsSinceEpoch());
    const insights::Figures &f = m_figures;
    m_totals->setText(tr("%1 calls: %2 decided without a person, %3 escalated, %4 decided by a "
                         "person, %5 timed out. "
                         "%6 prompts saved.")
                          .arg(f.calls)
                          .arg(f.autoDecided)
                          .arg(f.escalations)
                          .arg(f.decidedByPerson)
                          .arg(f.timedOut)
                          .arg(f.promptsSaved));
    insightscharts::showPerHour(chart(QStringLiteral("escalationsPerHour")), f);
    insightscharts::showPerAgent(
        chart(QStringLiteral("escalationsPerAgent")), f.escalationsPerAgent);
    insightscharts::showTimeToDecision(chart(QStringLiteral("timeToDecision")), f);
    insightscharts::showOutcomes(
        chart(QStringLiteral("decisionsPerTool")), tr("Decisions per tool"), f.perTool);
    insightscharts::showOutcomes(
        chart(QStringLiteral("decisionsPerRule")), tr("Decisions per rule that asked"), f.perRule);
    insightscharts::showSaved(chart(QStringLiteral("promptsSaved")), f.savedPerRule);
    Q_EMIT redrawn();
}

} // namespace holdpoint
