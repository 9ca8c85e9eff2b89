// SPDX-License-Identifier: Apache-2.0
// The JSON writer (common/jsonwriter.h) writes what dumpJson() writes,
// byte for byte: every single byte, invalid and truncated UTF-8,
// surrogates, long strings, random values of every kind, and members
// written in sorted order against a dumped object.

#include "common/jsonwriter.h"

#include <QTest>

#include <random>
#include <string_view>

using namespace holdpoint;

class TestJsonWriter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void strings_data();
    void strings();
    void everyByte();
    void everyTwoBytes();
    void randomBytes();
    void randomValues();
    void writerMembers();
};

namespace {

std::string viaWriter(std::string_view s)
{
    std::string out = "prefix"; // appends, never replaces
    appendJsonString(out, s);
    return out.substr(6);
}

std::string viaNlohmann(std::string_view s)
{
    return dumpJson(Json(std::string(s)));
}

Json randomValue(std::mt19937 &rng, int depth)
{
    const int kind = int(rng() % (depth > 3 ? 7 : 9));
    auto randomString = [&rng] {
        std::string s;
        const std::size_t n = rng() % 24;
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned r = rng() % 10;
            if (r < 6)
                s += char(0x20 + rng() % 0x60);
            else if (r < 8)
                s += char(rng() % 0x100);
            else
                s += std::string_view("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80")
                         .substr(rng() % 9); // may start mid-sequence
        }
        return s;
    };
    switch (kind) {
    case 0:
        return nullptr;
    case 1:
        return bool(rng() % 2);
    case 2:
        return std::int64_t(rng()) - std::int64_t(rng()) * 4096;
    case 3:
        return std::uint64_t(rng()) * 1000003ULL;
    case 4:
        return double(std::int64_t(rng())) / double(1 + rng() % 1000);
    case 5:
    case 6:
        return randomString();
    case 7: {
        Json o = Json::object();
        const int n = int(rng() % 6);
        for (int i = 0; i < n; ++i)
            o[randomString()] = randomValue(rng, depth + 1);
        return o;
    }
    default: {
        Json a = Json::array();
        const int n = int(rng() % 6);
        for (int i = 0; i < n; ++i)
            a.push_back(randomValue(rng, depth + 1));
        return a;
    }
    }
}

} // namespace

void TestJsonWriter::strings_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("plain") << QByteArray("hello, world");
    QTest::newRow("quotes and backslashes") << QByteArray("a \"b\" \\c\\ /d/");
    QTest::newRow("named escapes") << QByteArray("\b\t\n\f\r");
    QTest::newRow("other controls") << QByteArray("\x01\x0b\x1f\x7f", 4);
    QTest::newRow("nul") << QByteArray("a\0b", 3);
    QTest::newRow("two-byte") << QByteArray("caf\xC3\xA9");
    QTest::newRow("three-byte") << QByteArray("\xE2\x82\xAC 5");
    QTest::newRow("four-byte") << QByteArray("\xF0\x9F\x98\x80!");
    QTest::newRow("max code point") << QByteArray("\xF4\x8F\xBF\xBF");
    QTest::newRow("beyond max") << QByteArray("\xF4\x90\x80\x80");
    QTest::newRow("surrogate high") << QByteArray("\xED\xA0\x80");
    QTest::newRow("surrogate low") << QByteArray("\xED\xBF\xBF x");
    QTest::newRow("surrogate pair as CESU") << QByteArray("\xED\xA0\xBD\xED\xB8\x80");
    QTest::newRow("last before surrogates") << QByteArray("\xED\x9F\xBF");
    QTest::newRow("overlong slash") << QByteArray("\xC0\xAF");
    QTest::newRow("overlong C1") << QByteArray("\xC1\xBF");
    QTest::newRow("overlong three") << QByteArray("\xE0\x80\xAF");
    QTest::newRow("overlong four") << QByteArray("\xF0\x80\x80\xAF");
    QTest::newRow("lone continuation") << QByteArray("a\x80z");
    QTest::newRow("continuations") << QByteArray("\x80\x81\xBF");
    QTest::newRow("truncated two at end") << QByteArray("ab\xC3");
    QTest::newRow("truncated three at end") << QByteArray("ab\xE2\x82");
    QTest::newRow("truncated four at end") << QByteArray("ab\xF0\x9F\x98");
    QTest::newRow("truncated then ascii") << QByteArray("\xE2\x82z");
    QTest::newRow("truncated then quote") << QByteArray("\xF0\x9F\"");
    QTest::newRow("truncated then lead") << QByteArray("\xE2\xC3\xA9");
    QTest::newRow("FE FF") << QByteArray("\xFE\xFF");
    QTest::newRow("F5") << QByteArray("\xF5\x80\x80\x80");
    QTest::newRow("mixed") << QByteArray("ok \xC3\xA9\x80\xE2\x82\xAC\xF0\x9F\x98 \n\x01\"\\");
    QTest::newRow("long plain") << QByteArray(100'000, 'x');
    QByteArray longMixed;
    for (int i = 0; i < 20'000; ++i)
        longMixed += QByteArray("a\xC3\xA9\n\xFF\xE2\x82\xAC\"");
    QTest::newRow("long mixed") << longMixed;
}

void TestJsonWriter::strings()
{
    QFETCH(QByteArray, input);
    const std::string_view s(input.constData(), std::size_t(input.size()));
    QCOMPARE(viaWriter(s), viaNlohmann(s));
}

void TestJsonWriter::everyByte()
{
    for (int b = 0; b < 256; ++b) {
        const char c = char(b);
        for (const std::string &s : { std::string(1, c), "a" + std::string(1, c) + "b",
                 std::string(3, c), "\xC3" + std::string(1, c), "\xE2\x82" + std::string(1, c),
                 "\xF0\x9F\x98" + std::string(1, c), "\xED" + std::string(1, c) + "\x80",
                 "\xF4" + std::string(1, c) + "\x80\x80" })
            QVERIFY2(viaWriter(s) == viaNlohmann(s),
                qPrintable(QStringLiteral("byte 0x%1").arg(b, 2, 16, QLatin1Char('0'))));
    }
}

void TestJsonWriter::everyTwoBytes()
{
    // Every pair, alone, followed by a continuation byte and by two.
    for (int a = 0x80; a < 256; ++a)
        for (int b = 0; b < 256; ++b) {
            const std::string pair { char(a), char(b) };
            for (const std::string &s : { pair, pair + "\x80", pair + "\xBF\xBF", pair + "x" })
                QVERIFY2(viaWriter(s) == viaNlohmann(s),
                    qPrintable(QStringLiteral("bytes %1 %2").arg(a, 0, 16).arg(b, 0, 16)));
        }
}

void TestJsonWriter::randomBytes()
{
    std::mt19937 rng(30);
    for (int round = 0; round < 200'000; ++round) {
        std::string s(rng() % 12, '\0');
        for (char &c : s) // biased toward the interesting bytes
            c = char(rng() % 3 == 0  ? 0x80 + rng() % 0x40
                    : rng() % 3 == 0 ? 0xC0 + rng() % 0x40
                                     : rng() % 0x100);
        QVERIFY2(viaWriter(s) == viaNlohmann(s), QByteArray::fromStdString(s).toHex().constData());
    }
}

void TestJsonWriter::randomValues()
{
    std::mt19937 rng(7);
    for (int round = 0; round < 20'000; ++round) {
        const Json j = randomValue(rng, 0);
        std::string out;
        appendJson(out, j);
        QCOMPARE(out, dumpJson(j));
    }
    // The special numbers.
    for (const Json &j : { Json(0), Json(-1), Json(std::numeric_limits<std::int64_t>::min()),
             Json(std::numeric_limits<std::uint64_t>::max()), Json(0.5), Json(1e300), Json(-0.0),
             Json(std::numeric_limits<double>::quiet_NaN()), Json(3.0), Json::object(),
             Json::array() }) {
        std::string out;
        appendJson(out, j);
        QCOMPARE(out, dumpJson(j));
    }
}

void TestJsonWriter::writerMembers()
{
    const Json nested { { "b", Json::array({ 1, "two", nullptr }) }, { "a", { { "x", true } } } };
    const Json expected { { "args", nested }, { "count", 3 }, { "neg", -4 }, { "ok", false },
        { "text", "a\"b\n\xFF" }, { "list", Json::array({ "x", Json::object(), Json::array() }) } };
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.member("args", nested);
    w.key("count").number(std::uint64_t(3));
    w.key("list")
        .beginArray()
        .string("x")
        .beginObject()
        .endObject()
        .beginArray()
        .endArray()
        .endArray();
    w.key("neg").number(std::int64_t(-4));
    w.member("ok", false);
    w.member("text", "a\"b\n\xFF");
    w.endObject();
    QCOMPARE(out, dumpJson(expected));

    std::string raw;
    JsonWriter r(raw);
    r.beginArray().raw("{\"a\":1}").raw("2").endArray();
    QCOMPARE(raw, std::string("[{\"a\":1},2]"));
}

QTEST_GUILESS_MAIN(TestJsonWriter)
#include "tst_jsonwriter.moc"
