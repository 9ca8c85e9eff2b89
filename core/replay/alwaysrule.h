// SPDX-License-Identifier: Apache-2.0
#pragma once

// "Always": a reviewer's decision turned into a policy rule (its shape is
// ruleshape.h), written to the user's policy file.

#include "common/json.h"
#include "queue/queueitem.h"

#include <QString>

#include <vector>

namespace holdpoint {

// Adds `rule` first in the rules guardrail named "console" (created first in
// the chain when missing) of the policy file at `path` (created when
// missing). The result must load as a policy on its own, or nothing is
// written; the file is replaced atomically, keeping its keys in order.
bool addRuleToPolicyFile(const QString &path, const Json &rule, QString *error);

// Past calls in the audit log at `auditDir` that `rule` would have matched,
// newest first: their call records, at most `limit`, among the newest
// `scanned` calls.
std::vector<Json> pastMatches(
    const QString &auditDir, const Json &rule, std::size_t limit = 50, std::size_t scanned = 5000);

} // namespace holdpoint
