// SPDX-License-Identifier: Apache-2.0
#pragma once

// Policies for tests, parsed by the real loader.

#include "guardrails/chain.h"
#include "policy/policy.h"

#include <QtGlobal>

namespace holdpoint::test {

// A policy that must parse; a broken fixture stops the test binary loudly.
inline Policy policyOf(const std::string &text, const QString &label = QStringLiteral("p.json"))
{
    PolicyResult r = parsePolicy(text, label);
    if (!r.policy)
        qFatal("test policy did not parse: %s", qPrintable(r.error));
    return std::move(*r.policy);
}

// The error a policy that must not parse gives.
inline QString policyError(const std::string &text, const QString &label = QStringLiteral("p.json"))
{
    const PolicyResult r = parsePolicy(text, label);
    return r.policy ? QStringLiteral("(parsed without error)") : r.error;
}

// The policy's chain on one call, before it runs, in session "s1" at time 0.
inline ChainOutcome runBeforeCall(const Policy &policy, const std::string &tool, const Json &args,
    const std::string &agentName = "coder", const Json &context = Json::object())
{
    const std::string session = "s1", callId = "c1";
    const protocol::AgentInfo agent { agentName, {} };
    const Json annotations = Json::object();
    const std::optional<std::string> turn;
    const CallView view { session, agent, callId, tool, args, annotations, context, turn };
    return policy.chain->beforeCall(view, { 0 }, policy.defaultAction);
}

} // namespace holdpoint::test
