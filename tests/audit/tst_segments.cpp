// SPDX-License-Identifier: Apache-2.0
// The audit log's newest file is padded with zeros ahead of its records, so
// each sync writes data alone (AUDIT.md, "Preallocated files"). What a crash
// can leave in that padding, and what verify and the next start make of it.

#include "audit/auditfile.h"
#include "audit/auditlog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

namespace {

constexpr qint64 Chunk = 64 << 10;

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

qsizetype recordBytes(const QByteArray &bytes)
{
    return qsizetype(
        audit::withoutPadding(std::string_view(bytes.constData(), std::size_t(bytes.size())))
            .size());
}

// Writes `bytes` at `offset` without changing the file's size otherwise:
// what a crash leaves when some pages of a write reached the disk.
bool writeAt(const QString &path, qint64 offset, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::ReadWrite) && f.seek(offset) && f.write(bytes) == bytes.size();
}

// A log with `n` durable records, still open: the state a kill -9 leaves.
class LiveLog
{
public:
    explicit LiveLog(int n, qint64 maxSegmentBytes = 64LL << 20)
        : m_clock(1'700'000'000'000)
    {
        AuditConfig config;
        config.dir = m_tmp.path() + QStringLiteral("/audit");
        config.preallocateBytes = Chunk;
        config.maxSegmentBytes = maxSegmentBytes;
        m_log = std::make_unique<AuditLog>(config, &m_clock);
        m_log->open();
        for (int i = 1; i <= n; ++i) {
            m_log->append("decision",
                Json { { "call_id", "c" + std::to_string(i) }, { "decision", "allow" } });
            m_clock.advance(1000);
            m_log->waitDurable(10'000);
        }
    }
    AuditLog &log() { return *m_log; }
    QString dir() const { return m_tmp.path() + QStringLiteral("/audit"); }
    // The files as they are now on disk, as a crash would leave them.
    QString crashCopy(QTemporaryDir *into) const
    {
        const QString copy = into->path() + QStringLiteral("/audit");
        QDir().mkpath(copy);
        for (const QFileInfo &fi : QDir(dir()).entryInfoList(QDir::Files))
            QFile::copy(fi.filePath(), copy + u'/' + fi.fileName());
        return copy;
    }
    void stop() { m_log.reset(); }

private:
    QTemporaryDir m_tmp;
    ManualClock m_clock;
    std::unique_ptr<AuditLog> m_log;
};

// What the next start finds in `dir`, and that the chain then goes on.
AuditOpenReport reopenAndAppend(const QString &dir)
{
    ManualClock clock(1'800'000'000'000);
    AuditConfig config;
    config.dir = dir;
    config.preallocateBytes = Chunk;
    AuditLog log(config, &clock);
    const AuditOpenReport report = log.open();
    log.append("console_started", Json::object());
    log.waitDurable(10'000);
    return report;
}

} // namespace

class TestSegments : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void liveFileIsPaddedAndACleanStopTrimsIt();
    void paddingGrowsAChunkAtATime();
    void zerosAfterTheLastRecordAreNotARecord();
    void tornWriteInsideThePaddingIsATornTail();
    void unwrittenPageInTheLastBatchIsATornTail();
    void zeroedRecordTheHeadVouchesForIsCaught();
    void finishedFilesCarryNoPadding();
};

void TestSegments::liveFileIsPaddedAndACleanStopTrimsIt()
{
    LiveLog live(10);
    const QString segment = live.dir() + u'/' + audit::segmentFileName(1);
    const QByteArray bytes = readAll(segment);
    QCOMPARE(bytes.size(), Chunk);
    const qsizetype records = recordBytes(bytes);
    QVERIFY(records > 0 && records < Chunk);
    QCOMPARE(bytes.at(records - 1), '\n');
    QCOMPARE(bytes.count('\n'), 10);
    QCOMPARE(audit::verify(live.dir()).status, audit::VerifyStatus::Intact);
    QCOMPARE(audit::verify(live.dir()).records, quint64(10));

    live.stop();
    const QByteArray after = readAll(segment);
    QCOMPARE(after.size(), records); // plain JSON lines again
    QCOMPARE(after, bytes.left(records));
    QCOMPARE(audit::verify(live.dir()).status, audit::VerifyStatus::Intact);
}

void TestSegments::paddingGrowsAChunkAtATime()
{
    LiveLog live(0);
    const QString segment = live.dir() + u'/' + audit::segmentFileName(1);
    // Records past the first chunk: the file grows by whole chunks, and
    // every sync is still one.
    const std::string filler(900, 'x');
    const quint64 syncsBefore = live.log().syncs();
    for (int i = 0; i < 200; ++i) {
        live.log().append(
            "decision", Json { { "call_id", "c" + std::to_string(i) }, { "note", filler } });
        QVERIFY(live.log().waitDurable(10'000));
    }
    QCOMPARE(live.log().syncs() - syncsBefore, quint64(200));
    const QByteArray bytes = readAll(segment);
    QVERIFY(recordBytes(bytes) > 2 * Chunk);
    QCOMPARE(bytes.size() % Chunk, 0);
    QVERIFY(bytes.size() - recordBytes(bytes) <= Chunk);
    QCOMPARE(audit::verify(live.dir()).records, quint64(200));
}

void TestSegments::zerosAfterTheLastRecordAreNotARecord()
{
    LiveLog live(5);
    QTemporaryDir crash;
    const QString copy = live.crashCopy(&crash);
    const audit::VerifyReport report = audit::verify(copy);
    QCOMPARE(report.status, audit::VerifyStatus::Intact);
    QCOMPARE(report.lastSeq, quint64(5));
    quint64 seen = 0;
    audit::forEachRecord(copy, [&](std::string_view, const Json &) { return ++seen, true; });
    QCOMPARE(seen, quint64(5));

    const AuditOpenReport open = reopenAndAppend(copy);
    QCOMPARE(open.lastSeq, quint64(5));
    QCOMPARE(open.tornBytes, qint64(0));
    QVERIFY(open.problem.empty());
    const audit::VerifyReport after = audit::verify(copy);
    QCOMPARE(after.status, audit::VerifyStatus::Intact);
    QCOMPARE(after.lastSeq, quint64(6));
}

void TestSegments::tornWriteInsideThePaddingIsATornTail()
{
    LiveLog live(6);
    QTemporaryDir crash;
    const QString copy = live.crashCopy(&crash);
    const QString segment = copy + u'/' + audit::segmentFileName(1);
    const qsizetype end = recordBytes(readAll(segment));
    // Half a record reached the disk before the crash; zeros follow it.
    const QByteArray half = R"({"seq":7,"ts":"2023-11-14T22:13:26.000Z","event":"decis)";
    QVERIFY(writeAt(segment, end, half));
    QCOMPARE(readAll(segment).size(), Chunk);

    const audit::VerifyReport report = audit::verify(copy);
    QCOMPARE(report.status, audit::VerifyStatus::TornTail);
    QCOMPARE(report.tornOffset, qint64(end));
    QCOMPARE(report.line, quint64(7));
    QVERIFY2(report.message.find("the last record is incomplete (55 bytes)") != std::string::npos,
        report.message.c_str());

    const AuditOpenReport open = reopenAndAppend(copy);
    QCOMPARE(open.tornBytes, qint64(Chunk - end));
    QCOMPARE(open.lastSeq, quint64(6));
    const audit::VerifyReport after = audit::verify(copy);
    QCOMPARE(after.status, audit::VerifyStatus::Intact);
    QCOMPARE(after.lastSeq, quint64(7));
}

void TestSegments::unwrittenPageInTheLastBatchIsATornTail()
{
    // A batch of two records, synced never: its second page reached the
    // disk, its first did not. Nothing in it was acknowledged.
    LiveLog live(4);
    QTemporaryDir crash;
    const QString copy = live.crashCopy(&crash);
    const QString segment = copy + u'/' + audit::segmentFileName(1);
    const qsizetype end = recordBytes(readAll(segment));
    const QByteArray lost(120, '\0');
    const QByteArray landed
        = R"(d","call_id":"c5","decision":"allow","prev":"x"})"
          "\n"
          R"({"seq":6,"ts":"2023-11-14T22:13:25.000Z","event":"decision","prev":"y"})"
          "\n";
    QVERIFY(writeAt(segment, end + lost.size(), landed));

    const audit::VerifyReport report = audit::verify(copy);
    QCOMPARE(report.status, audit::VerifyStatus::TornTail);
    QCOMPARE(report.lastSeq, quint64(4));
    QCOMPARE(report.tornOffset, qint64(end));

    const AuditOpenReport open = reopenAndAppend(copy);
    QCOMPARE(open.lastSeq, quint64(4));
    QVERIFY(open.tornBytes > 0);
    const audit::VerifyReport after = audit::verify(copy);
    QCOMPARE(after.status, audit::VerifyStatus::Intact);
    QCOMPARE(after.lastSeq, quint64(5));
    QVERIFY(!readAll(segment).contains("\"call_id\":\"c5\",\"decision\":\"allow\",\"prev\":\"x\""));
}

void TestSegments::zeroedRecordTheHeadVouchesForIsCaught()
{
    // Zeros over a record that was acknowledged are not a crash's doing:
    // the head file vouches for the records after it.
    LiveLog live(10);
    live.stop();
    const QString segment = live.dir() + u'/' + audit::segmentFileName(1);
    QByteArray bytes = readAll(segment);
    const qsizetype third = bytes.indexOf("{\"seq\":3,");
    const qsizetype thirdEnd = bytes.indexOf('\n', third);
    QVERIFY(third > 0 && thirdEnd > third);
    QVERIFY(writeAt(segment, third, QByteArray(thirdEnd - third, '\0')));

    const audit::VerifyReport report = audit::verify(live.dir());
    QCOMPARE(report.status, audit::VerifyStatus::CutOff);
    QVERIFY2(report.message.find("records 3 to 10 were cut off") != std::string::npos,
        report.message.c_str());
}

void TestSegments::finishedFilesCarryNoPadding()
{
    LiveLog live(40, 2048);
    const std::vector<audit::Segment> segments = audit::listSegments(live.dir());
    QVERIFY(segments.size() >= 3);
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        const QByteArray bytes = readAll(segments[i].path);
        QCOMPARE(recordBytes(bytes), bytes.size());
        QVERIFY(bytes.endsWith('\n'));
    }
    // The newest is padded once it holds a record (a rotation makes it empty).
    const QByteArray newest = readAll(segments.back().path);
    QCOMPARE(newest.size(), recordBytes(newest) > 0 ? Chunk : 0);
    const audit::VerifyReport report = audit::verify(live.dir());
    QCOMPARE(report.status, audit::VerifyStatus::Intact);
    QCOMPARE(report.records, quint64(40));
}

QTEST_GUILESS_MAIN(TestSegments)
#include "tst_segments.moc"
