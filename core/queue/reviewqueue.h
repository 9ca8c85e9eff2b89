#pragma once

#include "common/clock.h"
#include "queue/queuestore.h"

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
// let a model stay in step without resets.
class ReviewQueue final : public QueueStore
{
    Q_OBJECT
public:
    explicit ReviewQueue(Clock *clock, QObject *parent = nullptr);
    ~ReviewQueue() override;

    Clock *clock() const { return m_clock; }

    std::string newId() const override;
    void enqueue(QueueItem item) override { add(std::move(item)); }
    const QueueItem *find(const std::string &id) const override;
    bool resolve(const std::string &id, ItemState state, protocol::Decision decision) override;
    void setAgentConnected(const std::string &id, bool connected) override;
    void restoreSecrets(const std::string &id, const Json &args, std::vector<Redaction> redactions) override;
    void setTurnFindings(const std::string &sessionId, const std::optional<std::string> &turnId,
                         const std::vector<protocol::TurnFinding> &findings) override;
    std::vector<std::string> pendingIds(const PendingQuery &query) const override;
    int pendingCount() const override { return size(); }
    std::unordered_map<std::string, int> pendingPerSession() const override;
    void forEachPending(const std::function<void(const QueueItem &)> &fn) const override;

    // Adds a pending item whose id no pending item has.
    const QueueItem &add(QueueItem item);
    // Row access for the model.

    int size() const { return int(m_items.size()); }
    const QueueItem &at(int row) const { return *m_items[std::size_t(row)]; }
    int rowOf(const std::string &id) const;

Q_SIGNALS:
    void aboutToAdd(int row);
    void added(int row);
    void aboutToRemove(int row);
    void removed(int row);
    void changed(int row);

private:
    void expireDue();

    Clock *m_clock;
    Alarm m_alarm;
    std::vector<std::unique_ptr<QueueItem>> m_items;
    std::unordered_map<std::string, QueueItem *> m_byId;
    std::set<std::pair<TimeMs, std::string>> m_deadlines; // earliest first
};

} // namespace holdpoint
