// SPDX-License-Identifier: Apache-2.0
#include "loopdetection.h"

#include <QtGlobal>

#include <algorithm>

namespace holdpoint {

namespace {

LoopDetectionGuardrail::Thresholds readThresholds(const SpecReader &spec, const char *key,
    const char *stopKey, LoopDetectionGuardrail::Thresholds fallback)
{
    const Json *v = spec.optional(key);
    if (!v)
        return fallback;
    const SpecReader t(*v, spec.pathOf(key));
    t.onlyKeys({ "warn", stopKey });
    LoopDetectionGuardrail::Thresholds out;
    out.warn = int(t.number("warn", fallback.warn, 1, 1'000'000));
    out.stop = int(t.number(stopKey, fallback.stop, 1, 1'000'000));
    if (out.stop < out.warn)
        t.fail(stopKey, "must not be below warn (" + std::to_string(out.warn) + ")");
    return out;
}

} // namespace

std::string LoopDetectionGuardrail::normalizeToolName(const std::string &name)
{
    // "web_search", "WebSearch" and "web-search" are the same tool here.
    std::string out;
    out.reserve(name.size());
    for (char c : name) {
        if (c == '_' || c == '-')
            continue;
        out += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    return out;
}

LoopDetectionGuardrail::LoopDetectionGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "exact_failure", "same_tool_failure",
        "no_progress", "read_only_tools" });
    m_exact = readThresholds(spec, "exact_failure", "block", m_exact);
    m_sameTool = readThresholds(spec, "same_tool_failure", "halt", m_sameTool);
    m_noProgress = readThresholds(spec, "no_progress", "block", m_noProgress);
    std::vector<std::string> tools { "read", "glob", "grep", "ls", "web_search", "web_fetch",
        "knowledge", "memory" };
    if (const Json *list = spec.optional("read_only_tools")) {
        if (!list->is_array())
            spec.fail("read_only_tools",
                std::string("expected an array of tool names, got ") + list->type_name());
        tools.clear();
        for (std::size_t i = 0; i < list->size(); ++i) {
            if (!(*list)[i].is_string())
                throw SpecError(spec.pathOf("read_only_tools") + "[" + std::to_string(i) + "]",
                    "expected a string");
            tools.push_back((*list)[i].get<std::string>());
        }
    }
    for (const auto &t : tools)
        m_readOnlyTools.insert(normalizeToolName(t));
}

bool LoopDetectionGuardrail::readOnly(const CallView &call) const
{
    if (call.annotations.is_object()) {
        auto it = call.annotations.find("readOnlyHint");
        if (it != call.annotations.end() && it->is_boolean())
            return it->get<bool>();
    }
    return m_readOnlyTools.contains(normalizeToolName(call.toolName));
}

std::size_t LoopDetectionGuardrail::callHash(const CallView &call)
{
    return std::hash<std::string> {}(call.toolName + '\0' + dumpJson(call.args));
}

LoopDetectionGuardrail::TurnState &LoopDetectionGuardrail::state(const CallView &call)
{
    // A session that never sends turn markers has one implicit turn, "".
    const KeyLess::View view { call.sessionId,
        call.turnId ? std::string_view(*call.turnId) : std::string_view() };
    auto it = m_turns.lower_bound(view);
    if (it != m_turns.end() && !m_turns.key_comp()(view, it->first))
        return it->second;
    it = m_turns.emplace_hint(it, Key { view.first, view.second }, TurnState {});
    m_turnOrder.push_back(it);
    if (m_turnOrder.size() > MaxTurnsKept)
        forgetOneTurn();
    return it->second;
}

// Past MaxTurnsKept turns, one is forgotten with its counters and events.
// Among the older half of the turns kept: the oldest with nothing on
// record (no failure, nothing fired), else the oldest with failures where
// no pattern has fired yet, else the oldest. So many turns at once push
// out what matters least, whichever came first; and the newer half, where
// turns still count up, is never pushed out by turns that fired long ago.
void LoopDetectionGuardrail::forgetOneTurn()
{
    auto rank = [](const TurnState &t) {
        if (!t.events.empty())
            return 2;
        return t.exactFailures.empty() && t.toolFailures.empty() ? 0 : 1;
    };
    const auto older = m_turnOrder.begin() + std::ptrdiff_t(m_turnOrder.size() / 2);
    auto victim = m_turnOrder.begin();
    int victimRank = rank((*victim)->second);
    for (auto i = m_turnOrder.begin(); victimRank > 0 && i != older; ++i) {
        if (const int r = rank((*i)->second); r < victimRank) {
            victim = i;
            victimRank = r;
        }
    }
    m_turns.erase(*victim);
    m_turnOrder.erase(victim);
}

void LoopDetectionGuardrail::onTurnStart(const std::string &sessionId, const std::string &turnId)
{
    // Counters start again with the turn; the old turn's events stay for review.
    auto it = m_turns.find({ sessionId, turnId });
    if (it != m_turns.end()) {
        it->second.exactFailures.clear();
        it->second.toolFailures.clear();
        it->second.lastResult.clear();
    }
}

Verdict LoopDetectionGuardrail::fire(TurnState &s, const CallView &call, const GuardContext &ctx,
    const char *pattern, const char *action, int count, int threshold, const std::string &message)
{
    s.events.push_back({ pattern, action, call.toolName, count, threshold, message, ctx.now });
    const Action a = std::string_view(action) == "warn" ? Action::Warn
        : std::string_view(action) == "halt"            ? Action::Halt
                                                        : Action::Deny;
    Verdict v = Verdict::make(a, pattern, message);
    v.metadata = { { "pattern", pattern }, { "count", count }, { "threshold", threshold },
        { "loop_action", action }, { "turn", call.turnId.value_or(std::string()) } };
    return v;
}

void LoopDetectionGuardrail::Streak::add(const std::string &callId, const std::string &tool)
{
    toolName = tool;
    ++count;
    // A re-sent call is one call.
    if (callIds.empty() || callIds.back() != callId)
        callIds.push_back(callId);
    if (callIds.size() > MaxCallIds)
        callIds.erase(callIds.begin());
}

Verdict LoopDetectionGuardrail::beforeCall(const CallView &call, const GuardContext &context)
{
    // Only a tool_result records anything: a turn with none has nothing to
    // block or halt, and is not made (nor takes a place among the turns kept).
    const KeyLess::View view { call.sessionId,
        call.turnId ? std::string_view(*call.turnId) : std::string_view() };
    const auto found = m_turns.find(view);
    if (found == m_turns.end())
        return Verdict::pass();
    TurnState &s = found->second;
    if (auto it = s.toolFailures.find(call.toolName);
        it != s.toolFailures.end() && it->second.count >= m_sameTool.stop)
        return fire(s, call, context, "same_tool_failure", "halt", it->second.count,
            m_sameTool.stop,
            call.toolName + " failed " + std::to_string(it->second.count)
                + " times in this turn; halting the turn");
    // Hashing the call means serialising its arguments: only a turn with a
    // failure or a read-only result on record has anything to look it up in.
    if (s.exactFailures.empty() && s.lastResult.empty())
        return Verdict::pass();
    const std::size_t h = callHash(call);
    if (auto it = s.exactFailures.find(h);
        it != s.exactFailures.end() && it->second.count >= m_exact.stop)
        return fire(s, call, context, "exact_failure", "block", it->second.count, m_exact.stop,
            "blocked: this exact " + call.toolName + " call failed "
                + std::to_string(it->second.count) + " times in this turn");
    if (auto it = s.lastResult.find(h);
        it != s.lastResult.end() && it->second.second.count >= m_noProgress.stop)
        return fire(s, call, context, "no_progress", "block", it->second.second.count,
            m_noProgress.stop,
            "blocked: " + call.toolName + " returned the same result "
                + std::to_string(it->second.second.count) + " times in this turn");
    return Verdict::pass();
}

Verdict LoopDetectionGuardrail::afterCall(
    const CallView &call, const ResultView &result, const GuardContext &context)
{
    TurnState &s = state(call);
    const std::size_t h = callHash(call);
    if (!result.ok) {
        Streak &exactStreak = s.exactFailures[h];
        Streak &toolStreak = s.toolFailures[call.toolName];
        exactStreak.add(call.callId, call.toolName);
        toolStreak.add(call.callId, call.toolName);
        const int exact = exactStreak.count;
        const int sameTool = toolStreak.count;
        if (sameTool >= m_sameTool.stop)
            return fire(s, call, context, "same_tool_failure", "halt", sameTool, m_sameTool.stop,
                call.toolName + " failed " + std::to_string(sameTool)
                    + " times in this turn; halting the turn");
        if (exact >= m_exact.warn)
            return fire(s, call, context, "exact_failure", "warn", exact, m_exact.warn,
                "this exact " + call.toolName + " call failed " + std::to_string(exact)
                    + " times in this turn");
        if (sameTool >= m_sameTool.warn)
            return fire(s, call, context, "same_tool_failure", "warn", sameTool, m_sameTool.warn,
                call.toolName + " failed " + std::to_string(sameTool) + " times in this turn");
        return Verdict::pass();
    }
    if (!readOnly(call))
        return Verdict::pass();
    const std::size_t r = std::hash<std::string> {}(dumpJson(result.result));
    auto &[lastHash, streak] = s.lastResult[h];
    if (streak.count == 0 || lastHash != r)
        streak = Streak {};
    streak.add(call.callId, call.toolName);
    lastHash = r;
    const int repeats = streak.count;
    if (repeats >= m_noProgress.warn)
        return fire(s, call, context, "no_progress", "warn", repeats, m_noProgress.warn,
            call.toolName + " returned the same result " + std::to_string(repeats)
                + " times in this turn");
    return Verdict::pass();
}

std::vector<protocol::TurnFinding> LoopDetectionGuardrail::turnFindings(
    const std::string &sessionId, const std::string &turnId) const
{
    std::vector<protocol::TurnFinding> out;
    auto it = m_turns.find({ sessionId, turnId });
    if (it == m_turns.end())
        return out;
    const TurnState &s = it->second;
    auto add = [&](const Streak &streak, const char *pattern, Thresholds t, const char *stop,
                   std::string message) {
        if (streak.count < t.warn)
            return;
        out.push_back({ m_name, pattern, streak.count >= t.stop ? stop : "warn", streak.toolName,
            streak.count, t.warn, t.stop, streak.callIds, std::move(message) });
    };
    const std::size_t first = out.size();
    for (const auto &[hash, streak] : s.exactFailures)
        add(streak, "exact_failure", m_exact, "block",
            "this exact " + streak.toolName + " call failed " + std::to_string(streak.count)
                + " times in this turn");
    for (const auto &[tool, streak] : s.toolFailures)
        add(streak, "same_tool_failure", m_sameTool, "halt",
            tool + " failed " + std::to_string(streak.count) + " times in this turn");
    for (const auto &[hash, last] : s.lastResult)
        add(last.second, "no_progress", m_noProgress, "block",
            last.second.toolName + " returned the same result " + std::to_string(last.second.count)
                + " times in this turn");
    // Hash order is no order: the strongest first, then by tool and first call.
    std::sort(out.begin() + std::ptrdiff_t(first), out.end(),
        [](const protocol::TurnFinding &a, const protocol::TurnFinding &b) {
            const double ra = double(a.count) / std::max(1, a.stopAt),
                         rb = double(b.count) / std::max(1, b.stopAt);
            if (ra != rb)
                return ra > rb;
            if (a.pattern != b.pattern)
                return a.pattern < b.pattern;
            if (a.toolName != b.toolName)
                return a.toolName < b.toolName;
            return a.callIds < b.callIds;
        });
    return out;
}

std::vector<LoopDetectionGuardrail::Event> LoopDetectionGuardrail::events(
    const std::string &sessionId, const std::string &turnId) const
{
    auto it = m_turns.find({ sessionId, turnId });
    return it == m_turns.end() ? std::vector<Event> {} : it->second.events;
}

} // namespace holdpoint
