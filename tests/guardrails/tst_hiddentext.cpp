// SPDX-License-Identifier: Apache-2.0
// hidden_characters: a call whose tool, arguments or context hide
// characters from the person who approves it is put to that person (or
// denied, as the policy says), whatever a later guardrail allows.

#include "common/policies.h"
#include "guardrails/chain.h"
#include "policy/policy.h"

#include <QFile>
#include <QTest>

using namespace holdpoint;
using holdpoint::test::policyError;
using holdpoint::test::policyOf;
using holdpoint::test::runBeforeCall;

class TestHiddenText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void verdicts_data();
    void verdicts();
    void aLaterAllowDoesNotLetItThrough();
    void theContextIsReadToo();
    void specIsChecked();
    void everyShippedPolicyPutsALookAlikeToAPerson();
};

void TestHiddenText::verdicts_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("arg");
    QTest::addColumn<QString>("action"); // the chain's outcome
    QTest::addColumn<QString>("reason");
    const QString ask
        = QStringLiteral(R"({"default": "allow", "guardrails": [{"type": "hidden_characters"}]})");
    const QString strict = QStringLiteral(
        R"({"default": "allow", "guardrails": [{"type": "hidden_characters", "invisible": "deny", "mixed_script": "warn"}]})");
    QTest::newRow("plain") << ask << "write_file"
                           << "notes.txt"
                           << "allow"
                           << "";
    QTest::newRow("plain non-ASCII") << ask << "write_file"
                                     << "ノート/été.txt"
                                     << "allow"
                                     << "";
    QTest::newRow("RLO in the tool")
        << ask << "deploy_report\u202Efdp.exe"
        << "x"
        << "ask"
        << "hidden characters: invisible or control characters (shown as ⟨…⟩) in the tool name";
    QTest::newRow("zero-width in an arg")
        << ask << "bash"
        << "rm\u200B -rf /"
        << "ask"
        << "hidden characters: invisible or control characters (shown as ⟨…⟩) in the arguments";
    QTest::newRow("look-alike host") << ask << "fetch"
                                     << "https://p\u0430ypal.com"
                                     << "ask"
                                     << "hidden characters: look-alike letters of another script "
                                        "in a name (shown as ⟨…⟩) in the arguments";
    // Names that mix scripts, as ICU's TR39 checks find them (common/mixedscript.h).
    const QString lookAlike = QStringLiteral(
        "hidden characters: look-alike letters of another script in a name (shown as ⟨…⟩) in the ");
    QTest::newRow("look-alike tool name")
        << ask << "r\u0435ad_file"
        << "notes.txt"
        << "ask" << QString(lookAlike + QStringLiteral("tool name"));
    QTest::newRow("Greek omicron in a path")
        << ask << "read_file"
        << "/etc/passw\u03BFrd"
        << "ask" << QString(lookAlike + QStringLiteral("arguments"));
    QTest::newRow("look-alike email host")
        << ask << "send_mail"
        << "ceo@ex\u0430mple.org"
        << "ask" << QString(lookAlike + QStringLiteral("arguments"));
    QTest::newRow("all-Cyrillic label before .com")
        << ask << "fetch"
        << "https://\u0430\u0440\u0440\u04CF\u0435.com/"
        << "ask" << QString(lookAlike + QStringLiteral("arguments"));
    QTest::newRow("a mathematical bold p in a host")
        << ask << "fetch"
        << "https://\U0001D429aypal.com/"
        << "ask" << QString(lookAlike + QStringLiteral("arguments"));
    QTest::newRow("a Russian sentence") << ask << "git_commit"
                                        << "Исправлена ошибка в парсере, см. выше"
                                        << "allow"
                                        << "";
    QTest::newRow("Russian words with Latin ones") << ask << "git_commit"
                                                   << "Починил API-ключ в README.md"
                                                   << "allow"
                                                   << "";
    QTest::newRow("a Greek word") << ask << "write_file"
                                  << "λόγος.txt"
                                  << "allow"
                                  << "";
    QTest::newRow("Japanese with Latin") << ask << "write_file"
                                         << "Tokyo東京とうきょうトウキョウ.md"
                                         << "allow"
                                         << "";
    QTest::newRow("Latin, digits and punctuation") << ask << "bash"
                                                   << "make -j2 build_v2.0-rc1 && echo 100%"
                                                   << "allow"
                                                   << "";
    QTest::newRow("deny mixed script") << QStringLiteral(
        R"({"default": "allow", "guardrails": [{"type": "hidden_characters", "mixed_script": "deny"}]})")
                                       << "fetch"
                                       << "https://p\u0430ypal.com"
                                       << "deny"
                                       << QString(lookAlike + QStringLiteral("arguments"));
    QTest::newRow("deny invisible")
        << strict << "bash"
        << "a\u2066b"
        << "deny"
        << "hidden characters: invisible or control characters (shown as ⟨…⟩) in the arguments";
    QTest::newRow("warn on mixed script") << strict << "fetch"
                                          << "p\u0430ypal"
                                          << "allow"
                                          << "";
}

void TestHiddenText::verdicts()
{
    QFETCH(QString, policy);
    QFETCH(QString, tool);
    QFETCH(QString, arg);
    QFETCH(QString, action);
    QFETCH(QString, reason);
    const ChainOutcome out = runBeforeCall(policyOf(policy.toStdString()), tool.toStdString(),
        Json { { "value", arg.toStdString() } });
    QCOMPARE(QString::fromLatin1(actionName(out.action)), action);
    if (!reason.isEmpty()) {
        QCOMPARE(QString::fromStdString(out.reason), reason);
        QCOMPARE(out.code, std::string("hidden_characters"));
    }
    if (QTest::currentDataTag() == QByteArray("warn on mixed script")) {
        QCOMPARE(out.warnings.size(), std::size_t(1));
        QCOMPARE(out.warnings[0].code, std::string("hidden_characters"));
    }
}

void TestHiddenText::aLaterAllowDoesNotLetItThrough()
{
    const Policy p = policyOf(R"({"default": "ask", "guardrails": [{"type": "hidden_characters"},
        {"type": "rules", "rules": [{"when": {"tool": "bash"}, "action": "allow", "reason": "shell is fine"}]}]})");
    QCOMPARE(runBeforeCall(p, "bash", Json { { "command", "ls" } }).action, Action::Allow);
    const ChainOutcome hidden = runBeforeCall(p, "bash", Json { { "command", "ls\u202E" } });
    QCOMPARE(hidden.action, Action::Ask);
    QCOMPARE(hidden.code, std::string("hidden_characters"));
}

void TestHiddenText::theContextIsReadToo()
{
    const Policy p
        = policyOf(R"({"default": "allow", "guardrails": [{"type": "hidden_characters"}]})");
    const ChainOutcome out = runBeforeCall(
        p, "bash", Json { { "command", "ls" } }, "coder", Json { { "cwd", "/home/u\u200D" } });
    QCOMPARE(out.action, Action::Ask);
    QVERIFY(out.reason.ends_with("in the context"));
}

void TestHiddenText::specIsChecked()
{
    QCOMPARE(
        policyError(R"({"guardrails": [{"type": "hidden_characters", "invisible": "allow"}]})"),
        QStringLiteral("p.json: guardrails[0].invisible: unknown value \"allow\" (expected one of: "
                       "ask, deny, halt, warn, pass)"));
    QVERIFY(policyError(R"({"guardrails": [{"type": "hidden_characters", "bidi": "ask"}]})")
                .contains(QStringLiteral("unknown key")));
}

void TestHiddenText::everyShippedPolicyPutsALookAlikeToAPerson()
{
    for (const char *name : { "default", "coding-agent", "strict", "read-only" }) {
        QFile file(QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/%1.json")
                       .arg(QLatin1String(name)));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const Policy p = policyOf(file.readAll().toStdString());
        // A read-only tool, which read-only.json would let through.
        const ChainOutcome out = runBeforeCall(
            p, "read_file", Json { { "path", "/srv/\u0430\u0440\u0440\u04CF\u0435.com/key" } });
        QVERIFY2(out.action == Action::Ask || out.action == Action::Deny, name);
        QVERIFY2(out.code == "hidden_characters" || out.action == Action::Deny, name);
    }
}

QTEST_GUILESS_MAIN(TestHiddenText)
#include "tst_hiddentext.moc"
