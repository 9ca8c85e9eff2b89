// SPDX-License-Identifier: Apache-2.0
#include "reminders.h"

#include "notify/notification.h"

namespace holdpoint {

namespace {

// The item without what no notification may carry, so a reminder waiting
// for minutes holds no arguments. Redactions stay: they mask the names.
QueueItem withoutPayload(const QueueItem &item)
{
    QueueItem kept = item;
    kept.args = Json();
    kept.context = Json();
    kept.proposedArgs.reset();
    kept.patch = Json();
    kept.editedArgs.reset();
    kept.votes.clear();
    kept.searchText.clear();
    return kept;
}

} // namespace

ReminderSchedule::ReminderSchedule(Clock *clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
{ }

void ReminderSchedule::schedule(const QueueItem &item)
{
    cancel(item.id);
    const TimeMs at = reminderTime(m_clock->now(), item.deadline);
    if (at == NoDeadline)
        return;
    auto *alarm = new Alarm(
        m_clock, [this, id = item.id] { fire(id); }, this);
    m_armed.emplace(item.id, Armed { withoutPayload(item), alarm });
    alarm->setDeadline(at);
}

void ReminderSchedule::cancel(const std::string &id)
{
    const auto it = m_armed.find(id);
    if (it == m_armed.end())
        return;
    retire(it->second.alarm);
    m_armed.erase(it);
}

void ReminderSchedule::fire(const std::string &id)
{
    const auto it = m_armed.find(id);
    if (it == m_armed.end())
        return;
    QueueItem item = std::move(it->second.item);
    retire(it->second.alarm);
    m_armed.erase(it);
    Q_EMIT due(item);
}

void ReminderSchedule::retire(Alarm *alarm)
{
    // Disarmed at once, so a manual clock's next advance cannot fire it;
    // deleted later, because this may run inside the alarm's own callback.
    alarm->setDeadline(NoDeadline);
    alarm->deleteLater();
}

} // namespace holdpoint
