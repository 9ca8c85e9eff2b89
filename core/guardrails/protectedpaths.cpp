// SPDX-License-Identifier: Apache-2.0
#include "protectedpaths.h"

#include <algorithm>
#include <optional>

namespace holdpoint {

std::vector<std::string> ProtectedPathsGuardrail::defaultKeys()
{
    return { "path", "file_path", "filepath", "filename", "notebook_path", "target", "destination",
        "dest", "source", "src", "dir", "directory", "cwd" };
}

ProtectedPathsGuardrail::ProtectedPathsGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "paths", "action", "keys" });
    m_action = *actionFromName(spec.oneOf("action", { "deny", "ask", "halt" }, "deny"));
    const Json &paths = spec.array("paths");
    if (paths.empty())
        spec.fail("paths", "expected at least one path or glob");
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string at = spec.pathOf("paths") + "[" + std::to_string(i) + "]";
        if (!paths[i].is_string() || paths[i].get_ref<const std::string &>().empty())
            throw SpecError(
                at, std::string("expected a path or glob, got ") + paths[i].type_name());
        const std::string p = paths[i].get<std::string>();
        if (p[0] != '/' && p[0] != '~')
            throw SpecError(
                at, "expected an absolute path or one starting with ~, got \"" + p + "\"");
        Pattern pattern { p, std::nullopt, {} };
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
                throw SpecError(
                    spec.pathOf("keys") + "[" + std::to_string(i) + "]", "expected a string");
            addKey((*keys)[i].get<std::string>());
        }
    } else {
        for (const std::string &key : defaultKeys())
            addKey(key);
    }
}

void ProtectedPathsGuardrail::addKey(const std::string &key)
{
    if (isKey(key))
        return;
    m_keys.push_back(key);
    m_keyLengths |= std::uint64_t(1) << std::min<std::size_t>(key.size(), 63);
}

bool ProtectedPathsGuardrail::isKey(const std::string &key) const
{
    if (!(m_keyLengths & (std::uint64_t(1) << std::min<std::size_t>(key.size(), 63))))
        return false;
    return std::find(m_keys.begin(), m_keys.end(), key) != m_keys.end();
}

bool ProtectedPathsGuardrail::protectedPath(
    const std::string &normalized, const Pattern **which) const
{
    for (const Pattern &p : m_patterns) {
        if (p.glob ? p.glob->matches(normalized) : isPathUnder(normalized, p.base)) {
            *which = &p;
            return true;
        }
    }
    return false;
}

// The first protected path under a path-like key anywhere in `node`, in the
// order a depth-first walk meets them.
std::optional<Verdict> ProtectedPathsGuardrail::find(
    const Json &node, const std::string &cwd, const GuardContext &context) const
{
    if (node.is_object()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (isKey(it.key())) {
                auto check = [&](const Json &v) -> std::optional<Verdict> {
                    if (!v.is_string())
                        return std::nullopt;
                    const std::string &value = v.get_ref<const std::string &>();
                    // Most paths are normal already: no copy to compare them.
                    std::string built;
                    const bool normal = isNormalPath(value);
                    if (!normal)
                        built = normalizePath(value, cwd);
                    const Pattern *p = nullptr;
                    if (!protectedPath(normal ? value : built, &p))
                        return std::nullopt;
                    std::string normalized = normal ? value : std::move(built);
                    // Quoted with its secrets masked: normalizing may change
                    // a secret (a URL's "//") past what masking recognises.
                    const std::string quoted = context.masked(value);
                    if (quoted != value)
                        normalized = normalizePath(quoted, cwd);
                    Verdict verdict = Verdict::make(m_action, "protected_path",
                        it.key() + " " + quoted + " is protected (" + p->text + ")");
                    verdict.metadata = { { "key", it.key() }, { "path", std::move(normalized) },
                        { "pattern", p->text } };
                    return verdict;
                };
                if (it->is_array()) {
                    for (const auto &e : *it)
                        if (auto found = check(e))
                            return found;
                } else if (auto found = check(*it)) {
                    return found;
                }
            }
            if (it->is_structured())
                if (auto found = find(*it, cwd, context))
                    return found;
        }
    } else if (node.is_array()) {
        for (const auto &e : node)
            if (e.is_structured())
                if (auto found = find(e, cwd, context))
                    return found;
    }
    return std::nullopt;
}

Verdict ProtectedPathsGuardrail::beforeCall(const CallView &call, const GuardContext &context)
{
    // Path-like keys anywhere in the arguments, e.g. edits[].file_path too.
    std::optional<Verdict> found = find(call.args, cwdRef(call.context), context);
    return found ? std::move(*found) : Verdict::pass();
}

} // namespace holdpoint
