// SPDX-License-Identifier: Apache-2.0
#include "reviewqueue.h"
#include "approvals.h"

#include "queue/queuefilter.h"

#include <QRandomGenerator>

namespace holdpoint {

ReviewQueue::ReviewQueue(Clock *clock, QObject *parent)
    : QueueStore(parent)
    , m_clock(clock)
    , m_alarm(
          clock, [this] { expireDue(); }, this)
{ }

ReviewQueue::~ReviewQueue() = default;

std::string ReviewQueue::newId(std::size_t digits) const
{
    Q_ASSERT(digits <= 16);
    static constexpr char hex[] = "0123456789abcdef";
    for (;;) {
        quint64 v = QRandomGenerator::system()->generate64();
        std::string id(digits, '0');
        for (char &c : id) {
            c = hex[v & 0xf];
            v >>= 4;
        }
        if (!m_byId.contains(id))
            return id;
    }
}

namespace {

bool byArrival(const QueueItem *a, const QueueItem *b)
{
    return a->arrival < b->arrival;
}

} // namespace

namespace {

QueueItem prepared(QueueItem item)
{
    item.state = ItemState::Pending;
    item.searchText = queueSearchText(item);
    item.hiddenText = hiddenTextOf(item);
    item.risk = riskScore(item);
    return item;
}

} // namespace

const QueueItem &ReviewQueue::add(QueueItem item)
{
    Q_ASSERT(!m_byId.contains(item.id));
    auto owned = std::make_unique<QueueItem>(prepared(std::move(item)));
    QueueItem *raw = owned.get();
    m_byId.emplace(raw->id, std::move(owned));
    show(raw);
    return *raw;
}

void ReviewQueue::enqueueUnrevealed(QueueItem item)
{
    Q_ASSERT(!m_byId.contains(item.id));
    m_unrevealed.insert(item.id);
    auto owned = std::make_unique<QueueItem>(prepared(std::move(item)));
    m_byId.emplace(owned->id, std::move(owned));
}

void ReviewQueue::reveal(const std::string &id)
{
    if (m_unrevealed.erase(id) == 1)
        show(m_byId.at(id).get());
}

void ReviewQueue::show(QueueItem *item)
{
    // Arrival order is the order reviewers first see items in.
    item->arrival = m_nextArrival++;
    const int row = size();
    Q_EMIT aboutToAdd(row);
    m_rows.insertAt(m_rows.size(), item);
    if (item->deadline != NoDeadline && m_enforceDeadlines) {
        m_deadlines.emplace(item->deadline, item->id);
        if (item->deadline < m_alarm.deadline())
            m_alarm.setDeadline(item->deadline);
    }
    Q_EMIT added(row);
    Q_EMIT itemAdded(*item);
}

void ReviewQueue::announce(QueueItem &item, bool forReviewers)
{
    if (m_unrevealed.contains(item.id))
        return;
    Q_EMIT changed(rowOf(&item));
    if (forReviewers)
        Q_EMIT itemUpdated(item);
}

int ReviewQueue::rowOf(const std::string &id) const
{
    return rowOf(find(id));
}

int ReviewQueue::rowOf(const QueueItem *item) const
{
    if (!item || item->state != ItemState::Pending)
        return -1;
    return int(m_rows.find(const_cast<QueueItem *>(item), byArrival));
}

const QueueItem *ReviewQueue::find(const std::string &id) const
{
    return m_unrevealed.contains(id) ? nullptr : findAny(id);
}

const QueueItem *ReviewQueue::findAny(const std::string &id) const
{
    auto it = m_byId.find(id);
    return it == m_byId.end() ? nullptr : it->second.get();
}

bool ReviewQueue::resolve(
    const std::string &id, ItemState state, protocol::Decision decision, const protocol::Review *)
{
    Q_ASSERT(state != ItemState::Pending);
    auto it = m_byId.find(id);
    if (it == m_byId.end())
        return false;
    // An item no reviewer saw yet leaves without a row.
    const bool shown = m_unrevealed.erase(id) == 0;
    const int row = shown ? rowOf(it->second.get()) : -1;
    Q_ASSERT(!shown || row >= 0);
    if (shown)
        Q_EMIT aboutToRemove(row);
    std::unique_ptr<QueueItem> item = std::move(it->second);
    m_byId.erase(it);
    if (shown) {
        m_rows.eraseAt(std::size_t(row));
        m_deadlines.erase({ item->deadline, item->id });
    }
    item->state = state;
    item->decision = std::move(decision);
    if (shown)
        Q_EMIT removed(row);
    Q_EMIT resolved(*item);
    return true;
}

VoteOutcome ReviewQueue::vote(const std::string &id, const ReviewerIdentity &reviewer,
    const std::optional<Json> &editArgs, protocol::Decision final, const protocol::Review &review)
{
    VoteOutcome out;
    auto it = m_byId.find(id);
    if (it == m_byId.end() || m_unrevealed.contains(id)) { // unseen: nobody votes on it
        out.message = noPendingItem(id);
        return out;
    }
    QueueItem &item = *it->second;
    out.required = item.approvals.required;
    // An edit to what stands already is an approval of it.
    const bool edit = editArgs && item.masked(*editArgs) != item.masked(approvedArgs(item));
    if (const std::string why = approvalRefusal(item, reviewer.name, reviewer.osUser);
        !why.empty() && (!edit || !hasApproved(item, reviewer.name))) {
        out.message = why;
        out.approvals = approvalCount(item);
        return out;
    }
    addVote(item, reviewer.name, reviewer.via, m_clock->now(), edit ? editArgs : std::nullopt);
    out.ok = true;
    out.approvals = approvalCount(item);
    if (approvalsReached(item)) {
        const std::vector<std::string> names = approvers(item);
        final.decidedBy = approversDecidedBy(names);
        out.decided = resolve(id, ItemState::Decided, std::move(final), &review);
        return out;
    }
    Q_EMIT changed(rowOf(&item));
    Q_EMIT itemUpdated(item);
    return out;
}

void ReviewQueue::setVotes(
    const std::string &id, std::vector<protocol::Vote> votes, std::optional<Json> editedArgs)
{
    auto it = m_byId.find(id);
    if (it == m_byId.end())
        return;
    QueueItem &item = *it->second;
    if (item.votes == votes && item.editedArgs == editedArgs)
        return;
    item.votes = std::move(votes);
    item.editedArgs = std::move(editedArgs);
    announce(item, true);
}

void ReviewQueue::setEnforceDeadlines(bool enforce)
{
    m_enforceDeadlines = enforce;
    if (!enforce) {
        m_deadlines.clear();
        m_alarm.setDeadline(NoDeadline);
    }
}

void ReviewQueue::setTeamPlace(const std::string &id, TeamPlace place)
{
    auto it = m_byId.find(id);
    if (it == m_byId.end())
        return;
    it->second->team = std::move(place);
    announce(*it->second, true);
}

void ReviewQueue::setAgentConnected(const std::string &id, bool connected)
{
    auto it = m_byId.find(id);
    if (it == m_byId.end() || it->second->agentConnected == connected)
        return;
    it->second->agentConnected = connected;
    announce(*it->second, false);
}

void ReviewQueue::restoreSecrets(
    const std::string &id, const Json &args, std::vector<Redaction> redactions)
{
    auto it = m_byId.find(id);
    if (it == m_byId.end())
        return;
    QueueItem &item = *it->second;
    item.args = args;
    if (item.proposedArgs)
        item.proposedArgs = unmaskJson(*item.proposedArgs, redactions);
    item.redactions = std::move(redactions);
    item.secretsPending = false;
    item.searchText = queueSearchText(item);
    item.hiddenText = hiddenTextOf(item);
    announce(item, false);
}

void ReviewQueue::setTurnFindings(const std::string &sessionId,
    const std::optional<std::string> &turnId, const std::vector<protocol::TurnFinding> &findings)
{
    for (std::size_t row = 0; row < m_rows.size(); ++row) {
        QueueItem &item = *m_rows.at(row);
        if (item.sessionId != sessionId || item.turnId != turnId || item.turnFindings == findings)
            continue;
        item.turnFindings = findings;
        item.searchText = queueSearchText(item);
        item.risk = riskScore(item);
        Q_EMIT changed(int(row));
        Q_EMIT itemUpdated(item);
    }
    for (const std::string &id : m_unrevealed) {
        QueueItem &item = *m_byId.at(id);
        if (item.sessionId == sessionId && item.turnId == turnId) {
            item.turnFindings = findings;
            item.searchText = queueSearchText(item);
            item.risk = riskScore(item);
        }
    }
}

std::vector<std::string> ReviewQueue::pendingIds(const PendingQuery &query) const
{
    std::vector<std::string> ids;
    m_rows.forEach([&](const QueueItem *item) {
        if (item->sessionId == query.sessionId && (!query.turnId || item->turnId == query.turnId)
            && (!query.toolName || item->toolName == *query.toolName))
            ids.push_back(item->id);
    });
    return ids;
}

std::unordered_map<std::string, int> ReviewQueue::pendingPerSession() const
{
    std::unordered_map<std::string, int> counts;
    m_rows.forEach([&](const QueueItem *item) { ++counts[item->sessionId]; });
    return counts;
}

void ReviewQueue::forEachPending(const std::function<void(const QueueItem &)> &fn) const
{
    m_rows.forEach([&](const QueueItem *item) { fn(*item); });
}

void ReviewQueue::expireDue()
{
    const TimeMs now = m_clock->now();
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        const auto [deadline, id] = *m_deadlines.begin();
        const QueueItem *item = find(id);
        const TimeMs waited = item ? deadline - item->receivedAt : 0;
        protocol::Decision d;
        d.kind = protocol::DecisionKind::Deny;
        d.decidedBy = "timeout";
        d.code = "timeout";
        d.reason = "timed out after " + std::to_string((waited + 500) / 1000)
            + " s waiting for a reviewer";
        if (!resolve(id, ItemState::TimedOut, std::move(d)))
            m_deadlines.erase(m_deadlines.begin());
    }
    m_alarm.setDeadline(m_deadlines.empty() ? NoDeadline : m_deadlines.begin()->first);
}

} // namespace holdpoint
