// SPDX-License-Identifier: Apache-2.0
#include "alwaysrule.h"

#include "audit/auditfile.h"
#include "guardrails/chain.h"
#include "policy/policy.h"
#include "replay/history.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace holdpoint {

bool addRuleToPolicyFile(const QString &path, const Json &rule, QString *error)
{
    // Ordered, so the file keeps the order its author gave it.
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    QFile in(path);
    if (in.exists()) {
        if (!in.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: %2").arg(path, in.errorString());
            return false;
        }
        const QByteArray bytes = in.readAll();
        doc = nlohmann::ordered_json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (!doc.is_object()) {
            *error = QStringLiteral("%1: not a JSON object; fix the file before adding rules to it")
                         .arg(path);
            return false;
        }
    } else {
        doc["version"] = 1;
        doc["comment"]
            = "Rules added from the Holdpoint console. Loaded after the built-in default policy.";
    }
    if (!doc.contains("guardrails"))
        doc["guardrails"] = nlohmann::ordered_json::array();
    auto &guardrails = doc["guardrails"];
    if (!guardrails.is_array()) {
        *error = QStringLiteral("%1: guardrails: expected an array").arg(path);
        return false;
    }
    auto console = std::find_if(guardrails.begin(), guardrails.end(), [](const auto &g) {
        return g.is_object() && g.value("type", std::string()) == "rules"
            && g.value("name", std::string()) == "console";
    });
    if (console == guardrails.end()) {
        nlohmann::ordered_json g = nlohmann::ordered_json::object();
        g["type"] = "rules";
        g["name"] = "console";
        g["comment"] = "Decisions a reviewer made \"always\" in the console; first match wins.";
        g["rules"] = nlohmann::ordered_json::array();
        guardrails.insert(guardrails.begin(), std::move(g));
        console = guardrails.begin();
    }
    auto &rules = (*console)["rules"];
    rules.insert(rules.begin(), nlohmann::ordered_json::parse(dumpJson(rule)));
    const std::string text = doc.dump(2) + "\n";

    // Only a file that loads may replace the one in force.
    const PolicyResult check = parsePolicy(text, path);
    if (!check.policy) {
        *error = check.error;
        return false;
    }
    QSaveFile out(path);
    const bool created = !QFileInfo::exists(path);
    if (!out.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("%1: %2").arg(path, out.errorString());
        return false;
    }
    // A policy file this makes is the user's alone, like the rest of the
    // data dir (which --agent-group opens to agents by name); an existing
    // one keeps its mode.
    if (created)
        out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    out.write(QByteArray::fromStdString(text));
    if (!out.commit()) {
        *error = QStringLiteral("%1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

std::vector<Json> pastMatches(
    const QString &auditDir, const Json &rule, std::size_t limit, std::size_t scanned)
{
    std::vector<Json> out;
    Json withoutComment = rule;
    withoutComment.erase("comment");
    const PolicyResult p = parsePolicy(
        dumpJson(Json { { "version", 1 }, { "default", "ask" },
            { "guardrails", { { { "type", "rules" }, { "rules", { withoutComment } } } } } }),
        QStringLiteral("proposed rule"));
    if (!p.policy)
        return out;
    const std::string action = rule.value("action", std::string());
    audit::Filter calls;
    calls.event = "call";
    audit::query(auditDir, calls, scanned, [&](std::string_view, const Json &r) {
        const replay::RecordedCall call = replay::callFromRecord(r);
        const ChainOutcome o
            = p.policy->chain->beforeCall(call.view(), { 0 }, p.policy->defaultAction);
        if ((action == "allow" && o.action == Action::Allow)
            || (action == "deny" && o.action == Action::Deny))
            out.push_back(r);
        return out.size() < limit;
    });
    return out;
}

} // namespace holdpoint
