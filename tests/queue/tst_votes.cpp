// SPDX-License-Identifier: Apache-2.0
// Calls that need several people (queue/approvals.h): the in-memory queue's
// votes, one per person, an edit's effect with on_edit reset and keep, the
// requester by name and by OS user, and what ends an item.

#include "queue/approvals.h"
#include "queue/reviewqueue.h"

#include "common/jsoncompare.h"

#include <QSignalSpy>
#include <QTest>

using namespace holdpoint;
using protocol::ApprovalRule;
using protocol::Decision;
using protocol::DecisionKind;
using protocol::Review;
using protocol::ReviewAction;

namespace {

ReviewerIdentity person(const std::string &name, const std::string &osUser = {})
{
    return ReviewerIdentity { name, "test", osUser.empty() ? name : osUser };
}

Decision allow()
{
    Decision d;
    d.kind = DecisionKind::Allow;
    return d;
}

Review approve(const std::string &id)
{
    Review r;
    r.id = id;
    r.action = ReviewAction::Approve;
    return r;
}

struct Queue
{
    explicit Queue(ApprovalRule rule, const std::string &requester = "dave")
    {
        QueueItem item;
        item.id = q.newId();
        item.callId = "c1";
        item.sessionId = "s1";
        item.toolName = "deploy";
        item.args = { { "target", "prod" } };
        item.receivedAt = clock.now();
        item.deadline = clock.now() + 60'000;
        item.approvals = rule;
        item.requester = requester;
        id = item.id;
        q.add(std::move(item));
        QObject::connect(&q, &ReviewQueue::resolved, &q, [this](const QueueItem &done) {
            m_decided.push_back(done.decision ? done.decision->decidedBy : std::string("?"));
        });
    }
    VoteOutcome vote(const std::string &name, std::optional<Json> edit = std::nullopt,
        const std::string &osUser = {})
    {
        return q.vote(id, person(name, osUser), edit, allow(), approve(id));
    }
    const QueueItem *item() const { return q.find(id); }
    // decided_by of each item the queue resolved, in order.
    std::vector<std::string> decided() const { return m_decided; }

    std::vector<std::string> m_decided;

    ManualClock clock { 1'000'000 };
    ReviewQueue q { &clock };
    std::string id;
};

ApprovalRule rule(int required, bool excludeRequester = false, bool reset = true)
{
    ApprovalRule r;
    r.required = required;
    r.excludeRequester = excludeRequester;
    r.resetOnEdit = reset;
    return r;
}

} // namespace

class TestVotes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void onePersonCountsOnce();
    void enoughPeopleDecideNamingEach();
    void editResetsTheOthers();
    void editKeepLetsEarlierApprovalsCount();
    void editOfWhatStandsIsAnApproval();
    void requesterByNameOrOsUser();
    void decidedByRoundTrips();
    void ruleJsonAndStrictest();
};

void TestVotes::onePersonCountsOnce()
{
    Queue q(rule(2));
    QSignalSpy updated(&q.q, &ReviewQueue::itemUpdated);
    VoteOutcome v = q.vote("alice");
    QVERIFY(v.ok);
    QVERIFY(!v.decided);
    QCOMPARE(v.approvals, 1);
    QCOMPARE(v.required, 2);
    QCOMPARE(updated.count(), 1);
    v = q.vote("alice");
    QVERIFY(!v.ok);
    QCOMPARE(v.message,
        std::string("alice approved these arguments already; waiting for someone other than you "
                    "(1/2 approvals)"));
    QCOMPARE(approvalCount(*q.item()), 1);
    QCOMPARE(q.item()->votes.size(), std::size_t(1));
    QCOMPARE(approvalRefusal(*q.item(), "alice"), v.message);
    QVERIFY(approvalRefusal(*q.item(), "bob").empty());
}

void TestVotes::enoughPeopleDecideNamingEach()
{
    Queue q(rule(3));
    QVERIFY(q.vote("alice").ok);
    QVERIFY(q.vote("bob").ok);
    QVERIFY(q.decided().empty());
    const VoteOutcome v = q.vote("carol");
    QVERIFY(v.ok && v.decided);
    QCOMPARE(v.approvals, 3);
    QCOMPARE(q.decided(), std::vector<std::string> { "human:alice,human:bob,human:carol" });
    QCOMPARE(q.item(), nullptr);
}

void TestVotes::editResetsTheOthers()
{
    Queue q(rule(2));
    QVERIFY(q.vote("alice").ok);
    const Json staging { { "target", "staging" } };
    VoteOutcome v = q.vote("bob", staging);
    QVERIFY(v.ok && !v.decided);
    QCOMPARE(v.approvals, 1); // bob's, of the edit; alice's is void
    QCOMPARE(approvers(*q.item()), std::vector<std::string> { "bob" });
    QCOMPARE(approvedArgs(*q.item()), staging);
    QVERIFY(q.item()->votes.back().edit);
    // bob may not count twice; alice may approve what stands now.
    QVERIFY(!q.vote("bob").ok);
    v = q.vote("alice");
    QVERIFY(v.ok && v.decided);
}

void TestVotes::editKeepLetsEarlierApprovalsCount()
{
    Queue q(rule(2, false, false));
    QVERIFY(q.vote("alice").ok);
    const VoteOutcome v = q.vote("bob", Json { { "target", "staging" } });
    QVERIFY(v.ok && v.decided);
    QCOMPARE(v.approvals, 2);
    QCOMPARE(q.decided(), std::vector<std::string> { "human:alice,human:bob" });
}

void TestVotes::editOfWhatStandsIsAnApproval()
{
    Queue q(rule(2));
    const VoteOutcome v = q.vote("alice", Json { { "target", "prod" } });
    QVERIFY(v.ok);
    QCOMPARE(v.approvals, 1);
    QVERIFY(!q.item()->editedArgs);
    QVERIFY(!q.item()->votes.back().edit);
}

void TestVotes::requesterByNameOrOsUser()
{
    Queue q(rule(2, true), "dave");
    VoteOutcome v = q.vote("dave");
    QVERIFY(!v.ok);
    QCOMPARE(v.message,
        std::string("dave started this agent (as OS user dave), and this call needs approval from "
                    "someone else"));
    // Under another name, the same OS user is the same person.
    v = q.vote("david", std::nullopt, "dave");
    QVERIFY(!v.ok);
    QVERIFY(v.message.starts_with("david started this agent (as OS user dave)"));
    QCOMPARE(approvalCount(*q.item()), 0);
    QVERIFY(q.vote("alice").ok);
    // Without exclude_requester, the requester counts like anyone.
    Queue open(rule(2, false), "dave");
    QVERIFY(open.vote("dave").ok);
}

void TestVotes::decidedByRoundTrips()
{
    QCOMPARE(approversDecidedBy({ "alice", "bob" }), std::string("human:alice,human:bob"));
    QCOMPARE(decidersOf("human:alice,human:bob"), (std::vector<std::string> { "alice", "bob" }));
    QCOMPARE(decidersOf("human:alice"), std::vector<std::string> { "alice" });
    QCOMPARE(decidersOf("guardrail:rules"), std::vector<std::string> {});
}

void TestVotes::ruleJsonAndStrictest()
{
    const ApprovalRule r = protocol::approvalRuleFromJson(
        Json { { "required", 3 }, { "exclude_requester", true }, { "on_edit", "keep" } });
    QCOMPARE(r.required, 3);
    QVERIFY(r.excludeRequester);
    QVERIFY(!r.resetOnEdit);
    QCOMPARE(protocol::approvalRuleFromJson(protocol::approvalRuleToJson(r)).required, 3);
    const ApprovalRule s = protocol::strictest(r, rule(2, false, true));
    QCOMPARE(s.required, 3);
    QVERIFY(s.excludeRequester);
    QVERIFY(s.resetOnEdit);
}

QTEST_GUILESS_MAIN(TestVotes)
#include "tst_votes.moc"
