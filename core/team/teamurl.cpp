// SPDX-License-Identifier: Apache-2.0
// A multi-host team URL (TEAM.md "Failover"): libpq pairs its host, hostaddr
// and port lists only when it connects, so a mismatch would fail every
// reconnect the same way. It is refused before the first one instead.

#include "teamdb.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace holdpoint::team {

namespace {

// A comma-separated list's length; 0 when unset.
std::size_t listLength(const char *value)
{
    if (!value || !*value)
        return 0;
    return 1 + std::size_t(std::count(value, value + std::strlen(value), ','));
}

} // namespace

void checkHostLists(const std::string &url)
{
    PQconninfoOption *options = PQconninfoParse(url.c_str(), nullptr);
    if (!options)
        return; // checkConnectionString says why
    std::size_t hosts = 0, addresses = 0, ports = 0;
    for (PQconninfoOption *o = options; o->keyword; ++o) {
        const std::string_view key(o->keyword);
        if (key == "host")
            hosts = listLength(o->val);
        else if (key == "hostaddr")
            addresses = listLength(o->val);
        else if (key == "port")
            ports = listLength(o->val);
    }
    PQconninfoFree(options);
    if (hosts && addresses && hosts != addresses)
        throw TeamError("the team URL names " + std::to_string(hosts) + " hosts and "
            + std::to_string(addresses) + " host addresses (hostaddr): give one address per host");
    const std::size_t servers = std::max({ hosts, addresses, std::size_t(1) });
    if (ports > 1 && ports != servers)
        throw TeamError("the team URL names " + std::to_string(ports) + " ports for "
            + std::to_string(servers) + " hosts: give one port for all of them, or one per host");
}

} // namespace holdpoint::team
