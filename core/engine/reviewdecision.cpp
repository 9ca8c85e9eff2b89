// SPDX-License-Identifier: Apache-2.0
#include "reviewdecision.h"

namespace holdpoint {

using namespace protocol;

namespace {

ReviewPlan refuse(ErrorCode code, std::string message)
{
    ReviewPlan plan;
    plan.code = code;
    plan.message = std::move(message);
    return plan;
}

} // namespace

ReviewPlan planReview(const Review &review, const QueueItem &item, const std::string &decidedBy)
{
    if (item.secretsPending
        && (review.action == ReviewAction::Approve || review.action == ReviewAction::Edit))
        return refuse(ErrorCode::InvalidField,
            "id: \"" + review.id
                + "\" came back from the audit log after a restart, and the log keeps no "
                  "secrets; its real arguments return when the agent re-sends the call. Deny or "
                  "halt it now, or approve it then");

    if (review.action == ReviewAction::Edit && !item.agent.capabilities.modify)
        return refuse(ErrorCode::InvalidField,
            "action: edit: agent \"" + item.agent.name
                + "\" said in its hello that it cannot take edited "
                  "arguments, so it would run the call unedited; approve or deny it as sent");

    ReviewPlan plan;
    plan.reviewedId = item.id;
    plan.reviewedCallId = item.callId;
    Decision &d = plan.decision;
    d.decidedBy = decidedBy;
    d.reason = review.reason;
    d.warnings = item.warnings;
    switch (review.action) {
    case ReviewAction::Approve:
        // What the guardrails proposed is what the reviewer saw and approves.
        d.kind = item.proposedArgs ? DecisionKind::Modify : DecisionKind::Allow;
        d.args = item.proposedArgs.value_or(item.args);
        if (d.reason.empty())
            d.reason = "approved by a reviewer";
        break;
    case ReviewAction::Edit: {
        if (!review.args || !review.args->is_object())
            return refuse(ErrorCode::MissingField, "args: required for edit, expected an object");
        // The reviewer saw placeholders for secrets; whatever placeholders
        // the edit kept stand for the real values again.
        const Json edited = unmaskJson(*review.args, item.redactions);
        if (edited == item.proposedArgs.value_or(item.args))
            return refuse(ErrorCode::InvalidField,
                "args: identical to the call's own args; use action approve");
        d.kind = edited == item.args ? DecisionKind::Allow : DecisionKind::Modify;
        d.args = edited;
        if (d.reason.empty())
            d.reason = "approved with edited arguments by a reviewer";
        break;
    }
    case ReviewAction::Deny:
        if (d.reason.find_first_not_of(" \t\r\n") == std::string::npos)
            return refuse(
                ErrorCode::MissingField, "reason: required for deny, expected a non-empty string");
        d.kind = DecisionKind::Deny;
        break;
    case ReviewAction::Halt:
        d.kind = DecisionKind::Halt;
        if (d.reason.empty())
            d.reason = "turn halted by a reviewer";
        break;
    }

    if (review.scope == ReviewScope::Call) {
        // Halting one call aborts its whole turn: the turn's other pending
        // calls get the same halt, so the agent is not left waiting on them.
        if (review.action == ReviewAction::Halt && item.turnId)
            plan.reach = PendingQuery { item.sessionId, item.turnId, std::nullopt };
        plan.ok = true;
        return plan;
    }

    // Approve or deny for the rest of the turn or session: later calls of
    // the same tool are answered the same way, and so are those waiting now.
    if (review.action == ReviewAction::Approve && item.approvals.voted())
        return refuse(ErrorCode::InvalidField,
            "scope: this call needs " + std::to_string(item.approvals.required)
                + " people's approval, which one person cannot give for later calls; approve it "
                  "alone (scope call)");
    if (review.action != ReviewAction::Approve && review.action != ReviewAction::Deny)
        return refuse(
            ErrorCode::InvalidField, "scope: only approve and deny reach beyond one call");
    if (review.scope == ReviewScope::Turn && !item.turnId)
        return refuse(ErrorCode::InvalidField,
            "scope: this call belongs to no turn; use scope session or call");
    Grant g;
    g.sessionId = item.sessionId;
    if (review.scope == ReviewScope::Turn)
        g.turnId = item.turnId;
    g.toolName = item.toolName;
    g.kind = review.action == ReviewAction::Deny ? DecisionKind::Deny : DecisionKind::Allow;
    g.reason = d.reason
        + (review.scope == ReviewScope::Turn ? " (for the rest of turn " + *item.turnId + ")"
                                             : std::string(" (for the rest of the session)"));
    g.decidedBy = decidedBy;
    plan.reach = PendingQuery { g.sessionId, g.turnId, g.toolName };
    plan.grant = std::move(g);
    plan.ok = true;
    return plan;
}

namespace {

// Nothing that needs several people's approval is approved in passing, nor
// an item restored without its secrets.
bool grantReaches(const Grant &grant, const QueueItem &other)
{
    const bool approves = grant.kind != DecisionKind::Deny;
    return !other.secretsPending && !(approves && other.approvals.voted());
}

} // namespace

bool planReaches(const ReviewPlan &plan, const QueueItem &other)
{
    if (!plan.reach || other.id == plan.reviewedId)
        return false;
    return !plan.grant || grantReaches(*plan.grant, other);
}

Decision reachedDecision(const ReviewPlan &plan, const QueueItem &other)
{
    Decision d = plan.decision;
    d.warnings = other.warnings;
    if (!plan.grant) {
        d.reason = plan.decision.reason + " (turn halted with call " + plan.reviewedCallId + ")";
        return d;
    }
    d.reason = plan.grant->reason;
    if (d.kind != DecisionKind::Deny) {
        d.kind = other.proposedArgs ? DecisionKind::Modify : DecisionKind::Allow;
        d.args = other.proposedArgs.value_or(other.args);
    }
    return d;
}

std::optional<Decision> standingDecision(const Grant &grant, const QueueItem &item)
{
    if (grant.sessionId != item.sessionId || grant.toolName != item.toolName
        || (grant.turnId && grant.turnId != item.turnId) || !grantReaches(grant, item))
        return std::nullopt;
    Decision d;
    d.kind = grant.kind;
    if (d.kind != DecisionKind::Deny) {
        d.kind = item.proposedArgs ? DecisionKind::Modify : DecisionKind::Allow;
        d.args = item.proposedArgs.value_or(item.args);
    } else {
        d.code = "reviewer_scope"; // as Grants::apply says of a later call
    }
    d.reason = grant.reason;
    d.decidedBy = grant.decidedBy;
    d.via = grant.via;
    d.warnings = item.warnings;
    return d;
}

} // namespace holdpoint
