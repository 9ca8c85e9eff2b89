// SPDX-License-Identifier: Apache-2.0
#include "teampresence.h"

#include "wire/json.h"

#include <unordered_map>

namespace holdpoint::team {

TeamPresence::TeamPresence(TeamLink *link, Clock *clock, const TeamConfig *config, QObject *parent)
    : QObject(parent)
    , m_link(link)
    , m_clock(clock)
    , m_config(config)
    , m_heartbeat(clock, [this] {
        m_heartbeat.setDeadline(m_clock->now() + m_config->heartbeatMs);
        tick();
    })
{ }

void TeamPresence::start()
{
    if (m_started)
        return;
    m_started = true;
    m_heartbeat.setDeadline(m_clock->now() + m_config->heartbeatMs);
}

// TeamLink reports each change once: connected after every (re)open,
// disconnected when an open connection is lost or the first open fails.
void TeamPresence::onConnected()
{
    identify();
    tick();
}

void TeamPresence::onDisconnected()
{
    setActingReviewers(std::nullopt);
}

void TeamPresence::identify()
{
    m_link->identify(
        m_config->requestedReviewer,
        [this](ReviewerSelf self) {
            m_reviewer = std::move(self.name);
            m_reviewerOsUser = std::move(self.osUser);
            m_reviewerError.clear();
            Q_EMIT reviewerChanged();
        },
        [this](const TeamError &e) {
            if (e.retryable())
                return; // the next connect asks again
            m_reviewer.clear();
            m_reviewerOsUser.clear();
            m_reviewerError = QString::fromStdString(e.what());
            Q_EMIT reviewerChanged();
        });
}

std::string TeamPresence::claimName() const
{
    return m_reviewer.empty() ? m_config->requestedReviewer : m_reviewer;
}

void TeamPresence::followActingReviewers()
{
    m_followActing = true;
    readActingReviewers();
}

Acting TeamPresence::mayActAs(const std::string &name) const
{
    if (!m_acting)
        return Acting::Unknown;
    return m_acting->count(name) ? Acting::Yes : Acting::No;
}

// With every heartbeat (heartbeatMs, 2 s): a disabled or unmapped reviewer
// loses a page within one. A job of its own, so a database that refuses
// the read (a role without SELECT on the reviewer tables) costs the page,
// never the heartbeat.
void TeamPresence::readActingReviewers()
{
    if (!m_followActing || m_readingActing || !m_link->isConnected())
        return;
    m_readingActing = true;
    m_link->actingReviewers(
        [this](std::vector<std::string> names) {
            m_readingActing = false;
            setActingReviewers(std::set<std::string>(names.begin(), names.end()));
        },
        [this](const TeamError &) {
            m_readingActing = false;
            // Unknown, not "nobody": the page admits no one meanwhile, but
            // a failed read (a lost connection, a role without SELECT on
            // the reviewer tables) must not revoke every paired device.
            setActingReviewers(std::nullopt);
        });
}

void TeamPresence::setActingReviewers(std::optional<std::set<std::string>> names)
{
    if (names == m_acting)
        return;
    m_acting = std::move(names);
    Q_EMIT actingReviewersChanged();
}

void TeamPresence::tick()
{
    // One at a time: on a slow link a tick may take longer than the
    // interval, and ticks queued behind it would delay every other job.
    if (!m_link->isConnected() || m_ticking)
        return;
    m_ticking = true;
    if (m_hooks.beforeBeat)
        m_hooks.beforeBeat();
    readActingReviewers();
    Beat b;
    b.self = m_config->self;
    b.claimAs = claimName();
    if (m_hooks.claims)
        b.claims = m_hooks.claims();
    b.leaseMs = m_config->leaseMs;
    b.agents = m_agentsSource ? dumpJson(m_agentsSource()) : std::string("[]");
    m_link->beat(
        std::move(b),
        [this](BeatAnswer answer) {
            m_ticking = false;
            m_remoteAgents.clear();
            for (const InstanceState &i : answer.instances) {
                if (i.id == m_config->self.id)
                    continue;
                Json list = Json::parse(i.agents, nullptr, false);
                if (list.is_array() && !list.empty())
                    m_remoteAgents.push_back({ i.id, i.host, i.online, std::move(list) });
            }
            if (m_hooks.beaten)
                m_hooks.beaten(answer);
        },
        [this](const TeamError &) { m_ticking = false; });
}

} // namespace holdpoint::team
