// SPDX-License-Identifier: Apache-2.0
// libFuzzer: the policy parser and validator, then the chain it builds on a
// fixed call (short arguments, so a pathological regex stays cheap).
#include "guardrails/chain.h"
#include "policy/policy.h"

#include <cstdint>

using namespace holdpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    PolicyResult r = parsePolicy(text, QStringLiteral("fuzz.json"));
    if (!r.policy)
        return 0;
    static const std::string session = "s", callId = "c", tool = "Bash";
    static const protocol::AgentInfo agent { "coder", "fuzz" };
    static const Json args = { { "command", "rm -rf /tmp/x" }, { "path", "../etc/passwd" },
        { "token", "AKIAIOSFODNN7EXAMPLE" }, { "n", 5 } };
    static const Json annotations = Json::object(), context = { { "cwd", "/home/dev" } };
    static const std::optional<std::string> turn = std::string("t");
    const CallView view { session, agent, callId, tool, args, annotations, context, turn };
    const ChainOutcome o = r.policy->chain->beforeCall(view, { 0 }, r.policy->defaultAction);
    (void)maskJson(trailToJson(o.trail), o.redactions);
    const Json result = "out";
    (void)r.policy->chain->afterCall(view, { false, result }, { 0 });
    return 0;
}
