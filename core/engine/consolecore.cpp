// SPDX-License-Identifier: Apache-2.0
#include "consolecore.h"

#include "engine/broker.h"
#include "server/endpoint.h"

#include "common/datadir.h"
#include "common/reviewertokens.h"
#include "guardrails/chain.h"
#include "policy/policywatcher.h"
#include "replay/alwaysrule.h"
#include "replay/suggest.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMetaMethod>
#include <QSysInfo>

#include <algorithm>

#include <csignal>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <unistd.h>

namespace holdpoint {

namespace {

// This instance's id in the team, kept in the data dir so that a gateway
// that restarts (or was killed) finds its pending items again.
bool teamInstanceId(
    const QString &dataDir, const std::string &kind, std::string *id, QString *error)
{
    const QString path = dataDir + QStringLiteral("/team-instance");
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) {
        const QByteArray kept = f.readAll().trimmed();
        if (!kept.isEmpty() && kept.size() <= 200) {
            *id = kept.toStdString();
            return true;
        }
    }
    *id = kind + "-" + QSysInfo::machineHostName().toStdString() + "-"
        + generateToken().left(8).toStdString();
    return writePrivateFile(path, QByteArray::fromStdString(*id) + '\n', error);
}

// What a team instance publishes of its agent sessions (TEAM.md "Schema"),
// at most MaxPublished of them, most recently active first.
constexpr std::size_t MaxPublished = 1000;

Json sessionsToJson(std::vector<SessionInfo> sessions)
{
    std::sort(sessions.begin(), sessions.end(),
        [](const SessionInfo &a, const SessionInfo &b) { return a.lastActivity > b.lastActivity; });
    if (sessions.size() > MaxPublished)
        sessions.resize(MaxPublished);
    Json out = Json::array();
    for (const SessionInfo &s : sessions) {
        Json j { { "session", s.id }, { "agent", s.agent.name }, { "framework", s.agent.framework },
            { "connections", s.connections }, { "pending", s.pending },
            { "last_activity", s.lastActivity }, { "grants", s.grants } };
        if (s.currentTurn)
            j["turn"] = *s.currentTurn;
        out.push_back(std::move(j));
    }
    return out;
}

// Another instance's sessions, read defensively: whatever is not of the
// expected type is left at its default.
std::vector<SessionInfo> sessionsFromJson(const Json &list, const std::string &instance)
{
    auto str = [](const Json &j, const char *key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto num = [](const Json &j, const char *key) -> long long {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<long long>() : 0;
    };
    std::vector<SessionInfo> out;
    for (const Json &j : list) {
        if (!j.is_object() || str(j, "session").empty() || out.size() >= MaxPublished)
            continue;
        SessionInfo s;
        s.id = instance + '/' + str(j, "session");
        s.agent.name = str(j, "agent");
        s.agent.framework = str(j, "framework");
        s.connections = int(std::clamp<long long>(num(j, "connections"), 0, 1'000'000));
        s.pending = int(std::clamp<long long>(num(j, "pending"), 0, 1'000'000'000));
        s.lastActivity = num(j, "last_activity");
        if (const std::string turn = str(j, "turn"); !turn.empty())
            s.currentTurn = turn;
        if (const auto g = j.find("grants"); g != j.end() && g->is_array())
            for (const Json &grant : *g)
                if (grant.is_string())
                    s.grants.push_back(grant.get<std::string>());
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace

std::string ConsoleCore::currentOsUser()
{
    return holdpoint::currentOsUser();
}

ConsoleCore::ConsoleCore(ConsoleOptions options, Clock *clock, QObject *parent)
    : ConsoleCore(std::move(options), nullptr, clock, parent)
{ }

ConsoleCore::ConsoleCore(
    ConsoleOptions options, std::unique_ptr<SharedQueue> shared, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    if (!clock) {
        m_ownClock = std::make_unique<SystemClock>();
        clock = m_ownClock.get();
    }
    m_clock = clock;
    m_options.endpoint.port = m_options.port;
    m_options.endpoint.agentToken = generateToken();
    m_options.endpoint.reviewerToken = generateToken();
    // Alone, other people review with tokens of their own (holdpoint-ctl
    // reviewer add); a team's reviewers are its database's logins.
    if (!shared && m_options.endpoint.reviewersFile.isEmpty())
        m_options.endpoint.reviewersFile
            = m_options.dataDir + u'/' + QLatin1String(ReviewersFileName);
    if (m_options.broker.reviewerName.empty())
        m_options.broker.reviewerName = currentOsUser();
    if (m_options.broker.osUser.empty())
        m_options.broker.osUser = currentOsUser();
    if (m_options.broker.serverName.empty())
        m_options.broker.serverName = std::string("holdpoint/") + HOLDPOINT_VERSION;
    m_options.broker.maxMessageBytes = m_options.endpoint.maxMessageBytes;

    if (m_options.audit.dir.isEmpty())
        m_options.audit.dir = m_options.dataDir + u'/' + QLatin1String(audit::DirName);

    if (shared) {
        m_team = shared.get();
        m_queue = shared->view();
        m_store = std::move(shared);
        connect(
            m_team, &SharedQueue::availabilityChanged, this, &ConsoleCore::teamAvailabilityChanged);
        connect(m_team, &SharedQueue::reviewerChanged, this, &ConsoleCore::reviewerChanged);
        // History and Turns show the whole team's calls and decisions.
        connect(m_team, &SharedQueue::activity, this, &ConsoleCore::activity);
    } else {
        auto queue = std::make_unique<ReviewQueue>(m_clock);
        m_queue = queue.get();
        m_store = std::move(queue);
    }
    connect(m_store.get(), &QueueStore::reviewRefused, this, &ConsoleCore::reviewRefused);
    m_audit = std::make_unique<AuditLog>(m_options.audit, m_clock);
    m_options.endpoint.ownerName = m_options.broker.reviewerName;
    m_endpoint = std::make_unique<Endpoint>(m_options.endpoint);
    m_broker = std::make_unique<Broker>(m_store.get(), m_clock, m_endpoint.get(), m_options.broker);
    m_broker->setPolicy(withSelfGuard(m_options.policy, selfGuardContext()));
    m_broker->setAuditLog(m_audit.get());
    m_endpoint->setHandler(m_broker.get());
    connect(m_endpoint.get(), &Endpoint::rejected, this,
        [this](const QString &peer, const QString &why) {
            m_audit->append("connection_rejected",
                Json { { "peer", peer.toStdString() }, { "why", why.toStdString() } });
            Q_EMIT connectionRejected(peer, why);
        });
    // Who may review is part of the record: each change of the named
    // reviewers the console admits (holdpoint-ctl reviewer add/remove).
    connect(m_endpoint.get(), &Endpoint::reviewersChanged, this,
        [this](const Json &reviewers, const QString &problem) {
            Json fields { { "reviewers", reviewers } };
            if (!problem.isEmpty())
                fields["problem"] = problem.toStdString();
            m_audit->append("reviewers_changed", std::move(fields));
            Q_EMIT namedReviewersChanged();
        });
    if (isSignalConnected(QMetaMethod::fromSignal(&ConsoleCore::activity)))
        forwardActivity();
    if (m_team) {
        connect(m_broker.get(), &Broker::activity, m_team, &SharedQueue::copyRecord);
        m_team->setAgentsSource([this] { return sessionsToJson(m_broker->sessionsInfo()); });
    }
    connect(m_broker.get(), &Broker::connectionsChanged, this, &ConsoleCore::connectionsChanged);
    connect(m_audit.get(), &AuditLog::availabilityChanged, this,
        [this](bool available, const QString &error) {
            if (available)
                m_audit->append("audit_available", Json::object());
            Q_EMIT auditAvailabilityChanged(available, error);
        });

    watchPolicy();
}

void ConsoleCore::connectNotify(const QMetaMethod &signal)
{
    if (signal == QMetaMethod::fromSignal(&ConsoleCore::activity) && m_broker)
        forwardActivity();
}

void ConsoleCore::forwardActivity()
{
    // Only once someone listens (the window's views): the broker writes its
    // records without trees and builds one for the signal only if asked.
    if (std::exchange(m_forwardingActivity, true))
        return;
    connect(m_broker.get(), &Broker::activity, this, &ConsoleCore::activity);
}

void ConsoleCore::watchPolicy()
{
    const QStringList files = m_options.policyFiles;
    if (files.isEmpty())
        return; // the built-in default: nothing on disk to watch
    // A valid edit takes effect for the next call; an invalid one keeps the
    // policy in force. Never falls open.
    m_policyWatcher = std::make_unique<PolicyWatcher>(files);
    connect(m_policyWatcher.get(), &PolicyWatcher::reloaded, this, [this](const Policy &policy) {
        m_broker->setPolicy(withSelfGuard(policy, selfGuardContext()));
        m_lastPolicyError.clear();
        Json reload { { "files", policyFilesJson() },
            { "guardrails", m_broker->policy().chain->size() } };
        if (policy.selfGuardOff)
            reload["self_guard_off"] = *policy.selfGuardOff;
        m_audit->append("policy_reload", std::move(reload));
        Q_EMIT policyReloaded();
    });
    connect(
        m_policyWatcher.get(), &PolicyWatcher::reloadFailed, this, [this](const QString &error) {
            m_lastPolicyError = error;
            m_audit->append("policy_reload_failed",
                Json { { "error", error.toStdString() }, { "kept", "the previous policy" } });
            Q_EMIT policyReloadFailed(error);
        });
}

SelfGuardContext ConsoleCore::selfGuardContext() const
{
    SelfGuardContext c;
    const auto absolute
        = [](const QString &p) { return QDir::cleanPath(QDir(p).absolutePath()).toStdString(); };
    if (!m_options.dataDir.isEmpty())
        c.dataDir = absolute(m_options.dataDir);
    if (!m_options.audit.dir.isEmpty())
        c.auditDir = absolute(m_options.audit.dir);
    for (const QString &f : m_options.policyFiles)
        if (!f.startsWith(u':'))
            c.policyFiles.push_back(absolute(f));
    c.policyFiles.push_back(absolute(userPolicyFile())); // where "always" rules go
    c.consolePid = QCoreApplication::applicationPid();
    return c;
}

QString ConsoleCore::policyWarning() const
{
    return holdpoint::policyWarning(m_broker->policy());
}

Json ConsoleCore::policyFilesJson() const
{
    Json files = Json::array();
    for (const QString &f : m_options.policyFiles)
        files.push_back(f.toStdString());
    return files;
}

QString ConsoleCore::url() const
{
    return m_endpoint->url();
}

quint16 ConsoleCore::port() const
{
    return m_endpoint->port();
}

int ConsoleCore::connectionCount() const
{
    return m_endpoint->connectionCount();
}

ReviewOutcome ConsoleCore::review(const protocol::Review &review)
{
    return m_broker->review(review, m_broker->consoleReviewer());
}

std::optional<NamedReviewer> ConsoleCore::namedReviewer(const std::string &name) const
{
    if (m_team || !m_endpoint)
        return std::nullopt;
    for (const NamedReviewer &n : m_endpoint->namedReviewers())
        if (n.name == name)
            return n;
    return std::nullopt;
}

void ConsoleCore::recordReveal(const QueueItem &item)
{
    // Who looked at which secrets is part of the record.
    Json kinds = Json::array();
    for (const Redaction &r : item.redactions)
        kinds.push_back(r.kind);
    m_audit->append("secrets_revealed",
        Json { { "item", item.id }, { "call_id", item.callId }, { "session", item.sessionId },
            { "agent", item.agent.name }, { "tool", item.toolName }, { "kinds", kinds },
            { "os_user", reviewerName() } });
}

std::vector<Json> ConsoleCore::recentActivity(std::size_t scanned) const
{
    std::vector<Json> records;
    audit::query(m_audit->dir(), {}, scanned, [&](std::string_view, const Json &r) {
        const std::string &event = r["event"].get_ref<const std::string &>();
        if (event == "call" || event == "decision" || event == "after_call")
            records.push_back(r);
        return true;
    });
    std::reverse(records.begin(), records.end());
    return records;
}

std::vector<GuardrailSummary> ConsoleCore::guardrails() const
{
    const GuardrailChain &chain = *policy().chain;
    const auto health = chain.health();
    std::vector<GuardrailSummary> out;
    for (std::size_t i = 0; i < chain.entries().size(); ++i) {
        const ChainEntry &e = chain.entries()[i];
        GuardrailSummary g;
        g.name = i < health.size() ? health[i].name : std::string(e.guardrail->name());
        g.failOpen = e.failOpen;
        g.budget = e.budget;
        if (i < health.size()) {
            g.healthy = health[i].ok;
            g.detail = health[i].detail;
        }
        out.push_back(std::move(g));
    }
    return out;
}

Json ConsoleCore::alwaysRuleFrom(
    const RuleShape &shape, const QueueItem &item, const std::string &reason) const
{
    return ruleFromShape(shape, item, reason, reviewerName(), m_clock->now());
}

std::vector<Json> ConsoleCore::pastMatches(
    const Json &rule, std::size_t limit, std::size_t scanned) const
{
    // The call being decided is in the log, but maybe not on disk yet.
    m_audit->waitDurable(2000);
    return holdpoint::pastMatches(m_audit->dir(), rule, limit, scanned);
}

QString ConsoleCore::userPolicyFile() const
{
    for (auto it = m_options.policyFiles.rbegin(); it != m_options.policyFiles.rend(); ++it)
        if (!it->startsWith(u':'))
            return *it;
    return m_options.dataDir + QStringLiteral("/policy.json");
}

bool ConsoleCore::addAlwaysRule(const Json &rule, QString *error)
{
    const QString file = userPolicyFile();
    if (!addRuleToPolicyFile(file, rule, error))
        return false;
    m_audit->append("policy_rule_added", Json { { "file", file.toStdString() }, { "rule", rule } });
    return putRuleInForce(file, error);
}

bool ConsoleCore::acceptSuggestion(const replay::Suggestion &suggestion, QString *error)
{
    // replay's writer adds the rule to the file and appends its record
    // through the log it is given: this console's own, never a second one.
    const QString file = userPolicyFile();
    if (!replay::acceptSuggestion(suggestion, file, m_audit.get(), error))
        return false;
    return putRuleInForce(file, error);
}

bool ConsoleCore::putRuleInForce(const QString &file, QString *error)
{
    if (!m_options.policyFiles.contains(file)) {
        // The data dir's policy.json, new: from now on it is loaded after
        // the built-in default and watched like any policy file.
        if (m_options.policyFiles.isEmpty())
            m_options.policyFiles << defaultPolicyPath();
        m_options.policyFiles << file;
        m_policyWatcher.reset();
        watchPolicy();
    }
    m_policyWatcher->reloadNow();
    if (!m_lastPolicyError.isEmpty()) {
        *error = m_lastPolicyError;
        return false;
    }
    return true;
}

void ConsoleCore::reloadPolicy()
{
    if (m_policyWatcher)
        m_policyWatcher->reloadNow();
}

ConsoleCore::~ConsoleCore()
{
    stop();
    // The endpoint goes first so no socket calls into a destroyed broker.
    m_endpoint.reset();
    m_broker.reset();
}

bool ConsoleCore::start(QString *error)
{
    // A write past RLIMIT_FSIZE must fail like a full disk (and fail
    // closed), not kill the console.
    std::signal(SIGXFSZ, SIG_IGN);
#ifdef __GLIBC__
    // Large messages (up to the message limit) are mapped and unmapped on
    // their own; glibc's default would raise this threshold after the first
    // big free and grow the heap with them, where they fragment it.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    const QString dir = m_options.dataDir;
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QStringLiteral("cannot create data directory %1").arg(dir);
        return false;
    }

    // One console per data dir: a second one would overwrite the first's
    // endpoint file and strand its agents.
    const QString lockPath = dir + QStringLiteral("/console.lock");
    m_lock = std::make_unique<QLockFile>(lockPath);
    if (!m_lock->tryLock(0)) {
        qint64 pid = 0;
        QString host, app;
        m_lock->getLockInfo(&pid, &host, &app);
        if (error)
            *error = QStringLiteral("another console (pid %1) is already using data directory %2")
                         .arg(pid)
                         .arg(dir);
        m_lock.reset();
        return false;
    }
    // QLockFile creates it with the umask's mode, usually 0644; like every
    // other file in the data dir it is the user's alone (it names our pid and host).
    QFile::setPermissions(lockPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    // Only once the dir is ours: a second console that stops at the lock
    // must not change what the running one's agents may reach.
    if (m_options.agentGroup.isEmpty() ? !ensurePrivateDir(dir, error)
                                       : !shareDirWithGroup(dir, m_options.agentGroup, error)) {
        m_lock.reset();
        return false;
    }

    if (m_team) {
        // Before the log restores pending items: they escalate under this id.
        std::string id;
        if (!teamInstanceId(dir, m_team->instanceKind(), &id, error)) {
            m_lock.reset();
            return false;
        }
        m_team->setInstanceId(std::move(id));
    }

    // The log opens first: what it restores is in the queue before any
    // agent can connect. A log that cannot be written does not stop the
    // console; it refuses every call until the log works (fail closed).
    m_auditOpen = m_audit->open();
    const TimeMs now = m_clock->now();
    // Older records cannot hold anything pending or worth answering again.
    const TimeMs window = m_options.broker.defaultTimeoutMs + m_options.broker.graceMs + 3'600'000;
    m_recovery = m_broker->recover(m_options.audit.dir, now - window);
    Json started { { "version", HOLDPOINT_VERSION },
        { "pid", qint64(QCoreApplication::applicationPid()) },
        { "os_user", m_options.broker.reviewerName },
        { "restored",
            Json { { "pending", m_recovery.pending }, { "decided", m_recovery.decided },
                { "sessions", m_recovery.sessions } } } };
    if (m_auditOpen.tornBytes > 0)
        started["torn_record_removed"]
            = Json { { "bytes", m_auditOpen.tornBytes }, { "found", m_auditOpen.tornMessage } };
    if (!m_auditOpen.problem.empty())
        started["integrity_problem"] = m_auditOpen.problem;
    started["policy_files"] = policyFilesJson();
    started["guardrails"] = m_broker->policy().chain->size();
    // The record says when agents ran without the self-guard, and why.
    if (const auto &off = m_broker->policy().selfGuardOff)
        started["self_guard_off"] = *off;
    m_audit->append("console_started", started);

    if (!m_endpoint->listen(error)) {
        m_lock.reset();
        return false;
    }

    const Json endpoint { { "url", m_endpoint->url().toStdString() },
        { "pid", qint64(QCoreApplication::applicationPid()) }, { "protocol", protocol::Version },
        { "agent_token", m_options.endpoint.agentToken.toStdString() } };
    const QByteArray endpointBytes = QByteArray::fromStdString(dumpJson(endpoint, 2) + "\n");
    if (!writePrivateFile(dir + u'/' + QLatin1String(ReviewerTokenFileName),
            m_options.endpoint.reviewerToken + '\n', error)
        || !(m_options.agentGroup.isEmpty()
                ? writePrivateFile(
                    dir + u'/' + QLatin1String(EndpointFileName), endpointBytes, error)
                : writeSharedFile(dir + u'/' + QLatin1String(EndpointFileName), endpointBytes,
                    m_options.agentGroup, error))) {
        QFile::remove(dir + u'/' + QLatin1String(EndpointFileName));
        QFile::remove(dir + u'/' + QLatin1String(ReviewerTokenFileName));
        m_lock.reset();
        return false;
    }
    m_filesWritten = true;
    if (m_team)
        m_team->start();
    return true;
}

std::vector<SessionInfo> ConsoleCore::sessions() const
{
    std::vector<SessionInfo> all = m_broker->sessionsInfo();
    if (m_team)
        for (const RemoteAgents &r : m_team->remoteAgents())
            for (SessionInfo &s : sessionsFromJson(r.sessions, r.instance)) {
                s.host = r.host;
                s.hostOnline = r.online;
                all.push_back(std::move(s));
            }
    return all;
}

int ConsoleCore::agentConnections() const
{
    return m_broker->agentConnections();
}

int ConsoleCore::reviewerConnections() const
{
    return m_broker->reviewerConnections();
}

ReviewOutcome ConsoleCore::reviewAs(
    const protocol::Review &review, const ReviewerIdentity &reviewer)
{
    return m_broker->review(review, reviewer);
}

void ConsoleCore::setWebHandler(WebHandler handler)
{
    m_broker->setWebHandler(std::move(handler));
}

const Policy &ConsoleCore::policy() const
{
    return m_broker->policy();
}

void ConsoleCore::claimItem(const std::string &id)
{
    if (m_team)
        m_team->claim(id);
}

void ConsoleCore::releaseItem(const std::string &id)
{
    if (m_team)
        m_team->release(id);
}

void ConsoleCore::stop()
{
    if (m_filesWritten && m_audit) {
        m_audit->append("console_stopped", Json { { "pending", m_queue->size() } });
        m_audit->waitDurable(5000);
    }
    if (m_filesWritten) {
        QFile::remove(m_options.dataDir + u'/' + QLatin1String(EndpointFileName));
        QFile::remove(m_options.dataDir + u'/' + QLatin1String(ReviewerTokenFileName));
        m_filesWritten = false;
    }
    m_lock.reset();
}

} // namespace holdpoint
