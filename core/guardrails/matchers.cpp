// SPDX-License-Identifier: Apache-2.0
#include "matchers.h"

#include <QDir>

#include <algorithm>

namespace holdpoint {

QRegularExpression compileGlob(const std::string &glob, GlobMode mode)
{
    QString re;
    re.reserve(qsizetype(glob.size()) * 2 + 8);
    const QString g = toQString(glob);
    for (qsizetype i = 0; i < g.size(); ++i) {
        const QChar c = g[i];
        if (c == u'*') {
            if (i + 1 < g.size() && g[i + 1] == u'*') {
                ++i;
                // "/**/" also matches a single "/": a/**/b matches a/b.
                if (i + 1 < g.size() && g[i + 1] == u'/' && mode == GlobMode::Path) {
                    ++i;
                    re += QStringLiteral("(?:.*/)?");
                } else {
                    re += QStringLiteral(".*");
                }
            } else {
                re += mode == GlobMode::Path ? QStringLiteral("[^/]*") : QStringLiteral(".*");
            }
        } else if (c == u'?') {
            re += mode == GlobMode::Path ? QStringLiteral("[^/]") : QStringLiteral(".");
        } else {
            re += QRegularExpression::escape(QString(c));
        }
    }
    QRegularExpression compiled(
        QRegularExpression::anchoredPattern(re), QRegularExpression::DotMatchesEverythingOption);
    compiled.optimize();
    return compiled;
}

bool isAscii(std::string_view text)
{
    return std::all_of(
        text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

namespace {

char foldAscii(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool equalFolded(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
        return foldAscii(x) == foldAscii(y);
    });
}

bool containsFolded(std::string_view haystack, std::string_view needle)
{
    if (needle.size() > haystack.size())
        return false;
    for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
        if (equalFolded(haystack.substr(i, needle.size()), needle))
            return true;
    return false;
}

} // namespace

std::string asciiLower(std::string_view text)
{
    std::string out(text);
    for (char &c : out)
        c = foldAscii(c);
    return out;
}

Glob Glob::compile(const std::string &glob, GlobMode mode, bool caseInsensitive)
{
    Glob g;
    g.m_caseInsensitive = caseInsensitive;
    g.m_regex = compileGlob(glob, mode);
    if (caseInsensitive)
        g.m_regex.setPatternOptions(
            g.m_regex.patternOptions() | QRegularExpression::CaseInsensitiveOption);
    // Beyond ASCII, PCRE's view of the text (UTF-16, Unicode case folding)
    // decides; the pieces below read bytes.
    if (!isAscii(glob))
        return g;
    // The same reading as compileGlob(), piece by piece.
    const bool path = mode == GlobMode::Path;
    auto add = [&g](Kind kind) { g.m_pieces.push_back({ kind, {} }); };
    for (std::size_t i = 0; i < glob.size(); ++i) {
        const char c = glob[i];
        if (c == '*') {
            if (i + 1 < glob.size() && glob[i + 1] == '*') {
                ++i;
                if (i + 1 < glob.size() && glob[i + 1] == '/' && path) {
                    ++i;
                    add(Kind::AnyDirs);
                } else {
                    add(Kind::Any);
                }
            } else {
                add(path ? Kind::InSegment : Kind::Any);
            }
        } else if (c == '?') {
            add(path ? Kind::OneInSegment : Kind::One);
        } else {
            if (g.m_pieces.empty() || g.m_pieces.back().kind != Kind::Literal)
                add(Kind::Literal);
            g.m_pieces.back().text += c;
        }
    }
    const auto &p = g.m_pieces;
    if (p.empty() || (p.size() == 1 && p[0].kind == Kind::Literal)) {
        g.m_shape = Shape::Exact;
        g.m_literal = p.empty() ? std::string() : p[0].text;
    } else if (p.size() == 2 && p[0].kind == Kind::Literal && p[1].kind == Kind::Any) {
        g.m_shape = Shape::Prefix;
        g.m_literal = p[0].text;
    } else {
        g.m_shape = Shape::Pieces;
    }
    return g;
}

bool Glob::equal(std::string_view a, std::string_view b) const
{
    return m_caseInsensitive ? equalFolded(a, b) : a == b;
}

bool Glob::matches(std::string_view subject) const
{
    if (m_shape == Shape::RegexOnly || !isAscii(subject))
        return m_regex.match(toQString(subject)).hasMatch();
    switch (m_shape) {
    case Shape::Exact:
        return equal(subject, m_literal);
    case Shape::Prefix:
        return subject.size() >= m_literal.size()
            && equal(subject.substr(0, m_literal.size()), m_literal);
    case Shape::Pieces:
    case Shape::RegexOnly:
        break;
    }
    return matchPieces(subject);
}

// reach[i]: the pieces so far can match the first i bytes. One pass per
// piece, so no glob makes this backtrack.
bool Glob::matchPieces(std::string_view s) const
{
    const std::size_t n = s.size();
    std::vector<char> reach(n + 1, 0), next(n + 1, 0);
    reach[0] = 1;
    for (const Piece &piece : m_pieces) {
        std::fill(next.begin(), next.end(), 0);
        bool seen = false; // some earlier position was reachable (and, in a segment, no `/` since)
        for (std::size_t i = 0; i <= n; ++i) {
            switch (piece.kind) {
            case Kind::Literal:
                if (reach[i] && i + piece.text.size() <= n
                    && equal(s.substr(i, piece.text.size()), piece.text))
                    next[i + piece.text.size()] = 1;
                break;
            case Kind::Any:
                seen = seen || reach[i];
                next[i] = seen;
                break;
            case Kind::InSegment:
                if (i > 0 && s[i - 1] == '/')
                    seen = false;
                seen = seen || reach[i];
                next[i] = seen;
                break;
            case Kind::One:
                if (reach[i] && i < n)
                    next[i + 1] = 1;
                break;
            case Kind::OneInSegment:
                if (reach[i] && i < n && s[i] != '/')
                    next[i + 1] = 1;
                break;
            case Kind::AnyDirs:
                // Nothing, or anything that ends in `/`.
                next[i] = reach[i] || (seen && s[i - 1] == '/');
                seen = seen || reach[i];
                break;
            }
        }
        reach.swap(next);
        if (std::find(reach.begin(), reach.end(), 1) == reach.end())
            return false;
    }
    return reach[n];
}

std::string requiredLiteral(const std::string &pattern, bool *atStart)
{
    *atStart = false;
    // An alternative elsewhere could match without the literal.
    if (pattern.find('|') != std::string::npos)
        return {};
    std::size_t i = 0;
    if (pattern.starts_with('^') || pattern.starts_with("\\A")) {
        // No option can precede these, so `^` is the start of the subject.
        i = pattern[0] == '^' ? 1 : 2;
        *atStart = true;
    } else if (pattern.starts_with("\\b")) {
        i = 2; // a word boundary consumes nothing
    }
    auto plain = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || std::string_view("-_/:=,@%~ ").find(c) != std::string_view::npos;
    };
    std::size_t end = i;
    while (end < pattern.size() && plain(pattern[end]))
        ++end;
    // A quantifier applies to the last character only.
    if (end > i && end < pattern.size()
        && std::string_view("*+?{").find(pattern[end]) != std::string_view::npos)
        --end;
    if (end == i)
        *atStart = false;
    return pattern.substr(i, end - i);
}

ByteSet::ByteSet(std::string_view text)
{
    // Bytes below 128 in two registers; the rest are rare.
    std::uint64_t low = 0, high = 0;
    for (char c : text) {
        const auto b = static_cast<unsigned char>(c);
        const std::uint64_t bit = std::uint64_t(1) << (b & 63);
        low |= b < 64 ? bit : 0;
        high |= (b >> 6) == 1 ? bit : 0;
        if (b >= 128)
            m_exact[b >> 6] |= bit;
    }
    m_exact[0] = m_folded[0] = low;
    m_exact[1] = high;
    m_folded[2] = m_exact[2];
    m_folded[3] = m_exact[3];
    // A-Z are bits 1-26 of the second word, a-z bits 33-58.
    constexpr std::uint64_t upper = ((std::uint64_t(1) << 26) - 1) << 1;
    m_folded[1] = (high & ~upper) | ((high & upper) << 32);
}

void ByteSet::intersect(const ByteSet &other)
{
    for (int i = 0; i < 4; ++i) {
        m_exact[i] &= other.m_exact[i];
        m_folded[i] &= other.m_folded[i];
    }
}

Regex Regex::compile(const std::string &pattern, const std::string &path)
{
    QRegularExpression re(toQString(pattern));
    if (!re.isValid())
        throw SpecError(path,
            "invalid regex: " + re.errorString().toStdString() + " at offset "
                + std::to_string(re.patternErrorOffset()));
    re.optimize();
    bool atStart = false;
    std::string literal = requiredLiteral(pattern, &atStart);
    std::vector<std::string> anyOf;
    if (!literal.empty())
        anyOf.push_back(std::move(literal));
    Regex r(std::move(re), std::move(anyOf), false);
    r.m_atStart = atStart;
    return r;
}

Regex::Regex(QRegularExpression regex, std::vector<std::string> anyOf, bool caseInsensitive)
    : m_regex(std::move(regex))
    , m_anyOf(std::move(anyOf))
    , m_caseInsensitive(caseInsensitive)
{
    for (const std::string &literal : m_anyOf) {
        m_anyOfBytes.emplace_back(literal);
        if (m_anyOfBytes.size() == 1)
            m_commonBytes = m_anyOfBytes.back();
        else
            m_commonBytes.intersect(m_anyOfBytes.back());
    }
}

bool Regex::holds(std::string_view subject, const std::string &literal) const
{
    if (m_atStart)
        return subject.size() >= literal.size()
            && (m_caseInsensitive ? equalFolded(subject.substr(0, literal.size()), literal)
                                  : subject.starts_with(literal));
    return m_caseInsensitive ? containsFolded(subject, literal)
                             : subject.find(literal) != std::string_view::npos;
}

bool Regex::mightMatch(std::string_view subject) const
{
    if (m_anyOf.empty())
        return true;
    // Without case, PCRE folds some non-ASCII letters onto ASCII ones (the
    // Kelvin sign onto k): such subjects are left to PCRE.
    if (m_caseInsensitive && !isAscii(subject))
        return true;
    for (const std::string &literal : m_anyOf) {
        if (holds(subject, literal))
            return true;
    }
    return false;
}

bool Regex::mightMatch(std::string_view subject, const ByteSet &bytes) const
{
    if (m_anyOf.empty() || (m_caseInsensitive && !bytes.ascii()))
        return true;
    // Only a literal all of whose bytes the subject has can be in it; most
    // subjects lack a byte every literal has.
    if (!bytes.hasAllOf(m_commonBytes, m_caseInsensitive))
        return false;
    for (std::size_t i = 0; i < m_anyOf.size(); ++i) {
        if (!bytes.hasAllOf(m_anyOfBytes[i], m_caseInsensitive))
            continue;
        const std::string &literal = m_anyOf[i];
        if (holds(subject, literal))
            return true;
    }
    return false;
}

std::string expandHome(const std::string &path)
{
    if (path == "~" || path.starts_with("~/"))
        return QDir::homePath().toStdString() + path.substr(1);
    return path;
}

std::string normalizePath(const std::string &path, const std::string &cwd)
{
    std::string p = expandHome(path);
    if (!p.starts_with('/')) {
        p = (cwd.starts_with('/') ? cwd : std::string("/")) + '/' + p;
    }
    // Resolve ".", ".." and repeated slashes in one pass; above / is / itself.
    std::string out;
    out.reserve(p.size());
    std::size_t i = 0;
    while (i < p.size()) {
        while (i < p.size() && p[i] == '/')
            ++i;
        const std::size_t end = p.find('/', i);
        const std::size_t len = (end == std::string::npos ? p.size() : end) - i;
        if (len == 0)
            break;
        if (len == 1 && p[i] == '.') {
            // stays
        } else if (len == 2 && p[i] == '.' && p[i + 1] == '.') {
            const std::size_t slash = out.rfind('/');
            out.erase(slash == std::string::npos ? 0 : slash);
        } else {
            out += '/';
            out.append(p, i, len);
        }
        i += len;
    }
    return out.empty() ? std::string("/") : out;
}

bool isNormalPath(std::string_view p)
{
    if (p.empty() || p[0] != '/')
        return false;
    if (p.size() == 1)
        return true;
    // Every segment after a `/` non-empty and neither `.` nor `..`.
    std::size_t i = 0;
    while (i < p.size()) {
        const std::size_t next = p.find('/', i + 1);
        const std::string_view segment
            = p.substr(i + 1, (next == std::string_view::npos ? p.size() : next) - i - 1);
        if (segment.empty() || segment == "." || segment == "..")
            return false;
        i = next == std::string_view::npos ? p.size() : next;
    }
    return true;
}

bool isPathUnder(const std::string &p, const std::string &base)
{
    if (base == "/")
        return true;
    return p == base
        || (p.size() > base.size() && p.compare(0, base.size(), base) == 0
            && p[base.size()] == '/');
}

namespace {

// One step of a dotted path: a key of an object, or an index into an array.
template <typename J> J *stepInto(J *cur, const std::string &key)
{
    if (cur->is_object()) {
        auto it = cur->find(key);
        return it == cur->end() ? nullptr : &*it;
    }
    if (cur->is_array() && !key.empty() && key.size() < 10
        && key.find_first_not_of("0123456789") == std::string::npos) {
        const std::size_t index = std::stoul(key);
        return index >= cur->size() ? nullptr : &(*cur)[index];
    }
    return nullptr;
}

template <typename J> J *jsonAtImpl(J &root, const std::string &dotted)
{
    J *cur = &root;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::size_t len = dot == std::string::npos ? std::string::npos : dot - start;
        cur = stepInto(cur, dotted.substr(start, len));
        if (!cur)
            return nullptr;
        if (dot == std::string::npos)
            return cur->is_null() ? nullptr : cur;
        start = dot + 1;
    }
}

} // namespace

const Json *jsonAt(const Json &root, const std::string &dotted)
{
    return jsonAtImpl(root, dotted);
}

Json *jsonAt(Json &root, const std::string &dotted)
{
    return jsonAtImpl(root, dotted);
}

ArgPath::ArgPath(const std::string &dotted)
{
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::size_t len = dot == std::string::npos ? std::string::npos : dot - start;
        m_keys.push_back(dotted.substr(start, len));
        if (dot == std::string::npos)
            return;
        start = dot + 1;
    }
}

const Json *ArgPath::find(const Json &root) const
{
    const Json *cur = &root;
    for (const std::string &key : m_keys)
        if (!(cur = stepInto(cur, key)))
            return nullptr;
    return cur->is_null() ? nullptr : cur;
}

const std::string &CallScratch::cwd() const
{
    return m_context ? cwdRef(*m_context) : m_cwd;
}

const std::string &CallScratch::normalized(const std::string &path)
{
    if (isNormalPath(path))
        return path;
    for (const auto &[key, value] : m_normalized)
        if (key == &path)
            return value;
    return m_normalized.emplace_front(&path, normalizePath(path, cwd())).second;
}

const std::string *CallScratch::stringArg(const Json &args, ArgKind kind)
{
    const auto k = std::size_t(kind);
    if (m_stringArgsRead[k])
        return m_stringArgs[k];
    static constexpr std::string_view keys[3][3]
        = { { "command", "cmd" }, { "file_path", "path", "notebook_path" }, { "url" } };
    const std::string *found = nullptr;
    for (std::string_view key : keys[k]) {
        if (key.empty() || !args.is_object())
            break;
        auto it = args.find(key);
        if (it != args.end() && it->is_string()) {
            found = &it->get_ref<const std::string &>();
            break;
        }
    }
    m_stringArgsRead[k] = true;
    return m_stringArgs[k] = found;
}

const ShellParse *CallScratch::shell(const Json &args)
{
    if (!m_shellRead) {
        m_shellRead = true;
        if (const Json *command = ShellParse::commandArgument(args))
            m_shell = command->is_string()
                ? ShellParse::parse(command->get_ref<const std::string &>(), cwd())
                : ShellParse::parseArgv(*command, cwd());
    }
    return m_shell ? &*m_shell : nullptr;
}

const QString &CallScratch::utf16(const std::string &text)
{
    for (const auto &[key, value] : m_utf16)
        if (key == &text)
            return value;
    return m_utf16.emplace_front(&text, toQString(text)).second;
}

const std::string &cwdRef(const Json &context)
{
    static const std::string none;
    if (context.is_object()) {
        auto it = context.find("cwd");
        if (it != context.end() && it->is_string())
            return it->get_ref<const std::string &>();
    }
    return none;
}

std::string cwdOf(const Json &context)
{
    if (context.is_object()) {
        auto it = context.find("cwd");
        if (it != context.end() && it->is_string())
            return it->get<std::string>();
    }
    return {};
}

namespace {

std::string requireString(const Json &v, const std::string &path)
{
    if (!v.is_string())
        throw SpecError(path, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
}

} // namespace

ValueMatcher ValueMatcher::compile(const Json &spec, const std::string &path)
{
    ValueMatcher m;
    if (!spec.is_object()) {
        // A bare value is shorthand for {"equals": value}.
        m.m_equals = spec;
        return m;
    }
    if (spec.empty())
        throw SpecError(path,
            "empty matcher (expected one of: equals, glob, regex, prefix, path_under, min, max, "
            "exists)");
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        const std::string &op = it.key();
        const std::string at = path + "." + op;
        const Json &v = it.value();
        if (op == "comment" && isComment(v)) {
            continue;
        } else if (op == "equals") {
            m.m_equals = v;
        } else if (op == "glob") {
            m.m_glob = Glob::compile(requireString(v, at), GlobMode::Path);
        } else if (op == "regex") {
            m.m_regex = Regex::compile(requireString(v, at), at);
        } else if (op == "prefix") {
            m.m_prefix = requireString(v, at);
        } else if (op == "exists") {
            if (!v.is_boolean())
                throw SpecError(at, std::string("expected true or false, got ") + v.type_name());
            m.m_exists = v.get<bool>();
        } else if (op == "min" || op == "max") {
            if (!v.is_number())
                throw SpecError(at, std::string("expected a number, got ") + v.type_name());
            (op == "min" ? m.m_min : m.m_max) = v.get<double>();
        } else if (op == "path_under") {
            const Json list = v.is_array() ? v : Json::array({ v });
            for (std::size_t i = 0; i < list.size(); ++i) {
                const std::string base = requireString(
                    list[i], v.is_array() ? at + "[" + std::to_string(i) + "]" : at);
                if (base.empty() || (base[0] != '/' && base[0] != '~'))
                    throw SpecError(at,
                        "expected an absolute path or one starting with ~, got "
                            + dumpJson(list[i]));
                m.m_pathUnder.push_back(normalizePath(base, "/"));
            }
        } else {
            throw SpecError(path,
                "unknown matcher \"" + op
                    + "\" (expected one of: equals, glob, regex, prefix, path_under, min, max, "
                      "exists)");
        }
    }
    return m;
}

bool ValueMatcher::matches(const Json *value, const std::string &cwd) const
{
    CallScratch scratch(cwd);
    return matches(value, scratch);
}

bool ValueMatcher::matches(const Json *value, CallScratch &scratch) const
{
    if (m_exists && (value != nullptr) != *m_exists)
        return false;
    if (!value)
        return !m_equals && !m_glob && !m_regex && !m_prefix && !m_min && !m_max
            && m_pathUnder.empty();
    if (m_equals && *value != *m_equals)
        return false;
    if (m_min || m_max) {
        if (!value->is_number())
            return false;
        const double d = value->get<double>();
        if ((m_min && d < *m_min) || (m_max && d > *m_max))
            return false;
    }
    if (m_glob || m_regex || m_prefix || !m_pathUnder.empty()) {
        if (!value->is_string())
            return false;
        const std::string &s = value->get_ref<const std::string &>();
        if (m_prefix && s.compare(0, m_prefix->size(), *m_prefix) != 0)
            return false;
        if (m_glob && !m_glob->matches(s))
            return false;
        if (m_regex
            && (!m_regex->mightMatch(s) || !m_regex->regex().match(scratch.utf16(s)).hasMatch()))
            return false;
        if (!m_pathUnder.empty()) {
            const std::string &p = scratch.normalized(s);
            bool under = false;
            for (const auto &base : m_pathUnder)
                under = under || isPathUnder(p, base);
            if (!under)
                return false;
        }
    }
    return true;
}

NameMatcher NameMatcher::compile(const Json &spec, const std::string &path)
{
    NameMatcher m;
    const Json list = spec.is_array() ? spec : Json::array({ spec });
    if (list.empty())
        throw SpecError(path, "expected a name, a glob or a non-empty list of them");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = spec.is_array() ? path + "[" + std::to_string(i) + "]" : path;
        const std::string s = requireString(list[i], at);
        if (s.empty())
            throw SpecError(at, "expected a non-empty name or glob");
        if (s.find_first_of("*?") == std::string::npos)
            m.m_exact.push_back(s);
        else
            m.m_patterns.push_back(Glob::compile(s, GlobMode::Text));
    }
    return m;
}

bool NameMatcher::matches(const std::string &name) const
{
    for (const auto &e : m_exact)
        if (e == name)
            return true;
    for (const auto &p : m_patterns)
        if (p.matches(name))
            return true;
    return false;
}

} // namespace holdpoint
