// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/clock.h"
#include "queue/queuestore.h"
#include "queue/rankedlist.h"

#include <QObject>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint {

// The queue in this process's memory: pending escalations in arrival
// order. Rows are indices into that order; the about-to/done signal pairs
// let a model stay in step without resets. Finding an item, its row, or a
// row's item, and removing one from the middle, cost microseconds at
// 100,000 pending (rankedlist.h).
class ReviewQueue final : public QueueStore
{
    Q_OBJECT
public:
    explicit ReviewQueue(Clock *clock, QObject *parent = nullptr);
    ~ReviewQueue() override;

    Clock *clock() const { return m_clock; }

    std::string newId() const override { return newId(12); }
    // `digits` random hex digits no pending item has (48 bits at 12: short
    // enough to type in `holdpoint-ctl approve ID`).
    std::string newId(std::size_t digits) const;
    void enqueue(QueueItem item) override { add(std::move(item)); }
    void enqueueUnrevealed(QueueItem item) override;
    void reveal(const std::string &id) override;
    const QueueItem *find(const std::string &id) const override;
    const QueueItem *findAny(const std::string &id) const override;
    bool resolve(const std::string &id, ItemState state, protocol::Decision decision,
        const protocol::Review *review = nullptr) override;
    VoteOutcome vote(const std::string &id, const ReviewerIdentity &reviewer,
        const std::optional<Json> &editArgs, protocol::Decision final,
        const protocol::Review &review) override;
    // Votes as another store counted them (the team database's).
    void setVotes(
        const std::string &id, std::vector<protocol::Vote> votes, std::optional<Json> editedArgs);
    void setAgentConnected(const std::string &id, bool connected) override;
    void restoreSecrets(
        const std::string &id, const Json &args, std::vector<Redaction> redactions) override;
    void setTurnFindings(const std::string &sessionId, const std::optional<std::string> &turnId,
        const std::vector<protocol::TurnFinding> &findings) override;
    std::vector<std::string> pendingIds(const PendingQuery &query) const override;
    int pendingCount() const override { return size(); }
    std::unordered_map<std::string, int> pendingPerSession() const override;
    void forEachPending(const std::function<void(const QueueItem &)> &fn) const override;

    // Adds a pending item whose id no pending item has.
    const QueueItem &add(QueueItem item);
    // Off: items wait past their deadline until someone resolves them (a
    // team's deadlines are kept by the database).
    void setEnforceDeadlines(bool enforce);
    void setTeamPlace(const std::string &id, TeamPlace place);
    // Row access for the model.

    int size() const { return int(m_rows.size()); }
    const QueueItem &at(int row) const { return *m_rows.at(std::size_t(row)); }
    int rowOf(const std::string &id) const;
    int rowOf(const QueueItem *item) const;

Q_SIGNALS:
    void aboutToAdd(int row);
    void added(int row);
    void aboutToRemove(int row);
    void removed(int row);
    void changed(int row);

private:
    void show(QueueItem *item);
    // A pending item changed: its row (and, `forReviewers`, itemUpdated),
    // once reviewers may see it.
    void announce(QueueItem &item, bool forReviewers);
    void expireDue();

    Clock *m_clock;
    Alarm m_alarm;
    RankedList<QueueItem *> m_rows; // by arrival
    std::unordered_map<std::string, std::unique_ptr<QueueItem>> m_byId;
    std::set<std::string> m_unrevealed; // in m_byId, in no row yet
    std::uint64_t m_nextArrival = 1;
    std::set<std::pair<TimeMs, std::string>> m_deadlines; // earliest first
    bool m_enforceDeadlines = true;
};

} // namespace holdpoint
