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
std::string notesRoot(const std::string &dataDir)
{
    struct stat st {};
    if (::stat(dataDir.c_str(), &st) != 0 || st.st_uid == ::geteuid())
        return dataDir;
    return wire::runtimeDir() + "/holdpoint-" + wire::sha256Hex(wire::absolutePath(dataDir)).substr(0, 16);
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
            const timespec pause {0, 2'000'000};
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
    Ledger(const std::string &dataDir, const std::string &sessionId)
        : m_dir(notesRoot(dataDir) + "/gemini-hook")
        , m_path(m_dir + "/" + wire::sha256Hex(sessionId) + ".json")
    {
    }

    // Runs `change` on the ledger under the lock and writes it back.
    bool update(const std::function<void(Json *)> &change, std::string *error) const
    {
        if (!wire::ensurePrivateDir(m_dir, error))
            return false;
        FileLock lock(m_path + ".lock", 10'000);
        if (!lock.locked()) {
            *error = "cannot lock " + m_path;
            return false;
        }
        Json ledger = read();
        change(&ledger);
        return wire::writePrivateFile(m_path, dumpJson(ledger), error);
    }

    // The ledger as last written; {} if there is none or it is unreadable.
    // Writes replace the file whole (a rename), so reading needs no lock.
    Json read() const
    {
        std::string bytes;
        if (!wire::readFile(m_path, hookinput::MaxBytes * 4, &bytes))
            return Json::object();
        Json ledger = Json::parse(bytes, nullptr, false);
        return ledger.is_discarded() ? Json::object() : ledger;
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
    const Ledger ledger(dataDir, hook.sessionId);
    std::string error;
    if (hook.event == gemini::Event::BeforeAgent) {
        // A new prompt: a new turn for the calls that follow. Without it they
        // would carry the last prompt's turn, and its grants, so a failure
        // blocks the prompt.
        const std::string turn = wire::randomId("gt-");
        if (!ledger.update([&](Json *l) { gemini::ledgerStartTurn(l, turn); }, &error))
            return fail(error);
        return code::Answered;
    }
    std::optional<std::string> callId;
    if (hook.event == gemini::Event::AfterTool) {
        if (!ledger.update([&](Json *l) { callId = gemini::ledgerTake(l, hook.toolName, hook.toolInput); }, &error))
            return fail(error);
        if (!callId)
            return code::Answered; // not a call this hook let run: nothing to check
    }
    wire::Endpoint endpoint;
    if (!wire::readEndpoint(dataDir, false, &endpoint, &error))
        return fail(error);

    if (hook.event == gemini::Event::AfterTool) {
        return hookExchange(endpoint, agent(), hook.sessionId, gemini::toolResultMessage(hook, *callId), [&](const Json &m) -> std::optional<int> {
            const std::string type = m.value("type", std::string());
            if (type == "after_call" && m.value("call_id", std::string()) == *callId) {
                if (const std::string out = gemini::afterToolOutput(m); !out.empty())
                    printLine(stdout, out);
                return code::Answered;
            }
            if (type != "error")
                return std::nullopt;
            // A console restarted since has nothing to check.
            if (m.value("code", std::string()) == "unknown_call")
                return code::Answered;
            return fail.block(consoleError(m));
        }, fail);
    }

    // Every BeforeTool is a new call: Gemini CLI sends no id of its own, and
    // one derived from the input would let a repeated call inherit the first
    // one's decision.
    const std::string id = wire::randomId("gm-");
    const Json call = gemini::toolCallMessage(hook, id, gemini::ledgerTurn(ledger.read()));
    return hookExchange(endpoint, agent(), hook.sessionId, call, [&](const Json &m) -> std::optional<int> {
        const std::string type = m.value("type", std::string());
        if (type == "decision" && m.value("call_id", std::string()) == id) {
            const Json answer = gemini::beforeToolAnswer(m, hook.toolInput);
            if (answer.value("decision", std::string()) == "allow") {
                const Json runArgs = answer.contains("hookSpecificOutput") ? answer["hookSpecificOutput"]["tool_input"] : hook.toolInput;
                const std::int64_t now = wire::nowMs();
                std::string why;
                // Without the note the result goes unchecked; the call may still run.
                if (!ledger.update([&](Json *l) { gemini::ledgerAdd(l, id, hook.toolName, hook.toolInput, runArgs, now); }, &why))
                    std::fprintf(stderr, "holdpoint-ctl: the tool's result will not be checked: %s\n", why.c_str());
            }
            printLine(stdout, dumpJson(answer));
            return code::Answered;
        }
        if (type != "error")
            return std::nullopt;
        return fail.block(consoleError(m));
    }, fail);
}

} // namespace holdpoint
