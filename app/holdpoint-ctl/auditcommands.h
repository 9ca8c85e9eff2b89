#pragma once

#include <QStringList>

namespace holdpoint {

// `holdpoint-ctl audit verify|query|export`: read the audit log directly,
// with or without a console running. `args` starts with "audit".
int runAudit(QStringList args, const QString &globalDataDir);

} // namespace holdpoint
