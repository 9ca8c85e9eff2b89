#include "matchers.h"

#include <QDir>
#include <QUrl>

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
    QRegularExpression compiled(QRegularExpression::anchoredPattern(re), QRegularExpression::DotMatchesEverythingOption);
    compiled.optimize();
    return compiled;
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

bool isPathUnder(const std::string &p, const std::string &base)
{
    if (base == "/")
        return true;
    return p == base || (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '/');
}

namespace {

template<typename J>
J *jsonAtImpl(J &root, const std::string &dotted)
{
    J *cur = &root;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (cur->is_object()) {
            auto it = cur->find(key);
            if (it == cur->end())
                return nullptr;
            cur = &*it;
        } else if (cur->is_array() && !key.empty() && key.size() < 10
                   && key.find_first_not_of("0123456789") == std::string::npos) {
            const std::size_t index = std::stoul(key);
            if (index >= cur->size())
                return nullptr;
            cur = &(*cur)[index];
        } else {
            return nullptr;
        }
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

QRegularExpression compileRegex(const std::string &pattern, const std::string &path)
{
    QRegularExpression re(toQString(pattern));
    if (!re.isValid())
        throw SpecError(path, "invalid regex: " + re.errorString().toStdString() + " at offset "
                                  + std::to_string(re.patternErrorOffset()));
    re.optimize();
    return re;
}

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
        throw SpecError(path, "empty matcher (expected one of: equals, glob, regex, prefix, path_under, min, max, exists)");
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        const std::string &op = it.key();
        const std::string at = path + "." + op;
        const Json &v = it.value();
        if (op == "comment" && isComment(v)) {
            continue;
        } else if (op == "equals") {
            m.m_equals = v;
        } else if (op == "glob") {
            m.m_glob = compileGlob(requireString(v, at), GlobMode::Path);
        } else if (op == "regex") {
            m.m_regex = compileRegex(requireString(v, at), at);
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
            const Json list = v.is_array() ? v : Json::array({v});
            for (std::size_t i = 0; i < list.size(); ++i) {
                const std::string base = requireString(list[i], v.is_array() ? at + "[" + std::to_string(i) + "]" : at);
                if (base.empty() || (base[0] != '/' && base[0] != '~'))
                    throw SpecError(at, "expected an absolute path or one starting with ~, got " + dumpJson(list[i]));
                m.m_pathUnder.push_back(normalizePath(base, "/"));
            }
        } else {
            throw SpecError(path, "unknown matcher \"" + op
                                      + "\" (expected one of: equals, glob, regex, prefix, path_under, min, max, exists)");
        }
    }
    return m;
}

bool ValueMatcher::matches(const Json *value, const std::string &cwd) const
{
    if (m_exists && (value != nullptr) != *m_exists)
        return false;
    if (!value)
        return !m_equals && !m_glob && !m_regex && !m_prefix && !m_min && !m_max && m_pathUnder.empty();
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
        if (m_glob && !m_glob->match(toQString(s)).hasMatch())
            return false;
        if (m_regex && !m_regex->match(toQString(s)).hasMatch())
            return false;
        if (!m_pathUnder.empty()) {
            const std::string p = normalizePath(s, cwd);
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
    const Json list = spec.is_array() ? spec : Json::array({spec});
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
            m.m_patterns.push_back(compileGlob(s, GlobMode::Text));
    }
    return m;
}

bool NameMatcher::matches(const std::string &name) const
{
    for (const auto &e : m_exact)
        if (e == name)
            return true;
    if (m_patterns.empty())
        return false;
    const QString n = toQString(name);
    for (const auto &p : m_patterns)
        if (p.match(n).hasMatch())
            return true;
    return false;
}

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
    } else {
        m.m_tool = compileGlob(tool, GlobMode::Text);
        m.m_tool.setPatternOptions(m.m_tool.patternOptions() | QRegularExpression::CaseInsensitiveOption);
    }
    if (open == std::string::npos)
        return m;
    if (rule.back() != ')')
        throw SpecError(path, "missing \")\" in \"" + rule + "\" (expected Tool(specifier))");
    std::string spec = rule.substr(open + 1, rule.size() - open - 2);
    if (spec.empty() || spec == "*")
        return m;
    const std::string kind = QString::fromStdString(tool).toLower().toStdString();
    if (kind == "bash") {
        if (spec.size() > 2 && spec.ends_with(":*")) {
            m.m_kind = Kind::CommandPrefix;
            m.m_text = spec.substr(0, spec.size() - 2);
        } else {
            m.m_kind = Kind::Command;
            m.m_spec = compileGlob(spec, GlobMode::Text);
        }
    } else if (kind == "read" || kind == "write" || kind == "edit" || kind == "multiedit" || kind == "notebookedit"
               || kind == "glob" || kind == "grep" || kind == "ls") {
        m.m_kind = Kind::Path;
        // Claude Code writes absolute paths as //path; a single / is taken as absolute too.
        if (spec.starts_with("//"))
            spec.erase(0, 1);
        m.m_spec = compileGlob(expandHome(spec), GlobMode::Path);
    } else if (kind == "webfetch" && spec.starts_with("domain:")) {
        m.m_kind = Kind::Domain;
        m.m_text = QString::fromStdString(spec.substr(7)).toLower().toStdString();
    } else {
        m.m_kind = Kind::AnyString;
        m.m_spec = compileGlob(spec, GlobMode::Text);
    }
    return m;
}

bool CompactMatcher::matches(const std::string &toolName, const Json &args, const std::string &cwd) const
{
    if (!m_toolExact.empty()) {
        if (toolName.size() != m_toolExact.size()
            || !std::equal(toolName.begin(), toolName.end(), m_toolExact.begin(),
                           [](char a, char b) { return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b; }))
            return false;
    } else if (!m_tool.match(toQString(toolName)).hasMatch()) {
        return false;
    }
    auto stringArg = [&](std::initializer_list<const char *> keys) -> std::optional<std::string> {
        for (const char *k : keys) {
            auto it = args.find(k);
            if (it != args.end() && it->is_string())
                return it->get<std::string>();
        }
        return std::nullopt;
    };
    switch (m_kind) {
    case Kind::ToolOnly:
        return true;
    case Kind::Command:
    case Kind::CommandPrefix: {
        const auto cmd = stringArg({"command"});
        if (!cmd)
            return false;
        return m_kind == Kind::CommandPrefix ? cmd->compare(0, m_text.size(), m_text) == 0
                                             : m_spec.match(toQString(*cmd)).hasMatch();
    }
    case Kind::Path: {
        const auto p = stringArg({"file_path", "path", "notebook_path"});
        return p && m_spec.match(toQString(normalizePath(*p, cwd))).hasMatch();
    }
    case Kind::Domain: {
        const auto url = stringArg({"url"});
        if (!url)
            return false;
        const std::string host = QUrl(toQString(*url)).host().toLower().toStdString();
        return host == m_text || (host.size() > m_text.size() && host.ends_with("." + m_text));
    }
    case Kind::AnyString:
        for (auto it = args.begin(); it != args.end(); ++it)
            if (it->is_string() && m_spec.match(toQString(it->get<std::string>())).hasMatch())
                return true;
        return false;
    }
    return false;
}

} // namespace holdpoint
