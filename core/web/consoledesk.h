// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer desk over the console's engine: its queue (the team
// database's, in team mode), its reviewers and its broker.

#include "web/reviewerdesk.h"

#include <QPointer>

namespace holdpoint {

class ConsoleCore;

class ConsoleDesk final : public ReviewerDesk
{
    Q_OBJECT
public:
    explicit ConsoleDesk(ConsoleCore *core, QObject *parent = nullptr);

    // Team mode: starts reading whom this login may act as with every
    // heartbeat (teamstore.h), for as long as the page is on.
    void follow();

    void forEachPending(const std::function<void(const QueueItem &)> &fn) const override;
    const QueueItem *find(const std::string &id) const override;
    TimeMs now() const override;
    bool team() const override;
    bool teamUnknown() const override;
    std::optional<ReviewerIdentity> identityFor(
        const std::string &reviewer, const std::string &via) const override;
    bool managesEveryDevice(const std::string &reviewer) const override;
    ReviewOutcome review(const protocol::Review &review, const ReviewerIdentity &who) override;

private:
    QPointer<ConsoleCore> m_core;
};

} // namespace holdpoint
