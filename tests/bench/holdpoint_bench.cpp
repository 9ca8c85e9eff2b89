// holdpoint-bench: performance figures, each next to a baseline measured in
// the same run so ratios hold on a noisy machine. Prints one table; with
// --json FILE also writes the figures. --quick is small enough for CI.
//
// Scenario "chain": the guardrail chain alone, in ns per call, for the
// shipped default policy, the coding-agent example and a 200-rule policy
// whose only matching rule is the last (every rule is tried).

#include "guardrails/chain.h"
#include "policy/policy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace holdpoint;
using SteadyClock = std::chrono::steady_clock;

namespace {

struct Row
{
    std::string scenario;
    std::string variant;
    int guardrails = 0;
    double nsPerCall = 0;
    double baselineNs = 0;
};

// Median of `repeats` timed runs of `iterations` calls, in ns per call.
template<typename Fn>
double measure(int iterations, int repeats, Fn &&fn)
{
    std::vector<double> runs;
    for (int r = 0; r < repeats; ++r) {
        const auto start = SteadyClock::now();
        for (int i = 0; i < iterations; ++i)
            fn(i);
        const double ns = std::chrono::duration<double, std::nano>(SteadyClock::now() - start).count();
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
        case 0: rules.push_back({{"when", {{"tool", "tool_" + std::to_string(i)}}}, {"action", "deny"}}); break;
        case 1: rules.push_back({{"match", "Bash(rm -rf /" + std::to_string(i) + "*)"}, {"action", "deny"}}); break;
        case 2: rules.push_back({{"when", {{"args", {{"cwd", {{"path_under", "/srv/" + std::to_string(i)}}}}}}}, {"action", "ask"}}); break;
        case 3: rules.push_back({{"when", {{"tool", "bash"}, {"args", {{"command", {{"regex", "^deploy-" + std::to_string(i) + "\\b"}}}}}}}, {"action", "deny"}}); break;
        default: rules.push_back({{"when", {{"agent", "agent-" + std::to_string(i) + "-*"}, {"args", {{"timeout", {{"min", 100000 + i}}}}}}}, {"action", "warn"}}); break;
        }
    }
    rules.push_back({{"when", {{"tool", "bash"}}}, {"action", "allow"}, {"reason", "last rule"}});
    return dumpJson(Json {{"version", 1}, {"guardrails", {{{"type", "rules"}, {"rules", rules}}}}});
}

Policy load(const QString &path, const std::string &inlineText = {})
{
    PolicyResult r = inlineText.empty() ? loadPolicyFiles(path.isEmpty() ? QStringList {} : QStringList {path})
                                        : parsePolicy(inlineText, QStringLiteral("generated"));
    if (!r.policy) {
        std::fprintf(stderr, "holdpoint-bench: %s\n", qPrintable(r.error));
        std::exit(1);
    }
    return std::move(*r.policy);
}

void chainScenario(bool quick, std::vector<Row> *rows)
{
    const int iterations = quick ? 2'000 : 200'000;
    const int repeats = quick ? 3 : 7;
    const std::string callId = "c1", tool = "bash";
    const protocol::AgentInfo agent {"coder", "bench"};
    const Json args = {{"command", "make test"}, {"cwd", "/home/dev/app"}, {"timeout", 60}};
    const Json annotations = {{"readOnlyHint", false}, {"destructiveHint", false}};
    const Json context = {{"cwd", "/home/dev/app"}};
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
    } variants[] = {
        {"default policy", QString(), {}},
        {"coding-agent example", QStringLiteral(HOLDPOINT_SOURCE_DIR "/resources/policies/coding-agent.json"), {}},
        {"200 rules, last matches", QString(), twoHundredRules()},
    };
    for (const auto &v : variants) {
        const Policy p = load(v.file, v.text);
        TimeMs now = 0;
        // A fresh session per call keeps rate_limit and loop_detection from
        // deciding on their own; their bookkeeping is still measured.
        std::vector<std::string> sessions;
        sessions.reserve(std::size_t(iterations));
        for (int i = 0; i < iterations; ++i)
            sessions.push_back("s" + std::to_string(i));
        const double ns = measure(iterations, repeats, [&](int i) {
            const CallView call {sessions[std::size_t(i)], agent, callId, tool, args, annotations, context, turn};
            const ChainOutcome o = p.chain->beforeCall(call, {++now}, p.defaultAction);
            sink = sink + o.trail.size();
        });
        rows->push_back({"chain", v.name, p.chain->size(), ns, baseline});
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Holdpoint benchmarks, each against a baseline measured in the same run."));
    parser.addHelpOption();
    const QCommandLineOption quick(QStringLiteral("quick"), QStringLiteral("Small runs, for CI."));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Also write the figures to FILE."), QStringLiteral("file"));
    parser.addOptions({quick, json});
    parser.process(app);

    std::vector<Row> rows;
    chainScenario(parser.isSet(quick), &rows);

    std::printf("%-8s %-26s %10s %12s %14s %12s %10s\n", "scenario", "variant", "guardrails", "ns/call", "calls/s",
                "baseline ns", "x baseline");
    Json out = Json::array();
    for (const Row &r : rows) {
        std::printf("%-8s %-26s %10d %12.0f %14.0f %12.0f %10.1f\n", r.scenario.c_str(), r.variant.c_str(), r.guardrails,
                    r.nsPerCall, 1e9 / r.nsPerCall, r.baselineNs, r.nsPerCall / r.baselineNs);
        out.push_back({{"scenario", r.scenario}, {"variant", r.variant}, {"guardrails", r.guardrails},
                       {"ns_per_call", r.nsPerCall}, {"calls_per_second", 1e9 / r.nsPerCall},
                       {"baseline_ns", r.baselineNs}, {"ratio", r.nsPerCall / r.baselineNs}});
    }
    std::printf("targets: chain under 2,000 ns with the default policy, under 20,000 ns with 200 rules (%s run)\n",
                parser.isSet(quick) ? "quick" : "full");
    if (parser.isSet(json)) {
        QFile f(parser.value(json));
        if (!f.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "holdpoint-bench: cannot write %s\n", qPrintable(parser.value(json)));
            return 1;
        }
        f.write(QByteArray::fromStdString(dumpJson(out, 2) + "\n"));
    }
    return 0;
}
