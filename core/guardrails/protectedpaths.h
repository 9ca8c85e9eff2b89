// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"

#include <cstdint>
#include <vector>

namespace holdpoint {

// Denies (or asks about) calls whose path-like arguments fall under
// protected locations. README.md "protected_paths" documents it.
class ProtectedPathsGuardrail final : public Guardrail
{
public:
    ProtectedPathsGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

    static std::vector<std::string> defaultKeys();

private:
    struct Pattern
    {
        std::string text;
        std::optional<Glob> glob; // else: the path itself and everything under it
        std::string base;
    };
    bool protectedPath(const std::string &normalized, const Pattern **which) const;
    std::optional<Verdict> find(
        const Json &node, const std::string &cwd, const GuardContext &context) const;
    void addKey(const std::string &key);
    bool isKey(const std::string &key) const;

    std::string m_name;
    Action m_action = Action::Deny;
    std::vector<Pattern> m_patterns;
    // Every argument name is looked up: most have a length no key has.
    std::vector<std::string> m_keys;
    std::uint64_t m_keyLengths = 0; // bit n: a key of n bytes; bit 63: one of 63 or more
};

} // namespace holdpoint
