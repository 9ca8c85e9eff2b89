// SPDX-License-Identifier: Apache-2.0
#include "auditfilter.h"

#include <QDateTime>
#include <QRegularExpression>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

namespace holdpoint::audit {

namespace {

// ASCII case folding, as a table: the search below calls it per byte.
struct Fold
{
    unsigned char lower[256];
    constexpr Fold()
        : lower()
    {
        for (int c = 0; c < 256; ++c)
            lower[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    unsigned char operator()(char c) const { return lower[static_cast<unsigned char>(c)]; }
};
constexpr Fold fold;

std::string folded(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = char(fold(c));
    return out;
}

// Finds a folded `needle` in `hay`, ignoring ASCII case: Horspool over
// folded bytes, skipping ahead by up to the needle's length where a plain
// search steps by one. Returns npos when it is not there.
std::size_t findFolded(std::string_view hay, std::string_view needle)
{
    const std::size_t m = needle.size();
    if (m == 0)
        return 0;
    if (hay.size() < m)
        return std::string_view::npos;
    std::size_t skip[256];
    std::fill(std::begin(skip), std::end(skip), m);
    for (std::size_t i = 0; i + 1 < m; ++i) {
        // Both cases of a letter skip alike.
        const unsigned char c = static_cast<unsigned char>(needle[i]);
        skip[c] = m - 1 - i;
        if (c >= 'a' && c <= 'z')
            skip[c - 'a' + 'A'] = m - 1 - i;
    }
    const unsigned char last = static_cast<unsigned char>(needle[m - 1]);
    for (std::size_t at = 0; at + m <= hay.size();) {
        const char c = hay[at + m - 1];
        if (fold(c) == last) {
            std::size_t i = 0;
            while (i + 1 < m && fold(hay[at + i]) == static_cast<unsigned char>(needle[i]))
                ++i;
            if (i + 1 == m)
                return at;
        }
        at += skip[static_cast<unsigned char>(c)];
    }
    return std::string_view::npos;
}

bool containsFolded(std::string_view hay, std::string_view needle)
{
    return findFolded(hay, needle) != std::string_view::npos;
}

bool containsNoCase(std::string_view hay, std::string_view needle)
{
    return containsFolded(hay, folded(needle));
}

// Whether `who` names one of the comma-separated deciders in `decidedBy`:
// the whole decider, its name after the colon, or its kind before it.
bool namesDecider(std::string_view decidedBy, std::string_view who)
{
    const std::string want = folded(who);
    std::size_t start = 0;
    while (start <= decidedBy.size()) {
        std::size_t end = decidedBy.find(',', start);
        if (end == std::string_view::npos)
            end = decidedBy.size();
        const std::string part = folded(decidedBy.substr(start, end - start));
        const std::size_t colon = part.find(':');
        if (part == want
            || (colon != std::string::npos
                && (part.compare(colon + 1, std::string::npos, want) == 0
                    || part.compare(0, colon, want) == 0)))
            return true;
        start = end + 1;
    }
    return false;
}

// The `ts` of a line as written by formatRecord: `{"seq":N,"ts":"...",`.
std::string_view lineTimestamp(std::string_view line)
{
    const std::size_t at = line.find("\"ts\":\"");
    if (at == std::string_view::npos || at > 32)
        return {};
    const std::size_t start = at + 6;
    const std::size_t end = line.find('"', start);
    return end == std::string_view::npos ? std::string_view {} : line.substr(start, end - start);
}

// What a JSON string looks like inside a line, without its quotes.
std::string escaped(const std::string &s)
{
    const std::string dumped = dumpJson(Json(s));
    return dumped.substr(1, dumped.size() - 2);
}

// Whether `"key":"value"` stands in the line as written; with no key,
// `"value"` anywhere.
std::string lineNeedle(std::string_view key, const std::string &value)
{
    std::string needle;
    needle.reserve(key.size() + value.size() + 8);
    if (!key.empty()) {
        needle += '"';
        needle += key;
        needle += "\":";
    }
    needle += '"';
    needle += escaped(value);
    needle += '"';
    return needle;
}

} // namespace

bool Filter::empty() const
{
    return event.empty() && agent.empty() && tool.empty() && decision.empty() && decidedBy.empty()
        && text.empty() && since.empty() && until.empty();
}

bool Filter::mayMatch(std::string_view line) const
{
    return LineTest(*this).mayMatch(line);
}

LineTest::LineTest(const Filter &filter)
    : m_since(filter.since)
    , m_until(filter.until)
{
    if (!filter.event.empty())
        m_event = lineNeedle("event", filter.event);
    if (!filter.tool.empty())
        m_tool = lineNeedle("tool", filter.tool);
    if (!filter.agent.empty())
        m_agent = lineNeedle({}, filter.agent);
    if (!filter.decision.empty())
        m_decision = lineNeedle("decision", filter.decision);
    if (!filter.text.empty())
        m_text = folded(escaped(filter.text));
}

std::vector<std::string_view> LineTest::candidates(std::string_view bytes) const
{
    std::vector<std::string_view> lines;
    const std::size_t complete = bytes.rfind('\n');
    if (complete == std::string_view::npos)
        return lines;
    bytes = bytes.substr(0, complete + 1); // a torn tail is not a record
    auto lineAt = [&](std::size_t at) {
        const std::size_t nl = bytes.find('\n', at);
        const std::size_t start = at == 0 ? 0 : bytes.rfind('\n', at - 1) + 1; // npos + 1 == 0
        return std::pair { start, nl };
    };

    // The longest exact needle is the rarest; without one, the text.
    const std::string *anchor = nullptr;
    for (const std::string *needle : { &m_event, &m_tool, &m_agent, &m_decision })
        if (!needle->empty() && (!anchor || needle->size() > anchor->size()))
            anchor = needle;
    if (!anchor && m_text.empty()) {
        for (std::size_t start = 0; start < bytes.size();) {
            const std::size_t nl = bytes.find('\n', start);
            if (nl > start)
                lines.push_back(bytes.substr(start, nl - start));
            start = nl + 1;
        }
        return lines;
    }
    std::size_t from = 0;
    while (from < bytes.size()) {
        std::size_t hit;
        if (anchor) {
            const void *p = ::memmem(
                bytes.data() + from, bytes.size() - from, anchor->data(), anchor->size());
            hit = p ? std::size_t(static_cast<const char *>(p) - bytes.data())
                    : std::string_view::npos;
        } else {
            hit = findFolded(bytes.substr(from), m_text);
            hit = hit == std::string_view::npos ? hit : from + hit;
        }
        if (hit == std::string_view::npos)
            break;
        const auto [start, nl] = lineAt(hit);
        lines.push_back(bytes.substr(start, nl - start));
        from = nl + 1; // one entry a line, however often the needle is in it
    }
    return lines;
}

bool LineTest::mayMatch(std::string_view line) const
{
    if (!m_since.empty() || !m_until.empty()) {
        const std::string_view ts = lineTimestamp(line);
        if (!m_since.empty() && ts < m_since)
            return false;
        if (!m_until.empty() && ts >= m_until)
            return false;
    }
    for (const std::string *needle : { &m_event, &m_tool, &m_agent, &m_decision })
        if (!needle->empty() && line.find(*needle) == std::string_view::npos)
            return false;
    return m_text.empty() || containsFolded(line, m_text);
}

bool Filter::matchesRecord(const Json &record) const
{
    if (!since.empty() || !until.empty()) {
        const std::string ts = record.value("ts", std::string());
        if ((!since.empty() && ts < since) || (!until.empty() && ts >= until))
            return false;
    }
    if (!text.empty() && !containsNoCase(dumpJson(record), escaped(text)))
        return false;
    return fieldsMatch(record);
}

bool Filter::matches(std::string_view line, const Json &record) const
{
    return (line.empty() || mayMatch(line)) && fieldsMatch(record);
}

bool Filter::fieldsMatch(const Json &record) const
{
    auto str = [&](const char *key) {
        const auto it = record.find(key);
        return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (!event.empty() && str("event") != event)
        return false;
    if (!tool.empty() && str("tool") != tool)
        return false;
    if (!agent.empty() && str("agent") != agent)
        return false;
    if (!decision.empty() && (str("event") != "decision" || str("decision") != decision))
        return false;
    if (!decidedBy.empty() && !namesDecider(str("decided_by"), decidedBy))
        return false;
    return true;
}

std::optional<std::string> parseTimeBound(const std::string &text, TimeMs now)
{
    static const QRegularExpression age(QStringLiteral("^(\\d+)([smhd])$"));
    const QString t = QString::fromStdString(text).trimmed();
    TimeMs at = -1;
    if (const auto m = age.match(t); m.hasMatch()) {
        static const std::map<QChar, TimeMs> unit { { u's', 1000 }, { u'm', 60'000 },
            { u'h', 3'600'000 }, { u'd', 86'400'000 } };
        at = now - m.captured(1).toLongLong() * unit.at(m.captured(2).at(0));
    } else {
        QDateTime dt = QDateTime::fromString(t, Qt::ISODateWithMs);
        if (!dt.isValid())
            dt = QDateTime::fromString(t, Qt::ISODate);
        if (!dt.isValid() && QDate::fromString(t, Qt::ISODate).isValid())
            dt = QDate::fromString(t, Qt::ISODate).startOfDay(Qt::UTC);
        if (!dt.isValid())
            return std::nullopt;
        if (dt.timeSpec() == Qt::LocalTime && !t.contains(u'+') && !t.endsWith(u'Z'))
            dt.setTimeSpec(Qt::UTC); // no zone given: UTC, as the log is
        at = dt.toMSecsSinceEpoch();
    }
    return formatTimestamp(at);
}

} // namespace holdpoint::audit
