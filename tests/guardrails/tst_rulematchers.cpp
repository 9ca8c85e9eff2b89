// SPDX-License-Identifier: Apache-2.0
// The rules guardrail's matchers: globs (with and without PCRE2), the
// literal a pattern requires and the byte-set prefilter before it, argument
// paths and their normalisation, value matchers, and the compact syntax.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "guardrails/chain.h"
#include "guardrails/matchers.h"
#include "guardrails/rules.h"
#include "policy/policy.h"

#include <QTest>

using namespace holdpoint;

class TestRuleMatchers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void globs_data();
    void globs();
    void globWithoutPcre_data();
    void globWithoutPcre();
    void requiredLiteral_data();
    void requiredLiteral();
    void regexBehindItsLiteral_data();
    void regexBehindItsLiteral();
    void byteSetPrefilter_data();
    void byteSetPrefilter();
    void argPath_data();
    void argPath();
    void normalizePath_data();
    void normalizePath();
    void valueMatchers_data();
    void valueMatchers();
    void compactSyntax_data();
    void compactSyntax();
};

void TestRuleMatchers::globs_data()
{
    QTest::addColumn<QString>("glob");
    QTest::addColumn<bool>("path");
    QTest::addColumn<QString>("subject");
    QTest::addColumn<bool>("matches");
    QTest::newRow("star stays in a segment") << "/etc/*" << true << "/etc/passwd" << true;
    QTest::newRow("star does not cross /") << "/etc/*" << true << "/etc/ssh/sshd_config" << false;
    QTest::newRow("double star crosses /") << "/etc/**" << true << "/etc/ssh/sshd_config" << true;
    QTest::newRow("/**/ matches zero dirs")
        << "/home/**/.ssh/*" << true << "/home/.ssh/id_rsa" << true;
    QTest::newRow("/**/ matches many dirs")
        << "/home/**/.ssh/*" << true << "/home/a/b/.ssh/id_rsa" << true;
    QTest::newRow("question mark") << "/tmp/?.txt" << true << "/tmp/a.txt" << true;
    QTest::newRow("regex characters are literal")
        << "/tmp/a+b(1).txt" << true << "/tmp/a+b(1).txt" << true;
    QTest::newRow("anchored") << "/etc/*" << true << "/x/etc/passwd" << false;
    QTest::newRow("text star crosses /") << "rm -rf *" << false << "rm -rf /" << true;
    QTest::newRow("tool glob") << "mcp__github__*" << false << "mcp__github__create_issue" << true;
    QTest::newRow("tool glob other server")
        << "mcp__github__*" << false << "mcp__gitlab__create_issue" << false;
}

void TestRuleMatchers::globs()
{
    QFETCH(QString, glob);
    QFETCH(bool, path);
    QFETCH(QString, subject);
    QFETCH(bool, matches);
    QCOMPARE(compileGlob(glob.toStdString(), path ? GlobMode::Path : GlobMode::Text)
                 .match(subject)
                 .hasMatch(),
        matches);
}

void TestRuleMatchers::globWithoutPcre_data()
{
    QTest::addColumn<QString>("glob");
    QTest::addColumn<bool>("path");
    QTest::addColumn<bool>("caseless");
    QTest::addColumn<QByteArray>("subject"); // bytes: invalid UTF-8 too
    QTest::addColumn<bool>("matches");
    QTest::newRow("exact") << "make" << false << false << QByteArray("make") << true;
    QTest::newRow("exact longer") << "make" << false << false << QByteArray("make ") << false;
    QTest::newRow("empty glob") << "" << false << false << QByteArray("") << true;
    QTest::newRow("empty glob, text") << "" << false << false << QByteArray("a") << false;
    QTest::newRow("prefix") << "git status*" << false << false << QByteArray("git status --short")
                            << true;
    QTest::newRow("prefix short") << "git status*" << false << false << QByteArray("git statu")
                                  << false;
    QTest::newRow("star takes newlines")
        << "rm -rf *" << false << false << QByteArray("rm -rf /\nrm -rf ~") << true;
    QTest::newRow("star in the middle")
        << "git * --force" << false << false << QByteArray("git push origin --force") << true;
    QTest::newRow("star in the middle, no")
        << "git * --force" << false << false << QByteArray("git push --forced") << false;
    QTest::newRow("question mark") << "ls ?" << false << false << QByteArray("ls a") << true;
    QTest::newRow("question mark, two") << "ls ?" << false << false << QByteArray("ls ab") << false;
    QTest::newRow("text double star") << "a**b" << false << false << QByteArray("a/x/b") << true;
    QTest::newRow("many stars") << "*a*a*a*a*a*a*a*a*b" << false << false << QByteArray(40, 'a')
                                << false;
    QTest::newRow("many stars, yes")
        << "*a*a*a*a*a*a*a*a*b" << false << false << QByteArray(QByteArray(40, 'a') + 'b') << true;
    QTest::newRow("path star in a segment")
        << "/etc/*" << true << false << QByteArray("/etc/passwd") << true;
    QTest::newRow("path star not across /")
        << "/etc/*" << true << false << QByteArray("/etc/ssh/x") << false;
    QTest::newRow("path double star")
        << "/etc/**" << true << false << QByteArray("/etc/ssh/x") << true;
    QTest::newRow("path /**/ none")
        << "/home/**/.ssh/*" << true << false << QByteArray("/home/.ssh/id") << true;
    QTest::newRow("path /**/ many")
        << "/home/**/.ssh/*" << true << false << QByteArray("/home/a/b/.ssh/id") << true;
    QTest::newRow("path /**/ then too deep")
        << "/home/**/.ssh/*" << true << false << QByteArray("/home/a/.ssh/x/y") << false;
    QTest::newRow("path trailing **/") << "/a/**/" << true << false << QByteArray("/a/b/") << true;
    QTest::newRow("path trailing **/, no slash")
        << "/a/**/" << true << false << QByteArray("/a/b") << false;
    QTest::newRow("path question mark not /")
        << "/tmp/?" << true << false << QByteArray("/tmp//") << false;
    QTest::newRow("path leading star")
        << "*.env" << true << false << QByteArray("prod.env") << true;
    QTest::newRow("path leading star, dir")
        << "*.env" << true << false << QByteArray("/x/.env") << false;
    QTest::newRow("regex characters literal")
        << "/tmp/a+b(1).txt" << true << false << QByteArray("/tmp/a+b(1).txt") << true;
    QTest::newRow("caseless prefix")
        << "MCP__github__*" << false << true << QByteArray("mcp__GitHub__x") << true;
    QTest::newRow("caseless exact") << "BASH" << false << true << QByteArray("bash") << true;
    QTest::newRow("with case") << "BASH" << false << false << QByteArray("bash") << false;
    // PCRE folds the Kelvin sign onto k: subjects beyond ASCII go to PCRE.
    QTest::newRow("caseless beyond ASCII") << "k*" << false << true
                                           << QByteArray("\xe2\x84\xaa"
                                                         "elvin")
                                           << true;
    QTest::newRow("glob beyond ASCII") << QStringLiteral("\u00fc*") << false << false
                                       << QByteArray("\xc3\xbc"
                                                     "ber")
                                       << true;
    QTest::newRow("subject beyond ASCII")
        << "?x" << false << false << QByteArray("\xc3\xa9x") << true;
    QTest::newRow("invalid UTF-8 is one character")
        << "?x" << false << false << QByteArray("\xffx") << true;
}

void TestRuleMatchers::globWithoutPcre()
{
    QFETCH(QString, glob);
    QFETCH(bool, path);
    QFETCH(bool, caseless);
    QFETCH(QByteArray, subject);
    QFETCH(bool, matches);
    const GlobMode mode = path ? GlobMode::Path : GlobMode::Text;
    QRegularExpression reference = compileGlob(glob.toStdString(), mode);
    if (caseless)
        reference.setPatternOptions(
            reference.patternOptions() | QRegularExpression::CaseInsensitiveOption);
    const std::string s = subject.toStdString();
    QCOMPARE(reference.match(toQString(s)).hasMatch(), matches);
    QCOMPARE(Glob::compile(glob.toStdString(), mode, caseless).matches(s), matches);
}

void TestRuleMatchers::requiredLiteral_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("literal");
    QTest::addColumn<bool>("atStart");
    QTest::newRow("anchored") << R"(^deploy-3\b)"
                              << "deploy-3" << true;
    QTest::newRow("\\A") << R"(\Afoo)"
                         << "foo" << true;
    QTest::newRow("word boundary") << R"(\bsudo\b)"
                                   << "sudo" << false;
    QTest::newRow("unanchored") << R"(rm\s+-rf)"
                                << "rm" << false;
    QTest::newRow("with a space") << R"(^git push)"
                                  << "git push" << true;
    QTest::newRow("quantified last character") << R"(^abc?)"
                                               << "ab" << true;
    QTest::newRow("counted last character") << R"(^abc{2})"
                                            << "ab" << true;
    QTest::newRow("only a quantified character") << R"(^a?)"
                                                 << "" << false;
    QTest::newRow("star") << R"(ab*)"
                          << "a" << false;
    QTest::newRow("alternation") << R"(^abc|x)"
                                 << "" << false;
    QTest::newRow("alternation in a group") << R"(^a(b|c))"
                                            << "" << false;
    QTest::newRow("inline option") << R"((?i)^abc)"
                                   << "" << false;
    QTest::newRow("class") << R"([a]bc)"
                           << "" << false;
    QTest::newRow("caret alone") << R"(^)"
                                 << "" << false;
    QTest::newRow("custom token") << R"(itk_[A-Za-z0-9]{12})"
                                  << "itk_" << false;
}

void TestRuleMatchers::requiredLiteral()
{
    QFETCH(QString, pattern);
    QFETCH(QString, literal);
    QFETCH(bool, atStart);
    bool start = false;
    QCOMPARE(toQString(holdpoint::requiredLiteral(pattern.toStdString(), &start)), literal);
    QCOMPARE(start, atStart);
}

void TestRuleMatchers::regexBehindItsLiteral_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QByteArray>("subject");
    QTest::addColumn<bool>("matches");
    QTest::newRow("anchored") << R"(^deploy-3\b)" << QByteArray("deploy-3 now") << true;
    QTest::newRow("anchored, later") << R"(^deploy-3\b)" << QByteArray("make deploy-3") << false;
    QTest::newRow("anchored, no boundary") << R"(^deploy-3\b)" << QByteArray("deploy-30") << false;
    QTest::newRow("word") << R"(\bsudo\b)" << QByteArray("x sudo y") << true;
    QTest::newRow("word inside another") << R"(\bsudo\b)" << QByteArray("pseudo") << false;
    QTest::newRow("optional last character") << R"(^abc?)" << QByteArray("abd") << true;
    QTest::newRow("alternation") << R"(^a|b)" << QByteArray("xb") << true;
    QTest::newRow("inline caseless") << R"((?i)^DEPLOY)" << QByteArray("deploy") << true;
    QTest::newRow("with case") << R"(^DEPLOY)" << QByteArray("deploy") << false;
    QTest::newRow("literal beyond ASCII")
        << QStringLiteral("^\u00e9") << QByteArray("\xc3\xa9") << true;
    QTest::newRow("invalid UTF-8 around") << R"(x)" << QByteArray("\xffx") << true;
}

void TestRuleMatchers::regexBehindItsLiteral()
{
    QFETCH(QString, pattern);
    QFETCH(QByteArray, subject);
    QFETCH(bool, matches);
    const std::string s = subject.toStdString();
    QCOMPARE(QRegularExpression(pattern).match(toQString(s)).hasMatch(), matches);
    const Regex r = Regex::compile(pattern.toStdString(), "r");
    QVERIFY(r.mightMatch(s) || !matches);
    QCOMPARE(r.mightMatch(s, ByteSet(s)), r.mightMatch(s));
    const ValueMatcher m = ValueMatcher::compile(Json { { "regex", pattern.toStdString() } }, "m");
    const Json value = s;
    QCOMPARE(m.matches(&value, "/"), matches);
}

// The byte-set prefilter says what the literal search says, with and
// without case, for subjects beyond ASCII too.
void TestRuleMatchers::byteSetPrefilter_data()
{
    QTest::addColumn<bool>("caseInsensitive");
    QTest::addColumn<QByteArray>("subject");
    QTest::addColumn<bool>("might");
    QTest::newRow("caseless, upper") << true << QByteArray("API_KEY") << true;
    QTest::newRow("caseless, mixed") << true << QByteArray("passWord") << true;
    QTest::newRow("caseless, inside") << true << QByteArray("xxToKeNxx") << true;
    QTest::newRow("caseless, bytes there, out of order") << true << QByteArray("yek") << false;
    QTest::newRow("caseless, no") << true << QByteArray("command") << false;
    QTest::newRow("caseless, short") << true << QByteArray("ke") << false;
    QTest::newRow("caseless, empty") << true << QByteArray("") << false;
    QTest::newRow("caseless, Kelvin sign goes to PCRE") << true
                                                        << QByteArray("âª"
                                                                      "ey")
                                                        << true;
    QTest::newRow("caseless, @ and [ are not letters") << true << QByteArray("@[`{") << false;
    QTest::newRow("with case, upper") << false << QByteArray("xAKIAx") << true;
    QTest::newRow("with case, lower") << false << QByteArray("akia") << false;
    QTest::newRow("with case, beyond ASCII around") << false
                                                    << QByteArray("ÿ"
                                                                  "ASIAÃ©")
                                                    << true;
    QTest::newRow("with case, partial") << false << QByteArray("AKI ASI") << false;
}

void TestRuleMatchers::byteSetPrefilter()
{
    QFETCH(bool, caseInsensitive);
    QFETCH(QByteArray, subject);
    QFETCH(bool, might);
    const std::vector<std::string> literals = caseInsensitive
        ? std::vector<std::string> { "secret", "passw", "key", "token" }
        : std::vector<std::string> { "AKIA", "ASIA" };
    const Regex r(QRegularExpression(QStringLiteral(".")), literals, caseInsensitive);
    const std::string s = subject.toStdString();
    QCOMPARE(r.mightMatch(s), might);
    QCOMPARE(r.mightMatch(s, ByteSet(s)), might);
}

void TestRuleMatchers::argPath_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("found"); // JSON; empty: absent
    QTest::newRow("top level") << "n"
                               << "";
    QTest::newRow("nested") << "a.b.0.c"
                            << "1";
    QTest::newRow("index out of range") << "a.b.5"
                                        << "";
    QTest::newRow("null element") << "a.b.1"
                                  << "";
    QTest::newRow("not an index") << "a.b.x"
                                  << "";
    QTest::newRow("empty key") << "a..d"
                               << "2";
    QTest::newRow("trailing dot") << "e."
                                  << "3";
    QTest::newRow("through a number") << "a.b.0.c.d"
                                      << "";
    QTest::newRow("missing") << "zz"
                             << "";
}

void TestRuleMatchers::argPath()
{
    QFETCH(QString, path);
    QFETCH(QString, found);
    const Json doc = Json::parse(R"({"a":{"b":[{"c":1},null],"":{"d":2}},"n":null,"e":{"":3}})");
    const Json *viaPath = ArgPath(path.toStdString()).find(doc);
    QCOMPARE(viaPath, jsonAt(doc, path.toStdString()));
    if (found.isEmpty())
        QVERIFY(!viaPath);
    else
        QCOMPARE(*viaPath, Json::parse(found.toStdString()));
}

void TestRuleMatchers::normalizePath_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("normalized");
    QTest::newRow("dot-dot climbs") << "/tmp/../etc/passwd"
                                    << ""
                                    << "/etc/passwd";
    QTest::newRow("duplicate slashes") << "//etc///passwd"
                                       << ""
                                       << "/etc/passwd";
    QTest::newRow("dot") << "/etc/./passwd"
                         << ""
                         << "/etc/passwd";
    QTest::newRow("relative against cwd") << "../secrets.txt"
                                          << "/home/dev/app"
                                          << "/home/dev/secrets.txt";
    QTest::newRow("relative without cwd is under /") << "../../etc/passwd"
                                                     << ""
                                                     << "/etc/passwd";
    QTest::newRow("cannot climb above /") << "/../../etc"
                                          << ""
                                          << "/etc";
    QTest::newRow("home") << "~/.ssh/id_rsa"
                          << "" << QDir::homePath() + QStringLiteral("/.ssh/id_rsa");
    // isNormalPath() says which of these come back as they are.
    QTest::newRow("root") << "/"
                          << ""
                          << "/";
    QTest::newRow("already normal") << "/etc/passwd"
                                    << "/x"
                                    << "/etc/passwd";
    QTest::newRow("trailing slash") << "/etc/"
                                    << ""
                                    << "/etc";
    QTest::newRow("trailing dot") << "/etc/."
                                  << ""
                                  << "/etc";
    QTest::newRow("trailing dot-dot") << "/etc/ssl/.."
                                      << ""
                                      << "/etc";
    QTest::newRow("hidden name") << "/home/.profile"
                                 << ""
                                 << "/home/.profile";
    QTest::newRow("dot-dot inside a name") << "/a/..b/c.."
                                           << ""
                                           << "/a/..b/c..";
    QTest::newRow("three dots") << "/a/.../b"
                                << ""
                                << "/a/.../b";
    QTest::newRow("double slash at the start") << "//"
                                               << ""
                                               << "/";
    QTest::newRow("empty, against cwd") << ""
                                        << "/home/dev"
                                        << "/home/dev";
    QTest::newRow("relative name") << "etc"
                                   << ""
                                   << "/etc";
    QTest::newRow("tilde alone") << "~"
                                 << "" << QDir::homePath();
    QTest::newRow("tilde inside") << "/a/~/b"
                                  << ""
                                  << "/a/~/b";
    QTest::newRow("beyond ASCII") << QStringLiteral("/home/d\u00e9v/\u0444") << ""
                                  << QStringLiteral("/home/d\u00e9v/\u0444");
}

void TestRuleMatchers::normalizePath()
{
    QFETCH(QString, path);
    QFETCH(QString, cwd);
    QFETCH(QString, normalized);
    QCOMPARE(
        QString::fromStdString(holdpoint::normalizePath(path.toStdString(), cwd.toStdString())),
        normalized);
    QCOMPARE(isNormalPath(path.toStdString()), normalized == path);
}

void TestRuleMatchers::valueMatchers_data()
{
    QTest::addColumn<QString>("matcher");
    QTest::addColumn<QString>("value"); // empty: absent
    QTest::addColumn<bool>("matches");
    QTest::newRow("equals") << R"({"equals":"w"})"
                            << R"("w")" << true;
    QTest::newRow("equals other") << R"({"equals":"w"})"
                                  << R"("r")" << false;
    QTest::newRow("bare value is equals") << R"(5)"
                                          << R"(5)" << true;
    QTest::newRow("equals object") << R"({"equals":{"a":[1,2]}})"
                                   << R"({"a":[1,2]})" << true;
    QTest::newRow("glob") << R"({"glob":"/etc/**"})"
                          << R"("/etc/hosts")" << true;
    QTest::newRow("glob on a number") << R"({"glob":"*"})"
                                      << R"(5)" << false;
    QTest::newRow("regex unanchored") << R"({"regex":"rm\\s+-rf"})"
                                      << R"("sudo rm  -rf /")" << true;
    QTest::newRow("prefix") << R"({"prefix":"git "})"
                            << R"("git push")" << true;
    QTest::newRow("prefix no") << R"({"prefix":"git "})"
                               << R"("gitk")" << false;
    QTest::newRow("exists") << R"({"exists":true})"
                            << R"(null)" << false;
    QTest::newRow("exists present") << R"({"exists":true})"
                                    << R"(0)" << true;
    QTest::newRow("absent") << R"({"exists":false})"
                            << "" << true;
    QTest::newRow("absent but required") << R"({"glob":"*"})"
                                         << "" << false;
    QTest::newRow("min max inside") << R"({"min":1,"max":10})"
                                    << R"(10)" << true;
    QTest::newRow("max exceeded") << R"({"min":1,"max":10})"
                                  << R"(10.5)" << false;
    QTest::newRow("min on a string") << R"({"min":1})"
                                     << R"("5")" << false;
    QTest::newRow("path_under traversal") << R"({"path_under":"/etc"})"
                                          << R"("/tmp/../etc/passwd")" << true;
    QTest::newRow("path_under sibling") << R"({"path_under":"/etc"})"
                                        << R"("/etcetera/x")" << false;
    QTest::newRow("path_under list") << R"({"path_under":["/etc","/root"]})"
                                     << R"("/root/.bashrc")" << true;
    QTest::newRow("path_under relative") << R"({"path_under":"/home/dev"})"
                                         << R"("notes/a.md")" << true; // cwd /home/dev/app
    QTest::newRow("all operators must hold") << R"({"prefix":"/etc","glob":"**.conf"})"
                                             << R"("/etc/hosts")" << false;
}

void TestRuleMatchers::valueMatchers()
{
    QFETCH(QString, matcher);
    QFETCH(QString, value);
    QFETCH(bool, matches);
    const ValueMatcher m = ValueMatcher::compile(Json::parse(matcher.toStdString()), "m");
    Json v;
    if (!value.isEmpty())
        v = Json::parse(value.toStdString());
    const Json *p = value.isEmpty() || v.is_null() ? nullptr : &v;
    QCOMPARE(m.matches(p, "/home/dev/app"), matches);
}

void TestRuleMatchers::compactSyntax_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("args");
    QTest::addColumn<bool>("matches");
    QTest::newRow("Bash glob") << "Bash(rm -rf *)"
                               << "Bash"
                               << R"({"command":"rm -rf /"})" << true;
    QTest::newRow("Bash glob other command") << "Bash(rm -rf *)"
                                             << "Bash"
                                             << R"({"command":"ls -la"})" << false;
    QTest::newRow("Bash prefix") << "Bash(npm run test:*)"
                                 << "Bash"
                                 << R"({"command":"npm run test -- --watch"})" << true;
    QTest::newRow("Bash other tool") << "Bash(rm -rf *)"
                                     << "Write"
                                     << R"({"command":"rm -rf /"})" << false;
    QTest::newRow("tool name without case") << "Bash(rm -rf *)"
                                            << "bash"
                                            << R"({"command":"rm -rf /"})" << true;
    QTest::newRow("tool glob without case") << "MCP__github__*"
                                            << "mcp__GitHub__x"
                                            << R"({})" << true;
    QTest::newRow("specifier keeps its case") << "Bash(RM -rf *)"
                                              << "bash"
                                              << R"({"command":"rm -rf /"})" << false;
    QTest::newRow("Write path") << "Write(/etc/**)"
                                << "Write"
                                << R"({"file_path":"/etc/cron.d/x"})" << true;
    QTest::newRow("Write traversal") << "Write(/etc/**)"
                                     << "Write"
                                     << R"({"file_path":"/tmp/../etc/x"})" << true;
    QTest::newRow("Write absolute //") << "Write(//etc/**)"
                                       << "Write"
                                       << R"({"file_path":"/etc/x"})" << true;
    QTest::newRow("Edit elsewhere") << "Edit(/etc/**)"
                                    << "Edit"
                                    << R"({"file_path":"/home/x"})" << false;
    QTest::newRow("mcp glob") << "mcp__github__*"
                              << "mcp__github__delete_repo"
                              << R"({})" << true;
    QTest::newRow("WebFetch domain") << "WebFetch(domain:example.com)"
                                     << "WebFetch"
                                     << R"({"url":"https://api.example.com/x"})" << true;
    QTest::newRow("WebFetch lookalike") << "WebFetch(domain:example.com)"
                                        << "WebFetch"
                                        << R"({"url":"https://badexample.com/"})" << false;
    QTest::newRow("bare tool") << "Read"
                               << "Read"
                               << R"({"file_path":"/x"})" << true;
    QTest::newRow("Tool(*)") << "Read(*)"
                             << "Read"
                             << R"({"file_path":"/x"})" << true;
}

void TestRuleMatchers::compactSyntax()
{
    QFETCH(QString, rule);
    QFETCH(QString, tool);
    QFETCH(QString, args);
    QFETCH(bool, matches);
    const CompactMatcher m = CompactMatcher::compile(rule.toStdString(), "r");
    QCOMPARE(m.matches(tool.toStdString(), Json::parse(args.toStdString()), "/"), matches);
}

QTEST_GUILESS_MAIN(TestRuleMatchers)
#include "tst_rulematchers.moc"
