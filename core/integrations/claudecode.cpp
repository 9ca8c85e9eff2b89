#include "claudecode.h"

#include "common/jsonparse.h"
#include "protocol/protocol.h"

namespace holdpoint::claudecode {

namespace {

std::optional<std::string> stringField(const Json &o, const char *key)
{
    auto it = o.find(key);
    if (it == o.end() || !it->is_string())
        return std::nullopt;
    return it->get<std::string>();
}

} // namespace

bool responseIsError(const Json &r)
{
    if (!r.is_object())
        return false;
    auto flag = [&](const char *key, bool value) {
        auto it = r.find(key);
        return it != r.end() && it->is_boolean() && it->get<bool>() == value;
    };
    if (flag("is_error", true) || flag("isError", true) || flag("success", false))
        return true;
    auto error = r.find("error");
    return error != r.end() && !error->is_null() && !(error->is_string() && error->get_ref<const std::string &>().empty())
           && !(error->is_boolean() && !error->get<bool>());
}

ParseResult parseHookInput(std::string_view text)
{
    ParseResult r;
    if (text.size() > MaxHookInputBytes) {
        r.error = "hook input larger than " + std::to_string(MaxHookInputBytes) + " bytes";
        return r;
    }
    Json doc;
    std::string why;
    if (!parseStrictJson(text, protocol::MaxDepth, &doc, &why)) {
        r.error = "hook input is not valid JSON: " + why;
        return r;
    }
    if (!doc.is_object()) {
        r.error = std::string("hook input: expected a JSON object, got ") + doc.type_name();
        return r;
    }
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
    const auto session = stringField(doc, "session_id");
    if (!session || !protocol::isValidId(*session)) {
        r.error = "hook input: session_id: required, expected a string of 1 to 256 bytes without control characters";
        return r;
    }
    in.sessionId = *session;
    const auto tool = stringField(doc, "tool_name");
    if (!tool || tool->empty() || tool->size() > protocol::MaxToolNameLength) {
        r.error = "hook input: tool_name: required, expected a non-empty string of at most 256 bytes";
        return r;
    }
    in.toolName = *tool;
    if (auto it = doc.find("tool_input"); it != doc.end() && !it->is_null()) {
        if (!it->is_object()) {
            r.error = std::string("hook input: tool_input: expected an object, got ") + it->type_name();
            return r;
        }
        in.toolInput = *it;
    }
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
    // The turn is the prompt; a Claude Code that sends no prompt_id gets its
    // whole session as one turn, so a halt there holds until it ends.
    j["turn_id"] = in.promptId ? *in.promptId : in.sessionId;
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
        if (decision == "halt") {
            // Claude Code stops on `continue: false` (2.1.330); one that
            // ignores it (2.1.197) hands the reason to the model, which must
            // learn that the run was halted, not just this call refused. The
            // console's later halts of the turn (code turn_halted) say so
            // already.
            if (d.value("code", std::string()) != "turn_halted")
                specific["permissionDecisionReason"] =
                    "Holdpoint halted the run: " + (reason.empty() ? std::string("no reason given") : reason);
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
        return dumpJson(Json {{"decision", "block"}, {"reason", reason}});
    if (action == "warn")
        return dumpJson(Json {{"hookSpecificOutput", {{"hookEventName", "PostToolUse"}, {"additionalContext", reason}}}});
    return {};
}

} // namespace holdpoint::claudecode
