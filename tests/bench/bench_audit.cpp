// SPDX-License-Identifier: Apache-2.0
// Scenario audit: writing and querying 100,000 records.

#include "bench.h"

#include "audit/auditfile.h"
#include "audit/auditlog.h"

#include <QFile>

namespace holdpoint::bench {

void auditScenario(bool quick, Table *table)
{
    const int records = quick ? 10'000 : 100'000;
    QTemporaryDir tmp;
    ManualClock clock(1'790'000'000'000);
    AuditConfig config;
    config.dir = tmp.path() + QStringLiteral("/audit");
    {
        // Records shaped like the console's: a call with args and trail, its
        // decision, its delivery.
        AuditLog log(config, &clock);
        log.open();
        const auto start = SteadyClock::now();
        for (int i = 0; i < records; i += 3) {
            const std::string id = "c" + std::to_string(i);
            const std::string agent = "agent-" + std::to_string(i % 7);
            const std::string tool = i % 300 == 0 ? "deploy" : (i % 2 ? "read_file" : "bash");
            log.append("call",
                Json { { "session", "s-" + std::to_string(i % 50) }, { "agent", agent },
                    { "call_id", id }, { "tool", tool },
                    { "args", { { "path", "src/module" + std::to_string(i) + ".cpp" } } },
                    { "outcome", "allow" },
                    { "trail",
                        { { { "guardrail", "rules" }, { "action", "allow" }, { "reason", "ok" },
                            { "code", "" } } } } });
            log.append("decision",
                Json { { "session", "s-" + std::to_string(i % 50) }, { "agent", agent },
                    { "call_id", id }, { "tool", tool },
                    { "decision", i % 10 == 0 ? "deny" : "allow" },
                    { "decided_by", i % 10 == 0 ? "human:alice" : "guardrail:rules" },
                    { "reason", i % 10 == 0 ? "not on a Friday" : "ok" }, { "state", "auto" } });
            log.append("delivered",
                Json { { "session", "s-" + std::to_string(i % 50) }, { "agent", agent },
                    { "call_id", id }, { "tool", tool }, { "decision", "allow" },
                    { "connections", 1 } });
            clock.advance(10);
        }
        if (!log.waitDurable(120'000))
            return table->fail("audit", "the log did not sync");
        const double s = std::chrono::duration<double>(SteadyClock::now() - start).count();
        table->add({ "audit", std::to_string(records) + " records", "write", "rec/s",
            double(records) / s, "", 0, "" });
    }

    // Baseline: one pass over every line of the log, no parsing.
    auto timed = [](auto &&fn) {
        std::vector<double> runs;
        for (int r = 0; r < 5; ++r) {
            const auto start = SteadyClock::now();
            fn();
            runs.push_back(
                std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count());
        }
        return percentile(runs, 0.5);
    };
    volatile std::size_t sink = 0;
    const double scan = timed([&] {
        for (const audit::Segment &s : audit::listSegments(config.dir)) {
            QFile f(s.path);
            if (!f.open(QIODevice::ReadOnly))
                continue;
            const uchar *p = f.map(0, f.size());
            sink = sink + std::size_t(std::count(p, p + f.size(), '\n'));
        }
    });
    auto filter = [](auto &&set) {
        audit::Filter f;
        set(f);
        return f;
    };
    const struct
    {
        const char *name;
        audit::Filter filter;
        std::size_t limit;
    } queries[] = {
        { "--tool deploy (rare), all", filter([](audit::Filter &f) { f.tool = "deploy"; }), 0 },
        { "--decision deny, first 50", filter([](audit::Filter &f) { f.decision = "deny"; }), 50 },
        { "--decision deny, all", filter([](audit::Filter &f) { f.decision = "deny"; }), 0 },
        { "--agent agent-3 --text friday", filter([](audit::Filter &f) {
             f.agent = "agent-3";
             f.text = "friday";
         }),
            0 },
        { "--text no-such-thing", filter([](audit::Filter &f) { f.text = "no-such-thing"; }), 0 },
    };
    for (const auto &q : queries) {
        std::size_t found = 0;
        const double ms = timed([&] {
            found = 0;
            audit::query(config.dir, q.filter, q.limit,
                [&](std::string_view, const Json &) { return ++found > 0; });
        });
        table->add({ "audit", std::string(q.name) + " (" + std::to_string(found) + ")", "query",
            "ms", ms, "one pass, no parsing", scan, "under 30 ms" });
    }
}

} // namespace holdpoint::bench
