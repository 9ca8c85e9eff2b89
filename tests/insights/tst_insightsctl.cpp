// SPDX-License-Identifier: Apache-2.0
// `holdpoint-ctl insights`, a real process over a log the real AuditLog
// wrote: its JSON parsed and checked against the history's known figures,
// its text, and its refusals.

#include "insights/insights.h"
#include "insights/insightshistory.h"

#include <QDateTime>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run ctl(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("HOLDPOINT_TEAM_URL"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
    p.closeWriteChannel();
    p.waitForFinished(30'000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

} // namespace

class TestInsightsCtl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void jsonHoldsTheFigures();
    void theWindowIsTheLastSevenDaysUnlessSaid();
    void textForAPerson();
    void namesAreShownNotObeyed();
    void refusals_data();
    void refusals();

private:
    QTemporaryDir m_dir;
    QString m_data;
    TimeMs m_t0 = 0;
};

void TestInsightsCtl::initTestCase()
{
    m_data = m_dir.filePath(QStringLiteral("data"));
    // The known history a day ago; an older call ten days back.
    m_t0 = (QDateTime::currentMSecsSinceEpoch() - 26 * insights::HourMs) / insights::HourMs
        * insights::HourMs;
    test::History h = test::knownHistory(m_t0);
    h.asked(m_t0 - 10 * 24 * insights::HourMs, "old", "o1", "ancient", "Bash",
        { { "command", "ls" } }, Json::array(), 1'000, "allow");
    QVERIFY(test::writeHistory(m_data + QStringLiteral("/audit"), h.records));
}

void TestInsightsCtl::jsonHoldsTheFigures()
{
    const Run r = ctl({ QStringLiteral("insights"), QStringLiteral("--data-dir"), m_data,
        QStringLiteral("--since"), QString::fromStdString(formatTimestamp(m_t0)),
        QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const Json j = Json::parse(r.out.toStdString());
    QCOMPARE(j["since"], Json(formatTimestamp(m_t0)));
    QCOMPARE(j["totals"]["calls"], Json(12));
    QCOMPARE(j["totals"]["escalations"], Json(5));
    QCOMPARE(j["totals"]["auto_decided"], Json(7));
    QCOMPARE(j["totals"]["decided_by_person"], Json(4));
    QCOMPARE(j["totals"]["timed_out"], Json(1));
    QCOMPARE(j["totals"]["prompts_saved"], Json(4));
    // Hour by hour from the first escalation up to now (a day and more).
    const Json hours = j["escalations_per_hour"];
    QVERIFY(hours.size() >= 26);
    QCOMPARE(hours[0], (Json { { "hour", formatTimestamp(m_t0) }, { "count", 4 } }));
    QCOMPARE(
        hours[1], (Json { { "hour", formatTimestamp(m_t0 + insights::HourMs) }, { "count", 1 } }));
    std::uint64_t sum = 0;
    for (const Json &h : hours)
        sum += h["count"].get<std::uint64_t>();
    QCOMPARE(sum, 5u);
    QCOMPARE(j["escalations_per_agent"],
        (Json::parse(R"([{"agent":"coder","count":3},{"agent":"writer","count":2}])")));
    QCOMPARE(j["time_to_decision"]["decisions"], Json(4));
    QCOMPARE(j["time_to_decision"]["p50_ms"], Json(20'000));
    QCOMPARE(j["time_to_decision"]["p90_ms"], Json(90'000));
    std::vector<int> buckets;
    for (const Json &b : j["time_to_decision"]["buckets"])
        buckets.push_back(b["count"].get<int>());
    QCOMPARE(buckets, (std::vector<int> { 1, 0, 1, 1, 1, 0, 0, 0 }));
    QCOMPARE(j["per_tool"][0]["tool"], Json("Bash"));
    QCOMPARE(j["per_tool"][0]["approved"], Json(1));
    QCOMPARE(j["per_tool"][0]["denied"], Json(1));
    QCOMPARE(j["per_tool"][0]["edited"], Json(1));
    QCOMPARE(j["per_rule"][0]["rule"], Json("rules \u00b7 ask-shell"));
    Json saved = Json::object();
    for (const Json &s : j["prompts_saved"])
        saved[s["rule"].get<std::string>()] = s["total"];
    QCOMPARE(saved,
        (Json { { "rules \u00b7 reads", 1 }, { "rules \u00b7 no-rm", 1 },
            { "always allow Bash(git status:*) for coder", 1 },
            { "standing decision of alice", 1 } }));
}

void TestInsightsCtl::theWindowIsTheLastSevenDaysUnlessSaid()
{
    // The call ten days back is outside the default window, inside "all".
    const Run week = ctl({ QStringLiteral("--data-dir"), m_data, QStringLiteral("insights"),
        QStringLiteral("--json") });
    QVERIFY2(week.exitCode == 0, week.err.constData());
    QCOMPARE(Json::parse(week.out.toStdString())["totals"]["escalations"], Json(5));
    const Run all = ctl({ QStringLiteral("insights"), QStringLiteral("--data-dir"), m_data,
        QStringLiteral("--since"), QStringLiteral("all"), QStringLiteral("--json") });
    QVERIFY2(all.exitCode == 0, all.err.constData());
    const Json j = Json::parse(all.out.toStdString());
    QCOMPARE(j["since"], Json(nullptr));
    QCOMPARE(j["totals"]["escalations"], Json(6));
    QCOMPARE(j["escalations_per_agent"].back(), (Json { { "agent", "ancient" }, { "count", 1 } }));
}

void TestInsightsCtl::textForAPerson()
{
    const Run r = ctl({ QStringLiteral("insights"), QStringLiteral("--data-dir"), m_data });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.contains(QStringLiteral(
                 "5 escalated, 4 decided by a person, 1 timed out; 4 prompts saved")),
        r.out.constData());
    QVERIFY(text.contains(QStringLiteral("Escalations per agent:\n  coder")));
    QVERIFY(text.contains(QStringLiteral("standing decision of alice")));
}

void TestInsightsCtl::namesAreShownNotObeyed()
{
    // An agent's name that would clear the terminal and retitle it, and a
    // tool's with a right-to-left override: printed as escapes.
    QTemporaryDir dir;
    test::History h;
    h.asked(m_t0, "s", "x1", "ag\x1b[2J\x1b]0;owned\x07", "report\u202Efdp.exe", Json::object(),
        Json::array(), 2'000, "allow");
    QVERIFY(test::writeHistory(dir.filePath(QStringLiteral("audit")), h.records));
    const Run r = ctl({ QStringLiteral("insights"), QStringLiteral("--data-dir"), dir.path() });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!r.out.contains('\x1b'));
    QVERIFY(!r.out.contains('\x07'));
    QVERIFY(!r.out.contains("\u202E"));
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.contains(QStringLiteral(
                 "ag\u27e8U+001B\u27e9[2J\u27e8U+001B\u27e9]0;owned\u27e8U+0007\u27e9")),
        r.out.constData());
    QVERIFY(text.contains(QStringLiteral("report\u27e8U+202E\u27e9fdp.exe")));
    // JSON keeps the names as they are, escaped as JSON.
    const Run j = ctl({ QStringLiteral("insights"), QStringLiteral("--data-dir"), dir.path(),
        QStringLiteral("--json") });
    QVERIFY(!j.out.contains('\x1b'));
    QCOMPARE(Json::parse(j.out.toStdString())["escalations_per_agent"][0]["agent"],
        Json("ag\x1b[2J\x1b]0;owned\x07"));
}

void TestInsightsCtl::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString missing = m_dir.filePath(QStringLiteral("nowhere"));
    QTest::newRow("no log") << QStringList { QStringLiteral("insights"),
        QStringLiteral("--data-dir"), missing }
                            << QStringLiteral("holdpoint-ctl insights: no audit log at ") + missing
            + QStringLiteral("/audit\n");
    QTest::newRow("bad since")
        << QStringList { QStringLiteral("insights"), QStringLiteral("--since"),
               QStringLiteral("lately") }
        << QStringLiteral(
               "holdpoint-ctl insights: --since: expected an ISO 8601 time "
               "(2026-11-22T10:00:00Z), an age (30m, 2h, 7d) or \"all\", got \"lately\"\n");
    QTest::newRow("both sources")
        << QStringList { QStringLiteral("insights"), QStringLiteral("--data-dir"), missing,
               QStringLiteral("--team"), QStringLiteral("host=/nonexistent") }
        << QStringLiteral("holdpoint-ctl insights: --data-dir and --team: give one; the team's "
                          "audit holds every instance's records\n");
    QTest::newRow("unknown option") << QStringList {
        QStringLiteral("insights"), QStringLiteral("--sinse"), QStringLiteral("1d")
    } << QStringLiteral("holdpoint-ctl insights: Unknown option 'sinse'.\n");
}

void TestInsightsCtl::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = ctl(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(QString::fromUtf8(r.err), message);
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestInsightsCtl)
#include "tst_insightsctl.moc"
