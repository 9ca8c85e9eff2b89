// SPDX-License-Identifier: Apache-2.0
#include "replay.h"

#include <QFile>

#include <unordered_map>

namespace holdpoint::replay {

namespace {

constexpr qint64 MaxPolicyFileBytes = 4 << 20;

} // namespace

std::optional<PolicySource> PolicySource::load(const QStringList &files, QString *error)
{
    PolicySource source;
    source.m_files = files;
    const QStringList paths = files.isEmpty() ? QStringList { defaultPolicyPath() } : files;
    for (const QString &path : paths) {
        const QString label = path == defaultPolicyPath()
            ? QStringLiteral("resources/policies/default.json")
            : path;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            *error = label + QStringLiteral(": cannot read: ") + f.errorString();
            return std::nullopt;
        }
        if (f.size() > MaxPolicyFileBytes) {
            *error = label + QStringLiteral(": larger than %1 bytes").arg(MaxPolicyFileBytes);
            return std::nullopt;
        }
        source.m_texts.emplace_back(label, f.readAll().toStdString());
    }
    // Checked once here, so build() fails only on the rules it is given.
    if (!source.build({}, error))
        return std::nullopt;
    return source;
}

std::optional<Policy> PolicySource::build(const std::vector<Json> &extraRules, QString *error) const
{
    Policy policy; // a fresh chain every time: fresh rate windows and loop counters
    for (const auto &[label, text] : m_texts) {
        PolicyResult r = parsePolicy(text, label, policy);
        if (!r.policy) {
            *error = r.error;
            return std::nullopt;
        }
        policy = std::move(*r.policy);
    }
    if (!extraRules.empty()) {
        const Json doc { { "version", 1 },
            { "guardrails",
                Json::array({ Json { { "type", "rules" }, { "name", "replay_added" },
                    { "rules", extraRules } } }) } };
        PolicyResult r = parsePolicy(dumpJson(doc), QStringLiteral("added rules"), policy);
        if (!r.policy) {
            *error = r.error;
            return std::nullopt;
        }
        policy = std::move(*r.policy);
    }
    if (m_selfGuard)
        policy = withSelfGuard(std::move(policy), *m_selfGuard);
    return policy;
}

std::string outcomeName(const ChainOutcome &outcome)
{
    return outcome.action == Action::Ask ? std::string("ask")
                                         : std::string(actionName(outcome.action));
}

ReplayReport replayCalls(const std::vector<RecordedCall> &calls, const Policy &policy)
{
    ReplayReport report;
    report.results.reserve(calls.size());
    const GuardrailChain &chain = *policy.chain;
    std::unordered_map<std::string, std::optional<std::string>> turns; // session -> its last turn
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const RecordedCall &c = calls[i];
        // Turn markers are not in the log: a session's calls under a new
        // turn id start that turn.
        const auto [turn, first] = turns.try_emplace(c.session, c.turn);
        if (!first && turn->second != c.turn) {
            turn->second = c.turn;
            if (c.turn)
                chain.onTurnStart(c.session, *c.turn);
        }
        const CallView view = c.view();
        ChainOutcome o = chain.beforeCall(view, { c.at }, policy.defaultAction);
        Replayed r;
        r.outcome = outcomeName(o);
        r.decidedBy = std::move(o.decidedBy);
        r.code = std::move(o.code);
        r.reason = std::move(o.reason);
        r.unverified = c.masked && r.runsAlone();
        if (c.outcome == "ask")
            ++report.asksBefore;
        if (r.outcome == "ask")
            ++report.asksAfter;
        if (r.outcome != c.outcome)
            report.transitions[{ c.outcome, r.outcome }].push_back(i);
        if (c.stopped() && r.runsAlone())
            report.regressions.push_back(i);
        // What ran then and would run now reports its result as it did
        // then: its success only, since the log keeps no output. Each result
        // counts as new, so "no progress" never fires in a replay (REPLAY.md).
        const bool ranThen = c.ok.has_value();
        const bool runsNow = r.runsAlone()
            || (r.outcome == "ask" && (c.fate == Fate::Approved || c.fate == Fate::Edited));
        if (ranThen && runsNow) {
            const Json result = c.callId;
            chain.afterCall(view, { *c.ok, result }, { c.at });
        }
        report.results.push_back(std::move(r));
    }
    return report;
}

} // namespace holdpoint::replay
