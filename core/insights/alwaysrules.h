// SPDX-License-Identifier: Apache-2.0
#pragma once

// The "always" rules a reviewer added from the console, as the audit log
// recorded them (policy_rule_added), and which of them decided a call.
// They all carry the code always_allowed or always_denied, so the code
// alone cannot tell one from another (INSIGHTS.md "Prompts saved").

#include "common/clock.h"
#include "common/json.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {
struct Policy;
}

namespace holdpoint::insights {

// A rule in a few words: "allow Bash(git status:*)", "allow Read
// (file_path under /work/src) for coder".
std::string alwaysRuleLabel(const Json &rule);

class AlwaysRules final
{
public:
    AlwaysRules();
    ~AlwaysRules();
    AlwaysRules(AlwaysRules &&) noexcept;
    AlwaysRules &operator=(AlwaysRules &&) noexcept;

    // A rule as its policy_rule_added record holds it; one that does not
    // load as a policy rule is kept out.
    void add(TimeMs at, const Json &rule);
    std::size_t size() const { return m_rules.size(); }
    // The label of the rule that decided `call` (a call record) at `at`:
    // the console's rules are newest first and the first match wins, so
    // the newest rule added before it that gives the same action. Nullopt
    // when none does (added before the log began, or edited by hand).
    std::optional<std::string> identify(const Json &call, TimeMs at, bool allow) const;

private:
    struct Rule
    {
        TimeMs at = 0;
        bool allow = true;
        std::string label;
        std::shared_ptr<const Policy> policy;
    };
    std::vector<Rule> m_rules; // in the order they were added
};

} // namespace holdpoint::insights
