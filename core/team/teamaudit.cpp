// SPDX-License-Identifier: Apache-2.0
#include "teamaudit.h"

#include "team/teamdb.h"

#include <pqxx/pqxx>

#include <limits>
#include <map>

namespace holdpoint::team {

namespace {

constexpr long long Chunk = 5'000;

std::string what(const std::exception &e)
{
    std::string m = e.what();
    while (!m.empty() && (m.back() == '\n' || m.back() == ' '))
        m.pop_back();
    return m;
}

} // namespace

audit::VerifyReport verifyAudit(pqxx::connection_base &c)
{
    audit::VerifyReport report;
    try {
        // One snapshot for the head and every chunk, so appends made while
        // we read neither show up half-way nor look like a cut.
        pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(c);
        const auto head = tx.exec("SELECT seq, hash FROM holdpoint.audit_head");
        if (head.empty()) {
            report.status = audit::VerifyStatus::Tampered;
            report.message = "the team audit's head row is gone";
            return report;
        }
        const auto headSeq = head[0][0].as<long long>();
        const auto headHash = head[0][1].as<std::string>();

        // The file log's walk (audit::ChainWalk), over rows instead of lines.
        audit::ChainWalk chain;
        std::map<std::string, quint64> writers;
        long long after = 0;
        for (;;) {
            const auto rows = tx.exec_params(
                "SELECT seq, line FROM holdpoint.audit WHERE seq > $1 ORDER BY seq LIMIT $2", after,
                Chunk);
            for (const auto &r : rows) {
                const auto seq = r[0].as<long long>();
                const std::string line = r[1].as<std::string>();
                after = seq;
                Json record;
                try {
                    record = Json::parse(line);
                } catch (const std::exception &) {
                    report.status = audit::VerifyStatus::Tampered;
                    report.message
                        = "record " + std::to_string(seq) + " is not JSON: it was altered";
                    return report;
                }
                const long long lineSeq = record.is_object() && record.contains("seq")
                        && record["seq"].is_number_integer()
                    ? record["seq"].get<long long>()
                    : -1;
                const long long expected = static_cast<long long>(chain.expected());
                if (const auto step = chain.expect(quint64(seq));
                    step != audit::ChainWalk::Step::Next) {
                    report.status = audit::VerifyStatus::Tampered;
                    report.message = step == audit::ChainWalk::Step::Gap
                        ? "expected record " + std::to_string(expected) + " but found record "
                            + std::to_string(seq) + "; record " + std::to_string(expected)
                            + (seq == expected + 1 ? " was" : " and after were") + " deleted"
                        : "record " + std::to_string(seq) + " appears twice";
                    return report;
                }
                if (lineSeq != seq) {
                    report.status = audit::VerifyStatus::Tampered;
                    report.message = "row " + std::to_string(seq) + " holds record "
                        + std::to_string(lineSeq) + ": records were reordered or altered";
                    return report;
                }
                const std::string prev = record.contains("prev") && record["prev"].is_string()
                    ? record["prev"].get<std::string>()
                    : std::string();
                if (chain.step(quint64(seq), prev, line) != audit::ChainWalk::Step::Next) {
                    report.status = audit::VerifyStatus::Tampered;
                    report.message = seq == 1
                        ? "record 1 was altered: it does not start the chain"
                        : "record " + std::to_string(seq - 1) + " was altered: record "
                            + std::to_string(seq) + " holds a different hash for it";
                    return report;
                }
                // Which database login wrote it: the database sets db_role.
                ++writers[record.contains("db_role") && record["db_role"].is_string()
                        ? record["db_role"].get<std::string>()
                        : std::string("(none)")];
                if (report.records == 0)
                    report.firstSeq = quint64(seq);
                ++report.records;
                report.lastSeq = quint64(seq);
            }
            if (rows.size() < std::size_t(Chunk))
                break;
        }
        report.lastHash = chain.prevHash();
        const long long last = static_cast<long long>(chain.expected()) - 1;
        if (last < headSeq) {
            report.status = audit::VerifyStatus::CutOff;
            report.message = "the team audit ends at record " + std::to_string(last)
                + " but its head vouches for record " + std::to_string(headSeq) + ": records "
                + std::to_string(last + 1) + " to " + std::to_string(headSeq) + " are gone";
        } else if (last > headSeq) {
            report.status = audit::VerifyStatus::Tampered;
            report.message = "records " + std::to_string(headSeq + 1) + " to "
                + std::to_string(last) + " were added behind the head's back";
        } else if (headSeq > 0 && chain.prevHash() != headHash) {
            report.status = audit::VerifyStatus::Tampered;
            report.message = "record " + std::to_string(last)
                + " was altered: its hash differs from the one in the head";
        } else {
            report.message = report.records == 0 ? "the team audit is empty"
                                                 : std::to_string(report.records)
                    + " records intact (records " + std::to_string(report.firstSeq) + " to "
                    + std::to_string(report.lastSeq) + ")";
            std::string by;
            for (const auto &[login, n] : writers)
                by += (by.empty() ? "; written by " : ", ") + login + " (" + std::to_string(n)
                    + ")";
            report.message += by;
        }
        return report;
    } catch (const pqxx::broken_connection &e) {
        report.status = audit::VerifyStatus::Unreadable;
        report.message = "lost the connection to the team database: " + what(e);
    } catch (const std::exception &e) {
        report.status = audit::VerifyStatus::Unreadable;
        report.message = "cannot read the team audit: " + what(e);
    }
    return report;
}

void queryAudit(pqxx::connection_base &c, const audit::Filter &filter, std::size_t limit,
    const audit::RecordFn &fn)
{
    const audit::LineTest test(filter);
    std::size_t given = 0;
    long long before = std::numeric_limits<long long>::max();
    try {
        pqxx::read_transaction tx(c);
        for (;;) {
            const auto rows = tx.exec_params(
                "SELECT seq, line FROM holdpoint.audit WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
                before, Chunk);
            for (const auto &r : rows) {
                before = r[0].as<long long>();
                const std::string line = r[1].as<std::string>();
                if (!test.mayMatch(line))
                    continue;
                Json record = Json::parse(line, nullptr, false);
                if (record.is_discarded() || !filter.matches(line, record))
                    continue;
                if (!fn(line, record))
                    return;
                if (limit && ++given >= limit)
                    return;
            }
            if (rows.size() < std::size_t(Chunk))
                return;
        }
    } catch (const pqxx::failure &e) {
        throw TeamError("cannot read the team audit: " + what(e), !c.is_open());
    }
}

} // namespace holdpoint::team
