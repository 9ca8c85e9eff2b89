// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a halt leaves behind in its session (PROTOCOL.md "Halting"): the
// turn it stopped. An agent that cannot stop itself when told to (Claude
// Code 2.1.197 ignores a PreToolUse hook's `continue: false` and runs the
// model's next call) keeps sending that turn's calls; each one is halted
// again, with the first halt's reason, until the turn ends.

#include "common/redaction.h"
#include "protocol/protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

struct HaltedTurn
{
    std::string turnId;
    std::string reason; // the first halt's
    std::string decidedBy;
};

inline constexpr char TurnHaltedCode[] = "turn_halted";

// Whether a call of `turnId` belongs to the halted turn. A call without a
// turn_id cannot show that another turn began, so it belongs too.
bool inHaltedTurn(const HaltedTurn &halted, const std::optional<std::string> &turnId);

// The halted turn after `decision` for a call of `turnId`: a new one for a
// halt in a turn; otherwise (a call outside any turn, not a halt, or a
// repeat of the halt already in place) `current`. The rest of the turn
// hears the reason and its records keep it, so it is kept with the halting
// call's secrets (`redactions`, if any) masked.
std::optional<HaltedTurn> afterDecision(const std::optional<HaltedTurn> &current,
    const std::optional<std::string> &turnId, const protocol::Decision &decision,
    const std::vector<Redaction> *redactions = nullptr);

// The decision for a call of the halted turn: halt, code "turn_halted",
// decided by whoever halted the turn, and a reason that tells the model
// the run was halted and why.
protocol::Decision haltedTurnDecision(const HaltedTurn &halted);

} // namespace holdpoint
