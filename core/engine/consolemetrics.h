// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `--metrics` serves for a console, a headless console or a gateway:
// the metrics registry fed by the console's own signals (the broker's
// records, the audit log's batches, the team link), and the HTTP server
// with /metrics, /healthz and /readyz (metrics/metricsserver.h). It only
// observes: the broker knows nothing of it.
//
// Every call and decision counts once, at the instance whose agent made
// it; a reviewer's console that decides another gateway's call does not
// count that decision, the gateway does. So sums over a fleet are right.

#include "common/json.h"
#include "metrics/metricsserver.h"
#include "metrics/registry.h"

#include <QObject>
#include <QPointer>

#include <chrono>
#include <string>
#include <string_view>
#include <unordered_map>

namespace holdpoint {

class ConsoleCore;
struct CallEvent;
struct ConsoleOptions;

// Who decided, as a bounded label value: guardrail (a guardrail or the
// policy's default), person (a reviewer, on a queued call), standing (a
// reviewer's decision for the rest of a turn or session, or a halted turn,
// applied to a later call), timeout, agent (cancelled or gone), audit (the
// log could not be written), team (the team refused or lost it), other.
std::string_view deciderClass(std::string_view decidedBy, std::string_view state);

class ConsoleMetrics final : public QObject
{
    Q_OBJECT
public:
    // Calls whose arrival time is kept until their decision is delivered;
    // beyond that many undecided calls the rest go unmeasured.
    static constexpr std::size_t MaxTracked = 200'000;

    // Before the ConsoleCore is built from `options`: its audit log will
    // report each batch's write and sync time here. This object must
    // outlive that core (the audit writer's thread reports into it).
    // `team`: the core will be given a shared queue (its link's gauges).
    ConsoleMetrics(ConsoleOptions *options, bool team, QObject *parent = nullptr);
    ~ConsoleMetrics() override;

    // Once the core started: observes it, and serves on `address`.
    bool start(ConsoleCore *core, const metrics::Address &address, QString *error);
    QString url() const;
    // Why this instance is not ready: the audit log cannot be written, or
    // (team mode) the team link is down. Empty while it is ready.
    QString notReady() const;
    const metrics::Registry &registry() const { return m_registry; }

private:
    void onCallEvent(const CallEvent &event);

    metrics::Registry m_registry;
    QPointer<ConsoleCore> m_core;
    std::unique_ptr<metrics::Server> m_server;

    metrics::Counter *m_calls = nullptr;
    metrics::Counter *m_escalations = nullptr;
    metrics::Family<metrics::Counter> *m_decisions = nullptr;
    metrics::Family<metrics::Histogram> *m_latency = nullptr;
    metrics::Histogram *m_auditWrite = nullptr;
    metrics::Histogram *m_auditSync = nullptr;
    metrics::Counter *m_auditBytes = nullptr;

    struct Tracked
    {
        std::chrono::steady_clock::time_point arrived;
        std::string_view decider; // once decided: one of deciderClass()'s values
    };
    // By session and call id.
    std::unordered_map<std::string, Tracked> m_tracked;
};

} // namespace holdpoint
