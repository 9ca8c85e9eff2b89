// SPDX-License-Identifier: Apache-2.0
#include "jsonwriter.h"

#include "wire/utf8.h"

#include <charconv>

namespace holdpoint {

namespace {

constexpr char Hex[] = "0123456789abcdef";
constexpr std::string_view Replacement = "\xEF\xBF\xBD"; // U+FFFD

// Bytes copied as they are: printable ASCII but for '"' and '\'.
constexpr bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

} // namespace

void appendJsonString(std::string &out, std::string_view s)
{
    out += '"';
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        std::size_t run = i;
        while (run < n && plain(static_cast<unsigned char>(s[run])))
            ++run;
        if (run > i) {
            out.append(s.data() + i, run - i);
            i = run;
            if (i == n)
                break;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            std::size_t skip = 0;
            if (const std::size_t len = wire::utf8Sequence(s, i, &skip)) {
                out.append(s.data() + i, len);
                i += len;
            } else {
                out += Replacement;
                i += skip;
            }
            continue;
        }
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\r':
            out += "\\r";
            break;
        default: {
            const char esc[6] = { '\\', 'u', '0', '0', Hex[c >> 4], Hex[c & 0xF] };
            out.append(esc, sizeof esc);
        }
        }
        ++i;
    }
    out += '"';
}

namespace {

template <typename Int> void appendInt(std::string &out, Int n)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out.append(digits, std::size_t(end - digits));
}

} // namespace

void appendJson(std::string &out, const Json &j)
{
    switch (j.type()) {
    case Json::value_t::null:
        out += "null";
        return;
    case Json::value_t::boolean:
        out += j.get_ref<const Json::boolean_t &>() ? "true" : "false";
        return;
    case Json::value_t::number_integer:
        appendInt(out, j.get_ref<const Json::number_integer_t &>());
        return;
    case Json::value_t::number_unsigned:
        appendInt(out, j.get_ref<const Json::number_unsigned_t &>());
        return;
    case Json::value_t::string:
        appendJsonString(out, j.get_ref<const Json::string_t &>());
        return;
    case Json::value_t::object: {
        const auto &o = j.get_ref<const Json::object_t &>();
        out += '{';
        bool first = true;
        for (const auto &[k, v] : o) {
            if (!first)
                out += ',';
            first = false;
            appendJsonString(out, k);
            out += ':';
            appendJson(out, v);
        }
        out += '}';
        return;
    }
    case Json::value_t::array: {
        const auto &a = j.get_ref<const Json::array_t &>();
        out += '[';
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i)
                out += ',';
            appendJson(out, a[i]);
        }
        out += ']';
        return;
    }
    default:
        // Floating point (nlohmann's shortest round-trip form), binary and
        // discarded values: rare on these paths, so nlohmann writes them.
        out += dumpJson(j);
        return;
    }
}

JsonWriter &JsonWriter::number(std::int64_t n)
{
    separate();
    appendInt(m_out, n);
    m_comma = true;
    return *this;
}

JsonWriter &JsonWriter::number(std::uint64_t n)
{
    separate();
    appendInt(m_out, n);
    m_comma = true;
    return *this;
}

} // namespace holdpoint
