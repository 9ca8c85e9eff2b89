// SPDX-License-Identifier: Apache-2.0
#include "policy.h"

#include "common/jsonparse.h"
#include "guardrails/registry.h"
#include "guardrails/spec.h"
#include "protocol/protocol.h"

#include <QFile>
#include <QFileInfo>

namespace holdpoint {

namespace {

constexpr qint64 MaxPolicyBytes = 4 * 1024 * 1024;

QString fail(const QString &file, const std::string &path, const std::string &message)
{
    if (path.empty())
        return file + QStringLiteral(": ") + toQString(message);
    return file + QStringLiteral(": ") + toQString(path) + QStringLiteral(": ")
        + toQString(message);
}

} // namespace

Policy::Policy()
    : chain(std::make_shared<GuardrailChain>())
{ }

QString defaultPolicyPath()
{
    return QStringLiteral(":/holdpoint/policies/default.json");
}

PolicyResult parsePolicy(std::string_view text, const QString &file, Policy base)
{
    PolicyResult r;
    if (protocol::nestingDepth(text, protocol::MaxDepth) > protocol::MaxDepth) {
        r.error = fail(
            file, {}, "nested deeper than " + std::to_string(protocol::MaxDepth) + " levels");
        return r;
    }
    Json doc;
    std::string parseError;
    if (!parseStrictJson(text, protocol::MaxDepth, &doc, &parseError)) {
        r.error = fail(file, {}, "invalid JSON: " + parseError);
        return r;
    }
    if (!doc.is_object()) {
        r.error = fail(file, {}, std::string("expected a JSON object, got ") + doc.type_name());
        return r;
    }
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        const std::string &key = it.key();
        const Json &v = it.value();
        if (key == "version") {
            if (!v.is_number_integer() || v.get<long long>() != 1) {
                r.error = fail(file, key, "unsupported version " + dumpJson(v) + " (expected 1)");
                return r;
            }
        } else if (key == "comment") {
            if (!isComment(v)) {
                r.error = fail(file, key,
                    std::string("expected a string or a list of strings, got ") + v.type_name());
                return r;
            }
        } else if (key == "description") {
            if (!v.is_string()) {
                r.error = fail(file, key, std::string("expected a string, got ") + v.type_name());
                return r;
            }
        } else if (key == "default") {
            const std::string s = v.is_string() ? v.get<std::string>() : std::string();
            if (s == "ask")
                base.defaultAction = DefaultAction::Ask;
            else if (s == "allow")
                base.defaultAction = DefaultAction::Allow;
            else if (s == "deny")
                base.defaultAction = DefaultAction::Deny;
            else {
                r.error = fail(file, key,
                    "unknown action " + dumpJson(v) + " (expected one of: ask, allow, deny)");
                return r;
            }
        } else if (key == "default_approvals") {
            try {
                base.defaultApprovals = readApprovals(v, key);
            } catch (const SpecError &e) {
                r.error = fail(file, e.path, e.what());
                return r;
            }
        } else if (key == "turn_off") {
            // Built-in guardrails a policy may turn off, by name, each with
            // the reason the console shows while it is off.
            if (!v.is_object()) {
                r.error = fail(file, key,
                    std::string("expected an object of built-in guardrail names to reasons, got ")
                        + v.type_name());
                return r;
            }
            for (auto t = v.begin(); t != v.end(); ++t) {
                if (t.key() != SelfGuardGuardrail::Name) {
                    r.error = fail(file, key + "." + t.key(),
                        "unknown built-in guardrail (expected: self_guard)");
                    return r;
                }
                if (!t->is_string()
                    || t->get_ref<const std::string &>().find_first_not_of(" \t")
                        == std::string::npos) {
                    r.error = fail(file, key + "." + t.key(),
                        "expected the reason it is off, a non-empty string the console shows");
                    return r;
                }
                base.selfGuardOff = t->get<std::string>();
                base.selfGuardOffFile = file;
            }
        } else if (key == "guardrails") {
            if (!v.is_array()) {
                r.error = fail(file, key, std::string("expected an array, got ") + v.type_name());
                return r;
            }
            for (std::size_t i = 0; i < v.size(); ++i) {
                try {
                    ChainEntry entry
                        = createGuardrail(v[i], "guardrails[" + std::to_string(i) + "]");
                    const std::string_view name = entry.guardrail->name();
                    if (name == SelfGuardGuardrail::Name)
                        throw SpecError("guardrails[" + std::to_string(i) + "].name",
                            "\"self_guard\" is the built-in guardrail's name (turn it off with "
                            "\"turn_off\": {\"self_guard\": \"<reason>\"})");
                    for (const ChainEntry &existing : base.chain->entries()) {
                        if (existing.guardrail->name() == name)
                            throw SpecError("guardrails[" + std::to_string(i) + "].name",
                                "duplicate name \"" + std::string(name)
                                    + "\" (give each guardrail its own \"name\")");
                    }
                    base.chain->add(std::move(entry));
                } catch (const SpecError &e) {
                    r.error = fail(file, e.path, e.what());
                    return r;
                }
            }
        } else {
            r.error = fail(file, key,
                "unknown key (expected one of: version, description, default, default_approvals, "
                "turn_off, guardrails)");
            return r;
        }
    }
    base.files << file;
    r.policy = std::move(base);
    return r;
}

Policy withSelfGuard(Policy policy, const SelfGuardContext &context)
{
    if (policy.selfGuardOff)
        return policy;
    auto chain = std::make_shared<GuardrailChain>();
    // First: it decides before any rule could allow the call.
    chain->add({ std::make_shared<SelfGuardGuardrail>(context), false,
        std::chrono::microseconds(100'000) });
    for (const ChainEntry &e : policy.chain->entries())
        chain->add(e);
    policy.chain = std::move(chain);
    return policy;
}

QString policyWarning(const Policy &policy)
{
    if (!policy.selfGuardOff)
        return {};
    return QStringLiteral(
        "The self-guard is off (%1): %2. Agents may read Holdpoint's reviewer credentials, "
        "change their hooks and run reviewer commands.")
        .arg(policy.selfGuardOffFile, toQString(*policy.selfGuardOff));
}

PolicyResult loadPolicyFiles(const QStringList &files)
{
    const QStringList paths = files.isEmpty() ? QStringList { defaultPolicyPath() } : files;
    Policy policy; // a fresh chain: a reload never touches the running one
    for (const QString &path : paths) {
        // Errors name the file as the user gave it; the built-in one by its source path.
        const QString label = path == defaultPolicyPath()
            ? QStringLiteral("resources/policies/default.json")
            : path;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            return { std::nullopt, label + QStringLiteral(": cannot read: ") + f.errorString() };
        }
        if (f.size() > MaxPolicyBytes)
            return { std::nullopt,
                label + QStringLiteral(": larger than %1 bytes").arg(MaxPolicyBytes) };
        const QByteArray bytes = f.readAll();
        PolicyResult r = parsePolicy(
            std::string_view(bytes.constData(), std::size_t(bytes.size())), label, policy);
        if (!r.policy)
            return r;
        policy = std::move(*r.policy);
    }
    return { std::move(policy), {} };
}

} // namespace holdpoint
