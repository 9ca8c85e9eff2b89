// SPDX-License-Identifier: Apache-2.0
// The figures written out: JSON for scripts, text for a terminal.
#include "insights.h"

#include "common/visibletext.h"

#include <cstdio>

namespace holdpoint::insights {

namespace {

double rate(std::uint64_t part, std::uint64_t whole)
{
    return whole == 0 ? 0.0 : double(part) / double(whole);
}

Json outcomesJson(const Outcomes &o)
{
    return Json { { "escalations", o.total() }, { "approved", o.approved }, { "edited", o.edited },
        { "denied", o.denied }, { "halted", o.halted }, { "timed_out", o.timedOut },
        { "other", o.other }, { "approve_rate", rate(o.approved, o.total()) },
        { "edit_rate", rate(o.edited, o.total()) }, { "deny_rate", rate(o.denied, o.total()) } };
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%3.0f%%", 100.0 * rate(part, whole));
    return buf;
}

std::string padded(std::string s, std::size_t width)
{
    // Width in characters, not bytes: names may hold "·" or other UTF-8.
    std::size_t chars = 0;
    for (const char c : s)
        chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (chars < width)
        s.append(width - chars, ' ');
    return s;
}

// A name an agent chose, for a terminal: hidden characters (escape
// sequences, bidi overrides) as ⟨U+…⟩, on one line.
std::string shown(const std::string &name)
{
    std::string out = visibleText(name);
    for (char &c : out)
        if (c == '\n' || c == '\t')
            c = ' ';
    return out;
}

// At most `chars` characters, cut between two (never inside a UTF-8 sequence), "~" marking a cut.
std::string clip(const std::string &s, std::size_t chars)
{
    std::vector<std::size_t> starts; // where each character begins
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80)
            starts.push_back(i);
    if (starts.size() <= chars || chars == 0)
        return s;
    return s.substr(0, starts[chars - 1]) + "~";
}

std::string seconds(TimeMs ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ms < 60'000 ? "%.1f s" : "%.1f min",
        ms < 60'000 ? double(ms) / 1000 : double(ms) / 60'000);
    return buf;
}

std::string bar(std::uint64_t n, std::uint64_t max, std::size_t width)
{
    const std::size_t len = max == 0 ? 0 : std::size_t((n * width + max - 1) / max);
    std::string out;
    for (std::size_t i = 0; i < len; ++i)
        out += "\u2588";
    return out;
}

} // namespace

Json toJson(const Figures &f)
{
    Json j;
    j["since"] = f.since > 0 ? Json(formatTimestamp(f.since)) : Json(nullptr);
    j["until"] = formatTimestamp(f.until);
    j["totals"] = { { "calls", f.calls }, { "auto_decided", f.autoDecided },
        { "escalations", f.escalations }, { "decided_by_person", f.decidedByPerson },
        { "timed_out", f.timedOut }, { "prompts_saved", f.promptsSaved } };
    Json hours = Json::array();
    for (std::size_t i = 0; i < f.escalationsPerHour.size(); ++i)
        hours.push_back({ { "hour", formatTimestamp(f.firstHour + TimeMs(i) * HourMs) },
            { "count", f.escalationsPerHour[i] } });
    j["escalations_per_hour"] = std::move(hours);
    Json agents = Json::array();
    for (const auto &[agent, n] : f.escalationsPerAgent)
        agents.push_back({ { "agent", agent }, { "count", n } });
    j["escalations_per_agent"] = std::move(agents);
    Json buckets = Json::array();
    for (const DurationBucket &b : f.timeToDecision)
        buckets.push_back({ { "label", b.label },
            { "up_to_ms", b.upToMs ? Json(*b.upToMs) : Json(nullptr) }, { "count", b.count } });
    j["time_to_decision"] = { { "decisions", f.decisionsTimed },
        { "p50_ms", f.p50Ms ? Json(*f.p50Ms) : Json(nullptr) },
        { "p90_ms", f.p90Ms ? Json(*f.p90Ms) : Json(nullptr) }, { "buckets", std::move(buckets) } };
    Json tools = Json::array();
    for (const auto &[tool, o] : f.perTool) {
        Json row = outcomesJson(o);
        row["tool"] = tool;
        tools.push_back(std::move(row));
    }
    j["per_tool"] = std::move(tools);
    Json rules = Json::array();
    for (const auto &[rule, o] : f.perRule) {
        Json row = outcomesJson(o);
        row["rule"] = rule;
        rules.push_back(std::move(row));
    }
    j["per_rule"] = std::move(rules);
    Json saved = Json::array();
    for (const SavedPrompts &s : f.savedPerRule)
        saved.push_back({ { "rule", s.rule }, { "kind", s.kind }, { "allowed", s.allowed },
            { "denied", s.denied }, { "total", s.total() } });
    j["prompts_saved"] = std::move(saved);
    return j;
}

std::string toText(const Figures &f)
{
    std::string out;
    out += "Since " + (f.since > 0 ? formatTimestamp(f.since) : std::string("the first record"))
        + ", until " + formatTimestamp(f.until) + ":\n";
    out += "  " + std::to_string(f.calls) + " calls, " + std::to_string(f.autoDecided)
        + " decided without a person, " + std::to_string(f.escalations) + " escalated, "
        + std::to_string(f.decidedByPerson) + " decided by a person, " + std::to_string(f.timedOut)
        + " timed out; " + std::to_string(f.promptsSaved) + " prompts saved\n";

    out += "\nEscalations per agent:\n";
    const std::uint64_t maxAgent
        = f.escalationsPerAgent.empty() ? 0 : f.escalationsPerAgent.front().second;
    for (const auto &[agent, n] : f.escalationsPerAgent)
        out += "  " + padded(shown(agent), 24) + padded(std::to_string(n), 7) + bar(n, maxAgent, 40)
            + "\n";

    out += "\nEscalations per hour (UTC), the busiest:\n";
    std::vector<std::pair<std::uint64_t, std::size_t>> busiest;
    for (std::size_t i = 0; i < f.escalationsPerHour.size(); ++i)
        if (f.escalationsPerHour[i] > 0)
            busiest.emplace_back(f.escalationsPerHour[i], i);
    std::stable_sort(busiest.begin(), busiest.end(),
        [](const auto &a, const auto &b) { return a.first > b.first; });
    if (busiest.size() > 8)
        busiest.resize(8);
    for (const auto &[n, i] : busiest)
        out += "  " + formatTimestamp(f.firstHour + TimeMs(i) * HourMs).substr(0, 16) + "  "
            + padded(std::to_string(n), 7) + bar(n, busiest.front().first, 40) + "\n";

    out += "\nTime to decision (" + std::to_string(f.decisionsTimed) + " decisions by a person";
    if (f.p50Ms && f.p90Ms)
        out += "; p50 " + seconds(*f.p50Ms) + ", p90 " + seconds(*f.p90Ms);
    out += "):\n";
    std::uint64_t maxBucket = 0;
    for (const DurationBucket &b : f.timeToDecision)
        maxBucket = std::max(maxBucket, b.count);
    for (const DurationBucket &b : f.timeToDecision)
        out += "  " + padded(b.label, 14) + padded(std::to_string(b.count), 7)
            + bar(b.count, maxBucket, 40) + "\n";

    const auto table = [&](const char *title,
                           const std::vector<std::pair<std::string, Outcomes>> &rows) {
        out += std::string("\n") + title + "\n  " + padded("", 40)
            + "ESCALATED APPROVED EDITED  DENIED  HALTED  TIMED OUT\n";
        for (const auto &[name, o] : rows)
            out += "  " + padded(clip(shown(name), 39), 40) + padded(std::to_string(o.total()), 10)
                + padded(percent(o.approved, o.total()), 9)
                + padded(percent(o.edited, o.total()), 8) + padded(percent(o.denied, o.total()), 8)
                + padded(percent(o.halted, o.total()), 8) + percent(o.timedOut, o.total()) + "\n";
    };
    table("Decisions per tool:", f.perTool);
    table("Decisions per rule that asked:", f.perRule);

    out += "\nPrompts saved per rule:\n";
    for (const SavedPrompts &s : f.savedPerRule)
        out += "  " + padded(clip(shown(s.rule), 55), 56) + padded(std::to_string(s.total()), 7)
            + "(" + std::to_string(s.allowed) + " allowed, " + std::to_string(s.denied)
            + " denied)\n";
    if (f.savedPerRule.empty())
        out += "  none\n";
    return out;
}

} // namespace holdpoint::insights
