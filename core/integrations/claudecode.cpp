#include "claudecode.h"

#include "common/jsonparse.h"
#include "protocol/protocol.h"

#include <algorithm>

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

const Dialect &claudeCodeDialect()
{
    static const Dialect d {"claude-code",
                            {{"PreToolUse", Event::PreToolUse},
                             {"PostToolUse", Event::PostToolUse},
                             {"PostToolUseFailure", Event::PostToolUse}},
                            "prompt_id",
                            {"cwd", "permission_mode", "transcript_path", "agent_type"}};
    return d;
}

ParseResult parseHookInput(std::string_view text, const Dialect &dialect)
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
    // The events by their first names: "A, B or C" (last is " or " or " and ").
    auto events = [&](const char *last) {
        std::vector<std::string_view> names;
        for (const auto &[name, event] : dialect.events) {
            if (std::find_if(dialect.events.begin(), dialect.events.end(), [&](const auto &e) { return e.second == event; })->first == name)
                names.push_back(name);
        }
        std::string joined;
        for (std::size_t i = 0; i < names.size(); ++i)
            joined += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + std::string(names[i]);
        return joined;
    };
    const auto event = stringField(doc, "hook_event_name");
    if (!event) {
        r.error = "hook input: hook_event_name: required, expected " + events(" or ");
        return r;
    }
    const auto known = std::find_if(dialect.events.begin(), dialect.events.end(), [&](const auto &e) { return e.first == *event; });
    if (known == dialect.events.end()) {
        r.error = "hook input: hook_event_name: \"" + *event + "\" is not handled (configure holdpoint-ctl hook "
                  + std::string(dialect.command) + " for " + events(" and ") + ")";
        return r;
    }
    in.event = known->second;
    in.failed = *event == "PostToolUseFailure";
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
    if (const auto turn = stringField(doc, std::string(dialect.turnKey).c_str()); turn && protocol::isValidId(*turn))
        in.promptId = *turn;
    for (std::string_view key : dialect.contextKeys) {
        if (auto it = doc.find(key); it != doc.end() && it->is_string())
            in.context[std::string(key)] = *it;
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
