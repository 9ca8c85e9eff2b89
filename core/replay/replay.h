// SPDX-License-Identifier: Apache-2.0
#pragma once

// A policy run against what happened (REPLAY.md): the recorded calls go
// through a fresh chain in their recorded order, at their recorded times,
// offline. Nothing is sent, queued or written.

#include "guardrails/selfguard.h"
#include "policy/policy.h"
#include "replay/history.h"

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace holdpoint::replay {

// Policy files read once, so a replay can build a fresh chain (fresh rate
// windows and loop counters) as often as it needs, with rules added.
class PolicySource
{
public:
    // No files: the built-in default policy, as the console would load.
    static std::optional<PolicySource> load(const QStringList &files, QString *error);
    // The policy, with the built-in self-guard when a context is given,
    // and `extraRules` (rules guardrail entries) in a rules guardrail of
    // their own after the files' guardrails.
    std::optional<Policy> build(const std::vector<Json> &extraRules, QString *error) const;
    void setSelfGuard(std::optional<SelfGuardContext> context) { m_selfGuard = std::move(context); }
    const QStringList &files() const { return m_files; }

private:
    QStringList m_files;
    std::vector<std::pair<QString, std::string>> m_texts; // label, bytes
    std::optional<SelfGuardContext> m_selfGuard;
};

// What the chain says now about one recorded call.
struct Replayed
{
    std::string
        outcome; // allow (arguments rewritten or not), ask, deny or halt, as call records say
    std::string decidedBy;
    std::string code;
    std::string reason;
    // Would run without a person.
    bool runsAlone() const { return outcome == "allow"; }
    // Its arguments were masked, so a matcher that reads them saw a
    // placeholder: an allow here is not proof (REPLAY.md "Masked arguments").
    bool unverified = false;
};

struct ReplayReport
{
    std::vector<Replayed> results; // one per recorded call, in order
    // Calls whose outcome changed, by (recorded outcome, outcome now).
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> transitions;
    // Calls a person denied, edited or halted, or a guardrail denied or
    // halted, that would now run without a person: a policy that must not ship.
    std::vector<std::size_t> regressions;
    std::size_t asksBefore = 0; // recorded outcomes that waited for a person
    std::size_t asksAfter = 0;
};

// Runs `calls` (oldest first) through `policy`'s chain, which it changes:
// give it a fresh one (PolicySource::build). Each call's guardrail context
// has its recorded time; a call that ran has its recorded tool_result
// (its success, not its output) fed to afterCall, so loop detection counts
// failures as it did; a turn marker is sent when a session's turn changes.
ReplayReport replayCalls(const std::vector<RecordedCall> &calls, const Policy &policy);

// The outcome names a recorded call and a replay use.
std::string outcomeName(const ChainOutcome &outcome);

} // namespace holdpoint::replay
