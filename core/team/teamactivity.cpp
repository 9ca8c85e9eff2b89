// SPDX-License-Identifier: Apache-2.0
#include "teamactivity.h"

#include "team/teamdb.h"

#include <pqxx/pqxx>

#include <functional>

namespace holdpoint::team {

namespace {

constexpr int Batch = 5'000;

} // namespace

std::vector<AuditLine> auditSince(pqxx::connection_base &c, long long afterSeq, int limit)
{
    try {
        pqxx::nontransaction tx(c);
        const pqxx::result rows = afterSeq < 0
            ? tx.exec_params("SELECT seq, instance, line FROM (SELECT seq, instance, line FROM "
                             "holdpoint.audit ORDER BY seq DESC LIMIT $1) newest ORDER BY seq",
                limit)
            : tx.exec_params("SELECT seq, instance, line FROM holdpoint.audit WHERE seq > $1 "
                             "ORDER BY seq LIMIT $2",
                afterSeq, limit);
        std::vector<AuditLine> out;
        out.reserve(rows.size());
        for (const auto &r : rows)
            out.push_back({ r[0].as<long long>(),
                r[1].is_null() ? std::string() : r[1].as<std::string>(), r[2].as<std::string>() });
        return out;
    } catch (const pqxx::broken_connection &e) {
        throw TeamError(std::string("reading the team audit: ") + e.what(), true);
    } catch (const pqxx::failure &e) {
        throw TeamError(std::string("reading the team audit: ") + e.what(), !c.is_open());
    }
}

long long lastKept(
    pqxx::connection_base &c, const std::deque<std::pair<long long, std::size_t>> &recent)
{
    if (recent.empty())
        return -1;
    try {
        pqxx::nontransaction tx(c);
        const pqxx::result rows = tx.exec_params(
            "SELECT seq, line FROM holdpoint.audit WHERE seq BETWEEN $1 AND $2 ORDER BY seq DESC",
            recent.front().first, recent.back().first);
        // Lines are hash-chained, so the newest one that matches vouches for
        // every line before it.
        const std::hash<std::string> hash;
        auto mine = recent.rbegin();
        for (const auto &r : rows) {
            const long long seq = r[0].as<long long>();
            while (mine != recent.rend() && mine->first > seq)
                ++mine;
            if (mine == recent.rend())
                break;
            if (mine->first == seq && mine->second == hash(r[1].as<std::string>()))
                return seq;
        }
        return -1;
    } catch (const pqxx::broken_connection &e) {
        throw TeamError(std::string("reading the team audit: ") + e.what(), true);
    } catch (const pqxx::failure &e) {
        throw TeamError(std::string("reading the team audit: ") + e.what(), !c.is_open());
    }
}

AuditRead auditAfter(pqxx::connection_base &c, long long afterSeq, int limit,
    const std::deque<std::pair<long long, std::size_t>> &recent)
{
    AuditRead out;
    out.from = afterSeq;
    if (afterSeq < 0 || recent.empty() || recent.back().first != afterSeq) {
        out.lines = auditSince(c, afterSeq, limit);
        return out;
    }
    // The line at `afterSeq` comes first, to check in the same statement.
    std::vector<AuditLine> lines = auditSince(c, afterSeq - 1, limit + 1);
    if (!lines.empty() && lines.front().seq == afterSeq
        && std::hash<std::string>()(lines.front().line) == recent.back().second) {
        lines.erase(lines.begin());
        out.lines = std::move(lines);
        return out;
    }
    out.forked = true;
    const long long kept = lastKept(c, recent);
    // No line kept at all: the fork is older than what is remembered, so
    // reading goes on from before the oldest of it.
    out.from = kept >= 0 ? kept : recent.front().first - 1;
    out.lines = auditSince(c, out.from, limit);
    return out;
}

Json viewRecord(const std::string &line, const std::string &self)
{
    Json record = Json::parse(line, nullptr, false);
    if (!record.is_object())
        return Json();
    const std::string gateway = record.value("gateway", std::string());
    if (!gateway.empty() && gateway != self && record.contains("session")
        && record["session"].is_string())
        record["session"] = gateway + '/' + record["session"].get<std::string>();
    return record;
}

TeamActivity::TeamActivity(TeamLink *link, std::string self, int backlog, QObject *parent)
    : QObject(parent)
    , m_conn(link)
    , m_self(std::move(self))
    , m_backlog(backlog)
{ }

void TeamActivity::follow()
{
    if (m_reading) {
        m_again = true;
        return;
    }
    if (!m_conn->isConnected())
        return;
    m_reading = true;
    m_again = false;
    const long long after = m_seq;
    const int limit = after < 0 ? m_backlog : Batch;
    m_conn->readAudit(
        after, limit, m_recent,
        [this, limit](AuditRead read) {
            m_reading = false;
            if (read.forked) {
                m_seq = read.from;
                while (!m_recent.empty() && m_recent.back().first > m_seq)
                    m_recent.pop_back();
            }
            if (m_seq < 0 && read.lines.empty())
                m_seq = 0;
            const std::hash<std::string> hash;
            for (const AuditLine &l : read.lines) {
                m_seq = l.seq;
                m_recent.emplace_back(l.seq, hash(l.line));
                if (m_recent.size() > Recent)
                    m_recent.pop_front();
                if (l.instance == m_self)
                    continue;
                if (Json r = viewRecord(l.line, m_self); r.is_object())
                    Q_EMIT record(r);
            }
            if (m_again || int(read.lines.size()) == limit)
                follow();
        },
        [this](const TeamError &) {
            // The connection is gone; the next one reads from where this
            // left off, once it checked that is still there.
            m_reading = false;
            m_again = false;
        });
}

} // namespace holdpoint::team
