// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "audit/auditfile.h"
#include "common/clock.h"
#include "common/json.h"

#include <QObject>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace holdpoint {

// One batch on its way to the disk: its writes (with the zeros written ahead
// of the records when the file needs more room) and its fdatasync.
struct AuditBatchTiming
{
    std::chrono::nanoseconds write { 0 };
    std::chrono::nanoseconds sync { 0 };
    qint64 bytes = 0;
};

struct AuditConfig
{
    QString dir; // <data dir>/audit
    qint64 maxSegmentBytes = 64LL << 20; // a new file once a file grows past this
    int keepSegments = 0; // files kept; 0 keeps all
    int retryMs = 1000; // after a failed write, try again this often
    qint64 maxBacklogBytes = 256LL << 20; // held in memory while the disk refuses
    // The newest file is zero-filled this far ahead of its records, so a
    // sync writes data alone, never a new file size (AUDIT.md).
    qint64 preallocateBytes = 4LL << 20;
    // A record nobody waits for rides along with the next awaited one, so
    // one fdatasync covers both; it waits at most this long on its own.
    int lingerMs = 20;
    // Told of every batch made durable, on the thread that wrote it (the
    // writer's, or the caller's for an inline flush): it must be quick and
    // thread-safe. For metrics; unset, nothing is measured.
    std::function<void(const AuditBatchTiming &)> onBatchSynced;
};

// What open() found.
struct AuditOpenReport
{
    quint64 lastSeq = 0;
    qint64 tornBytes = 0; // cut from the end: a record a crash left incomplete
    std::string tornMessage;
    std::string problem; // the newest file failed its own check
};

// The durable, hash-chained audit log (AUDIT.md). Records are appended on
// the caller's thread, in order; a writer thread writes and syncs them in
// batches, so concurrent decisions share one fdatasync (group commit).
// Records appended without a callback wait up to AuditConfig::lingerMs for
// one with a callback, so they share its sync instead of costing their own.
// When the writer is idle, a record with a callback is written and synced on
// the caller's thread as soon as its event loop gets to it, sparing two
// thread hand-offs; while the writer is busy, the next batch waits for it.
// `done` callbacks run on the caller's thread once the record is on disk,
// or with false when the log cannot be written. While it cannot, records
// wait in memory and the writer keeps trying; available() says which.
class AuditLog final : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(bool durable)>;

    AuditLog(AuditConfig config, Clock *clock, QObject *parent = nullptr);
    // Writes what it can of the backlog, then stops the writer.
    ~AuditLog() override;

    // Finds the chain's end, removes a torn last record, starts the writer.
    // A log that cannot be opened leaves the console unavailable, retrying.
    AuditOpenReport open();

    quint64 append(std::string_view event, const Json &fields, Done done = {});
    // With the time the event happened, when the caller took it already.
    quint64 append(TimeMs at, std::string_view event, const Json &fields, Done done = {});
    // With the fields already written: one JSON object's text as dumpJson()
    // writes it (common/jsonwriter.h), keys sorted, none of seq, ts, event
    // or prev. What the engine does for every call.
    quint64 appendBody(TimeMs at, std::string_view event, std::string_view body, Done done = {});
    bool available() const { return m_available; }
    QString lastError() const { return m_lastError; }
    quint64 lastSeq() const { return m_nextSeq - 1; }
    quint64 durableSeq() const { return m_durableSeq; }
    QString dir() const { return m_config.dir; }
    // Blocks until everything appended so far is durable, or the writer
    // failed, or `timeoutMs` passed. Runs no callbacks. True if durable.
    bool waitDurable(int timeoutMs);
    // How many batches were synced so far (for tests and benchmarks).
    quint64 syncs() const { return m_syncs.load(std::memory_order_relaxed); }

Q_SIGNALS:
    void availabilityChanged(bool available, const QString &error);

private:
    struct Batch
    {
        std::string bytes;
        quint64 lastSeq = 0;
        std::string lastHash;
    };
    void writerLoop();
    void flushInline();
    // With m_mutex held: the writer takes whatever is queued.
    void handOffLocked();
    // Writes and syncs a batch taken with m_busy set. A batch that failed
    // goes back in front of the queue and m_busy is cleared; after success
    // afterCommit() updates the head, rotates, and clears it.
    bool commit(Batch &batch, std::string *error);
    void afterCommit(const Batch &batch);
    bool writeBatch(Batch &batch, std::string *error);
    bool preallocate(qint64 needed, std::string *error);
    void trimPadding();
    bool openSegment(std::string *error);
    void rotateIfFull();
    void pruneOld();
    void writeHead(bool sync);
    void onDurable(quint64 seq);
    void onFailed(const QString &error);
    void tryOpen();
    void formatAndQueue(quint64 seq, TimeMs ts, std::string_view event, std::string_view body);

    AuditConfig m_config;
    Clock *m_clock;
    bool m_opened = false;
    bool m_available = true;
    QString m_lastError;
    QTimer m_openRetry;

    // Caller's thread.
    quint64 m_nextSeq = 1;
    std::string m_lastHash { audit::GenesisHash };
    quint64 m_durableSeq = 0;
    std::deque<std::pair<quint64, Done>> m_waiting;
    std::string m_body; // the Json overloads' fields, written
    struct Unformatted
    {
        TimeMs ts;
        std::string event;
        std::string body;
    }; // numbered once the log opens
    std::vector<Unformatted> m_beforeOpen;
    qint64 m_droppedRecords = 0;
    bool m_flushScheduled = false;
    QTimer m_flushSoon; // an inline flush, if the loop does not wait first
    QTimer m_linger; // hands records nobody waits for to the writer

    // Shared with the writer.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_progress;
    Batch m_queued;
    bool m_busy = false; // a batch is being written, by the writer or inline
    bool m_handOff = false; // the writer takes the queue as soon as it can
    std::atomic<quint64> m_syncs { 0 };
    quint64 m_writtenSeq = 0; // durable, as the writer knows it
    bool m_failed = false; // the writer's last attempt failed
    bool m_stop = false;

    // Writer thread only (and open() before it starts).
    int m_fd = -1;
    int m_headFd = -1;
    quint64 m_segmentIndex = 0;
    qint64 m_segmentSize = 0; // durable bytes in the current segment
    qint64 m_allocated = 0; // its size on disk: records, then zeros
    audit::Head m_head;
    std::thread m_writer;
};

} // namespace holdpoint
