// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/spec.h"

namespace holdpoint {

// Asks (or denies, warns, halts) when a call's tool name, arguments or
// context hold characters a person cannot see or would misread: invisible
// and control characters, and words that mix scripts (common/visibletext.h).
class HiddenTextGuardrail final : public Guardrail
{
public:
    HiddenTextGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

private:
    std::string m_name;
    Action m_invisible = Action::Ask;
    Action m_mixedScript = Action::Ask;
};

} // namespace holdpoint
