// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the audit log says happened to each call (REPLAY.md): the call as
// recorded (its arguments masked), what the chain said then, and what a
// person or the chain decided. One reader for everything that looks back
// at calls: the "always" dialog's preview (alwaysrule.h), `policy replay`
// and `policy suggest`.

#include "audit/auditfile.h"
#include "common/clock.h"
#include "common/json.h"
#include "guardrails/guardrail.h"

#include <QString>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace holdpoint::replay {

// How a call ended, as the log tells it.
enum class Fate
{
    Auto, // the chain decided (allow, modify, deny or halt) without a person
    Approved, // a person allowed it unchanged
    Edited, // a person allowed it with other arguments
    Denied, // a person denied it
    Halted, // a person halted the turn
    TimedOut, // nobody decided in time
    Cancelled, // the agent withdrew it
    Abandoned, // its agent never came back
    Undecided, // no decision record (still pending, or the log ends first)
};
std::string_view fateName(Fate fate);

// One recorded call, ready to be run through a chain again.
struct RecordedCall
{
    std::string session;
    protocol::AgentInfo agent;
    std::string callId;
    std::string tool;
    Json args = Json::object();
    Json annotations = Json::object();
    Json context = Json::object();
    std::optional<std::string> turn;
    TimeMs at = 0; // the call record's ts
    bool masked = false; // its arguments hold placeholders for secrets
    std::string outcome; // what the chain said then: allow, modify, ask, deny or halt
    Json trail = Json::array();
    Fate fate = Fate::Undecided;
    std::string decision; // the final decision: allow, modify, deny or halt ("" when none)
    std::string decidedBy; // human:alice, guardrail:rules, policy:default, ...
    std::optional<bool> ok; // the tool_result's, when the call ran and reported

    // A view for GuardrailChain; valid while this object lives and is not moved.
    CallView view() const
    {
        return { session, agent, callId, tool, args, annotations, context, turn };
    }
    // A person decided it (approved, edited, denied or halted).
    bool personDecided() const;
    // Something stopped or changed it: a person denied, edited or halted
    // it, or a guardrail denied or halted it.
    bool stopped() const;
    // A guardrail (not the policy's default) asked, denied or halted.
    bool markedByGuardrail() const;
};

// A call record's call, without its fate (what the "always" preview reads).
RecordedCall callFromRecord(const Json &record);

// Builds the history from audit records fed in log order: call records
// start an entry, decision and after_call records complete it. Records of
// other kinds, and decisions of calls it never saw, are skipped.
class HistoryBuilder
{
public:
    // Calls recorded before `since` (ms since the epoch) are left out.
    explicit HistoryBuilder(TimeMs since = 0)
        : m_since(since)
    { }
    void add(const Json &record);
    void add(Json &&record);
    // A record's line, parsed only when its event is one the history reads.
    void addLine(std::string_view line);
    std::vector<RecordedCall> take();
    std::size_t linesRead() const { return m_lines; }

private:
    TimeMs m_since;
    std::size_t m_lines = 0;
    std::vector<RecordedCall> m_calls;
    std::unordered_map<std::string, std::size_t> m_byKey; // session + '\n' + call_id
};

// Every call in the audit log at `auditDir` since `since`, oldest first.
// `error` is set, and the result empty, when there is no log there.
std::vector<RecordedCall> readHistory(const QString &auditDir, TimeMs since, QString *error);

// "2026-11-22T02:37:02.157Z" as the log writes it; nullopt for anything else.
std::optional<TimeMs> parseRecordTime(std::string_view ts);

} // namespace holdpoint::replay
