// SPDX-License-Identifier: Apache-2.0
#pragma once

// Copies this process's audit records to the team's audit (TEAM.md "The
// audit chain"): calls, auto-decisions, and the delivery of an escalated
// call's decision, named by its item. Escalations, claims, a person's
// decisions and every ending are in the team's audit already, written with
// the change they record. Copies go in batches, at most about 1 s behind
// (a flush on the clock), or at once when 64 wait.

#include "common/clock.h"
#include "common/json.h"
#include "team/teamconfig.h"
#include "team/teamlink.h"

#include <QObject>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint::team {

class AuditShipper final : public QObject
{
    Q_OBJECT
public:
    // A batch goes at once when this many wait (schema 4 on).
    static constexpr std::size_t Batch = 64;
    // How long a copy may wait for its batch.
    static constexpr TimeMs FlushMs = 1'000;
    // Bounded while the database is away: this many records, then a count.
    static constexpr std::size_t MaxWaiting = 100'000;

    // `config` is the queue's: its id is set late.
    AuditShipper(TeamLink *link, Clock *clock, const TeamConfig *config, QObject *parent = nullptr);

    // An escalation of this process: its call's `delivered` record is
    // copied, named by `item`.
    void escalated(
        const std::string &sessionId, const std::string &callId, const std::string &item);
    // A record of this process's audit log (Broker::activity).
    void copyRecord(const Json &record);
    // Sends what waits.
    void flush();

    std::size_t waiting() const { return m_copies.size(); }
    std::size_t inFlight() const { return m_inFlight; }
    std::size_t lost() const { return m_lost; }

private:
    TeamLink *m_link;
    const TeamConfig *m_config;
    Alarm m_flush;
    std::vector<AuditEvent> m_copies; // waiting for the next flush
    std::unordered_map<std::string, std::string> m_escalatedCalls; // "<session>\n<call>" → item
    std::size_t m_inFlight = 0; // handed to the link, not yet written
    std::size_t m_lost = 0; // dropped while too many waited
    // Names each batch of copies, so a retry after a lost answer appends
    // nothing (append_audit_once): a random run per process, and a count.
    std::string m_run;
    long long m_batch = 0;
    Clock *m_clock;
};

} // namespace holdpoint::team
