// SPDX-License-Identifier: Apache-2.0
#include "ratelimit.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <utility>

namespace holdpoint {

namespace {

std::string showSeconds(TimeMs ms)
{
    return ms % 1000 == 0 ? std::to_string(ms / 1000) : dumpJson(Json(double(ms) / 1000));
}

int severity(Action a)
{
    switch (a) {
    case Action::Halt:
        return 4;
    case Action::Deny:
        return 3;
    case Action::Ask:
        return 2;
    case Action::Warn:
        return 1;
    default:
        return 0;
    }
}

} // namespace

RateLimitGuardrail::RateLimitGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "limit", "window_s", "per", "tools",
        "action" });
    if (!spec.has("limit"))
        spec.fail("limit", "required, expected the number of calls allowed per window");
    m_limit = int(spec.number("limit", 0, 1, 1e9));
    if (!spec.has("window_s"))
        spec.fail("window_s", "required, expected the window in seconds");
    m_windowMs = TimeMs(spec.number("window_s", 0, 0.001, 30 * 24 * 3600) * 1000);
    Json per = spec.has("per") ? *spec.optional("per") : Json("session");
    if (per.is_string())
        per = Json::array({ per });
    if (!per.is_array() || per.empty())
        spec.fail("per", "expected one of session, agent, tool, or a list of them");
    const bool perIsList = spec.optional("per") && spec.optional("per")->is_array();
    for (std::size_t i = 0; i < per.size(); ++i) {
        std::string at = spec.pathOf("per");
        if (perIsList)
            at += '[' + std::to_string(i) + ']';
        const std::string s = per[i].is_string() ? per[i].get<std::string>() : std::string();
        if (s == "session")
            m_perSession = true;
        else if (s == "agent")
            m_perAgent = true;
        else if (s == "tool")
            m_perTool = true;
        else
            throw SpecError(at,
                "unknown value " + dumpJson(per[i]) + " (expected one of: session, agent, tool)");
        if (!m_perText.empty())
            m_perText += " and ";
        m_perText += s;
    }
    if (const Json *tools = spec.optional("tools"))
        m_tools = NameMatcher::compile(*tools, spec.pathOf("tools"));
    m_action = *actionFromName(spec.oneOf("action", { "deny", "ask", "halt" }, "deny"));
}

void RateLimitGuardrail::Window::popFront()
{
    m_head = (m_head + 1) & (m_capacity - 1);
    --m_count;
}

void RateLimitGuardrail::Window::pushBack(TimeMs t)
{
    if (m_count == m_capacity) {
        // Full: twice the room, the times unrolled from the oldest.
        const std::uint32_t capacity = m_capacity * 2;
        auto grown = std::make_unique<TimeMs[]>(capacity);
        const TimeMs *old = data();
        for (std::uint32_t i = 0; i < m_count; ++i)
            grown[i] = old[(m_head + i) & (m_capacity - 1)];
        m_heap = std::move(grown);
        m_capacity = capacity;
        m_head = 0;
    }
    TimeMs *slots = m_heap ? m_heap.get() : m_inline;
    slots[(m_head + m_count) & (m_capacity - 1)] = t;
    ++m_count;
}

RateLimitGuardrail::Window &RateLimitGuardrail::WindowTable::operator[](const std::string &key)
{
    const std::size_t hash = std::hash<std::string> {}(key);
    if (!m_slots.empty()) {
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = hash & mask; m_slots[i].used; i = (i + 1) & mask) {
            if (m_slots[i].hash == hash && m_slots[i].key == key)
                return m_slots[i].window;
        }
    }
    // A new key; the table grows first if it would be more than half full.
    if ((m_size + 1) * 2 > m_slots.size())
        rebuild(std::max<std::size_t>(16, m_slots.size() * 2));
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = hash & mask;
    while (m_slots[i].used)
        i = (i + 1) & mask;
    Slot &slot = m_slots[i];
    slot.used = true;
    slot.hash = hash;
    slot.key = key;
    ++m_size;
    return slot.window;
}

// Moves every key into `capacity` slots (a power of two, more than twice
// the keys), each at the first free slot from where its hash points.
void RateLimitGuardrail::WindowTable::rebuild(std::size_t capacity)
{
    std::vector<Slot> old = std::exchange(m_slots, std::vector<Slot>(capacity));
    const std::size_t mask = capacity - 1;
    for (Slot &from : old) {
        if (!from.used)
            continue;
        std::size_t i = from.hash & mask;
        while (m_slots[i].used)
            i = (i + 1) & mask;
        m_slots[i] = std::move(from);
    }
}

// A sweep that leaves the table an eighth full or less moves the keys left
// into a table a quarter full, so a burst of keys does not keep its memory
// (a slot is about 90 bytes) and every later sweep's walk. Otherwise it
// works in place and allocates nothing: removing keys leaves holes in the
// runs later keys were probed along, so every key left is placed again at
// the first free slot from where its hash points. The pass starts after a
// slot that was free before any removal: no key's run crosses it, so each
// key is placed after every key its run passes.
template <typename Pred> void RateLimitGuardrail::WindowTable::eraseIf(Pred pred)
{
    if (m_slots.empty())
        return;
    const std::size_t mask = m_slots.size() - 1;
    std::size_t start = 0;
    while (m_slots[start].used) // at most half the slots are used
        ++start;
    for (Slot &slot : m_slots) {
        if (slot.used && pred(slot.window)) {
            slot = Slot {};
            --m_size;
        }
    }
    if (m_slots.size() > 16 && m_size * 8 <= m_slots.size())
        return rebuild(std::bit_ceil(std::max<std::size_t>(16, m_size * 4)));
    for (std::size_t n = 1; n <= mask; ++n) {
        const std::size_t from = (start + n) & mask;
        if (!m_slots[from].used)
            continue;
        std::size_t to = m_slots[from].hash & mask;
        while (to != from && m_slots[to].used)
            to = (to + 1) & mask;
        if (to != from) {
            m_slots[to] = std::move(m_slots[from]);
            m_slots[from] = Slot {};
        }
    }
}

Verdict RateLimitGuardrail::beforeCall(const CallView &call, const GuardContext &context)
{
    if (m_tools && !m_tools->matches(call.toolName))
        return Verdict::pass();
    std::string &key = m_key;
    key.clear();
    auto part = [&key](const char *tag, const std::string &value) {
        key += tag;
        key += value;
        key += '\0';
    };
    if (m_perSession)
        part("s:", call.sessionId);
    if (m_perAgent)
        part("a:", call.agent.name);
    if (m_perTool)
        part("t:", call.toolName);

    Window &window = m_windows[key];
    // Sliding window: a call counts for exactly window_s after it was admitted.
    while (!window.empty() && window.front() <= context.now - m_windowMs)
        window.popFront();
    if (int(window.size()) >= m_limit) {
        const TimeMs retryInMs = window.front() + m_windowMs - context.now;
        Verdict v = Verdict::make(m_action, "rate_limited",
            "rate limit: at most " + std::to_string(m_limit)
                + (m_limit == 1 ? " call per " : " calls per ") + showSeconds(m_windowMs)
                + " s per " + m_perText + "; the next call is possible in " + showSeconds(retryInMs)
                + " s");
        v.metadata = { { "limit", m_limit }, { "window_s", double(m_windowMs) / 1000 },
            { "per", m_perText }, { "retry_in_ms", retryInMs } };
        return v;
    }
    window.pushBack(context.now);
    // Forget idle keys so many sessions do not grow the map forever. The
    // threshold doubles after each sweep: with many keys live at once a
    // sweep on every call would make each call cost O(keys).
    if (m_windows.size() > m_sweepAt) {
        m_windows.eraseIf(
            [&](const Window &w) { return w.empty() || w.back() <= context.now - m_windowMs; });
        m_sweepAt = std::max<std::size_t>(MinSweepAt, m_windows.size() * 2);
    }
    return Verdict::pass();
}

AnnotationsGuardrail::AnnotationsGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys(
        { "type", "name", "fail_open", "budget_ms", "destructive", "open_world", "read_only" });
    m_destructive
        = *actionFromName(spec.oneOf("destructive", { "ask", "deny", "warn", "pass" }, "ask"));
    m_openWorld
        = *actionFromName(spec.oneOf("open_world", { "ask", "deny", "warn", "pass" }, "pass"));
    m_readOnly = *actionFromName(spec.oneOf("read_only", { "allow", "pass" }, "pass"));
}

Verdict AnnotationsGuardrail::beforeCall(const CallView &call, const GuardContext &)
{
    // MCP 2025-06-18 "ToolAnnotations": readOnlyHint defaults to false;
    // destructiveHint and openWorldHint default to true and mean something
    // only for a tool that is not read-only.
    auto hint = [&](const char *key) -> std::optional<bool> {
        if (!call.annotations.is_object())
            return std::nullopt;
        auto it = call.annotations.find(key);
        if (it == call.annotations.end() || !it->is_boolean())
            return std::nullopt;
        return it->get<bool>();
    };
    if (hint("readOnlyHint").value_or(false))
        return m_readOnly == Action::Allow ? Verdict::make(Action::Allow, "read_only",
                   call.toolName + " is marked read-only (readOnlyHint: true)")
                                           : Verdict::pass();
    Verdict out = Verdict::pass();
    const std::optional<bool> destructive = hint("destructiveHint");
    if (destructive.value_or(true) && m_destructive != Action::Pass) {
        out = Verdict::make(m_destructive, "destructive",
            call.toolName
                + (destructive
                        ? " is marked destructive (destructiveHint: true)"
                        : " may be destructive (no destructiveHint; MCP's default is true)"));
    }
    const std::optional<bool> openWorld = hint("openWorldHint");
    if (openWorld.value_or(true) && m_openWorld != Action::Pass
        && severity(m_openWorld) > severity(out.action)) {
        out = Verdict::make(m_openWorld, "open_world",
            call.toolName
                + (openWorld
                        ? " reaches outside systems (openWorldHint: true)"
                        : " may reach outside systems (no openWorldHint; MCP's default is true)"));
    }
    return out;
}

} // namespace holdpoint
