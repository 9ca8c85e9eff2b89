// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the window speaks of a call that needs several people's approval
// (queue/approvals.h, PROTOCOL.md "Approvals"): the count, who gave it, and
// why this console's reviewer may or may not approve it now.

#include "queue/queueitem.h"

#include <QString>

namespace holdpoint {

class ConsoleCore;

// "1 of 2 approvals (alice); needs 1 more"; empty for a call one person decides.
QString approvalsSummary(const QueueItem &item);

// Why this console's reviewer (its name and the OS user it runs as) may not
// approve `item` now, as the core would refuse it; empty when they may.
QString approveRefusal(const ConsoleCore &core, const QueueItem &item);
// Why an "always" rule may not approve `item`: no rule can stand in for
// several people. Empty for a call one person decides.
QString alwaysRefusal(const QueueItem &item);
// approveRefusal in a few words, for a line under the buttons: "Waiting for
// someone other than you (1/2)".
QString approveRefusalShort(const ConsoleCore &core, const QueueItem &item);
// Whether this console's reviewer may propose edited arguments: an edit by
// someone who approved already counts as their approval of the edit, so
// only the agent's own user is kept from it.
bool mayEditVoted(const ConsoleCore &core, const QueueItem &item);
// What approving does on a call that needs several people, when this
// reviewer may: "Your approval makes 1 of 2; the call waits for 1 more".
QString voteHint(const QueueItem &item);
// The reviewer whose edit stands (the latest vote that was an edit), if any.
std::string editAuthor(const QueueItem &item);

} // namespace holdpoint
