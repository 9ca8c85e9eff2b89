// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the reviewer page needs of the console, and no more (WEB.md "The
// shape"): the queue it shows, whom a name decides as, and a decision made
// as that reviewer. The page's controllers see only this; ConsoleDesk
// (consoledesk.h) is it over the engine, and the tests give a fake.

#include "common/clock.h"
#include "engine/broker.h"
#include "protocol/protocol.h"
#include "queue/queuestore.h"

#include <QObject>

#include <functional>
#include <optional>
#include <string>

namespace holdpoint {

class ReviewerDesk : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // The waiting calls, oldest first, and one of them by id (null: gone).
    virtual void forEachPending(const std::function<void(const QueueItem &)> &fn) const = 0;
    virtual const QueueItem *find(const std::string &id) const = 0;
    virtual TimeMs now() const = 0;
    // Team mode: a database settles every decision and says whom this
    // console's login may act as (TEAM.md "Reviewers").
    virtual bool team() const = 0;
    // Team mode, and the database cannot say now whom this login may act as.
    virtual bool teamUnknown() const = 0;
    // Whom `reviewer` decides as here, recorded as reached through `via`;
    // nullopt: nobody (unknown, removed, disabled, or not this login's).
    virtual std::optional<ReviewerIdentity> identityFor(
        const std::string &reviewer, const std::string &via) const = 0;
    // Whether `reviewer` manages every device, not only their own (the
    // console's owner, alone mode).
    virtual bool managesEveryDevice(const std::string &reviewer) const = 0;
    // A decision, made as `who` (the engine checks scope and requester).
    virtual ReviewOutcome review(const protocol::Review &review, const ReviewerIdentity &who) = 0;

Q_SIGNALS:
    void itemAdded(const QueueItem &item);
    void itemUpdated(const QueueItem &item);
    void resolved(const QueueItem &item);
    // Team mode: the database refused `reviewer`'s decision on `id`, or
    // counted their approval.
    void reviewRefused(
        const std::string &id, const std::string &message, const std::string &reviewer);
    void voteCounted(
        const std::string &id, int approvals, int required, const std::string &reviewer);
    // Whom identityFor() admits may have changed.
    void reviewersChanged();
};

} // namespace holdpoint
