// SPDX-License-Identifier: Apache-2.0
#pragma once

// One escalated call as the queue keeps it and reviewers see it.

#include "common/clock.h"
#include "common/redaction.h"
#include "protocol/protocol.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

enum class ItemState
{
    Pending,
    Decided,
    TimedOut,
    Cancelled,
    Abandoned
};
std::string_view itemStateName(ItemState state);

// Where a team item waits (core/team/TEAM.md): the host and gateway that
// hold its agent, whether that gateway is alive, and who is editing it.
struct TeamPlace
{
    std::string host;
    std::string gateway;
    bool local = false; // this process holds the agent
    bool online = true; // the gateway's heartbeat is fresh
    std::string editingBy; // a reviewer holding the editor lease
};

// One escalated call. `args` are the agent's original arguments; a
// reviewer's edit travels in the decision, never overwrites them.
struct QueueItem
{
    std::string id;
    std::string callId;
    std::string sessionId;
    protocol::AgentInfo agent;
    std::string toolName;
    Json args;
    Json context;
    Json annotations;
    std::optional<std::string> turnId;
    // The arguments as guardrails left them, when they rewrote any, and the
    // RFC 6902 patch from `args` to them. Approving runs these.
    std::optional<Json> proposedArgs;
    Json patch;
    // Secrets found in the call: everything people see of the item is
    // masked with these; the agent still runs with the real values.
    std::vector<Redaction> redactions;
    std::string reason; // why it was escalated
    Json trail = Json::array(); // each guardrail's verdict, in order
    std::vector<protocol::Warning> warnings;
    // What guardrails have found about the call's turn (loop detection's
    // patterns), kept current while the item waits.
    std::vector<protocol::TurnFinding> turnFindings;
    TimeMs receivedAt = 0;
    TimeMs deadline = NoDeadline;
    // Set by the queue: the order items arrived in, unique among them.
    std::uint64_t arrival = 0;

    ItemState state = ItemState::Pending;
    bool agentConnected = true;
    // Restored from the audit log after a restart with its secrets masked:
    // `args` hold placeholders until the agent re-sends the call.
    bool secretsPending = false;
    // Kept by ReviewQueue for filtering (queuefilter.h); lowercase.
    std::string searchText;
    int risk = 0;
    unsigned hiddenText = 0; // hiddenTextOf(*this), kept by ReviewQueue
    // How many people must approve, who asked (the agent's OS user, for
    // exclude_requester), and the approvals given so far (approvals.h).
    protocol::ApprovalRule approvals;
    std::string requester;
    std::vector<protocol::Vote> votes;
    // The latest edit a reviewer proposed, real values: what an approval
    // approves now, until another edit.
    std::optional<Json> editedArgs;

    std::optional<protocol::Decision> decision; // set once no longer pending
    std::optional<TeamPlace> team; // set in team mode

    // A value of this item (its args, a patch, a decision's args) as a
    // person may see it: with this item's secrets masked.
    Json masked(const Json &value) const { return maskJson(value, redactions); }
};

// The item as reviewers see it on the wire (PROTOCOL.md "Reviewer role"),
// with its secrets masked.
Json itemToJson(const QueueItem &item);
// HiddenText flags (common/visibletext.h) of what reviewers see of the
// item: its tool name, arguments, proposed arguments, context, annotations
// and the agent's name and framework.
unsigned hiddenTextOf(const QueueItem &item);

} // namespace holdpoint
