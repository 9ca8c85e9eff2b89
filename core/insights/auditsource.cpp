// SPDX-License-Identifier: Apache-2.0
#include "auditsource.h"

#include "audit/auditfile.h"

namespace holdpoint::insights {

std::uint64_t addAuditDir(const QString &auditDir, Builder &builder)
{
    std::uint64_t read = 0;
    // The rules added are few, and found by a needle search of every file.
    audit::Filter added;
    added.event = "policy_rule_added";
    audit::query(auditDir, added, 0, [&](std::string_view, const Json &r) {
        builder.add(r);
        return true;
    });
    const TimeMs since = builder.since();
    // A file last written before the window holds nothing in it.
    audit::forEachRecord(
        auditDir,
        [&](std::string_view, const Json &r) {
            ++read;
            // The rules added came first, above.
            if (r.value("event", std::string()) != "policy_rule_added")
                builder.add(r);
            return true;
        },
        since > 0 ? since : 0);
    return read;
}

} // namespace holdpoint::insights
