// SPDX-License-Identifier: Apache-2.0
// The rules and protected_paths guardrails: first match, the tool index,
// the parts of a call together, modify, protected paths, approvals, and the
// policy validation messages for them, word for word. Their matchers:
// tst_rulematchers.cpp.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "guardrails/chain.h"
#include "guardrails/matchers.h"
#include "guardrails/rules.h"
#include "policy/policy.h"

#include <QDir>
#include <QTest>

using namespace holdpoint;
using holdpoint::test::policyError;
using holdpoint::test::policyOf;

namespace {

struct Call
{
    std::string tool = "write_file";
    Json args = Json::object();
    std::string agentName = "coder";
    Json context = Json::object();

    ChainOutcome run(const Policy &p) const
    {
        return test::runBeforeCall(p, tool, args, agentName, context);
    }
};

} // namespace

class TestRules : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void firstMatchWins();
    void toolIndexKeepsFirstMatch_data();
    void toolIndexKeepsFirstMatch();
    void toolIndexAgreesWithEachRuleAlone();
    void toolAgentAndArgsTogether();
    void reasonQuotesMatchedValues();
    void modifySetRemoveClamp();
    void protectedPaths_data();
    void protectedPaths();
    void protectedPathsAsk();
    void askRuleNamesItsApprovals();
    void validationMessages_data();
    void validationMessages();
};

void TestRules::firstMatchWins()
{
    const Policy p = policyOf(R"({"guardrails":[{"type":"rules","rules":[
        {"when":{"tool":"read_file"},"action":"allow","reason":"reads are fine"},
        {"when":{"tool":["read_file","write_file"]},"action":"deny","reason":"never"}]}]})");
    Call c;
    c.tool = "read_file";
    ChainOutcome o = c.run(p);
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.decidedBy, std::string("guardrail:rules"));
    QCOMPARE(trailToJson(o.trail)[0]["metadata"], Json({ { "rule", 0 } }));
    c.tool = "write_file";
    o = c.run(p);
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.code, std::string("guardrails[0].rules[1]"));
    c.tool = "bash";
    QCOMPARE(c.run(p).action, Action::Ask); // no match: the default
}

// Rules are looked up by tool name; these pin that the lookup never changes
// which rule matches first.
void TestRules::toolIndexKeepsFirstMatch_data()
{
    QTest::addColumn<QString>("rules"); // JSON array; every rule denies
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("args");
    QTest::addColumn<int>("rule"); // the first that matches; -1: none
    const QString wildcardFirst
        = QString::fromUtf8(R"([{"when":{"args":{"x":1}}},{"when":{"tool":"bash"}}])");
    QTest::newRow("rule without a tool before a tool's rule") << wildcardFirst << "bash"
                                                              << R"({"x":1})" << 0;
    QTest::newRow("then the tool's rule") << wildcardFirst << "bash"
                                          << R"({"x":2})" << 1;
    const QString toolFirst = QString::fromUtf8(
        R"([{"when":{"tool":"bash","args":{"x":1}}},{"when":{"args":{"x":{"exists":true}}}},{"when":{"tool":"bash"}}])");
    QTest::newRow("tool's rule before a rule without a tool") << toolFirst << "bash"
                                                              << R"({"x":1})" << 0;
    QTest::newRow("rule without a tool between a tool's rules") << toolFirst << "bash"
                                                                << R"({"x":2})" << 1;
    QTest::newRow("tool's later rule") << toolFirst << "bash"
                                       << R"({})" << 2;
    QTest::newRow("rule without a tool, other tool") << toolFirst << "Write"
                                                     << R"({"x":2})" << 1;
    const QString globFirst
        = QString::fromUtf8(R"([{"when":{"tool":"ba*"}},{"when":{"tool":"bash"}}])");
    QTest::newRow("glob before a name") << globFirst << "bash"
                                        << R"({})" << 0;
    QTest::newRow("glob, no match") << globFirst << "sh"
                                    << R"({})" << -1;
    const QString compact = QString::fromUtf8(
        R"js([{"match":"Bash(ls*)"},{"when":{"tool":"bash"}},{"match":"BASH"}])js");
    QTest::newRow("compact tool without case") << compact << "BASH"
                                               << R"({"command":"ls -la"})" << 0;
    QTest::newRow("compact tool, then a name") << compact << "bash"
                                               << R"({"command":"pwd"})" << 1;
    QTest::newRow("compact tool, mixed case") << compact << "bAsH"
                                              << R"({"command":"pwd"})" << 2;
    QTest::newRow("when.tool keeps its case") << R"([{"when":{"tool":"Bash"}}])"
                                              << "bash"
                                              << R"({})" << -1;
    QTest::newRow("when.tool and compact both hold")
        << R"js([{"when":{"tool":"Bash"},"match":"bash(ls*)"}])js"
        << "Bash"
        << R"({"command":"ls"})" << 0;
    QTest::newRow("when.tool and compact, case")
        << R"js([{"when":{"tool":"Bash"},"match":"bash(ls*)"}])js"
        << "bash"
        << R"({"command":"ls"})" << -1;
    QTest::newRow("when.tool glob, compact name") << R"([{"when":{"tool":"b*"},"match":"Bash"}])"
                                                  << "bASH"
                                                  << R"({})" << 0;
    const QString several = QString::fromUtf8(
        R"([{"when":{"tool":["read","Write","bash","Bash"]}},{"when":{"tool":"write"}}])");
    QTest::newRow("several tools: one") << several << "Write"
                                        << R"({})" << 0;
    QTest::newRow("several tools: another's case") << several << "write"
                                                   << R"({})" << 1;
    QTest::newRow("several tools: two spellings") << several << "Bash"
                                                  << R"({})" << 0;
    QTest::newRow("several tools: none") << several << "READ"
                                         << R"({})" << -1;
    QTest::newRow("glob in a list") << R"([{"when":{"tool":["bash","mcp__*"]}}])"
                                    << "mcp__x"
                                    << R"({})" << 0;
    const QString mcp
        = QString::fromUtf8(R"([{"when":{"tool":"mcp__github__x"}},{"match":"mcp__github__*"}])");
    QTest::newRow("compact glob without case") << mcp << "MCP__GitHub__y"
                                               << R"({})" << 1;
    QTest::newRow("name before compact glob") << mcp << "mcp__github__x"
                                              << R"({})" << 0;
    QTest::newRow("compact name beyond ASCII") << QStringLiteral(R"([{"match":"\u00dcber"}])")
                                               << QStringLiteral("\u00fcber") << R"({})" << 0;
    QTest::newRow("no rule for the tool") << R"([{"when":{"tool":"a"}},{"match":"B"}])"
                                          << "c"
                                          << R"({})" << -1;
}

void TestRules::toolIndexKeepsFirstMatch()
{
    QFETCH(QString, rules);
    QFETCH(QString, tool);
    QFETCH(QString, args);
    QFETCH(int, rule);
    Json list = Json::parse(rules.toStdString());
    for (Json &r : list)
        r["action"] = "deny";
    const Policy p = policyOf(
        dumpJson(Json { { "guardrails", { { { "type", "rules" }, { "rules", list } } } } }));
    Call c;
    c.tool = tool.toStdString();
    c.args = Json::parse(args.toStdString());
    const ChainOutcome o = c.run(p);
    if (rule < 0) {
        QCOMPARE(o.decidedBy, std::string("policy:default"));
    } else {
        QCOMPARE(o.action, Action::Deny);
        QCOMPARE(o.code, "guardrails[0].rules[" + std::to_string(rule) + "]");
    }
}

// Every rule on its own against every call: the first that matches alone
// must be the one the whole list picks.
void TestRules::toolIndexAgreesWithEachRuleAlone()
{
    const Json rules = Json::parse(R"js([
        {"when":{"tool":"Read"}}, {"match":"Bash(git *)"}, {"when":{"agent":"intern*"}},
        {"when":{"tool":["bash","Write"],"args":{"command":{"prefix":"rm"}}}}, {"match":"mcp__*"},
        {"when":{"tool":"*_file"}}, {"match":"write(/etc/**)"}, {"when":{"args":{"path":{"path_under":"/tmp"}}}},
        {"match":"WebFetch(domain:example.com)"}, {"when":{"tool":"BASH"}}, {"match":"read"},
        {"when":{"tool":"bash","agent":"coder"}}, {"match":"Bash"}])js");
    const std::vector<std::string> tools { "Read", "read", "READ", "bash", "Bash", "BASH", "Write",
        "write", "write_file", "mcp__x__y", "MCP__X", "WebFetch", "webfetch", "other" };
    const std::vector<Json> argSets { Json::object(), { { "command", "git log" } },
        { { "command", "rm -rf /" } }, { { "file_path", "/etc/hosts" } }, { { "path", "/tmp/x" } },
        { { "url", "https://www.example.com/" } } };
    auto policyWith = [](const Json &list) {
        Json denying = list;
        for (Json &r : denying)
            r["action"] = "deny";
        return policyOf(
            dumpJson(Json { { "guardrails", { { { "type", "rules" }, { "rules", denying } } } } }));
    };
    const Policy all = policyWith(rules);
    std::vector<Policy> alone;
    for (const Json &r : rules)
        alone.push_back(policyWith(Json::array({ r })));
    for (const std::string agentName : { "coder", "intern-1" }) {
        for (const std::string &tool : tools) {
            for (const Json &args : argSets) {
                Call c;
                c.tool = tool;
                c.args = args;
                c.agentName = agentName;
                std::string expected = "policy:default";
                for (std::size_t i = 0; i < alone.size() && expected == "policy:default"; ++i)
                    if (c.run(alone[i]).action == Action::Deny)
                        expected = "guardrails[0].rules[" + std::to_string(i) + "]";
                const ChainOutcome o = c.run(all);
                const std::string got = o.action == Action::Deny ? o.code : o.decidedBy;
                if (got != expected)
                    QFAIL(qPrintable(toQString(agentName + " " + tool + " " + dumpJson(args) + ": "
                        + got + ", expected " + expected)));
            }
        }
    }
}

void TestRules::toolAgentAndArgsTogether()
{
    const Policy p = policyOf(R"({"guardrails":[{"type":"rules","rules":[
        {"when":{"tool":"bash","agent":"intern*","args":{"command":{"regex":"\\bsudo\\b"}}},"action":"deny","reason":"no sudo for interns"}]}]})");
    Call c;
    c.tool = "bash";
    c.args = { { "command", "sudo apt install x" } };
    c.agentName = "intern-2";
    QCOMPARE(c.run(p).action, Action::Deny);
    c.agentName = "senior";
    QCOMPARE(c.run(p).action, Action::Ask);
    c.agentName = "intern-2";
    c.args = { { "command", "apt list" } };
    QCOMPARE(c.run(p).action, Action::Ask);
}

void TestRules::reasonQuotesMatchedValues()
{
    const Policy p = policyOf(R"js({"guardrails":[{"type":"rules","rules":[
        {"when":{"args":{"path":{"path_under":"/etc"}}},"action":"deny","reason":"{agent} may not {tool} {args.path} (mode {args.opts.mode}, {args.missing}, {unknown})"}]}]})js");
    Call c;
    c.args = { { "path", "/etc/hosts" }, { "opts", { { "mode", 420 } } } };
    QCOMPARE(c.run(p).reason,
        std::string("coder may not write_file /etc/hosts (mode 420, (absent), {unknown})"));
}

void TestRules::modifySetRemoveClamp()
{
    const Policy p = policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[
        {"when":{"tool":"bash"},"action":"modify","reason":"sandboxed","set":{"env.SANDBOX":"1","cwd":"/sandbox"},"remove":["sudo"],"clamp":{"timeout":{"max":60},"retries":{"min":0,"max":3}}}]}]})");
    Call c;
    c.tool = "bash";
    c.args = { { "command", "make" }, { "timeout", 600 }, { "retries", 1 }, { "sudo", true } };
    const ChainOutcome o = c.run(p);
    QCOMPARE(o.action, Action::Allow);
    QCOMPARE(o.decidedBy, std::string("policy:default"));
    QCOMPARE(o.args.value(),
        Json::parse(
            R"({"command":"make","timeout":60,"retries":1,"cwd":"/sandbox","env":{"SANDBOX":"1"}})"));
    QCOMPARE(o.patch, Json::diff(c.args, *o.args));
}

void TestRules::protectedPaths_data()
{
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("reason"); // empty: not protected
    QTest::newRow("path under /etc") << R"({"path":"/etc/passwd"})"
                                     << "path /etc/passwd is protected (/etc)";
    QTest::newRow("traversal") << R"({"file_path":"/tmp/../etc/shadow"})"
                               << "file_path /tmp/../etc/shadow is protected (/etc)";
    QTest::newRow("relative to cwd") << R"({"target":"../.ssh/id_rsa"})"
                                     << "target ../.ssh/id_rsa is protected (/home/dev/.ssh/**)";
    QTest::newRow("relative climbing past it") << R"({"target":"../../.ssh/id_rsa"})"
                                               << "";
    QTest::newRow("nested key") << R"({"edits":[{"file_path":"/etc/hosts","text":"x"}]})"
                                << "file_path /etc/hosts is protected (/etc)";
    QTest::newRow("array of paths") << R"({"paths":["a"],"destination":["/tmp/x","/etc/x"]})"
                                    << "destination /etc/x is protected (/etc)";
    QTest::newRow("arrays in arrays") << R"({"x":[1,[[{"dir":"/etc"}]]]})"
                                      << "dir /etc is protected (/etc)";
    QTest::newRow("first in walk order")
        << R"({"a":{"src":"/etc/a"},"path":"/etc/b","z":{"dest":"/etc/c"}})"
        << "src /etc/a is protected (/etc)";
    QTest::newRow("not path-like key") << R"({"content":"/etc/passwd"})"
                                       << "";
    QTest::newRow("sibling") << R"({"path":"/etcetera"})"
                             << "";
    QTest::newRow("glob miss") << R"({"path":"/home/dev/.sshx/key"})"
                               << "";
    // Paths compared as they are (already normal) and after normalising.
    QTest::newRow("trailing slash") << R"({"path":"/etc/"})"
                                    << "path /etc/ is protected (/etc)";
    QTest::newRow("trailing dot") << R"({"path":"/etc/."})"
                                  << "path /etc/. is protected (/etc)";
    QTest::newRow("dots in a name") << R"({"path":"/home/dev/.ssh/..key"})"
                                    << "path /home/dev/.ssh/..key is protected (/home/dev/.ssh/**)";
    QTest::newRow("three dots is a name") << R"({"path":"/etc/.../x"})"
                                          << "path /etc/.../x is protected (/etc)";
    QTest::newRow("three dots climbs nowhere") << R"({"path":"/tmp/.../etc"})"
                                               << "";
    QTest::newRow("beyond ASCII") << R"({"path":"/etc/naïve"})"
                                  << "path /etc/na\u00efve is protected (/etc)";
    QTest::newRow("a key as long as a path-like one") << R"({"dirs":"/etc","dest":"/tmp"})"
                                                      << "";
    QTest::newRow("cwd key") << R"({"cwd":"/etc//ssl"})"
                             << "cwd /etc//ssl is protected (/etc)";
}

void TestRules::protectedPaths()
{
    QFETCH(QString, args);
    QFETCH(QString, reason);
    const Policy p = policyOf(
        R"({"guardrails":[{"type":"protected_paths","paths":["/etc","/home/dev/.ssh/**"]}]})");
    Call c;
    c.args = Json::parse(args.toStdString());
    c.context = { { "cwd", "/home/dev/app" } };
    const ChainOutcome o = c.run(p);
    if (reason.isEmpty()) {
        QCOMPARE(o.action, Action::Ask);
        QCOMPARE(o.decidedBy, std::string("policy:default"));
    } else {
        QCOMPARE(o.action, Action::Deny);
        QCOMPARE(o.code, std::string("protected_path"));
        QCOMPARE(toQString(o.reason), reason);
    }
}

void TestRules::protectedPathsAsk()
{
    const Policy p = policyOf(
        R"({"default":"allow","guardrails":[{"type":"protected_paths","name":"home","paths":["~/.aws"],"action":"ask","keys":["where"]}]})");
    Call c;
    c.args = { { "where", "~/.aws/credentials" } };
    const ChainOutcome o = c.run(p);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.decidedBy, std::string("guardrail:home"));
    c.args = { { "path", "~/.aws/credentials" } }; // not one of the configured keys
    QCOMPARE(c.run(p).action, Action::Allow);
    // Keys of 63 bytes and more share one length class.
    const std::string longKey(70, 'k');
    const Policy q = policyOf(
        R"({"default":"allow","guardrails":[{"type":"protected_paths","paths":["/etc"],"keys":["where",")"
        + longKey + R"("]}]})");
    c.args = { { longKey, "/etc/hosts" } };
    QCOMPARE(c.run(q).action, Action::Deny);
    c.args = { { std::string(64, 'k'), "/etc/hosts" } };
    QCOMPARE(c.run(q).action, Action::Allow);
    c.args = { { longKey + "k", "/etc/hosts" } };
    QCOMPARE(c.run(q).action, Action::Allow);
}

void TestRules::askRuleNamesItsApprovals()
{
    const Policy p = policyOf(R"({"default":"allow","guardrails":[
        {"type":"rules","name":"deploys","rules":[
            {"match":"deploy","action":"ask","approvals":{"required":2,"exclude_requester":true}},
            {"match":"pay","action":"ask","approvals":{"required":3,"on_edit":"keep"}},
            {"match":"write_file","action":"ask"}]},
        {"type":"rules","name":"payments","rules":[
            {"match":"pay","action":"ask","approvals":{"required":2,"exclude_requester":true}}]}]})");
    Call c;
    c.tool = "deploy";
    ChainOutcome o = c.run(p);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.approvals.required, 2);
    QVERIFY(o.approvals.excludeRequester);
    QVERIFY(o.approvals.resetOnEdit);
    QVERIFY(o.approvals.voted());

    // Two asks: the strictest of each part, so neither rule is weakened.
    c.tool = "pay";
    o = c.run(p);
    QCOMPARE(o.approvals.required, 3);
    QVERIFY(o.approvals.excludeRequester);
    QVERIFY(o.approvals.resetOnEdit);

    // One ask that keeps approvals across edits is taken as it is.
    const Policy keep = policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[
        {"match":"release","action":"ask","approvals":{"required":2,"on_edit":"keep"}}]}]})");
    c.tool = "release";
    o = c.run(keep);
    QCOMPARE(o.approvals.required, 2);
    QVERIFY(!o.approvals.resetOnEdit);

    // An ask without approvals needs one person, as before.
    c.tool = "write_file";
    o = c.run(p);
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.approvals.required, 1);
    QVERIFY(!o.approvals.voted());
}

void TestRules::validationMessages_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("error");
    QTest::newRow("guardrails not an array")
        << R"({"guardrails":{}})"
        << "policy.json: guardrails: expected an array, got object";
    QTest::newRow("guardrail not an object")
        << R"({"guardrails":[5]})"
        << "policy.json: guardrails[0]: expected an object, got number";
    QTest::newRow("no type")
        << R"({"guardrails":[{}]})"
        << "policy.json: guardrails[0].type: required, expected one of: rules, protected_paths, "
           "loop_detection, rate_limit, annotations, secrets, hidden_characters";
    QTest::newRow("unknown type")
        << R"({"guardrails":[{"type":"magic"}]})"
        << "policy.json: guardrails[0].type: unknown value \"magic\" (expected one of: rules, "
           "protected_paths, loop_detection, rate_limit, annotations, secrets, hidden_characters)";
    QTest::newRow("unknown matcher")
        << R"({"guardrails":[{"type":"rules","rules":[{"action":"deny","when":{}}]},{"type":"rules","name":"r2","rules":[{"action":"deny","when":{"args":{"path":{"globb":"/etc/**"}}}}]},{"type":"rules","name":"r3","rules":[{"when":{"args":{"path":{"globb":"x"}}},"action":"deny"}]}]})"
        << "policy.json: guardrails[1].rules[0].when.args.path: unknown matcher \"globb\" "
           "(expected one of: equals, glob, regex, prefix, path_under, min, max, exists)";
    QTest::newRow("bad regex")
        << R"({"guardrails":[{"type":"rules","rules":[{"action":"deny","when":{"args":{"c":{"regex":"(unclosed"}}}}]}]})"
        << "policy.json: guardrails[0].rules[0].when.args.c.regex: invalid regex: missing closing "
           "parenthesis at offset 9";
    QTest::newRow("unknown rule key")
        << R"({"guardrails":[{"type":"rules","rules":[{"action":"deny","whenn":{}}]}]})"
        << "policy.json: guardrails[0].rules[0].whenn: unknown key (expected one of: when, match, "
           "action, reason, code, set, remove, clamp, approvals)";
    QTest::newRow("approvals on deny")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"deny","approvals":{"required":2}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals: only an ask rule waits for approvals "
           "(this rule's action is deny)";
    QTest::newRow("approvals without required")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":{}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals.required: required, expected the number "
           "of people who must approve (1 to 10)";
    QTest::newRow("approvals too many")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":{"required":11}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals.required: expected a number from 1 to "
           "10, got 11";
    QTest::newRow("approvals fractional")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":{"required":1.5}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals.required: expected a whole number of "
           "people, got 1.5";
    QTest::newRow("approvals bad on_edit")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":{"required":2,"on_edit":"merge"}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals.on_edit: unknown value \"merge\" "
           "(expected one of: reset, keep)";
    QTest::newRow("approvals unknown key")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":{"required":2,"quorum":2}}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals.quorum: unknown key (expected one of: "
           "required, exclude_requester, on_edit, comment)";
    QTest::newRow("approvals not an object")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"ask","approvals":2}]}]})"
        << "policy.json: guardrails[0].rules[0].approvals: expected an object like {\"required\": "
           "2}, got number";
    QTest::newRow("rule without condition")
        << R"({"guardrails":[{"type":"rules","rules":[{"action":"deny"}]}]})"
        << "policy.json: guardrails[0].rules[0]: a rule needs \"when\", \"match\" or both";
    QTest::newRow("unknown action")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"nuke"}]}]})"
        << "policy.json: guardrails[0].rules[0].action: unknown value \"nuke\" (expected one of: "
           "allow, warn, modify, ask, deny, halt)";
    QTest::newRow("modify without ops")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"modify"}]}]})"
        << "policy.json: guardrails[0].rules[0].action: modify needs at least one of: set, remove, "
           "clamp";
    QTest::newRow("set on deny")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash","action":"deny","set":{"a":1}}]}]})"
        << "policy.json: guardrails[0].rules[0].set: only a modify rule may rewrite arguments";
    QTest::newRow("bad compact")
        << R"({"guardrails":[{"type":"rules","rules":[{"match":"Bash(rm","action":"deny"}]}]})"
        << "policy.json: guardrails[0].rules[0].match: missing \")\" in \"Bash(rm\" (expected "
           "Tool(specifier))";
    QTest::newRow("relative path_under")
        << R"({"guardrails":[{"type":"rules","rules":[{"action":"deny","when":{"args":{"p":{"path_under":"etc"}}}}]}]})"
        << "policy.json: guardrails[0].rules[0].when.args.p.path_under: expected an absolute path "
           "or one starting with ~, got \"etc\"";
    QTest::newRow("fail_open not bool")
        << R"({"guardrails":[{"type":"protected_paths","paths":["/etc"],"fail_open":"yes"}]})"
        << "policy.json: guardrails[0].fail_open: expected true or false, got string";
    QTest::newRow("budget out of range")
        << R"({"guardrails":[{"type":"protected_paths","paths":["/etc"],"budget_ms":0}]})"
        << "policy.json: guardrails[0].budget_ms: expected a number from 0.001 to 60000, got 0";
    QTest::newRow("relative protected path")
        << R"({"guardrails":[{"type":"protected_paths","paths":["etc"]}]})"
        << "policy.json: guardrails[0].paths[0]: expected an absolute path or one starting with ~, "
           "got \"etc\"";
    QTest::newRow("protected action")
        << R"({"guardrails":[{"type":"protected_paths","paths":["/etc"],"action":"allow"}]})"
        << "policy.json: guardrails[0].action: unknown value \"allow\" (expected one of: deny, "
           "ask, halt)";
    QTest::newRow("duplicate name")
        << R"({"guardrails":[{"type":"protected_paths","paths":["/etc"]},{"type":"protected_paths","paths":["/root"]}]})"
        << "policy.json: guardrails[1].name: duplicate name \"protected_paths\" (give each "
           "guardrail its own \"name\")";
}

void TestRules::validationMessages()
{
    QFETCH(QString, policy);
    QFETCH(QString, error);
    QCOMPARE(policyError(policy.toStdString(), QStringLiteral("policy.json")), error);
}

QTEST_GUILESS_MAIN(TestRules)
#include "tst_rules.moc"
