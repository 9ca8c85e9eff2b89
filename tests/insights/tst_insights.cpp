// SPDX-License-Identifier: Apache-2.0
// The figures of core/insights over a log the real AuditLog wrote, whose
// every record is known (insightshistory.h): counts, the hourly series, the
// histogram and its percentiles, the rates per tool and per rule, and the
// prompts each rule saved, as INSIGHTS.md defines them.

#include "insights/auditsource.h"
#include "insights/insights.h"
#include "insights/insightshistory.h"
#include "insights/realistichistory.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::insights;

namespace {

constexpr TimeMs Min = 60'000;
// A whole hour, well within MaxHours of now.
constexpr TimeMs T0 = 1'795'000'000'000 / HourMs * HourMs;

Json asRecord(const test::HistoryRecord &r)
{
    Json j = r.fields;
    j["event"] = r.event;
    j["ts"] = formatTimestamp(r.at);
    return j;
}

std::vector<std::uint64_t> bucketCounts(const Figures &f)
{
    std::vector<std::uint64_t> out;
    for (const DurationBucket &b : f.timeToDecision)
        out.push_back(b.count);
    return out;
}

} // namespace

class TestInsights : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void timestampsParseAsTheLogWritesThem_data();
    void timestampsParseAsTheLogWritesThem();
    void figuresOfAKnownLog();
    void recordsInAnyOrderGiveTheSameFigures();
    void theWindowLeavesEarlierRecordsOut();
    void teamLinesTellEditsByTheirArguments();
    void jsonAndTextSayTheSame();
    void alwaysRulesAreToldApart();
    void anAcceptedSuggestionIsNamed();
    void aRealisticWeek();
};

void TestInsights::timestampsParseAsTheLogWritesThem_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ms"); // -1: refused
    QTest::newRow("with ms") << "2026-11-22T02:37:02.157Z" << qint64(1'795'315'022'157);
    QTest::newRow("without ms") << "2026-11-22T02:37:02Z" << qint64(1'795'315'022'000);
    QTest::newRow("epoch") << "1970-01-01T00:00:00.000Z" << qint64(0);
    QTest::newRow("leap day") << "2028-02-29T00:00:00Z" << qint64(1'835'395'200'000);
    QTest::newRow("no zone") << "2026-11-22T02:37:02" << qint64(-1);
    QTest::newRow("month 13") << "2026-13-22T02:37:02Z" << qint64(-1);
    QTest::newRow("letters") << "2026-1x-22T02:37:02Z" << qint64(-1);
    QTest::newRow("empty") << "" << qint64(-1);
}

void TestInsights::timestampsParseAsTheLogWritesThem()
{
    QFETCH(QString, text);
    QFETCH(qint64, ms);
    const auto parsed = parseTimestamp(text.toStdString());
    QCOMPARE(parsed.value_or(-1), ms);
    if (parsed)
        QCOMPARE(formatTimestamp(*parsed).substr(0, 19), text.toStdString().substr(0, 19));
}

void TestInsights::figuresOfAKnownLog()
{
    QTemporaryDir dir;
    const QString auditDir = dir.filePath(QStringLiteral("audit"));
    QVERIFY(test::writeHistory(auditDir, test::knownHistory(T0).records));
    Builder b;
    addAuditDir(auditDir, b);
    const Figures f = b.figures(T0 + 3 * HourMs);

    QCOMPARE(f.calls, 12u);
    QCOMPARE(f.escalations, 5u);
    QCOMPARE(f.autoDecided, 7u);
    QCOMPARE(f.decidedByPerson, 4u);
    QCOMPARE(f.timedOut, 1u);

    // c1, c2, w1, w2 in the first hour, c3 in the second, then two quiet ones.
    QCOMPARE(f.firstHour, T0);
    QCOMPARE(f.escalationsPerHour, (std::vector<std::uint64_t> { 4, 1, 0, 0 }));
    QCOMPARE(f.escalationsPerAgent, (Counts { { "coder", 3 }, { "writer", 2 } }));

    // 4 s, 20 s, 45 s and 90 s; the timeout is no one's decision.
    QCOMPARE(f.decisionsTimed, 4u);
    QCOMPARE(bucketCounts(f), (std::vector<std::uint64_t> { 1, 0, 1, 1, 1, 0, 0, 0 }));
    QCOMPARE(f.timeToDecision.front().label, std::string("0\u20135s"));
    QCOMPARE(f.timeToDecision[3].label, std::string("30s\u20131m"));
    QCOMPARE(f.timeToDecision.back().label, std::string("\u226515m"));
    QVERIFY(!f.timeToDecision.back().upToMs);
    QCOMPARE(f.p50Ms.value_or(-1), 20'000);
    QCOMPARE(f.p90Ms.value_or(-1), 90'000);

    QCOMPARE(f.perTool.size(), 2u);
    QCOMPARE(f.perTool[0].first, std::string("Bash"));
    const Outcomes bash = f.perTool[0].second;
    QCOMPARE(bash.approved, 1u);
    QCOMPARE(bash.denied, 1u);
    QCOMPARE(bash.edited, 1u);
    QCOMPARE(bash.total(), 3u);
    QCOMPARE(f.perTool[1].first, std::string("Write"));
    // The guardrail's rewrite approved as proposed is an approval.
    QCOMPARE(f.perTool[1].second.approved, 1u);
    QCOMPARE(f.perTool[1].second.edited, 0u);
    QCOMPARE(f.perTool[1].second.timedOut, 1u);

    QCOMPARE(f.perRule.size(), 3u);
    QCOMPARE(f.perRule[0].first, std::string("rules \u00b7 ask-shell"));
    QCOMPARE(f.perRule[0].second.total(), 3u);
    QCOMPARE(f.perRule[1].first, std::string(DefaultRule));
    QCOMPARE(f.perRule[1].second.timedOut, 1u);
    QCOMPARE(f.perRule[2].first, std::string("protected_paths \u00b7 outside_workspace"));
    QCOMPARE(f.perRule[2].second.approved, 1u);

    // a1 (reads), a2 (no-rm), a4 (the "always" rule), a5 (alice's standing
    // approval). Not a3 (another guardrail allowed it too), a6 (the
    // default's own), nor a7 (the default allowed by then).
    QCOMPARE(f.promptsSaved, 4u);
    QCOMPARE(f.savedPerRule.size(), 4u);
    std::map<std::string, std::tuple<std::string, std::uint64_t, std::uint64_t>> saved;
    for (const SavedPrompts &s : f.savedPerRule)
        saved[s.rule] = { s.kind, s.allowed, s.denied };
    using Row = std::tuple<std::string, std::uint64_t, std::uint64_t>;
    QCOMPARE(saved["rules \u00b7 reads"], (Row { "rule", 1, 0 }));
    QCOMPARE(saved["rules \u00b7 no-rm"], (Row { "rule", 0, 1 }));
    QCOMPARE(saved["always allow Bash(git status:*) for coder"], (Row { "always", 1, 0 }));
    QCOMPARE(saved["standing decision of alice"], (Row { "standing", 1, 0 }));
}

void TestInsights::recordsInAnyOrderGiveTheSameFigures()
{
    // The team's lines: a call's copy may come after its decision.
    const auto records = test::knownHistory(T0).records;
    Builder forward, backward;
    for (const auto &r : records)
        forward.add(asRecord(r));
    for (auto it = records.rbegin(); it != records.rend(); ++it)
        backward.add(asRecord(*it));
    QCOMPARE(dumpJson(toJson(backward.figures(T0 + 3 * HourMs))),
        dumpJson(toJson(forward.figures(T0 + 3 * HourMs))));
    QCOMPARE(forward.figures(T0 + 3 * HourMs).promptsSaved, 4u);
}

void TestInsights::theWindowLeavesEarlierRecordsOut()
{
    Builder b(T0 + 60 * Min);
    for (const auto &r : test::knownHistory(T0).records)
        b.add(asRecord(r));
    const Figures f = b.figures(T0 + 3 * HourMs);
    QCOMPARE(f.escalations, 1u); // c3
    QCOMPARE(f.calls, 3u); // c3, a6, a7
    QCOMPARE(f.firstHour, T0 + HourMs);
    QCOMPARE(f.escalationsPerHour, (std::vector<std::uint64_t> { 1, 0, 0 }));
    QCOMPARE(f.escalationsPerAgent, (Counts { { "coder", 1 } }));
    QCOMPARE(f.perTool.size(), 1u);
    QCOMPARE(f.perTool[0].second.edited, 1u);
    QCOMPARE(f.promptsSaved, 0u);
}

void TestInsights::teamLinesTellEditsByTheirArguments()
{
    // The database's decision lines name the reviewer and never say
    // `edited`: an edit is a modify whose arguments are not the rewrite
    // proposed.
    test::History h;
    const Json trail = Json::array({ test::verdict("rules", "clamp", "ask") });
    for (const std::string id : { "p", "e", "n" }) {
        h.call(T0, "s", id, "deployer", "deploy", { { "replicas", 10 } }, trail, "ask");
        h.escalated(T0, "s", id, "deployer", "deploy", "it-" + id,
            id == "n" ? Json() : Json { { "replicas", 3 } });
    }
    h.decision(T0 + 1000, "s", "p", "", "deploy", "it-p", "modify", "human:bob", "decided", false,
        Json { { "replicas", 3 } });
    h.decision(T0 + 1000, "s", "e", "", "deploy", "it-e", "modify", "human:bob", "decided", false,
        Json { { "replicas", 2 } });
    h.decision(T0 + 1000, "s", "n", "", "deploy", "it-n", "modify", "human:bob", "decided", false,
        Json { { "replicas", 1 } });
    Builder b;
    for (auto r : h.records) {
        if (r.event == "decision") {
            r.fields["reviewer"] = "bob";
            r.fields.erase("agent");
        }
        b.add(asRecord(r));
    }
    const Figures f = b.figures(T0 + HourMs);
    QCOMPARE(f.perTool.size(), 1u);
    QCOMPARE(f.perTool[0].second.approved, 1u); // p: as proposed
    QCOMPARE(f.perTool[0].second.edited, 2u); // e: other arguments; n: nothing was proposed
    QCOMPARE(f.escalationsPerAgent, (Counts { { "deployer", 3 } }));
}

void TestInsights::jsonAndTextSayTheSame()
{
    Builder b;
    for (const auto &r : test::knownHistory(T0).records)
        b.add(asRecord(r));
    const Figures f = b.figures(T0 + 3 * HourMs);
    const Json j = toJson(f);
    QCOMPARE(j["since"], Json(nullptr));
    QCOMPARE(j["until"], Json(formatTimestamp(T0 + 3 * HourMs)));
    QCOMPARE(j["totals"]["escalations"], Json(5));
    QCOMPARE(j["totals"]["prompts_saved"], Json(4));
    QCOMPARE(j["escalations_per_hour"].size(), 4u);
    QCOMPARE(
        j["escalations_per_hour"][0], (Json { { "hour", formatTimestamp(T0) }, { "count", 4 } }));
    QCOMPARE(j["escalations_per_agent"][0], (Json { { "agent", "coder" }, { "count", 3 } }));
    QCOMPARE(j["time_to_decision"]["p50_ms"], Json(20'000));
    QCOMPARE(j["time_to_decision"]["buckets"][0]["up_to_ms"], Json(5'000));
    QCOMPARE(j["time_to_decision"]["buckets"][7]["up_to_ms"], Json(nullptr));
    const Json bash = j["per_tool"][0];
    QCOMPARE(bash["tool"], Json("Bash"));
    QCOMPARE(bash["escalations"], Json(3));
    QCOMPARE(bash["edited"], Json(1));
    QCOMPARE(bash["approve_rate"].get<double>(), 1.0 / 3);
    QCOMPARE(j["per_rule"][0]["rule"], Json("rules \u00b7 ask-shell"));
    QCOMPARE(j["prompts_saved"].size(), 4u);

    const QString text = QString::fromStdString(toText(f));
    QVERIFY2(text.contains(QStringLiteral(
                 "12 calls, 7 decided without a person, 5 escalated, 4 decided by a person, "
                 "1 timed out; 4 prompts saved")),
        qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("p50 20.0 s, p90 1.5 min")));
    QVERIFY(text.contains(QStringLiteral("always allow Bash(git status:*) for coder")));
}

void TestInsights::alwaysRulesAreToldApart()
{
    // Two "always" rules share the code always_allowed; each call is
    // credited to the rule that matched it, the newest first, and a call
    // before a rule existed is not credited to it.
    test::History h;
    const Json make = { { "when", { { "tool", "Bash" } } }, { "match", "Bash(make:*)" },
        { "action", "allow" }, { "code", "always_allowed" } };
    const Json read = {
        { "when",
            { { "tool", "Read" },
                { "args",
                    { { "file_path", { { "glob", "/src/**" }, { "path_under", "/src" } } } } } } },
        { "action", "allow" }, { "code", "always_allowed" }
    };
    h.ruleAdded(T0, make);
    h.ruleAdded(T0 + 10 * Min, read);
    const Json byConsole = Json::array({ test::verdict("console", "always_allowed", "allow", 0) });
    h.decided(T0 + 1 * Min, "s", "m1", "coder", "Bash", { { "command", "make test" } }, byConsole,
        "allow", "guardrail:console");
    h.decided(T0 + 2 * Min, "s", "r0", "coder", "Read", { { "file_path", "/src/a.cpp" } },
        byConsole, "allow", "guardrail:console");
    h.decided(T0 + 11 * Min, "s", "r1", "coder", "Read", { { "file_path", "/src/b.cpp" } },
        byConsole, "allow", "guardrail:console");
    h.decided(T0 + 12 * Min, "s", "m2", "coder", "Bash", { { "command", "make" } }, byConsole,
        "allow", "guardrail:console");
    Builder b(T0 + 1);
    for (const auto &r : h.records)
        b.add(asRecord(r));
    std::map<std::string, std::uint64_t> saved;
    for (const SavedPrompts &s : b.figures(T0 + HourMs).savedPerRule)
        saved[s.rule] = s.allowed;
    QCOMPARE(saved,
        (std::map<std::string, std::uint64_t> { { "always allow Bash(make:*)", 2 },
            { "always allow Read (file_path under /src)", 1 },
            { "console \u00b7 always_allowed", 1 } }));
}

void TestInsights::anAcceptedSuggestionIsNamed()
{
    // A rule accepted from the Insights view's suggestions (code
    // "suggested") is credited by its words, as an "always" rule is, and
    // told apart from one.
    test::History h;
    const Json suggested = { { "when", { { "tool", "Bash" } } }, { "match", "Bash(npm test:*)" },
        { "action", "allow" }, { "code", "suggested" } };
    h.ruleAdded(T0, suggested);
    const Json byConsole = Json::array({ test::verdict("console", "suggested", "allow", 0) });
    h.decided(T0 + 1 * Min, "s", "n1", "coder", "Bash", { { "command", "npm test" } }, byConsole,
        "allow", "guardrail:console");
    h.decided(T0 + 2 * Min, "s", "n2", "writer", "Bash", { { "command", "npm test -- -u" } },
        byConsole, "allow", "guardrail:console");
    Builder b(T0 + 1);
    for (const auto &r : h.records)
        b.add(asRecord(r));
    const std::vector<SavedPrompts> saved = b.figures(T0 + HourMs).savedPerRule;
    QCOMPARE(saved.size(), std::size_t(1));
    QCOMPARE(saved[0].rule, std::string("suggested allow Bash(npm test:*)"));
    QCOMPARE(saved[0].kind, std::string("always"));
    QCOMPARE(saved[0].allowed, std::uint64_t(2));
}

void TestInsights::aRealisticWeek()
{
    // The week the screenshot shows (HOLDPOINT_INSIGHTS_HISTORY_DIR keeps
    // its data directory for the console to open).
    QTemporaryDir dir;
    const QString data = qEnvironmentVariable("HOLDPOINT_INSIGHTS_HISTORY_DIR", dir.path());
    const TimeMs end = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(
        test::writeHistory(data + QStringLiteral("/audit"), test::realisticHistory(end).records));
    Builder b(end - 7 * 24 * HourMs);
    QElapsedTimer timer;
    timer.start();
    const std::uint64_t read = addAuditDir(data + QStringLiteral("/audit"), b);
    const Figures f = b.figures(end);
    qInfo("%llu records read, figures in %lld ms", static_cast<unsigned long long>(read),
        static_cast<long long>(timer.elapsed()));
    QVERIFY2(f.calls > 2000, std::to_string(f.calls).c_str());
    // One bar an hour from the first escalation in the window (the week's
    // first hour, or the next when the minutes of it left before `end - 7
    // days` held none) to the hour of `end`.
    const TimeMs lastHour = end / HourMs * HourMs;
    const TimeMs weekStart = (end - 7 * 24 * HourMs) / HourMs * HourMs;
    QVERIFY(f.firstHour == weekStart || f.firstHour == weekStart + HourMs);
    QCOMPARE(f.escalationsPerHour.size(), std::size_t((lastHour - f.firstHour) / HourMs + 1));
    QCOMPARE(f.escalationsPerAgent.size(), 4u);
    QVERIFY(f.promptsSaved > f.escalations);
    std::map<std::string, SavedPrompts> saved;
    for (const SavedPrompts &s : f.savedPerRule)
        saved[s.rule] = s;
    QVERIFY(saved["coding \u00b7 read"].allowed > 0);
    QVERIFY(saved["coding \u00b7 rm_rf"].denied > 0);
    QVERIFY(saved["always allow Bash(npm run lint:*) for claude-code"].allowed > 0);
    QVERIFY(saved["always allow Edit (file_path under /home/alice/app/src) for claude-code"].allowed
        > 0);
    // Every always-rule call was credited to its rule, none left unnamed.
    QVERIFY(!saved.count("console \u00b7 always_allowed"));
    QVERIFY(saved["standing decision of alice"].allowed + saved["standing decision of bob"].allowed
        > 0);
    QVERIFY(f.p50Ms && f.p90Ms && *f.p50Ms < *f.p90Ms);
}

QTEST_GUILESS_MAIN(TestInsights)
#include "tst_insights.moc"
