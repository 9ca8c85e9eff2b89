// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"

#include <unordered_map>
#include <vector>

namespace holdpoint {

// N calls per sliding window, counted per session, agent, tool or any mix
// of them (README.md "rate_limit"). Time comes from the console's clock.
class RateLimitGuardrail final : public Guardrail
{
public:
    RateLimitGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;
    std::size_t trackedKeys() const { return m_windows.size(); }

    static constexpr std::size_t MinSweepAt = 10'000;

private:
    // The admission times of one key, oldest first: a vector read from
    // `first`, compacted when half of it is spent. A deque allocates a
    // 512-byte block for the first call of every key.
    struct Window
    {
        std::vector<TimeMs> times;
        std::size_t first = 0;
        bool empty() const { return first == times.size(); }
        std::size_t size() const { return times.size() - first; }
        TimeMs front() const { return times[first]; }
        TimeMs back() const { return times.back(); }
        void popFront();
        void pushBack(TimeMs t);
    };

    std::string m_name;
    std::size_t m_sweepAt = MinSweepAt;
    int m_limit = 0;
    TimeMs m_windowMs = 0;
    bool m_perSession = false, m_perAgent = false, m_perTool = false;
    std::string m_perText;
    std::optional<NameMatcher> m_tools;
    Action m_action = Action::Deny;
    std::unordered_map<std::string, Window> m_windows;
    std::string m_key; // the call's key, built in place each call
};

// Escalates or denies by MCP tool annotations (README.md "annotations").
class AnnotationsGuardrail final : public Guardrail
{
public:
    AnnotationsGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

private:
    std::string m_name;
    Action m_destructive = Action::Ask;
    Action m_openWorld = Action::Pass;
    Action m_readOnly = Action::Pass; // or Allow: readOnlyHint decides the call may run
};

} // namespace holdpoint
