// SPDX-License-Identifier: Apache-2.0
#pragma once

// How wide an "always" rule is: which agent, which tool, and a pattern per
// argument. The console proposes the narrowest shape that covers the call
// in front of the reviewer; the reviewer widens or narrows each part, and
// the shape becomes a rule of the rules guardrail (guardrails/README.md).

#include "common/clock.h"
#include "common/json.h"
#include "queue/queueitem.h"

#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

struct ArgPattern
{
    enum class Kind
    {
        Exact,
        Prefix,
        Glob,
        Any
    };
    std::string key; // a top-level argument
    Kind kind = Kind::Any;
    Json value; // Exact: the value, as the agent sent it
    std::string text; // Prefix and Glob: the pattern
    bool secret = false; // holds a secret: never written into a rule, so Any only
    bool pathLike = false; // a Glob also keeps the path under its fixed directory
    // The command line of a shell tool (ShellParse::commandArgument): a
    // Prefix or Glob becomes a Bash(…) rule that reads the shell, so an
    // allow of "make" never allows "make; rm -rf ~" (guardrails/README.md
    // "Shell commands"). Exact stays the whole line, as the person saw it.
    bool shellCommand = false;
};

struct RuleShape
{
    bool allow = true;
    std::string tool;
    std::optional<std::string> agent; // unset: any agent
    std::vector<ArgPattern> args; // Any entries add no condition
};

// The narrowest shape that covers `item`: this agent, this tool; a path
// in the same directory, a shell command by its program and subcommand
// (`git status --short` is Bash(git status:*)), other values exactly. Long or multi-line text,
// nested values and secrets are Any: a rule cannot usefully pin them.
RuleShape proposeShape(const QueueItem &item, bool allow);

// The rule for the console's rules guardrail, with a code, a reason and a
// comment saying who added it from which call.
Json ruleFromShape(const RuleShape &shape, const QueueItem &item, const std::string &reason,
    const std::string &user, TimeMs now);

// The rule in plain words: "Allow read_file from agent coder when path
// matches /src/* (and stays under /src)."
std::string describeShape(const RuleShape &shape);

// Why the shape cannot become a rule, or "": a shell command's pattern with
// shell operators, quotes or substitutions is not the words of one command.
std::string shapeProblem(const RuleShape &shape);

// A shell line's program and subcommand as proposeShape narrows it (`git
// status --short` is "git status"), or "" when the line is not one simple
// command the shell parser fully understands.
std::string commandShape(const std::string &line);

// Allows the tool with any arguments for every agent.
bool isWideOpen(const RuleShape &shape);

std::string_view argKindName(ArgPattern::Kind kind);

} // namespace holdpoint
