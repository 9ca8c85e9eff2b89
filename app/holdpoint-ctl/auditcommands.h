// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace holdpoint {

// `holdpoint-ctl audit verify|query|export`: read the audit log directly,
// with or without a console running. `args` starts with "audit". With a
// team URL, verify and query read the team's audit table instead.
int runAudit(QStringList args, const QString &globalDataDir, const QString &teamUrl = {});

} // namespace holdpoint
