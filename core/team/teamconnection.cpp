// SPDX-License-Identifier: Apache-2.0
#include "teamconnection.h"

#include <QPointer>
#include <QRandomGenerator>
#include <QSocketNotifier>
#include <QTimer>

#include <pqxx/pqxx>

#include <deque>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace holdpoint::team {

namespace {

// When `fd` last received data, from the kernel's TCP_INFO; the distant
// past for a socket that is not TCP (a Unix socket), or on any error.
std::chrono::steady_clock::time_point lastHeard(int fd)
{
    tcp_info info {};
    socklen_t size = sizeof info;
    if (fd < 0 || ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0
        || size < offsetof(tcp_info, tcpi_last_data_recv) + sizeof info.tcpi_last_data_recv)
        return std::chrono::steady_clock::time_point::min();
    return std::chrono::steady_clock::now() - std::chrono::milliseconds(info.tcpi_last_data_recv);
}

} // namespace

AnswerDeadline::AnswerDeadline(TimeMs timeoutMs)
    : m_timeoutMs(std::max<TimeMs>(timeoutMs, 1))
    , m_thread([this] { watch(); })
{ }

AnswerDeadline::~AnswerDeadline()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    if (m_fd >= 0)
        ::close(m_fd);
}

void AnswerDeadline::arm(int fd, TimeMs limitMs)
{
    // A descriptor of our own for the same socket: libpq closes its own when
    // it sees the connection end, inside the armed call, and another thread
    // may then get that number for another file. This one stays ours until
    // disarm(), so shutdown() and TCP_INFO never reach anything else. If
    // there is none to be had (EMFILE), this span has no deadline.
    const int own = fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    int stale = -1;
    {
        std::lock_guard lock(m_mutex);
        stale = m_fd;
        m_armed = own >= 0;
        m_fired = false;
        m_fd = own;
        m_limitMs = limitMs > 0 ? limitMs : m_timeoutMs;
        m_since = Clock::now();
        ++m_generation;
    }
    if (stale >= 0)
        ::close(stale);
    m_wake.notify_all();
}

bool AnswerDeadline::disarm()
{
    int own = -1;
    bool fired = false;
    {
        std::lock_guard lock(m_mutex);
        fired = m_fired;
        own = m_fd;
        m_armed = false;
        m_fired = false;
        m_fd = -1;
    }
    if (own >= 0)
        ::close(own);
    return fired;
}

std::string AnswerDeadline::message() const
{
    const TimeMs limit = m_limitMs;
    const std::string span
        = limit % 1000 == 0 ? std::to_string(limit / 1000) + " s" : std::to_string(limit) + " ms";
    return "no answer from the team database in " + span;
}

void AnswerDeadline::watch()
{
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        if (!m_armed) {
            m_wake.wait(lock);
            continue;
        }
        const std::uint64_t generation = m_generation;
        const Clock::time_point due
            = std::max(m_since, lastHeard(m_fd)) + std::chrono::milliseconds(m_limitMs);
        if (Clock::now() < due) {
            // Woken early by arm(), disarm() or the destructor, or at `due`:
            // either way everything is read again, under the lock.
            m_wake.wait_until(
                lock, due, [&] { return m_stop || m_generation != generation || !m_armed; });
            continue;
        }
        // Still armed, in this critical section: the owner has not closed
        // the descriptor, since it disarms first. The blocked libpq call
        // sees the socket end and returns.
        ::shutdown(m_fd, SHUT_RDWR);
        m_fired = true;
        m_armed = false;
    }
}

// Lives on TeamConnection's thread; everything here runs there.
class ConnectionWorker final : public QObject
{
    Q_OBJECT

    // Hands a NOTIFY payload on the team channel to the worker.
    class Receiver final : public pqxx::notification_receiver
    {
    public:
        Receiver(pqxx::connection_base &c, std::function<void(const std::string &)> onPayload)
            : pqxx::notification_receiver(c, NotifyChannel)
            , m_onPayload(std::move(onPayload))
        { }
        void operator()(const std::string &payload, int) override { m_onPayload(payload); }

    private:
        std::function<void(const std::string &)> m_onPayload;
    };

public:
    struct Job
    {
        std::function<void(pqxx::connection_base &)> run;
        std::function<void()> done;
        std::function<void(const TeamError &)> failed;
        TeamConnection::WhenDown whenDown;
    };

    ConnectionWorker(std::string url, TeamConnection::Options options, TeamConnection *owner)
        : m_url(std::move(url))
        , m_options(options)
        , m_owner(owner)
        , m_deadline(options.answerTimeoutMs)
        , m_retry(this)
    {
        m_retry.setSingleShot(true);
        connect(&m_retry, &QTimer::timeout, this, &ConnectionWorker::open);
    }

    ~ConnectionWorker() override { closeConnection(); }

    void open()
    {
        if (m_conn)
            return;
        try {
            // connect_timeout bounds the handshake; the statements after it
            // (the session's settings, LISTEN) have the answer deadline, and
            // a migration a longer one: it may wait for another instance's.
            // The receiver is destroyed before `c` if that throws.
            auto c = team::connect(m_url);
            std::unique_ptr<Receiver> receiver;
            m_deadline.run(c->sock(),
                [&] { limitIdleTransactions(*c, IdleTransactionFactor * m_deadline.timeoutMs()); });
            if (m_options.migrate)
                m_deadline.run(
                    c->sock(), [&] { migrate(*c); },
                    std::max(MigrationAnswerMs, m_deadline.timeoutMs()));
            m_deadline.run(c->sock(), [&] {
                receiver = std::make_unique<Receiver>(
                    *c, [this](const std::string &payload) { onPayload(payload); });
            });
            m_conn = std::move(c);
            m_receiver = std::move(receiver);
        } catch (const TeamError &e) {
            closeConnection();
            reportDown(QString::fromStdString(e.what()));
            if (!e.retryable())
                failAll(e); // a wrong URL or schema does not mend itself, but keep trying: an admin
                            // may fix it
            scheduleRetry();
            return;
        } catch (const std::exception &e) {
            closeConnection();
            reportDown(QString::fromUtf8(e.what()));
            scheduleRetry();
            return;
        }
        m_backoff = 0;
        m_notifier = std::make_unique<QSocketNotifier>(m_conn->sock(), QSocketNotifier::Read);
        connect(
            m_notifier.get(), &QSocketNotifier::activated, this, [this] { readNotifications(); });
        QMetaObject::invokeMethod(m_owner, [owner = QPointer<TeamConnection>(m_owner)] {
            if (owner)
                owner->onConnected();
        });
        readNotifications();
        drain();
    }

    void enqueue(Job job)
    {
        if (!m_conn && job.whenDown == TeamConnection::WhenDown::Fail) {
            fail(job,
                TeamError("the team database is unreachable: " + m_lastError.toStdString(), true));
            return;
        }
        m_jobs.push_back(std::move(job));
        drain();
    }

private:
    void drain()
    {
        while (m_conn && !m_jobs.empty()) {
            Job &job = m_jobs.front();
            try {
                // A job that hears nothing in time throws a connection
                // failure (08006) and is handled as one below.
                m_deadline.run(m_conn->sock(), [&] { job.run(*m_conn); });
            } catch (const TeamError &e) {
                if (e.retryable()
                    && (!m_conn->is_open() || e.sqlState().empty()
                        || e.sqlState().rfind("08", 0) == 0 || e.sqlState().rfind("57P", 0) == 0)) {
                    lost(QString::fromStdString(e.what()));
                    return; // the job stays first and runs again after the reconnect
                }
                if (e.retryable()) // a serialisation failure or deadlock: run it again now
                    continue;
                Job failedJob = std::move(job);
                m_jobs.pop_front();
                fail(failedJob, e);
                continue;
            } catch (const std::exception &e) {
                Job failedJob = std::move(job);
                m_jobs.pop_front();
                fail(failedJob, TeamError(e.what()));
                continue;
            }
            auto done = std::move(job.done);
            m_jobs.pop_front();
            if (done)
                QMetaObject::invokeMethod(m_owner, std::move(done));
            readNotifications();
        }
    }

    void readNotifications()
    {
        if (!m_conn)
            return;
        try {
            m_conn->get_notifs();
            if (!m_conn->is_open())
                lost(QStringLiteral("the team database closed the connection"));
        } catch (const std::exception &e) {
            lost(QString::fromUtf8(e.what()));
        }
    }

    void onPayload(const std::string &payload)
    {
        const auto space = payload.find(' ');
        const QString kind = QString::fromStdString(payload.substr(0, space));
        const QString id = space == std::string::npos
            ? QString()
            : QString::fromStdString(payload.substr(space + 1));
        QMetaObject::invokeMethod(m_owner, [owner = QPointer<TeamConnection>(m_owner), kind, id] {
            if (owner)
                Q_EMIT owner->notified(kind, id);
        });
    }

    void lost(const QString &why)
    {
        closeConnection();
        reportDown(why.contains(QStringLiteral("team database"))
                ? why.trimmed()
                : QStringLiteral("lost the connection to the team database: ") + why.trimmed());
        // Jobs that must not wait fail now; the rest wait for the reconnect.
        for (auto it = m_jobs.begin(); it != m_jobs.end();) {
            if (it->whenDown == TeamConnection::WhenDown::Fail) {
                Job job = std::move(*it);
                it = m_jobs.erase(it);
                fail(
                    job, TeamError("the team database is unreachable: " + why.toStdString(), true));
            } else {
                ++it;
            }
        }
        scheduleRetry();
    }

    void closeConnection()
    {
        m_notifier.reset();
        // A receiver going away sends UNLISTEN while the connection looks
        // open: that has the deadline too. Closing the socket must not (the
        // deadline never touches a descriptor it is not armed on).
        if (m_receiver && m_conn) {
            try {
                m_deadline.run(m_conn->sock(), [&] { m_receiver.reset(); });
            } catch (const std::exception &) {
                // the connection goes anyway
            }
        }
        m_receiver.reset();
        m_conn.reset();
    }

    void reportDown(const QString &why)
    {
        m_lastError = why;
        QMetaObject::invokeMethod(m_owner, [owner = QPointer<TeamConnection>(m_owner), why] {
            if (owner)
                owner->onDisconnected(why);
        });
    }

    void scheduleRetry()
    {
        if (m_retry.isActive())
            return;
        m_backoff = m_backoff == 0 ? m_options.minBackoffMs
                                   : std::min(m_backoff * 2, m_options.maxBackoffMs);
        // Jitter, so that a fleet of gateways does not reconnect in step.
        const auto jitter = QRandomGenerator::global()->bounded(int(m_backoff / 4) + 1);
        m_retry.start(int(m_backoff + jitter));
    }

    void failAll(const TeamError &e)
    {
        auto jobs = std::move(m_jobs);
        m_jobs.clear();
        for (auto &job : jobs)
            fail(job, e);
    }

    void fail(Job &job, const TeamError &e)
    {
        if (!job.failed)
            return;
        QMetaObject::invokeMethod(m_owner, [failed = std::move(job.failed), e] { failed(e); });
    }

    std::string m_url;
    TeamConnection::Options m_options;
    TeamConnection *m_owner;
    AnswerDeadline m_deadline;
    std::unique_ptr<pqxx::connection> m_conn;
    std::unique_ptr<Receiver> m_receiver;
    std::unique_ptr<QSocketNotifier> m_notifier;
    std::deque<Job> m_jobs;
    QTimer m_retry;
    TimeMs m_backoff = 0;
    QString m_lastError;
};

TeamConnection::TeamConnection(std::string url, Options options, QObject *parent)
    : TeamLink(parent)
{
    m_thread.setObjectName(QStringLiteral("holdpoint-team"));
    m_worker = new ConnectionWorker(std::move(url), options, this);
    m_worker->moveToThread(&m_thread);
}

TeamConnection::~TeamConnection()
{
    if (!m_thread.isRunning()) {
        delete m_worker;
        return;
    }
    // The worker is deleted on its own thread: QThread runs deferred
    // deletions as it finishes.
    m_worker->deleteLater();
    m_thread.quit();
    m_thread.wait();
}

void TeamConnection::start()
{
    if (m_thread.isRunning())
        return;
    m_thread.start();
    QMetaObject::invokeMethod(m_worker, &ConnectionWorker::open);
}

void TeamConnection::onConnected()
{
    if (m_everConnected)
        ++m_reconnects;
    m_everConnected = true;
    m_connected = true;
    m_lastError.clear();
    Q_EMIT connected();
}

void TeamConnection::onDisconnected(const QString &why)
{
    const bool was = m_connected;
    m_connected = false;
    m_lastError = why;
    if (was || !m_everReported) {
        m_everReported = true;
        Q_EMIT disconnected(why);
    }
}

void TeamConnection::post(std::function<void(pqxx::connection_base &)> job,
    std::function<void()> done, std::function<void(const TeamError &)> failed, WhenDown whenDown)
{
    QMetaObject::invokeMethod(m_worker,
        [worker = m_worker,
            j = ConnectionWorker::Job { std::move(job), std::move(done), std::move(failed),
                whenDown }]() mutable { worker->enqueue(std::move(j)); });
}

} // namespace holdpoint::team

#include "teamconnection.moc"
