// SPDX-License-Identifier: Apache-2.0
#include "policycommands.h"
#include "exitcodes.h"

#include "audit/auditfile.h"
#include "audit/auditfilter.h"
#include "common/datadir.h"
#include "replay/replay.h"
#include "replay/suggest.h"
#include "team/teamaudit.h"
#include "team/teamdb.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include <cstdio>
#include <optional>
#include <set>

namespace holdpoint {

// Named, not anonymous: the unity build puts this file beside the audit
// commands, whose helpers have the same names.
namespace policycmd {

using namespace replay;

int usageError(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl policy: %s\n", qPrintable(message));
    return exitcode::Failed;
}

void writeStdout(const std::string &s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
}

// An unknown option must never read as "a stopped call would run" (1).
std::optional<int> parseCommandLine(
    QCommandLineParser &p, const QStringList &args, const char *command)
{
    if (!p.parse(args))
        return usageError(QStringLiteral("%1: %2").arg(QLatin1String(command), p.errorText()));
    if (p.isSet(QStringLiteral("help"))) {
        writeStdout(p.helpText().toStdString());
        return exitcode::Ok;
    }
    return std::nullopt;
}

// What replay and suggest share: where the history comes from and which policy.
struct HistoryOptions
{
    QCommandLineOption policy { QStringLiteral("policy"),
        QStringLiteral("A policy file (repeatable; later files add to earlier ones)."),
        QStringLiteral("file") };
    QCommandLineOption since { QStringLiteral("since"),
        QStringLiteral("Calls from this time on: ISO 8601 or an age like 2h, 7d (default: all)."),
        QStringLiteral("time") };
    QCommandLineOption dataDir { QStringLiteral("data-dir"),
        QStringLiteral("The console's data directory, whose audit log is read."),
        QStringLiteral("dir") };
    QCommandLineOption team { QStringLiteral("team"),
        QStringLiteral("Read the team's audit in PostgreSQL instead (a libpq URL)."),
        QStringLiteral("url") };
    QCommandLineOption json { QStringLiteral("json"), QStringLiteral("Print one JSON object.") };

    void addTo(QCommandLineParser &p) const
    {
        p.addOptions({ policy, since, dataDir, team, json });
    }
};

struct Loaded
{
    std::vector<RecordedCall> calls;
    QString from;
    QString dataDir; // empty for the team's audit
    qint64 readMs = 0;
};

// The built-in self-guard the console puts first, for the data dir read:
// what it denied then it denies in the replay.
SelfGuardContext selfGuardFor(const QString &dataDir, const QStringList &files)
{
    SelfGuardContext c;
    c.dataDir = QDir(dataDir).absolutePath().toStdString();
    c.auditDir = QDir(dataDir + u'/' + QLatin1String(audit::DirName)).absolutePath().toStdString();
    for (const QString &f : files)
        if (!f.startsWith(u':'))
            c.policyFiles.push_back(QFileInfo(f).absoluteFilePath().toStdString());
    return c;
}

// The recorded calls, oldest first, from the data dir's log or the team's table.
std::optional<Loaded> loadHistory(const QCommandLineParser &p, const HistoryOptions &o,
    const QString &globalDataDir, const QString &globalTeam, const char *command, int *code)
{
    *code = exitcode::Failed;
    TimeMs since = 0;
    std::string sinceIso;
    if (p.isSet(o.since)) {
        const auto bound = audit::parseTimeBound(
            p.value(o.since).toStdString(), QDateTime::currentMSecsSinceEpoch());
        const auto ms = bound ? parseRecordTime(*bound) : std::nullopt;
        if (!ms) {
            usageError(QStringLiteral(
                "%1: --since: expected an ISO 8601 time or an age (30m, 2h, 7d), got \"%2\"")
                           .arg(QLatin1String(command), p.value(o.since)));
            return std::nullopt;
        }
        since = *ms;
        sinceIso = *bound;
    }
    const QString teamUrl = p.isSet(o.team) ? p.value(o.team) : globalTeam;
    if (p.isSet(o.dataDir) && p.isSet(o.team)) {
        usageError(QStringLiteral("%1: --data-dir and --team name two different logs; give one")
                       .arg(QLatin1String(command)));
        return std::nullopt;
    }
    Loaded out;
    QElapsedTimer timer;
    timer.start();
    if (!teamUrl.isEmpty() && !p.isSet(o.dataDir)) {
        // The team's lines come newest first; the history wants them in order.
        std::vector<Json> records;
        audit::Filter filter;
        filter.since = sinceIso;
        try {
            auto c = team::connect(teamUrl.toStdString());
            if (team::schemaVersion(*c) == 0) {
                usageError(QStringLiteral("%1: the team database has no Holdpoint schema")
                               .arg(QLatin1String(command)));
                return std::nullopt;
            }
            team::queryAudit(*c, filter, 0, [&](std::string_view, const Json &r) {
                records.push_back(r);
                return true;
            });
        } catch (const std::exception &e) {
            usageError(
                QStringLiteral("%1: %2").arg(QLatin1String(command), QString::fromUtf8(e.what())));
            return std::nullopt;
        }
        HistoryBuilder builder(since);
        for (auto it = records.rbegin(); it != records.rend(); ++it)
            builder.add(*it);
        out.calls = builder.take();
        out.from = QStringLiteral("the team's audit");
    } else {
        out.dataDir = resolveDataDir(p.isSet(o.dataDir) ? p.value(o.dataDir) : globalDataDir);
        const QString dir = out.dataDir + u'/' + QLatin1String(audit::DirName);
        QString error;
        out.calls = readHistory(dir, since, &error);
        if (!error.isEmpty()) {
            usageError(QStringLiteral("%1: %2").arg(QLatin1String(command), error));
            return std::nullopt;
        }
        out.from = QDir::toNativeSeparators(dir);
    }
    out.readMs = timer.elapsed();
    return out;
}

std::string callLine(const RecordedCall &c)
{
    std::string args = dumpJson(c.args);
    if (args.size() > 100)
        args = args.substr(0, 99) + "~";
    for (char &ch : args)
        if (static_cast<unsigned char>(ch) < 0x20)
            ch = ' ';
    return formatTimestamp(c.at) + "  " + c.agent.name + "  " + c.tool + " " + args;
}

std::string personSaid(const RecordedCall &c)
{
    std::string s = std::string(fateName(c.fate));
    if (c.fate == Fate::Auto)
        s = "auto " + c.decision + " (" + c.decidedBy + ")";
    else if (!c.decidedBy.empty())
        s += " by " + c.decidedBy;
    return s;
}

Json callJson(const RecordedCall &c, const Replayed &r)
{
    Json j { { "ts", formatTimestamp(c.at) }, { "session", c.session }, { "call_id", c.callId },
        { "agent", c.agent.name }, { "tool", c.tool }, { "args", c.args }, { "was", c.outcome },
        { "now", r.outcome }, { "now_decided_by", r.decidedBy }, { "now_reason", r.reason },
        { "fate", fateName(c.fate) }, { "decision", c.decision }, { "decided_by", c.decidedBy } };
    if (c.masked)
        j["masked"] = true;
    if (r.unverified)
        j["unverified"] = true;
    return j;
}

int runReplay(const QStringList &args, const QString &globalDataDir, const QString &globalTeam)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Run the audit log's calls through a policy's guardrails, in their order "
                       "and at their times, offline."));
    HistoryOptions o;
    o.addTo(p);
    const QCommandLineOption limit(QStringLiteral("limit"),
        QStringLiteral("List at most N calls per transition (default 10; 0 for all)."),
        QStringLiteral("n"), QStringLiteral("10"));
    p.addOption(limit);
    p.addHelpOption();
    if (const auto code = parseCommandLine(p, args, "replay"))
        return *code;
    const QStringList files = p.values(o.policy);
    if (files.isEmpty())
        return usageError(QStringLiteral("replay: give the policy to try with --policy FILE"));
    bool ok = false;
    const qlonglong perTransition = p.value(limit).toLongLong(&ok);
    if (!ok || perTransition < 0)
        return usageError(QStringLiteral("replay: --limit: expected a whole number, 0 for all"));
    QString error;
    std::optional<PolicySource> source = PolicySource::load(files, &error);
    if (!source)
        return usageError(QStringLiteral("replay: ") + error);
    int code = exitcode::Failed;
    const std::optional<Loaded> history
        = loadHistory(p, o, globalDataDir, globalTeam, "replay", &code);
    if (!history)
        return code;
    if (!history->dataDir.isEmpty())
        source->setSelfGuard(selfGuardFor(history->dataDir, files));
    const std::optional<Policy> policy = source->build({}, &error);
    if (!policy)
        return usageError(QStringLiteral("replay: ") + error);
    QElapsedTimer timer;
    timer.start();
    const ReplayReport report = replayCalls(history->calls, *policy);
    const qint64 ms = timer.elapsed();
    const auto &calls = history->calls;
    const int result = report.regressions.empty() ? exitcode::policyreplay::Safe
                                                  : exitcode::policyreplay::WouldRunAlone;

    if (p.isSet(o.json)) {
        Json transitions = Json::array();
        for (const auto &[key, which] : report.transitions) {
            Json list = Json::array();
            for (std::size_t i : which)
                if (perTransition == 0 || qlonglong(list.size()) < perTransition)
                    list.push_back(callJson(calls[i], report.results[i]));
            transitions.push_back({ { "from", key.first }, { "to", key.second },
                { "count", which.size() }, { "calls", list } });
        }
        Json regressions = Json::array();
        for (std::size_t i : report.regressions)
            regressions.push_back(callJson(calls[i], report.results[i]));
        std::size_t unverified = 0;
        for (const Replayed &r : report.results)
            unverified += r.unverified;
        const Json out { { "from", history->from.toStdString() },
            { "policy", files.join(u',').toStdString() }, { "calls", calls.size() },
            { "asks_before", report.asksBefore }, { "asks_after", report.asksAfter },
            { "unverified_allows", unverified }, { "transitions", transitions },
            { "would_run_alone", regressions }, { "replay_ms", ms } };
        writeStdout(out.dump(2) + "\n");
        return result;
    }
    std::string text = "Replayed " + std::to_string(calls.size()) + " call(s) from "
        + history->from.toStdString() + " through " + files.join(QStringLiteral(", ")).toStdString()
        + " in " + std::to_string(ms) + " ms (read in " + std::to_string(history->readMs)
        + " ms).\n" + "Prompts: " + std::to_string(report.asksBefore) + " then, "
        + std::to_string(report.asksAfter) + " with this policy.\n";
    if (report.transitions.empty())
        text += "No call would be decided differently.\n";
    for (const auto &[key, which] : report.transitions) {
        text += "\n" + key.first + " -> " + key.second + ": " + std::to_string(which.size()) + "\n";
        std::size_t shown = 0;
        for (std::size_t i : which) {
            if (perTransition != 0 && qlonglong(shown) >= perTransition) {
                text += "  ... and " + std::to_string(which.size() - shown)
                    + " more (--limit 0 lists all)\n";
                break;
            }
            ++shown;
            const Replayed &r = report.results[i];
            text += "  " + callLine(calls[i]) + "\n      person then: " + personSaid(calls[i])
                + "; now: " + r.decidedBy
                + (r.reason.empty() ? std::string() : " (" + r.reason + ")")
                + (r.unverified ? "; arguments were masked, so this allow is unproven" : "") + "\n";
        }
    }
    if (!report.regressions.empty()) {
        text += "\nWOULD RUN WITHOUT A PERSON: " + std::to_string(report.regressions.size())
            + " call(s) that a person denied, edited or halted, or a guardrail denied or halted:\n";
        for (std::size_t i : report.regressions)
            text += "  " + callLine(calls[i]) + "  (" + personSaid(calls[i]) + ")\n";
    }
    writeStdout(text);
    return result;
}

int runSuggest(const QStringList &args, const QString &globalDataDir, const QString &globalTeam)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Rules that would have decided what a person always "
                                               "approved unchanged, each proved by a replay."));
    HistoryOptions o;
    o.addTo(p);
    const QCommandLineOption minSaved(QStringLiteral("min"),
        QStringLiteral("Suggest only rules that save at least N prompts (default 3)."),
        QStringLiteral("n"), QStringLiteral("3"));
    p.addOption(minSaved);
    p.addHelpOption();
    if (const auto code = parseCommandLine(p, args, "suggest"))
        return *code;
    bool ok = false;
    const qlonglong min = p.value(minSaved).toLongLong(&ok);
    if (!ok || min < 1)
        return usageError(QStringLiteral("suggest: --min: expected a whole number of at least 1"));
    // The policy the console loads: the built-in default, then the data
    // dir's policy.json when it exists (where "always" rules go).
    QStringList files = p.values(o.policy);
    const QString dataDir = resolveDataDir(p.isSet(o.dataDir) ? p.value(o.dataDir) : globalDataDir);
    if (files.isEmpty()) {
        files << defaultPolicyPath();
        if (QFileInfo::exists(dataDir + QStringLiteral("/policy.json")))
            files << dataDir + QStringLiteral("/policy.json");
    }
    QString error;
    std::optional<PolicySource> source = PolicySource::load(files, &error);
    if (!source)
        return usageError(QStringLiteral("suggest: ") + error);
    int code = exitcode::Failed;
    const std::optional<Loaded> history
        = loadHistory(p, o, globalDataDir, globalTeam, "suggest", &code);
    if (!history)
        return code;
    if (!history->dataDir.isEmpty())
        source->setSelfGuard(selfGuardFor(history->dataDir, files));
    SuggestOptions options;
    options.minSaved = std::size_t(min);
    options.user = qEnvironmentVariable("USER", QStringLiteral("you")).toStdString();
    options.now = QDateTime::currentMSecsSinceEpoch();
    QElapsedTimer timer;
    timer.start();
    const std::vector<Suggestion> suggestions
        = suggestRules(history->calls, *source, options, &error);
    if (!error.isEmpty())
        return usageError(QStringLiteral("suggest: ") + error);
    if (p.isSet(o.json)) {
        Json list = Json::array();
        for (const Suggestion &s : suggestions)
            list.push_back(suggestionToJson(s));
        writeStdout(Json { { "from", history->from.toStdString() },
                        { "calls", history->calls.size() }, { "suggestions", list } }
                        .dump(2)
            + "\n");
        return exitcode::policysuggest::Done;
    }
    std::string text = std::to_string(suggestions.size()) + " rule(s) suggested from "
        + std::to_string(history->calls.size()) + " call(s) in " + history->from.toStdString()
        + " (" + std::to_string(timer.elapsed()) + " ms).\n";
    for (std::size_t n = 0; n < suggestions.size(); ++n) {
        const Suggestion &s = suggestions[n];
        text += "\n" + std::to_string(n + 1) + ". " + s.description + "\n   saves "
            + std::to_string(s.saved) + " prompt(s) over " + std::to_string(s.days) + " day(s) and "
            + std::to_string(s.agents) + " agent(s); replayed over all "
            + std::to_string(s.replayed)
            + " calls, it allows no call a person denied, edited or halted, or a guardrail stopped "
              "or asked about.\n"
            + "   " + dumpJson(s.rule) + "\n";
    }
    if (!suggestions.empty())
        text += "\nTo accept one, add its rule to a policy file the console loads (the desktop's "
                "\"always\" "
                "rules go first in the \"console\" rules guardrail of policy.json in the data "
                "dir).\n";
    writeStdout(text);
    return exitcode::policysuggest::Done;
}

} // namespace policycmd

int runPolicy(QStringList args, const QString &globalDataDir, const QString &teamUrl)
{
    const QString sub = args.size() >= 2 ? args.at(1) : QString();
    args.removeFirst(); // "policy": QCommandLineParser takes the subcommand as the program name
    if (sub == u"replay") {
        args.first() = QStringLiteral("holdpoint-ctl policy replay");
        return policycmd::runReplay(args, globalDataDir, teamUrl);
    }
    if (sub == u"suggest") {
        args.first() = QStringLiteral("holdpoint-ctl policy suggest");
        return policycmd::runSuggest(args, globalDataDir, teamUrl);
    }
    return policycmd::usageError(
        QStringLiteral("expected `policy replay --policy FILE` or `policy suggest`"));
}

} // namespace holdpoint
