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

} // namespace holdpoint::test
