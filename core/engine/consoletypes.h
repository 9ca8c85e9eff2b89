// SPDX-License-Identifier: Apache-2.0
#pragma once

// The words the console's face (consolecore.h) speaks beyond the queue's and
// the protocol's: the broker's settings, what became of a review, an agent
// session as the Agents view shows it, what a restart restored, and the
// reviewer page's handler. Apart from the broker, its rooms and the
// endpoint, so that a view of the console (the window) needs none of them.

#include "common/clock.h"
#include "common/json.h"
#include "protocol/protocol.h"
#include "queue/queuestore.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

struct BrokerConfig
{
    TimeMs defaultTimeoutMs = 300'000;
    TimeMs graceMs = 60'000;
    // The person behind human decisions: decided_by is "human:<reviewerName>".
    std::string reviewerName;
    // The OS user this console runs as: the requester of an agent that does
    // not say which user it runs as (ApprovalRule::excludeRequester).
    std::string osUser;
    std::string serverName;
    // The endpoint's cap on one message, told to clients in welcome so they
    // can refuse a larger call themselves instead of being cut off mid-send.
    std::int64_t maxMessageBytes = 1024 * 1024;
    // Decided calls remembered per session for idempotent re-sends, and
    // about the most memory they may hold (SessionTable::weigh).
    std::size_t rememberedCallsPerSession = 10'000;
    std::size_t rememberedBytesPerSession = 64 * 1024 * 1024;
    // A session with no connection and nothing pending is forgotten this
    // long after its last activity; its call_ids are new calls after that.
    TimeMs sessionRetentionMs = 600'000;
};

struct ReviewOutcome
{
    bool ok = false;
    // An approval counted toward several (the item waits for more), or one
    // the store settles later.
    bool voted = false;
    bool later = false;
    int approvals = 0;
    int required = 0;
    protocol::ErrorCode code = protocol::ErrorCode::UnknownItem;
    std::string message;
    protocol::Decision decision;
};

// An agent session as the Agents view shows it.
struct SessionInfo
{
    std::string id;
    protocol::AgentInfo agent;
    int connections = 0;
    int pending = 0;
    TimeMs lastActivity = 0;
    std::optional<std::string> currentTurn;
    std::vector<std::string> grants; // what reviewers decided for the rest of a turn or the session
    // Team mode: another gateway's session (its id is "<gateway>/<session>").
    std::string host; // that gateway's host; empty for this console's own
    bool hostOnline = true; // its heartbeat is fresh
};

// What restoreCalls() put back.
struct RecoveryReport
{
    int sessions = 0;
    int pending = 0; // back in the queue
    int decided = 0; // answerable again to a re-send
};

// The reviewer page's answers to holdpoint-ctl web (Broker::setWebHandler).
using WebHandler = std::function<Json(
    const ReviewerIdentity &, const protocol::WebRequest &, std::string *error)>;

} // namespace holdpoint
