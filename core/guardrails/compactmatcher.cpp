// SPDX-License-Identifier: Apache-2.0
// Claude Code's permission-rule syntax (matchers.h CompactMatcher), apart
// from matchers.cpp since Bash(…) reads commands through shellparse.h.
#include "matchers.h"

#include <QUrl>

#include <algorithm>

namespace holdpoint {

CompactMatcher CompactMatcher::compile(const std::string &rule, const std::string &path)
{
    CompactMatcher m;
    const auto open = rule.find('(');
    const std::string tool = rule.substr(0, open);
    if (tool.empty())
        throw SpecError(path, "expected Tool or Tool(specifier), got \"" + rule + "\"");
    // Tool names compare without case: Bash(...) written for Claude Code
    // also covers an MCP server's or a framework's "bash" tool.
    if (tool.find_first_of("*?") == std::string::npos) {
        m.m_toolExact = QString::fromStdString(tool).toLower().toStdString();
        // Bash(…) is about shell commands, whichever agent's shell tool runs them.
        m.m_shellTool = isShellTool(m.m_toolExact);
    } else {
        m.m_tool = Glob::compile(tool, GlobMode::Text, /*caseInsensitive=*/true);
    }
    if (open == std::string::npos)
        return m;
    if (rule.back() != ')')
        throw SpecError(path, "missing \")\" in \"" + rule + "\" (expected Tool(specifier))");
    std::string spec = rule.substr(open + 1, rule.size() - open - 2);
    if (spec.empty() || spec == "*")
        return m;
    const std::string kind = QString::fromStdString(tool).toLower().toStdString();
    if (m.m_shellTool) {
        // Shell operators, quotes or substitutions in a specifier cannot be
        // the words of one simple command: such a pattern reads the line.
        m.m_wholeLine = spec.find_first_of(";&|<>()$`'\"\\\n") != std::string::npos;
        if (spec.size() > 2 && spec.ends_with(":*") && !m.m_wholeLine) {
            m.m_kind = Kind::CommandPrefix;
            m.m_text = spec.substr(0, spec.size() - 2);
        } else {
            m.m_kind = Kind::Command;
            m.m_spec = Glob::compile(spec, GlobMode::Text);
        }
    } else if (kind == "read" || kind == "write" || kind == "edit" || kind == "multiedit"
        || kind == "notebookedit" || kind == "glob" || kind == "grep" || kind == "ls") {
        m.m_kind = Kind::Path;
        // Claude Code writes absolute paths as //path; a single / is taken as absolute too.
        if (spec.starts_with("//"))
            spec.erase(0, 1);
        m.m_spec = Glob::compile(expandHome(spec), GlobMode::Path);
    } else if (kind == "webfetch" && spec.starts_with("domain:")) {
        m.m_kind = Kind::Domain;
        m.m_text = QString::fromStdString(spec.substr(7)).toLower().toStdString();
    } else {
        m.m_kind = Kind::AnyString;
        m.m_spec = Glob::compile(spec, GlobMode::Text);
    }
    return m;
}

bool CompactMatcher::matches(
    const std::string &toolName, const Json &args, const std::string &cwd) const
{
    CallScratch scratch(cwd);
    return matches(toolName, args, scratch);
}

std::vector<std::string> CompactMatcher::toolKeys() const
{
    if (m_shellTool)
        return { ShellToolNames.begin(), ShellToolNames.end() };
    if (m_toolExact.empty())
        return {};
    return { m_toolExact };
}

bool CompactMatcher::matchesTool(const std::string &toolName) const
{
    if (m_shellTool)
        return isShellTool(toolName);
    if (!m_toolExact.empty())
        return toolName.size() == m_toolExact.size()
            && std::equal(
                toolName.begin(), toolName.end(), m_toolExact.begin(), [](char a, char b) {
                    return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
                });
    return m_tool->matches(toolName);
}

bool CompactMatcher::matchesOne(std::string_view command) const
{
    if (m_kind == Kind::CommandPrefix) {
        // npm run test:* is npm run test and whatever words follow, not npm run tests.
        return command.starts_with(m_text)
            && (command.size() == m_text.size() || command[m_text.size()] == ' ');
    }
    return m_spec->matches(command);
}

bool CompactMatcher::matchesCommand(
    std::string_view text, std::string_view written, bool allowing) const
{
    if (m_wholeLine)
        return false;
    // A program given by a path is matched by its base name to refuse it
    // (/bin/rm is rm), and only as written to allow it (/tmp/x/make is not make).
    if (allowing)
        return matchesOne(written);
    return matchesOne(text) || (written.data() != text.data() && matchesOne(written));
}

bool CompactMatcher::matchesLine(std::string_view line) const
{
    return m_wholeLine && m_spec->matches(line);
}

bool CompactMatcher::matches(
    const std::string &toolName, const Json &args, CallScratch &scratch) const
{
    if (!matchesTool(toolName))
        return false;
    switch (m_kind) {
    case Kind::ToolOnly:
        return true;
    case Kind::Command:
    case Kind::CommandPrefix: {
        if (m_wholeLine) {
            const std::string *line = scratch.stringArg(args, CallScratch::ArgKind::Command);
            return line && matchesLine(*line);
        }
        const ShellParse *shell = scratch.shell(args);
        if (!shell)
            return false;
        for (std::size_t i = 0; i < shell->size(); ++i)
            if (matchesCommand(shell->text(i), shell->written(i), false))
                return true;
        return false;
    }
    case Kind::Path: {
        const std::string *p = scratch.stringArg(args, CallScratch::ArgKind::Path);
        return p && m_spec->matches(scratch.normalized(*p));
    }
    case Kind::Domain: {
        const std::string *url = scratch.stringArg(args, CallScratch::ArgKind::Url);
        if (!url)
            return false;
        const std::string host = QUrl(scratch.utf16(*url)).host().toLower().toStdString();
        return host == m_text || (host.size() > m_text.size() && host.ends_with("." + m_text));
    }
    case Kind::AnyString:
        for (auto it = args.begin(); it != args.end(); ++it)
            if (it->is_string() && m_spec->matches(it->get_ref<const std::string &>()))
                return true;
        return false;
    }
    return false;
}

} // namespace holdpoint
