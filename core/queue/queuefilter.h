#pragma once

// What the review UI sorts and filters the queue by. It lives in core so
// the same predicate serves the window, tests and benchmarks.

#include "queue/queueitem.h"

#include <string>
#include <string_view>

namespace holdpoint {

// The lowercase text a filter searches: agent, tool, reason, warnings,
// session, call and the arguments as a person sees them (secrets masked).
// ReviewQueue keeps it with each item, so filtering never re-serialises args.
std::string queueSearchText(const QueueItem &item);

// How much attention a call deserves, 0 (routine) to 100, from what the
// console knows of it:
//  - MCP annotations: destructiveHint +30, openWorldHint +10, readOnlyHint -20;
//  - what guardrails found: secrets +25, a protected path +25, each loop
//    warning +15, any other warning +5;
//  - the tool's name: shells, deletes, pushes and deploys +20, writes +10.
int riskScore(const QueueItem &item);

// A text filter: every whitespace-separated word must occur (case-insensitive)
// in the item's search text.
class QueueFilter
{
public:
    void setText(std::string_view text);
    const std::string &text() const { return m_text; }
    bool empty() const { return m_words.empty(); }
    bool matches(const QueueItem &item) const;

private:
    std::string m_text;
    std::vector<std::string> m_words;
};

} // namespace holdpoint
