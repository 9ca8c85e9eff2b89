// SPDX-License-Identifier: Apache-2.0
#include "mixedscript.h"

#include <QString>
#include <QStringDecoder>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>

#include <algorithm>
#include <array>
#include <utility>

namespace holdpoint {

namespace {

// One checker for the process: ICU documents uspoof_check2 and
// uspoof_getSkeleton as safe to call from many threads on one checker once
// it is set up. TR39 §5.2 restriction level "highly restrictive", and
// §5.3's mixed numbers.
const USpoofChecker *checker()
{
    static const USpoofChecker *const instance = [] {
        UErrorCode status = U_ZERO_ERROR;
        USpoofChecker *c = uspoof_open(&status);
        uspoof_setChecks(c, USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS, &status);
        uspoof_setRestrictionLevel(c, USPOOF_HIGHLY_RESTRICTIVE);
        if (U_FAILURE(status)) {
            uspoof_close(c);
            return static_cast<USpoofChecker *>(nullptr);
        }
        return c;
    }();
    return instance;
}

std::u16string utf16(const char32_t *begin, const char32_t *end)
{
    std::u16string out;
    out.reserve(std::size_t(end - begin));
    for (; begin != end; ++begin) {
        char32_t c = *begin;
        if (c >= 0x10000) {
            c -= 0x10000;
            out += char16_t(0xD800 + (c >> 10));
            out += char16_t(0xDC00 + (c & 0x3FF));
        } else {
            out += char16_t(c);
        }
    }
    return out;
}

// A label TR39 §5.2 and §5.3 refuse. Without a checker (ICU could not set
// one up) every label that reaches here, one with a letter outside ASCII,
// counts as refused: a warning too many, never one too few.
bool failsRestriction(const std::u16string &label)
{
    const USpoofChecker *c = checker();
    if (c == nullptr)
        return true;
    UErrorCode status = U_ZERO_ERROR;
    const int32_t result = uspoof_check2(c, label.data(), int32_t(label.size()), nullptr, &status);
    return U_FAILURE(status) || result != 0;
}

// True when the label's TR39 skeleton (§4, what it looks like) is ASCII:
// it reads as Latin letters and digits.
bool looksLatin(const std::u16string &label)
{
    const USpoofChecker *c = checker();
    if (c == nullptr)
        return false;
    std::u16string skeleton(label.size() * 4 + 8, u'\0');
    UErrorCode status = U_ZERO_ERROR;
    int32_t n = uspoof_getSkeleton(c, 0, label.data(), int32_t(label.size()), skeleton.data(),
        int32_t(skeleton.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
        skeleton.assign(std::size_t(n), u'\0');
        status = U_ZERO_ERROR;
        n = uspoof_getSkeleton(
            c, 0, label.data(), int32_t(label.size()), skeleton.data(), n, &status);
    }
    if (U_FAILURE(status))
        return false;
    skeleton.resize(std::size_t(n));
    return std::all_of(skeleton.begin(), skeleton.end(), [](char16_t u) { return u < 0x80; });
}

// A code point's script, or USCRIPT_COMMON for one every script uses.
UScriptCode scriptOf(char32_t cp)
{
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode s = uscript_getScript(UChar32(cp), &status);
    if (U_FAILURE(status) || s == USCRIPT_INHERITED || s == USCRIPT_UNKNOWN)
        return USCRIPT_COMMON;
    return s;
}

bool isNamePart(char32_t cp)
{
    return (U_GET_GC_MASK(UChar32(cp)) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_ND_MASK)) != 0;
}

bool isJoiner(char32_t cp)
{
    return cp == u'.' || cp == u'-' || cp == u'_';
}

// The scripts TR39's highly restrictive level lets `main` be written with.
std::vector<UScriptCode> companionsOf(UScriptCode main)
{
    switch (main) {
    case USCRIPT_LATIN:
        return { USCRIPT_HAN, USCRIPT_HIRAGANA, USCRIPT_KATAKANA, USCRIPT_BOPOMOFO,
            USCRIPT_HANGUL };
    case USCRIPT_HAN:
        return { USCRIPT_LATIN, USCRIPT_HIRAGANA, USCRIPT_KATAKANA, USCRIPT_BOPOMOFO,
            USCRIPT_HANGUL };
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
        return { USCRIPT_LATIN, USCRIPT_HAN, USCRIPT_HIRAGANA, USCRIPT_KATAKANA };
    case USCRIPT_HANGUL:
    case USCRIPT_BOPOMOFO:
        return { USCRIPT_LATIN, USCRIPT_HAN };
    default:
        return {};
    }
}

void addMark(std::vector<ScriptMark> &marks, std::size_t at, char32_t cp, std::string formOf = {})
{
    marks.push_back({ at, cp, uscript_getName(scriptOf(cp)), std::move(formOf) });
}

// The ASCII letters and digits `cp` stands for under NFKC (UAX 15) when it
// is a compatibility form of them: 𝐩 → "p", ｐ → "p", ﬁ → "fi", ſ → "s".
// Empty otherwise, and for ª and º, the ordinal indicators of "1ª", "Nº".
std::string asciiFormOf(char32_t cp)
{
    if (cp < 0x80 || cp == 0xAA || cp == 0xBA)
        return {};
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2 *nfkc = unorm2_getNFKCInstance(&status);
    const std::u16string in = utf16(&cp, &cp + 1);
    if (U_FAILURE(status) || unorm2_isNormalized(nfkc, in.data(), int32_t(in.size()), &status)
        || U_FAILURE(status))
        return {};
    std::array<UChar, 32> out {};
    const int32_t n = unorm2_normalize(
        nfkc, in.data(), int32_t(in.size()), out.data(), int32_t(out.size()), &status);
    if (U_FAILURE(status) || n <= 0)
        return {};
    std::string ascii;
    for (int32_t i = 0; i < n; ++i) {
        const char16_t u = out[std::size_t(i)];
        const bool alnum
            = (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z');
        if (!alnum)
            return {};
        ascii += char(u);
    }
    return ascii;
}

// The marks of a label TR39 refuses: its letters outside the main script
// and the scripts written with it.
void markMixedLabel(const std::u32string &text, std::size_t begin, std::size_t end,
    const std::u16string &label, std::vector<ScriptMark> &marks)
{
    const std::size_t before = marks.size();
    std::vector<std::pair<UScriptCode, int>> counts;
    for (std::size_t i = begin; i < end; ++i) {
        const UScriptCode s = scriptOf(text[i]);
        if (s == USCRIPT_COMMON)
            continue;
        auto it = std::find_if(
            counts.begin(), counts.end(), [&](const auto &c) { return c.first == s; });
        if (it == counts.end())
            counts.emplace_back(s, 1);
        else
            ++it->second;
    }
    const bool hasLatin = std::any_of(
        counts.begin(), counts.end(), [](const auto &c) { return c.first == USCRIPT_LATIN; });
    // Ties go to the first script seen.
    UScriptCode main = USCRIPT_COMMON;
    if (hasLatin && looksLatin(label))
        main = USCRIPT_LATIN;
    else if (!counts.empty())
        main = std::max_element(counts.begin(), counts.end(), [](const auto &a, const auto &b) {
            return a.second < b.second;
        })->first;
    const std::vector<UScriptCode> companions = companionsOf(main);
    auto inScript
        = [](char32_t cp, UScriptCode s) { return uscript_hasScript(UChar32(cp), s) != 0; };
    for (std::size_t i = begin; i < end; ++i) {
        const char32_t cp = text[i];
        if (scriptOf(cp) == USCRIPT_COMMON || inScript(cp, main))
            continue;
        if (std::none_of(companions.begin(), companions.end(),
                [&](UScriptCode s) { return inScript(cp, s); }))
            addMark(marks, i, cp);
    }
    // Scripts each allowed with the main one but not all together (Latin,
    // Katakana and Hangul): the letters outside the main script.
    const bool none = marks.size() == before;
    for (std::size_t i = begin; none && i < end; ++i) {
        if (scriptOf(text[i]) != USCRIPT_COMMON && !inScript(text[i], main))
            addMark(marks, i, text[i]);
    }
    // Mixed numbers (`1२3`), or a refusal without a checker: what is not ASCII.
    const bool stillNone = marks.size() == before;
    for (std::size_t i = begin; stillNone && i < end; ++i) {
        if (text[i] >= 0x80)
            addMark(marks, i, text[i]);
    }
    std::sort(marks.begin() + std::ptrdiff_t(before), marks.end(),
        [](const ScriptMark &a, const ScriptMark &b) { return a.at < b.at; });
}

// Calls onName(begin, end, marks) for each suspicious name of `text`.
template <typename OnName> void forEachMixedName(const std::u32string &text, OnName &&onName)
{
    std::size_t i = 0;
    while (i < text.size()) {
        if (!isNamePart(text[i]) && !isJoiner(text[i])) {
            ++i;
            continue;
        }
        const std::size_t begin = i;
        bool ascii = true;
        bool nameHasLatin = false;
        bool nameHasAscii = false; // letters or digits
        for (; i < text.size() && (isNamePart(text[i]) || isJoiner(text[i])); ++i) {
            ascii = ascii && text[i] < 0x80;
            nameHasLatin = nameHasLatin || scriptOf(text[i]) == USCRIPT_LATIN;
            nameHasAscii = nameHasAscii || (text[i] < 0x80 && isNamePart(text[i]));
        }
        const std::size_t end = i;
        if (ascii)
            continue;
        std::vector<ScriptMark> marks;
        for (std::size_t l = begin; l < end;) {
            if (isJoiner(text[l])) {
                ++l;
                continue;
            }
            std::size_t e = l;
            bool labelAscii = true;
            bool labelLatin = false;
            bool labelLetters = false;
            for (; e < end && !isJoiner(text[e]); ++e) {
                labelAscii = labelAscii && text[e] < 0x80;
                const UScriptCode s = scriptOf(text[e]);
                labelLatin = labelLatin || s == USCRIPT_LATIN;
                labelLetters = labelLetters || s != USCRIPT_COMMON;
            }
            if (!labelAscii) {
                const std::u16string label = utf16(text.data() + l, text.data() + e);
                if (failsRestriction(label)) {
                    markMixedLabel(text, l, e, label, marks);
                } else if (nameHasLatin && !labelLatin && labelLetters && looksLatin(label)) {
                    // A whole-script look-alike beside Latin: `аррӏе` in `аррӏе.com`.
                    for (std::size_t k = l; k < e; ++k) {
                        if (scriptOf(text[k]) != USCRIPT_COMMON)
                            addMark(marks, k, text[k]);
                    }
                }
            }
            l = e;
        }
        // Compatibility forms of ASCII beside ASCII: `𝐩aypal`, `ﬁle.txt`.
        for (std::size_t k = begin; nameHasAscii && k < end; ++k) {
            if (std::none_of(
                    marks.begin(), marks.end(), [k](const ScriptMark &m) { return m.at == k; })) {
                if (std::string form = asciiFormOf(text[k]); !form.empty())
                    addMark(marks, k, text[k], std::move(form));
            }
        }
        std::sort(marks.begin(), marks.end(),
            [](const ScriptMark &a, const ScriptMark &b) { return a.at < b.at; });
        if (!marks.empty())
            onName(begin, end, marks);
    }
}

std::u32string codePointsOf(std::string_view utf8)
{
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return QString(decode(QByteArrayView(utf8.data(), qsizetype(utf8.size())))).toStdU32String();
}

std::string utf8Of(const char32_t *cps, std::size_t n)
{
    return QString::fromUcs4(cps, qsizetype(n)).toStdString();
}

} // namespace

std::vector<ScriptMark> mixedScriptMarks(const std::u32string &text)
{
    std::vector<ScriptMark> out;
    forEachMixedName(text, [&](std::size_t, std::size_t, const std::vector<ScriptMark> &marks) {
        out.insert(out.end(), marks.begin(), marks.end());
    });
    return out;
}

std::vector<MixedScriptName> mixedScriptNames(std::string_view utf8)
{
    std::vector<MixedScriptName> out;
    if (std::all_of(
            utf8.begin(), utf8.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
        return out;
    const std::u32string text = codePointsOf(utf8);
    forEachMixedName(
        text, [&](std::size_t begin, std::size_t end, const std::vector<ScriptMark> &marks) {
            MixedScriptName name { utf8Of(text.data() + begin, end - begin), marks };
            for (ScriptMark &m : name.marks)
                m.at -= begin;
            out.push_back(std::move(name));
        });
    return out;
}

std::string scriptMarkText(const ScriptMark &mark)
{
    std::string script = mark.script;
    std::transform(script.begin(), script.end(), script.begin(),
        [](char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; });
    return "⟨" + utf8Of(&mark.codePoint, 1) + " "
        + QStringLiteral("U+%1")
              .arg(uint(mark.codePoint), 4, 16, QLatin1Char('0'))
              .toUpper()
              .toStdString()
        + " " + (mark.formOf.empty() ? script : "FORM OF " + mark.formOf) + "⟩";
}

namespace {

void addNames(Json &out, std::string_view utf8)
{
    for (const MixedScriptName &n : mixedScriptNames(utf8)) {
        if (out.size() >= kMaxMixedScriptNames)
            return;
        if (std::any_of(out.begin(), out.end(), [&](const Json &e) { return e["name"] == n.name; }))
            continue;
        Json marks = Json::array();
        for (const ScriptMark &m : n.marks) {
            marks.push_back({ { "at", m.at }, { "char", utf8Of(&m.codePoint, 1) },
                { "code_point",
                    QStringLiteral("U+%1")
                        .arg(uint(m.codePoint), 4, 16, QLatin1Char('0'))
                        .toUpper()
                        .toStdString() },
                { "script", m.script }, { "shown", scriptMarkText(m) } });
            if (!m.formOf.empty())
                marks.back()["form_of"] = m.formOf;
        }
        out.push_back({ { "name", n.name }, { "marks", std::move(marks) } });
    }
}

} // namespace

void addMixedScriptJson(Json &out, const Json &value)
{
    if (!out.is_array())
        out = Json::array();
    switch (value.type()) {
    case Json::value_t::string:
        addNames(out, value.get_ref<const std::string &>());
        return;
    case Json::value_t::object:
        for (auto it = value.begin(); it != value.end(); ++it) {
            addNames(out, it.key());
            addMixedScriptJson(out, it.value());
        }
        return;
    case Json::value_t::array:
        for (const Json &v : value)
            addMixedScriptJson(out, v);
        return;
    default:
        return;
    }
}

std::string lookAlikeNamesLine(const Json &mixedScript, std::size_t max)
{
    if (!mixedScript.is_array() || mixedScript.empty())
        return {};
    std::string out = "look-alike names: ";
    std::size_t shown = 0;
    for (const Json &entry : mixedScript) {
        if (shown == max) {
            out += ", …";
            break;
        }
        if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
            continue;
        std::u32string name = codePointsOf(entry["name"].get_ref<const std::string &>());
        std::vector<std::string> parts(name.size());
        for (std::size_t i = 0; i < name.size(); ++i)
            parts[i] = utf8Of(&name[i], 1);
        for (const Json &m : entry.value("marks", Json::array())) {
            if (m.is_object() && m.value("at", Json()).is_number_unsigned()
                && m.value("shown", Json()).is_string()
                && m["at"].get<std::size_t>() < parts.size())
                parts[m["at"].get<std::size_t>()] = m["shown"].get<std::string>();
        }
        out += shown++ == 0 ? "" : ", ";
        for (const std::string &p : parts)
            out += p;
    }
    return out;
}

} // namespace holdpoint
