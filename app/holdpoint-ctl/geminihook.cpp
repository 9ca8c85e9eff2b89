// SPDX-License-Identifier: Apache-2.0
#include "geminihook.h"

#include "exitcodes.h"
#include "hookcommand.h"
#include "hooks/gemini.h"
#include "hooks/hookinput.h"
#include "wire/digest.h"
#include "wire/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace holdpoint {

namespace {

// Where this user's hook notes go: the data dir when it is this user's, else
// (a console another user runs, shared with --agent-group, whose data dir
// lets agents read endpoint.json and write nothing) this user's runtime dir,
// one folder per data dir.
bool notesRoot(const std::string &dataDir, std::string *root, std::string *error)
{
    struct stat st
    {
    };
    if (::stat(dataDir.c_str(), &st) != 0 || st.st_uid == ::geteuid()) {
        *root = dataDir;
        return true;
    }
    std::string runtime;
    if (!wire::runtimeDir(&runtime, error))
        return false;
    *root = runtime + "/holdpoint-" + wire::sha256Hex(wire::absolutePath(dataDir)).substr(0, 16);
    return true;
}

// Holds an exclusive flock(2) on `path` while it lives; gives up after
// `timeoutMs`. The kernel drops the lock if the process dies.
class FileLock
{
public:
    FileLock(const std::string &path, int timeoutMs)
    {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (m_fd < 0)
            return;
        // Other hooks of the same session hold it for a read and a write.
        for (int waited = 0; ::flock(m_fd, LOCK_EX | LOCK_NB) != 0; waited += 2) {
            if (errno != EWOULDBLOCK || waited >= timeoutMs) {
                ::close(m_fd);
                m_fd = -1;
                return;
            }
            const timespec pause { 0, 2'000'000 };
            ::nanosleep(&pause, nullptr);
        }
    }
    ~FileLock()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool locked() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

// The calls the BeforeTool hook let run, for the AfterTool hook to find their
// call_id (gemini.h): one file per session in the data directory, changed
// under a lock because Gemini CLI may run tools, and so hooks, in parallel.
class Ledger
{
public:
    // False, with *error saying why, when there is no private place for it.
    bool open(const std::string &dataDir, const std::string &sessionId, std::string *error)
    {
        std::string root;
        if (!notesRoot(dataDir, &root, error))
            return false;
        m_dir = root + "/gemini-hook";
        m_path = m_dir + "/" + wire::sha256Hex(sessionId) + ".json";
        return true;
    }

    // Runs `change` on the ledger under the lock and writes it back. A
    // ledger that cannot be read is left as it is: written over, the notes
    // of the calls let run so far would be lost, their results unchecked.
    bool update(const std::function<void(Json *)> &change, std::string *error) const
    {
        if (!wire::ensurePrivateDir(m_dir, error))
            return false;
        // `<sha>.json.lock` stays once made: an flock on a file that is
        // never removed is the one lock every hook of the session agrees
        // on (removing it would let a hook lock a file another has just
        // unlinked). It lives in the same private directory.
        FileLock lock(m_path + ".lock", 10'000);
        if (!lock.locked()) {
            *error = "cannot lock " + m_path;
            return false;
        }
        Json ledger;
        if (!read(&ledger, error))
            return false;
        change(&ledger);
        return wire::writePrivateFile(m_path, dumpJson(ledger), error);
    }

    // The ledger as last written, {} when there is none yet. False when it
    // exists and cannot be read whole or is not a JSON object. Writes
    // replace the file whole (a rename), so reading needs no lock. No cap:
    // 1000 calls' arguments may well pass any size chosen here, and a cut
    // ledger is no ledger.
    bool read(Json *ledger, std::string *error) const
    {
        std::string bytes;
        if (!wire::readFile(m_path, std::string::npos, &bytes)) {
            if (errno == ENOENT) {
                *ledger = Json::object();
                return true;
            }
            *error = "cannot read the Gemini hook's notes " + m_path + ": " + std::strerror(errno);
            return false;
        }
        *ledger = Json::parse(bytes, nullptr, false);
        if (!ledger->is_object()) {
            *error = "the Gemini hook's notes " + m_path
                + " are not a JSON object; they are left as they are "
                  "(remove the file to start over)";
            return false;
        }
        return true;
    }

private:
    std::string m_dir;
    std::string m_path;
};

wire::Hello agent()
{
    wire::Hello hello;
    hello.agentName = "gemini-cli";
    hello.framework = "gemini-cli";
    return hello;
}

} // namespace

int runGeminiHook(const std::vector<std::string> &args, const std::string &dataDirFlag)
{
    namespace code = exitcode::geminihook;
    // Exit 2 with the reason on stderr and nothing on stdout: Gemini CLI
    // turns that into a deny whose reason the model reads.
    HookFailure fail;
    std::string bytes;
    if (int blocked = code::Blocked; !startHook(args, hookinput::MaxBytes, &fail, &bytes, &blocked))
        return blocked;
    const gemini::ParseResult parsed = gemini::parseHookInput(bytes);
    if (!parsed.input)
        return fail.block(parsed.error);
    const gemini::HookInput &hook = *parsed.input;

    const std::string dataDir = wire::resolveDataDir(dataDirFlag);
    Ledger ledger;
    std::string error;
    // Notes that cannot be kept or read block the call even with
    // --fail-open: that is not a console out of reach.
    if (!ledger.open(dataDir, hook.sessionId, &error))
        return fail.block(error);
    if (hook.event == gemini::Event::BeforeAgent) {
        // A new prompt: a new turn for the calls that follow. Without it they
        // would carry the last prompt's turn, and its grants, so a failure
        // blocks the prompt.
        const std::string turn = wire::randomId("gt-");
        if (turn.empty())
            return fail.block(
                "no random numbers for a turn id (getrandom and /dev/urandom failed)");
        if (!ledger.update([&](Json *l) { gemini::ledgerStartTurn(l, turn); }, &error))
            return fail.block(error);
        return code::Answered;
    }
    std::optional<std::string> callId;
    if (hook.event == gemini::Event::AfterTool) {
        if (!ledger.update(
                [&](Json *l) { callId = gemini::ledgerTake(l, hook.toolName, hook.toolInput); },
                &error))
            return fail.block(error);
        if (!callId)
            return code::Answered; // not a call this hook let run: nothing to check
    }
    wire::Endpoint endpoint;
    if (bool absent = false; !wire::readEndpoint(dataDir, false, &endpoint, &error, &absent))
        return fail(absent ? wire::Outage::NoEndpointFile : wire::Outage::Other, error);

    if (hook.event == gemini::Event::AfterTool) {
        return hookExchange(
            endpoint, agent(), hook.sessionId, gemini::toolResultMessage(hook, *callId),
            [&](const Json &m) -> std::optional<int> {
                const std::string type = m.value("type", std::string());
                if (type == "after_call" && m.value("call_id", std::string()) == *callId) {
                    if (const std::string out = gemini::afterToolOutput(m);
                        !out.empty() && !printLine(stdout, out))
                        return fail.block(std::string("cannot write the answer to stdout: ")
                            + std::strerror(errno));
                    return code::Answered;
                }
                if (type != "error")
                    return std::nullopt;
                // A console restarted since has nothing to check.
                if (m.value("code", std::string()) == "unknown_call")
                    return code::Answered;
                return fail.block(consoleError(m));
            },
            fail);
    }

    // Every BeforeTool is a new call: Gemini CLI sends no id of its own, and
    // one derived from the input would let a repeated call inherit the first
    // one's decision.
    const std::string id = wire::randomId("gm-");
    if (id.empty())
        return fail.block("no random numbers for a call id (getrandom and /dev/urandom failed)");
    Json notes;
    if (!ledger.read(&notes, &error))
        return fail.block(error);
    const Json call = gemini::toolCallMessage(hook, id, gemini::ledgerTurn(notes));
    return hookExchange(
        endpoint, agent(), hook.sessionId, call,
        [&](const Json &m) -> std::optional<int> {
            const std::string type = m.value("type", std::string());
            if (type == "decision" && m.value("call_id", std::string()) == id) {
                const Json answer = gemini::beforeToolAnswer(m, hook.toolInput);
                if (answer.value("decision", std::string()) == "allow") {
                    const Json runArgs = answer.contains("hookSpecificOutput")
                        ? answer["hookSpecificOutput"]["tool_input"]
                        : hook.toolInput;
                    const std::int64_t now = wire::nowMs();
                    std::string why;
                    // Without the note the result goes unchecked; the call may still run.
                    if (!ledger.update(
                            [&](Json *l) {
                                gemini::ledgerAdd(
                                    l, id, hook.toolName, hook.toolInput, runArgs, now);
                            },
                            &why))
                        std::fprintf(stderr,
                            "holdpoint-ctl: the tool's result will not be checked: %s\n",
                            why.c_str());
                }
                if (!printLine(stdout, dumpJson(answer)))
                    return fail.block(
                        std::string("cannot write the answer to stdout: ") + std::strerror(errno));
                return code::Answered;
            }
            if (type != "error")
                return std::nullopt;
            return fail.block(consoleError(m));
        },
        fail);
}

} // namespace holdpoint
