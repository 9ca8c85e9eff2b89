// SPDX-License-Identifier: Apache-2.0
#pragma once

// What team-mode tests share: a fresh team database on a PgCluster, its
// schema created by the real `holdpoint-ctl team init`, with the cluster's
// admin login mapped to the reviewers the test needs; and the options that
// join a `holdpoint` to a team.

#include "common/consoleprocess.h"
#include "common/pgcluster.h"

#include <QProcess>
#include <QStringList>

namespace holdpoint::test {

// `--team URL`, and `--reviewer NAME` when one is given.
inline QStringList teamArgs(const QString &url, const QString &reviewer = {})
{
    QStringList a { QStringLiteral("--team"), url };
    if (!reviewer.isEmpty())
        a << QStringLiteral("--reviewer") << reviewer;
    return a;
}

// Creates database `name` on `pg`, runs `holdpoint-ctl team init` on it and
// maps the admin login to `reviewers`. Returns its URL; empty, with `error`
// saying why, when a step failed.
inline QString createTeamDatabase(
    PgCluster &pg, const QString &name, const QStringList &reviewers, QString *error)
{
    if (!pg.createDatabase(name)) {
        *error = pg.lastError();
        return {};
    }
    const QString url = pg.connString(name);
    QProcess ctl;
    ctl.start(
        QStringLiteral(HOLDPOINT_CTL_BIN), { QStringLiteral("team"), QStringLiteral("init"), url });
    const CtlResult init = finish(ctl);
    if (init.exitCode != 0) {
        *error = QStringLiteral("team init: ") + QString::fromUtf8(init.err);
        return {};
    }
    if (!pg.psql(name, PgCluster::mapReviewersSql(pg.adminUser(), reviewers))) {
        *error = pg.lastError();
        return {};
    }
    return url;
}

// `holdpoint-ctl --team URL ARGS`, run as `reviewer` when one is given and
// the environment names none (a login that maps to several reviewers says
// which one it is). A run that did not end is said on the test's log.
inline CtlResult teamCtl(const QString &url, const QStringList &args, const QString &reviewer = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!reviewer.isEmpty() && !env.contains(QStringLiteral("HOLDPOINT_REVIEWER")))
        env.insert(QStringLiteral("HOLDPOINT_REVIEWER"), reviewer);
    p.setProcessEnvironment(env);
    p.start(
        QStringLiteral(HOLDPOINT_CTL_BIN), QStringList { QStringLiteral("--team"), url } + args);
    CtlResult r = finish(p);
    if (r.exitCode == -1)
        qWarning("holdpoint-ctl %s: %s (exit status %d, code %d, signal or error: %s)",
            qPrintable(args.join(QLatin1Char(' '))), r.err.constData(), int(p.exitStatus()),
            p.exitCode(), qPrintable(p.errorString()));
    return r;
}

} // namespace holdpoint::test
