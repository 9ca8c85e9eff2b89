// SPDX-License-Identifier: Apache-2.0
#include "secrets.h"

#include <optional>

namespace holdpoint {

namespace {

constexpr std::size_t MinSecretLength = 6; // masking shorter values would garble what people read

QRegularExpression compiled(const QString &pattern)
{
    QRegularExpression re(pattern);
    re.optimize();
    return re;
}

// A built-in detector with the literal text every match of it contains.
Regex detector(const QString &pattern, std::vector<std::string> anyOf, bool caseInsensitive = false)
{
    return Regex(compiled(pattern), std::move(anyOf), caseInsensitive);
}

} // namespace

SecretsGuardrail::SecretsGuardrail(std::string name, const SpecReader &spec)
    : m_name(std::move(name))
    // Every alternative contains secret, passw, key or token.
    , m_credentialKey(
          compiled(QStringLiteral(
              R"((?i)(secret|passw(or)?d|passwd|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|client[_-]?secret|^token$))")),
          { "secret", "passw", "key", "token" }, /*caseInsensitive=*/true)
{
    spec.onlyKeys({ "type", "name", "fail_open", "budget_ms", "action", "builtin",
        "credential_keys", "patterns" });
    m_action = *actionFromName(spec.oneOf("action", { "ask", "deny", "halt", "warn" }, "ask"));
    if (spec.boolean("builtin", true)) {
        m_detectors = {
            { "aws_access_key_id",
                detector(QStringLiteral(R"(\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b)"),
                    { "AKIA", "ASIA", "ABIA", "ACCA" }) },
            { "private_key",
                detector(
                    QStringLiteral(
                        R"((-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|[\s\S]*)))"),
                    { "-----BEGIN " }) },
            { "github_token",
                detector(
                    QStringLiteral(
                        R"(\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b)"),
                    { "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_" }) },
            { "slack_token",
                detector(QStringLiteral(R"(\b(xox[abposre]-[A-Za-z0-9-]{10,}))"), { "xox" }) },
            { "slack_webhook",
                detector(QStringLiteral(R"((https://hooks\.slack\.com/services/[A-Za-z0-9_/]+))"),
                    { "https://hooks.slack.com/services/" }) },
            { "jwt",
                detector(
                    QStringLiteral(
                        R"(\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}))"),
                    { "eyJ" }) },
            { "bearer_token",
                detector(QStringLiteral(R"((?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*))"),
                    { "bearer" }, /*caseInsensitive=*/true) },
        };
    }
    m_credentialKeys = spec.boolean("credential_keys", true);
    if (const Json *patterns = spec.optional("patterns")) {
        if (!patterns->is_array())
            spec.fail("patterns",
                std::string("expected an array of {name, regex}, got ") + patterns->type_name());
        for (std::size_t i = 0; i < patterns->size(); ++i) {
            const SpecReader p(
                (*patterns)[i], spec.pathOf("patterns") + "[" + std::to_string(i) + "]");
            p.onlyKeys({ "name", "regex" });
            const std::string kind = p.string("name");
            // Compiled as a rule's regex is: checked, and with the literal
            // a match must start with as its prefilter.
            m_detectors.push_back({ kind, Regex::compile(p.string("regex"), p.pathOf("regex")) });
        }
    }
}

void SecretsGuardrail::scanString(
    const std::string &text, const std::string &path, std::vector<Finding> *out) const
{
    std::optional<QString> q; // converted for the first detector that might match
    const ByteSet bytes(text);
    for (const Detector &d : m_detectors) {
        if (!d.regex.mightMatch(text, bytes))
            continue;
        if (!q)
            q = toQString(text);
        const QRegularExpression &re = d.regex.regex();
        for (auto it = re.globalMatch(*q); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const QString secret
                = re.captureCount() >= 1 && m.capturedLength(1) > 0 ? m.captured(1) : m.captured(0);
            const std::string s = secret.toStdString();
            if (s.size() >= MinSecretLength)
                out->push_back({ d.kind, path, s });
        }
    }
}

// `path` is a buffer: each level appends its part and takes it off again.
void SecretsGuardrail::walk(
    const Json &node, std::string &path, const std::string &key, std::vector<Finding> *out) const
{
    if (node.is_string()) {
        const std::string &s = node.get_ref<const std::string &>();
        const std::size_t before = out->size();
        scanString(s, path, out);
        // A value under a credential-like key is a secret whatever it looks like.
        if (out->size() == before && m_credentialKeys && s.size() >= MinSecretLength
            && m_credentialKey.mightMatch(key, ByteSet(key))
            && m_credentialKey.regex().match(toQString(key)).hasMatch())
            out->push_back({ "credential", path, s });
    } else if (node.is_object()) {
        const std::size_t length = path.size();
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (!it->is_string() && !it->is_structured())
                continue; // nothing to find in a number, a boolean or null
            if (length)
                path += '.';
            path += it.key();
            walk(it.value(), path, it.key(), out);
            path.resize(length);
        }
    } else if (node.is_array()) {
        const std::size_t length = path.size();
        for (std::size_t i = 0; i < node.size(); ++i) {
            path += '.';
            path += std::to_string(i);
            walk(node[i], path, key, out);
            path.resize(length);
        }
    }
}

std::vector<SecretsGuardrail::Finding> SecretsGuardrail::scan(const Json &args) const
{
    std::vector<Finding> out;
    std::string path;
    walk(args, path, {}, &out);
    return out;
}

namespace {

std::vector<Redaction> toRedactions(std::vector<SecretsGuardrail::Finding> findings)
{
    std::vector<Redaction> out;
    int n = 0;
    for (SecretsGuardrail::Finding &f : findings) {
        const bool known = std::any_of(
            out.begin(), out.end(), [&](const Redaction &r) { return r.secret == f.secret; });
        if (!known)
            out.push_back({ std::move(f.secret),
                "[secret:" + f.kind + ":" + std::to_string(++n) + "]", f.kind });
    }
    return out;
}

} // namespace

std::vector<Redaction> SecretsGuardrail::redactions(const CallView &call) const
{
    return toRedactions(scan(call.args));
}

Verdict SecretsGuardrail::beforeCall(const CallView &call, const GuardContext &)
{
    std::vector<Finding> findings = scan(call.args);
    if (findings.empty())
        return Verdict::pass();
    // The reason names kinds and places, never the values.
    std::string where;
    Json list = Json::array();
    for (const Finding &f : findings) {
        if (!where.empty())
            where += ", ";
        where += f.kind + " in " + (f.path.empty() ? std::string("args") : f.path);
        list.push_back({ { "kind", f.kind }, { "path", f.path } });
    }
    Verdict v = Verdict::make(m_action, "secret_detected", "arguments contain secrets: " + where);
    v.metadata = { { "findings", std::move(list) } };
    v.redactions = toRedactions(findings);
    return v;
}

} // namespace holdpoint
