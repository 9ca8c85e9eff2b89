// SPDX-License-Identifier: Apache-2.0
// End to end with real processes: the policy and its guardrails as an agent
// meets them on the wire (the default answer, an invalid policy, rules, loop
// detection, rate limits, masked secrets) and `holdpoint-ctl policy check`.

#include "common/consoleprocess.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

QString writePolicy(QTemporaryDir &dir, const char *text)
{
    const QString path = dir.filePath(QStringLiteral("policy.json"));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path;
}

} // namespace

class TestGuardrailsE2E : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void policyDefaultAnswersWithoutAPerson();
    void invalidPolicyStopsTheConsole();
    void guardrailsDecideOnTheWire();
    void policyCheck();
    void loopDetectionOnTheWire();
    void pendingShowsTheTurnsLoop();
    void rateLimitOnTheWire();
    void secretsAreMaskedForTheReviewerChannel();
};

void TestGuardrailsE2E::policyDefaultAnswersWithoutAPerson()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("allow.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version":1,"description":"observe only","default":"allow"})");
    f.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    const CtlResult r = console.ctl(
        { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("read_file"),
            QStringLiteral("--args"), QStringLiteral(R"({"path":"README.md"})") });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["decided_by"], Json("policy:default"));
    QCOMPARE(r.json()["args"], Json({ { "path", "README.md" } }));
    QVERIFY(!r.err.contains("waiting for a reviewer"));
}

void TestGuardrailsE2E::invalidPolicyStopsTheConsole()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("policy.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"default":"sometimes"})");
    f.close();
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"),
            dir.filePath(QStringLiteral("data")), QStringLiteral("--policy"), policy });
    QVERIFY(p.waitForFinished(WaitMs));
    QCOMPARE(p.exitCode(), 1);
    QCOMPARE(p.readAllStandardError(),
        QByteArray("holdpoint: " + policy.toUtf8()
            + ": default: unknown action \"sometimes\" (expected one of: ask, allow, deny)\n"));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("data/endpoint.json"))));
}

void TestGuardrailsE2E::guardrailsDecideOnTheWire()
{
    QTemporaryDir dir;
    const QString policy = dir.filePath(QStringLiteral("policy.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"js({
      "version": 1,
      "default": "ask",
      "guardrails": [
        {"type": "rules", "name": "triage", "rules": [
          {"when": {"tool": "read_file"}, "action": "allow", "reason": "reads are fine"},
          {"match": "Bash(rm -rf *)", "action": "deny", "reason": "refusing {args.command}"},
          {"when": {"tool": "bash"}, "action": "modify", "clamp": {"timeout": {"max": 60}}, "reason": "timeout clamped"},
          {"when": {"tool": "write_file"}, "action": "ask", "reason": "writes need a look"}
        ]},
        {"type": "rules", "name": "allow-bash", "rules": [{"when": {"tool": "bash"}, "action": "allow", "reason": "bash is fine once clamped"}]},
        {"type": "protected_paths", "paths": ["/etc"]}
      ]})js");
    f.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    auto submit = [&](const char *tool, const char *args) {
        return console.ctl({ QStringLiteral("submit"), QStringLiteral("--tool"),
            QString::fromLatin1(tool), QStringLiteral("--args"), QString::fromLatin1(args),
            QStringLiteral("--timeout"), QStringLiteral("5") });
    };

    CtlResult r = submit("read_file", R"({"path":"README.md"})");
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["decided_by"], Json("guardrail:triage"));

    r = submit("Bash", R"({"command":"rm -rf /"})");
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.json()["reason"], Json("refusing rm -rf /"));

    r = submit("bash", R"({"command":"make","timeout":900})");
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json()["decision"], Json("modify"));
    QCOMPARE(r.json()["args"], Json({ { "command", "make" }, { "timeout", 60 } }));
    QCOMPARE(r.json()["decided_by"], Json("guardrail:allow-bash"));

    // triage asks about writes, but protected_paths later denies: deny wins.
    r = submit("write_file", R"({"path":"/etc/hosts"})");
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.json()["decided_by"], Json("guardrail:protected_paths"));
    QVERIFY(!r.err.contains("waiting for a reviewer"));
}

void TestGuardrailsE2E::policyCheck()
{
    const QString strict = QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/strict.json");
    QProcess ok;
    ok.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("policy"), QStringLiteral("check"), strict });
    QVERIFY(ok.waitForFinished(WaitMs));
    QCOMPARE(ok.exitCode(), 0);
    QCOMPARE(ok.readAllStandardOutput(),
        QByteArray("ok: 7 guardrail(s), default ask, from " + strict.toUtf8() + "\n"));

    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"guardrails":[{"type":"rules","rules":[{"when":{"args":{"path":{"globb":"/etc/**"}}},"action":"deny"}]}]})");
    f.close();
    QProcess invalid;
    invalid.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("policy"), QStringLiteral("check"), strict, bad });
    QVERIFY(invalid.waitForFinished(WaitMs));
    QCOMPARE(invalid.exitCode(), 1);
    QCOMPARE(invalid.readAllStandardError(),
        QByteArray(bad.toUtf8()
            + ": guardrails[0].rules[0].when.args.path: unknown matcher \"globb\" (expected one "
              "of: "
              "equals, glob, regex, prefix, path_under, min, max, exists)\n"));
    // The console says the same when it starts with that file.
    QProcess console;
    console.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"),
            dir.filePath(QStringLiteral("d")), QStringLiteral("--policy"), bad });
    QVERIFY(console.waitForFinished(WaitMs));
    QCOMPARE(console.exitCode(), 1);
    QVERIFY(console.readAllStandardError().endsWith(
        "unknown matcher \"globb\" (expected one of: equals, glob, regex, prefix, path_under, min, "
        "max, exists)\n"));
}

void TestGuardrailsE2E::loopDetectionOnTheWire()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"),
        writePolicy(dir, R"({"default":"allow","guardrails":[{"type":"loop_detection"}]})") });
    QVERIFY(console.ready());
    auto agent = console.agent();
    QVERIFY(agent);
    int n = 0;
    // One failing attempt: returns the decision, and the after_call if it ran.
    auto attempt = [&](const Json &args) {
        const std::string id = "c" + std::to_string(++n);
        agent->send({ { "type", "tool_call" }, { "call_id", id }, { "tool_name", "bash" },
            { "args", args } });
        const Json d = agent->next("decision");
        Json after;
        if (d["decision"] == Json("allow")) {
            agent->send({ { "type", "tool_result" }, { "call_id", id }, { "ok", false },
                { "result", "exit 1" } });
            after = agent->next("after_call");
        }
        return std::pair { d, after };
    };
    agent->send({ { "type", "turn_start" }, { "turn_id", "t1" } });
    const Json same = { { "command", "pytest -x" } };
    QCOMPARE(attempt(same).second["action"], Json("allow")); // 1st failure
    for (int i = 2; i <= 5; ++i) {
        const Json after = attempt(same).second;
        QCOMPARE(after["action"], Json("warn"));
        QCOMPARE(after["warnings"][0]["code"], Json("exact_failure"));
        QCOMPARE(after["reason"],
            Json("this exact bash call failed " + std::to_string(i) + " times in this turn"));
    }
    const Json blocked = attempt(same).first;
    QCOMPARE(blocked["decision"], Json("deny"));
    QCOMPARE(blocked["code"], Json("exact_failure"));
    QCOMPARE(blocked["decided_by"], Json("guardrail:loop_detection"));
    // Three more failures with other arguments make 8 for the tool: halt.
    attempt({ { "command", "pytest -k a" } });
    attempt({ { "command", "pytest -k b" } });
    QCOMPARE(attempt({ { "command", "pytest -k c" } }).second["action"], Json("halt"));
    QCOMPARE(attempt({ { "command", "ls" } }).first["decision"], Json("halt"));

    agent->send(
        { { "type", "turn_start" }, { "turn_id", "t2" } }); // a new turn starts counting afresh
    const auto fresh = attempt(same);
    QCOMPARE(fresh.first["decision"], Json("allow"));
    QCOMPARE(fresh.second["action"], Json("allow"));
}

void TestGuardrailsE2E::pendingShowsTheTurnsLoop()
{
    QTemporaryDir dir;
    ConsoleProcess console(
        { QStringLiteral("--policy"), writePolicy(dir, R"({"default":"ask","guardrails":[
                                {"type":"rules","rules":[{"when":{"tool":"bash"},"action":"allow"}]},
                                {"type":"loop_detection"}]})") });
    QVERIFY(console.ready());
    auto agent = console.agent();
    QVERIFY(agent);
    agent->send({ { "type", "turn_start" }, { "turn_id", "t1" } });
    agent->send({ { "type", "tool_call" }, { "call_id", "w1" }, { "tool_name", "write_file" },
        { "args", { { "path", "a" } } } });
    QVERIFY(agent->next("pending").is_object());
    for (const char *id : { "b1", "b2" }) {
        agent->send({ { "type", "tool_call" }, { "call_id", id }, { "tool_name", "bash" },
            { "args", { { "command", "make" } } } });
        QCOMPARE(agent->next("decision")["decision"], Json("allow"));
        agent->send({ { "type", "tool_result" }, { "call_id", id }, { "ok", false },
            { "result", "exit 2" } });
        QVERIFY(agent->next("after_call").is_object());
    }
    const QByteArray text = console.ctl({ QStringLiteral("pending") }).out;
    QVERIFY2(text.contains("    loop: agent is retrying a failing call (2/5) [exact_failure]"),
        text.constData());
    const Json items = console.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(items.size(), std::size_t(1));
    QCOMPARE(items[0]["turn_findings"][0]["count"], Json(2));
    QCOMPARE(items[0]["turn_findings"][0]["call_ids"], Json::parse(R"(["b1","b2"])"));
}

void TestGuardrailsE2E::rateLimitOnTheWire()
{
    QTemporaryDir dir;
    ConsoleProcess console({ QStringLiteral("--policy"),
        writePolicy(dir,
            R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":2,"window_s":3600}]})") });
    QVERIFY(console.ready());
    auto agent = console.agent();
    QVERIFY(agent);
    for (int i = 1; i <= 3; ++i)
        agent->send({ { "type", "tool_call" }, { "call_id", "r" + std::to_string(i) },
            { "tool_name", "post" }, { "args", { { "i", i } } } });
    QCOMPARE(agent->next("decision")["decision"], Json("allow"));
    QCOMPARE(agent->next("decision")["decision"], Json("allow"));
    const Json third = agent->next("decision");
    QCOMPARE(third["decision"], Json("deny"));
    QCOMPARE(third["code"], Json("rate_limited"));
    QVERIFY(third["reason"].get<std::string>().starts_with(
        "rate limit: at most 2 calls per 3600 s per session"));
    auto other = console.agent(); // another session has its own window
    QVERIFY(other);
    other->send({ { "type", "tool_call" }, { "call_id", "r1" }, { "tool_name", "post" },
        { "args", { { "i", 1 } } } });
    QCOMPARE(other->next("decision")["decision"], Json("allow"));
}

void TestGuardrailsE2E::secretsAreMaskedForTheReviewerChannel()
{
    QTemporaryDir dir;
    ConsoleProcess console(
        { QStringLiteral("--policy"), writePolicy(dir, R"({"guardrails":[{"type":"secrets"}]})") });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    const std::string secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    QString raw;
    connect(&reviewer->socket(), &QWebSocket::textMessageReceived, this,
        [&](const QString &t) { raw += t; });
    auto agent = console.agent();
    QVERIFY(agent);
    const Json args = { { "repo", "acme/app" }, { "token", secret }, { "note", "uses " + secret } };
    agent->send({ { "type", "tool_call" }, { "call_id", "s1" }, { "tool_name", "github_api" },
        { "args", args } });
    const Json item = reviewer->next("escalated")["item"];
    QCOMPARE(item["args"]["token"], Json("[secret:github_token:1]"));
    QCOMPARE(item["args"]["note"], Json("uses [secret:github_token:1]"));
    QVERIFY(!raw.contains(QString::fromStdString(secret)));
    const CtlResult pending = console.ctl({ QStringLiteral("pending"), QStringLiteral("--json") });
    QVERIFY(!pending.out.contains(QByteArray::fromStdString(secret)));
    QCOMPARE(console
                 .ctl({ QStringLiteral("approve"),
                     QString::fromStdString(item["id"].get<std::string>()) })
                 .exitCode,
        0);
    QCOMPARE(agent->next("decision")["args"], args); // the agent gets the real value back
}

QTEST_GUILESS_MAIN(TestGuardrailsE2E)
#include "tst_guardrails_e2e.moc"
