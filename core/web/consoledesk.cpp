// SPDX-License-Identifier: Apache-2.0
#include "consoledesk.h"

#include "engine/consolecore.h"

namespace holdpoint {

ConsoleDesk::ConsoleDesk(ConsoleCore *core, QObject *parent)
    : ReviewerDesk(parent)
    , m_core(core)
{
    ReviewQueue *queue = core->queue();
    connect(queue, &QueueStore::itemAdded, this, &ReviewerDesk::itemAdded);
    connect(queue, &QueueStore::itemUpdated, this, &ReviewerDesk::itemUpdated);
    connect(queue, &QueueStore::resolved, this, &ReviewerDesk::resolved);
    // A reviewer removed from the console may no longer decide from a phone
    // either, nor watch the queue through a page already open.
    connect(core, &ConsoleCore::namedReviewersChanged, this, &ReviewerDesk::reviewersChanged);
    if (SharedQueue *team = core->team()) {
        connect(team, &QueueStore::reviewRefused, this, &ReviewerDesk::reviewRefused);
        connect(team, &QueueStore::voteCounted, this, &ReviewerDesk::voteCounted);
        connect(team, &SharedQueue::actingReviewersChanged, this, &ReviewerDesk::reviewersChanged);
    }
}

void ConsoleDesk::follow()
{
    if (SharedQueue *team = m_core->team())
        team->followActingReviewers();
}

void ConsoleDesk::forEachPending(const std::function<void(const QueueItem &)> &fn) const
{
    m_core->queue()->forEachPending(fn);
}

const QueueItem *ConsoleDesk::find(const std::string &id) const
{
    return m_core->queue()->find(id);
}

TimeMs ConsoleDesk::now() const
{
    return m_core->clock()->now();
}

bool ConsoleDesk::team() const
{
    return m_core->team() != nullptr;
}

bool ConsoleDesk::teamUnknown() const
{
    return m_core->team() && !m_core->team()->actingKnown();
}

std::optional<ReviewerIdentity> ConsoleDesk::identityFor(
    const std::string &reviewer, const std::string &via) const
{
    // In team mode the database says whom this login may decide as: an
    // enabled reviewer mapped to it, as last read (sharedqueue.h). A name it
    // does not list, or any name while it cannot be asked, is nobody.
    if (m_core->team()) {
        if (m_core->team()->mayActAs(reviewer) != Acting::Yes)
            return std::nullopt;
        return ReviewerIdentity { reviewer, via, {} };
    }
    if (reviewer == m_core->reviewerName())
        return ReviewerIdentity { reviewer, via, m_core->reviewerOsUser() };
    if (const auto named = m_core->namedReviewer(reviewer))
        return ReviewerIdentity { reviewer, via, named->osUser };
    return std::nullopt;
}

bool ConsoleDesk::managesEveryDevice(const std::string &reviewer) const
{
    return !m_core->team() && reviewer == m_core->reviewerName();
}

ReviewOutcome ConsoleDesk::review(const protocol::Review &review, const ReviewerIdentity &who)
{
    return m_core->reviewAs(review, who);
}

} // namespace holdpoint
