// SPDX-License-Identifier: Apache-2.0
// `holdpoint-ctl hook claude-code` as Claude Code runs it: fixtures in the
// documented hook input format on stdin, against a real headless console.

#include "common/consoleprocess.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

constexpr char Policy[] = R"js({"default":"ask","guardrails":[
  {"type":"protected_paths","paths":["/etc"]},
  {"type":"rules","rules":[
    {"match":"Bash(sudo *)","action":"halt","reason":"no root: {args.command}"},
    {"match":"Read","action":"allow","reason":"reads are fine"},
    {"match":"Bash","action":"modify","clamp":{"timeout":{"max":60000}},"reason":"at most a minute"}]},
  {"type":"rules","name":"bash-ok","rules":[{"match":"Bash","action":"allow","reason":"bash is fine"}]},
  {"type":"loop_detection","exact_failure":{"warn":1,"block":5},"same_tool_failure":{"warn":1,"halt":2}}]})js";

Json fixture(const char *name)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/claude-code/")
        + QLatin1String(name));
    f.open(QIODevice::ReadOnly);
    return Json::parse(f.readAll().toStdString());
}

CtlResult hook(const QString &dataDir, const Json &input, const QStringList &extra = {})
{
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        QStringList { QStringLiteral("--data-dir"), dataDir, QStringLiteral("hook"),
            QStringLiteral("claude-code") }
            + extra);
    p.write(QByteArray::fromStdString(dumpJson(input)));
    p.closeWriteChannel();
    return finish(p);
}

} // namespace

class TestClaudeHook : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void decisionsByPolicy_data();
    void decisionsByPolicy();
    void aPersonDecides();
    void postToolUseWarnsThenBlocks();
    void postToolUseForAnUnknownCallIsQuiet();
    void unreachableConsoleBlocks();
    void badInputBlocks();
    void failOpenStillBlocksARefusedCall();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleProcess> m_console;
};

void TestClaudeHook::initTestCase()
{
    const QString policy = m_dir.filePath(QStringLiteral("policy.json"));
    QFile f(policy);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(Policy);
    f.close();
    m_console
        = std::make_unique<ConsoleProcess>(QStringList { QStringLiteral("--policy"), policy });
    QVERIFY(m_console->ready());
}

void TestClaudeHook::decisionsByPolicy_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("output");
    QTest::newRow("allow")
        << "pre_read.json"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"reads are fine"}})";
    QTest::newRow("deny")
        << "pre_write_etc.json"
        << R"js({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"file_path /etc/hosts is protected (/etc)"}})js";
    QTest::newRow("modify: the whole edited input")
        << "pre_bash_long.json"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"bash is fine","updatedInput":{"command":"make test","description":"Run the tests","timeout":60000}}})";
    QTest::newRow("halt")
        << "pre_bash_sudo.json"
        << R"({"continue":false,"stopReason":"no root: sudo rm -rf /var/lib/app","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Holdpoint halted the run: no root: sudo rm -rf /var/lib/app"}})";
}

void TestClaudeHook::decisionsByPolicy()
{
    QFETCH(QString, fixture);
    QFETCH(QString, output);
    Json input = ::fixture(fixture.toLatin1().constData());
    input["tool_use_id"]
        = input["tool_use_id"].get<std::string>() + "-" + std::string(QTest::currentDataTag());
    // A halt holds its turn (PROTOCOL.md "Halting"), so each row has its own session.
    input["session_id"]
        = input["session_id"].get<std::string>() + "-" + std::string(QTest::currentDataTag());
    const CtlResult r = hook(m_console->dataDir(), input);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(Json::parse(r.out.toStdString()), Json::parse(output.toStdString()));
}

void TestClaudeHook::aPersonDecides()
{
    auto reviewer = m_console->reviewer();
    QVERIFY(reviewer);
    for (const bool approve : { true, false }) {
        Json input = fixture("pre_mcp.json");
        input["tool_use_id"] = approve ? "toolu_mcp_yes" : "toolu_mcp_no";
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
            { QStringLiteral("--data-dir"), m_console->dataDir(), QStringLiteral("hook"),
                QStringLiteral("claude-code") });
        p.write(QByteArray::fromStdString(dumpJson(input)));
        p.closeWriteChannel();
        const Json item = reviewer->next("escalated")["item"];
        QCOMPARE(item["tool_name"], Json("mcp__github__create_issue"));
        QCOMPARE(item["session_id"], Json("9b2c1d7e-4a5f-4c3b-8e21-6f0a7d3c5b19"));
        QCOMPARE(item["context"]["cwd"], Json("/home/dev/app"));
        const QString id = QString::fromStdString(item["id"].get<std::string>());
        const CtlResult decided = approve
            ? m_console->ctl({ QStringLiteral("approve"), id })
            : m_console->ctl({ QStringLiteral("deny"), id, QStringLiteral("--reason"),
                QStringLiteral("not that repo") });
        QCOMPARE(decided.exitCode, 0);
        const CtlResult r = finish(p);
        QCOMPARE(r.exitCode, 0);
        const Json out = Json::parse(r.out.toStdString());
        QCOMPARE(out["hookSpecificOutput"]["permissionDecision"], Json(approve ? "allow" : "deny"));
        if (!approve)
            QCOMPARE(out["hookSpecificOutput"]["permissionDecisionReason"], Json("not that repo"));
    }
}

void TestClaudeHook::postToolUseWarnsThenBlocks()
{
    const QString dataDir = m_console->dataDir();
    for (int attempt = 1; attempt <= 2; ++attempt) {
        const std::string id = "toolu_loop_" + std::to_string(attempt);
        Json pre = fixture("pre_bash_long.json");
        pre["tool_use_id"] = id;
        pre["prompt_id"] = "prompt-loop";
        QCOMPARE(hook(dataDir, pre).exitCode, 0);
        Json post = fixture("post_bash_failed.json");
        post["tool_use_id"] = id;
        post["prompt_id"] = "prompt-loop";
        const CtlResult r = hook(dataDir, post);
        QCOMPARE(r.exitCode, 0);
        const Json out = Json::parse(r.out.toStdString());
        if (attempt == 1)
            QCOMPARE(out,
                Json::parse(
                    R"({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"this exact Bash call failed 1 times in this turn"}})"));
        else
            QCOMPARE(out,
                Json::parse(
                    R"({"decision":"block","reason":"Bash failed 2 times in this turn; halting the turn"})"));
    }
}

void TestClaudeHook::postToolUseForAnUnknownCallIsQuiet()
{
    Json post = fixture("post_bash_failed.json");
    post["tool_use_id"] = "toolu_never_seen";
    const CtlResult r = hook(m_console->dataDir(), post);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.isEmpty());
}

void TestClaudeHook::unreachableConsoleBlocks()
{
    QTemporaryDir nowhere;
    const CtlResult blocked = hook(nowhere.path(), fixture("pre_read.json"));
    QCOMPARE(blocked.exitCode, 2);
    QVERIFY(blocked.out.isEmpty());
    QVERIFY2(blocked.err.startsWith("Holdpoint blocked this call: no console found: cannot read "),
        blocked.err.constData());
    const CtlResult open
        = hook(nowhere.path(), fixture("pre_read.json"), { QStringLiteral("--fail-open") });
    QCOMPARE(open.exitCode, 0);
    QVERIFY(open.out.isEmpty());
    QVERIFY(open.err.isEmpty());
}

void TestClaudeHook::badInputBlocks()
{
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), m_console->dataDir(), QStringLiteral("hook"),
            QStringLiteral("claude-code") });
    p.write("{\"hook_event_name\": \"PreToolUse\", \"session_id\": \"s\"}");
    p.closeWriteChannel();
    const CtlResult r = finish(p);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
        QByteArray("Holdpoint blocked this call: hook input: tool_name: required, expected a "
                   "non-empty string of at most 256 bytes\n"));
}

// --fail-open is for a console that is away. A call the hook cannot read, one
// larger than the console takes, or one the console refuses is blocked even
// then: an agent must not get past review by padding or bending a call.
void TestClaudeHook::failOpenStillBlocksARefusedCall()
{
    const QString dataDir = m_console->dataDir();
    const QStringList open { QStringLiteral("--fail-open") };
    auto blockedFor = [](const CtlResult &r, const char *why) {
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith("Holdpoint blocked this call: "), r.err.constData());
        QVERIFY2(r.err.contains(why), r.err.constData());
        QVERIFY2(!r.err.contains("device not open"), r.err.constData());
    };

    Json bad = fixture("pre_read.json");
    bad.erase("tool_name");
    blockedFor(hook(dataDir, bad, open), "hook input: tool_name: required");

    Json large = fixture("pre_read.json");
    large["tool_use_id"] = "toolu_too_large";
    large["tool_input"] = { { "file_path", "/tmp/x" }, { "pad", std::string(1100 * 1024, 'x') } };
    blockedFor(hook(dataDir, large, open),
        "more than the console takes (1048576 bytes, holdpoint --max-message-bytes)");

    Json deep = fixture("pre_read.json");
    deep["tool_use_id"] = "toolu_too_deep";
    Json nested = Json::object();
    for (int i = 0; i < 80; ++i)
        nested = Json { { "n", std::move(nested) } };
    deep["tool_input"] = { { "file_path", "/tmp/x" }, { "nested", std::move(nested) } };
    blockedFor(hook(dataDir, deep, open), "nested deeper than 64 levels");

    // A tool_use_id the console already decided, sent again with other
    // arguments: the console answers `error` call_id_conflict.
    Json first = fixture("pre_read.json");
    first["tool_use_id"] = "toolu_reused";
    QCOMPARE(hook(dataDir, first, open).exitCode, 0);
    Json reused = first;
    reused["tool_input"]["file_path"] = "/etc/shadow";
    blockedFor(hook(dataDir, reused, open), "call_id_conflict");

    // The console is fine and answers the next call as usual.
    QCOMPARE(hook(dataDir, fixture("pre_read.json"), open).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestClaudeHook)
#include "tst_claudehook.moc"
