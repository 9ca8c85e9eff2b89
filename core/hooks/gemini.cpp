// SPDX-License-Identifier: Apache-2.0
#include "gemini.h"

#include "hookinput.h"
#include "wire/messages.h"

#include <algorithm>
#include <sstream>

namespace holdpoint::gemini {

bool responseFailed(const std::string &toolName, const Json &r)
{
    if (hookinput::responseIsError(r))
        return true;
    if (toolName != "run_shell_command" || !r.is_object())
        return false;
    auto content = r.find("llmContent");
    if (content == r.end() || !content->is_string())
        return false;
    std::istringstream lines(content->get<std::string>());
    const std::string prefix = "Exit Code: ";
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) == 0 && line.size() > prefix.size()
            && line.substr(prefix.size()) != "0")
            return true;
    }
    return false;
}

ParseResult parseHookInput(std::string_view text)
{
    ParseResult r;
    hookinput::Parsed p;
    if (!hookinput::parse(
            text, { { "BeforeTool", "AfterTool", "BeforeAgent" }, "gemini" }, &p, &r.error)) {
        // BeforeAgent names no tool; it needs only its session.
        const auto session = hookinput::stringField(p.doc, "session_id");
        if (p.event != "BeforeAgent" || !session || !wire::isValidId(*session))
            return r;
        r.error.clear();
        p.fields.sessionId = *session;
    }
    const Json &doc = p.doc;
    HookInput in;
    in.event = p.event == "BeforeTool" ? Event::BeforeTool
        : p.event == "AfterTool"       ? Event::AfterTool
                                       : Event::BeforeAgent;
    in.sessionId = std::move(p.fields.sessionId);
    in.toolName = std::move(p.fields.toolName);
    in.toolInput = std::move(p.fields.toolInput);
    hookinput::copyStrings(doc, { "cwd", "transcript_path", "original_request_name" }, &in.context);
    if (auto it = doc.find("mcp_context"); it != doc.end() && it->is_object())
        in.context["mcp_context"] = *it;
    if (in.event == Event::AfterTool) {
        if (auto it = doc.find("tool_response"); it != doc.end())
            in.toolResponse = *it;
        in.failed = responseFailed(in.toolName, in.toolResponse);
    }
    r.input = std::move(in);
    return r;
}

Json toolCallMessage(
    const HookInput &in, const std::string &callId, const std::optional<std::string> &turnId)
{
    Json j { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", in.toolName },
        { "args", in.toolInput }, { "context", in.context } };
    if (turnId)
        j["turn_id"] = *turnId;
    return j;
}

Json toolResultMessage(const HookInput &in, const std::string &callId)
{
    return hookinput::toolResultMessage(callId, in.failed, in.toolResponse);
}

namespace {

Json deny(const std::string &reason)
{
    return Json { { "decision", "deny" }, { "reason", reason } };
}

} // namespace

Json beforeToolAnswer(const Json &d, const Json &modelArgs)
{
    const std::string decision = d.value("decision", std::string());
    std::string reason = d.value("reason", std::string());
    if (decision == "allow")
        return Json { { "decision", "allow" } };
    if (decision == "modify") {
        const auto args = d.find("args");
        if (args == d.end() || !args->is_object())
            return deny(
                "Holdpoint: the console edited the arguments but sent none; the call was not run");
        // Gemini CLI's docs say hookSpecificOutput.tool_input is merged over
        // the model's arguments, so an argument the edit removed could stay.
        // The call must run with exactly the approved arguments, or not at all.
        for (const auto &[key, value] : modelArgs.items()) {
            if (!args->contains(key))
                return deny("Holdpoint: the approved arguments leave out \"" + key
                    + "\", which a Gemini CLI hook cannot remove; the call was not run. Approved "
                      "arguments: "
                    + dumpJson(*args));
        }
        return Json { { "decision", "allow" }, { "reason", reason },
            { "hookSpecificOutput",
                { { "hookEventName", "BeforeTool" }, { "tool_input", *args } } } };
    }
    if (reason.empty())
        reason = decision == "halt" ? "halted by Holdpoint" : "denied by Holdpoint";
    Json out = deny(reason);
    if (decision == "halt") {
        out["continue"] = false;
        out["stopReason"] = reason;
    }
    return out;
}

std::string afterToolOutput(const Json &a)
{
    const std::string action = a.value("action", std::string());
    const std::string reason = a.value("reason", std::string());
    if (action == "halt")
        return dumpJson(Json { { "continue", false },
            { "stopReason", reason.empty() ? std::string("halted by Holdpoint") : reason } });
    if (action == "warn")
        return dumpJson(Json { { "hookSpecificOutput",
            { { "hookEventName", "AfterTool" }, { "additionalContext", reason } } } });
    return {};
}

void ledgerAdd(Json *ledger, const std::string &callId, const std::string &toolName,
    const Json &modelArgs, const Json &runArgs, std::int64_t nowMs)
{
    Json calls = Json::array();
    if (ledger->is_object() && ledger->contains("calls") && (*ledger)["calls"].is_array()) {
        for (const Json &c : (*ledger)["calls"]) {
            if (c.is_object() && c.value("at_ms", std::int64_t(0)) > nowMs - LedgerMaxAgeMs)
                calls.push_back(c);
        }
    }
    Json args = Json::array({ modelArgs });
    if (runArgs != modelArgs)
        args.push_back(runArgs);
    calls.push_back(Json { { "call_id", callId }, { "tool_name", toolName },
        { "args", std::move(args) }, { "at_ms", nowMs } });
    if (calls.size() > LedgerMaxCalls)
        calls.erase(calls.begin(), calls.begin() + std::ptrdiff_t(calls.size() - LedgerMaxCalls));
    if (!ledger->is_object())
        *ledger = Json::object();
    (*ledger)["calls"] = std::move(calls);
}

std::optional<std::string> ledgerTake(Json *ledger, const std::string &toolName, const Json &args)
{
    if (!ledger->is_object() || !ledger->contains("calls") || !(*ledger)["calls"].is_array())
        return std::nullopt;
    Json &calls = (*ledger)["calls"];
    for (auto it = calls.begin(); it != calls.end(); ++it) {
        if (!it->is_object() || it->value("tool_name", std::string()) != toolName)
            continue;
        const Json known = it->value("args", Json::array());
        if (!known.is_array() || std::find(known.begin(), known.end(), args) == known.end())
            continue;
        std::string id = it->value("call_id", std::string());
        calls.erase(it);
        if (id.empty())
            return std::nullopt;
        return id;
    }
    return std::nullopt;
}

void ledgerStartTurn(Json *ledger, const std::string &turnId)
{
    if (!ledger->is_object())
        *ledger = Json::object();
    (*ledger)["turn"] = turnId;
}

std::optional<std::string> ledgerTurn(const Json &ledger)
{
    if (!ledger.is_object())
        return std::nullopt;
    const auto turn = hookinput::stringField(ledger, "turn");
    if (!turn || !wire::isValidId(*turn))
        return std::nullopt;
    return turn;
}

} // namespace holdpoint::gemini
