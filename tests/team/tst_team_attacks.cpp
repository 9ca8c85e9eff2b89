// SPDX-License-Identifier: Apache-2.0
// The eight attacks of issue 42, each from the attacker's seat: a reviewer
// or gateway login calling the team schema from its own libpq connection,
// as from psql (teamlogins.h has who owns what). Each is refused, or ends
// in the outcome the database computes itself. tst_team_privileges.cpp
// covers every function with hostile arguments.

#include "team/teamlogins.h"

#include <QtTest>

using namespace holdpoint;
using holdpoint::test::Answer;
using holdpoint::test::TeamLogins;

namespace {

std::string review(const char *id, const char *instance, const char *action,
    const char *args = "NULL", const char *reviewer = "")
{
    return "SELECT outcome, decided_by, decision, approvals, message FROM holdpoint.review('"
        + std::string(id) + "', '" + instance + "', '" + reviewer + "', 'psql', '" + action + "', "
        + args + ", NULL, NULL)";
}

} // namespace

class tst_TeamAttacks final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void oneReviewerCannotCompleteATwoPersonApproval();
    void theLastApprovalCarriesOnlyWhatWasApproved();
    void aClaimIsInTheCallersNameForALeaseTheServerCaps();
    void aGatewayCannotActAsAnother();
    void aGatewayCannotWriteDecisionLines();
    void aDisabledReviewersVoteNoLongerCounts();
    void oneLoginIsOnePerson();
    void aNewGatewaysFirstCallIsNotAbandoned();

private:
    TeamLogins m_team;
    int m_copies = 0;
};

void tst_TeamAttacks::initTestCase()
{
    QVERIFY2(m_team.start(), qPrintable(m_team.lastError()));
}

void tst_TeamAttacks::init()
{
    QVERIFY(m_team.fresh(QStringLiteral("attack%1").arg(++m_copies)));
}

void tst_TeamAttacks::cleanup()
{
    m_team.drop();
}

// 1. With alice's vote at 1/2, bob passes action deny with decision allow:
// the function that took a decision is gone, and bob's answer is what the
// server makes of his action alone.
void tst_TeamAttacks::oneReviewerCannotCompleteATwoPersonApproval()
{
    QCOMPARE(m_team.as("alice_l", review("two", "CA", "approve")).value(), std::string("voted"));
    const Answer forged = m_team.as("bob_l",
        "SELECT * FROM holdpoint.review('two', 'CB', '', 'psql', 'deny', "
        "'{\"target\":\"prod-p2\"}', "
        "'28af329428b17f5bb5386eb2e881ba843016194a86c50f2feb32d4aa25822a44', 'allow', "
        "'{\"action\":\"approve\"}', "
        "'ok', '{\"decision\":\"allow\"}')");
    QCOMPARE(forged.state, std::string("42883")); // no such function: a v4 signature
    QCOMPARE(
        m_team.owner("SELECT state FROM holdpoint.items WHERE id = 'two'"), std::string("pending"));
    // bob's own answer is a deny, and says so.
    const Answer bob = m_team.as("bob_l", review("two", "CB", "deny"));
    QCOMPARE(bob.value(), std::string("decided"));
    QCOMPARE(bob.rows[0][1], std::string("human:bob"));
    QCOMPARE(bob.rows[0][2], std::string("deny"));
    QCOMPARE(m_team.owner("SELECT decision || ' ' || review FROM holdpoint.items WHERE id = 'two'"),
        std::string("deny {\"action\":\"deny\"}"));
    // On a fresh two-person item, one person's approvals never decide.
    QVERIFY(m_team.fresh(QStringLiteral("attack%1").arg(++m_copies)));
    QCOMPARE(m_team.as("bob_l", review("two", "CB", "approve")).value(), std::string("voted"));
    const Answer again = m_team.as("bob_l", review("two", "CB", "approve"));
    QCOMPARE(again.value(), std::string("refused"));
    QCOMPARE(
        m_team.owner("SELECT state FROM holdpoint.items WHERE id = 'two'"), std::string("pending"));
}

// 2. alice approves prod-p2; bob tries to make the last approval carry
// EVIL-p2. An approval of other arguments is refused; an edit resets the
// count, so EVIL-p2 runs only once two people approved exactly it.
void tst_TeamAttacks::theLastApprovalCarriesOnlyWhatWasApproved()
{
    QCOMPARE(m_team.as("alice_l", review("two", "CA", "approve")).value(), std::string("voted"));
    const Answer swapped
        = m_team.as("bob_l", review("two", "CB", "approve", "'{\"target\":\"EVIL-p2\"}'"));
    QCOMPARE(swapped.value(), std::string("refused"));
    QVERIFY2(swapped.rows[0][4].find("changed since you looked") != std::string::npos,
        swapped.rows[0][4].c_str());
    const Answer edit
        = m_team.as("bob_l", review("two", "CB", "edit", "'{\"target\":\"EVIL-p2\"}'"));
    QCOMPARE(edit.value(), std::string("voted"));
    QCOMPARE(edit.rows[0][3], std::string("1")); // alice's approval of prod-p2 no longer counts
    QCOMPARE(
        m_team.owner("SELECT state FROM holdpoint.items WHERE id = 'two'"), std::string("pending"));
    // alice approves what stands now: the decision is what both approved.
    const Answer done
        = m_team.as("alice_l", review("two", "CA", "approve", "'{\"target\":\"EVIL-p2\"}'"));
    QCOMPARE(done.value(), std::string("decided"));
    QCOMPARE(done.rows[0][2], std::string("modify"));
    QCOMPARE(
        m_team.owner("SELECT count(DISTINCT v.args_hash) || ' ' || count(*) || ' '"
                     " || bool_and(v.args_hash = holdpoint.args_digest(i.review::json ->> 'args'))"
                     " FROM holdpoint.votes v JOIN holdpoint.items i ON i.id = v.item_id WHERE "
                     "v.item_id = 'two'"),
        std::string("1 2 true"));
    // The hashes are the server's: protocol::argsDigest of the stored args.
    QCOMPARE(m_team.owner("SELECT DISTINCT args_hash = "
                          "encode(sha256(convert_to('{\"target\":\"EVIL-p2\"}', 'UTF8')), 'hex')"
                          " FROM holdpoint.votes WHERE item_id = 'two'"),
        std::string("t"));
}

// 3. alice claims in bob's name for ten years: refused; her own claim is
// hers, for at most a minute, and bob may still decide once it lapses.
void tst_TeamAttacks::aClaimIsInTheCallersNameForALeaseTheServerCaps()
{
    const Answer asBob
        = m_team.as("alice_l", "SELECT * FROM holdpoint.claim('two', 'fake', 'bob', 315360000000)");
    QCOMPARE(asBob.state, std::string("28000"));
    QCOMPARE(
        m_team.as("alice_l", "SELECT * FROM holdpoint.claim('two', 'CB', '', 315360000000)").state,
        std::string("42501")); // bob's console
    const Answer own = m_team.as(
        "alice_l", "SELECT held, holder FROM holdpoint.claim('two', 'CA', '', 315360000000)");
    QVERIFY2(own.ok(), own.error.c_str());
    QCOMPARE(own.rows[0][1], std::string("alice"));
    QCOMPARE(m_team.owner("SELECT claim_until <= clock_timestamp() + interval '60 seconds' FROM "
                          "holdpoint.items WHERE id = 'two'"),
        std::string("t"));
    QCOMPARE(m_team.owner(
                 "SELECT line::json ->> 'reviewer' FROM holdpoint.audit WHERE event = 'claimed'"),
        std::string("alice"));
    QCOMPARE(m_team.as("bob_l", review("two", "CB", "approve")).value(), std::string("claimed"));
    m_team.owner("UPDATE holdpoint.items SET claim_until = clock_timestamp() WHERE id = 'two'");
    QCOMPARE(m_team.as("bob_l", review("two", "CB", "approve")).value(), std::string("voted"));
}

// 4. gw2 acts on G1's instance and items: every call is refused, and G1's
// row, item and agent are as they were.
void tst_TeamAttacks::aGatewayCannotActAsAnother()
{
    const char *const attempts[] = {
        "SELECT * FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'alice said no', "
        "'human:alice')",
        "SELECT * FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'gone', 'agent')",
        "SELECT holdpoint.heartbeat('G1', 'gateway', 'evil-host', '', '', 0, 5)",
        "SELECT holdpoint.heartbeat('G1', 'gateway', 'evil-host', '', '', 0)",
        "SELECT * FROM holdpoint.escalate('x1', 'G1', 'h', 's1', 'cx', NULL, 'Bash', '{}', 1000, "
        "'{}')",
        "SELECT holdpoint.expire_due('G1')",
        "SELECT holdpoint.set_agent_connected('G1', 'one', false)",
        "SELECT holdpoint.append_audit('G1', ARRAY['call'], ARRAY['{\"gateway\":\"G1\"}'])",
    };
    for (const char *sql : attempts)
        QVERIFY2(m_team.as("gw2", sql).state == "42501", sql);
    QCOMPARE(m_team.owner("SELECT host || ' ' || grace_ms || ' ' || db_role FROM "
                          "holdpoint.instances WHERE id = 'G1'"),
        std::string("host-G1 3600000 gw1"));
    QCOMPARE(m_team.owner("SELECT state || ' ' || coalesce(agent_connected::text, '-') FROM "
                          "holdpoint.items WHERE id = 'one'"),
        std::string("pending -"));
    // G1's own login may not end its item in a person's name either.
    QCOMPARE(m_team.as("gw1", attempts[0]).state, std::string("42501"));
    QCOMPARE(
        m_team.owner("SELECT count(*) FROM holdpoint.items WHERE id = 'x1' OR state <> 'pending'"),
        std::string("0"));
}

// 5. A gateway login ships a line saying human:alice allowed a call, or
// forges who wrote it: refused; its own automatic decisions go in, marked
// with its login.
void tst_TeamAttacks::aGatewayCannotWriteDecisionLines()
{
    const std::string alice
        = R"({"call_id":"c","decided_by":"human:alice","decision":"allow","gateway":"G1","state":"decided","tool":"Bash"})";
    for (const std::string &sql : {
             "SELECT holdpoint.append_audit('G1', ARRAY['decision'], ARRAY['" + alice + "'])",
             "SELECT holdpoint.append_audit_once('G1', 'r', 1, ARRAY['decision'], ARRAY['" + alice
                 + "'])",
             std::string("SELECT holdpoint.append_audit('G1', ARRAY['vote'], "
                         "ARRAY['{\"gateway\":\"G1\",\"reviewer\":\"alice\"}'])"),
             std::string("SELECT holdpoint.append_audit('G1', ARRAY['call'], "
                         "ARRAY['{\"db_role\":\"alice_l\",\"gateway\":\"G1\"}'])"),
             std::string("SELECT holdpoint.append_audit('G1', ARRAY['decision'], "
                         "ARRAY['{\"decided_by\":\"human:alice\",\"decision\":\"allow\","
                         "\"gateway\":\"G1\",\"state\":\"auto\"}'])"),
             // ... nor through its escalation's own line.
             "SELECT * FROM holdpoint.escalate('x2', 'G1', 'h', 's1', 'cx', NULL, 'Bash', '{}', "
             "60000, '"
                 + alice + "')",
         })
        QVERIFY2(m_team.as("gw1", sql).state == "42501", sql.c_str());
    QCOMPARE(m_team.owner("SELECT count(*) FROM holdpoint.audit WHERE line LIKE '%human:alice%' OR "
                          "event = 'vote'"),
        std::string("0"));
    const Answer own = m_team.as("gw1",
        "SELECT holdpoint.append_audit('G1', ARRAY['decision'], "
        "ARRAY['{\"decided_by\":\"guardrail:shell\",\"decision\":\"allow\",\"gateway\":\"G1\","
        "\"state\":\"auto\"}'])");
    QVERIFY2(own.ok(), own.error.c_str());
    QCOMPARE(m_team.owner("SELECT (line::json ->> 'db_role') || ' ' || (line::json ->> "
                          "'decided_by') FROM holdpoint.audit"
                          " ORDER BY seq DESC LIMIT 1"),
        std::string("gw1 guardrail:shell"));
    // A person's decision line is the server's, in the decision's transaction.
    QCOMPARE(m_team.as("bob_l", review("one", "CB", "approve")).value(), std::string("decided"));
    QCOMPARE(m_team.owner(
                 "SELECT (line::json ->> 'db_role') || ' ' || (line::json ->> 'decided_by') || ' '"
                 " || (line::json ->> 'decision') FROM holdpoint.audit ORDER BY seq DESC LIMIT 1"),
        std::string("bob_l human:bob allow"));
}

// 6. alice approves, then is disabled: her vote is void, and bob's approval
// is the only one.
void tst_TeamAttacks::aDisabledReviewersVoteNoLongerCounts()
{
    QCOMPARE(m_team.as("alice_l", review("two", "CA", "approve")).value(), std::string("voted"));
    QCOMPARE(m_team.owner("SELECT holdpoint.reviewer_disable('alice')"), std::string("t"));
    QCOMPARE(m_team.owner("SELECT count(*) FROM holdpoint.votes WHERE item_id = 'two'"),
        std::string("0"));
    QCOMPARE(
        m_team.owner(
            "SELECT line::json ->> 'reviewer' FROM holdpoint.audit WHERE event = 'vote_voided'"),
        std::string("alice"));
    const Answer bob = m_team.as("bob_l", review("two", "CB", "approve"));
    QCOMPARE(bob.value(), std::string("voted"));
    QCOMPARE(bob.rows[0][3], std::string("1"));
    // A vote of hers that the disable missed (written behind its back) does not count either.
    m_team.owner("INSERT INTO holdpoint.votes SELECT item_id, 'alice', via, args, args_hash, edit, "
                 "at, 'alice_l'"
                 " FROM holdpoint.votes WHERE item_id = 'two'");
    QCOMPARE(m_team.owner("SELECT cardinality(holdpoint.counted_votes('two', (SELECT args_hash "
                          "FROM holdpoint.votes"
                          " WHERE reviewer = 'bob'), true))"),
        std::string("1"));
    QCOMPARE(
        m_team.owner("SELECT state FROM holdpoint.items WHERE id = 'two'"), std::string("pending"));
}

// 7. eve's one login maps to eve1 and eve2: it approves once, whichever
// name it uses; and it is the requester under either name.
void tst_TeamAttacks::oneLoginIsOnePerson()
{
    QCOMPARE(m_team.as("eve_l", review("two", "CE", "approve", "NULL", "eve1")).value(),
        std::string("voted"));
    const Answer second = m_team.as("eve_l", review("two", "CE", "approve", "NULL", "eve2"));
    QCOMPARE(second.value(), std::string("refused"));
    QVERIFY2(
        second.rows[0][4].find("the database login eve_l approved these arguments already as eve1")
            != std::string::npos,
        second.rows[0][4].c_str());
    QCOMPARE(
        m_team.owner(
            "SELECT state || ' ' || (SELECT count(*) FROM holdpoint.votes WHERE item_id = 'two')"
            " FROM holdpoint.items WHERE id = 'two'"),
        std::string("pending 1"));
    // An edit under the other name replaces the login's vote; it is still one.
    const Answer edit
        = m_team.as("eve_l", review("two", "CE", "edit", "'{\"target\":\"prod-p3\"}'", "eve2"));
    QCOMPARE(edit.value(), std::string("voted"));
    QCOMPARE(edit.rows[0][3], std::string("1"));
    // `excl` was requested by eve1: eve2, the same login, may not approve it.
    const Answer requester = m_team.as("eve_l", review("excl", "CE", "approve", "NULL", "eve2"));
    QCOMPARE(requester.value(), std::string("refused"));
    QVERIFY2(requester.rows[0][4].find("needs approval from someone else") != std::string::npos,
        requester.rows[0][4].c_str());
    // Two people do decide it.
    QCOMPARE(m_team.as("alice_l", review("excl", "CA", "approve")).value(), std::string("voted"));
    const Answer bob = m_team.as("bob_l", review("excl", "CB", "approve"));
    QCOMPARE(bob.value(), std::string("decided"));
    QCOMPARE(bob.rows[0][1], std::string("human:alice,human:bob"));
}

// 8. A new gateway's first call, escalated before its first heartbeat,
// while another instance expires due items: it waits for a person.
void tst_TeamAttacks::aNewGatewaysFirstCallIsNotAbandoned()
{
    const Answer first = m_team.as("gw2",
        "SELECT state FROM holdpoint.escalate_batch('G3', 'host-G3', ARRAY['new1'], ARRAY['s'], "
        "ARRAY['c1'], "
        "ARRAY[NULL::text], ARRAY['Bash'], ARRAY['{\"args\":{}}'], ARRAY[600000::bigint], "
        "ARRAY['{}'])");
    QCOMPARE(first.value(), std::string("pending"));
    QVERIFY(m_team.as("gw1", "SELECT holdpoint.expire_due('G1')").ok());
    QCOMPARE(m_team.owner("SELECT state FROM holdpoint.items WHERE id = 'new1'"),
        std::string("pending"));
    QCOMPARE(m_team.owner("SELECT db_role FROM holdpoint.instances WHERE id = 'G3'"),
        std::string("gw2"));
    // A gateway that comes back after its grace: its call (sent again as it
    // restarts) is its sign of life before its heartbeat is.
    m_team.owner("UPDATE holdpoint.instances SET heartbeat_at = clock_timestamp() - interval '1 "
                 "hour' WHERE id = 'G3'");
    const Answer again = m_team.as("gw2",
        "SELECT state FROM holdpoint.escalate('new2', 'G3', 'host-G3', 's', 'c2', NULL, 'Bash', "
        "'{\"args\":{}}', 600000, '{}')");
    QCOMPARE(again.value(), std::string("pending"));
    QVERIFY(m_team.as("gw1", "SELECT holdpoint.expire_due('G1')").ok());
    QCOMPARE(m_team.owner("SELECT string_agg(state, ',' ORDER BY id) FROM holdpoint.items WHERE id "
                          "IN ('new1', 'new2')"),
        std::string("pending,pending"));
    // And another login may not take the new gateway's id.
    QCOMPARE(
        m_team.as("gw1", "SELECT holdpoint.heartbeat('G3', 'gateway', 'h', '', '', 1, 5)").state,
        std::string("42501"));
}

QTEST_GUILESS_MAIN(tst_TeamAttacks)
#include "tst_team_attacks.moc"
