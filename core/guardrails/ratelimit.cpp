// SPDX-License-Identifier: Apache-2.0
#include "ratelimit.h"

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
    if (++first == times.size()) {
        times.clear();
        first = 0;
    }
}

void RateLimitGuardrail::Window::pushBack(TimeMs t)
{
    if (first > 0 && first * 2 >= times.size()) {
        times.erase(times.begin(), times.begin() + std::ptrdiff_t(first));
        first = 0;
    }
    times.push_back(t);
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
        std::erase_if(m_windows, [&](const auto &kv) {
            return kv.second.empty() || kv.second.back() <= context.now - m_windowMs;
        });
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
