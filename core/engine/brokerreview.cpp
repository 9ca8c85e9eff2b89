// SPDX-License-Identifier: Apache-2.0
// The reviewer's side of the broker: a review planned and applied, a vote
// counted towards an item that needs several people (queue/approvals.h), and
// decisions another console made arriving here.
#include "broker.h"

#include "audit/auditlog.h"
#include "engine/reviewdecision.h"

namespace holdpoint {

using namespace protocol;

namespace {

// The answer to a vote that did not complete its item's count.
Json votedJson(const std::string &id, int approvals, int required)
{
    return Json { { "type", "voted" }, { "id", id }, { "approvals", approvals },
        { "required", required } };
}

} // namespace

ReviewOutcome Broker::review(const Review &review, const ReviewerIdentity &reviewer)
{
    ReviewOutcome out;
    const QueueItem *item = m_queue->find(review.id);
    if (!item) {
        out.code = ErrorCode::UnknownItem;
        out.message = noPendingItem(review.id);
        return out;
    }
    if (item->approvals.voted()
        && (review.action == ReviewAction::Approve || review.action == ReviewAction::Edit))
        return vote(review, *item, reviewer);
    ReviewPlan plan = planReview(review, *item, reviewer.decidedBy());
    if (!plan.ok) {
        out.code = plan.code;
        out.message = std::move(plan.message);
        return out;
    }
    plan.decision.via = reviewer.via;
    if (plan.grant)
        plan.grant->via = reviewer.via;
    // Who else the decision reaches is settled before the queue changes.
    std::vector<std::string> reached;
    if (plan.reach)
        for (const std::string &id : m_queue->pendingIds(*plan.reach))
            if (const QueueItem *other = m_queue->find(id); other && planReaches(plan, *other))
                reached.push_back(id);
    // A store that settles decisions later refuses a second one on its way.
    if (!m_queue->resolve(review.id, ItemState::Decided, plan.decision, &review)) {
        out.code = ErrorCode::AlreadyResolved;
        out.message = "a decision on " + review.id + " is on its way already";
        return out;
    }
    if (plan.grant)
        m_grants.add(*plan.grant);
    out.ok = true;
    out.decision = plan.decision;
    for (const std::string &id : reached) {
        if (const QueueItem *other = m_queue->find(id)) {
            Review same { id, review.action, review.reason, std::nullopt, ReviewScope::Call };
            m_queue->resolve(id, ItemState::Decided, reachedDecision(plan, *other), &same);
        }
    }
    return out;
}

ReviewOutcome Broker::vote(
    const Review &review, const QueueItem &item, const ReviewerIdentity &reviewer)
{
    ReviewOutcome out;
    // A vote nobody could read back after a crash is no vote.
    if (auditUnavailable()) {
        out.code = ErrorCode::Forbidden;
        out.message = "the audit log cannot be written, so no approval is counted: "
            + m_audit->lastError().toStdString();
        return out;
    }
    // An approval approves the arguments as they stand: after an edit, the
    // edited ones.
    Review effective = review;
    if (review.action == ReviewAction::Approve && item.editedArgs) {
        effective.action = ReviewAction::Edit;
        effective.args = item.masked(*item.editedArgs);
    }
    ReviewPlan plan = planReview(effective, item, reviewer.decidedBy());
    if (!plan.ok) {
        out.code = plan.code;
        out.message = std::move(plan.message);
        return out;
    }
    std::optional<Json> editArgs;
    if (review.action == ReviewAction::Edit)
        editArgs = plan.decision.args;
    // Copied now: the vote that completes the count resolves the item,
    // and `item` is gone after it.
    const std::string itemId = item.id, sessionId = item.sessionId, callId = item.callId,
                      tool = item.toolName;
    const Json shown = item.masked(plan.decision.args);
    const VoteOutcome v = m_queue->vote(itemId, reviewer, editArgs, plan.decision, effective);
    out.approvals = v.approvals;
    out.required = v.required;
    if (!v.ok) {
        out.code = ErrorCode::Forbidden;
        out.message = v.message;
        return out;
    }
    out.ok = true;
    out.later = v.later;
    out.voted = !v.decided;
    out.decision = plan.decision;
    if (v.later)
        return out;
    // The vote is a record of its own: who, how, and which arguments.
    if (Session *session = m_sessions.find(sessionId)) {
        Json fields { { "item", itemId }, { "call_id", callId }, { "tool", tool },
            { "reviewer", reviewer.name }, { "decided_by", reviewer.decidedBy() },
            { "via", reviewer.via }, { "verdict", editArgs ? "edit" : "approve" },
            { "approvals", v.approvals }, { "required", v.required } };
        fields["args"] = shown;
        fields["args_sha256"] = argsDigest(shown);
        if (editArgs)
            fields["edit"] = true;
        // The reviewer hears "voted" once the vote is durable: a crash
        // after it cannot forget a vote someone was told was counted.
        appendRecord("vote", *session, std::move(fields),
            [this, cid = m_reviewingConnection, itemId, approvals = v.approvals,
                required = v.required](bool durable) {
                if (!cid || !m_connections.count(*cid))
                    return;
                if (durable)
                    sendJson(*cid, votedJson(itemId, approvals, required));
                else
                    sendError(*cid, ErrorCode::Forbidden,
                        "the audit log could not record the approval of " + itemId
                            + "; it may not count after a restart");
            });
    }
    return out;
}

std::optional<ConnectionId> Broker::takeAwaitingReview(const std::string &id)
{
    const auto it = m_awaitingReview.find(id);
    if (it == m_awaitingReview.end())
        return std::nullopt;
    const ConnectionId cid = it->second;
    m_awaitingReview.erase(it);
    if (!m_connections.count(cid))
        return std::nullopt;
    return cid;
}

void Broker::onVoteCounted(const std::string &id, int approvals, int required)
{
    if (const auto cid = takeAwaitingReview(id))
        sendJson(*cid, votedJson(id, approvals, required));
}

void Broker::applyDecidedElsewhere(const Review &review, const std::string &decidedBy)
{
    const QueueItem *item = m_queue->find(review.id);
    if (!item)
        return;
    // Planned again here, where the agent's real values are: the reviewer
    // saw and edited masked ones. The items the decision reached elsewhere
    // were decided there, one by one, and arrive the same way.
    ReviewPlan plan = planReview(review, *item, decidedBy);
    if (!plan.ok) {
        Decision d;
        d.kind = DecisionKind::Deny;
        d.decidedBy = decidedBy;
        d.code = "invalid_review";
        d.reason
            = "the decision made by " + decidedBy + " could not be applied here: " + plan.message;
        m_queue->resolve(review.id, ItemState::Decided, std::move(d));
        return;
    }
    if (plan.grant)
        m_grants.add(*plan.grant);
    m_queue->resolve(review.id, ItemState::Decided, plan.decision);
}

void Broker::handleReview(ConnectionId cid, const Review &review)
{
    const auto conn = m_connections.find(cid);
    m_reviewingConnection = cid;
    const ReviewOutcome out = this->review(review, conn->second.reviewer);
    m_reviewingConnection.reset();
    if (!out.ok)
        return sendError(cid, out.code, out.message);
    if (out.voted && !out.later)
        return; // answered once its record is durable (vote())
    // A store that settles decisions later (the team's) may still refuse
    // this one: the reviewer hears once it is settled, either way.
    if (m_queue->find(review.id)) {
        m_awaitingReview[review.id] = cid;
        return;
    }
    sendJson(cid,
        Json { { "type", "reviewed" }, { "id", review.id },
            { "decision", decisionKindName(out.decision.kind) } });
}

void Broker::onReviewRefused(const std::string &id, const std::string &message)
{
    if (const auto cid = takeAwaitingReview(id))
        sendError(*cid, ErrorCode::AlreadyResolved, message);
}

} // namespace holdpoint
