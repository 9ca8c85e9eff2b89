// SPDX-License-Identifier: Apache-2.0
// The Insights view in a real window over a real console: opened with
// Ctrl+6, its charts hold the figures of a known log the real AuditLog
// wrote (insightshistory.h), and a call an agent sends, and a person
// decides, reaches them without a reload.

#include "common/testsocket.h"
#include "engine/consolecore.h"
#include "insights/insightshistory.h"
#include "insightspage.h"
#include "mainwindow.h"
#include "suggestionlist.h"

#include <QAbstractBarSeries>
#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QDateTime>
#include <QGroupBox>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

using namespace holdpoint;

namespace {

QAbstractBarSeries *bars(QChart *chart)
{
    return chart && chart->series().size() == 1
        ? qobject_cast<QAbstractBarSeries *>(chart->series().first())
        : nullptr;
}

QStringList categories(QChart *chart)
{
    for (QAbstractAxis *axis : chart->axes())
        if (auto *c = qobject_cast<QBarCategoryAxis *>(axis))
            return c->categories();
    return {};
}

QList<qreal> values(QBarSet *set)
{
    QList<qreal> out;
    for (int i = 0; i < set->count(); ++i)
        out << set->at(i);
    return out;
}

// A bar set of `series` by its legend name.
QBarSet *setNamed(QAbstractBarSeries *series, const QString &name)
{
    for (QBarSet *s : series->barSets())
        if (s->label() == name)
            return s;
    return nullptr;
}

} // namespace

class TestInsightsPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void chartsShowTheLogsFigures();
    void aNewCallAndItsDecisionAreDrawn();
    void namesAreShownNotObeyed();
    void closingWhileTheLogIsReadWaitsForTheReader();
    void anAlwaysRuleAddedIsNamedInPromptsSaved();

private:
    InsightsPage *openPage();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleCore> m_core;
    std::unique_ptr<MainWindow> m_window;
    TimeMs m_t0 = 0;
};

void TestInsightsPage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    const QString data = m_dir->filePath(QStringLiteral("data"));
    m_t0 = (QDateTime::currentMSecsSinceEpoch() - 26 * insights::HourMs) / insights::HourMs
        * insights::HourMs;
    QVERIFY(test::writeHistory(data + QStringLiteral("/audit"), test::knownHistory(m_t0).records));
    ConsoleOptions o;
    o.dataDir = data;
    o.broker.reviewerName = "alice";
    m_core = std::make_unique<ConsoleCore>(o);
    QString error;
    QVERIFY2(m_core->start(&error), qPrintable(error));
    m_window = std::make_unique<MainWindow>(m_core.get());
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestInsightsPage::cleanup()
{
    m_window.reset();
    m_core.reset();
    m_dir.reset();
}

InsightsPage *TestInsightsPage::openPage()
{
    auto *tabs = m_window->findChild<QTabWidget *>(QStringLiteral("tabs"));
    auto *page = m_window->findChild<InsightsPage *>();
    if (!tabs || !page)
        return nullptr;
    QTest::keyClick(m_window.get(), Qt::Key_6, Qt::ControlModifier);
    return tabs->currentWidget() == page ? page : nullptr;
}

void TestInsightsPage::chartsShowTheLogsFigures()
{
    InsightsPage *page = openPage();
    QVERIFY(page);
    // The log is read on a thread of its own, then drawn.
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 5u, 10'000);

    // Escalations per hour: a point per hour from the first escalation to now.
    QChart *perHour = page->chart(QStringLiteral("escalationsPerHour"));
    QCOMPARE(perHour->series().size(), 1);
    auto *area = qobject_cast<QAreaSeries *>(perHour->series().first());
    QVERIFY(area);
    const QList<QPointF> points = area->upperSeries()->points();
    QCOMPARE(qsizetype(points.size()), qsizetype(page->figures().escalationsPerHour.size()));
    QVERIFY(points.size() >= 26);
    QCOMPARE(points[0], QPointF(double(m_t0), 4));
    QCOMPARE(points[1], QPointF(double(m_t0 + insights::HourMs), 1));
    qreal sum = 0;
    for (const QPointF &p : points)
        sum += p.y();
    QCOMPARE(sum, 5.0);
    QCOMPARE(perHour->title(), QStringLiteral("Escalations per hour (5 in all)"));

    // Per agent: the busiest on top (listed last).
    QChart *perAgent = page->chart(QStringLiteral("escalationsPerAgent"));
    QVERIFY(bars(perAgent));
    QCOMPARE(
        categories(perAgent), (QStringList { QStringLiteral("writer"), QStringLiteral("coder") }));
    QCOMPARE(values(bars(perAgent)->barSets().first()), (QList<qreal> { 2, 3 }));

    QChart *time = page->chart(QStringLiteral("timeToDecision"));
    QVERIFY(bars(time));
    QCOMPARE(values(bars(time)->barSets().first()), (QList<qreal> { 1, 0, 1, 1, 1, 0, 0, 0 }));
    QCOMPARE(categories(time),
        (QStringList { QStringLiteral("0\u20135s"), QStringLiteral("5s\u201315s"),
            QStringLiteral("15s\u201330s"), QStringLiteral("30s\u20131m"),
            QStringLiteral("1m\u20132m"), QStringLiteral("2m\u20135m"),
            QStringLiteral("5m\u201315m"), QStringLiteral("\u226515m") }));
    QCOMPARE(
        time->title(), QStringLiteral("Time to decision: p50 20.0 s, p90 1.5 min (4 decisions)"));

    QChart *perTool = page->chart(QStringLiteral("decisionsPerTool"));
    QAbstractBarSeries *tools = bars(perTool);
    QVERIFY(tools);
    QCOMPARE(categories(perTool),
        (QStringList { QStringLiteral("Write (2)"), QStringLiteral("Bash (3)") }));
    QCOMPARE(values(setNamed(tools, QStringLiteral("Approved"))), (QList<qreal> { 1, 1 }));
    QCOMPARE(values(setNamed(tools, QStringLiteral("Edited"))), (QList<qreal> { 0, 1 }));
    QCOMPARE(values(setNamed(tools, QStringLiteral("Denied"))), (QList<qreal> { 0, 1 }));
    QCOMPARE(values(setNamed(tools, QStringLiteral("Timed out"))), (QList<qreal> { 1, 0 }));

    QChart *perRule = page->chart(QStringLiteral("decisionsPerRule"));
    QVERIFY(bars(perRule));
    QCOMPARE(categories(perRule).last(), QStringLiteral("rules \u00b7 ask-shell (3)"));

    QChart *saved = page->chart(QStringLiteral("promptsSaved"));
    QAbstractBarSeries *rules = bars(saved);
    QVERIFY(rules);
    QCOMPARE(saved->title(), QStringLiteral("Prompts saved per rule (4 in all)"));
    const QStringList names = categories(saved);
    QCOMPARE(names.size(), 4);
    // Cut short for the axis (the figures keep the whole name).
    QVERIFY(names.contains(QStringLiteral("always allow Bash(git stat\u2026")));
    const int denyRow = int(names.indexOf(QStringLiteral("rules \u00b7 no-rm")));
    QVERIFY(denyRow >= 0);
    QCOMPARE(setNamed(rules, QStringLiteral("Denied or halted"))->at(denyRow), 1.0);
    QCOMPARE(setNamed(rules, QStringLiteral("Allowed"))->sum(), 3.0);

    // The suggested rules below the charts (tst_insightssuggest has their content).
    QGroupBox *suggestions = page->suggestionsBox();
    QCOMPARE(suggestions->title(), QStringLiteral("Suggested rules"));
    QCOMPARE(suggestions->objectName(), QStringLiteral("suggestedRules"));
    QCOMPARE(page->suggestionsLayout()->count(), 1);
    QCOMPARE(page->suggestionsLayout()->itemAt(0)->widget(), page->suggestionList());
    QVERIFY(suggestions->isVisible());
}

void TestInsightsPage::aNewCallAndItsDecisionAreDrawn()
{
    InsightsPage *page = openPage();
    QVERIFY(page);
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 5u, 10'000);
    QSignalSpy redrawn(page, &InsightsPage::redrawn);
    test::TestSocket agent;
    QVERIFY(agent
                .hello(QUrl(m_core->url()), m_core->agentToken().toStdString(), "agent",
                    std::nullopt, "live-agent")
                .is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "n1" }, { "tool_name", "deploy" },
        { "args", { { "to", "staging" } } } });
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 6u, 10'000);
    QChart *perAgent = page->chart(QStringLiteral("escalationsPerAgent"));
    QVERIFY(categories(perAgent).contains(QStringLiteral("live-agent")));
    const int redraws = int(redrawn.count());

    QCOMPARE(m_core->queue()->size(), 1);
    protocol::Review approve;
    approve.id = m_core->queue()->at(0).id;
    m_core->review(approve);
    QVERIFY(agent.next("decision").is_object());
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().decisionsTimed, 5u, 10'000);
    QVERIFY(redrawn.count() > redraws);
    QVERIFY(categories(page->chart(QStringLiteral("decisionsPerTool")))
                .contains(QStringLiteral("deploy (1)")));
    QCOMPARE(values(bars(page->chart(QStringLiteral("timeToDecision")))->barSets().first()).first(),
        2.0);
}

void TestInsightsPage::namesAreShownNotObeyed()
{
    // An agent names itself, and its tool, in Qt's rich text and with a
    // right-to-left override: the charts show the characters, never obey them.
    InsightsPage *page = openPage();
    QVERIFY(page);
    test::TestSocket agent;
    const std::string name = "<b>x</b>\u202Ey";
    QVERIFY(agent
                .hello(QUrl(m_core->url()), m_core->agentToken().toStdString(), "agent",
                    std::nullopt, name)
                .is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "h1" },
        { "tool_name", "<font color=white>rm</font>" }, { "args", Json::object() } });
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 6u, 10'000);
    QVERIFY(categories(page->chart(QStringLiteral("escalationsPerAgent")))
                .contains(QStringLiteral("&lt;b&gt;x&lt;/b&gt;\u27e8U+202E\u27e9y")));
    protocol::Review deny;
    deny.id = m_core->queue()->at(0).id;
    deny.action = protocol::ReviewAction::Deny;
    deny.reason = "no";
    m_core->review(deny);
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().decisionsTimed, 5u, 10'000);
    QVERIFY(categories(page->chart(QStringLiteral("decisionsPerTool")))
                .contains(QStringLiteral("&lt;font color=white&gt;rm&lt;/font\u2026 (1)")));
}

void TestInsightsPage::closingWhileTheLogIsReadWaitsForTheReader()
{
    // Reloads that a newer one supersedes draw nothing; the window then
    // goes while a loader is reading, and waits for it (a loader left
    // running on a page that is gone is what the sanitizer build would see).
    auto *page = m_window->findChild<InsightsPage *>();
    QVERIFY(page);
    QSignalSpy redrawn(page, &InsightsPage::redrawn);
    QCOMPARE(openPage(), page);
    page->reload();
    page->reload();
    QTRY_COMPARE_WITH_TIMEOUT(redrawn.count(), 1, 10'000);
    QCOMPARE(page->figures().escalations, 5u);
    page->reload();
    m_window.reset();
}

void TestInsightsPage::anAlwaysRuleAddedIsNamedInPromptsSaved()
{
    // The console records the rule itself, outside the feed: the view reads
    // the log again and credits the calls the rule decides to it by name.
    InsightsPage *page = openPage();
    QVERIFY(page);
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 5u, 10'000);
    // The known log ends with the default allowing; a call the default
    // sends to a person shows it asks now.
    test::TestSocket agent;
    QVERIFY(agent.hello(QUrl(m_core->url()), m_core->agentToken().toStdString()).is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "p1" }, { "tool_name", "lint" },
        { "args", Json::object() } });
    QTRY_COMPARE_WITH_TIMEOUT(page->figures().escalations, 6u, 10'000);
    QString error;
    QVERIFY2(m_core->addAlwaysRule(
                 { { "when", { { "tool", "deploy" } } }, { "action", "allow" },
                     { "code", "always_allowed" }, { "reason", "always allowed by a reviewer" },
                     { "comment", "added by alice" } },
                 &error),
        qPrintable(error));
    agent.send({ { "type", "tool_call" }, { "call_id", "r1" }, { "tool_name", "deploy" },
        { "args", Json::object() } });
    QCOMPARE(agent.next("decision").value("decision", std::string()), std::string("allow"));
    const auto savedByTheRule = [&] {
        for (const insights::SavedPrompts &s : page->figures().savedPerRule)
            if (s.rule == "always allow deploy")
                return s.allowed;
        return std::uint64_t(0);
    };
    QTRY_COMPARE_WITH_TIMEOUT(savedByTheRule(), 1u, 10'000);
    QVERIFY(categories(page->chart(QStringLiteral("promptsSaved")))
                .contains(QStringLiteral("always allow deploy")));
}

QTEST_MAIN(TestInsightsPage)
#include "tst_insightspage.moc"
