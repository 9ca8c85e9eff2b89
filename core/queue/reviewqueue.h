#pragma once

#include "common/clock.h"
#include "guardrails/guardrail.h"
#include "protocol/protocol.h"

#include <QObject>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint {

enum class ItemState { Pending, Decided, TimedOut, Cancelled, Abandoned };
std::string_view itemStateName(ItemState state);

// One escalated call. `args` are the agent's original arguments; a
// reviewer's edit travels in the decision, never overwrites them.
struct QueueItem
{
    std::string id;
    std::string callId;
    std::string sessionId;
    protocol::AgentInfo agent;
    std::string toolName;
    Json args;
    Json context;
    Json annotations;
    std::optional<std::string> turnId;
    // The arguments as guardrails left them, when they rewrote any, and the
    // RFC 6902 patch from `args` to them. Approving runs these.
    std::optional<Json> proposedArgs;
    Json patch;
    // Secrets found in the call: everything people see of the item is
    // masked with these; the agent still runs with the real values.
    std::vector<Redaction> redactions;
    std::string reason;   // why it was escalated
    Json trail = Json::array(); // each guardrail's verdict, in order
    std::vector<protocol::Warning> warnings;
    TimeMs receivedAt = 0;
    TimeMs deadline = NoDeadline;

    ItemState state = ItemState::Pending;
    bool agentConnected = true;
    // Restored from the audit log after a restart with its secrets masked:
    // `args` hold placeholders until the agent re-sends the call.
    bool secretsPending = false;
    // Kept by ReviewQueue for filtering (queuefilter.h); lowercase.
    std::string searchText;
    int risk = 0;
    std::optional<protocol::Decision> decision; // set once no longer pending
};

// The item as reviewers see it on the wire (PROTOCOL.md "Reviewer role"),
// with its secrets masked.
Json itemToJson(const QueueItem &item);
// A value of the item as a person may see it.
Json masked(const QueueItem &item, const Json &value);

// Pending escalations in arrival order. Rows are indices into that order;
// the about-to/done signal pairs let a model stay in step without resets.
class ReviewQueue final : public QObject
{
    Q_OBJECT
public:
    explicit ReviewQueue(Clock *clock, QObject *parent = nullptr);
    ~ReviewQueue() override;

    Clock *clock() const { return m_clock; }

    // Adds a pending item. Its id must be unique among pending items.
    const QueueItem &add(QueueItem item);

    int size() const { return int(m_items.size()); }
    const QueueItem &at(int row) const { return *m_items[std::size_t(row)]; }
    int rowOf(const std::string &id) const;
    const QueueItem *find(const std::string &id) const;

    // Moves a pending item to a final state and removes it from the queue.
    // Returns false when `id` is not pending.
    bool resolve(const std::string &id, ItemState state, protocol::Decision decision);
    void setAgentConnected(const std::string &id, bool connected);
    // The real values of a restored item's masked args, from the re-sent call.
    void restoreSecrets(const std::string &id, const Json &args, std::vector<Redaction> redactions);

    // Ids unique across the console's lifetime (and, being random, across restarts).
    std::string newId() const;

Q_SIGNALS:
    void aboutToAdd(int row);
    void added(int row);
    void aboutToRemove(int row);
    void removed(int row);
    void changed(int row);
    // Emitted after removal with the final item (state and decision set).
    void resolved(const QueueItem &item);

private:
    void expireDue();

    Clock *m_clock;
    Alarm m_alarm;
    std::vector<std::unique_ptr<QueueItem>> m_items;
    std::unordered_map<std::string, QueueItem *> m_byId;
    std::set<std::pair<TimeMs, std::string>> m_deadlines; // earliest first
};

} // namespace holdpoint
