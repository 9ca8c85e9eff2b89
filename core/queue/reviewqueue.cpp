#include "reviewqueue.h"

#include "queue/queuefilter.h"

#include <QRandomGenerator>

#include <algorithm>

namespace holdpoint {

ReviewQueue::ReviewQueue(Clock *clock, QObject *parent)
    : QueueStore(parent)
    , m_clock(clock)
    , m_alarm(clock, [this] { expireDue(); }, this)
{
}

ReviewQueue::~ReviewQueue() = default;

std::string ReviewQueue::newId() const
{
    // 48 random bits, shown as 12 hex digits: short enough to type in
    // `holdpoint-ctl approve ID`, and checked against the live queue.
    static constexpr char hex[] = "0123456789abcdef";
    for (;;) {
        quint64 v = QRandomGenerator::system()->generate64();
        std::string id(12, '0');
        for (char &c : id) {
            c = hex[v & 0xf];
            v >>= 4;
        }
        if (!m_byId.contains(id))
            return id;
    }
}

const QueueItem &ReviewQueue::add(QueueItem item)
{
    Q_ASSERT(!m_byId.contains(item.id));
    item.state = ItemState::Pending;
    item.searchText = queueSearchText(item);
    item.risk = riskScore(item);
    const int row = size();
    Q_EMIT aboutToAdd(row);
    auto owned = std::make_unique<QueueItem>(std::move(item));
    QueueItem *raw = owned.get();
    m_items.push_back(std::move(owned));
    m_byId.emplace(raw->id, raw);
    if (raw->deadline != NoDeadline) {
        m_deadlines.emplace(raw->deadline, raw->id);
        if (raw->deadline < m_alarm.deadline())
            m_alarm.setDeadline(raw->deadline);
    }
    Q_EMIT added(row);
    Q_EMIT itemAdded(*raw);
    return *raw;
}

int ReviewQueue::rowOf(const std::string &id) const
{
    auto it = m_byId.find(id);
    if (it == m_byId.end())
        return -1;
    const QueueItem *target = it->second;
    auto pos = std::find_if(m_items.begin(), m_items.end(), [target](const auto &p) { return p.get() == target; });
    return pos == m_items.end() ? -1 : int(pos - m_items.begin());
}

const QueueItem *ReviewQueue::find(const std::string &id) const
{
    auto it = m_byId.find(id);
    return it == m_byId.end() ? nullptr : it->second;
}

bool ReviewQueue::resolve(const std::string &id, ItemState state, protocol::Decision decision)
{
    Q_ASSERT(state != ItemState::Pending);
    const int row = rowOf(id);
    if (row < 0)
        return false;
    Q_EMIT aboutToRemove(row);
    std::unique_ptr<QueueItem> item = std::move(m_items[std::size_t(row)]);
    m_items.erase(m_items.begin() + row);
    m_byId.erase(id);
    m_deadlines.erase({item->deadline, item->id});
    item->state = state;
    item->decision = std::move(decision);
    Q_EMIT removed(row);
    Q_EMIT resolved(*item);
    return true;
}

void ReviewQueue::setAgentConnected(const std::string &id, bool connected)
{
    auto it = m_byId.find(id);
    if (it == m_byId.end() || it->second->agentConnected == connected)
        return;
    it->second->agentConnected = connected;
    Q_EMIT changed(rowOf(id));
}

void ReviewQueue::restoreSecrets(const std::string &id, const Json &args, std::vector<Redaction> redactions)
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
    Q_EMIT changed(rowOf(id));
}

void ReviewQueue::setTurnFindings(const std::string &sessionId, const std::optional<std::string> &turnId,
                                  const std::vector<protocol::TurnFinding> &findings)
{
    for (std::size_t row = 0; row < m_items.size(); ++row) {
        QueueItem &item = *m_items[row];
        if (item.sessionId != sessionId || item.turnId != turnId || item.turnFindings == findings)
            continue;
        item.turnFindings = findings;
        item.searchText = queueSearchText(item);
        item.risk = riskScore(item);
        Q_EMIT changed(int(row));
        Q_EMIT itemUpdated(item);
    }
}

std::vector<std::string> ReviewQueue::pendingIds(const PendingQuery &query) const
{
    std::vector<std::string> ids;
    for (const auto &item : m_items) {
        if (item->sessionId == query.sessionId && (!query.turnId || item->turnId == query.turnId)
            && (!query.toolName || item->toolName == *query.toolName))
            ids.push_back(item->id);
    }
    return ids;
}

std::unordered_map<std::string, int> ReviewQueue::pendingPerSession() const
{
    std::unordered_map<std::string, int> counts;
    for (const auto &item : m_items)
        ++counts[item->sessionId];
    return counts;
}

void ReviewQueue::forEachPending(const std::function<void(const QueueItem &)> &fn) const
{
    for (const auto &item : m_items)
        fn(*item);
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
        d.reason = "timed out after " + std::to_string((waited + 500) / 1000) + " s waiting for a reviewer";
        if (!resolve(id, ItemState::TimedOut, std::move(d)))
            m_deadlines.erase(m_deadlines.begin());
    }
    m_alarm.setDeadline(m_deadlines.empty() ? NoDeadline : m_deadlines.begin()->first);
}

} // namespace holdpoint
