// SPDX-License-Identifier: Apache-2.0
#pragma once

// The audit log on disk (AUDIT.md beside this file): segments of JSON lines
// forming one SHA-256 hash chain, and a head file naming the chain's end.
// Everything here reads; AuditLog writes.

#include "audit/auditfilter.h"
#include "common/clock.h"
#include "common/json.h"

#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint::audit {

inline constexpr std::string_view GenesisHash
    = "0000000000000000000000000000000000000000000000000000000000000000";
inline constexpr char DirName[] = "audit";
inline constexpr char HeadFileName[] = "head.json";
inline constexpr qsizetype HeadFileBytes = 512;

struct Segment
{
    QString path;
    quint64 index = 0;
};

QString segmentFileName(quint64 index);
// The segments in `dir`, oldest first.
std::vector<Segment> listSegments(const QString &dir);

// A record's line, without its newline. `fields` must not hold the keys the
// line starts and ends with (seq, ts, event, prev).
std::string formatRecord(
    quint64 seq, TimeMs ts, std::string_view event, const Json &fields, std::string_view prev);
// The same line appended to `line`, from `body`: the fields as one JSON
// object's text, as dumpJson() writes it (keys sorted, no spaces).
void appendRecordLine(std::string &line, quint64 seq, TimeMs ts, std::string_view event,
    std::string_view body, std::string_view prev);
// formatTimestamp(ts) appended to `out`; the formatted second is kept, as
// consecutive records mostly fall in the same one.
void appendTimestamp(std::string &out, TimeMs ts);
// Lowercase hex SHA-256 of a record's line: what the next record's `prev` holds.
std::string hashRecord(std::string_view line);
// The same into `hex`, reusing its storage.
void hashRecordInto(std::string_view line, std::string &hex);

// One hash chain, walked record by record (AUDIT.md "Tamper evidence"):
// the one walk of the file log (verify, verifySegment) and of the team's
// audit table (team/teamaudit.cpp). Each record must carry the seq that
// follows the one before, and in `prev` hashRecord() of that record's line.
// The caller names its findings where it found them (a file and line, a
// table row).
class ChainWalk
{
public:
    enum class Step
    {
        Next, // the record continues the chain; it is the new head
        Gap, // a later seq than the one expected: records are missing (or moved)
        Repeat, // an earlier seq: a record again, or out of order
        Broken, // the right seq, but prev is not the hash of the record before
    };
    explicit ChainWalk(quint64 expectedSeq = 1, std::string prevHash = std::string(GenesisHash))
        : m_expected(expectedSeq)
        , m_prevHash(std::move(prevHash))
    { }
    // Whether `seq` is the one expected, checking nothing else.
    Step expect(quint64 seq) const
    {
        return seq == m_expected ? Step::Next : seq > m_expected ? Step::Gap : Step::Repeat;
    }
    // Checks a record's seq and prev; on Next, takes its line's hash.
    Step step(quint64 seq, std::string_view prev, std::string_view line);
    // Takes a record without checking it: the first of a chain whose
    // predecessor is elsewhere or was pruned.
    void trust(quint64 seq, std::string_view line);
    quint64 expected() const { return m_expected; }
    // The hash of the last record taken: what the next one's prev must be.
    const std::string &prevHash() const { return m_prevHash; }

private:
    quint64 m_expected;
    std::string m_prevHash;
};

// What the writer last made durable; written after every sync.
struct Head
{
    quint64 seq = 0;
    std::string hash { GenesisHash };
    QString segment;
    // Retention removed records up to this one; its hash anchors the chain.
    quint64 prunedThrough = 0;
    std::string prunedHash;
};
QByteArray formatHead(const Head &head);
// Missing file: nullopt with an empty error. Unreadable or garbled: nullopt and why.
std::optional<Head> readHead(const QString &dir, QString *error);

enum class VerifyStatus
{
    Intact, // every record chains to the one before, up to the head
    Tampered, // a record edited, deleted, reordered or inserted
    CutOff, // records the head file vouches for are gone from the end
    TornTail, // the last record is incomplete: a write cut short by a crash
    Unreadable,
};
std::string_view verifyStatusName(VerifyStatus status);

struct VerifyReport
{
    VerifyStatus status = VerifyStatus::Intact;
    std::string message; // names the record, file and line
    quint64 records = 0; // complete records read
    quint64 firstSeq = 0;
    quint64 lastSeq = 0; // of the last complete record
    std::string lastHash { GenesisHash };
    QString file; // where the finding is
    quint64 line = 0;
    qint64 tornOffset = -1; // TornTail: where the last complete record ends
    qint64 dataBytes = 0; // the last file read, without its zero padding
};

// A segment's bytes without the zeros that pad the newest file out to its
// preallocated size (a record never holds a zero byte).
std::string_view withoutPadding(std::string_view bytes);

// Checks the whole chain in `dir` against the head file.
VerifyReport verify(const QString &dir);
// Checks one segment on its own, trusting its first `prev` (what a starting
// console does with the newest segment).
VerifyReport verifySegment(const QString &path);

// A record's line and its parsed value.
using RecordFn = std::function<bool(std::string_view line, const Json &record)>; // false stops

// Calls `fn` with every complete record, oldest first. Segments last
// modified before `modifiedSince` (ms since the epoch) are skipped.
void forEachRecord(const QString &dir, const RecordFn &fn, TimeMs modifiedSince = 0);

// Calls `fn` with matching records, newest first, until it returns false or
// `limit` records were given (0: no limit).
void query(const QString &dir, const Filter &filter, std::size_t limit, const RecordFn &fn);

// The CSV columns of an export, and one record as a CSV row (RFC 4180).
std::string csvHeader();
std::string csvRow(const Json &record);

} // namespace holdpoint::audit
