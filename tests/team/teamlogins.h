// SPDX-License-Identifier: Apache-2.0
#pragma once

// A team database as attackers meet it (SECURITY.md "Team mode"): a real
// PostgreSQL (PgCluster) with the schema, resources/team/roles.sql, and one
// login per seat, each calling the schema's functions over its own libpq
// connection, as `psql` would.
//
// Logins and what they own, in a template database that each test copies:
// - gw1 (holdpoint_gateway): instance G1, holding items `one` (one person),
//   `two` (two people, requester dave) and `excl` (two people,
//   exclude_requester, requester eve1);
// - gw2 (holdpoint_gateway): instance G2, holding item `g2item`;
// - alice_l, bob_l (holdpoint_reviewer): reviewers alice and bob, consoles CA
//   and CB;
// - eve_l (holdpoint_reviewer): one login mapped to eve1 and eve2, console CE;
// - the owner (the cluster's admin): reviewer olga, console CO.

#include "common/pgcluster.h"
#include "team/teamdb.h"

#include <libpq-fe.h>

#include <QtTest>

#include <string>
#include <vector>

namespace holdpoint::test {

// What one statement did: the SQLSTATE it failed with (empty: it ran), the
// server's message, and the rows, each column as text ("" for NULL).
struct Answer
{
    std::string state;
    std::string error;
    std::vector<std::vector<std::string>> rows;

    bool ok() const { return state.empty(); }
    // The first row's first column, or the error.
    std::string value() const
    {
        if (!ok())
            return "ERROR " + state + ": " + error;
        return rows.empty() || rows[0].empty() ? std::string() : rows[0][0];
    }
};

class TeamLogins final
{
public:
    static constexpr const char *Gateway = "gw1";
    static constexpr const char *Reviewer = "bob_l";

    PgCluster pg;

    // The cluster, the logins and the template database.
    bool start()
    {
        if (!pg.start())
            return fail(pg.lastError());
        if (!pg.createDatabase(QStringLiteral("tmpl")))
            return fail(pg.lastError());
        try {
            auto c = team::connect(pg.connString(QStringLiteral("tmpl")).toStdString());
            team::migrate(*c);
        } catch (const std::exception &e) {
            return fail(QString::fromUtf8(e.what()));
        }
        if (!pg.psqlFile(QStringLiteral("tmpl"),
                QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/team/roles.sql")))
            return fail(pg.lastError());
        const char *setup = R"SQL(
CREATE ROLE gw1 LOGIN IN ROLE holdpoint_gateway;
CREATE ROLE gw2 LOGIN IN ROLE holdpoint_gateway;
CREATE ROLE alice_l LOGIN IN ROLE holdpoint_reviewer;
CREATE ROLE bob_l LOGIN IN ROLE holdpoint_reviewer;
CREATE ROLE eve_l LOGIN IN ROLE holdpoint_reviewer;
SELECT holdpoint.reviewer_add('alice', 'alice_l', ''), holdpoint.reviewer_add('bob', 'bob_l', ''),
       holdpoint.reviewer_add('eve1', 'eve_l', ''), holdpoint.reviewer_add('eve2', 'eve_l', ''),
       holdpoint.reviewer_add('dave', '', ''), holdpoint.reviewer_add('olga', session_user, '');
)SQL";
        if (!pg.psql(QStringLiteral("tmpl"), QString::fromLatin1(setup)))
            return fail(pg.lastError());
        const std::pair<const char *, const char *> instances[]
            = { { "gw1", "G1" }, { "gw2", "G2" }, { "alice_l", "CA" }, { "bob_l", "CB" },
                  { "eve_l", "CE" }, { "", "CO" } };
        for (const auto &[login, id] : instances)
            if (!must("tmpl", login,
                    "SELECT holdpoint.heartbeat('" + std::string(id) + "', 'gateway', 'host-" + id
                        + "', '', '', 3600000, 5)"))
                return false;
        const auto item = [](const char *id, const char *json) {
            return "SELECT * FROM holdpoint.escalate('" + std::string(id)
                + "', 'G1', 'host-G1', 's1', 'call-" + id + "', 't1', 'Bash', '" + json
                + "', 3600000, '{\"item\":\"" + id + "\"}')";
        };
        return must("tmpl", "gw1", item("one", R"({"args":{"target":"prod-1"}})"))
            && must("tmpl", "gw1",
                item("two",
                    R"({"approvals":{"required":2},"args":{"target":"prod-p2"},"requester":"dave"})"))
            && must("tmpl", "gw1",
                item("excl",
                    R"({"approvals":{"exclude_requester":true,"required":2},"args":{"target":"x"},"requester":"eve1"})"))
            && must("tmpl", "gw2",
                "SELECT * FROM holdpoint.escalate('g2item', 'G2', 'host-G2', 's9', 'call-g2', "
                "NULL, 'Bash', "
                "'{\"args\":{\"target\":\"g2\"}}', 3600000, '{\"item\":\"g2item\"}')");
    }

    // A fresh copy of the template: every test starts from the same state.
    bool fresh(const QString &name)
    {
        m_db = name;
        return pg.psql(QStringLiteral("postgres"),
                   QStringLiteral("DROP DATABASE IF EXISTS %1").arg(name))
            && pg.psql(QStringLiteral("postgres"),
                QStringLiteral("CREATE DATABASE %1 TEMPLATE tmpl").arg(name));
    }
    void drop()
    {
        pg.psql(QStringLiteral("postgres"),
            QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(m_db));
    }

    // One statement as `login` ("" or "owner": the database's owner) on its
    // own libpq connection to the current copy.
    Answer as(const std::string &login, const std::string &sql) const
    {
        return exec(m_db.toStdString(), login, sql);
    }
    // As the owner, the first column of the first row (or the error).
    std::string owner(const std::string &sql) const { return as("", sql).value(); }

    QString lastError() const { return m_error; }

private:
    Answer exec(const std::string &db, const std::string &login, const std::string &sql) const
    {
        const QString user
            = login.empty() || login == "owner" ? QString() : QString::fromStdString(login);
        const std::string conninfo = pg.connString(QString::fromStdString(db), user).toStdString();
        Answer a;
        PGconn *c = PQconnectdb(conninfo.c_str());
        if (PQstatus(c) != CONNECTION_OK) {
            a.state = "08000";
            a.error = PQerrorMessage(c);
            PQfinish(c);
            return a;
        }
        PGresult *r = PQexec(c, sql.c_str());
        const ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
            for (int i = 0; i < PQntuples(r); ++i) {
                std::vector<std::string> row;
                for (int j = 0; j < PQnfields(r); ++j)
                    row.emplace_back(PQgetisnull(r, i, j) ? "" : PQgetvalue(r, i, j));
                a.rows.push_back(std::move(row));
            }
        } else {
            const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
            const char *message = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
            a.state = state ? state : "XX000";
            a.error = message ? message : PQerrorMessage(c);
        }
        PQclear(r);
        PQfinish(c);
        return a;
    }
    bool must(const char *db, const std::string &login, const std::string &sql)
    {
        const Answer a = exec(db, login, sql);
        return a.ok() || fail(QString::fromStdString("as " + login + ": " + sql + ": " + a.error));
    }
    bool fail(const QString &why)
    {
        m_error = why;
        return false;
    }

    QString m_db;
    QString m_error;
};

} // namespace holdpoint::test
