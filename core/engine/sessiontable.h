// SPDX-License-Identifier: Apache-2.0
#pragma once

// The agent sessions the engine knows: their connections, their calls by
// call_id (pending or decided, for idempotent re-sends), and the two clocks
// that end them: the grace period of a call nobody waits for any more
// (PROTOCOL.md "Disconnects and resuming") and the retention of an idle
// session.

#include "common/clock.h"
#include "common/json.h"
#include "common/sha256.h"
#include "engine/consoletypes.h"
#include "engine/grants.h"
#include "engine/haltedturn.h"
#include "protocol/protocol.h"
#include "server/messagehandler.h"

#include <QObject>
#include <QVarLengthArray>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace holdpoint {

// What after-call guardrails need about a call that was allowed to run;
// kept only until its tool_result arrives.
struct RanCall
{
    std::string toolName;
    Json args; // as the agent was told to run it
    Json annotations;
    Json context;
    std::optional<std::string> turnId;
};

// A call restored from the audit log whose args held secrets: the log
// has them masked, so the real values come back with the agent's re-send.
struct MaskedCall
{
    Json maskedArgs;
    Json decision; // decided: the decision message with masked args
};

// The connections waiting for one call's decision: nearly always one, so
// they live inline (a hash set cost two allocations per call).
class Waiters
{
public:
    bool insert(ConnectionId id)
    {
        if (contains(id))
            return false;
        m_ids.push_back(id);
        return true;
    }
    std::size_t erase(ConnectionId id)
    {
        const auto it = std::find(m_ids.begin(), m_ids.end(), id);
        if (it == m_ids.end())
            return 0;
        m_ids.erase(it);
        return 1;
    }
    bool contains(ConnectionId id) const
    {
        return std::find(m_ids.begin(), m_ids.end(), id) != m_ids.end();
    }
    bool empty() const { return m_ids.isEmpty(); }
    std::size_t size() const { return std::size_t(m_ids.size()); }
    void clear() { m_ids.clear(); }
    const ConnectionId *begin() const { return m_ids.cbegin(); }
    const ConnectionId *end() const { return m_ids.cend(); }

private:
    QVarLengthArray<ConnectionId, 2> m_ids;
};

struct Call
{
    Sha256Digest digest {}; // callDigest() of tool_name and args
    std::unique_ptr<RanCall> ran;
    std::string toolName;
    std::string itemId; // while pending
    std::string decisionText; // once decided: the exact message sent
    protocol::DecisionKind kind = protocol::DecisionKind::Deny;
    bool durable = true; // the decision's record is on disk
    Waiters waiters;
    // Re-sends from a waiter while the escalation was being written: each
    // is answered `pending` once it is on disk.
    std::vector<ConnectionId> pendingOwed;
    TimeMs orphanedAt = NoDeadline; // pending and nobody waiting since then
    std::unique_ptr<MaskedCall> masked;
    std::size_t weight = 0; // what it counts in Session::decidedBytes
    bool decided() const { return !decisionText.empty(); }
};

struct Session
{
    std::string id;
    protocol::AgentInfo agent;
    std::unordered_set<ConnectionId> connections;
    std::unordered_map<std::string, Call> calls;
    std::deque<std::string> decidedOrder;
    std::size_t decidedBytes = 0; // the weights of the calls in decidedOrder
    std::optional<std::string> currentTurn;
    std::optional<HaltedTurn> halted; // the turn a halt stopped, until it ends
    TimeMs lastActivity = 0;
};

struct SessionLimits
{
    TimeMs graceMs = 60'000;
    // Decided calls remembered per session for idempotent re-sends.
    std::size_t rememberedCalls = 10'000;
    // A session with no connection and nothing pending is forgotten this
    // long after its last activity; its call_ids are new calls after that.
    TimeMs retentionMs = 600'000;
    // And at most about this much memory for them (SessionTable::weigh).
    std::size_t rememberedBytes = 64 * 1024 * 1024;
};

class SessionTable final : public QObject
{
    Q_OBJECT
public:
    SessionTable(Clock *clock, SessionLimits limits, QObject *parent = nullptr);
    ~SessionTable() override;

    Session *find(const std::string &id);
    const std::unordered_map<std::string, Session> &all() const { return m_sessions; }
    std::size_t size() const { return m_sessions.size(); }
    // The session `id` (a new random one when empty), created if unknown.
    // Returns it and whether it existed.
    std::pair<Session *, bool> open(std::string id);
    // A session brought back from the audit log, with nobody connected;
    // created if unknown. Returns it and whether it was created.
    std::pair<Session *, bool> restore(const std::string &id, const protocol::AgentInfo &agent);

    // A connection of the session's agent went away. Returns the pending
    // items that nobody waits for now: their grace period has started.
    std::vector<std::string> detach(Session &session, ConnectionId connection);
    // Nobody waits for this pending call any more: the grace period starts.
    void orphan(Call &call, TimeMs since);
    // Someone waits for it again, or it was decided.
    void adopt(Call &call);
    // The session's decided calls beyond the limits are forgotten, oldest
    // first, once their decisions reached the disk and the agent; a
    // tool_result for one forgotten is an unknown call.
    void recordDecided(Session &session, const std::string &callId);
    // A decided call let go of its RanCall or changed its decision text.
    void reweigh(Session &session, Call &call);
    // About the memory a decided call holds: its decision text, and,
    // while they wait for the after-call checks, the parsed args, context
    // and annotations it ran with.
    static std::size_t weigh(const Call &call);
    // After restoring: forget what is beyond the limits, arm the clocks.
    void settle();
    // Every session as the Agents view shows it, the most recently active
    // first: `pendingPerSession` counts their queued items.
    std::vector<SessionInfo> describe(
        const std::unordered_map<std::string, int> &pendingPerSession, const Grants &grants) const;

Q_SIGNALS:
    // The grace period of a pending item ran out with nobody waiting.
    void abandoned(const std::string &itemId);
    void forgotten(const std::string &sessionId);

private:
    void abandonOrphans();
    void rearmGrace();
    void expireIdle();
    void rearmExpiry();
    void trim(Session &session);
    std::string newSessionId() const;

    Clock *m_clock;
    SessionLimits m_limits;
    Alarm m_graceAlarm;
    Alarm m_expiryAlarm;
    std::unordered_map<std::string, Session> m_sessions;
    std::set<std::pair<TimeMs, std::string>> m_idle; // (idle since, session id)
    std::set<std::pair<TimeMs, std::string>> m_orphans; // (orphaned at, item id)
};

} // namespace holdpoint
