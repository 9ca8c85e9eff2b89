#pragma once

// What the agent CLIs' command hooks have in common (Claude Code's and Gemini
// CLI's): one JSON object on stdin naming a session, a tool and its input.
// Pure functions, no I/O.

#include "common/json.h"

#include <optional>
#include <string>
#include <string_view>

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

// Whether a tool's response reports an error: is_error or isError true,
// success false, or an error that is not null, false or "".
bool responseIsError(const Json &toolResponse);

} // namespace holdpoint::hookinput
