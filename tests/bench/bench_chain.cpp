// SPDX-License-Identifier: Apache-2.0
// Scenario chain: the guardrail chain alone.

#include "bench.h"

#include "guardrails/chain.h"
#include "policy/policy.h"

#include <algorithm>
#include <cstdio>

namespace holdpoint::bench {

namespace {

// Median of `repeats` timed runs of `iterations` calls, in ns per call.
template <typename Fn> double measure(int iterations, int repeats, Fn &&fn)
{
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
        const auto start = SteadyClock::now();
        for (int i = 0; i < iterations; ++i)
            fn(i);
        const double ns
            = std::chrono::duration<double, std::nano>(SteadyClock::now() - start).count();
        runs.push_back(ns / iterations);
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
}

std::string twoHundredRules()
{
    Json rules = Json::array();
    for (int i = 0; i < 199; ++i) {
        // A mix of every matcher kind, none of which matches the call.
        switch (i % 5) {
        case 0:
            rules.push_back(
                { { "when", { { "tool", "tool_" + std::to_string(i) } } }, { "action", "deny" } });
            break;
        case 1:
            rules.push_back(
                { { "match", "Bash(rm -rf /" + std::to_string(i) + "*)" }, { "action", "deny" } });
            break;
        case 2:
            rules.push_back(
                { { "when",
                      { { "args",
                          { { "cwd", { { "path_under", "/srv/" + std::to_string(i) } } } } } } },
                    { "action", "ask" } });
            break;
        case 3:
            rules.push_back(
                { { "when",
                      { { "tool", "bash" },
                          { "args",
                              { { "command",
                                  { { "regex", "^deploy-" + std::to_string(i) + "\\b" } } } } } } },
                    { "action", "deny" } });
            break;
        default:
            rules.push_back({ { "when",
                                  { { "agent", "agent-" + std::to_string(i) + "-*" },
                                      { "args", { { "timeout", { { "min", 100000 + i } } } } } } },
                { "action", "warn" } });
            break;
        }
    }
    rules.push_back(
        { { "when", { { "tool", "bash" } } }, { "action", "allow" }, { "reason", "last rule" } });
    return dumpJson(Json {
        { "version", 1 }, { "guardrails", { { { "type", "rules" }, { "rules", rules } } } } });
}

std::optional<Policy> load(const QString &path, const std::string &inlineText, std::string *error)
{
    PolicyResult r = inlineText.empty()
        ? loadPolicyFiles(path.isEmpty() ? QStringList {} : QStringList { path })
        : parsePolicy(inlineText, QStringLiteral("generated"));
    if (!r.policy) {
        *error = r.error.toStdString();
        return std::nullopt;
    }
    // As a console runs it: the built-in self-guard first, guarding a data
    // dir, its audit log and the policy file.
    SelfGuardContext self;
    self.dataDir = "/home/dev/.local/share/holdpoint";
    self.auditDir = self.dataDir + "/audit";
    self.policyFiles = { path.isEmpty() ? self.dataDir + "/policy.json" : path.toStdString() };
    self.consolePid = 4242;
    return withSelfGuard(std::move(*r.policy), self);
}

} // namespace

void chainScenario(bool quick, Table *table)
{
    const int iterations = quick ? 2'000 : 200'000;
    const int repeats = quick ? 3 : 7;
    const std::string callId = "c1", tool = "bash";
    const protocol::AgentInfo agent { "coder", "bench" };
    const Json args = { { "command", "make test" }, { "cwd", "/home/dev/app" }, { "timeout", 60 } };
    const Json annotations = { { "readOnlyHint", false }, { "destructiveHint", false } };
    const Json context = { { "cwd", "/home/dev/app" } };
    const std::optional<std::string> turn = std::string("t1");
    // Baseline: copying the call's arguments once, the least any decision
    // that hands them back costs.
    volatile std::size_t sink = 0;
    const double baseline = measure(iterations, repeats, [&](int) {
        Json copy = args;
        sink = sink + copy.size();
    });

    const struct
    {
        const char *name;
        QString file;
        std::string text;
        const char *target;
    } variants[] = {
        { "default policy", QString(), {}, "under 2,000 ns" },
        { "coding-agent example",
            QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/coding-agent.json"), {},
            "under 3,000 ns" },
        { "200 rules, last matches", QString(), twoHundredRules(), "under 10,000 ns" },
    };
    for (const auto &v : variants) {
        std::string error;
        const std::optional<Policy> p = load(v.file, v.text, &error);
        if (!p)
            return table->fail("chain", error);
        TimeMs now = 0;
        // A fresh session per call keeps rate_limit and loop_detection from
        // deciding on their own; their bookkeeping is still measured.
        std::vector<std::string> sessions;
        sessions.reserve(std::size_t(iterations));
        for (int i = 0; i < iterations; ++i)
            sessions.push_back("s" + std::to_string(i));
        const double ns = measure(iterations, repeats, [&](int i) {
            const CallView call { sessions[std::size_t(i)], agent, callId, tool, args, annotations,
                context, turn };
            const ChainOutcome o = p->chain->beforeCall(call, { ++now }, p->defaultAction);
            sink = sink + o.trail.size();
        });
        table->add({ "chain",
            std::string(v.name) + " (" + std::to_string(p->chain->size()) + " guardrails)",
            "per call", "ns", ns, "copy of the args", baseline, v.target });
    }
}

} // namespace holdpoint::bench
