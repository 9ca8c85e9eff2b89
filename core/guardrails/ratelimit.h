// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"

#include <cstdint>
#include <memory>
#include <string>
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
    std::size_t tableSlots() const
    {
        return m_windows.slots();
    } // what the keys' table holds room for

    static constexpr std::size_t MinSweepAt = 10'000;

private:
    // The admission times of one key, oldest first, in a ring. A key never
    // holds more than `limit` of them (a refused call is not added), and
    // the first two live in the window itself, so the first call of a key
    // allocates nothing.
    class Window
    {
    public:
        bool empty() const { return m_count == 0; }
        std::size_t size() const { return m_count; }
        TimeMs front() const { return data()[m_head]; }
        TimeMs back() const { return data()[(m_head + m_count - 1) & (m_capacity - 1)]; }
        void popFront();
        void pushBack(TimeMs t);

    private:
        static constexpr std::uint32_t Inline = 2; // a power of two, as every capacity is
        const TimeMs *data() const { return m_heap ? m_heap.get() : m_inline; }
        TimeMs m_inline[Inline] {};
        std::unique_ptr<TimeMs[]> m_heap;
        std::uint32_t m_head = 0, m_count = 0, m_capacity = Inline;
    };
    // Windows by key: open addressing with linear probing, so finding a key
    // reads one slot of one array instead of a bucket, a node and the
    // node's own vector. Keys leave only in bulk, in a sweep (eraseIf).
    class WindowTable
    {
    public:
        std::size_t size() const { return m_size; }
        std::size_t slots() const { return m_slots.size(); }
        Window &operator[](const std::string &key);
        template <typename Pred> void eraseIf(Pred pred);

    private:
        struct Slot
        {
            bool used = false;
            std::size_t hash = 0;
            std::string key;
            Window window;
        };
        void rebuild(std::size_t capacity);
        std::vector<Slot> m_slots; // a power of two of them, at most half used
        std::size_t m_size = 0;
    };

    std::string m_name;
    std::size_t m_sweepAt = MinSweepAt;
    int m_limit = 0;
    TimeMs m_windowMs = 0;
    bool m_perSession = false, m_perAgent = false, m_perTool = false;
    std::string m_perText;
    std::optional<NameMatcher> m_tools;
    Action m_action = Action::Deny;
    WindowTable m_windows;
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
