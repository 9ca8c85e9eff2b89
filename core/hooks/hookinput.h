// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the agent CLIs' command hooks have in common (Claude Code's and Gemini
// CLI's): one JSON object on stdin naming a session, a tool and its input.
// Pure functions, no I/O.

#include "wire/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint::hookinput {

inline constexpr std::size_t MaxBytes = 16 * 1024 * 1024;

std::optional<std::string> stringField(const Json &o, const char *key);

// The hook input as a JSON object: at most MaxBytes, strict JSON (see
// parseStrictJson), an object. On failure returns false with a message that
// starts with "hook input".
bool parseObject(std::string_view text, Json *doc, std::string *error);

struct ToolFields
{
    std::string sessionId;
    std::string toolName;
    Json toolInput = Json::object(); // absent or null: {}
};

// session_id (a protocol id), tool_name (1 to 256 bytes) and tool_input (an
// object, absent or null meaning {}). False with a message naming the field.
bool readToolFields(const Json &doc, ToolFields *out, std::string *error);

// The events one hook command handles: `named` (named in the error
// messages, e.g. PreToolUse and PostToolUse), `alsoAccepted` (variants not
// named), and the hook's name in holdpoint-ctl (`hook <command>`).
struct Events
{
    std::vector<std::string_view> named;
    std::string_view command;
    std::vector<std::string_view> alsoAccepted = {};
};

struct Parsed
{
    Json doc;
    std::string event; // one of `events`
    ToolFields fields;
};

// parseObject(), then hook_event_name (one of `events`), then readToolFields().
bool parse(std::string_view text, const Events &events, Parsed *out, std::string *error);

// Copies the keys of `doc` that hold strings into `into`.
void copyStrings(const Json &doc, const std::vector<std::string_view> &keys, Json *into);

// The tool_result message for the call `callId`: its response, compacted.
Json toolResultMessage(const std::string &callId, bool failed, const Json &response);

// Whether a tool's response reports an error: is_error or isError true,
// success false, or an error that is not null, false or "".
bool responseIsError(const Json &toolResponse);

} // namespace holdpoint::hookinput
