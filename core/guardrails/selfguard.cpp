// SPDX-License-Identifier: Apache-2.0
#include "selfguard.h"

#include "guardrails/matchers.h"
#include "guardrails/shellparse.h"

#include <QRegularExpression>

#include <algorithm>

namespace holdpoint {

namespace {

// Past this a string is text, not a path (a file's content, a message).
constexpr std::size_t MaxPathLength = 4096;
constexpr int MaxDepth = 16;

// The reviewer credentials' file names (common/datadir.h ReviewerTokenFileName,
// common/reviewertokens.h ReviewersFileName, web/websessions.h
// WebSessionsFileName; tst_selfguard checks they agree), spelled here since
// the guardrails library links neither the console's files nor the web part.
constexpr std::string_view CredentialFileNames[]
    = { "reviewer.token", "reviewers.json", "web-sessions.json" };

// The programs checkCommand reads.
constexpr std::string_view GuardedPrograms[]
    = { "holdpoint-ctl", "holdpoint", "kill", "pkill", "killall", "skill", "slay" };

// Tools that only read: they may read an agent CLI's settings, never
// Holdpoint's own files. Lower case.
constexpr std::string_view ReadOnlyTools[] = { "read", "read_file", "read_many_files", "glob",
    "grep", "ls", "list_directory", "view", "search_file_content", "notebookread" };

bool readOnlyTool(std::string_view tool)
{
    const std::string lower = asciiLower(tool);
    return std::find(std::begin(ReadOnlyTools), std::end(ReadOnlyTools), lower)
        != std::end(ReadOnlyTools);
}

std::string_view baseName(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The hook configuration that puts Holdpoint in front of an agent CLI,
// in the home directory or a project (resources/integrations/*/README.md):
// Claude Code's .claude/settings*.json, Codex's .codex/config.toml and
// hooks.json, Gemini CLI's .gemini/settings.json, and those directories.
bool isHookConfig(std::string_view normalized)
{
    const std::string_view name = baseName(normalized);
    if (name == ".claude" || name == ".codex" || name == ".gemini")
        return true;
    const std::string_view dir = normalized.substr(0, normalized.size() - name.size());
    if (dir.ends_with("/.claude/"))
        return name.starts_with("settings") && name.ends_with(".json");
    if (dir.ends_with("/.codex/"))
        return name == "config.toml" || name == "hooks.json";
    if (dir.ends_with("/.gemini/"))
        return name == "settings.json";
    return false;
}

// Worth reading as a path: a name the guard knows, or something with a
// directory, home, variable or wildcard in it.
bool mayBePath(std::string_view s)
{
    return !s.empty() && s.size() <= MaxPathLength && s.find('\n') == std::string_view::npos
        && s.find_first_of("/~$*?.") != std::string_view::npos;
}

// The words of a shell line with quotes and backslashes removed, split at
// blanks and at the characters that end a word or start a redirection:
// `cat 'rev''iewer.token'`, `>~/x` and `--file=~/x` all yield the path.
// Blanks inside quotes split too, so a `bash -c "cat ~/x"` string yields
// its words. Cruder than ShellParse on purpose: it must see redirection
// targets and substitutions' words, which ShellParse leaves out.
template <typename Fn> bool forEachToken(std::string_view line, Fn &&fn)
{
    std::string token;
    auto flush = [&] {
        const bool stop = !token.empty() && fn(std::string_view(token));
        token.clear();
        return stop;
    };
    for (char c : line) {
        switch (c) {
        case '\'':
        case '"':
        case '\\':
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
        case ';':
        case '&':
        case '|':
        case '<':
        case '>':
        case '(':
        case ')':
        case '`':
        case '=':
        case ',':
        case ':':
        case '@':
            if (flush())
                return true;
            break;
        default:
            token += c;
        }
    }
    return flush();
}

std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t space = text.find(' ', at);
        const std::size_t end = space == std::string_view::npos ? text.size() : space;
        if (end > at)
            out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

} // namespace

SelfGuardGuardrail::SelfGuardGuardrail(SelfGuardContext context)
    : m_home(expandHome("~"))
    , m_pid(context.consolePid > 0 ? std::to_string(context.consolePid) : std::string())
{
    if (!context.dataDir.empty()) {
        m_dataDir = normalizePath(context.dataDir, "/");
        m_roots.push_back(m_dataDir);
    }
    if (!context.auditDir.empty())
        m_roots.push_back(normalizePath(context.auditDir, "/"));
    for (const std::string &f : context.policyFiles)
        if (!f.empty() && f[0] != ':')
            m_roots.push_back(normalizePath(f, "/"));
}

// `~`, `$HOME`, `${HOME}` and `$HOLDPOINT_DATA_DIR` as the shell would
// expand them for this user; other variables stay (and name nothing).
std::string SelfGuardGuardrail::expand(std::string_view written) const
{
    const auto replace
        = [&](std::string_view var, const std::string &value) -> std::optional<std::string> {
        if (written.starts_with(var)
            && (written.size() == var.size() || written[var.size()] == '/'))
            return value + std::string(written.substr(var.size()));
        return std::nullopt;
    };
    if (written == "~" || written.starts_with("~/"))
        return m_home + std::string(written.substr(1));
    for (const auto &[var, value] :
        { std::pair<std::string_view, const std::string *> { "$HOME", &m_home },
            { "${HOME}", &m_home }, { "$HOLDPOINT_DATA_DIR", &m_dataDir },
            { "${HOLDPOINT_DATA_DIR}", &m_dataDir } })
        if (!value->empty())
            if (auto r = replace(var, *value))
                return *r;
    return std::string(written);
}

std::optional<SelfGuardGuardrail::Finding> SelfGuardGuardrail::checkPath(
    const std::string &written, const std::string &cwd, std::string_view tool) const
{
    // Most paths are absolute and normal already: compared without a copy.
    std::string built;
    const bool normal = isNormalPath(written);
    if (!normal)
        built = normalizePath(expand(written), cwd.empty() ? std::string("/") : cwd);
    const std::string &normalized = normal ? written : built;
    for (const std::string &root : m_roots)
        if (isPathUnder(normalized, root))
            return Finding { "self_guard_file",
                "\"" + written + "\" is Holdpoint's own (" + root
                    + "): an agent may not read or change its reviewer's files" };
    // By name wherever it is: a `cd` earlier in the line can make any
    // relative path land in the data dir.
    const std::string_view name = baseName(normalized);
    if (std::find(std::begin(CredentialFileNames), std::end(CredentialFileNames), name)
        != std::end(CredentialFileNames))
        return Finding { "self_guard_file",
            "\"" + written + "\" names a Holdpoint reviewer credential file (" + std::string(name)
                + ")" };
    // A shell command (tool "") counts as a write.
    if (isHookConfig(normalized) && (tool.empty() || !readOnlyTool(tool)))
        return Finding { "self_guard_hook",
            "\"" + written + "\" is an agent CLI's hook configuration (" + normalized
                + "), which puts Holdpoint in front of the agent" };
    return std::nullopt;
}

// One simple command as ShellParse reads it (program by its base name).
std::optional<SelfGuardGuardrail::Finding> SelfGuardGuardrail::checkCommand(
    std::string_view text, const std::string &cwd) const
{
    const std::vector<std::string_view> w = words(text);
    if (w.empty())
        return std::nullopt;
    const std::string_view program = w[0];
    if (program == "holdpoint-ctl") {
        // Any word, not just the first: options such as --data-dir take a
        // value, and no other command of holdpoint-ctl takes these words.
        for (std::size_t i = 1; i < w.size(); ++i) {
            if (w[i].starts_with("--credential"))
                return Finding { "self_guard_reviewer",
                    "holdpoint-ctl with a reviewer credential acts as a reviewer" };
            if (std::find(std::begin(ReviewerCommands), std::end(ReviewerCommands), w[i])
                != std::end(ReviewerCommands))
                return Finding { "self_guard_reviewer",
                    "holdpoint-ctl " + std::string(w[i])
                        + " is a reviewer's command: an agent may not decide calls" };
            // `policy replay` and `policy suggest` read the audit log, as
            // `audit` does (`policy check` reads only the files named).
            if (w[i] == "replay" || w[i] == "suggest")
                return Finding { "self_guard_reviewer",
                    "holdpoint-ctl policy " + std::string(w[i])
                        + " reads the audit log: a reviewer's command, not an agent's" };
        }
    } else if (program == "holdpoint") {
        // Another console: on our data dir unless --data-dir names another.
        std::optional<std::string> dir;
        bool infoOnly = w.size() > 1;
        for (std::size_t i = 1; i < w.size(); ++i) {
            infoOnly = infoOnly
                && (w[i] == "--help" || w[i] == "-h" || w[i] == "--version" || w[i] == "-v");
            if (w[i] == "--data-dir" && i + 1 < w.size())
                dir = std::string(w[i + 1]);
            else if (w[i].starts_with("--data-dir="))
                dir = std::string(w[i].substr(11));
        }
        if (!infoOnly
            && (!dir || m_dataDir.empty()
                || normalizePath(expand(*dir), cwd.empty() ? "/" : cwd) == m_dataDir))
            return Finding { "self_guard_console",
                "starting another Holdpoint console on its data directory" };
    } else if (program == "kill") {
        for (std::size_t i = 1; i < w.size(); ++i) {
            const std::string_view a = w[i];
            if (a == "$!") // the shell's own last background job, never the console
                continue;
            const std::string_view target = a.starts_with('-') ? a.substr(1) : a;
            if ((!m_pid.empty() && target == m_pid) || a == "-1" || a == "0" || a == "-0"
                || a.find_first_of("$`") != std::string_view::npos)
                return Finding { "self_guard_signal",
                    "kill " + std::string(a) + " could signal the Holdpoint console (pid "
                        + (m_pid.empty() ? std::string("unknown") : m_pid) + ")" };
        }
    } else if (program == "pkill" || program == "killall" || program == "skill"
        || program == "slay") {
        // A pattern that matches the console's name or command line, or none
        // at all (every process of a user, a group, a session).
        bool named = false;
        for (std::size_t i = 1; i < w.size(); ++i) {
            if (w[i].starts_with('-')) {
                // Options with a value: the value is not a pattern.
                static constexpr std::string_view withValue[]
                    = { "-s", "-u", "-U", "-g", "-G", "-P", "-t", "-n", "--signal", "--user",
                          "--uid", "--group", "--parent", "--terminal", "--ns", "-o", "-y" };
                if (std::find(std::begin(withValue), std::end(withValue), w[i])
                    != std::end(withValue))
                    ++i;
                continue;
            }
            named = true;
            const QRegularExpression re(QString::fromUtf8(w[i].data(), qsizetype(w[i].size())),
                QRegularExpression::CaseInsensitiveOption);
            if (!re.isValid() || re.match(QStringLiteral("holdpoint --data-dir")).hasMatch()
                || w[i].find_first_of("$`") != std::string_view::npos)
                return Finding { "self_guard_signal",
                    std::string(program) + " " + std::string(w[i])
                        + " could signal the Holdpoint console" };
        }
        if (!named)
            return Finding { "self_guard_signal",
                std::string(program) + " without a name could signal the Holdpoint console" };
    }
    return std::nullopt;
}

std::optional<SelfGuardGuardrail::Finding> SelfGuardGuardrail::checkShell(
    std::string_view line, const std::string &cwd) const
{
    // Paths anywhere: words, redirections, substitutions, -c strings. And
    // whether a program the guard reads is named at all, quotes removed, so
    // the shell reader runs only then.
    std::optional<Finding> found;
    bool programs = false;
    std::string word;
    forEachToken(line, [&](std::string_view token) {
        const std::string_view name = baseName(token);
        programs = programs
            || std::find(std::begin(GuardedPrograms), std::end(GuardedPrograms), name)
                != std::end(GuardedPrograms);
        if (mayBePath(token)) {
            word.assign(token);
            found = checkPath(word, cwd, {});
        }
        return found.has_value();
    });
    if (found || !programs)
        return found;
    // Programs: each simple command, those in -c strings and substitutions too.
    const ShellParse shell = ShellParse::parse(line, cwd);
    for (std::size_t i = 0; i < shell.size(); ++i)
        if (auto f = checkCommand(shell.text(i), cwd))
            return f;
    return std::nullopt;
}

std::optional<SelfGuardGuardrail::Finding> SelfGuardGuardrail::walk(const Json &node,
    const std::string &key, const std::string &cwd, std::string_view tool, int depth) const
{
    if (depth > MaxDepth)
        return std::nullopt;
    if (node.is_string()) {
        const std::string &s = node.get_ref<const std::string &>();
        // A path-like key's value is a path even when it is a bare name.
        const bool pathKey = key.find("path") != std::string::npos
            || key.find("file") != std::string::npos || key == "dir" || key == "directory"
            || key == "target" || key == "src" || key == "source" || key == "dest"
            || key == "destination";
        // Other text is a path only without blanks: "see ~/.claude/settings.json"
        // in a file's content is prose, not a target.
        if ((pathKey && !s.empty() && s.size() <= MaxPathLength)
            || (mayBePath(s) && s.find_first_of(" \t") == std::string::npos))
            return checkPath(s, cwd, tool);
        return std::nullopt;
    }
    if (node.is_object()) {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (auto f = walk(it.value(), it.key(), cwd, tool, depth + 1))
                return f;
    } else if (node.is_array()) {
        for (const Json &e : node)
            if (auto f = walk(e, key, cwd, tool, depth + 1))
                return f;
    }
    return std::nullopt;
}

Verdict SelfGuardGuardrail::beforeCall(const CallView &call, const GuardContext &)
{
    const std::string &cwd = cwdRef(call.context);
    std::optional<Finding> found;
    const Json *command
        = isShellTool(call.toolName) ? ShellParse::commandArgument(call.args) : nullptr;
    if (command) {
        if (command->is_string()) {
            found = checkShell(command->get_ref<const std::string &>(), cwd);
        } else if (command->is_array()) {
            // An argv (Codex): its words as one line, so `bash -lc "<line>"` is read too.
            std::string line;
            for (const Json &w : *command)
                if (w.is_string())
                    line += (line.empty() ? "" : " ") + w.get<std::string>();
            found = checkShell(line, cwd);
        }
    }
    if (!found && call.args.is_object()) {
        for (auto it = call.args.begin(); !found && it != call.args.end(); ++it)
            if (&it.value() != command)
                found = walk(it.value(), it.key(), cwd, call.toolName, 0);
    }
    // The working directory itself: an agent at work inside the data dir
    // reaches its files by bare names and wildcards.
    if (!found && !cwd.empty()) {
        const std::string built = isNormalPath(cwd) ? std::string() : normalizePath(cwd, "/");
        const std::string &at = built.empty() ? cwd : built;
        for (const std::string &root : m_roots)
            if (isPathUnder(at, root))
                found = Finding { "self_guard_file",
                    "the agent works inside Holdpoint's own directory (" + root + ")" };
    }
    if (!found)
        return Verdict::pass();
    return Verdict::make(Action::Deny, found->code, found->reason + " (built-in self_guard)");
}

} // namespace holdpoint
