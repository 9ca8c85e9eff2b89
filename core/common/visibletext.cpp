// SPDX-License-Identifier: Apache-2.0
#include "visibletext.h"
#include "mixedscript.h"

#include <QChar>
#include <QStringDecoder>

#include <algorithm>
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

// How each code point of `cps` is shown when it is marked (empty when it
// is not): the hidden ones as ⟨U+202E⟩, the look-alike letters of a
// mixed-script name as ⟨а U+0430 CYRILLIC⟩ (common/mixedscript.h).
std::vector<QString> marksOf(const std::u32string &cps)
{
    std::vector<QString> mark(cps.size());
    for (std::size_t i = 0; i < cps.size(); ++i) {
        if (isHiddenCodePoint(cps[i]))
            appendEscape(mark[i], cps[i]);
    }
    for (const ScriptMark &m : mixedScriptMarks(cps)) {
        if (mark[m.at].isEmpty())
            mark[m.at] = QString::fromStdString(scriptMarkText(m));
    }
    return mark;
}

QString visibleText(const std::u32string &cps)
{
    const std::vector<QString> mark = marksOf(cps);
    QString out;
    out.reserve(qsizetype(cps.size()) + 16);
    for (std::size_t i = 0; i < cps.size(); ++i) {
        if (!mark[i].isEmpty())
            out += mark[i];
        else
            out += QString::fromUcs4(&cps[i], 1);
    }
    return out;
}

} // namespace

QString visibleText(QStringView text)
{
    // Most text is printable ASCII, tabs and line feeds: nothing to mark.
    if (std::all_of(text.begin(), text.end(), [](QChar c) {
            return (c.unicode() >= 0x20 && c.unicode() < 0x7F) || c == u'\t' || c == u'\n';
        }))
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
    const std::vector<QString> mark = marksOf(cps);
    QString literal;
    literal.reserve(qsizetype(cps.size()) + 16);
    literal += u'"';
    for (std::size_t i = 0; i < cps.size(); ++i) {
        const char32_t c = cps[i];
        if (!mark[i].isEmpty()) {
            for (QChar unit : QString::fromUcs4(&c, 1))
                literal += QStringLiteral("\\u")
                    + QStringLiteral("%1").arg(unit.unicode(), 4, 16, QLatin1Char('0')).toUpper();
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
    if (!mixedScriptMarks(cps).empty())
        flags |= HiddenMixedScript;
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
        out += " look-alike letters of another script in a name";
    return out + " (shown as ⟨…⟩)";
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
