// SPDX-License-Identifier: Apache-2.0
#pragma once

// Building blocks the built-in guardrails match calls with. All are
// compiled once from the policy and are cheap to evaluate.

#include "common/json.h"
#include "guardrails/shellparse.h"
#include "guardrails/spec.h"

#include <QRegularExpression>

#include <cstdint>
#include <forward_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

// Glob to regex. Path globs: `*` and `?` stay within one path segment, `**`
// crosses `/`. Text globs (commands, tool names): `*` matches anything.
enum class GlobMode
{
    Path,
    Text
};
QRegularExpression compileGlob(const std::string &glob, GlobMode mode);

// A glob as compileGlob() defines it, matched without PCRE when both the
// glob and the subject are ASCII: a call is checked against many globs, and
// converting the subject to UTF-16 and running PCRE costs far more than the
// comparison. Other subjects go to the regex, so the two never disagree.
class Glob final
{
public:
    static Glob compile(const std::string &glob, GlobMode mode, bool caseInsensitive = false);
    bool matches(std::string_view subject) const;

private:
    // Literal text, `.*`, `[^/]*`, `.`, `[^/]` and `(?:.*/)?` in compileGlob's regex.
    enum class Kind
    {
        Literal,
        Any,
        InSegment,
        One,
        OneInSegment,
        AnyDirs
    };
    struct Piece
    {
        Kind kind = Kind::Literal;
        std::string text;
    };
    enum class Shape
    {
        Exact,
        Prefix,
        Pieces,
        RegexOnly
    };
    bool equal(std::string_view a, std::string_view b) const;
    bool matchPieces(std::string_view subject) const;

    Shape m_shape = Shape::RegexOnly;
    bool m_caseInsensitive = false;
    std::string m_literal; // Exact and Prefix
    std::vector<Piece> m_pieces;
    QRegularExpression m_regex;
};

// Which byte values occur in a text, and which do once A-Z are folded to
// a-z. A text that lacks one byte of a literal cannot contain it, which
// turns most subjects away from most literals in a few instructions.
class ByteSet final
{
public:
    ByteSet() = default;
    explicit ByteSet(std::string_view text);
    // Every byte of `literal` (ASCII) is in the text, compared with or without case.
    bool hasAllOf(const ByteSet &literal, bool caseInsensitive) const
    {
        const std::uint64_t *mine = caseInsensitive ? m_folded : m_exact;
        const std::uint64_t *theirs = caseInsensitive ? literal.m_folded : literal.m_exact;
        return ((theirs[0] & ~mine[0]) | (theirs[1] & ~mine[1]) | (theirs[2] & ~mine[2])
                   | (theirs[3] & ~mine[3]))
            == 0;
    }
    bool ascii() const { return (m_exact[2] | m_exact[3]) == 0; }
    // Keeps only the bytes `other` has too.
    void intersect(const ByteSet &other);

private:
    std::uint64_t m_exact[4] {};
    std::uint64_t m_folded[4] {};
};

// A PCRE regex behind a cheap test: when the pattern begins with literal
// text, a subject without that text cannot match, and is turned away
// without converting it to UTF-16 or running PCRE.
class Regex final
{
public:
    // Throws SpecError at `path` for an invalid pattern.
    static Regex compile(const std::string &pattern, const std::string &path);
    // For a pattern whose literal the caller knows: every match contains one
    // of `anyOf` (ASCII), compared without case when `caseInsensitive`.
    Regex(QRegularExpression regex, std::vector<std::string> anyOf, bool caseInsensitive);

    // False only when the regex cannot match `subject`.
    bool mightMatch(std::string_view subject) const;
    // The same answer, sooner, with `bytes` made from `subject`.
    bool mightMatch(std::string_view subject, const ByteSet &bytes) const;
    const QRegularExpression &regex() const { return m_regex; }

private:
    // Whether `subject` holds `literal` where a match must have it.
    bool holds(std::string_view subject, const std::string &literal) const;

    QRegularExpression m_regex;
    std::vector<std::string> m_anyOf;
    std::vector<ByteSet> m_anyOfBytes; // of each literal, folded when m_caseInsensitive
    ByteSet m_commonBytes; // those every literal has
    bool m_atStart = false; // the literal must begin the subject
    bool m_caseInsensitive = false;
};

// The literal text every match of `pattern` must contain (at the start of
// the subject when `atStart`), or "" when the pattern's start is not plain
// enough to say. Conservative: a pattern with `|` anywhere gives "".
std::string requiredLiteral(const std::string &pattern, bool *atStart);

bool isAscii(std::string_view text);
// `A`-`Z` to `a`-`z`, every other byte as it is: how the compact syntax
// compares tool names.
std::string asciiLower(std::string_view text);

// Makes a path comparable: `~` becomes the home directory, a relative path
// is taken against `cwd` (or `/` when the agent sent none, so `..` can never
// climb out of view), and `.`, `..` and repeated slashes are resolved.
// Symlinks are not followed.
std::string normalizePath(const std::string &path, const std::string &cwd);
// True when normalizePath() would give `path` back as it is: absolute, with
// no `.`, `..`, empty segment or trailing slash (and no `~`, being absolute).
bool isNormalPath(std::string_view path);
// `~` or `~/...` with the home directory; anything else as it is.
std::string expandHome(const std::string &path);
bool isPathUnder(const std::string &normalized, const std::string &normalizedBase);

// `a.b.0` inside `root`; null when absent.
const Json *jsonAt(const Json &root, const std::string &dottedPath);
Json *jsonAt(Json &root, const std::string &dottedPath);

// A dotted argument path split once, when the policy loads, and looked up
// as jsonAt() would.
class ArgPath final
{
public:
    explicit ArgPath(const std::string &dotted);
    const Json *find(const Json &root) const;

private:
    std::vector<std::string> m_keys;
};

// What matching one call works out once for every matcher that asks: the
// agent's cwd, argument paths normalised against it, argument strings in
// UTF-16 for PCRE, and the string arguments the compact syntax reads. Keyed
// by address, so strings and `args` must be the call's own.
class CallScratch final
{
public:
    explicit CallScratch(std::string cwd)
        : m_cwd(std::move(cwd))
    { }
    // The cwd is the context's own string (cwdRef), not a copy.
    explicit CallScratch(const Json &context)
        : m_context(&context)
    { }
    const std::string &cwd() const;
    const std::string &normalized(const std::string &path);
    const QString &utf16(const std::string &text);
    // The first of the keys `kind` names that is a string in `args`, or null.
    enum class ArgKind
    {
        Command,
        Path,
        Url
    };
    const std::string *stringArg(const Json &args, ArgKind kind);
    // The shell command in `args` (ShellParse::commandArgument), read once;
    // null when there is none.
    const ShellParse *shell(const Json &args);

private:
    const Json *m_context = nullptr;
    std::string m_cwd;
    // forward_list: references handed out stay valid as entries are added.
    std::forward_list<std::pair<const std::string *, std::string>> m_normalized;
    std::forward_list<std::pair<const std::string *, QString>> m_utf16;
    const std::string *m_stringArgs[3] {};
    bool m_stringArgsRead[3] {};
    std::optional<ShellParse> m_shell;
    bool m_shellRead = false;
};

// One matcher on one argument, e.g. {"glob": "/etc/**"} or {"min": 1}.
// Every operator given must hold.
class ValueMatcher
{
public:
    static ValueMatcher compile(const Json &spec, const std::string &path);
    bool matches(const Json *value, const std::string &cwd) const;
    // `value` must be inside the call `scratch` was made for.
    bool matches(const Json *value, CallScratch &scratch) const;
    // A glob, regex or prefix: a pattern over a string, not one value.
    bool readsText() const { return m_glob || m_regex || m_prefix; }

private:
    std::optional<Json> m_equals;
    std::optional<Glob> m_glob;
    std::optional<Regex> m_regex;
    std::optional<std::string> m_prefix;
    std::optional<bool> m_exists;
    std::optional<double> m_min;
    std::optional<double> m_max;
    std::vector<std::string> m_pathUnder;
};

// Tool names: an exact name, a glob, or a list of either.
class NameMatcher
{
public:
    static NameMatcher compile(const Json &spec, const std::string &path);
    bool matches(const std::string &name) const;
    const std::vector<std::string> &exactNames() const { return m_exact; }
    bool hasPatterns() const { return !m_patterns.empty(); }

private:
    std::vector<std::string> m_exact; // names without wildcards: compared as they are
    std::vector<Glob> m_patterns;
};

// Claude Code's permission-rule syntax: "Bash(rm -rf *)", "Write(/etc/**)",
// "WebFetch(domain:example.com)", "mcp__github__*". README.md "Shell
// commands" says what Bash(…) means.
class CompactMatcher
{
public:
    static CompactMatcher compile(const std::string &rule, const std::string &path);
    // For a shell command: whether the rule matches any one of its simple
    // commands (or, for a pattern with shell operators, the line).
    bool matches(const std::string &toolName, const Json &args, const std::string &cwd) const;
    // `args` must be those of the call `scratch` was made for.
    bool matches(const std::string &toolName, const Json &args, CallScratch &scratch) const;
    // The tool name in lower case, or "" when the rule names tools by a glob.
    const std::string &exactTool() const { return m_toolExact; }
    // The lower-case tool names the rule can match; empty for a glob.
    std::vector<std::string> toolKeys() const;

    // Bash(…) with a specifier: it reads shell commands one simple command
    // at a time (matchesCommand), or the whole line (matchesLine).
    bool isCommand() const { return m_kind == Kind::Command || m_kind == Kind::CommandPrefix; }
    // The specifier has shell operators (`curl *|*sh*`): it can only be
    // matched against the whole line, as a glob, which an allow must not do.
    bool wholeLine() const { return m_wholeLine; }
    bool matchesTool(const std::string &toolName) const;
    // One simple command of ShellParse: `text` with the program's base
    // name, `written` as written. An allow reads only `written`.
    bool matchesCommand(std::string_view text, std::string_view written, bool allowing) const;
    bool matchesLine(std::string_view line) const;

private:
    enum class Kind
    {
        ToolOnly,
        Command,
        CommandPrefix,
        Path,
        Domain,
        AnyString
    };
    bool matchesOne(std::string_view command) const;

    std::string m_toolExact;
    bool m_shellTool = false; // m_toolExact names a shell tool: the rule covers all of them
    bool m_wholeLine = false;
    std::optional<Glob> m_tool;
    Kind m_kind = Kind::ToolOnly;
    std::optional<Glob> m_spec;
    std::string m_text;
};

std::string cwdOf(const Json &context);
// The same, without a copy: the context's own string, or an empty one.
const std::string &cwdRef(const Json &context);

} // namespace holdpoint
