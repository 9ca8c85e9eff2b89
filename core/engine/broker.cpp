// SPDX-License-Identifier: Apache-2.0
#include "broker.h"

#include "audit/auditlog.h"
#include "engine/brokermessages.h"
#include "engine/callrecords.h"
#include "engine/recovery.h"
#include "engine/reviewdecision.h"
#include "guardrails/chain.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace holdpoint {

using namespace protocol;

Broker::Broker(
    QueueStore *queue, Clock *clock, Outbound *outbound, BrokerConfig config, QObject *parent)
    : QObject(parent)
    , m_queue(queue)
    , m_clock(clock)
    , m_outbound(outbound)
    , m_config(std::move(config))
    , m_sessions(clock,
          SessionLimits { m_config.graceMs, m_config.rememberedCallsPerSession,
              m_config.sessionRetentionMs, m_config.rememberedBytesPerSession })
{
    // Once things go quiet after sessions were forgotten or connections
    // closed, what they used goes back to the system, not just to malloc:
    // a console that served a burst returns near its resting size.
    m_trim.setSingleShot(true);
    m_trim.setInterval(2000);
    connect(&m_trim, &QTimer::timeout, this, [] {
#ifdef __GLIBC__
        malloc_trim(0);
#endif
    });
    connect(m_queue, &QueueStore::resolved, this, &Broker::onResolved);
    connect(m_queue, &QueueStore::itemAdded, this, &Broker::onItemAdded);
    connect(m_queue, &QueueStore::decidedElsewhere, this, &Broker::applyDecidedElsewhere);
    connect(m_queue, &QueueStore::reviewRefused, this, &Broker::onReviewRefused);
    connect(m_queue, &QueueStore::voteCounted, this, &Broker::onVoteCounted);
    connect(m_queue, &QueueStore::itemUpdated, this, [this](const QueueItem &item) {
        if (!m_reviewers.empty())
            broadcastToReviewers(updatedMessage(item));
    });
    connect(m_queue, &QueueStore::availabilityChanged, this, [this] {
        if (const auto link = m_queue->link())
            broadcastToReviewers(teamStateMessage(*link));
    });
    connect(&m_sessions, &SessionTable::abandoned, this, &Broker::onAbandoned);
    connect(&m_sessions, &SessionTable::forgotten, this, [this](const std::string &sessionId) {
        m_grants.forgetSession(sessionId);
        m_trim.start();
    });
}

Broker::~Broker() = default;

void Broker::setAuditLog(AuditLog *audit)
{
    m_audit = audit;
    // Reviewers learn at once when decisions start being refused, and when
    // they stop.
    connect(
        audit, &AuditLog::availabilityChanged, this, [this](bool available, const QString &error) {
            broadcastToReviewers(auditStateMessage(available, error));
        });
}

bool Broker::auditUnavailable() const
{
    return m_audit && !m_audit->available();
}

Decision Broker::auditRefusal() const
{
    return holdpoint::auditRefusal(m_audit->lastError());
}

void Broker::sendConflict(ConnectionId cid, const std::string &callId)
{
    sendJson(cid, callIdConflictMessage(callId));
}

void Broker::reattach(ConnectionId cid, Call &call)
{
    const bool waiting = !call.waiters.insert(cid);
    m_sessions.adopt(call);
    m_queue->setAgentConnected(call.itemId, true);
    if (const QueueItem *item = m_queue->find(call.itemId))
        sendJson(cid, pendingMessage(*item));
    else if (waiting && m_queue->findAny(call.itemId))
        call.pendingOwed.push_back(cid); // answered when the escalation is on disk
}

int Broker::agentConnections() const
{
    return int(m_connections.size() - m_reviewers.size());
}

std::vector<SessionInfo> Broker::sessionsInfo() const
{
    return m_sessions.describe(m_queue->pendingPerSession(), m_grants);
}

HelloOutcome Broker::onHello(ConnectionId cid, const Hello &hello)
{
    HelloOutcome out;
    if (hello.role == Role::Reviewer) {
        // The endpoint names who a reviewer token stands for; the data
        // directory's own token is the console's reviewer's.
        m_connections[cid] = Connection { Role::Reviewer, {},
            hello.reviewerName.empty()
                ? ReviewerIdentity { m_config.reviewerName,
                    "reviewer token (" + hello.agent.name + ")", m_config.osUser }
                : ReviewerIdentity { hello.reviewerName,
                    "reviewer credential (" + hello.agent.name + ")", hello.reviewerOsUser } };
        m_reviewers.insert(cid);
        out.sessionId = "reviewer-" + std::to_string(cid);
        // A reviewer hears who its token says it is.
        sendJson(cid,
            welcomeMessage(out, m_config.serverName, m_config.maxMessageBytes,
                m_connections[cid].reviewer.name));
        sendJson(cid, queueMessage(*m_queue));
        if (auditUnavailable())
            sendJson(cid, auditStateMessage(false, m_audit->lastError()));
        Q_EMIT connectionsChanged();
        return out;
    }

    auto [session, resumed] = m_sessions.open(hello.sessionId.value_or(std::string()));
    session->agent = hello.agent;
    session->connections.insert(cid);
    session->lastActivity = m_clock->now();
    m_connections[cid] = Connection { Role::Agent, session->id, {} };
    out.sessionId = session->id;
    out.resumed = resumed;
    sendJson(cid, welcomeMessage(out, m_config.serverName, m_config.maxMessageBytes, std::nullopt));
    Q_EMIT connectionsChanged();
    return out;
}

void Broker::onMessage(ConnectionId cid, Message &&message)
{
    auto connIt = m_connections.find(cid);
    if (connIt == m_connections.end())
        return; // not through hello: the endpoint never lets this happen
    const Connection &conn = connIt->second;

    if (auto *review = std::get_if<Review>(&message)) {
        if (conn.role != Role::Reviewer)
            return sendError(cid, ErrorCode::Forbidden,
                "review: only a connection that said hello as role "
                "\"reviewer\" with the reviewer token may decide");
        return handleReview(cid, *review);
    }
    if (auto *web = std::get_if<WebRequest>(&message)) {
        if (conn.role != Role::Reviewer)
            return sendError(cid, ErrorCode::Forbidden,
                "web: only a reviewer connection may ask about the reviewer page");
        if (!m_webHandler)
            return sendError(cid, ErrorCode::Forbidden,
                "web: this console serves no reviewer page; start it with --web 127.0.0.1:8765");
        std::string error;
        Json answer = m_webHandler(conn.reviewer, *web, &error);
        if (answer.is_null())
            return sendError(cid, ErrorCode::Forbidden, "web: " + error);
        answer["type"] = "web";
        return sendJson(cid, answer);
    }
    if (std::holds_alternative<Hello>(message))
        return sendError(
            cid, ErrorCode::DuplicateHello, "hello: this connection already said hello");
    if (conn.role != Role::Agent)
        return sendError(cid, ErrorCode::Forbidden,
            "type: a reviewer connection may only send review and web messages");

    Session *session = m_sessions.find(conn.sessionId);
    if (!session)
        return;
    session->lastActivity = m_clock->now();

    std::visit(
        [&](auto &&m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, ToolCall>) {
                handleToolCall(cid, *session, std::move(m));
            } else if constexpr (std::is_same_v<T, ToolResult>) {
                handleToolResult(cid, *session, m);
            } else if constexpr (std::is_same_v<T, Cancel>) {
                handleCancel(cid, *session, m);
            } else if constexpr (std::is_same_v<T, TurnStart>) {
                session->currentTurn = m.turnId;
                m_policy.chain->onTurnStart(session->id, m.turnId);
                refreshTurnFindings(session->id, m.turnId);
            } else if constexpr (std::is_same_v<T, TurnEnd>) {
                if (session->currentTurn == m.turnId)
                    session->currentTurn.reset();
                if (session->halted && session->halted->turnId == m.turnId)
                    session->halted.reset();
                m_grants.endTurn(session->id, m.turnId);
                m_policy.chain->onTurnEnd(session->id, m.turnId);
            }
        },
        message);
}

void Broker::handleKnownCall(ConnectionId cid, Session &session, Call &existing,
    const ToolCall &call, const Sha256Digest &digest)
{
    if (existing.masked)
        return attachMasked(cid, session, existing, call);
    if (existing.digest != digest)
        return sendConflict(cid, call.callId);
    if (existing.decided())
        return redeliver(cid, session, call.callId, existing);
    // Still pending: the same item, never a second one.
    reattach(cid, existing);
}

ChainOutcome Broker::screen(const Session &session, const ToolCall &call, TimeMs now) const
{
    const CallView view { session.id, session.agent, call.callId, call.toolName, call.args,
        call.annotations, call.context, call.turnId };
    // Answers the call without asking anyone or any guardrail.
    auto refused = [&](Action action, Decision &&d) {
        ChainOutcome outcome;
        outcome.action = action;
        outcome.decidedBy = std::move(d.decidedBy);
        outcome.code = std::move(d.code);
        outcome.reason = std::move(d.reason);
        outcome.redactions = m_policy.chain->redactions(view);
        return outcome;
    };
    // With no audit log to write to, nothing may run.
    if (auditUnavailable())
        return refused(Action::Deny, auditRefusal());
    // The rest of a halted turn is halted.
    if (session.halted && inHaltedTurn(*session.halted, call.turnId))
        return refused(Action::Halt, haltedTurnDecision(*session.halted));
    ChainOutcome outcome = m_policy.chain->beforeCall(view, { now }, m_policy.defaultAction);
    if (outcome.action == Action::Ask && outcome.decidedBy == "policy:default")
        outcome.approvals
            = m_policy.defaultApprovals; // no guardrail asked, so none named approvals
    m_grants.apply(session.id, call.turnId, call.toolName, &outcome);
    fitToCapabilities(outcome, session.agent);
    return outcome;
}

void Broker::handleToolCall(ConnectionId cid, Session &session, ToolCall &&call)
{
    const Sha256Digest digest = callDigest(call.toolName, call.args);
    const auto [it, added] = session.calls.try_emplace(call.callId);
    if (!added)
        return handleKnownCall(cid, session, it->second, call, digest);

    Call &entry = it->second;
    entry.digest = digest;
    entry.toolName = call.toolName;
    entry.waiters.insert(cid);

    const TimeMs now = m_clock->now();
    if (!call.turnId)
        call.turnId = session.currentTurn;
    if (session.halted && !inHaltedTurn(*session.halted, call.turnId))
        session.halted.reset(); // another turn began
    // The guardrail chain decides first; only what it escalates reaches a
    // person (core/guardrails/README.md).
    ChainOutcome outcome = screen(session, call, now);
    m_record.clear();
    writeCallRecord(m_record, { session.id, session.agent.name }, call, session.agent, outcome);
    appendWritten("call", {}, now);
    Q_EMIT callEvent(
        { CallEvent::Step::Received, session.id, call.callId, DecisionKind::Deny, {}, {}, false });
    if (outcome.action == Action::Ask)
        return escalate(session, std::move(call), std::move(outcome), now);

    DecisionFields fields;
    std::unique_ptr<RanCall> ran;
    const Decision d = chainDecision(std::move(outcome), call, &fields, &ran);
    finishCall(session, entry, call.callId, call.turnId, d, std::move(ran), fields);
}

void Broker::escalate(Session &session, ToolCall &&call, ChainOutcome &&outcome, TimeMs now)
{
    const TimeMs timeout = escalationTimeout(call.timeoutS, m_config.defaultTimeoutMs);
    const std::string callId = call.callId;
    Escalation e = escalationOf(std::move(call), std::move(outcome));
    e.requester = session.agent.user.empty() ? m_config.osUser : session.agent.user;
    QueueItem item = makeQueueItem(
        m_queue->newId(), session.id, session.agent, std::move(e), now, now + timeout);
    item.turnFindings
        = m_policy.chain->turnFindings(session.id, item.turnId.value_or(std::string()));
    session.calls[callId].itemId = item.id;
    Json escalated = escalatedRecord(item);

    // Reviewers see the call, and the agent hears "pending", once the
    // escalation is on disk: whatever either was shown survives a crash.
    // Unrecorded, the call is refused.
    const std::string itemId = item.id;
    m_queue->enqueueUnrevealed(std::move(item));
    appendRecord("escalated", session, std::move(escalated),
        [this, itemId, sessionId = session.id, callId](bool durable) {
            const QueueItem *pending = m_queue->findAny(itemId);
            if (!pending)
                return; // cancelled or abandoned meanwhile
            if (!durable) {
                Decision d = auditRefusal();
                d.warnings = pending->warnings;
                m_queue->resolve(itemId, ItemState::Decided, std::move(d));
                return;
            }
            Session *s = m_sessions.find(sessionId);
            // A person halted the turn while the record was being written.
            if (s && s->halted && inHaltedTurn(*s->halted, pending->turnId)) {
                m_queue->resolve(itemId, ItemState::Decided, haltedTurnDecision(*s->halted));
                return;
            }
            // Or decided the tool's calls for the rest of the turn or the
            // session: this one gets that answer, as if it had been shown.
            if (const Grant *g
                = s ? m_grants.find(sessionId, pending->turnId, pending->toolName) : nullptr)
                if (std::optional<Decision> d = standingDecision(*g, *pending)) {
                    m_queue->resolve(itemId, ItemState::Decided, std::move(*d));
                    return;
                }
            m_queue->reveal(itemId);
            Q_EMIT callEvent({ CallEvent::Step::Escalated, sessionId, callId, DecisionKind::Deny,
                {}, {}, false });
            // Slots of either may have decided it, or ended the session.
            pending = m_queue->find(itemId);
            s = m_sessions.find(sessionId);
            if (!pending || !s)
                return;
            auto c = s->calls.find(callId);
            if (c == s->calls.end())
                return;
            const std::string message = dumpJson(pendingMessage(*pending));
            for (ConnectionId waiter : c->second.waiters)
                m_outbound->send(waiter, message);
            for (ConnectionId waiter : std::exchange(c->second.pendingOwed, {}))
                if (c->second.waiters.contains(waiter))
                    m_outbound->send(waiter, message);
        });
}

void Broker::attachMasked(ConnectionId cid, Session &session, Call &call, const ToolCall &resent)
{
    // The log kept this call with its secrets masked: find them again in
    // the re-sent args, and accept the re-send only if it masks to the same.
    const std::optional<std::string> turnId = resent.turnId;
    const CallView view { session.id, session.agent, resent.callId, resent.toolName, resent.args,
        resent.annotations, resent.context, turnId };
    const std::vector<Redaction> redactions = m_policy.chain->redactions(view);
    if (resent.toolName != call.toolName
        || maskJson(resent.args, redactions) != call.masked->maskedArgs)
        return sendConflict(cid, resent.callId);
    call.digest = callDigest(resent.toolName, resent.args);
    if (call.decided()) {
        // Decided before the restart: the log's decision, its args unmasked.
        // Decided since (denied, halted, timed out, cancelled or abandoned
        // while its secrets were still masked, so never with args): the
        // text already sent stands.
        if (!call.masked->decision.is_null())
            call.decisionText
                = unmaskedDecisionText(std::move(call.masked->decision), resent.args, redactions);
        call.masked.reset();
        m_sessions.reweigh(session, call);
        return redeliver(cid, session, resent.callId, call);
    }
    call.masked.reset();
    m_queue->restoreSecrets(call.itemId, resent.args, redactions);
    reattach(cid, call);
}

RecoveryReport Broker::recover(const QString &auditDir, TimeMs recordsSince)
{
    return restoreCalls(recoverCalls(auditDir, recordsSince, [this] { return m_queue->newId(); }),
        m_sessions, *m_queue, m_clock->now());
}

void Broker::handleToolResult(ConnectionId cid, Session &session, const ToolResult &result)
{
    auto it = session.calls.find(result.callId);
    if (it == session.calls.end())
        return sendError(cid, ErrorCode::UnknownCall,
            "call_id: no call \"" + result.callId + "\" in this session", result.callId);
    if (!it->second.decided())
        return sendError(cid, ErrorCode::CallPending,
            "call_id: \"" + result.callId
                + "\" is still waiting for a decision; send tool_result "
                  "after the tool ran",
            result.callId);
    // The after-call checks run once per call that ran; a repeated result,
    // or one for a call that was never allowed, has nothing to check.
    std::unique_ptr<RanCall> ran = std::move(it->second.ran);
    m_sessions.reweigh(session, it->second);
    if (!ran)
        return sendJson(cid, afterCallMessage(result.callId, nullptr));
    const CallView view { session.id, session.agent, result.callId, ran->toolName, ran->args,
        ran->annotations, ran->context, ran->turnId };
    const AfterOutcome after
        = m_policy.chain->afterCall(view, { result.ok, result.result }, { m_clock->now() });
    const std::vector<Redaction> redactions = m_policy.chain->redactions(view);
    appendRecord(
        "after_call", session, afterCallRecord(result.callId, *ran, result.ok, after, redactions));
    if (after.action == Action::Halt && !after.trail.empty()) {
        Decision halt;
        halt.kind = DecisionKind::Halt;
        halt.reason = after.reason;
        halt.decidedBy = "guardrail:" + after.trail.back().guardrail;
        session.halted = afterDecision(session.halted, ran->turnId, halt, &redactions);
    }
    refreshTurnFindings(session.id, ran->turnId);
    sendJson(cid, afterCallMessage(result.callId, &after));
}

void Broker::handleCancel(ConnectionId cid, Session &session, const Cancel &cancel)
{
    auto it = session.calls.find(cancel.callId);
    if (it == session.calls.end())
        return sendError(cid, ErrorCode::UnknownCall,
            "call_id: no call \"" + cancel.callId + "\" in this session", cancel.callId);
    if (it->second.decided())
        return sendError(cid, ErrorCode::AlreadyResolved,
            "call_id: \"" + cancel.callId + "\" was already decided; nothing to cancel",
            cancel.callId);
    m_queue->resolve(it->second.itemId, ItemState::Cancelled, cancelledDecision());
}

void Broker::onItemAdded(const QueueItem &item)
{
    if (m_reviewers.empty())
        return;
    broadcastToReviewers(escalatedMessage(item));
}

void Broker::refreshTurnFindings(
    const std::string &sessionId, const std::optional<std::string> &turnId)
{
    std::vector<TurnFinding> findings
        = m_policy.chain->turnFindings(sessionId, turnId.value_or(std::string()));
    const std::pair<std::string, std::string> key { sessionId, turnId.value_or(std::string()) };
    auto known = m_turnFindings.find(key);
    if (known == m_turnFindings.end() ? findings.empty() : known->second == findings)
        return;
    if (findings.empty())
        m_turnFindings.erase(known);
    else if (known != m_turnFindings.end())
        known->second = findings;
    else {
        if (m_turnFindings.size() >= 4096)
            m_turnFindings.clear(); // bounded; see the member's comment
        m_turnFindings.emplace(key, findings);
    }
    m_queue->setTurnFindings(sessionId, turnId, findings);
}

void Broker::onAbandoned(const std::string &itemId)
{
    m_queue->resolve(itemId, ItemState::Abandoned, abandonedDecision(m_config.graceMs));
}

void Broker::onResolved(const QueueItem &item)
{
    if (const auto waiting = m_awaitingReview.find(item.id); waiting != m_awaitingReview.end()) {
        if (m_connections.count(waiting->second))
            sendJson(waiting->second, reviewedMessage(item));
        m_awaitingReview.erase(waiting);
    }
    broadcastToReviewers(resolvedMessage(item));

    Session *session = m_sessions.find(item.sessionId);
    if (!session)
        return;
    auto callIt = session->calls.find(item.callId);
    if (callIt == session->calls.end())
        return;
    m_sessions.adopt(callIt->second);
    std::unique_ptr<RanCall> ran;
    const DecisionFields fields = reviewedFields(item, m_config.reviewerName, &ran);
    finishCall(
        *session, callIt->second, item.callId, item.turnId, *item.decision, std::move(ran), fields);
}

void Broker::onDisconnected(ConnectionId cid)
{
    auto connIt = m_connections.find(cid);
    if (connIt == m_connections.end())
        return;
    const Connection conn = connIt->second;
    m_connections.erase(connIt);
    m_reviewers.erase(cid);

    if (conn.role == Role::Agent) {
        if (Session *session = m_sessions.find(conn.sessionId)) {
            // Calls nobody waits for any more show it in the queue.
            for (const std::string &itemId : m_sessions.detach(*session, cid))
                m_queue->setAgentConnected(itemId, false);
            if (m_connections.empty())
                m_trim.start();
        }
    }
    Q_EMIT connectionsChanged();
}

void Broker::sendJson(ConnectionId cid, const Json &j)
{
    m_outbound->send(cid, dumpJson(j));
}

void Broker::sendError(
    ConnectionId cid, ErrorCode code, const std::string &message, const std::string &callId)
{
    sendJson(cid, errorToJson(code, message, callId));
}

void Broker::broadcastToReviewers(const Json &j)
{
    if (m_reviewers.empty())
        return;
    const std::string text = dumpJson(j);
    for (ConnectionId r : m_reviewers)
        m_outbound->send(r, text);
}

} // namespace holdpoint
