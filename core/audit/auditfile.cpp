// SPDX-License-Identifier: Apache-2.0
#include "auditfile.h"

#include "common/jsonwriter.h"
#include "common/sha256.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>

namespace holdpoint::audit {

namespace {

constexpr char SegmentPrefix[] = "audit-";
constexpr char SegmentSuffix[] = ".jsonl";

// A file's bytes, mapped when it can be, read otherwise.
class FileBytes
{
public:
    explicit FileBytes(const QString &path)
        : m_file(path)
    {
        if (!m_file.open(QIODevice::ReadOnly)) {
            m_error = m_file.errorString();
            return;
        }
        m_ok = true;
        const qint64 size = m_file.size();
        if (size == 0)
            return;
        if (uchar *p = m_file.map(0, size)) {
            m_view = std::string_view(reinterpret_cast<const char *>(p), std::size_t(size));
        } else {
            m_copy = m_file.readAll().toStdString();
            m_view = m_copy;
        }
    }
    bool ok() const { return m_ok; }
    QString error() const { return m_error; }
    std::string_view view() const { return m_view; }

private:
    QFile m_file;
    bool m_ok = false;
    QString m_error;
    std::string m_copy;
    std::string_view m_view;
};

bool parseRecord(std::string_view line, Json *out)
{
    *out = Json::parse(line.begin(), line.end(), nullptr, false);
    return out->is_object() && (*out)["seq"].is_number_unsigned() && (*out)["prev"].is_string()
        && (*out)["event"].is_string() && (*out)["ts"].is_string();
}

} // namespace

std::string_view withoutPadding(std::string_view bytes)
{
    std::size_t end = bytes.size();
    while (end > 0 && bytes[end - 1] == '\0')
        --end;
    return bytes.substr(0, end);
}

namespace {

std::string where(const QString &file, quint64 line)
{
    return QFileInfo(file).fileName().toStdString() + ":" + std::to_string(line);
}

} // namespace

QString segmentFileName(quint64 index)
{
    return QLatin1String(SegmentPrefix) + QString::number(index).rightJustified(6, u'0')
        + QLatin1String(SegmentSuffix);
}

std::vector<Segment> listSegments(const QString &dir)
{
    static const QRegularExpression pattern(QStringLiteral("^audit-(\\d{6,})\\.jsonl$"));
    std::vector<Segment> out;
    const QStringList names = QDir(dir).entryList({ QStringLiteral("audit-*.jsonl") }, QDir::Files);
    for (const QString &name : names) {
        const auto m = pattern.match(name);
        if (m.hasMatch())
            out.push_back({ dir + u'/' + name, m.captured(1).toULongLong() });
    }
    std::sort(out.begin(), out.end(),
        [](const Segment &a, const Segment &b) { return a.index < b.index; });
    return out;
}

void appendTimestamp(std::string &out, TimeMs ts)
{
    constexpr std::size_t Length = 24; // 2026-01-02T03:04:05.678Z
    thread_local TimeMs cachedSecond = std::numeric_limits<TimeMs>::min();
    thread_local char text[Length];
    const TimeMs second = ts / 1000 - (ts % 1000 < 0 ? 1 : 0);
    if (second != cachedSecond) {
        const std::string formatted = formatTimestamp(second * 1000);
        if (formatted.size() != Length || formatted[Length - 1] != 'Z') {
            out += formatTimestamp(ts); // a year Qt writes its own way
            return;
        }
        std::memcpy(text, formatted.data(), Length);
        cachedSecond = second;
    }
    const int ms = int(ts - second * 1000);
    text[20] = char('0' + ms / 100);
    text[21] = char('0' + ms / 10 % 10);
    text[22] = char('0' + ms % 10);
    out.append(text, Length);
}

void appendRecordLine(std::string &line, quint64 seq, TimeMs ts, std::string_view event,
    std::string_view body, std::string_view prev)
{
    char digits[24];
    const char *end = std::to_chars(digits, digits + sizeof digits, seq).ptr;
    line.reserve(line.size() + body.size() + event.size() + prev.size() + 64);
    line += "{\"seq\":";
    line.append(digits, std::size_t(end - digits));
    line += ",\"ts\":\"";
    appendTimestamp(line, ts);
    line += "\",\"event\":";
    appendJsonString(line, event);
    if (body.size() > 2) {
        line += ',';
        line.append(body.data() + 1, body.size() - 2);
    }
    line += ",\"prev\":\"";
    line += prev;
    line += "\"}";
}

std::string formatRecord(
    quint64 seq, TimeMs ts, std::string_view event, const Json &fields, std::string_view prev)
{
    std::string body;
    appendJson(body, fields);
    std::string line;
    appendRecordLine(line, seq, ts, event, body, prev);
    return line;
}

std::string hashRecord(std::string_view line)
{
    return sha256Hex(line);
}

void hashRecordInto(std::string_view line, std::string &hex)
{
    static constexpr char Digits[] = "0123456789abcdef";
    const Sha256Digest digest = sha256(line);
    hex.resize(digest.size() * 2);
    for (std::size_t i = 0; i < digest.size(); ++i) {
        hex[2 * i] = Digits[digest[i] >> 4];
        hex[2 * i + 1] = Digits[digest[i] & 0xf];
    }
}

QByteArray formatHead(const Head &head)
{
    // Written after every synced batch, so built by hand; the keys in the
    // order a JSON object dump would give them.
    std::string text = "{\"hash\":" + dumpJson(Json(head.hash));
    if (head.prunedThrough) {
        text += ",\"pruned_hash\":" + dumpJson(Json(head.prunedHash));
        text += ",\"pruned_through\":" + std::to_string(head.prunedThrough);
    }
    text += ",\"segment\":" + dumpJson(Json(head.segment.toStdString()));
    text += ",\"seq\":" + std::to_string(head.seq) + '}';
    // A fixed size, rewritten in place with one write.
    QByteArray bytes(HeadFileBytes, ' ');
    if (text.size() > std::size_t(HeadFileBytes - 1))
        return QByteArray::fromStdString(text + '\n'); // cannot happen with our file names
    std::memcpy(bytes.data(), text.data(), text.size());
    bytes[HeadFileBytes - 1] = '\n';
    return bytes;
}

std::optional<Head> readHead(const QString &dir, QString *error)
{
    QFile f(dir + u'/' + QLatin1String(HeadFileName));
    if (!f.exists())
        return std::nullopt;
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(f.fileName(), f.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = f.readAll().trimmed();
    const Json j = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!j.is_object() || !j.value("seq", Json()).is_number_unsigned()
        || !j.value("hash", Json()).is_string()) {
        *error = QStringLiteral("%1: not a head file written by Holdpoint").arg(f.fileName());
        return std::nullopt;
    }
    Head head;
    head.seq = j["seq"].get<quint64>();
    head.hash = j["hash"].get<std::string>();
    head.segment = QString::fromStdString(j.value("segment", std::string()));
    head.prunedThrough = j.value("pruned_through", quint64(0));
    head.prunedHash = j.value("pruned_hash", std::string());
    return head;
}

std::string_view verifyStatusName(VerifyStatus status)
{
    switch (status) {
    case VerifyStatus::Intact:
        return "intact";
    case VerifyStatus::Tampered:
        return "tampered";
    case VerifyStatus::CutOff:
        return "cut off";
    case VerifyStatus::TornTail:
        return "torn tail";
    case VerifyStatus::Unreadable:
        return "unreadable";
    }
    return "unknown";
}

ChainWalk::Step ChainWalk::step(quint64 seq, std::string_view prev, std::string_view line)
{
    if (const Step s = expect(seq); s != Step::Next)
        return s;
    if (prev != m_prevHash)
        return Step::Broken;
    trust(seq, line);
    return Step::Next;
}

void ChainWalk::trust(quint64 seq, std::string_view line)
{
    hashRecordInto(line, m_prevHash);
    m_expected = seq + 1;
}

namespace {

// Walks a chain of segments. `trustFirstPrev`: the first record's prev is
// taken as given (its predecessor is elsewhere or was pruned).
class ChainWalker
{
public:
    ChainWalker(quint64 expectedSeq, std::string prevHash, bool trustFirstPrev)
        : m_chain(expectedSeq, std::move(prevHash))
        , m_trustPrev(trustFirstPrev)
    { }

    // Returns false when the walk must stop (a finding in `report`).
    bool walk(const Segment &segment, bool last, VerifyReport *report, quint64 headSeq,
        std::string *hashAtHead)
    {
        FileBytes file(segment.path);
        if (!file.ok()) {
            report->status = VerifyStatus::Unreadable;
            report->message = segment.path.toStdString() + ": " + file.error().toStdString();
            report->file = segment.path;
            return false;
        }
        const std::string_view all = withoutPadding(file.view());
        report->dataBytes = qint64(all.size());
        std::size_t pos = 0;
        quint64 lineNo = 0;
        while (pos < all.size()) {
            const std::size_t nl = all.find('\n', pos);
            const bool complete = nl != std::string_view::npos;
            const std::string_view line = all.substr(pos, (complete ? nl : all.size()) - pos);
            ++lineNo;
            const bool finalLine = !complete || nl + 1 == all.size();
            Json record;
            const bool parsed = complete && parseRecord(line, &record);
            if (!parsed) {
                report->file = segment.path;
                report->line = lineNo;
                // A zero byte inside the newest file's last batch is a page
                // of it that never reached the disk: the batch was not
                // synced, so neither it nor anything after it was ever
                // acknowledged.
                const bool unwritten = line.find('\0') != std::string_view::npos;
                if (last && (finalLine || unwritten)) {
                    report->status = VerifyStatus::TornTail;
                    report->tornOffset = qint64(pos);
                    report->message = where(segment.path, lineNo)
                        + ": the last record is incomplete (" + std::to_string(all.size() - pos)
                        + " bytes): a write cut short by a crash; it was never acknowledged, and "
                          "the next "
                          "start removes it";
                } else {
                    report->status = VerifyStatus::Tampered;
                    report->message
                        = where(segment.path, lineNo) + ": not a valid record; the log was edited";
                }
                return false;
            }
            const quint64 seq = record["seq"].get<quint64>();
            const std::string prev = record["prev"].get<std::string>();
            const bool trusted = m_trustPrev && report->records == 0;
            const ChainWalk::Step step
                = trusted ? ChainWalk::Step::Next : m_chain.step(seq, prev, line);
            if (step == ChainWalk::Step::Gap || step == ChainWalk::Step::Repeat) {
                const quint64 expected = m_chain.expected();
                report->status = VerifyStatus::Tampered;
                report->file = segment.path;
                report->line = lineNo;
                if (step == ChainWalk::Step::Gap) {
                    // Deleted, or moved further down?
                    const std::string needle = "{\"seq\":" + std::to_string(expected) + ",";
                    const bool later = all.find("\n" + needle, pos) != std::string_view::npos;
                    report->message = where(segment.path, lineNo) + ": expected record "
                        + std::to_string(expected) + " but found record " + std::to_string(seq)
                        + "; record " + std::to_string(expected)
                        + (later ? " comes later: records were reordered" : " was deleted");
                } else {
                    report->message = where(segment.path, lineNo) + ": record "
                        + std::to_string(seq) + " appears again or out of order after record "
                        + std::to_string(expected - 1) + "; records were reordered or duplicated";
                }
                return false;
            }
            if (trusted) {
                m_chain.trust(seq, line);
            } else if (step == ChainWalk::Step::Broken) {
                report->status = VerifyStatus::Tampered;
                report->file = m_prevFile.isEmpty() ? segment.path : m_prevFile;
                report->line = m_prevFile.isEmpty() ? lineNo : m_prevLine;
                if (seq == 1 || m_prevFile.isEmpty())
                    report->message = where(segment.path, lineNo) + ": record "
                        + std::to_string(seq)
                        + " does not continue the chain (its prev does not match); the log was "
                          "edited";
                else
                    report->message = where(m_prevFile, m_prevLine) + ": record "
                        + std::to_string(seq - 1) + " was altered: record " + std::to_string(seq)
                        + " (" + where(segment.path, lineNo) + ") holds a different hash for it";
                return false;
            }
            const std::string &hash = m_chain.prevHash();
            if (seq == headSeq)
                *hashAtHead = hash;
            if (report->records == 0)
                report->firstSeq = seq;
            ++report->records;
            report->lastSeq = seq;
            report->lastHash = hash;
            report->file = segment.path;
            report->line = lineNo;
            m_prevFile = segment.path;
            m_prevLine = lineNo;
            pos = nl + 1;
        }
        return true;
    }

private:
    ChainWalk m_chain;
    bool m_trustPrev;
    QString m_prevFile;
    quint64 m_prevLine = 0;
};

} // namespace

VerifyReport verify(const QString &dir)
{
    VerifyReport report;
    QString headError;
    const std::optional<Head> head = readHead(dir, &headError);
    if (!headError.isEmpty()) {
        report.status = VerifyStatus::Tampered;
        report.message = headError.toStdString();
        return report;
    }
    const std::vector<Segment> segments = listSegments(dir);
    if (segments.empty()) {
        if (head && head->seq > 0) {
            report.status = VerifyStatus::CutOff;
            report.message = "no log files, but the head file records " + std::to_string(head->seq)
                + " records: the log was removed";
        } else {
            report.message = "the log is empty";
        }
        return report;
    }

    // Where the chain starts: record 1, or just after what retention pruned.
    quint64 expected = 1;
    std::string prev { GenesisHash };
    bool trustFirst = false;
    if (head && head->prunedThrough > 0) {
        expected = head->prunedThrough + 1;
        prev = head->prunedHash;
        // A crash between writing the head and removing the pruned file
        // leaves that file; its records are checked as they come.
        if (QFileInfo(segments.front().path).size() > 0) {
            FileBytes first(segments.front().path);
            Json r;
            const std::string_view v = first.view();
            if (parseRecord(v.substr(0, v.find('\n')), &r) && r["seq"].get<quint64>() < expected)
                trustFirst = true;
        }
    }
    ChainWalker walker(expected, prev, trustFirst);
    const quint64 headSeq = head ? head->seq : 0;
    std::string hashAtHead;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        if (!walker.walk(segments[i], i + 1 == segments.size(), &report, headSeq, &hashAtHead)
            && report.status != VerifyStatus::TornTail)
            return report;
    }
    if (head && head->seq > report.lastSeq) {
        const std::string torn
            = report.status == VerifyStatus::TornTail ? " (and its last record is torn)" : "";
        report.status = VerifyStatus::CutOff;
        report.message = "the log ends at record " + std::to_string(report.lastSeq)
            + (report.records ? " (" + where(report.file, report.line) + ")" : std::string())
            + " but the head file vouches for record " + std::to_string(head->seq) + ": records "
            + std::to_string(report.lastSeq + 1) + " to " + std::to_string(head->seq)
            + " were cut off" + torn;
        return report;
    }
    if (head && head->seq > 0 && hashAtHead != head->hash) {
        report.status = VerifyStatus::Tampered;
        report.message = "record " + std::to_string(head->seq)
            + " was altered: its hash differs from the one in the head file";
        return report;
    }
    if (report.status == VerifyStatus::TornTail)
        return report;
    report.status = VerifyStatus::Intact;
    report.message = std::to_string(report.records) + " records intact";
    if (report.records)
        report.message += " (records " + std::to_string(report.firstSeq) + " to "
            + std::to_string(report.lastSeq) + ")";
    return report;
}

VerifyReport verifySegment(const QString &path)
{
    VerifyReport report;
    ChainWalker walker(1, std::string(GenesisHash), true);
    std::string unused;
    if (walker.walk({ path, 0 }, true, &report, 0, &unused))
        report.status = VerifyStatus::Intact;
    return report;
}

void forEachRecord(const QString &dir, const RecordFn &fn, TimeMs modifiedSince)
{
    for (const Segment &segment : listSegments(dir)) {
        if (modifiedSince > 0
            && QFileInfo(segment.path).lastModified().toMSecsSinceEpoch() < modifiedSince)
            continue;
        FileBytes file(segment.path);
        const std::string_view all = file.view();
        std::size_t pos = 0;
        while (pos < all.size()) {
            const std::size_t nl = all.find('\n', pos);
            if (nl == std::string_view::npos)
                break; // a torn tail is not a record
            const std::string_view line = all.substr(pos, nl - pos);
            pos = nl + 1;
            Json record;
            if (parseRecord(line, &record) && !fn(line, record))
                return;
        }
    }
}

void query(const QString &dir, const Filter &filter, std::size_t limit, const RecordFn &fn)
{
    std::size_t given = 0;
    const LineTest test(filter);
    const std::vector<Segment> segments = listSegments(dir);
    for (auto seg = segments.rbegin(); seg != segments.rend(); ++seg) {
        FileBytes file(seg->path);
        const std::vector<std::string_view> lines = test.candidates(withoutPadding(file.view()));
        // Newest first.
        for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
            if (!test.mayMatch(*line))
                continue;
            Json record;
            if (!parseRecord(*line, &record) || !filter.fieldsMatch(record))
                continue;
            if (!fn(*line, record))
                return;
            if (limit && ++given >= limit)
                return;
        }
    }
}

namespace {

const char *const CsvColumns[] = { "seq", "ts", "event", "session", "agent", "call_id", "tool",
    "decision", "decided_by", "code", "reason" };

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

} // namespace

std::string csvHeader()
{
    std::string out;
    for (const char *c : CsvColumns) {
        out += c;
        out += ',';
    }
    out += "details\r\n";
    return out;
}

std::string csvRow(const Json &record)
{
    std::string out;
    Json rest = record;
    for (const char *c : CsvColumns) {
        const auto it = record.find(c);
        if (it != record.end())
            out += csvField(it->is_string() ? it->get<std::string>() : dumpJson(*it));
        out += ',';
        rest.erase(c);
    }
    rest.erase("prev");
    out += csvField(rest.empty() ? std::string() : dumpJson(rest));
    out += "\r\n";
    return out;
}

} // namespace holdpoint::audit
