// SPDX-License-Identifier: Apache-2.0
// TeamQueue's reading side (TEAM.md "Gateways and consoles", "Under
// load"): notifications name rows, and the view is made to agree with them.

#include "teamqueue.h"

#include "queue/approvals.h"
#include "team/teamitems.h"

#include <algorithm>

namespace holdpoint::team {

using protocol::Decision;
using protocol::DecisionKind;

void TeamQueue::onNotified(const QString &kind, const QString &qid)
{
    followActivity();
    if (kind == u"new-batch") {
        // Schema version 4: one notification for a batch of new items. An
        // instance acting as version 3 ignores it, as version 3 does.
        if (m_config.self.knows < 4)
            return;
        std::vector<std::string> ids;
        for (const QStringView part : QStringView(qid).split(u' ', Qt::SkipEmptyParts)) {
            std::string id = part.toString().toStdString();
            if (!m_local.count(id) && !m_view.find(id))
                ids.push_back(std::move(id));
        }
        refresh(ids);
        return;
    }
    const std::string id = qid.toStdString();
    if (kind == u"new") {
        if (!m_local.count(id) && !m_view.find(id))
            refresh({ id });
    } else if (kind == u"decided" || kind == u"claim" || kind == u"findings" || kind == u"agent"
        || kind == u"vote") {
        if (m_view.find(id) && !m_deciding.count(id))
            refresh({ id });
    }
}

void TeamQueue::refresh(const std::vector<std::string> &ids)
{
    for (const std::string &id : ids)
        if (m_toRefreshSet.insert(id).second)
            m_toRefresh.push_back(id);
    if (m_refreshing || m_toRefresh.empty())
        return;
    if (m_config.self.knows < 4) {
        readRefreshes(); // as version 3 did: the first id at once, alone
        return;
    }
    // Notifications that arrived together are in the event queue already:
    // read once they are all in. Under a burst (a read started less than
    // ReadGapMs ago), wait for the rest of that gap, so every gateway's
    // batches of it are read together: each read costs a round trip and the
    // executor's start whatever its size. At idle, the read starts at once.
    if (m_refreshPosted)
        return;
    m_refreshPosted = true;
    constexpr qint64 ReadGapMs = 4;
    const qint64 since = m_lastRead.isValid() ? m_lastRead.elapsed() : ReadGapMs;
    QTimer::singleShot(std::max<qint64>(0, ReadGapMs - since), Qt::PreciseTimer, this, [this] {
        m_refreshPosted = false;
        if (!m_refreshing)
            readRefreshes();
    });
}

void TeamQueue::readRefreshes()
{
    if (m_toRefresh.empty())
        return;
    std::vector<std::string> ids;
    ids.swap(m_toRefresh);
    m_toRefreshSet.clear();
    m_refreshing = true;
    m_lastRead.start();
    // A read that fails is not retried: the connection is gone, and the
    // resync after the reconnect reads every row again.
    m_link->rows(
        std::move(ids),
        [this](std::vector<Row> found) {
            m_refreshing = false;
            for (const Row &r : found)
                applyRow(r);
            readRefreshes();
        },
        [this](const TeamError &) {
            m_refreshing = false;
            readRefreshes();
        });
}

void TeamQueue::resync()
{
    std::vector<std::string> shown;
    m_view.forEachPending([&](const QueueItem &item) { shown.push_back(item.id); });
    m_link->resync(std::move(shown), [this](Resync s) {
        std::set<std::string> inDb;
        for (const Row &r : s.shown)
            inDb.insert(r.id);
        for (const Row &r : s.pending) {
            inDb.insert(r.id);
            applyRow(r);
        }
        for (const Row &r : s.shown)
            if (r.state != "pending")
                applyRow(r);
        // Items shown here that the team has no row for: a remote one
        // is gone; a local one is written again, since a failover may
        // have lost it (TEAM.md "Failover"), and twice changes nothing.
        std::vector<std::string> gone, unwritten;
        m_view.forEachPending([&](const QueueItem &item) {
            if (!inDb.count(item.id))
                (m_local.count(item.id) ? unwritten : gone).push_back(item.id);
        });
        for (const std::string &id : unwritten)
            if (std::none_of(m_escalations.begin(), m_escalations.end(),
                    [&](const Escalation &e) { return e.id == id; }))
                writeEscalation(*m_view.find(id));
        for (const std::string &id : gone) {
            Decision d;
            d.kind = DecisionKind::Deny;
            d.decidedBy = "team";
            d.reason = "no longer in the team queue";
            m_view.resolve(id, ItemState::Abandoned, std::move(d));
        }
    });
}

void TeamQueue::addRemote(const Row &row)
{
    auto item = itemFromRow(row);
    if (!item || m_view.find(row.id))
        return;
    item->team = placeOf(row);
    m_view.add(std::move(*item));
}

void TeamQueue::applyRow(const Row &row)
{
    const QueueItem *item = m_view.find(row.id);
    if (row.state == "pending") {
        if (!item && row.gateway == m_config.self.id && !m_local.count(row.id)) {
            // Answered here already: the team lost that (TEAM.md "Failover").
            m_link->withdraw(lostAnswerOf(row));
            return;
        }
        if (!item) {
            if (!m_local.count(row.id))
                addRemote(row);
            return;
        }
        const TeamPlace place = placeOf(row);
        if (!item->team || item->team->online != place.online
            || item->team->editingBy != place.editingBy)
            m_view.setTeamPlace(row.id, place);
        if (row.agentConnected && !m_local.count(row.id)) {
            const QueueItem *now = m_view.find(row.id);
            if (now && now->agentConnected != *row.agentConnected)
                m_view.setAgentConnected(row.id, *row.agentConnected);
        }
        if (const QueueItem *now = m_view.find(row.id); now && now->approvals.voted()) {
            QueueItem counted;
            counted.redactions = now->redactions;
            applyVotes(counted, row);
            m_view.setVotes(row.id, std::move(counted.votes),
                std::move(counted.editedArgs)); // no-op if unchanged
        }
        if (row.turnFindingsText && !m_local.count(row.id)) {
            const Json f = Json::parse(*row.turnFindingsText, nullptr, false);
            const QueueItem *now = m_view.find(row.id);
            if (f.is_array() && now) {
                auto findings = protocol::turnFindingsFromJson(f);
                if (findings != now->turnFindings)
                    m_view.setTurnFindings(now->sessionId, now->turnId, findings);
            }
        }
        return;
    }
    if (!item || m_deciding.count(row.id))
        return;
    m_claims.erase(row.id);
    if (m_local.erase(row.id) && row.state == "decided") {
        // A person decided one of our agents' calls elsewhere: the engine
        // plans it here, with the real values, and resolves it.
        // Applied only as the database computed it: its review text, which
        // must say what its decision column says.
        const auto review = reviewFromText(row.reviewText, row.id);
        if (review && reviewMatches(*review, row.decision)) {
            m_applying = row.id;
            Q_EMIT decidedElsewhere(*review, row.decidedBy);
            m_applying.clear();
        }
        if (m_view.find(row.id)) {
            Decision d;
            d.kind = DecisionKind::Deny;
            d.decidedBy = row.decidedBy;
            d.code = "invalid_review";
            d.reason = "the decision made by " + row.decidedBy + " could not be applied here";
            m_view.resolve(row.id, ItemState::Decided, std::move(d));
        }
        return;
    }
    m_view.resolve(row.id, stateOf(row.state), decisionOf(row));
}

} // namespace holdpoint::team
