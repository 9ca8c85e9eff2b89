// SPDX-License-Identifier: Apache-2.0
// The Gemini CLI hook's pure parts: input parsing, the output mapping and the
// ledger that ties an AfterTool to its BeforeTool. The fixtures are hook
// inputs captured from Gemini CLI 0.61.0 (tests/gemini has the CLI).

#include "common/jsoncompare.h"
#include "integrations/gemini.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::gemini;

namespace {

HookInput parsed(const char *fixtureName)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/gemini/")
        + QLatin1String(fixtureName));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", fixtureName);
    ParseResult r = parseHookInput(f.readAll().toStdString());
    if (!r.input)
        qFatal("%s: %s", fixtureName, r.error.c_str());
    return std::move(*r.input);
}

Json decision(const char *json)
{
    return Json::parse(json);
}

Json output(const Json &d, const Json &modelArgs)
{
    return beforeToolAnswer(d, modelArgs);
}

} // namespace

class TestGemini : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesBeforeTool();
    void parsesAfterTool();
    void failures();
    void rejectsBadInput();
    void beforeToolAnswers();
    void anEditThatDropsAnArgumentIsDenied();
    void afterToolAnswers();
    void ledgerFindsTheCall();
    void ledgerForgetsOldCalls();
    void beforeAgentStartsATurn();
    void shippedSettingsSnippet();
};

void TestGemini::parsesBeforeTool()
{
    const HookInput in = parsed("before_shell.json");
    QCOMPARE(in.event, Event::BeforeTool);
    QCOMPARE(in.sessionId, std::string("197623c9-c537-4f68-b24e-6b16e3073f25"));
    QCOMPARE(in.toolName, std::string("run_shell_command"));
    QCOMPARE(toolCallMessage(in, "gm-1"),
        Json::parse(R"({"type":"tool_call","call_id":"gm-1","tool_name":"run_shell_command",
        "args":{"command":"ls /nonexistent-dir","description":"list a missing dir"},
        "context":{"cwd":"/tmp/gprobe/work","transcript_path":"/tmp/gprobe/home/.gemini/tmp/work/chats/session-2026-11-23T15-04-197623c9.jsonl"}})"));
    QCOMPARE(parsed("before_write_file.json").toolInput["content"], Json("hello\n"));
    QCOMPARE(parsed("before_read_file.json").toolName, std::string("read_file"));
    // MCP tools carry their server; a tail call the tool it replaced.
    const ParseResult mcp = parseHookInput(
        R"({"session_id":"s","hook_event_name":"BeforeTool","tool_name":"mcp_fs_read",
        "tool_input":{},"mcp_context":{"server_name":"fs","tool_name":"read"},"original_request_name":"read_file","timestamp":"t"})");
    QVERIFY(mcp.input);
    QCOMPARE(mcp.input->context,
        Json::parse(
            R"({"mcp_context":{"server_name":"fs","tool_name":"read"},"original_request_name":"read_file"})"));
}

void TestGemini::parsesAfterTool()
{
    const HookInput ok = parsed("after_write_file.json");
    QCOMPARE(ok.event, Event::AfterTool);
    QVERIFY(!ok.failed);
    const Json result = toolResultMessage(ok, "gm-2");
    QCOMPARE(result["ok"], Json(true));
    QCOMPARE(result["result"]["returnDisplay"]["isNewFile"], Json(true));
    QCOMPARE(toolResultMessage(parsed("after_read_file.json"), "gm-3")["result"]["llmContent"],
        Json("hello\n"));
}

void TestGemini::failures()
{
    // A tool's error, as read_file reports a missing file.
    QVERIFY(parsed("after_read_file_error.json").failed);
    QCOMPARE(toolResultMessage(parsed("after_read_file_error.json"), "x")["ok"], Json(false));
    // The shell tool reports its exit status in the text only.
    QVERIFY(parsed("after_shell_failed.json").failed);
    QVERIFY(!responseFailed(
        "run_shell_command", Json { { "llmContent", "Output: ok\nProcess Group PGID: 1" } }));
    QVERIFY(!responseFailed(
        "run_shell_command", Json { { "llmContent", "Output: (empty)\nExit Code: 0" } }));
    QVERIFY(!responseFailed("read_file", Json { { "llmContent", "Exit Code: 2" } }));
    QVERIFY(!responseFailed("read_file", Json { { "llmContent", "x" }, { "error", nullptr } }));
}

void TestGemini::rejectsBadInput()
{
    const std::pair<const char *, const char *> cases[] = {
        { "{",
            "hook input is not valid JSON: parse error at line 1, column 2: syntax error while "
            "parsing object key - unexpected end of input; expected string literal" },
        { "[]", "hook input: expected a JSON object, got array" },
        { R"({"session_id":"s"})",
            "hook input: hook_event_name: required, expected BeforeTool, AfterTool or "
            "BeforeAgent" },
        { R"({"hook_event_name":"BeforeModel","session_id":"s"})",
            "hook input: hook_event_name: \"BeforeModel\" is not handled (configure holdpoint-ctl "
            "hook gemini for BeforeTool, AfterTool and BeforeAgent)" },
        { R"({"hook_event_name":"BeforeTool","tool_name":"read_file"})",
            "hook input: session_id: required, expected a string of 1 to 256 bytes without control "
            "characters" },
        { R"({"hook_event_name":"AfterTool","session_id":"s"})",
            "hook input: tool_name: required, expected a non-empty string of at most 256 bytes" },
        { R"({"hook_event_name":"BeforeTool","session_id":"s","tool_name":"x","tool_input":[1]})",
            "hook input: tool_input: expected an object, got array" },
    };
    for (const auto &[input, error] : cases) {
        const ParseResult r = parseHookInput(input);
        QVERIFY2(!r.input, input);
        QCOMPARE(QString::fromStdString(r.error), QString::fromUtf8(error));
    }
}

void TestGemini::beforeToolAnswers()
{
    const Json args { { "command", "make" }, { "description", "build" } };
    QCOMPARE(
        output(
            decision(
                R"({"decision":"allow","args":{"command":"make","description":"build"},"reason":"ok"})"),
            args),
        Json::parse(R"({"decision":"allow"})"));
    // Gemini CLI reads hookSpecificOutput.tool_input as the arguments to run.
    QCOMPARE(
        output(
            decision(
                R"({"decision":"modify","args":{"command":"make -n","description":"build"},"reason":"dry run"})"),
            args),
        Json::parse(R"({"decision":"allow","reason":"dry run",
                 "hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"make -n","description":"build"}}})"));
    // An added argument is fine: it is in what Gemini CLI gets.
    QCOMPARE(
        output(
            decision(
                R"({"decision":"modify","args":{"command":"make","description":"build","dir_path":"/src"}})"),
            args)["hookSpecificOutput"]["tool_input"]["dir_path"],
        Json("/src"));
    QCOMPARE(
        output(decision(R"({"decision":"deny","reason":"not now","decided_by":"human:al"})"), args),
        Json::parse(R"({"decision":"deny","reason":"not now"})"));
    QCOMPARE(output(decision(R"({"decision":"halt","reason":"stop"})"), args),
        Json::parse(R"({"decision":"deny","reason":"stop","continue":false,"stopReason":"stop"})"));
    // A decision this hook does not know must not let the call run.
    QCOMPARE(output(decision(R"({"decision":"later"})"), args),
        Json::parse(R"({"decision":"deny","reason":"denied by Holdpoint"})"));
    QCOMPARE(
        output(decision(R"({"decision":"modify","args":[1]})"), args)["decision"], Json("deny"));
}

void TestGemini::anEditThatDropsAnArgumentIsDenied()
{
    const Json args { { "command", "make" }, { "description", "build" } };
    const Json out = output(
        decision(R"({"decision":"modify","args":{"command":"make"},"reason":"edited"})"), args);
    QCOMPARE(out["decision"], Json("deny"));
    QCOMPARE(out["reason"],
        Json("Holdpoint: the approved arguments leave out \"description\", which a Gemini CLI hook "
             "cannot remove; "
             "the call was not run. Approved arguments: {\"command\":\"make\"}"));
    QVERIFY(!out.contains("hookSpecificOutput"));
}

void TestGemini::afterToolAnswers()
{
    QVERIFY(
        afterToolOutput(decision(R"({"type":"after_call","action":"allow","reason":""})")).empty());
    QCOMPARE(
        Json::parse(afterToolOutput(decision(R"({"action":"warn","reason":"ls failed twice"})"))),
        Json::parse(
            R"({"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"ls failed twice"}})"));
    QCOMPARE(Json::parse(afterToolOutput(decision(R"({"action":"halt","reason":"looping"})"))),
        Json::parse(R"({"continue":false,"stopReason":"looping"})"));
}

void TestGemini::ledgerFindsTheCall()
{
    Json ledger; // a missing file
    const Json a { { "command", "ls" } };
    const Json edited { { "command", "ls -l" } };
    ledgerAdd(&ledger, "gm-1", "run_shell_command", a, a, 1000);
    ledgerAdd(&ledger, "gm-2", "run_shell_command", a, edited, 2000);
    ledgerAdd(&ledger, "gm-3", "read_file", a, a, 3000);
    QCOMPARE(ledger["calls"].size(), std::size_t(3));
    QCOMPARE(ledger["calls"][0]["args"].size(), std::size_t(1)); // the same arguments once
    QVERIFY(ledgerTake(&ledger, "run_shell_command", edited) == std::optional<std::string>("gm-2"));
    QVERIFY(ledgerTake(&ledger, "run_shell_command", a) == std::optional<std::string>("gm-1"));
    QVERIFY(ledgerTake(&ledger, "run_shell_command", a) == std::nullopt); // each call once
    QVERIFY(ledgerTake(&ledger, "read_file", edited) == std::nullopt);
    QVERIFY(ledgerTake(&ledger, "read_file", a) == std::optional<std::string>("gm-3"));
    Json garbage = Json::array();
    QVERIFY(ledgerTake(&garbage, "read_file", a) == std::nullopt);
}

void TestGemini::ledgerForgetsOldCalls()
{
    Json ledger
        = Json::parse(R"({"calls":[{"call_id":"old","tool_name":"t","args":[{}],"at_ms":0}, 42]})");
    ledgerAdd(&ledger, "new", "t", Json::object(), Json::object(), LedgerMaxAgeMs + 1);
    QCOMPARE(ledger["calls"].size(), std::size_t(1));
    QCOMPARE(ledger["calls"][0]["call_id"], Json("new"));
    for (std::size_t i = 0; i < LedgerMaxCalls + 5; ++i)
        ledgerAdd(&ledger, "c" + std::to_string(i), "t", Json::object(), Json::object(),
            LedgerMaxAgeMs + 2);
    QCOMPARE(ledger["calls"].size(), LedgerMaxCalls);
    QCOMPARE(ledger["calls"][0]["call_id"], Json("c5"));
}

void TestGemini::beforeAgentStartsATurn()
{
    const ParseResult agent = parseHookInput(
        R"({"session_id":"s1","hook_event_name":"BeforeAgent","prompt":"hi","cwd":"/w"})");
    QVERIFY2(agent.input, agent.error.c_str());
    QCOMPARE(agent.input->event, Event::BeforeAgent);
    QCOMPARE(agent.input->sessionId, std::string("s1"));
    QVERIFY(
        !parseHookInput(R"({"hook_event_name":"BeforeAgent","prompt":"hi"})").input); // no session
    Json ledger; // a missing file
    QVERIFY(ledgerTurn(ledger) == std::nullopt);
    ledgerStartTurn(&ledger, "gt-1");
    ledgerAdd(&ledger, "gm-1", "t", Json::object(), Json::object(), 1000);
    QVERIFY(
        ledgerTurn(ledger) == std::optional<std::string>("gt-1")); // adding a call keeps the turn
    ledgerStartTurn(&ledger, "gt-2");
    QVERIFY(ledgerTurn(ledger) == std::optional<std::string>("gt-2"));
    QCOMPARE(ledger["calls"].size(), std::size_t(1));
    QVERIFY(ledgerTurn(Json::parse(R"({"turn":""})")) == std::nullopt);
    const HookInput in = parsed("before_shell.json");
    QCOMPARE(toolCallMessage(in, "gm-1", "gt-2")["turn_id"], Json("gt-2"));
    QVERIFY(!toolCallMessage(in, "gm-1").contains("turn_id"));
}

void TestGemini::shippedSettingsSnippet()
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/integrations/gemini/settings.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json settings = Json::parse(f.readAll().toStdString());
    const Json &agent = settings["hooks"]["BeforeAgent"].at(0)["hooks"].at(0);
    QCOMPARE(agent["command"], Json("holdpoint-ctl hook gemini"));
    for (const char *event : { "BeforeTool", "AfterTool" }) {
        const Json &hook = settings["hooks"][event].at(0)["hooks"].at(0);
        QCOMPARE(settings["hooks"][event].at(0)["matcher"], Json("*"));
        QCOMPARE(hook["type"], Json("command"));
        QCOMPARE(hook["command"], Json("holdpoint-ctl hook gemini"));
    }
    // Milliseconds, and longer than the console's default timeout (300 s):
    // a hook Gemini CLI times out gives no answer, and the call runs.
    QVERIFY(
        settings["hooks"]["BeforeTool"].at(0)["hooks"].at(0)["timeout"].get<int>() > 300 * 1000);
}

QTEST_GUILESS_MAIN(TestGemini)
#include "tst_gemini.moc"
