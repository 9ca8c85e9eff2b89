// SPDX-License-Identifier: Apache-2.0
#pragma once

// Rules a person's own decisions suggest (REPLAY.md "Suggestions"): what
// they always approved unchanged, grouped by tool and by the shape of the
// arguments the "always" dialog narrows to (ruleshape.h), each proved by a
// replay to allow nothing else.

#include "common/clock.h"
#include "common/json.h"
#include "replay/replay.h"

#include <QString>

#include <string>
#include <vector>

namespace holdpoint {
class AuditLog;
}

namespace holdpoint::replay {

struct Suggestion
{
    Json rule; // an entry of a rules guardrail, with a comment saying where it came from
    std::string description; // describeShape's words
    std::size_t saved = 0; // prompts it would have saved: recorded asks it now allows
    std::size_t days = 0; // distinct UTC days of those calls
    std::size_t agents = 0; // distinct agents that made them
    std::vector<std::size_t> calls; // the calls it would have allowed, indexes into the history
    // The proof: the replay with this rule added ran over this many calls,
    // and each call it newly allows was approved unchanged by a person (or
    // timed out, cancelled or abandoned unanswered): none was denied,
    // edited, halted, stopped or asked about by a guardrail, or masked.
    std::size_t replayed = 0;
};

struct SuggestOptions
{
    std::size_t minSaved = 3; // fewer saved prompts are not worth a rule
    std::string user; // who the rule's comment names
    TimeMs now = 0;
};

// The narrowest rules that would have decided what a person always
// approved unchanged, most prompts saved first. Calls the policy's
// guardrails ask about, deny or halt (a destructive command, a secret, a
// protected path) are never covered: the replay proof rejects a rule that
// would allow one, and a masked call is never a model for one.
std::vector<Suggestion> suggestRules(const std::vector<RecordedCall> &calls,
    const PolicySource &policy, const SuggestOptions &options, QString *error);

// The same from the audit log at `auditDir` and the policy `policyFiles`
// make (none: the built-in default), as the desktop's tab asks for them.
std::vector<Suggestion> suggestFromLog(const QString &auditDir, const QStringList &policyFiles,
    const SuggestOptions &options, QString *error);

// Accepting one: the rule goes into the policy file at `policyFile` as an
// "always" rule does (alwaysrule.h addRuleToPolicyFile), and, when a log is
// given, a policy_rule_added record says so, as the console's "always" writes.
// The console must then reload its policy, as ConsoleCore::addAlwaysRule
// does after writing an "always" rule (a new policy.json joins the files it
// loads and watches).
bool acceptSuggestion(
    const Suggestion &suggestion, const QString &policyFile, AuditLog *audit, QString *error);

Json suggestionToJson(const Suggestion &suggestion);

} // namespace holdpoint::replay
