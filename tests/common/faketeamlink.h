// SPDX-License-Identifier: Apache-2.0
#pragma once

// A TeamLink in memory: it records every request, in order, and keeps the
// answers' callbacks until the test answers them (answer() or fail()), so
// a test decides what the database says and when, with no PostgreSQL.
// As TeamConnection does, a request marked "fails when down" fails at once
// with a retryable error while the link is down.

#include "team/teamlink.h"

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace holdpoint::test {

class FakeTeamLink final : public team::TeamLink
{
public:
    using TeamError = team::TeamError;

    template <typename Request, typename Answer> struct Pending
    {
        Request request;
        Done<Answer> done;
        Failed failed;
    };
    struct ClaimRequest
    {
        std::string id, instance, reviewer;
        TimeMs leaseMs = 0;
    };
    struct AppendRequest
    {
        std::string instance;
        std::vector<team::AuditEvent> events;
        std::optional<team::CopyBatch> once;
    };

    // Every request's name, in the order asked: "escalate", "review", ...
    std::vector<std::string> calls;
    std::deque<Pending<std::vector<team::Escalation>, std::vector<team::EscalationOutcome>>>
        escalations;
    std::deque<Pending<team::Decide, team::Decided>> reviews;
    std::vector<team::Withdraw> withdrawals;
    std::deque<Pending<ClaimRequest, team::Claimed>> claims;
    std::vector<std::string> releases;
    std::vector<std::pair<std::string, bool>> agentConnections;
    std::deque<Pending<std::string, team::ReviewerSelf>> identities;
    std::deque<Pending<int, std::vector<std::string>>> actingReads;
    std::deque<Pending<team::Beat, team::BeatAnswer>> beats;
    std::vector<std::string> expiries;
    std::deque<Pending<AppendRequest, std::size_t>> appends;
    std::deque<Pending<std::vector<std::string>, std::vector<team::Row>>> rowReads;
    std::deque<Pending<std::vector<std::string>, team::Resync>> resyncs;
    std::deque<Pending<long long, team::AuditRead>> auditReads;

    // The link opens, or is lost.
    void up()
    {
        m_up = true;
        m_error.clear();
        Q_EMIT connected();
    }
    void down(const QString &why)
    {
        m_up = false;
        m_error = why;
        Q_EMIT disconnected(why);
    }
    void notify(const QString &kind, const QString &id) { Q_EMIT notified(kind, id); }

    // Answers the oldest request of `queue`, as the database would.
    template <typename Q, typename A> static void answer(Q &queue, A &&result)
    {
        auto p = std::move(queue.front());
        queue.pop_front();
        if (p.done)
            p.done(std::forward<A>(result));
    }
    template <typename Q> static void fail(Q &queue, const TeamError &error)
    {
        auto p = std::move(queue.front());
        queue.pop_front();
        if (p.failed)
            p.failed(error);
    }
    int count(const std::string &name) const
    {
        return int(std::count(calls.begin(), calls.end(), name));
    }

    void start() override { calls.push_back("start"); }
    bool isConnected() const override { return m_up; }
    const QString &lastError() const override { return m_error; }
    quint64 reconnects() const override { return 0; }

    void escalate(std::vector<team::Escalation> batch, int,
        Done<std::vector<team::EscalationOutcome>> done, Failed failed) override
    {
        calls.push_back("escalate");
        escalations.push_back({ std::move(batch), std::move(done), std::move(failed) });
    }
    void review(team::Decide d, Done<team::Decided> done, Failed failed) override
    {
        if (failIfDown("review", failed))
            return;
        reviews.push_back({ std::move(d), std::move(done), std::move(failed) });
    }
    void withdraw(team::Withdraw w) override
    {
        calls.push_back("withdraw");
        withdrawals.push_back(std::move(w));
    }
    void claim(std::string id, std::string instance, std::string reviewer, TimeMs leaseMs,
        Done<team::Claimed> done, Failed failed) override
    {
        if (failIfDown("claim", failed))
            return;
        claims.push_back({ { std::move(id), std::move(instance), std::move(reviewer), leaseMs },
            std::move(done), std::move(failed) });
    }
    void release(std::string id, std::string) override
    {
        if (failIfDown("release", {}))
            return;
        releases.push_back(std::move(id));
    }
    void setAgentConnected(std::string, std::string id, bool connected) override
    {
        calls.push_back("setAgentConnected");
        agentConnections.emplace_back(std::move(id), connected);
    }
    void setTurnFindings(std::string, std::string, std::optional<std::string>, std::string) override
    {
        calls.push_back("setTurnFindings");
    }
    void identify(std::string requested, Done<team::ReviewerSelf> done, Failed failed) override
    {
        if (failIfDown("identify", failed))
            return;
        identities.push_back({ std::move(requested), std::move(done), std::move(failed) });
    }
    void actingReviewers(Done<std::vector<std::string>> done, Failed failed) override
    {
        if (failIfDown("actingReviewers", failed))
            return;
        actingReads.push_back({ 0, std::move(done), std::move(failed) });
    }
    void beat(team::Beat b, Done<team::BeatAnswer> done, Failed failed) override
    {
        if (failIfDown("beat", failed))
            return;
        beats.push_back({ std::move(b), std::move(done), std::move(failed) });
    }
    void expireDue(std::string instance) override
    {
        if (failIfDown("expireDue", {}))
            return;
        expiries.push_back(std::move(instance));
    }
    void appendAudit(std::string instance, std::vector<team::AuditEvent> events,
        std::optional<team::CopyBatch> once, Done<std::size_t> done, Failed failed) override
    {
        calls.push_back("appendAudit");
        appends.push_back({ { std::move(instance), std::move(events), std::move(once) },
            std::move(done), std::move(failed) });
    }
    void rows(
        std::vector<std::string> ids, Done<std::vector<team::Row>> done, Failed failed) override
    {
        if (failIfDown("rows", failed))
            return;
        rowReads.push_back({ std::move(ids), std::move(done), std::move(failed) });
    }
    void resync(std::vector<std::string> shown, Done<team::Resync> done) override
    {
        if (failIfDown("resync", {}))
            return;
        resyncs.push_back({ std::move(shown), std::move(done), {} });
    }
    void readAudit(long long afterSeq, int, std::deque<std::pair<long long, std::size_t>>,
        Done<team::AuditRead> done, Failed failed) override
    {
        if (failIfDown("readAudit", failed))
            return;
        auditReads.push_back({ afterSeq, std::move(done), std::move(failed) });
    }

private:
    // TeamConnection's WhenDown::Fail: a retryable error at once.
    bool failIfDown(const std::string &name, const Failed &failed)
    {
        if (m_up) {
            calls.push_back(name);
            return false;
        }
        calls.push_back(name + " (down)");
        if (failed)
            failed(TeamError("the team database is unreachable", true, "08006"));
        return true;
    }

    bool m_up = false;
    QString m_error = QStringLiteral("connecting");
};

} // namespace holdpoint::test
