// SPDX-License-Identifier: Apache-2.0
#pragma once

// Counting approvals on an item that needs more than one person
// (protocol::ApprovalRule, PROTOCOL.md "Approvals"). Pure functions over a
// QueueItem: the in-memory queue applies them, and the team database
// applies the same rules in its `review` function.
//
// An approval approves the item's arguments as they stand: the latest
// reviewer's edit, else the guardrails' proposal, else the call's own. Votes
// compare by the SHA-256 of those arguments as reviewers see them (masked),
// so a gateway and a console far from it hash the same thing.

#include "queue/queueitem.h"

#include <string>
#include <vector>

namespace holdpoint {

const Json &approvedArgs(const QueueItem &item);
std::string approvedHash(const QueueItem &item);
// Distinct reviewers whose approval is of the arguments as they stand (with
// on_edit "keep": whose approval is of any arguments the item had).
int approvalCount(const QueueItem &item);
// Those reviewers, in the order they approved.
std::vector<std::string> approvers(const QueueItem &item);
bool hasApproved(const QueueItem &item, const std::string &reviewer);
// Why `reviewer` may not approve the item now (they started the agent, or
// approved these arguments already); empty when they may.
// `osUser` is the OS user the reviewer is known to be, when any.
std::string approvalRefusal(
    const QueueItem &item, const std::string &reviewer, const std::string &osUser = {});
// Adds `reviewer`'s approval of the arguments as they stand, or, with
// `editArgs`, of those arguments, which become the item's proposal (with
// on_edit "reset", every other approval is void). A reviewer's earlier vote
// is replaced: one vote per person.
void addVote(QueueItem &item, const std::string &reviewer, const std::string &via, TimeMs at,
    const std::optional<Json> &editArgs);
// The same for a vote already made (one read back from the audit log): an
// edit's arguments are `editArgs` when given (real values), else the
// vote's own.
void applyVote(
    QueueItem &item, protocol::Vote vote, const std::optional<Json> &editArgs = std::nullopt);
// An item's approval fields as reviewers see them (PROTOCOL.md "Approvals"),
// put into `j`; nothing for an item one person decides.
void putApprovalFields(Json &j, const QueueItem &item);
bool approvalsReached(const QueueItem &item);
// decided_by of a decision several people approved: "human:alice,human:bob".
std::string approversDecidedBy(const std::vector<std::string> &names);
// Every person named in a decided_by, in order: ["alice", "bob"] (protocol/decider.h).
std::vector<std::string> decidersOf(const std::string &decidedBy);

} // namespace holdpoint
