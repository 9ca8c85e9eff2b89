// SPDX-License-Identifier: Apache-2.0
// Scenario queue: 10,000 and 100,000 pending escalations in the core queue,
// with the window's model and filter proxy attached as in the console.

#include "bench.h"

#include "engine/broker.h"
#include "engine/consolecore.h"
#include "queue/reviewqueue.h"
#include "queuemodel.h"
#include "queueproxy.h"

#include <QDir>

namespace holdpoint::bench {

namespace {

struct NullOutbound final : Outbound
{
    void send(ConnectionId, const std::string &) override { }
    void close(ConnectionId, CloseCode, const std::string &) override { }
};

QueueItem makeItem(int i, TimeMs now)
{
    QueueItem item;
    item.id = "item-" + std::to_string(i);
    item.callId = "c" + std::to_string(i);
    item.sessionId = "s-" + std::to_string(i % 64);
    item.agent = { "agent-" + std::to_string(i % 16), "bench" };
    item.toolName = i % 3 ? "write_file" : "bash";
    item.args = Json { { "path", "src/module" + std::to_string(i) + ".cpp" },
        { "content", "int f() { return 1; }" } };
    item.reason = "no guardrail decided; the default policy is ask";
    item.trail = Json::array();
    item.receivedAt = now + i;
    item.deadline = now + 3'600'000;
    return item;
}

} // namespace

void queueScenario(bool quick, Table *table)
{
    for (int n :
        quick ? std::vector<int> { 2'000, 10'000 } : std::vector<int> { 10'000, 100'000 }) {
        ManualClock clock(1'790'000'000'000);
        // Baseline memory: the args alone, as the agent sent them.
        qint64 argsBytes = 0;
        {
            const qint64 before = heapBytes();
            std::vector<Json> args;
            args.reserve(std::size_t(n));
            for (int i = 0; i < n; ++i)
                args.push_back(makeItem(i, 0).args);
            argsBytes = heapBytes() - before;
        }
        const qint64 before = heapBytes();
        auto queue = std::make_unique<ReviewQueue>(&clock);
        auto model = std::make_unique<QueueModel>(queue.get());
        auto proxy = std::make_unique<QueueProxy>(model.get());
        NullOutbound outbound;
        Broker broker(queue.get(), queue->clock(), &outbound, BrokerConfig {});

        const auto start = SteadyClock::now();
        for (int i = 0; i < n; ++i)
            queue->add(makeItem(i, clock.now()));
        const double enqueueMs
            = std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
        const qint64 used = heapBytes() - before;
        const std::string variant = std::to_string(n) + " pending";
        table->add({ "queue", variant, "enqueue", "ms", enqueueMs, "", 0, "" });
        table->add({ "queue", variant, "memory/call", "bytes", double(used - argsBytes) / n,
            "args alone / call", double(argsBytes) / n, "at most 2,048 bytes beyond the args" });

        // Refiltering: the proxy against a plain loop over the same predicate.
        QueueFilter filter;
        filter.setText("module7 write");
        auto timed = [](auto &&fn) {
            std::vector<double> runs;
            for (int r = 0; r < 5; ++r) {
                const auto t = SteadyClock::now();
                fn();
                runs.push_back(
                    std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count());
            }
            return percentile(runs, 0.5);
        };
        volatile int sink = 0;
        const double loop = timed([&] {
            int hits = 0;
            for (int row = 0; row < queue->size(); ++row)
                hits += filter.matches(queue->at(row)) ? 1 : 0;
            sink = hits;
        });
        int round = 0;
        const double refilter = timed([&] {
            proxy->setFilterText(
                round++ % 2 ? QStringLiteral("module7 write") : QStringLiteral("module7 writ"));
            sink = proxy->rowCount();
        });
        table->add({ "queue", variant, "refilter", "ms", refilter, "the predicate in a loop", loop,
            n >= 100'000 ? "under 50 ms at 100,000" : "" });
        proxy->setFilterText({});

        // Approving one item in the middle, through the broker as the
        // window does; baseline: finding it.
        std::vector<double> approve, find;
        for (int k = 0; k < 20; ++k) {
            const std::string id = queue->at(queue->size() / 2).id;
            auto t = SteadyClock::now();
            sink = queue->find(id) ? 1 : 0;
            find.push_back(
                std::chrono::duration<double, std::micro>(SteadyClock::now() - t).count());
            protocol::Review r;
            r.id = id;
            t = SteadyClock::now();
            broker.review(r, ReviewerIdentity { "bench", "console", {} });
            approve.push_back(
                std::chrono::duration<double, std::micro>(SteadyClock::now() - t).count());
        }
        table->add(
            { "queue", variant, "approve mid", "µs", percentile(approve, 0.5), "finding the item",
                percentile(find, 0.5), n >= 100'000 ? "under 5 µs at 100,000" : "" });
    }
}

} // namespace holdpoint::bench
