#include "auditfilter.h"

#include <QDateTime>
#include <QRegularExpression>

#include <algorithm>
#include <cctype>
#include <map>

namespace holdpoint::audit {

namespace {

bool containsNoCase(std::string_view hay, std::string_view needle)
{
    if (needle.empty())
        return true;
    auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it != hay.end();
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
bool lineHas(std::string_view line, std::string_view key, const std::string &value)
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
    return line.find(needle) != std::string_view::npos;
}

} // namespace

bool Filter::empty() const
{
    return event.empty() && agent.empty() && tool.empty() && decision.empty() && decidedBy.empty() && text.empty()
        && since.empty() && until.empty();
}

bool Filter::mayMatch(std::string_view line) const
{
    if (!since.empty() || !until.empty()) {
        const std::string_view ts = lineTimestamp(line);
        if (!since.empty() && ts < since)
            return false;
        if (!until.empty() && ts >= until)
            return false;
    }
    if (!event.empty() && !lineHas(line, "event", event))
        return false;
    if (!tool.empty() && !lineHas(line, "tool", tool))
        return false;
    if (!agent.empty() && !lineHas(line, {}, agent))
        return false;
    if (!decision.empty() && !lineHas(line, "decision", decision))
        return false;
    if (!text.empty() && !containsNoCase(line, escaped(text)))
        return false;
    return true;
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
    Filter rest = *this;
    rest.text.clear();
    rest.since.clear();
    rest.until.clear();
    return rest.matches({}, record);
}

bool Filter::matches(std::string_view line, const Json &record) const
{
    if (!line.empty() && !mayMatch(line))
        return false;
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
    if (!decidedBy.empty() && !containsNoCase(str("decided_by"), decidedBy))
        return false;
    return true;
}

std::optional<std::string> parseTimeBound(const std::string &text, TimeMs now)
{
    static const QRegularExpression age(QStringLiteral("^(\\d+)([smhd])$"));
    const QString t = QString::fromStdString(text).trimmed();
    TimeMs at = -1;
    if (const auto m = age.match(t); m.hasMatch()) {
        static const std::map<QChar, TimeMs> unit {{u's', 1000}, {u'm', 60'000}, {u'h', 3'600'000}, {u'd', 86'400'000}};
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
