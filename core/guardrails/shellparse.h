// SPDX-License-Identifier: Apache-2.0
#pragma once

// A conservative reading of a shell command line, for rules that allow or
// deny commands (README.md "Shell commands"). It splits the line into the
// simple commands bash would run and reports as opaque everything it cannot
// see through: a rule that allows `make` must never allow `make; rm -rf ~`
// or `make $(curl …)`. It does not try to be a full POSIX shell: where it
// is unsure it says "opaque", which only ever costs a question to a person.

#include "common/json.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

class ShellParse final
{
public:
    // Longer command lines are not read at all (opaque): a rule's verdict
    // must not depend on how much of a long line a parser managed to see.
    static constexpr std::size_t MaxBytes = 64 * 1024;
    // Nesting of subshells, substitutions, `bash -c` strings and wrappers.
    static constexpr int MaxDepth = 12;
    // Simple commands kept; past this the line is opaque.
    static constexpr std::size_t MaxCommands = 256;

    // Why a line cannot be fully understood: each bit is a way code could run
    // that no rule saw, or a way the line could mean something else than it
    // reads. Any bit set keeps an allow rule from allowing the call.
    enum Opaque : std::uint32_t
    {
        Substitution = 1u << 0, // $(…), `…`, <(…), >(…), $((…))
        Expansion = 1u << 1, // $VAR, ${…}: a value the rule cannot see
        Glob = 1u << 2, // unquoted * ? [ or braces: filenames could become options
        Assignment = 1u << 3, // FOO=1 make, PATH=…: changes what a program runs
        ShellString = 1u << 4, // eval, bash -c, sh script, source: code in a string or file
        RiskyOption = 1u << 5, // git -c, make -f, git diff --output=…, xargs, find -exec
        WritesFile = 1u << 6, // > ~/.bashrc, > /etc/x, > ../x, > .git/…; git --output
        Unparsed = 1u << 7, // unterminated quote, case/for/function, stray ( …
        Characters = 1u << 8, // control characters, invalid UTF-8, non-ASCII outside quotes
        TooLarge = 1u << 9, // MaxBytes, MaxDepth or MaxCommands
        NotACommand = 1u << 10, // the argument is neither a string nor an array of strings
    };

    // Reads a command line as bash would (bash(1) "SHELL GRAMMAR",
    // "QUOTING", "REDIRECTION").
    // `cwd`: the call's working directory (context.cwd), where an absolute
    // path under it stays in place as a relative one does; "" for none.
    static ShellParse parse(std::string_view line, std::string_view cwd = {});
    // An argv array (Codex's `["bash", "-lc", "…"]`): a shell given a -c
    // string by the tool itself is that string; anything else is one simple
    // command with these words.
    static ShellParse parseArgv(const Json &argv, std::string_view cwd = {});
    // The command argument of a shell tool's call (`command` or `cmd`, a
    // string or an argv array); null when there is none.
    static const Json *commandArgument(const Json &args);

    // The simple commands, in the order they appear (a wrapper's command
    // follows the wrapper, a substitution's follow the command it is in).
    std::size_t size() const { return m_spans.size(); }
    // The words of command `i` after quote removal joined by one space, the
    // program reduced to its base name (`/bin/rm -rf /` reads `rm -rf /`).
    std::string_view text(std::size_t i) const
    {
        return std::string_view(m_text).substr(m_spans[i].textAt, m_spans[i].textSize);
    }
    // The same with the program as written; equal to text() when the
    // program was not given by a path. An allow rule reads this one, so
    // `Bash(make *)` does not allow `/tmp/x/make`.
    std::string_view written(std::size_t i) const
    {
        return std::string_view(m_text).substr(m_spans[i].writtenAt, m_spans[i].writtenSize);
    }
    std::uint32_t opaque() const { return m_opaque; }
    bool understood() const { return m_opaque == 0 && !m_spans.empty(); }
    // What the opaque bits mean, for a reviewer: "a command substitution $(…)".
    static std::string describe(std::uint32_t opaque);
    // A relative path inside the working directory that names no hidden
    // file or directory: `build`, `tests/`, `./src/a.py`, not `..`, `/tmp`,
    // `~/x` or `.git/hooks`; or the same below `cwd` given absolutely
    // (`<cwd>/build/out.txt`), when `cwd` is an absolute path without `.`
    // or `..` in it.
    static bool staysInPlace(std::string_view path, std::string_view cwd = {});

private:
    class Reader;
    struct Word
    {
        std::string text;
        std::size_t firstQuote = std::string::npos; // where quoting began in `text`
    };
    struct Span
    {
        std::size_t textAt, textSize, writtenAt, writtenSize;
    };
    void addCommand(const std::vector<Word> &words, int depth);
    void addWords(const std::vector<Word> &words, std::size_t from, int depth);
    void readOptions(
        const std::vector<Word> &words, std::size_t from, int depth, std::string_view name);
    void parseNested(std::string_view text, int depth);
    static bool isShell(std::string_view name);

    std::vector<Span> m_spans;
    // The commands' text, read through m_spans (offsets, so a copy or a
    // move of the parse stays valid).
    std::string m_text;
    std::uint32_t m_opaque = 0;
    std::string_view m_cwd; // the caller's, only while parse() runs
};

// Tool names whose calls run a shell command (lower case): Claude Code's
// Bash (Codex's hooks send its shell calls as Bash too), Codex's
// exec_command / shell / local_shell as its model and MCP server name them,
// Gemini CLI's run_shell_command, and the plain names frameworks use.
inline constexpr std::array<std::string_view, 8> ShellToolNames { "bash", "shell", "sh",
    "run_shell_command", "exec_command", "local_shell", "terminal", "run_command" };
// One of ShellToolNames, compared without ASCII case.
bool isShellTool(std::string_view toolName);

} // namespace holdpoint
