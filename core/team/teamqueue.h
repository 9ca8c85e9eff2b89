// SPDX-License-Identifier: Apache-2.0
#pragma once

// The queue store of team mode (TEAM.md "Gateways and consoles"): the
// engine's QueueStore, backed by the team's PostgreSQL through a TeamLink
// (teamlink.h), with its presence (TeamPresence: heartbeats, instances,
// who this login is) and its copies of the audit (AuditShipper) beside it.
//
// Its view is a ReviewQueue in memory holding every pending team item: this
// process's own escalations and, mirrored, every other gateway's. The
// engine and the window read that view synchronously, as they read the
// queue without a team. Changes go to the database through the link (on
// TeamConnection's thread), and come back from it through LISTEN/NOTIFY:
// - an escalation of this process's agents is written to the team and
//   waits there (its deadline kept by the database);
// - a reviewer's decision here is a conditional update there, and the item
//   leaves the view only once it committed;
// - a decision made anywhere on one of this process's items is planned by
//   the engine as its own (decidedElsewhere) and delivered to the agent.
// While the database is unreachable, escalations wait up to their deadline
// and are then denied with `team_unavailable`, never allowed.

#include "queue/reviewqueue.h"
#include "queue/sharedqueue.h"
#include "team/auditshipper.h"
#include "team/teamconfig.h"
#include "team/teamlink.h"
#include "team/teampresence.h"

#include <QElapsedTimer>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace holdpoint::team {

class TeamActivity;

class TeamQueue final : public SharedQueue
{
    Q_OBJECT
public:
    // Over a TeamConnection to config.url.
    TeamQueue(TeamConfig config, Clock *clock, QObject *parent = nullptr);
    // Over `link` (a fake of it in the tests).
    TeamQueue(
        TeamConfig config, Clock *clock, std::unique_ptr<TeamLink> link, QObject *parent = nullptr);
    ~TeamQueue() override;

    // This instance's id, kept by its owner; before anything is enqueued.
    std::string instanceKind() const override { return m_config.self.kind; }
    std::string instanceId() const override { return m_config.self.id; }
    void setInstanceId(std::string id) override { m_config.self.id = std::move(id); }
    void start() override;
    // Every pending team item, as the window shows it.
    ReviewQueue *view() override { return &m_view; }
    bool isConnected() const override { return m_link->isConnected(); }
    // Times the connection opened again after the first time.
    quint64 reconnects() const override { return m_link->reconnects(); }
    QString lastError() const override { return m_link->lastError(); }
    TeamPresence &presence() { return m_presence; }
    AuditShipper &shipper() { return m_shipper; }
    const TeamConfig &config() const { return m_config; }
    // Who this console decides as, as the database maps its login (asked
    // on every connect); empty with reviewerError() saying why, or before
    // the first answer.
    std::string reviewer() const override { return m_presence.reviewer(); }
    // Whom this login may decide as: every enabled reviewer the database
    // maps it to, read with every heartbeat once follow() asks for it (a
    // reviewer page does). Unknown before the first answer and while the
    // database is unreachable; callers refuse then (fail closed).
    void followActingReviewers() override { m_presence.followActingReviewers(); }
    Acting mayActAs(const std::string &name) const override { return m_presence.mayActAs(name); }
    bool actingKnown() const override { return m_presence.actingKnown(); }
    std::string reviewerOsUser() const override { return m_presence.reviewerOsUser(); }
    QString reviewerError() const override { return m_presence.reviewerError(); }

    // This instance's agent sessions as a JSON array, published with each
    // heartbeat for every console's Agents view.
    void setAgentsSource(std::function<Json()> source) override
    {
        m_presence.setAgentsSource(std::move(source));
    }
    // What the other instances published, as of the last heartbeat.
    const std::vector<RemoteAgents> &remoteAgents() const override
    {
        return m_presence.remoteAgents();
    }

    // The editor lease (TEAM.md "Statements"): taken when a reviewer opens
    // an item's editor, renewed while it stays open, released after.
    void claim(const std::string &id) override;
    void release(const std::string &id) override;

    // A record of this process's audit log (Broker::activity). Auto-
    // decided calls are copied to the team's audit in batches, at most about
    // 1 s behind (TEAM.md "The audit chain"); the rest is there already.
    void copyRecord(const Json &record) override { m_shipper.copyRecord(record); }

    // QueueStore
    std::string newId() const override;
    void enqueue(QueueItem item) override;
    const QueueItem *find(const std::string &id) const override { return m_view.find(id); }
    bool resolve(const std::string &id, ItemState state, protocol::Decision decision,
        const protocol::Review *review = nullptr) override;
    VoteOutcome vote(const std::string &id, const ReviewerIdentity &reviewer,
        const std::optional<Json> &editArgs, protocol::Decision final,
        const protocol::Review &review) override;
    // Our own agents' connections also go to the team (TEAM.md "Schema").
    void setAgentConnected(const std::string &id, bool connected) override;
    void restoreSecrets(
        const std::string &id, const Json &args, std::vector<Redaction> redactions) override
    {
        m_view.restoreSecrets(id, args, std::move(redactions));
    }
    // Our own turns' findings also go to the team, onto our pending items
    // of the turn, so every console sees a loop its items are part of.
    void setTurnFindings(const std::string &sessionId, const std::optional<std::string> &turnId,
        const std::vector<protocol::TurnFinding> &findings) override;
    std::vector<std::string> pendingIds(const PendingQuery &query) const override
    {
        return m_view.pendingIds(query);
    }
    int pendingCount() const override { return m_view.pendingCount(); }
    std::unordered_map<std::string, int> pendingPerSession() const override
    {
        return m_view.pendingPerSession();
    }
    void forEachPending(const std::function<void(const QueueItem &)> &fn) const override
    {
        m_view.forEachPending(fn);
    }
    std::optional<Link> link() const override
    {
        if (isConnected())
            return Link { true, {} };
        return Link { false,
            lastError().isEmpty() ? QStringLiteral("connecting to the team database")
                                  : lastError() };
    }

private:
    void onConnected();
    void onDisconnected(const QString &why);
    void onNotified(const QString &kind, const QString &id);
    void followActivity();
    // A heartbeat's answer: leases lost, and which gateways are online.
    void beaten(const BeatAnswer &beat);
    void checkLocalDeadlines();
    // Escalations are written in batches: those made while one batch is on
    // its way go in the next. A job about an item (a decision, a claim, a
    // withdrawal) sends what waits first, since the connection runs jobs in
    // order and the item's row must be there.
    void writeEscalation(const QueueItem &item);
    // A person's answer, to the database's review(): the decider is the
    // login's reviewer, and the outcome comes back as resolved, voteCounted
    // or reviewRefused.
    Decide decideOf(const QueueItem &item, const protocol::Review &review,
        const protocol::Decision &decision) const;
    void sendReview(Decide d, ItemState state, protocol::Decision decision);
    void postEscalations();
    void escalated(const std::string &id, const Escalated &result);
    void escalationRefused(const std::string &id, const std::string &why);
    // Reads rows and makes the view agree with them. Ids asked for while a
    // read is on its way go in the next read, so a burst of notifications
    // costs a few statements, not one each.
    void refresh(const std::vector<std::string> &ids);
    void readRefreshes();
    void resync();
    void applyRow(const Row &row);
    void addRemote(const Row &row);
    // Ends a local item here without the database: a deny, written to the
    // team once it is back.
    void endLocally(const std::string &id, ItemState state, protocol::Decision decision,
        const std::string &teamState);
    TeamPlace placeOf(const Row &row) const;
    TeamPlace ownPlace() const;

    TeamConfig m_config;
    Clock *m_clock;
    ReviewQueue m_view;
    std::unique_ptr<TeamLink> m_link;
    TeamPresence m_presence;
    AuditShipper m_shipper;
    std::unique_ptr<TeamActivity> m_activity; // consoles only
    Alarm m_deadlines;
    std::unordered_map<std::string, TimeMs> m_local; // this process's pending items, by deadline
    std::multimap<TimeMs, std::string> m_byDeadline; // the same, soonest first; may name ended ones
    std::set<std::string> m_deciding; // our decisions on their way
    std::set<std::string> m_claims; // leases this console holds
    std::vector<std::string> m_toRefresh; // in the order asked for
    std::unordered_set<std::string> m_toRefreshSet;
    bool m_refreshing = false;
    bool m_refreshPosted = false; // a read waits for the notifications queued with it
    QElapsedTimer m_lastRead; // when the last read of notified rows started
    std::vector<Escalation> m_escalations; // not yet handed to the connection
    int m_escalating = 0; // batches on their way
    std::string m_applying; // the item decidedElsewhere is resolving
};

} // namespace holdpoint::team
