// SPDX-License-Identifier: Apache-2.0
#include "rules.h"

#include <cmath>

namespace holdpoint {

namespace {

// Sets `value` at a dotted path, creating objects on the way.
void setAt(Json &root, const std::string &dotted, const Json &value)
{
    Json *cur = &root;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!cur->is_object())
            *cur = Json::object();
        if (dot == std::string::npos) {
            (*cur)[key] = value;
            return;
        }
        cur = &(*cur)[key];
        start = dot + 1;
    }
}

void removeAt(Json &root, const std::string &dotted)
{
    const std::size_t dot = dotted.rfind('.');
    if (dot == std::string::npos) {
        if (root.is_object())
            root.erase(dotted);
        return;
    }
    Json *parent = jsonAt(root, dotted.substr(0, dot));
    if (parent && parent->is_object())
        parent->erase(dotted.substr(dot + 1));
}

// Masked before it is cut short or escaped, which would leave a secret
// that masking the finished reason no longer recognises.
std::string shown(const Json &v, const GuardContext &context)
{
    std::string s = v.is_string() ? context.masked(v.get<std::string>()) : dumpJson(context.masked(v));
    if (s.size() > 200)
        s = s.substr(0, 197) + "...";
    return s;
}

} // namespace

RulesGuardrail::RulesGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({"type", "name", "fail_open", "budget_ms", "rules"});
    const Json &rules = spec.array("rules");
    for (std::size_t i = 0; i < rules.size(); ++i) {
        m_rules.push_back(compileRule(rules[i], spec.pathOf("rules") + "[" + std::to_string(i) + "]"));
        index(std::uint32_t(i));
    }
}

void RulesGuardrail::index(std::uint32_t i)
{
    const Rule &rule = m_rules[i];
    // A rule needs both its tool conditions, so either one bounds its tools.
    std::vector<std::string> keys;
    if (rule.tool && !rule.tool->hasPatterns()) {
        for (const std::string &name : rule.tool->exactNames())
            keys.push_back(asciiLower(name));
    } else if (rule.compact && !rule.compact->exactTool().empty()) {
        keys.push_back(rule.compact->exactTool());
    } else {
        m_anyTool.push_back(i);
        return;
    }
    for (const std::string &key : keys) {
        std::vector<std::uint32_t> &list = m_byTool[key];
        if (list.empty() || list.back() != i) // ["bash", "Bash"] is one key
            list.push_back(i);
    }
}

RulesGuardrail::Rule RulesGuardrail::compileRule(const Json &json, const std::string &path) const
{
    const SpecReader r(json, path);
    r.onlyKeys({"when", "match", "action", "reason", "code", "set", "remove", "clamp", "approvals"});
    Rule rule;
    if (!r.has("when") && !r.has("match"))
        r.fail("", "a rule needs \"when\", \"match\" or both");
    if (const Json *when = r.optional("when")) {
        const SpecReader w(*when, r.pathOf("when"));
        w.onlyKeys({"tool", "agent", "args"});
        if (const Json *t = w.optional("tool"))
            rule.tool = NameMatcher::compile(*t, w.pathOf("tool"));
        if (const Json *a = w.optional("agent"))
            rule.agent = NameMatcher::compile(*a, w.pathOf("agent"));
        if (const Json *args = w.optional("args")) {
            if (!args->is_object())
                w.fail("args", std::string("expected an object of argument paths to matchers, got ") + args->type_name());
            for (auto it = args->begin(); it != args->end(); ++it)
                rule.args.push_back({ArgPath(it.key()),
                                     ValueMatcher::compile(it.value(), w.pathOf("args") + "." + it.key())});
        }
    }
    if (r.has("match"))
        rule.compact = CompactMatcher::compile(r.string("match"), r.pathOf("match"));

    const std::string action = r.oneOf("action", {"allow", "warn", "modify", "ask", "deny", "halt"}, nullptr);
    rule.action = *actionFromName(action);
    rule.reason = r.string("reason", "matched " + path);
    rule.code = r.string("code", path);

    if (const Json *approvals = r.optional("approvals")) {
        if (rule.action != Action::Ask)
            r.fail("approvals", "only an ask rule waits for approvals (this rule's action is " + action + ")");
        rule.approvals = readApprovals(*approvals, r.pathOf("approvals"));
    }

    const bool rewrites = r.has("set") || r.has("remove") || r.has("clamp");
    if (rule.action == Action::Modify && !rewrites)
        r.fail("action", "modify needs at least one of: set, remove, clamp");
    if (rule.action != Action::Modify && rewrites)
        r.fail(r.has("set") ? "set" : r.has("remove") ? "remove" : "clamp", "only a modify rule may rewrite arguments");
    if (const Json *set = r.optional("set")) {
        if (!set->is_object())
            r.fail("set", std::string("expected an object of argument paths to values, got ") + set->type_name());
        for (auto it = set->begin(); it != set->end(); ++it)
            rule.set.emplace_back(it.key(), it.value());
    }
    if (const Json *remove = r.optional("remove")) {
        if (!remove->is_array())
            r.fail("remove", std::string("expected an array of argument paths, got ") + remove->type_name());
        for (std::size_t i = 0; i < remove->size(); ++i) {
            if (!(*remove)[i].is_string())
                r.fail("remove[" + std::to_string(i) + "]", std::string("expected a string, got ") + (*remove)[i].type_name());
            rule.remove.push_back((*remove)[i].get<std::string>());
        }
    }
    if (const Json *clamp = r.optional("clamp")) {
        if (!clamp->is_object())
            r.fail("clamp", std::string("expected an object of argument paths to {min, max}, got ") + clamp->type_name());
        for (auto it = clamp->begin(); it != clamp->end(); ++it) {
            const SpecReader c(it.value(), r.pathOf("clamp") + "." + it.key());
            c.onlyKeys({"min", "max"});
            Clamp cl {it.key(), {}, {}};
            if (c.has("min"))
                cl.min = c.number("min", 0, -1e308, 1e308);
            if (c.has("max"))
                cl.max = c.number("max", 0, -1e308, 1e308);
            if (!cl.min && !cl.max)
                c.fail("", "expected min, max or both");
            rule.clamp.push_back(cl);
        }
    }
    return rule;
}

bool RulesGuardrail::matches(const Rule &rule, const CallView &call, CallScratch &scratch) const
{
    if (rule.tool && !rule.tool->matches(call.toolName))
        return false;
    if (rule.agent && !rule.agent->matches(call.agent.name))
        return false;
    for (const auto &a : rule.args)
        if (!a.matcher.matches(a.path.find(call.args), scratch))
            return false;
    if (rule.compact && !rule.compact->matches(call.toolName, call.args, scratch))
        return false;
    return true;
}

Json RulesGuardrail::rewrite(const Rule &rule, const Json &args)
{
    Json out = args;
    for (const auto &[path, value] : rule.set)
        setAt(out, path, value);
    for (const auto &path : rule.remove)
        removeAt(out, path);
    for (const auto &c : rule.clamp) {
        const Json *v = jsonAt(out, c.path);
        if (!v || !v->is_number())
            continue;
        double d = v->get<double>();
        if (c.min)
            d = std::max(d, *c.min);
        if (c.max)
            d = std::min(d, *c.max);
        if (d != v->get<double>())
            setAt(out, c.path, std::floor(d) == d && std::abs(d) < 9e15 ? Json(static_cast<long long>(d)) : Json(d));
    }
    return out;
}

std::string RulesGuardrail::expandReason(const std::string &reason, const CallView &call, const GuardContext &context)
{
    std::string out;
    out.reserve(reason.size());
    std::size_t i = 0;
    while (i < reason.size()) {
        const std::size_t open = reason.find('{', i);
        if (open == std::string::npos) {
            out.append(reason, i, std::string::npos);
            break;
        }
        const std::size_t close = reason.find('}', open);
        if (close == std::string::npos) {
            out.append(reason, i, std::string::npos);
            break;
        }
        out.append(reason, i, open - i);
        const std::string key = reason.substr(open + 1, close - open - 1);
        if (key == "tool") {
            out += call.toolName;
        } else if (key == "agent") {
            out += call.agent.name;
        } else if (key.starts_with("args.")) {
            const Json *v = jsonAt(call.args, key.substr(5));
            out += v ? shown(*v, context) : std::string("(absent)");
        } else {
            out.append(reason, open, close - open + 1);
        }
        i = close + 1;
    }
    return out;
}

Verdict RulesGuardrail::beforeCall(const CallView &call, const GuardContext &context)
{
    static const std::vector<std::uint32_t> none;
    const auto found = m_byTool.find(asciiLower(call.toolName));
    const std::vector<std::uint32_t> &forTool = found == m_byTool.end() ? none : found->second;
    CallScratch scratch(call.context);
    // Both lists are in policy order: take the lower index first.
    auto a = forTool.cbegin(), b = m_anyTool.cbegin();
    while (a != forTool.cend() || b != m_anyTool.cend()) {
        const std::uint32_t i = b == m_anyTool.cend() || (a != forTool.cend() && *a < *b) ? *a++ : *b++;
        const Rule &rule = m_rules[i];
        if (!matches(rule, call, scratch))
            continue;
        Verdict v = Verdict::make(rule.action, rule.code, expandReason(rule.reason, call, context));
        v.metadata["rule"] = std::size_t(i);
        if (rule.approvals)
            v.metadata["approvals"] = protocol::approvalRuleToJson(*rule.approvals);
        if (rule.action == Action::Modify)
            v.args = rewrite(rule, call.args);
        return v;
    }
    return Verdict::pass();
}

} // namespace holdpoint
