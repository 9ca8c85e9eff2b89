// SPDX-License-Identifier: Apache-2.0
#pragma once

// The team's values: what goes to the database and what comes back, with
// no PostgreSQL driver in sight, so that the queue, its link (teamlink.h)
// and a fake of it in the tests compile without libpqxx.

#include "common/clock.h"
#include "common/json.h"

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

// Who a login decides as (reviewerForLogin).
struct ReviewerSelf
{
    std::string name;
    std::string osUser;
};

// A batch of copied records named for append_audit_once (schema 4): a run
// (random, one per process) and a number that grows with each batch.
struct CopyBatch
{
    std::string run;
    long long batch = 0;
};

// A gateway or console, as the instances table shows it.
struct InstanceState
{
    std::string id;
    std::string host;
    bool online = false; // its heartbeat is fresh
    std::string agents; // what it published: a JSON array
};

// How a connection behaves (TeamConnection, TEAM.md "Threads and
// connections").
struct ConnectionOptions
{
    bool migrate = true; // create or migrate the schema on every open
    TimeMs minBackoffMs = 100;
    TimeMs maxBackoffMs = 5'000;
    // How long a statement may go unanswered before the connection counts
    // as lost (AnswerDeadline); with the heartbeat every 2 s, an idle
    // connection that went silent is noticed within 7 s.
    TimeMs answerTimeoutMs = 5'000;
};

// A line of the team's audit table (teamactivity.h).
struct AuditLine
{
    long long seq = 0;
    std::string instance; // who wrote it
    std::string line;
};

struct AuditRead
{
    long long from = -1; // the seq the lines follow
    bool forked = false; // the line last read is not there any more: read from `from`
    std::vector<AuditLine> lines;
};

} // namespace holdpoint::team
