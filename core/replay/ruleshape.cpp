// SPDX-License-Identifier: Apache-2.0
#include "ruleshape.h"

#include "guardrails/shellparse.h"

#include <QDateTime>

#include <algorithm>
#include <cctype>

namespace holdpoint {

namespace {

constexpr std::size_t MaxPinnedLength = 200;

std::string lower(std::string s)
{
    std::transform(
        s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool keyHas(const std::string &key, std::initializer_list<const char *> words)
{
    const std::string k = lower(key);
    return std::any_of(
        words.begin(), words.end(), [&](const char *w) { return k.find(w) != std::string::npos; });
}

bool looksLikePath(const std::string &key, const std::string &value)
{
    return keyHas(key, { "path", "file", "dir", "cwd", "folder" }) || value.starts_with('/')
        || value.starts_with("./") || value.starts_with("~/");
}

// The directory part of a glob before its first wildcard: what a path it
// matches must stay under once normalized ("/a/b/*" -> "/a/b").
std::string fixedDirectory(const std::string &glob)
{
    const std::size_t wild = glob.find_first_of("*?");
    const std::string fixed = glob.substr(0, wild);
    const std::size_t slash = fixed.rfind('/');
    if (slash == std::string::npos)
        return {};
    return slash == 0 ? std::string("/") : fixed.substr(0, slash);
}

// Bash(…) reads a specifier as the words of one simple command; these
// characters make it a pattern over the whole line (compactmatcher.cpp),
// which an allow may not be.
constexpr std::string_view ShellOperators = ";&|<>()$`'\"\\\n";

// A word that names a subcommand (`status`, `test`, `run-script`), not an
// option, a path or an assignment.
bool isSubcommand(std::string_view word)
{
    if (word.empty() || word.size() > 40 || !std::isalpha((unsigned char)(word[0])))
        return false;
    return std::all_of(word.begin(), word.end(),
        [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == ':'; });
}

// The program and its subcommand as the parser reads the line (`git
// status`, `make`, `./configure`), or "" when the line is not one simple
// command the parser fully understands: then only the exact line is safe.
std::string programAndSubcommand(const std::string &line)
{
    const ShellParse shell = ShellParse::parse(line);
    if (!shell.understood() || shell.size() != 1)
        return {};
    const std::string_view words = shell.written(0);
    const std::size_t first = words.find(' ');
    std::string out(words.substr(0, first));
    if (first != std::string_view::npos) {
        const std::string_view rest = words.substr(first + 1);
        const std::string_view second = rest.substr(0, rest.find(' '));
        if (isSubcommand(second))
            out += " " + std::string(second);
    }
    if (out.find_first_of(ShellOperators) != std::string::npos
        || out.find_first_of("*?") != std::string::npos)
        return {};
    return out;
}

// What a reviewer typed, as Bash(…) compares it: words joined by one space.
std::string commandWords(const std::string &text)
{
    std::string out;
    for (char c : text) {
        const bool space = c == ' ' || c == '\t';
        if (space && (out.empty() || out.back() == ' '))
            continue;
        out += space ? ' ' : c;
    }
    if (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

// The Bash(…) rule a shell command's pattern becomes: a prefix of whole
// words, or a glob over one simple command's words.
std::string shellMatch(const ArgPattern &p)
{
    const std::string words = commandWords(p.text);
    return p.kind == ArgPattern::Kind::Prefix ? "Bash(" + words + ":*)" : "Bash(" + words + ")";
}

bool isShellPattern(const ArgPattern &p)
{
    return p.shellCommand && !p.secret
        && (p.kind == ArgPattern::Kind::Prefix || p.kind == ArgPattern::Kind::Glob);
}

std::string quoted(const Json &v)
{
    return v.is_string() ? "\"" + v.get<std::string>() + "\"" : dumpJson(v);
}

} // namespace

std::string commandShape(const std::string &line)
{
    return programAndSubcommand(line);
}

std::string_view argKindName(ArgPattern::Kind kind)
{
    switch (kind) {
    case ArgPattern::Kind::Exact:
        return "exact";
    case ArgPattern::Kind::Prefix:
        return "prefix";
    case ArgPattern::Kind::Glob:
        return "glob";
    case ArgPattern::Kind::Any:
        return "any";
    }
    return "any";
}

RuleShape proposeShape(const QueueItem &item, bool allow)
{
    RuleShape shape;
    shape.allow = allow;
    shape.tool = item.toolName;
    shape.agent = item.agent.name;
    const Json &args = item.proposedArgs.value_or(item.args);
    if (!args.is_object())
        return shape;
    // The argument Bash(…) rules read (`command`, else `cmd`).
    const Json *command = isShellTool(item.toolName) ? ShellParse::commandArgument(args) : nullptr;
    for (auto it = args.begin(); it != args.end(); ++it) {
        ArgPattern p;
        p.key = it.key();
        const Json &v = it.value();
        p.shellCommand = &v == command && v.is_string();
        // A secret must not be written into the policy file, and a value
        // masked for people cannot be matched anyway.
        p.secret = item.masked(v) != v;
        if (p.secret || p.key.find('.') != std::string::npos || v.is_object() || v.is_array()) {
            shape.args.push_back(std::move(p));
            continue;
        }
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            p.pathLike = looksLikePath(p.key, s);
            if (p.shellCommand) {
                // A shell line: its program and subcommand when the parser
                // understands all of it, else exactly this line (never
                // "anything": a long or odd line is the one to keep asking about).
                p.pathLike = false;
                p.text = programAndSubcommand(s);
                p.kind = p.text.empty() || p.text == s ? ArgPattern::Kind::Exact
                                                       : ArgPattern::Kind::Prefix;
            } else if (s.size() > MaxPinnedLength || s.find('\n') != std::string::npos) {
                p.kind = ArgPattern::Kind::Any;
            } else if (p.pathLike && s.find_first_of("*?") == std::string::npos
                && s.find('/') != std::string::npos) {
                // The same directory; a literal * or ? in it would widen the glob.
                p.kind = ArgPattern::Kind::Glob;
                p.text = s.substr(0, s.rfind('/') + 1) + "*";
            } else if (keyHas(p.key, { "command", "cmd", "script", "shell" })
                && s.find(' ') != std::string::npos) {
                p.kind = ArgPattern::Kind::Prefix;
                p.text = s.substr(0, s.find(' ') + 1);
            } else {
                p.kind = ArgPattern::Kind::Exact;
            }
        } else {
            p.kind = ArgPattern::Kind::Exact;
        }
        p.value = v;
        shape.args.push_back(std::move(p));
    }
    return shape;
}

Json ruleFromShape(const RuleShape &shape, const QueueItem &item, const std::string &reason,
    const std::string &user, TimeMs now)
{
    Json when { { "tool", shape.tool } };
    if (shape.agent)
        when["agent"] = *shape.agent;
    Json args = Json::object();
    std::string match;
    for (const ArgPattern &p : shape.args) {
        if (p.secret)
            continue;
        if (isShellPattern(p)) {
            match = shellMatch(p);
            continue;
        }
        switch (p.kind) {
        case ArgPattern::Kind::Exact:
            args[p.key] = Json { { "equals", p.value } };
            break;
        case ArgPattern::Kind::Prefix:
            args[p.key] = Json { { "prefix", p.text } };
            break;
        case ArgPattern::Kind::Glob: {
            Json m { { "glob", p.text } };
            // "/src/*" also matches "/src/..": staying under /src once normalized closes that.
            if (const std::string dir = fixedDirectory(p.text); p.pathLike && dir.starts_with('/'))
                m["path_under"] = dir;
            args[p.key] = std::move(m);
            break;
        }
        case ArgPattern::Kind::Any:
            break;
        }
    }
    if (!args.empty())
        when["args"] = std::move(args);
    std::string why = reason;
    if (why.empty())
        why = shape.allow ? "always allowed by a reviewer" : "always denied by a reviewer";
    const std::string date
        = QDateTime::fromMSecsSinceEpoch(now, Qt::UTC).toString(Qt::ISODate).toStdString();
    Json rule { { "when", std::move(when) } };
    if (!match.empty())
        rule["match"] = match;
    rule["action"] = shape.allow ? "allow" : "deny";
    rule["code"] = shape.allow ? "always_allowed" : "always_denied";
    rule["reason"] = why;
    rule["comment"] = "added from the Holdpoint console by " + user + " on " + date
        + ", reviewing call " + item.callId + " of " + item.agent.name;
    return rule;
}

std::string describeShape(const RuleShape &shape)
{
    std::string out = (shape.allow ? "Allow " : "Deny ") + shape.tool;
    out += shape.agent ? " from agent " + *shape.agent : " from every agent";
    std::vector<std::string> conditions;
    for (const ArgPattern &p : shape.args) {
        if (isShellPattern(p)) {
            const std::string words = commandWords(p.text);
            const bool prefix = p.kind == ArgPattern::Kind::Prefix;
            conditions.push_back(shape.allow ? p.key + " runs only commands that each "
                        + (prefix ? "start with the words \"" + words + "\"" : "match " + words)
                        + " (nothing chained, substituted or hidden)"
                                             : p.key + " runs a command that "
                        + (prefix ? "starts with the words \"" + words + "\""
                                  : "matches " + words));
            continue;
        }
        switch (p.secret ? ArgPattern::Kind::Any : p.kind) {
        case ArgPattern::Kind::Exact:
            conditions.push_back(p.key + " is " + quoted(p.value));
            break;
        case ArgPattern::Kind::Prefix:
            conditions.push_back(p.key + " starts with \"" + p.text + "\"");
            break;
        case ArgPattern::Kind::Glob: {
            std::string c = p.key + " matches " + p.text;
            if (const std::string dir = fixedDirectory(p.text); p.pathLike && dir.starts_with('/'))
                c += " (and stays under " + dir + ")";
            conditions.push_back(std::move(c));
            break;
        }
        case ArgPattern::Kind::Any:
            break;
        }
    }
    if (conditions.empty()) {
        out += ", with any arguments";
    } else {
        out += " when ";
        for (std::size_t i = 0; i < conditions.size(); ++i)
            out += (i == 0 ? "" : i + 1 == conditions.size() ? " and " : ", ") + conditions[i];
        out += "; other arguments may be anything";
    }
    return out + ".";
}

std::string shapeProblem(const RuleShape &shape)
{
    for (const ArgPattern &p : shape.args) {
        if (!isShellPattern(p))
            continue;
        const std::string words = commandWords(p.text);
        if (words.empty())
            return p.key + ": the pattern is empty";
        if (words.find_first_of(ShellOperators) != std::string::npos)
            return p.key
                + ": a pattern names the words of one command, without shell operators, quotes or "
                  "$ "
                  "(write \"make\", not \"make && npm test\")";
    }
    return {};
}

bool isWideOpen(const RuleShape &shape)
{
    if (!shape.allow || shape.agent)
        return false;
    return std::all_of(shape.args.begin(), shape.args.end(),
        [](const ArgPattern &p) { return p.secret || p.kind == ArgPattern::Kind::Any; });
}

} // namespace holdpoint
