// SPDX-License-Identifier: Apache-2.0
#pragma once

// Who made a decision, typed (PROTOCOL.md "decided_by"): its kind, its
// name, and for a person how they authenticated. The wire's and the
// records' text ("human:alice", "guardrail:rm-rf", "timeout") is written
// and read here only, so no caller tests a prefix of its own.

#include <string>
#include <string_view>
#include <vector>

namespace holdpoint::protocol {

struct Decider
{
    enum class Kind
    {
        Person, // human:<name>
        Guardrail, // guardrail:<name>, policy:<name>
        Other, // timeout, agent, audit, team, standing...
        // Guardrail and Other: the name is decided_by's whole text.
    };
    Kind kind = Kind::Other;
    std::string name;
    std::string via; // a person's: console, ctl, web:<device>, team:<role>

    static Decider person(std::string name, std::string via = {});
    // One decided_by as it is written; a person's name is everything after
    // the prefix.
    static Decider of(std::string_view decidedBy, std::string via = {});
    bool isPerson() const { return kind == Kind::Person; }
    // As decided_by carries it.
    std::string text() const;
};

// decided_by of a decision several people approved, "human:alice,human:bob",
// and the people in one, in order ("alice", "bob"); others are skipped.
std::string peopleDecidedBy(const std::vector<std::string> &names);
std::vector<std::string> peopleIn(std::string_view decidedBy);

} // namespace holdpoint::protocol
