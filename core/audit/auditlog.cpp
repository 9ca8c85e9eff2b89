// SPDX-License-Identifier: Apache-2.0
#include "auditlog.h"

#include "common/datadir.h"
#include "common/jsonwriter.h"

#include <QAbstractEventDispatcher>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace holdpoint {

namespace {

std::string errnoText(const char *what, const QString &path)
{
    return std::string(what) + " " + path.toStdString() + ": " + std::strerror(errno);
}

bool syncDir(const QString &dir)
{
    const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

} // namespace

AuditLog::AuditLog(AuditConfig config, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_clock(clock)
{
    m_openRetry.setInterval(m_config.retryMs);
    connect(&m_openRetry, &QTimer::timeout, this, &AuditLog::tryOpen);
    // An inline flush runs when the event loop is about to wait, after
    // everything this iteration brought; the zero timer is for loops that
    // never wait (processEvents() without WaitForMoreEvents).
    m_flushSoon.setSingleShot(true);
    m_flushSoon.setInterval(0);
    connect(&m_flushSoon, &QTimer::timeout, this, &AuditLog::flushInline);
    m_linger.setSingleShot(true);
    m_linger.setInterval(m_config.lingerMs);
    connect(&m_linger, &QTimer::timeout, this, [this] {
        std::lock_guard lock(m_mutex);
        handOffLocked();
    });
}

AuditLog::~AuditLog()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_writer.joinable())
        m_writer.join();
    if (m_fd >= 0) {
        trimPadding(); // a clean stop leaves plain JSON lines
        ::close(m_fd);
    }
    if (m_headFd >= 0)
        ::close(m_headFd);
}

AuditOpenReport AuditLog::open()
{
    AuditOpenReport report;
    QString error;
    if (!ensurePrivateDir(m_config.dir, &error)) {
        onFailed(error);
        m_openRetry.start();
        return report;
    }

    // The chain continues from the newest complete record. Only the newest
    // file is read: `holdpoint-ctl audit verify` checks the whole chain.
    std::vector<audit::Segment> segments = audit::listSegments(m_config.dir);
    while (segments.size() > 1 && QFileInfo(segments.back().path).size() == 0) {
        QFile::remove(segments.back().path); // made by a rotation a crash interrupted
        segments.pop_back();
    }
    quint64 lastSeq = 0;
    std::string lastHash { audit::GenesisHash };
    if (!segments.empty()) {
        const audit::VerifyReport newest = audit::verifySegment(segments.back().path);
        if (newest.status == audit::VerifyStatus::Unreadable) {
            onFailed(QString::fromStdString(newest.message));
            m_openRetry.start();
            return report;
        }
        if (newest.status == audit::VerifyStatus::TornTail) {
            // Never synced, so never acknowledged: safe to cut.
            const qint64 size = QFileInfo(segments.back().path).size();
            if (::truncate(QFile::encodeName(segments.back().path).constData(), newest.tornOffset)
                != 0) {
                onFailed(QString::fromStdString(
                    errnoText("cannot truncate the torn record in", segments.back().path)));
                m_openRetry.start();
                return report;
            }
            report.tornBytes = size - newest.tornOffset;
            report.tornMessage = newest.message;
        } else if (newest.status == audit::VerifyStatus::Tampered) {
            report.problem = newest.message;
        }
        if (newest.records > 0) {
            lastSeq = newest.lastSeq;
            lastHash = newest.lastHash;
        } else if (segments.size() > 1) {
            const audit::VerifyReport before
                = audit::verifySegment(segments[segments.size() - 2].path);
            lastSeq = before.lastSeq;
            lastHash = before.lastHash;
        } else if (QString headError; auto head = audit::readHead(m_config.dir, &headError)) {
            // Every record pruned or the file emptied: the head still knows.
            lastSeq = head->seq;
            lastHash = head->hash;
        }
        m_segmentIndex = segments.back().index;
        m_segmentSize
            = newest.status == audit::VerifyStatus::TornTail ? newest.tornOffset : newest.dataBytes;
    } else {
        m_segmentIndex = 1;
        m_segmentSize = 0;
    }
    QString headError;
    if (auto head = audit::readHead(m_config.dir, &headError)) {
        m_head = *head;
        // Rewriting the head would erase the evidence: say it in the log.
        if (head->seq > lastSeq && report.problem.empty())
            report.problem = "the log ends at record " + std::to_string(lastSeq)
                + " but the head file vouched for record " + std::to_string(head->seq)
                + ": records " + std::to_string(lastSeq + 1) + " to " + std::to_string(head->seq)
                + " were cut off";
    } else if (!headError.isEmpty()) {
        report.problem = headError.toStdString();
    }
    m_head.seq = lastSeq;
    m_head.hash = lastHash;

    std::string why;
    if (!openSegment(&why)) {
        onFailed(QString::fromStdString(why));
        m_openRetry.start();
        return report;
    }
    const QString headPath = m_config.dir + u'/' + QLatin1String(audit::HeadFileName);
    m_headFd = ::open(QFile::encodeName(headPath).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_headFd < 0) {
        onFailed(QString::fromStdString(errnoText("cannot open", headPath)));
        ::close(m_fd);
        m_fd = -1;
        m_openRetry.start();
        return report;
    }
    writeHead(true);

    m_nextSeq = lastSeq + 1;
    m_lastHash = lastHash;
    m_durableSeq = lastSeq;
    m_writtenSeq = lastSeq;
    m_opened = true;
    m_openRetry.stop();
    report.lastSeq = lastSeq;

    // Records appended while the log could not be opened keep their order
    // and their time.
    std::vector<Unformatted> early = std::move(m_beforeOpen);
    m_beforeOpen.clear();
    for (Unformatted &u : early)
        formatAndQueue(m_nextSeq++, u.ts, u.event, u.body);
    if (!early.empty()) {
        std::lock_guard lock(m_mutex);
        m_handOff = true;
    }
    m_writer = std::thread([this] { writerLoop(); });
    if (QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance(thread()))
        connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, this, &AuditLog::flushInline);
    return report;
}

void AuditLog::tryOpen()
{
    // Callbacks of records appended before the log opened were refused
    // already; the records themselves are numbered and written now.
    if (!m_opened)
        open();
}

void AuditLog::formatAndQueue(quint64 seq, TimeMs ts, std::string_view event, std::string_view body)
{
    // Straight into the batch: the writer holds the lock only to take it.
    std::lock_guard lock(m_mutex);
    std::string &bytes = m_queued.bytes;
    const std::size_t start = bytes.size();
    audit::appendRecordLine(bytes, seq, ts, event, body, m_lastHash);
    audit::hashRecordInto(std::string_view(bytes).substr(start), m_lastHash);
    bytes += '\n';
    m_queued.lastSeq = seq;
    m_queued.lastHash = m_lastHash;
}

quint64 AuditLog::append(std::string_view event, const Json &fields, Done done)
{
    return append(m_clock->now(), event, fields, std::move(done));
}

quint64 AuditLog::append(TimeMs ts, std::string_view event, const Json &fields, Done done)
{
    m_body.clear();
    appendJson(m_body, fields);
    return appendBody(ts, event, m_body, std::move(done));
}

quint64 AuditLog::appendBody(TimeMs ts, std::string_view event, std::string_view body, Done done)
{
    quint64 seq;
    bool full;
    {
        std::lock_guard lock(m_mutex);
        full = qint64(m_queued.bytes.size()) >= m_config.maxBacklogBytes;
    }
    if (full) {
        // The disk has refused long enough to fill the backlog. The chain
        // stays whole; a records_lost record says how many went missing.
        ++m_droppedRecords;
        seq = 0;
    } else if (!m_opened) {
        // Numbered once the log opens; until then nothing can be durable.
        m_beforeOpen.push_back({ ts, std::string(event), std::string(body) });
        seq = 0;
    } else {
        seq = m_nextSeq++;
        formatAndQueue(seq, ts, event, body);
        if (done && !m_flushScheduled) {
            m_flushScheduled = true;
            m_flushSoon.start();
        } else if (!done && !m_linger.isActive()) {
            // A timer already running bounds this record's wait as well.
            m_linger.start();
        }
    }
    if (done) {
        if (!m_available || seq == 0)
            QMetaObject::invokeMethod(
                this, [done = std::move(done)] { done(false); }, Qt::QueuedConnection);
        else
            m_waiting.emplace_back(seq, std::move(done));
    }
    return seq;
}

bool AuditLog::waitDurable(int timeoutMs)
{
    if (!m_opened)
        return false;
    const quint64 target = m_nextSeq - 1;
    std::unique_lock lock(m_mutex);
    handOffLocked();
    m_progress.wait_for(lock, std::chrono::milliseconds(timeoutMs),
        [&] { return m_writtenSeq >= target || m_failed; });
    return m_writtenSeq >= target;
}

void AuditLog::onDurable(quint64 seq)
{
    m_durableSeq = std::max(m_durableSeq, seq);
    if (!m_available) {
        m_available = true;
        m_lastError.clear();
        if (m_droppedRecords > 0) {
            append("records_lost",
                Json { { "count", m_droppedRecords },
                    { "reason", "the log could not be written and its backlog was full" } });
            m_droppedRecords = 0;
        }
        Q_EMIT availabilityChanged(true, QString());
    }
    while (!m_waiting.empty() && m_waiting.front().first <= m_durableSeq) {
        Done done = std::move(m_waiting.front().second);
        m_waiting.pop_front();
        done(true);
    }
}

void AuditLog::onFailed(const QString &error)
{
    const bool changed = m_available || m_lastError != error;
    m_available = false;
    m_lastError = error;
    // Whatever waits now is refused; the records themselves stay queued and
    // reach the disk once it takes them again.
    std::deque<std::pair<quint64, Done>> waiting;
    waiting.swap(m_waiting);
    if (changed)
        Q_EMIT availabilityChanged(false, error);
    for (auto &[seq, done] : waiting)
        done(false);
}

bool AuditLog::openSegment(std::string *error)
{
    const QString path = m_config.dir + u'/' + audit::segmentFileName(m_segmentIndex);
    const bool existed = QFileInfo::exists(path);
    m_fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (m_fd < 0) {
        *error = errnoText("cannot open", path);
        return false;
    }
    struct stat st
    {
    };
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = "cannot use " + path.toStdString() + ": not a regular file";
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    // The durable size is what the chain vouches for; anything beyond it is
    // padding or a failed write's leftovers, zeroed afresh before use.
    if (st.st_size != m_segmentSize && ::ftruncate(m_fd, m_segmentSize) != 0) {
        *error = errnoText("cannot truncate", path);
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    if (!existed && !syncDir(m_config.dir)) {
        *error = errnoText("cannot sync the directory of", path);
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    m_allocated = m_segmentSize;
    m_head.segment = audit::segmentFileName(m_segmentIndex);
    return true;
}

bool AuditLog::preallocate(qint64 needed, std::string *error)
{
    if (needed <= m_allocated)
        return true;
    // Real zeros, synced now: space reserved with fallocate() would still
    // be converted, and journalled, by the sync that first writes into it.
    static const std::string zeros(std::size_t(64) << 10, '\0');
    const qint64 chunk = std::max<qint64>(m_config.preallocateBytes, 1);
    const qint64 target = needed + chunk - 1 - (needed - 1) % chunk;
    qint64 at = m_allocated;
    while (at < target) {
        const std::size_t n = std::size_t(std::min<qint64>(target - at, qint64(zeros.size())));
        const ssize_t written = ::pwrite(m_fd, zeros.data(), n, at);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            break;
        at += written;
    }
    if (at == target && ::fdatasync(m_fd) == 0) {
        m_allocated = target;
        return true;
    }
    *error = errnoText(at == target ? "cannot sync" : "cannot preallocate",
        m_config.dir + u'/' + audit::segmentFileName(m_segmentIndex));
    return false;
}

void AuditLog::trimPadding()
{
    if (m_allocated > m_segmentSize && ::ftruncate(m_fd, m_segmentSize) == 0)
        m_allocated = m_segmentSize;
}

void AuditLog::writeHead(bool sync)
{
    if (m_headFd < 0)
        return;
    const QByteArray bytes = audit::formatHead(m_head);
    // One write of one small block replaces it in place; it only ever names
    // records already synced, so a lost update leaves it behind, never ahead.
    if (::pwrite(m_headFd, bytes.constData(), std::size_t(bytes.size()), 0) == bytes.size() && sync)
        ::fdatasync(m_headFd);
}

bool AuditLog::writeBatch(Batch &batch, std::string *error)
{
    if (m_fd < 0 && !openSegment(error))
        return false;
    const QString path = m_config.dir + u'/' + audit::segmentFileName(m_segmentIndex);
    const char *p = batch.bytes.data();
    std::size_t left = batch.bytes.size();
    const auto started = std::chrono::steady_clock::now();
    // Into zeros already on disk: the sync carries the records alone.
    const bool room = preallocate(m_segmentSize + qint64(left), error);
    qint64 at = m_segmentSize;
    while (room && left > 0) {
        const ssize_t n = ::pwrite(m_fd, p, left, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = errnoText("cannot write", path);
            break;
        }
        p += n;
        at += n;
        left -= std::size_t(n);
    }
    const auto written = std::chrono::steady_clock::now();
    if (room && left == 0 && ::fdatasync(m_fd) == 0) {
        m_segmentSize += qint64(batch.bytes.size());
        m_syncs.fetch_add(1, std::memory_order_relaxed);
        if (m_config.onBatchSynced)
            m_config.onBatchSynced({ written - started, std::chrono::steady_clock::now() - written,
                qint64(batch.bytes.size()) });
        return true;
    }
    if (room && left == 0)
        *error = errnoText("cannot sync", path);
    // After a failed write or sync the kernel's view of the file cannot be
    // trusted (a retried fsync may succeed without the data): cut what this
    // attempt left, close it, and the retry reopens it, cuts it back to the
    // durable size again, pads it with fresh zeros and rewrites.
    if (::ftruncate(m_fd, m_segmentSize) != 0) {
        // The retry's open tries again.
    }
    ::close(m_fd);
    m_fd = -1;
    return false;
}

void AuditLog::rotateIfFull()
{
    if (m_segmentSize < m_config.maxSegmentBytes)
        return;
    trimPadding();
    ::close(m_fd);
    m_fd = -1;
    ++m_segmentIndex;
    m_segmentSize = 0;
    std::string error;
    if (openSegment(&error)) {
        writeHead(true);
        pruneOld();
    }
    // On failure the next batch retries the open.
}

void AuditLog::pruneOld()
{
    if (m_config.keepSegments <= 0)
        return;
    std::vector<audit::Segment> segments = audit::listSegments(m_config.dir);
    while (int(segments.size()) > m_config.keepSegments) {
        // The next file's first record says where the pruned one ended.
        QFile next(segments[1].path);
        if (!next.open(QIODevice::ReadOnly))
            return;
        const QByteArray first = next.readLine();
        const Json r = Json::parse(first.begin(), first.end(), nullptr, false);
        if (!r.is_object() || !r.value("seq", Json()).is_number_unsigned()
            || !r.value("prev", Json()).is_string())
            return;
        // The head learns of the pruning first, so a crash in between leaves
        // an extra file, never an unexplained gap.
        m_head.prunedThrough = r["seq"].get<quint64>() - 1;
        m_head.prunedHash = r["prev"].get<std::string>();
        writeHead(true);
        QFile::remove(segments.front().path);
        syncDir(m_config.dir);
        segments.erase(segments.begin());
    }
}

bool AuditLog::commit(Batch &batch, std::string *error)
{
    if (writeBatch(batch, error)) {
        {
            std::lock_guard lock(m_mutex);
            m_writtenSeq = batch.lastSeq;
            m_failed = false;
        }
        m_progress.notify_all();
        return true;
    }
    {
        std::lock_guard lock(m_mutex);
        if (!m_queued.bytes.empty()) {
            batch.bytes += m_queued.bytes;
            batch.lastSeq = m_queued.lastSeq;
            batch.lastHash = m_queued.lastHash;
        }
        m_queued = std::move(batch);
        m_failed = true;
        m_busy = false;
        m_handOff = true; // the writer retries
    }
    m_progress.notify_all();
    m_wake.notify_one();
    return false;
}

void AuditLog::afterCommit(const Batch &batch)
{
    m_head.seq = batch.lastSeq;
    m_head.hash = batch.lastHash;
    writeHead(false);
    rotateIfFull();
    bool writerWaits;
    {
        std::lock_guard lock(m_mutex);
        m_busy = false;
        writerWaits = m_handOff || m_stop;
    }
    if (writerWaits) // else waking it would only put it back to sleep
        m_wake.notify_one();
}

void AuditLog::handOffLocked()
{
    if (m_queued.bytes.empty())
        return;
    m_handOff = true;
    m_wake.notify_one();
}

void AuditLog::flushInline()
{
    if (!m_flushScheduled)
        return;
    m_flushScheduled = false;
    m_flushSoon.stop();
    Batch batch;
    {
        std::lock_guard lock(m_mutex);
        if (m_queued.bytes.empty())
            return; // the writer took it
        if (m_busy || m_failed || m_stop) {
            // The writer is syncing (or retrying): this batch follows,
            // collecting whatever comes meanwhile.
            return handOffLocked();
        }
        batch = std::move(m_queued);
        m_queued = Batch {};
        m_busy = true;
    }
    std::string error;
    if (!commit(batch, &error))
        return onFailed(QString::fromStdString(error)); // the writer retries
    // The decisions go out first; the head may lag a moment behind the
    // log, never run ahead of it.
    onDurable(batch.lastSeq);
    afterCommit(batch);
}

void AuditLog::writerLoop()
{
    for (;;) {
        Batch batch;
        {
            std::unique_lock lock(m_mutex);
            // Whatever is handed off, and everything at the stop, once an
            // inline flush is done.
            m_wake.wait(lock, [&] { return !m_busy && (m_stop || m_handOff); });
            m_handOff = false;
            if (m_queued.bytes.empty()) {
                if (m_stop)
                    return; // stopping with nothing left
                continue;
            }
            batch = std::move(m_queued);
            m_queued = Batch {};
            m_busy = true;
        }
        std::string error;
        if (commit(batch, &error)) {
            QMetaObject::invokeMethod(
                this, [this, seq = batch.lastSeq] { onDurable(seq); }, Qt::QueuedConnection);
            afterCommit(batch);
            continue;
        }
        // Tell the caller's thread, and try again after a pause (or once
        // more when stopping).
        QMetaObject::invokeMethod(
            this, [this, e = QString::fromStdString(error)] { onFailed(e); }, Qt::QueuedConnection);
        std::unique_lock lock(m_mutex);
        if (m_stop)
            return;
        // commit() put the batch back and handed it off again.
        m_wake.wait_for(lock, std::chrono::milliseconds(m_config.retryMs), [&] { return m_stop; });
    }
}

} // namespace holdpoint
