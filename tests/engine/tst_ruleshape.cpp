// SPDX-License-Identifier: Apache-2.0
// The shape of an "always" rule: the narrowest that covers the call, in
// words, and as a rule that loads and matches exactly what it says.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "engine/ruleshape.h"

#include <QTest>

using namespace holdpoint;

namespace {

QueueItem itemOf(const std::string &tool, const Json &args, std::vector<Redaction> redactions = {})
{
    QueueItem item;
    item.id = "i1";
    item.callId = "c1";
    item.agent = {"coder", {}};
    item.toolName = tool;
    item.args = args;
    item.redactions = std::move(redactions);
    return item;
}

// The rule as the only rule of a policy whose default asks.
Policy policyWith(const Json &rule)
{
    Json r = rule;
    r.erase("comment");
    return test::policyOf(dumpJson(Json {{"version", 1}, {"default", "ask"},
                                         {"guardrails", {{{"type", "rules"}, {"name", "console"}, {"rules", {r}}}}}}));
}

} // namespace

class TestRuleShape : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void narrowestCover_data();
    void narrowestCover();
    void coversOnlyWhatItSays_data();
    void coversOnlyWhatItSays();
    void secretsAreNeverWritten();
    void wideOpenOnlyForAllowAnyAgentAnyArgs();
};

void TestRuleShape::narrowestCover_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("when");
    QTest::addColumn<QString>("words");
    QTest::newRow("absolute path: the same directory")
        << "read_file" << R"({"path":"/srv/app/src/main.c"})"
        << R"({"tool":"read_file","agent":"coder","args":{"path":{"glob":"/srv/app/src/*","path_under":"/srv/app/src"}}})"
        << "Allow read_file from agent coder when path matches /srv/app/src/* (and stays under /srv/app/src); other arguments may be anything.";
    QTest::newRow("relative path: a glob alone")
        << "write_file" << R"({"file_path":"docs/a.md","overwrite":true})"
        << R"({"tool":"write_file","agent":"coder","args":{"file_path":{"glob":"docs/*"},"overwrite":{"equals":true}}})"
        << "Allow write_file from agent coder when file_path matches docs/* and overwrite is true; other arguments may be anything.";
    QTest::newRow("command: the same first word")
        << "bash" << R"({"command":"git status --short","timeout":60})"
        << R"({"tool":"bash","agent":"coder","args":{"command":{"prefix":"git "},"timeout":{"equals":60}}})"
        << "Allow bash from agent coder when command starts with \"git \" and timeout is 60; other arguments may be anything.";
    QTest::newRow("one-word command: exactly")
        << "bash" << R"({"command":"make"})"
        << R"({"tool":"bash","agent":"coder","args":{"command":{"equals":"make"}}})"
        << "Allow bash from agent coder when command is \"make\"; other arguments may be anything.";
    QTest::newRow("long text, nested values, dotted keys: anything")
        << "post" << (R"({"body":")" + std::string(300, 'x') + R"(","headers":{"a":1},"a.b":2,"to":"#ops"})").c_str()
        << R"({"tool":"post","agent":"coder","args":{"to":{"equals":"#ops"}}})"
        << "Allow post from agent coder when to is \"#ops\"; other arguments may be anything.";
    QTest::newRow("a glob character in the directory: exactly")
        << "read_file" << R"({"path":"/srv/[x]/a*b/c.txt"})"
        << R"({"tool":"read_file","agent":"coder","args":{"path":{"equals":"/srv/[x]/a*b/c.txt"}}})"
        << "Allow read_file from agent coder when path is \"/srv/[x]/a*b/c.txt\"; other arguments may be anything.";
    QTest::newRow("no arguments")
        << "list_tools" << R"({})" << R"({"tool":"list_tools","agent":"coder"})"
        << "Allow list_tools from agent coder, with any arguments.";
}

void TestRuleShape::narrowestCover()
{
    QFETCH(QString, tool);
    QFETCH(QString, args);
    QFETCH(QString, when);
    QFETCH(QString, words);
    const QueueItem item = itemOf(tool.toStdString(), Json::parse(args.toStdString()));
    const RuleShape shape = proposeShape(item, true);
    const Json rule = ruleFromShape(shape, item, {}, "alice", 0);
    QCOMPARE(rule["when"], Json::parse(when.toStdString()));
    QCOMPARE(rule["action"], Json("allow"));
    QCOMPARE(QString::fromStdString(describeShape(shape)), words);
    // It loads, and it covers the call it came from.
    QCOMPARE(test::runBeforeCall(policyWith(rule), item.toolName, item.args).action, Action::Allow);
}

void TestRuleShape::coversOnlyWhatItSays_data()
{
    QTest::addColumn<bool>("anyAgent");
    QTest::addColumn<bool>("anyPath");
    QTest::addColumn<QString>("agent");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("covered");
    QTest::newRow("narrow: same agent, same directory") << false << false << "coder" << "/srv/app/src/b.c" << true;
    QTest::newRow("narrow: another agent") << false << false << "intruder" << "/srv/app/src/b.c" << false;
    QTest::newRow("narrow: another directory") << false << false << "coder" << "/etc/shadow" << false;
    QTest::newRow("narrow: a subdirectory") << false << false << "coder" << "/srv/app/src/x/b.c" << false;
    QTest::newRow("narrow: out through ..") << false << false << "coder" << "/srv/app/src/.." << false;
    QTest::newRow("any agent: another agent") << true << false << "intruder" << "/srv/app/src/b.c" << true;
    QTest::newRow("any agent: another directory") << true << false << "intruder" << "/etc/shadow" << false;
    QTest::newRow("any path: another directory") << false << true << "coder" << "/etc/shadow" << true;
    QTest::newRow("any path: another agent") << false << true << "intruder" << "/etc/shadow" << false;
    QTest::newRow("wide open") << true << true << "intruder" << "/etc/shadow" << true;
}

void TestRuleShape::coversOnlyWhatItSays()
{
    QFETCH(bool, anyAgent);
    QFETCH(bool, anyPath);
    QFETCH(QString, agent);
    QFETCH(QString, path);
    QFETCH(bool, covered);
    const QueueItem item = itemOf("read_file", {{"path", "/srv/app/src/a.c"}});
    RuleShape shape = proposeShape(item, true);
    if (anyAgent)
        shape.agent.reset();
    if (anyPath)
        shape.args.at(0).kind = ArgPattern::Kind::Any;
    QCOMPARE(isWideOpen(shape), anyAgent && anyPath);
    const Policy p = policyWith(ruleFromShape(shape, item, {}, "alice", 0));
    const Action a = test::runBeforeCall(p, "read_file", {{"path", path.toStdString()}}, agent.toStdString()).action;
    QCOMPARE(a, covered ? Action::Allow : Action::Ask);
}

void TestRuleShape::secretsAreNeverWritten()
{
    const std::string key = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    const QueueItem item = itemOf("http_request", {{"url", "https://api.test/x"}, {"token", key}},
                                  {{key, "[secret:github_token:1]", "github_token"}});
    const RuleShape shape = proposeShape(item, true);
    QCOMPARE(shape.args.at(0).key, std::string("token")); // in key order
    QVERIFY(shape.args.at(0).secret);
    QVERIFY(!shape.args.at(1).secret);
    const Json rule = ruleFromShape(shape, item, {}, "alice", 0);
    QVERIFY(dumpJson(rule).find(key) == std::string::npos);
    QCOMPARE(rule["when"]["args"], Json::parse(R"({"url":{"equals":"https://api.test/x"}})"));
    // Even set to exact by hand, a secret stays out.
    RuleShape forced = shape;
    forced.args.at(0).kind = ArgPattern::Kind::Exact;
    QVERIFY(dumpJson(ruleFromShape(forced, item, {}, "alice", 0)).find(key) == std::string::npos);
}

void TestRuleShape::wideOpenOnlyForAllowAnyAgentAnyArgs()
{
    const QueueItem item = itemOf("bash", {{"command", "ls -l"}});
    RuleShape shape = proposeShape(item, false);
    shape.agent.reset();
    shape.args.at(0).kind = ArgPattern::Kind::Any;
    QVERIFY(!isWideOpen(shape)); // a deny for everything is the safe side
    QCOMPARE(describeShape(shape), std::string("Deny bash from every agent, with any arguments."));
    shape.allow = true;
    QVERIFY(isWideOpen(shape));
}

QTEST_GUILESS_MAIN(TestRuleShape)
#include "tst_ruleshape.moc"
