// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where escalated calls wait for a person. The engine asks the store by id
// or by query and holds no item across calls, so the store can be this
// process's memory (ReviewQueue) or a database that many consoles share.

#include "protocol/decider.h"
#include "queue/queueitem.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint {

// Which pending items a scoped decision or a halt reaches.
struct PendingQuery
{
    std::string sessionId;
    std::optional<std::string> turnId; // set: only this turn's items
    std::optional<std::string> toolName; // set: only this tool's items
};

// Who is deciding: the name their authentication maps to, never one a
// client claims, and how they authenticated (console, holdpoint-ctl through
// a reviewer token, a team database role, a web session).
struct ReviewerIdentity
{
    std::string name;
    std::string via;
    // The OS user this reviewer is, when known: with exclude_requester, the
    // agent's own user may not approve under any name.
    std::string osUser;
    std::string decidedBy() const { return protocol::Decider::person(name, via).text(); }
};

// The refusal for a review of an item no longer (or never) pending.
inline std::string noPendingItem(const std::string &id)
{
    return "id: no pending item \"" + id + "\"; it may have been decided, timed out or cancelled";
}

// What became of an approval on an item that needs several.
struct VoteOutcome
{
    bool ok = false;
    std::string message; // why it was refused
    bool later = false; // the store settles it later (the team's): resolved, itemUpdated or
                        // reviewRefused follow
    bool decided = false; // it completed the count: the item is resolved
    int approvals = 0;
    int required = 0;
};

class QueueStore : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~QueueStore() override;

    // An id no pending item has; short enough to type in `holdpoint-ctl approve ID`.
    virtual std::string newId() const = 0;
    // Adds a pending item whose id no pending item has.
    virtual void enqueue(QueueItem item) = 0;
    // Adds a pending item that no view lists and no reviewer may decide
    // until reveal(): it can be found, resolved, cancelled and abandoned
    // meanwhile (resolved is emitted; itemAdded and row signals are not).
    // The broker holds an escalation back until its record is durable, so
    // nobody sees a call that a crash would lose. A store whose items are
    // durable where reviewers see them (the team's database) shows it at once.
    virtual void enqueueUnrevealed(QueueItem item) { enqueue(std::move(item)); }
    virtual void reveal(const std::string &id) { Q_UNUSED(id); }
    // The pending item reviewers may see, or null. Valid until the store
    // next changes.
    virtual const QueueItem *find(const std::string &id) const = 0;
    // The pending item, revealed or not (enqueueUnrevealed), or null.
    virtual const QueueItem *findAny(const std::string &id) const { return find(id); }
    // Moves a pending item to a final state and removes it. False when `id`
    // is not pending: exactly one decision per item. `review` is the
    // reviewer's answer the decision came from, for a store that must pass
    // it on (the team's, whose gateway plans it again). A store may settle
    // the decision later, and emits resolved once it has.
    virtual bool resolve(const std::string &id, ItemState state, protocol::Decision decision,
        const protocol::Review *review = nullptr)
        = 0;
    // An approval (or an edit, `editArgs` set) by `reviewer` of an item
    // whose rule needs votes (ApprovalRule::voted, approvals.h). Once
    // enough people approved the same arguments, the store resolves the
    // item with `final`, its decided_by listing every approver. `final` is
    // the decision those arguments get (allow or modify); `review` is the
    // reviewer's answer it came from, as for resolve.
    virtual VoteOutcome vote(const std::string &id, const ReviewerIdentity &reviewer,
        const std::optional<Json> &editArgs, protocol::Decision final,
        const protocol::Review &review)
        = 0;
    virtual void setAgentConnected(const std::string &id, bool connected) = 0;
    // The real values of a restored item's masked args, from the re-sent call.
    virtual void restoreSecrets(
        const std::string &id, const Json &args, std::vector<Redaction> redactions)
        = 0;
    // The turn's findings as they stand now, on each of its pending items
    // (`turnId` unset: the items of the session's implicit turn). Items
    // whose findings change are announced with itemUpdated.
    virtual void setTurnFindings(const std::string &sessionId,
        const std::optional<std::string> &turnId,
        const std::vector<protocol::TurnFinding> &findings)
        = 0;

    // Ids of the pending items that match, in arrival order.
    virtual std::vector<std::string> pendingIds(const PendingQuery &query) const = 0;
    virtual int pendingCount() const = 0;
    virtual std::unordered_map<std::string, int> pendingPerSession() const = 0;
    // Every pending item, in arrival order.
    virtual void forEachPending(const std::function<void(const QueueItem &)> &fn) const = 0;

    // A store shared with other instances (the team's) reaches them through
    // a link that may be down; a store of this process alone has none.
    struct Link
    {
        bool up = false;
        QString why; // when down: why, for people
    };
    virtual std::optional<Link> link() const { return std::nullopt; }

Q_SIGNALS:
    // The link came up or went down (only a store that has one).
    void availabilityChanged(bool available, const QString &why);
    void itemAdded(const QueueItem &item);
    // A pending item changed in what reviewers see of it (its turn's findings).
    void itemUpdated(const QueueItem &item);
    // After removal, with the final item (state and decision set).
    void resolved(const QueueItem &item);
    // A reviewer elsewhere decided a pending item of this process's agents
    // (team mode): its owner plans `review` as its own and resolves the
    // item, in the same call.
    void decidedElsewhere(const protocol::Review &review, const std::string &decidedBy);
    // A decision this process asked for did not happen: someone decided
    // first, a reviewer elsewhere holds the item, or the store is down.
    // `reviewer`: the name the review was made as, so that one of several
    // people reviewing the same item through this process hears their own
    // outcome; "" when the review named none (the store's only name).
    void reviewRefused(
        const std::string &id, const std::string &message, const std::string &reviewer);
    // An approval this process sent was counted, and the item waits for more
    // (a store that settles votes later); `reviewer` as above.
    void voteCounted(
        const std::string &id, int approvals, int required, const std::string &reviewer);
};

} // namespace holdpoint
