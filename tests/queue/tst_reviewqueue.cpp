// SPDX-License-Identifier: Apache-2.0
#include "queue/reviewqueue.h"

#include "common/jsoncompare.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using namespace holdpoint;

namespace {

QueueItem makeItem(ReviewQueue &q, const std::string &callId, TimeMs receivedAt, TimeMs deadline)
{
    QueueItem item;
    item.id = q.newId();
    item.callId = callId;
    item.sessionId = "s1";
    item.agent = { "coder", "autogen" };
    item.toolName = "write_file";
    item.args = { { "path", callId + ".txt" } };
    item.receivedAt = receivedAt;
    item.deadline = deadline;
    return item;
}

protocol::Decision allow()
{
    protocol::Decision d;
    d.kind = protocol::DecisionKind::Allow;
    d.decidedBy = "human:test";
    return d;
}

} // namespace

class TestReviewQueue : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void addEmitsAroundInsertion();
    void itemJsonListsLookAlikeNamesButNoSecret();
    void resolveRemovesAndReports_data();
    void resolveRemovesAndReports();
    void resolveUnknownOrTwiceFails();
    void timesOutExactlyAtDeadline();
    void timeoutsFireInDeadlineOrder();
    void resolvedItemDoesNotTimeOut();
    void agentConnectedChangeEmitsChanged();
    void anUnrevealedItemIsInNoViewUntilRevealed();
    void anUnrevealedItemCanStillBeEnded();
    void idsAreUnique();
    void itemJson();
    void timestampsAreWhatQtWrites();
};

void TestReviewQueue::addEmitsAroundInsertion()
{
    ManualClock clock(1000);
    ReviewQueue q(&clock);
    QSignalSpy aboutToAdd(&q, &ReviewQueue::aboutToAdd);
    QSignalSpy added(&q, &ReviewQueue::added);
    int sizeSeenBefore = -1;
    connect(&q, &ReviewQueue::aboutToAdd, this, [&] { sizeSeenBefore = q.size(); });

    q.add(makeItem(q, "c1", 1000, 5000));
    q.add(makeItem(q, "c2", 1000, 5000));
    QCOMPARE(aboutToAdd.count(), 2);
    QCOMPARE(added.count(), 2);
    QCOMPARE(added.at(1).at(0).toInt(), 1);
    QCOMPARE(sizeSeenBefore, 1); // the second about-to fired before the row existed
    QCOMPARE(q.size(), 2);
    QCOMPARE(q.at(1).callId, std::string("c2"));
    QCOMPARE(q.at(0).state, ItemState::Pending);
}

void TestReviewQueue::resolveRemovesAndReports_data()
{
    QTest::addColumn<int>("state");
    QTest::newRow("decided") << int(ItemState::Decided);
    QTest::newRow("timed_out") << int(ItemState::TimedOut);
    QTest::newRow("cancelled") << int(ItemState::Cancelled);
    QTest::newRow("abandoned") << int(ItemState::Abandoned);
}

void TestReviewQueue::resolveRemovesAndReports()
{
    QFETCH(int, state);
    ManualClock clock(0);
    ReviewQueue q(&clock);
    q.add(makeItem(q, "c1", 0, 1000));
    const std::string middle = q.add(makeItem(q, "c2", 0, 1000)).id;
    q.add(makeItem(q, "c3", 0, 1000));

    QSignalSpy aboutToRemove(&q, &ReviewQueue::aboutToRemove);
    QSignalSpy removed(&q, &ReviewQueue::removed);
    ItemState seenState = ItemState::Pending;
    std::string seenCall;
    connect(&q, &ReviewQueue::resolved, this, [&](const QueueItem &item) {
        seenState = item.state;
        seenCall = item.callId;
        QVERIFY(item.decision.has_value());
    });
    QVERIFY(q.resolve(middle, ItemState(state), allow()));
    QCOMPARE(aboutToRemove.count(), 1);
    QCOMPARE(aboutToRemove.at(0).at(0).toInt(), 1);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(int(seenState), state);
    QCOMPARE(seenCall, std::string("c2"));
    QCOMPARE(q.size(), 2);
    QCOMPARE(q.at(1).callId, std::string("c3"));
    QVERIFY(!q.find(middle));
    QCOMPARE(q.rowOf(middle), -1);
}

void TestReviewQueue::resolveUnknownOrTwiceFails()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    const std::string id = q.add(makeItem(q, "c1", 0, 1000)).id;
    QVERIFY(!q.resolve("nope", ItemState::Decided, allow()));
    QVERIFY(q.resolve(id, ItemState::Decided, allow()));
    QSignalSpy resolved(&q, &ReviewQueue::resolved);
    QVERIFY(!q.resolve(id, ItemState::Decided, allow()));
    QCOMPARE(resolved.count(), 0);
}

void TestReviewQueue::timesOutExactlyAtDeadline()
{
    ManualClock clock(10'000);
    ReviewQueue q(&clock);
    q.add(makeItem(q, "c1", 10'000, 10'000 + 300'000));
    std::optional<QueueItem> seen;
    connect(&q, &ReviewQueue::resolved, this, [&](const QueueItem &i) { seen = i; });

    clock.advance(299'999);
    QCOMPARE(q.size(), 1);
    QVERIFY(!seen);
    clock.advance(1);
    QCOMPARE(q.size(), 0);
    QVERIFY(seen);
    QCOMPARE(seen->state, ItemState::TimedOut);
    QCOMPARE(seen->decision->kind, protocol::DecisionKind::Deny);
    QCOMPARE(seen->decision->decidedBy, std::string("timeout"));
    QCOMPARE(seen->decision->code, std::string("timeout"));
    QCOMPARE(seen->decision->reason, std::string("timed out after 300 s waiting for a reviewer"));
}

void TestReviewQueue::timeoutsFireInDeadlineOrder()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    q.add(makeItem(q, "late", 0, 3000));
    q.add(makeItem(q, "early", 0, 1000));
    q.add(makeItem(q, "middle", 0, 2000));
    std::vector<std::string> order;
    connect(
        &q, &ReviewQueue::resolved, this, [&](const QueueItem &i) { order.push_back(i.callId); });
    clock.advance(1500);
    QCOMPARE(order, std::vector<std::string>({ "early" }));
    clock.advance(10'000);
    QCOMPARE(order, std::vector<std::string>({ "early", "middle", "late" }));
}

void TestReviewQueue::resolvedItemDoesNotTimeOut()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    const std::string id = q.add(makeItem(q, "c1", 0, 1000)).id;
    q.add(makeItem(q, "c2", 0, 2000));
    QVERIFY(q.resolve(id, ItemState::Decided, allow()));
    QSignalSpy resolved(&q, &ReviewQueue::resolved);
    clock.advance(1500);
    QCOMPARE(resolved.count(), 0);
    clock.advance(500);
    QCOMPARE(resolved.count(), 1);
}

void TestReviewQueue::agentConnectedChangeEmitsChanged()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    q.add(makeItem(q, "c1", 0, 1000));
    const std::string id = q.add(makeItem(q, "c2", 0, 1000)).id;
    QSignalSpy changed(&q, &ReviewQueue::changed);
    q.setAgentConnected(id, false);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toInt(), 1);
    QVERIFY(!q.find(id)->agentConnected);
    q.setAgentConnected(id, false); // no change, no signal
    QCOMPARE(changed.count(), 1);
}

void TestReviewQueue::anUnrevealedItemIsInNoViewUntilRevealed()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    q.add(makeItem(q, "shown", 0, 1000));
    QueueItem held = makeItem(q, "held", 0, 500);
    const std::string id = held.id;
    QSignalSpy itemAdded(&q, &ReviewQueue::itemAdded);
    QSignalSpy added(&q, &ReviewQueue::added);
    QSignalSpy changed(&q, &ReviewQueue::changed);
    q.enqueueUnrevealed(std::move(held));

    // Nobody sees it, votes on it, or counts it; the broker still finds it.
    QCOMPARE(q.size(), 1);
    QCOMPARE(q.pendingCount(), 1);
    QVERIFY(!q.find(id));
    QVERIFY(q.findAny(id));
    QVERIFY(q.pendingIds({ "s1", std::nullopt, std::nullopt })
        == std::vector<std::string>({ q.at(0).id }));
    QVERIFY(!q.vote(id, { "alice", "console", {} }, std::nullopt, allow(), {}).ok);
    q.setAgentConnected(id, false);
    QCOMPARE(itemAdded.count() + added.count() + changed.count(), 0);
    QVERIFY(q.newId() != id);

    // Revealed: a row after the items already shown, and its deadline runs.
    q.reveal(id);
    QCOMPARE(itemAdded.count(), 1);
    QCOMPARE(added.count(), 1);
    QCOMPARE(q.size(), 2);
    QCOMPARE(q.at(1).id, id);
    QVERIFY(!q.find(id)->agentConnected);
    q.reveal(id); // twice is once
    QCOMPARE(itemAdded.count(), 1);
    clock.advance(500);
    QVERIFY(!q.findAny(id));
}

void TestReviewQueue::anUnrevealedItemCanStillBeEnded()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    QueueItem held = makeItem(q, "held", 0, 500);
    const std::string id = held.id;
    q.enqueueUnrevealed(std::move(held));
    QSignalSpy aboutToRemove(&q, &ReviewQueue::aboutToRemove);
    QSignalSpy resolved(&q, &ReviewQueue::resolved);
    // Its deadline waits for the reveal; a cancel does not.
    clock.advance(1000);
    QVERIFY(q.findAny(id));
    QVERIFY(q.resolve(id, ItemState::Cancelled, allow()));
    QCOMPARE(resolved.count(), 1);
    QCOMPARE(aboutToRemove.count(), 0); // it never had a row
    QVERIFY(!q.findAny(id));
    q.reveal(id); // ended: nothing to show
    QCOMPARE(q.size(), 0);
}

void TestReviewQueue::idsAreUnique()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    std::set<std::string> ids;
    for (int i = 0; i < 2000; ++i) {
        const auto &item = q.add(makeItem(q, std::to_string(i), 0, NoDeadline));
        QCOMPARE(item.id.size(), std::size_t(12));
        ids.insert(item.id);
    }
    QCOMPARE(ids.size(), std::size_t(2000));
}

// `mixed_script` carries the names the page marks: read from the fields as
// a person sees them, so a secret masked out lends none, and each name once.
void TestReviewQueue::itemJsonListsLookAlikeNamesButNoSecret()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    QueueItem item = makeItem(q, "c1", 0, NoDeadline);
    const std::string secret = "s\u0435cret-v\u0430lue"; // Cyrillic е and а
    item.args = { { "url", "https://p\u0430ypal.com/a" }, { "again", "p\u0430ypal.com" },
        { "password", secret }, { "note", "Исправлена ошибка" } };
    item.redactions = { { secret, "[secret:password:1]", "password" } };
    const Json j = itemToJson(q.add(item));
    QCOMPARE(j["hidden_characters"], Json({ "mixed_script" }));
    QCOMPARE(j["mixed_script"].size(), std::size_t(1));
    QCOMPARE(j["mixed_script"][0]["name"], Json("p\u0430ypal.com"));
    QCOMPARE(j["mixed_script"][0]["marks"],
        Json::parse(
            R"([{"at":1,"char":"\u0430","code_point":"U+0430","script":"Cyrillic","shown":"\u27e8\u0430 U+0430 CYRILLIC\u27e9"}])"));
    QVERIFY2(j.dump().find(secret) == std::string::npos, j.dump().c_str());
    QVERIFY2(
        j.dump().find("v\u0430lue") == std::string::npos, j.dump().c_str()); // nor a part of it

    // Nothing that mixes: no list.
    QVERIFY(!itemToJson(q.add(makeItem(q, "c2", 0, NoDeadline))).contains("mixed_script"));
}

void TestReviewQueue::itemJson()
{
    ManualClock clock(0);
    ReviewQueue q(&clock);
    QueueItem item = makeItem(q, "c1", 1'700'000'000'123, 1'700'000'300'123);
    item.turnId = "t1";
    const Json j = itemToJson(q.add(item));
    QCOMPARE(j["call_id"], Json("c1"));
    QCOMPARE(j["agent"], Json({ { "name", "coder" }, { "framework", "autogen" } }));
    QCOMPARE(j["received_at"], Json("2023-11-14T22:13:20.123Z"));
    QCOMPARE(j["deadline"], Json("2023-11-14T22:18:20.123Z"));
    QCOMPARE(j["turn_id"], Json("t1"));
    QCOMPARE(j["state"], Json("pending"));
    for (const char *key : { "id", "session_id", "tool_name", "args", "context", "annotations",
             "reason", "trail", "warnings" })
        QVERIFY2(j.contains(key), key);
}

void TestReviewQueue::timestampsAreWhatQtWrites()
{
    // Every record and event carries one; readers parse them with Qt.
    std::vector<TimeMs> at { 0, 1, 999, -1, -86'400'000, 951'782'400'000 /* 2000-02-29 */,
        1'700'000'000'123, 4'102'444'800'000 /* 2100-01-01 */,
        253'402'300'799'999 /* 9999-12-31T23:59:59.999 */, -62'167'219'200'000 /* 0000-01-01 */ };
    for (TimeMs t = -3'000'000'000'000; t < 4'000'000'000'000; t += 7'777'777'777)
        at.push_back(t);
    for (TimeMs t : at) {
        const QString qt = QDateTime::fromMSecsSinceEpoch(t, Qt::UTC).toString(Qt::ISODateWithMs);
        QCOMPARE(QString::fromStdString(formatTimestamp(t)), qt);
    }
    QCOMPARE(formatTimestamp(1'700'000'000'123), std::string("2023-11-14T22:13:20.123Z"));
}

QTEST_GUILESS_MAIN(TestReviewQueue)
#include "tst_reviewqueue.moc"
