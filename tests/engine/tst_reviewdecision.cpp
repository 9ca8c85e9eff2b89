// SPDX-License-Identifier: Apache-2.0
// A reviewer's decisions: the pure plan (engine/reviewdecision.h) row by
// row, and through the broker: every action, every refusal, halting a turn,
// decisions for the rest of a turn or session.

#include "engine/enginefixture.h"
#include "engine/reviewdecision.h"

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
    void planTable_data();
    void planTable();
    void reachedDecisionTable_data();
    void reachedDecisionTable();
    void sessionScopeAnswersWaitingAndLaterCalls();
    void turnScopeEndsWithTheTurn();
    void scopeNeverOverridesAGuardrailDeny();
};

namespace {

// A pending item as planReview sees it: session s1, tool write_file.
QueueItem planItem(bool inTurn, bool proposed, bool secretsPending)
{
    QueueItem item;
    item.id = "i1";
    item.callId = "c1";
    item.sessionId = "s1";
    item.toolName = "write_file";
    item.args = { { "path", "a.txt" } };
    if (inTurn)
        item.turnId = "t1";
    if (proposed)
        item.proposedArgs = Json { { "path", "sandbox/a.txt" } };
    item.redactions = { { "hunter2secret", "<secret:1>", "password" } };
    item.secretsPending = secretsPending;
    item.warnings = { { "loop_detection", "repeated_failure", "same failure 3 times" } };
    return item;
}

} // namespace

void TestReviewDecision::reviewActionsDeliverDecisions_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("editedArgs");
    QTest::addColumn<QString>("expected");

    QTest::newRow("approve")
        << int(ReviewAction::Approve) << ""
        << ""
        << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"approved by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("approve with reason")
        << int(ReviewAction::Approve) << "looks fine"
        << ""
        << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"looks fine","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("edit")
        << int(ReviewAction::Edit) << ""
        << R"({"path":"b.txt"})"
        << R"({"type":"decision","call_id":"c1","decision":"modify","args":{"path":"b.txt"},"reason":"approved with edited arguments by a reviewer","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("deny")
        << int(ReviewAction::Deny) << "not in this repo"
        << ""
        << R"({"type":"decision","call_id":"c1","decision":"deny","reason":"not in this repo","decided_by":"human:alice","warnings":[]})";
    QTest::newRow("halt")
        << int(ReviewAction::Halt) << ""
        << ""
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
    const ReviewOutcome out
        = f.review(f.itemOf("c1"), ReviewAction(action), reason.toStdString(), args);
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
    QTest::newRow("unknown item")
        << int(ReviewAction::Approve) << ""
        << ""
        << "nope" << int(ErrorCode::UnknownItem)
        << "id: no pending item \"nope\"; it may have been decided, timed out or cancelled";
    QTest::newRow("deny without reason")
        << int(ReviewAction::Deny) << " "
        << ""
        << "" << int(ErrorCode::MissingField)
        << "reason: required for deny, expected a non-empty string";
    QTest::newRow("edit without args")
        << int(ReviewAction::Edit) << ""
        << ""
        << "" << int(ErrorCode::MissingField) << "args: required for edit, expected an object";
    QTest::newRow("edit unchanged") << int(ReviewAction::Edit) << ""
                                    << R"({"path":"a.txt"})"
                                    << "" << int(ErrorCode::InvalidField)
                                    << "args: identical to the call's own args; use action approve";
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
    const ReviewOutcome out = f.review(id.isEmpty() ? f.itemOf("c1") : id.toStdString(),
        ReviewAction(action), reason.toStdString(), parsed);
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
    f.call(a, "c1", { { "n", 1 } }, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c2", { { "n", 2 } }, "t", std::nullopt, std::string("turn-1"));
    f.call(a, "c3", { { "n", 3 } }, "t", std::nullopt, std::string("turn-2"));
    f.call(other, "c4", { { "n", 4 } }, "t", std::nullopt,
        std::string("turn-1")); // another session's turn-1
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

void TestReviewDecision::planTable_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<int>("scope");
    QTest::addColumn<bool>("inTurn");
    QTest::addColumn<bool>("proposed");
    QTest::addColumn<bool>("secretsPending");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("editedArgs");
    // "error:<code>" or the decision kind; then its args, reason, the grant, the reach.
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("expectedReason");
    QTest::addColumn<QString>("grant");
    QTest::addColumn<QString>("reach");

    using A = ReviewAction;
    using S = ReviewScope;
    const QString none;
    QTest::newRow("approve runs the original args")
        << int(A::Approve) << int(S::Call) << false << false << false << none << none << "allow"
        << R"({"path":"a.txt"})"
        << "approved by a reviewer" << none << none;
    QTest::newRow("approve runs what guardrails proposed")
        << int(A::Approve) << int(S::Call) << false << true << false << none << none << "modify"
        << R"({"path":"sandbox/a.txt"})"
        << "approved by a reviewer" << none << none;
    QTest::newRow("edit keeps placeholders as secrets")
        << int(A::Edit) << int(S::Call) << false << false << false << none
        << R"({"path":"<secret:1>.txt"})"
        << "modify"
        << R"({"path":"hunter2secret.txt"})"
        << "approved with edited arguments by a reviewer" << none << none;
    QTest::newRow("edit back to the original is an allow")
        << int(A::Edit) << int(S::Call) << false << true << false << none << R"({"path":"a.txt"})"
        << "allow"
        << R"({"path":"a.txt"})"
        << "approved with edited arguments by a reviewer" << none << none;
    QTest::newRow("edit without args")
        << int(A::Edit) << int(S::Call) << false << false << false << none << none
        << "error:missing_field" << none << "args: required for edit, expected an object" << none
        << none;
    QTest::newRow("edit to the same args")
        << int(A::Edit) << int(S::Call) << false << false << false << none << R"({"path":"a.txt"})"
        << "error:invalid_field" << none
        << "args: identical to the call's own args; use action approve" << none << none;
    QTest::newRow("deny needs a reason")
        << int(A::Deny) << int(S::Call) << false << false << false << " \t" << none
        << "error:missing_field" << none << "reason: required for deny, expected a non-empty string"
        << none << none;
    QTest::newRow("deny") << int(A::Deny) << int(S::Call) << false << false << false << "no" << none
                          << "deny" << none << "no" << none << none;
    QTest::newRow("halt outside a turn reaches nothing")
        << int(A::Halt) << int(S::Call) << false << false << false << none << none << "halt" << none
        << "turn halted by a reviewer" << none << none;
    QTest::newRow("halt reaches the turn")
        << int(A::Halt) << int(S::Call) << true << false << false << none << none << "halt" << none
        << "turn halted by a reviewer" << none << "s1/t1/*";
    QTest::newRow("approve for the turn")
        << int(A::Approve) << int(S::Turn) << true << false << false << none << none << "allow"
        << R"({"path":"a.txt"})"
        << "approved by a reviewer"
        << "allow write_file turn t1: approved by a reviewer (for the rest of turn t1)"
        << "s1/t1/write_file";
    QTest::newRow("deny for the session")
        << int(A::Deny) << int(S::Session) << true << false << false << "never" << none << "deny"
        << none << "never"
        << "deny write_file session: never (for the rest of the session)"
        << "s1/*/write_file";
    QTest::newRow("turn scope without a turn")
        << int(A::Approve) << int(S::Turn) << false << false << false << none << none
        << "error:invalid_field" << none
        << "scope: this call belongs to no turn; use scope session or call" << none << none;
    QTest::newRow("halt has no scope")
        << int(A::Halt) << int(S::Session) << true << false << false << none << none
        << "error:invalid_field" << none << "scope: only approve and deny reach beyond one call"
        << none << none;
    QTest::newRow("edit has no scope")
        << int(A::Edit) << int(S::Turn) << true << false << false << none << R"({"path":"b"})"
        << "error:invalid_field" << none << "scope: only approve and deny reach beyond one call"
        << none << none;
    QTest::newRow("restored without secrets: no approve")
        << int(A::Approve) << int(S::Call) << false << false << true << none << none
        << "error:invalid_field" << none << "came back from the audit log after a restart" << none
        << none;
    QTest::newRow("restored without secrets: deny works")
        << int(A::Deny) << int(S::Call) << false << false << true << "no" << none << "deny" << none
        << "no" << none << none;
}

void TestReviewDecision::planTable()
{
    QFETCH(int, action);
    QFETCH(int, scope);
    QFETCH(bool, inTurn);
    QFETCH(bool, proposed);
    QFETCH(bool, secretsPending);
    QFETCH(QString, reason);
    QFETCH(QString, editedArgs);
    QFETCH(QString, expected);
    QFETCH(QString, args);
    QFETCH(QString, expectedReason);
    QFETCH(QString, grant);
    QFETCH(QString, reach);

    Review r;
    r.id = "i1";
    r.action = ReviewAction(action);
    r.scope = ReviewScope(scope);
    r.reason = reason.toStdString();
    if (!editedArgs.isEmpty())
        r.args = Json::parse(editedArgs.toStdString());
    const ReviewPlan plan
        = planReview(r, planItem(inTurn, proposed, secretsPending), "human:alice");

    if (expected.startsWith(u"error:")) {
        QVERIFY(!plan.ok);
        QCOMPARE(QString::fromUtf8(errorCodeName(plan.code)), expected.mid(6));
        QVERIFY2(plan.message.find(expectedReason.toStdString()) != std::string::npos,
            plan.message.c_str());
        return;
    }
    QVERIFY2(plan.ok, plan.message.c_str());
    QCOMPARE(QString::fromUtf8(decisionKindName(plan.decision.kind)), expected);
    QCOMPARE(plan.decision.args, args.isEmpty() ? Json() : Json::parse(args.toStdString()));
    QCOMPARE(plan.decision.reason, expectedReason.toStdString());
    QCOMPARE(plan.decision.decidedBy, std::string("human:alice"));
    QCOMPARE(plan.decision.warnings.size(), std::size_t(1)); // the item's warnings go with it

    QString grantText;
    if (plan.grant)
        grantText = QStringLiteral("%1 %2 %3: %4")
                        .arg(QString::fromUtf8(decisionKindName(plan.grant->kind)),
                            QString::fromStdString(plan.grant->toolName),
                            plan.grant->turnId ? QStringLiteral("turn ")
                                    + QString::fromStdString(*plan.grant->turnId)
                                               : QStringLiteral("session"),
                            QString::fromStdString(plan.grant->reason));
    QCOMPARE(grantText, grant);
    QString reachText;
    if (plan.reach)
        reachText = QString::fromStdString(plan.reach->sessionId + "/"
            + plan.reach->turnId.value_or("*") + "/" + plan.reach->toolName.value_or("*"));
    QCOMPARE(reachText, reach);
}

void TestReviewDecision::reachedDecisionTable_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<int>("scope");
    QTest::addColumn<bool>("otherProposed");
    QTest::addColumn<bool>("otherSecretsPending");
    QTest::addColumn<bool>("reaches");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("reason");

    using A = ReviewAction;
    using S = ReviewScope;
    QTest::newRow("halt") << int(A::Halt) << int(S::Call) << false << false << true << "halt"
                          << ""
                          << "turn halted by a reviewer (turn halted with call c1)";
    QTest::newRow("halt reaches a restored item too")
        << int(A::Halt) << int(S::Call) << false << true << true << "halt"
        << ""
        << "turn halted by a reviewer (turn halted with call c1)";
    QTest::newRow("turn approve runs the other's args")
        << int(A::Approve) << int(S::Turn) << false << false << true << "allow"
        << R"({"path":"b.txt"})"
        << "approved by a reviewer (for the rest of turn t1)";
    QTest::newRow("turn approve runs the other's proposal")
        << int(A::Approve) << int(S::Turn) << true << false << true << "modify"
        << R"({"path":"sandbox/b.txt"})"
        << "approved by a reviewer (for the rest of turn t1)";
    QTest::newRow("session deny") << int(A::Deny) << int(S::Session) << true << false << true
                                  << "deny"
                                  << ""
                                  << "no (for the rest of the session)";
    QTest::newRow("never approves a restored item in passing")
        << int(A::Approve) << int(S::Session) << false << true << false << ""
        << ""
        << "";
}

void TestReviewDecision::reachedDecisionTable()
{
    QFETCH(int, action);
    QFETCH(int, scope);
    QFETCH(bool, otherProposed);
    QFETCH(bool, otherSecretsPending);
    QFETCH(bool, reaches);
    QFETCH(QString, kind);
    QFETCH(QString, args);
    QFETCH(QString, reason);

    Review r;
    r.id = "i1";
    r.action = ReviewAction(action);
    r.scope = ReviewScope(scope);
    r.reason = r.action == ReviewAction::Deny ? "no" : "";
    const ReviewPlan plan = planReview(r, planItem(true, false, false), "human:alice");
    QVERIFY2(plan.ok, plan.message.c_str());
    QVERIFY(!planReaches(plan, planItem(true, false, false))); // never the reviewed item itself

    QueueItem other = planItem(true, false, otherSecretsPending);
    other.id = "i2";
    other.callId = "c2";
    other.args = { { "path", "b.txt" } };
    if (otherProposed)
        other.proposedArgs = Json { { "path", "sandbox/b.txt" } };
    other.warnings.clear();
    QCOMPARE(planReaches(plan, other), reaches);
    if (!reaches)
        return;
    const Decision d = reachedDecision(plan, other);
    QCOMPARE(QString::fromUtf8(decisionKindName(d.kind)), kind);
    QCOMPARE(d.args, args.isEmpty() ? Json() : Json::parse(args.toStdString()));
    QCOMPARE(d.reason, reason.toStdString());
    QVERIFY(d.warnings.empty()); // its own warnings, not the reviewed item's
}

void TestReviewDecision::sessionScopeAnswersWaitingAndLaterCalls()
{
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    const ConnectionId other = f.agent(std::string("s2"));
    f.call(a, "c1");
    f.call(a, "c2", { { "path", "b.txt" } });
    f.call(a, "r1", { { "path", "x" } }, "read_file");
    f.call(other, "o1");
    Review r;
    r.id = f.itemOf("c1");
    r.action = ReviewAction::Approve;
    r.scope = ReviewScope::Session;
    QVERIFY(f.broker.review(r, f.broker.consoleReviewer()).ok);
    // The session's other write_file call waiting now is answered with it...
    QCOMPARE(f.out.last(a, "decision")["call_id"], Json("c2"));
    QCOMPARE(f.out.last(a, "decision")["reason"],
        Json("approved by a reviewer (for the rest of the session)"));
    // ...another tool and another session still wait...
    QCOMPARE(f.queue.size(), 2);
    QVERIFY(!f.itemOf("r1").empty());
    QVERIFY(!f.itemOf("o1").empty());
    // ...and a later call of the tool is answered at once, by the reviewer.
    f.call(a, "c3", { { "path", "c.txt" } });
    QCOMPARE(f.out.last(a, "decision")["call_id"], Json("c3"));
    QCOMPARE(f.out.last(a, "decision")["decided_by"], Json("human:alice"));
    QCOMPARE(f.queue.size(), 2);
    const auto sessions = f.broker.sessionsInfo();
    const auto s1 = std::find_if(
        sessions.begin(), sessions.end(), [](const SessionInfo &s) { return s.id == "s1"; });
    QVERIFY(s1 != sessions.end());
    QCOMPARE(s1->grants, std::vector<std::string> { "allow write_file for the session" });
}

void TestReviewDecision::turnScopeEndsWithTheTurn()
{
    Fixture f;
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1", { { "path", "a.txt" } }, "write_file", std::nullopt, std::string("t1"));
    Review r;
    r.id = f.itemOf("c1");
    r.action = ReviewAction::Deny;
    r.reason = "not in this turn";
    r.scope = ReviewScope::Turn;
    QVERIFY(f.broker.review(r, f.broker.consoleReviewer()).ok);
    f.call(a, "c2", { { "path", "b.txt" } }, "write_file", std::nullopt, std::string("t1"));
    QCOMPARE(f.out.last(a, "decision")["call_id"], Json("c2"));
    QCOMPARE(f.out.last(a, "decision")["code"], Json("reviewer_scope"));
    QCOMPARE(f.queue.size(), 0);

    f.broker.onMessage(a, Message(TurnEnd { "t1" }));
    f.call(a, "c3", { { "path", "c.txt" } }, "write_file", std::nullopt, std::string("t2"));
    QCOMPARE(f.queue.size(), 1); // a new turn asks again
    QVERIFY(!f.itemOf("c3").empty());
}

void TestReviewDecision::scopeNeverOverridesAGuardrailDeny()
{
    Fixture f;
    f.broker.setPolicy(policyOf(
        R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"write_file","args":{"path":{"glob":"/etc/**"}}},"action":"deny","reason":"system files"}]}]})"));
    const ConnectionId a = f.agent(std::string("s1"));
    f.call(a, "c1");
    Review r;
    r.id = f.itemOf("c1");
    r.action = ReviewAction::Approve;
    r.scope = ReviewScope::Session;
    QVERIFY(f.broker.review(r, f.broker.consoleReviewer()).ok);
    f.call(a, "c2", { { "path", "/etc/passwd" } });
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    QCOMPARE(f.out.last(a, "decision")["reason"], Json("system files"));
}

QTEST_GUILESS_MAIN(TestReviewDecision)
#include "tst_reviewdecision.moc"
