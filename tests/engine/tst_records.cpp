// SPDX-License-Identifier: Apache-2.0
// The records written for every call (engine/callrecords.h), the decision
// message (protocol.h) and the trail (guardrails/chain.h) are written
// without trees; here each is compared, byte for byte, with the tree it
// replaced (callRecord, decisionToJson and trailToJson, which the engine
// still uses elsewhere, and the two record trees below), dumped as the
// audit log and the wire always dumped it, over many random calls,
// outcomes and decisions, secrets included.

#include "audit/auditfile.h"
#include "common/jsonwriter.h"
#include "engine/callrecords.h"

#include <QTest>

#include <random>

using namespace holdpoint;
using namespace holdpoint::protocol;

class TestRecords : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void callRecords();
    void decisionRecords();
    void deliveredRecords();
    void decisionMessages();
    void timestamps();
};

namespace {

struct Random
{
    std::mt19937 rng;

    explicit Random(unsigned seed)
        : rng(seed)
    { }
    bool coin(int oneIn = 2) { return rng() % unsigned(oneIn) == 0; }
    std::string text()
    {
        static const char *const pieces[] = { "a", "bench_op", " ", "\"", "\\", "\n", "\x01",
            "\x7f", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF", "\xED\xA0\x80", "\xC3",
            "ghp_SECRET", "sk-XYZ", "zz" };
        std::string s;
        const unsigned n = rng() % 6;
        for (unsigned i = 0; i < n; ++i)
            s += pieces[rng() % std::size(pieces)];
        return s;
    }
    Json value(int depth = 0)
    {
        switch (rng() % (depth > 2 ? 5 : 7)) {
        case 0:
            return nullptr;
        case 1:
            return coin();
        case 2:
            return std::int64_t(rng()) - (1LL << 31);
        case 3:
            return double(rng() % 1000) / 8.0;
        case 4:
            return text();
        case 5: {
            Json o = Json::object();
            for (unsigned i = rng() % 4; i > 0; --i)
                o[text()] = value(depth + 1);
            return o;
        }
        default: {
            Json a = Json::array();
            for (unsigned i = rng() % 4; i > 0; --i)
                a.push_back(value(depth + 1));
            return a;
        }
        }
    }
    Json object()
    {
        Json o = Json::object();
        for (unsigned i = rng() % 4; i > 0; --i)
            o[text()] = value(1);
        return o;
    }
    std::vector<Warning> warnings()
    {
        std::vector<Warning> out;
        for (unsigned i = rng() % 3; i > 0; --i)
            out.push_back({ text(), text(), text() });
        return out;
    }
    TrailEntry trailEntry()
    {
        TrailEntry e;
        e.action = Action(rng() % 7);
        e.failed = coin(5);
        e.failOpen = coin();
        e.code = text();
        e.guardrail = text();
        e.reason = text();
        if (coin(3))
            e.metadata = coin() ? object() : value();
        if (coin(4))
            e.patch = Json::array(
                { { { "op", "replace" }, { "path", "/" + text() }, { "value", value() } } });
        return e;
    }
    std::vector<Redaction> redactions()
    {
        std::vector<Redaction> out;
        if (coin())
            out.push_back({ "ghp_SECRET", "[secret:github_token:1]", "github_token" });
        if (coin(3))
            out.push_back({ "sk-XYZ", "[secret:key:2]", "key" });
        if (coin(6))
            out.push_back({ "a", "[secret:a:3]", "a" }); // a secret inside keys too
        return out;
    }
};

std::string written(const std::function<void(std::string &)> &write)
{
    std::string out = "x"; // appends, never replaces
    write(out);
    return out.substr(1);
}

// QCOMPARE on std::string shows nothing of the two.
#define COMPARE_TEXT(actual, expected)                                                             \
    do {                                                                                           \
        const std::string a_ = (actual), e_ = (expected);                                          \
        QVERIFY2(a_ == e_,                                                                         \
            qPrintable(QStringLiteral("\n   written: %1\n   tree:    %2")                          \
                           .arg(QString::fromUtf8(a_.c_str()), QString::fromUtf8(e_.c_str()))));   \
    } while (false)

// The trees the engine built before it wrote these records directly
// (issue 30), kept here as the reference.
Json decisionRecord(Json fields, const std::string &callId, const Decision &decision)
{
    fields["call_id"] = callId;
    fields["decision"] = decisionKindName(decision.kind);
    fields["decided_by"] = decision.decidedBy;
    fields["reason"] = decision.reason;
    if (!decision.code.empty())
        fields["code"] = decision.code;
    if (!decision.warnings.empty())
        fields["warnings"] = warningsToJson(decision.warnings);
    return fields;
}

Json deliveredRecord(const std::string &callId, const std::string &toolName, DecisionKind kind,
    std::size_t connections)
{
    return Json { { "call_id", callId }, { "tool", toolName },
        { "decision", decisionKindName(kind) }, { "connections", connections } };
}

Json withSubject(Json record, const RecordSubject &subject)
{
    record["session"] = subject.session;
    record["agent"] = subject.agent;
    return record;
}

} // namespace

void TestRecords::callRecords()
{
    Random r(30);
    for (int round = 0; round < 5000; ++round) {
        ToolCall call;
        call.callId = r.text();
        call.toolName = r.text();
        call.args = r.coin(8) ? Json::object() : r.object();
        if (r.coin())
            call.turnId = r.text();
        call.context = r.coin() ? Json::object() : r.coin(4) ? Json() : r.object();
        call.annotations = r.coin() ? Json::object() : r.coin(4) ? Json() : r.object();
        AgentInfo agent;
        agent.name = r.text();
        agent.framework = r.coin() ? std::string() : r.text();
        agent.user = r.coin() ? std::string() : r.text();
        agent.capabilities.modify = !r.coin(4);
        agent.capabilities.halt = !r.coin(4);
        ChainOutcome outcome;
        outcome.action = Action(r.rng() % 7);
        for (unsigned i = r.rng() % 4; i > 0; --i)
            outcome.trail.push_back(r.trailEntry());
        if (r.coin(3))
            outcome.redactions = r.redactions();
        const std::string sessionId = call.callId + "-session";
        const RecordSubject subject { sessionId, agent.name }; // views: the strings outlive it

        const std::string expected
            = dumpJson(withSubject(callRecord(call, agent, outcome), subject));
        COMPARE_TEXT(
            written([&](std::string &out) { writeCallRecord(out, subject, call, agent, outcome); }),
            expected);
        // The trail alone.
        std::string trail;
        JsonWriter tw(trail);
        writeTrail(tw, outcome.trail);
        COMPARE_TEXT(trail, dumpJson(trailToJson(outcome.trail)));
    }
}

void TestRecords::decisionRecords()
{
    Random r(31);
    for (int round = 0; round < 5000; ++round) {
        Decision d;
        d.kind = DecisionKind(r.rng() % 4);
        d.reason = r.text();
        d.decidedBy = r.text();
        d.code = r.coin() ? std::string() : r.text();
        d.warnings = r.warnings();
        // An item id and a "via" are never empty (DecisionFields: empty is none).
        const std::string tool = r.text(), item = "i-" + r.text(), osUser = r.text(),
                          via = "v-" + r.text(), state = r.text();

        // The fields as the broker put them in the tree.
        DecisionFields fields;
        Json tree { { "tool", tool }, { "state", state } };
        fields.tool = tool;
        fields.state = state;
        if (r.coin()) {
            fields.item = item;
            tree["item"] = item;
        }
        if (r.coin(3)) {
            fields.args = r.object();
            tree["args"] = fields.args;
        }
        if (r.coin(3)) {
            fields.edited = true;
            tree["edited"] = true;
        }
        if (r.coin(4)) {
            fields.approvers = std::vector<std::string> { r.text(), r.text() };
            tree["approvers"] = *fields.approvers;
        } else if (r.coin(3)) {
            fields.osUser = osUser;
            tree["os_user"] = osUser;
        }
        if (r.coin(3)) {
            fields.via = via;
            tree["via"] = via;
        }
        const std::string callId = r.text();
        const std::string sessionId = "s-" + callId, agentName = r.text();
        const RecordSubject subject { sessionId, agentName };
        const std::string expected
            = dumpJson(withSubject(decisionRecord(tree, callId, d), subject));
        COMPARE_TEXT(written([&](std::string &out) {
            writeDecisionRecord(out, subject, fields, callId, d);
        }),
            expected);
    }
}

void TestRecords::deliveredRecords()
{
    Random r(32);
    for (int round = 0; round < 2000; ++round) {
        const std::string callId = r.text(), tool = r.text();
        const DecisionKind kind = DecisionKind(r.rng() % 4);
        const std::size_t connections = r.rng() % 5;
        const bool again = r.coin(), refused = r.coin();
        const std::string sessionId = r.text(), agentName = r.text();
        const RecordSubject subject { sessionId, agentName };
        Json tree = deliveredRecord(callId, tool, kind, connections);
        if (again)
            tree["again"] = true;
        if (refused)
            tree["code"] = "audit_unavailable";
        COMPARE_TEXT(written([&](std::string &out) {
            writeDeliveredRecord(out, subject, callId, tool, kind, connections, again, refused);
        }),
            dumpJson(withSubject(tree, subject)));
    }
}

void TestRecords::decisionMessages()
{
    Random r(33);
    for (int round = 0; round < 5000; ++round) {
        Decision d;
        d.kind = DecisionKind(r.rng() % 4);
        d.args = r.coin(4) ? Json() : r.object();
        d.reason = r.text();
        d.decidedBy = r.text();
        d.code = r.coin() ? std::string() : r.text();
        d.warnings = r.warnings();
        d.via = r.text(); // never on the wire
        const std::string callId = r.text();
        const std::string expected = dumpJson(decisionToJson(callId, d));
        COMPARE_TEXT(
            written([&](std::string &out) { appendDecisionText(out, callId, d); }), expected);
        // The arguments where they are, instead of d.args.
        Decision moved = d;
        const Json args = std::move(moved.args);
        moved.args = Json();
        COMPARE_TEXT(
            written([&](std::string &out) { appendDecisionText(out, callId, moved, &args); }),
            expected);
    }
}

void TestRecords::timestamps()
{
    std::mt19937_64 rng(34);
    std::vector<TimeMs> times { 0, 999, 1000, -1, -999, -1000, -1001, 1'764'000'000'000,
        1'764'000'000'999, 253'402'300'799'999 /* 9999-12-31T23:59:59.999 */, 253'402'300'800'000,
        -62'135'596'800'000, -62'135'596'800'001 };
    for (int i = 0; i < 20'000; ++i)
        times.push_back(TimeMs(rng() % 4'000'000'000'000ULL) - 200'000'000'000LL);
    // Runs of the same second, as records come.
    for (TimeMs t = 1'764'000'000'000; t < 1'764'000'003'000; t += 7)
        times.push_back(t);
    for (TimeMs t : times) {
        std::string out = "x";
        audit::appendTimestamp(out, t);
        COMPARE_TEXT(out.substr(1), formatTimestamp(t));
    }
}

QTEST_GUILESS_MAIN(TestRecords)
#include "tst_records.moc"
