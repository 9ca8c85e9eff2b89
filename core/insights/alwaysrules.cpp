// SPDX-License-Identifier: Apache-2.0
#include "alwaysrules.h"

#include "common/jsonwriter.h"
#include "policy/policy.h"

#include <algorithm>

namespace holdpoint::insights {

namespace {

std::string text(const Json &v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_array()) {
        std::string out;
        for (const Json &e : v)
            out += (out.empty() ? "" : "|") + text(e);
        return out;
    }
    return dumpJson(v);
}

// One argument's matcher in words.
std::string condition(const std::string &key, const Json &m)
{
    if (!m.is_object())
        return key + " = " + text(m);
    if (m.contains("path_under"))
        return key + " under " + text(m["path_under"]);
    if (m.contains("glob"))
        return key + " matches " + text(m["glob"]);
    if (m.contains("prefix"))
        return key + " starts with " + text(m["prefix"]);
    if (m.contains("equals"))
        return key + " = " + text(m["equals"]);
    return key + " " + dumpJson(m);
}

} // namespace

std::string alwaysRuleLabel(const Json &rule)
{
    if (!rule.is_object())
        return "(not a rule)";
    const Json when = rule.value("when", Json::object());
    std::string out = rule.value("action", std::string("allow")) + " ";
    if (const auto m = rule.find("match"); m != rule.end() && m->is_string()) {
        out += m->get<std::string>();
    } else {
        out += when.contains("tool") ? text(when["tool"]) : std::string("any tool");
        std::string conditions;
        if (const auto a = when.find("args"); a != when.end() && a->is_object())
            for (const auto &[key, matcher] : a->items())
                conditions += (conditions.empty() ? "" : ", ") + condition(key, matcher);
        if (!conditions.empty())
            out += " (" + conditions + ")";
    }
    if (when.contains("agent"))
        out += " for " + text(when["agent"]);
    return out;
}

AlwaysRules::AlwaysRules() = default;
AlwaysRules::~AlwaysRules() = default;
AlwaysRules::AlwaysRules(AlwaysRules &&) noexcept = default;
AlwaysRules &AlwaysRules::operator=(AlwaysRules &&) noexcept = default;

void AlwaysRules::add(TimeMs at, const Json &rule)
{
    if (!rule.is_object())
        return;
    // As pastMatches() does for the "always" dialog: the rule alone, in a
    // policy whose default asks, so a call it does not match is not decided.
    Json bare = rule;
    bare.erase("comment");
    const PolicyResult p
        = parsePolicy(dumpJson(Json { { "version", 1 }, { "default", "ask" },
                          { "guardrails", { { { "type", "rules" }, { "rules", { bare } } } } } }),
            QStringLiteral("policy_rule_added"));
    if (!p.policy)
        return;
    const std::string action = rule.value("action", std::string());
    if (action != "allow" && action != "deny")
        return;
    m_rules.push_back({ at, action == "allow", alwaysRuleLabel(rule),
        std::make_shared<const Policy>(*p.policy) });
    // The feed may bring them out of order; identify() walks them newest first.
    std::stable_sort(
        m_rules.begin(), m_rules.end(), [](const Rule &a, const Rule &b) { return a.at < b.at; });
}

std::optional<std::string> AlwaysRules::identify(const Json &call, TimeMs at, bool allow) const
{
    if (m_rules.empty() || !call.is_object())
        return std::nullopt;
    const std::string session = call.value("session", std::string());
    const protocol::AgentInfo agent { call.value("agent", std::string()),
        call.value("framework", std::string()), {}, {} };
    const std::string callId = call.value("call_id", std::string());
    const std::string tool = call.value("tool", std::string());
    const Json args = call.value("args", Json::object());
    const Json annotations = call.value("annotations", Json::object());
    const Json context = call.value("context", Json::object());
    const std::optional<std::string> turn = call.contains("turn") && call["turn"].is_string()
        ? std::optional(call["turn"].get<std::string>())
        : std::nullopt;
    const CallView view { session, agent, callId, tool, args, annotations, context, turn };
    for (auto it = m_rules.rbegin(); it != m_rules.rend(); ++it) {
        if (it->at > at)
            continue;
        const ChainOutcome o = it->policy->chain->beforeCall(view, { at }, DefaultAction::Ask);
        if (o.action == Action::Ask)
            continue; // the rule does not match: the next older one may
        if ((o.action == Action::Allow) == allow && it->allow == allow)
            return it->label;
        return std::nullopt; // the first match decides otherwise: not an "always" rule of ours
    }
    return std::nullopt;
}

} // namespace holdpoint::insights
