// SPDX-License-Identifier: Apache-2.0
#pragma once

// One reminder per pending item, at reminderTime() (notification.h), on the
// console's Clock so tests move time by hand. A reminder is forgotten once
// it is due or once its item is cancelled, so it goes out at most once.

#include "common/clock.h"
#include "queue/queueitem.h"

#include <QObject>

#include <string>
#include <unordered_map>

namespace holdpoint {

class ReminderSchedule final : public QObject
{
    Q_OBJECT
public:
    explicit ReminderSchedule(Clock *clock, QObject *parent = nullptr);

    // Arms the reminder for `item` (replacing any it had), or none when
    // reminderTime() says none. Only what a notification may show is kept:
    // the item's arguments and context are dropped here.
    void schedule(const QueueItem &item);
    void cancel(const std::string &id);
    int armedCount() const { return int(m_armed.size()); }

Q_SIGNALS:
    // The reminder is due; the item is as schedule() kept it.
    void due(const holdpoint::QueueItem &item);

private:
    struct Armed
    {
        QueueItem item;
        Alarm *alarm = nullptr; // a child of this schedule
    };
    void fire(const std::string &id);
    static void retire(Alarm *alarm);

    Clock *m_clock;
    std::unordered_map<std::string, Armed> m_armed;
};

} // namespace holdpoint
