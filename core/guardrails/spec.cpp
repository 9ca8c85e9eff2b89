// SPDX-License-Identifier: Apache-2.0
#include "spec.h"

#include <algorithm>

namespace holdpoint {

std::string joinChoices(std::initializer_list<const char *> choices)
{
    std::string out;
    for (const char *c : choices) {
        if (!out.empty())
            out += ", ";
        out += c;
    }
    return out;
}

SpecReader::SpecReader(const Json &object, std::string path)
    : m_object(object)
    , m_path(std::move(path))
{
    if (!object.is_object())
        throw SpecError(m_path, std::string("expected an object, got ") + object.type_name());
}

bool SpecReader::has(const char *key) const
{
    return m_object.contains(key);
}

const Json *SpecReader::optional(const char *key) const
{
    auto it = m_object.find(key);
    return it == m_object.end() ? nullptr : &*it;
}

void SpecReader::fail(const std::string &key, const std::string &message) const
{
    throw SpecError(key.empty() ? m_path : pathOf(key), message);
}

std::string SpecReader::string(const char *key) const
{
    const Json *v = optional(key);
    if (!v)
        fail(key, "required, expected a string");
    if (!v->is_string() || v->get_ref<const std::string &>().empty())
        fail(key,
            std::string("expected a non-empty string, got ")
                + (v->is_string() ? "an empty one" : v->type_name()));
    return v->get<std::string>();
}

std::string SpecReader::string(const char *key, const std::string &fallback) const
{
    return has(key) ? string(key) : fallback;
}

bool SpecReader::boolean(const char *key, bool fallback) const
{
    const Json *v = optional(key);
    if (!v)
        return fallback;
    if (!v->is_boolean())
        fail(key, std::string("expected true or false, got ") + v->type_name());
    return v->get<bool>();
}

namespace {

// 60000, not 60000.0: numbers in messages as a person would write them.
std::string showNumber(double d)
{
    if (d == double(static_cast<long long>(d)) && d > -1e15 && d < 1e15)
        return std::to_string(static_cast<long long>(d));
    return dumpJson(Json(d));
}

} // namespace

double SpecReader::number(const char *key, double fallback, double min, double max) const
{
    const Json *v = optional(key);
    if (!v)
        return fallback;
    if (!v->is_number())
        fail(key, std::string("expected a number, got ") + v->type_name());
    const double d = v->get<double>();
    if (!(d >= min && d <= max))
        fail(key,
            "expected a number from " + showNumber(min) + " to " + showNumber(max) + ", got "
                + dumpJson(*v));
    return d;
}

const Json &SpecReader::array(const char *key) const
{
    const Json *v = optional(key);
    if (!v)
        fail(key, "required, expected an array");
    if (!v->is_array())
        fail(key, std::string("expected an array, got ") + v->type_name());
    return *v;
}

std::string SpecReader::oneOf(
    const char *key, std::initializer_list<const char *> choices, const char *fallback) const
{
    const Json *v = optional(key);
    if (!v) {
        if (!fallback)
            fail(key, "required, expected one of: " + joinChoices(choices));
        return fallback;
    }
    if (v->is_string()) {
        for (const char *c : choices)
            if (v->get_ref<const std::string &>() == c)
                return c;
    }
    fail(key, "unknown value " + dumpJson(*v) + " (expected one of: " + joinChoices(choices) + ")");
}

bool isComment(const Json &v)
{
    if (v.is_string())
        return true;
    return v.is_array()
        && std::all_of(v.begin(), v.end(), [](const Json &line) { return line.is_string(); });
}

void SpecReader::onlyKeys(std::initializer_list<const char *> keys) const
{
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        // JSON has no comments; "comment" (a string or a list of lines) is
        // allowed on every object of a policy and means nothing.
        if (it.key() == "comment") {
            if (!isComment(it.value()))
                fail("comment",
                    std::string("expected a string or a list of strings, got ")
                        + it.value().type_name());
            continue;
        }
        bool known = false;
        for (const char *k : keys)
            known = known || it.key() == k;
        if (!known)
            fail(it.key(), "unknown key (expected one of: " + joinChoices(keys) + ")");
    }
}

protocol::ApprovalRule readApprovals(const Json &value, const std::string &path)
{
    if (!value.is_object())
        throw SpecError(path,
            std::string("expected an object like {\"required\": 2}, got ") + value.type_name());
    const SpecReader r(value, path);
    r.onlyKeys({ "required", "exclude_requester", "on_edit", "comment" });
    protocol::ApprovalRule rule;
    if (!r.has("required"))
        r.fail("required",
            "required, expected the number of people who must approve (1 to "
                + std::to_string(protocol::MaxApprovalsRequired) + ")");
    const double required = r.number("required", 1, 1, protocol::MaxApprovalsRequired);
    if (required != double(int(required)))
        r.fail("required", "expected a whole number of people, got " + dumpJson(value["required"]));
    rule.required = int(required);
    rule.excludeRequester = r.boolean("exclude_requester", false);
    rule.resetOnEdit = r.oneOf("on_edit", { "reset", "keep" }, "reset") == "reset";
    return rule;
}

} // namespace holdpoint
