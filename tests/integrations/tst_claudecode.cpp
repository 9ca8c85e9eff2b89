// SPDX-License-Identifier: Apache-2.0
// The Claude Code hook's pure parts: input parsing and the output mapping.

#include "common/jsoncompare.h"
#include "integrations/claudecode.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::claudecode;

namespace {

std::string fixture(const char *name)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/claude-code/")
        + QLatin1String(name));
    f.open(QIODevice::ReadOnly);
    return f.readAll().toStdString();
}

} // namespace

class TestClaudeCode : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesPreToolUse();
    void parsesPostToolUse();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void responseErrors_data();
    void responseErrors();
    void preToolUseOutput_data();
    void preToolUseOutput();
    void postToolUseOutput_data();
    void postToolUseOutput();
    void shippedSettingsSnippet();
};

void TestClaudeCode::parsesPreToolUse()
{
    const ParseResult r = parseHookInput(fixture("pre_bash_long.json"));
    QVERIFY2(r.input, r.error.c_str());
    const HookInput &in = *r.input;
    QCOMPARE(in.event, Event::PreToolUse);
    QCOMPARE(in.sessionId, std::string("9b2c1d7e-4a5f-4c3b-8e21-6f0a7d3c5b19"));
    QCOMPARE(in.toolName, std::string("Bash"));
    QCOMPARE(in.toolUseId, std::string("toolu_03Bash"));
    QCOMPARE(in.promptId.value(), std::string("prompt-7"));
    const Json call = toolCallMessage(in, in.toolUseId);
    QCOMPARE(call,
        Json::parse(
            R"({"type":"tool_call","call_id":"toolu_03Bash","tool_name":"Bash","turn_id":"prompt-7",
        "args":{"command":"make test","description":"Run the tests","timeout":600000},
        "context":{"cwd":"/home/dev/app","permission_mode":"default","transcript_path":"/home/dev/.claude/projects/app/9b2c1d7e.jsonl"}})"));
    QVERIFY(parseHookInput(fixture("pre_read.json")).input); // unknown fields are ignored
    // Without a prompt_id the whole session is the turn.
    const ParseResult noPrompt = parseHookInput(
        R"({"session_id":"s9","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"tool_use_id":"t"})");
    QCOMPARE(toolCallMessage(*noPrompt.input, "t")["turn_id"], Json("s9"));
    QCOMPARE(parseHookInput(fixture("pre_bash_sudo.json")).input->context["agent_type"],
        Json("cleanup-agent"));
}

void TestClaudeCode::parsesPostToolUse()
{
    const ParseResult r = parseHookInput(fixture("post_bash_failed.json"));
    QVERIFY2(r.input, r.error.c_str());
    QCOMPARE(r.input->event, Event::PostToolUse);
    QVERIFY(r.input->failed);
    const Json result = toolResultMessage(*r.input, "toolu_03Bash");
    QCOMPARE(result["ok"], Json(false));
    QCOMPARE(result["result"]["stderr"], Json("FAILED tests/test_app.py"));
    // Newer Claude Code reports failures as their own event.
    const ParseResult f = parseHookInput(
        R"({"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{},"tool_use_id":"t","error":"timed out"})");
    QVERIFY(f.input && f.input->failed);
    QCOMPARE(toolResultMessage(*f.input, "t")["result"], Json({ { "error", "timed out" } }));
}

void TestClaudeCode::rejectsBadInput_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("error");
    QTest::newRow("not JSON")
        << "{"
        << "hook input is not valid JSON: parse error at line 1, column 2: syntax error while "
           "parsing object key - unexpected end of input; expected string literal";
    QTest::newRow("array") << "[]"
                           << "hook input: expected a JSON object, got array";
    QTest::newRow("no event")
        << R"({"session_id":"s"})"
        << "hook input: hook_event_name: required, expected PreToolUse or PostToolUse";
    QTest::newRow("other event")
        << R"({"hook_event_name":"Stop","session_id":"s"})"
        << "hook input: hook_event_name: \"Stop\" is not handled (configure holdpoint-ctl hook "
           "claude-code for PreToolUse and PostToolUse)";
    QTest::newRow("no session") << R"({"hook_event_name":"PreToolUse","tool_name":"Read"})"
                                << "hook input: session_id: required, expected a string of 1 to "
                                   "256 bytes without control characters";
    QTest::newRow("no tool")
        << R"({"hook_event_name":"PreToolUse","session_id":"s"})"
        << "hook input: tool_name: required, expected a non-empty string of at most 256 bytes";
    QTest::newRow("tool_input not object")
        << R"({"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Read","tool_input":"x"})"
        << "hook input: tool_input: expected an object, got string";
    QTest::newRow("duplicate key")
        << R"({"hook_event_name":"PreToolUse","hook_event_name":"PostToolUse"})"
        << "hook input is not valid JSON: duplicate key \"hook_event_name\"";
}

void TestClaudeCode::rejectsBadInput()
{
    QFETCH(QString, input);
    QFETCH(QString, error);
    const ParseResult r = parseHookInput(input.toStdString());
    QVERIFY(!r.input);
    QCOMPARE(toQString(r.error), error);
}

void TestClaudeCode::responseErrors_data()
{
    QTest::addColumn<QString>("response");
    QTest::addColumn<bool>("error");
    QTest::newRow("bash ok") << R"({"stdout":"ok","stderr":"","interrupted":false})" << false;
    QTest::newRow("error text") << R"({"error":"exit 1"})" << true;
    QTest::newRow("empty error") << R"({"error":""})" << false;
    QTest::newRow("error false") << R"({"error":false})" << false;
    QTest::newRow("is_error") << R"({"is_error":true})" << true;
    QTest::newRow("MCP isError") << R"({"content":[],"isError":true})" << true;
    QTest::newRow("success false") << R"({"success":false})" << true;
    QTest::newRow("a string") << R"("done")" << false;
}

void TestClaudeCode::responseErrors()
{
    QFETCH(QString, response);
    QFETCH(bool, error);
    QCOMPARE(responseIsError(Json::parse(response.toStdString())), error);
}

void TestClaudeCode::preToolUseOutput_data()
{
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("output");
    QTest::newRow("allow")
        << R"({"type":"decision","call_id":"t","decision":"allow","args":{"a":1},"reason":"fine","decided_by":"human:al","warnings":[]})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}})";
    QTest::newRow("modify")
        << R"({"type":"decision","call_id":"t","decision":"modify","args":{"a":2},"reason":"edited","decided_by":"human:al","warnings":[]})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"edited","updatedInput":{"a":2}}})";
    QTest::newRow("deny")
        << R"({"type":"decision","call_id":"t","decision":"deny","reason":"no","decided_by":"human:al","warnings":[]})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}})";
    QTest::newRow("halt")
        << R"({"type":"decision","call_id":"t","decision":"halt","reason":"stop","decided_by":"human:al","warnings":[]})"
        << R"({"continue":false,"stopReason":"stop","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Holdpoint halted the run: stop"}})";
    QTest::newRow("halt of a halted turn")
        << R"({"type":"decision","call_id":"t","decision":"halt","reason":"the run was halted (stop); no tool call runs for the rest of this turn","decided_by":"human:al","code":"turn_halted","warnings":[]})"
        << R"({"continue":false,"stopReason":"the run was halted (stop); no tool call runs for the rest of this turn","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the run was halted (stop); no tool call runs for the rest of this turn"}})";
}

void TestClaudeCode::preToolUseOutput()
{
    QFETCH(QString, decision);
    QFETCH(QString, output);
    QCOMPARE(Json::parse(claudecode::preToolUseOutput(Json::parse(decision.toStdString()))),
        Json::parse(output.toStdString()));
}

void TestClaudeCode::postToolUseOutput_data()
{
    QTest::addColumn<QString>("afterCall");
    QTest::addColumn<QString>("output");
    QTest::newRow("allow prints nothing")
        << R"({"type":"after_call","call_id":"t","action":"allow","reason":""})"
        << "";
    QTest::newRow("warn")
        << R"({"type":"after_call","call_id":"t","action":"warn","reason":"failed twice"})"
        << R"({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"failed twice"}})";
    QTest::newRow("halt")
        << R"({"type":"after_call","call_id":"t","action":"halt","reason":"looping"})"
        << R"({"decision":"block","reason":"looping"})";
}

void TestClaudeCode::postToolUseOutput()
{
    QFETCH(QString, afterCall);
    QFETCH(QString, output);
    const std::string out = claudecode::postToolUseOutput(Json::parse(afterCall.toStdString()));
    if (output.isEmpty())
        QVERIFY(out.empty());
    else
        QCOMPARE(Json::parse(out), Json::parse(output.toStdString()));
}

void TestClaudeCode::shippedSettingsSnippet()
{
    QFile f(
        QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/integrations/claude-code/settings.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json settings = Json::parse(f.readAll().toStdString());
    // A failed call reaches only PostToolUseFailure hooks: without that
    // entry loop detection never sees a Claude Code failure.
    for (const char *event : { "PreToolUse", "PostToolUse", "PostToolUseFailure" }) {
        const Json &entry = settings["hooks"][event].at(0);
        QCOMPARE(entry["matcher"], Json("*"));
        QCOMPARE(entry["hooks"].at(0)["type"], Json("command"));
        // Claude Code runs the call when a hook exits with anything but 0 or
        // 2: `|| exit 2` blocks it when holdpoint-ctl is missing or crashes.
        QCOMPARE(entry["hooks"].at(0)["command"], Json("holdpoint-ctl hook claude-code || exit 2"));
    }
    // Longer than the console's default timeout (300 s), so the console, not
    // Claude Code, ends a call nobody decides, with a reason.
    QVERIFY(settings["hooks"]["PreToolUse"].at(0)["hooks"].at(0)["timeout"].get<int>() > 300);
}

QTEST_GUILESS_MAIN(TestClaudeCode)
#include "tst_claudecode.moc"
