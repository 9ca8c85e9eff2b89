// SPDX-License-Identifier: Apache-2.0
// The Codex hook's pure parts, on inputs captured from the real Codex CLI
// (tests/integrations/fixtures/codex/README.md).

#include "common/jsoncompare.h"
#include "integrations/codex.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;

namespace {

std::string fixture(const char *name)
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/integrations/fixtures/codex/")
        + QLatin1String(name));
    f.open(QIODevice::ReadOnly);
    return f.readAll().toStdString();
}

Json decision(const char *text)
{
    return Json::parse(text);
}

} // namespace

class TestCodex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesPreToolUse();
    void parsesPermissionRequest();
    void parsesPostToolUse();
    void rejectsOtherEvents();
    void preToolUseOutput_data();
    void preToolUseOutput();
    void permissionRequestOutput();
    void helloSaysNoModifyNoHalt();
    void shippedSnippet();
};

void TestCodex::parsesPreToolUse()
{
    const codex::ParseResult r = codex::parseHookInput(fixture("pre_bash.json"));
    QVERIFY2(r.input, r.error.c_str());
    QCOMPARE(r.input->event, codex::Event::PreToolUse);
    const Json call = codex::toolCallMessage(*r.input, r.input->toolUseId);
    QCOMPARE(call["call_id"], Json("call_1"));
    QCOMPARE(call["tool_name"], Json("Bash"));
    QCOMPARE(call["args"], Json::parse(R"({"command":"echo hi > made.txt; echo out1"})"));
    QCOMPARE(call["turn_id"],
        Json("01a208fa-aa42-7130-b561-24a494077573")); // Codex's turn_id is the turn
    QCOMPARE(call["context"]["codex_hook"], Json("PreToolUse"));
    QCOMPARE(call["context"]["model"], Json("mock-model"));
    QCOMPARE(call["context"]["permission_mode"], Json("bypassPermissions"));
    QCOMPARE(call["context"]["cwd"], Json("/tmp/probe/work"));
}

void TestCodex::parsesPermissionRequest()
{
    const codex::ParseResult r = codex::parseHookInput(fixture("permission_request_escalate.json"));
    QVERIFY2(r.input, r.error.c_str());
    QCOMPARE(r.input->event, codex::Event::PermissionRequest);
    QVERIFY(r.input->toolUseId.empty()); // Codex sends none; the hook makes one up
    const Json call = codex::toolCallMessage(*r.input, "cx-1");
    QCOMPARE(
        call["args"], Json::parse(R"({"command":"echo hi > made.txt","description":"need it"})"));
    QCOMPARE(call["context"]["codex_hook"], Json("PermissionRequest"));
}

void TestCodex::parsesPostToolUse()
{
    const codex::ParseResult ok = codex::parseHookInput(fixture("post_bash.json"));
    QVERIFY2(ok.input, ok.error.c_str());
    QCOMPARE(ok.input->event, codex::Event::PostToolUse);
    const Json result = claudecode::toolResultMessage(*ok.input, ok.input->toolUseId);
    QCOMPARE(result["ok"], Json(true));
    QCOMPARE(result["result"], Json("out1\n"));
    // Codex passes only the output: a failed command looks like a quiet one.
    const codex::ParseResult failed = codex::parseHookInput(fixture("post_bash_failed.json"));
    QVERIFY(failed.input);
    QCOMPARE(claudecode::toolResultMessage(*failed.input, "call_2")["ok"], Json(true));
}

void TestCodex::rejectsOtherEvents()
{
    const codex::ParseResult r
        = codex::parseHookInput(R"({"hook_event_name":"Stop","session_id":"s"})");
    QVERIFY(!r.input);
    QCOMPARE(QString::fromStdString(r.error),
        QStringLiteral("hook input: hook_event_name: \"Stop\" is not handled (configure "
                       "holdpoint-ctl hook codex for "
                       "PreToolUse, PermissionRequest and PostToolUse)"));
    QVERIFY(!codex::parseHookInput("{").input);
    QVERIFY(!codex::parseHookInput(R"({"hook_event_name":"PreToolUse","session_id":"s"})")
                 .input); // no tool_name
}

void TestCodex::preToolUseOutput_data()
{
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("output");
    QTest::newRow("allow prints nothing") << R"({"decision":"allow","args":{},"reason":"ok"})"
                                          << "";
    QTest::newRow("deny")
        << R"({"decision":"deny","reason":"no deletes"})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no deletes"}})";
    // Codex fails a deny without a reason, and then runs the call.
    QTest::newRow("deny without reason")
        << R"({"decision":"deny","reason":""})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied by Holdpoint"}})";
    // No continue:false: Codex fails a PreToolUse hook that sends it.
    QTest::newRow("halt")
        << R"({"decision":"halt","reason":"stop"})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Holdpoint halted this run: stop. Stop here: make no more tool calls and end your turn."}})";
    QTest::newRow("modify")
        << R"({"decision":"modify","args":{"command":"ls"},"reason":"narrower"})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Holdpoint did not run this call: the reviewer approved it only with edited arguments ({\"command\":\"ls\"}), and Codex cannot run edited arguments: narrower. Make the call again with those arguments if they suit the task."}})";
    QTest::newRow("unknown")
        << R"({"decision":"maybe"})"
        << R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Holdpoint answered \"maybe\", which this hook does not know; the call was not run"}})";
}

void TestCodex::preToolUseOutput()
{
    QFETCH(QString, decision);
    QFETCH(QString, output);
    QCOMPARE(QString::fromStdString(codex::preToolUseOutput(Json::parse(decision.toStdString()))),
        output);
}

void TestCodex::permissionRequestOutput()
{
    QCOMPARE(
        Json::parse(codex::permissionRequestOutput(decision(R"({"decision":"allow","args":{}})"))),
        Json::parse(
            R"({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})"));
    QCOMPARE(Json::parse(codex::permissionRequestOutput(
                 decision(R"({"decision":"deny","reason":"inside only"})"))),
        Json::parse(
            R"({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"inside only"}}})"));
    // Never updatedInput or interrupt: Codex fails the hook and asks its own reviewer.
    const Json modified = Json::parse(codex::permissionRequestOutput(
        decision(R"({"decision":"modify","args":{"command":"ls"}})")));
    QCOMPARE(modified["hookSpecificOutput"]["decision"]["behavior"], Json("deny"));
    QVERIFY(!modified["hookSpecificOutput"]["decision"].contains("updatedInput"));
    const Json halted = Json::parse(
        codex::permissionRequestOutput(decision(R"({"decision":"halt","reason":"stop"})")));
    QCOMPARE(halted["hookSpecificOutput"]["decision"]["behavior"], Json("deny"));
    QVERIFY(!halted["hookSpecificOutput"]["decision"].contains("interrupt"));
    QVERIFY(!halted.contains("continue"));
}

void TestCodex::helloSaysNoModifyNoHalt()
{
    QCOMPARE(protocol::capabilitiesToJson(codex::helloCapabilities()),
        Json::parse(R"({"modify":false,"halt":false})"));
}

void TestCodex::shippedSnippet()
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/integrations/codex/hooks.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const Json hooks = Json::parse(f.readAll().toStdString())["hooks"];
    for (const char *event : { "PreToolUse", "PermissionRequest", "PostToolUse" }) {
        const Json &h = hooks.at(event).at(0).at("hooks").at(0);
        // Codex runs the call when its hook fails (127, a signal): the shell's
        // `|| exit 2` blocks it instead.
        QCOMPARE(h["command"], Json("holdpoint-ctl hook codex || exit 2"));
        // A hook Codex times out lets the call run: wait longer than the console.
        if (std::string(event) != "PostToolUse")
            QVERIFY(h["timeout"].get<int>() > 300);
    }
}

QTEST_GUILESS_MAIN(TestCodex)
#include "tst_codex.moc"
