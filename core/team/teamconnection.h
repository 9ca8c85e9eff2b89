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
// - Notifications are not replayed after a reconnect, so `connected` is
//   emitted on every (re)open: read the state again then.

#include "team/teamdb.h"

#include <QObject>
#include <QThread>

#include <functional>
#include <memory>
#include <string>

namespace holdpoint::team {

class ConnectionWorker;

class TeamConnection final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        bool migrate = true; // create or migrate the schema on every open
        TimeMs minBackoffMs = 100;
        TimeMs maxBackoffMs = 5'000;
    };

    TeamConnection(std::string url, Options options, QObject *parent = nullptr);
    explicit TeamConnection(std::string url, QObject *parent = nullptr)
        : TeamConnection(std::move(url), Options {}, parent)
    { }
    ~TeamConnection() override;

    void start();
    bool isConnected() const { return m_connected; }
    const QString &lastError() const { return m_lastError; }

    enum class WhenDown
    {
        Wait, // queue the job until the connection is back
        Fail, // fail it at once with a retryable TeamError
    };

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

Q_SIGNALS:
    // Opened, or opened again: notifications may have been missed.
    void connected();
    void disconnected(const QString &why);
    // A NOTIFY on the team channel: "<kind> <id>".
    void notified(const QString &kind, const QString &id);

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
    QString m_lastError;
};

} // namespace holdpoint::team
