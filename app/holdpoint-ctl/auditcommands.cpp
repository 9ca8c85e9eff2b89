// SPDX-License-Identifier: Apache-2.0
#include "auditcommands.h"
#include "exitcodes.h"

#include "audit/auditfile.h"
#include "common/datadir.h"
#include "team/teamaudit.h"
#include "team/teamdb.h"

#include <QCommandLineParser>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <optional>

#include <cstdio>

namespace holdpoint {

namespace {

int usageError(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl audit: %s\n", qPrintable(message));
    return exitcode::Failed;
}

void writeStdout(const std::string &s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
}

// QCommandLineParser::process() exits 1 on an unknown option, and under
// `audit verify` 1 means "tampered": a typo must never read as a finding.
// Returns the exit code when the command line ends the command here.
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

struct FilterOptions
{
    QCommandLineOption agent { QStringLiteral("agent"),
        QStringLiteral("Records of this agent (exact name)."), QStringLiteral("name") };
    QCommandLineOption tool { QStringLiteral("tool"),
        QStringLiteral("Records of this tool (exact name)."), QStringLiteral("name") };
    QCommandLineOption decision { QStringLiteral("decision"),
        QStringLiteral("Decision records with this outcome: allow, modify, deny or halt."),
        QStringLiteral("kind") };
    QCommandLineOption event { QStringLiteral("event"),
        QStringLiteral(
            "Records of this event (call, escalated, decision, delivered, after_call, ...)."),
        QStringLiteral("event") };
    QCommandLineOption decidedBy { QStringLiteral("decided-by"),
        QStringLiteral(
            "Decisions whose decided_by contains this (e.g. human, timeout, guardrail:rules)."),
        QStringLiteral("text") };
    QCommandLineOption since { QStringLiteral("since"),
        QStringLiteral(
            "From this time on: ISO 8601 (UTC unless a zone is given) or an age like 30m, 2h, 7d."),
        QStringLiteral("time") };
    QCommandLineOption until { QStringLiteral("until"),
        QStringLiteral("Before this time (same forms as --since)."), QStringLiteral("time") };
    QCommandLineOption text { QStringLiteral("text"),
        QStringLiteral("Records containing this text anywhere (case-insensitive)."),
        QStringLiteral("text") };
    QCommandLineOption dataDir { QStringLiteral("data-dir"),
        QStringLiteral("The console's data directory."), QStringLiteral("dir") };

    void addTo(QCommandLineParser &p) const
    {
        p.addOptions({ agent, tool, decision, event, decidedBy, since, until, text, dataDir });
    }

    // False and a message when a value makes no sense.
    bool read(const QCommandLineParser &p, audit::Filter *f, QString *error) const
    {
        f->agent = p.value(agent).toStdString();
        f->tool = p.value(tool).toStdString();
        f->decision = p.value(decision).toStdString();
        f->event = p.value(event).toStdString();
        f->decidedBy = p.value(decidedBy).toStdString();
        f->text = p.value(text).toStdString();
        if (!f->decision.empty() && f->decision != "allow" && f->decision != "modify"
            && f->decision != "deny" && f->decision != "halt") {
            *error = QStringLiteral("--decision: expected allow, modify, deny or halt, got \"%1\"")
                         .arg(p.value(decision));
            return false;
        }
        const TimeMs now = QDateTime::currentMSecsSinceEpoch();
        for (auto [opt, out] :
            { std::pair { &since, &f->since }, std::pair { &until, &f->until } }) {
            if (!p.isSet(*opt))
                continue;
            const auto bound = audit::parseTimeBound(p.value(*opt).toStdString(), now);
            if (!bound) {
                *error = QStringLiteral("--%1: expected an ISO 8601 time (2026-11-22T10:00:00Z) or "
                                        "an age (30m, 2h, 7d), got \"%2\"")
                             .arg(opt->names().first(), p.value(*opt));
                return false;
            }
            *out = *bound;
        }
        return true;
    }
};

QString auditDir(const QCommandLineParser &p, const FilterOptions &o, const QString &globalDataDir)
{
    const QString dir = resolveDataDir(p.isSet(o.dataDir) ? p.value(o.dataDir) : globalDataDir);
    return dir + u'/' + QLatin1String(audit::DirName);
}

std::string column(const Json &r, const char *key, std::size_t width)
{
    std::string s;
    if (auto it = r.find(key); it != r.end())
        s = it->is_string() ? it->get<std::string>() : dumpJson(*it);
    for (char &c : s)
        if (static_cast<unsigned char>(c) < 0x20)
            c = ' ';
    if (width == 0)
        return s;
    if (s.size() > width)
        s = s.substr(0, width - 1) + "~";
    s.resize(width, ' ');
    return s;
}

int runVerify(const QStringList &args, const QString &globalDataDir, const QString &teamUrl)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Check the audit log's hash chain against its head file.\n"
        "Exit 0 intact, 1 tampered (a record edited, deleted or reordered), 3 cut off at the end,\n"
        "4 torn last record (a crash; the console's next start removes it), 2 unreadable or "
        "usage."));
    FilterOptions o;
    const QCommandLineOption json(
        QStringLiteral("json"), QStringLiteral("Print the report as JSON."));
    p.addOptions({ o.dataDir, json });
    p.addHelpOption();
    if (const auto code = parseCommandLine(p, args, "verify"))
        return *code;
    audit::VerifyReport r;
    if (!teamUrl.isEmpty()) {
        try {
            auto c = team::connect(teamUrl.toStdString());
            if (team::schemaVersion(*c) == 0)
                return usageError(
                    QStringLiteral("verify: the team database has no Holdpoint schema"));
            r = team::verifyAudit(*c);
        } catch (const std::exception &e) {
            return usageError(QStringLiteral("verify: %1").arg(QString::fromUtf8(e.what())));
        }
    } else {
        const QString dir = auditDir(p, o, globalDataDir);
        if (!QFileInfo(dir).isDir())
            return usageError(QStringLiteral("verify: no audit log at %1").arg(dir));
        r = audit::verify(dir);
    }
    if (p.isSet(json)) {
        Json j { { "status", audit::verifyStatusName(r.status) }, { "message", r.message },
            { "records", r.records }, { "first_seq", r.firstSeq }, { "last_seq", r.lastSeq } };
        if (r.status != audit::VerifyStatus::Intact && teamUrl.isEmpty()) {
            j["file"] = QFileInfo(r.file).fileName().toStdString();
            j["line"] = r.line;
        }
        writeStdout(dumpJson(j) + "\n");
    } else {
        std::printf(
            "%s: %s\n", std::string(audit::verifyStatusName(r.status)).c_str(), r.message.c_str());
    }
    switch (r.status) {
    case audit::VerifyStatus::Intact:
        return exitcode::auditverify::Intact;
    case audit::VerifyStatus::Tampered:
        return exitcode::auditverify::Tampered;
    case audit::VerifyStatus::CutOff:
        return exitcode::auditverify::CutOff;
    case audit::VerifyStatus::TornTail:
        return exitcode::auditverify::TornTail;
    case audit::VerifyStatus::Unreadable:
        return exitcode::auditverify::Unreadable;
    }
    return exitcode::auditverify::Unreadable;
}

int runQuery(const QStringList &args, const QString &globalDataDir, const QString &teamUrl)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Find audit records, newest first."));
    FilterOptions o;
    o.addTo(p);
    const QCommandLineOption limit(QStringLiteral("limit"),
        QStringLiteral("At most this many records (default 50; 0 for all)."), QStringLiteral("n"),
        QStringLiteral("50"));
    const QCommandLineOption json(
        QStringLiteral("json"), QStringLiteral("Print the records as written (JSON lines)."));
    p.addOptions({ limit, json });
    p.addHelpOption();
    if (const auto code = parseCommandLine(p, args, "query"))
        return *code;
    audit::Filter filter;
    QString error;
    if (!o.read(p, &filter, &error))
        return usageError(QStringLiteral("query: ") + error);
    bool ok = false;
    const qlonglong n = p.value(limit).toLongLong(&ok);
    if (!ok || n < 0)
        return usageError(QStringLiteral("query: --limit: expected a whole number, 0 for all"));
    const QString dir = teamUrl.isEmpty() ? auditDir(p, o, globalDataDir) : QString();
    if (teamUrl.isEmpty() && !QFileInfo(dir).isDir())
        return usageError(QStringLiteral("query: no audit log at %1").arg(dir));

    const bool asJson = p.isSet(json);
    std::size_t count = 0;
    // The team's lines say which database login wrote each (db_role, set by
    // the database itself): a column of its own there.
    const bool team = !teamUrl.isEmpty();
    if (!asJson)
        writeStdout(std::string("SEQ      TIME                      EVENT           ")
            + (team ? "WRITER           " : "")
            + "AGENT            TOOL             DECISION  DECIDED BY            REASON\n");
    const audit::RecordFn print = [&](std::string_view line, const Json &r) {
        ++count;
        if (asJson) {
            writeStdout(std::string(line) + "\n");
            return true;
        }
        std::string reason = column(r, "reason", 0);
        if (reason.empty())
            reason = column(r, "why", 0);
        writeStdout(column(r, "seq", 8) + " " + column(r, "ts", 25) + " " + column(r, "event", 15)
            + " " + (team ? column(r, "db_role", 16) + " " : std::string()) + column(r, "agent", 16)
            + " " + column(r, "tool", 16) + " " + column(r, "decision", 9) + " "
            + column(r, "decided_by", 21) + " " + reason + "\n");
        return true;
    };
    if (teamUrl.isEmpty()) {
        audit::query(dir, filter, std::size_t(n), print);
    } else {
        try {
            auto c = team::connect(teamUrl.toStdString());
            if (team::schemaVersion(*c) == 0)
                return usageError(
                    QStringLiteral("query: the team database has no Holdpoint schema"));
            team::queryAudit(*c, filter, std::size_t(n), print);
        } catch (const std::exception &e) {
            return usageError(QStringLiteral("query: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    if (!asJson)
        std::fprintf(stderr, "%zu record(s)\n", count);
    return exitcode::auditquery::Done;
}

int runExport(const QStringList &args, const QString &globalDataDir)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Stream the audit log, oldest first, for SIEM tools."));
    FilterOptions o;
    o.addTo(p);
    const QCommandLineOption format(QStringLiteral("format"),
        QStringLiteral("jsonl (records as written, default) or csv."), QStringLiteral("format"),
        QStringLiteral("jsonl"));
    p.addOption(format);
    p.addHelpOption();
    if (const auto code = parseCommandLine(p, args, "export"))
        return *code;
    audit::Filter filter;
    QString error;
    if (!o.read(p, &filter, &error))
        return usageError(QStringLiteral("export: ") + error);
    const QString fmt = p.value(format);
    if (fmt != u"jsonl" && fmt != u"csv")
        return usageError(
            QStringLiteral("export: --format: expected jsonl or csv, got \"%1\"").arg(fmt));
    const QString dir = auditDir(p, o, globalDataDir);
    if (!QFileInfo(dir).isDir())
        return usageError(QStringLiteral("export: no audit log at %1").arg(dir));
    const bool csv = fmt == u"csv";
    if (csv)
        writeStdout(audit::csvHeader());
    const bool all = filter.empty();
    const audit::LineTest test(filter);
    audit::forEachRecord(dir, [&](std::string_view line, const Json &r) {
        if (!all && !(test.mayMatch(line) && filter.fieldsMatch(r)))
            return true;
        writeStdout(csv ? audit::csvRow(r) : std::string(line) + "\n");
        return !std::ferror(stdout);
    });
    std::fflush(stdout);
    return std::ferror(stdout) ? exitcode::auditexport::Failed : exitcode::auditexport::Done;
}

} // namespace

int runAudit(QStringList args, const QString &globalDataDir, const QString &teamUrl)
{
    // args: audit SUBCOMMAND [OPTIONS]
    if (args.size() < 2)
        return usageError(
            QStringLiteral("expected `audit verify`, `audit query` or `audit export`"));
    const QString sub = args.at(1);
    args.removeFirst();
    args.first() = QStringLiteral("holdpoint-ctl audit ") + sub;
    if (sub == u"verify")
        return runVerify(args, globalDataDir, teamUrl);
    if (sub == u"query")
        return runQuery(args, globalDataDir, teamUrl);
    if (sub == u"export" && !teamUrl.isEmpty())
        return usageError(QStringLiteral("export reads a console's own log; for the team's, use "
                                         "`audit query --json --limit 0`"));
    if (sub == u"export")
        return runExport(args, globalDataDir);
    return usageError(
        QStringLiteral("unknown subcommand \"%1\"; expected verify, query or export").arg(sub));
}

} // namespace holdpoint
