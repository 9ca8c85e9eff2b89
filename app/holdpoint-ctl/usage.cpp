// SPDX-License-Identifier: Apache-2.0
#include "usage.h"

#include <algorithm>

namespace holdpoint::ctl {

const char *const Usage
    = R"(Usage: holdpoint-ctl [--data-dir DIR | --credential FILE] [--team URL] COMMAND [OPTIONS]

Commands:
  submit --tool NAME --args JSON [--agent NAME] [--timeout S] [--call-id ID]
         [--session ID] [--turn ID] [--context JSON] [--annotations JSON]
                         Submit one tool call and print its decision as JSON.
                         Exit 0 allow/modify, 3 deny, 4 halt, 2 error.
                         Every JSON option also takes @FILE (@- for stdin).
  pending [--json]       List the calls waiting for a person.
  approve ID [--reason TEXT]
  deny ID --reason TEXT
  edit ID --args JSON [--reason TEXT]
  halt ID [--reason TEXT]
                         Decide a pending item as the reviewer.
                         Exit 0 done, 2 error.
                         --credential FILE (or $HOLDPOINT_CREDENTIAL), before
                         or after the command: decide as the person the file
                         was made for; --reviewer cannot choose another name.
  web pair [--no-qr]     A link (and its QR code) that pairs a phone or browser
                         with the console's reviewer page (holdpoint --web) for
                         you: it works once, for 5 minutes.
  web sessions [--json]  The paired devices: yours, or every one for the owner.
  web revoke ID          End a device's session; its open page closes.
  reviewer add NAME [--os-user USER] [--out FILE]
                         Give another person a reviewer token of their own
                         (their OS user defaults to NAME). Writes their
                         credential to FILE (default
                         ./holdpoint-reviewer-NAME.json, mode 0600); the data
                         directory keeps only its SHA-256.
  reviewer list [--json] The other reviewers: name, OS user, when added.
  reviewer remove NAME   Refuse NAME's token from now on; a connection of
                         theirs is closed.
  hook claude-code [--fail-open]
                         Claude Code command hook for PreToolUse and PostToolUse:
                         reads the hook's JSON on stdin, answers on stdout.
                         Console unreachable or any failure: exit 2 (Claude
                         Code blocks the call); --fail-open prints nothing,
                         exit 0, only when no console can be reached (no
                         endpoint.json, or nothing listening); anything else
                         stays blocked.
  hook codex [--fail-open]
                         Codex command hook for PreToolUse, PermissionRequest
                         and PostToolUse, the same way; Codex cannot run edited
                         arguments or be halted, so those are denied.
  hook gemini [--fail-open]
                         Gemini CLI command hook for BeforeAgent (notes a turn
                         per prompt), BeforeTool and AfterTool, likewise: any
                         failure exits 2 (Gemini CLI denies the call or
                         prompt); --fail-open prints nothing, exit 0.
  mcp-proxy [--server-name NAME] [--fail-open] -- COMMAND [ARGS...]
                         Run the MCP server COMMAND and sit between it and the
                         MCP client on stdin/stdout: every tools/call goes to
                         the console first. Exits with the server's exit code,
                         1 if a signal killed it, 130 on SIGINT or SIGTERM,
                         2 if it cannot start.
  audit verify [--json]  Check the audit log's hash chain. Exit 0 intact,
                         1 tampered, 3 cut off at the end, 4 torn last record,
                         2 unreadable.
  audit query [--agent A] [--tool T] [--decision D] [--event E]
              [--decided-by X] [--since T] [--until T] [--text S]
              [--limit N] [--json]
                         Find audit records, newest first.
  audit export [--format jsonl|csv] [same filters]
                         Stream the audit log, oldest first.
                         The audit commands read the data directory's files
                         and work with or without a console running.
  insights [--since T] [--data-dir DIR | --team URL] [--json]
                         Where reviewers' time goes, from the audit log (the
                         last 7 days unless --since says otherwise, or "all"):
                         escalations per hour and agent, time to decision,
                         approve, edit and deny rates per tool and per rule,
                         and the prompts each rule saved. Exit 0 done, 2 no
                         audit log or usage.
  team init [URL]        Create or migrate the team schema in PostgreSQL (as the
                         database's owner; see resources/team/roles.sql).
  team reviewer add NAME --role LOGIN [--os-user USER]
  team reviewer list [--json]
  team reviewer disable NAME
                         As the database's owner, with --team: map a
                         PostgreSQL login to the reviewer NAME (decided_by is
                         human:NAME), list them, or disable one.
  policy check FILE...   Validate policy files as the console would load them
                         (later files add to earlier ones). Exit 0 valid,
                         1 invalid or unreadable, with the console's message,
                         2 usage.
  policy replay --policy FILE [--since T] [--data-dir DIR | --team URL]
                [--limit N] [--json]
                         Run the recorded calls through FILE's guardrails, in
                         their order and at their times, offline, changing
                         nothing; print what would change (ask -> allow, ...)
                         with the person's actual decision. Exit 1 when a call
                         a person denied, edited or halted, or a guardrail
                         denied or halted, would run without a person; 0
                         otherwise; 2 usage, bad policy, no audit log.
  policy suggest [--policy FILE] [--since T] [--min N] [--json]
                         Rules that would have decided what a person always
                         approved unchanged, narrowest first by shape, each
                         with the prompts it saves and a replay proving it
                         allows nothing that was denied, edited or halted.

Exit 2 means a usage error or a command that could not do its work (console
unreachable, audit log unreadable); under mcp-proxy it may also be the
server's own code.

The console is found through endpoint.json in --data-dir, else
$HOLDPOINT_DATA_DIR, else the platform's app data directory. A reviewer
command with --credential FILE (else $HOLDPOINT_CREDENTIAL, unless --data-dir
is given) takes the console's address and the token from that file instead;
the file must be yours and mode 0600.

--team URL (or $HOLDPOINT_TEAM_URL), a libpq connection string or URI,
points pending, approve, deny, edit, halt, audit verify, audit query,
insights, policy replay and policy suggest at the team's queue and audit in PostgreSQL instead. The password goes in
~/.pgpass, PGPASSFILE or PGPASSWORD, never in the URL. There the database
says who the login is; --reviewer NAME (or $HOLDPOINT_REVIEWER) only picks
among the names it maps to. On a call that needs several people, approve
and edit print {"type":"voted",...} until the last approval decides it.
)";

namespace {

bool isCommandLine(const QString &line)
{
    return line.size() > 2 && line.startsWith(QLatin1String("  ")) && line.at(2).isLower();
}

// Descriptions start at this column, on the command's own line ("  pending
// [--json]       List the calls...") or on the lines under it.
constexpr qsizetype DescriptionColumn = 25;

bool hasInlineDescription(const QString &line)
{
    return line.size() > DescriptionColumn && line.at(DescriptionColumn - 1) == u' '
        && line.at(DescriptionColumn) != u' ';
}

// The Commands section as entries: command lines with the description
// lines under them. Command lines with no description of their own
// ("approve ID", "deny ID --reason TEXT", ...) share the next one's.
QList<QStringList> entries()
{
    const QStringList lines = QString::fromUtf8(Usage).split(u'\n');
    QList<QStringList> out;
    QStringList current;
    bool described = false;
    bool inCommands = false;
    for (const QString &line : lines) {
        if (line == u"Commands:") {
            inCommands = true;
            continue;
        }
        if (!inCommands)
            continue;
        if (line.isEmpty())
            break; // the end of the Commands section
        if (isCommandLine(line)) {
            if (described) {
                out.append(current);
                current.clear();
            }
            current.append(line);
            described = hasInlineDescription(line);
        } else {
            current.append(line);
            // A synopsis that goes on ("         [--session ID] ...") is not
            // yet a description; one indented to column 25 is.
            described = described
                || (line.size() > DescriptionColumn
                    && line.left(DescriptionColumn).trimmed().isEmpty());
        }
    }
    if (!current.isEmpty())
        out.append(current);
    return out;
}

} // namespace

QString commandUsage(const QStringList &words)
{
    // The longest run of leading words that names entries: "edit ID" finds
    // edit's, "team reviewer add" team reviewer add's.
    const QList<QStringList> all = entries();
    for (qsizetype n = words.size(); n > 0; --n) {
        const QString name = words.mid(0, n).join(u' ');
        QStringList found;
        for (const QStringList &entry : all) {
            const bool names = std::any_of(entry.begin(), entry.end(), [&](const QString &line) {
                if (!isCommandLine(line))
                    return false;
                const QString synopsis = line.mid(2);
                return synopsis == name || synopsis.startsWith(name + u' ');
            });
            if (names)
                found += entry;
        }
        if (!found.isEmpty())
            return QStringLiteral("Usage: holdpoint-ctl [--data-dir DIR | --credential FILE] "
                                  "[--team URL] %1 ...\n\n%2\n\n"
                                  "holdpoint-ctl --help shows every command, the global options "
                                  "and what exit 2 means.\n")
                .arg(name, found.join(u'\n'));
    }
    return {};
}

} // namespace holdpoint::ctl
