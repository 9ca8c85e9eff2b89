// SPDX-License-Identifier: Apache-2.0
#include "claudecode.h"

#include "hookinput.h"
#include "wire/messages.h"

#include <algorithm>

namespace holdpoint::claudecode {

using hookinput::stringField;

bool responseIsError(const Json &r)
{
    return hookinput::responseIsError(r);
}

const Dialect &claudeCodeDialect()
{
    static const Dialect d { "claude-code",
        { { "PreToolUse", Event::PreToolUse }, { "PostToolUse", Event::PostToolUse },
            { "PostToolUseFailure", Event::PostToolUse } },
        "prompt_id", { "cwd", "permission_mode", "transcript_path", "agent_type" } };
    return d;
}

ParseResult parseHookInput(std::string_view text, const Dialect &dialect)
{
    // Each event is named by its first name; later names of the same event
    // (PostToolUseFailure) are accepted without being named.
    hookinput::Events events { {}, dialect.command };
    for (const auto &named : dialect.events) {
        const bool first = std::find_if(dialect.events.begin(), dialect.events.end(),
                               [&](const auto &e) { return e.second == named.second; })
                               ->first
            == named.first;
        (first ? events.named : events.alsoAccepted).push_back(named.first);
    }
    ParseResult r;
    hookinput::Parsed p;
    if (!hookinput::parse(text, events, &p, &r.error))
        return r;
    const Json &doc = p.doc;
    HookInput in;
    in.event = std::find_if(dialect.events.begin(), dialect.events.end(), [&](const auto &e) {
        return e.first == p.event;
    })->second;
    in.failed = p.event == "PostToolUseFailure";
    in.sessionId = std::move(p.fields.sessionId);
    in.toolName = std::move(p.fields.toolName);
    in.toolInput = std::move(p.fields.toolInput);
    if (const auto id = stringField(doc, "tool_use_id")) {
        if (!wire::isValidId(*id)) {
            r.error = "hook input: tool_use_id: expected a string of 1 to 256 bytes without "
                      "control characters";
            return r;
        }
        in.toolUseId = *id;
    }
    if (const auto turn = stringField(doc, std::string(dialect.turnKey).c_str());
        turn && wire::isValidId(*turn))
        in.promptId = *turn;
    hookinput::copyStrings(doc, dialect.contextKeys, &in.context);
    if (in.event == Event::PostToolUse) {
        if (auto it = doc.find("tool_response"); it != doc.end())
            in.toolResponse = *it;
        if (auto it = doc.find("error");
            it != doc.end() && !it->is_null() && in.toolResponse.is_null())
            in.toolResponse = Json { { "error", *it } };
        in.failed = in.failed || responseIsError(in.toolResponse);
    }
    r.input = std::move(in);
    return r;
}

Json toolCallMessage(const HookInput &in, const std::string &callId)
{
    Json j { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", in.toolName },
        { "args", in.toolInput }, { "context", in.context } };
    // The turn is the prompt; a Claude Code that sends no prompt_id gets its
    // whole session as one turn, so a halt there holds until it ends.
    j["turn_id"] = in.promptId ? *in.promptId : in.sessionId;
    return j;
}

Json toolResultMessage(const HookInput &in, const std::string &callId)
{
    return hookinput::toolResultMessage(callId, in.failed, in.toolResponse);
}

std::string preToolUseOutput(const Json &d)
{
    const std::string decision = d.value("decision", std::string());
    const std::string reason = d.value("reason", std::string());
    Json specific { { "hookEventName", "PreToolUse" }, { "permissionDecisionReason", reason } };
    Json out;
    if (decision == "allow" || decision == "modify") {
        specific["permissionDecision"] = "allow";
        // Claude Code replaces the whole input with updatedInput.
        if (decision == "modify" && d.contains("args"))
            specific["updatedInput"] = d["args"];
        out["hookSpecificOutput"] = std::move(specific);
    } else {
        specific["permissionDecision"] = "deny";
        if (decision == "halt") {
            // Claude Code stops on `continue: false` (2.1.330); one that
            // ignores it (2.1.197) hands the reason to the model, which must
            // learn that the run was halted, not just this call refused. The
            // console's later halts of the turn (code turn_halted) say so
            // already.
            if (d.value("code", std::string()) != "turn_halted")
                specific["permissionDecisionReason"] = "Holdpoint halted the run: "
                    + (reason.empty() ? std::string("no reason given") : reason);
            out["continue"] = false;
            out["stopReason"] = reason.empty() ? std::string("halted by Holdpoint") : reason;
        }
        out["hookSpecificOutput"] = std::move(specific);
    }
    return dumpJson(out);
}

std::string postToolUseOutput(const Json &a)
{
    const std::string action = a.value("action", std::string());
    const std::string reason = a.value("reason", std::string());
    if (action == "halt")
        return dumpJson(Json { { "decision", "block" }, { "reason", reason } });
    if (action == "warn")
        return dumpJson(Json { { "hookSpecificOutput",
            { { "hookEventName", "PostToolUse" }, { "additionalContext", reason } } } });
    return {};
}

} // namespace holdpoint::claudecode
