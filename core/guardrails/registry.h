// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "guardrails/chain.h"
#include "guardrails/spec.h"

namespace holdpoint {

// The built-in guardrail types a policy may name.
std::initializer_list<const char *> builtinGuardrailTypes();

// Builds one chain entry from its policy object at `path` ("guardrails[2]").
// Throws SpecError.
ChainEntry createGuardrail(const Json &spec, const std::string &path);

} // namespace holdpoint
