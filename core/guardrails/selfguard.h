// SPDX-License-Identifier: Apache-2.0
#pragma once

// The guardrail that keeps Holdpoint out of reach of the agents it watches
// (README.md "self_guard", issue 47 §2). An agent usually runs as the same
// OS user as the console, so whatever file it can name it can read: the
// reviewer token would let it approve its own calls, and removing its CLI's
// hook would take Holdpoint out of the loop. It is built in, first in every
// console's chain, and on unless a policy turns it off by name with a
// reason. It is a deny list, so a speed bump, not a boundary: the boundary
// is running the agent as another OS user (README.md "Two users").

#include "guardrails/guardrail.h"

#include <QtGlobal>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

// What the guard protects, given by whoever builds the chain (the console
// knows its data dir, the policy files it loaded and its pid).
struct SelfGuardContext
{
    std::string dataDir; // absolute; empty: no data dir to guard
    std::string auditDir; // absolute; empty: <dataDir>/audit, inside it anyway
    std::vector<std::string> policyFiles; // absolute paths; built-in (":/…") ones are skipped
    qint64 consolePid = 0; // 0: unknown
};

class SelfGuardGuardrail final : public Guardrail
{
public:
    static constexpr std::string_view Name = "self_guard";
    // Reviewer commands of holdpoint-ctl (app/holdpoint-ctl/main.cpp: the
    // ones that take --credential, and reviewer/team/audit, which act on
    // who reviews and on the record, and insights, which reads it).
    // `policy replay` and `policy suggest`, which read the record too, are
    // refused beside them (selfguard.cpp).
    static constexpr std::string_view ReviewerCommands[] = { "approve", "deny", "edit", "halt",
        "pending", "web", "reviewer", "team", "audit", "insights" };

    explicit SelfGuardGuardrail(SelfGuardContext context);
    std::string_view name() const override { return Name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;

private:
    struct Finding
    {
        std::string code;
        std::string reason;
    };
    // One path as the agent wrote it, taken against `cwd`, in a call of
    // `tool` ("" for a shell command): a tool that only reads may read hook
    // configuration (not Holdpoint's files).
    std::optional<Finding> checkPath(
        const std::string &written, const std::string &cwd, std::string_view tool) const;
    std::optional<Finding> checkShell(std::string_view line, const std::string &cwd) const;
    std::optional<Finding> checkCommand(std::string_view words, const std::string &cwd) const;
    std::optional<Finding> walk(const Json &node, const std::string &key, const std::string &cwd,
        std::string_view tool, int depth) const;
    std::string expand(std::string_view written) const;

    std::vector<std::string> m_roots; // normalized: the data dir, the audit dir, each policy file
    std::string m_dataDir; // normalized
    std::string m_home;
    std::string m_pid; // decimal, "" when unknown
};

} // namespace holdpoint
