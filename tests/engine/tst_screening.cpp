// SPDX-License-Identifier: Apache-2.0
// The guardrail chain inside the broker: what it decides at once, what it escalates and how,
// after-call checks, masking, the console clock.

#include "engine/enginefixture.h"

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

namespace {

// Warns with a reason that quotes the call's arguments, as a guardrail of the user's may.
class QuotingWarner final : public Guardrail
{
public:
    std::string_view name() const override { return "quoting"; }
    Verdict beforeCall(const CallView &call, const GuardContext &) override
    {
        return Verdict::make(Action::Warn, "quoted", "saw " + dumpJson(call.args));
    }
};

} // namespace

class TestScreening : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void policyDefaultDecidesWithoutAPerson_data();
    void policyDefaultDecidesWithoutAPerson();
    void guardrailAllowAnswersAtOnce();
    void guardrailDenyReasonAndCodeReachTheAgent();
    void guardrailRewriteIsReturned();
    void laterDenyBeatsEarlierAsk();
    void escalationCarriesTrailAndProposedArgs();
    void rewriteForAnAgentWithoutEditsGoesToAPerson();
    void afterCallChecksRunOncePerCallThatRan();
    void secretsAreMaskedForReviewersNotForTheAgent();
    void aQuotedSecretStaysOutOfTheRecords();
    void rateLimitOnTheConsoleClock();
    void queuedItemsFollowTheirTurnsFindings();
};

void TestScreening::policyDefaultDecidesWithoutAPerson_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("expected");
    QTest::newRow("allow")
        << int(DefaultAction::Allow)
        << R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"a.txt"},"reason":"no guardrail decided; the default policy is allow","decided_by":"policy:default","warnings":[]})";
    QTest::newRow("deny")
        << int(DefaultAction::Deny)
        << R"({"type":"decision","call_id":"c1","decision":"deny","reason":"no guardrail decided; the default policy is deny","decided_by":"policy:default","warnings":[]})";
}

void TestScreening::policyDefaultDecidesWithoutAPerson()
{
    QFETCH(int, action);
    QFETCH(QString, expected);
    Fixture f;
    Policy p;
    p.defaultAction = DefaultAction(action);
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1");
    QCOMPARE(f.queue.size(), 0);
    QVERIFY(f.out.ofType(a, "pending").empty());
    QCOMPARE(f.out.last(a, "decision"), Json::parse(expected.toStdString()));
    QVERIFY(f.out.ofType(r, "escalated").empty());
    // Idempotent like any decision: the same answer, and conflicts still refused.
    f.call(a, "c1");
    QCOMPARE(f.out.ofType(a, "decision").size(), std::size_t(2));
    QCOMPARE(f.out.raw[a].back(), f.out.raw[a][f.out.raw[a].size() - 2]);
    f.call(a, "c1", { { "path", "b.txt" } });
    QCOMPARE(f.out.last(a, "error")["code"], Json("call_id_conflict"));
}

void TestScreening::guardrailAllowAnswersAtOnce()
{
    Fixture f;
    f.broker.setPolicy(policyOf(
        R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"read_file"},"action":"allow","reason":"reads are fine"}]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "path", "README.md" } }, "read_file");
    QCOMPARE(f.queue.size(), 0);
    QCOMPARE(f.out.last(a, "decision"),
        Json::parse(
            R"({"type":"decision","call_id":"c1","decision":"allow","args":{"path":"README.md"},"reason":"reads are fine","decided_by":"guardrail:rules","warnings":[]})"));
    f.call(a, "c2", { { "path", "x" } }, "write_file"); // no rule: the default asks
    QCOMPARE(f.queue.size(), 1);
}

void TestScreening::guardrailDenyReasonAndCodeReachTheAgent()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"protected_paths","paths":["/etc"]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "path", "/tmp/../etc/passwd" } });
    QCOMPARE(f.out.last(a, "decision"),
        Json::parse(
            R"js({"type":"decision","call_id":"c1","decision":"deny","reason":"path /tmp/../etc/passwd is protected (/etc)","decided_by":"guardrail:protected_paths","code":"protected_path","warnings":[]})js"));
    QCOMPARE(f.queue.size(), 0);
}

void TestScreening::guardrailRewriteIsReturned()
{
    Fixture f;
    f.broker.setPolicy(policyOf(
        R"({"default":"allow","guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","clamp":{"timeout":{"max":60}},"reason":"timeout clamped","code":"clamp"}]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "command", "make" }, { "timeout", 900 } }, "bash");
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({ { "command", "make" }, { "timeout", 60 } }));
    QCOMPARE(d["decided_by"], Json("policy:default"));
}

void TestScreening::laterDenyBeatsEarlierAsk()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[
        {"type":"rules","name":"ask-writes","rules":[{"when":{"tool":"write_file"},"action":"ask","reason":"writes need a look"}]},
        {"type":"protected_paths","paths":["/etc"]}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "path", "/etc/hosts" } });
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    QCOMPARE(f.out.last(a, "decision")["decided_by"], Json("guardrail:protected_paths"));
    f.call(a, "c2", { { "path", "/home/x" } });
    QCOMPARE(f.queue.size(), 1);
    QCOMPARE(f.queue.at(0).reason, std::string("writes need a look"));
}

void TestScreening::escalationCarriesTrailAndProposedArgs()
{
    Fixture f;
    f.broker.setPolicy(policyOf(
        R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","clamp":{"timeout":{"max":60}},"reason":"timeout clamped","code":"clamp_timeout"}]}]})"));
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    f.call(a, "c1", { { "command", "make" }, { "timeout", 900 } }, "bash");
    const Json item = f.out.last(r, "escalated")["item"];
    QCOMPARE(item["args"], Json({ { "command", "make" }, { "timeout", 900 } }));
    QCOMPARE(item["proposed_args"], Json({ { "command", "make" }, { "timeout", 60 } }));
    QCOMPARE(item["patch"], Json::parse(R"([{"op":"replace","path":"/timeout","value":60}])"));
    QCOMPARE(item["trail"][0]["action"], Json("modify"));
    QCOMPARE(item["trail"][0]["code"], Json("clamp_timeout"));
    QCOMPARE(item["reason"], Json("no guardrail decided; the default policy is ask"));

    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"], Json({ { "command", "make" }, { "timeout", 60 } }));

    // A reviewer may put the agent's own arguments back: that is a plain allow.
    f.call(a, "c2", { { "command", "make" }, { "timeout", 900 } }, "bash");
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Edit, {},
                 Json { { "command", "make" }, { "timeout", 900 } })
                .ok);
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
    // Editing to what the guardrails proposed is no edit at all.
    f.call(a, "c3", { { "command", "make" }, { "timeout", 900 } }, "bash");
    const ReviewOutcome same = f.review(
        f.itemOf("c3"), ReviewAction::Edit, {}, Json { { "command", "make" }, { "timeout", 60 } });
    QVERIFY(!same.ok);
    QCOMPARE(same.code, ErrorCode::InvalidField);
}

void TestScreening::rewriteForAnAgentWithoutEditsGoesToAPerson()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"default":"allow","guardrails":[{"type":"rules","rules":[
        {"when":{"tool":"bash"},"action":"modify","clamp":{"timeout":{"max":60}},"reason":"timeout clamped"},
        {"when":{"tool":"write_file"},"action":"ask","reason":"writes need a look"}]},
        {"type":"rules","name":"sandbox","rules":[{"when":{"tool":"write_file"},"action":"modify","set":{"mode":"0600"},"reason":"private files"}]}]})"));
    const ConnectionId r = f.reviewer();
    const ConnectionId a = f.agent(std::string("s-codex"), "codex", Capabilities { false, true });

    // The rewrite would be dropped by the agent: a person decides instead.
    f.call(a, "c1", { { "command", "make" }, { "timeout", 900 } }, "bash");
    QVERIFY(f.out.ofType(a, "decision").empty());
    Json item = f.out.last(r, "escalated")["item"];
    QCOMPARE(item["agent"]["capabilities"], Json({ { "modify", false } }));
    QVERIFY(!item.contains("proposed_args"));
    QCOMPARE(item["reason"],
        Json("a guardrail would rewrite the arguments (rules: timeout clamped), but agent "
             "\"codex\" cannot "
             "take edited arguments: approve or deny the call as sent"));
    QCOMPARE(item["trail"][0]["action"], Json("modify"));
    // Edits are refused, and approving runs the call as the agent sent it.
    const ReviewOutcome edit = f.review(item["id"].get<std::string>(), ReviewAction::Edit, {},
        Json { { "command", "make" }, { "timeout", 60 } });
    QVERIFY(!edit.ok);
    QCOMPARE(edit.code, ErrorCode::InvalidField);
    QVERIFY2(edit.message.find("cannot take edited arguments") != std::string::npos,
        edit.message.c_str());
    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    Json d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("allow"));
    QCOMPARE(d["args"], Json({ { "command", "make" }, { "timeout", 900 } }));

    // An escalation that carried a proposed rewrite loses the proposal.
    f.call(a, "c2", { { "path", "a.txt" } });
    item = f.out.last(r, "escalated")["item"];
    QVERIFY(!item.contains("proposed_args"));
    QCOMPARE(item["reason"],
        Json("writes need a look (a guardrail's rewrite is not offered: agent \"codex\" cannot "
             "take edited arguments)"));
    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(a, "decision")["args"], Json({ { "path", "a.txt" } }));

    // A call nobody rewrites is answered at once, as for any agent.
    f.call(a, "c3", { { "command", "ls" } }, "bash");
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));

    // Another agent in the same console still gets the rewrite.
    const ConnectionId b = f.agent(std::string("s-other"), "coder");
    f.call(b, "c1", { { "command", "make" }, { "timeout", 900 } }, "bash");
    d = f.out.last(b, "decision");
    QCOMPARE(d["decision"], Json("modify"));
    QCOMPARE(d["args"]["timeout"], Json(60));
}

void TestScreening::afterCallChecksRunOncePerCallThatRan()
{
    Fixture f;
    auto watcher = std::make_shared<AfterWatcher>();
    Policy p = policyOf(
        R"({"default":"allow","guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"modify","set":{"cwd":"/sandbox"},"reason":"sandboxed"}]}]})");
    p.chain->add({ watcher, false, std::chrono::microseconds(100'000) });
    f.broker.setPolicy(p);
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "command", "make" } }, "bash");
    f.broker.onMessage(a, Message(ToolResult { "c1", false, Json("exit 2") }));
    QCOMPARE(f.out.last(a, "after_call"),
        Json::parse(
            R"({"type":"after_call","call_id":"c1","action":"warn","reason":"bash failed","warnings":[{"guardrail":"watcher","code":"failed","message":"bash failed"}]})"));
    QCOMPARE(watcher->lastArgs,
        Json({ { "command", "make" }, { "cwd", "/sandbox" } })); // the args it ran with
    f.broker.onMessage(a, Message(ToolResult { "c1", false, Json("exit 2") }));
    QCOMPARE(watcher->afterCalls, 1);
    QCOMPARE(f.out.last(a, "after_call")["action"], Json("allow"));

    // A call a person approved is checked too; a denied one never ran.
    Policy ask = policyOf(R"({})");
    ask.chain->add({ watcher, false, std::chrono::microseconds(100'000) });
    f.broker.setPolicy(ask);
    f.call(a, "c2", { { "command", "ls" } }, "bash");
    f.call(a, "c3", { { "command", "rm" } }, "bash");
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Approve).ok);
    QVERIFY(f.review(f.itemOf("c3"), ReviewAction::Deny, "no").ok);
    f.broker.onMessage(a, Message(ToolResult { "c2", true, Json("ok") }));
    f.broker.onMessage(a, Message(ToolResult { "c3", true, Json("ok") }));
    QCOMPARE(watcher->afterCalls, 2);
}

void TestScreening::secretsAreMaskedForReviewersNotForTheAgent()
{
    Fixture f;
    f.broker.setPolicy(policyOf(R"({"guardrails":[{"type":"secrets"}]})"));
    const ConnectionId a = f.agent();
    const ConnectionId r = f.reviewer();
    const Json args = { { "url", "https://deploy.test/" },
        { "headers", { { "Authorization", "Bearer AKIAIOSFODNN7EXAMPLE" } } } };
    f.call(a, "c1", args, "http_request");
    const std::string wire = f.out.raw[r].back();
    QVERIFY2(wire.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos, wire.c_str());
    const Json item = Json::parse(wire)["item"];
    QCOMPARE(item["args"]["headers"]["Authorization"], Json("Bearer [secret:aws_access_key_id:1]"));
    QCOMPARE(item["redacted"],
        Json::parse(
            R"([{"placeholder":"[secret:aws_access_key_id:1]","kind":"aws_access_key_id"}])"));
    QCOMPARE(item["reason"],
        Json("arguments contain secrets: aws_access_key_id in headers.Authorization, bearer_token "
             "in headers.Authorization"));

    // A reviewer's queue snapshot is masked too.
    const ConnectionId r2 = f.reviewer();
    QVERIFY(f.out.raw[r2].back().find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);

    QVERIFY(f.review(item["id"].get<std::string>(), ReviewAction::Approve).ok);
    QCOMPARE(f.out.last(a, "decision")["args"], args); // the agent runs with the real value

    // An edit made on the masked view keeps the real value where the placeholder stayed.
    f.call(a, "c2", args, "http_request");
    Json edited = Json::parse(f.out.raw[r].back())["item"]["args"];
    edited["url"] = "https://staging.test/";
    QVERIFY(f.review(f.itemOf("c2"), ReviewAction::Edit, {}, edited).ok);
    const Json d = f.out.last(a, "decision");
    QCOMPARE(d["args"]["url"], Json("https://staging.test/"));
    QCOMPARE(d["args"]["headers"]["Authorization"], Json("Bearer AKIAIOSFODNN7EXAMPLE"));
}

void TestScreening::aQuotedSecretStaysOutOfTheRecords()
{
    // protected_paths quotes the path it stopped, and a warning may quote
    // any argument: the agent hears them as they are, the log masked.
    constexpr std::string_view Secret = "AKIAIOSFODNN7EXAMPLE";
    Fixture f;
    std::vector<std::string> records;
    connect(&f.broker, &Broker::activity, this,
        [&records](const Json &record) { records.push_back(dumpJson(record)); });
    Policy policy = policyOf(R"({"default":"allow","guardrails":[{"type":"secrets","action":"warn"},
        {"type":"protected_paths","paths":["/srv"],"action":"ask"}]})");
    policy.chain->add(
        { std::make_shared<QuotingWarner>(), false, std::chrono::microseconds(100'000) });
    f.broker.setPolicy(policy);
    const ConnectionId a = f.agent();

    // Escalated by protected_paths, then approved.
    const Json held = { { "path", "/srv/keys/AKIAIOSFODNN7EXAMPLE" } };
    f.call(a, "c1", held, "write_file");
    QCOMPARE(f.queue.size(), 1);
    QVERIFY(f.review(f.itemOf("c1"), ReviewAction::Approve).ok);
    Json d = f.out.last(a, "decision");
    QCOMPARE(d["args"], held);
    QVERIFY2(dumpJson(d["warnings"]).find(Secret) != std::string::npos, d.dump().c_str());
    // Decided by the chain with its warnings.
    const Json passed = { { "path", "/tmp/AKIAIOSFODNN7EXAMPLE" } };
    ToolCall annotated; // an MCP tool's title may name its argument too
    annotated.callId = "c2";
    annotated.toolName = "write_file";
    annotated.args = passed;
    annotated.annotations = { { "title", "write /tmp/AKIAIOSFODNN7EXAMPLE" } };
    f.broker.onMessage(a, Message(std::move(annotated)));
    d = f.out.last(a, "decision");
    QCOMPARE(d["decision"], Json("allow"));
    QVERIFY2(dumpJson(d["warnings"]).find(Secret) != std::string::npos, d.dump().c_str());

    int escalated = 0;
    int decided = 0;
    for (const std::string &record : records) {
        const Json r = Json::parse(record);
        escalated += r["event"] == "escalated";
        decided += r["event"] == "decision";
        QVERIFY2(record.find(Secret) == std::string::npos, record.c_str());
        if (r["event"] == "escalated")
            QVERIFY2(r["reason"].get<std::string>().find("is protected") != std::string::npos,
                record.c_str());
        if (r["event"] == "decision")
            QVERIFY2(dumpJson(r["warnings"]).find("saw {") != std::string::npos, record.c_str());
    }
    QCOMPARE(escalated, 1);
    QCOMPARE(decided, 2);
}

void TestScreening::rateLimitOnTheConsoleClock()
{
    Fixture f; // its clock is a ManualClock: time moves only when the test says
    f.broker.setPolicy(policyOf(
        R"({"default":"allow","guardrails":[{"type":"rate_limit","limit":2,"window_s":60}]})"));
    const ConnectionId a = f.agent();
    f.call(a, "c1", { { "n", 1 } });
    f.clock.advance(30'000);
    f.call(a, "c2", { { "n", 2 } });
    f.call(a, "c3", { { "n", 3 } });
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    QCOMPARE(f.out.last(a, "decision")["reason"],
        Json(
            "rate limit: at most 2 calls per 60 s per session; the next call is possible in 30 s"));
    f.clock.advance(29'999);
    f.call(a, "c4", { { "n", 4 } });
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("deny"));
    f.clock.advance(1); // c1 leaves the window
    f.call(a, "c5", { { "n", 5 } });
    QCOMPARE(f.out.last(a, "decision")["decision"], Json("allow"));
}

void TestScreening::queuedItemsFollowTheirTurnsFindings()
{
    Fixture f;
    // bash runs at once; write_file waits for a person.
    f.broker.setPolicy(policyOf(
        R"({"guardrails":[{"type":"rules","rules":[{"when":{"tool":"bash"},"action":"allow"}]},
                                                 {"type":"loop_detection"}]})"));
    const ConnectionId a = f.agent();
    const ConnectionId other = f.agent(std::nullopt, "researcher");
    const ConnectionId r = f.reviewer();
    f.broker.onMessage(a, Message(TurnStart { "t1" }));
    f.call(a, "w1", { { "path", "a.txt" } }, "write_file", std::nullopt, "t1");
    f.call(other, "w1", { { "path", "b.txt" } }, "write_file", std::nullopt,
        "t1"); // another session's t1
    QCOMPARE(f.out.last(r, "escalated")["item"]["turn_findings"], Json::array());

    auto fail = [&](const std::string &callId) {
        f.call(a, callId, { { "command", "pytest" } }, "bash", std::nullopt, "t1");
        f.broker.onMessage(a, Message(ToolResult { callId, false, Json("exit 1") }));
    };
    fail("b1");
    QVERIFY(f.out.ofType(r, "updated").empty()); // one failure is no pattern
    fail("b2");
    // The loop warning fired after w1 was queued: the item shows it now.
    const std::vector<Json> updates = f.out.ofType(r, "updated");
    QCOMPARE(updates.size(), std::size_t(1));
    const Json expected
        = Json::parse(R"([{"guardrail":"loop_detection","pattern":"exact_failure","level":"warn",
        "tool_name":"bash","count":2,"warn_at":2,"stop_at":5,"call_ids":["b1","b2"],
        "message":"this exact bash call failed 2 times in this turn"}])");
    QCOMPARE(updates[0]["item"]["id"], Json(f.itemOf("w1")));
    QCOMPARE(updates[0]["item"]["turn_findings"], expected);
    const QueueItem *w1 = f.queue.find(f.itemOf("w1"));
    QCOMPARE(protocol::turnFindingsToJson(w1->turnFindings), expected);
    QVERIFY(w1->risk > 10); // a write alone scores 10
    for (int row = 0; row < f.queue.size(); ++row)
        if (f.queue.at(row).sessionId == f.sessionOf(other))
            QVERIFY(
                f.queue.at(row).turnFindings.empty()); // the other session's turn is not looping

    // A call queued later in the turn arrives with the findings; the next
    // failure updates both items.
    f.call(a, "w2", { { "path", "c.txt" } }, "write_file", std::nullopt, "t1");
    QCOMPARE(f.out.last(r, "escalated")["item"]["turn_findings"], expected);
    fail("b3");
    QCOMPARE(f.out.ofType(r, "updated").size(), std::size_t(3));
    QCOMPARE(f.queue.find(f.itemOf("w2"))->turnFindings.at(0).count, 3);
    QCOMPARE(
        f.queue.find(f.itemOf("w2"))->turnFindings.at(1).pattern, std::string("same_tool_failure"));

    // A result that changes nothing sends nothing.
    f.call(a, "b4", { { "command", "ls" } }, "bash", std::nullopt, "t1");
    f.broker.onMessage(a, Message(ToolResult { "b4", true, Json("ok") }));
    QCOMPARE(f.out.ofType(r, "updated").size(), std::size_t(3));
    // A reviewer who connects now sees the findings in the queue snapshot.
    const ConnectionId r2 = f.reviewer();
    const Json snapshot = f.out.last(r2, "queue");
    bool seen = false;
    for (const Json &item : snapshot["items"])
        seen = seen || (item["call_id"] == "w2" && item["turn_findings"].size() == 2);
    QVERIFY(seen);
}

QTEST_GUILESS_MAIN(TestScreening)
#include "tst_screening.moc"
