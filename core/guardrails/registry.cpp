// SPDX-License-Identifier: Apache-2.0
#include "registry.h"

#include "guardrails/hiddentext.h"
#include "guardrails/loopdetection.h"
#include "guardrails/protectedpaths.h"
#include "guardrails/ratelimit.h"
#include "guardrails/rules.h"
#include "guardrails/secrets.h"

namespace holdpoint {

std::initializer_list<const char *> builtinGuardrailTypes()
{
    static constexpr std::initializer_list<const char *> types { "rules", "protected_paths",
        "loop_detection", "rate_limit", "annotations", "secrets", "hidden_characters" };
    return types;
}

ChainEntry createGuardrail(const Json &spec, const std::string &path)
{
    const SpecReader r(spec, path);
    const std::string type = r.oneOf("type", builtinGuardrailTypes(), nullptr);
    const std::string name = r.string("name", type);
    ChainEntry entry;
    entry.failOpen = r.boolean("fail_open", false);
    entry.budget
        = std::chrono::microseconds(qint64(r.number("budget_ms", 100, 0.001, 60'000) * 1000));
    if (type == "rules")
        entry.guardrail = std::make_shared<RulesGuardrail>(name, r);
    else if (type == "protected_paths")
        entry.guardrail = std::make_shared<ProtectedPathsGuardrail>(name, r);
    else if (type == "loop_detection")
        entry.guardrail = std::make_shared<LoopDetectionGuardrail>(name, r);
    else if (type == "rate_limit")
        entry.guardrail = std::make_shared<RateLimitGuardrail>(name, r);
    else if (type == "annotations")
        entry.guardrail = std::make_shared<AnnotationsGuardrail>(name, r);
    else if (type == "hidden_characters")
        entry.guardrail = std::make_shared<HiddenTextGuardrail>(name, r);
    else
        entry.guardrail = std::make_shared<SecretsGuardrail>(name, r);
    return entry;
}

} // namespace holdpoint
