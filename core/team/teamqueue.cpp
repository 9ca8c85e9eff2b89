// SPDX-License-Identifier: Apache-2.0
#include "teamqueue.h"

#include "protocol/decider.h"
#include "queue/approvals.h"
#include "team/teamactivity.h"
#include "team/teamconnection.h"
#include "team/teamitems.h"

#include <optional>

namespace holdpoint::team {

using protocol::Decision;
using protocol::DecisionKind;

TeamQueue::TeamQueue(TeamConfig config, Clock *clock, QObject *parent)
    : TeamQueue(
        config, clock, std::make_unique<TeamConnection>(config.url, config.connection), parent)
{ }

TeamQueue::TeamQueue(
    TeamConfig config, Clock *clock, std::unique_ptr<TeamLink> link, QObject *parent)
    : SharedQueue(parent)
    , m_config(std::move(config))
    , m_clock(clock)
    , m_view(clock)
    , m_link(std::move(link))
    , m_presence(m_link.get(), clock, &m_config)
    , m_shipper(m_link.get(), clock, &m_config)
    , m_deadlines(
          clock, [this] { checkLocalDeadlines(); }, this)
{
    // Acting as an instance of an older schema version (TEAM.md "Versions"):
    // the bench's baseline, and tests of a fleet halfway through an upgrade.
    if (const int v = qEnvironmentVariableIntValue("HOLDPOINT_TEAM_AS_VERSION");
        v > 0 && v < SchemaVersion)
        m_config.self.knows = v;
    // Deadlines are the database's, enforced once for the whole team.
    m_view.setEnforceDeadlines(false);
    connect(&m_view, &QueueStore::itemAdded, this, &QueueStore::itemAdded);
    connect(&m_view, &QueueStore::itemUpdated, this, &QueueStore::itemUpdated);
    connect(&m_view, &QueueStore::resolved, this, &QueueStore::resolved);
    connect(m_link.get(), &TeamLink::connected, this, &TeamQueue::onConnected);
    connect(m_link.get(), &TeamLink::disconnected, this, &TeamQueue::onDisconnected);
    connect(m_link.get(), &TeamLink::notified, this, &TeamQueue::onNotified);
    connect(&m_presence, &TeamPresence::reviewerChanged, this, &TeamQueue::reviewerChanged);
    connect(&m_presence, &TeamPresence::actingReviewersChanged, this,
        &TeamQueue::actingReviewersChanged);
    m_presence.setHooks({
        [this] { return std::vector<std::string>(m_claims.begin(), m_claims.end()); },
        [this] { followActivity(); }, // auto-decisions, copied without a notification
        [this](const BeatAnswer &b) { beaten(b); },
    });
}

TeamQueue::~TeamQueue() = default;

void TeamQueue::start()
{
    // A console shows the fleet's history; a headless gateway has no view.
    if (m_config.self.kind == "console") {
        m_activity = std::make_unique<TeamActivity>(m_link.get(), m_config.self.id);
        connect(m_activity.get(), &TeamActivity::record, this, &TeamQueue::activity);
    }
    m_link->start();
    m_presence.start();
}

std::string TeamQueue::newId() const
{
    // 64 random bits: unique across a fleet's gateways, not just this queue.
    return m_view.newId(16);
}

TeamPlace TeamQueue::ownPlace() const
{
    TeamPlace p;
    p.host = m_config.self.host;
    p.gateway = m_config.self.id;
    p.local = true;
    return p;
}

TeamPlace TeamQueue::placeOf(const Row &row) const
{
    TeamPlace p;
    p.host = row.host;
    p.gateway = row.gateway;
    p.local = row.gateway == m_config.self.id;
    p.online = p.local || row.gatewayOnline;
    if (row.claimUntil > row.now && row.claimedBy != m_config.self.id)
        p.editingBy = row.claimName;
    return p;
}

void TeamQueue::enqueue(QueueItem item)
{
    item.team = ownPlace();
    m_local[item.id] = item.deadline;
    if (item.deadline != NoDeadline)
        m_byDeadline.emplace(item.deadline, item.id);
    if (item.deadline != NoDeadline && item.deadline < m_deadlines.deadline())
        m_deadlines.setDeadline(item.deadline);
    writeEscalation(m_view.add(std::move(item)));
}

void TeamQueue::writeEscalation(const QueueItem &item)
{
    // Its decision's delivery is copied to the team's audit, named by item.
    m_shipper.escalated(item.sessionId, item.callId, item.id);
    Escalation e;
    e.id = item.id;
    e.gateway = m_config.self.id;
    e.host = m_config.self.host;
    e.sessionId = item.sessionId;
    e.callId = item.callId;
    e.turnId = item.turnId;
    e.tool = item.toolName;
    e.item = itemToJson(item); // masked
    e.waitMs
        = item.deadline == NoDeadline ? 0 : std::max<TimeMs>(0, item.deadline - m_clock->now());
    e.audit = callFields(item, m_config.self.id);
    e.audit["host"] = m_config.self.host;
    e.audit["reason"] = maskText(item.reason, item.redactions); // it may quote the args
    e.audit["deadline"] = formatTimestamp(item.deadline);
    m_escalations.push_back(std::move(e));
    if (!m_escalating)
        postEscalations();
}

void TeamQueue::postEscalations()
{
    if (m_escalations.empty())
        return;
    std::vector<Escalation> batch;
    batch.swap(m_escalations);
    std::vector<std::string> ids;
    for (const Escalation &e : batch)
        ids.push_back(e.id);
    ++m_escalating;
    // One transaction for the batch (TeamLink::escalate).
    m_link->escalate(
        std::move(batch), m_config.self.knows,
        [this, ids](std::vector<EscalationOutcome> outcomes) {
            --m_escalating;
            for (std::size_t i = 0; i < ids.size() && i < outcomes.size(); ++i) {
                if (outcomes[i].written)
                    escalated(ids[i], *outcomes[i].written);
                else
                    escalationRefused(ids[i], outcomes[i].error);
            }
            postEscalations();
        },
        [this, ids](const TeamError &error) {
            --m_escalating;
            for (const std::string &id : ids)
                escalationRefused(id, error.what());
            postEscalations();
        });
}

void TeamQueue::escalated(const std::string &id, const Escalated &r)
{
    if (m_local.count(id) && r.state != "pending")
        refresh({ id }); // decided while this gateway was away
}

void TeamQueue::escalationRefused(const std::string &id, const std::string &why)
{
    if (!m_local.count(id))
        return;
    Decision d;
    d.kind = DecisionKind::Deny;
    d.decidedBy = "team";
    d.code = "team_unavailable";
    d.reason = "the team refused the escalation: " + why;
    endLocally(id, ItemState::TimedOut, std::move(d), "unavailable");
}

bool TeamQueue::resolve(
    const std::string &id, ItemState state, Decision decision, const protocol::Review *review)
{
    if (id == m_applying)
        return m_view.resolve(id, state, std::move(decision));
    const QueueItem *item = m_view.find(id);
    if (!item || m_deciding.count(id))
        return false;
    if (state == ItemState::Decided && protocol::Decider::of(decision.decidedBy).isPerson()) {
        // A person's decision: exactly one per item, settled by the database.
        const protocol::Review answer = review ? *review : reviewOf(id, decision);
        Decide d = decideOf(*item, answer, decision);
        sendReview(std::move(d), state, std::move(decision));
        return true;
    }
    // Anything else is a deny this process makes about its own agent's
    // call: cancelled, or abandoned after the grace period.
    if (m_local.count(id)) {
        endLocally(id, state, std::move(decision), teamStateOf(state));
        return true;
    }
    return false;
}

VoteOutcome TeamQueue::vote(const std::string &id, const ReviewerIdentity &reviewer,
    const std::optional<Json> &editArgs, Decision final, const protocol::Review &review)
{
    VoteOutcome out;
    const QueueItem *item = m_view.find(id);
    if (!item || m_deciding.count(id)) {
        out.message = item ? "a decision on " + id + " is on its way already" : noPendingItem(id);
        return out;
    }
    out.required = item->approvals.required;
    out.approvals = approvalCount(*item);
    final.decidedBy = reviewer.decidedBy();
    final.via = reviewer.via;
    Decide d = decideOf(*item, review, final);
    d.action = editArgs ? "edit" : "approve";
    // An approval names what it was shown, so one that crossed an edit is
    // refused; the database votes for what it stores, never for these.
    d.args = item->masked(editArgs ? *editArgs : approvedArgs(*item));
    sendReview(std::move(d), ItemState::Decided, std::move(final));
    out.ok = true;
    out.later = true;
    return out;
}

Decide TeamQueue::decideOf(
    const QueueItem &item, const protocol::Review &review, const Decision &decision) const
{
    Decide d;
    d.id = item.id;
    d.instance = m_config.self.id;
    // A web session decides as its own reviewer; the database checks that
    // this instance's login may speak for them. Anything else is this
    // console's own reviewer.
    const protocol::Decider who = protocol::Decider::of(decision.decidedBy, decision.via);
    d.reviewer
        = who.isPerson() && who.via.rfind("web", 0) == 0 ? who.name : m_config.requestedReviewer;
    d.via = decision.via.empty() ? std::string("console") : decision.via;
    d.action = std::string(protocol::reviewActionName(review.action));
    // Edited args and a reason may hold secrets the person revealed: the
    // team keeps them masked, and the gateway that runs the call puts the
    // args' real values back (engine/reviewdecision.cpp), as for any edit
    // of the masked view. The decision and its record are the database's.
    if (review.action == protocol::ReviewAction::Edit && review.args)
        d.args = item.masked(*review.args);
    if (review.scope != protocol::ReviewScope::Call)
        d.scope = std::string(protocol::reviewScopeName(review.scope));
    d.reason = maskText(
        review.reason, item.redactions); // the reviewer's own words, as the review carries them
    return d;
}

void TeamQueue::sendReview(Decide d, ItemState state, Decision decision)
{
    const std::string id = d.id;
    const std::string sentAs = d.reviewer;
    m_deciding.insert(id);
    postEscalations(); // the item's row first
    m_link->review(
        std::move(d),
        [this, id, sentAs, state, decision](Decided r) mutable {
            m_deciding.erase(id);
            // Who the outcome is for: the name the database decided as,
            // else the one the review was sent as.
            const std::string &reviewer = r.reviewer.empty() ? sentAs : r.reviewer;
            switch (r.outcome) {
            case Decided::Outcome::Decided:
                if (r.decidedBy.find(',') != std::string::npos || r.required > 1
                    || r.decision != protocol::decisionKindName(decision.kind)) {
                    // This approval completed the count, or the database
                    // decided otherwise than planned here: the decision is
                    // the one the database computed and keeps, applied as
                    // one made elsewhere.
                    refresh({ id });
                    return;
                }
                m_claims.erase(id);
                m_local.erase(id);
                // Who decided is who the database says authenticated.
                decision.decidedBy = r.decidedBy;
                m_view.resolve(id, state, std::move(decision));
                return;
            case Decided::Outcome::Voted:
                Q_EMIT voteCounted(id, r.approvals, r.required, reviewer);
                refresh({ id });
                return;
            case Decided::Outcome::Refused:
                Q_EMIT reviewRefused(id, r.message, reviewer);
                refresh({ id });
                return;
            case Decided::Outcome::AlreadyDecided:
                Q_EMIT reviewRefused(id,
                    "already_decided: decided by " + r.decidedBy + " at "
                        + formatTimestamp(r.decidedAt)
                        + (r.state == "decided" ? std::string() : " (" + r.state + ")"),
                    reviewer);
                break;
            case Decided::Outcome::Claimed:
                Q_EMIT reviewRefused(id,
                    "being edited by " + r.holder
                        + "; only a halt goes through until they are done",
                    reviewer);
                break;
            case Decided::Outcome::UnknownItem:
                Q_EMIT reviewRefused(id, "no such item in the team queue", reviewer);
                break;
            }
            refresh({ id });
        },
        [this, id, sentAs](const TeamError &error) {
            m_deciding.erase(id);
            Q_EMIT reviewRefused(id, "not decided: " + std::string(error.what()), sentAs);
        });
}

void TeamQueue::endLocally(
    const std::string &id, ItemState state, Decision decision, const std::string &teamState)
{
    const QueueItem *item = m_view.find(id);
    if (!item)
        return;
    const Withdraw w = withdrawalOf(*item, m_config.self.id, teamState, decision);
    m_local.erase(id);
    m_claims.erase(id);
    postEscalations(); // the item's row first
    // Written once the database is back; a reviewer's decision that got
    // there first stands there, and this deny stands here.
    m_link->withdraw(w);
    m_view.resolve(id, state, std::move(decision));
}

void TeamQueue::claim(const std::string &id)
{
    if (!m_view.find(id))
        return;
    m_claims.insert(id);
    postEscalations(); // the item's row first
    // The lease is in this login's reviewer name, as the database knows it.
    m_link->claim(
        id, m_config.self.id, m_presence.claimName(), m_config.leaseMs,
        [this, id](Claimed r) {
            if (!r.held)
                m_claims.erase(id); // another console's: the claim notice shows whose
        },
        [this, id](const TeamError &) { m_claims.erase(id); });
}

void TeamQueue::setAgentConnected(const std::string &id, bool connected)
{
    m_view.setAgentConnected(id, connected);
    if (!m_local.count(id))
        return;
    postEscalations(); // the item's row first
    m_link->setAgentConnected(m_config.self.id, id, connected);
}

void TeamQueue::setTurnFindings(const std::string &sessionId,
    const std::optional<std::string> &turnId, const std::vector<protocol::TurnFinding> &findings)
{
    m_view.setTurnFindings(sessionId, turnId, findings);
    bool ours = false;
    m_view.forEachPending([&](const QueueItem &item) {
        ours = ours
            || (item.sessionId == sessionId && item.turnId == turnId && m_local.count(item.id));
    });
    if (!ours)
        return;
    postEscalations(); // the items' rows first
    m_link->setTurnFindings(
        m_config.self.id, sessionId, turnId, dumpJson(protocol::turnFindingsToJson(findings)));
}

void TeamQueue::release(const std::string &id)
{
    if (!m_claims.erase(id))
        return;
    m_link->release(id, m_config.self.id);
}

// TeamConnection reports each change once: connected after every (re)open,
// disconnected when an open connection is lost or the first open fails.
void TeamQueue::onConnected()
{
    Q_EMIT availabilityChanged(true, {});
    m_presence.onConnected(); // who this login is, and a heartbeat
    resync();
}

void TeamQueue::followActivity()
{
    if (m_activity)
        m_activity->follow();
}

void TeamQueue::onDisconnected(const QString &why)
{
    m_presence.onDisconnected();
    Q_EMIT availabilityChanged(false, why);
    checkLocalDeadlines();
}

void TeamQueue::beaten(const BeatAnswer &b)
{
    for (const std::string &id : b.lost)
        m_claims.erase(id);
    std::unordered_map<std::string, bool> online;
    for (const InstanceState &i : b.instances)
        online[i.id] = i.online;
    std::vector<std::pair<std::string, TeamPlace>> changed;
    m_view.forEachPending([&](const QueueItem &item) {
        if (!item.team || item.team->local)
            return;
        const auto it = online.find(item.team->gateway);
        const bool now = it != online.end() && it->second;
        if (now != item.team->online) {
            TeamPlace p = *item.team;
            p.online = now;
            changed.emplace_back(item.id, std::move(p));
        }
    });
    for (auto &[id, place] : changed)
        m_view.setTeamPlace(id, std::move(place));
}

void TeamQueue::checkLocalDeadlines()
{
    const TimeMs now = m_clock->now();
    // m_byDeadline may name items that ended since: an entry counts while
    // m_local still holds that item with that deadline.
    auto current = [this](const std::pair<const TimeMs, std::string> &e) {
        const auto it = m_local.find(e.second);
        return it != m_local.end() && it->second == e.first;
    };
    std::vector<std::pair<TimeMs, std::string>> due;
    while (!m_byDeadline.empty() && m_byDeadline.begin()->first <= now) {
        if (current(*m_byDeadline.begin()))
            due.emplace_back(m_byDeadline.begin()->first, m_byDeadline.begin()->second);
        m_byDeadline.erase(m_byDeadline.begin());
    }
    while (!m_byDeadline.empty() && !current(*m_byDeadline.begin()))
        m_byDeadline.erase(m_byDeadline.begin());
    TimeMs next = m_byDeadline.empty() ? NoDeadline : m_byDeadline.begin()->first;
    if (!due.empty()) {
        if (m_link->isConnected()) {
            // The database ends them (exactly once, whoever asks first) and
            // says so; ask again in a second if its clock is behind ours.
            m_link->expireDue(m_config.self.id);
            next = std::min(next, now + 1'000);
            // Still ours until the database's answer ends them.
            m_byDeadline.insert(due.begin(), due.end());
        } else {
            for (const auto &[deadline, id] : due) {
                Decision d;
                d.kind = DecisionKind::Deny;
                d.decidedBy = "timeout";
                d.code = "team_unavailable";
                d.reason = "denied: the team database was unreachable until the deadline ("
                    + m_link->lastError().toStdString() + ")";
                endLocally(id, ItemState::TimedOut, std::move(d), "unavailable");
            }
        }
    }
    m_deadlines.setDeadline(next);
}

} // namespace holdpoint::team
