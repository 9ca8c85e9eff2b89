// SPDX-License-Identifier: Apache-2.0
#include "visibletext.h"

#include <QChar>
#include <QStringDecoder>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace holdpoint {

bool isHiddenCodePoint(char32_t cp)
{
    if (cp == u'\t' || cp == u'\n')
        return false;
    switch (QChar::category(cp)) {
    case QChar::Other_Control: // C0, DEL, C1
    case QChar::Other_Format: // bidi controls, zero-width characters, tags
    case QChar::Other_Surrogate:
    case QChar::Other_PrivateUse:
    case QChar::Other_NotAssigned:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return true;
    case QChar::Separator_Space: // a space that is not one to a shell
        return cp != u' ';
    default:
        break;
    }
    // Letters that show as nothing: the Hangul fillers.
    return cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0;
}

namespace {

// The scripts of a word, TR39's "highly restrictive" way: one script, or
// Latin with the scripts Chinese, Japanese and Korean write beside it.
bool scriptsWrittenTogether(const std::vector<QChar::Script> &scripts)
{
    if (scripts.size() <= 1)
        return true;
    static constexpr std::array<std::array<QChar::Script, 4>, 3> together { {
        { QChar::Script_Latin, QChar::Script_Han, QChar::Script_Hiragana, QChar::Script_Katakana },
        { QChar::Script_Latin, QChar::Script_Han, QChar::Script_Bopomofo, QChar::Script_Bopomofo },
        { QChar::Script_Latin, QChar::Script_Han, QChar::Script_Hangul, QChar::Script_Hangul },
    } };
    return std::any_of(together.begin(), together.end(), [&](const auto &set) {
        return std::all_of(scripts.begin(), scripts.end(),
            [&](QChar::Script s) { return std::find(set.begin(), set.end(), s) != set.end(); });
    });
}

bool isWordPart(char32_t cp)
{
    // Letters, marks and digits: `.`, `-`, `/` and spaces end a word, so a
    // host's labels and a path's parts are words of their own.
    switch (QChar::category(cp)) {
    case QChar::Mark_NonSpacing:
    case QChar::Mark_SpacingCombining:
    case QChar::Mark_Enclosing:
    case QChar::Number_DecimalDigit:
    case QChar::Letter_Uppercase:
    case QChar::Letter_Lowercase:
    case QChar::Letter_Titlecase:
    case QChar::Letter_Modifier:
    case QChar::Letter_Other:
        return true;
    default:
        return false;
    }
}

// A letter's script, or Script_Common for what belongs to any (digits,
// marks, and scripts Qt does not know).
QChar::Script letterScript(char32_t cp)
{
    const QChar::Script s = QChar::script(cp);
    return s == QChar::Script_Inherited || s == QChar::Script_Unknown ? QChar::Script_Common : s;
}

// Calls `onWord(begin, end, odd)` for each word of `text` whose scripts are
// not written together; `odd(cp)` is true for its letters outside the
// word's main script (the one most of its letters are in).
template<typename OnWord>
void forEachMixedWord(const std::u32string &text, OnWord &&onWord)
{
    std::size_t i = 0;
    while (i < text.size()) {
        if (!isWordPart(text[i])) {
            ++i;
            continue;
        }
        const std::size_t begin = i;
        std::vector<std::pair<QChar::Script, int>> counts;
        for (; i < text.size() && isWordPart(text[i]); ++i) {
            const QChar::Script s = letterScript(text[i]);
            if (s == QChar::Script_Common)
                continue;
            auto it = std::find_if(counts.begin(), counts.end(), [&](const auto &c) { return c.first == s; });
            if (it == counts.end())
                counts.emplace_back(s, 1);
            else
                ++it->second;
        }
        std::vector<QChar::Script> scripts;
        for (const auto &[s, n] : counts)
            scripts.push_back(s);
        if (scriptsWrittenTogether(scripts))
            continue;
        // Ties go to the first script seen.
        const QChar::Script main = std::max_element(counts.begin(), counts.end(),
            [](const auto &a, const auto &b) { return a.second < b.second; })->first;
        onWord(begin, i, [main](char32_t cp) {
            const QChar::Script s = letterScript(cp);
            return s != QChar::Script_Common && s != main;
        });
    }
}

// UTF-8 as code points, a leading byte-order mark kept (QString::fromUtf8
// drops it, and it is one of the characters to show).
std::u32string codePoints(std::string_view utf8)
{
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return QString(decode(QByteArrayView(utf8.data(), qsizetype(utf8.size())))).toStdU32String();
}

void appendEscape(QString &out, char32_t cp)
{
    out += u'⟨';
    out += QStringLiteral("U+%1").arg(uint(cp), 4, 16, QLatin1Char('0')).toUpper();
    out += u'⟩';
}

} // namespace

namespace {

// Which code points of `cps` to escape: the hidden ones, and the letters
// of a mixed-script word outside its main script.
std::vector<bool> marksOf(const std::u32string &cps)
{
    std::vector<bool> mark(cps.size(), false);
    for (std::size_t i = 0; i < cps.size(); ++i)
        mark[i] = isHiddenCodePoint(cps[i]);
    forEachMixedWord(cps, [&](std::size_t begin, std::size_t end, auto odd) {
        for (std::size_t i = begin; i < end; ++i)
            mark[i] = mark[i] || odd(cps[i]);
    });
    return mark;
}

QString visibleText(const std::u32string &cps)
{
    const std::vector<bool> mark = marksOf(cps);
    QString out;
    out.reserve(qsizetype(cps.size()) + 16);
    for (std::size_t i = 0; i < cps.size(); ++i) {
        if (mark[i])
            appendEscape(out, cps[i]);
        else
            out += QString::fromUcs4(&cps[i], 1);
    }
    return out;
}

} // namespace

QString visibleText(QStringView text)
{
    // Most text is printable ASCII, tabs and line feeds: nothing to mark.
    if (std::all_of(text.begin(), text.end(),
            [](QChar c) { return (c.unicode() >= 0x20 && c.unicode() < 0x7F) || c == u'\t' || c == u'\n'; }))
        return text.toString();
    return visibleText(text.toString().toStdU32String());
}

std::string visibleText(std::string_view utf8)
{
    if (hiddenTextOf(utf8) == 0)
        return std::string(utf8);
    return visibleText(codePoints(utf8)).toStdString();
}

namespace {

// `text` as a JSON string literal, its marked code points as \u escapes.
// Marks are found in the string itself, never across the JSON text around
// it (the `n` of a `\n` escape is no letter of the word that follows).
void writeVisibleString(std::string &out, const std::string &text)
{
    if (hiddenTextOf(std::string_view(text)) == 0) {
        out += dumpJson(Json(text));
        return;
    }
    const std::u32string cps = codePoints(text);
    const std::vector<bool> mark = marksOf(cps);
    QString literal;
    literal.reserve(qsizetype(cps.size()) + 16);
    literal += u'"';
    for (std::size_t i = 0; i < cps.size(); ++i) {
        const char32_t c = cps[i];
        if (mark[i]) {
            for (QChar unit : QString::fromUcs4(&c, 1))
                literal += QStringLiteral("\\u") + QStringLiteral("%1").arg(unit.unicode(), 4, 16, QLatin1Char('0')).toUpper();
        } else if (c == u'"' || c == u'\\') {
            literal += u'\\';
            literal += QChar(char16_t(c));
        } else if (c == u'\n') {
            literal += QStringLiteral("\\n");
        } else if (c == u'\t') {
            literal += QStringLiteral("\\t");
        } else {
            literal += QString::fromUcs4(&c, 1); // every other control is marked
        }
    }
    literal += u'"';
    out += literal.toStdString();
}

// dumpJson's layout (`indent` < 0: one line), strings by writeVisibleString.
void writeVisibleJson(std::string &out, const Json &value, int indent, int depth)
{
    const bool pretty = indent >= 0;
    auto newline = [&](int level) {
        if (pretty) {
            out += '\n';
            out.append(std::size_t(indent * level), ' ');
        }
    };
    switch (value.type()) {
    case Json::value_t::string:
        writeVisibleString(out, value.get_ref<const std::string &>());
        return;
    case Json::value_t::object: {
        if (value.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!first)
                out += ',';
            first = false;
            newline(depth + 1);
            writeVisibleString(out, it.key());
            out += pretty ? ": " : ":";
            writeVisibleJson(out, it.value(), indent, depth + 1);
        }
        newline(depth);
        out += '}';
        return;
    }
    case Json::value_t::array: {
        if (value.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const Json &v : value) {
            if (!first)
                out += ',';
            first = false;
            newline(depth + 1);
            writeVisibleJson(out, v, indent, depth + 1);
        }
        newline(depth);
        out += ']';
        return;
    }
    default:
        out += dumpJson(value);
    }
}

} // namespace

std::string visibleJson(const Json &value, int indent)
{
    std::string text = dumpJson(value, indent);
    if (hiddenTextOf(std::string_view(text)) == 0)
        return text;
    std::string out;
    out.reserve(text.size() + 16);
    writeVisibleJson(out, value, indent, 0);
    return out;
}

unsigned hiddenTextOf(std::string_view utf8)
{
    // Most text is ASCII with no control characters: nothing to look at.
    if (std::all_of(utf8.begin(), utf8.end(),
            [](char c) { return (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n'; }))
        return 0;
    const std::u32string cps = codePoints(utf8);
    unsigned flags = 0;
    if (std::any_of(cps.begin(), cps.end(), isHiddenCodePoint))
        flags |= HiddenInvisible;
    forEachMixedWord(cps, [&](std::size_t, std::size_t, auto) { flags |= HiddenMixedScript; });
    return flags;
}

unsigned hiddenTextOfJson(const Json &value)
{
    switch (value.type()) {
    case Json::value_t::string:
        return hiddenTextOf(std::string_view(value.get_ref<const std::string &>()));
    case Json::value_t::object: {
        unsigned flags = 0;
        for (auto it = value.begin(); it != value.end(); ++it)
            flags |= hiddenTextOf(std::string_view(it.key())) | hiddenTextOfJson(it.value());
        return flags;
    }
    case Json::value_t::array: {
        unsigned flags = 0;
        for (const Json &v : value)
            flags |= hiddenTextOfJson(v);
        return flags;
    }
    default:
        return 0;
    }
}

std::string hiddenTextWarning(unsigned flags)
{
    if (flags == 0)
        return {};
    std::string out = "hidden characters:";
    if (flags & HiddenInvisible)
        out += " invisible or control characters";
    if ((flags & HiddenInvisible) && (flags & HiddenMixedScript))
        out += ',';
    if (flags & HiddenMixedScript)
        out += " letters of another script in a word";
    return out + " (shown as ⟨U+…⟩)";
}

Json hiddenTextJson(unsigned flags)
{
    Json out = Json::array();
    if (flags & HiddenInvisible)
        out.push_back("invisible");
    if (flags & HiddenMixedScript)
        out.push_back("mixed_script");
    return out;
}

} // namespace holdpoint
