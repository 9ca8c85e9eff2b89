// SPDX-License-Identifier: Apache-2.0
#include "approvals.h"

#include "protocol/decider.h"

#include <algorithm>

namespace holdpoint {

const Json &approvedArgs(const QueueItem &item)
{
    if (item.editedArgs)
        return *item.editedArgs;
    return item.proposedArgs ? *item.proposedArgs : item.args;
}

std::string approvedHash(const QueueItem &item)
{
    return protocol::argsDigest(item.masked(approvedArgs(item)));
}

std::vector<std::string> approvers(const QueueItem &item)
{
    // With on_edit "keep", an approval given before an edit still counts.
    const std::string hash = item.approvals.resetOnEdit ? approvedHash(item) : std::string();
    std::vector<std::string> out;
    for (const protocol::Vote &v : item.votes)
        if ((hash.empty() || v.argsHash == hash)
            && std::find(out.begin(), out.end(), v.reviewer) == out.end())
            out.push_back(v.reviewer);
    return out;
}

int approvalCount(const QueueItem &item)
{
    return int(approvers(item).size());
}

bool hasApproved(const QueueItem &item, const std::string &reviewer)
{
    const std::vector<std::string> names = approvers(item);
    return std::find(names.begin(), names.end(), reviewer) != names.end();
}

std::string approvalRefusal(
    const QueueItem &item, const std::string &reviewer, const std::string &osUser)
{
    if (item.approvals.excludeRequester && !item.requester.empty()
        && (reviewer == item.requester || osUser == item.requester))
        return reviewer + " started this agent (as OS user " + item.requester
            + "), and this call needs approval from someone else";
    if (hasApproved(item, reviewer))
        return reviewer + " approved these arguments already; waiting for someone other than you ("
            + std::to_string(approvalCount(item)) + "/" + std::to_string(item.approvals.required)
            + " approvals)";
    return {};
}

void addVote(QueueItem &item, const std::string &reviewer, const std::string &via, TimeMs at,
    const std::optional<Json> &editArgs)
{
    const Json shown = item.masked(editArgs ? *editArgs : approvedArgs(item));
    applyVote(item,
        protocol::Vote {
            reviewer, via, shown, protocol::argsDigest(shown), editArgs.has_value(), at },
        editArgs);
}

void applyVote(QueueItem &item, protocol::Vote vote, const std::optional<Json> &editArgs)
{
    std::erase_if(item.votes, [&](const protocol::Vote &v) { return v.reviewer == vote.reviewer; });
    if (vote.edit) {
        item.editedArgs = editArgs ? *editArgs : vote.args;
        if (item.approvals.resetOnEdit)
            item.votes.clear();
    }
    item.votes.push_back(std::move(vote));
}

void putApprovalFields(Json &j, const QueueItem &item)
{
    if (!item.approvals.voted())
        return;
    j["approvals"] = protocol::approvalRuleToJson(item.approvals);
    j["approvals_required"] = item.approvals.required;
    j["requester"] = item.requester;
    j["votes"] = protocol::votesToJson(item.votes);
    j["approvals_given"] = approvalCount(item);
    if (item.editedArgs)
        j["edited_args"] = *item.editedArgs;
}

bool approvalsReached(const QueueItem &item)
{
    return approvalCount(item) >= std::max(1, item.approvals.required);
}

std::string approversDecidedBy(const std::vector<std::string> &names)
{
    return protocol::peopleDecidedBy(names);
}

std::vector<std::string> decidersOf(const std::string &decidedBy)
{
    return protocol::peopleIn(decidedBy);
}

} // namespace holdpoint
