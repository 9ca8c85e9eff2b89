#pragma once

// Building blocks the built-in guardrails match calls with. All are
// compiled once from the policy and are cheap to evaluate.

#include "common/json.h"
#include "guardrails/spec.h"

#include <QRegularExpression>

#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

// Glob to regex. Path globs: `*` and `?` stay within one path segment, `**`
// crosses `/`. Text globs (commands, tool names): `*` matches anything.
enum class GlobMode { Path, Text };
QRegularExpression compileGlob(const std::string &glob, GlobMode mode);

// Makes a path comparable: `~` becomes the home directory, a relative path
// is taken against `cwd` (or `/` when the agent sent none, so `..` can never
// climb out of view), and `.`, `..` and repeated slashes are resolved.
// Symlinks are not followed.
std::string normalizePath(const std::string &path, const std::string &cwd);
// `~` or `~/...` with the home directory; anything else as it is.
std::string expandHome(const std::string &path);
bool isPathUnder(const std::string &normalized, const std::string &normalizedBase);

// `a.b.0` inside `root`; null when absent.
const Json *jsonAt(const Json &root, const std::string &dottedPath);
Json *jsonAt(Json &root, const std::string &dottedPath);

// One matcher on one argument, e.g. {"glob": "/etc/**"} or {"min": 1}.
// Every operator given must hold.
class ValueMatcher
{
public:
    static ValueMatcher compile(const Json &spec, const std::string &path);
    bool matches(const Json *value, const std::string &cwd) const;

private:
    std::optional<Json> m_equals;
    std::optional<QRegularExpression> m_glob;
    std::optional<QRegularExpression> m_regex;
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

private:
    std::vector<std::string> m_exact; // names without wildcards: compared as they are
    std::vector<QRegularExpression> m_patterns;
};

// Claude Code's permission-rule syntax: "Bash(rm -rf *)", "Write(/etc/**)",
// "WebFetch(domain:example.com)", "mcp__github__*".
class CompactMatcher
{
public:
    static CompactMatcher compile(const std::string &rule, const std::string &path);
    bool matches(const std::string &toolName, const Json &args, const std::string &cwd) const;

private:
    enum class Kind { ToolOnly, Command, CommandPrefix, Path, Domain, AnyString };
    std::string m_toolExact;
    QRegularExpression m_tool;
    Kind m_kind = Kind::ToolOnly;
    QRegularExpression m_spec;
    std::string m_text;
};

std::string cwdOf(const Json &context);

} // namespace holdpoint
