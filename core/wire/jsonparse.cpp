// SPDX-License-Identifier: Apache-2.0
#include "jsonparse.h"

#include <cmath>
#include <unordered_set>
#include <vector>

namespace holdpoint {

namespace {

// Builds the document with nlohmann's own DOM builder and checks each event
// on the way (the SAX interface of json::sax_parse).
class StrictSax
{
public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    StrictSax(Json &root, std::size_t maxDepth)
        : m_dom(root, false)
        , m_maxDepth(maxDepth)
    { }

    std::string error;

    bool null() { return value() && m_dom.null(); }
    bool boolean(bool v) { return value() && m_dom.boolean(v); }
    bool number_integer(number_integer_t v) { return value() && m_dom.number_integer(v); }
    bool number_unsigned(number_unsigned_t v) { return value() && m_dom.number_unsigned(v); }
    bool number_float(number_float_t v, const string_t &text)
    {
        value();
        // nlohmann reads an integer literal too large for 64 bits as a double.
        if (text.find_first_of(".eE") == std::string::npos)
            return fail(where() + "integer " + shorten(text)
                + " does not fit in 64 bits; send it as a string");
        if (!std::isfinite(v))
            return fail(where() + "number " + shorten(text) + " is out of range");
        return m_dom.number_float(v, text);
    }
    bool string(string_t &v) { return value() && m_dom.string(v); }
    bool binary(binary_t &v) { return value() && m_dom.binary(v); }
    bool start_object(std::size_t n)
    {
        if (!value() || !enter())
            return false;
        m_frames.push_back({ true, {}, 0, {} });
        return m_dom.start_object(n);
    }
    bool key(string_t &k)
    {
        Frame &f = m_frames.back();
        if (!f.keys.insert(k).second)
            return fail((m_frames.size() > 1 ? containerPath() + ": " : std::string())
                + "duplicate key \"" + shorten(k) + "\"");
        f.key = k;
        return m_dom.key(k);
    }
    bool end_object()
    {
        m_frames.pop_back();
        --m_depth;
        return m_dom.end_object();
    }
    bool start_array(std::size_t n)
    {
        if (!value() || !enter())
            return false;
        m_frames.push_back({ false, {}, 0, {} });
        return m_dom.start_array(n);
    }
    bool end_array()
    {
        m_frames.pop_back();
        --m_depth;
        return m_dom.end_array();
    }
    bool parse_error(
        std::size_t position, const std::string &token, const nlohmann::detail::exception &e)
    {
        if (error.empty() && e.id == 406) {
            // out_of_range.406: a number literal beyond double's range.
            value();
            error = where() + "number " + shorten(token) + " is out of range";
        }
        if (error.empty()) {
            std::string what = e.what();
            if (auto pos = what.find("] ");
                pos != std::string::npos && what.rfind("[json.exception", 0) == 0)
                what.erase(0, pos + 2);
            error = what;
        }
        return m_dom.parse_error(position, token, e);
    }

private:
    struct Frame
    {
        bool object = false;
        std::string key;
        std::size_t index = 0;
        std::unordered_set<std::string> keys;
    };

    // Called for every value, before it is stored: advances array indexes.
    bool value()
    {
        if (!m_frames.empty()) {
            Frame &f = m_frames.back();
            if (!f.object) {
                f.key = std::to_string(f.index++);
            }
        }
        return true;
    }
    bool enter()
    {
        if (++m_depth > m_maxDepth)
            return fail("JSON nested deeper than " + std::to_string(m_maxDepth) + " levels");
        return true;
    }
    // "args.items[2]" for the value being read now.
    std::string path(std::size_t frames) const
    {
        std::string p;
        for (std::size_t i = 0; i < frames; ++i) {
            const Frame &f = m_frames[i];
            if (f.object) {
                if (!p.empty())
                    p += '.';
                p += f.key;
            } else {
                p += '[';
                p += std::to_string(f.index == 0 ? 0 : f.index - 1);
                p += ']';
            }
        }
        return p;
    }
    std::string where() const
    {
        const std::string p = path(m_frames.size());
        return p.empty() ? std::string() : p + ": ";
    }
    std::string containerPath() const { return path(m_frames.size() - 1); }
    static std::string shorten(const std::string &s)
    {
        return s.size() > 60 ? s.substr(0, 57) + "..." : s;
    }
    bool fail(std::string message)
    {
        if (error.empty())
            error = std::move(message);
        return false;
    }

    nlohmann::detail::json_sax_dom_parser<Json> m_dom;
    std::vector<Frame> m_frames;
    std::size_t m_depth = 0;
    std::size_t m_maxDepth;
};

} // namespace

bool parseStrictJson(std::string_view text, std::size_t maxDepth, Json *out, std::string *error)
{
    Json doc;
    StrictSax sax(doc, maxDepth);
    const bool ok = Json::sax_parse(
        text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json, true, false);
    if (!ok || !sax.error.empty()) {
        *error = sax.error.empty() ? std::string("invalid JSON") : sax.error;
        return false;
    }
    *out = std::move(doc);
    return true;
}

} // namespace holdpoint
