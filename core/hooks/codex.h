// SPDX-License-Identifier: Apache-2.0
#pragma once

// OpenAI Codex CLI's command hooks (resources/integrations/codex/README.md).
// Codex copies Claude Code's hook format, so the input is parsed by
// claudecode.h with Codex's dialect; what differs is what Codex accepts back:
// PreToolUse can only deny (an allow, continue:false or stopReason makes the
// hook fail and Codex then runs the call), PermissionRequest answers allow or
// deny (updatedInput and interrupt make it fail), and neither can edit the
// arguments or stop the run. Pure functions, no I/O.

#include "hooks/claudecode.h"
#include "wire/messages.h"

namespace holdpoint::codex {

using claudecode::Event;
using claudecode::HookInput;
using claudecode::ParseResult;

const claudecode::Dialect &dialect();

// Unknown fields are ignored: Codex adds fields between versions.
ParseResult parseHookInput(std::string_view text);

// The capabilities the hook declares in its hello: Codex takes no edited
// arguments and no hook can stop its run.
wire::Capabilities capabilities();

// The protocol message the hook sends; PermissionRequest carries no tool use
// id, so the caller gives it an id of its own.
Json toolCallMessage(const HookInput &input, const std::string &callId);

// Why the call does not run, as the model reads it; empty for allow.
// A modify is refused (Codex cannot run edited arguments, and running the
// unedited call would ignore the reviewer), a halt becomes a deny that tells
// the model the run was halted.
std::string refusal(const Json &decision);

// What the hook prints for the console's decision; empty prints nothing
// (PreToolUse: Codex goes on with its own approval and sandbox settings).
std::string preToolUseOutput(const Json &decision);
std::string permissionRequestOutput(const Json &decision);
// PostToolUse takes Claude Code's answer as it is.
using claudecode::postToolUseOutput;

} // namespace holdpoint::codex
