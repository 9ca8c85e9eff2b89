// SPDX-License-Identifier: Apache-2.0
#include "auditshipper.h"

#include "protocol/decider.h"

#include <QUuid>

#include <optional>

namespace holdpoint::team {

AuditShipper::AuditShipper(TeamLink *link, Clock *clock, const TeamConfig *config, QObject *parent)
    : QObject(parent)
    , m_link(link)
    , m_config(config)
    , m_flush(clock, [this] { flush(); })
    , m_clock(clock)
{ }

void AuditShipper::escalated(
    const std::string &sessionId, const std::string &callId, const std::string &item)
{
    // Remembered until its decision is delivered; bounded, at the cost of
    // some `delivered` lines, should agents never be answered.
    constexpr std::size_t MaxRemembered = 100'000;
    if (m_escalatedCalls.size() >= MaxRemembered)
        m_escalatedCalls.clear();
    m_escalatedCalls[sessionId + '\n' + callId] = item;
}

void AuditShipper::copyRecord(const Json &record)
{
    const std::string event = record.value("event", std::string());
    std::string item;
    if (event == "delivered") {
        const auto it = m_escalatedCalls.find(
            record.value("session", std::string()) + '\n' + record.value("call_id", std::string()));
        if (it == m_escalatedCalls.end())
            return;
        item = std::move(it->second);
        m_escalatedCalls.erase(it);
    } else if (event != "call"
        && !(event == "decision" && record.value("state", std::string()) == "auto")) {
        return;
    }
    if (m_copies.size() + m_inFlight >= MaxWaiting) {
        ++m_lost;
        return;
    }
    Json fields = record;
    fields.erase("event");
    // A standing decision a person made (scope turn or session) is applied
    // here automatically; the copy says so without speaking in their name,
    // which only the database's own decision lines do (TEAM.md "The audit
    // chain").
    if (event == "decision"
        && protocol::Decider::of(fields.value("decided_by", std::string())).isPerson()) {
        fields["standing_by"] = fields["decided_by"];
        fields["decided_by"] = "standing";
    }
    fields["at"] = fields.value("ts", std::string());
    fields.erase("ts");
    fields["gateway"] = m_config->self.id;
    if (!item.empty())
        fields["item"] = std::move(item);
    m_copies.push_back({ event, std::move(fields) });
    // A copy holds the audit chain's head until it commits, and so holds up
    // every gateway's escalations: under load, write them in small batches
    // rather than one large one a second.
    // (Version 3 wrote them once a second: the bench's baseline does too.)
    if (m_copies.size() >= Batch && m_config->self.knows >= 4)
        flush();
    else if (m_flush.deadline() == NoDeadline)
        m_flush.setDeadline(m_clock->now() + FlushMs);
}

void AuditShipper::flush()
{
    m_flush.setDeadline(NoDeadline);
    if (m_copies.empty())
        return;
    std::vector<AuditEvent> batch = std::move(m_copies);
    m_copies.clear();
    if (m_lost) {
        batch.push_back({ "records_lost",
            Json { { "count", m_lost }, { "gateway", m_config->self.id },
                { "why", "the team database was away too long, or refused them" } } });
        m_lost = 0;
    }
    m_inFlight += batch.size();
    const std::size_t n = batch.size();
    if (m_run.empty())
        m_run = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
    // Version 3 has no append_audit_once; an instance acting as it copies as it did.
    std::optional<CopyBatch> once;
    if (m_config->self.knows >= 4)
        once = CopyBatch { m_run, ++m_batch };
    m_link->appendAudit(
        m_config->self.id, std::move(batch), std::move(once),
        [this](std::size_t written) { m_inFlight -= written; },
        [this, n](const TeamError &) {
            // Refused (schema 5 takes only this instance's own kinds of
            // line) or given up: the next batch says how many were lost.
            m_inFlight -= n;
            m_lost += n;
        });
}

} // namespace holdpoint::team
