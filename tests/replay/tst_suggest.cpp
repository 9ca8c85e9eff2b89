// SPDX-License-Identifier: Apache-2.0
// `policy suggest` (core/replay/REPLAY.md "Suggestions"): the narrowest
// rules a person's own approvals support, never one over a call that was
// denied, edited, halted, destructive or secret; and, on the benchmark
// trace, what accepting them all does.

#include "common/tracelog.h"
#include "replay/alwaysrule.h"
#include "replay/suggest.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace holdpoint;
using namespace holdpoint::replay;

namespace {

constexpr char AskAll[] = R"J({"version": 1, "default": "ask", "guardrails": []})J";

Json call(int day, int at, const std::string &id, const std::string &tool, const Json &args,
    const std::string &person, const std::string &agent = "coder")
{
    const TimeMs ms = *parseRecordTime("2026-11-16T09:00:00.000Z") + TimeMs(day) * 86'400'000
        + TimeMs(at) * 1000;
    return Json { { "ts", formatTimestamp(ms) }, { "session", "s-" + agent + std::to_string(day) },
        { "agent", agent }, { "turn", "t1" }, { "call_id", id }, { "tool", tool }, { "args", args },
        { "person", person }, { "ok", true } };
}

Json read(const std::string &path)
{
    return Json { { "file_path", path } };
}

Json bash(const std::string &command)
{
    return Json { { "command", command } };
}

// The rules that cover a call, by its tool and first argument, for asserting.
std::string whenOf(const Suggestion &s)
{
    Json r = s.rule;
    r.erase("comment");
    r.erase("reason");
    r.erase("code");
    return dumpJson(r);
}

} // namespace

class TestSuggest : public QObject
{
    Q_OBJECT

private:
    QString policyFile(const std::string &text)
    {
        const QString path = m_tmp->filePath(QStringLiteral("policy-%1.json").arg(++m_files));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(QByteArray::fromStdString(text));
        return path;
    }

    std::vector<RecordedCall> history(const std::vector<Json> &trace, const QString &recording)
    {
        ManualClock clock(0);
        AuditConfig config;
        // HOLDPOINT_SUGGEST_HISTORY_DIR keeps the data directory of the one
        // test run (benchmarkTrace) for a console to open: the screenshot
        // of the Insights view's suggestions.
        config.dir = qEnvironmentVariable("HOLDPOINT_SUGGEST_HISTORY_DIR", m_tmp->path())
            + QStringLiteral("/audit");
        {
            AuditLog log(config, &clock);
            log.open();
            QString error;
            const auto source = PolicySource::load({ recording }, &error);
            testing::recordTrace(trace, *source->build({}, &error), log);
            log.waitDurable(5000);
        }
        QString error;
        return readHistory(config.dir, 0, &error);
    }

    std::vector<Suggestion> suggest(const std::vector<RecordedCall> &calls, const QString &policy)
    {
        QString error;
        const auto source = PolicySource::load({ policy }, &error);
        SuggestOptions o;
        o.user = "dana";
        o.now = *parseRecordTime("2026-11-27T00:00:00.000Z");
        return suggestRules(calls, *source, o, &error);
    }

    std::unique_ptr<QTemporaryDir> m_tmp;
    int m_files = 0;

private Q_SLOTS:
    void init() { m_tmp = std::make_unique<QTemporaryDir>(); }

    // A folder each, a command by its program and subcommand: never the
    // parent folder, never git as a whole.
    void narrowestRules()
    {
        const QString policy = policyFile(AskAll);
        std::vector<Json> trace;
        auto add = [&](const std::string &tool, const Json &args) {
            const int n = int(trace.size());
            trace.push_back(call(0, n, "c" + std::to_string(n), tool, args, "approve"));
        };
        for (int i = 0; i < 5; ++i)
            add("Read", read("/p/src/a/f" + std::to_string(i) + ".ts"));
        for (int i = 0; i < 4; ++i)
            add("Read", read("/p/src/b/g" + std::to_string(i) + ".ts"));
        for (const char *c : { "git status", "git status --short", "git status", "git status -b" })
            add("Bash", bash(c));
        const auto s = suggest(history(trace, policy), policy);
        QCOMPARE(s.size(), std::size_t(3));
        std::set<std::string> rules;
        for (const Suggestion &x : s)
            rules.insert(whenOf(x));
        // Built as JSON: moc reads a slash-star inside a raw string as a comment.
        auto readRule = [](const std::string &dir) {
            return dumpJson(Json { { "action", "allow" },
                { "when",
                    { { "agent", "coder" },
                        { "args",
                            { { "file_path",
                                { { "glob", dir + "/*" }, { "path_under", dir } } } } },
                        { "tool", "Read" } } } });
        };
        const std::set<std::string> expected { readRule("/p/src/a"), readRule("/p/src/b"),
            dumpJson(Json { { "action", "allow" }, { "match", "Bash(git status:*)" },
                { "when", { { "agent", "coder" }, { "tool", "Bash" } } } }) };
        QCOMPARE(rules, expected);
        QCOMPARE(s[0].saved, std::size_t(5));
        QCOMPARE(s[0].days, std::size_t(1));
        QCOMPARE(s[0].agents, std::size_t(1));
        QVERIFY(s[0].description.find("/p/src/a/*") != std::string::npos);
    }

    // One denial, edit or halt among the approvals, and the shape is not suggested.
    void neverOverAStoppedCall_data()
    {
        QTest::addColumn<QString>("person");
        QTest::newRow("denied") << QStringLiteral("deny");
        QTest::newRow("edited") << QStringLiteral("edit");
        QTest::newRow("halted") << QStringLiteral("halt");
    }
    void neverOverAStoppedCall()
    {
        QFETCH(QString, person);
        const QString policy = policyFile(AskAll);
        std::vector<Json> trace;
        for (int i = 0; i < 6; ++i)
            trace.push_back(call(0, i, "c" + std::to_string(i), "Edit",
                { { "file_path", "/p/src/db/q" + std::to_string(i) + ".ts" },
                    { "new_string", "x" } },
                i == 3 ? person.toStdString() : std::string("approve")));
        const auto calls = history(trace, policy);
        QVERIFY(calls[3].stopped());
        QVERIFY(suggest(calls, policy).empty());
    }

    // What the policy's own guardrails ask about (a destructive command)
    // or the log masked (a secret) is never suggested, however often approved.
    void neverOverDestructiveOrSecret()
    {
        const QString policy = policyFile(R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "secrets", "action": "ask"},
            {"type": "rules", "rules": [{"match": "Bash(rm:*)", "action": "ask", "code": "destructive"}]}]})J");
        std::vector<Json> trace;
        for (int i = 0; i < 6; ++i)
            trace.push_back(
                call(0, i, "r" + std::to_string(i), "Bash", bash("rm -rf dist"), "approve"));
        for (int i = 0; i < 6; ++i)
            trace.push_back(call(0, 10 + i, "s" + std::to_string(i), "Bash",
                bash("gh auth login --with-token ghp_" + std::string(36, char('a' + i))),
                "approve"));
        const auto calls = history(trace, policy);
        QVERIFY(calls[0].markedByGuardrail());
        QVERIFY(calls[6].masked);
        QVERIFY(suggest(calls, policy).empty());
    }

    // Across agents and days: the rule names no agent, and says how many of each.
    void savedOverDaysAndAgents()
    {
        const QString policy = policyFile(AskAll);
        std::vector<Json> trace;
        for (int d = 0; d < 3; ++d) {
            trace.push_back(
                call(d, 0, "a" + std::to_string(d), "Bash", bash("npm test"), "approve", "claude"));
            trace.push_back(call(d, 5, "b" + std::to_string(d), "Bash", bash("npm test -- --ci"),
                "approve", "codex"));
        }
        const auto s = suggest(history(trace, policy), policy);
        QCOMPARE(s.size(), std::size_t(1));
        QCOMPARE(s[0].saved, std::size_t(6));
        QCOMPARE(s[0].days, std::size_t(3));
        QCOMPARE(s[0].agents, std::size_t(2));
        QVERIFY(!s[0].rule["when"].contains("agent"));
        QCOMPARE(s[0].rule["match"], Json("Bash(npm test:*)"));

        // holdpoint-ctl says the same, and writes nothing.
        QProcess ctl;
        ctl.start(QStringLiteral(HOLDPOINT_CTL_BIN),
            { QStringLiteral("policy"), QStringLiteral("suggest"), QStringLiteral("--policy"),
                policy, QStringLiteral("--data-dir"), m_tmp->path(), QStringLiteral("--json") });
        QVERIFY(ctl.waitForFinished(30000));
        QCOMPARE(ctl.exitCode(), 0);
        const Json out = Json::parse(ctl.readAllStandardOutput().toStdString());
        QCOMPARE(out["suggestions"].size(), std::size_t(1));
        QCOMPARE(out["suggestions"][0]["saved"], Json(6));
        QCOMPARE(out["suggestions"][0]["agents"], Json(2));
        QCOMPARE(out["suggestions"][0]["rule"]["match"], Json("Bash(npm test:*)"));
        QVERIFY(!QFileInfo::exists(m_tmp->filePath(QStringLiteral("policy.json"))));
    }

    // Accepting writes the rule as "always" does, with a policy_rule_added record.
    void acceptWritesTheRuleAndAnAuditRecord()
    {
        const QString policy = policyFile(AskAll);
        std::vector<Json> trace;
        for (int i = 0; i < 4; ++i)
            trace.push_back(call(0, i, "c" + std::to_string(i), "Read",
                read("/p/docs/d" + std::to_string(i)), "approve"));
        const auto calls = history(trace, policy);
        // What the desktop's tab calls: from the log and the policy files.
        SuggestOptions options;
        options.user = "dana";
        QString failure;
        const auto s = suggestFromLog(
            m_tmp->path() + QStringLiteral("/audit"), { policy }, options, &failure);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(s.size(), std::size_t(1));
        const QString user = m_tmp->filePath(QStringLiteral("user-policy.json"));
        ManualClock clock(0);
        AuditConfig config;
        config.dir = m_tmp->path() + QStringLiteral("/audit");
        {
            AuditLog log(config, &clock);
            log.open();
            QString error;
            QVERIFY2(acceptSuggestion(s[0], user, &log, &error), qPrintable(error));
            QVERIFY(log.waitDurable(5000));
        }
        std::vector<Json> added;
        audit::Filter f;
        f.event = "policy_rule_added";
        audit::query(config.dir, f, 0, [&](std::string_view, const Json &r) {
            added.push_back(r);
            return true;
        });
        QCOMPARE(added.size(), std::size_t(1));
        QCOMPARE(added[0]["rule"], s[0].rule);
        QCOMPARE(added[0]["suggested"]["saved"], Json(4));
        QString error;
        const auto both = PolicySource::load({ policy, user }, &error);
        QVERIFY2(both, qPrintable(error));
        const ReplayReport r = replayCalls(calls, *both->build({}, &error));
        QCOMPARE(r.asksAfter, std::size_t(0));
    }

    // The benchmark trace (tests/bench/trace): every suggestion accepted,
    // no call labelled must_ask runs without a person, and the prompts drop
    // by at least 60 %. holdpoint-bench --scenario replay prints both figures.
    void benchmarkTrace()
    {
        const QString dir = QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/bench/trace");
        const std::vector<Json> trace
            = testing::readTrace(dir + QStringLiteral("/coding-agent.jsonl"));
        QVERIFY(trace.size() >= 2000);
        const QString policy = dir + QStringLiteral("/policy.json");
        const auto calls = history(trace, policy);
        QCOMPARE(calls.size(), trace.size());
        const auto suggestions = suggest(calls, policy);
        QVERIFY(!suggestions.empty());
        const QString user = m_tmp->filePath(QStringLiteral("accepted.json"));
        for (const Suggestion &s : suggestions) {
            QString error;
            QVERIFY2(acceptSuggestion(s, user, nullptr, &error), qPrintable(error));
        }
        QString error;
        const auto before = PolicySource::load({ policy }, &error);
        const auto after = PolicySource::load({ policy, user }, &error);
        QVERIFY2(after, qPrintable(error));
        const ReplayReport was = replayCalls(calls, *before->build({}, &error));
        const ReplayReport now = replayCalls(calls, *after->build({}, &error));
        std::set<std::string> labelled;
        for (const std::string &k : testing::mustAskKeys(trace))
            labelled.insert(k);
        QVERIFY(labelled.size() > 100);
        std::size_t checked = 0;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            if (!labelled.contains(calls[i].session + '\n' + calls[i].callId))
                continue;
            ++checked;
            QVERIFY2(!now.results[i].runsAlone(),
                qPrintable(QStringLiteral("%1 %2 would run alone")
                               .arg(toQString(calls[i].tool), toQString(dumpJson(calls[i].args)))));
        }
        QCOMPARE(checked, labelled.size());
        const double drop = 1.0 - double(now.asksAfter) / double(was.asksAfter);
        qInfo("prompts %zu -> %zu (%.1f %% fewer), %zu suggestions", was.asksAfter, now.asksAfter,
            drop * 100, suggestions.size());
        QVERIFY(drop >= 0.60);
    }
};

QTEST_GUILESS_MAIN(TestSuggest)
#include "tst_suggest.moc"
