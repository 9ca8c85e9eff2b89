// SPDX-License-Identifier: Apache-2.0
#include "hookcommand.h"

#include "exitcodes.h"
#include "geminihook.h"
#include "hooks/claudecode.h"
#include "hooks/codex.h"
#include "wire/files.h"
#include "wire/websocket.h"

#include <algorithm>
#include <cstdio>

namespace holdpoint {

// Each hook's codes are Claude Code's (exitcodes.h says why for each agent).
static_assert(exitcode::geminihook::Answered == exitcode::claudehook::Answered
              && exitcode::geminihook::Blocked == exitcode::claudehook::Blocked);

void printLine(FILE *f, const std::string &s)
{
    std::fwrite(s.data(), 1, s.size(), f);
    std::fputc('\n', f);
    std::fflush(f);
}

int HookFailure::operator()(const std::string &why) const
{
    if (failOpen)
        return exitcode::claudehook::Answered;
    return block(why);
}

int HookFailure::block(const std::string &why) const
{
    std::fprintf(stderr, "Holdpoint blocked this call: %s\n", why.c_str());
    return exitcode::claudehook::Blocked;
}

bool parseHookOptions(const std::vector<std::string> &args, HookFailure *fail)
{
    for (std::size_t i = 2; i < args.size(); ++i) {
        if (args[i] != "--fail-open") {
            std::fprintf(stderr, "Holdpoint blocked this call: hook %s: unknown option %s\n", args[1].c_str(), args[i].c_str());
            return false;
        }
        fail->failOpen = true;
    }
    return true;
}

bool startHook(const std::vector<std::string> &args, std::size_t maxBytes, HookFailure *fail, std::string *input, int *code)
{
    if (!parseHookOptions(args, fail)) {
        *code = exitcode::claudehook::Blocked;
        return false;
    }
    if (!readInput(stdin, maxBytes, input)) {
        *code = fail->block("cannot read the hook input");
        return false;
    }
    return true;
}

bool readInput(std::FILE *in, std::size_t maxBytes, std::string *out)
{
    // Until the end of the input: one read of a pipe returns what has arrived
    // so far, which for a large tool input (a file's content) is only its
    // start, and a cut document is refused as invalid JSON.
    out->clear();
    char chunk[64 * 1024];
    while (out->size() <= maxBytes) {
        const std::size_t want = std::min(sizeof chunk, maxBytes + 1 - out->size());
        const std::size_t got = std::fread(chunk, 1, want, in);
        out->append(chunk, got);
        if (got < want)
            return !std::ferror(in);
    }
    return true;
}

std::string consoleError(const Json &error)
{
    return error.value("code", std::string()) + ": " + error.value("message", std::string());
}

int hookExchange(const wire::Endpoint &endpoint, wire::Hello agent, const std::string &sessionId, const Json &first,
                 const std::function<std::optional<int>(const Json &)> &onMessage, const HookFailure &fail)
{
    // As ConsoleClient: 10 s to connect and be welcomed, then no limit (a
    // person may take minutes; the console's `pending` and pings keep the
    // connection alive).
    const std::int64_t deadline = wire::monotonicMs() + 10'000;
    wire::WsUrl url;
    wire::parseWsUrl(endpoint.url, &url); // readEndpoint checked it
    wire::WebSocketClient ws;
    std::string why, hello, message;
    // While the console answers the upgrade: the hello (its OS user is an
    // NSS lookup) and the call, ready to go.
    const auto prepare = [&] {
        agent.role = "agent";
        agent.token = endpoint.agentToken;
        agent.sessionId = sessionId;
        hello = dumpJson(wire::helloMessage(agent));
        message = dumpJson(first);
    };
    if (!ws.open(url, deadline, &why, prepare))
        return fail("cannot connect to the console at " + endpoint.url + ": " + why);
    if (!ws.sendText(hello, &why))
        return fail("cannot connect to the console at " + endpoint.url + ": " + why);

    std::string refused; // the console's error before its welcome
    bool welcomed = false;
    std::int64_t maxMessageBytes = 0; // 0: the console did not say
    for (;;) {
        std::string text;
        const auto r = ws.read(&text, welcomed ? wire::WebSocketClient::NoDeadline : deadline, &why);
        if (r == wire::WebSocketClient::Result::TimedOut) {
            ws.close();
            return fail("the console at " + endpoint.url + " did not answer in time");
        }
        if (r != wire::WebSocketClient::Result::Message) {
            if (!refused.empty())
                return fail(refused);
            if (!welcomed)
                return fail("cannot connect to the console at " + endpoint.url + ": "
                            + (r == wire::WebSocketClient::Result::Closed ? std::string("The remote host closed the connection") : why));
            if (r == wire::WebSocketClient::Result::Failed)
                return fail("the console closed the connection: " + why);
            std::string closed = "the console closed the connection";
            if (ws.closeCode() != 1000 && ws.closeCode() != 1005 && ws.closeCode() != 1006)
                closed += " (close code " + std::to_string(ws.closeCode()) + " " + ws.closeReason() + ")";
            return fail(closed);
        }
        const Json m = Json::parse(text, nullptr, false);
        if (!m.is_object())
            continue;
        const std::string type = m.value("type", std::string());
        if (!welcomed) {
            if (type == "error") {
                refused = "the console refused the connection: " + consoleError(m);
            } else if (type == "welcome") {
                welcomed = true;
                if (const auto it = m.find("max_message_bytes"); it != m.end() && it->is_number_integer())
                    maxMessageBytes = it->get<std::int64_t>();
                // Sent anyway, the console would cut the connection off
                // mid-send with nothing said.
                if (maxMessageBytes > 0 && std::int64_t(message.size()) > maxMessageBytes) {
                    ws.close();
                    return fail.block("the message is " + std::to_string(message.size())
                                      + " bytes, more than the console takes (" + std::to_string(maxMessageBytes)
                                      + " bytes, holdpoint --max-message-bytes)");
                }
                if (!ws.sendText(message, &why))
                    return fail("the console closed the connection: " + why);
            }
            continue;
        }
        if (const auto code = onMessage(m)) {
            ws.close();
            return *code;
        }
    }
}

namespace {

// The command hooks of Claude Code and Codex: one JSON document on stdin, the
// console's answer on stdout. What differs between them is in HookSpec.
struct HookSpec
{
    const char *name;      // `hook <name>`, also the agent's framework
    const char *idPrefix;  // for a call without a tool use id
    claudecode::ParseResult (*parse)(std::string_view);
    Json (*toolCall)(const claudecode::HookInput &, const std::string &);
    // What to print for the console's decision; empty prints nothing.
    std::string (*decisionOutput)(const claudecode::HookInput &, const Json &);
    wire::Capabilities capabilities; // for the hello
};

const HookSpec ClaudeCodeHook {"claude-code", "cc-", [](std::string_view t) { return claudecode::parseHookInput(t); },
    &claudecode::toolCallMessage,
    [](const claudecode::HookInput &, const Json &d) { return claudecode::preToolUseOutput(d); }, {}};

const HookSpec CodexHook {"codex", "cx-", &codex::parseHookInput, &codex::toolCallMessage,
    [](const claudecode::HookInput &in, const Json &d) {
        return in.event == claudecode::Event::PermissionRequest ? codex::permissionRequestOutput(d) : codex::preToolUseOutput(d);
    },
    codex::capabilities()};

// Every failure blocks the call (exit 2, the reason on stderr); --fail-open
// lets it through only when no console can be asked (HookFailure).
int runClaudeStyleHook(const HookSpec &spec, const std::vector<std::string> &args, const std::string &dataDirFlag)
{
    namespace code = exitcode::claudehook;
    HookFailure fail;
    std::string bytes;
    if (int blocked = code::Blocked; !startHook(args, claudecode::MaxHookInputBytes, &fail, &bytes, &blocked))
        return blocked;
    const claudecode::ParseResult parsed = spec.parse(bytes);
    if (!parsed.input)
        return fail.block(parsed.error);
    const claudecode::HookInput &hook = *parsed.input;

    wire::Endpoint endpoint;
    std::string error;
    if (!wire::readEndpoint(wire::resolveDataDir(dataDirFlag), false, &endpoint, &error))
        return fail(error);

    // Without a tool_use_id the call gets an id of its own; deriving one from
    // the input would let a second identical call inherit the first's decision.
    std::string callId = hook.toolUseId;
    if (callId.empty())
        callId = wire::randomId(spec.idPrefix);
    const bool pre = hook.event != claudecode::Event::PostToolUse;

    wire::Hello agent;
    agent.agentName = hook.context.value("agent_type", std::string(spec.name));
    agent.framework = spec.name;
    agent.capabilities = spec.capabilities;
    return hookExchange(endpoint, agent, hook.sessionId,
                        pre ? spec.toolCall(hook, callId) : claudecode::toolResultMessage(hook, callId),
                        [&](const Json &m) -> std::optional<int> {
        const std::string type = m.value("type", std::string());
        if (m.value("call_id", std::string()) == callId && type == (pre ? "decision" : "after_call")) {
            const std::string out = pre ? spec.decisionOutput(hook, m) : claudecode::postToolUseOutput(m);
            if (!out.empty())
                printLine(stdout, out);
            return code::Answered;
        }
        if (type != "error")
            return std::nullopt;
        // A result for a call the console never saw (no PreToolUse hook,
        // or a console restarted since) has nothing to check.
        if (!pre && m.value("code", std::string()) == "unknown_call")
            return code::Answered;
        return fail.block(consoleError(m));
    }, fail);
}

} // namespace

bool isHookCommand(const std::vector<std::string> &args)
{
    if (args.size() < 2 || args[0] != "hook" || (args[1] != "claude-code" && args[1] != "codex" && args[1] != "gemini"))
        return false;
    // As main.cpp's answerHelp: these words before a `--` are for a person.
    for (const std::string &a : args) {
        if (a == "--")
            break;
        if (a == "--help" || a == "-h" || a == "--version")
            return false;
    }
    return true;
}

int runHook(const std::vector<std::string> &args, const std::string &dataDirFlag)
{
    if (args[1] == "claude-code")
        return runClaudeStyleHook(ClaudeCodeHook, args, dataDirFlag);
    if (args[1] == "codex")
        return runClaudeStyleHook(CodexHook, args, dataDirFlag);
    return runGeminiHook(args, dataDirFlag);
}

} // namespace holdpoint
