// SPDX-License-Identifier: Apache-2.0
#pragma once

// The team's statements (TEAM.md): one function call each, parameterised,
// on a connection the caller owns. Every state change is a function in the
// schema, so what a role may do is decided by the database, not here.
// These run on TeamConnection's worker thread, and directly in
// holdpoint-ctl, which may block.

#include "team/teamtypes.h"

#include <pqxx/connection>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace holdpoint::team {

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
// Appends `events` to the team audit; with `once`, a batch that committed
// before (a retry after a lost answer) appends nothing. Returns whether it
// appended.
bool appendAudit(pqxx::connection_base &c, const std::string &instance,
    const std::vector<AuditEvent> &events, const CopyBatch *once = nullptr);

std::vector<Row> pendingRows(pqxx::connection_base &c);
// Every gateway and console.
std::vector<InstanceState> instances(pqxx::connection_base &c);
// A gateway's current loop findings (a JSON array) for one of its turns,
// onto its pending items of that turn. Returns how many it changed.
int setTurnFindings(pqxx::connection_base &c, const std::string &gateway,
    const std::string &session, const std::optional<std::string> &turn,
    const std::string &findings);
// Whether the agent waiting for a gateway's pending item is connected now.
// False when nothing changed (already so, or the item is no longer pending).
bool setAgentConnected(
    pqxx::connection_base &c, const std::string &gateway, const std::string &id, bool connected);
// This instance's agent sessions, a JSON array, for every console's Agents view.
void publishAgents(
    pqxx::connection_base &c, const std::string &instance, const std::string &agents);
std::optional<Row> row(pqxx::connection_base &c, const std::string &id);
// Rows by id, in the order given; ids that are not there are left out.
std::vector<Row> rows(pqxx::connection_base &c, const std::vector<std::string> &ids);

} // namespace holdpoint::team
