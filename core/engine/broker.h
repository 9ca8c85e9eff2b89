// SPDX-License-Identifier: Apache-2.0
#pragma once

// The engine's message handling: what the endpoint's authenticated messages
// do (PROTOCOL.md "Calls and decisions", "Reviewer role"). The rooms it
// composes each own one concern: sessiontable.h (sessions, calls, grace and
// idle expiry), grants.h (standing decisions), reviewdecision.h (a
// reviewer's answer, pure), recovery.h (the audit log read back),
// callrecords.h (every record, queue item and engine-made decision of a
// call) and brokermessages.h (what connections are told besides decisions).
// What is left here is dispatch: who hears what, and in which order.

#include "common/clock.h"
#include "engine/callrecords.h"
#include "engine/consoletypes.h"
#include "engine/grants.h"
#include "engine/recovery.h"
#include "engine/sessiontable.h"
#include "policy/policy.h"
#include "queue/queuestore.h"
#include "server/messagehandler.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace holdpoint {

class AuditLog;

// One step of a call's life, as its audit record says, without the record:
// what metrics count. Views into the broker's own data, valid during the
// signal only.
struct CallEvent
{
    enum class Step
    {
        Received,
        Escalated,
        Decided,
        Delivered
    };
    Step step = Step::Received;
    std::string_view sessionId;
    std::string_view callId;
    protocol::DecisionKind decision = protocol::DecisionKind::Deny; // Decided, Delivered
    std::string_view decidedBy; // Decided
    std::string_view state; // Decided: "auto" or the queued item's final state
    bool again = false; // Delivered: a re-send answered from memory
};

class Broker final : public QObject, public MessageHandler
{
    Q_OBJECT
public:
    Broker(QueueStore *queue, Clock *clock, Outbound *outbound, BrokerConfig config,
        QObject *parent = nullptr);
    ~Broker() override;

    HelloOutcome onHello(ConnectionId connection, const protocol::Hello &hello) override;
    void onMessage(ConnectionId connection, protocol::Message &&message) override;
    void onDisconnected(ConnectionId connection) override;

    // A reviewer's decision on a pending item, from the UI or the reviewer
    // role. `decidedBy` is what the agent will see, e.g. "human:alice".
    ReviewOutcome review(const protocol::Review &review, const ReviewerIdentity &reviewer);
    // This console's own reviewer, at its window.
    ReviewerIdentity consoleReviewer() const
    {
        return { m_config.reviewerName, "console", m_config.osUser };
    }

    // The reviewer page's requests (pair, sessions, revoke) from a reviewer
    // connection: the answer, or null with `error` set. Unset: no page.
    using WebHandler = holdpoint::WebHandler;
    void setWebHandler(WebHandler handler) { m_webHandler = std::move(handler); }

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
    // The same steps, cheaply, for counting (engine/consolemetrics.h).
    void callEvent(const holdpoint::CallEvent &event);

private:
    struct Connection
    {
        protocol::Role role = protocol::Role::Agent;
        std::string sessionId;
        ReviewerIdentity reviewer; // a reviewer connection's, from its token
    };

    void handleToolCall(ConnectionId cid, Session &session, protocol::ToolCall &&call);
    // A call_id the session used before: re-sent, conflicting, or restored.
    void handleKnownCall(ConnectionId cid, Session &session, Call &existing,
        const protocol::ToolCall &call, const Sha256Digest &digest);
    ChainOutcome screen(const Session &session, const protocol::ToolCall &call, TimeMs now) const;
    void escalate(Session &session, protocol::ToolCall &&call, ChainOutcome &&outcome, TimeMs now);
    void handleToolResult(ConnectionId cid, Session &session, const protocol::ToolResult &result);
    void handleCancel(ConnectionId cid, Session &session, const protocol::Cancel &cancel);
    void handleReview(ConnectionId cid, const protocol::Review &review);
    // The reviewer connection waiting to hear about item `id`, if still there.
    std::optional<ConnectionId> takeAwaitingReview(const std::string &id);
    // An approval of an item that needs several (ApprovalRule::voted).
    ReviewOutcome vote(
        const protocol::Review &review, const QueueItem &item, const ReviewerIdentity &reviewer);
    void onVoteCounted(const std::string &id, int approvals, int required);
    void onItemAdded(const QueueItem &item);
    // A reviewer elsewhere decided one of this process's items (team mode).
    void applyDecidedElsewhere(const protocol::Review &review, const std::string &decidedBy);
    void onReviewRefused(const std::string &id, const std::string &message);
    // Puts the turn's findings, as the chain sees them now, on its pending items.
    void refreshTurnFindings(
        const std::string &sessionId, const std::optional<std::string> &turnId);
    void onResolved(const QueueItem &item);
    void onAbandoned(const std::string &itemId);
    // Records a call's decision, sends it to whoever waits, and keeps the
    // session's memory of decided calls bounded. `fields` holds the audit
    // fields only the caller knows (tool, item, state, masked args...).
    // A halt halts the rest of the call's turn (engine/haltedturn.h).
    void finishCall(Session &session, Call &call, const std::string &callId,
        const std::optional<std::string> &turnId, const protocol::Decision &decision,
        std::unique_ptr<RanCall> ran, const DecisionFields &fields);
    void deliver(const std::string &sessionId, const std::string &callId, bool durable,
        bool refusedForAudit);
    // Appends a record about a call of `session`; `done` as in AuditLog::append.
    void appendRecord(std::string_view event, const Session &session, Json fields,
        std::function<void(bool)> done = {}, TimeMs at = -1);
    // The same for the record written into m_record (engine/callrecords.h);
    // `fields`, if given, is it as a tree, for the activity signal.
    void appendWritten(std::string_view event, std::function<void(bool)> done = {}, TimeMs at = -1,
        Json *fields = nullptr);
    bool auditUnavailable() const;
    // The deny every decision becomes while the audit log cannot be written.
    protocol::Decision auditRefusal() const;
    void sendConflict(ConnectionId cid, const std::string &callId);
    // A decided call asked for again: its recorded decision, and a record of
    // that; sent once the decision's record is on disk, never before.
    void redeliver(ConnectionId cid, Session &session, const std::string &callId, Call &call);
    // Another connection of the session waits for a pending call.
    void reattach(ConnectionId cid, Call &call);
    void attachMasked(
        ConnectionId cid, Session &session, Call &call, const protocol::ToolCall &resent);
    void sendJson(ConnectionId cid, const Json &j);
    void sendError(ConnectionId cid, protocol::ErrorCode code, const std::string &message,
        const std::string &callId = {});
    void broadcastToReviewers(const Json &j);

    QueueStore *m_queue;
    // The record or message being written: reused, so writing one costs no
    // allocation once it has grown.
    std::string m_record;
    WebHandler m_webHandler;
    Clock *m_clock;
    Outbound *m_outbound;
    AuditLog *m_audit = nullptr;
    BrokerConfig m_config;
    Policy m_policy;
    SessionTable m_sessions;
    Grants m_grants;
    QTimer m_trim;
    std::unordered_map<ConnectionId, Connection> m_connections;
    std::unordered_set<ConnectionId> m_reviewers;
    // Reviews a store settles later (team mode): who to answer, per item.
    std::unordered_map<std::string, ConnectionId> m_awaitingReview;
    // The reviewer connection whose review is being handled, if any.
    std::optional<ConnectionId> m_reviewingConnection;
    // Turns whose findings the queue was last given, so a result that
    // changes nothing costs no walk over the queue. Only a saving: the store
    // itself ignores findings an item already has.
    std::map<std::pair<std::string, std::string>, std::vector<protocol::TurnFinding>>
        m_turnFindings;
};

} // namespace holdpoint
