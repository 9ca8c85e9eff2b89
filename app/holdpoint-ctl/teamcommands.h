// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

namespace holdpoint {

// The team URL from --team, else HOLDPOINT_TEAM_URL; empty: no team.
QString teamUrl(const QString &fromFlag);

// `holdpoint-ctl team init URL`: creates or migrates the team schema (and
// grants resources/team/roles.sql's roles what they may do). `args` starts
// with "team".
int runTeam(const QStringList &args, const QString &globalTeamUrl);

// `holdpoint-ctl --team URL pending|approve|deny|edit|halt`, against the
// team queue in PostgreSQL instead of a console's endpoint; the same
// options, output and exit codes. `args` starts with the command.
int runTeamReviewer(const QString &command, const QStringList &args, const QString &url);

} // namespace holdpoint
