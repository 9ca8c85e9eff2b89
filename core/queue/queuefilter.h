// SPDX-License-Identifier: Apache-2.0
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

// What makes a pending call worth a look, from what the console knows of
// it. The same signals sort the queue by risk and fill its "why" column.
struct ItemSignals
{
    // The guardrail that escalated the call and why; empty when no guardrail
    // asked and the policy's default did.
    std::string askedBy;
    std::string askReason;
    std::string askCode;
    bool secrets = false; // a guardrail found credentials
    std::vector<std::string> secretKinds; // their kinds, while the item holds them
    bool protectedPath = false;
    bool destructive = false; // MCP annotations
    bool openWorld = false;
    bool readOnly = false;
    int loopWarnings = 0;
    int otherWarnings = 0;
    // HiddenText flags (common/visibletext.h): characters a person cannot
    // see, or letters of another script, in the tool, args or context.
    unsigned hiddenText = 0;
    // The turn's findings; the strongest first (it says the most).
    std::vector<protocol::TurnFinding> turnFindings;
};
ItemSignals itemSignals(const QueueItem &item);

// How much attention a call deserves, 0 (routine) to 100, from its signals:
//  - MCP annotations: destructiveHint +30, openWorldHint +10, readOnlyHint -20;
//  - hidden or look-alike characters in the call +30;
//  - what guardrails found: secrets +25, a protected path +25, each loop
//    warning +15, any other warning +5, each finding about the call's
//    turn +15 and +15 more once it reached its stop threshold;
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
