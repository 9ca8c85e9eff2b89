// SPDX-License-Identifier: Apache-2.0
// The audit log: its chain, what `holdpoint-ctl audit verify` says about
// each kind of damage, rotation, queries and export, and failing closed.

#include "audit/auditfile.h"
#include "audit/auditlog.h"
#include "common/consoleprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

QByteArrayList readLines(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    // The live file is padded with zeros past its records (AUDIT.md).
    const QByteArray bytes = f.readAll();
    const std::string_view records
        = audit::withoutPadding(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    QByteArrayList lines = QByteArray(records.data(), qsizetype(records.size())).split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

void writeLines(const QString &path, const QByteArrayList &lines)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    for (const QByteArray &l : lines)
        f.write(l + '\n');
}

CtlResult ctl(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
    return finish(p);
}

// A data dir whose audit log holds `n` decision records (and the rest).
class LogFixture
{
public:
    explicit LogFixture(int n, AuditConfig config = {})
        : m_clock(1'700'000'000'000)
    {
        config.dir = dir();
        AuditLog log(config, &m_clock);
        log.open();
        for (int i = 1; i <= n; ++i) {
            log.append("decision",
                Json { { "call_id", "c" + std::to_string(i) },
                    { "agent", i % 2 ? "alice-bot" : "bob-bot" },
                    { "tool", i % 3 ? "read_file" : "bash" },
                    { "decision", i % 4 ? "allow" : "deny" },
                    { "decided_by", i % 4 ? "guardrail:rules" : "human:carol" },
                    { "reason", "reason, \"number\" " + std::to_string(i) } });
            m_clock.advance(1000);
            if (config.maxSegmentBytes < 1'000'000)
                log.waitDurable(10'000); // one batch each, so files fill one by one
        }
        m_ok = log.waitDurable(10'000);
    }
    bool ok() const { return m_ok; }
    QString dataDir() const { return m_tmp.path(); }
    QString dir() const { return m_tmp.path() + QStringLiteral("/audit"); }
    QString segment(int index = 1) const
    {
        return dir() + u'/' + audit::segmentFileName(quint64(index));
    }
    CtlResult verify() const
    {
        return ctl({ QStringLiteral("audit"), QStringLiteral("verify"),
            QStringLiteral("--data-dir"), dataDir() });
    }

private:
    QTemporaryDir m_tmp;
    ManualClock m_clock;
    bool m_ok = false;
};

} // namespace

class TestAudit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { std::signal(SIGXFSZ, SIG_IGN); }
    void hashIsSha256OfTheLine();
    void recordsFormAHashChain();
    void filesArePrivate();
    void intactLogVerifies();
    void editedRecordIsTampered();
    void editedLastRecordIsCaughtByTheHead();
    void deletedRecordIsTampered();
    void swappedRecordsAreTampered();
    void cutOffTailIsDetected();
    void tornTailIsReportedThenRemovedOnNextStart();
    void rotationKeepsTheChainAcrossFiles();
    void retentionPrunesOldFilesAndStaysVerifiable();
    void missingMiddleFileIsTampered();
    void queryFiltersNewestFirst();
    void queryThroughCtl();
    void unknownOptionIsAUsageError_data();
    void unknownOptionIsAUsageError();
    void exportJsonlAndCsv();
    void unawaitedRecordsShareTheNextSync();
    void unawaitedRecordGoesOnItsOwnAfterLingering();
    void unopenableLogRefusesThenRecovers();
    void consoleFailsClosedWhenTheDiskRefuses();
};

void TestAudit::hashIsSha256OfTheLine()
{
    // FIPS 180-2's examples: anyone can check a record with sha256sum.
    QCOMPARE(audit::hashRecord(""),
        std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(audit::hashRecord("abc"),
        std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(audit::hashRecord("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
}

void TestAudit::recordsFormAHashChain()
{
    LogFixture f(5);
    QVERIFY(f.ok());
    const QByteArrayList lines = readLines(f.segment());
    QCOMPARE(lines.size(), 5);
    std::string prev(audit::GenesisHash);
    for (int i = 0; i < lines.size(); ++i) {
        const Json r = Json::parse(lines[i].toStdString());
        // Each line starts with its number and time and ends with the hash
        // of the line before it.
        QVERIFY(lines[i].startsWith(
            QByteArray("{\"seq\":" + QByteArray::number(i + 1) + ",\"ts\":\"")));
        QCOMPARE(r["prev"].get<std::string>(), prev);
        QCOMPARE(r["event"], Json("decision"));
        prev = audit::hashRecord(lines[i].toStdString());
    }
    QString error;
    const auto head = audit::readHead(f.dir(), &error);
    QVERIFY(head);
    QCOMPARE(head->seq, quint64(5));
    QCOMPARE(head->hash, prev);
}

void TestAudit::filesArePrivate()
{
    LogFixture f(1);
    QVERIFY(f.ok());
    struct stat st
    {
    };
    QCOMPARE(::stat(QFile::encodeName(f.dir()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0700u);
    QCOMPARE(::stat(QFile::encodeName(f.segment()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
}

void TestAudit::intactLogVerifies()
{
    LogFixture f(10);
    QVERIFY(f.ok());
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out.trimmed(), QByteArray("intact: 10 records intact (records 1 to 10)"));
}

void TestAudit::editedRecordIsTampered()
{
    LogFixture f(10);
    QVERIFY(f.ok());
    QByteArrayList lines = readLines(f.segment());
    lines[3].replace("\"deny\"", "\"allow\""); // record 4: a deny made an allow
    QVERIFY(lines[3] != readLines(f.segment())[3]);
    writeLines(f.segment(), lines);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.out.trimmed(),
        QByteArray("tampered: audit-000001.jsonl:4: record 4 was altered: record 5 "
                   "(audit-000001.jsonl:5) holds a different hash for it"));
}

void TestAudit::editedLastRecordIsCaughtByTheHead()
{
    LogFixture f(4);
    QVERIFY(f.ok());
    QByteArrayList lines = readLines(f.segment());
    lines[3].replace("\"deny\"", "\"allow\"");
    writeLines(f.segment(), lines);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.out.trimmed(),
        QByteArray(
            "tampered: record 4 was altered: its hash differs from the one in the head file"));
}

void TestAudit::deletedRecordIsTampered()
{
    LogFixture f(10);
    QVERIFY(f.ok());
    QByteArrayList lines = readLines(f.segment());
    lines.removeAt(5); // record 6
    writeLines(f.segment(), lines);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.out.trimmed(),
        QByteArray("tampered: audit-000001.jsonl:6: expected record 6 but found record 7; record 6 "
                   "was deleted"));
}

void TestAudit::swappedRecordsAreTampered()
{
    LogFixture f(10);
    QVERIFY(f.ok());
    QByteArrayList lines = readLines(f.segment());
    lines.swapItemsAt(2, 3); // records 3 and 4
    writeLines(f.segment(), lines);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.out.trimmed(),
        QByteArray("tampered: audit-000001.jsonl:3: expected record 3 but found record 4; "
                   "record 3 comes later: records were reordered"));
}

void TestAudit::cutOffTailIsDetected()
{
    LogFixture f(10);
    QVERIFY(f.ok());
    QByteArrayList lines = readLines(f.segment());
    lines.erase(lines.begin() + 7, lines.end()); // records 8-10 gone, cleanly
    writeLines(f.segment(), lines);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.out.trimmed(),
        QByteArray("cut off: the log ends at record 7 (audit-000001.jsonl:7) but the head file "
                   "vouches for record 10: records 8 to 10 were cut off"));
}

void TestAudit::tornTailIsReportedThenRemovedOnNextStart()
{
    LogFixture f(6);
    QVERIFY(f.ok());
    // A crash in the middle of writing a seventh record: bytes that were
    // never synced, so the head never vouched for them.
    QFile seg(f.segment());
    QVERIFY(seg.open(QIODevice::Append));
    seg.write(R"({"seq":7,"ts":"2023-11-14T22:13:26.000Z","event":"decis)");
    seg.close();
    const qint64 tornSize = QFileInfo(f.segment()).size();

    CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.out.startsWith(
                 "torn tail: audit-000001.jsonl:7: the last record is incomplete (55 bytes)"),
        r.out.constData());

    // The next start cuts it and carries on from record 6.
    ManualClock clock(1'800'000'000'000);
    {
        AuditConfig config;
        config.dir = f.dir();
        AuditLog log(config, &clock);
        const AuditOpenReport open = log.open();
        QCOMPARE(open.tornBytes, qint64(55));
        QCOMPARE(open.lastSeq, quint64(6));
        QCOMPARE(log.append("console_started", Json::object()), quint64(7));
        QVERIFY(log.waitDurable(10'000));
    }
    QVERIFY(QFileInfo(f.segment()).size() < tornSize + 200);
    r = f.verify();
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out.trimmed(), QByteArray("intact: 7 records intact (records 1 to 7)"));
}

void TestAudit::rotationKeepsTheChainAcrossFiles()
{
    AuditConfig config;
    config.maxSegmentBytes = 1500;
    LogFixture f(40, config);
    QVERIFY(f.ok());
    const auto segments = audit::listSegments(f.dir());
    QVERIFY2(segments.size() >= 4, std::to_string(segments.size()).c_str());
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out.trimmed(), QByteArray("intact: 40 records intact (records 1 to 40)"));
    // A query reads across the files.
    int n = 0;
    audit::query(f.dir(), {}, 0, [&](std::string_view, const Json &) { return ++n > 0; });
    QCOMPARE(n, 40);
}

void TestAudit::retentionPrunesOldFilesAndStaysVerifiable()
{
    AuditConfig config;
    config.maxSegmentBytes = 1500;
    config.keepSegments = 2;
    LogFixture f(40, config);
    QVERIFY(f.ok());
    const auto segments = audit::listSegments(f.dir());
    QCOMPARE(segments.size(), std::size_t(2));
    QString error;
    const auto head = audit::readHead(f.dir(), &error);
    QVERIFY(head && head->prunedThrough > 0);
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("to 40)"), r.out.constData());
    QVERIFY(r.out.contains(
        QByteArray("(records " + QByteArray::number(head->prunedThrough + 1) + " to 40)")));
}

void TestAudit::missingMiddleFileIsTampered()
{
    AuditConfig config;
    config.maxSegmentBytes = 1500;
    LogFixture f(40, config);
    QVERIFY(f.ok());
    const auto segments = audit::listSegments(f.dir());
    QVERIFY(segments.size() >= 3);
    QVERIFY(QFile::remove(segments[1].path));
    const CtlResult r = f.verify();
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("was deleted"), r.out.constData());
}

void TestAudit::queryFiltersNewestFirst()
{
    LogFixture f(20);
    QVERIFY(f.ok());
    std::vector<int> seqs;
    auto run = [&](const audit::Filter &filter, std::size_t limit = 0) {
        seqs.clear();
        audit::query(f.dir(), filter, limit, [&](std::string_view, const Json &r) {
            seqs.push_back(r["seq"].get<int>());
            return true;
        });
        return seqs;
    };
    audit::Filter deny;
    deny.decision = "deny";
    QCOMPARE(run(deny), (std::vector<int> { 20, 16, 12, 8, 4 }));
    audit::Filter bashByBob;
    bashByBob.tool = "bash";
    bashByBob.agent = "bob-bot";
    QCOMPARE(run(bashByBob), (std::vector<int> { 18, 12, 6 }));
    audit::Filter human;
    human.decidedBy = "HUMAN";
    QCOMPARE(run(human, 2), (std::vector<int> { 20, 16 }));
    audit::Filter text;
    text.text = "\"NUMBER\" 1";
    QCOMPARE(run(text), (std::vector<int> { 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1 }));
    // Record i was written at 1'700'000'000'000 + (i - 1) s.
    audit::Filter window;
    window.since = *audit::parseTimeBound("2023-11-14T22:13:35Z", 0); // record 16
    window.until = *audit::parseTimeBound("2023-11-14T22:13:38Z", 0);
    QCOMPARE(run(window), (std::vector<int> { 18, 17, 16 }));
    audit::Filter nothing;
    nothing.tool = "no-such-tool";
    QCOMPARE(run(nothing), std::vector<int> {});
    QVERIFY(!audit::parseTimeBound("yesterday-ish", 0));
    QCOMPARE(*audit::parseTimeBound("2h", 7'200'000), std::string("1970-01-01T00:00:00.000Z"));
}

void TestAudit::queryThroughCtl()
{
    LogFixture f(12);
    QVERIFY(f.ok());
    CtlResult r = ctl({ QStringLiteral("audit"), QStringLiteral("query"),
        QStringLiteral("--data-dir"), f.dataDir(), QStringLiteral("--decision"),
        QStringLiteral("deny"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const QByteArrayList lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(Json::parse(lines[0].toStdString())["seq"], Json(12));
    QCOMPARE(Json::parse(lines[2].toStdString())["seq"], Json(4));

    r = ctl({ QStringLiteral("audit"), QStringLiteral("query"), QStringLiteral("--data-dir"),
        f.dataDir(), QStringLiteral("--decision"), QStringLiteral("maybe") });
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.trimmed(),
        QByteArray("holdpoint-ctl audit: query: --decision: expected allow, modify, deny or halt, "
                   "got \"maybe\""));
    r = ctl({ QStringLiteral("audit"), QStringLiteral("query"), QStringLiteral("--data-dir"),
        f.dataDir(), QStringLiteral("--since"), QStringLiteral("last tuesday") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--since: expected an ISO 8601 time"));
    r = ctl({ QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--data-dir"),
        f.dataDir() + QStringLiteral("/nope") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("no audit log at"));
}

void TestAudit::unknownOptionIsAUsageError_data()
{
    QTest::addColumn<QString>("command");
    QTest::newRow("verify") << "verify";
    QTest::newRow("query") << "query";
    QTest::newRow("export") << "export";
}

void TestAudit::unknownOptionIsAUsageError()
{
    // 1 under `audit verify` means tampered: a mistyped option must say
    // usage (2), never look like a finding.
    QFETCH(QString, command);
    LogFixture f(3);
    QVERIFY(f.ok());
    const CtlResult r = ctl({ QStringLiteral("audit"), command, QStringLiteral("--data-dir"),
        f.dataDir(), QStringLiteral("--jsn") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("Unknown option 'jsn'"), r.err.constData());
    QVERIFY(r.out.isEmpty());
    const CtlResult help = ctl({ QStringLiteral("audit"), command, QStringLiteral("--help") });
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--data-dir"));
}

void TestAudit::exportJsonlAndCsv()
{
    LogFixture f(3);
    QVERIFY(f.ok());
    CtlResult r = ctl({ QStringLiteral("audit"), QStringLiteral("export"),
        QStringLiteral("--data-dir"), f.dataDir() });
    QCOMPARE(r.exitCode, 0);
    // JSON lines: the records exactly as written, so a SIEM can re-check the chain.
    QFile seg(f.segment());
    QVERIFY(seg.open(QIODevice::ReadOnly));
    QCOMPARE(r.out, seg.readAll());

    r = ctl({ QStringLiteral("audit"), QStringLiteral("export"), QStringLiteral("--data-dir"),
        f.dataDir(), QStringLiteral("--format"), QStringLiteral("csv") });
    QCOMPARE(r.exitCode, 0);
    const QByteArrayList rows = r.out.split('\n');
    QCOMPARE(rows[0],
        QByteArray(
            "seq,ts,event,session,agent,call_id,tool,decision,decided_by,code,reason,details\r"));
    // A reason with a comma and quotes is quoted, its quotes doubled.
    QCOMPARE(rows[1],
        QByteArray(
            "1,2023-11-14T22:13:20.000Z,decision,,alice-bot,c1,read_file,allow,guardrail:rules,,"
            "\"reason, \"\"number\"\" 1\",\r"));

    r = ctl({ QStringLiteral("audit"), QStringLiteral("export"), QStringLiteral("--data-dir"),
        f.dataDir(), QStringLiteral("--format"), QStringLiteral("xml") });
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.trimmed(),
        QByteArray("holdpoint-ctl audit: export: --format: expected jsonl or csv, got \"xml\""));
}

void TestAudit::unawaitedRecordsShareTheNextSync()
{
    QTemporaryDir tmp;
    ManualClock clock(1'700'000'000'000);
    AuditConfig config;
    config.dir = tmp.path();
    config.lingerMs = 600'000; // never on their own within this test
    {
        AuditLog log(config, &clock);
        log.open();
        for (int i = 0; i < 5; ++i)
            log.append("delivered", Json { { "n", i } });
        bool durable = false;
        log.append("decision", Json { { "n", 5 } }, [&](bool d) { durable = d; });
        QVERIFY(QTest::qWaitFor([&] { return durable; }, 10'000));
        QCOMPARE(log.syncs(), quint64(1)); // six records, one fdatasync
        QCOMPARE(log.durableSeq(), quint64(6));
        // One more nobody waits for is written at the stop.
        log.append("console_stopped", Json::object());
    }
    const QByteArrayList lines = readLines(tmp.path() + u'/' + audit::segmentFileName(1));
    QCOMPARE(lines.size(), 7);
    QVERIFY(lines.last().contains("\"event\":\"console_stopped\""));
    QCOMPARE(audit::verify(tmp.path()).status, audit::VerifyStatus::Intact);
}

void TestAudit::unawaitedRecordGoesOnItsOwnAfterLingering()
{
    QTemporaryDir tmp;
    ManualClock clock(1'700'000'000'000);
    AuditConfig config;
    config.dir = tmp.path();
    config.lingerMs = 30;
    AuditLog log(config, &clock);
    log.open();
    log.append("secrets_revealed", Json { { "item", "i1" } });
    QVERIFY(QTest::qWaitFor([&] { return log.durableSeq() == 1; }, 10'000));
    QCOMPARE(log.syncs(), quint64(1));
    QCOMPARE(readLines(tmp.path() + u'/' + audit::segmentFileName(1)).size(), 1);
}

void TestAudit::unopenableLogRefusesThenRecovers()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/audit");
    // A file where the log's directory should be: nothing can be written,
    // whoever runs the test (root ignores permissions, not this).
    QFile blocker(dir);
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();

    ManualClock clock(1'700'000'000'000);
    AuditConfig config;
    config.dir = dir;
    config.retryMs = 20;
    AuditLog log(config, &clock);
    QSignalSpy changed(&log, &AuditLog::availabilityChanged);
    log.open();
    QVERIFY(!log.available());
    QVERIFY(!log.lastError().isEmpty());

    int refused = 0, durable = 0;
    log.append("call", Json { { "call_id", "c1" } }, [&](bool ok) { ok ? ++durable : ++refused; });
    QTRY_COMPARE(refused, 1);
    QCOMPARE(durable, 0);

    QVERIFY(QFile::remove(dir));
    QTRY_VERIFY_WITH_TIMEOUT(log.available(), 10'000);
    QCOMPARE(changed.last().at(0).toBool(), true);
    // What came while it was closed is in the log, in order.
    log.append("call", Json { { "call_id", "c2" } }, [&](bool ok) { ok ? ++durable : ++refused; });
    QTRY_COMPARE(durable, 1);
    const QByteArrayList lines = readLines(dir + QStringLiteral("/audit-000001.jsonl"));
    QCOMPARE(lines.size(), 2);
    QVERIFY(lines[0].contains("\"call_id\":\"c1\""));
    QVERIFY(lines[1].contains("\"call_id\":\"c2\""));
    QCOMPARE(audit::verify(dir).status, audit::VerifyStatus::Intact);
}

void TestAudit::consoleFailsClosedWhenTheDiskRefuses()
{
    // RLIMIT_FSIZE makes writes past a size fail with EFBIG, as a full disk
    // fails them with ENOSPC, and binds root too. prlimit changes it on the
    // running console.
    const QString prlimit = QStandardPaths::findExecutable(QStringLiteral("prlimit"));
    if (prlimit.isEmpty())
        QSKIP("prlimit (util-linux) is not installed");
    QTemporaryDir tmp;
    const QString policy = tmp.path() + QStringLiteral("/policy.json");
    QFile pf(policy);
    QVERIFY(pf.open(QIODevice::WriteOnly));
    pf.write(R"({"default": "allow"})");
    pf.close();
    ConsoleProcess console({ QStringLiteral("--policy"), policy });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto agent = console.agent(std::string("fs"));
    QVERIFY(agent);
    auto call = [&](const std::string &id) {
        agent->send(Json { { "type", "tool_call" }, { "call_id", id },
            { "tool_name", "write_file" }, { "args", { { "path", id } } } });
        return agent->next("decision");
    };
    QCOMPARE(call("before")["decision"], Json("allow"));

    const QString segment = console.dataDir() + QStringLiteral("/audit/audit-000001.jsonl");
    auto setLimit = [&](const QString &value) {
        QProcess p;
        p.start(prlimit,
            { QStringLiteral("--pid"), QString::number(console.process().processId()),
                QStringLiteral("--fsize=") + value });
        QVERIFY(p.waitForFinished(WaitMs));
        QCOMPARE(p.exitCode(), 0);
    };
    // Room for a few bytes past the records only: the next batch is cut
    // short mid-record, inside the zeros that pad the file.
    // (The soft limit only: raising a hard limit back needs a capability.)
    setLimit(QString::number(readLines(segment).join('\n').size() + 1 + 40)
        + QStringLiteral(":unlimited"));

    const Json refused = call("during");
    QCOMPARE(refused["decision"], Json("deny"));
    QCOMPARE(refused["code"], Json("audit_unavailable"));
    QCOMPARE(refused["decided_by"], Json("audit"));
    const Json down = reviewer->next("audit");
    QCOMPARE(down["available"], Json(false));
    QVERIFY2(down["error"].get<std::string>().find("File too large") != std::string::npos,
        dumpJson(down).c_str());
    // While it lasts, nothing runs.
    QCOMPARE(call("still")["code"], Json("audit_unavailable"));

    setLimit(QStringLiteral("unlimited:unlimited"));
    // Retries may say again that it is down, with the error of their step.
    Json up = reviewer->next("audit");
    for (int i = 0; i < 20 && up["available"] == Json(false); ++i)
        up = reviewer->next("audit");
    QCOMPARE(up["available"], Json(true));
    QCOMPARE(call("after")["decision"], Json("allow"));

    // Nothing was lost: the refused calls and what they were told are there.
    std::map<std::string, std::vector<std::string>> delivered;
    QTRY_VERIFY(QFileInfo(segment).size() > 0);
    const bool all = QTest::qWaitFor(
        [&] {
            delivered.clear();
            audit::forEachRecord(
                console.dataDir() + QStringLiteral("/audit"), [&](std::string_view, const Json &r) {
                    if (r["event"] == "delivered")
                        delivered[r["call_id"]].push_back(r["decision"].get<std::string>() + "/"
                            + r.value("code", std::string()));
                    return true;
                });
            return delivered.size() == 4;
        },
        WaitMs);
    QVERIFY(all);
    QCOMPARE(delivered["before"], std::vector<std::string> { "allow/" });
    QCOMPARE(delivered["during"], std::vector<std::string> { "deny/audit_unavailable" });
    QCOMPARE(delivered["still"], std::vector<std::string> { "deny/audit_unavailable" });
    QCOMPARE(delivered["after"], std::vector<std::string> { "allow/" });
    const CtlResult verify = console.ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

QTEST_GUILESS_MAIN(TestAudit)
#include "tst_audit.moc"
