// SPDX-License-Identifier: Apache-2.0
#include "queuefilter.h"

#include <algorithm>
#include <cctype>

namespace holdpoint {

namespace {

std::string lower(std::string s)
{
    std::transform(
        s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool nameHas(const std::string &tool, std::initializer_list<const char *> words)
{
    return std::any_of(words.begin(), words.end(),
        [&](const char *w) { return tool.find(w) != std::string::npos; });
}

} // namespace

std::string queueSearchText(const QueueItem &item)
{
    std::string s;
    s.reserve(256);
    s += item.agent.name;
    s += '\n';
    s += item.agent.framework;
    s += '\n';
    s += item.toolName;
    s += '\n';
    s += item.reason;
    s += '\n';
    s += item.sessionId;
    s += '\n';
    s += item.callId;
    s += '\n';
    for (const protocol::Warning &w : item.warnings) {
        s += w.message;
        s += '\n';
    }
    for (const protocol::TurnFinding &f : item.turnFindings) {
        s += "loop " + f.pattern + ' ' + protocol::turnFindingHint(f);
        s += '\n';
    }
    // The args as shown, bounded: a filter is for finding, not for reading
    // megabytes.
    std::string args = dumpJson(item.masked(item.proposedArgs.value_or(item.args)));
    if (args.size() > 2048)
        args.resize(2048);
    s += args;
    // A reason or a warning may quote the args: the filter must not find
    // a secret the person would have to reveal to see.
    return lower(maskText(std::move(s), item.redactions));
}

ItemSignals itemSignals(const QueueItem &item)
{
    ItemSignals out;
    auto hint = [&](const char *name) {
        const auto it
            = item.annotations.is_object() ? item.annotations.find(name) : item.annotations.end();
        return item.annotations.is_object() && it != item.annotations.end() && it->is_boolean()
            && it->get<bool>();
    };
    out.destructive = hint("destructiveHint");
    out.openWorld = hint("openWorldHint");
    out.readOnly = hint("readOnlyHint");
    for (const Json &v : item.trail) {
        const std::string code = v.value("code", std::string());
        out.secrets = out.secrets || code == "secret_detected";
        out.protectedPath = out.protectedPath || code == "protected_path";
        if (out.askedBy.empty() && v.value("action", std::string()) == "ask") {
            out.askedBy = v.value("guardrail", std::string());
            out.askReason = v.value("reason", std::string());
            out.askCode = v.value("code", std::string());
        }
    }
    for (const Redaction &r : item.redactions)
        if (std::find(out.secretKinds.begin(), out.secretKinds.end(), r.kind)
            == out.secretKinds.end())
            out.secretKinds.push_back(r.kind);
    for (const protocol::Warning &w : item.warnings)
        ++(w.guardrail == "loop_detection" ? out.loopWarnings : out.otherWarnings);
    out.turnFindings = item.turnFindings;
    out.hiddenText = item.hiddenText;
    return out;
}

int riskScore(const QueueItem &item)
{
    const ItemSignals s = itemSignals(item);
    int score = 0;
    if (s.destructive)
        score += 30;
    if (s.openWorld)
        score += 10;
    if (s.readOnly)
        score -= 20;
    if (s.hiddenText != 0)
        score += 30;
    if (s.secrets)
        score += 25;
    if (s.protectedPath)
        score += 25;
    score += 15 * s.loopWarnings + 5 * s.otherWarnings;
    for (const protocol::TurnFinding &f : s.turnFindings)
        score += f.count >= f.stopAt ? 30 : 15;
    const std::string tool = lower(item.toolName);
    if (nameHas(tool,
            { "bash", "shell", "exec", "run", "terminal", "rm", "delete", "remove", "push",
                "deploy", "drop", "kill" }))
        score += 20;
    else if (nameHas(
                 tool, { "write", "edit", "create", "update", "move", "rename", "post", "send" }))
        score += 10;
    return std::clamp(score, 0, 100);
}

void QueueFilter::setText(std::string_view text)
{
    m_text = std::string(text);
    m_words.clear();
    std::string word;
    for (char c : lower(m_text) + " ") {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!word.empty())
                m_words.push_back(std::move(word));
            word.clear();
        } else {
            word += c;
        }
    }
}

bool QueueFilter::matches(const QueueItem &item) const
{
    for (const std::string &w : m_words)
        if (item.searchText.find(w) == std::string::npos)
            return false;
    return true;
}

} // namespace holdpoint
