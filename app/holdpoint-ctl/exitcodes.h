// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every exit code holdpoint-ctl returns, per subcommand. Scripts, CI jobs and
// agent frameworks branch on these numbers, so none of them may change. 1, 3
// and 4 mean different things under different subcommands; that is safe only
// because a caller reads the codes of the one subcommand it ran. `--help`
// (main.cpp's Usage) and the README's "Exit codes" table repeat this table;
// change all three together.
//
//   subcommand                      code  meaning
//   ------------------------------  ----  ---------------------------------------------
//   (none yet: global options)         0  --help, --version
//                                      2  unknown option, no command, unknown command
//   any COMMAND ... --help|-h|--version
//                                      0  that command's usage, or the version
//                                      2  unknown command; under `hook`, stdin not a
//                                         terminal (an agent CLI ran it: blocked)
//   submit                             0  allowed, or allowed with modified args
//                                      3  denied (a person, a guardrail, a timeout, or
//                                         Ctrl+C once the console has the call)
//                                      4  halted: the agent should stop
//                                      2  usage, console unreachable, console error,
//                                         Ctrl+C before the call was sent
//   pending approve deny edit halt     0  done (also an approval counted towards several)
//                                      2  usage, console unreachable, console error,
//                                         a refused credential, Ctrl+C
//   reviewer add list remove           0  done
//                                      2  usage, a refused name, reviewers.json
//                                         unreadable or open to others
//   hook claude-code                   0  answered on stdout (the decision is in the JSON);
//                                         with --fail-open, also when no console can
//                                         be reached (wire/failopen.h)
//                                      2  blocked: Claude Code's blocking code, on any
//                                         failure (usage errors block even with --fail-open)
//   hook gemini                        0  answered on stdout (the decision is in the JSON),
//                                         or nothing to say; with --fail-open, also when
//                                         no console can be reached
//                                      2  blocked: Gemini CLI denies the call with stderr
//                                         as the reason (usage errors block even with
//                                         --fail-open)
//   mcp-proxy                          *  the MCP server's own exit code
//                                      1  the server was killed by a signal
//                                      2  usage, or the server cannot start
//                                    130  SIGINT or SIGTERM ended the proxy
//   audit verify                       0  intact
//                                      1  tampered: a record edited, deleted or reordered
//                                      3  cut off at the end
//                                      4  torn last record (a crash; the console's next
//                                         start removes it)
//                                      2  unreadable, no audit log, usage (an unknown
//                                         option too: never 1)
//   audit query, audit export          0  done
//                                      2  no audit log, usage, stdout failed (export)
//   insights                           0  done
//                                      2  no audit log, team database unreachable,
//                                         usage, stdout failed
//   policy check                       0  every file valid
//                                      1  a file invalid or unreadable, with the
//                                         console's message
//                                      2  usage
//   policy replay                      0  no call that was stopped would now run alone
//                                      1  a call a person denied, edited or halted, or a
//                                         guardrail denied or halted, would now run
//                                         without a person
//                                      2  usage, a policy invalid, no audit log
//   policy suggest                     0  done (also when there is nothing to suggest)
//                                      2  usage, a policy invalid, no audit log

namespace holdpoint::exitcode {

inline constexpr int Ok = 0;
// Every subcommand: the command line makes no sense, or the command could not
// do its work at all (console unreachable, audit log unreadable).
inline constexpr int Failed = 2;

namespace submit {
inline constexpr int Allowed = 0; // allow or modify: run the call with the decision's args
inline constexpr int Denied = 3;
inline constexpr int Halted = 4;
inline constexpr int Failed = exitcode::Failed;
} // namespace submit

// pending, approve, deny, edit, halt
namespace review {
inline constexpr int Done = Ok;
inline constexpr int Failed = exitcode::Failed;
} // namespace review

namespace claudehook {
// Claude Code reads the hook's JSON from stdout only after exit 0; with
// nothing on stdout (--fail-open) the call takes Claude Code's usual
// permission path, as if there were no hook.
inline constexpr int Answered = 0;
// Claude Code's hooks reference: exit 2 is the blocking error, and stderr goes
// to Claude as the reason. Any other non-zero code lets the call run.
inline constexpr int Blocked = 2;
static_assert(Blocked == exitcode::Failed, "a bad command line must block the call");
} // namespace claudehook

namespace geminihook {
// Gemini CLI parses stdout as JSON after exit 0; nothing on stdout lets the
// call run as if there were no hook (--fail-open).
inline constexpr int Answered = 0;
// Gemini CLI's hook runner: an exit code other than 0 and 1 with plain text
// is {decision: "deny", reason: <the text>}; exit 1 would let the call run.
inline constexpr int Blocked = 2;
static_assert(Blocked == exitcode::Failed, "a bad command line must block the call");
} // namespace geminihook
namespace codexhook {
// Codex copies Claude Code here (checked against @openai/codex 0.169.0): exit 0
// with nothing on stdout goes on with Codex's own approval and sandbox
// settings; exit 2 with a reason on stderr blocks the call (PreToolUse) or
// denies it (PermissionRequest). Any other code, a crash or a timeout makes
// the hook fail, and Codex then runs the call as if there were no hook.
inline constexpr int Answered = claudehook::Answered;
inline constexpr int Blocked = claudehook::Blocked;
} // namespace codexhook

namespace mcpproxy {
// Apart from these, the proxy exits with the server's own code, so the MCP
// client sees the server end as if it had started the server itself. A server
// killed by a signal has no code of its own.
inline constexpr int ServerKilled = 1;
inline constexpr int Failed = exitcode::Failed;
// The shell's code for a command ended by SIGINT (128 + 2), for SIGTERM too:
// either way the person or supervisor asked the proxy to stop.
inline constexpr int Interrupted = 130;
} // namespace mcpproxy

namespace auditverify {
inline constexpr int Intact = 0;
inline constexpr int Tampered = 1;
inline constexpr int Unreadable = exitcode::Failed;
inline constexpr int CutOff = 3;
inline constexpr int TornTail = 4;
} // namespace auditverify

namespace auditquery {
inline constexpr int Done = Ok;
inline constexpr int Failed = exitcode::Failed;
} // namespace auditquery

namespace auditexport {
inline constexpr int Done = Ok;
inline constexpr int Failed = exitcode::Failed; // also: writing to stdout failed
} // namespace auditexport

namespace insights {
inline constexpr int Done = Ok;
inline constexpr int Failed = exitcode::Failed;
} // namespace insights

namespace policycheck {
inline constexpr int Valid = 0;
inline constexpr int Invalid = 1;
inline constexpr int Failed = exitcode::Failed;
} // namespace policycheck

namespace policyreplay {
inline constexpr int Safe = 0;
inline constexpr int WouldRunAlone = 1;
inline constexpr int Failed = exitcode::Failed;
} // namespace policyreplay

namespace policysuggest {
inline constexpr int Done = Ok;
inline constexpr int Failed = exitcode::Failed;
} // namespace policysuggest

} // namespace holdpoint::exitcode
