// SPDX-License-Identifier: Apache-2.0
#include "geminihook.h"

#include "client/endpointinfo.h"
#include "common/datadir.h"
#include "exitcodes.h"
#include "hookcommand.h"
#include "integrations/gemini.h"
#include "integrations/hookinput.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QRandomGenerator>
#include <QStandardPaths>

#include <cstdio>
#include <functional>
#include <unistd.h>

namespace holdpoint {

namespace {

// Where this user's hook notes go: the data dir when it is this user's, else
// (a console another user runs, shared with --agent-group, whose data dir
// lets agents read endpoint.json and write nothing) this user's runtime dir,
// one folder per data dir.
QString notesRoot(const QString &dataDir)
{
    const QFileInfo dir(dataDir);
    if (!dir.exists() || dir.ownerId() == uint(::geteuid()))
        return dataDir;
    const QByteArray key = QCryptographicHash::hash(QFile::encodeName(dir.absoluteFilePath()), QCryptographicHash::Sha256).toHex().left(16);
    return QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation) + QStringLiteral("/holdpoint-") + QString::fromLatin1(key);
}

// The calls the BeforeTool hook let run, for the AfterTool hook to find their
// call_id (gemini.h): one file per session in the data directory, changed
// under a lock because Gemini CLI may run tools, and so hooks, in parallel.
class Ledger
{
public:
    Ledger(const QString &dataDir, const std::string &sessionId)
    {
        const QByteArray name = QCryptographicHash::hash(QByteArray::fromStdString(sessionId), QCryptographicHash::Sha256).toHex();
        m_dir = QDir(notesRoot(dataDir)).filePath(QStringLiteral("gemini-hook"));
        m_path = QDir(m_dir).filePath(QString::fromLatin1(name) + QStringLiteral(".json"));
    }

    // Runs `change` on the ledger under the lock and writes it back.
    bool update(const std::function<void(Json *)> &change, QString *error)
    {
        if (!ensurePrivateDir(m_dir, error))
            return false;
        QLockFile lock(m_path + QStringLiteral(".lock"));
        if (!lock.tryLock(10'000)) {
            *error = QStringLiteral("cannot lock %1").arg(m_path);
            return false;
        }
        Json ledger = read();
        change(&ledger);
        return writePrivateFile(m_path, QByteArray::fromStdString(dumpJson(ledger)), error);
    }

    // The ledger as last written; {} if there is none or it is unreadable.
    // Writes replace the file whole (QSaveFile), so reading needs no lock.
    Json read() const
    {
        QFile f(m_path);
        if (!f.open(QIODevice::ReadOnly))
            return Json::object();
        Json ledger = Json::parse(f.readAll().toStdString(), nullptr, false);
        return ledger.is_discarded() ? Json::object() : ledger;
    }

private:
    QString m_dir;
    QString m_path;
};

const protocol::AgentInfo Agent {"gemini-cli", "gemini-cli"};

} // namespace

int runGeminiHook(const QStringList &args, const QString &dataDirFlag)
{
    namespace code = exitcode::geminihook;
    // Exit 2 with the reason on stderr and nothing on stdout: Gemini CLI
    // turns that into a deny whose reason the model reads.
    HookFailure fail;
    if (!parseHookOptions(args, &fail))
        return code::Blocked;

    std::string bytes;
    if (!readInput(stdin, hookinput::MaxBytes, &bytes))
        return fail.block(QStringLiteral("cannot read the hook input"));
    const gemini::ParseResult parsed = gemini::parseHookInput(bytes);
    if (!parsed.input)
        return fail.block(QString::fromStdString(parsed.error));
    const gemini::HookInput &hook = *parsed.input;

    const QString dataDir = resolveDataDir(dataDirFlag);
    Ledger ledger(dataDir, hook.sessionId);
    QString error;
    auto newId = [](const char *prefix) {
        return prefix + QByteArray::number(QRandomGenerator::system()->generate64(), 16).toStdString();
    };
    if (hook.event == gemini::Event::BeforeAgent) {
        // A new prompt: a new turn for the calls that follow. Without it they
        // would carry the last prompt's turn, and its grants, so a failure
        // blocks the prompt.
        const std::string turn = newId("gt-");
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
    EndpointInfo endpoint;
    if (!readEndpointInfo(dataDir, false, &endpoint, &error))
        return fail(error);

    if (hook.event == gemini::Event::AfterTool) {
        return hookExchange(endpoint, Agent, hook.sessionId, gemini::toolResultMessage(hook, *callId), [&](const Json &m) -> std::optional<int> {
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
    const std::string id = newId("gm-");
    const Json call = gemini::toolCallMessage(hook, id, gemini::ledgerTurn(ledger.read()));
    return hookExchange(endpoint, Agent, hook.sessionId, call, [&](const Json &m) -> std::optional<int> {
        const std::string type = m.value("type", std::string());
        if (type == "decision" && m.value("call_id", std::string()) == id) {
            const Json answer = gemini::beforeToolAnswer(m, hook.toolInput);
            if (answer.value("decision", std::string()) == "allow") {
                const Json runArgs = answer.contains("hookSpecificOutput") ? answer["hookSpecificOutput"]["tool_input"] : hook.toolInput;
                const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
                QString why;
                // Without the note the result goes unchecked; the call may still run.
                if (!ledger.update([&](Json *l) { gemini::ledgerAdd(l, id, hook.toolName, hook.toolInput, runArgs, now); }, &why))
                    std::fprintf(stderr, "holdpoint-ctl: the tool's result will not be checked: %s\n", qPrintable(why));
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
