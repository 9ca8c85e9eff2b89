// SPDX-License-Identifier: Apache-2.0
#include "livefeedcontroller.h"

#include <algorithm>

namespace holdpoint {

LiveFeedController::LiveFeedController(ItemsController &items, WebSessions &sessions)
    : m_items(items)
    , m_sessions(sessions)
{ }

std::string LiveFeedController::snapshotText() const
{
    Json first = m_items.snapshot();
    first["type"] = "snapshot";
    return dumpJson(first);
}

void LiveFeedController::count(const std::string &sessionId)
{
    if (sessionId.empty())
        return; // a trusted header's page: no session to count it on
    const auto pages = std::count_if(m_feeds.begin(), m_feeds.end(),
        [&](const Feed &f) { return f.proven && f.sessionId == sessionId; });
    m_sessions.setOpenPages(sessionId, int(pages));
}

LiveFeedController::Opened LiveFeedController::open(const Caller &caller)
{
    const Id id = ++m_next;
    m_feeds.push_back({ id, caller.sessionId, caller.identity.name, caller.proven });
    if (!caller.proven)
        return { id, std::nullopt };
    count(caller.sessionId);
    return { id, snapshotText() };
}

LiveFeedController::Heard LiveFeedController::heard(Id id, const std::string &message)
{
    const auto it
        = std::find_if(m_feeds.begin(), m_feeds.end(), [id](const Feed &f) { return f.id == id; });
    if (it == m_feeds.end() || it->proven)
        return {}; // pings, once proven
    // {"type": "hello", "device": KEY}, the page's first message; anything
    // else, or a key that is not this session's, ends the feed unheard.
    const std::string sessionId = it->sessionId;
    if (!helloProves(message,
            [&](const QByteArray &key) { return m_sessions.deviceMatches(sessionId, key); }))
        return { Heard::Kind::Refused, {},
            QStringLiteral("live feed: a session's cookie without its device key (a process on "
                           "another port of this "
                           "host?)") };
    it->proven = true;
    count(sessionId);
    return { Heard::Kind::Proven, snapshotText(), {} };
}

bool LiveFeedController::awaitingKey(Id id) const
{
    return std::any_of(
        m_feeds.begin(), m_feeds.end(), [id](const Feed &f) { return f.id == id && !f.proven; });
}

void LiveFeedController::closed(Id id)
{
    const auto it
        = std::find_if(m_feeds.begin(), m_feeds.end(), [id](const Feed &f) { return f.id == id; });
    if (it == m_feeds.end())
        return;
    const std::string sessionId = it->sessionId;
    m_feeds.erase(it);
    count(sessionId);
}

std::vector<LiveFeedController::Id> LiveFeedController::everyone() const
{
    std::vector<Id> ids;
    for (const Feed &f : m_feeds)
        if (f.proven)
            ids.push_back(f.id);
    return ids;
}

std::vector<LiveFeedController::Id> LiveFeedController::of(
    const std::string &sessionId, const std::string &reviewer) const
{
    std::vector<Id> ids;
    for (const Feed &f : m_feeds)
        if (f.proven
            && (sessionId.empty() ? f.sessionId.empty() && f.reviewer == reviewer
                                  : f.sessionId == sessionId))
            ids.push_back(f.id);
    return ids;
}

std::vector<LiveFeedController::Feed> LiveFeedController::select(
    const std::function<bool(const Feed &)> &which) const
{
    std::vector<Feed> out;
    for (const Feed &f : m_feeds)
        if (which(f))
            out.push_back(f);
    return out;
}

} // namespace holdpoint
