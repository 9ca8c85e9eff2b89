// SPDX-License-Identifier: Apache-2.0
// The console runs the built-in self_guard first: an agent's read of the
// console's own reviewer token is denied before any person sees it. A
// policy that turns it off by name keeps its reason on the window's
// banner for as long as it is in force.

#include "audit/auditfile.h"
#include "windowharness.h"

#include <QLabel>

using namespace holdpoint;
using namespace holdpoint::test;

class TestSelfGuardBanner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void consoleDeniesItsOwnToken_data();
    void consoleDeniesItsOwnToken();
    void turnedOffShowsTheReason();
};

void TestSelfGuardBanner::consoleDeniesItsOwnToken_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("reviewer token") << QStringLiteral("reviewer.token");
    QTest::newRow("audit log") << QStringLiteral("audit/000001.jsonl");
    QTest::newRow("always rules") << QStringLiteral("policy.json");
}

void TestSelfGuardBanner::consoleDeniesItsOwnToken()
{
    QFETCH(QString, file);
    WindowHarness h(R"js({"version":1,"default":"allow"})js");
    QVERIFY(h.started && h.welcomed);
    const std::string path = QString(h.dir.path() + QStringLiteral("/data/") + file).toStdString();
    h.agent->send(h.call("c1", "Read", { { "file_path", path } }));
    const Json d = h.decisionFor("c1");
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["decided_by"], Json("guardrail:self_guard"));
    // The policy file the console loaded is guarded too.
    h.agent->send(h.call(
        "c2", "Bash", { { "command", "sed -i s/allow/ask/ " + h.policyFile.toStdString() } }));
    QCOMPARE(h.decisionFor("c2")["decided_by"], Json("guardrail:self_guard"));
    // Ordinary work runs at once under this policy.
    h.agent->send(h.call("c3", "Read", { { "file_path", "/home/dev/app/src/main.c" } }));
    QCOMPARE(h.decisionFor("c3")["decision"], Json("allow"));
    QVERIFY(!h.window->findChild<QLabel *>(QStringLiteral("policyBanner"))->isVisible());
}

void TestSelfGuardBanner::turnedOffShowsTheReason()
{
    WindowHarness h(
        R"js({"version":1,"default":"allow","turn_off":{"self_guard":"agents run as user ci, not me"}})js");
    QVERIFY(h.started && h.welcomed);
    auto *banner = h.window->findChild<QLabel *>(QStringLiteral("policyBanner"));
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("The self-guard is off")),
        qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QStringLiteral("agents run as user ci, not me")),
        qPrintable(banner->text()));
    QVERIFY(banner->text().contains(h.policyFile));
    QCOMPARE(h.core->policyWarning(), banner->text());
    // And the audit log records that the console started without it, and why.
    audit::Filter started;
    started.event = "console_started";
    Json record;
    audit::query(h.core->dataDir() + QStringLiteral("/audit"), started, 10,
        [&](std::string_view, const Json &r) {
            record = r;
            return false;
        });
    QCOMPARE(record.value("self_guard_off", std::string()),
        std::string("agents run as user ci, not me"));
    // Off means off: the read is the policy's to decide.
    h.agent->send(h.call("c1", "Read",
        { { "file_path",
            QString(h.dir.path() + QStringLiteral("/data/reviewer.token")).toStdString() } }));
    QCOMPARE(h.decisionFor("c1")["decision"], Json("allow"));
}

QTEST_MAIN(TestSelfGuardBanner)
#include "tst_selfguardbanner.moc"
