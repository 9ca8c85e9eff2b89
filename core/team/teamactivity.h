// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the whole team did, for a console's History and Turns views: the
// team's audit table, followed by its sequence number. A console shows its
// own records as it writes them, so lines this instance wrote are skipped.

#include "common/json.h"
#include "team/teamconnection.h"

#include <QObject>

#include <string>

namespace holdpoint::team {

struct AuditLine
{
    long long seq = 0;
    std::string instance; // who wrote it
    std::string line;
};

// The lines after `afterSeq`, oldest first, at most `limit`; with a negative
// `afterSeq`, the newest `limit` lines, oldest first.
std::vector<AuditLine> auditSince(pqxx::connection_base &c, long long afterSeq, int limit);

// A record as this instance's views take it: another gateway's session is
// named "<gateway>/<session>", as its items in the queue are.
Json viewRecord(const std::string &line, const std::string &self);

class TeamActivity final : public QObject
{
    Q_OBJECT
public:
    // On first contact the newest `backlog` lines; then everything new.
    TeamActivity(TeamConnection *connection, std::string self, int backlog = 2'000,
        QObject *parent = nullptr);

    // Reads what was added since the last read. A call while a read is on
    // its way makes one more read after it, never two at once.
    void follow();

Q_SIGNALS:
    void record(const Json &record);

private:
    TeamConnection *m_conn;
    std::string m_self;
    int m_backlog;
    long long m_seq = -1; // the last line read; -1 before the first read
    bool m_reading = false;
    bool m_again = false;
};

} // namespace holdpoint::team
