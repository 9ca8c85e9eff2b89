// SPDX-License-Identifier: Apache-2.0
#pragma once

// The team's statements (TEAM.md): one function call each, parameterised,
// on a connection the caller owns. Every state change is a function in the
// schema, so what a role may do is decided by the database, not here.
// These run on TeamConnection's worker thread, and directly in
// holdpoint-ctl, which may block.

#include "common/clock.h"
#include "common/json.h"

#include <pqxx/connection>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace holdpoint::team {

// A failure the user can act on: the message says what and what to do.
// `retryable` is true for a lost or refused connection, where the same
// statement may work once the database is back.
class TeamError : public std::runtime_error
{
public:
    TeamError(const std::string &message, bool retryable = false, std::string sqlState = {})
        : std::runtime_error(message)
        , m_retryable(retryable)
        , m_sqlState(std::move(sqlState))
    { }
    bool retryable() const { return m_retryable; }
    const std::string &sqlState() const { return m_sqlState; }

private:
    bool m_retryable;
    std::string m_sqlState;
};

// The LISTEN channel; payloads are "<kind> <item id>", and "new-batch <id>
// <id> ..." for several new items (TEAM.md "Notifications").
inline constexpr char NotifyChannel[] = "holdpoint";

// The team schema version this build creates and speaks (schema/v<N>.sql).
inline constexpr int SchemaVersion = 6;

struct Instance
{
    std::string id;
    std::string kind; // gateway or console
    std::string host;
    std::string label;
    std::string reviewer;
    TimeMs graceMs = 60'000;
    // The newest schema version it knows. Below 4 it heartbeats and escalates
    // as version 3 did, reading one id per `new` notification (the bench's
    // baseline, and the tests of a fleet in the middle of an upgrade).
    int knows = SchemaVersion;
};

struct Escalation
{
    std::string id;
    std::string gateway;
    std::string host;
    std::string sessionId;
    std::string callId;
    std::optional<std::string> turnId;
    std::string tool;
    Json item; // as reviewers see it, secrets masked (itemToJson)
    TimeMs waitMs = 0; // until the deadline, from now
    Json audit; // the fields of its `escalated` record
};

struct Escalated
{
    std::string state; // pending, or what the item ended as
    bool created = false;
};

// A reviewer's answer, to holdpoint.review() (TEAM.md "Approvals"). It
// carries the action and its arguments only: the database derives who
// decides from the login (`reviewer` only picks among the names the login
// maps to), and computes the votes, the quorum, the decision, the review
// text the gateway applies, and the audit lines.
struct Decide
{
    std::string id;
    std::string instance;
    std::string reviewer; // empty: the login's only name
    std::string via; // how the reviewer authenticated, for the record
    std::string action; // approve, edit, deny, halt
    // edit: the arguments to run (masked). approve: the arguments the
    // reviewer was shown (masked), refused if they no longer stand; null:
    // whatever stands.
    Json args;
    std::string scope; // call (empty), turn or session
    std::string reason;
};

struct Decided
{
    enum class Outcome
    {
        Decided,
        Voted, // counted; the item waits for more approvals
        Refused, // not counted: `message` says why
        AlreadyDecided,
        Claimed,
        UnknownItem
    };
    Outcome outcome = Outcome::UnknownItem;
    std::string reviewer; // the name the login decided as
    std::string decidedBy;
    TimeMs decidedAt = 0; // ms since the epoch, the database's clock
    std::string holder; // Claimed: the reviewer holding the lease
    std::string state;
    std::string decidedByInstance;
    int approvals = 0;
    int required = 0;
    std::string message;
    std::string decision; // Decided, AlreadyDecided: what the database decided
};

struct Claimed
{
    bool held = false;
    std::string holder;
    TimeMs until = 0;
    std::string state; // empty: no such item
};

struct Withdraw
{
    std::string id;
    std::string gateway;
    std::string state; // cancelled, abandoned, unavailable, timed_out
    std::string code;
    std::string reason;
    std::string decidedBy; // the gateway's own: timeout, agent, team (never a person)
};

struct Withdrawn
{
    bool withdrawn = false;
    std::string state; // afterwards; empty: no such item
};

// One row of the team queue.
struct Row
{
    std::string id;
    std::string gateway;
    std::string host;
    std::string sessionId;
    std::string callId;
    std::optional<std::string> turnId;
    std::string tool;
    std::string itemText; // exactly as stored
    TimeMs createdAt = 0;
    TimeMs deadline = 0;
    std::string state;
    std::string claimedBy;
    std::string claimName;
    TimeMs claimUntil = 0;
    std::string decision;
    std::string reviewText;
    std::string reason;
    std::string code;
    std::string decidedBy;
    TimeMs decidedAt = 0;
    std::string decidedByInstance;
    bool gatewayOnline = false; // its heartbeat is fresh
    TimeMs now = 0; // the database's clock when read
    std::optional<std::string> turnFindingsText; // newer than those in itemText
    std::optional<bool> agentConnected; // newer than itemText's agent_connected
    std::string votesText; // a JSON array as protocol::votesToJson writes it
    std::optional<std::string> proposalText; // the latest edit's review, args masked
};

struct ReviewerEntry
{
    std::string name;
    std::string osUser;
    bool disabled = false;
    std::vector<std::string> logins;
};

struct AuditEvent
{
    std::string event;
    Json fields;
};

// Rejects a connection string that holds a password (it would show in
// `ps` and in shell history); the error names .pgpass, PGPASSFILE and
// PGPASSWORD instead. Also rejects what libpq cannot parse.
void checkConnectionString(const std::string &url);
// Rejects a multi-host URL whose host, hostaddr and port lists do not pair
// up (teamurl.cpp); checkConnectionString() calls it.
void checkHostLists(const std::string &url);
// `url` with the TCP keepalive and tcp_user_timeout defaults that connect()
// adds for what the URL does not set (teamurl.cpp).
std::string withTcpDefaults(const std::string &url);
// A transaction this session leaves idle (its client silenced mid-way) is
// ended by the server after `idleMs`, with its locks, unless the role or the
// database sets idle_in_transaction_session_timeout itself. Without it, a
// transaction cut off between a statement and its COMMIT holds its row locks
// until the server's own keepalives give up, about two hours by default.
void limitIdleTransactions(pqxx::connection_base &c, TimeMs idleMs);

// Opens a connection, with a connect timeout of 10 s unless the string or
// PGCONNECT_TIMEOUT sets one, and TCP keepalives (idle 5 s, every 2 s, 3
// probes) and tcp_user_timeout (10 s) unless the string sets them or names
// a service (TEAM.md "Connecting"). Throws TeamError.
std::unique_ptr<pqxx::connection> connect(const std::string &url);

// Creates or migrates the schema (schema/*.sql), under an advisory lock so
// instances starting together do not race. A schema newer than this binary
// is accepted, with a warning on stderr, only if every version above
// SchemaVersion is marked additive (TEAM.md "Versions"). Returns the
// version now in place.
int migrate(pqxx::connection_base &c);
// The schema version the database has (the newest applied): 0 when there
// is none.
int schemaVersion(pqxx::connection_base &c);

TimeMs heartbeat(pqxx::connection_base &c, const Instance &self);
Escalated escalate(pqxx::connection_base &c, const Escalation &e);
// Several of one gateway's in one statement (escalate_batch): one commit,
// so a burst costs one WAL flush, and one notification. Any error rolls
// back all of them.
std::vector<Escalated> escalate(pqxx::connection_base &c, const std::vector<Escalation> &batch);
// The same as version 3 wrote them: one statement and one `new`
// notification per call, in one transaction.
std::vector<Escalated> escalateEach(pqxx::connection_base &c, const std::vector<Escalation> &batch);
Decided decide(pqxx::connection_base &c, const Decide &d);
// Who the calling login decides as, `requested` (empty: its only name)
// checked against the reviewers table; a TeamError says why not.
struct ReviewerSelf
{
    std::string name;
    std::string osUser;
};
ReviewerSelf reviewerForLogin(pqxx::connection_base &c, const std::string &requested);
// The database owner's: map a login to a reviewer (created, or enabled
// again), list them, disable one (false: no such enabled reviewer).
void addReviewer(pqxx::connection_base &c, const std::string &name, const std::string &login,
    const std::string &osUser);
std::vector<ReviewerEntry> reviewers(pqxx::connection_base &c);
bool disableReviewer(pqxx::connection_base &c, const std::string &name);
// Every enabled reviewer the calling login (session_user) may decide as,
// sorted: whom a reviewer page on this instance may admit (WEB.md).
std::vector<std::string> actingReviewers(pqxx::connection_base &c);
Claimed claim(pqxx::connection_base &c, const std::string &id, const std::string &instance,
    const std::string &reviewer, TimeMs leaseMs);
bool release(pqxx::connection_base &c, const std::string &id, const std::string &instance);
Withdrawn withdraw(pqxx::connection_base &c, const Withdraw &w);
// Ends every item past its deadline, or whose gateway is gone past its
// grace period. Returns the ids it ended.
std::vector<std::string> expireDue(pqxx::connection_base &c, const std::string &instance);
// A batch of copied records named for append_audit_once (schema 4): a run
// (random, one per process) and a number that grows with each batch.
struct CopyBatch
{
    std::string run;
    long long batch = 0;
};
// Appends `events` to the team audit; with `once`, a batch that committed
// before (a retry after a lost answer) appends nothing. Returns whether it
// appended.
bool appendAudit(pqxx::connection_base &c, const std::string &instance,
    const std::vector<AuditEvent> &events, const CopyBatch *once = nullptr);

std::vector<Row> pendingRows(pqxx::connection_base &c);
struct InstanceState
{
    std::string id;
    std::string host;
    bool online = false; // its heartbeat is fresh
    std::string agents; // what it published: a JSON array
};
// Every gateway and console.
std::vector<InstanceState> instances(pqxx::connection_base &c);
// A gateway's current loop findings (a JSON array) for one of its turns,
// onto its pending items of that turn. Returns how many it changed.
int setTurnFindings(pqxx::connection_base &c, const std::string &gateway, const std::string &session,
    const std::optional<std::string> &turn, const std::string &findings);
// Whether the agent waiting for a gateway's pending item is connected now.
// False when nothing changed (already so, or the item is no longer pending).
bool setAgentConnected(
    pqxx::connection_base &c, const std::string &gateway, const std::string &id, bool connected);
// This instance's agent sessions, a JSON array, for every console's Agents view.
void publishAgents(pqxx::connection_base &c, const std::string &instance, const std::string &agents);
std::optional<Row> row(pqxx::connection_base &c, const std::string &id);
// Rows by id, in the order given; ids that are not there are left out.
std::vector<Row> rows(pqxx::connection_base &c, const std::vector<std::string> &ids);

} // namespace holdpoint::team
