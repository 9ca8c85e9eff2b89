// SPDX-License-Identifier: Apache-2.0
#include "chain.h"

#include "common/jsonwriter.h"

#include <QVarLengthArray>

#include <algorithm>

namespace holdpoint {

std::string_view actionName(Action action)
{
    switch (action) {
    case Action::Pass:
        return "pass";
    case Action::Allow:
        return "allow";
    case Action::Warn:
        return "warn";
    case Action::Modify:
        return "modify";
    case Action::Ask:
        return "ask";
    case Action::Deny:
        return "deny";
    case Action::Halt:
        return "halt";
    }
    return "pass";
}

std::optional<Action> actionFromName(std::string_view name)
{
    for (Action a : { Action::Pass, Action::Allow, Action::Warn, Action::Modify, Action::Ask,
             Action::Deny, Action::Halt })
        if (actionName(a) == name)
            return a;
    return std::nullopt;
}

std::string_view defaultActionName(DefaultAction action)
{
    switch (action) {
    case DefaultAction::Ask:
        return "ask";
    case DefaultAction::Allow:
        return "allow";
    case DefaultAction::Deny:
        return "deny";
    }
    return "ask";
}

Json trailToJson(const Trail &trail)
{
    Json out = Json::array();
    for (const TrailEntry &e : trail) {
        Json j { { "action", e.failed ? std::string_view("error") : actionName(e.action) },
            { "code", e.code }, { "guardrail", e.guardrail }, { "reason", e.reason } };
        if (e.failed)
            j["fail_open"] = e.failOpen;
        if (!e.metadata.empty())
            j["metadata"] = e.metadata;
        if (!e.patch.is_null())
            j["patch"] = e.patch;
        out.push_back(std::move(j));
    }
    return out;
}

void writeTrail(JsonWriter &w, const Trail &trail)
{
    // The members in the order a dumped object has them.
    w.beginArray();
    for (const TrailEntry &e : trail) {
        w.beginObject();
        w.member("action", e.failed ? std::string_view("error") : actionName(e.action));
        w.member("code", e.code);
        if (e.failed)
            w.member("fail_open", e.failOpen);
        w.member("guardrail", e.guardrail);
        if (!e.metadata.empty())
            w.member("metadata", e.metadata);
        if (!e.patch.is_null())
            w.member("patch", e.patch);
        w.member("reason", e.reason);
        w.endObject();
    }
    w.endArray();
}

namespace {

std::string guardrailName(const ChainEntry &e)
{
    return std::string(e.guardrail->name());
}

// A trail entry is built on every call for every guardrail: plain
// strings, no JSON.
TrailEntry trailEntry(std::string_view name, Verdict &v)
{
    TrailEntry e;
    e.action = v.action;
    e.code = std::move(v.code);
    e.guardrail = name;
    e.reason = std::move(v.reason);
    if (!v.metadata.empty())
        e.metadata = std::move(v.metadata);
    return e;
}

TrailEntry errorEntry(std::string_view name, const std::string &why, bool failOpen)
{
    TrailEntry e;
    e.failed = true;
    e.failOpen = failOpen;
    e.code = "guardrail_error";
    e.guardrail = name;
    e.reason = why;
    return e;
}

} // namespace

GuardrailChain::GuardrailChain()
    : m_now([] {
        return qint64(std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
                          .count());
    })
{ }

void GuardrailChain::add(ChainEntry entry)
{
    m_entries.push_back(std::move(entry));
}

// Runs one guardrail; returns why it failed, if it did (README.md "Failures").
template <typename Run>
std::optional<std::string> GuardrailChain::run(
    const ChainEntry &entry, Run &&fn, Verdict *out) const
{
    const qint64 start = m_now();
    try {
        *out = fn(*entry.guardrail);
    } catch (const std::exception &e) {
        return std::string("threw: ") + e.what();
    } catch (...) {
        return std::string("threw an unknown exception");
    }
    const qint64 elapsedUs = (m_now() - start) / 1000;
    if (elapsedUs > entry.budget.count())
        return "took " + std::to_string(elapsedUs) + " us, over its budget of "
            + std::to_string(entry.budget.count()) + " us";
    if (out->action == Action::Modify && !out->args.is_object())
        return std::string("returned modify without an arguments object");
    return std::nullopt;
}

namespace {

void mergeRedactions(std::vector<Redaction> &&found, std::vector<Redaction> *out)
{
    for (Redaction &r : found) {
        const bool known = std::any_of(
            out->begin(), out->end(), [&](const Redaction &o) { return o.secret == r.secret; });
        if (!known && !r.secret.empty())
            out->push_back(std::move(r));
    }
}

} // namespace

void GuardrailChain::collectRedactions(
    const CallView &call, const char *ran, std::vector<Redaction> *out) const
{
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (ran && ran[i])
            continue;
        const ChainEntry &entry = m_entries[i];
        std::vector<Redaction> found;
        try {
            found = entry.guardrail->redactions(call);
        } catch (...) {
            continue; // the guardrail's own verdict reports its failure
        }
        mergeRedactions(std::move(found), out);
    }
}

std::vector<Redaction> GuardrailChain::redactions(const CallView &call) const
{
    std::vector<Redaction> out;
    collectRedactions(call, nullptr, &out);
    std::stable_sort(out.begin(), out.end(),
        [](const Redaction &a, const Redaction &b) { return a.secret.size() > b.secret.size(); });
    return out;
}

std::vector<protocol::TurnFinding> GuardrailChain::turnFindings(
    const std::string &sessionId, const std::string &turnId) const
{
    std::vector<protocol::TurnFinding> out;
    for (const ChainEntry &entry : m_entries) {
        std::vector<protocol::TurnFinding> found;
        try {
            found = entry.guardrail->turnFindings(sessionId, turnId);
        } catch (...) {
            continue;
        }
        for (protocol::TurnFinding &f : found) {
            if (f.guardrail.empty())
                f.guardrail = std::string(entry.guardrail->name());
            out.push_back(std::move(f));
        }
    }
    return out;
}

ChainOutcome GuardrailChain::beforeCall(
    const CallView &call, const GuardContext &context, DefaultAction fallback) const
{
    QVarLengthArray<char, 32> ran(
        qsizetype(m_entries.size()), 0); // inline: this runs for every call
    const SecretMask mask([this, &call] { return redactions(call); });
    GuardContext quoting = context;
    quoting.mask = &mask;
    ChainOutcome out = decide(call, quoting, fallback, ran.data());
    collectRedactions(call, ran.data(), &out.redactions);
    if (out.args) {
        const CallView rewritten { call.sessionId, call.agent, call.callId, call.toolName,
            *out.args, call.annotations, call.context, call.turnId };
        collectRedactions(rewritten, nullptr, &out.redactions);
    }
    if (!out.redactions.empty()) {
        // Longest first, so a secret that contains another is masked whole.
        std::stable_sort(out.redactions.begin(), out.redactions.end(),
            [](const Redaction &a, const Redaction &b) {
                return a.secret.size() > b.secret.size();
            });
    }
    return out;
}

ChainOutcome GuardrailChain::decide(
    const CallView &call, const GuardContext &context, DefaultAction fallback, char *ran) const
{
    ChainOutcome out;
    out.trail.reserve(m_entries.size());
    std::optional<Json> current; // set once a guardrail rewrote the arguments
    std::string allowedBy, allowReason, askedBy, askReason, askCode;
    bool namedApprovals = false; // an ask named approvals (out.approvals holds them)

    for (std::size_t index = 0; index < m_entries.size(); ++index) {
        const ChainEntry &entry = m_entries[index];
        const std::string_view name = entry.guardrail->name();
        const CallView view { call.sessionId, call.agent, call.callId, call.toolName,
            current ? *current : call.args, call.annotations, call.context, call.turnId };
        Verdict v;
        if (auto failure = run(
                entry, [&](Guardrail &g) { return g.beforeCall(view, context); }, &v)) {
            const std::string owned = guardrailName(entry);
            out.trail.push_back(errorEntry(owned, *failure, entry.failOpen));
            if (entry.failOpen) {
                out.warnings.push_back({ owned, "guardrail_error",
                    "guardrail " + owned + " failed (fail_open): " + *failure });
                continue;
            }
            out.action = Action::Deny;
            out.decidedBy = "guardrail:" + owned;
            out.code = "guardrail_error";
            out.reason = "guardrail " + owned + " failed: " + *failure;
            return out;
        }
        // Redactions found on rewritten arguments are collected separately.
        if (!current) {
            ran[index] = 1;
            mergeRedactions(std::move(v.redactions), &out.redactions);
        }
        TrailEntry said = trailEntry(name, v);
        switch (v.action) {
        case Action::Pass:
            break;
        case Action::Allow:
            if (allowedBy.empty()) {
                allowedBy = name;
                allowReason = said.reason;
            }
            break;
        case Action::Warn:
            out.warnings.push_back({ std::string(name), said.code, said.reason });
            break;
        case Action::Modify: {
            const Json &before = current ? *current : call.args;
            said.patch = Json::diff(before, v.args);
            current = std::move(v.args);
            break;
        }
        case Action::Ask:
            // trailEntry took the metadata: read it from the entry.
            // The strictest of the asks that name approvals; the first one
            // as it is (the default rule would turn its "keep" into "reset").
            if (const Json *m = &said.metadata; m->is_object())
                if (auto a = m->find("approvals"); a != m->end()) {
                    const protocol::ApprovalRule asked = protocol::approvalRuleFromJson(*a);
                    out.approvals
                        = namedApprovals ? protocol::strictest(out.approvals, asked) : asked;
                    namedApprovals = true;
                }
            if (askedBy.empty()) {
                askedBy = name;
                askReason = said.reason;
                askCode = said.code;
            }
            break;
        case Action::Deny:
        case Action::Halt:
            out.action = v.action;
            out.decidedBy = "guardrail:" + std::string(name);
            out.reason = said.reason;
            out.code = said.code;
            out.trail.push_back(std::move(said));
            return out;
        }
        out.trail.push_back(std::move(said));
    }

    if (current) {
        out.patch = Json::diff(call.args, *current);
        out.args = std::move(current);
    }
    if (!askedBy.empty()) {
        out.action = Action::Ask;
        out.decidedBy = "guardrail:" + askedBy;
        out.reason = std::move(askReason);
        out.code = std::move(askCode);
    } else if (!allowedBy.empty()) {
        out.action = Action::Allow;
        out.decidedBy = "guardrail:" + allowedBy;
        out.reason = std::move(allowReason);
    } else {
        out.action = fallback == DefaultAction::Allow ? Action::Allow
            : fallback == DefaultAction::Deny         ? Action::Deny
                                                      : Action::Ask;
        out.decidedBy = "policy:default";
        out.reason = "no guardrail decided; the default policy is "
            + std::string(defaultActionName(fallback));
    }
    return out;
}

AfterOutcome GuardrailChain::afterCall(
    const CallView &call, const ResultView &result, const GuardContext &context) const
{
    AfterOutcome out;
    std::vector<std::string> reasons;
    const SecretMask mask([this, &call] { return redactions(call); });
    GuardContext quoting = context;
    quoting.mask = &mask;
    for (const ChainEntry &entry : m_entries) {
        const std::string name = guardrailName(entry);
        Verdict v;
        if (auto failure = run(
                entry, [&](Guardrail &g) { return g.afterCall(call, result, quoting); }, &v)) {
            out.trail.push_back(errorEntry(name, *failure, entry.failOpen));
            const std::string why = "guardrail " + name + " failed: " + *failure;
            if (entry.failOpen) {
                out.warnings.push_back({ name, "guardrail_error", why + " (fail_open)" });
                reasons.push_back(why + " (fail_open)");
                continue;
            }
            // The tool already ran, so failing closed here means stopping the turn.
            out.action = Action::Halt;
            out.reason = why;
            return out;
        }
        const TrailEntry &said = out.trail.emplace_back(trailEntry(name, v));
        if (v.action == Action::Halt) {
            out.action = Action::Halt;
            out.reason = said.reason;
            return out;
        }
        if (v.action == Action::Warn) {
            out.warnings.push_back({ name, said.code, said.reason });
            reasons.push_back(said.reason);
        }
    }
    if (!out.warnings.empty()) {
        out.action = Action::Warn;
        for (std::size_t i = 0; i < reasons.size(); ++i)
            out.reason += (i ? "; " : "") + reasons[i];
    }
    return out;
}

// Turn markers carry no verdict, so a guardrail that throws on one cannot
// fail the call; it must not take the console down either. Its health says so.
void GuardrailChain::onTurnStart(const std::string &sessionId, const std::string &turnId) const
{
    for (const ChainEntry &e : m_entries) {
        try {
            e.guardrail->onTurnStart(sessionId, turnId);
        } catch (...) {
            m_turnFailures.push_back(guardrailName(e));
        }
    }
}

void GuardrailChain::onTurnEnd(const std::string &sessionId, const std::string &turnId) const
{
    for (const ChainEntry &e : m_entries) {
        try {
            e.guardrail->onTurnEnd(sessionId, turnId);
        } catch (...) {
            m_turnFailures.push_back(guardrailName(e));
        }
    }
}

std::vector<std::string> GuardrailChain::takeTurnFailures() const
{
    return std::exchange(m_turnFailures, {});
}

std::vector<GuardrailChain::GuardrailHealth> GuardrailChain::health() const
{
    std::vector<GuardrailHealth> out;
    for (const ChainEntry &e : m_entries) {
        GuardrailHealth h { guardrailName(e), true, {} };
        try {
            const Health own = e.guardrail->health();
            h.ok = own.ok;
            h.detail = own.detail;
        } catch (const std::exception &ex) {
            h.ok = false;
            h.detail = std::string("health check threw: ") + ex.what();
        } catch (...) {
            h.ok = false;
            h.detail = "health check threw an unknown exception";
        }
        if (std::find(m_turnFailures.begin(), m_turnFailures.end(), h.name)
            != m_turnFailures.end()) {
            h.ok = false;
            h.detail += std::string(h.detail.empty() ? "" : "; ") + "threw on a turn marker";
        }
        out.push_back(std::move(h));
    }
    return out;
}

} // namespace holdpoint
