// SPDX-License-Identifier: Apache-2.0
#pragma once

// An instance's presence in its team (TEAM.md "Gateways and consoles"): a
// heartbeat on the clock (every heartbeatMs) that keeps this instance's
// row fresh, publishes its agents, ends items past their deadline, renews
// the editor leases its queue holds, and reads every instance's state; and
// who this login decides as, asked on every connect, and whom it may act
// as, read with every heartbeat once followed.

#include "common/clock.h"
#include "common/json.h"
#include "queue/sharedqueue.h"
#include "team/teamconfig.h"
#include "team/teamlink.h"

#include <QObject>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace holdpoint::team {

// Whether this login may act as a reviewer (TeamPresence::mayActAs), and
// another instance's agents as it published them: the shared queue's own
// words (queue/sharedqueue.h).
using holdpoint::Acting;
using holdpoint::RemoteAgents;

class TeamPresence final : public QObject
{
    Q_OBJECT
public:
    // `config` is the queue's, read at each heartbeat (its id is set late).
    TeamPresence(TeamLink *link, Clock *clock, const TeamConfig *config, QObject *parent = nullptr);

    // What the queue adds to a heartbeat: the leases it holds, something to
    // do just before each beat, and what to do with the answer.
    struct Hooks
    {
        std::function<std::vector<std::string>()> claims;
        std::function<void()> beforeBeat;
        std::function<void(const BeatAnswer &)> beaten;
    };
    void setHooks(Hooks hooks) { m_hooks = std::move(hooks); }

    // Starts the heartbeat.
    void start();
    // The link opened (again): ask who this login is, and beat at once.
    void onConnected();
    void onDisconnected();
    // One heartbeat, unless the link is down or one is on its way.
    void tick();

    const std::string &reviewer() const { return m_reviewer; }
    const std::string &reviewerOsUser() const { return m_reviewerOsUser; }
    const QString &reviewerError() const { return m_reviewerError; }
    // The reviewer name this console's leases are in: the database's answer
    // at connect, else the one asked for.
    std::string claimName() const;

    void followActingReviewers();
    Acting mayActAs(const std::string &name) const;
    bool actingKnown() const { return m_acting.has_value(); }

    void setAgentsSource(std::function<Json()> source) { m_agentsSource = std::move(source); }
    const std::vector<RemoteAgents> &remoteAgents() const { return m_remoteAgents; }

Q_SIGNALS:
    void reviewerChanged();
    void actingReviewersChanged();

private:
    void identify();
    void readActingReviewers();
    void setActingReviewers(std::optional<std::set<std::string>> names);

    TeamLink *m_link;
    Clock *m_clock;
    const TeamConfig *m_config;
    Hooks m_hooks;
    Alarm m_heartbeat;
    bool m_started = false;
    bool m_ticking = false; // a heartbeat's job is on its way
    std::function<Json()> m_agentsSource;
    std::vector<RemoteAgents> m_remoteAgents;
    std::string m_reviewer;
    std::string m_reviewerOsUser;
    QString m_reviewerError;
    bool m_followActing = false;
    bool m_readingActing = false; // a read is on its way
    std::optional<std::set<std::string>> m_acting; // nullopt: unknown
};

} // namespace holdpoint::team
