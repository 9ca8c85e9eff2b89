// SPDX-License-Identifier: Apache-2.0
#include "protocol.h"

#include "common/jsonparse.h"
#include "common/jsonwriter.h"
#include "common/sha256.h"

#include <QDateTime>

#include <algorithm>
#include <array>
#include <cmath>

namespace holdpoint::protocol {

std::string_view errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidJson:
        return "invalid_json";
    case ErrorCode::TooDeep:
        return "too_deep";
    case ErrorCode::InvalidMessage:
        return "invalid_message";
    case ErrorCode::UnknownType:
        return "unknown_type";
    case ErrorCode::MissingField:
        return "missing_field";
    case ErrorCode::InvalidField:
        return "invalid_field";
    case ErrorCode::UnsupportedProtocol:
        return "unsupported_protocol";
    case ErrorCode::HelloRequired:
        return "hello_required";
    case ErrorCode::DuplicateHello:
        return "duplicate_hello";
    case ErrorCode::AuthFailed:
        return "auth_failed";
    case ErrorCode::Forbidden:
        return "forbidden";
    case ErrorCode::CallIdConflict:
        return "call_id_conflict";
    case ErrorCode::UnknownCall:
        return "unknown_call";
    case ErrorCode::CallPending:
        return "call_pending";
    case ErrorCode::UnknownItem:
        return "unknown_item";
    case ErrorCode::AlreadyResolved:
        return "already_resolved";
    case ErrorCode::ConnectionLimit:
        return "connection_limit";
    }
    return "invalid_message";
}

std::string_view roleName(Role role)
{
    return role == Role::Reviewer ? "reviewer" : "agent";
}

std::string_view reviewActionName(ReviewAction action)
{
    switch (action) {
    case ReviewAction::Approve:
        return "approve";
    case ReviewAction::Deny:
        return "deny";
    case ReviewAction::Edit:
        return "edit";
    case ReviewAction::Halt:
        return "halt";
    }
    return "approve";
}

std::string_view decisionKindName(DecisionKind kind)
{
    switch (kind) {
    case DecisionKind::Allow:
        return "allow";
    case DecisionKind::Deny:
        return "deny";
    case DecisionKind::Modify:
        return "modify";
    case DecisionKind::Halt:
        return "halt";
    }
    return "deny";
}

std::size_t nestingDepth(std::string_view text, std::size_t limit)
{
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool inString = false;
    bool escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            break;
        case '[':
        case '{':
            if (++depth > deepest) {
                deepest = depth;
                if (deepest > limit)
                    return deepest;
            }
            break;
        case ']':
        case '}':
            if (depth > 0)
                --depth;
            break;
        default:
            break;
        }
    }
    return deepest;
}

namespace {

// Reads typed fields out of one message object and records the first
// problem as a ParseError naming the field and what was expected.
class FieldReader
{
public:
    explicit FieldReader(const Json &object)
        : m_object(object)
    { }

    bool failed() const { return m_failed; }
    const ParseError &error() const { return m_error; }

    const Json *find(const char *key) const
    {
        auto it = m_object.find(key);
        if (it == m_object.end() || it->is_null())
            return nullptr;
        return &*it;
    }

    // A required string; `id` applies the id rules, otherwise non-empty up to maxLength.
    bool string(
        const char *key, std::string &out, std::size_t maxLength, bool id, bool required = true)
    {
        if (m_failed)
            return false;
        const Json *v = find(key);
        if (!v) {
            if (required)
                fail(ErrorCode::MissingField,
                    std::string(key) + ": required, expected " + expectation(maxLength, id));
            return false;
        }
        if (!v->is_string())
            return wrongType(key, *v, expectation(maxLength, id));
        const auto &s = v->get_ref<const std::string &>();
        if (id ? !isValidId(s) : (s.empty() || s.size() > maxLength))
            return fail(ErrorCode::InvalidField,
                std::string(key) + ": expected " + expectation(maxLength, id));
        out = s;
        return true;
    }

    bool optionalString(
        const char *key, std::optional<std::string> &out, std::size_t maxLength, bool id)
    {
        std::string s;
        if (string(key, s, maxLength, id, false)) {
            out = std::move(s);
            return true;
        }
        return !m_failed;
    }

    // A free-text string that may be empty (reasons).
    bool text(const char *key, std::string &out, std::size_t maxLength)
    {
        if (m_failed)
            return false;
        const Json *v = find(key);
        if (!v)
            return true;
        if (!v->is_string())
            return wrongType(key, *v, "a string");
        const auto &s = v->get_ref<const std::string &>();
        if (s.size() > maxLength)
            return fail(ErrorCode::InvalidField,
                std::string(key) + ": longer than " + std::to_string(maxLength) + " bytes");
        out = s;
        return true;
    }

    bool object(const char *key, Json &out, bool required)
    {
        if (!isObject(key, required))
            return false;
        out = *find(key);
        return true;
    }

    // Whether `key` holds an object (absent: fails if required); the
    // caller may take it then.
    bool isObject(const char *key, bool required)
    {
        if (m_failed)
            return false;
        const Json *v = find(key);
        if (!v) {
            if (required)
                fail(ErrorCode::MissingField, std::string(key) + ": required, expected an object");
            return false;
        }
        if (!v->is_object())
            return wrongType(key, *v, "an object");
        return true;
    }

    bool boolean(const char *key, bool &out, bool required)
    {
        if (m_failed)
            return false;
        const Json *v = find(key);
        if (!v) {
            if (required)
                fail(ErrorCode::MissingField,
                    std::string(key) + ": required, expected true or false");
            return false;
        }
        if (!v->is_boolean())
            return wrongType(key, *v, "true or false");
        out = v->get<bool>();
        return true;
    }

    bool wrongType(const std::string &key, const Json &v, const std::string &expected)
    {
        return fail(
            ErrorCode::InvalidField, key + ": expected " + expected + ", got " + v.type_name());
    }

    bool fail(ErrorCode code, std::string message)
    {
        if (!m_failed) {
            m_failed = true;
            m_error.code = code;
            m_error.message = std::move(message);
        }
        return false;
    }

private:
    static std::string expectation(std::size_t maxLength, bool id)
    {
        if (id)
            return "a string of 1 to " + std::to_string(MaxIdLength)
                + " bytes without control characters";
        return "a non-empty string of at most " + std::to_string(maxLength) + " bytes";
    }

    const Json &m_object;
    bool m_failed = false;
    ParseError m_error;
};

ParseResult failure(const ParseError &error, const Json *object = nullptr)
{
    ParseResult r;
    r.error = error;
    if (object) {
        auto it = object->find("call_id");
        if (it != object->end() && it->is_string())
            r.error.callId = it->get<std::string>();
    }
    return r;
}

ParseResult failure(ErrorCode code, std::string message)
{
    ParseResult r;
    r.error.code = code;
    r.error.message = std::move(message);
    return r;
}

template <typename T> ParseResult success(T &&message)
{
    ParseResult r;
    r.message = Message(std::forward<T>(message));
    return r;
}

ParseResult parseHello(const Json &o)
{
    FieldReader f(o);
    Hello h;
    const Json *protocol = f.find("protocol");
    if (!protocol)
        return failure(
            { ErrorCode::MissingField, "protocol: required, expected the integer 1", {} });
    if (!protocol->is_number_integer())
        return failure({ ErrorCode::InvalidField,
            std::string("protocol: expected an integer, got ") + protocol->type_name(), {} });
    if (protocol->get<long long>() != Version)
        return failure({ ErrorCode::UnsupportedProtocol,
            "protocol: this console speaks protocol " + std::to_string(Version) + ", got "
                + protocol->dump(),
            {} });
    h.protocol = Version;

    std::optional<std::string> role;
    f.optionalString("role", role, 32, false);
    if (role) {
        if (*role == "agent")
            h.role = Role::Agent;
        else if (*role == "reviewer")
            h.role = Role::Reviewer;
        else
            f.fail(ErrorCode::InvalidField,
                "role: expected \"agent\" or \"reviewer\", got \"" + *role + "\"");
    }
    f.string("token", h.token, MaxTokenLength, false);

    Json agent;
    if (f.object("agent", agent, false)) {
        FieldReader a(agent);
        a.string("name", h.agent.name, MaxNameLength, false, false);
        a.string("framework", h.agent.framework, MaxNameLength, false, false);
        a.string("user", h.agent.user, MaxNameLength, false, false);
        if (a.failed()) {
            ParseError e = a.error();
            e.message = "agent." + e.message;
            return failure(e);
        }
    }
    if (h.agent.name.empty())
        h.agent.name = h.role == Role::Reviewer ? "reviewer" : "agent";
    Json capabilities;
    if (f.object("capabilities", capabilities, false)) {
        // Capabilities this console does not know are ignored, so a newer
        // client can declare more.
        FieldReader c(capabilities);
        c.boolean("modify", h.agent.capabilities.modify, false);
        c.boolean("halt", h.agent.capabilities.halt, false);
        if (c.failed()) {
            ParseError e = c.error();
            e.message = "capabilities." + e.message;
            return failure(e);
        }
    }
    f.optionalString("session_id", h.sessionId, MaxIdLength, true);
    if (f.failed())
        return failure(f.error());
    return success(std::move(h));
}

template <typename Turn> ParseResult parseTurn(const Json &o)
{
    FieldReader f(o);
    Turn t;
    f.string("turn_id", t.turnId, MaxIdLength, true);
    if (f.failed())
        return failure(f.error());
    return success(std::move(t));
}

// The arguments, context and annotations are moved out of the parsed
// message, not copied: every call costs that copy otherwise.
ParseResult parseToolCall(Json &o)
{
    FieldReader f(o);
    ToolCall c;
    f.string("call_id", c.callId, MaxIdLength, true);
    f.string("tool_name", c.toolName, MaxToolNameLength, false);
    if (f.isObject("args", true))
        c.args = std::move(o["args"]);
    f.optionalString("turn_id", c.turnId, MaxIdLength, true);
    if (f.isObject("context", false))
        c.context = std::move(o["context"]);
    if (f.isObject("annotations", false)) {
        c.annotations = std::move(o["annotations"]);
        // MCP 2025-06-18 "ToolAnnotations": the hints are booleans.
        static constexpr std::array hints { "readOnlyHint", "destructiveHint", "idempotentHint",
            "openWorldHint" };
        for (const char *hint : hints) {
            auto it = c.annotations.find(hint);
            if (it != c.annotations.end() && !it->is_boolean() && !it->is_null())
                f.wrongType(std::string("annotations.") + hint, *it, "true or false");
        }
    }
    if (const Json *t = f.find("timeout_s"); t && !f.failed()) {
        if (!t->is_number())
            f.wrongType("timeout_s", *t, "a number of seconds");
        else if (const double s = t->get<double>();
                 !(s > 0) || !std::isfinite(s) || s > MaxTimeoutSeconds)
            f.fail(ErrorCode::InvalidField,
                "timeout_s: expected a number of seconds above 0 and at most "
                    + std::to_string(int(MaxTimeoutSeconds)));
        else
            c.timeoutS = s;
    }
    if (f.failed())
        return failure(f.error(), &o);
    return success(std::move(c));
}

ParseResult parseToolResult(const Json &o)
{
    FieldReader f(o);
    ToolResult r;
    f.string("call_id", r.callId, MaxIdLength, true);
    f.boolean("ok", r.ok, true);
    if (auto it = o.find("result"); it != o.end())
        r.result = *it;
    if (f.failed())
        return failure(f.error(), &o);
    return success(std::move(r));
}

ParseResult parseCancel(const Json &o)
{
    FieldReader f(o);
    Cancel c;
    f.string("call_id", c.callId, MaxIdLength, true);
    if (f.failed())
        return failure(f.error(), &o);
    return success(std::move(c));
}

} // namespace

std::string_view reviewScopeName(ReviewScope scope)
{
    switch (scope) {
    case ReviewScope::Call:
        return "call";
    case ReviewScope::Turn:
        return "turn";
    case ReviewScope::Session:
        return "session";
    }
    return "call";
}

namespace {

ParseResult parseReview(const Json &o)
{
    FieldReader f(o);
    Review r;
    f.string("id", r.id, MaxIdLength, true);
    std::string action;
    if (f.string("action", action, 16, false)) {
        if (action == "approve")
            r.action = ReviewAction::Approve;
        else if (action == "deny")
            r.action = ReviewAction::Deny;
        else if (action == "edit")
            r.action = ReviewAction::Edit;
        else if (action == "halt")
            r.action = ReviewAction::Halt;
        else
            f.fail(ErrorCode::InvalidField,
                "action: expected one of approve, deny, edit, halt, got \"" + action + "\"");
    }
    f.text("reason", r.reason, MaxReasonLength);
    Json args;
    if (f.object("args", args, false))
        r.args = std::move(args);
    std::string scope;
    if (f.string("scope", scope, 16, false, false)) {
        if (scope == "call")
            r.scope = ReviewScope::Call;
        else if (scope == "turn")
            r.scope = ReviewScope::Turn;
        else if (scope == "session")
            r.scope = ReviewScope::Session;
        else
            f.fail(ErrorCode::InvalidField,
                "scope: expected one of call, turn, session, got \"" + scope + "\"");
    }
    if (!f.failed() && r.scope != ReviewScope::Call && r.action != ReviewAction::Approve
        && r.action != ReviewAction::Deny)
        f.fail(ErrorCode::InvalidField, "scope: only approve and deny reach beyond one call");
    if (!f.failed() && r.action == ReviewAction::Deny
        && r.reason.find_first_not_of(" \t\r\n") == std::string::npos)
        f.fail(ErrorCode::MissingField, "reason: required for deny, expected a non-empty string");
    if (!f.failed() && r.action == ReviewAction::Edit && !r.args)
        f.fail(ErrorCode::MissingField, "args: required for edit, expected an object");
    if (f.failed())
        return failure(f.error());
    return success(std::move(r));
}

ParseResult parseWebRequest(const Json &o)
{
    FieldReader f(o);
    WebRequest w;
    std::string action;
    if (f.string("action", action, 16, false)) {
        if (action == "pair")
            w.action = WebAction::Pair;
        else if (action == "sessions")
            w.action = WebAction::Sessions;
        else if (action == "revoke")
            w.action = WebAction::Revoke;
        else
            f.fail(ErrorCode::InvalidField,
                "action: expected one of pair, sessions, revoke, got \"" + action + "\"");
    }
    f.string("session", w.session, MaxIdLength, true, w.action == WebAction::Revoke);
    if (f.failed())
        return failure(f.error());
    return success(std::move(w));
}

} // namespace

ParseResult parseMessage(std::string_view text)
{
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return failure(ErrorCode::InvalidJson, "empty message: expected one JSON object");
    if (nestingDepth(text, MaxDepth) > MaxDepth)
        return failure(
            ErrorCode::TooDeep, "JSON nested deeper than " + std::to_string(MaxDepth) + " levels");

    Json doc;
    std::string parseError;
    if (!parseStrictJson(text, MaxDepth, &doc, &parseError))
        return failure(ErrorCode::InvalidJson, parseError);
    if (!doc.is_object())
        return failure(ErrorCode::InvalidMessage,
            std::string("expected a JSON object, got ") + doc.type_name());

    auto typeIt = doc.find("type");
    if (typeIt == doc.end() || typeIt->is_null())
        return failure(
            { ErrorCode::MissingField, "type: required, expected a string naming the message", {} },
            &doc);
    if (!typeIt->is_string())
        return failure({ ErrorCode::InvalidField,
                           std::string("type: expected a string, got ") + typeIt->type_name(), {} },
            &doc);

    const auto &type = typeIt->get_ref<const std::string &>();
    try {
        if (type == "tool_call")
            return parseToolCall(doc);
        if (type == "tool_result")
            return parseToolResult(doc);
        if (type == "hello")
            return parseHello(doc);
        if (type == "turn_start")
            return parseTurn<TurnStart>(doc);
        if (type == "turn_end")
            return parseTurn<TurnEnd>(doc);
        if (type == "cancel")
            return parseCancel(doc);
        if (type == "review")
            return parseReview(doc);
        if (type == "web")
            return parseWebRequest(doc);
    } catch (const std::exception &e) {
        // Defensive: the readers check types first, so this means a bug of ours.
        return failure(
            { ErrorCode::InvalidMessage, std::string("could not read message: ") + e.what(), {} },
            &doc);
    }
    std::string shown = type.size() > 64 ? type.substr(0, 64) + "..." : type;
    return failure({ ErrorCode::UnknownType,
                       "type: unknown message type \"" + shown
                           + "\" (expected one of: hello, turn_start, turn_end, tool_call, "
                             "tool_result, cancel, review)",
                       {} },
        &doc);
}

Capabilities capabilitiesFromJson(const Json &j)
{
    Capabilities c;
    if (!j.is_object())
        return c;
    if (auto it = j.find("modify"); it != j.end() && it->is_boolean())
        c.modify = it->get<bool>();
    if (auto it = j.find("halt"); it != j.end() && it->is_boolean())
        c.halt = it->get<bool>();
    return c;
}

Json warningsToJson(const std::vector<Warning> &warnings)
{
    Json out = Json::array();
    for (const Warning &w : warnings)
        out.push_back(
            Json { { "guardrail", w.guardrail }, { "code", w.code }, { "message", w.message } });
    return out;
}

Json turnFindingsToJson(const std::vector<TurnFinding> &findings)
{
    Json out = Json::array();
    for (const TurnFinding &f : findings)
        out.push_back(
            Json { { "guardrail", f.guardrail }, { "pattern", f.pattern }, { "level", f.level },
                { "tool_name", f.toolName }, { "count", f.count }, { "warn_at", f.warnAt },
                { "stop_at", f.stopAt }, { "call_ids", f.callIds }, { "message", f.message } });
    return out;
}

Json approvalRuleToJson(const ApprovalRule &rule)
{
    return Json { { "required", rule.required }, { "exclude_requester", rule.excludeRequester },
        { "on_edit", rule.resetOnEdit ? "reset" : "keep" } };
}

ApprovalRule approvalRuleFromJson(const Json &json)
{
    ApprovalRule rule;
    if (!json.is_object())
        return rule;
    if (auto it = json.find("required"); it != json.end() && it->is_number_integer())
        rule.required
            = int(std::clamp<std::int64_t>(it->get<std::int64_t>(), 1, MaxApprovalsRequired));
    if (auto it = json.find("exclude_requester"); it != json.end() && it->is_boolean())
        rule.excludeRequester = it->get<bool>();
    if (auto it = json.find("on_edit"); it != json.end() && it->is_string())
        rule.resetOnEdit = it->get<std::string>() != "keep";
    return rule;
}

ApprovalRule strictest(const ApprovalRule &a, const ApprovalRule &b)
{
    return ApprovalRule { std::max(a.required, b.required),
        a.excludeRequester || b.excludeRequester, a.resetOnEdit || b.resetOnEdit };
}

Json votesToJson(const std::vector<Vote> &votes)
{
    Json out = Json::array();
    for (const Vote &v : votes) {
        Json j { { "reviewer", v.reviewer }, { "via", v.via }, { "args", v.args },
            { "args_sha256", v.argsHash }, { "at", formatTimestamp(v.at) } };
        if (v.edit)
            j["edit"] = true;
        out.push_back(std::move(j));
    }
    return out;
}

namespace {

// `j[key]` when it is a string; else empty.
std::string stringOr(const Json &j, const char *key)
{
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::vector<Vote> votesFromJson(const Json &array)
{
    std::vector<Vote> out;
    if (!array.is_array())
        return out;
    for (const Json &j : array) {
        if (!j.is_object())
            continue;
        auto text = [&](const char *key) { return stringOr(j, key); };
        Vote v { text("reviewer"), text("via"), j.value("args", Json::object()),
            text("args_sha256"), j.value("edit", false) == true, 0 };
        if (auto at = j.find("at"); at != j.end() && at->is_number_integer())
            v.at = at->get<TimeMs>();
        else if (const std::string iso = text("at"); !iso.empty())
            v.at = QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs)
                       .toMSecsSinceEpoch();
        if (!v.reviewer.empty())
            out.push_back(std::move(v));
    }
    return out;
}

std::string argsDigest(const Json &args)
{
    // nlohmann's objects are ordered maps: dump() writes keys sorted.
    return sha256Hex(args.dump());
}

std::vector<TurnFinding> turnFindingsFromJson(const Json &array)
{
    std::vector<TurnFinding> out;
    if (!array.is_array())
        return out;
    for (const Json &j : array) {
        if (!j.is_object())
            continue;
        auto text = [&](const char *key) { return stringOr(j, key); };
        auto number = [&](const char *key) {
            auto it = j.find(key);
            return it != j.end() && it->is_number_integer()
                ? int(std::clamp<std::int64_t>(it->get<std::int64_t>(), 0, 1'000'000))
                : 0;
        };
        TurnFinding f { text("guardrail"), text("pattern"), text("level"), text("tool_name"),
            number("count"), number("warn_at"), number("stop_at"), {}, text("message") };
        if (auto ids = j.find("call_ids"); ids != j.end() && ids->is_array())
            for (const Json &id : *ids)
                if (id.is_string())
                    f.callIds.push_back(id.get<std::string>());
        if (!f.pattern.empty())
            out.push_back(std::move(f));
    }
    return out;
}

std::string turnFindingHint(const TurnFinding &f)
{
    const std::string counts
        = " (" + std::to_string(f.count) + "/" + std::to_string(f.stopAt) + ")";
    if (f.pattern == "exact_failure")
        return "agent is retrying a failing call" + counts;
    if (f.pattern == "same_tool_failure")
        return "agent keeps failing with " + f.toolName + counts;
    if (f.pattern == "no_progress")
        return "agent gets the same result again" + counts;
    return f.pattern + counts;
}

Json decisionToJson(std::string_view callId, const Decision &d)
{
    Json j { { "type", "decision" }, { "call_id", callId },
        { "decision", decisionKindName(d.kind) }, { "reason", d.reason },
        { "decided_by", d.decidedBy } };
    if (d.kind == DecisionKind::Allow || d.kind == DecisionKind::Modify)
        j["args"] = d.args.is_null() ? Json::object() : d.args;
    if (!d.code.empty())
        j["code"] = d.code;
    j["warnings"] = warningsToJson(d.warnings);
    return j;
}

void appendDecisionText(
    std::string &out, std::string_view callId, const Decision &d, const Json *args)
{
    // The members in the order a dumped object has them.
    JsonWriter w(out);
    w.beginObject();
    if (d.kind == DecisionKind::Allow || d.kind == DecisionKind::Modify) {
        const Json &sent = args ? *args : d.args;
        if (sent.is_null())
            w.key("args").beginObject().endObject();
        else
            w.member("args", sent);
    }
    w.member("call_id", callId);
    if (!d.code.empty())
        w.member("code", d.code);
    w.member("decided_by", d.decidedBy);
    w.member("decision", decisionKindName(d.kind));
    w.member("reason", d.reason);
    w.member("type", "decision");
    w.key("warnings");
    writeWarnings(w, d.warnings);
    w.endObject();
}

void writeWarnings(JsonWriter &w, const std::vector<Warning> &warnings)
{
    w.beginArray();
    for (const Warning &warning : warnings)
        w.beginObject()
            .member("code", warning.code)
            .member("guardrail", warning.guardrail)
            .member("message", warning.message)
            .endObject();
    w.endArray();
}

Json errorToJson(ErrorCode code, std::string_view message, std::string_view callId)
{
    Json j { { "type", "error" }, { "code", errorCodeName(code) }, { "message", message } };
    if (!callId.empty())
        j["call_id"] = callId;
    return j;
}

} // namespace holdpoint::protocol
