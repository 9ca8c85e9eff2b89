// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/guardrail.h"
#include "guardrails/matchers.h"
#include "guardrails/spec.h"

#include <QRegularExpression>

#include <vector>

namespace holdpoint {

// Finds credentials in arguments (README.md "secrets"): asks or denies, and
// has them masked wherever a person or a log sees the call.
class SecretsGuardrail final : public Guardrail
{
public:
    SecretsGuardrail(std::string name, const SpecReader &spec);
    std::string_view name() const override { return m_name; }
    Verdict beforeCall(const CallView &call, const GuardContext &context) override;
    std::vector<Redaction> redactions(const CallView &call) const override;

    struct Finding
    {
        std::string kind;
        std::string path; // where in the arguments, e.g. headers.Authorization
        std::string secret;
    };
    std::vector<Finding> scan(const Json &args) const;

private:
    struct Detector
    {
        std::string kind;
        // Capture group 1, when present, is the secret part. Its literal
        // prefilter turns away, without PCRE, text no match can be in.
        Regex regex;
    };
    void walk(const Json &node, std::string &path, const std::string &key,
        std::vector<Finding> *out) const;
    void scanString(
        const std::string &text, const std::string &path, std::vector<Finding> *out) const;

    std::string m_name;
    Action m_action = Action::Ask;
    std::vector<Detector> m_detectors;
    bool m_credentialKeys = true;
    Regex m_credentialKey;
};

} // namespace holdpoint
