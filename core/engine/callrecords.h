// SPDX-License-Identifier: Apache-2.0
#pragma once

// One place that shapes what the engine writes about a call: its audit
// records (AUDIT.md "Records") and its queue item, whether the call arrives
// live or comes back from the log after a restart.

#include "common/clock.h"
#include "common/json.h"
#include "common/sha256.h"
#include "engine/sessiontable.h"
#include "guardrails/chain.h"
#include "protocol/protocol.h"
#include "queue/queueitem.h"

#include <string>

namespace holdpoint {

// SHA-256 of a call's tool_name and args, key order ignored: what tells a
// re-send of the same call from a different call under the same call_id.
Sha256Digest callDigest(const std::string &toolName, const Json &args);

// A guardrail's rewrite for an agent that cannot take edited arguments
// would run unedited: it goes to a person instead, as sent (PROTOCOL.md
// "Capabilities").
void fitToCapabilities(ChainOutcome &outcome, const protocol::AgentInfo &agent);

// What the queue needs to know of an escalated call, however it was learnt.
struct Escalation
{
    protocol::ToolCall call; // as the agent sent it (args real, or masked after a restart)
    std::string reason;
    Json trail = Json::array();
    std::vector<protocol::Warning> warnings;
    std::optional<Json> proposedArgs;
    Json patch;
    std::vector<Redaction> redactions;
    protocol::ApprovalRule approvals;
    std::string requester;
};

// The chain's escalation of a live call.
Escalation escalationOf(protocol::ToolCall call, ChainOutcome &&outcome);

QueueItem makeQueueItem(std::string id, const std::string &sessionId,
    const protocol::AgentInfo &agent, Escalation &&escalation, TimeMs receivedAt, TimeMs deadline);

// The "call" record: the call as received, masked, with every verdict.
Json callRecord(
    const protocol::ToolCall &call, const protocol::AgentInfo &agent, const ChainOutcome &outcome);
// The "escalated" record of a queued item.
Json escalatedRecord(const QueueItem &item);
// The records written for every call go straight into a buffer
// (common/jsonwriter.h), without a tree: each appends one JSON object to
// `out`, with "agent" and "session", as the audit log keeps it
// (AUDIT.md "Records"; tests/engine/tst_records.cpp holds the trees they
// replaced and compares).
struct RecordSubject
{
    std::string_view session;
    std::string_view agent;
};

void writeCallRecord(std::string &out, const RecordSubject &subject, const protocol::ToolCall &call,
    const protocol::AgentInfo &agent, const ChainOutcome &outcome);

// What only the caller of a "decision" record knows.
struct DecisionFields
{
    std::string_view tool;
    std::string_view state; // "auto", or the item's state
    std::string_view item; // empty: none
    Json args; // modify: the arguments sent, masked; null: none
    bool edited = false;
    std::optional<std::vector<std::string>> approvers; // several approved
    std::optional<std::string_view> osUser;
    std::string_view via;
    // The call's secrets (none: null): the record's reason is masked with
    // them, and so is the reason a halted turn keeps.
    const std::vector<Redaction> *redactions = nullptr;
    bool secret() const { return redactions && !redactions->empty(); }
};
void writeDecisionRecord(std::string &out, const RecordSubject &subject,
    const DecisionFields &fields, std::string_view callId, const protocol::Decision &decision);
// `again`: a re-send answered; `auditUnavailable`: a refusal for the log.
void writeDeliveredRecord(std::string &out, const RecordSubject &subject, std::string_view callId,
    std::string_view toolName, protocol::DecisionKind kind, std::size_t connections, bool again,
    bool auditUnavailable);

// The decision the chain made by itself on a call it did not escalate,
// with what its record adds. An allowed call's arguments (or the chain's
// rewrite of them) move into `ran`: the decision message is written from
// there, never copied. `fields` views `call`, and `outcome`'s redactions
// (left in place), which must outlive it.
protocol::Decision chainDecision(ChainOutcome &&outcome, protocol::ToolCall &call,
    DecisionFields *fields, std::unique_ptr<RanCall> *ran);
// A queued item's decision (a person's, a timeout's...): what its record
// adds, and, allowed, what runs. `consoleReviewer` is this console's own
// reviewer, whose OS user the record names. `fields` views `item`.
DecisionFields reviewedFields(
    const QueueItem &item, const std::string &consoleReviewer, std::unique_ptr<RanCall> *ran);
// The "after_call" record of a call that ran, masked as its call was.
Json afterCallRecord(const std::string &callId, const RanCall &ran, bool ok,
    const AfterOutcome &after, const std::vector<Redaction> &redactions);
// A re-sent call whose decision the log kept masked: the decision message
// with the re-send's real arguments. Its reason and warnings stay as the
// log has them, since a placeholder there need not stand for a secret of
// this call: a reviewer may type one, and a halted turn's reason numbers
// the halting call's secrets.
std::string unmaskedDecisionText(
    Json maskedDecision, const Json &resentArgs, const std::vector<Redaction> &redactions);

// How long an escalated call waits for a person: the console's default,
// or less if the call asks for less (at least 1 ms).
TimeMs escalationTimeout(const std::optional<double> &timeoutS, TimeMs defaultMs);

// Decisions the engine makes itself.
protocol::Decision auditRefusal(const QString &auditError); // the audit log cannot be written
protocol::Decision cancelledDecision(); // the agent's cancel
protocol::Decision abandonedDecision(TimeMs graceMs); // nobody re-sent it in time

// The decision message as first sent, rebuilt from its record and its call's.
Json decisionFromRecords(const Json &decision, const Json &call);

} // namespace holdpoint
