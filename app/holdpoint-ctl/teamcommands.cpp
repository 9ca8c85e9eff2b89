#include "teamcommands.h"
#include "exitcodes.h"
#include "hookcommand.h"
#include "reviewcommand.h"

#include "team/teamdb.h"

#include <QDateTime>
#include <QHostInfo>

#include <cstdio>

#include <pwd.h>
#include <unistd.h>

namespace holdpoint {

namespace {

int failed(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl: %s\n", qPrintable(message));
    return exitcode::Failed;
}

int failed(const std::exception &e)
{
    return failed(QString::fromUtf8(e.what()));
}

// The person behind a decision: HOLDPOINT_REVIEWER, else the OS user.
std::string reviewerName()
{
    const QByteArray fromEnv = qgetenv("HOLDPOINT_REVIEWER");
    if (!fromEnv.trimmed().isEmpty())
        return fromEnv.trimmed().toStdString();
    if (const passwd *pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return "unknown";
}

std::string formatMs(TimeMs ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toStdString();
}

// An item as `pending --json` prints it: the item reviewers see, and where it waits.
Json itemOf(const team::Row &r)
{
    Json item = Json::parse(r.itemText, nullptr, false);
    if (!item.is_object())
        item = Json::object();
    Json team { { "host", r.host }, { "gateway", r.gateway }, { "gateway_online", r.gatewayOnline },
        { "deadline", formatMs(r.deadline) } };
    if (!r.claimName.empty() && r.claimUntil > r.now)
        team["being_edited_by"] = r.claimName;
    item["team"] = std::move(team);
    return item;
}

void printPending(const std::vector<team::Row> &rows, bool asJson)
{
    if (asJson) {
        Json items = Json::array();
        for (const auto &r : rows)
            items.push_back(itemOf(r));
        printLine(stdout, dumpJson(items, 2));
        return;
    }
    if (rows.empty()) {
        printLine(stdout, "no pending calls");
        return;
    }
    for (const auto &r : rows) {
        const Json item = itemOf(r);
        std::string args = dumpJson(item.value("args", Json::object()));
        if (args.size() > 100)
            args = args.substr(0, 97) + "...";
        const Json agent = item.value("agent", Json::object());
        std::string line = r.id + "  " + r.host + "  "
            + (agent.is_object() ? agent.value("name", std::string()) : "") + "  " + r.tool + "  "
            + args;
        printLine(stdout, line);
        if (!r.gatewayOnline)
            printLine(stdout, "    agent host offline");
        if (!r.claimName.empty() && r.claimUntil > r.now)
            printLine(stdout, "    being edited by " + r.claimName);
    }
}

} // namespace

QString teamUrl(const QString &fromFlag)
{
    if (!fromFlag.isEmpty())
        return fromFlag;
    return QString::fromLocal8Bit(qgetenv("HOLDPOINT_TEAM_URL"));
}

int runTeam(const QStringList &args, const QString &globalTeamUrl)
{
    if (args.size() < 2 || args.at(1) != u"init")
        return failed(QStringLiteral("team: expected `team init URL`"));
    QString url = args.size() >= 3 ? args.at(2) : teamUrl(globalTeamUrl);
    if (args.size() > 3)
        return failed(QStringLiteral("team init: unexpected argument \"%1\"").arg(args.at(3)));
    if (url.isEmpty())
        return failed(
            QStringLiteral("team init: give the database, e.g. `team init \"dbname=holdpoint\"`"));
    try {
        auto c = team::connect(url.toStdString());
        const int before = team::schemaVersion(*c);
        const int now = team::migrate(*c);
        if (before == now)
            std::printf("team schema is at version %d; nothing to do\n", now);
        else if (before == 0)
            std::printf("created the team schema, version %d\n", now);
        else
            std::printf("migrated the team schema from version %d to %d\n", before, now);
        return exitcode::Ok;
    } catch (const std::exception &e) {
        return failed(e);
    }
}

int runTeamReviewer(const QString &command, const QStringList &args, const QString &url)
{
    QString error;
    const auto parsed
        = parseReviewCommand(command, args, QStringLiteral("holdpoint-ctl --team URL pending"), &error);
    if (!parsed)
        return failed(error);

    try {
        auto c = team::connect(url.toStdString());
        team::migrate(*c);
        if (command == u"pending") {
            const std::string self = "ctl@" + QHostInfo::localHostName().toStdString();
            team::expireDue(*c, self);
            printPending(team::pendingRows(*c), parsed->json);
            return exitcode::review::Done;
        }
        Json review = parsed->review;
        review.erase("type"); // stored as the review alone
        const std::string id = review["id"];
        const auto found = team::row(*c, id);
        if (!found)
            return failed(
                QStringLiteral("%1: no item %2 in the team queue").arg(command, toQString(id)));
        const Json item = Json::parse(found->itemText, nullptr, false);
        const Json agent = item.is_object() ? item.value("agent", Json::object()) : Json::object();
        if (command == u"edit" && agent.is_object() && agent.contains("capabilities")
            && agent["capabilities"].value("modify", true) == false)
            return failed(QStringLiteral(
                "edit: the agent of %1 cannot run edited arguments; approve or deny it")
                              .arg(toQString(id)));

        team::Decide d;
        d.id = id;
        d.instance = "ctl@" + QHostInfo::localHostName().toStdString();
        d.decidedBy = "human:" + reviewerName();
        d.decision = command == u"approve" ? (item.contains("proposed_args") ? "modify" : "allow")
            : command == u"edit"           ? "modify"
            : command == u"deny"           ? "deny"
                                           : "halt";
        d.review = review;
        d.reason = review.value("reason", std::string());
        if (d.reason.empty())
            d.reason = command == u"halt" ? "halted by a reviewer" : "approved by a reviewer";
        d.audit = Json { { "call_id", found->callId }, { "decided_by", d.decidedBy },
            { "decision", d.decision }, { "gateway", found->gateway }, { "item", id },
            { "os_user", reviewerName() }, { "reason", d.reason }, { "session", found->sessionId },
            { "state", "decided" }, { "tool", found->tool } };
        if (found->turnId)
            d.audit["turn"] = *found->turnId; // so a console's Turns view files it
        if (command == u"edit")
            d.audit["args"] = review["args"];
        const auto outcome = team::decide(*c, d);
        switch (outcome.outcome) {
        case team::Decided::Outcome::Decided:
            printLine(stdout,
                dumpJson(Json { { "type", "reviewed" }, { "id", id }, { "decision", d.decision },
                    { "decided_by", d.decidedBy } }));
            return exitcode::review::Done;
        case team::Decided::Outcome::AlreadyDecided:
            return failed(
                QStringLiteral("already_decided: %1 was decided by %2 at %3 (%4)")
                    .arg(toQString(id), toQString(outcome.decidedBy),
                        toQString(formatMs(outcome.decidedAt)), toQString(outcome.state)));
        case team::Decided::Outcome::Claimed:
            return failed(QStringLiteral("%1 is being edited by %2; wait for them, or halt it")
                              .arg(toQString(id), toQString(outcome.holder)));
        case team::Decided::Outcome::UnknownItem:
            return failed(
                QStringLiteral("%1: no item %2 in the team queue").arg(command, toQString(id)));
        }
        return exitcode::Failed;
    } catch (const std::exception &e) {
        return failed(e);
    }
}

} // namespace holdpoint
