// SPDX-License-Identifier: Apache-2.0
#include "protocol/protocol.h"

#include "common/jsoncompare.h"

#include <QTest>

using namespace holdpoint;
using namespace holdpoint::protocol;

class TestProtocol : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesValidMessages_data();
    void parsesValidMessages();
    void rejectsBadMessages_data();
    void rejectsBadMessages();
    void toolCallFields();
    void helloDefaults();
    void helloCapabilities_data();
    void helloCapabilities();
    void reviewFields();
    void deepNestingIsRefusedWithoutRecursion();
    void nestingDepthIgnoresBracketsInStrings_data();
    void nestingDepthIgnoresBracketsInStrings();
    void unknownFieldsAreIgnored();
    void numbersComeBackExactly();
    void largeResultsAreDigested();
    void errorNamesTheCallId();
    void decisionSerialisation();
    void everyErrorCodeHasAName();
};

void TestProtocol::parsesValidMessages_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("index"); // variant index of the expected message

    QTest::newRow("hello")
        << R"({"type":"hello","protocol":1,"token":"t","agent":{"name":"coder","framework":"autogen"}})"
        << 0;
    QTest::newRow("hello reviewer")
        << R"({"type":"hello","protocol":1,"token":"t","role":"reviewer"})" << 0;
    QTest::newRow("turn_start") << R"({"type":"turn_start","turn_id":"t1"})" << 1;
    QTest::newRow("turn_end") << R"({"type":"turn_end","turn_id":"t1"})" << 2;
    QTest::newRow("tool_call minimal")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"write_file","args":{}})" << 3;
    QTest::newRow("tool_call full")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"write_file","args":{"path":"a"},"turn_id":"t1","context":{"cwd":"/"},"annotations":{"readOnlyHint":false},"timeout_s":120})"
        << 3;
    QTest::newRow("tool_call null optionals")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{},"turn_id":null,"context":null,"timeout_s":null})"
        << 3;
    QTest::newRow("tool_result")
        << R"({"type":"tool_result","call_id":"c1","ok":true,"result":{"x":[1,2]}})" << 4;
    QTest::newRow("tool_result no result")
        << R"({"type":"tool_result","call_id":"c1","ok":false})" << 4;
    QTest::newRow("cancel") << R"({"type":"cancel","call_id":"c1"})" << 5;
    QTest::newRow("review approve") << R"({"type":"review","id":"abc","action":"approve"})" << 6;
    QTest::newRow("review deny") << R"({"type":"review","id":"abc","action":"deny","reason":"no"})"
                                 << 6;
    QTest::newRow("review edit") << R"({"type":"review","id":"abc","action":"edit","args":{"a":1}})"
                                 << 6;
    QTest::newRow("review halt") << R"({"type":"review","id":"abc","action":"halt"})" << 6;
    QTest::newRow("whitespace around") << " \n{\"type\":\"cancel\",\"call_id\":\"c1\"}\n " << 5;
}

void TestProtocol::parsesValidMessages()
{
    QFETCH(QString, text);
    QFETCH(int, index);
    const ParseResult r = parseMessage(text.toStdString());
    QVERIFY2(r.ok(), r.error.message.c_str());
    QCOMPARE(int(r.message->index()), index);
}

void TestProtocol::rejectsBadMessages_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");

    QTest::newRow("empty") << ""
                           << "invalid_json"
                           << "empty message: expected one JSON object";
    QTest::newRow("invalid json")
        << "{\"type\":"
        << "invalid_json"
        << "parse error at line 1, column 9: syntax error while parsing value - unexpected end of "
           "input; expected '[', '{', or a literal";
    QTest::newRow("NaN literal") << R"({"type":"tool_call","x":NaN})"
                                 << "invalid_json"
                                 << "parse error at line 1, column 25: syntax error while parsing "
                                    "value - invalid literal; last read: '\"x\":N'";
    QTest::newRow("duplicate key") << R"({"type":"cancel","type":"tool_call"})"
                                   << "invalid_json"
                                   << "duplicate key \"type\"";
    QTest::newRow("duplicate arg")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"w","args":{"path":"a","path":"/etc/passwd"}})"
        << "invalid_json"
        << "args: duplicate key \"path\"";
    QTest::newRow("30-digit integer")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"w","args":{"id":123456789012345678901234567890}})"
        << "invalid_json"
        << "args.id: integer 123456789012345678901234567890 does not fit in 64 bits; send it as a "
           "string";
    QTest::newRow("integer in an array")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"w","args":{"ids":[1,-99999999999999999999]}})"
        << "invalid_json"
        << "args.ids[1]: integer -99999999999999999999 does not fit in 64 bits; send it as a "
           "string";
    QTest::newRow("huge float")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"w","args":{"x":1e400}})"
        << "invalid_json"
        << "args.x: number 1e400 is out of range";
    QTest::newRow("Infinity literal") << R"({"type":"tool_call","x":Infinity})"
                                      << "invalid_json"
                                      << "parse error at line 1, column 25: syntax error while "
                                         "parsing value - invalid literal; last read: '\"x\":I'";
    QTest::newRow("array") << "[1,2]"
                           << "invalid_message"
                           << "expected a JSON object, got array";
    QTest::newRow("string") << "\"hello\""
                            << "invalid_message"
                            << "expected a JSON object, got string";
    QTest::newRow("number") << "42"
                            << "invalid_message"
                            << "expected a JSON object, got number";
    QTest::newRow("no type") << R"({"call_id":"c1"})"
                             << "missing_field"
                             << "type: required, expected a string naming the message";
    QTest::newRow("type not string") << R"({"type":7})"
                                     << "invalid_field"
                                     << "type: expected a string, got number";
    QTest::newRow("unknown type")
        << R"({"type":"launch_missiles"})"
        << "unknown_type"
        << "type: unknown message type \"launch_missiles\" (expected one of: hello, turn_start, "
           "turn_end, tool_call, tool_result, cancel, review)";
    QTest::newRow("missing tool_name")
        << R"({"type":"tool_call","call_id":"c1","args":{}})"
        << "missing_field"
        << "tool_name: required, expected a non-empty string of at most 256 bytes";
    QTest::newRow("empty tool_name")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"","args":{}})"
        << "invalid_field"
        << "tool_name: expected a non-empty string of at most 256 bytes";
    QTest::newRow("tool_name not string")
        << R"({"type":"tool_call","call_id":"c1","tool_name":["a"],"args":{}})"
        << "invalid_field"
        << "tool_name: expected a non-empty string of at most 256 bytes, got array";
    QTest::newRow("missing args") << R"({"type":"tool_call","call_id":"c1","tool_name":"x"})"
                                  << "missing_field"
                                  << "args: required, expected an object";
    QTest::newRow("args array")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":[1]})"
        << "invalid_field"
        << "args: expected an object, got array";
    QTest::newRow("args string")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":"{}"})"
        << "invalid_field"
        << "args: expected an object, got string";
    QTest::newRow("missing call_id")
        << R"({"type":"tool_call","tool_name":"x","args":{}})"
        << "missing_field"
        << "call_id: required, expected a string of 1 to 256 bytes without control characters";
    QTest::newRow("call_id number")
        << R"({"type":"tool_call","call_id":1,"tool_name":"x","args":{}})"
        << "invalid_field"
        << "call_id: expected a string of 1 to 256 bytes without control characters, got number";
    QTest::newRow("call_id control char")
        << "{\"type\":\"tool_call\",\"call_id\":\"a\\u0007b\",\"tool_name\":\"x\",\"args\":{}}"
        << "invalid_field"
        << "call_id: expected a string of 1 to 256 bytes without control characters";
    QTest::newRow("context array")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{},"context":[]})"
        << "invalid_field"
        << "context: expected an object, got array";
    QTest::newRow("annotation not bool")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{},"annotations":{"readOnlyHint":"yes"}})"
        << "invalid_field"
        << "annotations.readOnlyHint: expected true or false, got string";
    QTest::newRow("timeout zero")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{},"timeout_s":0})"
        << "invalid_field"
        << "timeout_s: expected a number of seconds above 0 and at most 86400";
    QTest::newRow("timeout string")
        << R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{},"timeout_s":"5"})"
        << "invalid_field"
        << "timeout_s: expected a number of seconds, got string";
    QTest::newRow("tool_result no ok") << R"({"type":"tool_result","call_id":"c1"})"
                                       << "missing_field"
                                       << "ok: required, expected true or false";
    QTest::newRow("turn without id")
        << R"({"type":"turn_start"})"
        << "missing_field"
        << "turn_id: required, expected a string of 1 to 256 bytes without control characters";
    QTest::newRow("hello no protocol") << R"({"type":"hello","token":"t"})"
                                       << "missing_field"
                                       << "protocol: required, expected the integer 1";
    QTest::newRow("hello protocol 2") << R"({"type":"hello","protocol":2,"token":"t"})"
                                      << "unsupported_protocol"
                                      << "protocol: this console speaks protocol 1, got 2";
    QTest::newRow("hello no token")
        << R"({"type":"hello","protocol":1})"
        << "missing_field"
        << "token: required, expected a non-empty string of at most 1024 bytes";
    QTest::newRow("hello bad role") << R"({"type":"hello","protocol":1,"token":"t","role":"admin"})"
                                    << "invalid_field"
                                    << "role: expected \"agent\" or \"reviewer\", got \"admin\"";
    QTest::newRow("hello agent name number")
        << R"({"type":"hello","protocol":1,"token":"t","agent":{"name":5}})"
        << "invalid_field"
        << "agent.name: expected a non-empty string of at most 256 bytes, got number";
    QTest::newRow("hello capabilities not an object")
        << R"({"type":"hello","protocol":1,"token":"t","capabilities":["modify"]})"
        << "invalid_field"
        << "capabilities: expected an object, got array";
    QTest::newRow("hello capability not a boolean")
        << R"({"type":"hello","protocol":1,"token":"t","capabilities":{"modify":"no"}})"
        << "invalid_field"
        << "capabilities.modify: expected true or false, got string";
    QTest::newRow("review bad action")
        << R"({"type":"review","id":"a","action":"yolo"})"
        << "invalid_field"
        << "action: expected one of approve, deny, edit, halt, got \"yolo\"";
    QTest::newRow("deny without reason")
        << R"({"type":"review","id":"a","action":"deny"})"
        << "missing_field"
        << "reason: required for deny, expected a non-empty string";
    QTest::newRow("deny blank reason")
        << R"({"type":"review","id":"a","action":"deny","reason":"  "})"
        << "missing_field"
        << "reason: required for deny, expected a non-empty string";
    QTest::newRow("edit without args") << R"({"type":"review","id":"a","action":"edit"})"
                                       << "missing_field"
                                       << "args: required for edit, expected an object";
}

void TestProtocol::rejectsBadMessages()
{
    QFETCH(QString, text);
    QFETCH(QString, code);
    QFETCH(QString, message);
    const ParseResult r = parseMessage(text.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromLatin1(errorCodeName(r.error.code)), code);
    QCOMPARE(toQString(r.error.message), message);
}

void TestProtocol::toolCallFields()
{
    const ParseResult r = parseMessage(
        R"({"type":"tool_call","call_id":"c1","tool_name":"write_file","args":{"path":"a.txt"},"turn_id":"t9","context":{"cwd":"/w"},"annotations":{"destructiveHint":true},"timeout_s":2.5})");
    QVERIFY(r.ok());
    const auto &c = std::get<ToolCall>(*r.message);
    QCOMPARE(c.callId, std::string("c1"));
    QCOMPARE(c.toolName, std::string("write_file"));
    QCOMPARE(c.args, Json({ { "path", "a.txt" } }));
    QCOMPARE(c.turnId.value(), std::string("t9"));
    QCOMPARE(c.context, Json({ { "cwd", "/w" } }));
    QCOMPARE(c.annotations, Json({ { "destructiveHint", true } }));
    QCOMPARE(c.timeoutS.value(), 2.5);
}

void TestProtocol::helloDefaults()
{
    const ParseResult r
        = parseMessage(R"({"type":"hello","protocol":1,"token":"abc","session_id":"s-1"})");
    QVERIFY(r.ok());
    const auto &h = std::get<Hello>(*r.message);
    QCOMPARE(h.role, Role::Agent);
    QCOMPARE(h.agent.name, std::string("agent"));
    QCOMPARE(h.sessionId.value(), std::string("s-1"));
    QCOMPARE(h.token, std::string("abc"));
    // A client from before capabilities takes everything.
    QVERIFY(h.agent.capabilities.modify);
    QVERIFY(h.agent.capabilities.halt);
}

void TestProtocol::helloCapabilities_data()
{
    QTest::addColumn<QString>("capabilities");
    QTest::addColumn<bool>("modify");
    QTest::addColumn<bool>("halt");
    QTest::newRow("empty") << "{}" << true << true;
    QTest::newRow("no edits") << R"({"modify":false})" << false << true;
    QTest::newRow("no halt") << R"({"halt":false})" << true << false;
    QTest::newRow("neither") << R"({"modify":false,"halt":false})" << false << false;
    QTest::newRow("said yes") << R"({"modify":true,"halt":true})" << true << true;
    QTest::newRow("unknown ones ignored")
        << R"({"modify":false,"streaming":"maybe"})" << false << true;
}

void TestProtocol::helloCapabilities()
{
    QFETCH(QString, capabilities);
    QFETCH(bool, modify);
    QFETCH(bool, halt);
    const ParseResult r
        = parseMessage(R"({"type":"hello","protocol":1,"token":"abc","capabilities":)"
            + capabilities.toStdString() + "}");
    QVERIFY2(r.ok(), r.error.message.c_str());
    const Capabilities &c = std::get<Hello>(*r.message).agent.capabilities;
    QCOMPARE(c.modify, modify);
    QCOMPARE(c.halt, halt);
    // Written back as only what is missing, and read back the same.
    QCOMPARE(capabilitiesFromJson(capabilitiesToJson(c)), c);
    QCOMPARE(capabilitiesToJson(c).size(), std::size_t(!modify) + std::size_t(!halt));
}

void TestProtocol::reviewFields()
{
    const ParseResult r = parseMessage(
        R"({"type":"review","id":"i1","action":"edit","args":{"p":"b"},"reason":"fix path"})");
    QVERIFY(r.ok());
    const auto &v = std::get<Review>(*r.message);
    QCOMPARE(v.action, ReviewAction::Edit);
    QCOMPARE(v.args.value(), Json({ { "p", "b" } }));
    QCOMPARE(v.reason, std::string("fix path"));
}

void TestProtocol::deepNestingIsRefusedWithoutRecursion()
{
    for (const int levels : { 65, 100'000 }) {
        std::string text = R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"a":)";
        text
            += std::string(std::size_t(levels), '[') + std::string(std::size_t(levels), ']') + "}}";
        const ParseResult r = parseMessage(text);
        QVERIFY(!r.ok());
        QCOMPARE(r.error.code, ErrorCode::TooDeep);
        QCOMPARE(r.error.message, std::string("JSON nested deeper than 64 levels"));
    }
    // Exactly at the cap is fine: the message object itself is level 1.
    std::string ok = R"({"type":"tool_call","call_id":"c1","tool_name":"x","args":{"a":)";
    ok += std::string(62, '[') + std::string(62, ']') + "}}";
    QVERIFY2(parseMessage(ok).ok(), parseMessage(ok).error.message.c_str());
}

void TestProtocol::nestingDepthIgnoresBracketsInStrings_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("depth");
    QTest::newRow("flat") << R"({"a":1})" << 1;
    QTest::newRow("brackets in string") << R"({"a":"[[[[{{{{"})" << 1;
    QTest::newRow("escaped quote") << R"({"a":"\"[[["})" << 1;
    QTest::newRow("escaped backslash then quote") << R"({"a":"\\","b":[[1]]})" << 3;
    QTest::newRow("nested") << R"({"a":{"b":[{"c":[]}]}})" << 5;
}

void TestProtocol::nestingDepthIgnoresBracketsInStrings()
{
    QFETCH(QString, text);
    QFETCH(int, depth);
    QCOMPARE(int(nestingDepth(text.toStdString(), 1000)), depth);
}

void TestProtocol::unknownFieldsAreIgnored()
{
    // Forward compatibility (PROTOCOL.md "Messages"): newer adapters may add fields.
    const ParseResult r
        = parseMessage(R"({"type":"cancel","call_id":"c1","future_field":{"x":1}})");
    QVERIFY(r.ok());
    QCOMPARE(std::get<Cancel>(*r.message).callId, std::string("c1"));
}

void TestProtocol::numbersComeBackExactly()
{
    // What the console accepts it hands back unchanged: the limits of 64-bit
    // integers, and doubles at full precision.
    const std::string args
        = R"({"a":9223372036854775807,"b":-9223372036854775808,"c":18446744073709551615,"d":0.1,"e":1.7976931348623157e+308,"f":-0.0})";
    const ParseResult r = parseMessage(
        R"({"type":"tool_call","call_id":"c1","tool_name":"t","args":)" + args + "}");
    QVERIFY2(r.ok(), r.error.message.c_str());
    const Json &parsed = std::get<ToolCall>(*r.message).args;
    QCOMPARE(Json::parse(dumpJson(parsed)), parsed);
    QCOMPARE(dumpJson(parsed["a"]), std::string("9223372036854775807"));
    QCOMPARE(dumpJson(parsed["b"]), std::string("-9223372036854775808"));
    QCOMPARE(dumpJson(parsed["c"]), std::string("18446744073709551615"));
    QCOMPARE(dumpJson(parsed["d"]), std::string("0.1"));
    QCOMPARE(dumpJson(parsed["e"]), std::string("1.7976931348623157e+308"));
}

void TestProtocol::largeResultsAreDigested()
{
    const Json small = { { "stdout", "ok" } };
    QCOMPARE(compactResult(small), small);
    const Json big = { { "stdout", std::string(300 * 1024, 'x') } };
    const Json digest = compactResult(big);
    QCOMPARE(digest["truncated"], Json(true));
    QCOMPARE(digest["bytes"], Json(dumpJson(big).size()));
    QCOMPARE(digest["sha256"].get<std::string>().size(), std::size_t(64));
    QCOMPARE(compactResult(big), digest); // equal results stay equal for the after-call checks
    Json other = big;
    other["stdout"] = std::string(300 * 1024, 'y');
    QVERIFY(compactResult(other) != digest);
}

void TestProtocol::errorNamesTheCallId()
{
    const ParseResult r
        = parseMessage(R"({"type":"tool_call","call_id":"c7","tool_name":"x","args":5})");
    QVERIFY(!r.ok());
    QCOMPARE(r.error.callId, std::string("c7"));
    const Json e = errorToJson(r.error.code, r.error.message, r.error.callId);
    QCOMPARE(e,
        Json({ { "type", "error" }, { "code", "invalid_field" },
            { "message", "args: expected an object, got number" }, { "call_id", "c7" } }));
}

void TestProtocol::decisionSerialisation()
{
    Decision d;
    d.kind = DecisionKind::Modify;
    d.args = { { "path", "b" } };
    d.reason = "edited";
    d.decidedBy = "human:alice";
    d.warnings = { { "loop_detection", "exact_failure", "same call failed twice" } };
    const Json j = decisionToJson("c1", d);
    QCOMPARE(j,
        Json::parse(
            R"({"type":"decision","call_id":"c1","decision":"modify","args":{"path":"b"},"reason":"edited","decided_by":"human:alice","warnings":[{"guardrail":"loop_detection","code":"exact_failure","message":"same call failed twice"}]})"));

    Decision deny;
    deny.kind = DecisionKind::Deny;
    deny.args = { { "path", "b" } };
    deny.reason = "no";
    deny.decidedBy = "timeout";
    deny.code = "timeout";
    const Json k = decisionToJson("c2", deny);
    QVERIFY2(!k.contains("args"), "a deny carries no args to run with");
    QCOMPARE(k["code"], Json("timeout"));
}

void TestProtocol::everyErrorCodeHasAName()
{
    QSet<QString> names;
    for (int c = int(ErrorCode::InvalidJson); c <= int(ErrorCode::ConnectionLimit); ++c) {
        const QString name = QString::fromLatin1(errorCodeName(ErrorCode(c)));
        QVERIFY(!name.isEmpty());
        QVERIFY2(!names.contains(name), qPrintable(name));
        names.insert(name);
    }
    QCOMPARE(names.size(), int(ErrorCode::ConnectionLimit) + 1);
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
