// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the command hooks (`hook claude-code`, `hook codex`, `hook gemini`)
// share: their one option, their input on stdin, their rule for failures,
// and their one exchange with the console. No Qt: an agent CLI starts a hook
// for every tool call, and the front binary (front.cpp) runs them without
// loading Qt (tests/bench README, "hook").

#include "wire/endpoint.h"
#include "wire/failopen.h"
#include "wire/json.h"
#include "wire/messages.h"

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

// One line, flushed at once: a hook's agent reads it as soon as it is there.
// False when it could not be written whole (errno says why).
bool printLine(FILE *f, const std::string &s);

// How a hook fails: it blocks the call (exit 2, the reason on stderr, where
// the agent reads it), or with --fail-open lets it through (exit 0, nothing
// printed) when wire::failOpenLetsThrough says so, which is only when no
// console can be reached for this call (no endpoint.json, or nothing
// listening on its port). Everything else blocks even with --fail-open: a
// refusal of any kind, a listener that is not a console, a console that
// goes silent or goes away once it has the call (an agent can stop or kill
// it), and a call it cannot take.
struct HookFailure
{
    bool failOpen = false;
    // No decision because of `outage`: let through only when fail-open
    // applies to it, else blocked.
    int operator()(wire::Outage outage, const std::string &why) const;
    // Blocked, with or without --fail-open.
    int block(const std::string &why) const;
};

// `hook NAME [--fail-open]`: false, with the reason printed, for any other
// option (the call is then blocked, even with --fail-open).
bool parseHookOptions(const std::vector<std::string> &args, HookFailure *fail);

// What every hook does first: `hook NAME [--fail-open]`'s options into
// *fail, then stdin (at most `maxBytes`) into *input. False when the call is
// blocked already, with its exit code in *code.
bool startHook(const std::vector<std::string> &args, std::size_t maxBytes, HookFailure *fail,
    std::string *input, int *code);

// `in` to its end (a hook's stdin, a JSON option's @FILE), up to one byte
// past `maxBytes` so that the caller can tell it is too long. False when it
// cannot be read (errno says why).
bool readInput(std::FILE *in, std::size_t maxBytes, std::string *out);

// The console's `error` message as a failure's reason: "code: message".
std::string consoleError(const Json &error);

// One exchange with the console as `agent` in `sessionId`: sends `first`
// once welcomed, then hands every message to `onMessage` until it returns an
// exit code. While it waits it pings the console; silence past
// wire::silenceBoundMs(), or no decision within HookWaitMs, blocks the
// call. Only a refused connection goes to `fail` (fail-open may let it
// through); everything else blocks.
// The longest a hook waits for its decision, from its start: under the 330 s
// the shipped snippets give each agent CLI (resources/integrations), so the
// hook, not the CLI's own timeout, ends the wait, with a deny (Codex and
// Gemini CLI run a call whose hook timed out). HOLDPOINT_HOOK_WAIT_MS
// shortens it.
inline constexpr std::int64_t HookWaitMs = 320'000;
// The same for a tool_result (PostToolUse, AfterTool): the snippets give
// those hooks 30 s.
inline constexpr std::int64_t HookAfterCallWaitMs = 25'000;

int hookExchange(const wire::Endpoint &endpoint, wire::Hello agent, const std::string &sessionId,
    const Json &first, const std::function<std::optional<int>(const Json &)> &onMessage,
    const HookFailure &fail);

// Is `args` (the words after the global options, from "hook") one of the
// command hooks, which runHook() answers? --help, -h and --version are
// not: the full program answers them.
bool isHookCommand(const std::vector<std::string> &args);

// `hook claude-code|codex|gemini [--fail-open]`, `args` starting with
// "hook"; returns the exit code (exitcodes.h).
int runHook(const std::vector<std::string> &args, const std::string &dataDirFlag);

} // namespace holdpoint
