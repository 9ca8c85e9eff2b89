// SPDX-License-Identifier: Apache-2.0
// decided_by's text read into a typed decider and written back (protocol/decider.h).

#include "protocol/decider.h"

#include <QTest>

using namespace holdpoint::protocol;

Q_DECLARE_METATYPE(Decider::Kind)

class tst_Decider : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsAndWritesBack_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Decider::Kind>("kind");
        QTest::addColumn<QString>("name");
        QTest::newRow("person") << QStringLiteral("human:alice") << Decider::Kind::Person
                                << QStringLiteral("alice");
        QTest::newRow("person, empty name")
            << QStringLiteral("human:") << Decider::Kind::Person << QStringLiteral("");
        QTest::newRow("guardrail") << QStringLiteral("guardrail:rm-rf") << Decider::Kind::Guardrail
                                   << QStringLiteral("guardrail:rm-rf");
        QTest::newRow("policy") << QStringLiteral("policy:default") << Decider::Kind::Guardrail
                                << QStringLiteral("policy:default");
        QTest::newRow("timeout") << QStringLiteral("timeout") << Decider::Kind::Other
                                 << QStringLiteral("timeout");
        QTest::newRow("standing") << QStringLiteral("standing") << Decider::Kind::Other
                                  << QStringLiteral("standing");
        QTest::newRow("prefix case matters")
            << QStringLiteral("Human:alice") << Decider::Kind::Other
            << QStringLiteral("Human:alice");
        QTest::newRow("not at the start") << QStringLiteral("x human:alice") << Decider::Kind::Other
                                          << QStringLiteral("x human:alice");
    }
    void readsAndWritesBack()
    {
        QFETCH(QString, text);
        QFETCH(Decider::Kind, kind);
        QFETCH(QString, name);
        const Decider d = Decider::of(text.toStdString(), "web:phone");
        QCOMPARE(d.kind, kind);
        QCOMPARE(QString::fromStdString(d.name), name);
        QCOMPARE(d.via, std::string("web:phone"));
        QCOMPARE(d.isPerson(), kind == Decider::Kind::Person);
        QCOMPARE(QString::fromStdString(d.text()), text);
    }

    void peopleOfSeveralApprovals()
    {
        QCOMPARE(peopleDecidedBy({ "alice", "bob" }), std::string("human:alice,human:bob"));
        QCOMPARE(peopleDecidedBy({}), std::string());
        QCOMPARE(peopleIn("human:alice,human:bob"), (std::vector<std::string> { "alice", "bob" }));
        QCOMPARE(peopleIn("human:alice,timeout,human:bob"),
            (std::vector<std::string> { "alice", "bob" }));
        QCOMPARE(peopleIn("guardrail:x"), std::vector<std::string> {});
        QCOMPARE(peopleIn(""), std::vector<std::string> {});
        QCOMPARE(Decider::person("carol", "ctl").text(), std::string("human:carol"));
    }
};

QTEST_GUILESS_MAIN(tst_Decider)
#include "tst_decider.moc"
