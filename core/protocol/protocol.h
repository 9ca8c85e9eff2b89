// SPDX-License-Identifier: Apache-2.0
#pragma once

// Wire protocol v1. PROTOCOL.md beside this file is the contract; the
// section names cited below are its headings.

#include "common/clock.h"
#include "common/json.h"
#include "common/jsonwriter.h"
#include "wire/messages.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace holdpoint::protocol {

// The numbers, ids, results and capabilities a client without Qt needs too
// are defined once, in core/wire (messages.h), and used here.
inline constexpr int Version = wire::ProtocolVersion;

// "Limits"
using wire::MaxDepth;
using wire::MaxIdLength; // call_id, session_id, turn_id, item id
using wire::MaxNameLength; // agent.name, agent.framework
using wire::MaxToolNameLength;
inline constexpr std::size_t MaxReasonLength = 4096;
inline constexpr std::size_t MaxTokenLength = 1024;
inline constexpr double MaxTimeoutSeconds = 24 * 3600;

// "Error codes"
enum class ErrorCode
{
    InvalidJson,
    TooDeep,
    InvalidMessage,
    UnknownType,
    MissingField,
    InvalidField,
    UnsupportedProtocol,
    HelloRequired,
    DuplicateHello,
    AuthFailed,
    Forbidden,
    CallIdConflict,
    UnknownCall,
    CallPending,
    UnknownItem,
    AlreadyResolved,
    ConnectionLimit,
};

std::string_view errorCodeName(ErrorCode code);

enum class Role
{
    Agent,
    Reviewer
};
std::string_view roleName(Role role);

// What a client can take (PROTOCOL.md "hello"), and as the audit log and the
// queue's JSON write it (wire/messages.h). Reading ignores what is not a
// boolean.
using wire::Capabilities;
using wire::capabilitiesToJson;
Capabilities capabilitiesFromJson(const Json &json);

struct AgentInfo
{
    std::string name;
    std::string framework;
    Capabilities capabilities {};
    // The OS user the agent runs as, as it says (hooks and adapters send
    // their process owner); empty: the console's own user.
    std::string user {};
};

struct Hello
{
    int protocol = Version;
    Role role = Role::Agent;
    std::string token;
    AgentInfo agent;
    // Set by the endpoint, never read from the wire: the reviewer the token
    // belongs to, when it is not the console's own reviewer token.
    std::string reviewerName;
    std::string reviewerOsUser;
    std::optional<std::string> sessionId;
};

struct TurnStart
{
    std::string turnId;
};

struct TurnEnd
{
    std::string turnId;
};

struct ToolCall
{
    std::string callId;
    std::string toolName;
    Json args = Json::object();
    std::optional<std::string> turnId;
    Json context = Json::object();
    Json annotations = Json::object();
    std::optional<double> timeoutS;
};

struct ToolResult
{
    std::string callId;
    bool ok = true;
    Json result;
};

struct Cancel
{
    std::string callId;
};

enum class ReviewAction
{
    Approve,
    Deny,
    Edit,
    Halt
};
std::string_view reviewActionName(ReviewAction action);

// How far a reviewer's approve or deny reaches: this call, or also the
// same tool's later calls in this turn or this agent session.
enum class ReviewScope
{
    Call,
    Turn,
    Session
};
std::string_view reviewScopeName(ReviewScope scope);

struct Review
{
    std::string id;
    ReviewAction action = ReviewAction::Approve;
    std::string reason;
    std::optional<Json> args;
    ReviewScope scope = ReviewScope::Call;
};

// A reviewer's request about the reviewer page (PROTOCOL.md "The reviewer
// page"): a pairing link for themselves, the web sessions, a revoke.
enum class WebAction
{
    Pair,
    Sessions,
    Revoke
};
struct WebRequest
{
    WebAction action = WebAction::Sessions;
    std::string session; // revoke: which
};

using Message
    = std::variant<Hello, TurnStart, TurnEnd, ToolCall, ToolResult, Cancel, Review, WebRequest>;

struct ParseError
{
    ErrorCode code = ErrorCode::InvalidMessage;
    std::string message;
    std::string callId; // set when the message named one, so the error can be matched
};

struct ParseResult
{
    std::optional<Message> message;
    ParseError error;

    bool ok() const { return message.has_value(); }
};

// Parses one text frame. Pure: no I/O, no state, never throws.
ParseResult parseMessage(std::string_view text);

// Depth of the deepest array/object nesting, scanning at most until it
// exceeds `limit`. Lets us refuse pathological nesting before building a DOM.
std::size_t nestingDepth(std::string_view text, std::size_t limit);

// --- console to agent / reviewer ------------------------------------------

enum class DecisionKind
{
    Allow,
    Deny,
    Modify,
    Halt
};
std::string_view decisionKindName(DecisionKind kind);

struct Warning
{
    std::string guardrail;
    std::string code;
    std::string message;
};

struct Decision
{
    DecisionKind kind = DecisionKind::Deny;
    Json args; // what the agent must run with (allow and modify only)
    std::string reason;
    std::string decidedBy; // guardrail:<name>, human:<user>, timeout, policy:default, agent
    std::string code; // machine-readable cause, e.g. "timeout", "cancelled"
    std::vector<Warning> warnings;
    // A person's decision: how they authenticated (console, a reviewer
    // token, a web session), for the records. Not on the agent's wire.
    std::string via;
};

// How many people must approve an escalated call (PROTOCOL.md "Approvals"):
// `required` distinct reviewers approving the same arguments. A deny or a
// halt from any one of them is final at once.
struct ApprovalRule
{
    int required = 1;
    // The person who started the agent (its OS user) may not approve it.
    bool excludeRequester = false;
    // on_edit "reset": an edit voids the approvals given before it; "keep"
    // keeps them listed, counting again only if the arguments come back.
    bool resetOnEdit = true;

    // More than one reviewer's say is involved: votes are kept.
    bool voted() const { return required > 1 || excludeRequester; }
    friend bool operator==(const ApprovalRule &, const ApprovalRule &) = default;
};
constexpr int MaxApprovalsRequired = 10;
Json approvalRuleToJson(const ApprovalRule &rule);
// A rule as approvalRuleToJson writes it; anything else is the default.
ApprovalRule approvalRuleFromJson(const Json &json);
// What both rules demand: the larger count, and either one's conditions.
ApprovalRule strictest(const ApprovalRule &a, const ApprovalRule &b);

// One reviewer's approval of an item's arguments. Deny and halt are not
// votes: they end the item.
struct Vote
{
    std::string reviewer; // the authenticated name, never a claimed one
    std::string via; // how they authenticated: console, ctl, team:<role>, web:<device>
    Json args; // the arguments approved, masked as reviewers see them
    std::string argsHash; // argsDigest(args) of the real arguments
    bool edit = false; // the reviewer proposed these arguments
    TimeMs at = 0;
    friend bool operator==(const Vote &, const Vote &) = default;
};
Json votesToJson(const std::vector<Vote> &votes);
std::vector<Vote> votesFromJson(const Json &array);
// SHA-256 (hex) of the arguments' canonical JSON (keys sorted), so the same
// arguments hash the same wherever they were written.
std::string argsDigest(const Json &args);

// One loop finding of a turn as it stands now (PROTOCOL.md "turn_findings"):
// a pattern that reached its warn threshold, with the calls that make it up.
struct TurnFinding
{
    std::string guardrail;
    std::string pattern; // exact_failure, same_tool_failure, no_progress
    std::string level; // warn, or what happens at `stopAt`: block or halt
    std::string toolName;
    int count = 0;
    int warnAt = 0;
    int stopAt = 0;
    std::vector<std::string> callIds; // oldest first; the newest few when many
    std::string message;

    friend bool operator==(const TurnFinding &, const TurnFinding &) = default;
};

Json warningsToJson(const std::vector<Warning> &warnings);
Json turnFindingsToJson(const std::vector<TurnFinding> &findings);
// The findings of a "turn_findings" array; entries of another shape are skipped.
std::vector<TurnFinding> turnFindingsFromJson(const Json &array);
// What the finding says of the agent, for a reviewer deciding now:
// "agent is retrying a failing call (3/5)".
std::string turnFindingHint(const TurnFinding &finding);
Json decisionToJson(std::string_view callId, const Decision &d);
// A "warnings" array, as warningsToJson dumps, written by `w`.
void writeWarnings(JsonWriter &w, const std::vector<Warning> &warnings);
// What dumpJson(decisionToJson(callId, d)) writes, appended to `out`,
// without a tree; an Allow or Modify sends `args` instead of d.args when
// given (the arguments where they are, not a copy of them).
void appendDecisionText(
    std::string &out, std::string_view callId, const Decision &d, const Json *args = nullptr);
Json errorToJson(ErrorCode code, std::string_view message, std::string_view callId = {});

// A tool's result as sent in tool_result, and the id rule (wire/messages.h).
using wire::compactResult;
using wire::isValidId;
using wire::MaxResultBytes;

} // namespace holdpoint::protocol
