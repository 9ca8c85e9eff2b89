// SPDX-License-Identifier: Apache-2.0
// A call that hides characters from its reviewer, end to end: the default
// policy puts it to a person, every reviewer surface of the console warns
// of it and shows the characters escaped, and an edit of another argument
// sends the agent's own text back byte for byte.

#include "common/consoleprocess.h"

#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// "deploy_reportexe.pdf" is how it draws; a zero-width space splits rm.
const std::string Tool = "deploy_report\u202Efdp.exe";
const std::string Command = "rm\u200B -rf /tmp/x";
const std::string Host = "https://p\u0430ypal.com/login"; // a Cyrillic а
const std::string Mirror
    = "https://\u0430\u0440\u0440\u04CF\u0435.com/x"; // Cyrillic throughout, before .com
const std::string Note = "Исправлена ошибка"; // Russian: one script, nothing to mark

} // namespace

class TestHiddenTextE2E : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everySurfaceWarnsAndTheTextComesBackExactly();
};

void TestHiddenTextE2E::everySurfaceWarnsAndTheTextComesBackExactly()
{
    // Everything runs, but what the hidden_characters guardrail (in every
    // shipped policy) asks about.
    QTemporaryDir dir;
    QFile policy(dir.path() + QStringLiteral("/allow.json"));
    QVERIFY(policy.open(QIODevice::WriteOnly));
    policy.write(R"({"default": "allow", "guardrails": [{"type": "hidden_characters"}]})");
    policy.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy.fileName() });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto agent = console.agent();
    QVERIFY(agent);

    agent->send(Json { { "type", "tool_call" }, { "call_id", "plain" }, { "tool_name", "bash" },
        { "args", { { "command", "ls" } } } });
    QCOMPARE(agent->next("decision")["decision"], Json("allow"));

    const Json args { { "command", Command }, { "url", Host }, { "mirror", Mirror },
        { "note", Note } };
    agent->send(Json {
        { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", Tool }, { "args", args } });
    const Json pending = agent->next("pending");
    QVERIFY(pending.is_object());
    const Json item = reviewer->next("escalated")["item"];
    QCOMPARE(item["hidden_characters"], Json({ "invisible", "mixed_script" }));
    // The names the page marks, found by ICU, with their look-alike letters.
    QCOMPARE(item["mixed_script"].size(), std::size_t(2));
    QCOMPARE(item["mixed_script"][0]["name"], Json("\u0430\u0440\u0440\u04CF\u0435.com"));
    QCOMPARE(item["mixed_script"][0]["marks"].size(), std::size_t(5));
    QCOMPARE(item["mixed_script"][1]["name"], Json("p\u0430ypal.com"));
    QCOMPARE(item["mixed_script"][1]["marks"][0]["shown"], Json("⟨\u0430 U+0430 CYRILLIC⟩"));
    QCOMPARE(item["tool_name"], Json(Tool)); // the fields stay the agent's
    QCOMPARE(item["args"], args);
    QVERIFY2(
        item["reason"].get<std::string>().starts_with("hidden characters: "), item.dump().c_str());

    // holdpoint-ctl pending: escaped, with a warning line.
    const CtlResult listed = console.ctl({ QStringLiteral("pending") });
    QCOMPARE(listed.exitCode, 0);
    const QString out = QString::fromUtf8(listed.out);
    QVERIFY2(out.contains(QStringLiteral("deploy_report⟨U+202E⟩fdp.exe")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("rm⟨U+200B⟩ -rf")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("p⟨а U+0430 CYRILLIC⟩ypal.com")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral(
                 "    look-alike names: ⟨а U+0430 CYRILLIC⟩⟨р U+0440 CYRILLIC⟩⟨р U+0440 CYRILLIC⟩"
                 "⟨ӏ U+04CF CYRILLIC⟩⟨е U+0435 CYRILLIC⟩.com, p⟨а U+0430 CYRILLIC⟩ypal.com\n")),
        qPrintable(out));
    QVERIFY2(
        out.contains(QStringLiteral("WARNING hidden characters: invisible or control characters, "
                                    "look-alike letters of another script in a name")),
        qPrintable(out));
    QVERIFY2(!out.contains(QString::fromStdString(Tool)) && !out.contains(QChar(0x200B)),
        qPrintable(out));
    // --json is the wire's: exact, for programs.
    const Json listedJson
        = console.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(listedJson[0]["tool_name"], Json(Tool));
    QCOMPARE(listedJson[0]["hidden_characters"], Json({ "invisible", "mixed_script" }));

    // An edit of another argument: what the agent wrote comes back exactly.
    Json edited = args;
    edited["note"] = "edited";
    QCOMPARE(
        console
            .ctl({ QStringLiteral("edit"), QString::fromStdString(item["id"].get<std::string>()),
                QStringLiteral("--args"), QString::fromStdString(dumpJson(edited)) })
            .exitCode,
        0);
    const Json decision = agent->next("decision");
    QCOMPARE(decision["decision"], Json("modify"));
    QCOMPARE(dumpJson(decision["args"]["command"]), dumpJson(Json(Command)));
    QCOMPARE(decision["args"]["url"].get<std::string>(), Host);
    QCOMPARE(decision["args"]["mirror"].get<std::string>(), Mirror);
}

QTEST_GUILESS_MAIN(TestHiddenTextE2E)
#include "tst_hiddentext_e2e.moc"
