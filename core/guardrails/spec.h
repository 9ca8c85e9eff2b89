// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading guardrail configuration from a policy file. Every mistake becomes
// a SpecError naming the JSON path and what was expected, which the policy
// loader prefixes with the file name.

#include "common/json.h"
#include "protocol/protocol.h"

#include <initializer_list>
#include <stdexcept>
#include <string>

namespace holdpoint {

struct SpecError : std::runtime_error
{
    SpecError(std::string at, const std::string &message)
        : std::runtime_error(message)
        , path(std::move(at))
    { }
    std::string path;
};

// One JSON object of configuration at `path` (e.g. "guardrails[2]").
class SpecReader
{
public:
    SpecReader(const Json &object, std::string path);

    const Json &json() const { return m_object; }
    const std::string &path() const { return m_path; }
    std::string pathOf(const std::string &key) const
    {
        return m_path.empty() ? key : m_path + "." + key;
    }
    bool has(const char *key) const;

    std::string string(const char *key) const; // required
    std::string string(const char *key, const std::string &fallback) const;
    bool boolean(const char *key, bool fallback) const;
    double number(const char *key, double fallback, double min, double max) const;
    const Json &array(const char *key) const; // required
    const Json *optional(const char *key) const;
    std::string oneOf(
        const char *key, std::initializer_list<const char *> choices, const char *fallback) const;
    // Refuses keys other than these, so a typo never silently disables a check.
    void onlyKeys(std::initializer_list<const char *> keys) const;

    [[noreturn]] void fail(const std::string &key, const std::string &message) const;

private:
    const Json &m_object;
    std::string m_path;
};

// An "approvals" object: {"required": 1-10, "exclude_requester": bool,
// "on_edit": "reset" | "keep"} (README.md "Approvals").
protocol::ApprovalRule readApprovals(const Json &value, const std::string &path);

std::string joinChoices(std::initializer_list<const char *> choices);
bool isComment(const Json &value);

} // namespace holdpoint
