// SPDX-License-Identifier: Apache-2.0
#pragma once

// The live feed's controller (WEB.md, `GET /api/live`): which pages are
// open, for whom, whether each proved its session, what each is sent and
// which are ended when a session or a reviewer goes. The sockets are the
// transport's (webfeed.cpp), which asks this what to send where.

#include "web/webcontrollers.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace holdpoint {

class LiveFeedController final
{
public:
    using Id = quint64;
    struct Feed
    {
        Id id = 0;
        std::string sessionId; // empty for a trusted header's page
        std::string reviewer;
        // Sent the session's device key (or came through a trusted proxy):
        // until then it is sent nothing and counts for nothing.
        bool proven = false;
    };

    // The open pages of a session are counted on `sessions` (openPages()).
    LiveFeedController(ItemsController &items, WebSessions &sessions);

    // A feed its upgrade admitted for `caller`: its id, and the snapshot to
    // send it at once when it is proven already. A device's feed, admitted
    // on its cookie, is sent nothing until its first message proves its key.
    struct Opened
    {
        Id id = 0;
        std::optional<std::string> first;
    };
    Opened open(const Caller &caller);

    // What a feed's page sent. The first message of an unproven feed must be
    // {"type": "hello", "device": KEY} with its session's key: then it is
    // sent the snapshot; anything else closes it (1008), recorded.
    struct Heard
    {
        enum class Kind
        {
            Nothing, // a proven feed's message (pings): nothing to do
            Proven,
            Refused,
        };
        Kind kind = Kind::Nothing;
        std::string first; // Proven: the snapshot
        QString logged; // Refused: what the console records
    };
    Heard heard(Id id, const std::string &message);

    // Open and still to prove its session (its time to do so runs out).
    bool awaitingKey(Id id) const;
    void closed(Id id);

    // Who is sent a change: every proven feed; or only a session's (a
    // trusted header's page: its reviewer's pages without a session).
    std::vector<Id> everyone() const;
    std::vector<Id> of(const std::string &sessionId, const std::string &reviewer) const;
    // The feeds `which` picks, as they are now (to end them).
    std::vector<Feed> select(const std::function<bool(const Feed &)> &which) const;
    std::size_t size() const { return m_feeds.size(); }

private:
    void count(const std::string &sessionId);
    std::string snapshotText() const;

    ItemsController &m_items;
    WebSessions &m_sessions;
    std::vector<Feed> m_feeds;
    Id m_next = 0;
};

} // namespace holdpoint
