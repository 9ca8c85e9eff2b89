// SPDX-License-Identifier: Apache-2.0
#include "hiddentext.h"

#include "common/visibletext.h"

namespace holdpoint {

HiddenTextGuardrail::HiddenTextGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "invisible", "mixed_script" });
    m_invisible = *actionFromName(
        spec.oneOf("invisible", { "ask", "deny", "halt", "warn", "pass" }, "ask"));
    m_mixedScript = *actionFromName(
        spec.oneOf("mixed_script", { "ask", "deny", "halt", "warn", "pass" }, "ask"));
}

Verdict HiddenTextGuardrail::beforeCall(const CallView &call, const GuardContext &)
{
    struct Part
    {
        const char *where;
        unsigned flags;
    };
    const Part parts[] = {
        { "the tool name", hiddenTextOf(std::string_view(call.toolName)) },
        { "the arguments", hiddenTextOfJson(call.args) },
        { "the context", hiddenTextOfJson(call.context) },
    };
    unsigned flags = 0;
    std::string where;
    for (const Part &p : parts) {
        if (p.flags == 0)
            continue;
        flags |= p.flags;
        where += (where.empty() ? "" : ", ") + std::string(p.where);
    }
    // The stricter of the two actions the call's findings call for.
    Action action = Action::Pass;
    if (flags & HiddenInvisible)
        action = m_invisible;
    if ((flags & HiddenMixedScript) && m_mixedScript > action)
        action = m_mixedScript;
    if (action == Action::Pass)
        return Verdict::pass();
    Verdict v
        = Verdict::make(action, "hidden_characters", hiddenTextWarning(flags) + " in " + where);
    v.metadata = Json { { "kinds", hiddenTextJson(flags) } };
    return v;
}

} // namespace holdpoint
