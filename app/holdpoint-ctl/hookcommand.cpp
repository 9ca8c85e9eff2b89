// SPDX-License-Identifier: Apache-2.0
#include "hookcommand.h"

#include "exitcodes.h"
#include "geminihook.h"
#include "hooks/claudecode.h"
#include "hooks/codex.h"
#include "wire/files.h"
#include "wire/websocket.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace holdpoint {

// Each hook's codes are Claude Code's (exitcodes.h says why for each agent).
static_assert(exitcode::geminihook::Answered == exitcode::claudehook::Answered
    && exitcode::geminihook::Blocked == exitcode::claudehook::Blocked);

bool printLine(FILE *f, const std::string &s)
{
    const bool written
        = std::fwrite(s.data(), 1, s.size(), f) == s.size() && std::fputc('\n', f) != EOF;
    return std::fflush(f) == 0 && written && !std::ferror(f);
}

int HookFailure::operator()(wire::Outage outage, const std::string &why) const
{
    if (failOpen && wire::failOpenLetsThrough(outage))
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
            std::fprintf(stderr, "Holdpoint blocked this call: hook %s: unknown option %s\n",
                args[1].c_str(), args[i].c_str());
            return false;
        }
        fail->failOpen = true;
    }
    return true;
}

bool startHook(const std::vector<std::string> &args, std::size_t maxBytes, HookFailure *fail,
    std::string *input, int *code)
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

namespace {

// `limit`, or HOLDPOINT_HOOK_WAIT_MS when it is shorter (tests).
std::int64_t hookWaitMs(std::int64_t limit)
{
    if (const char *v = std::getenv("HOLDPOINT_HOOK_WAIT_MS"); v && *v) {
        char *end = nullptr;
        const long long ms = std::strtoll(v, &end, 10);
        if (end && *end == '\0' && ms > 0 && ms < limit)
            return ms;
    }
    return limit;
}

} // namespace

int hookExchange(const wire::Endpoint &endpoint, wire::Hello agent, const std::string &sessionId,
    const Json &first, const std::function<std::optional<int>(const Json &)> &onMessage,
    const HookFailure &fail)
{
    using Result = wire::WebSocketClient::Result;
    using wire::Outage;
    // 10 s to connect and be welcomed; then as long as a person takes, up
    // to the hook's own limit, while the console answers our pings.
    const std::int64_t started = wire::monotonicMs();
    const std::int64_t deadline = started + 10'000;
    const std::int64_t waitMs = hookWaitMs(
        first.value("type", std::string()) == "tool_result" ? HookAfterCallWaitMs : HookWaitMs);
    const std::int64_t waitUntil = started + waitMs;
    const std::int64_t silence = wire::silenceBoundMs();
    const std::int64_t pingEvery = wire::pingIntervalMs(silence);
    wire::WsUrl url;
    wire::parseWsUrl(endpoint.url, &url); // readEndpoint checked it
    wire::WebSocketClient ws;
    std::string why, hello, message, callId;
    // While the console answers the upgrade: the hello (its OS user is an
    // NSS lookup) and the call, ready to go.
    const auto prepare = [&] {
        agent.role = "agent";
        agent.token = endpoint.agentToken;
        agent.sessionId = sessionId;
        hello = dumpJson(wire::helloMessage(agent));
        message = dumpJson(first);
        callId = first.value("call_id", std::string());
    };
    const std::string unreachable = "cannot connect to the console at " + endpoint.url + ": ";
    // Only nothing listening is "no console" (wire/failopen.h); a listener
    // that does not finish a WebSocket handshake is not a console.
    if (!ws.open(url, deadline, &why, prepare))
        return fail(ws.refused() ? Outage::ConnectionRefused : Outage::Other, unreachable + why);
    if (!ws.sendText(hello, &why))
        return fail.block(unreachable + why);

    bool welcomed = false;
    std::int64_t nextPing = 0;
    for (;;) {
        std::string text;
        std::int64_t until = deadline;
        if (welcomed) {
            const std::int64_t now = wire::monotonicMs();
            if (now >= nextPing) {
                // Our ping keeps a live console talking; a stopped one says
                // nothing, and its silence denies the call.
                if (!ws.sendPing(&why))
                    return fail.block("the console closed the connection: " + why);
                nextPing = now + pingEvery;
            }
            until = std::min({ nextPing, ws.lastHeardMs() + silence, waitUntil });
        }
        const Result r = ws.read(&text, until, &why);
        if (r == Result::TimedOut) {
            const std::int64_t now = wire::monotonicMs();
            if (!welcomed) {
                ws.close();
                return fail.block("the console at " + endpoint.url + " did not answer in time");
            }
            if (now >= waitUntil) {
                // Said, so that the console takes the call off its queue.
                if (first.value("type", std::string()) == "tool_call")
                    ws.sendText(
                        dumpJson(Json { { "type", "cancel" }, { "call_id", callId } }), &why);
                ws.close();
                return fail.block("no answer within " + std::to_string(waitMs / 1000)
                    + " s; the hook ends the wait before the agent's own hook timeout");
            }
            if (now - ws.lastHeardMs() >= silence) {
                ws.close();
                return fail.block("the console at " + endpoint.url
                    + " went silent (no answer to pings for " + std::to_string(silence) + " ms)");
            }
            continue; // time to ping
        }
        // Once the hook has connected, every end of the exchange blocks: a
        // console that was killed or closed after taking the call may have
        // put it to a person, and a refusal is an answer.
        if (r == Result::Dropped)
            return fail.block(welcomed ? "the console closed the connection" : unreachable + why);
        if (r == Result::Failed)
            return fail.block("the console broke the protocol: " + why);
        if (r == Result::Closed)
            return fail.block((welcomed ? std::string("the console closed the connection")
                                        : unreachable + "the console closed the connection")
                + " (close code " + std::to_string(ws.closeCode()) + " " + ws.closeReason() + ")");
        const Json m = Json::parse(text, nullptr, false);
        if (!m.is_object()) {
            ws.close(1008);
            return fail.block(
                "the console broke the protocol: a message that is not a JSON object");
        }
        const std::string type = m.value("type", std::string());
        if (!welcomed) {
            if (type == "error") {
                // Refused before the welcome, at once (a console need not
                // close after it).
                ws.close();
                return fail.block("the console refused the connection: " + consoleError(m));
            }
            if (type != "welcome") {
                ws.close(1008);
                return fail.block("the console broke the protocol: \"" + type.substr(0, 64)
                    + "\" before its welcome");
            }
            if (const auto p = m.find("protocol"); p == m.end() || !p->is_number_integer()
                || p->get<std::int64_t>() != wire::ProtocolVersion) {
                ws.close(1002);
                return fail.block("the console's welcome is not for protocol "
                    + std::to_string(wire::ProtocolVersion) + " (got "
                    + (p == m.end() ? std::string("none") : p->dump()) + ")");
            }
            welcomed = true;
            // A console that does not say takes the protocol's default.
            std::int64_t maxMessageBytes = wire::DefaultMaxMessageBytes;
            if (const auto it = m.find("max_message_bytes");
                it != m.end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
                maxMessageBytes = it->get<std::int64_t>();
            // Sent anyway, the console would cut the connection off
            // mid-send with nothing said.
            if (std::int64_t(message.size()) > maxMessageBytes) {
                ws.close();
                return fail.block("the message is " + std::to_string(message.size())
                    + " bytes, more than the console takes (" + std::to_string(maxMessageBytes)
                    + " bytes, holdpoint --max-message-bytes)");
            }
            if (!ws.sendText(message, &why))
                return fail.block("the console closed the connection: " + why);
            nextPing = wire::monotonicMs() + pingEvery;
            continue;
        }
        // An error without a call_id answers a message the console could
        // not read as far as its call_id (invalid_json, too_deep): this
        // hook sent one call, so it is that call's (PROTOCOL.md, "Errors").
        if (type == "error" && !m.contains("call_id")) {
            ws.close();
            return fail.block(consoleError(m));
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
    const char *name; // `hook <name>`, also the agent's framework
    const char *idPrefix; // for a call without a tool use id
    claudecode::ParseResult (*parse)(std::string_view);
    Json (*toolCall)(const claudecode::HookInput &, const std::string &);
    // What to print for the console's decision; empty prints nothing.
    std::string (*decisionOutput)(const claudecode::HookInput &, const Json &);
    wire::Capabilities capabilities; // for the hello
};

const HookSpec ClaudeCodeHook { "claude-code", "cc-",
    [](std::string_view t) { return claudecode::parseHookInput(t); }, &claudecode::toolCallMessage,
    [](const claudecode::HookInput &, const Json &d) { return claudecode::preToolUseOutput(d); },
    {} };

const HookSpec CodexHook { "codex", "cx-", &codex::parseHookInput, &codex::toolCallMessage,
    [](const claudecode::HookInput &in, const Json &d) {
        return in.event == claudecode::Event::PermissionRequest ? codex::permissionRequestOutput(d)
                                                                : codex::preToolUseOutput(d);
    },
    codex::capabilities() };

// Every failure blocks the call (exit 2, the reason on stderr); --fail-open
// lets it through only when no console can be reached (HookFailure).
int runClaudeStyleHook(
    const HookSpec &spec, const std::vector<std::string> &args, const std::string &dataDirFlag)
{
    namespace code = exitcode::claudehook;
    HookFailure fail;
    std::string bytes;
    if (int blocked = code::Blocked;
        !startHook(args, claudecode::MaxHookInputBytes, &fail, &bytes, &blocked))
        return blocked;
    const claudecode::ParseResult parsed = spec.parse(bytes);
    if (!parsed.input)
        return fail.block(parsed.error);
    const claudecode::HookInput &hook = *parsed.input;

    wire::Endpoint endpoint;
    std::string error;
    if (bool absent = false;
        !wire::readEndpoint(wire::resolveDataDir(dataDirFlag), false, &endpoint, &error, &absent))
        return fail(absent ? wire::Outage::NoEndpointFile : wire::Outage::Other, error);

    // Without a tool_use_id the call gets an id of its own; deriving one from
    // the input would let a second identical call inherit the first's decision.
    std::string callId = hook.toolUseId;
    if (callId.empty())
        callId = wire::randomId(spec.idPrefix);
    if (callId.empty())
        return fail.block("no random numbers for a call id (getrandom and /dev/urandom failed)");
    const bool pre = hook.event != claudecode::Event::PostToolUse;

    wire::Hello agent;
    // agent_type names a subagent; one the console would refuse in the
    // hello (empty, too long) gives way to the hook's own name, since a
    // refused hello blocks the call.
    const auto agentType = hook.context.find("agent_type");
    agent.agentName = agentType != hook.context.end() && agentType->is_string()
            && wire::isValidName(agentType->get_ref<const std::string &>())
        ? agentType->get<std::string>()
        : std::string(spec.name);
    agent.framework = spec.name;
    agent.capabilities = spec.capabilities;
    return hookExchange(
        endpoint, agent, hook.sessionId,
        pre ? spec.toolCall(hook, callId) : claudecode::toolResultMessage(hook, callId),
        [&](const Json &m) -> std::optional<int> {
            const std::string type = m.value("type", std::string());
            if (m.value("call_id", std::string()) == callId
                && type == (pre ? "decision" : "after_call")) {
                const std::string out
                    = pre ? spec.decisionOutput(hook, m) : claudecode::postToolUseOutput(m);
                // An answer the agent cannot read is no answer: blocked.
                if (!out.empty() && !printLine(stdout, out))
                    return fail.block(
                        std::string("cannot write the answer to stdout: ") + std::strerror(errno));
                return code::Answered;
            }
            if (type != "error")
                return std::nullopt;
            // A result for a call the console never saw (no PreToolUse hook,
            // or a console restarted since) has nothing to check.
            if (!pre && m.value("code", std::string()) == "unknown_call")
                return code::Answered;
            return fail.block(consoleError(m));
        },
        fail);
}

} // namespace

bool isHookCommand(const std::vector<std::string> &args)
{
    if (args.size() < 2 || args[0] != "hook"
        || (args[1] != "claude-code" && args[1] != "codex" && args[1] != "gemini"))
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
    // An exception out of main would abort the hook, and an agent CLI runs
    // the call on any code but 2: a message of an unexpected shape (a
    // number where a string belongs) blocks it instead.
    try {
        if (args[1] == "claude-code")
            return runClaudeStyleHook(ClaudeCodeHook, args, dataDirFlag);
        if (args[1] == "codex")
            return runClaudeStyleHook(CodexHook, args, dataDirFlag);
        return runGeminiHook(args, dataDirFlag);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "Holdpoint blocked this call: %s\n", e.what());
        return exitcode::claudehook::Blocked;
    }
}

} // namespace holdpoint
