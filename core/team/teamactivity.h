// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the whole team did, for a console's History and Turns views: the
// team's audit table, followed by its sequence number. A console shows its
// own records as it writes them, so lines this instance wrote are skipped.

#include "common/json.h"
#include "team/teamlink.h"

#include <pqxx/connection>

#include <QObject>

#include <cstddef>
#include <deque>
#include <string>

namespace holdpoint::team {

// The lines after `afterSeq`, oldest first, at most `limit`; with a negative
// `afterSeq`, the newest `limit` lines, oldest first.
std::vector<AuditLine> auditSince(pqxx::connection_base &c, long long afterSeq, int limit);

// Of the lines `recent` (oldest first, each a seq and the hash of its text),
// the seq of the newest that the table still holds, word for word; -1 when
// none does. After a failover to a standby that had not received the newest
// lines, the table goes on from an earlier seq with other lines.
long long lastKept(
    pqxx::connection_base &c, const std::deque<std::pair<long long, std::size_t>> &recent);

// The lines after `afterSeq`, as auditSince(); when `recent` ends with
// `afterSeq`, first checks (in the same statement) that the table still has
// that line word for word, and otherwise reads on from lastKept().
AuditRead auditAfter(pqxx::connection_base &c, long long afterSeq, int limit,
    const std::deque<std::pair<long long, std::size_t>> &recent);

// A record as this instance's views take it: another gateway's session is
// named "<gateway>/<session>", as its items in the queue are.
Json viewRecord(const std::string &line, const std::string &self);

class TeamActivity final : public QObject
{
    Q_OBJECT
public:
    // On first contact the newest `backlog` lines; then everything new.
    TeamActivity(TeamLink *link, std::string self, int backlog = 2'000, QObject *parent = nullptr);

    // Reads what was added since the last read. A call while a read is on
    // its way makes one more read after it, never two at once. Each read
    // checks that the line read last is still there: after a failover it
    // may not be, and reading goes on from the newest one that is.
    void follow();

Q_SIGNALS:
    void record(const Json &record);

private:
    TeamLink *m_conn;
    std::string m_self;
    int m_backlog;
    // How many lines' hashes are kept to find where a failover forked.
    static constexpr std::size_t Recent = 256;

    long long m_seq = -1; // the last line read; -1 before the first read
    std::deque<std::pair<long long, std::size_t>> m_recent; // seq, hash of the line
    bool m_reading = false;
    bool m_again = false;
};

} // namespace holdpoint::team
