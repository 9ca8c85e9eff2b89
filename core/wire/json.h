// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON for code that must not load Qt (the hooks an agent CLI starts for
// every tool call): nlohmann's, as everywhere else in Holdpoint.

#include <nlohmann/json.hpp>

#include <string>

namespace holdpoint {

using Json = nlohmann::json;

// Serialises for the wire and for people: invalid UTF-8 inside strings is
// replaced, never thrown on, because values can come from anywhere.
inline std::string dumpJson(const Json &j, int indent = -1)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace holdpoint
