// SPDX-License-Identifier: Apache-2.0
#include "common/jsoncompare.h"
#include "guardrails/chain.h"
#include "policy/policy.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

class TestPolicy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void validPolicies_data();
    void validPolicies();
    void validationMessages_data();
    void validationMessages();
    void shippedDefaultAsks();
    void laterFilesOverrideEarlierOnes();
    void unreadableFileNamesIt();
    void shippedExamplesAreValid_data();
    void shippedExamplesAreValid();
    void readOnlyExampleLetsReadsThrough_data();
    void readOnlyExampleLetsReadsThrough();
    void commentsAreAllowedEverywhere();
};

void TestPolicy::validPolicies_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("action");
    QTest::newRow("empty object keeps the base") << "{}" << int(DefaultAction::Ask);
    QTest::newRow("allow") << R"({"version":1,"default":"allow"})" << int(DefaultAction::Allow);
    QTest::newRow("deny with description")
        << R"({"description":"lock down","default":"deny"})" << int(DefaultAction::Deny);
    QTest::newRow("ask") << R"({"default":"ask"})" << int(DefaultAction::Ask);
}

void TestPolicy::validPolicies()
{
    QFETCH(QString, text);
    QFETCH(int, action);
    const PolicyResult r = parsePolicy(text.toStdString(), QStringLiteral("p.json"));
    QVERIFY2(r.policy, qPrintable(r.error));
    QCOMPARE(int(r.policy->defaultAction), action);
    QCOMPARE(r.policy->files, QStringList { QStringLiteral("p.json") });
}

void TestPolicy::validationMessages_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("not JSON")
        << "{\"default\": "
        << "policy.json: invalid JSON: parse error at line 1, column 13: syntax error while "
           "parsing value - unexpected end of input; expected '[', '{', or a literal";
    QTest::newRow("not an object") << "[]"
                                   << "policy.json: expected a JSON object, got array";
    QTest::newRow("duplicate key") << R"({"default":"deny","default":"allow"})"
                                   << "policy.json: invalid JSON: duplicate key \"default\"";
    QTest::newRow("unknown action")
        << R"({"default":"maybe"})"
        << "policy.json: default: unknown action \"maybe\" (expected one of: ask, allow, deny)";
    QTest::newRow("action not a string")
        << R"({"default":true})"
        << "policy.json: default: unknown action true (expected one of: ask, allow, deny)";
    QTest::newRow("unknown key")
        << R"({"defualt":"allow"})"
        << "policy.json: defualt: unknown key (expected one of: version, description, default, "
           "default_approvals, turn_off, guardrails)";
    QTest::newRow("future version") << R"({"version":2})"
                                    << "policy.json: version: unsupported version 2 (expected 1)";
    QTest::newRow("description not a string")
        << R"({"description":5})"
        << "policy.json: description: expected a string, got number";
    QTest::newRow("too deep") << QString(
        QStringLiteral("{\"a\":") + QString(70, u'[') + QString(70, u']') + u'}')
                              << "policy.json: nested deeper than 64 levels";
}

void TestPolicy::validationMessages()
{
    QFETCH(QString, text);
    QFETCH(QString, error);
    const PolicyResult r = parsePolicy(text.toStdString(), QStringLiteral("policy.json"));
    QVERIFY(!r.policy);
    QCOMPARE(r.error, error);
}

void TestPolicy::shippedDefaultAsks()
{
    const PolicyResult r = loadPolicyFiles({});
    QVERIFY2(r.policy, qPrintable(r.error));
    QCOMPARE(r.policy->defaultAction, DefaultAction::Ask);
    QCOMPARE(r.policy->files, QStringList { QStringLiteral("resources/policies/default.json") });
    // The compiled-in copy is the file in the repository.
    QFile shipped(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/default.json"));
    QFile builtIn(defaultPolicyPath());
    QVERIFY(shipped.open(QIODevice::ReadOnly) && builtIn.open(QIODevice::ReadOnly));
    QCOMPARE(builtIn.readAll(), shipped.readAll());
}

void TestPolicy::laterFilesOverrideEarlierOnes()
{
    QTemporaryDir dir;
    auto write = [&](const char *name, const char *text) {
        QFile f(dir.filePath(QLatin1String(name)));
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return f.fileName();
    };
    const QString a = write("a.json", R"({"default":"allow"})");
    const QString b = write("b.json", R"({"description":"adds nothing to the default"})");
    const QString c = write("c.json", R"({"default":"deny"})");
    PolicyResult r = loadPolicyFiles({ a, b });
    QVERIFY2(r.policy, qPrintable(r.error));
    QCOMPARE(r.policy->defaultAction, DefaultAction::Allow);
    r = loadPolicyFiles({ a, b, c });
    QCOMPARE(r.policy->defaultAction, DefaultAction::Deny);
    QCOMPARE(r.policy->files, (QStringList { a, b, c }));

    const QString bad = write("bad.json", R"({"default":"yes"})");
    r = loadPolicyFiles({ a, bad });
    QVERIFY(!r.policy);
    QCOMPARE(r.error,
        bad
            + QStringLiteral(
                ": default: unknown action \"yes\" (expected one of: ask, allow, deny)"));
}

void TestPolicy::unreadableFileNamesIt()
{
    const PolicyResult r = loadPolicyFiles({ QStringLiteral("/nonexistent/policy.json") });
    QVERIFY(!r.policy);
    QCOMPARE(r.error,
        QStringLiteral("/nonexistent/policy.json: cannot read: No such file or directory"));
}

void TestPolicy::shippedExamplesAreValid_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("guardrails");
    // Each starts with hidden_characters (common/visibletext.h).
    QTest::newRow("default") << "default.json" << 1;
    QTest::newRow("coding-agent") << "coding-agent.json" << 6;
    QTest::newRow("read-only") << "read-only.json" << 5;
    QTest::newRow("strict") << "strict.json" << 7;
}

void TestPolicy::shippedExamplesAreValid()
{
    QFETCH(QString, file);
    QFETCH(int, guardrails);
    const PolicyResult r
        = loadPolicyFiles({ QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/") + file });
    QVERIFY2(r.policy, qPrintable(r.error));
    QCOMPARE(r.policy->chain->size(), guardrails);
    QDir dir(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies"));
    QCOMPARE(dir.entryList({ QStringLiteral("*.json") }, QDir::Files).size(),
        4); // a new example needs a row here
}

void TestPolicy::readOnlyExampleLetsReadsThrough_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("annotations");
    QTest::addColumn<int>("action");
    QTest::newRow("Gemini read_file") << "read_file"
                                      << R"({"path":"a.txt"})"
                                      << "{}" << int(Action::Allow);
    QTest::newRow("Claude Code Read") << "Read"
                                      << R"({"file_path":"/w/a.txt"})"
                                      << "{}" << int(Action::Allow);
    QTest::newRow("git log") << "Bash"
                             << R"({"command":"git log -3"})"
                             << "{}" << int(Action::Allow);
    QTest::newRow("MCP read-only tool") << "list_issues"
                                        << "{}"
                                        << R"({"readOnlyHint":true})" << int(Action::Allow);
    QTest::newRow("write") << "write_file"
                           << R"({"path":"a.txt"})"
                           << "{}" << int(Action::Deny);
    QTest::newRow("shell") << "Bash"
                           << R"({"command":"rm -rf build"})"
                           << "{}" << int(Action::Deny);
    QTest::newRow("MCP tool, not read-only") << "create_issue"
                                             << "{}"
                                             << R"({"destructiveHint":false})" << int(Action::Deny);
    QTest::newRow("a read carrying a secret") << "read_file"
                                              << R"({"path":"AKIAIOSFODNN7EXAMPLE"})"
                                              << "{}" << int(Action::Deny);
}

void TestPolicy::readOnlyExampleLetsReadsThrough()
{
    QFETCH(QString, tool);
    QFETCH(QString, args);
    QFETCH(QString, annotations);
    QFETCH(int, action);
    const PolicyResult r = loadPolicyFiles(
        { QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/read-only.json") });
    QVERIFY2(r.policy, qPrintable(r.error));
    const protocol::AgentInfo agent { "coder", {} };
    const Json a = Json::parse(args.toStdString()), notes = Json::parse(annotations.toStdString()),
               context = Json::object();
    const CallView call { "s1", agent, "c1", tool.toStdString(), a, notes, context,
        std::optional<std::string>() };
    const ChainOutcome o = r.policy->chain->beforeCall(call, { 0 }, r.policy->defaultAction);
    QVERIFY2(int(o.action) == action, (o.decidedBy + ": " + o.reason).c_str());
}

void TestPolicy::commentsAreAllowedEverywhere()
{
    const PolicyResult r = parsePolicy(
        R"({"comment":"top","guardrails":[{"type":"rules","comment":["a","b"],"rules":[
        {"comment":"why","match":"Bash","action":"ask","when":{"comment":"x","args":{"a":{"equals":1}}}}]}]})",
        QStringLiteral("p.json"));
    QVERIFY2(r.policy, qPrintable(r.error));
    const PolicyResult bad = parsePolicy(
        R"({"guardrails":[{"type":"rules","comment":5,"rules":[]}]})", QStringLiteral("p.json"));
    QCOMPARE(bad.error,
        QStringLiteral(
            "p.json: guardrails[0].comment: expected a string or a list of strings, got number"));
}

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"
