// SPDX-License-Identifier: Apache-2.0
#pragma once

// The team's audit table, read back: verified against its hash chain the
// way `holdpoint-ctl audit verify` checks the file log (AUDIT.md "Tamper
// evidence"), and searched with the file log's filter.

#include "audit/auditfile.h"
#include "audit/auditfilter.h"

#include <pqxx/connection>

#include <functional>

namespace holdpoint::team {

// Walks every line in `seq` order against audit_head. Names the first
// finding: an edited, deleted or reordered line (Tampered), or lines the
// head vouches for that are gone from the end (CutOff).
audit::VerifyReport verifyAudit(pqxx::connection_base &c);

// Calls `fn` with the lines that match, newest first, until it returns
// false or `limit` lines were given (0: no limit).
void queryAudit(pqxx::connection_base &c, const audit::Filter &filter, std::size_t limit,
    const audit::RecordFn &fn);

} // namespace holdpoint::team
