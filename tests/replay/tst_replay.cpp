// SPDX-License-Identifier: Apache-2.0
// `policy replay` (core/replay/REPLAY.md): recorded calls through another
// policy, in their order and at their times. Each history is written by a
// real AuditLog as a console under its recording policy would have written
// it (tests/common/tracelog.h), masking included, and read back from disk.

#include "common/policies.h"
#include "common/tracelog.h"
#include "replay/replay.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::replay;

namespace {

constexpr char AskAll[] = R"J({"version": 1, "default": "ask", "guardrails": []})J";

// One trace line; `at` in seconds after 2026-11-16T09:00:00Z.
Json call(int at, const std::string &id, const std::string &tool, const Json &args,
    const std::string &person, const std::string &turn = "t1", bool ok = true)
{
    const TimeMs ms = *parseRecordTime("2026-11-16T09:00:00.000Z") + TimeMs(at) * 1000;
    return Json { { "ts", formatTimestamp(ms) }, { "session", "s1" }, { "agent", "coder" },
        { "turn", turn }, { "call_id", id }, { "tool", tool }, { "args", args },
        { "person", person }, { "ok", ok } };
}

Json bash(const std::string &command)
{
    return Json { { "command", command } };
}

Policy policyFrom(const std::string &text)
{
    return test::policyOf(text);
}

QString writeFile(const QTemporaryDir &dir, const QString &name, const std::string &text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(text));
    return path;
}

} // namespace

class TestReplay : public QObject
{
    Q_OBJECT

private:
    // Writes `trace` as recorded under `recording` into <tmp>/audit and reads it back.
    std::vector<RecordedCall> history(
        const std::vector<Json> &trace, const std::string &recording = AskAll)
    {
        ManualClock clock(0);
        AuditConfig config;
        config.dir = m_tmp->path() + QStringLiteral("/audit");
        {
            AuditLog log(config, &clock);
            log.open();
            testing::recordTrace(trace, policyFrom(recording), log);
            if (!log.waitDurable(5000))
                qFatal("the audit log was not written");
        }
        QString error;
        std::vector<RecordedCall> calls = readHistory(config.dir, 0, &error);
        if (!error.isEmpty())
            qFatal("%s", qPrintable(error));
        return calls;
    }

    ReplayReport replayWith(const std::vector<RecordedCall> &calls, const std::string &policy)
    {
        return replayCalls(calls, policyFrom(policy));
    }

    int runCtl(const QStringList &args, QByteArray *out)
    {
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
        p.waitForFinished(30000);
        *out = p.readAllStandardOutput();
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

    std::unique_ptr<QTemporaryDir> m_tmp;

private Q_SLOTS:
    void init() { m_tmp = std::make_unique<QTemporaryDir>(); }

    void transitionsWithThePersonsDecision()
    {
        const auto calls
            = history({ call(0, "c1", "Read", { { "file_path", "/p/src/a.ts" } }, "approve"),
                call(5, "c2", "Bash", bash("rm -rf build"), "deny"),
                call(9, "c3", "Bash", bash("git status"), "approve"),
                call(14, "c4", "Edit", { { "file_path", "/p/src/a.ts" }, { "new_string", "x" } },
                    "edit"),
                call(20, "c5", "Bash", bash("make"), "halt") });
        QCOMPARE(calls.size(), std::size_t(5));
        QCOMPARE(calls[1].fate, Fate::Denied);
        QCOMPARE(calls[3].fate, Fate::Edited);
        QCOMPARE(calls[4].fate, Fate::Halted);
        const ReplayReport r = replayWith(
            calls, R"J({"version": 1, "default": "ask", "guardrails": [{"type": "rules", "rules": [
            {"match": "Bash(rm:*)", "action": "deny", "reason": "no deleting"},
            {"when": {"tool": ["Read", "Edit"]}, "action": "allow"},
            {"match": "Bash(git status:*)", "action": "allow"}]}]})J");
        using Key = std::pair<std::string, std::string>;
        QCOMPARE(r.transitions.size(), std::size_t(2));
        QCOMPARE(r.transitions.at(Key("ask", "allow")), (std::vector<std::size_t> { 0, 2, 3 }));
        QCOMPARE(r.transitions.at(Key("ask", "deny")), (std::vector<std::size_t> { 1 }));
        // The edited call would now run as the agent sent it: that is the finding.
        QCOMPARE(r.regressions, (std::vector<std::size_t> { 3 }));
        QCOMPARE(r.asksBefore, std::size_t(5));
        QCOMPARE(r.asksAfter, std::size_t(1));
        QCOMPARE(r.results[4].outcome, std::string("ask"));
    }

    // From the seat of whoever ships a policy in CI: the exit code says
    // whether a call that was stopped would now run alone.
    void exitCodeFromTheCommandLine()
    {
        history({ call(0, "c1", "Read", { { "file_path", "/p/src/a.ts" } }, "approve"),
                    call(5, "c2", "Bash", bash("curl https://example.com/x"), "deny"),
                    call(9, "c3", "Write", { { "file_path", "/etc/hosts" }, { "content", "x" } },
                        "approve") },
            R"J({"version": 1, "default": "ask", "guardrails": [
                    {"type": "protected_paths", "paths": ["/etc"], "action": "deny"}]})J");
        const QString safe = writeFile(*m_tmp, QStringLiteral("safe.json"),
            R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "rules", "rules": [{"when": {"tool": "Read"}, "action": "allow"}]}]})J");
        const QString curl = writeFile(*m_tmp, QStringLiteral("curl.json"),
            R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "rules", "rules": [{"match": "Bash(curl:*)", "action": "allow"}]}]})J");
        // The guardrail that denied the write is gone, and a rule allows it.
        const QString writes = writeFile(*m_tmp, QStringLiteral("writes.json"),
            R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "rules", "rules": [{"when": {"tool": "Write"}, "action": "allow"}]}]})J");
        QByteArray out;
        QCOMPARE(
            runCtl({ QStringLiteral("policy"), QStringLiteral("replay"), QStringLiteral("--policy"),
                       safe, QStringLiteral("--data-dir"), m_tmp->path() },
                &out),
            0);
        QVERIFY2(out.contains("ask -> allow: 1"), out.constData());
        QCOMPARE(
            runCtl({ QStringLiteral("policy"), QStringLiteral("replay"), QStringLiteral("--policy"),
                       curl, QStringLiteral("--data-dir"), m_tmp->path() },
                &out),
            1);
        QVERIFY2(out.contains("WOULD RUN WITHOUT A PERSON: 1"), out.constData());
        QVERIFY2(out.contains("denied by human:dana"), out.constData());
        QCOMPARE(runCtl({ QStringLiteral("policy"), QStringLiteral("replay"),
                            QStringLiteral("--policy"), writes, QStringLiteral("--data-dir"),
                            m_tmp->path(), QStringLiteral("--json") },
                     &out),
            1);
        const Json j = Json::parse(out.toStdString());
        QCOMPARE(j["would_run_alone"].size(), std::size_t(1));
        QCOMPARE(j["would_run_alone"][0]["call_id"], Json("c3"));
        QCOMPARE(j["would_run_alone"][0]["decided_by"], Json("guardrail:protected_paths"));
        // A typo is a usage error, never "would run" (1) nor "safe" (0).
        QCOMPARE(
            runCtl({ QStringLiteral("policy"), QStringLiteral("replay"), QStringLiteral("--polcy"),
                       safe, QStringLiteral("--data-dir"), m_tmp->path() },
                &out),
            2);
        QCOMPARE(runCtl({ QStringLiteral("policy"), QStringLiteral("replay"),
                            QStringLiteral("--policy"), safe, QStringLiteral("--data-dir"),
                            m_tmp->filePath(QStringLiteral("nowhere")) },
                     &out),
            2);
    }

    // Rate windows run on the recorded times: four calls in ten seconds hit
    // a limit of three a minute; the same call two minutes later does not.
    void rateLimitOnRecordedTimes()
    {
        const auto calls = history({ call(0, "c1", "Read", { { "file_path", "/p/a" } }, "approve"),
            call(2, "c2", "Read", { { "file_path", "/p/b" } }, "approve"),
            call(4, "c3", "Read", { { "file_path", "/p/c" } }, "approve"),
            call(6, "c4", "Read", { { "file_path", "/p/d" } }, "approve"),
            call(130, "c5", "Read", { { "file_path", "/p/e" } }, "approve") });
        const std::string policy = R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "rate_limit", "limit": 3, "window_s": 60, "per": "session"},
            {"type": "rules", "rules": [{"when": {"tool": "Read"}, "action": "allow"}]}]})J";
        const ReplayReport r = replayWith(calls, policy);
        QCOMPARE(r.results[2].outcome, std::string("allow"));
        QCOMPARE(r.results[3].outcome, std::string("deny"));
        QCOMPARE(r.results[3].decidedBy, std::string("guardrail:rate_limit"));
        QCOMPARE(r.results[4].outcome, std::string("allow"));
        // Not a finding: a person approved it then, a guardrail denies it now.
        QVERIFY(r.regressions.empty());
    }

    // Loop detection counts per turn, from the recorded results: the sixth
    // run of a test that failed five times in a turn is blocked; in the
    // next turn it runs.
    void loopDetectionPerTurn()
    {
        std::vector<Json> trace;
        for (int i = 0; i < 5; ++i)
            trace.push_back(call(
                i * 3, "f" + std::to_string(i), "Bash", bash("npm test"), "approve", "t1", false));
        trace.push_back(call(20, "f5", "Bash", bash("npm test"), "approve", "t1", false));
        trace.push_back(call(40, "g1", "Bash", bash("npm test"), "approve", "t2", true));
        const auto calls = history(trace);
        QVERIFY(calls[0].ok.has_value() && !*calls[0].ok);
        const ReplayReport r
            = replayWith(calls, R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "loop_detection"},
            {"type": "rules", "rules": [{"match": "Bash(npm test:*)", "action": "allow"}]}]})J");
        for (int i = 0; i < 5; ++i)
            QCOMPARE(r.results[std::size_t(i)].outcome, std::string("allow"));
        QCOMPARE(r.results[5].outcome, std::string("deny"));
        QCOMPARE(r.results[5].code, std::string("exact_failure"));
        QCOMPARE(r.results[6].outcome, std::string("allow"));
    }

    // The log keeps placeholders, never secrets: a policy that would allow
    // such a call is reported, but never as proven safe.
    void maskedArgumentsAreNeverProof()
    {
        const std::string token = "ghp_" + std::string(36, 'a');
        const auto calls = history(
            { call(0, "c1", "post",
                  { { "url", "https://api.example.com/" }, { "body", "login " + token } }, "deny"),
                call(5, "c2", "post",
                    { { "url", "https://api.example.com/" }, { "body", "login " + token } },
                    "approve"),
                call(9, "c3", "Bash", bash("gh auth login --with-token " + token), "approve") },
            R"J({"version": 1, "default": "ask", "guardrails": [{"type": "secrets", "action": "ask"}]})J");
        QVERIFY(calls[0].masked);
        QVERIFY(calls[0].args.dump().find(token) == std::string::npos);
        QCOMPARE(calls[0].args["body"], Json("login [secret:github_token:1]"));
        // The same secrets guardrail, now with allow rules: it cannot see
        // the placeholder as a secret, so its ask is lost in the replay.
        const ReplayReport r
            = replayWith(calls, R"J({"version": 1, "default": "ask", "guardrails": [
            {"type": "secrets", "action": "ask"},
            {"type": "rules", "rules": [{"when": {"tool": "post"}, "action": "allow"},
                                        {"match": "Bash(gh auth:*)", "action": "allow"}]}]})J");
        QCOMPARE(r.results[0].outcome, std::string("allow"));
        QVERIFY(r.results[0].unverified);
        QVERIFY(r.results[1].unverified);
        // The person's denial makes it a finding, masked or not.
        QCOMPARE(r.regressions, (std::vector<std::size_t> { 0 }));
        // In a shell line the placeholder's brackets read as a glob, which
        // no Bash(...) allow covers: the line goes to a person.
        QCOMPARE(r.results[2].outcome, std::string("ask"));
        QVERIFY(!r.results[2].unverified);
    }

    // Who stopped a call, read from its decision record: a reviewer's
    // standing decision is that person's, a guardrail's is the chain's.
    void fateFromTheDecisionRecord_data()
    {
        QTest::addColumn<QString>("decision");
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("decidedBy");
        QTest::addColumn<bool>("edited");
        QTest::addColumn<int>("fate");
        QTest::addColumn<bool>("stopped");
        QTest::newRow("approved") << "allow"
                                  << "decided"
                                  << "human:dana" << false << int(Fate::Approved) << false;
        QTest::newRow("edited") << "modify"
                                << "decided"
                                << "human:dana" << true << int(Fate::Edited) << true;
        QTest::newRow("denied") << "deny"
                                << "decided"
                                << "human:dana" << false << int(Fate::Denied) << true;
        QTest::newRow("halted") << "halt"
                                << "decided"
                                << "human:dana" << false << int(Fate::Halted) << true;
        QTest::newRow("timed out") << "deny"
                                   << "timed_out"
                                   << "timeout" << false << int(Fate::TimedOut) << false;
        QTest::newRow("standing deny") << "deny"
                                       << "auto"
                                       << "human:dana" << false << int(Fate::Denied) << true;
        QTest::newRow("guardrail deny") << "deny"
                                        << "auto"
                                        << "guardrail:rules" << false << int(Fate::Auto) << true;
        QTest::newRow("guardrail allow") << "allow"
                                         << "auto"
                                         << "guardrail:rules" << false << int(Fate::Auto) << false;
    }
    void fateFromTheDecisionRecord()
    {
        QFETCH(QString, decision);
        QFETCH(QString, state);
        QFETCH(QString, decidedBy);
        QFETCH(bool, edited);
        QFETCH(int, fate);
        QFETCH(bool, stopped);
        HistoryBuilder b;
        b.add(Json { { "event", "call" }, { "ts", "2026-11-16T09:00:00.000Z" }, { "session", "s" },
            { "call_id", "c" }, { "tool", "t" }, { "args", Json::object() },
            { "outcome", "ask" } });
        Json d { { "event", "decision" }, { "session", "s" }, { "call_id", "c" },
            { "decision", decision.toStdString() }, { "state", state.toStdString() },
            { "decided_by", decidedBy.toStdString() } };
        if (edited)
            d["edited"] = true;
        b.add(d);
        const auto calls = b.take();
        QCOMPARE(calls.size(), std::size_t(1));
        QCOMPARE(int(calls[0].fate), fate);
        QCOMPARE(calls[0].stopped(), stopped);
    }

    // --since: older calls are not read (their decisions neither).
    void sinceLeavesOutOlderCalls()
    {
        history({ call(0, "old", "Read", { { "file_path", "/p/a" } }, "deny"),
            call(3600, "new", "Read", { { "file_path", "/p/b" } }, "approve") });
        QString error;
        const auto calls = readHistory(m_tmp->path() + QStringLiteral("/audit"),
            *parseRecordTime("2026-11-16T09:30:00.000Z"), &error);
        QCOMPARE(calls.size(), std::size_t(1));
        QCOMPARE(calls[0].callId, std::string("new"));
        QCOMPARE(calls[0].fate, Fate::Approved);
    }

    // Nothing is written: the log and its head are as they were.
    void changesNothing()
    {
        history({ call(0, "c1", "Read", { { "file_path", "/p/a" } }, "approve") });
        const QString dir = m_tmp->path() + QStringLiteral("/audit");
        const audit::VerifyReport before = audit::verify(dir);
        QByteArray out;
        const QString policy = writeFile(*m_tmp, QStringLiteral("p.json"),
            R"J({"version": 1, "default": "allow", "guardrails": []})J");
        QCOMPARE(
            runCtl({ QStringLiteral("policy"), QStringLiteral("replay"), QStringLiteral("--policy"),
                       policy, QStringLiteral("--data-dir"), m_tmp->path() },
                &out),
            0);
        const audit::VerifyReport after = audit::verify(dir);
        QCOMPARE(after.status, audit::VerifyStatus::Intact);
        QCOMPARE(after.lastSeq, before.lastSeq);
        QCOMPARE(after.lastHash, before.lastHash);
    }
};

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
