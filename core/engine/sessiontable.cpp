// SPDX-License-Identifier: Apache-2.0
#include "sessiontable.h"

#include <QRandomGenerator>

#include <algorithm>

namespace holdpoint {

SessionTable::SessionTable(Clock *clock, SessionLimits limits, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_limits(limits)
    , m_graceAlarm(
          clock, [this] { abandonOrphans(); }, this)
    , m_expiryAlarm(
          clock, [this] { expireIdle(); }, this)
{ }

SessionTable::~SessionTable() = default;

Session *SessionTable::find(const std::string &id)
{
    auto it = m_sessions.find(id);
    return it == m_sessions.end() ? nullptr : &it->second;
}

std::string SessionTable::newSessionId() const
{
    for (;;) {
        const quint64 v = QRandomGenerator::system()->generate64();
        std::string id = "s-" + QByteArray::number(v, 16).rightJustified(16, '0').toStdString();
        if (!m_sessions.contains(id))
            return id;
    }
}

std::pair<Session *, bool> SessionTable::open(std::string id)
{
    if (id.empty())
        id = newSessionId();
    auto [it, inserted] = m_sessions.try_emplace(id);
    Session &session = it->second;
    if (!inserted && session.connections.empty())
        std::erase_if(m_idle, [&](const auto &p) { return p.second == id; });
    session.id = std::move(id);
    return { &session, !inserted };
}

std::pair<Session *, bool> SessionTable::restore(
    const std::string &id, const protocol::AgentInfo &agent)
{
    auto [it, inserted] = m_sessions.try_emplace(id);
    Session &session = it->second;
    if (inserted) {
        session.id = id;
        session.agent = agent;
        session.lastActivity = m_clock->now();
    }
    return { &session, inserted };
}

std::vector<std::string> SessionTable::detach(Session &session, ConnectionId connection)
{
    std::vector<std::string> orphaned;
    session.connections.erase(connection);
    const TimeMs now = m_clock->now();
    for (auto &[callId, call] : session.calls) {
        if (!call.waiters.erase(connection) || call.decided() || !call.waiters.empty())
            continue;
        orphan(call, now);
        orphaned.push_back(call.itemId);
    }
    if (session.connections.empty()) {
        m_idle.emplace(now, session.id);
        rearmExpiry();
    }
    return orphaned;
}

void SessionTable::orphan(Call &call, TimeMs since)
{
    call.orphanedAt = since;
    m_orphans.emplace(since, call.itemId);
    rearmGrace();
}

void SessionTable::adopt(Call &call)
{
    if (call.orphanedAt == NoDeadline)
        return;
    m_orphans.erase({ call.orphanedAt, call.itemId });
    call.orphanedAt = NoDeadline;
    rearmGrace();
}

namespace {

// About what a parsed value holds: nlohmann's 16-byte value, a string's
// heap block, an object member's tree node and key.
std::size_t treeBytes(const Json &j)
{
    switch (j.type()) {
    case Json::value_t::string:
        return 16 + 32 + j.get_ref<const std::string &>().size();
    case Json::value_t::object: {
        std::size_t n = 16 + 48;
        for (auto it = j.begin(); it != j.end(); ++it)
            n += 64 + it.key().size() + treeBytes(*it);
        return n;
    }
    case Json::value_t::array: {
        std::size_t n = 16 + 24;
        for (const Json &e : j)
            n += treeBytes(e);
        return n;
    }
    default:
        return 16;
    }
}

} // namespace

std::size_t SessionTable::weigh(const Call &call)
{
    // The node, its key, the digest and the order's copy of the key.
    constexpr std::size_t Overhead = 256;
    std::size_t n = Overhead + call.decisionText.size();
    if (call.ran)
        n += treeBytes(call.ran->args) + treeBytes(call.ran->annotations)
            + treeBytes(call.ran->context);
    return n;
}

void SessionTable::recordDecided(Session &session, const std::string &callId)
{
    auto it = session.calls.find(callId);
    if (it == session.calls.end())
        return;
    it->second.weight = weigh(it->second);
    session.decidedBytes += it->second.weight;
    session.decidedOrder.push_back(callId);
    trim(session);
}

void SessionTable::reweigh(Session &session, Call &call)
{
    if (call.weight == 0)
        return; // not counted (yet)
    session.decidedBytes -= call.weight;
    call.weight = weigh(call);
    session.decidedBytes += call.weight;
}

void SessionTable::settle()
{
    const TimeMs now = m_clock->now();
    for (auto &[id, session] : m_sessions) {
        if (session.connections.empty())
            m_idle.emplace(now, id); // forgotten like any idle session unless its agent returns
        trim(session);
    }
    rearmGrace();
    rearmExpiry();
}

void SessionTable::trim(Session &session)
{
    // The newest call always stays: a re-send of the call just decided
    // gets its decision, however large.
    while (session.decidedOrder.size() > m_limits.rememberedCalls
        || (session.decidedBytes > m_limits.rememberedBytes && session.decidedOrder.size() > 1)) {
        auto oldest = session.calls.find(session.decidedOrder.front());
        if (oldest != session.calls.end()) {
            if (!oldest->second.durable)
                break; // still on its way to the disk and its agent
            session.decidedBytes -= oldest->second.weight;
            session.calls.erase(oldest);
        }
        session.decidedOrder.pop_front();
    }
}

void SessionTable::rearmGrace()
{
    m_graceAlarm.setDeadline(
        m_orphans.empty() ? NoDeadline : m_orphans.begin()->first + m_limits.graceMs);
}

void SessionTable::abandonOrphans()
{
    const TimeMs now = m_clock->now();
    while (!m_orphans.empty() && m_orphans.begin()->first + m_limits.graceMs <= now) {
        const std::string itemId = m_orphans.begin()->second;
        m_orphans.erase(m_orphans.begin());
        Q_EMIT abandoned(itemId);
    }
    rearmGrace();
}

void SessionTable::rearmExpiry()
{
    m_expiryAlarm.setDeadline(
        m_idle.empty() ? NoDeadline : m_idle.begin()->first + m_limits.retentionMs);
}

void SessionTable::expireIdle()
{
    const TimeMs now = m_clock->now();
    std::vector<std::pair<TimeMs, std::string>> later;
    while (!m_idle.empty() && m_idle.begin()->first + m_limits.retentionMs <= now) {
        const std::string id = m_idle.begin()->second;
        m_idle.erase(m_idle.begin());
        auto it = m_sessions.find(id);
        if (it == m_sessions.end() || !it->second.connections.empty())
            continue;
        const Session &s = it->second;
        const bool busy = std::any_of(s.calls.begin(), s.calls.end(),
            [](const auto &c) { return !c.second.decided() || !c.second.durable; });
        const TimeMs idleSince = std::max(s.lastActivity, now - m_limits.retentionMs);
        if (busy || s.lastActivity + m_limits.retentionMs > now) {
            // Something still waits (or it was active lately): look again later.
            later.emplace_back(busy ? now : idleSince, id);
            continue;
        }
        m_sessions.erase(it);
        Q_EMIT forgotten(id);
    }
    for (auto &l : later)
        m_idle.insert(std::move(l));
    rearmExpiry();
}

std::vector<SessionInfo> SessionTable::describe(
    const std::unordered_map<std::string, int> &pendingPerSession, const Grants &grants) const
{
    std::vector<SessionInfo> out;
    out.reserve(m_sessions.size());
    for (const auto &[id, s] : m_sessions) {
        SessionInfo info { id, s.agent, int(s.connections.size()), 0, s.lastActivity, s.currentTurn,
            grants.describe(id), {}, true };
        if (auto it = pendingPerSession.find(id); it != pendingPerSession.end())
            info.pending = it->second;
        out.push_back(std::move(info));
    }
    std::sort(out.begin(), out.end(),
        [](const SessionInfo &a, const SessionInfo &b) { return a.lastActivity > b.lastActivity; });
    return out;
}

} // namespace holdpoint
