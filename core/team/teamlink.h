// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the team's queue, presence and audit shipper ask of the database
// (TEAM.md "Statements"), as answers that come back later on the caller's
// thread. TeamConnection implements it over PostgreSQL; the tests fake it
// in memory (tests/common/faketeamlink.h), so leases, deadlines, batching
// and resync are tested without a database and without waiting.
//
// Each request says what happens while the link is down: those marked
// "fails when down" fail at once with a retryable TeamError (a reviewer's
// click must not wait); the rest wait for the link and run then. Every
// request is idempotent to a retry (TEAM.md "Retries are safe").

#include "team/teamtypes.h"

#include <QObject>
#include <QString>

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace holdpoint::team {

// One escalation of a batch: written (with what the row says now), or
// refused by the database for a reason of its own.
struct EscalationOutcome
{
    std::optional<Escalated> written;
    std::string error;
};

// A heartbeat (TeamPresence): this instance's row, its agents, the items
// past their deadline, its leases renewed; then every instance's state.
struct Beat
{
    Instance self;
    std::string agents; // a JSON array
    std::string claimAs; // the reviewer name the leases are in
    std::vector<std::string> claims;
    TimeMs leaseMs = 0;
};

struct BeatAnswer
{
    std::vector<InstanceState> instances;
    std::vector<std::string> lost; // leases that did not renew
};

// The state after a reconnect: every pending row, and the rows of the
// items shown here (whatever their state).
struct Resync
{
    std::vector<Row> pending;
    std::vector<Row> shown;
};

class TeamLink : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~TeamLink() override = default;

    enum class WhenDown
    {
        Wait, // queue the job until the connection is back
        Fail, // fail it at once with a retryable TeamError
    };
    template <typename T> using Done = std::function<void(T)>;
    using Failed = std::function<void(const TeamError &)>;

    virtual void start() = 0;
    virtual bool isConnected() const = 0;
    virtual const QString &lastError() const = 0;
    // Opens after the first: each one followed a lost connection.
    virtual quint64 reconnects() const = 0;

    // One transaction for the batch, or, refused for a reason other than
    // the connection, each alone; an instance knowing only version 3 writes
    // one statement per call. Waits while down.
    virtual void escalate(std::vector<Escalation> batch, int knows,
        Done<std::vector<EscalationOutcome>> done, Failed failed)
        = 0;
    // A reviewer's answer (holdpoint.review()). Fails when down.
    virtual void review(Decide d, Done<Decided> done, Failed failed) = 0;
    // A gateway ends its own item. Waits while down.
    virtual void withdraw(Withdraw w) = 0;
    // The editor lease. Fails when down.
    virtual void claim(std::string id, std::string instance, std::string reviewer, TimeMs leaseMs,
        Done<Claimed> done, Failed failed)
        = 0;
    // Fails when down (the lease runs out by itself).
    virtual void release(std::string id, std::string instance) = 0;
    // Wait while down.
    virtual void setAgentConnected(std::string gateway, std::string id, bool connected) = 0;
    virtual void setTurnFindings(std::string gateway, std::string session,
        std::optional<std::string> turn, std::string findings)
        = 0;
    // Who this login decides as. Fails when down.
    virtual void identify(std::string requested, Done<ReviewerSelf> done, Failed failed) = 0;
    // Every reviewer this login may act as. Fails when down.
    virtual void actingReviewers(Done<std::vector<std::string>> done, Failed failed) = 0;
    // Fails when down.
    virtual void beat(Beat beat, Done<BeatAnswer> done, Failed failed) = 0;
    // Ends the items past their deadline. Fails when down.
    virtual void expireDue(std::string instance) = 0;
    // Copies of audit records (append_audit_once with `once`). Waits while down.
    virtual void appendAudit(std::string instance, std::vector<AuditEvent> events,
        std::optional<CopyBatch> once, Done<std::size_t> done, Failed failed)
        = 0;
    // Rows by id, in the order given. Fails when down.
    virtual void rows(std::vector<std::string> ids, Done<std::vector<Row>> done, Failed failed) = 0;
    // Fails when down (without a word: the next connect resyncs).
    virtual void resync(std::vector<std::string> shown, Done<Resync> done) = 0;
    // The team audit after `afterSeq` (teamactivity.h auditAfter). Fails when down.
    virtual void readAudit(long long afterSeq, int limit,
        std::deque<std::pair<long long, std::size_t>> recent, Done<AuditRead> done, Failed failed)
        = 0;

Q_SIGNALS:
    // Opened, or opened again: notifications may have been missed.
    void connected();
    void disconnected(const QString &why);
    // A NOTIFY on the team channel: "<kind> <id>".
    void notified(const QString &kind, const QString &id);
};

} // namespace holdpoint::team
