// SPDX-License-Identifier: Apache-2.0
// Every function of the team schema, called by every seat (a gateway's
// login, a reviewer's login, the owner's console) from its own libpq
// connection with hostile arguments: another's instance, another's name, a
// forged decision line, a lease to 2036. Each row says what the database
// must answer: a refusal (its SQLSTATE) or the result it computes itself
// (SECURITY.md "Team mode"). The list of functions comes from pg_proc, so
// a function added to the schema without rows here fails the suite.
// The eight attacks of issue 42, as sequences, are in tst_team_attacks.cpp.

#include "team/teamlogins.h"

#include <QtTest>

#include <map>
#include <set>

using namespace holdpoint;
using holdpoint::test::Answer;
using holdpoint::test::TeamLogins;

namespace {

// One call. `expect`: "ok" (it runs), "=VALUE" (it runs and returns VALUE)
// or the SQLSTATE of the refusal. `check` then runs as the owner and must
// print `checked`: what the call did, or that it did nothing.
struct Case
{
    const char *function; // as pg_proc's regprocedure names it
    const char *seat; // gateway, reviewer, owner
    const char *sql;
    const char *expect;
    const char *check = nullptr;
    const char *checked = nullptr;
};

constexpr const char *Denied = "42501"; // insufficient_privilege
constexpr const char *NotYou = "28000"; // invalid_authorization_specification

const Case Cases[] = {
    // Instances belong to the login that registered them.
    { "heartbeat(text,text,text,text,text,bigint)", "gateway",
        "SELECT holdpoint.heartbeat('G2', 'gateway', 'evil', '', '', 1)", Denied,
        "SELECT host || ' ' || grace_ms FROM holdpoint.instances WHERE id = 'G2'",
        "host-G2 3600000" },
    { "heartbeat(text,text,text,text,text,bigint)", "reviewer",
        "SELECT holdpoint.heartbeat('CA', 'console', 'evil', '', '', 1)", Denied },
    { "heartbeat(text,text,text,text,text,bigint)", "owner",
        "SELECT holdpoint.heartbeat('G1', 'gateway', 'evil', '', '', 1)", Denied },
    { "heartbeat(text,text,text,text,text,bigint,integer)", "gateway",
        "SELECT holdpoint.heartbeat('G2', 'gateway', 'evil', '', '', 1, 5)", Denied,
        "SELECT host FROM holdpoint.instances WHERE id = 'G2'", "host-G2" },
    { "heartbeat(text,text,text,text,text,bigint,integer)", "gateway",
        "SELECT holdpoint.heartbeat('G1', 'gateway', 'h1', '', '', 5000, 5)", "ok",
        "SELECT host || ' ' || db_role FROM holdpoint.instances WHERE id = 'G1'", "h1 gw1" },
    { "heartbeat(text,text,text,text,text,bigint,integer)", "reviewer",
        "SELECT holdpoint.heartbeat('CA', 'console', 'evil', '', '', 1, 5)", Denied },
    { "heartbeat(text,text,text,text,text,bigint,integer)", "owner",
        "SELECT holdpoint.heartbeat('CB', 'console', 'evil', '', '', 1, 5)", Denied },
    { "escalate(text,text,text,text,text,text,text,text,bigint,text)", "gateway",
        "SELECT * FROM holdpoint.escalate('n1', 'G2', 'h', 's', 'c', NULL, 'Bash', '{}', 1000, "
        "'{}')",
        Denied, "SELECT count(*) FROM holdpoint.items WHERE id = 'n1'", "0" },
    { "escalate(text,text,text,text,text,text,text,text,bigint,text)", "gateway",
        "SELECT * FROM holdpoint.escalate('n1', 'G1', 'h', 's', 'c', NULL, 'Bash', '{}', 1000, "
        "'{\"decided_by\":\"human:alice\",\"decision\":\"allow\"}')",
        Denied, "SELECT count(*) FROM holdpoint.audit WHERE line LIKE '%human:alice%'", "0" },
    { "escalate(text,text,text,text,text,text,text,text,bigint,text)", "reviewer",
        "SELECT * FROM holdpoint.escalate('n1', 'CA', 'h', 's', 'c', NULL, 'Bash', '{}', 1000, "
        "'{}')",
        Denied },
    { "escalate(text,text,text,text,text,text,text,text,bigint,text)", "owner",
        "SELECT * FROM holdpoint.escalate('n1', 'G1', 'h', 's', 'c', NULL, 'Bash', '{}', 1000, "
        "'{}')",
        Denied },
    { "escalate_batch(text,text,text[],text[],text[],text[],text[],text[],bigint[],text[])",
        "gateway",
        "SELECT * FROM holdpoint.escalate_batch('G2', 'h', ARRAY['n1'], ARRAY['s'], ARRAY['c'], "
        "ARRAY[NULL::text], "
        "ARRAY['Bash'], ARRAY['{}'], ARRAY[1000::bigint], ARRAY['{}'])",
        Denied, "SELECT count(*) FROM holdpoint.items WHERE id = 'n1'", "0" },
    { "escalate_batch(text,text,text[],text[],text[],text[],text[],text[],bigint[],text[])",
        "reviewer",
        "SELECT * FROM holdpoint.escalate_batch('CA', 'h', ARRAY['n1'], ARRAY['s'], ARRAY['c'], "
        "ARRAY[NULL::text], "
        "ARRAY['Bash'], ARRAY['{}'], ARRAY[1000::bigint], ARRAY['{}'])",
        Denied },
    { "escalate_batch(text,text,text[],text[],text[],text[],text[],text[],bigint[],text[])",
        "owner",
        "SELECT * FROM holdpoint.escalate_batch('G1', 'h', ARRAY['n1'], ARRAY['s'], ARRAY['c'], "
        "ARRAY[NULL::text], "
        "ARRAY['Bash'], ARRAY['{}'], ARRAY[1000::bigint], ARRAY['{}'])",
        Denied },
    // A gateway ends its own items only, and never in a person's name.
    { "withdraw(text,text,text,text,text,text)", "gateway",
        "SELECT * FROM holdpoint.withdraw('g2item', 'G2', 'cancelled', 'cancelled', 'x', 'agent')",
        Denied, "SELECT state FROM holdpoint.items WHERE id = 'g2item'", "pending" },
    { "withdraw(text,text,text,text,text,text)", "gateway",
        "SELECT * FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'alice said no', "
        "'human:alice')",
        Denied, "SELECT state FROM holdpoint.items WHERE id = 'one'", "pending" },
    { "withdraw(text,text,text,text,text,text)", "gateway",
        "SELECT withdrawn FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'gone', "
        "'agent')",
        "=t",
        "SELECT line::json ->> 'decided_by' || ' ' || (line::json ->> 'db_role') FROM "
        "holdpoint.audit ORDER BY seq DESC LIMIT 1",
        "agent gw1" },
    { "withdraw(text,text,text,text,text,text)", "gateway",
        "SELECT withdrawn FROM holdpoint.withdraw('one', 'G1', 'unavailable', 'loop', 'halted', "
        "'guardrail:loops')",
        "=t", "SELECT decided_by FROM holdpoint.items WHERE id = 'one'", "guardrail:loops" },
    { "withdraw(text,text,text,text,text,text)", "reviewer",
        "SELECT * FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'x', 'agent')",
        Denied },
    { "withdraw(text,text,text,text,text,text)", "owner",
        "SELECT * FROM holdpoint.withdraw('one', 'G1', 'cancelled', 'cancelled', 'x', 'agent')",
        Denied },
    { "expire_due(text)", "gateway", "SELECT holdpoint.expire_due('G2')", Denied },
    { "expire_due(text)", "gateway", "SELECT count(*) FROM holdpoint.expire_due('G1')", "=0",
        "SELECT count(*) FROM holdpoint.items WHERE state = 'pending'", "4" },
    { "expire_due(text)", "reviewer", "SELECT holdpoint.expire_due('CA')", Denied },
    { "expire_due(text)", "owner", "SELECT holdpoint.expire_due('G1')", Denied },
    // Audit copies: its own instance's lines, of a gateway's own kinds.
    { "append_audit(text,text[],text[])", "gateway",
        "SELECT holdpoint.append_audit('G1', ARRAY['decision'], "
        "ARRAY['{\"decided_by\":\"human:alice\",\"decision\":\"allow\",\"gateway\":\"G1\","
        "\"state\":\"decided\"}'])",
        Denied, "SELECT count(*) FROM holdpoint.audit WHERE line LIKE '%human:alice%'", "0" },
    { "append_audit(text,text[],text[])", "gateway",
        "SELECT holdpoint.append_audit('G1', ARRAY['call'], "
        "ARRAY['{\"db_role\":\"alice_l\",\"gateway\":\"G1\"}'])",
        Denied },
    { "append_audit(text,text[],text[])", "gateway",
        "SELECT holdpoint.append_audit('G1', ARRAY['decision'], "
        "ARRAY['{\"decided_by\":\"guardrail:x\",\"decision\":\"allow\",\"gateway\":\"G1\","
        "\"state\":\"auto\"}'])",
        "ok", "SELECT line::json ->> 'db_role' FROM holdpoint.audit ORDER BY seq DESC LIMIT 1",
        "gw1" },
    { "append_audit(text,text[],text[])", "reviewer",
        "SELECT holdpoint.append_audit('CA', ARRAY['call'], ARRAY['{\"gateway\":\"CA\"}'])",
        Denied },
    { "append_audit(text,text[],text[])", "owner",
        "SELECT holdpoint.append_audit('CO', ARRAY['vote'], ARRAY['{\"gateway\":\"CO\"}'])",
        Denied },
    { "append_audit_once(text,text,bigint,text[],text[])", "gateway",
        "SELECT holdpoint.append_audit_once('G2', 'run', 1, ARRAY['call'], "
        "ARRAY['{\"gateway\":\"G2\"}'])",
        Denied },
    { "append_audit_once(text,text,bigint,text[],text[])", "gateway",
        "SELECT holdpoint.append_audit_once('G1', 'run', 1, ARRAY['escalated'], "
        "ARRAY['{\"gateway\":\"G1\"}'])",
        Denied },
    { "append_audit_once(text,text,bigint,text[],text[])", "reviewer",
        "SELECT holdpoint.append_audit_once('CA', 'run', 1, ARRAY['call'], "
        "ARRAY['{\"gateway\":\"CA\"}'])",
        Denied },
    { "append_audit_once(text,text,bigint,text[],text[])", "owner",
        "SELECT holdpoint.append_audit_once('G1', 'run', 1, ARRAY['call'], "
        "ARRAY['{\"gateway\":\"G1\"}'])",
        Denied },
    { "publish_agents(text,text)", "gateway",
        "SELECT holdpoint.publish_agents('G2', '[{\"x\":1}]')", Denied,
        "SELECT agents FROM holdpoint.instances WHERE id = 'G2'", "[]" },
    { "publish_agents(text,text)", "reviewer", "SELECT holdpoint.publish_agents('CA', '[]')",
        Denied },
    { "publish_agents(text,text)", "owner", "SELECT holdpoint.publish_agents('G1', '[]')", Denied },
    { "set_turn_findings(text,text,text,text)", "gateway",
        "SELECT holdpoint.set_turn_findings('G2', 's9', NULL, '[]')", Denied },
    { "set_turn_findings(text,text,text,text)", "reviewer",
        "SELECT holdpoint.set_turn_findings('G1', 's1', 't1', '[]')", Denied },
    { "set_turn_findings(text,text,text,text)", "owner",
        "SELECT holdpoint.set_turn_findings('G1', 's1', 't1', '[]')", Denied },
    { "set_agent_connected(text,text,boolean)", "gateway",
        "SELECT holdpoint.set_agent_connected('G2', 'g2item', false)", Denied },
    { "set_agent_connected(text,text,boolean)", "reviewer",
        "SELECT holdpoint.set_agent_connected('G1', 'one', false)", Denied },
    { "set_agent_connected(text,text,boolean)", "owner",
        "SELECT holdpoint.set_agent_connected('G1', 'one', false)", Denied },
    // Deciding: the login's own reviewer, the server's outcome.
    { "review(text,text,text,text,text,text,text,text)", "gateway",
        "SELECT * FROM holdpoint.review('one', 'G1', 'alice', 'psql', 'approve', NULL, NULL, NULL)",
        Denied },
    { "review(text,text,text,text,text,text,text,text)", "reviewer",
        "SELECT * FROM holdpoint.review('one', 'CB', 'alice', 'psql', 'approve', NULL, NULL, NULL)",
        NotYou },
    { "review(text,text,text,text,text,text,text,text)", "reviewer",
        "SELECT * FROM holdpoint.review('one', 'CA', '', 'psql', 'approve', NULL, NULL, NULL)",
        Denied },
    { "review(text,text,text,text,text,text,text,text)", "reviewer",
        "SELECT outcome FROM holdpoint.review('one', 'CB', '', 'psql', 'approve', NULL, NULL, "
        "NULL)",
        "=decided",
        "SELECT decision || ' ' || decided_by || ' ' || review FROM holdpoint.items WHERE id = "
        "'one'",
        "allow human:bob {\"action\":\"approve\"}" },
    { "review(text,text,text,text,text,text,text,text)", "owner",
        "SELECT * FROM holdpoint.review('one', 'CO', 'alice', 'psql', 'deny', NULL, NULL, 'no')",
        NotYou },
    { "reviewer_for_login(text)", "gateway", "SELECT holdpoint.reviewer_for_login('')", Denied },
    { "reviewer_for_login(text)", "reviewer", "SELECT holdpoint.reviewer_for_login('alice')",
        NotYou },
    { "reviewer_for_login(text)", "reviewer", "SELECT holdpoint.reviewer_for_login('')", "=bob" },
    { "reviewer_for_login(text)", "owner", "SELECT holdpoint.reviewer_for_login('bob')", NotYou },
    { "claim(text,text,text,bigint)", "gateway",
        "SELECT * FROM holdpoint.claim('two', 'G1', '', 15000)", Denied },
    { "claim(text,text,text,bigint)", "reviewer",
        "SELECT * FROM holdpoint.claim('two', 'CB', 'alice', 15000)", NotYou,
        "SELECT coalesce(claim_name, '-') FROM holdpoint.items WHERE id = 'two'", "-" },
    { "claim(text,text,text,bigint)", "reviewer",
        "SELECT * FROM holdpoint.claim('two', 'CA', '', 15000)", Denied },
    { "claim(text,text,text,bigint)", "owner",
        "SELECT holder FROM holdpoint.claim('two', 'CO', '', 315360000000)", "=olga",
        "SELECT claim_until <= clock_timestamp() + interval '61 seconds' FROM holdpoint.items "
        "WHERE id = 'two'",
        "t" },
    { "release(text,text)", "gateway", "SELECT holdpoint.release('two', 'G1')", Denied },
    { "release(text,text)", "reviewer", "SELECT holdpoint.release('two', 'CA')", Denied },
    { "release(text,text)", "owner", "SELECT holdpoint.release('two', 'CB')", Denied },
    // The owner's: run as the caller, who must own the tables.
    { "reviewer_add(text,text,text)", "gateway",
        "SELECT holdpoint.reviewer_add('mallory', 'gw1', '')", Denied },
    { "reviewer_add(text,text,text)", "reviewer",
        "SELECT holdpoint.reviewer_add('alice', 'bob_l', '')", Denied,
        "SELECT count(*) FROM holdpoint.reviewer_logins WHERE login = 'bob_l'", "1" },
    { "reviewer_add(text,text,text)", "owner", "SELECT holdpoint.reviewer_add('zed', '', '')",
        "ok" },
    { "reviewer_disable(text)", "gateway", "SELECT holdpoint.reviewer_disable('alice')", Denied },
    { "reviewer_disable(text)", "reviewer", "SELECT holdpoint.reviewer_disable('alice')", Denied },
    { "reviewer_disable(text)", "owner", "SELECT holdpoint.reviewer_disable('dave')", "=t" },
    // Pure helpers every instance may call.
    { "ts_text(timestamp with time zone)", "gateway",
        "SELECT holdpoint.ts_text('2036-01-01T00:00:00Z')", "=2036-01-01T00:00:00.000Z" },
    { "ts_text(timestamp with time zone)", "reviewer", "SELECT holdpoint.ts_text(NULL)", "=" },
    { "ts_text(timestamp with time zone)", "owner",
        "SELECT holdpoint.ts_text('2036-01-01T00:00:00Z')", "=2036-01-01T00:00:00.000Z" },
    { "heartbeat_stale()", "gateway", "SELECT holdpoint.heartbeat_stale()", "=00:00:10" },
    { "heartbeat_stale()", "reviewer", "SELECT holdpoint.heartbeat_stale()", "=00:00:10" },
    { "heartbeat_stale()", "owner", "SELECT holdpoint.heartbeat_stale()", "=00:00:10" },
    { "per_item_window()", "gateway", "SELECT holdpoint.per_item_window()", "=00:01:00" },
    { "per_item_window()", "reviewer", "SELECT holdpoint.per_item_window()", "=00:01:00" },
    { "per_item_window()", "owner", "SELECT holdpoint.per_item_window()", "=00:01:00" },
    // Internal: the schema's own functions call them; no role may.
    { "is_json_object(text)", "gateway", "SELECT holdpoint.is_json_object('{}')", Denied },
    { "is_json_object(text)", "reviewer", "SELECT holdpoint.is_json_object('{}')", Denied },
    { "is_json_object(text)", "owner", "SELECT holdpoint.is_json_object('[1]')", "=f" },
    { "is_json_array(text)", "gateway", "SELECT holdpoint.is_json_array('[]')", Denied },
    { "is_json_array(text)", "reviewer", "SELECT holdpoint.is_json_array('[]')", Denied },
    { "is_json_array(text)", "owner", "SELECT holdpoint.is_json_array('[1]')", "=t" },
    { "audit_append(text,text,text)", "gateway",
        "SELECT holdpoint.audit_append('decision', 'G1', '{\"decided_by\":\"human:alice\"}')",
        Denied },
    { "audit_append(text,text,text)", "reviewer",
        "SELECT holdpoint.audit_append('vote', 'CB', '{\"reviewer\":\"alice\"}')", Denied },
    { "audit_append(text,text,text)", "owner",
        "SELECT holdpoint.audit_append('note', NULL, '{}') > 0", "=t" },
    { "audit_append_many(text,text[],text[])", "gateway",
        "SELECT holdpoint.audit_append_many('G1', ARRAY['decision'], ARRAY['{}'])", Denied },
    { "audit_append_many(text,text[],text[])", "reviewer",
        "SELECT holdpoint.audit_append_many('CB', ARRAY['vote'], ARRAY['{}'])", Denied },
    { "audit_append_many(text,text[],text[])", "owner",
        "SELECT holdpoint.audit_append_many(NULL, ARRAY['note'], ARRAY['{}']) > 0", "=t" },
    { "grant_roles()", "gateway", "SELECT holdpoint.grant_roles()", Denied },
    { "grant_roles()", "reviewer", "SELECT holdpoint.grant_roles()", Denied },
    { "grant_roles()", "owner", "SELECT holdpoint.grant_roles()", "ok" },
    { "with_fields(text,jsonb)", "gateway",
        "SELECT holdpoint.with_fields('{}', '{\"db_role\":\"x\"}')", Denied },
    { "with_fields(text,jsonb)", "reviewer",
        "SELECT holdpoint.with_fields('{}', '{\"db_role\":\"x\"}')", Denied },
    { "with_fields(text,jsonb)", "owner", "SELECT holdpoint.with_fields('{\"a\":1}', '{\"b\":2}')",
        "={\"a\":1,\"b\": 2}" },
    { "notify_new(text[])", "gateway", "SELECT holdpoint.notify_new(ARRAY['one'])", Denied },
    { "notify_new(text[])", "reviewer", "SELECT holdpoint.notify_new(ARRAY['one'])", Denied },
    { "notify_new(text[])", "owner", "SELECT holdpoint.notify_new(ARRAY['one'])", "ok" },
    { "check_escalated(text[])", "gateway", "SELECT holdpoint.check_escalated(ARRAY['{}'])",
        Denied },
    { "check_escalated(text[])", "reviewer", "SELECT holdpoint.check_escalated(ARRAY['{}'])",
        Denied },
    { "check_escalated(text[])", "owner",
        "SELECT holdpoint.check_escalated(ARRAY['{\"db_role\":\"alice_l\"}'])", Denied },
    { "fields_object(text)", "gateway", "SELECT holdpoint.fields_object('{}')", Denied },
    { "fields_object(text)", "reviewer", "SELECT holdpoint.fields_object('{}')", Denied },
    { "fields_object(text)", "owner", "SELECT holdpoint.fields_object('[1]')", "22023" },
    { "check_instance(text,boolean)", "gateway", "SELECT holdpoint.check_instance('G1', true)",
        Denied },
    { "check_instance(text,boolean)", "reviewer", "SELECT holdpoint.check_instance('CB', true)",
        Denied },
    { "check_instance(text,boolean)", "owner", "SELECT holdpoint.check_instance('G1', true)",
        Denied },
    { "register_instance(text,text,integer)", "gateway",
        "SELECT holdpoint.register_instance('G2', 'h', 5)", Denied },
    { "register_instance(text,text,integer)", "reviewer",
        "SELECT holdpoint.register_instance('CA', 'h', 5)", Denied },
    { "register_instance(text,text,integer)", "owner",
        "SELECT holdpoint.register_instance('G1', 'h', 5)", Denied },
    { "expire_items(text)", "gateway", "SELECT holdpoint.expire_items('G2')", Denied },
    { "expire_items(text)", "reviewer", "SELECT holdpoint.expire_items('CA')", Denied },
    { "expire_items(text)", "owner", "SELECT count(*) FROM holdpoint.expire_items('CO')", "=0" },
    { "check_copies(text,text[],text[])", "gateway",
        "SELECT holdpoint.check_copies('G1', ARRAY['call'], ARRAY['{\"gateway\":\"G1\"}'])",
        Denied },
    { "check_copies(text,text[],text[])", "reviewer",
        "SELECT holdpoint.check_copies('CB', ARRAY['call'], ARRAY['{\"gateway\":\"CB\"}'])",
        Denied },
    { "check_copies(text,text[],text[])", "owner",
        "SELECT holdpoint.check_copies('G1', ARRAY['call'], ARRAY['{\"gateway\":\"G1\"}'])",
        Denied },
    { "canonical_json(jsonb)", "gateway", "SELECT holdpoint.canonical_json('{}')", Denied },
    { "canonical_json(jsonb)", "reviewer", "SELECT holdpoint.canonical_json('{}')", Denied },
    { "canonical_json(jsonb)", "owner",
        "SELECT holdpoint.canonical_json('{\"b\": [1, {\"d\": \"\\u00e9\\n\", \"c\": null}], "
        "\"a\": \"x\"}')",
        "={\"a\":\"x\",\"b\":[1,{\"c\":null,\"d\":\"\xc3\xa9\\n\"}]}" },
    { "args_digest(text)", "gateway", "SELECT holdpoint.args_digest('{}')", Denied },
    { "args_digest(text)", "reviewer", "SELECT holdpoint.args_digest('{}')", Denied },
    // protocol::argsDigest({"target":"prod-p2"}), as consoles compute it.
    { "args_digest(text)", "owner", "SELECT holdpoint.args_digest('{\"target\": \"prod-p2\"}')",
        "=28af329428b17f5bb5386eb2e881ba843016194a86c50f2feb32d4aa25822a44" },
    { "login_names()", "gateway", "SELECT holdpoint.login_names()", Denied },
    { "login_names()", "reviewer", "SELECT holdpoint.login_names()", Denied },
    { "login_names()", "owner", "SELECT holdpoint.login_names()", "={olga}" },
    { "counted_votes(text,text,boolean)", "gateway",
        "SELECT holdpoint.counted_votes('two', 'x', false)", Denied },
    { "counted_votes(text,text,boolean)", "reviewer",
        "SELECT holdpoint.counted_votes('two', 'x', false)", Denied },
    { "counted_votes(text,text,boolean)", "owner",
        "SELECT holdpoint.counted_votes('two', 'x', false)", "={}" },
};

std::string loginOf(const std::string &seat)
{
    return seat == "gateway" ? TeamLogins::Gateway : seat == "reviewer" ? TeamLogins::Reviewer : "";
}

} // namespace

class tst_TeamPrivileges final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();

    void everyFunctionHasACaseForEverySeat();
    void eachCall_data();
    void eachCall();

private:
    TeamLogins m_team;
    int m_copies = 0;
};

void tst_TeamPrivileges::initTestCase()
{
    QVERIFY2(m_team.start(), qPrintable(m_team.lastError()));
}

void tst_TeamPrivileges::cleanup()
{
    m_team.drop();
}

void tst_TeamPrivileges::everyFunctionHasACaseForEverySeat()
{
    QVERIFY(m_team.fresh(QStringLiteral("catalog")));
    const Answer functions = m_team.as("",
        "SELECT substr(p.oid::regprocedure::text, length('holdpoint.') + 1)"
        " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname = 'holdpoint' ORDER BY 1");
    QVERIFY2(functions.ok(), functions.error.c_str());
    QVERIFY(functions.rows.size() > 30);
    std::map<std::string, std::set<std::string>> seats;
    for (const Case &c : Cases)
        seats[c.function].insert(c.seat);
    std::string missing;
    std::set<std::string> inSchema;
    for (const auto &row : functions.rows) {
        inSchema.insert(row[0]);
        for (const char *seat : { "gateway", "reviewer", "owner" })
            if (!seats[row[0]].count(seat))
                missing += "\n  " + row[0] + " as the " + seat;
    }
    QVERIFY2(missing.empty(),
        ("functions of the schema without a case in this suite:" + missing).c_str());
    // And no case names a function the schema does not have.
    for (const auto &[function, _] : seats)
        QVERIFY2(inSchema.count(function),
            ("a case for a function not in the schema: " + function).c_str());
}

void tst_TeamPrivileges::eachCall_data()
{
    QTest::addColumn<int>("index");
    int i = 0;
    for (const Case &c : Cases) {
        QTest::addRow("%s as %s #%d", c.function, c.seat, i) << i;
        ++i;
    }
}

void tst_TeamPrivileges::eachCall()
{
    QFETCH(int, index);
    const Case &c = Cases[index];
    QVERIFY(m_team.fresh(QStringLiteral("call%1").arg(++m_copies)));
    const Answer a = m_team.as(loginOf(c.seat), c.sql);
    const std::string expect = c.expect;
    if (expect == "ok") {
        QVERIFY2(a.ok(), (a.state + ": " + a.error).c_str());
    } else if (expect.rfind('=', 0) == 0) {
        QVERIFY2(a.ok(), (a.state + ": " + a.error).c_str());
        QCOMPARE(a.value(), expect.substr(1));
    } else {
        QVERIFY2(a.state == expect,
            ("expected SQLSTATE " + expect + ", got "
                + (a.ok() ? "success" : a.state + ": " + a.error))
                .c_str());
    }
    if (c.check)
        QCOMPARE(m_team.owner(c.check), std::string(c.checked));
    // Whatever the call did, the chain holds.
    QCOMPARE(m_team.owner(
                 "SELECT count(*) = (SELECT seq FROM holdpoint.audit_head) FROM holdpoint.audit"),
        std::string("t"));
}

QTEST_GUILESS_MAIN(tst_TeamPrivileges)
#include "tst_team_privileges.moc"
