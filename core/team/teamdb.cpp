// SPDX-License-Identifier: Apache-2.0
#include "teamdb.h"

#include <QFile>

#include <libpq-fe.h>
#include <pqxx/pqxx>

#include <sstream>
#include <unordered_map>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

namespace holdpoint::team {

namespace {

// Arbitrary, fixed: the key of the advisory lock migrations take.
constexpr long long MigrationLockKey = 0x486f6c64706f696eLL; // "Holdpoin"

// A version's SQL: schema/v<N>.sql, then its further parts v<N>-2.sql, ...
// when it is split along a seam (files stay under 800 lines).
std::string schemaFile(int version)
{
    std::string sql;
    for (int part = 1;; ++part) {
        QFile f(part == 1 ? QStringLiteral(":/holdpoint/team/v%1.sql").arg(version)
                          : QStringLiteral(":/holdpoint/team/v%1-%2.sql").arg(version).arg(part));
        if (!f.open(QIODevice::ReadOnly)) {
            if (part == 1)
                throw TeamError("team schema version " + std::to_string(version)
                    + " is missing from this build");
            return sql;
        }
        sql += f.readAll().toStdString();
        sql += '\n';
    }
}

// What roles.sql's roles may do (schema/grants.sql): one definition of
// grant_roles(), applied after every migration, whatever it came from.
std::string grantsFile()
{
    QFile f(QStringLiteral(":/holdpoint/team/grants.sql"));
    if (!f.open(QIODevice::ReadOnly))
        throw TeamError("the team schema's grants are missing from this build");
    return f.readAll().toStdString();
}

// Runs `fn`, turning libpqxx's exceptions into TeamError with a message
// for people. A lost connection is retryable; so are the states PostgreSQL
// uses for a server shutting down or starting (classes 08 and 57P).
template <typename Fn> auto guarded(pqxx::connection_base &c, const char *what, Fn &&fn)
{
    try {
        return fn();
    } catch (const pqxx::broken_connection &e) {
        throw TeamError(
            std::string(what) + ": lost the connection to the team database: " + e.what(), true);
    } catch (const pqxx::sql_error &e) {
        std::string state = e.sqlstate();
        // libpqxx 6.4 throws some SQLSTATEs as a subclass without the code.
        if (state.empty() && dynamic_cast<const pqxx::insufficient_privilege *>(&e))
            state = "42501";
        const bool retryable = !c.is_open() || state.rfind("08", 0) == 0
            || state.rfind("57P", 0) == 0 || state == "40001" || state == "40P01";
        // The server's text without its "ERROR:" label and the PL/pgSQL
        // CONTEXT lines (which function raised it is for us, not for the
        // person reading); the HINT stays, on the same line.
        std::string message;
        std::istringstream lines(e.what());
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("CONTEXT:", 0) == 0 || line.rfind("LINE ", 0) == 0
                || line.find_first_not_of(" ^") == std::string::npos)
                continue;
            if (line.rfind("ERROR:", 0) == 0)
                line.erase(0, line.find_first_not_of(' ', 6));
            else if (line.rfind("HINT:", 0) == 0)
                line = "; " + line.substr(line.find_first_not_of(' ', 5));
            else if (!message.empty())
                line = " " + line;
            message += line;
        }
        while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
            message.pop_back();
        if (state == "42501")
            message += " (the role lacks the privilege: see resources/team/roles.sql)";
        throw TeamError(std::string(what) + ": " + message, retryable, state);
    } catch (const pqxx::failure &e) {
        throw TeamError(std::string(what) + ": " + e.what(), !c.is_open());
    }
}

std::string text(const pqxx::field &f)
{
    return f.is_null() ? std::string() : f.as<std::string>();
}

TimeMs ms(const pqxx::field &f)
{
    return f.is_null() ? 0 : f.as<long long>();
}

// A nullable text parameter: libpq takes a null pointer as SQL NULL.
const char *optionalText(const std::optional<std::string> &s)
{
    return s ? s->c_str() : nullptr;
}

// A text[] parameter in PostgreSQL's array syntax: every element quoted,
// with backslash and double quote escaped (PostgreSQL "Array Value Input"),
// and SQL NULL for an element that has no value.
std::string arrayLiteral(const std::vector<std::optional<std::string>> &items)
{
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ',';
        if (!items[i]) {
            out += "NULL";
            continue;
        }
        out += '"';
        for (char ch : *items[i]) {
            if (ch == '"' || ch == '\\')
                out += '\\';
            out += ch;
        }
        out += '"';
    }
    out += '}';
    return out;
}

std::string arrayLiteral(const std::vector<std::string> &items)
{
    return arrayLiteral(std::vector<std::optional<std::string>>(items.begin(), items.end()));
}

constexpr char RowColumns[]
    = "SELECT i.id, i.gateway, i.host, i.session_id, i.call_id, i.turn_id, i.tool, i.item,"
      " (extract(epoch FROM i.created_at) * 1000)::bigint, (extract(epoch FROM i.deadline) * "
      "1000)::bigint,"
      " i.state, i.claimed_by, i.claim_name, (extract(epoch FROM i.claim_until) * 1000)::bigint,"
      " i.decision, i.review, i.reason, i.code, i.decided_by, (extract(epoch FROM i.decided_at) * "
      "1000)::bigint,"
      " i.decided_by_instance,"
      " coalesce(g.heartbeat_at > clock_timestamp() - holdpoint.heartbeat_stale(), false),"
      " (extract(epoch FROM clock_timestamp()) * 1000)::bigint, i.turn_findings,"
      " i.agent_connected,"
      " (SELECT json_agg(json_build_object('reviewer', v.reviewer, 'via', v.via, 'args', "
      "v.args::json,"
      "   'args_sha256', v.args_hash, 'edit', v.edit, 'at', (extract(epoch FROM v.at) * "
      "1000)::bigint)"
      "   ORDER BY v.at, v.reviewer) FROM holdpoint.votes v WHERE v.item_id = i.id),"
      " i.proposal"
      " FROM holdpoint.items i LEFT JOIN holdpoint.instances g ON g.id = i.gateway ";

Row toRow(const pqxx::row &r)
{
    Row row;
    row.id = text(r[0]);
    row.gateway = text(r[1]);
    row.host = text(r[2]);
    row.sessionId = text(r[3]);
    row.callId = text(r[4]);
    if (!r[5].is_null())
        row.turnId = text(r[5]);
    row.tool = text(r[6]);
    row.itemText = text(r[7]);
    row.createdAt = ms(r[8]);
    row.deadline = ms(r[9]);
    row.state = text(r[10]);
    row.claimedBy = text(r[11]);
    row.claimName = text(r[12]);
    row.claimUntil = ms(r[13]);
    row.decision = text(r[14]);
    row.reviewText = text(r[15]);
    row.reason = text(r[16]);
    row.code = text(r[17]);
    row.decidedBy = text(r[18]);
    row.decidedAt = ms(r[19]);
    row.decidedByInstance = text(r[20]);
    row.gatewayOnline = r[21].as<bool>();
    row.now = ms(r[22]);
    if (!r[23].is_null())
        row.turnFindingsText = text(r[23]);
    if (!r[24].is_null())
        row.agentConnected = r[24].as<bool>();
    row.votesText = r[25].is_null() ? std::string("[]") : text(r[25]);
    if (!r[26].is_null())
        row.proposalText = text(r[26]);
    return row;
}

} // namespace

void checkConnectionString(const std::string &url)
{
    char *err = nullptr;
    PQconninfoOption *options = PQconninfoParse(url.c_str(), &err);
    if (!options) {
        std::string message = err ? err : "out of memory";
        PQfreemem(err);
        while (!message.empty() && message.back() == '\n')
            message.pop_back();
        throw TeamError("the team URL is not a libpq connection string or URI: " + message);
    }
    bool hasPassword = false;
    for (PQconninfoOption *o = options; o->keyword; ++o) {
        if (std::string_view(o->keyword) == "password" && o->val && *o->val)
            hasPassword = true;
    }
    PQconninfoFree(options);
    if (hasPassword)
        throw TeamError(
            "the team URL holds a password, which would show in the process list and the shell's "
            "history: put it in ~/.pgpass (or the file PGPASSFILE names), or in PGPASSWORD");
    checkHostLists(url);
}

std::unique_ptr<pqxx::connection> connect(const std::string &url)
{
    checkConnectionString(url);
    // libpq waits for a TCP connect as long as the kernel does unless told.
    if (!std::getenv("PGCONNECT_TIMEOUT"))
        ::setenv("PGCONNECT_TIMEOUT", "10", 0);
    try {
        auto c = std::make_unique<pqxx::connection>(withTcpDefaults(url));
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        // A reconnect behind our back would lose LISTEN notifications
        // unseen; TeamConnection reconnects itself and reads the state again.
        c->inhibit_reactivation(true);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        return c;
    } catch (const pqxx::broken_connection &e) {
        std::string message = e.what();
        while (!message.empty() && message.back() == '\n')
            message.pop_back();
        throw TeamError("cannot connect to the team database: " + message, true);
    }
}

namespace {

// What the database says about its schema (TEAM.md "Versions").
struct SchemaState
{
    int version = 0; // the newest applied; 0: none
    int floor = 0; // holdpoint.schema_version: the newest that is not additive
    int newerMarked = 0; // versions above ours that say whether they are additive
    int newerNotAdditive = 0; // the first above ours that is not; 0: none
};

SchemaState readSchema(pqxx::transaction_base &tx)
{
    SchemaState s;
    const auto r = tx.exec("SELECT to_regclass('holdpoint.schema_version') IS NOT NULL,"
                           " to_regclass('holdpoint.schema_versions') IS NOT NULL");
    if (!r[0][0].as<bool>())
        return s;
    s.floor
        = tx.exec("SELECT coalesce(max(version), 0) FROM holdpoint.schema_version")[0][0].as<int>();
    s.version = s.floor;
    if (r[0][1].as<bool>()) {
        for (const auto &row :
            tx.exec("SELECT version, additive FROM holdpoint.schema_versions ORDER BY version")) {
            const int v = row[0].as<int>();
            s.version = std::max(s.version, v);
            if (v <= SchemaVersion)
                continue;
            ++s.newerMarked;
            if (!row[1].as<bool>() && !s.newerNotAdditive)
                s.newerNotAdditive = v;
        }
    }
    return s;
}

// A schema newer than this binary: refused unless every version above ours
// is marked additive, which an older instance can keep working against.
// Warns once per version on stderr, the instance's log.
void acceptNewer(const SchemaState &s)
{
    const std::string prefix = "the team database has schema version " + std::to_string(s.version)
        + ", newer than this holdpoint knows (" + std::to_string(SchemaVersion) + ")";
    if (s.floor > SchemaVersion || s.newerNotAdditive)
        throw TeamError(prefix + ", and version "
            + std::to_string(s.newerNotAdditive ? s.newerNotAdditive : s.floor)
            + " is not additive: upgrade holdpoint on this machine");
    if (s.newerMarked != s.version - SchemaVersion)
        throw TeamError(prefix
            + ", and it does not say whether every version since is additive: "
              "upgrade holdpoint on this machine");
    static std::atomic<int> warned { 0 };
    if (warned.exchange(s.version) != s.version)
        std::fprintf(stderr,
            "holdpoint: warning: %s; every version since is additive, so this holdpoint keeps "
            "working: upgrade it\n",
            prefix.c_str());
}

} // namespace

int schemaVersion(pqxx::connection_base &c)
{
    return guarded(c, "reading the team schema version", [&] {
        pqxx::nontransaction tx(c);
        return readSchema(tx).version;
    });
}

int migrate(pqxx::connection_base &c)
{
    // The common case, a schema already current, takes no lock.
    const SchemaState found = guarded(c, "reading the team schema version", [&] {
        pqxx::nontransaction tx(c);
        return readSchema(tx);
    });
    if (found.version > SchemaVersion)
        acceptNewer(found);
    if (found.version >= SchemaVersion)
        return found.version;
    return guarded(c, "creating the team schema", [&] {
        pqxx::work tx(c);
        tx.exec_params("SELECT pg_advisory_xact_lock($1)", MigrationLockKey);
        const auto enc = tx.exec("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE "
                                 "datname = current_database()");
        if (enc[0][0].as<std::string>() != "UTF8")
            throw TeamError("the team database must use the UTF8 encoding (it uses "
                + enc[0][0].as<std::string>()
                + "): create it with `createdb -E UTF8 -T template0`");
        const SchemaState now = readSchema(tx);
        const int version = now.version;
        if (version > SchemaVersion)
            acceptNewer(now);
        if (version >= SchemaVersion)
            return version; // another instance migrated while we waited
        const bool hasSchema
            = tx.exec(
                    "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'holdpoint')")[0][0]
                  .as<bool>();
        if (version == 0 && hasSchema)
            throw TeamError(
                "the database has a schema named holdpoint that holdpoint did not create: "
                "use another database, or drop that schema");
        const bool mayCreate
            = tx.exec("SELECT has_database_privilege(current_database(), 'CREATE')")[0][0]
                  .as<bool>();
        const bool owns = version == 0
            || tx.exec("SELECT pg_has_role(nspowner, 'USAGE') FROM pg_namespace WHERE nspname = "
                       "'holdpoint'")[0][0]
                   .as<bool>();
        if (!owns)
            throw TeamError("the team schema is version " + std::to_string(version)
                + " and this holdpoint needs version " + std::to_string(SchemaVersion) + "; role "
                + tx.exec("SELECT session_user")[0][0].as<std::string>()
                + " may not upgrade it: run `holdpoint-ctl team init URL` as the database's owner");
        if (version == 0 && !mayCreate)
            throw TeamError("the team schema is not there yet, and role "
                + tx.exec("SELECT session_user")[0][0].as<std::string>()
                + " may not create it: run `holdpoint-ctl team init URL` as the database's owner");
        for (int v = version + 1; v <= SchemaVersion; ++v) {
            tx.exec(schemaFile(v));
            // Versions from 4 on mark themselves in schema_versions; only one
            // that is not additive moves schema_version, which instances from
            // before that table read.
            bool additive = false;
            if (v >= 4) {
                const auto mark = tx.exec_params(
                    "SELECT additive FROM holdpoint.schema_versions WHERE version = $1", v);
                if (mark.empty())
                    throw TeamError("team schema version " + std::to_string(v)
                        + " in this build does not say whether it is additive");
                additive = mark[0][0].as<bool>();
            }
            if (v > 1 && !additive)
                tx.exec_params("UPDATE holdpoint.schema_version SET version = $1", v);
        }
        tx.exec(grantsFile());
        tx.exec("SELECT holdpoint.grant_roles()");
        tx.commit();
        return SchemaVersion;
    });
}

TimeMs heartbeat(pqxx::connection_base &c, const Instance &self)
{
    return guarded(c, "heartbeat", [&] {
        pqxx::nontransaction tx(c);
        // Version 4's overload says which notifications this instance reads.
        const auto r = self.knows >= 4
            ? tx.exec_params("SELECT (extract(epoch FROM holdpoint.heartbeat($1, $2, $3, "
                             "$4, $5, $6, $7)) * 1000)::bigint",
                self.id, self.kind, self.host, self.label, self.reviewer,
                static_cast<long long>(self.graceMs), self.knows)
            : tx.exec_params("SELECT (extract(epoch FROM holdpoint.heartbeat($1, $2, $3, "
                             "$4, $5, $6)) * 1000)::bigint",
                self.id, self.kind, self.host, self.label, self.reviewer,
                static_cast<long long>(self.graceMs));
        return ms(r[0][0]);
    });
}

namespace {

Escalated escalateIn(pqxx::transaction_base &tx, const Escalation &e)
{
    const auto r = tx.exec_params("SELECT state, created FROM holdpoint.escalate($1, $2, $3, "
                                  "$4, $5, $6, $7, $8, $9, $10)",
        e.id, e.gateway, e.host, e.sessionId, e.callId, optionalText(e.turnId), e.tool,
        dumpJson(e.item), static_cast<long long>(e.waitMs), dumpJson(e.audit));
    return Escalated { text(r[0][0]), r[0][1].as<bool>() };
}

} // namespace

Escalated escalate(pqxx::connection_base &c, const Escalation &e)
{
    return guarded(c, "escalating to the team", [&] {
        pqxx::nontransaction tx(c);
        return escalateIn(tx, e);
    });
}

namespace {

// Calls [from, to) of one gateway in one escalate_batch statement.
void escalateRun(pqxx::transaction_base &tx, const std::vector<Escalation> &batch, std::size_t from,
    std::size_t to, std::vector<Escalated> &out)
{
    // Each array holds one element per call, passed as one parameter in
    // PostgreSQL's array syntax.
    std::vector<std::string> ids, sessions, calls, tools, items, audits;
    std::vector<std::optional<std::string>> turns;
    std::string waits = "{";
    for (std::size_t i = from; i < to; ++i) {
        const Escalation &e = batch[i];
        ids.push_back(e.id);
        sessions.push_back(e.sessionId);
        calls.push_back(e.callId);
        turns.push_back(e.turnId);
        tools.push_back(e.tool);
        items.push_back(dumpJson(e.item));
        audits.push_back(dumpJson(e.audit));
        if (waits.size() > 1)
            waits += ',';
        waits += std::to_string(static_cast<long long>(e.waitMs));
    }
    waits += '}';
    tx.conn().prepare("holdpoint_escalate_batch",
        "SELECT id, state, created FROM holdpoint.escalate_batch($1, $2, $3::text[], "
        "$4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])");
    const auto r = tx.exec_prepared("holdpoint_escalate_batch", batch[from].gateway,
        batch[from].host, arrayLiteral(ids), arrayLiteral(sessions), arrayLiteral(calls),
        arrayLiteral(turns), arrayLiteral(tools), arrayLiteral(items), waits, arrayLiteral(audits));
    if (r.size() != to - from)
        throw TeamError(std::to_string(r.size()) + " answers for " + std::to_string(to - from)
            + " escalated calls");
    for (std::size_t i = 0; i < r.size(); ++i) {
        if (text(r[int(i)][0]) != batch[from + i].id)
            throw TeamError("the answers to a batch of escalations are out of order");
        out.push_back(Escalated { text(r[int(i)][1]), r[int(i)][2].as<bool>() });
    }
}

} // namespace

std::vector<Escalated> escalate(pqxx::connection_base &c, const std::vector<Escalation> &batch)
{
    if (batch.empty())
        return {};
    return guarded(c, "escalating to the team", [&] {
        // One statement per gateway in the batch (TeamStore's are all its
        // own), one commit and one notification (escalate_batch, version 4).
        constexpr std::size_t MaxRun = 10'000;
        pqxx::work tx(c);
        std::vector<Escalated> out;
        out.reserve(batch.size());
        std::size_t from = 0;
        for (std::size_t i = 1; i <= batch.size(); ++i) {
            if (i < batch.size() && i - from < MaxRun && batch[i].gateway == batch[from].gateway
                && batch[i].host == batch[from].host)
                continue;
            escalateRun(tx, batch, from, i, out);
            from = i;
        }
        tx.commit();
        return out;
    });
}

std::vector<Escalated> escalateEach(pqxx::connection_base &c, const std::vector<Escalation> &batch)
{
    return guarded(c, "escalating to the team", [&] {
        pqxx::work tx(c);
        std::vector<Escalated> out;
        out.reserve(batch.size());
        for (const Escalation &e : batch)
            out.push_back(escalateIn(tx, e));
        tx.commit();
        return out;
    });
}

Decided decide(pqxx::connection_base &c, const Decide &d)
{
    return guarded(c, "deciding in the team", [&] {
        pqxx::nontransaction tx(c);
        const std::optional<std::string> args
            = d.args.is_object() ? std::optional<std::string>(dumpJson(d.args)) : std::nullopt;
        const std::optional<std::string> scope = d.scope.empty() || d.scope == "call"
            ? std::nullopt
            : std::optional<std::string>(d.scope);
        const auto r = tx.exec_params(
            "SELECT outcome, reviewer, decided_by, (extract(epoch FROM decided_at) * 1000)::bigint,"
            " holder, state, decided_by_instance, approvals, required, message, decision"
            " FROM holdpoint.review($1, $2, $3, $4, $5, $6, $7, $8)",
            d.id, d.instance, d.reviewer, d.via, d.action, optionalText(args), optionalText(scope),
            d.reason);
        Decided out;
        const std::string outcome = text(r[0][0]);
        out.outcome = outcome == "decided" ? Decided::Outcome::Decided
            : outcome == "voted"           ? Decided::Outcome::Voted
            : outcome == "refused"         ? Decided::Outcome::Refused
            : outcome == "already_decided" ? Decided::Outcome::AlreadyDecided
            : outcome == "claimed"         ? Decided::Outcome::Claimed
                                           : Decided::Outcome::UnknownItem;
        out.reviewer = text(r[0][1]);
        out.decidedBy = text(r[0][2]);
        out.decidedAt = ms(r[0][3]);
        out.holder = text(r[0][4]);
        out.state = text(r[0][5]);
        out.decidedByInstance = text(r[0][6]);
        out.approvals = r[0][7].is_null() ? 0 : r[0][7].as<int>();
        out.required = r[0][8].is_null() ? 0 : r[0][8].as<int>();
        out.message = text(r[0][9]);
        out.decision = text(r[0][10]);
        return out;
    });
}

ReviewerSelf reviewerForLogin(pqxx::connection_base &c, const std::string &requested)
{
    return guarded(c, "finding this login's reviewer", [&] {
        pqxx::nontransaction tx(c);
        const pqxx::result r
            = tx.exec_params("SELECT name, coalesce(os_user, '') FROM holdpoint.reviewers "
                             "WHERE name = holdpoint.reviewer_for_login($1)",
                requested);
        if (r.empty())
            throw TeamError("no reviewer for this login");
        return ReviewerSelf { text(r[0][0]), text(r[0][1]) };
    });
}

void addReviewer(pqxx::connection_base &c, const std::string &name, const std::string &login,
    const std::string &osUser)
{
    guarded(c, "adding a reviewer", [&] {
        pqxx::work tx(c);
        tx.exec_params("SELECT holdpoint.reviewer_add($1, $2, $3)", name, login, osUser);
        tx.commit();
        return 0;
    });
}

std::vector<ReviewerEntry> reviewers(pqxx::connection_base &c)
{
    return guarded(c, "listing reviewers", [&] {
        pqxx::nontransaction tx(c);
        std::vector<ReviewerEntry> out;
        const auto rows = tx.exec("SELECT r.name, r.os_user, r.disabled,"
                                  " coalesce((SELECT string_agg(l.login, ' ' ORDER BY l.login) "
                                  "FROM holdpoint.reviewer_logins l"
                                  "           WHERE l.name = r.name), '')"
                                  " FROM holdpoint.reviewers r ORDER BY r.name");
        for (const auto &row : rows) {
            ReviewerEntry e { text(row[0]), text(row[1]), row[2].as<bool>(), {} };
            const QStringList logins
                = QString::fromStdString(text(row[3])).split(u' ', Qt::SkipEmptyParts);
            for (const QString &l : logins)
                e.logins.push_back(l.toStdString());
            out.push_back(std::move(e));
        }
        return out;
    });
}

bool disableReviewer(pqxx::connection_base &c, const std::string &name)
{
    return guarded(c, "disabling a reviewer", [&] {
        pqxx::work tx(c);
        const bool done
            = tx.exec_params("SELECT holdpoint.reviewer_disable($1)", name)[0][0].as<bool>();
        tx.commit();
        return done;
    });
}

std::vector<std::string> actingReviewers(pqxx::connection_base &c)
{
    return guarded(c, "listing whom this login may decide as", [&] {
        pqxx::nontransaction tx(c);
        // The same rows reviewer_for_login() reads, so the page admits
        // exactly the names review() would accept from this login.
        const pqxx::result r
            = tx.exec("SELECT r.name FROM holdpoint.reviewer_logins l"
                      " JOIN holdpoint.reviewers r ON r.name = l.name"
                      " WHERE l.login = session_user AND NOT r.disabled ORDER BY r.name");
        std::vector<std::string> names;
        for (const auto &row : r)
            names.push_back(text(row[0]));
        return names;
    });
}

Claimed claim(pqxx::connection_base &c, const std::string &id, const std::string &instance,
    const std::string &reviewer, TimeMs leaseMs)
{
    return guarded(c, "claiming a team item", [&] {
        pqxx::nontransaction tx(c);
        const auto r = tx.exec_params("SELECT held, holder, (extract(epoch FROM until) * "
                                      "1000)::bigint, state FROM holdpoint.claim($1, $2, $3, $4)",
            id, instance, reviewer, static_cast<long long>(leaseMs));
        return Claimed { r[0][0].as<bool>(), text(r[0][1]), ms(r[0][2]), text(r[0][3]) };
    });
}

bool release(pqxx::connection_base &c, const std::string &id, const std::string &instance)
{
    return guarded(c, "releasing a team item", [&] {
        pqxx::nontransaction tx(c);
        return tx.exec_params("SELECT holdpoint.release($1, $2)", id, instance)[0][0].as<bool>();
    });
}

Withdrawn withdraw(pqxx::connection_base &c, const Withdraw &w)
{
    return guarded(c, "ending a team item", [&] {
        pqxx::nontransaction tx(c);
        const auto r = tx.exec_params(
            "SELECT withdrawn, state FROM holdpoint.withdraw($1, $2, $3, $4, $5, $6)", w.id,
            w.gateway, w.state, w.code, w.reason, w.decidedBy);
        if (r.empty())
            return Withdrawn {};
        return Withdrawn { r[0][0].as<bool>(), text(r[0][1]) };
    });
}

std::vector<std::string> expireDue(pqxx::connection_base &c, const std::string &instance)
{
    return guarded(c, "expiring team items", [&] {
        pqxx::nontransaction tx(c);
        std::vector<std::string> ids;
        for (const auto &r : tx.exec_params("SELECT holdpoint.expire_due($1)", instance))
            ids.push_back(text(r[0]));
        return ids;
    });
}

bool appendAudit(pqxx::connection_base &c, const std::string &instance,
    const std::vector<AuditEvent> &events, const CopyBatch *once)
{
    if (events.empty())
        return false;
    return guarded(c, "copying records to the team audit", [&] {
        // Two text arrays, each passed as one parameter in PostgreSQL's
        // array syntax, escaped by libpqxx.
        std::vector<std::string> names;
        std::vector<std::string> fields;
        names.reserve(events.size());
        fields.reserve(events.size());
        for (const auto &e : events) {
            names.push_back(e.event);
            fields.push_back(dumpJson(e.fields));
        }
        pqxx::nontransaction tx(c);
        if (once)
            return !tx.exec_params("SELECT holdpoint.append_audit_once($1, $2, $3, $4::text[], "
                                   "$5::text[])",
                          instance, once->run, once->batch, arrayLiteral(names),
                          arrayLiteral(fields))[0][0]
                        .is_null();
        tx.exec_params("SELECT holdpoint.append_audit($1, $2::text[], $3::text[])", instance,
            arrayLiteral(names), arrayLiteral(fields));
        return true;
    });
}

std::vector<Row> pendingRows(pqxx::connection_base &c)
{
    return guarded(c, "reading the team queue", [&] {
        pqxx::nontransaction tx(c);
        std::vector<Row> out;
        for (const auto &r : tx.exec(
                 std::string(RowColumns) + "WHERE i.state = 'pending' ORDER BY i.created_at, i.id"))
            out.push_back(toRow(r));
        return out;
    });
}

std::vector<InstanceState> instances(pqxx::connection_base &c)
{
    return guarded(c, "reading the team's instances", [&] {
        pqxx::nontransaction tx(c);
        std::vector<InstanceState> out;
        for (const auto &r : tx.exec(
                 "SELECT id, host, heartbeat_at > clock_timestamp() - holdpoint.heartbeat_stale(),"
                 " agents FROM holdpoint.instances"))
            out.push_back({ text(r[0]), text(r[1]), r[2].as<bool>(), text(r[3]) });
        return out;
    });
}

int setTurnFindings(pqxx::connection_base &c, const std::string &gateway,
    const std::string &session, const std::optional<std::string> &turn, const std::string &findings)
{
    return guarded(c, "sharing a turn's loop findings", [&] {
        pqxx::nontransaction tx(c);
        return tx
            .exec_params("SELECT holdpoint.set_turn_findings($1, $2, $3, $4)", gateway, session,
                optionalText(turn), findings)[0][0]
            .as<int>();
    });
}

bool setAgentConnected(
    pqxx::connection_base &c, const std::string &gateway, const std::string &id, bool connected)
{
    return guarded(c, "sharing an agent's connection", [&] {
        pqxx::nontransaction tx(c);
        return tx
            .exec_params(
                "SELECT holdpoint.set_agent_connected($1, $2, $3)", gateway, id, connected)[0][0]
            .as<bool>();
    });
}

void publishAgents(pqxx::connection_base &c, const std::string &instance, const std::string &agents)
{
    guarded(c, "publishing this instance's agents", [&] {
        pqxx::nontransaction tx(c);
        tx.exec_params("SELECT holdpoint.publish_agents($1, $2)", instance, agents);
    });
}

std::optional<Row> row(pqxx::connection_base &c, const std::string &id)
{
    auto found = rows(c, { id });
    if (found.empty())
        return std::nullopt;
    return std::move(found.front());
}

std::vector<Row> rows(pqxx::connection_base &c, const std::vector<std::string> &ids)
{
    if (ids.empty())
        return {};
    return guarded(c, "reading team items", [&] {
        pqxx::nontransaction tx(c);
        // Prepared once per connection: consoles run it for every batch of
        // notifications, and parsing and planning it each time cost more
        // than reading the rows. `= ANY` keeps the generic plan on the
        // primary key whatever the number of ids; the order is put back here.
        c.prepare("holdpoint_rows", std::string(RowColumns) + "WHERE i.id = ANY ($1::text[])");
        std::unordered_map<std::string, Row> found;
        for (const auto &r : tx.exec_prepared("holdpoint_rows", arrayLiteral(ids))) {
            Row row = toRow(r);
            std::string id = row.id;
            found.emplace(std::move(id), std::move(row));
        }
        std::vector<Row> out;
        out.reserve(found.size());
        for (const std::string &id : ids)
            if (auto it = found.find(id); it != found.end()) {
                out.push_back(std::move(it->second));
                found.erase(it);
            }
        return out;
    });
}

} // namespace holdpoint::team
