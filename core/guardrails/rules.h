// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace holdpoint {

// Ordered rules; the first that matches gives the verdict, no match passes.
// A shell command is judged one simple command at a time, each by the first
// rule that matches it (README.md "Shell commands"). README.md "rules"
// documents the configuration.
class RulesGuardrail final : public Guardrail
{
public:
    // `spec` is the guardrail's object from the policy, at `path`.
    RulesGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

    // Fills {tool}, {agent}, {args.<path>} and {command} (the simple
    // command the rule matched, or "(absent)") in a rule's reason, the
    // values with their secrets masked (GuardContext::masked).
    static std::string expandReason(const std::string &reason, const CallView &call,
        const GuardContext &context, std::string_view command = {});

private:
    struct ArgMatch
    {
        ArgPath path;
        ValueMatcher matcher;
        std::string key; // as the policy wrote it
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
        std::optional<protocol::ApprovalRule> approvals; // ask only
        // `match` is Bash(…) with a specifier: it matches simple commands.
        bool commandRule = false;
        // An allow whose `when` reads a shell command's string by a glob,
        // regex or prefix: it allows a line of one simple command, fully
        // understood, and nothing else (README.md "Shell commands").
        bool lineAllow = false;
    };
    Rule compileRule(const Json &json, const std::string &path) const;
    void index(std::uint32_t rule);
    // The rule's `when`: its tool, agent and argument matchers.
    static bool whenHolds(const Rule &rule, const CallView &call, CallScratch &scratch);
    bool matches(const Rule &rule, const CallView &call, CallScratch &scratch) const;
    // Every condition but the command's words; `shellTool` when the call's
    // tool is known to be one.
    bool conditionsHold(
        const Rule &rule, const CallView &call, CallScratch &scratch, bool shellTool) const;
    Verdict verdictOf(std::uint32_t i, const CallView &call, const GuardContext &context,
        std::string_view command) const;
    Verdict shellVerdict(const ShellParse &shell, const CallView &call, const GuardContext &context,
        CallScratch &scratch, const std::vector<std::uint32_t> &forTool) const;
    static Json rewrite(const Rule &rule, const Json &args);

    std::string m_name;
    std::vector<Rule> m_rules;
    // Which rules can match a tool, in policy order, by the tool name in
    // ASCII lower case (each rule still checks the name itself, with or
    // without case as it says). A rule with no tool condition, or only a
    // glob, is in m_anyTool. A call is checked against the two lists merged
    // by index, so the first match is the one checking every rule finds.
    std::unordered_map<std::string, std::vector<std::uint32_t>> m_byTool;
    std::vector<std::uint32_t> m_anyTool;
    // Some rule reads shell commands: shell calls take shellVerdict().
    bool m_readsCommands = false;
    bool m_hasWholeLineRules = false;
};

} // namespace holdpoint
