// SPDX-License-Identifier: Apache-2.0
#pragma once

// Standing decisions: a reviewer's approve or deny for the same tool's later
// calls in one turn or a whole session (PROTOCOL.md "Reviewer role", scope).

#include "guardrails/chain.h"
#include "protocol/protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

struct Grant
{
    std::string sessionId;
    std::optional<std::string> turnId; // unset: the whole session
    std::string toolName;
    protocol::DecisionKind kind = protocol::DecisionKind::Deny;
    std::string reason;
    std::string decidedBy;
    std::string via; // how that person authenticated, for the records
};

class Grants
{
public:
    void add(Grant grant) { m_grants.push_back(std::move(grant)); }
    const Grant *find(const std::string &sessionId, const std::optional<std::string> &turnId,
        const std::string &toolName) const;
    // What a standing decision makes of the chain's outcome: it answers what
    // would have asked, and a denial also overrides an allow. Nothing
    // overrides a guardrail's deny or halt.
    void apply(const std::string &sessionId, const std::optional<std::string> &turnId,
        const std::string &toolName, ChainOutcome *outcome) const;
    void endTurn(const std::string &sessionId, const std::string &turnId);
    void forgetSession(const std::string &sessionId);
    // "allow read_file for turn t1", for the Agents view.
    std::vector<std::string> describe(const std::string &sessionId) const;

private:
    std::vector<Grant> m_grants;
};

} // namespace holdpoint
