// SPDX-License-Identifier: Apache-2.0
// The broker's side of a decided call: its record written, then, once the
// record is on disk, its decision delivered and that recorded too. These
// run for every call, so the records are written straight into a reused
// buffer (engine/callrecords.h), never built as trees.

#include "broker.h"

#include "audit/auditlog.h"
#include "common/jsonwriter.h"
#include "engine/callrecords.h"
#include "engine/haltedturn.h"

#include <QMetaMethod>

namespace holdpoint {

using namespace protocol;

namespace {

RecordSubject subjectOf(const Session &session)
{
    return RecordSubject { session.id, session.agent.name };
}

} // namespace

void Broker::redeliver(ConnectionId cid, Session &session, const std::string &callId, Call &call)
{
    if (!call.durable)
        return void(call.waiters.insert(cid)); // deliver() sends it
    m_outbound->send(cid, call.decisionText);
    m_record.clear();
    writeDeliveredRecord(
        m_record, subjectOf(session), callId, call.toolName, call.kind, 1, true, false);
    // Read before the record's activity runs slots, which may decide calls.
    const DecisionKind kind = call.kind;
    appendWritten("delivered");
    Q_EMIT callEvent({ CallEvent::Step::Delivered, session.id, callId, kind, {}, {}, true });
}

void Broker::appendRecord(std::string_view event, const Session &session, Json fields,
    std::function<void(bool)> done, TimeMs at)
{
    fields["session"] = session.id;
    fields["agent"] = session.agent.name;
    m_record.clear();
    appendJson(m_record, fields);
    appendWritten(event, std::move(done), at, &fields);
}

void Broker::appendWritten(
    std::string_view event, std::function<void(bool)> done, TimeMs at, Json *fields)
{
    if (at < 0)
        at = m_clock->now();
    if (m_audit)
        m_audit->appendBody(at, event, m_record, std::move(done));
    // Headless, nobody listens: skip building the event. A record written
    // without a tree is read back for the views.
    if (isSignalConnected(QMetaMethod::fromSignal(&Broker::activity))) {
        Json record = fields ? std::move(*fields) : Json::parse(m_record);
        record["event"] = event;
        record["ts"] = formatTimestamp(at);
        Q_EMIT activity(record);
    }
    // One very large call must not pin its size here for good.
    if (m_record.capacity() > 64 * 1024)
        std::string().swap(m_record);
    if (!m_audit && done)
        done(true);
}

void Broker::finishCall(Session &session, Call &call, const std::string &callId,
    const std::optional<std::string> &turnId, const Decision &decision,
    std::unique_ptr<RanCall> ran, const DecisionFields &fields)
{
    session.halted = afterDecision(session.halted, turnId, decision, fields.redactions);
    call.ran = std::move(ran);
    // An allowed call's arguments are those it runs with (RanCall).
    m_record.clear();
    appendDecisionText(m_record, callId, decision, call.ran ? &call.ran->args : nullptr);
    call.decisionText.assign(m_record); // one allocation, of the final size
    call.kind = decision.kind;
    call.itemId.clear();
    call.orphanedAt = NoDeadline;
    call.durable = false;
    if (call.toolName.empty())
        call.toolName = fields.tool;

    // Refusing needs no record first; anything else waits for the disk.
    const bool refusedForAudit = decision.code == "audit_unavailable";
    // Counted before its delivery, which without an audit log follows at
    // once; and before the record is written into m_record, which a slot
    // that makes the broker write another record would overwrite.
    Q_EMIT callEvent({ CallEvent::Step::Decided, session.id, callId, decision.kind,
        decision.decidedBy, fields.state });
    m_record.clear();
    writeDecisionRecord(m_record, subjectOf(session), fields, callId, decision);
    appendWritten(
        "decision", [this, sessionId = session.id, callId, refusedForAudit](bool durable) {
            deliver(sessionId, callId, durable || refusedForAudit, refusedForAudit);
        });
    m_sessions.recordDecided(session, callId);
}

void Broker::deliver(
    const std::string &sessionId, const std::string &callId, bool durable, bool refusedForAudit)
{
    Session *session = m_sessions.find(sessionId);
    if (!session)
        return;
    auto callIt = session->calls.find(callId);
    if (callIt == session->calls.end() || !callIt->second.decided())
        return;
    Call &call = callIt->second;
    if (!durable) {
        // The decision could not be recorded, so it must not be delivered:
        // the agent gets a refusal instead, and that is recorded too.
        const Decision d = auditRefusal();
        call.decisionText.clear();
        appendDecisionText(call.decisionText, callId, d);
        call.kind = d.kind;
        call.ran.reset();
        m_sessions.reweigh(*session, call);
    }
    call.durable = true;
    for (ConnectionId waiter : call.waiters)
        m_outbound->send(waiter, call.decisionText);
    m_record.clear();
    writeDeliveredRecord(m_record, subjectOf(*session), callId, call.toolName, call.kind,
        call.waiters.size(), false, !durable || refusedForAudit);
    call.waiters.clear();
    // Read before the record's activity runs slots, which may decide calls.
    const DecisionKind kind = call.kind;
    appendWritten("delivered");
    Q_EMIT callEvent({ CallEvent::Step::Delivered, session->id, callId, kind, {}, {}, false });
}

} // namespace holdpoint
