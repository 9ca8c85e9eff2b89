// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

namespace holdpoint::ctl {

// holdpoint-ctl --help: every command, the global options, the exit codes.
extern const char *const Usage;

// `holdpoint-ctl COMMAND... --help`: the entries of Usage for the command
// that `words` (the command line's leading words) name, under a usage line;
// empty when they name none.
QString commandUsage(const QStringList &words);

} // namespace holdpoint::ctl
