// SPDX-License-Identifier: Apache-2.0
// Scenario replay (core/replay/REPLAY.md): on the coding-agent trace kept in
// the tree, the prompts a person sees before and after accepting every
// suggested rule, and how many calls labelled must_ask would then run
// alone; then how fast 100,000 recorded calls replay, next to merely
// parsing their records.

#include "bench.h"

#include "common/tracelog.h"
#include "replay/suggest.h"

#include <QFile>

#include <cmath>
#include <set>

namespace holdpoint::bench {

namespace {

constexpr TimeMs WeekMs = 7LL * 86'400'000;

bool writeHistory(const std::vector<Json> &trace, const replay::PolicySource &policy,
    const QString &dir, int copies, std::size_t calls)
{
    ManualClock clock(0);
    AuditConfig config;
    config.dir = dir;
    AuditLog log(config, &clock);
    log.open();
    QString error;
    std::size_t written = 0;
    for (int c = 0; c < copies && written < calls; ++c) {
        // A fresh chain per copy: each copy is another week, as recorded then.
        const std::optional<Policy> p = policy.build({}, &error);
        if (!p)
            return false;
        std::vector<Json> part(
            trace.begin(), trace.begin() + std::ptrdiff_t(std::min(trace.size(), calls - written)));
        testing::recordTrace(
            part, *p, log, { WeekMs * c, c ? "-w" + std::to_string(c) : std::string() });
        written += part.size();
    }
    return log.waitDurable(120'000);
}

double secondsOf(SteadyClock::time_point start)
{
    return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

} // namespace

void replayScenario(bool quick, Table *table)
{
    const QString traceDir = QStringLiteral(HOLDPOINT_SOURCE_DIR "/tests/bench/trace");
    const std::vector<Json> trace
        = testing::readTrace(traceDir + QStringLiteral("/coding-agent.jsonl"));
    if (trace.empty())
        return table->fail("replay", "tests/bench/trace/coding-agent.jsonl is missing");
    QString error;
    const QString policyPath = traceDir + QStringLiteral("/policy.json");
    const std::optional<replay::PolicySource> base
        = replay::PolicySource::load({ policyPath }, &error);
    if (!base)
        return table->fail("replay", error.toStdString());
    QTemporaryDir tmp;

    // The two figures of issue 46 §4, on the trace as it is.
    const QString traceAudit = tmp.path() + QStringLiteral("/trace/audit");
    if (!writeHistory(trace, *base, traceAudit, 1, trace.size()))
        return table->fail("replay", "the trace's audit log was not written");
    const std::vector<replay::RecordedCall> calls = replay::readHistory(traceAudit, 0, &error);
    replay::SuggestOptions options;
    options.user = "bench";
    const auto suggestStart = SteadyClock::now();
    const std::vector<replay::Suggestion> suggestions
        = replay::suggestRules(calls, *base, options, &error);
    const double suggestS = secondsOf(suggestStart);
    const QString accepted = tmp.path() + QStringLiteral("/accepted.json");
    for (const replay::Suggestion &s : suggestions)
        if (!replay::acceptSuggestion(s, accepted, nullptr, &error))
            return table->fail("replay", error.toStdString());
    const std::optional<replay::PolicySource> after
        = replay::PolicySource::load({ policyPath, accepted }, &error);
    if (!after)
        return table->fail("replay", error.toStdString());
    const replay::ReplayReport was = replay::replayCalls(calls, *base->build({}, &error));
    const replay::ReplayReport now = replay::replayCalls(calls, *after->build({}, &error));
    std::set<std::string> labelled;
    for (const std::string &k : testing::mustAskKeys(trace))
        labelled.insert(k);
    std::size_t alone = 0;
    for (std::size_t i = 0; i < calls.size(); ++i)
        alone += labelled.contains(calls[i].session + '\n' + calls[i].callId)
            && now.results[i].runsAlone();
    const std::string variant = std::to_string(calls.size()) + " calls, "
        + std::to_string(suggestions.size()) + " rules accepted";
    table->add({ "replay", variant, "prompts a person sees", "calls", double(now.asksAfter),
        "before the rules", double(was.asksAfter), "at least 60 % fewer" });
    table->add({ "replay", variant, "must_ask calls run alone", "calls", double(alone),
        "must_ask calls", double(labelled.size()), "0" });
    table->add({ "replay", variant, "suggest (replays per rule)", "s", suggestS, "", 0, "" });
    std::printf("replay: %zu prompts -> %zu with the %zu suggested rules (%.1f %% fewer); %zu of "
                "%zu must_ask calls run alone\n",
        was.asksAfter, now.asksAfter, suggestions.size(),
        100.0 * (1.0 - double(now.asksAfter) / double(was.asksAfter)), alone, labelled.size());

    // Speed: the trace again and again, a week apart, to 100,000 calls.
    const std::size_t target = quick ? 10'000 : 100'000;
    const QString bigAudit = tmp.path() + QStringLiteral("/big/audit");
    const int copies = int(std::ceil(double(target) / double(trace.size())));
    if (!writeHistory(trace, *base, bigAudit, copies, target))
        return table->fail("replay", "the large audit log was not written");
    // Baseline: every record of the log parsed, nothing else.
    const auto parseStart = SteadyClock::now();
    std::size_t records = 0;
    for (const audit::Segment &s : audit::listSegments(bigAudit)) {
        QFile f(s.path);
        f.open(QIODevice::ReadOnly);
        const QByteArray bytes = f.readAll();
        const std::string_view all
            = audit::withoutPadding(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        for (std::size_t pos = 0, nl; (nl = all.find('\n', pos)) != std::string_view::npos;
             pos = nl + 1)
            records += Json::parse(
                all.begin() + std::ptrdiff_t(pos), all.begin() + std::ptrdiff_t(nl), nullptr, false)
                           .is_object();
    }
    const double parseS = secondsOf(parseStart);
    const auto replayStart = SteadyClock::now();
    const std::vector<replay::RecordedCall> big = replay::readHistory(bigAudit, 0, &error);
    const double readS = secondsOf(replayStart);
    const replay::ReplayReport r = replay::replayCalls(big, *after->build({}, &error));
    const double totalS = secondsOf(replayStart);
    const std::string bigVariant
        = std::to_string(big.size()) + " calls (" + std::to_string(records) + " records)";
    table->add({ "replay", bigVariant, "read + replay", "s", totalS, "parsing every record", parseS,
        "under 10 s" });
    table->add(
        { "replay", bigVariant, "replay", "calls/s", double(big.size()) / totalS, "", 0, "" });
    table->add({ "replay", bigVariant, "reading the history alone", "s", readS, "", 0, "" });
    std::printf("replay: %zu calls read and replayed in %.2f s (%.0f calls/s; reading %.2f s, "
                "parsing every record alone %.2f s); %zu prompts\n",
        big.size(), totalS, double(big.size()) / totalS, readS, parseS, r.asksAfter);
}

} // namespace holdpoint::bench
