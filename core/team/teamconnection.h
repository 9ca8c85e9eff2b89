// SPDX-License-Identifier: Apache-2.0
#pragma once

// One connection to the team database, on a thread of its own, so that no
// statement ever blocks the endpoint's thread or the window's (TEAM.md
// "Threads and connections").
//
// - Jobs run in the order they were given, one at a time.
// - A lost connection is noticed on the socket, or by the job that hit it.
//   The connection then reopens with backoff (from 100 ms, doubling, up to
//   5 s), and the job that hit it runs again once it is open. Team
//   statements are idempotent to a retry: an escalation re-sent finds its
//   row, and a decision re-sent finds itself already made by this instance.
// - Every job has a deadline for an answer (AnswerDeadline): a server, a
//   pooler or a middlebox that goes silent mid-statement counts as a lost
//   connection once it passes, and the jobs behind it wait no longer.
// - Notifications are not replayed after a reconnect, so `connected` is
//   emitted on every (re)open: read the state again then.

#include "team/teamdb.h"
#include "team/teamlink.h"

#include <QObject>
#include <QThread>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>

namespace holdpoint::team {

class ConnectionWorker;

// The default time a statement may go without an answer (TEAM.md "Threads
// and connections"); `holdpoint --team-timeout-ms` sets another.
constexpr TimeMs DefaultAnswerTimeoutMs = ConnectionOptions {}.answerTimeoutMs;
// Creating or migrating the schema may wait for another instance doing it.
constexpr TimeMs MigrationAnswerMs = 60'000;
// The server ends a transaction left idle this many answer deadlines long
// (limitIdleTransactions): ours never pause mid-way longer than a round trip.
constexpr TimeMs IdleTransactionFactor = 3;

// A deadline for blocking libpq calls. libpqxx 6.4 blocks inside libpq and
// has no way to cancel from the side, so a thread of its own shuts the
// connection's socket down (shutdown(2), SHUT_RDWR) once the statements
// armed on it have had no answer for `timeoutMs`: the blocked call then
// returns with a broken connection, and its caller treats that as lost.
//
// "No answer" is measured from the later of arm() and the last data the
// socket received (Linux TCP_INFO), so a job of many quick statements on a
// slow link is not cut short, while one statement that hears nothing is. A
// Unix socket has no such figure: there the whole armed span has the limit.
//
// Race-free: arm() takes a descriptor of its own for the socket (dup), which
// libpq closing its descriptor inside the armed call does not free, and
// which disarm() closes; the thread decides and calls shutdown() on it in
// one critical section, only while armed. So no other file that gets the
// number libpq closed is ever touched. Each arm() starts a new
// generation, and the thread computes every deadline afresh after a wait,
// so one computed for an earlier job never fires on a later one.
class AnswerDeadline final
{
public:
    explicit AnswerDeadline(TimeMs timeoutMs = DefaultAnswerTimeoutMs);
    ~AnswerDeadline();
    AnswerDeadline(const AnswerDeadline &) = delete;
    AnswerDeadline &operator=(const AnswerDeadline &) = delete;

    // From now until disarm(), statements on `fd` must be answered in time:
    // within `limitMs`, or timeoutMs() when that is 0.
    void arm(int fd, TimeMs limitMs = 0);
    // Ends the span; true if the deadline passed and the socket was shut down.
    bool disarm();
    TimeMs timeoutMs() const { return m_timeoutMs; }
    // "no answer from the team database in 5 s", with the last span's limit
    std::string message() const;

    // Runs `fn` armed on `fd`. A call the deadline cut short (or that ended
    // just as it passed) throws a retryable TeamError with message() and
    // SQLSTATE 08006 (connection failure), whatever `fn` threw or returned.
    template <typename Fn> auto run(int fd, Fn &&fn, TimeMs limitMs = 0)
    {
        if constexpr (std::is_void_v<std::invoke_result_t<Fn &>>) {
            run(
                fd,
                [&fn] {
                    fn();
                    return true;
                },
                limitMs);
        } else {
            arm(fd, limitMs);
            try {
                auto result = fn();
                if (disarm())
                    throw late(); // caught below, where disarm() is false by then
                return result;
            } catch (...) {
                if (disarm())
                    throw late();
                throw;
            }
        }
    }

private:
    using Clock = std::chrono::steady_clock;
    TeamError late() const { return TeamError(message(), true, "08006"); }
    void watch();

    const TimeMs m_timeoutMs;
    TimeMs m_limitMs = m_timeoutMs; // the current (or last) span's
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    bool m_armed = false;
    bool m_fired = false;
    int m_fd = -1;
    std::uint64_t m_generation = 0;
    Clock::time_point m_since;
    std::thread m_thread; // last: started once the rest is set
};

class TeamConnection final : public TeamLink
{
    Q_OBJECT
public:
    using Options = ConnectionOptions;

    TeamConnection(std::string url, Options options, QObject *parent = nullptr);
    explicit TeamConnection(std::string url, QObject *parent = nullptr)
        : TeamConnection(std::move(url), Options {}, parent)
    { }
    ~TeamConnection() override;

    void start() override;
    bool isConnected() const override { return m_connected; }
    const QString &lastError() const override { return m_lastError; }
    // Successful opens after the first: each one followed a lost connection.
    quint64 reconnects() const override { return m_reconnects; }

    // Runs `job` on the connection's thread; `done` gets its result, or
    // `failed` its error, on this object's thread. A job that loses the
    // connection runs again after the reconnect unless `whenDown` is Fail.
    template <typename Result>
    void run(std::function<Result(pqxx::connection_base &)> job, std::function<void(Result)> done,
        std::function<void(const TeamError &)> failed = {}, WhenDown whenDown = WhenDown::Wait)
    {
        auto result = std::make_shared<Result>();
        post([job = std::move(job), result](pqxx::connection_base &c) { *result = job(c); },
            [done = std::move(done), result] {
                if (done)
                    done(std::move(*result));
            },
            std::move(failed), whenDown);
    }

    // TeamLink, each request one job (teamlinkjobs.cpp).
    void escalate(std::vector<Escalation> batch, int knows,
        Done<std::vector<EscalationOutcome>> done, Failed failed) override;
    void review(Decide d, Done<Decided> done, Failed failed) override;
    void withdraw(Withdraw w) override;
    void claim(std::string id, std::string instance, std::string reviewer, TimeMs leaseMs,
        Done<Claimed> done, Failed failed) override;
    void release(std::string id, std::string instance) override;
    void setAgentConnected(std::string gateway, std::string id, bool connected) override;
    void setTurnFindings(std::string gateway, std::string session, std::optional<std::string> turn,
        std::string findings) override;
    void identify(std::string requested, Done<ReviewerSelf> done, Failed failed) override;
    void actingReviewers(Done<std::vector<std::string>> done, Failed failed) override;
    void beat(Beat beat, Done<BeatAnswer> done, Failed failed) override;
    void expireDue(std::string instance) override;
    void appendAudit(std::string instance, std::vector<AuditEvent> events,
        std::optional<CopyBatch> once, Done<std::size_t> done, Failed failed) override;
    void rows(std::vector<std::string> ids, Done<std::vector<Row>> done, Failed failed) override;
    void resync(std::vector<std::string> shown, Done<Resync> done) override;
    void readAudit(long long afterSeq, int limit,
        std::deque<std::pair<long long, std::size_t>> recent, Done<AuditRead> done,
        Failed failed) override;

private:
    friend class ConnectionWorker;
    void onConnected();
    void onDisconnected(const QString &why);
    void post(std::function<void(pqxx::connection_base &)> job, std::function<void()> done,
        std::function<void(const TeamError &)> failed, WhenDown whenDown);

    QThread m_thread;
    ConnectionWorker *m_worker = nullptr;
    bool m_connected = false;
    bool m_everReported = false;
    bool m_everConnected = false;
    quint64 m_reconnects = 0;
    QString m_lastError;
};

} // namespace holdpoint::team
