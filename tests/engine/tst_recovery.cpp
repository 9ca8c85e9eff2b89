// SPDX-License-Identifier: Apache-2.0
// A console restarted on its audit log (Broker::recover) with a call whose
// arguments held secrets: the log has them masked, so the call waits for
// its agent's re-send to find them again. Decided before that re-send, by
// a person or by the grace period, the re-send gets that decision.

#include "audit/auditfile.h"
#include "audit/auditlog.h"
#include "engine/enginefixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::protocol;
using namespace holdpoint::test;

namespace {

const Json SecretArgs = { { "url", "https://deploy.test/" },
    { "headers", { { "Authorization", "Bearer AKIAIOSFODNN7EXAMPLE" } } } };
constexpr const char *PolicyText = R"({"guardrails":[{"type":"secrets"}]})";

// A broker with a real audit log in `dir`.
struct Console : Fixture
{
    Console(const QString &dir, TimeMs start, const char *policy = PolicyText)
        : audit(configFor(dir), &clock)
    {
        clock.set(start);
        audit.open();
        broker.setAuditLog(&audit);
        broker.setPolicy(policyOf(policy));
    }
    static AuditConfig configFor(const QString &dir)
    {
        AuditConfig config;
        config.dir = dir;
        return config;
    }
    // Everything appended is on disk, and what waited for it has run:
    // durableSeq() moves only once this thread has run those callbacks,
    // and whatever they append keeps it behind lastSeq() until that is
    // durable too.
    void settle()
    {
        QVERIFY(QTest::qWaitFor([this] { return audit.durableSeq() == audit.lastSeq(); }, 10'000));
    }
    AuditLog audit;
};

} // namespace

class TestRecovery : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void decidedBeforeTheCrashIsSentWithItsSecret();
    void deniedAfterTheRestartIsSentAsDenied();
    void abandonedAfterTheRestartIsSentAsAbandoned();
    void aQuotedSecretIsSentAgainAsItWasSent();

private:
    // A console that saw c1 (secret args) escalate, then stopped; `approve`: approved first.
    static std::string before(const QString &dir, bool approve);
};

std::string TestRecovery::before(const QString &dir, bool approve)
{
    Console a(dir, 1'000'000);
    const ConnectionId agent = a.agent(std::string("S"));
    a.call(agent, "c1", SecretArgs, "http_request");
    a.settle(); // reviewers see it once its escalation is on disk
    if (approve)
        a.review(a.itemOf("c1"), ReviewAction::Approve);
    a.settle();
    return a.out.raw[agent].back();
}

void TestRecovery::decidedBeforeTheCrashIsSentWithItsSecret()
{
    QTemporaryDir tmp;
    const std::string first = before(tmp.path(), true);
    QCOMPARE(Json::parse(first)["decision"], Json("allow"));
    Console b(tmp.path(), 1'010'000);
    QCOMPARE(b.broker.recover(tmp.path(), 0).decided, 1);
    const ConnectionId agent = b.agent(std::string("S"));
    b.call(agent, "c1", SecretArgs, "http_request");
    b.settle();
    QCOMPARE(b.out.raw[agent].back(), first);
}

void TestRecovery::deniedAfterTheRestartIsSentAsDenied()
{
    QTemporaryDir tmp;
    QCOMPARE(Json::parse(before(tmp.path(), false))["type"], Json("pending"));
    Console b(tmp.path(), 1'010'000);
    QCOMPARE(b.broker.recover(tmp.path(), 0).pending, 1);
    QVERIFY(b.review(b.itemOf("c1"), ReviewAction::Deny, "not this one").ok);
    b.settle();
    const ConnectionId agent = b.agent(std::string("S"));
    b.call(agent, "c1", SecretArgs, "http_request");
    b.settle();
    const Json d = Json::parse(b.out.raw[agent].back());
    QCOMPARE(d["type"], Json("decision"));
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["reason"], Json("not this one"));
    // Every re-send after it hears the same.
    b.call(agent, "c1", SecretArgs, "http_request");
    b.settle();
    QCOMPARE(Json::parse(b.out.raw[agent].back()), d);
}

void TestRecovery::abandonedAfterTheRestartIsSentAsAbandoned()
{
    QTemporaryDir tmp;
    before(tmp.path(), false);
    Console b(tmp.path(), 1'010'000); // well before its escalation times out
    QCOMPARE(b.broker.recover(tmp.path(), 0).pending, 1);
    b.clock.advance(61'000); // nobody waits for it past the grace period
    b.settle();
    QCOMPARE(b.queue.size(), 0);
    const ConnectionId agent = b.agent(std::string("S"));
    b.call(agent, "c1", SecretArgs, "http_request");
    b.settle();
    const Json d = Json::parse(b.out.raw[agent].back());
    QCOMPARE(d["type"], Json("decision"));
    QCOMPARE(d["code"], Json("abandoned"));
}

void TestRecovery::aQuotedSecretIsSentAgainAsItWasSent()
{
    // protected_paths quotes the path in its reason, masked, and the
    // secrets guardrail warns: the re-send after a restart hears the same.
    constexpr const char *Quoting
        = R"({"default":"allow","guardrails":[{"type":"secrets","action":"warn"},
        {"type":"protected_paths","paths":["/srv"],"action":"deny"}]})";
    const Json args = { { "path", "/srv/keys/AKIAIOSFODNN7EXAMPLE" },
        { "token", "Bearer AKIAIOSFODNN7EXAMPLE" } };
    QTemporaryDir tmp;
    std::string first;
    {
        Console a(tmp.path(), 1'000'000, Quoting);
        const ConnectionId agent = a.agent(std::string("S"));
        a.call(agent, "c1", args, "write_file");
        a.settle();
        first = a.out.raw[agent].back();
    }
    const Json d = Json::parse(first);
    QCOMPARE(d["decision"], Json("deny"));
    QVERIFY2(
        d["reason"].get<std::string>().find("/srv/keys/[secret:aws_access_key_id:1] is protected")
            != std::string::npos,
        first.c_str());
    QVERIFY2(d["warnings"].dump().find("aws_access_key_id") != std::string::npos, first.c_str());
    int records = 0;
    int leaks = 0;
    audit::forEachRecord(tmp.path(), [&](std::string_view line, const Json &) {
        ++records;
        leaks += line.find("AKIAIOSFODNN7EXAMPLE") != std::string_view::npos;
        return true;
    });
    QVERIFY(records >= 3); // call, decision, delivered
    QCOMPARE(leaks, 0);
    Console b(tmp.path(), 1'010'000, Quoting);
    QCOMPARE(b.broker.recover(tmp.path(), 0).decided, 1);
    const ConnectionId agent = b.agent(std::string("S"));
    b.call(agent, "c1", args, "write_file");
    b.settle();
    QCOMPARE(b.out.raw[agent].back(), first);
}

QTEST_GUILESS_MAIN(TestRecovery)
#include "tst_recovery.moc"
