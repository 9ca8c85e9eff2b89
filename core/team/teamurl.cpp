// SPDX-License-Identifier: Apache-2.0
// What a team connection is opened with, beyond what its URL says:
// - a multi-host URL (TEAM.md "Failover") whose host, hostaddr and port
//   lists do not pair up is refused before the first connect, since libpq
//   pairs them only when it connects and every reconnect would fail alike;
// - TCP keepalives and tcp_user_timeout, unless the URL sets them;
// - a server-side limit on a transaction left idle (TEAM.md "Threads and
//   connections").

#include "teamdb.h"

#include <libpq-fe.h>
#include <pqxx/pqxx>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>

namespace holdpoint::team {

namespace {

// A comma-separated list's length; 0 when unset.
std::size_t listLength(const char *value)
{
    if (!value || !*value)
        return 0;
    return 1 + std::size_t(std::count(value, value + std::strlen(value), ','));
}

// libpq leaves a TCP link's liveness to the kernel's defaults (a first
// keepalive after two hours) unless told. These notice a dead idle link in
// 5 + 3 x 2 = 11 s, and end one whose sent data goes unacknowledged for
// 10 s: a backstop behind the 5 s answer deadline (TeamConnection), which
// covers a link that acknowledges but never answers. Unix sockets ignore them.
constexpr std::pair<const char *, const char *> TcpDefaults[] = {
    { "keepalives", "1" },
    { "keepalives_idle", "5" },
    { "keepalives_interval", "2" },
    { "keepalives_count", "3" },
    { "tcp_user_timeout", "10000" },
};

// `url` with TcpDefaults added for what it does not set. The string itself
// is kept, whatever its form (key=value, a URI, several hosts), and only
// appended to; a URL that names a service leaves them to the service file.
} // namespace

std::string withTcpDefaults(const std::string &url)
{
    char *err = nullptr;
    PQconninfoOption *options = PQconninfoParse(url.c_str(), &err);
    if (!options) {
        PQfreemem(err);
        return url; // checkConnectionString has said why
    }
    std::set<std::string> given;
    for (PQconninfoOption *o = options; o->keyword; ++o)
        if (o->val)
            given.insert(o->keyword);
    PQconninfoFree(options);
    if (given.count("service") || std::getenv("PGSERVICE"))
        return url;
    const bool uri = url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
    std::string out = url;
    for (const auto &[key, value] : TcpDefaults) {
        if (given.count(key))
            continue;
        if (uri)
            out += std::string(out.find('?') == std::string::npos   ? "?"
                           : out.back() == '?' || out.back() == '&' ? ""
                                                                    : "&")
                + key + "=" + value;
        else
            out += std::string(" ") + key + "=" + value;
    }
    return out;
}

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

void limitIdleTransactions(pqxx::connection_base &c, TimeMs idleMs)
{
    try {
        pqxx::nontransaction tx(c);
        tx.exec_params("SELECT set_config('idle_in_transaction_session_timeout', $1, false) "
                       "WHERE current_setting('idle_in_transaction_session_timeout') = '0'",
            std::to_string(idleMs));
    } catch (const pqxx::broken_connection &e) {
        throw TeamError(std::string("lost the connection to the team database: ") + e.what(), true);
    } catch (const pqxx::failure &e) {
        throw TeamError(std::string("setting up the team connection: ") + e.what(), !c.is_open());
    }
}

} // namespace holdpoint::team
