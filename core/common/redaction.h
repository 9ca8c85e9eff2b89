// SPDX-License-Identifier: Apache-2.0
#pragma once

// Secrets a person or a log must not see, and what stands in their place.
// The queue, the audit records and the guardrails all mask with these, so
// masking lives below all of them.

#include "common/json.h"

#include <string>
#include <vector>

namespace holdpoint {

// A value people must not see, and what they see instead. Placeholders are
// unique within a call, so an edit that keeps one can be restored.
struct Redaction
{
    std::string secret;
    std::string placeholder;
    std::string kind;
};

// Replaces every redacted value inside every string of `j` (keys too).
Json maskJson(const Json &j, const std::vector<Redaction> &redactions);
std::string maskText(std::string text, const std::vector<Redaction> &redactions);
// Puts the real values back where placeholders stand (a reviewer's edit).
Json unmaskJson(const Json &j, const std::vector<Redaction> &redactions);

} // namespace holdpoint
