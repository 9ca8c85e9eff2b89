// SPDX-License-Identifier: Apache-2.0
#include "teamstore.h"

#include "queue/approvals.h"
#include "team/teamitems.h"

#include <QUuid>

#include <optional>

namespace holdpoint::team {

using protocol::Decision;
using protocol::DecisionKind;

TeamStore::TeamStore(TeamConfig config, Clock *clock, QObject *parent)
    : QueueStore(parent)
    , m_config(std::move(config))
    , m_clock(clock)
    , m_view(clock)
    , m_conn(m_config.url, m_config.connection)
    , m_deadlines(
          clock, [this] { checkLocalDeadlines(); }, this)
{
    // Acting as an instance of an older schema version (TEAM.md "Versions"):
    // the bench's baseline, and tests of a fleet halfway through an upgrade.
    if (const int v = qEnvironmentVariableIntValue("HOLDPOINT_TEAM_AS_VERSION"); v > 0 && v < SchemaVersion)
        m_config.self.knows = v;
    // Deadlines are the database's, enforced once for the whole team.
    m_view.setEnforceDeadlines(false);
    connect(&m_view, &QueueStore::itemAdded, this, &QueueStore::itemAdded);
    connect(&m_view, &QueueStore::itemUpdated, this, &QueueStore::itemUpdated);
    connect(&m_view, &QueueStore::resolved, this, &QueueStore::resolved);
    connect(&m_conn, &TeamConnection::connected, this, &TeamStore::onConnected);
    connect(&m_conn, &TeamConnection::disconnected, this, &TeamStore::onDisconnected);
    connect(&m_conn, &TeamConnection::notified, this, &TeamStore::onNotified);
    m_flush.setSingleShot(true);
    m_flush.setInterval(1000);
    connect(&m_flush, &QTimer::timeout, this, &TeamStore::flushCopies);
    m_heartbeat.setInterval(int(m_config.heartbeatMs));
    connect(&m_heartbeat, &QTimer::timeout, this, &TeamStore::tick);
}

TeamStore::~TeamStore() = default;

void TeamStore::start()
{
    // A console shows the fleet's history; a headless gateway has no view.
    if (m_config.self.kind == "console") {
        m_activity = std::make_unique<TeamActivity>(&m_conn, m_config.self.id);
        connect(m_activity.get(), &TeamActivity::record, this, &TeamStore::activity);
    }
    m_conn.start();
    m_heartbeat.start();
}

std::string TeamStore::newId() const
{
    // 64 random bits: unique across a fleet's gateways, not just this queue.
    return m_view.newId(16);
}

TeamPlace TeamStore::ownPlace() const
{
    TeamPlace p;
    p.host = m_config.self.host;
    p.gateway = m_config.self.id;
    p.local = true;
    return p;
}

TeamPlace TeamStore::placeOf(const Row &row) const
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

void TeamStore::enqueue(QueueItem item)
{
    item.team = ownPlace();
    m_local[item.id] = item.deadline;
    if (item.deadline != NoDeadline)
        m_byDeadline.emplace(item.deadline, item.id);
    if (item.deadline != NoDeadline && item.deadline < m_deadlines.deadline())
        m_deadlines.setDeadline(item.deadline);
    writeEscalation(m_view.add(std::move(item)));
}

void TeamStore::writeEscalation(const QueueItem &item)
{
    // Remembered until its decision is delivered (copyRecord); bounded, at
    // the cost of some `delivered` lines, should agents never be answered.
    constexpr std::size_t MaxRemembered = 100'000;
    if (m_escalatedCalls.size() >= MaxRemembered)
        m_escalatedCalls.clear();
    m_escalatedCalls[item.sessionId + '\n' + item.callId] = item.id;
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

void TeamStore::postEscalations()
{
    if (m_escalations.empty())
        return;
    std::vector<Escalation> batch;
    batch.swap(m_escalations);
    std::vector<std::string> ids;
    for (const Escalation &e : batch)
        ids.push_back(e.id);
    ++m_escalating;
    struct Outcome
    {
        std::optional<Escalated> written;
        std::string error; // why the team refused it
    };
    // One transaction for the batch. If the database refuses it for a reason
    // other than the connection, each goes alone, so one bad item does not
    // take the others down with it. Lost connections retry the whole job:
    // writing an escalation twice changes nothing.
    m_conn.run<std::vector<Outcome>>(
        [batch = std::move(batch), knows = m_config.self.knows](pqxx::connection_base &c) {
            std::vector<Outcome> out;
            try {
                for (Escalated &r : knows < 4 ? escalateEach(c, batch) : escalate(c, batch))
                    out.push_back({ std::move(r), {} });
                return out;
            } catch (const TeamError &error) {
                if (error.retryable() || batch.size() == 1)
                    throw;
            }
            for (const Escalation &e : batch) {
                try {
                    out.push_back({ escalate(c, e), {} });
                } catch (const TeamError &error) {
                    if (error.retryable())
                        throw;
                    out.push_back({ std::nullopt, error.what() });
                }
            }
            return out;
        },
        [this, ids](std::vector<Outcome> outcomes) {
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

void TeamStore::escalated(const std::string &id, const Escalated &r)
{
    if (m_local.count(id) && r.state != "pending")
        refresh({ id }); // decided while this gateway was away
}

void TeamStore::escalationRefused(const std::string &id, const std::string &why)
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

bool TeamStore::resolve(
    const std::string &id, ItemState state, Decision decision, const protocol::Review *review)
{
    if (id == m_applying)
        return m_view.resolve(id, state, std::move(decision));
    const QueueItem *item = m_view.find(id);
    if (!item || m_deciding.count(id))
        return false;
    if (state == ItemState::Decided && decision.decidedBy.rfind("human:", 0) == 0) {
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

VoteOutcome TeamStore::vote(const std::string &id, const ReviewerIdentity &reviewer,
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

Decide TeamStore::decideOf(const QueueItem &item, const protocol::Review &review, const Decision &decision) const
{
    Decide d;
    d.id = item.id;
    d.instance = m_config.self.id;
    // A web session decides as its own reviewer; the database checks that
    // this instance's login may speak for them. Anything else is this
    // console's own reviewer.
    d.reviewer = decision.via.rfind("web", 0) == 0 && decision.decidedBy.rfind("human:", 0) == 0
        ? decision.decidedBy.substr(6)
        : m_config.requestedReviewer;
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

void TeamStore::sendReview(Decide d, ItemState state, Decision decision)
{
    const std::string id = d.id;
    const std::string sentAs = d.reviewer;
    m_deciding.insert(id);
    postEscalations(); // the item's row first
    m_conn.run<Decided>([d](pqxx::connection_base &c) { return decide(c, d); },
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
                    "already_decided: decided by " + r.decidedBy + " at " + formatTimestamp(r.decidedAt)
                        + (r.state == "decided" ? std::string() : " (" + r.state + ")"),
                    reviewer);
                break;
            case Decided::Outcome::Claimed:
                Q_EMIT reviewRefused(
                    id, "being edited by " + r.holder + "; only a halt goes through until they are done", reviewer);
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
        },
        TeamConnection::WhenDown::Fail);
}

void TeamStore::endLocally(
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
    m_conn.run<Withdrawn>(
        [w](pqxx::connection_base &c) { return withdraw(c, w); }, [](Withdrawn) {});
    m_view.resolve(id, state, std::move(decision));
}

void TeamStore::claim(const std::string &id)
{
    if (!m_view.find(id))
        return;
    m_claims.insert(id);
    postEscalations(); // the item's row first
    // The lease is in this login's reviewer name, as the database knows it.
    const std::string self = m_config.self.id, name = claimName();
    const TimeMs lease = m_config.leaseMs;
    m_conn.run<Claimed>(
        [id, self, name, lease](
            pqxx::connection_base &c) { return team::claim(c, id, self, name, lease); },
        [this, id](Claimed r) {
            if (!r.held)
                m_claims.erase(id); // another console's: the claim notice shows whose
        },
        [this, id](const TeamError &) { m_claims.erase(id); }, TeamConnection::WhenDown::Fail);
}

std::string TeamStore::claimName() const
{
    return m_reviewer.empty() ? m_config.requestedReviewer : m_reviewer;
}

void TeamStore::setAgentConnected(const std::string &id, bool connected)
{
    m_view.setAgentConnected(id, connected);
    if (!m_local.count(id))
        return;
    postEscalations(); // the item's row first
    const std::string gateway = m_config.self.id;
    m_conn.run<bool>(
        [gateway, id, connected](pqxx::connection_base &c) {
            return team::setAgentConnected(c, gateway, id, connected);
        },
        [](bool) {});
}

void TeamStore::setTurnFindings(const std::string &sessionId,
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
    const std::string gateway = m_config.self.id;
    const std::string json = dumpJson(protocol::turnFindingsToJson(findings));
    m_conn.run<int>(
        [gateway, sessionId, turnId, json](pqxx::connection_base &c) {
            return team::setTurnFindings(c, gateway, sessionId, turnId, json);
        },
        [](int) {});
}

void TeamStore::release(const std::string &id)
{
    if (!m_claims.erase(id))
        return;
    const std::string self = m_config.self.id;
    m_conn.run<bool>([id, self](pqxx::connection_base &c) { return team::release(c, id, self); },
        [](bool) {}, {}, TeamConnection::WhenDown::Fail);
}

// TeamConnection reports each change once: connected after every (re)open,
// disconnected when an open connection is lost or the first open fails.
void TeamStore::onConnected()
{
    Q_EMIT availabilityChanged(true, {});
    identify();
    tick();
    resync();
}

void TeamStore::identify()
{
    m_conn.run<ReviewerSelf>(
        [requested = m_config.requestedReviewer](
            pqxx::connection_base &c) { return reviewerForLogin(c, requested); },
        [this](ReviewerSelf self) {
            m_reviewer = std::move(self.name);
            m_reviewerOsUser = std::move(self.osUser);
            m_reviewerError.clear();
            Q_EMIT reviewerChanged();
        },
        [this](const TeamError &e) {
            if (e.retryable())
                return; // the next connect asks again
            m_reviewer.clear();
            m_reviewerOsUser.clear();
            m_reviewerError = QString::fromStdString(e.what());
            Q_EMIT reviewerChanged();
        },
        TeamConnection::WhenDown::Fail);
}

void TeamStore::followActivity()
{
    if (m_activity)
        m_activity->follow();
}

void TeamStore::followActingReviewers()
{
    m_followActing = true;
    readActingReviewers();
}

TeamStore::Acting TeamStore::mayActAs(const std::string &name) const
{
    if (!m_acting)
        return Acting::Unknown;
    return m_acting->count(name) ? Acting::Yes : Acting::No;
}

// With every heartbeat (heartbeatMs, 2 s): a disabled or unmapped reviewer
// loses a page within one. A job of its own, so a database that refuses
// the read (a role without SELECT on the reviewer tables) costs the page,
// never the heartbeat.
void TeamStore::readActingReviewers()
{
    if (!m_followActing || m_readingActing || !m_conn.isConnected())
        return;
    m_readingActing = true;
    m_conn.run<std::vector<std::string>>([](pqxx::connection_base &c) { return actingReviewers(c); },
        [this](std::vector<std::string> names) {
            m_readingActing = false;
            setActingReviewers(std::set<std::string>(names.begin(), names.end()));
        },
        [this](const TeamError &) {
            m_readingActing = false;
            // Unknown, not "nobody": the page admits no one meanwhile, but
            // a failed read (a lost connection, a role without SELECT on
            // the reviewer tables) must not revoke every paired device.
            setActingReviewers(std::nullopt);
        },
        TeamConnection::WhenDown::Fail);
}

void TeamStore::setActingReviewers(std::optional<std::set<std::string>> names)
{
    if (names == m_acting)
        return;
    m_acting = std::move(names);
    Q_EMIT actingReviewersChanged();
}

void TeamStore::onDisconnected(const QString &why)
{
    setActingReviewers(std::nullopt);
    Q_EMIT availabilityChanged(false, why);
    checkLocalDeadlines();
}

void TeamStore::tick()
{
    // One at a time: on a slow link a tick may take longer than the
    // interval, and ticks queued behind it would delay every other job.
    if (!m_conn.isConnected() || m_ticking)
        return;
    m_ticking = true;
    followActivity(); // auto-decisions, copied without a notification
    readActingReviewers();
    const Instance self = m_config.self;
    const std::string claimAs = claimName();
    std::vector<std::string> claims(m_claims.begin(), m_claims.end());
    const TimeMs lease = m_config.leaseMs;
    const std::string agents = m_agentsSource ? dumpJson(m_agentsSource()) : std::string("[]");
    struct Beat
    {
        std::vector<InstanceState> instances;
        std::vector<std::string> lost; // leases that did not renew
    };
    m_conn.run<Beat>(
        [self, claimAs, claims, lease, agents](pqxx::connection_base &c) {
            Beat b;
            heartbeat(c, self);
            publishAgents(c, self.id, agents);
            expireDue(c, self.id);
            for (const std::string &id : claims) {
                try {
                    if (!team::claim(c, id, self.id, claimAs, lease).held)
                        b.lost.push_back(id);
                } catch (const TeamError &e) {
                    if (e.retryable())
                        throw;
                    b.lost.push_back(id); // refused (a disabled reviewer): the lease goes
                }
            }
            b.instances = instances(c);
            return b;
        },
        [this](Beat b) {
            m_ticking = false;
            for (const std::string &id : b.lost)
                m_claims.erase(id);
            std::unordered_map<std::string, bool> online;
            m_remoteAgents.clear();
            for (const InstanceState &i : b.instances) {
                online[i.id] = i.online;
                if (i.id == m_config.self.id)
                    continue;
                Json list = Json::parse(i.agents, nullptr, false);
                if (list.is_array() && !list.empty())
                    m_remoteAgents.push_back({ i.id, i.host, i.online, std::move(list) });
            }
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
        },
        [this](const TeamError &) { m_ticking = false; }, TeamConnection::WhenDown::Fail);
}

void TeamStore::copyRecord(const Json &record)
{
    // Escalations, claims, a person's decisions and every ending are in the
    // team's audit already, written with the change they record. What is
    // copied: calls, auto-decisions, and the delivery of an escalated call's
    // decision to its agent, named by its item.
    const std::string event = record.value("event", std::string());
    std::string item;
    if (event == "delivered") {
        const auto it = m_escalatedCalls.find(
            record.value("session", std::string()) + '\n' + record.value("call_id", std::string()));
        if (it == m_escalatedCalls.end())
            return;
        item = std::move(it->second);
        m_escalatedCalls.erase(it);
    } else if (event != "call"
        && !(event == "decision" && record.value("state", std::string()) == "auto")) {
        return;
    }
    // Bounded while the database is away: 100,000 records, then a count.
    constexpr std::size_t MaxWaiting = 100'000;
    if (m_copies.size() + m_copiesInFlight >= MaxWaiting) {
        ++m_copiesLost;
        return;
    }
    Json fields = record;
    fields.erase("event");
    // A standing decision a person made (scope turn or session) is applied
    // here automatically; the copy says so without speaking in their name,
    // which only the database's own decision lines do (TEAM.md "The audit
    // chain").
    if (event == "decision" && fields.value("decided_by", std::string()).rfind("human:", 0) == 0) {
        fields["standing_by"] = fields["decided_by"];
        fields["decided_by"] = "standing";
    }
    fields["at"] = fields.value("ts", std::string());
    fields.erase("ts");
    fields["gateway"] = m_config.self.id;
    if (!item.empty())
        fields["item"] = std::move(item);
    m_copies.push_back({ event, std::move(fields) });
    // A copy holds the audit chain's head until it commits, and so holds up
    // every gateway's escalations: under load, write them in small batches
    // rather than one large one a second.
    // (Version 3 wrote them once a second: the bench's baseline does too.)
    constexpr std::size_t CopyBatch = 64;
    if (m_copies.size() >= CopyBatch && m_config.self.knows >= 4)
        flushCopies();
    else if (!m_flush.isActive())
        m_flush.start();
}

void TeamStore::flushCopies()
{
    if (m_copies.empty())
        return;
    std::vector<AuditEvent> batch = std::move(m_copies);
    m_copies.clear();
    if (m_copiesLost) {
        batch.push_back({ "records_lost",
            Json { { "count", m_copiesLost }, { "gateway", m_config.self.id },
                { "why", "the team database was away too long, or refused them" } } });
        m_copiesLost = 0;
    }
    m_copiesInFlight += batch.size();
    const std::size_t n = batch.size();
    const std::string self = m_config.self.id;
    if (m_copyRun.empty())
        m_copyRun = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
    // Version 3 has no append_audit_once; an instance acting as it copies as it did.
    const std::optional<CopyBatch> once = m_config.self.knows >= 4
        ? std::optional<CopyBatch>(CopyBatch { m_copyRun, ++m_copyBatch })
        : std::nullopt;
    m_conn.run<std::size_t>(
        [batch = std::move(batch), self, once](pqxx::connection_base &c) {
            appendAudit(c, self, batch, once ? &*once : nullptr);
            return batch.size();
        },
        [this](std::size_t written) { m_copiesInFlight -= written; },
        [this, n](const TeamError &) {
            // Refused (schema 5 takes only this instance's own kinds of
            // line) or given up: the next batch says how many were lost.
            m_copiesInFlight -= n;
            m_copiesLost += n;
        });
}

void TeamStore::checkLocalDeadlines()
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
        if (m_conn.isConnected()) {
            // The database ends them (exactly once, whoever asks first) and
            // says so; ask again in a second if its clock is behind ours.
            const std::string self = m_config.self.id;
            m_conn.run<std::vector<std::string>>(
                [self](pqxx::connection_base &c) { return expireDue(c, self); },
                [](std::vector<std::string>) {}, {}, TeamConnection::WhenDown::Fail);
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
                    + m_conn.lastError().toStdString() + ")";
                endLocally(id, ItemState::TimedOut, std::move(d), "unavailable");
            }
        }
    }
    m_deadlines.setDeadline(next);
}

} // namespace holdpoint::team
