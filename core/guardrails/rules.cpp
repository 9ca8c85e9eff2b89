// SPDX-License-Identifier: Apache-2.0
#include "rules.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace holdpoint {

namespace {

// Sets `value` at a dotted path, creating objects on the way.
void setAt(Json &root, const std::string &dotted, const Json &value)
{
    Json *cur = &root;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::string key
            = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
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
    std::string s
        = v.is_string() ? context.masked(v.get<std::string>()) : dumpJson(context.masked(v));
    if (s.size() > 200)
        s = s.substr(0, 197) + "...";
    return s;
}

// Which verdict wins when the parts of a shell command differ.
int severity(Action a)
{
    switch (a) {
    case Action::Halt:
        return 6;
    case Action::Deny:
        return 5;
    case Action::Ask:
        return 4;
    case Action::Modify:
        return 3;
    case Action::Warn:
        return 2;
    default:
        return 0;
    }
}

} // namespace

RulesGuardrail::RulesGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "rules" });
    const Json &rules = spec.array("rules");
    for (std::size_t i = 0; i < rules.size(); ++i) {
        m_rules.push_back(
            compileRule(rules[i], spec.pathOf("rules") + "[" + std::to_string(i) + "]"));
        index(std::uint32_t(i));
        const Rule &rule = m_rules.back();
        m_readsCommands = m_readsCommands || rule.commandRule || rule.lineAllow;
        m_hasWholeLineRules
            = m_hasWholeLineRules || (rule.commandRule && rule.compact->wholeLine());
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
    } else if (rule.compact && !rule.compact->toolKeys().empty()) {
        keys = rule.compact->toolKeys();
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
    r.onlyKeys(
        { "when", "match", "action", "reason", "code", "set", "remove", "clamp", "approvals" });
    Rule rule;
    if (!r.has("when") && !r.has("match"))
        r.fail("", "a rule needs \"when\", \"match\" or both");
    if (const Json *when = r.optional("when")) {
        const SpecReader w(*when, r.pathOf("when"));
        w.onlyKeys({ "tool", "agent", "args" });
        if (const Json *t = w.optional("tool"))
            rule.tool = NameMatcher::compile(*t, w.pathOf("tool"));
        if (const Json *a = w.optional("agent"))
            rule.agent = NameMatcher::compile(*a, w.pathOf("agent"));
        if (const Json *args = w.optional("args")) {
            if (!args->is_object())
                w.fail("args",
                    std::string("expected an object of argument paths to matchers, got ")
                        + args->type_name());
            for (auto it = args->begin(); it != args->end(); ++it)
                rule.args.push_back({ ArgPath(it.key()),
                    ValueMatcher::compile(it.value(), w.pathOf("args") + "." + it.key()),
                    it.key() });
        }
    }
    if (r.has("match")) {
        rule.compact = CompactMatcher::compile(r.string("match"), r.pathOf("match"));
        rule.commandRule = rule.compact->isCommand();
    }

    const std::string action
        = r.oneOf("action", { "allow", "warn", "modify", "ask", "deny", "halt" }, nullptr);
    rule.action = *actionFromName(action);
    if (rule.action == Action::Allow && rule.commandRule && rule.compact->wholeLine())
        r.fail("match",
            "an allow pattern matches the words of one simple command, so it cannot hold shell "
            "operators, "
            "quotes or substitutions (write one rule per command: Bash(make:*) and Bash(npm "
            "test:*), "
            "not Bash(make && npm test))");
    // A string pattern on the line holds for `ls x; rm -rf ~` as well as for
    // `ls x`: allowing by one is only safe for a line that is one command.
    rule.lineAllow = rule.action == Action::Allow
        && std::any_of(rule.args.begin(), rule.args.end(), [](const ArgMatch &a) {
               return (a.key == "command" || a.key == "cmd") && a.matcher.readsText();
           });
    rule.reason = r.string("reason", "matched " + path);
    rule.code = r.string("code", path);

    if (const Json *approvals = r.optional("approvals")) {
        if (rule.action != Action::Ask)
            r.fail("approvals",
                "only an ask rule waits for approvals (this rule's action is " + action + ")");
        rule.approvals = readApprovals(*approvals, r.pathOf("approvals"));
    }

    const bool rewrites = r.has("set") || r.has("remove") || r.has("clamp");
    if (rule.action == Action::Modify && !rewrites)
        r.fail("action", "modify needs at least one of: set, remove, clamp");
    if (rule.action != Action::Modify && rewrites)
        r.fail(r.has("set")       ? "set"
                : r.has("remove") ? "remove"
                                  : "clamp",
            "only a modify rule may rewrite arguments");
    if (const Json *set = r.optional("set")) {
        if (!set->is_object())
            r.fail("set",
                std::string("expected an object of argument paths to values, got ")
                    + set->type_name());
        for (auto it = set->begin(); it != set->end(); ++it)
            rule.set.emplace_back(it.key(), it.value());
    }
    if (const Json *remove = r.optional("remove")) {
        if (!remove->is_array())
            r.fail("remove",
                std::string("expected an array of argument paths, got ") + remove->type_name());
        for (std::size_t i = 0; i < remove->size(); ++i) {
            if (!(*remove)[i].is_string())
                r.fail("remove[" + std::to_string(i) + "]",
                    std::string("expected a string, got ") + (*remove)[i].type_name());
            rule.remove.push_back((*remove)[i].get<std::string>());
        }
    }
    if (const Json *clamp = r.optional("clamp")) {
        if (!clamp->is_object())
            r.fail("clamp",
                std::string("expected an object of argument paths to {min, max}, got ")
                    + clamp->type_name());
        for (auto it = clamp->begin(); it != clamp->end(); ++it) {
            const SpecReader c(it.value(), r.pathOf("clamp") + "." + it.key());
            c.onlyKeys({ "min", "max" });
            Clamp cl { it.key(), {}, {} };
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

bool RulesGuardrail::whenHolds(const Rule &rule, const CallView &call, CallScratch &scratch)
{
    if (rule.tool && !rule.tool->matches(call.toolName))
        return false;
    if (rule.agent && !rule.agent->matches(call.agent.name))
        return false;
    for (const auto &a : rule.args)
        if (!a.matcher.matches(a.path.find(call.args), scratch))
            return false;
    return true;
}

bool RulesGuardrail::conditionsHold(
    const Rule &rule, const CallView &call, CallScratch &scratch, bool shellTool) const
{
    // A Bash(…) rule covers every shell tool, which the caller knows the call's is.
    return whenHolds(rule, call, scratch)
        && (!rule.compact || (shellTool && rule.commandRule)
            || rule.compact->matchesTool(call.toolName));
}

bool RulesGuardrail::matches(const Rule &rule, const CallView &call, CallScratch &scratch) const
{
    return whenHolds(rule, call, scratch)
        && (!rule.compact || rule.compact->matches(call.toolName, call.args, scratch));
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
            setAt(out, c.path,
                std::floor(d) == d && std::abs(d) < 9e15 ? Json(static_cast<long long>(d))
                                                         : Json(d));
    }
    return out;
}

std::string RulesGuardrail::expandReason(const std::string &reason, const CallView &call,
    const GuardContext &context, std::string_view command)
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
        } else if (key == "command") {
            out += command.empty() ? std::string("(absent)")
                                   : shown(Json(std::string(command)), context);
        } else {
            out.append(reason, open, close - open + 1);
        }
        i = close + 1;
    }
    return out;
}

Verdict RulesGuardrail::verdictOf(std::uint32_t i, const CallView &call,
    const GuardContext &context, std::string_view command) const
{
    const Rule &rule = m_rules[i];
    Verdict v
        = Verdict::make(rule.action, rule.code, expandReason(rule.reason, call, context, command));
    v.metadata["rule"] = std::size_t(i);
    if (rule.approvals)
        v.metadata["approvals"] = protocol::approvalRuleToJson(*rule.approvals);
    if (rule.action == Action::Modify)
        v.args = rewrite(rule, call.args);
    return v;
}

// A shell call, one simple command at a time (README.md "Shell commands").
// Each simple command, and the line as a whole for patterns with shell
// operators, takes the first rule that matches it, as a call would. Then a
// halt, deny, ask, modify or warn of any part is the verdict (the strongest,
// the earliest part among equals): a deny of `rm` wins over an allow of
// `make`. An allow needs every simple command allowed and, when a Bash(…)
// allow is among them, nothing opaque: an allow of `make` does not cover
// `make $(curl …)`. Anything else passes, to the next guardrail and the
// policy's default.
Verdict RulesGuardrail::shellVerdict(const ShellParse &shell, const CallView &call,
    const GuardContext &context, CallScratch &scratch,
    const std::vector<std::uint32_t> &forTool) const
{
    constexpr std::uint32_t Undecided = UINT32_MAX;
    const std::size_t n = shell.size();
    const std::size_t whole = n; // the slot of the line as a whole
    // The rule each part took, on the stack for the usual short line.
    std::uint32_t onStack[8];
    std::unique_ptr<std::uint32_t[]> onHeap;
    std::uint32_t *decided
        = n + 1 <= 8 ? onStack : (onHeap = std::make_unique<std::uint32_t[]>(n + 1)).get();
    std::fill(decided, decided + n + 1, Undecided);
    std::size_t open = n + (m_hasWholeLineRules ? 1 : 0);
    std::uint32_t lineRefused
        = Undecided; // a `when` string pattern that held for a line it may not allow
    const std::string *line = m_hasWholeLineRules
        ? scratch.stringArg(call.args, CallScratch::ArgKind::Command)
        : nullptr;

    auto a = forTool.cbegin(), b = m_anyTool.cbegin();
    while (open > 0 && (a != forTool.cend() || b != m_anyTool.cend())) {
        const std::uint32_t i
            = b == m_anyTool.cend() || (a != forTool.cend() && *a < *b) ? *a++ : *b++;
        const Rule &rule = m_rules[i];
        if (!rule.commandRule) {
            // A rule on the call as a whole (its `when` reads the arguments
            // as JSON) decides every part still open.
            if (!matches(rule, call, scratch))
                continue;
            if (rule.lineAllow && !(n == 1 && shell.understood())) {
                lineRefused = std::min(lineRefused, i);
                continue;
            }
            for (std::size_t j = 0; j <= n; ++j)
                if (decided[j] == Undecided)
                    decided[j] = i;
            break;
        }
        if (!conditionsHold(rule, call, scratch, /*shellTool=*/true))
            continue;
        if (rule.compact->wholeLine()) {
            if (decided[whole] == Undecided && line && rule.compact->matchesLine(*line)) {
                decided[whole] = i;
                --open;
            }
            continue;
        }
        const bool allowing = rule.action == Action::Allow;
        for (std::size_t j = 0; j < n; ++j) {
            if (decided[j] == Undecided
                && rule.compact->matchesCommand(shell.text(j), shell.written(j), allowing)) {
                decided[j] = i;
                --open;
            }
        }
    }

    std::size_t strongest = Undecided;
    int best = 0;
    for (std::size_t j = 0; j <= n; ++j) {
        if (decided[j] != Undecided && severity(m_rules[decided[j]].action) > best) {
            best = severity(m_rules[decided[j]].action);
            strongest = j;
        }
    }
    if (strongest != Undecided)
        return verdictOf(decided[strongest], call, context,
            strongest < n ? shell.text(strongest) : std::string_view(line ? *line : std::string()));
    if (n == 0) // nothing the parser could see run: only a rule on the whole call decides
        return decided[whole] == Undecided ? Verdict::pass()
                                           : verdictOf(decided[whole], call, context, {});

    std::size_t unallowed = Undecided, allowed = Undecided;
    bool byPattern = false;
    for (std::size_t j = 0; j < n; ++j) {
        if (decided[j] == Undecided) {
            unallowed = std::min(unallowed, j);
        } else {
            allowed = std::min(allowed, j);
            byPattern = byPattern || m_rules[decided[j]].commandRule;
        }
    }
    if (unallowed == Undecided && !(byPattern && shell.opaque() != 0))
        return verdictOf(decided[0], call, context, shell.text(0));
    if (allowed == Undecided) {
        if (lineRefused == Undecided)
            return Verdict::pass();
        Verdict v;
        v.code = "shell_not_allowed";
        v.reason = "rule " + std::to_string(lineRefused)
            + " allows by a pattern on the command string, which allows only "
            + "one simple command with every part understood; this line "
            + (shell.opaque() != 0 ? "has " + ShellParse::describe(shell.opaque())
                                   : "runs " + std::to_string(n) + " commands");
        return v;
    }
    // An allow matched a part but does not decide: say why, for the reviewer.
    Verdict v;
    v.code = "shell_not_allowed";
    if (unallowed != Undecided) {
        v.reason = "rule " + std::to_string(decided[allowed]) + " allows "
            + shown(Json(std::string(shell.text(allowed))), context) + ", but no rule allows "
            + shown(Json(std::string(shell.text(unallowed))), context);
    } else {
        v.reason = "an allow rule matches every command, but the line has "
            + ShellParse::describe(shell.opaque()) + ", which no rule can see";
    }
    return v;
}

Verdict RulesGuardrail::beforeCall(const CallView &call, const GuardContext &context)
{
    static const std::vector<std::uint32_t> none;
    const auto found = m_byTool.find(asciiLower(call.toolName));
    const std::vector<std::uint32_t> &forTool = found == m_byTool.end() ? none : found->second;
    CallScratch scratch(call.context);
    if (m_readsCommands && isShellTool(call.toolName))
        if (const ShellParse *shell = scratch.shell(call.args))
            return shellVerdict(*shell, call, context, scratch, forTool);
    // Both lists are in policy order: take the lower index first.
    auto a = forTool.cbegin(), b = m_anyTool.cbegin();
    while (a != forTool.cend() || b != m_anyTool.cend()) {
        const std::uint32_t i
            = b == m_anyTool.cend() || (a != forTool.cend() && *a < *b) ? *a++ : *b++;
        if (matches(m_rules[i], call, scratch))
            return verdictOf(i, call, context, {});
    }
    return Verdict::pass();
}

} // namespace holdpoint
