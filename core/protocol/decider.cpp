// SPDX-License-Identifier: Apache-2.0
#include "decider.h"

namespace holdpoint::protocol {

namespace {

constexpr std::string_view PersonPrefix = "human:";

} // namespace

Decider Decider::person(std::string name, std::string via)
{
    return Decider { Kind::Person, std::move(name), std::move(via) };
}

Decider Decider::of(std::string_view decidedBy, std::string via)
{
    if (decidedBy.starts_with(PersonPrefix))
        return person(std::string(decidedBy.substr(PersonPrefix.size())), std::move(via));
    for (std::string_view prefix : { std::string_view("guardrail:"), std::string_view("policy:") })
        if (decidedBy.starts_with(prefix))
            return Decider { Kind::Guardrail, std::string(decidedBy), std::move(via) };
    return Decider { Kind::Other, std::string(decidedBy), std::move(via) };
}

std::string Decider::text() const
{
    return kind == Kind::Person ? std::string(PersonPrefix) + name : name;
}

std::string peopleDecidedBy(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? std::string() : std::string(",")) + Decider::person(n).text();
    return out;
}

std::vector<std::string> peopleIn(std::string_view decidedBy)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= decidedBy.size()) {
        std::size_t end = decidedBy.find(',', start);
        if (end == std::string_view::npos)
            end = decidedBy.size();
        if (const Decider who = Decider::of(decidedBy.substr(start, end - start)); who.isPerson())
            out.push_back(who.name);
        start = end + 1;
    }
    return out;
}

} // namespace holdpoint::protocol
