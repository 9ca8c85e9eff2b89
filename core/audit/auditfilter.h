// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which audit records a query wants: the language of `holdpoint-ctl audit
// query` and of the History view. Pure: it reads no file.

#include "common/clock.h"
#include "common/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint::audit {

// What `holdpoint-ctl audit query` and the History view match on. Empty
// fields match everything.
struct Filter
{
    std::string event; // exact
    std::string agent; // the agent's name, exact
    std::string tool; // exact
    std::string decision; // allow, modify, deny or halt: decision records only
    // One of decided_by's deciders, case ignored: "alice" or "human:alice"
    // (her own decisions, her votes, and those she approved with others),
    // or a kind ("human", "guardrail", "policy"). Never a mere substring:
    // "ali" matches nobody.
    std::string decidedBy;
    std::string text; // case-insensitive substring of the record as written
    std::string since; // ISO 8601 UTC timestamp, inclusive
    std::string until; // exclusive

    bool empty() const;
    bool matches(std::string_view line, const Json &record) const;
    // The fields of a parsed record, without what only its line can tell
    // (text, since, until).
    bool fieldsMatch(const Json &record) const;
    // For a record already parsed, without its line (the History view).
    bool matchesRecord(const Json &record) const;
    // A cheap check on the line alone that never rejects a match.
    bool mayMatch(std::string_view line) const;
};

// A filter's line test with its needles made once, for a scan over many
// lines: what `audit query` runs on every record before parsing any.
class LineTest
{
public:
    explicit LineTest(const Filter &filter);
    // Filter::mayMatch(), without building anything per line.
    bool mayMatch(std::string_view line) const;
    // The complete lines of `bytes` that may match, oldest first. They are
    // found by searching the whole buffer for the filter's most selective
    // needle, so lines without it are never looked at one by one; with no
    // needle to search for, every line. Each still needs mayMatch().
    std::vector<std::string_view> candidates(std::string_view bytes) const;

private:
    std::string m_since, m_until;
    std::string m_event, m_tool, m_agent, m_decision; // `"key":"value"` as written
    std::string m_text; // escaped as written, folded to lower case
};

// Parses --since/--until: an ISO 8601 date or date-time (UTC unless it
// says otherwise), or an age such as 90s, 15m, 2h, 7d. Returns the ISO UTC
// form the records use, or nullopt.
std::optional<std::string> parseTimeBound(const std::string &text, TimeMs now);

} // namespace holdpoint::audit
