#include "broker.h"

#include "audit/auditfile.h"
#include "audit/auditlog.h"
#include "common/sha256.h"
#include "guardrails/chain.h"

#include <QDateTime>
#include <QMetaMethod>
#include <QRandomGenerator>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <cmath>

namespace holdpoint {

using namespace protocol;

namespace {

QByteArray callDigest(const std::string &toolName, const Json &args)
{
    // nlohmann's default object keeps keys sorted, so dump() is canonical:
    // the same arguments in another key order give the same digest.
    std::string text = toolName;
    text += '\0';
    text += dumpJson(args);
    const Sha256Digest digest = sha256(text);
    return QByteArray(reinterpret_cast<const char *>(digest.data()), qsizetype(digest.size()));
}

// The decision message as first sent, from its record and its call's.
Json decisionFromRecord(const Json &decision, const Json &call)
{
    Json j {{"type", "decision"},
            {"call_id", decision.value("call_id", std::string())},
            {"decision", decision.value("decision", std::string("deny"))},
            {"reason", decision.value("reason", std::string())},
            {"decided_by", decision.value("decided_by", std::string())}};
    const std::string kind = j["decision"];
    if (kind == "modify")
        j["args"] = decision.value("args", Json::object());
    else if (kind == "allow")
        j["args"] = call.value("args", Json::object());
    if (decision.contains("code"))
        j["code"] = decision["code"];
    j["warnings"] = decision.value("warnings", Json::array());
    return j;
}

Json auditStateJson(bool available, const QString &error)
{
    Json j {{"type", "audit"}, {"available", available}};
    if (!available)
        j["error"] = error.toStdString();
    return j;
}

TimeMs recordTime(const Json &record)
{
    return QDateTime::fromString(QString::fromStdString(record.value("ts", std::string())), Qt::ISODateWithMs)
        .toMSecsSinceEpoch();
}

} // namespace

Broker::Broker(ReviewQueue *queue, Outbound *outbound, BrokerConfig config, QObject *parent)
    : QObject(parent)
    , m_queue(queue)
    , m_outbound(outbound)
    , m_config(std::move(config))
    , m_graceAlarm(queue->clock(), [this] { abandonOrphans(); }, this)
    , m_expiryAlarm(queue->clock(), [this] { expireIdleSessions(); }, this)
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
    connect(m_queue, &ReviewQueue::resolved, this, &Broker::onResolved);
    connect(m_queue, &ReviewQueue::added, this, &Broker::onAdded);
}

Broker::~Broker() = default;

void Broker::setAuditLog(AuditLog *audit)
{
    m_audit = audit;
    // Reviewers learn at once when decisions start being refused, and when
    // they stop.
    connect(audit, &AuditLog::availabilityChanged, this, [this](bool available, const QString &error) {
        broadcastToReviewers(auditStateJson(available, error));
    });
}

bool Broker::auditUnavailable() const
{
    return m_audit && !m_audit->available();
}

Decision Broker::auditRefusal() const
{
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "audit";
    d.code = "audit_unavailable";
    d.reason = "the audit log cannot be written, so nothing may run: " + m_audit->lastError().toStdString();
    return d;
}

void Broker::sendConflict(ConnectionId cid, const std::string &callId)
{
    sendError(cid, ErrorCode::CallIdConflict,
              "call_id: \"" + callId
                  + "\" was already used in this session for a different tool_name or args; "
                    "use a new call_id for a new call",
              callId);
}

void Broker::redeliver(ConnectionId cid, Session &session, const std::string &callId, const Call &call)
{
    m_outbound->send(cid, call.decisionText);
    audit("delivered", session, Json {{"call_id", callId}, {"tool", call.toolName}, {"decision", decisionKindName(call.kind)},
                                      {"connections", 1}, {"again", true}});
}

void Broker::reattach(ConnectionId cid, Call &call)
{
    call.waiters.insert(cid);
    if (call.orphanedAt != NoDeadline) {
        m_orphans.erase({call.orphanedAt, call.itemId});
        call.orphanedAt = NoDeadline;
        rearmGrace();
    }
    m_queue->setAgentConnected(call.itemId, true);
    if (const QueueItem *item = m_queue->find(call.itemId))
        sendPending(cid, *item);
}

void Broker::audit(std::string_view event, const Session &session, Json fields, std::function<void(bool)> done,
                   TimeMs at)
{
    if (at < 0)
        at = m_queue->clock()->now();
    fields["session"] = session.id;
    fields["agent"] = session.agent.name;
    if (m_audit)
        m_audit->append(at, event, fields, std::move(done));
    // Headless, nobody listens: skip building the event.
    if (isSignalConnected(QMetaMethod::fromSignal(&Broker::activity))) {
        fields["event"] = event;
        fields["ts"] = formatTimestamp(at);
        Q_EMIT activity(fields);
    }
    if (!m_audit && done)
        done(true);
}

int Broker::agentConnections() const
{
    return int(m_connections.size() - m_reviewers.size());
}

std::vector<SessionInfo> Broker::sessionsInfo() const
{
    std::unordered_map<std::string, int> pending;
    for (int row = 0; row < m_queue->size(); ++row)
        ++pending[m_queue->at(row).sessionId];
    std::vector<SessionInfo> out;
    out.reserve(m_sessions.size());
    for (const auto &[id, s] : m_sessions) {
        SessionInfo info {id, s.agent, int(s.connections.size()), 0, s.lastActivity, s.currentTurn, {}};
        if (auto it = pending.find(id); it != pending.end())
            info.pending = it->second;
        for (const Grant &g : m_grants)
            if (g.sessionId == id)
                info.grants.push_back(std::string(decisionKindName(g.kind)) + " " + g.toolName
                                      + (g.turnId ? " for turn " + *g.turnId : std::string(" for the session")));
        out.push_back(std::move(info));
    }
    std::sort(out.begin(), out.end(), [](const SessionInfo &a, const SessionInfo &b) { return a.lastActivity > b.lastActivity; });
    return out;
}

const Broker::Grant *Broker::findGrant(const std::string &sessionId, const std::optional<std::string> &turnId,
                                       const std::string &toolName) const
{
    for (const Grant &g : m_grants)
        if (g.sessionId == sessionId && g.toolName == toolName && (!g.turnId || g.turnId == turnId))
            return &g;
    return nullptr;
}

std::string Broker::newSessionId() const
{
    for (;;) {
        const quint64 v = QRandomGenerator::system()->generate64();
        std::string id = "s-" + QByteArray::number(v, 16).rightJustified(16, '0').toStdString();
        if (!m_sessions.contains(id))
            return id;
    }
}

HelloOutcome Broker::onHello(ConnectionId cid, const Hello &hello)
{
    HelloOutcome out;
    if (hello.role == Role::Reviewer) {
        m_connections[cid] = Connection {Role::Reviewer, {}};
        m_reviewers.insert(cid);
        out.sessionId = "reviewer-" + std::to_string(cid);
        sendWelcome(cid, out);
        Json items = Json::array();
        for (int row = 0; row < m_queue->size(); ++row)
            items.push_back(itemToJson(m_queue->at(row)));
        sendJson(cid, Json {{"type", "queue"}, {"items", std::move(items)}});
        if (m_audit && !m_audit->available())
            sendJson(cid, auditStateJson(false, m_audit->lastError()));
        Q_EMIT connectionsChanged();
        return out;
    }

    std::string sid = hello.sessionId.value_or(std::string());
    if (sid.empty())
        sid = newSessionId();
    auto [it, inserted] = m_sessions.try_emplace(sid);
    Session &session = it->second;
    if (!inserted && session.connections.empty())
        std::erase_if(m_idle, [&](const auto &p) { return p.second == sid; });
    session.id = sid;
    session.agent = hello.agent;
    session.connections.insert(cid);
    session.lastActivity = m_queue->clock()->now();
    m_connections[cid] = Connection {Role::Agent, sid};
    out.sessionId = sid;
    out.resumed = !inserted;
    sendWelcome(cid, out);
    Q_EMIT connectionsChanged();
    return out;
}

void Broker::sendPending(ConnectionId cid, const QueueItem &item)
{
    sendJson(cid, Json {{"type", "pending"}, {"call_id", item.callId}, {"id", item.id}, {"reason", item.reason}});
}

void Broker::sendWelcome(ConnectionId cid, const HelloOutcome &outcome)
{
    sendJson(cid, Json {{"type", "welcome"},
                        {"protocol", Version},
                        {"server", m_config.serverName},
                        {"session_id", outcome.sessionId},
                        {"resumed", outcome.resumed}});
}

void Broker::onMessage(ConnectionId cid, Message &&message)
{
    auto connIt = m_connections.find(cid);
    if (connIt == m_connections.end())
        return; // not through hello: the endpoint never lets this happen
    const Connection &conn = connIt->second;

    if (auto *review = std::get_if<Review>(&message)) {
        if (conn.role != Role::Reviewer)
            return sendError(cid, ErrorCode::Forbidden, "review: only a connection that said hello as role "
                                                         "\"reviewer\" with the reviewer token may decide");
        return handleReview(cid, *review);
    }
    if (std::holds_alternative<Hello>(message))
        return sendError(cid, ErrorCode::DuplicateHello, "hello: this connection already said hello");
    if (conn.role != Role::Agent)
        return sendError(cid, ErrorCode::Forbidden,
                         "type: a reviewer connection may only send review messages");

    auto sessionIt = m_sessions.find(conn.sessionId);
    if (sessionIt == m_sessions.end())
        return;
    Session &session = sessionIt->second;
    session.lastActivity = m_queue->clock()->now();

    std::visit(
        [&](auto &&m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, ToolCall>) {
                handleToolCall(cid, session, std::move(m));
            } else if constexpr (std::is_same_v<T, ToolResult>) {
                handleToolResult(cid, session, m);
            } else if constexpr (std::is_same_v<T, Cancel>) {
                handleCancel(cid, session, m);
            } else if constexpr (std::is_same_v<T, TurnStart>) {
                session.currentTurn = m.turnId;
                m_policy.chain->onTurnStart(session.id, m.turnId);
            } else if constexpr (std::is_same_v<T, TurnEnd>) {
                if (session.currentTurn == m.turnId)
                    session.currentTurn.reset();
                std::erase_if(m_grants, [&](const Grant &g) { return g.sessionId == session.id && g.turnId == m.turnId; });
                m_policy.chain->onTurnEnd(session.id, m.turnId);
            }
        },
        message);
}

void Broker::handleToolCall(ConnectionId cid, Session &session, ToolCall &&call)
{
    const QByteArray digest = callDigest(call.toolName, call.args);
    if (auto it = session.calls.find(call.callId); it != session.calls.end()) {
        Call &existing = it->second;
        if (existing.masked)
            return void(attachMasked(cid, session, existing, call));
        if (existing.digest != digest)
            return sendConflict(cid, call.callId);
        if (existing.decided()) {
            // Sent again once its record is on disk, never before.
            if (existing.durable)
                redeliver(cid, session, call.callId, existing);
            else
                existing.waiters.insert(cid);
            return;
        }
        // Still pending: the same item, never a second one.
        return reattach(cid, existing);
    }

    Call &entry = session.calls[call.callId];
    entry.digest = digest;
    entry.toolName = call.toolName;
    entry.waiters.insert(cid);

    const TimeMs now = m_queue->clock()->now();
    const std::optional<std::string> turnId = call.turnId ? call.turnId : session.currentTurn;
    const CallView view {session.id, session.agent, call.callId, call.toolName, call.args,
                         call.annotations, call.context, turnId};

    // The guardrail chain decides first; only what it escalates reaches a
    // person (core/guardrails/README.md). With no audit log to write to,
    // nothing may run: the call is refused without asking anyone.
    ChainOutcome outcome;
    if (auditUnavailable()) {
        Decision refusal = auditRefusal();
        outcome.action = Action::Deny;
        outcome.decidedBy = std::move(refusal.decidedBy);
        outcome.code = std::move(refusal.code);
        outcome.reason = std::move(refusal.reason);
        outcome.redactions = m_policy.chain->redactions(view);
    } else {
        outcome = m_policy.chain->beforeCall(view, {now}, m_policy.defaultAction);
        // What a reviewer decided for the rest of this turn or session
        // answers what would have asked; a denial also overrides an allow.
        // Nothing overrides a guardrail's deny or halt.
        if (const Grant *g = findGrant(session.id, turnId, call.toolName)) {
            const bool deny = g->kind == DecisionKind::Deny && outcome.action != Action::Deny && outcome.action != Action::Halt;
            const bool allow = g->kind != DecisionKind::Deny && outcome.action == Action::Ask;
            if (deny || allow) {
                outcome.action = deny ? Action::Deny : Action::Allow;
                outcome.decidedBy = g->decidedBy;
                outcome.reason = g->reason;
                outcome.code = deny ? "reviewer_scope" : "";
                if (deny)
                    outcome.args.reset();
            }
        }
    }

    Json record {{"call_id", call.callId},
                 {"tool", call.toolName},
                 {"args", maskJson(call.args, outcome.redactions)},
                 {"outcome", outcome.action == Action::Ask ? std::string("ask") : std::string(actionName(outcome.action))},
                 {"trail", maskJson(outcome.trail, outcome.redactions)}};
    if (!session.agent.framework.empty())
        record["framework"] = session.agent.framework;
    if (!call.annotations.is_null() && !call.annotations.empty())
        record["annotations"] = call.annotations;
    if (!call.context.is_null() && !call.context.empty())
        record["context"] = maskJson(call.context, outcome.redactions);
    if (turnId)
        record["turn"] = *turnId;
    if (!outcome.redactions.empty())
        record["masked"] = true;
    audit("call", session, std::move(record), {}, now);

    if (outcome.action != Action::Ask) {
        Decision d;
        d.decidedBy = std::move(outcome.decidedBy);
        d.reason = std::move(outcome.reason);
        d.warnings = std::move(outcome.warnings);
        std::unique_ptr<RanCall> ran;
        Json fields {{"tool", call.toolName}, {"state", "auto"}};
        if (outcome.action == Action::Allow) {
            d.kind = outcome.args ? DecisionKind::Modify : DecisionKind::Allow;
            d.args = outcome.args ? std::move(*outcome.args) : call.args;
            if (d.kind == DecisionKind::Modify)
                fields["args"] = maskJson(d.args, outcome.redactions);
            ran = std::make_unique<RanCall>(RanCall {call.toolName, d.args, call.annotations, call.context, turnId});
        } else {
            d.kind = outcome.action == Action::Halt ? DecisionKind::Halt : DecisionKind::Deny;
            d.code = std::move(outcome.code);
        }
        return finishCall(session, call.callId, d, std::move(ran), std::move(fields));
    }

    TimeMs timeout = m_config.defaultTimeoutMs;
    if (call.timeoutS)
        timeout = std::min<TimeMs>(timeout, std::max<TimeMs>(1, TimeMs(std::llround(*call.timeoutS * 1000))));

    QueueItem item;
    item.id = m_queue->newId();
    item.callId = call.callId;
    item.sessionId = session.id;
    item.agent = session.agent;
    item.toolName = std::move(call.toolName);
    item.args = std::move(call.args);
    item.context = std::move(call.context);
    item.annotations = std::move(call.annotations);
    item.turnId = turnId;
    item.redactions = std::move(outcome.redactions);
    item.reason = std::move(outcome.reason);
    item.trail = std::move(outcome.trail);
    item.warnings = std::move(outcome.warnings);
    if (outcome.args) {
        item.proposedArgs = std::move(outcome.args);
        item.patch = std::move(outcome.patch);
    }
    item.receivedAt = now;
    item.deadline = now + timeout;
    entry.itemId = item.id;

    Json escalated {{"call_id", item.callId},
                    {"tool", item.toolName},
                    {"item", item.id},
                    {"reason", item.reason},
                    {"deadline", formatTimestamp(item.deadline)},
                    {"warnings", warningsToJson(item.warnings)}};
    if (item.proposedArgs) {
        escalated["proposed_args"] = masked(item, *item.proposedArgs);
        escalated["patch"] = masked(item, item.patch);
    }
    // The agent hears "pending" once the escalation is on disk, so whatever
    // it was told survives a crash. Unrecorded, the call is refused.
    const std::string itemId = item.id;
    const std::string sessionId = session.id;
    const std::string callId = item.callId;
    m_queue->add(std::move(item));
    audit("escalated", session, std::move(escalated), [this, itemId, sessionId, callId](bool durable) {
        const QueueItem *pending = m_queue->find(itemId);
        if (!pending)
            return; // decided, cancelled or timed out meanwhile
        if (!durable) {
            Decision d = auditRefusal();
            d.warnings = pending->warnings;
            m_queue->resolve(itemId, ItemState::Decided, std::move(d));
            return;
        }
        auto s = m_sessions.find(sessionId);
        if (s == m_sessions.end())
            return;
        auto c = s->second.calls.find(callId);
        if (c == s->second.calls.end())
            return;
        for (ConnectionId waiter : c->second.waiters)
            sendPending(waiter, *pending);
    });
}

bool Broker::attachMasked(ConnectionId cid, Session &session, Call &call, const ToolCall &resent)
{
    // The log kept this call with its secrets masked: find them again in
    // the re-sent args, and accept the re-send only if it masks to the same.
    const std::optional<std::string> turnId = resent.turnId;
    const CallView view {session.id, session.agent, resent.callId, resent.toolName, resent.args,
                         resent.annotations, resent.context, turnId};
    const std::vector<Redaction> redactions = m_policy.chain->redactions(view);
    if (resent.toolName != call.toolName || maskJson(resent.args, redactions) != call.masked->maskedArgs) {
        sendConflict(cid, resent.callId);
        return false;
    }
    call.digest = callDigest(resent.toolName, resent.args);
    if (call.decided()) {
        Json decision = call.masked->decision;
        if (decision["decision"] == "allow")
            decision["args"] = resent.args;
        else if (decision["decision"] == "modify")
            decision["args"] = unmaskJson(decision["args"], redactions);
        call.decisionText = dumpJson(decision);
        call.masked.reset();
        redeliver(cid, session, resent.callId, call);
        return true;
    }
    call.masked.reset();
    m_queue->restoreSecrets(call.itemId, resent.args, redactions);
    reattach(cid, call);
    return true;
}

namespace {

std::vector<Warning> warningsFromJson(const Json &j)
{
    std::vector<Warning> out;
    if (!j.is_array())
        return out;
    for (const Json &w : j)
        if (w.is_object())
            out.push_back({w.value("guardrail", std::string()), w.value("code", std::string()),
                           w.value("message", std::string())});
    return out;
}

std::optional<DecisionKind> kindFromName(const std::string &name)
{
    for (DecisionKind k : {DecisionKind::Allow, DecisionKind::Deny, DecisionKind::Modify, DecisionKind::Halt})
        if (decisionKindName(k) == name)
            return k;
    return std::nullopt;
}

} // namespace

RecoveryReport Broker::recover(const QString &auditDir, TimeMs recordsSince)
{
    // What the log says about each call, latest incarnation only: a call
    // received again after a crash that left it unanswered starts afresh.
    struct Seen
    {
        Json call, escalated, decision;
        bool listed = false;
    };
    std::unordered_map<std::string, std::unordered_map<std::string, Seen>> seen;
    std::vector<std::pair<std::string, std::string>> order;
    audit::forEachRecord(
        auditDir,
        [&](std::string_view, const Json &r) {
            const std::string &event = r["event"].get_ref<const std::string &>();
            if (event != "call" && event != "escalated" && event != "decision")
                return true;
            const std::string sid = r.value("session", std::string());
            const std::string cid = r.value("call_id", std::string());
            if (sid.empty() || cid.empty())
                return true;
            Seen &s = seen[sid][cid];
            if (event == "call") {
                if (!s.decision.is_null())
                    return true;
                s.call = r;
                s.escalated = Json();
                if (!s.listed) {
                    s.listed = true;
                    order.emplace_back(sid, cid);
                }
            } else if (event == "escalated") {
                s.escalated = r;
            } else {
                s.decision = r;
            }
            return true;
        },
        recordsSince);

    RecoveryReport report;
    const TimeMs now = m_queue->clock()->now();
    for (const auto &[sid, cid] : order) {
        Seen &s = seen[sid][cid];
        if (s.call.is_null() || (s.decision.is_null() && s.escalated.is_null()))
            continue; // never answered: the agent's re-send starts it again
        auto [sessionIt, inserted] = m_sessions.try_emplace(sid);
        Session &session = sessionIt->second;
        if (inserted) {
            session.id = sid;
            session.agent.name = s.call.value("agent", std::string());
            session.agent.framework = s.call.value("framework", std::string());
            session.lastActivity = now;
            ++report.sessions;
        }
        if (session.calls.contains(cid))
            continue;
        Call &call = session.calls[cid];
        call.toolName = s.call.value("tool", std::string());
        const Json &args = s.call["args"];
        const bool isMasked = s.call.value("masked", false);
        if (isMasked)
            call.masked = std::make_unique<MaskedCall>(MaskedCall {args, Json()});
        else
            call.digest = callDigest(call.toolName, args);

        if (!s.decision.is_null()) {
            const Json decision = decisionFromRecord(s.decision, s.call);
            call.decisionText = dumpJson(decision);
            call.kind = kindFromName(decision["decision"]).value_or(DecisionKind::Deny);
            if (call.masked)
                call.masked->decision = decision;
            session.decidedOrder.push_back(cid);
            ++report.decided;
            continue;
        }

        QueueItem item;
        item.id = s.escalated.value("item", m_queue->newId());
        item.callId = cid;
        item.sessionId = sid;
        item.agent = session.agent;
        item.toolName = call.toolName;
        item.args = args;
        item.context = s.call.value("context", Json::object());
        item.annotations = s.call.value("annotations", Json::object());
        if (s.call.contains("turn"))
            item.turnId = s.call["turn"].get<std::string>();
        item.reason = s.escalated.value("reason", std::string());
        item.trail = s.call.value("trail", Json::array());
        item.warnings = warningsFromJson(s.escalated.value("warnings", Json::array()));
        if (s.escalated.contains("proposed_args")) {
            item.proposedArgs = s.escalated["proposed_args"];
            item.patch = s.escalated.value("patch", Json::array());
        }
        item.receivedAt = recordTime(s.call);
        item.deadline = recordTime(s.escalated);
        if (const TimeMs d = QDateTime::fromString(QString::fromStdString(s.escalated.value("deadline", std::string())),
                                                   Qt::ISODateWithMs)
                                 .toMSecsSinceEpoch();
            d > 0)
            item.deadline = d;
        item.agentConnected = false;
        item.secretsPending = isMasked;
        if (m_queue->find(item.id))
            continue;
        call.itemId = item.id;
        // Nobody waits for it yet: the grace period starts now.
        call.orphanedAt = now;
        m_orphans.emplace(now, item.id);
        m_queue->add(std::move(item));
        ++report.pending;
    }
    for (auto &[sid, session] : m_sessions) {
        if (session.connections.empty())
            m_idle.emplace(now, sid); // forgotten like any idle session unless its agent returns
        while (session.decidedOrder.size() > m_config.rememberedCallsPerSession) {
            session.calls.erase(session.decidedOrder.front());
            session.decidedOrder.pop_front();
        }
    }
    rearmGrace();
    rearmExpiry();
    return report;
}

void Broker::handleToolResult(ConnectionId cid, Session &session, const ToolResult &result)
{
    auto it = session.calls.find(result.callId);
    if (it == session.calls.end())
        return sendError(cid, ErrorCode::UnknownCall,
                         "call_id: no call \"" + result.callId + "\" in this session", result.callId);
    if (!it->second.decided())
        return sendError(cid, ErrorCode::CallPending,
                         "call_id: \"" + result.callId + "\" is still waiting for a decision; send tool_result "
                                                         "after the tool ran",
                         result.callId);
    Json answer {{"type", "after_call"}, {"call_id", result.callId}, {"action", "allow"}, {"reason", ""}};
    // The after-call checks run once per call that ran; a repeated result,
    // or one for a call that was never allowed, has nothing to check.
    if (std::unique_ptr<RanCall> ran = std::move(it->second.ran)) {
        const CallView view {session.id, session.agent, result.callId, ran->toolName, ran->args,
                             ran->annotations, ran->context, ran->turnId};
        const AfterOutcome after = m_policy.chain->afterCall(view, {result.ok, result.result}, {m_queue->clock()->now()});
        answer["action"] = actionName(after.action);
        answer["reason"] = after.reason;
        answer["warnings"] = warningsToJson(after.warnings);
        const std::vector<Redaction> redactions = m_policy.chain->redactions(view);
        audit("after_call", session, Json {{"call_id", result.callId},
                                           {"tool", ran->toolName},
                                           {"ok", result.ok},
                                           {"action", answer["action"]},
                                           {"reason", maskText(after.reason, redactions)},
                                           {"warnings", maskJson(answer["warnings"], redactions)},
                                           {"trail", maskJson(after.trail, redactions)}});
    } else {
        answer["warnings"] = Json::array();
    }
    sendJson(cid, answer);
}

void Broker::handleCancel(ConnectionId cid, Session &session, const Cancel &cancel)
{
    auto it = session.calls.find(cancel.callId);
    if (it == session.calls.end())
        return sendError(cid, ErrorCode::UnknownCall,
                         "call_id: no call \"" + cancel.callId + "\" in this session", cancel.callId);
    if (it->second.decided())
        return sendError(cid, ErrorCode::AlreadyResolved,
                         "call_id: \"" + cancel.callId + "\" was already decided; nothing to cancel", cancel.callId);
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "agent";
    d.code = "cancelled";
    d.reason = "cancelled by the agent";
    m_queue->resolve(it->second.itemId, ItemState::Cancelled, std::move(d));
}

ReviewOutcome Broker::review(const Review &review, const std::string &decidedBy)
{
    ReviewOutcome out;
    const QueueItem *item = m_queue->find(review.id);
    if (!item) {
        out.code = ErrorCode::UnknownItem;
        out.message = "id: no pending item \"" + review.id + "\"; it may have been decided, timed out or cancelled";
        return out;
    }
    if (item->secretsPending && (review.action == ReviewAction::Approve || review.action == ReviewAction::Edit)) {
        out.code = ErrorCode::InvalidField;
        out.message = "id: \"" + review.id + "\" came back from the audit log after a restart, and the log keeps no "
            "secrets; its real arguments return when the agent re-sends the call. Deny or halt it now, or approve it then";
        return out;
    }
    Decision d;
    d.decidedBy = decidedBy;
    d.reason = review.reason;
    d.warnings = item->warnings;
    switch (review.action) {
    case ReviewAction::Approve:
        // What the guardrails proposed is what the reviewer saw and approves.
        d.kind = item->proposedArgs ? DecisionKind::Modify : DecisionKind::Allow;
        d.args = item->proposedArgs.value_or(item->args);
        if (d.reason.empty())
            d.reason = "approved by a reviewer";
        break;
    case ReviewAction::Edit: {
        if (!review.args || !review.args->is_object()) {
            out.code = ErrorCode::MissingField;
            out.message = "args: required for edit, expected an object";
            return out;
        }
        // The reviewer saw placeholders for secrets; whatever placeholders
        // the edit kept stand for the real values again.
        const Json edited = unmaskJson(*review.args, item->redactions);
        if (edited == item->proposedArgs.value_or(item->args)) {
            out.code = ErrorCode::InvalidField;
            out.message = "args: identical to the call's own args; use action approve";
            return out;
        }
        d.kind = edited == item->args ? DecisionKind::Allow : DecisionKind::Modify;
        d.args = edited;
        if (d.reason.empty())
            d.reason = "approved with edited arguments by a reviewer";
        break;
    }
    case ReviewAction::Deny:
        if (d.reason.find_first_not_of(" \t\r\n") == std::string::npos) {
            out.code = ErrorCode::MissingField;
            out.message = "reason: required for deny, expected a non-empty string";
            return out;
        }
        d.kind = DecisionKind::Deny;
        break;
    case ReviewAction::Halt:
        d.kind = DecisionKind::Halt;
        if (d.reason.empty())
            d.reason = "turn halted by a reviewer";
        break;
    }

    // Halting one call aborts its whole turn: the turn's other pending
    // calls get the same halt, so the agent is not left waiting on them.
    std::vector<std::string> sameTurn;
    if (review.action == ReviewAction::Halt && item->turnId) {
        for (int row = 0; row < m_queue->size(); ++row) {
            const QueueItem &other = m_queue->at(row);
            if (other.id != item->id && other.sessionId == item->sessionId && other.turnId == item->turnId)
                sameTurn.push_back(other.id);
        }
    }

    // Approve or deny for the rest of the turn or session: later calls of
    // the same tool are answered the same way, and so are those waiting now.
    if (review.scope != ReviewScope::Call) {
        if (review.action != ReviewAction::Approve && review.action != ReviewAction::Deny) {
            out.code = ErrorCode::InvalidField;
            out.message = "scope: only approve and deny reach beyond one call";
            return out;
        }
        if (review.scope == ReviewScope::Turn && !item->turnId) {
            out.code = ErrorCode::InvalidField;
            out.message = "scope: this call belongs to no turn; use scope session or call";
            return out;
        }
        Grant g;
        g.sessionId = item->sessionId;
        if (review.scope == ReviewScope::Turn)
            g.turnId = item->turnId;
        g.toolName = item->toolName;
        g.kind = review.action == ReviewAction::Deny ? DecisionKind::Deny : DecisionKind::Allow;
        g.reason = d.reason + (review.scope == ReviewScope::Turn ? " (for the rest of turn " + *item->turnId + ")"
                                                                 : std::string(" (for the rest of the session)"));
        g.decidedBy = decidedBy;
        for (int row = 0; row < m_queue->size(); ++row) {
            const QueueItem &other = m_queue->at(row);
            if (other.id != item->id && other.sessionId == g.sessionId && other.toolName == g.toolName
                && (!g.turnId || other.turnId == g.turnId) && !other.secretsPending)
                sameTurn.push_back(other.id);
        }
        m_grants.push_back(std::move(g));
    }

    out.ok = true;
    out.decision = d;
    const std::string callId = item->callId;
    const ReviewScope scope = review.scope;
    const std::string grantReason = m_grants.empty() || scope == ReviewScope::Call ? std::string() : m_grants.back().reason;
    m_queue->resolve(review.id, ItemState::Decided, d);
    if (scope != ReviewScope::Call) {
        for (const auto &id : sameTurn) {
            const QueueItem *other = m_queue->find(id);
            if (!other)
                continue;
            Decision o = d;
            o.reason = grantReason;
            o.warnings = other->warnings;
            if (o.kind != DecisionKind::Deny) {
                o.kind = other->proposedArgs ? DecisionKind::Modify : DecisionKind::Allow;
                o.args = other->proposedArgs.value_or(other->args);
            }
            m_queue->resolve(id, ItemState::Decided, std::move(o));
        }
        return out;
    }
    for (const auto &id : sameTurn) {
        Decision h = d;
        h.reason = d.reason + " (turn halted with call " + callId + ")";
        h.warnings.clear();
        if (const QueueItem *other = m_queue->find(id))
            h.warnings = other->warnings;
        m_queue->resolve(id, ItemState::Decided, std::move(h));
    }
    return out;
}

void Broker::handleReview(ConnectionId cid, const Review &review)
{
    const ReviewOutcome out = this->review(review, humanDecider());
    if (!out.ok)
        return sendError(cid, out.code, out.message);
    sendJson(cid, Json {{"type", "reviewed"}, {"id", review.id}, {"decision", decisionKindName(out.decision.kind)}});
}

void Broker::onAdded(int row)
{
    if (m_reviewers.empty())
        return;
    broadcastToReviewers(Json {{"type", "escalated"}, {"item", itemToJson(m_queue->at(row))}});
}

void Broker::onResolved(const QueueItem &item)
{
    const Decision &d = *item.decision;
    broadcastToReviewers(Json {{"type", "resolved"},
                               {"id", item.id},
                               {"state", itemStateName(item.state)},
                               {"decision", decisionKindName(d.kind)},
                               {"decided_by", d.decidedBy}});

    auto sessionIt = m_sessions.find(item.sessionId);
    if (sessionIt == m_sessions.end())
        return;
    Session &session = sessionIt->second;
    auto callIt = session.calls.find(item.callId);
    if (callIt == session.calls.end())
        return;
    Call &call = callIt->second;
    if (call.orphanedAt != NoDeadline) {
        m_orphans.erase({call.orphanedAt, item.id});
        rearmGrace();
    }
    Json fields {{"tool", item.toolName}, {"item", item.id}, {"state", itemStateName(item.state)}};
    std::unique_ptr<RanCall> ran;
    if (d.kind == DecisionKind::Allow || d.kind == DecisionKind::Modify) {
        ran = std::make_unique<RanCall>(RanCall {item.toolName, d.args, item.annotations, item.context, item.turnId});
        const Json &shown = item.proposedArgs.value_or(item.args);
        if (d.kind == DecisionKind::Modify)
            fields["args"] = masked(item, d.args);
        if (d.args != shown)
            fields["edited"] = true;
    }
    if (d.decidedBy.rfind("human:", 0) == 0)
        fields["os_user"] = m_config.reviewerName;
    finishCall(session, item.callId, d, std::move(ran), std::move(fields));
}

void Broker::finishCall(Session &session, const std::string &callId, const Decision &decision,
                        std::unique_ptr<RanCall> ran, Json record)
{
    Call &call = session.calls[callId];
    call.ran = std::move(ran);
    call.decisionText = dumpJson(decisionToJson(callId, decision));
    call.kind = decision.kind;
    call.itemId.clear();
    call.orphanedAt = NoDeadline;
    call.durable = false;
    if (call.toolName.empty() && record.contains("tool"))
        call.toolName = record["tool"].get<std::string>();

    record["call_id"] = callId;
    record["decision"] = decisionKindName(decision.kind);
    record["decided_by"] = decision.decidedBy;
    record["reason"] = decision.reason;
    if (!decision.code.empty())
        record["code"] = decision.code;
    if (!decision.warnings.empty())
        record["warnings"] = warningsToJson(decision.warnings);
    // Refusing needs no record first; anything else waits for the disk.
    const bool refusedForAudit = decision.code == "audit_unavailable";
    audit("decision", session, std::move(record),
          [this, sessionId = session.id, callId, refusedForAudit](bool durable) {
              deliver(sessionId, callId, durable || refusedForAudit, refusedForAudit);
          });

    session.decidedOrder.push_back(callId);
    while (session.decidedOrder.size() > m_config.rememberedCallsPerSession) {
        auto oldest = session.calls.find(session.decidedOrder.front());
        if (oldest != session.calls.end() && !oldest->second.durable)
            break; // still on its way to the disk and its agent
        if (oldest != session.calls.end())
            session.calls.erase(oldest);
        session.decidedOrder.pop_front();
    }
}

void Broker::deliver(const std::string &sessionId, const std::string &callId, bool durable, bool refusedForAudit)
{
    auto sessionIt = m_sessions.find(sessionId);
    if (sessionIt == m_sessions.end())
        return;
    Session &session = sessionIt->second;
    auto callIt = session.calls.find(callId);
    if (callIt == session.calls.end() || !callIt->second.decided())
        return;
    Call &call = callIt->second;
    if (!durable) {
        // The decision could not be recorded, so it must not be delivered:
        // the agent gets a refusal instead, and that is recorded too.
        const Decision d = auditRefusal();
        call.decisionText = dumpJson(decisionToJson(callId, d));
        call.kind = d.kind;
        call.ran.reset();
    }
    call.durable = true;
    for (ConnectionId waiter : call.waiters)
        m_outbound->send(waiter, call.decisionText);
    Json delivered {{"call_id", callId},
                    {"tool", call.toolName},
                    {"decision", decisionKindName(call.kind)},
                    {"connections", call.waiters.size()}};
    if (!durable || refusedForAudit)
        delivered["code"] = "audit_unavailable";
    call.waiters.clear();
    audit("delivered", session, std::move(delivered));
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
        auto sessionIt = m_sessions.find(conn.sessionId);
        if (sessionIt != m_sessions.end()) {
            Session &session = sessionIt->second;
            session.connections.erase(cid);
            const TimeMs now = m_queue->clock()->now();
            for (auto &[callId, call] : session.calls) {
                if (!call.waiters.erase(cid) || call.decided() || !call.waiters.empty())
                    continue;
                // Nobody waits for this call any more: the item shows it, and
                // the grace period starts (PROTOCOL.md "Disconnects and resuming").
                call.orphanedAt = now;
                m_orphans.emplace(now, call.itemId);
                m_queue->setAgentConnected(call.itemId, false);
            }
            rearmGrace();
            if (session.connections.empty()) {
                m_idle.emplace(now, session.id);
                rearmExpiry();
            }
            if (m_connections.empty())
                m_trim.start();
        }
    }
    Q_EMIT connectionsChanged();
}

void Broker::rearmGrace()
{
    m_graceAlarm.setDeadline(m_orphans.empty() ? NoDeadline : m_orphans.begin()->first + m_config.graceMs);
}

void Broker::abandonOrphans()
{
    const TimeMs now = m_queue->clock()->now();
    while (!m_orphans.empty() && m_orphans.begin()->first + m_config.graceMs <= now) {
        const std::string itemId = m_orphans.begin()->second;
        m_orphans.erase(m_orphans.begin());
        Decision d;
        d.kind = DecisionKind::Deny;
        d.decidedBy = "timeout";
        d.code = "abandoned";
        d.reason = "abandoned: the agent disconnected and did not re-send the call within "
                   + std::to_string(m_config.graceMs / 1000) + " s";
        m_queue->resolve(itemId, ItemState::Abandoned, std::move(d));
    }
    rearmGrace();
}

void Broker::rearmExpiry()
{
    m_expiryAlarm.setDeadline(m_idle.empty() ? NoDeadline : m_idle.begin()->first + m_config.sessionRetentionMs);
}

void Broker::expireIdleSessions()
{
    const TimeMs now = m_queue->clock()->now();
    std::vector<std::pair<TimeMs, std::string>> later;
    bool forgot = false;
    while (!m_idle.empty() && m_idle.begin()->first + m_config.sessionRetentionMs <= now) {
        const std::string id = m_idle.begin()->second;
        m_idle.erase(m_idle.begin());
        auto it = m_sessions.find(id);
        if (it == m_sessions.end() || !it->second.connections.empty())
            continue;
        const Session &s = it->second;
        const bool busy = std::any_of(s.calls.begin(), s.calls.end(),
                                      [](const auto &c) { return !c.second.decided() || !c.second.durable; });
        const TimeMs idleSince = std::max(s.lastActivity, now - m_config.sessionRetentionMs);
        if (busy || s.lastActivity + m_config.sessionRetentionMs > now) {
            // Something still waits (or it was active lately): look again later.
            later.emplace_back(busy ? now : idleSince, id);
            continue;
        }
        std::erase_if(m_grants, [&](const Grant &g) { return g.sessionId == id; });
        m_sessions.erase(it);
        forgot = true;
    }
    for (auto &l : later)
        m_idle.insert(std::move(l));
    if (forgot)
        m_trim.start();
    rearmExpiry();
}

void Broker::sendJson(ConnectionId cid, const Json &j)
{
    m_outbound->send(cid, dumpJson(j));
}

void Broker::sendError(ConnectionId cid, ErrorCode code, const std::string &message, const std::string &callId)
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
