// SPDX-License-Identifier: Apache-2.0
#pragma once

// Records for the figures from a data directory's audit log. The team's
// audit table feeds a Builder the same way from the side that links the
// database (holdpoint-ctl), so the figures never depend on PostgreSQL.

#include "insights/insights.h"

#include <QString>

namespace holdpoint::insights {

// Adds the records of the log in `auditDir` from the builder's `since` on,
// and every "always" rule the whole log saw added (they name the rules
// that decide later calls). Returns how many records were read.
std::uint64_t addAuditDir(const QString &auditDir, Builder &builder);

} // namespace holdpoint::insights
