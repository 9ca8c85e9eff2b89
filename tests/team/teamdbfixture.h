// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the suites of the team schema share (tst_teamdb, tst_teamdbaudit):
// one PostgreSQL cluster per suite (tests/common/pgcluster.h), a fresh
// database per test, and the rows their statements take.

#include "common/pgcluster.h"
#include "team/teamdb.h"

#include <QtTest>

#include <pqxx/pqxx>

#include <memory>
#include <string>

namespace holdpoint::test {

// Each suite's initTestCase, init and cleanup call startCluster,
// newDatabase and dropDatabase.
class TeamDbFixture
{
protected:
    void startCluster()
    {
        QVERIFY2(m_pg.start(PgCluster::Options { false, true }), qPrintable(m_pg.lastError()));
    }
    void newDatabase()
    {
        m_db = QStringLiteral("team%1").arg(++m_databases);
        QVERIFY2(m_pg.createDatabase(m_db), qPrintable(m_pg.lastError()));
    }
    void dropDatabase() { m_pg.dropDatabase(m_db); }

    std::string url(const QString &user = {}) const
    {
        return m_pg.connString(m_db, user).toStdString();
    }
    std::unique_ptr<pqxx::connection> open(const QString &user = {}) const
    {
        auto c = team::connect(url(user));
        team::migrate(*c);
        if (user.isEmpty()) {
            pqxx::nontransaction tx(*c);
            tx.exec(PgCluster::mapReviewersSql(m_pg.adminUser(),
                { QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol") })
                        .toStdString());
        }
        return c;
    }
    bool admin(const QString &sql, QString *out = nullptr)
    {
        const bool ok = m_pg.psql(m_db, sql, out);
        if (!ok)
            qWarning("%s", qPrintable(m_pg.lastError()));
        return ok;
    }
    static team::Escalation escalation(const std::string &id, const std::string &gateway = "gw-a",
        const std::string &call = {}, TimeMs waitMs = 300'000)
    {
        team::Escalation e;
        e.id = id;
        e.gateway = gateway;
        e.host = "host-" + gateway;
        e.sessionId = "s1";
        e.callId = call.empty() ? "call-" + id : call;
        e.tool = "Bash";
        e.item
            = Json { { "id", id }, { "tool_name", "Bash" }, { "args", { { "command", "ls" } } } };
        e.waitMs = waitMs;
        e.audit = Json { { "item", id }, { "tool", "Bash" } };
        return e;
    }
    static team::Decide decision(const std::string &id, const std::string &instance,
        const std::string &reviewer, const std::string &kind = "allow")
    {
        team::Decide d;
        d.id = id;
        d.instance = instance;
        d.reviewer = reviewer;
        d.via = "test";
        d.action = kind == "allow" ? "approve" : kind == "modify" ? "edit" : kind;
        if (kind == "modify")
            d.args = Json { { "command", "ls -la" } };
        d.reason = "by " + reviewer;
        return d;
    }
    static team::Instance gateway(const std::string &id)
    {
        return team::Instance { id, "gateway", "host-" + id, {}, {}, 60'000 };
    }

    PgCluster m_pg;
    QString m_db;
    int m_databases = 0;
};

} // namespace holdpoint::test
