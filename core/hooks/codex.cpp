// SPDX-License-Identifier: Apache-2.0
#include "codex.h"

#include "wire/jsonparse.h"

namespace holdpoint::codex {

const claudecode::Dialect &dialect()
{
    static const claudecode::Dialect d { "codex",
        { { "PreToolUse", Event::PreToolUse }, { "PermissionRequest", Event::PermissionRequest },
            { "PostToolUse", Event::PostToolUse } },
        "turn_id", { "cwd", "permission_mode", "transcript_path", "model", "agent_type" } };
    return d;
}

ParseResult parseHookInput(std::string_view text)
{
    return claudecode::parseHookInput(text, dialect());
}

wire::Capabilities capabilities()
{
    return wire::Capabilities { false, false };
}

Json toolCallMessage(const HookInput &in, const std::string &callId)
{
    Json j = claudecode::toolCallMessage(in, callId);
    // The same command may come twice: once before it runs, once more when
    // Codex asks to run it outside its sandbox.
    j["context"]["codex_hook"]
        = in.event == Event::PermissionRequest ? "PermissionRequest" : "PreToolUse";
    return j;
}

std::string refusal(const Json &d)
{
    const std::string decision = d.value("decision", std::string());
    const std::string reason = d.value("reason", std::string());
    if (decision == "allow")
        return {};
    if (decision == "modify")
        return "Holdpoint did not run this call: the reviewer approved it only with edited "
               "arguments ("
            + dumpJson(d.value("args", Json::object())) + "), and Codex cannot run edited arguments"
            + (reason.empty() ? std::string() : ": " + reason)
            + ". Make the call again with those arguments if they suit the task.";
    if (decision == "halt")
        return "Holdpoint halted this run" + (reason.empty() ? std::string() : ": " + reason)
            + ". Stop here: make no more tool calls and end your turn.";
    if (decision == "deny")
        return reason.empty() ? std::string("denied by Holdpoint") : reason;
    // A decision this hook does not know is a deny: the call must not run.
    return "Holdpoint answered \"" + decision
        + "\", which this hook does not know; the call was not run";
}

std::string preToolUseOutput(const Json &d)
{
    const std::string why = refusal(d);
    if (why.empty())
        return {};
    // Codex refuses a deny without a reason (the hook fails and the call runs).
    return dumpJson(Json { { "hookSpecificOutput",
        { { "hookEventName", "PreToolUse" }, { "permissionDecision", "deny" },
            { "permissionDecisionReason", why } } } });
}

std::string permissionRequestOutput(const Json &d)
{
    const std::string why = refusal(d);
    Json decision { { "behavior", why.empty() ? "allow" : "deny" } };
    if (!why.empty())
        decision["message"] = why;
    return dumpJson(Json { { "hookSpecificOutput",
        { { "hookEventName", "PermissionRequest" }, { "decision", std::move(decision) } } } });
}

} // namespace holdpoint::codex
