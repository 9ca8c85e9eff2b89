// A reviewer's decisions through the broker: every action, every refusal, halting a turn.

#include "engine/enginefixture.h"

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

class TestReviewDecision : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reviewActionsDeliverDecisions_data();
    void reviewActionsDeliverDecisions();
    void reviewRefusals_data();
    void reviewRefusals();
    void haltAbortsTheWholeTurn();
};

void TestReviewDecision::reviewActionsDeliverDecisions_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("editedArgs");
    QTest::addColumn<QString>("expected");

    QTest::newRow("approve") << int(ReviewAction::Approve) << "" << ""
                             << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"approved by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("approve with reason") << int(ReviewAction::Approve) << "looks fine" << ""
                                         << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"looks fine","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("edit") << int(ReviewAction::Edit) << "" << R"({"path":"b.txt"})"
                          << R"({"type":"decision","call_id":"c1","decision":"modify","args":{"path":"b.txt"},"reason":"approved with edited arguments by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("deny") << int(ReviewAction::Deny) << "not in this repo" << ""
                          << R"({"type":"decision","call_id":"c1","decision":"deny","reason":"not in this repo","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("halt") << int(ReviewAction::Halt) << "" << ""
                          << R"({"type":"decision","call_id":"c1","decision":"halt","reason":"turn halted by a reviewer","decided_by":"human:alice","warnings":[]})";
}

void TestReviewDecision::reviewActionsDeliverDecisions()
{
    QFETCH(int, action);
    QFETCH(QString, reason);
    QFETCH(QString, editedArgs);
    QFETCH(QString, expected);
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    std::optional<Json> args;
    if (!editedArgs.isEmpty())
        args = Json::parse(editedArgs.toStdString());
    const ReviewOutcome out = f.review(f.itemOf("c1"), ReviewAction(action), reason.toStdString(), args);
    QVERIFY2(out.ok, out.message.c_str());
    QCOMPARE(f.queue.size(), 0);
    const auto decisions = f.out.ofType(a, "decision");
    QCOMPARE(decisions.size(), std::size_t(1)); // exactly one per tool_call
    QCOMPARE(decisions[0], Json::parse(expected.toStdString()));
}

void TestReviewDecision::reviewRefusals_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown item") << int(ReviewAction::Approve) << "" << "" << "nope" << int(ErrorCode::UnknownItem)
                                  << "id: no pending item \"nope\"; it may have been decided, timed out or cancelled";
    QTest::newRow("deny without reason") << int(ReviewAction::Deny) << " " << "" << "" << int(ErrorCode::MissingField)
                                         << "reason: required for deny, expected a non-empty string";
    QTest::newRow("edit without args") << int(ReviewAction::Edit) << "" << "" << "" << int(ErrorCode::MissingField)
                                       << "args: required for edit, expected an object";
    QTest::newRow("edit unchanged") << int(ReviewAction::Edit) << "" << R"({"path":"a.txt"})" << ""
                                    << int(ErrorCode::InvalidField) << "args: identical to the call's own args; use action approve";
}

void TestReviewDecision::reviewRefusals()
{
    QFETCH(int, action);
    QFETCH(QString, reason);
    QFETCH(QString, args);
    QFETCH(QString, id);
    QFETCH(int, code);
    QFETCH(QString, message);
    Fixture f;
    const ConnectionId a = f.agent();
    f.call(a, "c1");
    std::optional<Json> parsed;
    if (!args.isEmpty())
        parsed = Json::parse(args.toStdString());
    const ReviewOutcome out =
        f.review(id.isEmpty() ? f.itemOf("c1") : id.toStdString(), ReviewAction(action), reason.toStdString(), parsed);
    QVERIFY(!out.ok);
    QCOMPARE(int(out.code), code);
    QCOMPARE(toQString(out.message), message);
    QCOMPARE(f.queue.size(), 1); // nothing decided
    QVERIFY(f.out.ofType(a, "decision").empty());
}

void TestReviewDecision::haltAbortsTheWholeTurn()
{
    Fixture f;
    const ConnectionId a = f.agent();
    const ConnectionId other = f.agent();
    f.call(a, "c1", {{"n", 1}}, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c2", {{"n", 2}}, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c3", {{"n", 3}}, "t", std::nullopt, std::string("turn-2"));
    f.call(other, "c4", {{"n", 4}}, "t", std::nullopt, std::string("turn-1")); // another session's turn-1
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Halt, "runaway").ok);
    const auto decisions = f.out.ofType(a, "decision");
    QCOMPARE(decisions.size(), std::size_t(2));
    QCOMPARE(decisions[0]["call_id"], Json("c1"));
    QCOMPARE(decisions[0]["reason"], Json("runaway"));
    QCOMPARE(decisions[1]["call_id"], Json("c2"));
    QCOMPARE(decisions[1]["decision"], Json("halt"));
    QCOMPARE(decisions[1]["reason"], Json("runaway (turn halted with call c1)"));
    QCOMPARE(f.queue.size(), 2);
    QVERIFY(!f.itemOf("c3").empty());
    QVERIFY(!f.itemOf("c4").empty());
}

QTEST_GUILESS_MAIN(TestReviewDecision)
#include "tst_reviewdecision.moc"
