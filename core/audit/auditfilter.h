#pragma once

// Which audit records a query wants: the language of `holdpoint-ctl audit
// query` and of the History view. Pure: it reads no file.

#include "common/clock.h"
#include "common/json.h"

#include <optional>
#include <string>
#include <string_view>

namespace holdpoint::audit {

// What `holdpoint-ctl audit query` and the History view match on. Empty
// fields match everything.
struct Filter
{
    std::string event;     // exact
    std::string agent;     // the agent's name, exact
    std::string tool;      // exact
    std::string decision;  // allow, modify, deny or halt: decision records only
    std::string decidedBy; // substring of decided_by, case-insensitive
    std::string text;      // case-insensitive substring of the record as written
    std::string since;     // ISO 8601 UTC timestamp, inclusive
    std::string until;     // exclusive

    bool empty() const;
    bool matches(std::string_view line, const Json &record) const;
    // For a record already parsed, without its line (the History view).
    bool matchesRecord(const Json &record) const;
    // A cheap check on the line alone that never rejects a match.
    bool mayMatch(std::string_view line) const;
};

// Parses --since/--until: an ISO 8601 date or date-time (UTC unless it
// says otherwise), or an age such as 90s, 15m, 2h, 7d. Returns the ISO UTC
// form the records use, or nullopt.
std::optional<std::string> parseTimeBound(const std::string &text, TimeMs now);

} // namespace holdpoint::audit
