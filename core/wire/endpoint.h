// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a client needs to reach the console, read from its data directory
// (endpoint.json, reviewer.token), without Qt. client/endpointinfo.h gives
// the same to Qt clients, read by this code.

#include <cstdint>
#include <string>

namespace holdpoint::wire {

inline constexpr char EndpointFileName[] = "endpoint.json";
inline constexpr char ReviewerTokenFileName[] = "reviewer.token";

struct Endpoint
{
    std::string url; // ws://host:port[/path]
    std::string agentToken;
    std::string reviewerToken; // empty unless asked for and readable
    std::int64_t pid = 0;
};

// A ws:// URL's parts. The console listens on loopback, so there is no TLS.
struct WsUrl
{
    std::string host;
    int port = 80;
    std::string path = "/";
};
bool parseWsUrl(const std::string &url, WsUrl *out);

// Reads endpoint.json (and reviewer.token when `withReviewer`) from `dataDir`.
// On failure returns false with a message a person can act on, and *absent
// (when given) says whether endpoint.json does not exist at all: no console
// was started on this data directory (wire/failopen.h, Outage).
bool readEndpoint(const std::string &dataDir, bool withReviewer, Endpoint *out, std::string *error,
    bool *absent = nullptr);

} // namespace holdpoint::wire
