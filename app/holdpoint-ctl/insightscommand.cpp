// SPDX-License-Identifier: Apache-2.0
#include "insightscommand.h"
#include "exitcodes.h"

#include "audit/auditfile.h"
#include "common/datadir.h"
#include "insights/auditsource.h"
#include "team/teamaudit.h"
#include "team/teamdb.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>

#include <cstdio>

namespace holdpoint {

namespace {

int insightsError(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl insights: %s\n", qPrintable(message));
    return exitcode::insights::Failed;
}

} // namespace

int runInsights(QStringList args, const QString &globalDataDir, const QString &globalTeamUrl)
{
    args.first() = QStringLiteral("holdpoint-ctl insights");
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Where reviewers' time goes, from the audit log: escalations per hour and per agent, time "
        "to decision,\n"
        "approve / edit / deny rates per tool and per rule, and the prompts each rule saved."));
    const QCommandLineOption since(QStringLiteral("since"),
        QStringLiteral("From this time on: ISO 8601 (UTC unless a zone is given), an age like 12h "
                       "or 7d (the default), or \"all\"."),
        QStringLiteral("time"), QStringLiteral("7d"));
    const QCommandLineOption dataDir(QStringLiteral("data-dir"),
        QStringLiteral("The console's data directory."), QStringLiteral("dir"));
    const QCommandLineOption team(QStringLiteral("team"),
        QStringLiteral("The team database (a libpq URL): the whole team's audit."),
        QStringLiteral("url"));
    const QCommandLineOption json(
        QStringLiteral("json"), QStringLiteral("Print the figures as JSON."));
    p.addOptions({ since, dataDir, team, json });
    p.addHelpOption();
    if (!p.parse(args))
        return insightsError(p.errorText());
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(p.helpText().toUtf8().constData(), stdout);
        return exitcode::Ok;
    }
    if (!p.positionalArguments().isEmpty())
        return insightsError(
            QStringLiteral("unexpected argument \"%1\"").arg(p.positionalArguments().first()));
    const QString teamUrl = p.isSet(team) ? p.value(team) : globalTeamUrl;
    if (!teamUrl.isEmpty() && p.isSet(dataDir))
        return insightsError(QStringLiteral(
            "--data-dir and --team: give one; the team's audit holds every instance's records"));

    const TimeMs now = QDateTime::currentMSecsSinceEpoch();
    TimeMs from = 0;
    std::string sinceIso;
    if (p.value(since) != u"all") {
        const auto bound = audit::parseTimeBound(p.value(since).toStdString(), now);
        const auto ms = bound ? insights::parseTimestamp(*bound) : std::nullopt;
        if (!ms)
            return insightsError(QStringLiteral(
                "--since: expected an ISO 8601 time (2026-11-22T10:00:00Z), an age (30m, 2h, 7d) "
                "or \"all\", got \"%1\"")
                                     .arg(p.value(since)));
        from = *ms;
        sinceIso = *bound;
    }

    insights::Builder builder(from);
    if (teamUrl.isEmpty()) {
        const QString dir = resolveDataDir(p.isSet(dataDir) ? p.value(dataDir) : globalDataDir)
            + u'/' + QLatin1String(audit::DirName);
        if (!QFileInfo(dir).isDir())
            return insightsError(QStringLiteral("no audit log at %1").arg(dir));
        insights::addAuditDir(dir, builder);
    } else {
        try {
            auto c = team::connect(teamUrl.toStdString());
            if (team::schemaVersion(*c) == 0)
                return insightsError(QStringLiteral("the team database has no Holdpoint schema"));
            // Newest first: the figures take records in any order.
            audit::Filter filter;
            filter.since = sinceIso;
            team::queryAudit(*c, filter, 0, [&](std::string_view, const Json &r) {
                builder.add(r);
                return true;
            });
        } catch (const std::exception &e) {
            return insightsError(QString::fromUtf8(e.what()));
        }
    }
    const insights::Figures figures = builder.figures(now);
    const std::string out
        = p.isSet(json) ? dumpJson(insights::toJson(figures), 2) + "\n" : insights::toText(figures);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return std::ferror(stdout) ? exitcode::insights::Failed : exitcode::insights::Done;
}

} // namespace holdpoint
