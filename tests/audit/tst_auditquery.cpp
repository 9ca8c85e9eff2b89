// SPDX-License-Identifier: Apache-2.0
// `audit query` finds records by searching whole files for a filter's
// needle. Whatever the filter, it must return exactly what parsing every
// record and testing each would, newest first.

#include "audit/auditfile.h"
#include "audit/auditlog.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;

namespace {

// Every complete record, newest first, that the filter takes when each is
// parsed and tested on its own: the reference the query must equal.
std::vector<quint64> reference(const QString &dir, const audit::Filter &filter, std::size_t limit)
{
    std::vector<quint64> seqs;
    audit::forEachRecord(dir, [&](std::string_view line, const Json &r) {
        if (filter.matches(line, r))
            seqs.push_back(r["seq"].get<quint64>());
        return true;
    });
    std::reverse(seqs.begin(), seqs.end());
    if (limit && seqs.size() > limit)
        seqs.resize(limit);
    return seqs;
}

std::vector<quint64> queried(const QString &dir, const audit::Filter &filter, std::size_t limit)
{
    std::vector<quint64> seqs;
    audit::query(dir, filter, limit, [&](std::string_view, const Json &r) {
        seqs.push_back(r["seq"].get<quint64>());
        return true;
    });
    return seqs;
}

} // namespace

class TestAuditQuery : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sameAsParsingEveryRecord_data();
    void sameAsParsingEveryRecord();
    void decidedByNamesWholeDeciders_data();
    void decidedByNamesWholeDeciders();
    void paddingAndATornTailAreNoRecords();

private:
    QTemporaryDir m_tmp;
    QString m_dir;
};

void TestAuditQuery::initTestCase()
{
    // Several files, and values that only match in their escaped form,
    // in another case, or as a substring of another field.
    m_dir = m_tmp.path() + QStringLiteral("/audit");
    ManualClock clock(1'700'000'000'000);
    AuditConfig config;
    config.dir = m_dir;
    config.maxSegmentBytes = 16 << 10;
    config.preallocateBytes = 8 << 10;
    AuditLog log(config, &clock);
    log.open();
    const char *agents[] = { "alice-bot", "bob-bot", "Bob \"the\" bot", "bot", "agent\\n" };
    const char *tools[] = { "bash", "Bash", "bash_extra", "deploy", "read_file" };
    const char *reasons[] = { "ok", "not on a Friday", "FRIDAY freeze", "path C:\\Temp\\x",
        "say \"hi\"", "naïve café", "tab\there" };
    for (int i = 0; i < 600; ++i) {
        const Json fields { { "agent", agents[i % 5] }, { "tool", tools[(i / 2) % 5] },
            { "call_id", "c" + std::to_string(i) },
            { "decision",
                i % 4 == 0       ? "deny"
                    : i % 7 == 0 ? "halt"
                                 : "allow" },
            { "decided_by", i % 3 ? "guardrail:rules" : "human:Carol" },
            { "reason", reasons[i % 7] },
            { "args",
                { { "note", std::string("the tool was bash for ") + agents[(i + 1) % 5] } } } };
        log.append(i % 3 == 0 ? "call" : "decision", fields);
        clock.advance(60'000);
        if (i % 50 == 0)
            QVERIFY(log.waitDurable(10'000));
    }
    QVERIFY(log.waitDurable(10'000));
    QVERIFY(audit::listSegments(m_dir).size() > 3);
}

void TestAuditQuery::sameAsParsingEveryRecord_data()
{
    QTest::addColumn<QString>("event");
    QTest::addColumn<QString>("agent");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("decidedBy");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("since");
    QTest::addColumn<int>("limit");
    QTest::addColumn<int>("atLeast");
    const QString none;
    QTest::newRow("everything") << none << none << none << none << none << none << none << 0 << 600;
    QTest::newRow("everything, 17")
        << none << none << none << none << none << none << none << 17 << 17;
    QTest::newRow("tool, exact not substring")
        << none << none << QStringLiteral("bash") << none << none << none << none << 0 << 50;
    QTest::newRow("tool, other case")
        << none << none << QStringLiteral("Bash") << none << none << none << none << 0 << 50;
    QTest::newRow("agent, a substring of others")
        << none << QStringLiteral("bot") << none << none << none << none << none << 0 << 50;
    QTest::newRow("agent with quotes") << none << QStringLiteral("Bob \"the\" bot") << none << none
                                       << none << none << none << 0 << 50;
    QTest::newRow("agent with a backslash")
        << none << QStringLiteral("agent\\n") << none << none << none << none << none << 0 << 50;
    QTest::newRow("decision, decisions only")
        << none << none << none << QStringLiteral("deny") << none << none << none << 0 << 50;
    QTest::newRow("decision, first 5")
        << none << none << none << QStringLiteral("halt") << none << none << none << 5 << 5;
    QTest::newRow("event") << QStringLiteral("call") << none << none << none << none << none << none
                           << 0 << 100;
    QTest::newRow("decided by, any case")
        << none << none << none << none << QStringLiteral("CAROL") << none << none << 0 << 50;
    QTest::newRow("text, any case")
        << none << none << none << none << none << QStringLiteral("friday") << none << 0 << 100;
    QTest::newRow("text with quotes")
        << none << none << none << none << none << QStringLiteral("say \"hi") << none << 0 << 50;
    QTest::newRow("text with a backslash")
        << none << none << none << none << none << QStringLiteral("C:\\Temp") << none << 0 << 50;
    QTest::newRow("text with a tab")
        << none << none << none << none << none << QStringLiteral("tab\there") << none << 0 << 50;
    QTest::newRow("text, not ASCII")
        << none << none << none << none << none << QStringLiteral("CAFÉ") << none << 0 << 0;
    QTest::newRow("text, not ASCII, same case")
        << none << none << none << none << none << QStringLiteral("naïve") << none << 0 << 50;
    QTest::newRow("text twice in a record")
        << none << none << none << none << none << QStringLiteral("BOT") << none << 0 << 500;
    QTest::newRow("text absent") << none << none << none << none << none
                                 << QStringLiteral("no-such-thing") << none << 0 << 0;
    QTest::newRow("agent and text") << none << QStringLiteral("alice-bot") << none << none << none
                                    << QStringLiteral("FRIDAY") << none << 0 << 10;
    QTest::newRow("tool and decision")
        << none << none << QStringLiteral("deploy") << QStringLiteral("allow") << none << none
        << none << 0 << 20;
    QTest::newRow("since") << none << none << QStringLiteral("bash") << none << none << none
                           << QStringLiteral("2023-11-15T02:00:00.000Z") << 0 << 10;
}

void TestAuditQuery::sameAsParsingEveryRecord()
{
    QFETCH(QString, event);
    QFETCH(QString, agent);
    QFETCH(QString, tool);
    QFETCH(QString, decision);
    QFETCH(QString, decidedBy);
    QFETCH(QString, text);
    QFETCH(QString, since);
    QFETCH(int, limit);
    QFETCH(int, atLeast);
    audit::Filter filter;
    filter.event = event.toStdString();
    filter.agent = agent.toStdString();
    filter.tool = tool.toStdString();
    filter.decision = decision.toStdString();
    filter.decidedBy = decidedBy.toStdString();
    filter.text = text.toStdString();
    filter.since = since.toStdString();
    const std::vector<quint64> expected = reference(m_dir, filter, std::size_t(limit));
    QVERIFY2(expected.size() >= std::size_t(atLeast), std::to_string(expected.size()).c_str());
    if (atLeast == 0 && !text.isEmpty())
        QVERIFY(expected.empty());
    QCOMPARE(queried(m_dir, filter, std::size_t(limit)), expected);
}

void TestAuditQuery::paddingAndATornTailAreNoRecords()
{
    QTemporaryDir tmp;
    ManualClock clock(1'700'000'000'000);
    AuditConfig config;
    config.dir = tmp.path();
    config.preallocateBytes = 4096;
    AuditLog log(config, &clock);
    log.open();
    for (int i = 0; i < 5; ++i)
        log.append("decision", Json { { "tool", "bash" }, { "call_id", "c" + std::to_string(i) } });
    QVERIFY(log.waitDurable(10'000));
    // While the log is open its file ends in zeros; a torn record among them.
    const QString segment = tmp.path() + u'/' + audit::segmentFileName(1);
    QFile f(segment);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const QByteArray bytes = f.readAll();
    QCOMPARE(bytes.size(), 4096);
    const std::string_view records
        = audit::withoutPadding(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    QVERIFY(f.seek(qint64(records.size())));
    QVERIFY(f.write(R"({"seq":6,"ts":"2023-11-14T22:13:26.000Z","event":"decision","tool":"bash")")
        > 0);
    f.close();

    audit::Filter filter;
    filter.tool = "bash";
    QCOMPARE(queried(tmp.path(), filter, 0), (std::vector<quint64> { 5, 4, 3, 2, 1 }));
    filter = {};
    filter.text = "BASH";
    QCOMPARE(queried(tmp.path(), filter, 0), (std::vector<quint64> { 5, 4, 3, 2, 1 }));
    QCOMPARE(queried(tmp.path(), {}, 2), (std::vector<quint64> { 5, 4 }));
}

void TestAuditQuery::decidedByNamesWholeDeciders_data()
{
    QTest::addColumn<QString>("decidedBy");
    QTest::addColumn<QString>("query");
    QTest::addColumn<bool>("matches");
    QTest::newRow("her name") << "human:alice"
                              << "alice" << true;
    QTest::newRow("her name, other case") << "human:alice"
                                          << "ALICE" << true;
    QTest::newRow("the whole decider") << "human:alice"
                                       << "human:alice" << true;
    QTest::newRow("the kind") << "human:alice"
                              << "human" << true;
    QTest::newRow("one of two approvers") << "human:bob,human:alice"
                                          << "alice" << true;
    QTest::newRow("the first of two") << "human:bob,human:alice"
                                      << "bob" << true;
    QTest::newRow("a guardrail") << "guardrail:rules"
                                 << "rules" << true;
    QTest::newRow("a part of a name") << "human:alice"
                                      << "ali" << false;
    QTest::newRow("a name inside another") << "human:malice"
                                           << "alice" << false;
    QTest::newRow("another kind") << "guardrail:alice"
                                  << "human:alice" << false;
    QTest::newRow("nobody") << ""
                            << "alice" << false;
}

void TestAuditQuery::decidedByNamesWholeDeciders()
{
    QFETCH(QString, decidedBy);
    QFETCH(QString, query);
    QFETCH(bool, matches);
    audit::Filter filter;
    filter.decidedBy = query.toStdString();
    Json record { { "seq", 1 }, { "event", "vote" } };
    if (!decidedBy.isEmpty())
        record["decided_by"] = decidedBy.toStdString();
    QCOMPARE(filter.matchesRecord(record), matches);
}

QTEST_GUILESS_MAIN(TestAuditQuery)
#include "tst_auditquery.moc"
