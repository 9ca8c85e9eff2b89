// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/spec.h"

#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace holdpoint {

// Per-turn loop detection with Operator's three patterns (README.md
// "loop_detection"). Counts come from tool_result messages.
class LoopDetectionGuardrail final : public Guardrail
{
public:
    struct Thresholds
    {
        int warn = 0;
        int stop = 0; // block (deny the next identical call) or halt the turn
    };
    // One warning, block or halt, kept against its turn for later review.
    struct Event
    {
        std::string pattern; // exact_failure, same_tool_failure, no_progress
        std::string action; // warn, block, halt
        std::string toolName;
        int count = 0;
        int threshold = 0;
        std::string message;
        TimeMs at = 0;
    };

    LoopDetectionGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;
    Verdict afterCall(
        const CallView &call, const ResultView &result, const GuardContext &context) override;
    void onTurnStart(const std::string &sessionId, const std::string &turnId) override;
    // Each pattern that has reached its warn threshold in the turn, with
    // its count now and the calls that make it up.
    std::vector<protocol::TurnFinding> turnFindings(
        const std::string &sessionId, const std::string &turnId) const override;

    // Everything that fired in a session's turn ("" is the implicit turn of
    // a session that sends no turn markers), oldest first.
    std::vector<Event> events(const std::string &sessionId, const std::string &turnId) const;
    static std::string normalizeToolName(const std::string &name);

private:
    // One pattern's run in a turn: how often, and by which calls.
    struct Streak
    {
        std::string toolName;
        int count = 0;
        std::vector<std::string> callIds; // the newest MaxCallIds, oldest first
        void add(const std::string &callId, const std::string &tool);
    };
    struct TurnState
    {
        std::unordered_map<std::size_t, Streak> exactFailures; // by tool+args
        std::map<std::string, Streak> toolFailures; // by tool
        std::unordered_map<std::size_t, std::pair<std::size_t, Streak>>
            lastResult; // tool+args -> (result hash, repeats)
        std::vector<Event> events;
    };
    static constexpr std::size_t MaxCallIds = 20;
    using Key = std::pair<std::string, std::string>; // session, turn
    // Orders keys as std::pair does, and finds one by views of its parts,
    // so looking a turn up copies no ids.
    struct KeyLess
    {
        using is_transparent = void;
        using View = std::pair<std::string_view, std::string_view>;
        static View view(const Key &k) { return { k.first, k.second }; }
        static const View &view(const View &v) { return v; }
        template <typename A, typename B> bool operator()(const A &a, const B &b) const
        {
            return view(a) < view(b);
        }
    };

    bool readOnly(const CallView &call) const;
    TurnState &state(const CallView &call);
    void forgetOneTurn();
    static std::size_t callHash(const CallView &call);
    Verdict fire(TurnState &s, const CallView &call, const GuardContext &ctx, const char *pattern,
        const char *action, int count, int threshold, const std::string &message);

    std::string m_name;
    Thresholds m_exact { 2, 5 };
    Thresholds m_sameTool { 3, 8 };
    Thresholds m_noProgress { 2, 5 };
    std::set<std::string> m_readOnlyTools;
    std::map<Key, TurnState, KeyLess> m_turns;
    std::deque<std::map<Key, TurnState, KeyLess>::iterator>
        m_turnOrder; // by first tool_result, oldest first
    static constexpr std::size_t MaxTurnsKept = 1000;
};

} // namespace holdpoint
