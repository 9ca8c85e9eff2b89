// SPDX-License-Identifier: Apache-2.0
#include "history.h"

#include "protocol/decider.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace holdpoint::replay {

namespace {

std::string str(const Json &r, const char *key)
{
    const auto it = r.find(key);
    return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int digits(std::string_view s, std::size_t at, std::size_t n)
{
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (i >= s.size() || s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil).
qint64 daysFromCivil(int y, int m, int d)
{
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = unsigned((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + qint64(doe) - 719468;
}

// The event of a record's line, which the writer puts third (AUDIT.md "Records").
std::string_view lineEvent(std::string_view line)
{
    constexpr std::string_view key = "\"event\":\"";
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos || at > 80)
        return {};
    const std::size_t start = at + key.size();
    const std::size_t end = line.find('"', start);
    return end == std::string_view::npos ? std::string_view() : line.substr(start, end - start);
}

} // namespace

std::string_view fateName(Fate fate)
{
    switch (fate) {
    case Fate::Auto:
        return "auto";
    case Fate::Approved:
        return "approved";
    case Fate::Edited:
        return "edited";
    case Fate::Denied:
        return "denied";
    case Fate::Halted:
        return "halted";
    case Fate::TimedOut:
        return "timed_out";
    case Fate::Cancelled:
        return "cancelled";
    case Fate::Abandoned:
        return "abandoned";
    case Fate::Undecided:
        return "undecided";
    }
    return "undecided";
}

bool RecordedCall::personDecided() const
{
    return fate == Fate::Approved || fate == Fate::Edited || fate == Fate::Denied
        || fate == Fate::Halted;
}

bool RecordedCall::stopped() const
{
    if (fate == Fate::Denied || fate == Fate::Edited || fate == Fate::Halted)
        return true;
    return fate == Fate::Auto && (decision == "deny" || decision == "halt")
        && decidedBy.starts_with("guardrail:");
}

bool RecordedCall::markedByGuardrail() const
{
    for (const Json &t : trail) {
        if (!t.is_object())
            continue;
        const std::string a = str(t, "action");
        if (a == "ask" || a == "deny" || a == "halt" || a == "error")
            return true;
    }
    return false;
}

std::optional<TimeMs> parseRecordTime(std::string_view ts)
{
    // 2026-11-22T02:37:02.157Z
    if (ts.size() != 24 || ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':'
        || ts[16] != ':' || ts[19] != '.' || ts[23] != 'Z')
        return std::nullopt;
    const int y = digits(ts, 0, 4), mo = digits(ts, 5, 2), d = digits(ts, 8, 2),
              h = digits(ts, 11, 2), mi = digits(ts, 14, 2), s = digits(ts, 17, 2),
              ms = digits(ts, 20, 3);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59
        || s < 0 || s > 60 || ms < 0)
        return std::nullopt;
    return ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60'000 + qint64(s) * 1000 + ms;
}

namespace {

// Takes the record's values when it may (a record read for the history is
// parsed for it alone), copies them otherwise.
template <typename Record> RecordedCall fromRecord(Record &&r)
{
    RecordedCall c;
    c.session = str(r, "session");
    c.agent.name = str(r, "agent");
    c.agent.framework = str(r, "framework");
    c.agent.user = str(r, "user");
    c.callId = str(r, "call_id");
    c.tool = str(r, "tool");
    auto take = [&](const char *key, Json *out, bool array) {
        const auto it = r.find(key);
        if (it != r.end() && (array ? it->is_array() : it->is_object()))
            *out = std::move(*it); // a copy when the record is const
    };
    take("args", &c.args, false);
    take("annotations", &c.annotations, false);
    take("context", &c.context, false);
    take("trail", &c.trail, true);
    if (const auto t = r.find("turn"); t != r.end() && t->is_string())
        c.turn = t->template get<std::string>();
    c.at = parseRecordTime(str(r, "ts")).value_or(0);
    c.masked = r.value("masked", false);
    c.outcome = str(r, "outcome");
    return c;
}

} // namespace

RecordedCall callFromRecord(const Json &r)
{
    return fromRecord(r);
}

void HistoryBuilder::add(const Json &record)
{
    add(Json(record));
}

void HistoryBuilder::add(Json &&r)
{
    const std::string event = str(r, "event");
    if (event == "call") {
        RecordedCall c = fromRecord(std::move(r));
        if (c.at < m_since)
            return;
        // A call re-sent after a restart keeps its first record's place.
        const auto [it, added] = m_byKey.try_emplace(c.session + '\n' + c.callId, m_calls.size());
        if (added)
            m_calls.push_back(std::move(c));
        return;
    }
    if (event != "decision" && event != "after_call")
        return;
    const auto it = m_byKey.find(str(r, "session") + '\n' + str(r, "call_id"));
    if (it == m_byKey.end())
        return;
    RecordedCall &c = m_calls[it->second];
    if (event == "after_call") {
        if (const auto ok = r.find("ok"); ok != r.end() && ok->is_boolean())
            c.ok = ok->get<bool>();
        return;
    }
    c.decision = str(r, "decision");
    c.decidedBy = str(r, "decided_by");
    const std::string state = str(r, "state");
    // A reviewer's standing decision for the rest of a turn or session
    // (engine/grants.h) answers later calls at once, in that person's name:
    // the person's decision, not the chain's.
    if (state == "auto" && !protocol::Decider::of(c.decidedBy).isPerson())
        c.fate = Fate::Auto;
    else if (state == "timed_out")
        c.fate = Fate::TimedOut;
    else if (state == "cancelled")
        c.fate = Fate::Cancelled;
    else if (state == "abandoned")
        c.fate = Fate::Abandoned;
    else if (c.decision == "deny")
        c.fate = Fate::Denied;
    else if (c.decision == "halt")
        c.fate = Fate::Halted;
    else if (r.value("edited", false))
        c.fate = Fate::Edited;
    else if (c.decision == "allow" || c.decision == "modify")
        c.fate = Fate::Approved; // as sent, or as a guardrail proposed it
    else
        c.fate = Fate::Undecided;
}

void HistoryBuilder::addLine(std::string_view line)
{
    ++m_lines;
    const std::string_view event = lineEvent(line);
    if (event != "call" && event != "decision" && event != "after_call")
        return;
    Json record = Json::parse(line.begin(), line.end(), nullptr, false);
    if (!record.is_object())
        return;
    add(std::move(record));
}

std::vector<RecordedCall> HistoryBuilder::take()
{
    m_byKey.clear();
    return std::move(m_calls);
}

namespace {

// A record's "ts", which the writer puts second, without parsing the line.
std::optional<TimeMs> lineTime(std::string_view line)
{
    constexpr std::string_view key = "\"ts\":\"";
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos || at > 40 || line.size() < at + key.size() + 24)
        return std::nullopt;
    return parseRecordTime(line.substr(at + key.size(), 24));
}

} // namespace

std::vector<RecordedCall> readHistory(const QString &auditDir, TimeMs since, QString *error)
{
    const std::vector<audit::Segment> segments = audit::listSegments(auditDir);
    if (segments.empty()) {
        *error = QStringLiteral("%1: no audit log here").arg(QDir::toNativeSeparators(auditDir));
        return {};
    }
    HistoryBuilder builder(since);
    for (const audit::Segment &segment : segments) {
        // A file last written before --since holds nothing newer.
        if (since > 0 && QFileInfo(segment.path).lastModified().toMSecsSinceEpoch() < since)
            continue;
        QFile file(segment.path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: %2").arg(segment.path, file.errorString());
            return {};
        }
        const QByteArray bytes = file.readAll();
        const std::string_view all
            = audit::withoutPadding(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        for (std::size_t pos = 0, nl; (nl = all.find('\n', pos)) != std::string_view::npos;
             pos = nl + 1) {
            const std::string_view line
                = all.substr(pos, nl - pos); // a torn tail has no newline: not a record
            if (since > 0 && lineEvent(line) == "call" && lineTime(line).value_or(since) < since)
                continue;
            builder.addLine(line);
        }
    }
    return builder.take();
}

} // namespace holdpoint::replay
