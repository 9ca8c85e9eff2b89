// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

namespace holdpoint {

class JsonWriter;

// What happens to a call no guardrail decides (README.md "Outcome"): the
// chain's own fallback, which a policy file sets with "default".
enum class DefaultAction
{
    Ask,
    Allow,
    Deny
};
std::string_view defaultActionName(DefaultAction action);

struct ChainEntry
{
    std::shared_ptr<Guardrail> guardrail;
    bool failOpen = false; // a failure warns instead of denying
    std::chrono::microseconds budget { 100'000 }; // longer counts as a failure
};

// One guardrail's verdict on one call, in a chain's trail. It becomes JSON
// only where it is written (trailToJson, writeTrail): the audit records and
// the reviewer's queue item, as objects with "action" ("error" for a
// failure), "code", "guardrail", "reason" and, when set, "metadata",
// "patch" and "fail_open".
struct TrailEntry
{
    Action action = Action::Pass;
    bool failed = false; // the guardrail failed (README.md "Failures")
    bool failOpen = false; // failed: it warned instead of denying
    std::string code;
    std::string guardrail;
    std::string reason;
    Json metadata; // written unless null or empty
    Json patch; // modify: RFC 6902 patch from the arguments before it; written unless null
};
using Trail = std::vector<TrailEntry>;

Json trailToJson(const Trail &trail);
// The same as dumpJson(trailToJson(trail)) writes.
void writeTrail(JsonWriter &writer, const Trail &trail);

// The chain's answer before a call runs (README.md "Outcome").
struct ChainOutcome
{
    Action action = Action::Ask; // Allow, Ask, Deny or Halt
    std::optional<Json> args; // the rewritten arguments, when a guardrail modified them
    Json patch; // RFC 6902 patch from the original to `args`
    std::string decidedBy; // guardrail:<name> or policy:default
    std::string reason;
    std::string code; // the deciding guardrail's; empty for the default
    std::vector<protocol::Warning> warnings;
    Trail trail; // every guardrail's verdict, in order
    std::vector<Redaction> redactions; // to mask before a person or a log sees the call
    // Ask: how many people must approve, the strictest of what the asking
    // guardrails said (a verdict's metadata "approvals"). The policy's
    // default ask gets the policy's default_approvals from the broker.
    protocol::ApprovalRule approvals;
};

// The chain's answer to a tool_result (README.md "After the call").
struct AfterOutcome
{
    Action action = Action::Allow; // Allow, Warn or Halt
    std::string reason;
    std::vector<protocol::Warning> warnings;
    Trail trail;
};

class GuardrailChain
{
public:
    using MonotonicNs = std::function<qint64()>;

    GuardrailChain();
    void add(ChainEntry entry);
    int size() const { return int(m_entries.size()); }
    const std::vector<ChainEntry> &entries() const { return m_entries; }
    // For tests: how elapsed time is measured against budgets.
    void setMonotonicClock(MonotonicNs clock) { m_now = std::move(clock); }

    ChainOutcome beforeCall(
        const CallView &call, const GuardContext &context, DefaultAction fallback) const;
    AfterOutcome afterCall(
        const CallView &call, const ResultView &result, const GuardContext &context) const;
    // The values every guardrail would mask in `call`, longest first, without
    // deciding anything (a call's secrets found again after a restart).
    std::vector<Redaction> redactions(const CallView &call) const;
    // Every guardrail's findings about a turn, in chain order, each naming
    // its guardrail. A guardrail that throws here has nothing to say.
    std::vector<protocol::TurnFinding> turnFindings(
        const std::string &sessionId, const std::string &turnId) const;
    void onTurnStart(const std::string &sessionId, const std::string &turnId) const;
    void onTurnEnd(const std::string &sessionId, const std::string &turnId) const;
    // Names of guardrails that threw on a turn marker since the last call.
    std::vector<std::string> takeTurnFailures() const;

    struct GuardrailHealth
    {
        std::string name;
        bool ok = true;
        std::string detail;
    };
    // Each guardrail's own health check; one whose check throws, or that
    // threw on a turn marker, is reported unhealthy.
    std::vector<GuardrailHealth> health() const;

private:
    template <typename Run>
    std::optional<std::string> run(const ChainEntry &entry, Run &&fn, Verdict *out) const;
    // `ran` marks the guardrails whose verdict already carried their redactions.
    void collectRedactions(
        const CallView &call, const char *ran, std::vector<Redaction> *out) const;
    ChainOutcome decide(
        const CallView &call, const GuardContext &context, DefaultAction fallback, char *ran) const;

    std::vector<ChainEntry> m_entries;
    MonotonicNs m_now;
    mutable std::vector<std::string> m_turnFailures;
};

} // namespace holdpoint
