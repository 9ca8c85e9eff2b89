// SPDX-License-Identifier: Apache-2.0
// What a person is shown of an agent's text: hidden characters as marked
// escapes, look-alike letters of another script marked, the rest as it is.

#include "common/visibletext.h"

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
};

void TestVisibleText::shown_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shown");
    QTest::newRow("plain") << QStringLiteral("rm -rf build/") << QStringLiteral("rm -rf build/");
    QTest::newRow("tab and newline stay") << QStringLiteral("a\tb\nc") << QStringLiteral("a\tb\nc");
    // "deploy_reportexe.pdf" is how a browser draws it.
    QTest::newRow("right-to-left override") << QStringLiteral("deploy_report\u202Efdp.exe")
                                            << QStringLiteral("deploy_report⟨U+202E⟩fdp.exe");
    QTest::newRow("zero-width space and joiner") << QStringLiteral("rm\u200B -rf\u200D /")
                                                 << QStringLiteral("rm⟨U+200B⟩ -rf⟨U+200D⟩ /");
    QTest::newRow("bidi isolates") << QStringLiteral("a\u2066b\u2069") << QStringLiteral("a⟨U+2066⟩b⟨U+2069⟩");
    QTest::newRow("carriage return") << QStringLiteral("ok\rrm -rf /") << QStringLiteral("ok⟨U+000D⟩rm -rf /");
    QTest::newRow("escape sequence") << QStringLiteral("\x1b[2Jx") << QStringLiteral("⟨U+001B⟩[2Jx");
    QTest::newRow("C1 control") << QString(QChar(0x9B)) << QStringLiteral("⟨U+009B⟩");
    QTest::newRow("no-break space") << QStringLiteral("rm\u00A0-rf") << QStringLiteral("rm⟨U+00A0⟩-rf");
    QTest::newRow("line separator") << QStringLiteral("a\u2028b") << QStringLiteral("a⟨U+2028⟩b");
    QTest::newRow("byte-order mark") << QStringLiteral("\uFEFFx") << QStringLiteral("⟨U+FEFF⟩x");
    QTest::newRow("private use") << QStringLiteral("x\uE000") << QStringLiteral("x⟨U+E000⟩");
    QTest::newRow("unassigned") << QStringLiteral("x\u0378") << QStringLiteral("x⟨U+0378⟩");
    QTest::newRow("Hangul filler") << QStringLiteral("a\u3164b") << QStringLiteral("a⟨U+3164⟩b");
    QTest::newRow("tag characters") << QString::fromUcs4(U"flag\U000E0041") << QStringLiteral("flag⟨U+E0041⟩");
    // A Cyrillic а (U+0430) in a Latin host: the odd letter is marked.
    QTest::newRow("Cyrillic a in a Latin host") << QStringLiteral("https://p\u0430ypal.com/login")
                                                << QStringLiteral("https://p⟨U+0430⟩ypal.com/login");
    QTest::newRow("Greek omicron in a path") << QStringLiteral("/etc/passw\u03BFrd")
                                             << QStringLiteral("/etc/passw⟨U+03BF⟩rd");
    // Words of one script each are not mixed, whatever the text around them.
    QTest::newRow("Russian and English words") << QStringLiteral("привет world") << QStringLiteral("привет world");
    QTest::newRow("Greek word") << QStringLiteral("λόγος.txt") << QStringLiteral("λόγος.txt");
    QTest::newRow("Japanese with Latin") << QStringLiteral("Tokyo東京とうきょうトウキョウ")
                                         << QStringLiteral("Tokyo東京とうきょうトウキョウ");
    QTest::newRow("Korean with Latin") << QStringLiteral("Seoul서울") << QStringLiteral("Seoul서울");
    QTest::newRow("accents are Latin") << QStringLiteral("café-naïve") << QStringLiteral("café-naïve");
    QTest::newRow("emoji") << QStringLiteral("ship it 🚀") << QStringLiteral("ship it 🚀");
}

void TestVisibleText::shown()
{
    QFETCH(QString, text);
    QFETCH(QString, shown);
    QCOMPARE(visibleText(text), shown);
    QCOMPARE(visibleText(text.toStdString()), shown.toStdString());
}

void TestVisibleText::flags_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<uint>("flags");
    QTest::newRow("plain") << QStringLiteral("echo hi") << 0u;
    QTest::newRow("newline") << QStringLiteral("a\nb") << 0u;
    QTest::newRow("RLO") << QStringLiteral("x\u202Ey") << uint(HiddenInvisible);
    QTest::newRow("mixed") << QStringLiteral("p\u0430ypal") << uint(HiddenMixedScript);
    QTest::newRow("both") << QStringLiteral("p\u0430ypal\u200B") << uint(HiddenInvisible | HiddenMixedScript);
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
    QCOMPARE(hiddenTextOfJson(Json {{"path", "notes.txt"}, {"n", 3}, {"list", {"a", "b"}}}), 0u);
    QCOMPARE(hiddenTextOfJson(Json {{"deep", {{"list", {1, "ok", "x\u200By"}}}}}), uint(HiddenInvisible));
    QCOMPARE(hiddenTextOfJson(Json {{"p\u0430th", "notes.txt"}}), uint(HiddenMixedScript)); // a key
    QCOMPARE(hiddenTextOfJson(Json("\u202E")), uint(HiddenInvisible));
    QCOMPARE(hiddenTextOfJson(Json(nullptr)), 0u);
}

void TestVisibleText::warningAndJsonNameTheKinds()
{
    QCOMPARE(hiddenTextWarning(0), std::string());
    QVERIFY(hiddenTextWarning(HiddenInvisible).starts_with("hidden characters: invisible"));
    QVERIFY(hiddenTextWarning(HiddenMixedScript).find("another script") != std::string::npos);
    QCOMPARE(hiddenTextJson(0), Json::array());
    QCOMPARE(hiddenTextJson(HiddenInvisible | HiddenMixedScript), Json({"invisible", "mixed_script"}));
}

void TestVisibleText::jsonForAnEditorParsesBackExactly()
{
    const Json args {{"file", "deploy_report\u202Efdp.exe"}, {"url", "https://p\u0430ypal.com"},
                     {"n", 9007199254740993ULL}, {"emoji", "\U0001F680\U000E0041"}, {"plain", "caf\u00e9"}};
    const std::string shown = visibleJson(args, 2);
    QVERIFY2(shown.find("deploy_report\\u202Efdp.exe") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("https://p\\u0430ypal.com") != std::string::npos, shown.c_str());
    QVERIFY2(shown.find("\\uDB40\\uDC41") != std::string::npos, shown.c_str()); // a tag, as a surrogate pair
    QVERIFY2(shown.find("caf\u00e9") != std::string::npos, shown.c_str()); // what is not hidden stays as it is
    QCOMPARE(hiddenTextOf(shown), 0u);
    QCOMPARE(Json::parse(shown), args);
    QCOMPARE(visibleJson(Json {{"a", "b"}}), dumpJson(Json {{"a", "b"}}));
}

QTEST_GUILESS_MAIN(TestVisibleText)
#include "tst_visibletext.moc"
