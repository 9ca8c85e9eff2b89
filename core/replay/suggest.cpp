// SPDX-License-Identifier: Apache-2.0
#include "suggest.h"

#include "audit/auditlog.h"
#include "replay/alwaysrule.h"
#include "replay/ruleshape.h"

#include <algorithm>
#include <map>
#include <set>

namespace holdpoint::replay {

namespace {

constexpr TimeMs DayMs = 24LL * 3600 * 1000;

// A placeholder the log writes where a secret stood (secrets.cpp): "[secret:KIND:N]".
bool holdsPlaceholder(const Json &v)
{
    if (v.is_string())
        return v.get_ref<const std::string &>().find("[secret:") != std::string::npos;
    if (v.is_object() || v.is_array()) {
        for (const Json &e : v)
            if (holdsPlaceholder(e))
                return true;
    }
    return false;
}

// The recorded call as the "always" dialog would see it. A value holding a
// placeholder counts as a secret there, so it is never pinned in a rule.
QueueItem itemOf(const RecordedCall &c)
{
    QueueItem item;
    item.callId = c.callId;
    item.sessionId = c.session;
    item.agent = c.agent;
    item.toolName = c.tool;
    item.args = c.args;
    if (c.args.is_object())
        for (auto it = c.args.begin(); it != c.args.end(); ++it)
            if (holdsPlaceholder(it.value()) && it.value().is_string())
                item.redactions.push_back(
                    { it.value().get<std::string>(), "[masked]", "placeholder" });
    return item;
}

// "https://host/..." -> "https://host/": a host, never a host's prefix
// ("https://example.com.evil" does not start with "https://example.com/").
std::string urlHost(const std::string &s)
{
    for (const std::string_view scheme : { "https://", "http://" }) {
        if (!s.starts_with(scheme))
            continue;
        const std::size_t end = s.find_first_of("/?#", scheme.size());
        const std::string host = s.substr(
            scheme.size(), end == std::string::npos ? std::string::npos : end - scheme.size());
        if (host.empty() || host.find_first_of("@\\ ") != std::string::npos)
            return {};
        return std::string(scheme) + host + "/";
    }
    return {};
}

// The shape a group shares: the tool, and per argument its key and the
// pattern the dialog narrows it to; exact values are compared afterwards.
std::string groupKey(const RuleShape &shape)
{
    std::string key = shape.tool;
    for (const ArgPattern &p : shape.args) {
        key += '\n';
        key += p.key;
        key += '=';
        key += argKindName(p.kind);
        if (p.kind == ArgPattern::Kind::Prefix || p.kind == ArgPattern::Kind::Glob)
            key += ':' + p.text;
        if (p.secret)
            key += ":secret";
    }
    return key;
}

RuleShape shapeOf(const RecordedCall &c)
{
    RuleShape shape = proposeShape(itemOf(c), true);
    for (ArgPattern &p : shape.args) {
        if (p.kind != ArgPattern::Kind::Exact || !p.value.is_string())
            continue;
        if (p.shellCommand) {
            // `git status` alone joins `git status --short`: Bash(git status:*)
            // covers both, and nothing chained to either.
            if (const std::string words = commandShape(p.value.get<std::string>());
                !words.empty()) {
                p.kind = ArgPattern::Kind::Prefix;
                p.text = words;
            }
            continue;
        }
        if (const std::string host = urlHost(p.value.get<std::string>()); !host.empty()) {
            p.kind = ArgPattern::Kind::Prefix;
            p.text = host;
        }
    }
    return shape;
}

struct Group
{
    RuleShape shape;
    std::vector<std::size_t> calls;
};

// One shape for a group: the agent when there is only one; an exact value
// only where every call had the same one, else any value.
RuleShape merge(const Group &g, const std::vector<RecordedCall> &calls)
{
    RuleShape shape = g.shape;
    std::set<std::string> agents;
    for (std::size_t i : g.calls)
        agents.insert(calls[i].agent.name);
    if (agents.size() > 1)
        shape.agent.reset();
    for (ArgPattern &p : shape.args) {
        if (p.kind != ArgPattern::Kind::Exact || p.shellCommand)
            continue;
        for (std::size_t i : g.calls) {
            const Json &args = calls[i].args;
            const auto v = args.find(p.key);
            if (v == args.end() || *v != p.value) {
                p.kind = ArgPattern::Kind::Any;
                break;
            }
        }
    }
    return shape;
}

std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

std::vector<Suggestion> suggestRules(const std::vector<RecordedCall> &calls,
    const PolicySource &source, const SuggestOptions &options, QString *error)
{
    std::vector<Suggestion> out;
    const std::optional<Policy> basePolicy = source.build({}, error);
    if (!basePolicy)
        return out;
    const ReplayReport base = replayCalls(calls, *basePolicy);

    // Models: calls that still ask only because nothing decided them (the
    // policy's default), and that a person approved as they were.
    std::map<std::string, Group> groups;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const RecordedCall &c = calls[i];
        const Replayed &now = base.results[i];
        if (c.fate != Fate::Approved || c.decision != "allow" || c.masked || c.markedByGuardrail())
            continue;
        if (now.outcome != "ask" || now.decidedBy != "policy:default")
            continue;
        RuleShape shape = shapeOf(c);
        auto [it, added] = groups.try_emplace(groupKey(shape));
        if (added)
            it->second.shape = std::move(shape);
        it->second.calls.push_back(i);
    }

    for (const auto &[key, group] : groups) {
        if (group.calls.size() < options.minSaved)
            continue;
        const RuleShape shape = merge(group, calls);
        if (!shapeProblem(shape).empty() || isWideOpen(shape))
            continue;
        const RecordedCall &first = calls[group.calls.front()];
        Json rule = ruleFromShape(shape, itemOf(first),
            "approved every time by a person: suggested from the audit log", options.user,
            options.now);
        rule["code"] = "suggested";
        rule["comment"] = "suggested to " + options.user + " from "
            + plural(group.calls.size(), "call", "calls") + " a person approved unchanged, first "
            + first.callId + " of " + first.agent.name;

        // The proof: what the rule newly allows, over the whole history.
        QString ruleError;
        const std::optional<Policy> with = source.build({ rule }, &ruleError);
        if (!with)
            continue;
        const ReplayReport report = replayCalls(calls, *with);
        Suggestion s;
        bool clean = true;
        std::set<qint64> days;
        std::set<std::string> agents;
        for (std::size_t i = 0; i < calls.size() && clean; ++i) {
            if (!report.results[i].runsAlone() || base.results[i].runsAlone())
                continue;
            const RecordedCall &c = calls[i];
            // Nobody said no to a call that timed out, was cancelled or
            // abandoned: the rule may cover it. Anything a person or a
            // guardrail stopped, changed or asked about, or whose
            // arguments the log masked, it may not.
            const bool unanswered = c.fate == Fate::TimedOut || c.fate == Fate::Cancelled
                || c.fate == Fate::Abandoned;
            const bool approved = c.fate == Fate::Approved && c.decision == "allow";
            if ((!approved && !unanswered) || c.masked || c.markedByGuardrail()
                || base.results[i].decidedBy != "policy:default") {
                clean = false;
                break;
            }
            s.calls.push_back(i);
            days.insert(c.at / DayMs);
            agents.insert(c.agent.name);
        }
        if (!clean || s.calls.size() < options.minSaved)
            continue;
        s.rule = std::move(rule);
        s.description = describeShape(shape);
        s.saved = s.calls.size();
        s.days = days.size();
        s.agents = agents.size();
        s.replayed = calls.size();
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(),
        [](const Suggestion &a, const Suggestion &b) { return a.saved > b.saved; });
    return out;
}

std::vector<Suggestion> suggestFromLog(const QString &auditDir, const QStringList &policyFiles,
    const SuggestOptions &options, QString *error)
{
    const std::optional<PolicySource> source = PolicySource::load(policyFiles, error);
    if (!source)
        return {};
    error->clear();
    const std::vector<RecordedCall> calls = readHistory(auditDir, 0, error);
    if (!error->isEmpty())
        return {};
    return suggestRules(calls, *source, options, error);
}

bool acceptSuggestion(
    const Suggestion &suggestion, const QString &policyFile, AuditLog *audit, QString *error)
{
    if (!addRuleToPolicyFile(policyFile, suggestion.rule, error))
        return false;
    if (audit)
        audit->append("policy_rule_added",
            Json { { "file", policyFile.toStdString() }, { "rule", suggestion.rule },
                { "suggested",
                    { { "saved", suggestion.saved }, { "days", suggestion.days },
                        { "agents", suggestion.agents } } } });
    return true;
}

Json suggestionToJson(const Suggestion &s)
{
    return Json { { "rule", s.rule }, { "description", s.description }, { "saved", s.saved },
        { "days", s.days }, { "agents", s.agents }, { "replayed", s.replayed },
        { "denied_edited_halted_matched", 0 } };
}

} // namespace holdpoint::replay
