// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one fail-open rule of every C++ client (the hooks, mcp-proxy,
// holdpoint-ctl submit), and how long a client waits for a console that
// says nothing: core/protocol/PROTOCOL.md, "When the console cannot be
// asked". Python (holdpoint/client.py, fails_open) and TypeScript
// (src/errors.ts, failsOpen) name the same rule once each.

#include <cstdint>
#include <cstdlib>
#include <string>

namespace holdpoint::wire {

// Why a call got no decision from the console.
enum class Outage
{
    NoEndpointFile, // endpoint.json does not exist: no console was started here
    ConnectionRefused, // nothing listens on the endpoint's port (connect(2): ECONNREFUSED)
    Other, // anything else: something answered, or went quiet, or the call was sent
};

// Fail-open lets a call through only when no console can be reached for
// that call at all. Everything else blocks, with or without fail-open: a
// refusal of any kind (connection_limit, which an agent can cause, and
// auth_failed too), anything that is not a well-formed welcome (a port
// squatter), silence, a connection broken or closed after the call was
// sent (an agent can kill the console), and a call too large or unreadable.
constexpr bool failOpenLetsThrough(Outage outage)
{
    return outage == Outage::NoEndpointFile || outage == Outage::ConnectionRefused;
}

// How long a client waits without hearing anything from the console (no
// message, no pong to its pings) before it denies the call it waits on: a
// console stopped (SIGSTOP, a debugger) or a listener that never answers.
// HOLDPOINT_SILENCE_MS overrides it (tests use a short one).
inline constexpr std::int64_t DefaultSilenceMs = 10'000;

inline std::int64_t silenceBoundMs()
{
    if (const char *v = std::getenv("HOLDPOINT_SILENCE_MS"); v && *v) {
        char *end = nullptr;
        const long long ms = std::strtoll(v, &end, 10);
        if (end && *end == '\0' && ms >= 100 && ms <= 3'600'000)
            return ms;
    }
    return DefaultSilenceMs;
}

// Pings go out this often while a client waits, so a live console is
// heard several times within one silence bound.
inline std::int64_t pingIntervalMs(std::int64_t silenceMs)
{
    return silenceMs / 4;
}

} // namespace holdpoint::wire
