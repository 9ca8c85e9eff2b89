// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writes JSON text straight into a caller's buffer, byte for byte what
// dumpJson() (json.h) gives for the same value, without building a tree:
// the engine writes three audit records and a decision message per call,
// and trees cost more than the rest of handling the call (issue 30).
//
// Objects are written member by member in the order the caller gives: to
// match a dumped Json object the caller names members in the order a
// sorted nlohmann object keeps them (byte-wise ascending keys).
// tests/common/tst_jsonwriter.cpp checks both against nlohmann.

#include "common/json.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace holdpoint {

// `s` as a JSON string, quoted: control characters as \b \t \n \f \r or
// \u00xx, '"' and '\' escaped, everything else as it is, invalid UTF-8
// replaced by U+FFFD as nlohmann's error_handler_t::replace does (one per
// maximal invalid subsequence).
void appendJsonString(std::string &out, std::string_view s);
// `j` as dumpJson(j) writes it.
void appendJson(std::string &out, const Json &j);

class JsonWriter final
{
public:
    explicit JsonWriter(std::string &out)
        : m_out(out)
    { }

    JsonWriter &beginObject()
    {
        separate();
        m_out += '{';
        m_comma = false;
        return *this;
    }
    JsonWriter &endObject()
    {
        m_out += '}';
        m_comma = true;
        return *this;
    }
    JsonWriter &beginArray()
    {
        separate();
        m_out += '[';
        m_comma = false;
        return *this;
    }
    JsonWriter &endArray()
    {
        m_out += ']';
        m_comma = true;
        return *this;
    }
    // An object member's name; its value follows.
    JsonWriter &key(std::string_view name)
    {
        separate();
        appendJsonString(m_out, name);
        m_out += ':';
        m_comma = false;
        return *this;
    }
    JsonWriter &string(std::string_view s)
    {
        separate();
        appendJsonString(m_out, s);
        m_comma = true;
        return *this;
    }
    JsonWriter &boolean(bool b)
    {
        separate();
        m_out += b ? "true" : "false";
        m_comma = true;
        return *this;
    }
    JsonWriter &number(std::int64_t n);
    JsonWriter &number(std::uint64_t n);
    JsonWriter &json(const Json &j)
    {
        separate();
        appendJson(m_out, j);
        m_comma = true;
        return *this;
    }
    // Text that already is one JSON value.
    JsonWriter &raw(std::string_view text)
    {
        separate();
        m_out += text;
        m_comma = true;
        return *this;
    }

    // key(name) followed by the value.
    JsonWriter &member(std::string_view name, std::string_view s) { return key(name).string(s); }
    JsonWriter &member(std::string_view name, const char *s) { return key(name).string(s); }
    JsonWriter &member(std::string_view name, const std::string &s) { return key(name).string(s); }
    JsonWriter &member(std::string_view name, bool b) { return key(name).boolean(b); }
    JsonWriter &member(std::string_view name, const Json &j) { return key(name).json(j); }

    std::string &buffer() { return m_out; }

private:
    void separate()
    {
        if (m_comma)
            m_out += ',';
    }

    std::string &m_out;
    bool m_comma = false;
};

} // namespace holdpoint
