// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/json.h"
#include "guardrails/chain.h"
#include "guardrails/selfguard.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>

namespace holdpoint {

struct Policy
{
    DefaultAction defaultAction = DefaultAction::Ask;
    // Who must approve a call the default asks about ("default_approvals").
    protocol::ApprovalRule defaultApprovals;
    // Never null. Shared, so a running call keeps the chain it started with
    // while a reload swaps in a new one.
    std::shared_ptr<GuardrailChain> chain;
    QStringList files; // where it came from, in load order
    // "turn_off": {"self_guard": "<reason>"}: the built-in self-guard is
    // off, for this reason, said by this file. The console shows both.
    std::optional<std::string> selfGuardOff;
    QString selfGuardOffFile;

    Policy();
};

struct PolicyResult
{
    std::optional<Policy> policy;
    // "<file>: <json path>: <what is wrong> (expected ...)"
    QString error;
};

// Parses one policy document. `fileLabel` is how errors name the file.
// Pure: no I/O.
PolicyResult parsePolicy(std::string_view text, const QString &fileLabel, Policy base = {});

// Loads policy files in order; later files add to and override earlier ones.
// With no files, the shipped default policy is used.
PolicyResult loadPolicyFiles(const QStringList &files);

// `policy` with the built-in self_guard guardrail first in a new chain
// (sharing the policy's guardrails), unless the policy turned it off.
Policy withSelfGuard(Policy policy, const SelfGuardContext &context);

// What the console must keep on screen about `policy`: "" or, when the
// self-guard is off, the file and the reason it gave.
QString policyWarning(const Policy &policy);

// The default policy compiled into the binary (resources/policies/default.json).
QString defaultPolicyPath();

} // namespace holdpoint
