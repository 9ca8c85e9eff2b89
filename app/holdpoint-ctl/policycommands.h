// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace holdpoint {

// `holdpoint-ctl policy replay|suggest` (core/replay/REPLAY.md):
// offline, reading policy files and the audit log, with or without a
// console running. `args` starts with "policy". With a team URL, replay
// and suggest read the team's audit table instead of the local log.
int runPolicy(QStringList args, const QString &globalDataDir, const QString &teamUrl = {});

} // namespace holdpoint
