// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where reviewers' time goes, from the audit log (INSIGHTS.md beside this
// file defines every figure): escalations per hour and per agent, time to
// decision, how people decide per tool and per rule, and the prompts each
// rule saved. Records come in through Builder::add(), from a data dir's
// log, the team's audit table or the console's live feed; nothing here
// reads a file or a database.

#include "common/clock.h"
#include "common/json.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace holdpoint::insights {

// How the escalated calls of one tool, or one rule, ended.
struct Outcomes
{
    std::uint64_t approved = 0; // allowed by a person as shown
    std::uint64_t edited = 0; // allowed by a person with arguments they changed
    std::uint64_t denied = 0;
    std::uint64_t halted = 0;
    std::uint64_t timedOut = 0; // nobody decided before the deadline
    std::uint64_t other = 0; // cancelled by the agent, abandoned, the log unavailable
    std::uint64_t total() const { return approved + edited + denied + halted + timedOut + other; }
};

// One bar of the time-to-decision histogram: decisions that took less than
// `upToMs` and at least the bar before's (the last bar has no bound).
struct DurationBucket
{
    std::string label;
    std::optional<TimeMs> upToMs;
    std::uint64_t count = 0;
};

// The upper bounds of the histogram's bars, in ms.
inline constexpr TimeMs DecisionBucketBounds[]
    = { 5'000, 15'000, 30'000, 60'000, 120'000, 300'000, 900'000 };

// Calls one rule decided by itself that a person would otherwise have been
// asked about (INSIGHTS.md "Prompts saved").
struct SavedPrompts
{
    // "guardrail · code", or a rule added from the console in words
    // ("always allow …", "suggested allow …" for an accepted suggestion)
    std::string rule;
    // "rule", "always" (added from the console, by "always" or an accepted
    // suggestion) or "standing" (a turn or session scope)
    std::string kind;
    std::uint64_t allowed = 0;
    std::uint64_t denied = 0; // denied or halted
    std::uint64_t total() const { return allowed + denied; }
};

// How many of something, most first.
using Counts = std::vector<std::pair<std::string, std::uint64_t>>;

struct Figures
{
    TimeMs since = 0; // 0: from the first record
    TimeMs until = 0;
    std::uint64_t calls = 0; // call records
    std::uint64_t autoDecided = 0; // decided by the chain or a standing decision, no person asked
    std::uint64_t escalations = 0;
    std::uint64_t decidedByPerson = 0;
    std::uint64_t timedOut = 0;
    std::uint64_t promptsSaved = 0;

    // Escalations in each hour (UTC) from `firstHour` on, zeros included.
    TimeMs firstHour = 0;
    std::vector<std::uint64_t> escalationsPerHour;
    Counts escalationsPerAgent;

    // A person's decisions only: from the escalation to the decision.
    std::vector<DurationBucket> timeToDecision;
    std::uint64_t decisionsTimed = 0;
    std::optional<TimeMs> p50Ms;
    std::optional<TimeMs> p90Ms;

    // Most escalations first.
    std::vector<std::pair<std::string, Outcomes>> perTool;
    std::vector<std::pair<std::string, Outcomes>> perRule; // the rule that asked
    std::vector<SavedPrompts> savedPerRule; // most saved first
};

inline constexpr TimeMs HourMs = 3'600'000;

// At most this many hours in escalationsPerHour (90 days): a longer window
// keeps its last ones.
inline constexpr std::size_t MaxHours = 24 * 90;

// The label of escalations no guardrail asked for: the policy's default.
inline constexpr std::string_view DefaultRule = "policy default";

// "2026-11-22T02:37:02.157Z" (the audit's form, milliseconds optional) to
// ms since the epoch; nullopt for anything else.
std::optional<TimeMs> parseTimestamp(std::string_view text);

// The figures of the records given, in any order: the team's lines come
// in the order the database took them, where a call's copy may follow its
// decision. Records before `since` count for nothing, except the "always"
// rules added (policy_rule_added), which name the rules that decide later.
class Builder final
{
public:
    explicit Builder(TimeMs since = 0);
    ~Builder();
    Builder(Builder &&) noexcept;
    Builder &operator=(Builder &&) noexcept;

    void add(const Json &record);
    // Forgets every record, keeps `since`.
    void clear();
    TimeMs since() const { return m_since; }
    std::uint64_t records() const { return m_records; }
    // The figures up to `until` (the end of the hourly series).
    Figures figures(TimeMs until) const;

    struct Call;
    struct Escalation;
    struct Decision;
    struct AddedRule;

private:
    TimeMs m_since;
    std::uint64_t m_records = 0;
    std::map<std::string, Call> m_calls; // by session and call_id
    std::map<std::string, Escalation> m_escalations; // by item
    std::map<std::string, Decision> m_decisions; // by item, else by call
    std::vector<AddedRule> m_added;
};

// The figures as `holdpoint-ctl insights --json` prints them (INSIGHTS.md "JSON").
Json toJson(const Figures &figures);
// The same for a person at a terminal.
std::string toText(const Figures &figures);

} // namespace holdpoint::insights
