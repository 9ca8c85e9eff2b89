// SPDX-License-Identifier: Apache-2.0
#include "hookinput.h"

#include "wire/jsonparse.h"
#include "wire/messages.h"

#include <algorithm>

namespace holdpoint::hookinput {

std::optional<std::string> stringField(const Json &o, const char *key)
{
    auto it = o.find(key);
    if (it == o.end() || !it->is_string())
        return std::nullopt;
    return it->get<std::string>();
}

bool parseObject(std::string_view text, Json *doc, std::string *error)
{
    if (text.size() > MaxBytes) {
        *error = "hook input larger than " + std::to_string(MaxBytes) + " bytes";
        return false;
    }
    std::string why;
    if (!parseStrictJson(text, wire::MaxDepth, doc, &why)) {
        *error = "hook input is not valid JSON: " + why;
        return false;
    }
    if (!doc->is_object()) {
        *error = std::string("hook input: expected a JSON object, got ") + doc->type_name();
        return false;
    }
    return true;
}

bool readToolFields(const Json &doc, ToolFields *out, std::string *error)
{
    const auto session = stringField(doc, "session_id");
    if (!session || !wire::isValidId(*session)) {
        *error = "hook input: session_id: required, expected a string of 1 to 256 bytes without "
                 "control characters";
        return false;
    }
    out->sessionId = *session;
    const auto tool = stringField(doc, "tool_name");
    if (!tool || tool->empty() || tool->size() > wire::MaxToolNameLength) {
        *error
            = "hook input: tool_name: required, expected a non-empty string of at most 256 bytes";
        return false;
    }
    out->toolName = *tool;
    if (auto it = doc.find("tool_input"); it != doc.end() && !it->is_null()) {
        if (!it->is_object()) {
            *error
                = std::string("hook input: tool_input: expected an object, got ") + it->type_name();
            return false;
        }
        out->toolInput = *it;
    }
    return true;
}

namespace {

// "A or B", "A, B or C" (`last` is " or " or " and ").
std::string listed(const std::vector<std::string_view> &names, const char *last)
{
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += i == 0 ? "" : i + 1 == names.size() ? last : ", ";
        out += names[i];
    }
    return out;
}

} // namespace

bool parse(std::string_view text, const Events &events, Parsed *out, std::string *error)
{
    if (!parseObject(text, &out->doc, error))
        return false;
    const auto event = stringField(out->doc, "hook_event_name");
    if (!event) {
        *error = "hook input: hook_event_name: required, expected " + listed(events.named, " or ");
        return false;
    }
    auto among = [&](const std::vector<std::string_view> &names) {
        return std::find(names.begin(), names.end(), *event) != names.end();
    };
    if (!among(events.named) && !among(events.alsoAccepted)) {
        *error = "hook input: hook_event_name: \"" + *event
            + "\" is not handled (configure holdpoint-ctl hook " + std::string(events.command)
            + " for " + listed(events.named, " and ") + ")";
        return false;
    }
    out->event = *event;
    return readToolFields(out->doc, &out->fields, error);
}

void copyStrings(const Json &doc, const std::vector<std::string_view> &keys, Json *into)
{
    for (std::string_view key : keys) {
        if (auto it = doc.find(key); it != doc.end() && it->is_string())
            (*into)[std::string(key)] = *it;
    }
}

Json toolResultMessage(const std::string &callId, bool failed, const Json &response)
{
    return Json { { "type", "tool_result" }, { "call_id", callId }, { "ok", !failed },
        { "result", wire::compactResult(response) } };
}

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
    return error != r.end() && !error->is_null()
        && !(error->is_string() && error->get_ref<const std::string &>().empty())
        && !(error->is_boolean() && !error->get<bool>());
}

} // namespace holdpoint::hookinput
