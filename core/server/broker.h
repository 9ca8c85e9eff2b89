#pragma once

#include "common/clock.h"
#include "policy/policy.h"
#include "queue/reviewqueue.h"
#include "server/messagehandler.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace holdpoint {

class AuditLog;

struct BrokerConfig
{
    TimeMs defaultTimeoutMs = 300'000;
    TimeMs graceMs = 60'000;
    // The person behind human decisions: decided_by is "human:<reviewerName>".
    std::string reviewerName;
    std::string serverName;
    // Decided calls remembered per session for idempotent re-sends.
    std::size_t rememberedCallsPerSession = 10'000;
    // A session with no connection and nothing pending is forgotten this
    // long after its last activity; its call_ids are new calls after that.
    TimeMs sessionRetentionMs = 600'000;
};

// What recover() restored from the audit log.
struct RecoveryReport
{
    int sessions = 0;
    int pending = 0;   // back in the queue
    int decided = 0;   // answerable again to a re-send
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
};

struct ReviewOutcome
{
    bool ok = false;
    protocol::ErrorCode code = protocol::ErrorCode::UnknownItem;
    std::string message;
    protocol::Decision decision;
};

// The decision logic behind the endpoint: sessions, call_id idempotency,
// escalation to the queue, delivery of decisions, and the reviewer role
// (PROTOCOL.md "Calls and decisions", "Reviewer role").
class Broker final : public QObject, public MessageHandler
{
    Q_OBJECT
public:
    Broker(ReviewQueue *queue, Outbound *outbound, BrokerConfig config, QObject *parent = nullptr);
    ~Broker() override;

    HelloOutcome onHello(ConnectionId connection, const protocol::Hello &hello) override;
    void onMessage(ConnectionId connection, protocol::Message &&message) override;
    void onDisconnected(ConnectionId connection) override;

    // A reviewer's decision on a pending item, from the UI or the reviewer
    // role. `decidedBy` is what the agent will see, e.g. "human:alice".
    ReviewOutcome review(const protocol::Review &review, const std::string &decidedBy);
    std::string humanDecider() const { return "human:" + m_config.reviewerName; }

    // Every call and decision is recorded there, and a decision reaches the
    // agent only once its record is on disk. Without one (unit tests),
    // decisions go out at once.
    void setAuditLog(AuditLog *audit);
    // Rebuilds sessions, pending items and decided calls from the records in
    // `auditDir` (after a crash or a restart). Before any connection.
    RecoveryReport recover(const QString &auditDir, TimeMs recordsSince);

    // Takes effect for calls received from now on.
    void setPolicy(Policy policy) { m_policy = std::move(policy); }
    const Policy &policy() const { return m_policy; }

    int agentConnections() const;
    std::vector<SessionInfo> sessionsInfo() const;
    int reviewerConnections() const { return int(m_reviewers.size()); }
    int sessionCount() const { return int(m_sessions.size()); }
    const BrokerConfig &config() const { return m_config; }

Q_SIGNALS:
    void connectionsChanged();
    // A call, decision or after-call record as written to the audit log
    // (with "event" and "ts"), for views of turns and history.
    void activity(const Json &record);

private:
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
    struct Call
    {
        QByteArray digest;              // SHA-256 of tool_name and args, for conflict checks
        std::unique_ptr<RanCall> ran;
        std::string toolName;
        std::string itemId;             // while pending
        std::string decisionText;       // once decided: the exact message sent
        protocol::DecisionKind kind = protocol::DecisionKind::Deny;
        bool durable = true;            // the decision's record is on disk
        std::unordered_set<ConnectionId> waiters;
        TimeMs orphanedAt = NoDeadline; // pending and nobody waiting since then
        std::unique_ptr<MaskedCall> masked;
        bool decided() const { return !decisionText.empty(); }
    };
    struct Session
    {
        std::string id;
        protocol::AgentInfo agent;
        std::unordered_set<ConnectionId> connections;
        std::unordered_map<std::string, Call> calls;
        std::deque<std::string> decidedOrder;
        std::optional<std::string> currentTurn;
        TimeMs lastActivity = 0;
    };
    // A reviewer's approve or deny for the same tool's later calls in a
    // turn (turnId set) or a whole session.
    struct Grant
    {
        std::string sessionId;
        std::optional<std::string> turnId;
        std::string toolName;
        protocol::DecisionKind kind = protocol::DecisionKind::Deny;
        std::string reason;
        std::string decidedBy;
    };
    struct Connection
    {
        protocol::Role role = protocol::Role::Agent;
        std::string sessionId;
    };

    void handleToolCall(ConnectionId cid, Session &session, protocol::ToolCall &&call);
    void handleToolResult(ConnectionId cid, Session &session, const protocol::ToolResult &result);
    void handleCancel(ConnectionId cid, Session &session, const protocol::Cancel &cancel);
    void handleReview(ConnectionId cid, const protocol::Review &review);
    void onResolved(const QueueItem &item);
    // Records a call's decision, sends it to whoever waits, and keeps the
    // session's memory of decided calls bounded.
    // `record` holds the audit fields only the caller knows (tool, item,
    // state, masked args...).
    void finishCall(Session &session, const std::string &callId, const protocol::Decision &decision,
                    std::unique_ptr<RanCall> ran, Json record);
    void deliver(const std::string &sessionId, const std::string &callId, bool durable, bool refusedForAudit);
    // Appends a record about a call; `done` as in AuditLog::append.
    void audit(std::string_view event, const Session &session, Json fields, std::function<void(bool)> done = {},
               TimeMs at = -1);
    bool auditUnavailable() const;
    // The deny every decision becomes while the audit log cannot be written.
    protocol::Decision auditRefusal() const;
    void sendConflict(ConnectionId cid, const std::string &callId);
    // A decided call asked for again: its recorded decision, and a record of that.
    void redeliver(ConnectionId cid, Session &session, const std::string &callId, const Call &call);
    // Another connection of the session waits for a pending call.
    void reattach(ConnectionId cid, Call &call);
    const Grant *findGrant(const std::string &sessionId, const std::optional<std::string> &turnId,
                           const std::string &toolName) const;
    bool attachMasked(ConnectionId cid, Session &session, Call &call, const protocol::ToolCall &resent);
    void onAdded(int row);
    void abandonOrphans();
    void rearmGrace();
    // Forgets idle sessions past their retention (bounded memory).
    void expireIdleSessions();
    void rearmExpiry();
    void sendWelcome(ConnectionId cid, const HelloOutcome &outcome);
    void sendPending(ConnectionId cid, const QueueItem &item);
    void sendJson(ConnectionId cid, const Json &j);
    void sendError(ConnectionId cid, protocol::ErrorCode code, const std::string &message,
                   const std::string &callId = {});
    void broadcastToReviewers(const Json &j);
    std::string newSessionId() const;

    ReviewQueue *m_queue;
    Outbound *m_outbound;
    AuditLog *m_audit = nullptr;
    BrokerConfig m_config;
    Policy m_policy;
    Alarm m_graceAlarm;
    Alarm m_expiryAlarm;
    QTimer m_trim;
    std::set<std::pair<TimeMs, std::string>> m_idle; // (idle since, session id)
    std::unordered_map<ConnectionId, Connection> m_connections;
    std::unordered_set<ConnectionId> m_reviewers;
    std::unordered_map<std::string, Session> m_sessions;
    std::set<std::pair<TimeMs, std::string>> m_orphans; // (orphaned at, item id)
    std::vector<Grant> m_grants;
};

} // namespace holdpoint
