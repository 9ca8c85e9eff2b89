// SPDX-License-Identifier: Apache-2.0
#pragma once

// The guardrail interface. README.md beside this file states the chain's
// semantics; each sentence there has a test in tests/guardrails.

#include "common/clock.h"
#include "common/json.h"
#include "common/redaction.h"
#include "protocol/protocol.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

// What one guardrail says about one call. `Pass` means it has nothing to
// say: it neither allows nor objects.
enum class Action
{
    Pass,
    Allow,
    Warn,
    Modify,
    Ask,
    Deny,
    Halt
};
std::string_view actionName(Action action);
std::optional<Action> actionFromName(std::string_view name);

struct Verdict
{
    Action action = Action::Pass;
    std::string reason;
    std::string code; // machine-readable, e.g. "protected_path"
    Json args; // Modify: the new arguments (an object)
    // For the reviewer and the audit log: an object, or null for none (a
    // null or empty one adds nothing to the trail). Null by default, since
    // an empty object costs an allocation on every verdict of every call.
    Json metadata;
    // Values to mask, found while deciding; saves the chain asking again.
    std::vector<Redaction> redactions;

    static Verdict pass() { return {}; }
    static Verdict make(Action action, std::string code, std::string reason)
    {
        Verdict v;
        v.action = action;
        v.code = std::move(code);
        v.reason = std::move(reason);
        return v;
    }
    static Verdict modify(Json args, std::string code, std::string reason)
    {
        Verdict v = make(Action::Modify, std::move(code), std::move(reason));
        v.args = std::move(args);
        return v;
    }
};

// The call as guardrails see it. `args` are the current arguments: an
// earlier guardrail may have rewritten them.
struct CallView
{
    const std::string &sessionId;
    const protocol::AgentInfo &agent;
    const std::string &callId;
    const std::string &toolName;
    const Json &args;
    const Json &annotations;
    const Json &context;
    const std::optional<std::string> &turnId;
};

struct ResultView
{
    bool ok = true;
    const Json &result;
};

// The secrets in the call, for a guardrail whose reason quotes it: a
// quote cut short, escaped or normalized is no longer the secret as the
// args have it, so masking the finished reason could miss it. Found on the
// first use in a call, by one more scan of the call by every guardrail's
// redactions() (the secrets guardrail's scan), which counts against the
// quoting guardrail's budget_ms. Unused, it costs nothing.
class SecretMask
{
public:
    explicit SecretMask(std::function<std::vector<Redaction>()> find)
        : m_find(std::move(find))
    { }
    std::string text(std::string text) const { return maskText(std::move(text), found()); }
    Json json(const Json &value) const { return maskJson(value, found()); }

private:
    const std::vector<Redaction> &found() const
    {
        if (!m_redactions)
            m_redactions = m_find();
        return *m_redactions;
    }
    std::function<std::vector<Redaction>()> m_find;
    mutable std::optional<std::vector<Redaction>> m_redactions;
};

struct GuardContext
{
    TimeMs now = 0;
    // Set by GuardrailChain for beforeCall and afterCall; without it
    // nothing is masked.
    const SecretMask *mask = nullptr;
    // What a reason may quote of the call: `text` with its secrets masked.
    std::string masked(std::string text) const { return mask ? mask->text(std::move(text)) : text; }
    Json masked(const Json &value) const { return mask ? mask->json(value) : value; }
};

struct Health
{
    bool ok = true;
    std::string detail;
};

class Guardrail
{
public:
    virtual ~Guardrail() = default;
    virtual std::string_view name() const = 0;
    virtual Verdict beforeCall(const CallView &call, const GuardContext &context) = 0;
    // After the tool ran. Allow, Warn and Halt are meaningful here.
    virtual Verdict afterCall(
        const CallView &call, const ResultView &result, const GuardContext &context)
    {
        Q_UNUSED(call);
        Q_UNUSED(result);
        Q_UNUSED(context);
        return Verdict::pass();
    }
    virtual void onTurnStart(const std::string &sessionId, const std::string &turnId)
    {
        Q_UNUSED(sessionId);
        Q_UNUSED(turnId);
    }
    virtual void onTurnEnd(const std::string &sessionId, const std::string &turnId)
    {
        Q_UNUSED(sessionId);
        Q_UNUSED(turnId);
    }
    virtual Health health() const { return {}; }
    // What this guardrail has found about a turn so far that a reviewer
    // deciding one of its calls should see ("" is the implicit turn of a
    // session that sends no turn markers). `guardrail` may be left empty.
    virtual std::vector<protocol::TurnFinding> turnFindings(
        const std::string &sessionId, const std::string &turnId) const
    {
        Q_UNUSED(sessionId);
        Q_UNUSED(turnId);
        return {};
    }
    // Values in the call to mask wherever a person or a log sees it. Asked
    // of every guardrail whatever the verdicts, so masking never depends on
    // where a guardrail stands in the chain.
    virtual std::vector<Redaction> redactions(const CallView &call) const
    {
        Q_UNUSED(call);
        return {};
    }
};

} // namespace holdpoint
