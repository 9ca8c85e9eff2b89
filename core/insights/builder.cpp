// SPDX-License-Identifier: Apache-2.0
// Builder: the records, kept small, then the figures (INSIGHTS.md).
#include "insights.h"

#include "insights/alwaysrules.h"
#include "protocol/decider.h"

#include <algorithm>
#include <cmath>

namespace holdpoint::insights {

namespace {

std::string str(const Json &r, const char *key)
{
    const auto it = r.find(key);
    return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string callKey(const Json &r)
{
    return str(r, "session") + '\n' + str(r, "call_id");
}

// "guardrail · code": a rule as its trail entry names it.
std::string ruleName(const Json &entry)
{
    const std::string guardrail = str(entry, "guardrail");
    const std::string code = str(entry, "code");
    return code.empty() ? guardrail : guardrail + " \u00b7 " + code;
}

int daysFromCivil(int y, unsigned m, unsigned d)
{
    // Howard Hinnant's days_from_civil: days since 1970-01-01.
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + int(doe) - 719468;
}

template <typename T>
std::vector<std::pair<std::string, T>> mostFirst(
    const std::map<std::string, T> &in, std::uint64_t (*size)(const T &))
{
    std::vector<std::pair<std::string, T>> out(in.begin(), in.end());
    std::stable_sort(out.begin(), out.end(),
        [size](const auto &a, const auto &b) { return size(a.second) > size(b.second); });
    return out;
}

// Short, to fit under a bar: "30s", "2m". (Never "<": Qt Charts reads labels as HTML.)
std::string durationLabel(TimeMs ms)
{
    return ms < 60'000 ? std::to_string(ms / 1000) + "s" : std::to_string(ms / 60'000) + "m";
}

} // namespace

std::optional<TimeMs> parseTimestamp(std::string_view t)
{
    // YYYY-MM-DDTHH:MM:SS[.mmm]Z
    auto digits = [&](std::size_t at, std::size_t n) -> int {
        if (at + n > t.size())
            return -1;
        int v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (t[i] < '0' || t[i] > '9')
                return -1;
            v = v * 10 + (t[i] - '0');
        }
        return v;
    };
    if (t.size() < 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':'
        || t.back() != 'Z')
        return std::nullopt;
    const int y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2),
              mi = digits(14, 2), s = digits(17, 2);
    int ms = 0;
    if (t.size() == 24 && t[19] == '.')
        ms = digits(20, 3);
    else if (t.size() != 20)
        return std::nullopt;
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59
        || s < 0 || s > 60 || ms < 0)
        return std::nullopt;
    return (TimeMs(daysFromCivil(y, unsigned(mo), unsigned(d))) * 86'400 + h * 3600 + mi * 60 + s)
        * 1000
        + ms;
}

struct Builder::Call
{
    TimeMs ts = 0;
    std::string agent;
    std::string tool;
    std::string askRule { DefaultRule }; // the first guardrail that asked
    bool asked = false;
    int allows = 0;
    bool fallsThrough
        = true; // no guardrail allowed, asked, modified, denied or halted: the default decided
    std::optional<Json> decisive; // the trail entry that decided it without a person
    std::optional<Json> record; // kept when an "always" rule decided it, to find which
};

struct Builder::Escalation
{
    TimeMs ts = 0;
    std::string key;
    std::string agent;
    std::string tool;
    std::optional<Json> proposedArgs;
};

struct Builder::Decision
{
    TimeMs ts = 0;
    std::string key;
    std::string item;
    std::string decision;
    std::string decidedBy;
    std::string state;
    std::string tool;
    std::optional<bool> edited; // absent from the team database's lines
    Json args;
};

struct Builder::AddedRule
{
    TimeMs ts = 0;
    Json rule;
};

Builder::Builder(TimeMs since)
    : m_since(since)
{ }
Builder::~Builder() = default;
Builder::Builder(Builder &&) noexcept = default;
Builder &Builder::operator=(Builder &&) noexcept = default;

void Builder::clear()
{
    m_records = 0;
    m_calls.clear();
    m_escalations.clear();
    m_decisions.clear();
    m_added.clear();
}

void Builder::add(const Json &r)
{
    if (!r.is_object())
        return;
    const std::string event = str(r, "event");
    const auto ts = parseTimestamp(str(r, "ts"));
    if (!ts)
        return;
    if (event == "policy_rule_added") {
        if (r.contains("rule"))
            m_added.push_back({ *ts, r["rule"] });
        return;
    }
    if (*ts < m_since)
        return;
    if (event == "call") {
        ++m_records;
        Call c;
        c.ts = *ts;
        c.agent = str(r, "agent");
        c.tool = str(r, "tool");
        const std::string outcome = str(r, "outcome");
        const Json trail = r.value("trail", Json::array());
        if (!trail.is_array())
            return;
        for (const Json &e : trail) {
            if (!e.is_object())
                continue;
            const std::string action = str(e, "action");
            if (action == "ask" && !c.asked) {
                c.asked = true;
                c.askRule = ruleName(e);
            }
            if (action == "allow" && ++c.allows == 1 && (outcome == "allow" || outcome == "modify"))
                c.decisive = e;
            if ((action == "deny" && outcome == "deny") || (action == "halt" && outcome == "halt"))
                c.decisive = e; // deny and halt end the chain: the last entry
            if (action == "allow" || action == "ask" || action == "modify" || action == "deny"
                || action == "halt" || action == "error")
                c.fallsThrough = false;
        }
        // Rules added from the console: "always" (always_allowed, always_denied)
        // and accepted suggestions (replay/suggest.h, code "suggested").
        if (c.decisive
            && (str(*c.decisive, "code").starts_with("always_")
                || str(*c.decisive, "code") == "suggested"))
            c.record = r;
        m_calls.insert_or_assign(callKey(r), std::move(c));
    } else if (event == "escalated") {
        ++m_records;
        Escalation e;
        e.ts = *ts;
        e.key = callKey(r);
        e.agent = str(r, "agent");
        e.tool = str(r, "tool");
        if (r.contains("proposed_args"))
            e.proposedArgs = r["proposed_args"];
        m_escalations.insert_or_assign(str(r, "item"), std::move(e));
    } else if (event == "decision") {
        ++m_records;
        Decision d;
        d.ts = *ts;
        d.key = callKey(r);
        d.item = str(r, "item");
        d.decision = str(r, "decision");
        d.decidedBy = str(r, "decided_by");
        d.state = str(r, "state");
        d.tool = str(r, "tool");
        if (const auto it = r.find("edited"); it != r.end() && it->is_boolean())
            d.edited = it->get<bool>();
        else if (!r.contains("reviewer"))
            d.edited = false; // the console writes `edited` whenever it is true
        if (d.decision == "modify" && r.contains("args"))
            d.args = r["args"];
        // One per call: a team console hears its own decisions from the log and again from the
        // team's feed.
        const std::string key = d.item.empty() ? "call\n" + d.key : d.item;
        m_decisions.insert_or_assign(key, std::move(d));
    }
}

Figures Builder::figures(TimeMs until) const
{
    Figures f;
    f.since = m_since;
    f.until = until;
    f.calls = m_calls.size();
    f.escalations = m_escalations.size();

    // What the policy's default did, as calls it decided show: an escalated
    // call no guardrail decided asked; a decision by policy:default did not.
    std::vector<std::pair<TimeMs, bool>> defaultAsks;
    for (const auto &[item, e] : m_escalations)
        if (const auto c = m_calls.find(e.key); c != m_calls.end() && c->second.fallsThrough)
            defaultAsks.emplace_back(e.ts, true);
    for (const auto &[id, d] : m_decisions)
        if (d.state == "auto" && d.decidedBy == "policy:default")
            defaultAsks.emplace_back(d.ts, false);
    std::sort(defaultAsks.begin(), defaultAsks.end());
    const auto defaultAsked = [&](TimeMs at) {
        auto it = std::upper_bound(defaultAsks.begin(), defaultAsks.end(), std::pair { at, true });
        return it == defaultAsks.begin()
            ? true
            : std::prev(it)->second; // unseen: the shipped default asks
    };

    AlwaysRules always;
    for (const AddedRule &a : m_added)
        always.add(a.ts, a.rule);

    // Prompts saved.
    std::map<std::string, SavedPrompts> saved;
    for (const auto &[id, d] : m_decisions) {
        if (d.state != "auto")
            continue;
        ++f.autoDecided;
        const auto c = m_calls.find(d.key);
        if (c == m_calls.end())
            continue;
        const Call &call = c->second;
        const bool allowed = d.decision == "allow" || d.decision == "modify";
        SavedPrompts *row = nullptr;
        if (d.decidedBy.starts_with("guardrail:") && call.decisive && defaultAsked(d.ts)
            && (!allowed || call.allows == 1) && !call.asked) {
            std::string name = ruleName(*call.decisive);
            std::string kind = "rule";
            if (call.record) {
                if (const auto label = always.identify(*call.record, d.ts, allowed)) {
                    const bool suggested = str(*call.decisive, "code") == "suggested";
                    name = (suggested ? "suggested " : "always ") + *label;
                    kind = "always";
                }
            }
            row = &saved[name];
            row->rule = name;
            row->kind = kind;
        } else if (const protocol::Decider who = protocol::Decider::of(d.decidedBy);
                   who.isPerson() && (call.asked || (call.fallsThrough && defaultAsked(d.ts)))) {
            const std::string name = "standing decision of " + who.name;
            row = &saved[name];
            row->rule = name;
            row->kind = "standing";
        }
        if (!row)
            continue;
        ++(allowed ? row->allowed : row->denied);
        ++f.promptsSaved;
    }
    for (auto &[name, row] : saved)
        f.savedPerRule.push_back(row);
    std::stable_sort(f.savedPerRule.begin(), f.savedPerRule.end(),
        [](const SavedPrompts &a, const SavedPrompts &b) { return a.total() > b.total(); });

    // Escalations per hour and per agent.
    std::map<std::string, std::uint64_t> perAgent;
    TimeMs first = NoDeadline;
    for (const auto &[item, e] : m_escalations) {
        first = std::min(first, e.ts);
        std::string agent = e.agent;
        if (agent.empty())
            if (const auto c = m_calls.find(e.key); c != m_calls.end())
                agent = c->second.agent;
        ++perAgent[agent.empty() ? std::string("(unknown)") : agent];
    }
    if (first != NoDeadline) {
        const TimeMs lastHour = std::max(until, first) / HourMs * HourMs;
        f.firstHour = std::max(m_since > 0 ? m_since : first, first) / HourMs * HourMs;
        f.firstHour = std::max(f.firstHour, lastHour - TimeMs(MaxHours - 1) * HourMs);
        f.escalationsPerHour.assign(std::size_t((lastHour - f.firstHour) / HourMs + 1), 0);
        for (const auto &[item, e] : m_escalations)
            if (e.ts >= f.firstHour && e.ts < lastHour + HourMs)
                ++f.escalationsPerHour[std::size_t((e.ts - f.firstHour) / HourMs)];
    }
    f.escalationsPerAgent
        = mostFirst<std::uint64_t>(perAgent, [](const std::uint64_t &n) { return n; });

    // How people decided, and how long it took them.
    std::map<std::string, Outcomes> perTool, perRule;
    std::vector<TimeMs> durations;
    for (const auto &[id, d] : m_decisions) {
        if (d.state == "auto" || d.item.empty())
            continue;
        const auto e = m_escalations.find(d.item);
        const Escalation *esc = e == m_escalations.end() ? nullptr : &e->second;
        const auto c = m_calls.find(esc ? esc->key : d.key);
        const std::string tool = !d.tool.empty() ? d.tool
            : esc                                ? esc->tool
                                                 : std::string("(unknown)");
        const std::string rule
            = c != m_calls.end() ? c->second.askRule : std::string("(no call record)");
        Outcomes o;
        if (d.state == "timed_out") {
            o.timedOut = 1;
            ++f.timedOut;
        } else if (d.state == "decided" && protocol::Decider::of(d.decidedBy).isPerson()) {
            ++f.decidedByPerson;
            if (d.decision == "allow") {
                o.approved = 1;
            } else if (d.decision == "modify") {
                // The team's lines lack `edited`: an approval of a guardrail's
                // rewrite runs its proposed arguments, anything else is an edit.
                const bool edited = d.edited
                    ? *d.edited
                    : !(esc && esc->proposedArgs && *esc->proposedArgs == d.args);
                (edited ? o.edited : o.approved) = 1;
            } else if (d.decision == "deny") {
                o.denied = 1;
            } else if (d.decision == "halt") {
                o.halted = 1;
            } else {
                o.other = 1;
            }
            if (esc)
                durations.push_back(std::max<TimeMs>(0, d.ts - esc->ts));
        } else {
            o.other = 1;
        }
        for (Outcomes *sum : { &perTool[tool], &perRule[rule] }) {
            sum->approved += o.approved;
            sum->edited += o.edited;
            sum->denied += o.denied;
            sum->halted += o.halted;
            sum->timedOut += o.timedOut;
            sum->other += o.other;
        }
    }
    const auto total = [](const Outcomes &o) { return o.total(); };
    f.perTool = mostFirst<Outcomes>(perTool, total);
    f.perRule = mostFirst<Outcomes>(perRule, total);

    TimeMs lower = 0;
    for (const TimeMs bound : DecisionBucketBounds) {
        f.timeToDecision.push_back({ (lower == 0 ? std::string("0") : durationLabel(lower))
                + "\u2013" + durationLabel(bound),
            bound, 0 });
        lower = bound;
    }
    f.timeToDecision.push_back({ "\u2265" + durationLabel(lower), std::nullopt, 0 });
    for (const TimeMs d : durations) {
        std::size_t i = 0;
        while (i < std::size(DecisionBucketBounds) && d >= DecisionBucketBounds[i])
            ++i;
        ++f.timeToDecision[i].count;
    }
    f.decisionsTimed = durations.size();
    if (!durations.empty()) {
        std::sort(durations.begin(), durations.end());
        // Nearest rank: the smallest time at least this share of decisions took no longer than.
        const auto rank = [&](double q) {
            const auto n = std::size_t(std::ceil(q * double(durations.size())));
            return durations[std::max<std::size_t>(n, 1) - 1];
        };
        f.p50Ms = rank(0.5);
        f.p90Ms = rank(0.9);
    }
    return f;
}

} // namespace holdpoint::insights
