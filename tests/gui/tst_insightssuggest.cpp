// SPDX-License-Identifier: Apache-2.0
// The Insights view's suggested rules (issue 46 §2) in a real window over a
// real console: a log the real AuditLog wrote, where a person approved
// `npm test` five times over two days from two agents, and `npm publish`
// three times but denied it once. The view suggests the first and nothing
// over the second; accepting it (its confirmation answered by clicking, as
// a person would) writes the user policy file, the console's own audit log
// records it with what the suggestion promised, the policy in force allows
// the next such call, and the list no longer offers it.

#include "audit/auditfile.h"
#include "common/testsocket.h"
#include "common/tracelog.h"
#include "engine/consolecore.h"
#include "insightspage.h"
#include "mainwindow.h"
#include "suggestionlist.h"

#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

namespace {

constexpr int WaitMs = 10'000;

Json traceCall(TimeMs at, int n, const std::string &agent, const std::string &command,
    const std::string &person)
{
    return Json { { "ts", formatTimestamp(at) }, { "session", "s-" + agent }, { "agent", agent },
        { "turn", "t1" }, { "call_id", "c" + std::to_string(n) }, { "tool", "Bash" },
        { "args", { { "command", command } } }, { "person", person }, { "ok", true } };
}

} // namespace

class TestInsightsSuggest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void listsWhatThePersonAlwaysApprovedAndNothingOverADenial();
    void acceptingWritesTheRuleAuditsItAndPutsItInForce();
    void cancellingAddsNothingAndDismissingHidesIt();
    void namesAreShownNotObeyed();
    void theMostSavingAreListedFirst();

private:
    SuggestionList *openList();
    QPushButton *rowButton(const char *name) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleCore> m_core;
    std::unique_ptr<MainWindow> m_window;
    InsightsPage *m_page = nullptr;
    QString m_data;
};

void TestInsightsSuggest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_data = m_dir->filePath(QStringLiteral("data"));
    const TimeMs day = 86'400'000;
    const TimeMs t0 = QDateTime::currentMSecsSinceEpoch() - 3 * day;
    std::vector<Json> trace;
    int n = 0;
    for (int i = 0; i < 5; ++i)
        trace.push_back(traceCall(t0 + (i % 2) * day + i * 60'000, n++, i % 2 ? "writer" : "coder",
            i == 3 ? "npm test -- --watch=false" : "npm test", "approve"));
    for (int i = 0; i < 4; ++i)
        trace.push_back(traceCall(
            t0 + 2 * day + i * 60'000, n++, "coder", "npm publish", i == 2 ? "deny" : "approve"));
    if (QTest::currentTestFunction() == std::string_view("namesAreShownNotObeyed")) {
        // An agent that names itself and its tool in Qt's rich text, approved
        // often enough for a rule.
        for (int i = 0; i < 4; ++i) {
            Json c = traceCall(t0 + 2 * day + (10 + i) * 60'000, n++, "<i>evil</i>", "", "approve");
            c["tool"] = "<font color=white>deploy</font>";
            c["args"] = Json { { "target", "<b>staging</b>" } };
            trace.push_back(c);
        }
    }
    if (QTest::currentTestFunction() == std::string_view("theMostSavingAreListedFirst")) {
        // Fourteen more rules' worth: `make tN`, approved 3 times each (t13: 4).
        for (int k = 0; k < 14; ++k)
            for (int i = 0; i < (k == 13 ? 4 : 3); ++i, ++n)
                trace.push_back(traceCall(t0 + day + (100 + n) * 1000, n, "coder",
                    "make t" + std::to_string(k), "approve"));
    }
    {
        // As the console running the built-in default would have written it.
        QString error;
        const auto source = replay::PolicySource::load({}, &error);
        QVERIFY2(source, qPrintable(error));
        const auto policy = source->build({}, &error);
        QVERIFY2(policy, qPrintable(error));
        SystemClock clock;
        AuditConfig config;
        config.dir = m_data + QStringLiteral("/audit");
        AuditLog log(config, &clock);
        log.open();
        testing::recordTrace(trace, *policy, log);
        QVERIFY(log.waitDurable(WaitMs));
    }
    ConsoleOptions o;
    o.dataDir = m_data;
    o.broker.reviewerName = "alice";
    m_core = std::make_unique<ConsoleCore>(o);
    QString error;
    QVERIFY2(m_core->start(&error), qPrintable(error));
    m_window = std::make_unique<MainWindow>(m_core.get());
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestInsightsSuggest::cleanup()
{
    m_window.reset();
    m_core.reset();
    m_dir.reset();
}

SuggestionList *TestInsightsSuggest::openList()
{
    auto *tabs = m_window->findChild<QTabWidget *>(QStringLiteral("tabs"));
    m_page = m_window->findChild<InsightsPage *>();
    if (!tabs || !m_page)
        return nullptr;
    SuggestionList *list = m_page->suggestionList();
    QSignalSpy refreshed(list, &SuggestionList::refreshed);
    QTest::keyClick(m_window.get(), Qt::Key_6, Qt::ControlModifier);
    if (tabs->currentWidget() != m_page)
        return nullptr;
    // Computed on a thread of its own, then shown.
    return refreshed.wait(WaitMs) || !refreshed.isEmpty() ? list : nullptr;
}

QPushButton *TestInsightsSuggest::rowButton(const char *name) const
{
    auto *row = m_page->suggestionList()->findChild<QWidget *>(QStringLiteral("suggestion"));
    return row ? row->findChild<QPushButton *>(QLatin1String(name)) : nullptr;
}

void TestInsightsSuggest::listsWhatThePersonAlwaysApprovedAndNothingOverADenial()
{
    SuggestionList *list = openList();
    QVERIFY(list);
    QVERIFY(m_page->suggestionsBox()->isVisible());
    QCOMPARE(list->shown().size(), std::size_t(1));
    const replay::Suggestion &s = list->shown()[0];
    QCOMPARE(s.rule.value("match", std::string()), std::string("Bash(npm test:*)"));
    QCOMPARE(s.rule.value("action", std::string()), std::string("allow"));
    QCOMPARE(s.saved, std::size_t(5));
    QCOMPARE(s.days, std::size_t(2));
    QCOMPARE(s.agents, std::size_t(2));
    // Nothing over the call the person denied, however often they approved it.
    QVERIFY(s.rule.dump().find("publish") == std::string::npos);

    auto *what = list->findChild<QLabel *>(QStringLiteral("suggestionRule"));
    QVERIFY(what);
    QCOMPARE(what->text(), QString::fromStdString(s.description));
    QCOMPARE(list->findChild<QLabel *>(QStringLiteral("suggestionSaved"))->text(),
        QStringLiteral("Would have saved 5 prompts over 2 days, from 2 agents."));
    QVERIFY(list->findChild<QLabel *>(QStringLiteral("suggestionProof"))
                ->text()
                .contains(QStringLiteral("no denied, edited or halted call matches")));
    QVERIFY(rowButton("acceptSuggestion"));
    QVERIFY(rowButton("dismissSuggestion"));
}

void TestInsightsSuggest::acceptingWritesTheRuleAuditsItAndPutsItInForce()
{
    SuggestionList *list = openList();
    QVERIFY(list);
    QCOMPARE(list->shown().size(), std::size_t(1));
    const replay::Suggestion s = list->shown()[0];
    const QString userFile = m_data + QStringLiteral("/policy.json");
    QCOMPARE(m_core->userPolicyFile(), userFile);
    QVERIFY(!QFileInfo::exists(userFile));

    QTest::mouseClick(rowButton("acceptSuggestion"), Qt::LeftButton);
    QDialog *confirm = list->confirmation();
    QVERIFY(confirm);
    QTRY_VERIFY(confirm->isVisible());
    // The confirmation shows the rule itself, and where it goes.
    auto *json = confirm->findChild<QPlainTextEdit *>(QStringLiteral("confirmRuleJson"));
    QVERIFY(json);
    QCOMPARE(Json::parse(json->toPlainText().toStdString()), s.rule);
    auto *box = confirm->findChild<QDialogButtonBox *>();
    QVERIFY(box);
    // Enter alone does not add it: the default button is Cancel.
    QVERIFY(box->button(QDialogButtonBox::Cancel)->isDefault());
    QSignalSpy reloaded(m_core.get(), &ConsoleCore::policyReloaded);
    QSignalSpy refreshed(list, &SuggestionList::refreshed);
    QSignalSpy done(list, &SuggestionList::acceptFinished);
    QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.at(0).at(0).toBool(), true);

    // The rule is in the user policy file, and that file in force.
    QVERIFY(QFileInfo::exists(userFile));
    QFile f(userFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json written = Json::parse(f.readAll().toStdString());
    QVERIFY(written.dump().find("Bash(npm test:*)") != std::string::npos);
    QCOMPARE(reloaded.count(), 1);
    QVERIFY(m_core->policyFiles().contains(userFile));

    // The console's own log recorded it, with what the suggestion promised.
    QVERIFY(m_core->flushAudit(WaitMs));
    std::vector<Json> added;
    audit::Filter filter;
    filter.event = "policy_rule_added";
    audit::query(m_core->auditDir(), filter, 0, [&](std::string_view, const Json &r) {
        added.push_back(r);
        return true;
    });
    QCOMPARE(added.size(), std::size_t(1));
    QCOMPARE(added[0]["rule"], s.rule);
    QCOMPARE(added[0]["file"], Json(userFile.toStdString()));
    QCOMPARE(added[0]["suggested"], (Json { { "saved", 5 }, { "days", 2 }, { "agents", 2 } }));

    // Gone from the list at once, and not suggested again once recomputed
    // with the rule in force.
    QVERIFY(list->shown().empty());
    QVERIFY(!list->findChild<QWidget *>(QStringLiteral("suggestion"))
        || !list->findChild<QWidget *>(QStringLiteral("suggestion"))->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), WaitMs);
    QVERIFY(list->shown().empty());

    // The next such call runs without a person, and "prompts saved" credits the rule.
    test::TestSocket agent;
    QVERIFY(agent.hello(QUrl(m_core->url()), m_core->agentToken().toStdString()).is_object());
    agent.send({ { "type", "tool_call" }, { "call_id", "n1" }, { "tool_name", "Bash" },
        { "args", { { "command", "npm test" } } } });
    QCOMPARE(agent.next("decision").value("decision", std::string()), std::string("allow"));
    const auto savedByTheRule = [&] {
        std::uint64_t allowed = 0;
        for (const insights::SavedPrompts &p : m_page->figures().savedPerRule)
            if (p.rule == "suggested allow Bash(npm test:*)" && p.kind == "always")
                allowed += p.allowed;
        return allowed;
    };
    QTRY_COMPARE_WITH_TIMEOUT(savedByTheRule(), std::uint64_t(1), WaitMs);
}

void TestInsightsSuggest::cancellingAddsNothingAndDismissingHidesIt()
{
    SuggestionList *list = openList();
    QVERIFY(list);
    QCOMPARE(list->shown().size(), std::size_t(1));
    const QString userFile = m_data + QStringLiteral("/policy.json");

    QTest::mouseClick(rowButton("acceptSuggestion"), Qt::LeftButton);
    QPointer<QDialog> confirm = list->confirmation();
    QVERIFY(confirm);
    QTRY_VERIFY(confirm->isVisible());
    // Enter answers the default button: Cancel.
    QTest::keyClick(confirm, Qt::Key_Return);
    QTRY_VERIFY(!confirm);
    QVERIFY(!QFileInfo::exists(userFile));
    QCOMPARE(list->shown().size(), std::size_t(1));

    QTest::mouseClick(rowButton("dismissSuggestion"), Qt::LeftButton);
    QVERIFY(list->shown().empty());
    QCOMPARE(list->findChild<QLabel *>(QStringLiteral("suggestionsStatus"))->text(),
        QStringLiteral("No other suggestions."));
    // Dismissed stays dismissed when the list is computed again.
    QSignalSpy refreshed(list, &SuggestionList::refreshed);
    m_page->reload();
    QVERIFY(refreshed.wait(WaitMs));
    QVERIFY(list->shown().empty());
    QVERIFY(!QFileInfo::exists(userFile));
}

void TestInsightsSuggest::namesAreShownNotObeyed()
{
    // What an agent chose (its name, its tool's, the arguments) reaches the
    // suggestion's words and the confirmation as characters, never as markup.
    SuggestionList *list = openList();
    QVERIFY(list);
    const replay::Suggestion *ours = nullptr;
    for (const replay::Suggestion &s : list->shown())
        if (s.rule.dump().find("deploy") != std::string::npos)
            ours = &s;
    QVERIFY(ours);
    const QString words = QString::fromStdString(ours->description);
    QVERIFY(words.contains(QStringLiteral("<font color=white>deploy</font>")));
    bool shown = false;
    for (QLabel *label : list->findChildren<QLabel *>(QStringLiteral("suggestionRule"))) {
        if (label->text() != words)
            continue;
        shown = true;
        QCOMPARE(label->textFormat(), Qt::PlainText);
        auto *accept
            = label->parentWidget()->findChild<QPushButton *>(QStringLiteral("acceptSuggestion"));
        QVERIFY(accept);
        QTest::mouseClick(accept, Qt::LeftButton);
    }
    QVERIFY(shown);
    QDialog *confirm = list->confirmation();
    QVERIFY(confirm);
    auto *what = confirm->findChild<QLabel *>(QStringLiteral("confirmRule"));
    QVERIFY(what);
    QCOMPARE(what->text(), words);
    QCOMPARE(what->textFormat(), Qt::PlainText);
    confirm->reject();
}

void TestInsightsSuggest::theMostSavingAreListedFirst()
{
    // Fifteen suggestions: the twelve that save the most are listed, most
    // first, and a dismissal makes room for the next.
    SuggestionList *list = openList();
    QVERIFY(list);
    QCOMPARE(list->shown().size(), SuggestionList::MaxShown);
    QCOMPARE(list->shown()[0].saved, std::size_t(5)); // npm test
    QCOMPARE(list->shown()[1].saved, std::size_t(4)); // make t13
    auto *status = list->findChild<QLabel *>(QStringLiteral("suggestionsStatus"));
    QVERIFY(status->text().contains(QStringLiteral("The 12 that save the most of 15 are listed")));
    const Json first = list->shown()[0].rule;
    QTest::mouseClick(rowButton("dismissSuggestion"), Qt::LeftButton);
    QCOMPARE(list->shown().size(), SuggestionList::MaxShown);
    QVERIFY(list->shown()[0].rule != first);
    QVERIFY(status->text().contains(QStringLiteral("The 12 that save the most of 14 are listed")));
}

QTEST_MAIN(TestInsightsSuggest)
#include "tst_insightssuggest.moc"
