// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace holdpoint {

// `holdpoint-ctl insights [--since T] [--data-dir DIR | --team URL] [--json]`:
// where reviewers' time goes, from the audit log (core/insights/INSIGHTS.md),
// read directly, with or without a console running. `args` starts with
// "insights". With a team URL, the team's audit table instead.
int runInsights(QStringList args, const QString &globalDataDir, const QString &teamUrl = {});

} // namespace holdpoint
