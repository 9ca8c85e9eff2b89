// SPDX-License-Identifier: Apache-2.0
#include "grants.h"

namespace holdpoint {

using protocol::DecisionKind;

const Grant *Grants::find(const std::string &sessionId, const std::optional<std::string> &turnId,
    const std::string &toolName) const
{
    for (const Grant &g : m_grants)
        if (g.sessionId == sessionId && g.toolName == toolName && (!g.turnId || g.turnId == turnId))
            return &g;
    return nullptr;
}

void Grants::apply(const std::string &sessionId, const std::optional<std::string> &turnId,
    const std::string &toolName, ChainOutcome *outcome) const
{
    const Grant *g = find(sessionId, turnId, toolName);
    if (!g)
        return;
    const bool deny = g->kind == DecisionKind::Deny && outcome->action != Action::Deny
        && outcome->action != Action::Halt;
    // A standing approval from one person never stands in for the several
    // a rule asks for.
    const bool allow = g->kind != DecisionKind::Deny && outcome->action == Action::Ask
        && !outcome->approvals.voted();
    if (!deny && !allow)
        return;
    outcome->action = deny ? Action::Deny : Action::Allow;
    outcome->decidedBy = g->decidedBy;
    outcome->reason = g->reason;
    outcome->code = deny ? "reviewer_scope" : "";
    if (deny)
        outcome->args.reset();
}

void Grants::endTurn(const std::string &sessionId, const std::string &turnId)
{
    std::erase_if(
        m_grants, [&](const Grant &g) { return g.sessionId == sessionId && g.turnId == turnId; });
}

void Grants::forgetSession(const std::string &sessionId)
{
    std::erase_if(m_grants, [&](const Grant &g) { return g.sessionId == sessionId; });
}

std::vector<std::string> Grants::describe(const std::string &sessionId) const
{
    std::vector<std::string> out;
    for (const Grant &g : m_grants)
        if (g.sessionId == sessionId)
            out.push_back(std::string(protocol::decisionKindName(g.kind)) + " " + g.toolName
                + (g.turnId ? " for turn " + *g.turnId : std::string(" for the session")));
    return out;
}

} // namespace holdpoint
