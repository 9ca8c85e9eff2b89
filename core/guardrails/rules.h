#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"

#include <vector>

namespace holdpoint {

// Ordered rules; the first that matches gives the verdict, no match passes.
// README.md "rules" documents the configuration.
class RulesGuardrail final : public Guardrail
{
public:
    // `spec` is the guardrail's object from the policy, at `path`.
    RulesGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

    // Fills {tool}, {agent} and {args.<path>} in a rule's reason.
    static std::string expandReason(const std::string &reason, const CallView &call);

private:
    struct ArgMatch
    {
        std::string path;
        ValueMatcher matcher;
    };
    struct Clamp
    {
        std::string path;
        std::optional<double> min, max;
    };
    struct Rule
    {
        std::optional<NameMatcher> tool;
        std::optional<NameMatcher> agent;
        std::vector<ArgMatch> args;
        std::optional<CompactMatcher> compact;
        Action action = Action::Ask;
        std::string reason;
        std::string code;
        std::vector<std::pair<std::string, Json>> set;
        std::vector<std::string> remove;
        std::vector<Clamp> clamp;
    };
    Rule compileRule(const Json &json, const std::string &path) const;
    bool matches(const Rule &rule, const CallView &call, const std::string &cwd) const;
    static Json rewrite(const Rule &rule, const Json &args);

    std::string m_name;
    std::vector<Rule> m_rules;
};

} // namespace holdpoint
