// SPDX-License-Identifier: Apache-2.0
#include "haltedturn.h"

namespace holdpoint {

bool inHaltedTurn(const HaltedTurn &halted, const std::optional<std::string> &turnId)
{
    return !turnId || *turnId == halted.turnId;
}

std::optional<HaltedTurn> afterDecision(const std::optional<HaltedTurn> &current,
    const std::optional<std::string> &turnId, const protocol::Decision &decision,
    const std::vector<Redaction> *redactions)
{
    // Outside a turn a halt stops that call and nothing after it. A repeat
    // of the halt in place (code turn_halted), or the same turn halted
    // again, keeps the first halt and its reason.
    if (!turnId || decision.kind != protocol::DecisionKind::Halt || decision.code == TurnHaltedCode)
        return current;
    if (current && current->turnId == *turnId)
        return current;
    return HaltedTurn { *turnId,
        redactions ? maskText(decision.reason, *redactions) : decision.reason, decision.decidedBy };
}

protocol::Decision haltedTurnDecision(const HaltedTurn &halted)
{
    protocol::Decision d;
    d.kind = protocol::DecisionKind::Halt;
    d.decidedBy = halted.decidedBy;
    d.code = TurnHaltedCode;
    d.reason = "the run was halted ("
        + (halted.reason.empty() ? std::string("no reason given") : halted.reason)
        + "); no tool call runs for the rest of this turn";
    return d;
}

} // namespace holdpoint
