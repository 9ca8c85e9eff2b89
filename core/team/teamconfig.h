// SPDX-License-Identifier: Apache-2.0
#pragma once

// How an instance joins its team (holdpoint --team): no PostgreSQL driver
// here, so its users compile without libpqxx.

#include "team/teamtypes.h"

#include <string>

namespace holdpoint::team {

struct TeamConfig
{
    std::string url;
    Instance self; // id, kind, host, label, reviewer, grace
    // The reviewer name asked for with --reviewer or $HOLDPOINT_REVIEWER;
    // empty: the login's only one. The database decides who it is.
    std::string requestedReviewer;
    TimeMs heartbeatMs = 2'000; // also how often due items are expired
    TimeMs leaseMs = 15'000; // the editor lease; renewed every third of it
    ConnectionOptions connection;
};

} // namespace holdpoint::team
