// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a notification says about a pending call, whatever carries it. It
// lives here, not in each channel, so the rule "a notification never
// carries the call's arguments, context or secrets" is kept in one place:
// a phone's lock screen, a push service and a chat room are all outside
// the console's trust boundary.

#include "common/clock.h"
#include "queue/queueitem.h"

#include <QString>
#include <QStringList>

namespace holdpoint {

// How hard a notification should interrupt. Never below normal: every
// escalated call has an agent waiting on a person.
enum class Urgency
{
    Normal,
    High, // risk >= HighRisk or a destructive tool
    Urgent // risk >= UrgentRisk
};
inline constexpr int HighRisk = 40;
inline constexpr int UrgentRisk = 70;

// Caps on what an agent-chosen name may take of a notification.
inline constexpr int MaxShownNameLength = 64;

struct Notification
{
    std::string itemId;
    bool reminder = false;
    QString title; // one line
    QString body; // a few lines of plain text
    Urgency urgency = Urgency::Normal;
    // Fixed words (destructive, secrets, protected-path, loop, reminder)
    // that a channel may turn into tags or badges; never agent-chosen text.
    QStringList labels;
};

// The notification for `item` at `now`: who wants which tool, how risky it
// is and why (from the guardrails' codes, never from the free-text reason,
// which may quote an argument, such as the protected path itself), and how
// long until the deadline. Agent and tool names are masked with the item's
// redactions, stripped of control characters and shortened. A reminder is
// one urgency step above the first message.
Notification describePendingItem(const QueueItem &item, TimeMs now, bool reminder);

// "45 s", "4 min 30 s", "2 h 5 min": a whole-second duration for people.
QString formatRemaining(TimeMs ms);

// When to remind a reviewer of an item that still waits, told at `now`
// with `deadline` to go: 60 s before the deadline, or halfway there when
// the wait is shorter than two minutes, so the reminder never comes right
// on the heels of the first message nor too late to act on. NoDeadline
// when there is no deadline, or less than MinReminderWaitMs left (the first
// message is still fresh).
inline constexpr TimeMs ReminderLeadMs = 60'000;
inline constexpr TimeMs MinReminderWaitMs = 20'000;
TimeMs reminderTime(TimeMs now, TimeMs deadline);

} // namespace holdpoint
