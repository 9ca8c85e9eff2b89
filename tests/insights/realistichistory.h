// SPDX-License-Identifier: Apache-2.0
#pragma once

// A week of four agents under resources/policies/coding-agent.json, for the
// Insights screenshot and a test at scale: a coding agent (reads, greps,
// tests, git, edits under src/), a CI agent, a docs agent and a research
// bot; two reviewers at work on weekdays, slower and sometimes absent
// otherwise; two "always" rules added during the week, after which their
// calls stop reaching a person. Seeded, so every run writes the same log.

#include "insights/insightshistory.h"

#include <QRandomGenerator>

#include <cmath>
#include <map>

namespace holdpoint::test {

namespace realistic {

inline constexpr TimeMs HourMs = 3'600'000;
inline constexpr TimeMs Day = 24 * HourMs;

struct Kind
{
    const char *tool;
    const char *arg; // the argument's key
    const char *value; // its value, %d replaced by a number
    double weight;
    const char *verdict; // "allow guardrail code", "deny …", "ask …", or "" for the default (ask)
    const char *always; // the always rule that takes it over once added ("lint", "src"), or ""
};

inline const std::vector<Kind> &coder()
{
    static const std::vector<Kind> k {
        { "Read", "file_path", "/home/alice/app/src/module%d.ts", 30, "allow coding read", "" },
        { "Grep", "pattern", "TODO|FIXME %d", 10, "allow coding read", "" },
        { "Glob", "pattern", "src/**/*%d.ts", 5, "allow coding read", "" },
        { "Bash", "command", "git status", 6, "allow coding git_read", "" },
        { "Bash", "command", "git diff src/module%d.ts", 5, "allow coding git_read", "" },
        { "Bash", "command", "npm test -- module%d", 8, "allow coding tests", "" },
        { "Bash", "command", "npm run lint -- src/module%d.ts", 6, "", "lint" },
        { "Edit", "file_path", "/home/alice/app/src/module%d.ts", 12, "", "src" },
        { "Write", "file_path", "/etc/hosts", 0.4, "ask coding absolute_write", "" },
        { "Bash", "command", "rm -rf node_modules dist%d", 0.8, "deny coding rm_rf", "" },
        { "Bash", "command", "npm install left-pad@1.%d.0", 2, "", "" },
        { "Bash", "command", "curl -s https://registry.example/pkg%d", 1.5, "", "" },
        { "Bash", "command", "git push --force origin fix-%d", 0.4, "ask coding force_push", "" },
        { "WebFetch", "url", "https://docs.example.dev/api/%d", 1.5, "ask coding network", "" },
        { "Bash", "command", "export AWS_SECRET_ACCESS_KEY=[secret:aws_secret:%d]", 0.3,
            "ask secrets secret_detected", "" },
    };
    return k;
}

inline const std::vector<Kind> &ci()
{
    static const std::vector<Kind> k {
        { "Bash", "command", "make -j2 target%d", 10, "allow coding build", "" },
        { "Bash", "command", "npm test -- --shard=%d", 10, "allow coding tests", "" },
        { "Read", "file_path", "/srv/ci/logs/run%d.log", 8, "allow coding read", "" },
        { "Bash", "command", "pip install -r requirements%d.txt", 2, "", "" },
        { "Write", "file_path", "/srv/ci/cache/artifact%d", 1.2,
            "ask protected_paths protected_path", "" },
        { "Bash", "command", "sudo systemctl restart runner%d", 0.3, "deny coding sudo", "" },
    };
    return k;
}

inline const std::vector<Kind> &docs()
{
    static const std::vector<Kind> k {
        { "Read", "file_path", "/home/alice/app/docs/page%d.md", 10, "allow coding read", "" },
        { "Edit", "file_path", "/home/alice/app/docs/page%d.md", 6, "", "" },
        { "WebFetch", "url", "https://developer.example/guide/%d", 2, "ask coding network", "" },
    };
    return k;
}

inline const std::vector<Kind> &research()
{
    static const std::vector<Kind> k {
        { "WebFetch", "url", "https://arxiv.example/abs/2411.%d", 6, "ask coding network", "" },
        { "mcp__github__create_issue", "title", "Follow-up %d", 1.5, "ask coding mcp", "" },
        { "Read", "file_path", "/home/alice/notes/topic%d.md", 3, "allow coding read", "" },
    };
    return k;
}

struct Agent
{
    const char *name;
    int fromHour, toHour; // UTC hours it works
    double perHour;
    bool weekends;
    const std::vector<Kind> &(*kinds)();
};

} // namespace realistic

// The week up to `end`.
inline History realisticHistory(TimeMs end)
{
    using namespace realistic;
    QRandomGenerator rng(46);
    const auto uniform = [&] { return rng.generateDouble(); };
    History h;
    const TimeMs start = (end - 7 * Day) / HourMs * HourMs;
    const Json lint { { "when", { { "tool", "Bash" }, { "agent", "claude-code" } } },
        { "match", "Bash(npm run lint:*)" }, { "action", "allow" }, { "code", "always_allowed" },
        { "reason", "always allowed by a reviewer" } };
    const Json src { { "when",
                         { { "tool", "Edit" }, { "agent", "claude-code" },
                             { "args",
                                 { { "file_path",
                                     { { "glob", "/home/alice/app/src/*" },
                                         { "path_under", "/home/alice/app/src" } } } } } } },
        { "action", "allow" }, { "code", "always_allowed" },
        { "reason", "always allowed by a reviewer" } };
    const TimeMs lintAdded = start + 1 * Day + 10 * HourMs;
    const TimeMs srcAdded = start + 3 * Day + 11 * HourMs;
    h.ruleAdded(lintAdded, lint);
    h.ruleAdded(srcAdded, src);
    const std::vector<Agent> agents { { "claude-code", 8, 19, 34, false, coder },
        { "codex-ci", 0, 24, 7, true, ci }, { "gemini-docs", 10, 16, 9, false, docs },
        { "research-bot", 12, 18, 5, true, research } };
    int serial = 0;
    std::map<std::string, std::string>
        docsGranted; // session: who approved its edits for the rest of it
    for (TimeMs hour = start; hour < end; hour += HourMs) {
        const int hourOfDay = int((hour % Day) / HourMs);
        const bool weekend
            = (hour / Day + 4) % 7 >= 5; // 1970-01-01 was a Thursday: 5, 6 are Saturday, Sunday
        const bool atWork = !weekend && hourOfDay >= 8 && hourOfDay < 19;
        for (const Agent &a : agents) {
            if (hourOfDay < a.fromHour || hourOfDay >= a.toHour || (weekend && !a.weekends))
                continue;
            const std::string session = std::string(a.name) + "-" + std::to_string(hour / Day);
            const int n = int(a.perHour * (0.4 + 1.2 * uniform()));
            const std::vector<Kind> &kinds = a.kinds();
            double total = 0;
            for (const Kind &k : kinds)
                total += k.weight;
            for (int i = 0; i < n; ++i) {
                double pick = uniform() * total;
                const Kind *k = &kinds.back();
                for (const Kind &c : kinds)
                    if ((pick -= c.weight) < 0) {
                        k = &c;
                        break;
                    }
                const TimeMs at = std::min(end - 1, hour + TimeMs(uniform() * double(HourMs)));
                const std::string id = "c" + std::to_string(++serial);
                std::string value = k->value;
                if (const auto p = value.find("%d"); p != std::string::npos)
                    value.replace(p, 2, std::to_string(rng.bounded(1, 40)));
                const Json args { { k->arg, value } };
                const std::string verdictText = k->verdict;
                const std::string action = verdictText.substr(0, verdictText.find(' '));
                if (!std::string(k->always).empty()) {
                    const TimeMs added = std::string(k->always) == "lint" ? lintAdded : srcAdded;
                    if (at >= added) {
                        h.decided(at, session, id, a.name, k->tool, args,
                            Json::array({ verdict("console", "always_allowed", "allow", 0) }),
                            "allow", "guardrail:console");
                        continue;
                    }
                }
                Json trail = Json::array();
                if (!verdictText.empty()) {
                    const auto s1 = verdictText.find(' '), s2 = verdictText.find(' ', s1 + 1);
                    trail.push_back(verdict(verdictText.substr(s1 + 1, s2 - s1 - 1),
                        verdictText.substr(s2 + 1), action));
                }
                if (action == "allow" || action == "deny") {
                    h.decided(at, session, id, a.name, k->tool, args, trail, action,
                        "guardrail:" + trail[0]["guardrail"].get<std::string>());
                    continue;
                }
                // The docs agent's edits: the first approval stands for the rest of the session.
                if (const auto g = docsGranted.find(session);
                    g != docsGranted.end() && std::string(k->tool) == "Edit") {
                    h.decided(at, session, id, a.name, k->tool, args, trail, "allow", g->second);
                    continue;
                }
                h.call(at, session, id, a.name, k->tool, args, trail, "ask");
                const std::string item = "i" + std::to_string(serial);
                h.escalated(at, session, id, a.name, k->tool, item);
                // A person, quick at work, slow or away otherwise.
                const double median = atWork ? 11.0 : 70.0;
                const TimeMs took = TimeMs(1000
                    * std::min(290.0,
                        median * std::exp(0.9 * (uniform() + uniform() + uniform() - 1.5) * 1.6)));
                if (!atWork && uniform() < 0.3) {
                    h.decision(at + 300'000, session, id, a.name, k->tool, item, "deny", "timeout",
                        "timed_out");
                    continue;
                }
                const std::string who = uniform() < 0.7 ? "human:alice" : "human:bob";
                const double r = uniform();
                const bool risky = action == "ask"
                    && verdictText.find("network") == std::string::npos
                    && verdictText.find("mcp") == std::string::npos;
                const double denyShare = risky ? 0.7 : 0.12;
                if (r < denyShare) {
                    h.decision(
                        at + took, session, id, a.name, k->tool, item, "deny", who, "decided");
                } else if (r < denyShare + 0.08 && std::string(k->arg) != "url") {
                    h.decision(at + took + 20'000, session, id, a.name, k->tool, item, "modify",
                        who, "decided", true, Json { { k->arg, value + " --dry-run" } });
                } else {
                    h.decision(
                        at + took, session, id, a.name, k->tool, item, "allow", who, "decided");
                    if (std::string(a.name) == "gemini-docs" && std::string(k->tool) == "Edit")
                        docsGranted.emplace(session, who);
                }
            }
        }
    }
    return h;
}

} // namespace holdpoint::test
