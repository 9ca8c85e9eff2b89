#include "protectedpaths.h"

#include <functional>

namespace holdpoint {

std::vector<std::string> ProtectedPathsGuardrail::defaultKeys()
{
    return {"path", "file_path", "filepath", "filename", "notebook_path", "target", "destination", "dest",
            "source", "src", "dir", "directory", "cwd"};
}

ProtectedPathsGuardrail::ProtectedPathsGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({"type", "name", "fail_open", "budget_ms", "paths", "action", "keys"});
    m_action = *actionFromName(spec.oneOf("action", {"deny", "ask", "halt"}, "deny"));
    const Json &paths = spec.array("paths");
    if (paths.empty())
        spec.fail("paths", "expected at least one path or glob");
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string at = spec.pathOf("paths") + "[" + std::to_string(i) + "]";
        if (!paths[i].is_string() || paths[i].get_ref<const std::string &>().empty())
            throw SpecError(at, std::string("expected a path or glob, got ") + paths[i].type_name());
        const std::string p = paths[i].get<std::string>();
        if (p[0] != '/' && p[0] != '~')
            throw SpecError(at, "expected an absolute path or one starting with ~, got \"" + p + "\"");
        Pattern pattern {p, std::nullopt, {}};
        if (p.find_first_of("*?") != std::string::npos) {
            std::string expanded = p;
            if (expanded[0] == '~')
                expanded = normalizePath("~", "/") + expanded.substr(1);
            pattern.glob = Glob::compile(expanded, GlobMode::Path);
        } else {
            pattern.base = normalizePath(p, "/");
        }
        m_patterns.push_back(std::move(pattern));
    }
    if (const Json *keys = spec.optional("keys")) {
        if (!keys->is_array() || keys->empty())
            spec.fail("keys", "expected a non-empty array of argument names");
        for (std::size_t i = 0; i < keys->size(); ++i) {
            if (!(*keys)[i].is_string())
                throw SpecError(spec.pathOf("keys") + "[" + std::to_string(i) + "]", "expected a string");
            m_keys.insert((*keys)[i].get<std::string>());
        }
    } else {
        const auto d = defaultKeys();
        m_keys.insert(d.begin(), d.end());
    }
}

bool ProtectedPathsGuardrail::protectedPath(const std::string &normalized, const Pattern **which) const
{
    for (const Pattern &p : m_patterns) {
        if (p.glob ? p.glob->matches(normalized) : isPathUnder(normalized, p.base)) {
            *which = &p;
            return true;
        }
    }
    return false;
}

Verdict ProtectedPathsGuardrail::beforeCall(const CallView &call, const GuardContext &)
{
    const std::string cwd = cwdOf(call.context);
    // Path-like keys anywhere in the arguments, e.g. edits[].file_path too.
    std::optional<Verdict> found;
    std::function<void(const Json &)> walk = [&](const Json &node) {
        if (found)
            return;
        if (node.is_object()) {
            for (auto it = node.begin(); it != node.end() && !found; ++it) {
                if (m_keys.contains(it.key())) {
                    auto check = [&](const Json &v) {
                        if (found || !v.is_string())
                            return;
                        const std::string normalized = normalizePath(v.get<std::string>(), cwd);
                        const Pattern *p = nullptr;
                        if (protectedPath(normalized, &p)) {
                            Verdict verdict = Verdict::make(m_action, "protected_path",
                                                            it.key() + " " + v.get<std::string>() + " is protected ("
                                                                + p->text + ")");
                            verdict.metadata = {{"key", it.key()}, {"path", normalized}, {"pattern", p->text}};
                            found = std::move(verdict);
                        }
                    };
                    if (it->is_array())
                        for (const auto &e : *it)
                            check(e);
                    else
                        check(*it);
                }
                walk(*it);
            }
        } else if (node.is_array()) {
            for (const auto &e : node)
                walk(e);
        }
    };
    walk(call.args);
    return found ? std::move(*found) : Verdict::pass();
}

} // namespace holdpoint
