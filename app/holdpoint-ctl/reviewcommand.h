// SPDX-License-Identifier: Apache-2.0
#pragma once

// The command lines holdpoint-ctl's reviewer commands share, whether they
// go to one console's endpoint or to the team's database: `pending
// [--json]`, `approve|halt ID [--reason TEXT]`, `deny ID --reason TEXT`,
// `edit ID --args JSON [--reason TEXT]`.

#include "common/json.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

// A JSON option's value (--args, --context...): strict parsing, the
// protocol's depth limit, and, with `requireObject`, an object only.
std::optional<Json> parseJsonOption(
    const QString &text, const char *what, bool requireObject, QString *error);

struct ReviewCommand
{
    bool pending = false;
    bool json = false; // pending --json
    // The rest: {"type":"review","id","action", "reason" when given, "args" for edit}.
    Json review;
    // --reviewer NAME, else $HOLDPOINT_REVIEWER: which of the names the
    // login maps to (team); empty: its only one.
    std::string reviewer;
};

// `args` starts with the program and the command. On a usage error:
// nullopt, with `error` saying what; `pendingHint` is how to list the ids.
std::optional<ReviewCommand> parseReviewCommand(
    const QString &command, const QStringList &args, const QString &pendingHint, QString *error);

// A pending item as `holdpoint-ctl pending` prints it: id, `where` (the
// team's host, or empty), agent, tool and arguments on one line, shown as
// a person may see them (common/visibletext.h: hidden and look-alike
// characters as ⟨U+XXXX⟩), then a warning line when they hide any.
std::vector<std::string> pendingLines(const Json &item, const std::string &where);

} // namespace holdpoint
