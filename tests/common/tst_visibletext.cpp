// SPDX-License-Identifier: Apache-2.0
// What a person is shown of an agent's text: hidden characters as marked
// escapes, look-alike letters of another script marked, the rest as it is.

#include "common/mixedscript.h"
#include "common/visibletext.h"

#include <QFile>
#include <QStringDecoder>
#include <QTest>

using namespace holdpoint;

class TestVisibleText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shown_data();
    void shown();
    void flags_data();
    void flags();
    void everyStringAndKeyOfACallIsRead();
    void warningAndJsonNameTheKinds();
    void jsonForAnEditorParsesBackExactly();
    void mixedScriptListsAreCappedAndShownAsTheySay();
};

// One table for the console and the reviewer page (tests/web-e2e/hidden.test.mjs
// runs the page's twin on the same file).
void TestVisibleText::shown_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shown");
    QTest::addColumn<QByteArray>("mixedScript"); // the names the item's `mixed_script` lists
    QFile file(QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/common/visibletext_cases.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const Json cases = Json::parse(file.readAll().toStdString());
    QVERIFY(cases.size() >= 20);
    // QString::fromStdString would drop a leading byte-order mark, one of the cases.
    auto text = [](const Json &j) {
        QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
        return QString(utf8(QByteArray::fromStdString(j.get<std::string>())));
    };
    for (const Json &c : cases)
        QTest::newRow(c["name"].get<std::string>().c_str())
            << text(c["text"]) << text(c["shown"])
            << QByteArray::fromStdString(c.value("mixed_script", Json::array()).dump());
}

void TestVisibleText::shown()
{
    QFETCH(QString, text);
    QFETCH(QString, shown);
    QFETCH(QByteArray, mixedScript);
    QCOMPARE(visibleText(text), shown);
    QCOMPARE(visibleText(text.toStdString()), shown.toStdString());
    // What the page is given to mark the same letters (it has no ICU).
    Json names = Json::array();
    addMixedScriptJson(names, Json(text.toStdString()));
    QCOMPARE(QByteArray::fromStdString(names.dump()), mixedScript);
    QCOMPARE(hiddenTextOf(text.toStdString()) & HiddenMixedScript,
        names.empty() ? 0u : uint(HiddenMixedScript));
}

void TestVisibleText::flags_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<uint>("flags");
    QTest::newRow("plain") << QStringLiteral("echo hi") << 0u;
    QTest::newRow("newline") << QStringLiteral("a\nb") << 0u;
    QTest::newRow("RLO") << QStringLiteral("x\u202Ey") << uint(HiddenInvisible);
    QTest::newRow("mixed") << QStringLiteral("p\u0430ypal") << uint(HiddenMixedScript);
    QTest::newRow("both") << QStringLiteral("p\u0430ypal\u200B")
                          << uint(HiddenInvisible | HiddenMixedScript);
    QTest::newRow("French") << QStringLiteral("déjà vu") << 0u;
}

void TestVisibleText::flags()
{
    QFETCH(QString, text);
    QFETCH(uint, flags);
    QCOMPARE(hiddenTextOf(text.toStdString()), flags);
}

void TestVisibleText::everyStringAndKeyOfACallIsRead()
{
    QCOMPARE(
        hiddenTextOfJson(Json { { "path", "notes.txt" }, { "n", 3 }, { "list", { "a", "b" } } }),
        0u);
    QCOMPARE(hiddenTextOfJson(Json { { "deep", { { "list", { 1, "ok", "x\u200By" } } } } }),
        uint(HiddenInvisible));
    QCOMPARE(
        hiddenTextOfJson(Json { { "p\u0430th", "notes.txt" } }), uint(HiddenMixedScript)); // a key
    QCOMPARE(hiddenTextOfJson(Json("\u202E")), uint(HiddenInvisible));
    QCOMPARE(hiddenTextOfJson(Json(nullptr)), 0u);
}

void TestVisibleText::warningAndJsonNameTheKinds()
{
    QCOMPARE(hiddenTextWarning(0), std::string());
    QVERIFY(hiddenTextWarning(HiddenInvisible).starts_with("hidden characters: invisible"));
    QVERIFY(hiddenTextWarning(HiddenMixedScript).find("another script") != std::string::npos);
    QCOMPARE(hiddenTextJson(0), Json::array());
    QCOMPARE(
        hiddenTextJson(HiddenInvisible | HiddenMixedScript), Json({ "invisible", "mixed_script" }));
}

void TestVisibleText::jsonForAnEditorParsesBackExactly()
{
    const Json args { { "file", "deploy_report\u202Efdp.exe" },
        { "url", "https://p\u0430ypal.com" }, { "n", 9007199254740993ULL },
        { "emoji", "\U0001F680\U000E0041" }, { "plain", "caf\u00e9" } };
    const std::string shown = visibleJson(args, 2);
    QVERIFY2(shown.find("deploy_report\\u202Efdp.exe") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("https://p\\u0430ypal.com") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("\\uDB40\\uDC41") != std::string::npos,
        shown.c_str()); // a tag, as a surrogate pair
    QVERIFY2(shown.find("caf\u00e9") != std::string::npos,
        shown.c_str()); // what is not hidden stays as it is
    QCOMPARE(hiddenTextOf(shown), 0u);
    QCOMPARE(Json::parse(shown), args);
    QCOMPARE(visibleJson(Json { { "a", "b" } }), dumpJson(Json { { "a", "b" } }));
    // Words are found in each string, never across the JSON around it: the
    // `n` of a \n escape is no Latin letter of the Cyrillic word after it.
    const Json lines { { "text", "x\nпривет" },
        { "list", Json::array({ "a\tλόγος", Json::object(), Json::array() }) },
        { "rlo", "\u202E" } };
    for (int indent : { -1, 2 }) {
        const std::string text = visibleJson(lines, indent);
        QVERIFY2(text.find("x\\nпривет") != std::string::npos, text.c_str());
        QCOMPARE(Json::parse(text), lines);
        // The layout is dumpJson's, but for the escape.
        std::string expected = dumpJson(lines, indent);
        expected.replace(expected.find("\u202E"), 3, "\\u202E");
        QCOMPARE(text, expected);
    }
}

void TestVisibleText::mixedScriptListsAreCappedAndShownAsTheySay()
{
    // Each name once, at most kMaxMixedScriptNames of them.
    Json many = Json::array();
    for (int i = 0; i < 100; ++i)
        many.push_back("p\u0430ypal" + std::to_string(i) + ".com and again p\u0430ypal"
            + std::to_string(i) + ".com");
    Json names = Json::array();
    addMixedScriptJson(names, many);
    QCOMPARE(names.size(), kMaxMixedScriptNames);
    QCOMPARE(names[0]["name"], Json("p\u0430ypal0.com"));
    QCOMPARE(names[1]["name"], Json("p\u0430ypal1.com"));

    QCOMPARE(lookAlikeNamesLine(Json::array()), std::string());
    QCOMPARE(lookAlikeNamesLine(names, 2),
        std::string("look-alike names: p⟨\u0430 U+0430 CYRILLIC⟩ypal0.com, "
                    "p⟨\u0430 U+0430 CYRILLIC⟩ypal1.com, …"));
    // A list from elsewhere (holdpoint-ctl reads the console's) is read with care.
    const Json odd = Json::parse(
        R"([{"name": "ab", "marks": [{"at": 9, "shown": "X"}, {"at": 1, "shown": "<b>"}]}, 7, {"marks": []}])");
    QCOMPARE(lookAlikeNamesLine(odd), std::string("look-alike names: a<b>"));
}

QTEST_GUILESS_MAIN(TestVisibleText)
#include "tst_visibletext.moc"
