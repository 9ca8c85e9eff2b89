// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a client without Qt needs of protocol v1 (core/protocol/PROTOCOL.md):
// the limits it checks before sending, ids, a tool's result as tool_result
// carries it, and the hello. The console's side of the same rules is
// core/protocol (protocol.h), which uses these: one definition of each.

#include "wire/json.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace holdpoint::wire {

inline constexpr int ProtocolVersion = 1;
// "Limits"
inline constexpr std::size_t MaxDepth = 64;
inline constexpr std::size_t MaxIdLength = 256;
inline constexpr std::size_t MaxToolNameLength = 256;
inline constexpr std::size_t MaxNameLength = 256; // agent.name, agent.framework
// "welcome": the console's limit on one message when it does not say
// (max_message_bytes), its --max-message-bytes default.
inline constexpr std::int64_t DefaultMaxMessageBytes = 1024 * 1024;
inline constexpr std::size_t MaxResultBytes = 256 * 1024;

// True for printable ids: no control characters, 1..MaxIdLength bytes.
bool isValidId(std::string_view id);

// True for a name the console takes in the hello (agent.name): 1..MaxNameLength bytes.
bool isValidName(std::string_view name);

// A tool's result as sent in tool_result: as it is when small, otherwise a
// digest (after-call checks compare results, so equal results still compare
// equal) that keeps the message far below the console's size limit.
Json compactResult(const Json &result, std::size_t maxBytes = MaxResultBytes);

// What a client can take ("hello", capabilities): an absent capability is
// one the client supports, so clients from before this field take all.
struct Capabilities
{
    bool modify = true; // edited arguments in an allow
    bool halt = true; // a halt that stops its run
    bool all() const { return modify && halt; }
    bool operator==(const Capabilities &) const = default;
};

// As the hello, the audit log and the queue's JSON write them: only what the
// client cannot take, so all-capable is `{}`.
Json capabilitiesToJson(const Capabilities &capabilities);

// Who says hello: the agent (or the reviewer client) and where it runs.
struct Hello
{
    std::string role = "agent"; // "agent" or "reviewer"
    std::string token;
    std::string agentName;
    std::string framework; // empty: not sent
    std::string user; // agents only; empty: this process's OS user
    Capabilities capabilities {};
    std::optional<std::string> sessionId;
};

// The hello message ("hello"): only what the client cannot take goes in
// capabilities, and an agent says which OS user started it.
Json helloMessage(const Hello &hello);

} // namespace holdpoint::wire
