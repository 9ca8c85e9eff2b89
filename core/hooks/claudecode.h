// SPDX-License-Identifier: Apache-2.0
#pragma once

// Claude Code's command hooks (resources/integrations/claude-code/README.md):
// the hook's JSON input in, protocol messages out, and the console's answer
// back into the JSON Claude Code reads. Pure functions, no I/O.

#include "hookinput.h"
#include "wire/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace holdpoint::claudecode {

inline constexpr std::size_t MaxHookInputBytes = hookinput::MaxBytes;

enum class Event
{
    PreToolUse,
    PostToolUse,
    PermissionRequest
};

struct HookInput
{
    Event event = Event::PreToolUse;
    std::string sessionId;
    std::string toolName;
    std::string toolUseId; // empty when Claude Code sent none
    Json toolInput = Json::object();
    std::optional<std::string> promptId; // the turn: Claude Code's prompt_id, Codex's turn_id
    Json context = Json::object(); // cwd, permission_mode, transcript_path, agent_type, ...
    Json toolResponse; // PostToolUse
    bool failed = false; // the tool reported an error
};

struct ParseResult
{
    std::optional<HookInput> input;
    std::string error;
};

// What differs between the agents that speak Claude Code's hook format
// (Codex copies it): the events they may send, the field naming the turn,
// and the fields kept as context.
struct Dialect
{
    std::string_view command; // for errors: `hook <command>`
    std::vector<std::pair<std::string_view, Event>> events; // hook_event_name -> event
    std::string_view turnKey;
    std::vector<std::string_view> contextKeys;
};

const Dialect &claudeCodeDialect();

// Unknown fields are ignored: Claude Code adds fields between versions.
ParseResult parseHookInput(std::string_view text, const Dialect &dialect = claudeCodeDialect());

// Whether a PostToolUse tool_response reports an error.
bool responseIsError(const Json &toolResponse);

// The protocol messages the hook sends.
Json toolCallMessage(const HookInput &input, const std::string &callId);
Json toolResultMessage(const HookInput &input, const std::string &callId);

// What the hook prints for the console's answer; empty prints nothing.
std::string preToolUseOutput(const Json &decision);
std::string postToolUseOutput(const Json &afterCall);

} // namespace holdpoint::claudecode
