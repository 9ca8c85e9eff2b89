// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl-full: the console's command-line client, run through the
// front (front.cpp, which answers the command hooks itself). Links core only.
//
//   submit   submit one tool call as an agent and wait for its decision
//   pending  list the pending queue (reviewer)
//   approve | deny | edit | halt   decide a queue item (reviewer)
//   reviewer add | list | remove   other people's reviewer tokens (alone)
//   hook claude-code | codex | gemini, mcp-proxy    the integrations' entry points
//   audit, insights, policy check | replay | suggest   offline tools
//
// Every exit code is in exitcodes.h.

#include "auditcommands.h"
#include "client/consoleclient.h"
#include "client/endpointinfo.h"
#include "common/datadir.h"
#include "common/jsonparse.h"
#include "common/signals.h"
#include "exitcodes.h"
#include "guardrails/chain.h"
#include "hookcommand.h"
#include "insightscommand.h"
#include "integrations/mcpproxy.h"
#include "policy/policy.h"
#include "policycommands.h"
#include "protocol/protocol.h"
#include "qr/qrcode.h"
#include "reviewcommand.h"
#include "reviewercommands.h"
#include "teamcommands.h"
#include "usage.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTimer>

#include <cstdio>

#include <unistd.h>

using namespace holdpoint;

namespace {

int usageError(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl: %s\n", qPrintable(message));
    return exitcode::Failed;
}

// One connection to the console for one subcommand: connects, does the
// subcommand's exchange, sets the exit code.
class ConsoleExchange : public QObject
{
public:
    ConsoleExchange(EndpointInfo endpoint)
        : m_endpoint(std::move(endpoint))
    {
        connect(&m_client, &ConsoleClient::failed, this, &ConsoleExchange::fail);
        connect(&m_client, &ConsoleClient::message, this, [this](const Json &m) { onMessage(m); });
        connect(&m_client, &ConsoleClient::welcomed, this, [this](const Json &w) { onWelcome(w); });
    }

    int run(protocol::Role role, const protocol::AgentInfo &agent,
        const std::optional<std::string> &session)
    {
        m_client.connectTo(m_endpoint, role, agent, session);
        return QCoreApplication::exec();
    }

    // A signal then cancels this call at the console instead of just exiting,
    // so nobody decides a call whose agent is gone.
    void cancelOnInterrupt(std::string callId) { m_cancelCallId = std::move(callId); }
    void interrupt()
    {
        if (!m_cancelCallId.empty() && m_client.isReady()) {
            m_client.send(Json { { "type", "cancel" }, { "call_id", m_cancelCallId } });
            return; // the console answers with a deny; we exit on it
        }
        finish(usageError(QStringLiteral("interrupted")));
    }

    std::function<void(const Json &welcome)> onWelcome;
    std::function<void(const Json &)> onMessage;
    // Reports the failure and returns the exit code; unset: usageError().
    std::function<int(const QString &)> onFailed;

    void finish(int code)
    {
        if (m_done)
            return;
        m_done = true;
        m_client.close();
        QCoreApplication::exit(code);
    }

    // A message larger than the console takes fails the command with why.
    void send(const Json &j)
    {
        if (QString why; !m_client.send(j, &why))
            fail(why);
    }

    void fail(const QString &why) { finish(onFailed ? onFailed(why) : usageError(why)); }

private:
    EndpointInfo m_endpoint;
    ConsoleClient m_client;
    bool m_done = false;
    std::string m_cancelCallId;
};

ConsoleExchange *g_exchange = nullptr;
void reportError(const Json &m)
{
    std::fprintf(stderr, "holdpoint-ctl: %s: %s\n", m.value("code", std::string("error")).c_str(),
        m.value("message", std::string()).c_str());
}

// A decision this client does not know is a deny: the call must not run.
int submitExitCode(const std::string &decision)
{
    if (decision == "allow" || decision == "modify")
        return exitcode::submit::Allowed;
    if (decision == "halt")
        return exitcode::submit::Halted;
    return exitcode::submit::Denied;
}

int runSubmit(const QStringList &args, const EndpointInfo &endpoint)
{
    QCommandLineParser p;
    const QCommandLineOption tool(QStringLiteral("tool"), {}, QStringLiteral("name"));
    const QCommandLineOption argsOpt(QStringLiteral("args"), {}, QStringLiteral("json"));
    const QCommandLineOption agent(
        QStringLiteral("agent"), {}, QStringLiteral("name"), QStringLiteral("holdpoint-ctl"));
    const QCommandLineOption framework(QStringLiteral("framework"), {}, QStringLiteral("name"));
    const QCommandLineOption timeout(QStringLiteral("timeout"), {}, QStringLiteral("seconds"));
    const QCommandLineOption callId(QStringLiteral("call-id"), {}, QStringLiteral("id"));
    const QCommandLineOption session(QStringLiteral("session"), {}, QStringLiteral("id"));
    const QCommandLineOption turn(QStringLiteral("turn"), {}, QStringLiteral("id"));
    const QCommandLineOption context(QStringLiteral("context"), {}, QStringLiteral("json"));
    const QCommandLineOption annotations(QStringLiteral("annotations"), {}, QStringLiteral("json"));
    p.addOptions(
        { tool, argsOpt, agent, framework, timeout, callId, session, turn, context, annotations });
    if (!p.parse(args))
        return usageError(p.errorText());
    if (!p.positionalArguments().isEmpty())
        return usageError(QStringLiteral("submit: unexpected argument \"%1\"")
                              .arg(p.positionalArguments().first()));
    if (!p.isSet(tool) || p.value(tool).isEmpty())
        return usageError(QStringLiteral("submit: --tool NAME is required"));
    if (!p.isSet(argsOpt))
        return usageError(QStringLiteral(
            "submit: --args JSON is required (a JSON object, e.g. '{\"path\":\"a.txt\"}')"));

    QString error;
    Json call { { "type", "tool_call" }, { "tool_name", p.value(tool).toStdString() } };
    auto parsedArgs = parseJsonOption(p.value(argsOpt), "args", true, &error);
    if (!parsedArgs)
        return usageError(error);
    call["args"] = std::move(*parsedArgs);
    for (const auto &[opt, key] :
        { std::pair { &context, "context" }, std::pair { &annotations, "annotations" } }) {
        if (!p.isSet(*opt))
            continue;
        auto j = parseJsonOption(p.value(*opt), key, true, &error);
        if (!j)
            return usageError(error);
        call[key] = std::move(*j);
    }
    if (p.isSet(timeout)) {
        bool ok = false;
        const double s = p.value(timeout).toDouble(&ok);
        if (!ok || !(s > 0))
            return usageError(
                QStringLiteral("submit: --timeout: expected a number of seconds above 0"));
        call["timeout_s"] = s;
    }
    if (p.isSet(turn))
        call["turn_id"] = p.value(turn).toStdString();
    std::string id = p.value(callId).toStdString();
    if (id.empty())
        id = "ctl-"
            + QByteArray::number(QRandomGenerator::system()->generate64(), 16).toStdString();
    call["call_id"] = id;

    ConsoleExchange exchange(endpoint);
    g_exchange = &exchange;
    exchange.cancelOnInterrupt(id);
    exchange.onWelcome = [&](const Json &) { exchange.send(call); };
    exchange.onMessage = [&](const Json &m) {
        const std::string type = m.value("type", std::string());
        if (type == "pending") {
            std::fprintf(stderr, "holdpoint-ctl: waiting for a reviewer (item %s): %s\n",
                m.value("id", std::string()).c_str(), m.value("reason", std::string()).c_str());
        } else if (type == "decision" && m.value("call_id", std::string()) == id) {
            printLine(stdout, dumpJson(m));
            exchange.finish(submitExitCode(m.value("decision", std::string())));
        } else if (type == "error") {
            reportError(m);
            exchange.finish(exitcode::submit::Failed);
        }
    };
    std::optional<std::string> sid;
    if (p.isSet(session))
        sid = p.value(session).toStdString();
    const int rc = exchange.run(protocol::Role::Agent,
        { p.value(agent).toStdString(), p.value(framework).toStdString() }, sid);
    g_exchange = nullptr;
    return rc;
}

void printQueue(const Json &items, bool asJson)
{
    if (asJson) {
        printLine(stdout, dumpJson(items, 2));
        return;
    }
    if (items.empty()) {
        printLine(stdout, "no pending calls");
        return;
    }
    for (const auto &item : items) {
        for (const std::string &line : pendingLines(item, {}))
            printLine(stdout, line);
        // The turn's loop findings, so a reviewer at a terminal sees them too.
        for (const protocol::TurnFinding &f :
            protocol::turnFindingsFromJson(item.value("turn_findings", Json::array())))
            printLine(stdout, "    loop: " + protocol::turnFindingHint(f) + " [" + f.pattern + "]");
    }
}

int runReviewer(const QString &command, const QStringList &args, const ReviewerLogin &login)
{
    QString error;
    const auto parsed
        = parseReviewCommand(command, args, QStringLiteral("holdpoint-ctl pending"), &error);
    if (!parsed)
        return usageError(error);
    const Json &review = parsed->review;
    // Alone, the token is the identity (issue 26): a name that differs from
    // the credential's is refused, not passed on.
    if (!login.name.empty() && !parsed->reviewer.empty() && parsed->reviewer != login.name)
        return usageError(QStringLiteral(
            "%1: reviewer \"%2\" (from --reviewer or $HOLDPOINT_REVIEWER): %3 is %4's "
            "credential, and the token alone says who decides; drop --reviewer, "
            "or use --reviewer %4")
                              .arg(command, toQString(parsed->reviewer), login.credentialPath,
                                  toQString(login.name)));

    ConsoleExchange exchange(login.endpoint);
    g_exchange = &exchange;
    if (!login.credentialPath.isEmpty())
        exchange.onFailed = [&login](const QString &why) {
            return usageError(
                QStringLiteral("%1\n(the address and token come from %2; if the console restarted "
                               "on another port or its owner removed you, ask them for a new one)")
                    .arg(why, login.credentialPath));
        };
    const bool asJson = parsed->json;
    // Alone, the token says who this is; a different --reviewer is refused
    // before anything is decided.
    exchange.onWelcome = [&](const Json &welcome) {
        const std::string self = welcome.value("reviewer", std::string());
        if (parsed->reviewer.empty() || self.empty() || self == parsed->reviewer)
            return;
        printLine(stderr,
            command.toStdString() + ": reviewer \"" + parsed->reviewer
                + "\" (from --reviewer or $HOLDPOINT_REVIEWER): this console's reviewer token is "
                + self
                + "'s, and the token alone says who decides; drop --reviewer, or use --reviewer "
                + self);
        exchange.finish(exitcode::review::Failed);
    };
    exchange.onMessage = [&](const Json &m) {
        const std::string type = m.value("type", std::string());
        if (type == "queue") {
            if (command == u"pending") {
                // A team console whose link is down shows what it last knew.
                if (const Json team = m.value("team", Json::object());
                    !team.value("available", true))
                    printLine(stderr,
                        "holdpoint-ctl: the console's team link is down: "
                            + team.value("error", std::string())
                            + "; its queue may be out of date, and nothing can be decided until "
                              "the link is back");
                printQueue(m.value("items", Json::array()), asJson);
                exchange.finish(exitcode::review::Done);
            } else {
                exchange.send(review);
            }
        } else if (type == "reviewed" || type == "voted") {
            // voted: an approval counted towards a call that needs several people.
            printLine(stdout, dumpJson(m));
            exchange.finish(exitcode::review::Done);
        } else if (type == "error") {
            reportError(m);
            exchange.finish(exitcode::review::Failed);
        }
    };
    const int rc = exchange.run(protocol::Role::Reviewer, { "holdpoint-ctl", {} }, std::nullopt);
    g_exchange = nullptr;
    return rc;
}

// `web pair|sessions|revoke`: the reviewer page, asked of the console that
// serves it, as the reviewer this login is (a pairing link is for oneself).
int runWeb(const QStringList &args, const ReviewerLogin &login)
{
    const QString sub = args.value(1);
    bool json = false, qr = true;
    Json request { { "type", "web" } };
    if (sub == u"pair" && args.size() <= 3) {
        request["action"] = "pair";
        if (args.size() == 3 && args.at(2) != u"--no-qr")
            return usageError(
                QStringLiteral("web pair: unknown option %1 (expected --no-qr)").arg(args.at(2)));
        qr = args.size() == 2;
    } else if (sub == u"sessions" && args.size() <= 3) {
        request["action"] = "sessions";
        if (args.size() == 3 && args.at(2) != u"--json")
            return usageError(QStringLiteral("web sessions: unknown option %1 (expected --json)")
                                  .arg(args.at(2)));
        json = args.size() == 3;
    } else if (sub == u"revoke" && args.size() == 3) {
        request["action"] = "revoke";
        request["session"] = args.at(2).toStdString();
    } else {
        return usageError(QStringLiteral(
            "web: expected `web pair [--no-qr]`, `web sessions [--json]` or `web revoke ID`"));
    }
    ConsoleExchange exchange(login.endpoint);
    g_exchange = &exchange;
    exchange.onWelcome = [](const Json &) {};
    exchange.onMessage = [&](const Json &m) {
        const std::string type = m.value("type", std::string());
        if (type == "queue") {
            exchange.send(request);
        } else if (type == "web") {
            const std::string action = m.value("action", std::string());
            if (action == "pair") {
                const std::string url = m.value("url", std::string());
                printLine(stdout,
                    "Open this link on the device within 5 minutes; it works once and pairs it for "
                        + m.value("reviewer", std::string()) + " (until "
                        + m.value("expires", std::string()) + "):");
                printLine(stdout, url);
                if (qr)
                    std::fputs(qrForTerminal(encodeQr(QByteArray::fromStdString(url)))
                                   .toUtf8()
                                   .constData(),
                        stdout);
            } else if (action == "sessions" && json) {
                printLine(stdout, dumpJson(m.value("sessions", Json::array()), 2));
            } else if (action == "sessions") {
                const Json sessions = m.value("sessions", Json::array());
                if (sessions.empty())
                    printLine(stdout, "no paired devices; pair one with `holdpoint-ctl web pair`");
                for (const Json &s : sessions)
                    printLine(stdout,
                        s.value("id", std::string()) + "  " + s.value("reviewer", std::string())
                            + "  last seen " + s.value("last_seen", std::string()) + "  open pages "
                            + std::to_string(s.value("open_pages", 0)) + "  "
                            + s.value("user_agent", std::string()).substr(0, 60));
            } else {
                printLine(stdout, "revoked " + m.value("session", std::string()));
            }
            exchange.finish(exitcode::review::Done);
        } else if (type == "error") {
            reportError(m);
            exchange.finish(exitcode::review::Failed);
        }
    };
    const int rc = exchange.run(protocol::Role::Reviewer, { "holdpoint-ctl", {} }, std::nullopt);
    g_exchange = nullptr;
    return rc;
}

} // namespace

// `COMMAND ... --help` (or -h) and `--version` anywhere before mcp-proxy's
// `--`: what a person typing them expects, before anything else is read or
// sent. -1 when neither is there.
static int answerHelp(const QString &command, const QStringList &args)
{
    const qsizetype separator = args.indexOf(QStringLiteral("--"));
    const QStringList own = separator < 0 ? args : args.mid(0, separator);
    const bool help = own.contains(QStringLiteral("--help")) || own.contains(QStringLiteral("-h"));
    if (!help && !own.contains(QStringLiteral("--version")))
        return -1;
    QStringList words;
    for (const QString &a : own) {
        if (a.startsWith(u'-'))
            break;
        words.append(a);
    }
    const QString text = help
        ? ctl::commandUsage(words)
        : QStringLiteral("holdpoint-ctl %1\n").arg(QStringLiteral(HOLDPOINT_VERSION));
    if (text.isEmpty())
        return usageError(QStringLiteral("unknown command \"%1\"\n%2")
                              .arg(command, QString::fromLatin1(ctl::Usage)));
    // An agent CLI runs a hook with the call on stdin, and exit 0 would let
    // the call run: a hook answers --help with 0 only to a person at a
    // terminal, and otherwise blocks the call as for any other failure.
    if (command == u"hook" && !isatty(STDIN_FILENO)) {
        std::fprintf(stderr,
            "Holdpoint blocked this call: `%s` answers a person at a terminal, not an agent's "
            "call\n%s",
            qPrintable(own.join(u' ')), text.toUtf8().constData());
        return exitcode::claudehook::Blocked;
    }
    std::fputs(text.toUtf8().constData(), stdout);
    return exitcode::Ok;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("holdpoint-ctl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HOLDPOINT_VERSION));

    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    QString dataDirFlag;
    QString teamFlag;
    QString credentialFlag;
    while (!args.isEmpty() && args.first().startsWith(u'-')) {
        const QString a = args.takeFirst();
        if (a == u"--help" || a == u"-h") {
            std::fputs(ctl::Usage, stdout);
            return exitcode::Ok;
        }
        if (a == u"--version" || a == u"-v") {
            std::printf("holdpoint-ctl %s\n", HOLDPOINT_VERSION);
            return exitcode::Ok;
        }
        if (a == u"--data-dir" && !args.isEmpty())
            dataDirFlag = args.takeFirst();
        else if (a.startsWith(u"--data-dir="))
            dataDirFlag = a.mid(11);
        else if (a == u"--team" && !args.isEmpty())
            teamFlag = args.takeFirst();
        else if (a.startsWith(u"--team="))
            teamFlag = a.mid(7);
        else if (a == u"--credential" && !args.isEmpty())
            credentialFlag = args.takeFirst();
        else if (a.startsWith(u"--credential="))
            credentialFlag = a.mid(13);
        else
            return usageError(
                QStringLiteral("unknown option %1\n%2").arg(a, QString::fromLatin1(ctl::Usage)));
    }
    if (args.isEmpty())
        return usageError(
            QStringLiteral("no command given\n%1").arg(QString::fromLatin1(ctl::Usage)));

    const QString command = args.first();
    if (const int code = answerHelp(command, args); code >= 0)
        return code;
    const bool reviewer = command == u"pending" || command == u"approve" || command == u"deny"
        || command == u"edit" || command == u"halt" || command == u"web";
    if (!credentialFlag.isEmpty() && !reviewer)
        return usageError(QStringLiteral(
            "--credential is a reviewer's: it goes with pending, approve, deny, edit "
            "and halt, not %1")
                              .arg(command));
    if (command == u"reviewer")
        return runReviewers(args, dataDirFlag, teamFlag);
    if (command == u"hook") {
        // The same code as the front's (front.cpp), which runs it without Qt.
        std::vector<std::string> words;
        for (const QString &a : args)
            words.push_back(a.toStdString());
        if (isHookCommand(words))
            return runHook(words, dataDirFlag.toStdString());
        return usageError(
            QStringLiteral("hook: expected `hook claude-code`, `hook codex` or `hook gemini`"));
    }
    if (command == u"mcp-proxy") {
        McpProxyOptions options;
        int i = 1;
        for (; i < args.size() && args.at(i) != u"--"; ++i) {
            if (args.at(i) == u"--fail-open")
                options.failOpen = true;
            else if (args.at(i) == u"--server-name" && i + 1 < args.size())
                options.serverName = args.at(++i);
            else
                return usageError(
                    QStringLiteral("mcp-proxy: unknown option %1 (expected --server-name NAME, "
                                   "--fail-open, then -- COMMAND)")
                        .arg(args.at(i)));
        }
        options.command = args.mid(i + 1);
        if (options.command.isEmpty())
            return usageError(
                QStringLiteral("mcp-proxy: give the server to run after --, e.g. mcp-proxy -- npx "
                               "@modelcontextprotocol/server-filesystem /tmp"));
        if (options.serverName.isEmpty())
            options.serverName = QFileInfo(options.command.first()).fileName();
        options.dataDir = resolveDataDir(dataDirFlag);
        McpProxy proxy(options);
        QString error;
        if (!proxy.start(&error))
            return usageError(error);
        QObject::connect(
            &proxy, &McpProxy::finished, &app, [](int code, QProcess::ExitStatus status) {
                QCoreApplication::exit(
                    status == QProcess::NormalExit ? code : exitcode::mcpproxy::ServerKilled);
            });
        // The client closing stdin or a signal ends the server too.
        onTerminationSignal(&app, [] { QCoreApplication::exit(exitcode::mcpproxy::Interrupted); });
        return QCoreApplication::exec();
    }
    if (command == u"team")
        return runTeam(args, teamFlag);
    if (command == u"audit")
        return runAudit(args, dataDirFlag, teamUrl(teamFlag));
    if (command == u"policy" && args.size() >= 2
        && (args.at(1) == u"replay" || args.at(1) == u"suggest"))
        return runPolicy(args, dataDirFlag, teamUrl(teamFlag));
    if (command == u"insights")
        return runInsights(args, dataDirFlag, teamUrl(teamFlag));
    if (command == u"policy") {
        if (args.size() < 2 || args.at(1) != u"check")
            return usageError(QStringLiteral("policy: expected `policy check FILE...`, `policy "
                                             "replay --policy FILE` or `policy suggest`"));
        const QStringList files = args.mid(2);
        if (files.isEmpty())
            return usageError(QStringLiteral("policy check: give at least one policy file"));
        const PolicyResult r = loadPolicyFiles(files);
        if (!r.policy) {
            std::fprintf(stderr, "%s\n", qPrintable(r.error));
            return exitcode::policycheck::Invalid;
        }
        std::printf("ok: %d guardrail(s), default %s, from %s\n", r.policy->chain->size(),
            std::string(defaultActionName(r.policy->defaultAction)).c_str(),
            qPrintable(files.join(QStringLiteral(", "))));
        return exitcode::policycheck::Valid;
    }
    // QCommandLineParser expects the program name first.
    args.first() = QStringLiteral("holdpoint-ctl ") + command;
    if (command != u"submit" && !reviewer)
        return usageError(QStringLiteral("unknown command \"%1\"\n%2")
                              .arg(command, QString::fromLatin1(ctl::Usage)));
    QString error;
    const auto interruptible = [&app] {
        onTerminationSignal(&app, [] {
            if (g_exchange)
                g_exchange->interrupt();
        });
    };
    if (reviewer) {
        if (!takeCredentialOption(args, &credentialFlag, &error))
            return usageError(error);
        if (!teamUrl(teamFlag).isEmpty() && command != u"web") {
            if (!credentialFlag.isEmpty())
                return usageError(QStringLiteral(
                    "--credential: with --team, your PostgreSQL login says who you are"));
            return runTeamReviewer(command, args, teamUrl(teamFlag));
        }
        const auto login = reviewerLogin(credentialFlag, dataDirFlag, &error);
        if (!login)
            return usageError(error);
        interruptible();
        if (command == u"web")
            return runWeb(args, *login);
        return runReviewer(command, args, *login);
    }

    EndpointInfo endpoint;
    if (!readEndpointInfo(resolveDataDir(dataDirFlag), false, &endpoint, &error))
        return usageError(error);
    interruptible();
    return runSubmit(args, endpoint);
}
