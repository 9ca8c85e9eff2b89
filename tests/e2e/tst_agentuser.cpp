// SPDX-License-Identifier: Apache-2.0
// The hard boundary of issue 47 §2, with two real OS users: this process
// (root) runs `holdpoint --headless --agent-group G`, and an agent runs as a
// temporary system user whose group is G. The agent submits calls and hears
// the person's decision; it reads no token, credential, policy or audit,
// lists and writes nothing in the data dir, approves nothing and cannot
// signal the console. What stops it is file modes and the kernel, not a
// guardrail: self_guard would see none of these commands.

#include "common/consoleprocess.h"
#include "common/datadir.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// Every user and group this suite makes is named so, with the pid of the run
// that made it: a run killed before its cleanup leaves them behind, and the
// next run removes them, unless a process with that pid still runs (another
// run of this suite, at the same time).
constexpr char AgentPrefix[] = "hp-test-agent-";

QString sbin(const char *tool)
{
    return QStandardPaths::findExecutable(QLatin1String(tool),
        { QStringLiteral("/usr/sbin"), QStringLiteral("/sbin"), QStringLiteral("/usr/bin") });
}

CtlResult run(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    return finish(p);
}

// Names of users (or groups) left by runs of this suite that have ended.
QStringList staleNames(bool groups)
{
    QStringList names;
    auto take = [&](const char *name) {
        const QString n = QString::fromLocal8Bit(name);
        bool ok = false;
        const pid_t pid = n.mid(int(sizeof AgentPrefix) - 1).toInt(&ok);
        if (n.startsWith(QLatin1String(AgentPrefix))
            && !(ok && pid != ::getpid() && (::kill(pid, 0) == 0 || errno == EPERM)))
            names << n;
    };
    if (groups) {
        ::setgrent();
        while (const struct group *g = ::getgrent())
            take(g->gr_name);
        ::endgrent();
    } else {
        ::setpwent();
        while (const struct passwd *p = ::getpwent())
            take(p->pw_name);
        ::endpwent();
    }
    return names;
}

// Removes the user and group `name` if they exist (userdel may already have
// taken the group with its user). Returns what failed, empty when all went.
QString removeAgent(const QString &name)
{
    QString failed;
    const QByteArray n = name.toLocal8Bit();
    if (::getpwnam(n.constData())) {
        const CtlResult r = run(sbin("userdel"), { name });
        if (r.exitCode != 0)
            failed += QStringLiteral("userdel %1: %2").arg(name, QString::fromLocal8Bit(r.err));
    }
    if (::getgrnam(n.constData())) {
        const CtlResult r = run(sbin("groupdel"), { name });
        if (r.exitCode != 0)
            failed += QStringLiteral("groupdel %1: %2").arg(name, QString::fromLocal8Bit(r.err));
    }
    return failed;
}

// Every file under `dir` with its bytes, and every folder by name: what the
// agent must not be able to change. The audit folder's files by name only:
// the console appends to them whenever it likes (`audit verify` checks them).
QMap<QString, QByteArray> snapshot(const QString &dir, const QString &auditDir)
{
    QMap<QString, QByteArray> all;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
        QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (it.fileInfo().isDir() || path.startsWith(auditDir + u'/'))
            all.insert(path, "<not compared>");
        else
            all.insert(
                path, f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>"));
    }
    return all;
}

} // namespace

class TestAgentUser : public QObject
{
    Q_OBJECT
public:
    ~TestAgentUser() override
    {
        // Also when initTestCase failed half way or a check threw.
        m_console.reset();
        if (!m_name.isEmpty())
            removeAgent(m_name);
    }

private Q_SLOTS:
    void initTestCase();
    void agentReadsOnlyTheEndpoint();
    void agentSubmitsAndHearsTheDecision_data();
    void agentSubmitsAndHearsTheDecision();
    void agentReadsNoSecret_data();
    void agentReadsNoSecret();
    void agentChangesNothing_data();
    void agentChangesNothing();
    void agentApprovesNothing_data();
    void agentApprovesNothing();
    void agentCannotSignalTheConsole_data();
    void agentCannotSignalTheConsole();
    void cleanupTestCase();

private:
    // `args` run as the agent's user: setpriv changes the ids and execs, so
    // the command is this QProcess's own child (a kill reaches it) and no
    // PAM session is opened. The console is found the way an agent finds
    // one, through HOLDPOINT_DATA_DIR.
    std::unique_ptr<QProcess> startAsAgent(const QStringList &args) const
    {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOLDPOINT_DATA_DIR"), m_console->dataDir());
        env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C")); // strerror's words, in English
        env.remove(QStringLiteral("HOLDPOINT_CREDENTIAL"));
        p->setProcessEnvironment(env);
        p->start(QStringLiteral("setpriv"),
            QStringList { QStringLiteral("--reuid"), m_name, QStringLiteral("--regid"), m_name,
                QStringLiteral("--init-groups"), QStringLiteral("--") }
                + args);
        if (!p->waitForStarted(WaitMs))
            qWarning() << "cannot run setpriv:" << p->errorString();
        return p;
    }
    CtlResult asAgent(const QStringList &args) const
    {
        auto p = startAsAgent(args);
        p->closeWriteChannel();
        return finish(*p);
    }
    // The pending item with `callId`, or null.
    Json pendingItem(const QString &callId) const
    {
        const Json items
            = m_console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
        if (items.is_array())
            for (const Json &item : items)
                if (item.value("call_id", std::string()) == callId.toStdString())
                    return item;
        return nullptr;
    }
    // Whether the agent's user may search every folder on the way to `path`.
    bool reachable(const QString &path, QString *why) const;
    // Pairs a device with the reviewer page, so web-sessions.json exists.
    bool pairADevice(QString *why) const;
    QString data(const char *name) const
    {
        return m_console->dataDir() + u'/' + QLatin1String(name);
    }

    QString m_name; // the agent's user and its group
    uid_t m_uid = 0;
    gid_t m_gid = 0;
    QTemporaryDir m_base;
    QString m_policy;
    QString m_credential;
    std::unique_ptr<ConsoleProcess> m_console;
};

bool TestAgentUser::reachable(const QString &path, QString *why) const
{
    for (QString at = QFileInfo(path).absolutePath();; at = QFileInfo(at).absolutePath()) {
        struct stat st
        {
        };
        if (::stat(QFile::encodeName(at).constData(), &st) != 0) {
            *why = QStringLiteral("cannot stat ") + at;
            return false;
        }
        const bool searchable = st.st_uid == m_uid ? (st.st_mode & S_IXUSR)
            : st.st_gid == m_gid                   ? (st.st_mode & S_IXGRP)
                                                   : (st.st_mode & S_IXOTH);
        if (!searchable) {
            *why = QStringLiteral(
                "the agent's user cannot enter %1 (mode %2) on the way to %3: point TMPDIR "
                "at a folder every user can reach (mode 1777, as /tmp), and build where "
                "they can run the programs")
                       .arg(at, QString::number(st.st_mode & 07777, 8), path);
            return false;
        }
        if (at == QLatin1String("/"))
            return true;
    }
}

bool TestAgentUser::pairADevice(QString *why) const
{
    // The last line `web pair --no-qr` prints: http://127.0.0.1:PORT/pair#CODE.
    const CtlResult pair = m_console->ctl(
        { QStringLiteral("web"), QStringLiteral("pair"), QStringLiteral("--no-qr") });
    static const QRegularExpression link(
        QStringLiteral("http://127\\.0\\.0\\.1:(\\d+)/pair#([A-Za-z0-9_-]+)\\s*$"));
    const QRegularExpressionMatch m = link.match(QString::fromUtf8(pair.out));
    if (pair.exitCode != 0 || !m.hasMatch()) {
        *why = QStringLiteral("web pair: ") + QString::fromUtf8(pair.out + pair.err);
        return false;
    }
    const QByteArray origin = "127.0.0.1:" + m.captured(1).toLatin1();
    const QByteArray body = R"({"code":")" + m.captured(2).toLatin1() + "\"}";
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, m.captured(1).toUShort());
    if (!s.waitForConnected(WaitMs)) {
        *why = QStringLiteral("cannot reach the reviewer page: ") + s.errorString();
        return false;
    }
    s.write("POST /api/pair HTTP/1.1\r\nHost: " + origin + "\r\nOrigin: http://" + origin
        + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QByteArray reply;
    const bool answered = QTest::qWaitFor(
        [&] {
            reply += s.readAll();
            return reply.contains("\r\n\r\n") || s.state() != QAbstractSocket::ConnectedState;
        },
        WaitMs);
    if (!answered || !reply.startsWith("HTTP/1.1 200 ")) {
        *why = QStringLiteral("pairing refused: ") + QString::fromUtf8(reply);
        return false;
    }
    return true;
}

void TestAgentUser::initTestCase()
{
    if (::geteuid() != 0)
        QSKIP(
            "needs root: it makes an OS user and group for the agent (useradd, groupadd) and runs "
            "commands as that user; CI runs as root");
    for (bool groups : { false, true })
        for (const QString &stale : staleNames(groups)) {
            const QString failed = removeAgent(stale);
            QVERIFY2(failed.isEmpty(), qPrintable(failed));
        }

    m_name = QLatin1String(AgentPrefix) + QString::number(::getpid());
    CtlResult r = run(sbin("groupadd"), { m_name });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = run(sbin("useradd"),
        { QStringLiteral("--system"), QStringLiteral("--no-create-home"), QStringLiteral("--shell"),
            QStringLiteral("/usr/sbin/nologin"), QStringLiteral("-g"), m_name, m_name });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const struct passwd *pw = ::getpwnam(m_name.toLocal8Bit().constData());
    QVERIFY(pw);
    m_uid = pw->pw_uid;
    m_gid = pw->pw_gid;
    QVERIFY(m_uid != 0 && m_uid != ::geteuid());

    // The agent walks to the data dir (0710, its group's) through the base,
    // which it may enter but not list (0711).
    QVERIFY(m_base.isValid());
    QVERIFY(QFile::setPermissions(m_base.path(),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
            | QFileDevice::ExeGroup | QFileDevice::ExeOther));
    QString why;
    QVERIFY2(reachable(m_base.filePath(QStringLiteral("data")), &why), qPrintable(why));
    QVERIFY2(reachable(QStringLiteral(HOLDPOINT_CTL_BIN), &why), qPrintable(why));

    // A policy kept as the README says: the person's, mode 0600. Everything asks.
    m_policy = m_base.filePath(QStringLiteral("policy.json"));
    QVERIFY2(writePrivateFile(m_policy, R"({"default": "ask"})", &why), qPrintable(why));
    m_console = std::make_unique<ConsoleProcess>(m_base.filePath(QStringLiteral("data")),
        QStringList { QStringLiteral("--agent-group"), m_name, QStringLiteral("--policy"), m_policy,
            QStringLiteral("--web"), QStringLiteral("127.0.0.1:0") });
    QVERIFY(m_console->ready());

    // Every kind of secret the data dir holds: a second reviewer
    // (reviewers.json, and their credential, here beside the policy) and a
    // paired device (web-sessions.json).
    m_credential = m_base.filePath(QStringLiteral("bob.json"));
    r = m_console->ctl({ QStringLiteral("reviewer"), QStringLiteral("add"), QStringLiteral("bob"),
        QStringLiteral("--out"), m_credential });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(pairADevice(&why), qPrintable(why));
    for (const char *name :
        { "reviewer.token", "reviewers.json", "web-sessions.json", "audit/head.json" })
        QVERIFY2(QFileInfo::exists(data(name)), name);
}

void TestAgentUser::agentReadsOnlyTheEndpoint()
{
    // The one file it is meant to read: the address and the agent token.
    const CtlResult r = asAgent({ QStringLiteral("cat"), data("endpoint.json") });
    QCOMPARE(r.exitCode, 0);
    const Json endpoint = r.json();
    QCOMPARE(
        endpoint.value("agent_token", std::string()), m_console->info().agentToken.toStdString());
    QVERIFY(!r.out.contains(m_console->info().reviewerToken));
}

void TestAgentUser::agentSubmitsAndHearsTheDecision_data()
{
    QTest::addColumn<QStringList>("agent");
    QTest::addColumn<QByteArray>("stdinJson");
    QTest::addColumn<QString>("callId");
    QTest::addColumn<QStringList>("decide");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("heard");
    const QStringList submit { QString::fromLatin1(HOLDPOINT_CTL_BIN), QStringLiteral("submit"),
        QStringLiteral("--tool"), QStringLiteral("write_file"), QStringLiteral("--args"),
        QStringLiteral(R"({"path":"notes.txt"})"), QStringLiteral("--timeout"),
        QStringLiteral("60"), QStringLiteral("--call-id") };
    QTest::newRow("submit, approved")
        << (submit + QStringList { QStringLiteral("two-users-1") }) << QByteArray()
        << QStringLiteral("two-users-1") << QStringList { QStringLiteral("approve") } << 0
        << QByteArray(R"("decision":"allow")");
    QTest::newRow("submit, denied") << (submit + QStringList { QStringLiteral("two-users-2") })
                                    << QByteArray() << QStringLiteral("two-users-2")
                                    << QStringList { QStringLiteral("deny"),
                                           QStringLiteral("--reason"), QStringLiteral("not now") }
                                    << 3 << QByteArray(R"("decision":"deny")");
    // What Claude Code runs for every tool call; the hook's call id is the
    // tool_use_id.
    const QStringList hook { QString::fromLatin1(HOLDPOINT_CTL_BIN), QStringLiteral("hook"),
        QStringLiteral("claude-code") };
    const QByteArray hookInput
        = R"({"session_id":"two-users","hook_event_name":"PreToolUse","cwd":"/",)"
          R"("tool_name":"Write","tool_input":{"file_path":"/tmp/notes.txt","content":"hi"},)"
          R"("tool_use_id":"toolu_two_users_)";
    QTest::newRow("hook, approved")
        << hook << (hookInput + R"(1"})") << QStringLiteral("toolu_two_users_1")
        << QStringList { QStringLiteral("approve") } << 0
        << QByteArray(R"("permissionDecision":"allow")");
    QTest::newRow("hook, denied") << hook << (hookInput + R"(2"})")
                                  << QStringLiteral("toolu_two_users_2")
                                  << QStringList { QStringLiteral("deny"),
                                         QStringLiteral("--reason"), QStringLiteral("not now") }
                                  << 0 << QByteArray(R"("permissionDecision":"deny")");
}

void TestAgentUser::agentSubmitsAndHearsTheDecision()
{
    QFETCH(QStringList, agent);
    QFETCH(QByteArray, stdinJson);
    QFETCH(QString, callId);
    QFETCH(QStringList, decide);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, heard);

    auto p = startAsAgent(agent);
    p->write(stdinJson);
    p->closeWriteChannel();
    Json item;
    QTRY_VERIFY_WITH_TIMEOUT((item = pendingItem(callId)).is_object(), WaitMs);
    // The console knows the call came from the other user.
    QCOMPARE(item["agent"].value("user", std::string()), m_name.toStdString());
    QCOMPARE(item.value("state", std::string()), "pending");

    decide.insert(1, QString::fromStdString(item["id"].get<std::string>()));
    const CtlResult decided = m_console->ctl(decide);
    QVERIFY2(decided.exitCode == 0, decided.err.constData());
    const CtlResult answer = finish(*p);
    QVERIFY2(answer.exitCode == exitCode, answer.err.constData());
    QVERIFY2(QByteArray(answer.out).replace(' ', "").contains(heard), answer.out.constData());
}

void TestAgentUser::agentReadsNoSecret_data()
{
    QTest::addColumn<QString>("path");
    for (const char *name : { "reviewer.token", "reviewers.json", "web-sessions.json",
             "console.lock", "audit/head.json" })
        QTest::newRow(name) << data(name);
    const QStringList logs
        = QDir(data("audit")).entryList({ QStringLiteral("*.jsonl") }, QDir::Files);
    QVERIFY(!logs.isEmpty());
    for (const QString &log : logs)
        QTest::newRow(qPrintable(QStringLiteral("audit/") + log)) << data("audit") + u'/' + log;
    QTest::newRow("the policy the console loaded") << m_policy;
    QTest::newRow("a reviewer's credential") << m_credential;
}

void TestAgentUser::agentReadsNoSecret()
{
    QFETCH(QString, path);
    QVERIFY(QFileInfo::exists(path));
    const CtlResult r = asAgent({ QStringLiteral("cat"), path });
    QVERIFY2(r.exitCode != 0, r.out.constData());
    QVERIFY2(r.out.isEmpty(), r.out.constData());
    QVERIFY2(r.err.contains("Permission denied"), r.err.constData());
}

void TestAgentUser::agentChangesNothing_data()
{
    QTest::addColumn<QStringList>("command");
    const QString dir = m_console->dataDir();
    auto sh = [](const QString &line) {
        return QStringList { QStringLiteral("sh"), QStringLiteral("-c"), line };
    };
    QTest::newRow("list the data dir") << QStringList { QStringLiteral("ls"), dir };
    QTest::newRow("list the audit dir") << QStringList { QStringLiteral("ls"), data("audit") };
    QTest::newRow("list the base") << QStringList { QStringLiteral("ls"), m_base.path() };
    QTest::newRow("create a file") << QStringList { QStringLiteral("touch"), data("policy.json") };
    QTest::newRow("make a folder") << QStringList { QStringLiteral("mkdir"), data("x") };
    QTest::newRow("append to the reviewer token")
        << sh(QStringLiteral("echo x >> ") + data("reviewer.token"));
    QTest::newRow("replace endpoint.json")
        << sh(QStringLiteral("echo {} > ") + data("endpoint.json"));
    QTest::newRow("remove endpoint.json")
        << QStringList { QStringLiteral("rm"), QStringLiteral("-f"), data("endpoint.json") };
    QTest::newRow("rename the reviewer token")
        << QStringList { QStringLiteral("mv"), data("reviewer.token"), data("endpoint.json") };
    QTest::newRow("rewrite the policy")
        << sh(QStringLiteral(R"(echo '{"default":"allow"}' > )") + m_policy);
    QTest::newRow("rewrite the audit chain's head")
        << sh(QStringLiteral("echo {} > ") + data("audit/head.json"));
}

void TestAgentUser::agentChangesNothing()
{
    QFETCH(QStringList, command);
    const QMap<QString, QByteArray> before = snapshot(m_base.path(), data("audit"));
    const CtlResult r = asAgent(command);
    QVERIFY2(r.exitCode != 0, r.out.constData());
    QVERIFY2(r.err.contains("Permission denied"), r.err.constData());
    const QMap<QString, QByteArray> after = snapshot(m_base.path(), data("audit"));
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        if (before.value(it.key()) != it.value())
            qWarning() << "changed:" << it.key();
    QVERIFY(after == before);
    const CtlResult verify = m_console->ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
}

void TestAgentUser::agentApprovesNothing_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<QString>("message");
    const QString noToken
        = QStringLiteral("holdpoint-ctl: cannot read the reviewer token %1 (Permission denied)\n")
              .arg(data("reviewer.token"));
    const QString id = QStringLiteral("ID");
    QTest::newRow("pending") << QStringList { QStringLiteral("pending") } << noToken;
    QTest::newRow("approve") << QStringList { QStringLiteral("approve"), id } << noToken;
    QTest::newRow("edit") << QStringList { QStringLiteral("edit"), id, QStringLiteral("--args"),
        QStringLiteral(R"({"path":"elsewhere"})") }
                          << noToken;
    QTest::newRow("deny") << QStringList { QStringLiteral("deny"), id, QStringLiteral("--reason"),
        QStringLiteral("x") }
                          << noToken;
    QTest::newRow("halt") << QStringList { QStringLiteral("halt"), id } << noToken;
    QTest::newRow("approve, --data-dir") << QStringList { QStringLiteral("--data-dir"),
        m_console->dataDir(), QStringLiteral("approve"), id }
                                         << noToken;
    QTest::newRow("approve with bob's credential") << QStringList {
        QStringLiteral("--credential"), m_credential, QStringLiteral("approve"), id
    } << QStringLiteral("holdpoint-ctl: cannot read %1: Permission denied\n").arg(m_credential);
    QTest::newRow("pair a device") << QStringList { QStringLiteral("web"), QStringLiteral("pair"),
        QStringLiteral("--no-qr") } << noToken;
}

void TestAgentUser::agentApprovesNothing()
{
    QFETCH(QStringList, command);
    QFETCH(QString, message);
    const QString callId = QStringLiteral("approve-nothing-")
        + QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    auto agent = startAsAgent({ QStringLiteral(HOLDPOINT_CTL_BIN), QStringLiteral("submit"),
        QStringLiteral("--tool"), QStringLiteral("write_file"), QStringLiteral("--args"),
        QStringLiteral("{}"), QStringLiteral("--timeout"), QStringLiteral("60"),
        QStringLiteral("--call-id"), callId });
    agent->closeWriteChannel();
    Json item;
    QTRY_VERIFY_WITH_TIMEOUT((item = pendingItem(callId)).is_object(), WaitMs);
    const QString id = QString::fromStdString(item["id"].get<std::string>());

    command.replaceInStrings(QRegularExpression(QStringLiteral("^ID$")), id);
    const CtlResult r = asAgent(QStringList { QStringLiteral(HOLDPOINT_CTL_BIN) } + command);
    QCOMPARE(r.exitCode, 2); // exitcodes.h: review::Failed
    QCOMPARE(QString::fromLocal8Bit(r.err), message);
    QVERIFY2(r.out.isEmpty(), r.out.constData());
    // The call still waits for a person, unchanged.
    const Json after = pendingItem(callId);
    QCOMPARE(after.value("state", std::string()), "pending");
    QCOMPARE(after["args"], item["args"]);
    QCOMPARE(agent->state(), QProcess::Running);

    const CtlResult denied = m_console->ctl(
        { QStringLiteral("deny"), id, QStringLiteral("--reason"), QStringLiteral("done") });
    QVERIFY2(denied.exitCode == 0, denied.err.constData());
    QCOMPARE(finish(*agent).exitCode, 3);
}

void TestAgentUser::agentCannotSignalTheConsole_data()
{
    QTest::addColumn<QString>("signal");
    for (const char *s : { "0", "TERM", "KILL", "STOP", "HUP" })
        QTest::newRow(s) << QString::fromLatin1(s);
}

void TestAgentUser::agentCannotSignalTheConsole()
{
    QFETCH(QString, signal);
    const QString pid = QString::number(m_console->process().processId());
    const CtlResult r = asAgent({ QStringLiteral("kill"), u'-' + signal, pid });
    QVERIFY2(r.exitCode != 0, r.err.constData());
    QVERIFY2(r.err.contains("Operation not permitted"), r.err.constData()); // EPERM
    QCOMPARE(m_console->process().state(), QProcess::Running);
    QCOMPARE(m_console->ctl({ QStringLiteral("pending") }).exitCode, 0); // and it still answers
}

void TestAgentUser::cleanupTestCase()
{
    if (m_name.isEmpty())
        return; // skipped: nothing was made
    m_console.reset();
    const QString failed = removeAgent(m_name);
    QVERIFY2(failed.isEmpty(), qPrintable(failed));
    QVERIFY(!::getpwnam(m_name.toLocal8Bit().constData()));
    QVERIFY(!::getgrnam(m_name.toLocal8Bit().constData()));
    m_name.clear();
}

QTEST_GUILESS_MAIN(TestAgentUser)
#include "tst_agentuser.moc"
