// SPDX-License-Identifier: Apache-2.0
#include "consolemetrics.h"

#include "engine/consolecore.h"
#include "protocol/decider.h"

namespace holdpoint {

namespace {

using metrics::Label;

const std::vector<std::string> Deciders
    = { "guardrail", "person", "standing", "timeout", "agent", "audit", "team", "other" };
const std::vector<std::string> Kinds = { "allow", "modify", "deny", "halt" };

// A guardrail answers in microseconds and its record syncs in about a
// millisecond; a person takes seconds to minutes, up to --timeout (300 s by
// default, at most a day).
const std::vector<double> LatencyBounds = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600 };
// One write or fdatasync: about 250 µs on a local SSD, tens of ms on a
// loaded or networked disk.
const std::vector<double> AuditBounds = { 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5 };

double seconds(std::chrono::nanoseconds d)
{
    return std::chrono::duration<double>(d).count();
}

std::string key(const CallEvent &event)
{
    std::string k;
    k.reserve(event.sessionId.size() + 1 + event.callId.size());
    k.append(event.sessionId).append(1, '\n').append(event.callId);
    return k;
}

} // namespace

std::string_view deciderClass(std::string_view decidedBy, std::string_view state)
{
    if (decidedBy.starts_with("guardrail:") || decidedBy.starts_with("policy:"))
        return "guardrail";
    if (protocol::Decider::of(decidedBy).isPerson())
        return state == "auto" ? "standing" : "person";
    for (std::string_view exact : { "timeout", "agent", "audit", "team" })
        if (decidedBy == exact)
            return exact;
    return "other";
}

ConsoleMetrics::ConsoleMetrics(ConsoleOptions *options, bool team, QObject *parent)
    : QObject(parent)
{
    metrics::Registry &r = m_registry;
    r.gauges("holdpoint_build_info", "The running holdpoint's version (always 1).",
         { Label { "version", { HOLDPOINT_VERSION } } })
        .at(0)
        .set(1);
    r.gauge("holdpoint_pending_items",
        "Calls waiting for a person in this instance's queue; in team mode, the whole team's "
        "queue as this instance sees it.",
        [this] { return m_core ? double(m_core->queue()->pendingCount()) : 0.0; });
    r.gauge("holdpoint_agent_connections", "Agent connections open on this instance's endpoint.",
        [this] { return m_core ? double(m_core->agentConnections()) : 0.0; });
    r.gauge("holdpoint_reviewer_connections",
        "Reviewer connections (holdpoint-ctl, the reviewer page's) open on this instance.",
        [this] { return m_core ? double(m_core->reviewerConnections()) : 0.0; });
    m_calls = &r.counter("holdpoint_calls_total", "Tool calls this instance's agents submitted.");
    m_escalations = &r.counter(
        "holdpoint_escalations_total", "Calls the guardrails escalated to a person (the queue).");
    m_decisions = &r.counters("holdpoint_decisions_total",
        "Decisions on this instance's agents' calls, by decision and by who decided.",
        { Label { "decision", Kinds }, Label { "decider", Deciders } });
    m_latency = &r.histograms("holdpoint_decision_latency_seconds",
        "From a call's arrival to its decision reaching the agent (recorded on disk first), by "
        "who decided. Calls restored after a restart are not measured.",
        LatencyBounds, { Label { "decider", Deciders } });
    r.gauge("holdpoint_audit_writable",
        "1 while the audit log takes writes; 0 while every call is refused (audit_unavailable).",
        [this] { return !m_core || m_core->auditAvailable() ? 1.0 : 0.0; });
    m_auditWrite = &r.histogram("holdpoint_audit_write_seconds",
        "Writing one batch of audit records (and, when the file needs room, the zeros ahead).",
        AuditBounds);
    m_auditSync = &r.histogram(
        "holdpoint_audit_sync_seconds", "fdatasync of one batch of audit records.", AuditBounds);
    m_auditBytes
        = &r.counter("holdpoint_audit_written_bytes_total", "Audit record bytes made durable.");
    if (team) {
        r.gauge("holdpoint_team_link_up",
            "1 while the connection to the team database is open, else 0.",
            [this] { return m_core && m_core->teamAvailable() ? 1.0 : 0.0; });
        r.counter("holdpoint_team_reconnects_total",
            "Times the team database connection opened again after the first time.", [this] {
                return m_core && m_core->team() ? double(m_core->team()->reconnects()) : 0.0;
            });
    }

    // Captured by value: the audit log copies its config and calls this on
    // its writer's thread; the histograms are atomics and outlive it.
    options->audit.onBatchSynced = [write = m_auditWrite, sync = m_auditSync, bytes = m_auditBytes](
                                       const AuditBatchTiming &t) {
        write->observe(seconds(t.write));
        sync->observe(seconds(t.sync));
        bytes->inc(double(t.bytes));
    };
}

ConsoleMetrics::~ConsoleMetrics() = default;

bool ConsoleMetrics::start(ConsoleCore *core, const metrics::Address &address, QString *error)
{
    m_core = core;
    // The broker's records, not the core's activity: in team mode that also
    // carries other instances' lines, which they count themselves.
    // Direct: a CallEvent views the broker's data for the signal's length only.
    connect(core->broker(), &Broker::callEvent, this, &ConsoleMetrics::onCallEvent,
        Qt::DirectConnection);
    m_server = std::make_unique<metrics::Server>(&m_registry, [this] { return notReady(); });
    return m_server->listen(address, error);
}

QString ConsoleMetrics::url() const
{
    return m_server ? m_server->url() : QString();
}

QString ConsoleMetrics::notReady() const
{
    if (!m_core)
        return QStringLiteral("starting");
    if (!m_core->auditAvailable())
        return QStringLiteral("the audit log cannot be written: ") + m_core->auditError();
    if (m_core->team() && !m_core->teamAvailable()) {
        const QString why = m_core->teamError();
        return QStringLiteral("the team database link is down")
            + (why.isEmpty() ? QString() : QStringLiteral(": ") + why);
    }
    return {};
}

void ConsoleMetrics::onCallEvent(const CallEvent &event)
{
    switch (event.step) {
    case CallEvent::Step::Received:
        m_calls->inc();
        if (m_tracked.size() < MaxTracked)
            m_tracked.insert_or_assign(
                key(event), Tracked { std::chrono::steady_clock::now(), {} });
        return;
    case CallEvent::Step::Escalated:
        m_escalations->inc();
        return;
    case CallEvent::Step::Decided: {
        const std::string_view decider = deciderClass(event.decidedBy, event.state);
        if (metrics::Counter *c
            = m_decisions->find({ protocol::decisionKindName(event.decision), decider }))
            c->inc();
        if (const auto it = m_tracked.find(key(event)); it != m_tracked.end())
            it->second.decider = decider;
        return;
    }
    case CallEvent::Step::Delivered: {
        if (event.again)
            return;
        const auto it = m_tracked.find(key(event));
        if (it == m_tracked.end() || it->second.decider.empty())
            return;
        if (metrics::Histogram *h = m_latency->find({ it->second.decider }))
            h->observe(seconds(std::chrono::steady_clock::now() - it->second.arrived));
        m_tracked.erase(it);
        return;
    }
    }
}

} // namespace holdpoint
