// SPDX-License-Identifier: Apache-2.0
#pragma once

// Gemini CLI's BeforeAgent, BeforeTool and AfterTool command hooks
// (resources/integrations/gemini/README.md): the hook's JSON input in,
// protocol messages out, and the console's answer back into the JSON Gemini
// CLI reads. Pure functions, no I/O.

#include "wire/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace holdpoint::gemini {

// BeforeAgent (once per prompt) starts a turn; it names no tool.
enum class Event
{
    BeforeTool,
    AfterTool,
    BeforeAgent
};

struct HookInput
{
    Event event = Event::BeforeTool;
    std::string sessionId;
    std::string toolName;
    Json toolInput = Json::object();
    Json context = Json::object(); // cwd, transcript_path, mcp_context, original_request_name
    Json toolResponse; // AfterTool: llmContent, returnDisplay, error
    bool failed = false; // AfterTool: the tool reported an error
};

struct ParseResult
{
    std::optional<HookInput> input;
    std::string error;
};

// Unknown fields are ignored: Gemini CLI adds fields between versions.
ParseResult parseHookInput(std::string_view text);

// Whether an AfterTool tool_response reports a failure: an `error`, or for
// run_shell_command an "Exit Code: N" line (N != 0) in llmContent, which is
// the only place the shell tool reports its exit status.
bool responseFailed(const std::string &toolName, const Json &toolResponse);

// The protocol messages the hook sends.
// `turnId`: the turn the BeforeAgent hook started (ledgerTurn), if any.
Json toolCallMessage(const HookInput &input, const std::string &callId,
    const std::optional<std::string> &turnId = std::nullopt);
Json toolResultMessage(const HookInput &input, const std::string &callId);

// The hook's answer (printed as one line) for the console's decision on a
// call whose model arguments were `modelArgs`.
Json beforeToolAnswer(const Json &decision, const Json &modelArgs);
// What the hook prints for the console's after-call verdict; empty prints nothing.
std::string afterToolOutput(const Json &afterCall);

// Gemini CLI gives a hook no id for the call, so the BeforeTool hook notes
// each call it let run, and the AfterTool hook finds the call_id there by
// tool name and arguments (the model's or the approved ones). The ledger is
// a JSON object: {"calls":[{"call_id","tool_name","args":[...],"at_ms"}]}.
inline constexpr std::int64_t LedgerMaxAgeMs = 24LL * 60 * 60 * 1000;
inline constexpr std::size_t LedgerMaxCalls = 1000;

// Adds a call; drops entries older than LedgerMaxAgeMs and the oldest beyond
// LedgerMaxCalls. A ledger that is not an object counts as empty.
void ledgerAdd(Json *ledger, const std::string &callId, const std::string &toolName,
    const Json &modelArgs, const Json &runArgs, std::int64_t nowMs);
// Removes and returns the oldest call with this tool name and arguments.
std::optional<std::string> ledgerTake(Json *ledger, const std::string &toolName, const Json &args);

// Gemini CLI gives a hook no turn either. The BeforeAgent hook, which Gemini
// CLI runs once for each prompt, notes a new turn id in the ledger ("turn"),
// and each BeforeTool sends it: the console then halts the rest of a halted
// turn at once (Gemini CLI 0.61 still runs the BeforeTool hook for the
// model's next call in the same response after a halt), and "the rest of
// this turn" means the rest of the prompt. Without the BeforeAgent hook
// calls belong to no turn.
void ledgerStartTurn(Json *ledger, const std::string &turnId);
std::optional<std::string> ledgerTurn(const Json &ledger);

} // namespace holdpoint::gemini
