// SPDX-License-Identifier: Apache-2.0
#include "shellparse.h"

#include "wire/utf8.h"

#include <algorithm>
#include <array>

namespace holdpoint {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

// bash(1) "DEFINITIONS": a metacharacter ends an unquoted word.
bool isMeta(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '('
        || c == ')' || c == '<' || c == '>';
}

bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}

bool isDigits(std::string_view s)
{
    return !s.empty()
        && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <std::size_t N>
bool isOneOf(std::string_view s, const std::array<std::string_view, N> &list)
{
    return std::find(list.begin(), list.end(), s) != list.end();
}

// Code points that make a line read differently from how it runs, or hide
// part of it from a reviewer: C1 controls, bidirectional overrides (the
// "Trojan Source" paper, CVE-2021-42574), zero-width characters, line and
// paragraph separators, the byte-order mark.
bool isTrickCodePoint(char32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0xA0 || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F)
        || (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

// Control characters (a carriage return hides what precedes it on a
// terminal; a NUL ends the string a C program sees), invalid UTF-8 and
// the code points above.
bool hasTrickCharacters(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
                return true;
            ++i;
            continue;
        }
        std::size_t skip = 0;
        const std::size_t n = wire::utf8Sequence(s, i, &skip);
        if (n == 0)
            return true;
        char32_t cp = n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
        for (std::size_t k = 1; k < n; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        if (isTrickCodePoint(cp))
            return true;
        i += n;
    }
    return false;
}

// A redirection's target that keeps nothing, or stays in the agent's working
// directory and is no dotfile (`> build.log`). Anything else (`> ~/.bashrc`,
// `> /etc/x`, `> ../x`, `> .git/hooks/pre-commit`) writes where a file can
// run code later.
bool writesInPlace(std::string_view target, std::string_view cwd)
{
    static constexpr std::array<std::string_view, 4> devices { "/dev/null", "/dev/stdout",
        "/dev/stderr", "/dev/tty" };
    return isOneOf(target, devices) || ShellParse::staysInPlace(target, cwd);
}

} // namespace

// Reads one list of commands: the whole line, or what is inside ( … ),
// $( … ) or <( … ). Words go through quote removal; what cannot be known
// before the line runs sets an opaque bit and keeps its source text.
class ShellParse::Reader final
{
public:
    Reader(ShellParse &out, std::string_view s, int depth)
        : m_out(out)
        , m_s(s)
        , m_depth(depth)
    {
        m_words.reserve(8); // one allocation for the usual command
    }

    // From `pos` to the end, or past the `)` that closes the list when
    // `nested`. Returns where reading stopped.
    std::size_t list(std::size_t pos, bool nested)
    {
        if (m_depth > MaxDepth) {
            m_out.m_opaque |= TooLarge;
            return m_s.size();
        }
        while (pos < m_s.size()) {
            const char c = m_s[pos];
            if (isBlank(c)) {
                ++pos;
            } else if (c == '\n') {
                endCommand();
                pos = hereDocuments(pos + 1);
            } else if (c == '#') {
                // A comment runs to the end of the line (bash(1) "COMMENTS").
                while (pos < m_s.size() && m_s[pos] != '\n')
                    ++pos;
            } else if (c == ';') {
                if (pos + 1 < m_s.size() && m_s[pos + 1] == ';')
                    m_out.m_opaque |= Unparsed; // `;;` belongs to case
                endCommand();
                ++pos;
            } else if (c == '&') {
                if (pos + 1 < m_s.size() && m_s[pos + 1] == '>') {
                    pos = redirection(pos + 1, /*output=*/true, /*both=*/true);
                } else {
                    endCommand();
                    pos += pos + 1 < m_s.size() && m_s[pos + 1] == '&' ? 2 : 1;
                }
            } else if (c == '|') {
                endCommand();
                pos += pos + 1 < m_s.size() && (m_s[pos + 1] == '|' || m_s[pos + 1] == '&') ? 2 : 1;
            } else if (c == '(') {
                if (pos + 1 < m_s.size() && m_s[pos + 1] == '(') {
                    m_out.m_opaque |= Unparsed; // (( arithmetic ))
                    pos = skipBalanced(pos);
                } else if (m_words.empty()) {
                    // A subshell runs its commands like any other list.
                    pos = Reader(m_out, m_s, m_depth + 1).list(pos + 1, true);
                } else {
                    m_out.m_opaque |= Unparsed; // name() { …; }: a function definition
                    endCommand();
                    ++pos;
                }
            } else if (c == ')') {
                endCommand();
                if (nested)
                    return pos + 1;
                m_out.m_opaque |= Unparsed;
                ++pos;
            } else if (c == '<' || c == '>') {
                pos = redirection(pos, c == '>', false);
            } else {
                Word w;
                pos = word(pos, &w);
                if (pos < m_s.size() && (m_s[pos] == '<' || m_s[pos] == '>')
                    && w.firstQuote == std::string::npos && isDigits(w.text)) {
                    pos = redirection(
                        pos, m_s[pos] == '>', false); // 2>file: the digits name a descriptor
                } else if (pos < m_s.size() && m_s[pos] == '(' && !w.text.empty()) {
                    // extglob @(…) or a function definition
                    m_out.m_opaque |= Unparsed;
                    pos = skipBalanced(pos);
                } else if (!w.text.empty() || w.firstQuote != std::string::npos) {
                    m_words.push_back(std::move(w)); // (empty unquoted: only a line continuation)
                }
            }
        }
        endCommand();
        if (nested)
            m_out.m_opaque |= Unparsed; // no closing )
        return pos;
    }

private:
    void endCommand()
    {
        if (!m_words.empty())
            m_out.addCommand(m_words, m_depth);
        m_words.clear();
    }

    // Past the parenthesis that closes the one at `pos`, quotes ignored:
    // only for constructs that are opaque anyway.
    std::size_t skipBalanced(std::size_t pos) const
    {
        int level = 0;
        for (; pos < m_s.size(); ++pos) {
            if (m_s[pos] == '(') {
                ++level;
            } else if (m_s[pos] == ')' && --level == 0) {
                return pos + 1;
            }
        }
        m_out.m_opaque |= Unparsed;
        return pos;
    }

    // A redirection operator at `pos` and its target (bash(1) "REDIRECTION").
    std::size_t redirection(std::size_t pos, bool output, bool both)
    {
        const char c = m_s[pos];
        const auto at = [&](std::size_t i) { return i < m_s.size() ? m_s[i] : '\0'; };
        if (at(pos + 1) == '(') {
            // <( … ) and >( … ): process substitution, a command whose
            // output or input takes the place of a file name.
            m_out.m_opaque |= Substitution;
            return Reader(m_out, m_s, m_depth + 1).list(pos + 2, true);
        }
        bool hereDoc = false, stripTabs = false, dup = false;
        ++pos;
        if (c == '<' && at(pos) == '<') {
            ++pos;
            if (at(pos) == '<') {
                ++pos; // <<< word: a here-string, an ordinary word
            } else {
                hereDoc = true;
                if (at(pos) == '-') {
                    stripTabs = true;
                    ++pos;
                }
            }
        } else if (c == '>' && (at(pos) == '>' || at(pos) == '|')) {
            ++pos;
        } else if (at(pos) == '&') {
            dup = !both;
            ++pos;
        } else if (c == '<' && at(pos) == '>') {
            output = true;
            ++pos;
        }
        while (pos < m_s.size() && isBlank(m_s[pos]))
            ++pos;
        if (pos >= m_s.size() || isMeta(m_s[pos])) {
            m_out.m_opaque |= Unparsed; // a redirection without a target
            return pos;
        }
        Word target;
        pos = word(pos, &target);
        if (target.text.starts_with("/dev/tcp/") || target.text.starts_with("/dev/udp/")) {
            m_out.m_opaque |= RiskyOption; // bash opens a connection for these names, either way
        } else if (hereDoc) {
            m_hereDocs.push_back(
                { target.text, target.firstQuote == std::string::npos, stripTabs });
        } else if (output && !(dup && (isDigits(target.text) || target.text == "-"))
            && !writesInPlace(target.text, m_out.m_cwd)) {
            m_out.m_opaque |= WritesFile;
        }
        return pos;
    }

    // The bodies of the here-documents the line just ended opened. An
    // unquoted delimiter lets $( … ) and `…` in the body run.
    std::size_t hereDocuments(std::size_t pos)
    {
        for (const HereDoc &h : m_hereDocs) {
            bool found = false;
            while (pos < m_s.size() && !found) {
                std::size_t end = m_s.find('\n', pos);
                if (end == std::string_view::npos)
                    end = m_s.size();
                std::string_view line = m_s.substr(pos, end - pos);
                if (h.stripTabs)
                    line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
                found = line == h.delimiter;
                if (!found && h.expands) {
                    if (line.find("$(") != std::string_view::npos
                        || line.find('`') != std::string_view::npos)
                        m_out.m_opaque |= Substitution;
                    else if (line.find('$') != std::string_view::npos)
                        m_out.m_opaque |= Expansion;
                }
                pos = end + 1;
            }
        }
        m_hereDocs.clear();
        return std::min(pos, m_s.size());
    }

    // One word from `pos`, quotes removed, into `w`.
    std::size_t word(std::size_t pos, Word *w)
    {
        const auto quoted = [&] {
            if (w->firstQuote == std::string::npos)
                w->firstQuote = w->text.size();
        };
        const std::size_t start = pos;
        while (pos < m_s.size() && !isMeta(m_s[pos])) {
            const char c = m_s[pos];
            if (c == '\'') {
                quoted();
                const std::size_t close = m_s.find('\'', pos + 1);
                if (close == std::string_view::npos) {
                    m_out.m_opaque |= Unparsed;
                    w->text.append(m_s.substr(pos + 1));
                    return m_s.size();
                }
                w->text.append(m_s.substr(pos + 1, close - pos - 1));
                pos = close + 1;
            } else if (c == '"') {
                quoted();
                pos = doubleQuoted(pos + 1, w);
            } else if (c == '\\') {
                if (pos + 1 < m_s.size() && m_s[pos + 1] == '\n') {
                    pos += 2; // a line continuation
                    continue;
                }
                quoted();
                if (pos + 1 < m_s.size())
                    w->text += m_s[pos + 1];
                pos = std::min(pos + 2, m_s.size());
            } else if (c == '$') {
                pos = dollar(pos, w, false);
            } else if (c == '`') {
                pos = backquoted(pos, w);
            } else {
                if (c == '*' || c == '?' || c == '[')
                    m_out.m_opaque
                        |= Glob; // pathname expansion: a file named --output=… becomes an option
                else if (c == '{'
                    && !(pos == start && (pos + 1 >= m_s.size() || isMeta(m_s[pos + 1]))))
                    m_out.m_opaque |= Glob; // brace expansion
                else if (static_cast<unsigned char>(c) >= 0x80)
                    m_out.m_opaque
                        |= Characters; // a look-alike of ; or | reads as one and runs as another
                w->text += c;
                ++pos;
            }
        }
        return pos;
    }

    std::size_t doubleQuoted(std::size_t pos, Word *w)
    {
        while (pos < m_s.size()) {
            const char c = m_s[pos];
            if (c == '"')
                return pos + 1;
            if (c == '\\' && pos + 1 < m_s.size()) {
                const char n = m_s[pos + 1];
                if (n == '$' || n == '`' || n == '"' || n == '\\') {
                    w->text += n;
                } else if (n != '\n') {
                    w->text += c;
                    w->text += n;
                }
                pos += 2;
            } else if (c == '$') {
                pos = dollar(pos, w, true);
            } else if (c == '`') {
                pos = backquoted(pos, w);
            } else {
                w->text += c;
                ++pos;
            }
        }
        m_out.m_opaque |= Unparsed; // no closing "
        return pos;
    }

    // $… : a substitution or an expansion, kept as written in the word.
    std::size_t dollar(std::size_t pos, Word *w, bool inDoubleQuotes)
    {
        const std::size_t start = pos;
        const char n = pos + 1 < m_s.size() ? m_s[pos + 1] : '\0';
        if (n == '(' && pos + 2 < m_s.size() && m_s[pos + 2] == '(') {
            m_out.m_opaque |= Substitution; // $(( arithmetic )) can hold $( … ) and a[$(…)]
            pos = skipBalanced(pos + 1);
        } else if (n == '(') {
            m_out.m_opaque |= Substitution;
            pos = Reader(m_out, m_s, m_depth + 1).list(pos + 2, true);
        } else if (n == '{') {
            m_out.m_opaque |= Expansion;
            int level = 0;
            for (pos += 1; pos < m_s.size(); ++pos) {
                if (m_s[pos] == '{') {
                    ++level;
                } else if (m_s[pos] == '}' && --level == 0) {
                    ++pos;
                    break;
                }
            }
            if (level != 0)
                m_out.m_opaque |= Unparsed;
        } else if (n == '\'' && !inDoubleQuotes) {
            // $'…' decodes escapes: \x72\x6d is rm. Read as opaque.
            m_out.m_opaque |= Expansion;
            pos += 2;
            while (pos < m_s.size() && m_s[pos] != '\'')
                pos += m_s[pos] == '\\' ? 2 : 1;
            if (pos >= m_s.size())
                m_out.m_opaque |= Unparsed;
            pos = std::min(pos + 1, m_s.size());
        } else if (n == '"' && !inDoubleQuotes) {
            m_out.m_opaque |= Expansion; // $"…": a translated string
            ++pos;
            return pos; // the quotes are read as "…"
        } else if (isNameStart(n)) {
            m_out.m_opaque |= Expansion;
            for (pos += 1; pos < m_s.size() && isNameChar(m_s[pos]);)
                ++pos;
        } else if ((n >= '0' && n <= '9') || n == '@' || n == '*' || n == '#' || n == '?'
            || n == '-' || n == '$' || n == '!') {
            m_out.m_opaque |= Expansion;
            pos += 2;
        } else {
            w->text += '$'; // a lone $ is itself
            return pos + 1;
        }
        w->text.append(m_s.substr(start, pos - start));
        return pos;
    }

    // `…`: the old command substitution; \` \$ \\ inside are unescaped
    // before the text is read as commands (bash(1) "Command Substitution").
    std::size_t backquoted(std::size_t pos, Word *w)
    {
        m_out.m_opaque |= Substitution;
        std::string inner;
        std::size_t i = pos + 1;
        for (; i < m_s.size() && m_s[i] != '`'; ++i) {
            if (m_s[i] == '\\' && i + 1 < m_s.size()
                && (m_s[i + 1] == '`' || m_s[i + 1] == '$' || m_s[i + 1] == '\\'))
                ++i;
            inner += m_s[i];
        }
        if (i >= m_s.size())
            m_out.m_opaque |= Unparsed;
        m_out.parseNested(inner, m_depth + 1);
        const std::size_t end = std::min(i + 1, m_s.size());
        w->text.append(m_s.substr(pos, end - pos));
        return end;
    }

    struct HereDoc
    {
        std::string delimiter;
        bool expands;
        bool stripTabs;
    };

    ShellParse &m_out;
    std::string_view m_s;
    int m_depth;
    std::vector<Word> m_words;
    std::vector<HereDoc> m_hereDocs;
};

bool ShellParse::staysInPlace(std::string_view path, std::string_view cwd)
{
    // Whether every segment of `p` passes `ok`.
    const auto segments = [](std::string_view p, auto ok) {
        for (std::size_t at = 0; at < p.size();) {
            const std::size_t end = std::min(p.find('/', at), p.size());
            if (!ok(p.substr(at, end - at)))
                return false;
            at = end + 1;
        }
        return true;
    };
    if (!path.empty() && path[0] == '/') {
        // Below the working directory, given absolutely: the rest is read as
        // a relative path. A cwd with `.` or `..` in it is not compared.
        while (cwd.size() > 1 && cwd.back() == '/')
            cwd.remove_suffix(1);
        const bool normalCwd = cwd.size() >= 2 && cwd[0] == '/'
            && segments(
                cwd.substr(1), [](std::string_view seg) { return seg != "." && seg != ".."; });
        if (!normalCwd || path.size() <= cwd.size() + 1 || !path.starts_with(cwd)
            || path[cwd.size()] != '/')
            return false;
        path.remove_prefix(cwd.size() + 1);
    }
    if (path.empty() || path[0] == '/' || path[0] == '~')
        return false;
    // .. leaves; a hidden name is some tool's own (.git/hooks, .bashrc).
    return segments(path, [](std::string_view seg) { return !seg.starts_with('.') || seg == "."; });
}

void ShellParse::parseNested(std::string_view text, int depth)
{
    if (depth > MaxDepth) {
        m_opaque |= TooLarge;
        return;
    }
    Reader(*this, text, depth).list(0, false);
}

void ShellParse::addCommand(const std::vector<Word> &words, int depth)
{
    // Reserved words that only group or test (bash(1) "Compound
    // Commands") come before the command they introduce; the loops and
    // branches they build run each command, and each is read here.
    static constexpr std::array<std::string_view, 13> grouping { "!", "{", "}", "if", "then",
        "else", "elif", "fi", "do", "done", "while", "until", "time" };
    static constexpr std::array<std::string_view, 7> unread { "for", "case", "esac", "select",
        "function", "coproc", "[[" };
    std::size_t i = 0;
    for (; i < words.size(); ++i) {
        const Word &w = words[i];
        const bool plain = w.firstQuote == std::string::npos;
        if (plain && isOneOf(w.text, grouping))
            continue;
        if (plain && isOneOf(w.text, unread)) {
            m_opaque |= Unparsed;
            continue;
        }
        // NAME=value before the program, or alone: PATH, LD_PRELOAD,
        // GIT_DIR, NODE_OPTIONS … change what a program runs.
        std::size_t k = 0;
        if (!w.text.empty() && isNameStart(w.text[0])) {
            while (k < w.text.size() && isNameChar(w.text[k]))
                ++k;
            if (k < w.text.size() && w.text[k] == '+')
                ++k;
            if (k < w.text.size() && w.text[k] == '=' && w.firstQuote > k) {
                m_opaque |= Assignment;
                continue;
            }
        }
        break;
    }
    if (i < words.size())
        addWords(words, i, depth);
}

void ShellParse::addWords(const std::vector<Word> &words, std::size_t from, int depth)
{
    if (depth > MaxDepth || m_spans.size() >= MaxCommands) {
        m_opaque |= TooLarge;
        return;
    }
    const std::string &program = words[from].text;
    const std::size_t slash = program.rfind('/');
    const std::string_view name = slash == std::string::npos
        ? std::string_view(program)
        : std::string_view(program).substr(slash + 1);
    Span span {};
    span.textAt = m_text.size();
    m_text += name;
    for (std::size_t i = from + 1; i < words.size(); ++i) {
        m_text += ' ';
        m_text += words[i].text;
    }
    span.textSize = m_text.size() - span.textAt;
    if (slash == std::string::npos) {
        span.writtenAt = span.textAt;
        span.writtenSize = span.textSize;
    } else {
        span.writtenAt = m_text.size();
        m_text += program;
        m_text.append(m_text, span.textAt + name.size(), span.textSize - name.size());
        span.writtenSize = m_text.size() - span.writtenAt;
    }
    m_spans.push_back(span);
    readOptions(words, from + 1, depth, name);
}

ShellParse ShellParse::parse(std::string_view line, std::string_view cwd)
{
    ShellParse p;
    if (line.size() > MaxBytes) {
        p.m_opaque |= TooLarge;
        return p;
    }
    if (hasTrickCharacters(line))
        p.m_opaque |= Characters;
    p.m_text.reserve(line.size() + 16);
    p.m_spans.reserve(4);
    p.m_cwd = cwd;
    Reader(p, line, 0).list(0, false);
    p.m_cwd = {};
    if (p.m_spans.empty() && p.m_opaque == 0)
        p.m_opaque |= Unparsed; // nothing to run is nothing a rule can allow
    return p;
}

ShellParse ShellParse::parseArgv(const Json &argv, std::string_view cwd)
{
    ShellParse p;
    if (!argv.is_array() || argv.empty()) {
        p.m_opaque |= NotACommand;
        return p;
    }
    std::vector<Word> words;
    std::size_t bytes = 0;
    for (const Json &a : argv) {
        if (!a.is_string()) {
            p.m_opaque |= NotACommand;
            return p;
        }
        const std::string &s = a.get_ref<const std::string &>();
        bytes += s.size() + 1;
        if (bytes > MaxBytes) {
            p.m_opaque |= TooLarge;
            return p;
        }
        if (hasTrickCharacters(s))
            p.m_opaque |= Characters;
        words.push_back({ s, 0 });
    }
    // ["bash", "-lc", "make"]: the tool's own shell and its script, which
    // is the command line (Codex's shell tool).
    const std::string &program = words[0].text;
    const std::string_view base = std::string_view(program).substr(
        program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1);
    if (words.size() == 3 && isShell(base)
        && (words[1].text == "-c" || words[1].text == "-lc" || words[1].text == "-cl")) {
        const std::uint32_t characters = p.m_opaque;
        p = parse(words[2].text, cwd);
        p.m_opaque |= characters;
        return p;
    }
    p.m_text.reserve(bytes + program.size() + 16);
    p.m_cwd = cwd;
    p.addWords(words, 0, 0);
    p.m_cwd = {};
    return p;
}

const Json *ShellParse::commandArgument(const Json &args)
{
    if (!args.is_object())
        return nullptr;
    for (const char *key : { "command", "cmd" }) {
        auto it = args.find(key);
        if (it != args.end() && (it->is_string() || it->is_array()))
            return &*it;
    }
    return nullptr;
}

std::string ShellParse::describe(std::uint32_t opaque)
{
    static constexpr std::array<std::pair<std::uint32_t, std::string_view>, 11> names { {
        { Substitution, "a command or process substitution" },
        { Expansion, "a variable expansion" },
        { Glob, "a filename or brace expansion" },
        { Assignment, "an environment assignment" },
        { ShellString, "code run from a string or a script (eval, sh -c, source)" },
        { RiskyOption,
            "an option that runs other code or deletes files (git -c, make -f, xargs, find "
            "-exec)" },
        { WritesFile,
            "a write outside the working directory or to a hidden file (a redirection or "
            "--output)" },
        { Unparsed, "a construct the parser does not read" },
        { Characters, "control, invisible or non-ASCII characters outside quotes" },
        { TooLarge, "a command too long or too deeply nested to read" },
        { NotACommand, "a command argument that is not a string" },
    } };
    std::string out;
    for (const auto &[bit, text] : names) {
        if (!(opaque & bit))
            continue;
        if (!out.empty())
            out += ", ";
        out += text;
    }
    return out;
}

bool isShellTool(std::string_view toolName)
{
    for (std::string_view name : ShellToolNames)
        if (name.size() == toolName.size()
            && std::equal(name.begin(), name.end(), toolName.begin(), [](char a, char b) {
                   return a == (b >= 'A' && b <= 'Z' ? char(b - 'A' + 'a') : b);
               }))
            return true;
    return false;
}

} // namespace holdpoint
