// SPDX-License-Identifier: Apache-2.0
#pragma once

// A reviewer's answer to a pending item, worked out without touching any
// state (PROTOCOL.md "Reviewer role"): what the item gets, whether a
// standing decision follows, and which other pending items it reaches.

#include "engine/grants.h"
#include "protocol/protocol.h"
#include "queue/queueitem.h"
#include "queue/queuestore.h"

#include <optional>
#include <string>

namespace holdpoint {

struct ReviewPlan
{
    bool ok = false;
    protocol::ErrorCode code = protocol::ErrorCode::InvalidField; // when not ok
    std::string message;

    protocol::Decision decision; // for the reviewed item
    std::optional<Grant> grant; // scope turn or session: later calls of the tool
    // The other pending items the decision reaches: a halt reaches the rest
    // of the turn; a scoped decision, the tool's calls in the turn or session.
    std::optional<PendingQuery> reach;
    std::string reviewedId;
    std::string reviewedCallId;
};

ReviewPlan planReview(
    const protocol::Review &review, const QueueItem &item, const std::string &decidedBy);

// Whether `other`, found by the plan's reach query, is decided with it. An
// item restored without its secrets is never approved in passing.
bool planReaches(const ReviewPlan &plan, const QueueItem &other);
// The decision a reached item gets.
protocol::Decision reachedDecision(const ReviewPlan &plan, const QueueItem &other);

// The decision a standing one (a reviewer's scope turn or session) gives a
// call that escalated before it was made but reached no person yet, as if
// it had been pending then; nothing when it would not have reached it.
std::optional<protocol::Decision> standingDecision(const Grant &grant, const QueueItem &item);

} // namespace holdpoint
