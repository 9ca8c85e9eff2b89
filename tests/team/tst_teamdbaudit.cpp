// SPDX-License-Identifier: Apache-2.0
// The team audit on a real PostgreSQL that the test starts itself
// (tests/common/pgcluster.h): its activity read in order, the verifier that
// finds tampering, copies appended once; and a connection with full TLS.

#include "common/pgcluster.h"
#include "common/sha256.h"
#include "team/teamactivity.h"
#include "team/teamaudit.h"
#include "team/teamdb.h"
#include "team/teamdbfixture.h"

#include <QtTest>

#include <pqxx/pqxx>

#include <atomic>
#include <thread>

using namespace holdpoint;
using namespace holdpoint::team;
using holdpoint::test::PgCluster;
using holdpoint::test::TeamDbFixture;

class tst_TeamDbAudit final : public QObject, public TeamDbFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startCluster(); }
    void init() { newDatabase(); }
    void cleanup() { dropDatabase(); }
    void activityFollowsTheAuditInOrder();
    void verifyFindsTampering_data();
    void verifyFindsTampering();
    void copiesAreAppendedOnce();
    void verifyFullTls();
};

void tst_TeamDbAudit::activityFollowsTheAuditInOrder()
{
    auto c = open();
    QVERIFY(auditSince(*c, -1, 10).empty());
    heartbeat(*c, gateway("gw-a"));
    for (const char *id : { "f1", "f2", "f3" }) {
        Escalation e = escalation(id);
        e.audit["gateway"] = "gw-a";
        e.audit["session"] = "s1";
        escalate(*c, e);
    }
    // The newest two, oldest first; then what follows a sequence number.
    const auto newest = auditSince(*c, -1, 2);
    QCOMPARE(newest.size(), std::size_t(2));
    QVERIFY(newest[0].seq < newest[1].seq);
    QCOMPARE(newest[1].instance, std::string("gw-a"));
    const auto all = auditSince(*c, 0, 100);
    QCOMPARE(all.size(), std::size_t(3));
    QCOMPARE(all[1].seq, newest[0].seq);
    QVERIFY(auditSince(*c, all.back().seq, 100).empty());
    // Another gateway's session is named as its items are in the queue.
    QCOMPARE(viewRecord(all[0].line, "console-1").value("session", std::string()),
        std::string("gw-a/s1"));
    QCOMPARE(viewRecord(all[0].line, "gw-a").value("session", std::string()), std::string("s1"));
    QCOMPARE(
        viewRecord(all[0].line, "gw-a").value("event", std::string()), std::string("escalated"));
    QVERIFY(viewRecord("not json", "gw-a").is_null());
}

void tst_TeamDbAudit::verifyFindsTampering_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("message");
    QTest::newRow("intact") << QString() << int(audit::VerifyStatus::Intact)
                            << QStringLiteral("7 records intact (records 1 to 7)");
    QTest::newRow("edited") << QStringLiteral(
        "UPDATE holdpoint.audit SET line = replace(line, 'human:alice', 'human:eve') WHERE seq = 3")
                            << int(audit::VerifyStatus::Tampered)
                            << QStringLiteral("record 3 was altered");
    QTest::newRow("deleted") << QStringLiteral("DELETE FROM holdpoint.audit WHERE seq = 4")
                             << int(audit::VerifyStatus::Tampered)
                             << QStringLiteral("record 4 was deleted");
    QTest::newRow("reordered") << QStringLiteral(
        "UPDATE holdpoint.audit SET seq = CASE seq WHEN 2 THEN -5 WHEN 5 THEN 2 END WHERE seq IN "
        "(2, 5);"
        "UPDATE holdpoint.audit SET seq = 5 WHERE seq = -5")
                               << int(audit::VerifyStatus::Tampered)
                               << QStringLiteral("row 2 holds record 5");
    QTest::newRow("last edited")
        << QStringLiteral(
               "UPDATE holdpoint.audit SET line = replace(line, 'deny', 'allow') WHERE seq = 7")
        << int(audit::VerifyStatus::Tampered)
        << QStringLiteral("record 7 was altered: its hash differs from the one in the head");
    QTest::newRow("cut off") << QStringLiteral("DELETE FROM holdpoint.audit WHERE seq >= 6")
                             << int(audit::VerifyStatus::CutOff)
                             << QStringLiteral("records 6 to 7 are gone");
}

void tst_TeamDbAudit::verifyFindsTampering()
{
    QFETCH(QString, sql);
    QFETCH(int, status);
    QFETCH(QString, message);
    auto c = open();
    heartbeat(*c, gateway("gw-a"));
    escalate(*c, escalation("v1")); // 1
    escalate(*c, escalation("v2")); // 2
    decide(*c, decision("v1", "console-a", "alice")); // 3
    escalate(*c, escalation("v3")); // 4
    heartbeat(*c, gateway("console-a"));
    claim(*c, "v2", "console-a", "alice", 15'000); // 5
    appendAudit(
        *c, "gw-a", { { "call", Json { { "gateway", "gw-a" }, { "tool", "Read" } } } }); // 6
    decide(*c, decision("v2", "console-a", "alice", "deny")); // 7
    if (!sql.isEmpty())
        QVERIFY(admin(sql));
    const auto report = verifyAudit(*c);
    QVERIFY2(QString::fromStdString(report.message).contains(message), report.message.c_str());
    QCOMPARE(int(report.status), status);
}

// A batch of copies whose answer was lost is sent again; it appends nothing.
void tst_TeamDbAudit::copiesAreAppendedOnce()
{
    auto c = open();
    const auto lines = [&c] {
        pqxx::nontransaction tx(*c);
        return tx.exec("SELECT count(*) FROM holdpoint.audit")[0][0].as<int>();
    };
    const int before = lines();
    heartbeat(*c, gateway("gw-a"));
    heartbeat(*c, gateway("gw-b"));
    const auto two = [](const char *gw) {
        return std::vector<AuditEvent> { { "call", Json { { "gateway", gw }, { "n", 1 } } },
            { "call", Json { { "gateway", gw }, { "n", 2 } } } };
    };
    const CopyBatch first { "run-a", 1 }, second { "run-a", 2 }, otherRun { "run-b", 1 };
    QVERIFY(appendAudit(*c, "gw-a", two("gw-a"), &first));
    QVERIFY(!appendAudit(*c, "gw-a", two("gw-a"), &first)); // the retry
    QCOMPARE(lines(), before + 2);
    QVERIFY(appendAudit(*c, "gw-a", two("gw-a"), &second));
    QVERIFY(!appendAudit(*c, "gw-a", two("gw-a"), &first)); // older than the last
    QVERIFY(appendAudit(*c, "gw-a", two("gw-a"), &otherRun)); // a restarted process
    QVERIFY(appendAudit(*c, "gw-b", two("gw-b"), &first)); // another instance
    QCOMPARE(lines(), before + 8);
    QCOMPARE(int(verifyAudit(*c).status), int(audit::VerifyStatus::Intact));
}

void tst_TeamDbAudit::verifyFullTls()
{
    open();
    QVERIFY(admin(QStringLiteral(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tls_user') THEN "
        "CREATE ROLE tls_user LOGIN PASSWORD 'tls-secret-1'; END IF; END $$")));
    QVERIFY(admin(QStringLiteral("GRANT ALL ON SCHEMA holdpoint TO tls_user; GRANT SELECT ON ALL "
                                 "TABLES IN SCHEMA holdpoint TO tls_user")));
    qputenv("PGPASSWORD", "tls-secret-1");
    const auto restore = qScopeGuard([] { qunsetenv("PGPASSWORD"); });
    {
        auto c = team::connect(m_pg.tlsConnString(m_db, QStringLiteral("tls_user")).toStdString());
        QCOMPARE(schemaVersion(*c), SchemaVersion);
        pqxx::nontransaction tx(*c);
        QCOMPARE(
            tx.exec("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")[0][0].as<bool>(),
            true);
    }
    // Another CA's certificate is refused, and so is a name the certificate
    // does not carry (verify-full checks both).
    QTemporaryDir other;
    QVERIFY(QProcess::execute(QStringLiteral("openssl"),
                { QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                    QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-days"),
                    QStringLiteral("1"), QStringLiteral("-subj"), QStringLiteral("/CN=other"),
                    QStringLiteral("-keyout"), other.filePath(QStringLiteral("k.pem")),
                    QStringLiteral("-out"), other.filePath(QStringLiteral("ca.pem")) })
        == 0);
    const QString wrongCa = m_pg.tlsConnString(m_db, QStringLiteral("tls_user"))
                                .replace(m_pg.caFile(), other.filePath(QStringLiteral("ca.pem")));
    QVERIFY_THROWS_EXCEPTION(TeamError, team::connect(wrongCa.toStdString()));
    const QString wrongName = m_pg.tlsConnString(m_db, QStringLiteral("tls_user"))
                                  .replace(QStringLiteral("host=localhost"),
                                      QStringLiteral("host=127.0.0.2 hostaddr=127.0.0.1"));
    try {
        team::connect(wrongName.toStdString());
        QFAIL("a certificate for another name was accepted");
    } catch (const TeamError &e) {
        QVERIFY2(std::string(e.what()).find("127.0.0.2") != std::string::npos, e.what());
        QVERIFY(std::string(e.what()).find("tls-secret-1") == std::string::npos);
    }
}

QTEST_GUILESS_MAIN(tst_TeamDbAudit)
#include "tst_teamdbaudit.moc"
