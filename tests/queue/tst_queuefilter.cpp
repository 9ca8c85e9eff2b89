// SPDX-License-Identifier: Apache-2.0
// What the queue's risk sort and "why" column read off an item: row by row.

#include "queue/queuefilter.h"

#include <QTest>

using namespace holdpoint;

class TestQueueFilter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void signalsAndRisk_data();
    void signalsAndRisk();
    void filterWordsMustAllOccur();
    void filterFindsNoMaskedSecret();
};

void TestQueueFilter::signalsAndRisk_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("trail");
    QTest::addColumn<QString>("annotations");
    QTest::addColumn<QStringList>("warnings"); // guardrail names
    QTest::addColumn<QString>("askedBy");
    QTest::addColumn<bool>("secrets");
    QTest::addColumn<int>("risk");

    QTest::newRow("default ask, a read") << "read_file"
                                         << "[]"
                                         << "{}" << QStringList() << "" << false << 0;
    QTest::newRow("a write") << "write_file"
                             << "[]"
                             << "{}" << QStringList() << "" << false << 10;
    QTest::newRow("a shell") << "bash"
                             << "[]"
                             << "{}" << QStringList() << "" << false << 20;
    QTest::newRow("a rule asked")
        << "deploy"
        << R"([{"guardrail":"rules","action":"ask","reason":"deploys need a person","code":""}])"
        << "{}" << QStringList() << "rules" << false << 20;
    QTest::newRow("the first ask is the one")
        << "x"
        << R"([{"guardrail":"a","action":"pass"},{"guardrail":"b","action":"ask","reason":"b"},{"guardrail":"c","action":"ask","reason":"c"}])"
        << "{}" << QStringList() << "b" << false << 0;
    QTest::newRow("secrets found")
        << "http_get"
        << R"([{"guardrail":"secrets","action":"ask","code":"secret_detected"}])"
        << "{}" << QStringList() << "secrets" << true << 25;
    QTest::newRow("protected path")
        << "read_file"
        << R"([{"guardrail":"protected_paths","action":"ask","code":"protected_path"}])"
        << "{}" << QStringList() << "protected_paths" << false << 25;
    QTest::newRow("MCP destructive, open world")
        << "x"
        << "[]"
        << R"({"destructiveHint":true,"openWorldHint":true})" << QStringList() << "" << false << 40;
    QTest::newRow("MCP read-only never goes below 0")
        << "x"
        << "[]"
        << R"({"readOnlyHint":true})" << QStringList() << "" << false << 0;
    QTest::newRow("hints must be booleans")
        << "x"
        << "[]"
        << R"({"destructiveHint":"yes"})" << QStringList() << "" << false << 0;
    QTest::newRow("loop warnings weigh more")
        << "x"
        << "[]"
        << "{}" << QStringLiteral("loop_detection,loop_detection,rate_limit").split(u',') << ""
        << false << 35;
    QTest::newRow("capped at 100")
        << "rm_everything"
        << R"([{"guardrail":"s","action":"ask","code":"secret_detected"},{"guardrail":"p","action":"warn","code":"protected_path"}])"
        << R"({"destructiveHint":true,"openWorldHint":true})"
        << QStringLiteral("loop_detection,loop_detection").split(u',') << "s" << true << 100;
}

void TestQueueFilter::signalsAndRisk()
{
    QFETCH(QString, tool);
    QFETCH(QString, trail);
    QFETCH(QString, annotations);
    QFETCH(QStringList, warnings);
    QFETCH(QString, askedBy);
    QFETCH(bool, secrets);
    QFETCH(int, risk);
    QueueItem item;
    item.toolName = tool.toStdString();
    item.trail = Json::parse(trail.toStdString());
    item.annotations = Json::parse(annotations.toStdString());
    for (const QString &g : warnings)
        item.warnings.push_back({ g.toStdString(), "code", "message" });
    const ItemSignals s = itemSignals(item);
    QCOMPARE(QString::fromStdString(s.askedBy), askedBy);
    QCOMPARE(s.secrets, secrets);
    QCOMPARE(riskScore(item), risk);
}

void TestQueueFilter::filterWordsMustAllOccur()
{
    QueueItem item;
    item.agent.name = "Coder";
    item.toolName = "write_file";
    item.args = { { "path", "src/Main.cpp" } };
    item.searchText = queueSearchText(item);
    QueueFilter f;
    f.setText("  MAIN   coder ");
    QVERIFY(f.matches(item));
    f.setText("main deploy");
    QVERIFY(!f.matches(item));
    f.setText("");
    QVERIFY(f.empty() && f.matches(item));
}

void TestQueueFilter::filterFindsNoMaskedSecret()
{
    // The reason and a warning quote the args; a person who has not
    // revealed the secret must not find it by typing guesses.
    QueueItem item;
    item.toolName = "write_file";
    item.args = { { "path", "/srv/keys/AKIAIOSFODNN7EXAMPLE" } };
    item.redactions
        = { { "AKIAIOSFODNN7EXAMPLE", "[secret:aws_access_key_id:1]", "aws_access_key_id" } };
    item.reason = "path /srv/keys/AKIAIOSFODNN7EXAMPLE is protected (/srv)";
    item.warnings.push_back({ "quoting", "quoted", "saw AKIAIOSFODNN7EXAMPLE" });
    item.searchText = queueSearchText(item);
    QueueFilter f;
    for (const char *guess : { "akiaiosf", "AKIAIOSFODNN7EXAMPLE", "nn7example" }) {
        f.setText(guess);
        QVERIFY2(!f.matches(item), guess);
    }
    for (const char *shown : { "is protected", "secret:aws_access_key_id", "saw" }) {
        f.setText(shown);
        QVERIFY2(f.matches(item), shown);
    }
}

QTEST_GUILESS_MAIN(TestQueueFilter)
#include "tst_queuefilter.moc"
