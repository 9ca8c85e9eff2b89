#include "claudecode.h"

#include "hookinput.h"
#include "protocol/protocol.h"

namespace holdpoint::claudecode {

using hookinput::stringField;

bool responseIsError(const Json &r)
{
    return hookinput::responseIsError(r);
}

ParseResult parseHookInput(std::string_view text)
{
    ParseResult r;
    Json doc;
    if (!hookinput::parseObject(text, &doc, &r.error))
        return r;
    HookInput in;
    const auto event = stringField(doc, "hook_event_name");
    if (!event) {
        r.error = "hook input: hook_event_name: required, expected PreToolUse or PostToolUse";
        return r;
    }
    if (*event == "PreToolUse") {
        in.event = Event::PreToolUse;
    } else if (*event == "PostToolUse" || *event == "PostToolUseFailure") {
        in.event = Event::PostToolUse;
        in.failed = *event == "PostToolUseFailure";
    } else {
        r.error = "hook input: hook_event_name: \"" + *event
                  + "\" is not handled (configure holdpoint-ctl hook claude-code for PreToolUse and PostToolUse)";
        return r;
    }
    hookinput::ToolFields fields;
    if (!hookinput::readToolFields(doc, &fields, &r.error))
        return r;
    in.sessionId = std::move(fields.sessionId);
    in.toolName = std::move(fields.toolName);
    in.toolInput = std::move(fields.toolInput);
    if (const auto id = stringField(doc, "tool_use_id")) {
        if (!protocol::isValidId(*id)) {
            r.error = "hook input: tool_use_id: expected a string of 1 to 256 bytes without control characters";
            return r;
        }
        in.toolUseId = *id;
    }
    if (const auto prompt = stringField(doc, "prompt_id"); prompt && protocol::isValidId(*prompt))
        in.promptId = *prompt;
    for (const char *key : {"cwd", "permission_mode", "transcript_path", "agent_type"}) {
        if (auto it = doc.find(key); it != doc.end() && it->is_string())
            in.context[key] = *it;
    }
    if (in.event == Event::PostToolUse) {
        if (auto it = doc.find("tool_response"); it != doc.end())
            in.toolResponse = *it;
        if (auto it = doc.find("error"); it != doc.end() && !it->is_null() && in.toolResponse.is_null())
            in.toolResponse = Json {{"error", *it}};
        in.failed = in.failed || responseIsError(in.toolResponse);
    }
    r.input = std::move(in);
    return r;
}

Json toolCallMessage(const HookInput &in, const std::string &callId)
{
    Json j {{"type", "tool_call"}, {"call_id", callId}, {"tool_name", in.toolName}, {"args", in.toolInput}, {"context", in.context}};
    if (in.promptId)
        j["turn_id"] = *in.promptId;
    return j;
}

Json toolResultMessage(const HookInput &in, const std::string &callId)
{
    return Json {{"type", "tool_result"}, {"call_id", callId}, {"ok", !in.failed}, {"result", protocol::compactResult(in.toolResponse)}};
}

std::string preToolUseOutput(const Json &d)
{
    const std::string decision = d.value("decision", std::string());
    const std::string reason = d.value("reason", std::string());
    Json specific {{"hookEventName", "PreToolUse"}, {"permissionDecisionReason", reason}};
    Json out;
    if (decision == "allow" || decision == "modify") {
        specific["permissionDecision"] = "allow";
        // Claude Code replaces the whole input with updatedInput.
        if (decision == "modify" && d.contains("args"))
            specific["updatedInput"] = d["args"];
        out["hookSpecificOutput"] = std::move(specific);
    } else {
        specific["permissionDecision"] = "deny";
        out["hookSpecificOutput"] = std::move(specific);
        if (decision == "halt") {
            out["continue"] = false;
            out["stopReason"] = reason.empty() ? std::string("halted by Holdpoint") : reason;
        }
    }
    return dumpJson(out);
}

std::string postToolUseOutput(const Json &a)
{
    const std::string action = a.value("action", std::string());
    const std::string reason = a.value("reason", std::string());
    if (action == "halt")
        return dumpJson(Json {{"decision", "block"}, {"reason", reason}});
    if (action == "warn")
        return dumpJson(Json {{"hookSpecificOutput", {{"hookEventName", "PostToolUse"}, {"additionalContext", reason}}}});
    return {};
}

} // namespace holdpoint::claudecode
