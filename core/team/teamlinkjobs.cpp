// SPDX-License-Identifier: Apache-2.0
// TeamConnection as a TeamLink: each request one job on the connection's
// thread, one or a few statements of teamdb.h.

#include "teamactivity.h"
#include "teamconnection.h"

namespace holdpoint::team {

void TeamConnection::escalate(std::vector<Escalation> batch, int knows,
    Done<std::vector<EscalationOutcome>> done, Failed failed)
{
    // One transaction for the batch. If the database refuses it for a reason
    // other than the connection, each goes alone, so one bad item does not
    // take the others down with it. Lost connections retry the whole job:
    // writing an escalation twice changes nothing.
    run<std::vector<EscalationOutcome>>(
        [batch = std::move(batch), knows](pqxx::connection_base &c) {
            std::vector<EscalationOutcome> out;
            try {
                for (Escalated &r : knows < 4 ? escalateEach(c, batch) : team::escalate(c, batch))
                    out.push_back({ std::move(r), {} });
                return out;
            } catch (const TeamError &error) {
                if (error.retryable() || batch.size() == 1)
                    throw;
            }
            for (const Escalation &e : batch) {
                try {
                    out.push_back({ team::escalate(c, e), {} });
                } catch (const TeamError &error) {
                    if (error.retryable())
                        throw;
                    out.push_back({ std::nullopt, error.what() });
                }
            }
            return out;
        },
        std::move(done), std::move(failed));
}

void TeamConnection::review(Decide d, Done<Decided> done, Failed failed)
{
    run<Decided>([d = std::move(d)](pqxx::connection_base &c) { return decide(c, d); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::withdraw(Withdraw w)
{
    run<Withdrawn>([w = std::move(w)](pqxx::connection_base &c) { return team::withdraw(c, w); },
        [](Withdrawn) {});
}

void TeamConnection::claim(std::string id, std::string instance, std::string reviewer,
    TimeMs leaseMs, Done<Claimed> done, Failed failed)
{
    run<Claimed>(
        [id = std::move(id), instance = std::move(instance), reviewer = std::move(reviewer),
            leaseMs](
            pqxx::connection_base &c) { return team::claim(c, id, instance, reviewer, leaseMs); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::release(std::string id, std::string instance)
{
    run<bool>([id = std::move(id), instance = std::move(instance)](
                  pqxx::connection_base &c) { return team::release(c, id, instance); },
        [](bool) {}, {}, WhenDown::Fail);
}

void TeamConnection::setAgentConnected(std::string gateway, std::string id, bool connected)
{
    run<bool>(
        [gateway = std::move(gateway), id = std::move(id), connected](pqxx::connection_base &c) {
            return team::setAgentConnected(c, gateway, id, connected);
        },
        [](bool) {});
}

void TeamConnection::setTurnFindings(
    std::string gateway, std::string session, std::optional<std::string> turn, std::string findings)
{
    run<int>(
        [gateway = std::move(gateway), session = std::move(session), turn = std::move(turn),
            findings = std::move(findings)](pqxx::connection_base &c) {
            return team::setTurnFindings(c, gateway, session, turn, findings);
        },
        [](int) {});
}

void TeamConnection::identify(std::string requested, Done<ReviewerSelf> done, Failed failed)
{
    run<ReviewerSelf>([requested = std::move(requested)](
                          pqxx::connection_base &c) { return reviewerForLogin(c, requested); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::actingReviewers(Done<std::vector<std::string>> done, Failed failed)
{
    run<std::vector<std::string>>([](pqxx::connection_base &c) { return team::actingReviewers(c); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::beat(Beat beat, Done<BeatAnswer> done, Failed failed)
{
    run<BeatAnswer>(
        [beat = std::move(beat)](pqxx::connection_base &c) {
            BeatAnswer b;
            heartbeat(c, beat.self);
            publishAgents(c, beat.self.id, beat.agents);
            team::expireDue(c, beat.self.id);
            for (const std::string &id : beat.claims) {
                try {
                    if (!team::claim(c, id, beat.self.id, beat.claimAs, beat.leaseMs).held)
                        b.lost.push_back(id);
                } catch (const TeamError &e) {
                    if (e.retryable())
                        throw;
                    b.lost.push_back(id); // refused (a disabled reviewer): the lease goes
                }
            }
            b.instances = instances(c);
            return b;
        },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::expireDue(std::string instance)
{
    run<std::vector<std::string>>(
        [instance = std::move(instance)](
            pqxx::connection_base &c) { return team::expireDue(c, instance); },
        [](std::vector<std::string>) {}, {}, WhenDown::Fail);
}

void TeamConnection::appendAudit(std::string instance, std::vector<AuditEvent> events,
    std::optional<CopyBatch> once, Done<std::size_t> done, Failed failed)
{
    run<std::size_t>(
        [instance = std::move(instance), events = std::move(events), once](
            pqxx::connection_base &c) {
            team::appendAudit(c, instance, events, once ? &*once : nullptr);
            return events.size();
        },
        std::move(done), std::move(failed));
}

void TeamConnection::rows(std::vector<std::string> ids, Done<std::vector<Row>> done, Failed failed)
{
    run<std::vector<Row>>(
        [ids = std::move(ids)](pqxx::connection_base &c) { return team::rows(c, ids); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

void TeamConnection::resync(std::vector<std::string> shown, Done<Resync> done)
{
    run<Resync>(
        [shown = std::move(shown)](pqxx::connection_base &c) {
            return Resync { pendingRows(c), team::rows(c, shown) };
        },
        std::move(done), {}, WhenDown::Fail);
}

void TeamConnection::readAudit(long long afterSeq, int limit,
    std::deque<std::pair<long long, std::size_t>> recent, Done<AuditRead> done, Failed failed)
{
    run<AuditRead>([afterSeq, limit, recent = std::move(recent)](
                       pqxx::connection_base &c) { return auditAfter(c, afterSeq, limit, recent); },
        std::move(done), std::move(failed), WhenDown::Fail);
}

} // namespace holdpoint::team
