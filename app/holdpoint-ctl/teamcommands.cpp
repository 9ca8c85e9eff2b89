// SPDX-License-Identifier: Apache-2.0
#include "teamcommands.h"
#include "exitcodes.h"
#include "hookcommand.h"
#include "reviewcommand.h"

#include "queue/approvals.h"
#include "team/teamconnection.h"
#include "team/teamdb.h"
#include "team/teamitems.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QHostInfo>
#include <QRegularExpression>

#include <cstdio>

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

// A statement that hears nothing for 5 s ends the command, as it ends an
// instance's job (TEAM.md "Threads and connections"): a hung server or a
// silent link fails it instead of hanging it; `team init` waits up to a
// minute, since it may wait for another migration. Declared after the
// connection, so it disarms before the connection closes; it says why
// before the error that follows does.
class Answered final
{
public:
    explicit Answered(pqxx::connection_base &c, TimeMs limitMs = 0)
    {
        m_deadline.arm(c.sock(), limitMs);
        team::limitIdleTransactions(c, team::IdleTransactionFactor * m_deadline.timeoutMs());
    }
    ~Answered()
    {
        if (m_deadline.disarm())
            std::fprintf(stderr, "holdpoint-ctl: %s\n", m_deadline.message().c_str());
    }

private:
    team::AnswerDeadline m_deadline;
};

std::string formatMs(TimeMs ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toStdString();
}

// "approvals 1/2 by alice; needs someone other than bob (who started the agent)"
std::string approvalsLine(const QueueItem &item)
{
    std::string line = "approvals " + std::to_string(approvalCount(item)) + "/"
        + std::to_string(item.approvals.required);
    const std::vector<std::string> names = approvers(item);
    for (std::size_t i = 0; i < names.size(); ++i)
        line += (i ? ", " : " by ") + names[i];
    if (item.editedArgs)
        line += "; of arguments edited by a reviewer: " + dumpJson(*item.editedArgs);
    if (item.approvals.excludeRequester && !item.requester.empty())
        line += "; " + item.requester + " (who started the agent) may not approve";
    return line;
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
    if (const auto queued = team::itemFromRow(r))
        putApprovalFields(item, *queued); // with the votes the row holds now
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
        Json item = itemOf(r);
        item["id"] = r.id; // the ids `approve` takes, and the tool the row names
        item["tool_name"] = r.tool;
        for (const std::string &line : pendingLines(item, r.host))
            printLine(stdout, line);
        if (!r.gatewayOnline)
            printLine(stdout, "    agent host offline");
        if (!r.claimName.empty() && r.claimUntil > r.now)
            printLine(stdout, "    being edited by " + r.claimName);
        if (const auto queued = team::itemFromRow(r); queued && queued->approvals.voted())
            printLine(stdout, "    " + approvalsLine(*queued));
    }
}

} // namespace

QString teamUrl(const QString &fromFlag)
{
    if (!fromFlag.isEmpty())
        return fromFlag;
    return QString::fromLocal8Bit(qgetenv("HOLDPOINT_TEAM_URL"));
}

namespace {

int runTeamInit(const QStringList &args, const QString &globalTeamUrl)
{
    QString url = args.size() >= 3 ? args.at(2) : teamUrl(globalTeamUrl);
    if (args.size() > 3)
        return failed(QStringLiteral("team init: unexpected argument \"%1\"").arg(args.at(3)));
    if (url.isEmpty())
        return failed(
            QStringLiteral("team init: give the database, e.g. `team init \"dbname=holdpoint\"`"));
    try {
        auto c = team::connect(url.toStdString());
        const Answered answered(*c, team::MigrationAnswerMs);
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

// team reviewer add NAME --role LOGIN [--os-user USER] | list [--json] | disable NAME
int runTeamReviewers(const QStringList &args, const QString &globalTeamUrl)
{
    const QString usage
        = QStringLiteral("team reviewer: expected `add NAME --role LOGIN [--os-user USER]`, "
                         "`list [--json]` or `disable NAME`");
    if (args.size() < 3)
        return failed(usage);
    const QString sub = args.at(2);
    QCommandLineParser p;
    const QCommandLineOption role(QStringLiteral("role"), {}, QStringLiteral("login"));
    const QCommandLineOption osUser(QStringLiteral("os-user"), {}, QStringLiteral("user"));
    const QCommandLineOption json(QStringLiteral("json"));
    if (sub == u"add")
        p.addOptions({ role, osUser });
    else if (sub == u"list")
        p.addOption(json);
    else if (sub != u"disable")
        return failed(usage);
    QStringList rest = args.mid(2);
    rest.first() = QStringLiteral("holdpoint-ctl team reviewer ") + sub;
    if (!p.parse(rest))
        return failed(QStringLiteral("team reviewer %1: %2").arg(sub, p.errorText()));
    const QStringList names = p.positionalArguments();
    const QString url = teamUrl(globalTeamUrl);
    if (url.isEmpty())
        return failed(QStringLiteral(
            "team reviewer: give the database with --team URL or $HOLDPOINT_TEAM_URL"));
    if (sub != u"list" && names.size() != 1)
        return failed(QStringLiteral("team reviewer %1: expected exactly one NAME").arg(sub));
    if (sub == u"list" && !names.isEmpty())
        return failed(
            QStringLiteral("team reviewer list: unexpected argument \"%1\"").arg(names.first()));
    if (sub == u"add" && p.value(role).trimmed().isEmpty())
        return failed(
            QStringLiteral("team reviewer add: --role LOGIN is required: the PostgreSQL login "
                           "this reviewer decides through"));
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"));
    if (sub == u"add" && !validName.match(names.first()).hasMatch())
        return failed(
            QStringLiteral("team reviewer add: \"%1\" is not a reviewer name (letters, digits, "
                           "and . _ @ - after the first; at most 64)")
                .arg(names.first()));
    try {
        auto c = team::connect(url.toStdString());
        const Answered answered(*c);
        team::migrate(*c);
        if (sub == u"add") {
            team::addReviewer(*c, names.first().toStdString(),
                p.value(role).trimmed().toStdString(), p.value(osUser).trimmed().toStdString());
            std::printf("reviewer %s decides through login %s\n", qPrintable(names.first()),
                qPrintable(p.value(role).trimmed()));
            return exitcode::Ok;
        }
        if (sub == u"disable") {
            if (!team::disableReviewer(*c, names.first().toStdString()))
                return failed(QStringLiteral("team reviewer disable: no enabled reviewer \"%1\" "
                                             "(see `team reviewer list`)")
                                  .arg(names.first()));
            std::printf("reviewer %s may no longer decide\n", qPrintable(names.first()));
            return exitcode::Ok;
        }
        const auto all = team::reviewers(*c);
        if (p.isSet(json)) {
            Json out = Json::array();
            for (const auto &r : all)
                out.push_back(Json { { "name", r.name }, { "os_user", r.osUser },
                    { "disabled", r.disabled }, { "logins", r.logins } });
            printLine(stdout, dumpJson(out, 2));
            return exitcode::Ok;
        }
        if (all.empty())
            printLine(stdout,
                "no reviewers; add one with `holdpoint-ctl team reviewer add NAME --role LOGIN`");
        for (const auto &r : all) {
            std::string logins;
            for (const auto &l : r.logins)
                logins += (logins.empty() ? "" : " ") + l;
            printLine(stdout,
                r.name + "  logins: " + (logins.empty() ? "-" : logins) + "  os user: " + r.osUser
                    + (r.disabled ? "  (disabled)" : ""));
        }
        return exitcode::Ok;
    } catch (const std::exception &e) {
        return failed(e);
    }
}

} // namespace

int runTeam(const QStringList &args, const QString &globalTeamUrl)
{
    if (args.size() >= 2 && args.at(1) == u"init")
        return runTeamInit(args, globalTeamUrl);
    if (args.size() >= 2 && args.at(1) == u"reviewer")
        return runTeamReviewers(args, globalTeamUrl);
    return failed(
        QStringLiteral("team: expected `team init URL` or `team reviewer add|list|disable`"));
}

int runTeamReviewer(const QString &command, const QStringList &args, const QString &url)
{
    QString error;
    const auto parsed = parseReviewCommand(
        command, args, QStringLiteral("holdpoint-ctl --team URL pending"), &error);
    if (!parsed)
        return failed(error);

    try {
        auto c = team::connect(url.toStdString());
        const Answered answered(*c);
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

        const auto queued = team::itemFromRow(*found);
        if (!queued)
            return failed(QStringLiteral("%1: item %2 in the team queue is unreadable")
                              .arg(command, toQString(id)));
        team::Decide d;
        d.id = id;
        d.instance = "ctl@" + QHostInfo::localHostName().toStdString();
        d.reviewer = parsed->reviewer;
        d.via = "holdpoint-ctl";
        d.action = command.toStdString();
        // The action and its arguments; the database computes the decision,
        // the count and the record (TEAM.md "Approvals").
        if (command == u"approve" || command == u"edit")
            d.args = command == u"edit" ? review["args"] : approvedArgs(*queued);
        if (review.contains("scope") && review["scope"].is_string())
            d.scope = review["scope"].get<std::string>();
        d.reason = review.value("reason", std::string());
        if (d.reason.empty())
            d.reason = command == u"halt" ? "halted by a reviewer" : "approved by a reviewer";
        const auto outcome = team::decide(*c, d);
        switch (outcome.outcome) {
        case team::Decided::Outcome::Decided:
            printLine(stdout,
                dumpJson(Json { { "type", "reviewed" }, { "id", id },
                    { "decision", outcome.decision }, { "decided_by", outcome.decidedBy } }));
            return exitcode::review::Done;
        case team::Decided::Outcome::Voted:
            printLine(stdout,
                dumpJson(Json { { "type", "voted" }, { "id", id }, { "reviewer", outcome.reviewer },
                    { "approvals", outcome.approvals }, { "required", outcome.required } }));
            return exitcode::review::Done;
        case team::Decided::Outcome::Refused:
            return failed(QStringLiteral("%1: %2").arg(command, toQString(outcome.message)));
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
