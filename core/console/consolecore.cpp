#include "consolecore.h"

#include "common/datadir.h"
#include "policy/policywatcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

#include <pwd.h>
#include <unistd.h>

namespace holdpoint {

std::string ConsoleCore::currentOsUser()
{
    if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    const QByteArray user = qgetenv("USER");
    return user.isEmpty() ? std::string("uid") + std::to_string(geteuid()) : user.toStdString();
}

ConsoleCore::ConsoleCore(ConsoleOptions options, Clock *clock, QObject *parent)
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
    if (m_options.broker.reviewerName.empty())
        m_options.broker.reviewerName = currentOsUser();
    if (m_options.broker.serverName.empty())
        m_options.broker.serverName = std::string("holdpoint/") + HOLDPOINT_VERSION;

    m_queue = std::make_unique<ReviewQueue>(m_clock);
    m_endpoint = std::make_unique<Endpoint>(m_options.endpoint);
    m_broker = std::make_unique<Broker>(m_queue.get(), m_endpoint.get(), m_options.broker);
    m_broker->setPolicy(m_options.policy);
    m_endpoint->setHandler(m_broker.get());

    if (!m_options.policyFiles.isEmpty()) {
        // A valid edit takes effect for the next call; an invalid one keeps
        // the policy in force. Never falls open.
        m_policyWatcher = std::make_unique<PolicyWatcher>(m_options.policyFiles);
        connect(m_policyWatcher.get(), &PolicyWatcher::reloaded, this, [this](const Policy &policy) {
            m_broker->setPolicy(policy);
            m_lastPolicyError.clear();
            Q_EMIT policyReloaded();
        });
        connect(m_policyWatcher.get(), &PolicyWatcher::reloadFailed, this, [this](const QString &error) {
            m_lastPolicyError = error;
            Q_EMIT policyReloadFailed(error);
        });
    }
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
    const QString dir = m_options.dataDir;
    if (!ensurePrivateDir(dir, error))
        return false;

    // One console per data dir: a second one would overwrite the first's
    // endpoint file and strand its agents.
    m_lock = std::make_unique<QLockFile>(dir + QStringLiteral("/console.lock"));
    if (!m_lock->tryLock(0)) {
        qint64 pid = 0;
        QString host, app;
        m_lock->getLockInfo(&pid, &host, &app);
        if (error)
            *error = QStringLiteral("another console (pid %1) is already using data directory %2").arg(pid).arg(dir);
        m_lock.reset();
        return false;
    }

    if (!m_endpoint->listen(error)) {
        m_lock.reset();
        return false;
    }

    const Json endpoint {{"url", m_endpoint->url().toStdString()},
                         {"pid", qint64(QCoreApplication::applicationPid())},
                         {"protocol", protocol::Version},
                         {"agent_token", m_options.endpoint.agentToken.toStdString()}};
    const QByteArray endpointBytes = QByteArray::fromStdString(dumpJson(endpoint, 2) + "\n");
    if (!writePrivateFile(dir + u'/' + QLatin1String(ReviewerTokenFileName), m_options.endpoint.reviewerToken + '\n', error)
        || !writePrivateFile(dir + u'/' + QLatin1String(EndpointFileName), endpointBytes, error)) {
        QFile::remove(dir + u'/' + QLatin1String(ReviewerTokenFileName));
        m_lock.reset();
        return false;
    }
    m_filesWritten = true;
    return true;
}

void ConsoleCore::stop()
{
    if (m_filesWritten) {
        QFile::remove(m_options.dataDir + u'/' + QLatin1String(EndpointFileName));
        QFile::remove(m_options.dataDir + u'/' + QLatin1String(ReviewerTokenFileName));
        m_filesWritten = false;
    }
    m_lock.reset();
}

} // namespace holdpoint
