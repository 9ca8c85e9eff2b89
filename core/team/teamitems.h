// SPDX-License-Identifier: Apache-2.0
#pragma once

// Between the team's rows and the engine's items, reviews and decisions:
// what TeamStore writes to the database and how it reads it back.

#include "protocol/protocol.h"
#include "queue/queueitem.h"
#include "team/teamdb.h"

#include <optional>
#include <string>

namespace holdpoint::team {

// Another gateway's item as this process shows it. Its args are the masked
// ones; the real values stay with the gateway that holds the agent.
std::optional<QueueItem> itemFromRow(const Row &row);
// The row's votes and proposed edit onto `item` (real values where `item`
// holds them: its own gateway's).
void applyVotes(QueueItem &item, const Row &row);
// A stored review (the reviewer's answer) as the engine takes it.
std::optional<protocol::Review> reviewFromText(const std::string &text, const std::string &id);
// Whether a stored review says what the row's decision column says (schema
// 5 writes both from the same count): approve is allow or modify, edit is
// modify, deny and halt are themselves. A row where they differ is not
// applied: the call is denied.
bool reviewMatches(const protocol::Review &review, const std::string &decision);
// The review a decision stands for, when the engine did not give one.
protocol::Review reviewOf(const std::string &id, const protocol::Decision &d);
// An item's `state` in the team, and back.
ItemState stateOf(const std::string &teamState);
std::string teamStateOf(ItemState state);
// How an item ended, from its row: what reviewers elsewhere see of it.
protocol::Decision decisionOf(const Row &row);
// The fields every team audit line about an item carries.
Json callFields(const QueueItem &item, const std::string &gateway);
// `gateway` ends its own `item` with `decision`, a deny, in `teamState`.
Withdraw withdrawalOf(const QueueItem &item, const std::string &gateway,
    const std::string &teamState, const protocol::Decision &decision);
// A row of this gateway pending in the team although this gateway answered
// its call already: a failover to a standby that had not received the answer
// lost it (TEAM.md "Failover"). It ends as a deny, so no one decides it again.
Withdraw lostAnswerOf(const Row &row);

} // namespace holdpoint::team
