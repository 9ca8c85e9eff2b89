// SPDX-License-Identifier: Apache-2.0
#pragma once

// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a
// temporary directory, a server on a private Unix socket (with TLS also on
// 127.0.0.1 behind a private CA), and the client tools to drive it.
//
// initdb and postgres refuse to run as root, and CI runs as root: then the
// server-side binaries run as the OS user `postgres` (Debian's postgresql
// package creates it) through runuser, in a directory handed to that user.
// Client tools (psql, createdb) run as the caller; root can reach the socket.
//
// A second cluster can be a streaming standby of one started with
// Options::replication (startStandby: pg_basebackup -R over the primary's
// socket); killPostmaster() and promote() make a failover of the two.

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <memory>

#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace holdpoint::test {

class PgCluster final
{
public:
    struct Options
    {
        bool durable = false; // fsync on, initdb syncs
        bool tls = false; // also hostssl on 127.0.0.1 (scram-sha-256), certificates from caFile()
        bool replication = false; // a standby may connect over the socket (`local replication`)
    };

    static constexpr int ProcessTimeoutMs = 60'000;
    static constexpr int LogTailLines = 40;
    // With TLS the port is a real TCP port, which another process may hold.
    static constexpr int PortAttempts = 5;

    PgCluster() = default;
    PgCluster(const PgCluster &) = delete;
    PgCluster &operator=(const PgCluster &) = delete;
    ~PgCluster()
    {
        if (m_running)
            stop();
        m_watchdog.kill();
        m_watchdog.waitForFinished(ProcessTimeoutMs);
    }

    // Not `const Options & = {}`: a nested type's default member initializers
    // cannot be used in a default argument inside the enclosing class.
    bool start() { return start(Options {}); }
    bool start(const Options &options)
    {
        if (!prepare(options))
            return false;

        QStringList initdb = argv("-D", dataDir(), "-A", "trust", "-U", adminUser(),
            "--encoding=UTF8", "--no-locale", "--no-instructions");
        if (!options.durable)
            initdb << word("--no-sync");
        if (!run(bin("initdb"), initdb, true))
            return false;
        if (options.tls && !makeCertificates())
            return false;
        // Only what we write here: initdb's default also trusts TCP from loopback.
        QByteArray hba = options.tls
            ? "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n"
            : "local all all trust\n";
        if (options.replication)
            hba += "local replication all trust\n";
        if (!writeFile(at("data/pg_hba.conf"), hba, false)
            || !writeFile(at("data/postgresql.conf"), "\ninclude 'holdpoint.conf'\n", true))
            return false;

        for (int attempt = 1;; ++attempt) {
            // 5 digits, below Linux's ephemeral range (32768-60999).
            m_port = int(QRandomGenerator::global()->bounded(20000, 32768));
            if (!writeFile(at("data/holdpoint.conf"), settings(), false))
                return false;
            const qint64 logStart = QFileInfo(logFile()).size();
            if (startAgain())
                return true;
            if (!options.tls || attempt == PortAttempts
                || !readLog(logStart).contains("could not bind"))
                return false;
        }
    }

    QString socketDir() const { return m_dir ? m_dir->path() : QString(); }
    QString dataDir() const { return at("data"); }
    QString caFile() const { return at("ca.crt"); }
    QString binDir() const { return m_binDir; }
    int port() const { return m_port; }
    // The server's Unix socket, where a TcpProxy in front of it connects.
    QString socketPath() const
    {
        return QStringLiteral("%1/.s.PGSQL.%2").arg(socketDir()).arg(m_port);
    }
    QString adminUser() const { return QStringLiteral("holdpoint_admin"); }
    bool isRunning() const { return m_running; }
    QString lastError() const { return m_error; }

    QString connString(const QString &database, const QString &user = {}) const
    {
        return word("host=%1 port=%2 dbname=%3 user=%4")
            .arg(socketDir(), QString::number(m_port), database,
                user.isEmpty() ? adminUser() : user);
    }
    QString tlsConnString(const QString &database, const QString &user,
        const QString &sslmode = QStringLiteral("verify-full")) const
    {
        return word("host=localhost port=%1 dbname=%2 user=%3 sslmode=%4 sslrootcert=%5")
            .arg(QString::number(m_port), database, user, sslmode, caFile());
    }

    // The caller's environment without PG* variables (PGHOST, PGSSLMODE, PGSERVICE, ...) that
    // would redirect the tools: every child's, and the base for a test's own psql over TLS.
    static QProcessEnvironment cleanEnvironment()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const QStringList keys = env.keys();
        for (const QString &key : keys)
            if (key.startsWith(QLatin1String("PG")))
                env.remove(key);
        return env;
    }

    bool createDatabase(const QString &name)
    {
        return run(bin("createdb"), socketArgs({}) + argv("-T", "template0", "-E", "UTF8", name));
    }
    bool dropDatabase(const QString &name)
    {
        return run(bin("dropdb"), socketArgs({}) + argv("--force", name));
    }

    // psql over the socket; `output` gets stdout, unaligned and tuples only
    // (`select 1` gives "1\n"); on failure lastError() has stderr.
    bool psql(const QString &database, const QString &sql, QString *output = nullptr,
        const QString &user = {})
    {
        return runPsql(database, user, argv("-c", sql), output);
    }
    bool psqlFile(const QString &database, const QString &path, const QString &user = {},
        QString *output = nullptr)
    {
        return runPsql(database, user, argv("-f", path), output);
    }

    // SQL that lets `login` decide as each of `names` (team schema 3), as
    // `holdpoint-ctl team reviewer add` does but without its audit line, so
    // tests that count audit lines count only their own.
    static QString mapReviewersSql(const QString &login, const QStringList &names)
    {
        QString sql;
        for (const QString &n : names)
            sql += word("INSERT INTO holdpoint.reviewers (name, os_user) VALUES ('%1', '%1') ON "
                        "CONFLICT DO NOTHING;"
                        "INSERT INTO holdpoint.reviewer_logins (login, name) VALUES ('%2', '%1') "
                        "ON CONFLICT DO NOTHING;")
                       .arg(n, login);
        return sql;
    }

    // Crash and recover (same options and port): the server dying under a client.
    bool restartImmediate() { return pgCtl(argv("-m", "immediate", "restart"), true); }
    bool stopImmediate() { return pgCtl(argv("-m", "immediate", "stop"), false); }
    bool startAgain() { return pgCtl(argv("start"), true); }
    bool stop() { return pgCtl(argv("-m", "fast", "stop"), false); }

    // The postmaster's PID (first line of postmaster.pid), 0 if not running.
    qint64 serverPid() const
    {
        QFile f(at("data/postmaster.pid"));
        if (!m_dir || !f.open(QIODevice::ReadOnly))
            return 0;
        return f.readLine().trimmed().toLongLong();
    }

    // Streaming replication -----------------------------------------------

    // This cluster as a hot standby of `primary` (started with
    // Options::replication, without TLS): pg_basebackup -R copies it over the
    // primary's socket and writes primary_conninfo, which names this standby
    // `name` (its application_name, what synchronous_standby_names matches).
    // It gets a socket directory and port of its own and streams until
    // promoted.
    bool startStandby(const PgCluster &primary, const QString &name)
    {
        if (!primary.m_running || !primary.m_options.replication || primary.m_options.tls)
            return fail("PgCluster::startStandby: the primary must run, with replication and "
                        "without TLS");
        if (!prepare(primary.m_options))
            return false;
        QStringList backup = argv("-D", dataDir(), "-R", "-X", "stream", "-c", "fast", "-d",
            word("host=%1 port=%2 user=%3 application_name=%4")
                .arg(primary.socketDir(), QString::number(primary.port()), adminUser(), name));
        if (!m_options.durable)
            backup << word("--no-sync");
        if (!run(bin("pg_basebackup"), backup, true))
            return false;
        m_port = int(QRandomGenerator::global()->bounded(20000, 32768));
        // The copied holdpoint.conf names the primary's port and socket.
        return writeFile(at("data/holdpoint.conf"), settings(), false) && startAgain();
    }

    // On a primary: every commit waits for standby `name` at `level`
    // (synchronous_commit: on, remote_apply...). Returns once that standby
    // is synchronous.
    bool requireSynchronousStandby(const QString &name, const QString &level)
    {
        return runPsql(word("postgres"), {},
                   argv("-c",
                       word("ALTER SYSTEM SET synchronous_standby_names = '\"%1\"'").arg(name),
                       "-c", word("ALTER SYSTEM SET synchronous_commit = '%1'").arg(level), "-c",
                       "SELECT pg_reload_conf()"),
                   nullptr)
            && waitForValue(word("SELECT sync_state FROM pg_stat_replication WHERE "
                                 "application_name = '%1'")
                                .arg(name),
                word("sync"));
    }

    // On a standby: receive nothing more. primary_conninfo is emptied and
    // reloaded; PostgreSQL (13 and later) then stops the WAL receiver and
    // starts none. Returns once none runs, so nothing the primary commits
    // after this returns reaches this standby: a deterministic lag.
    bool stopReceiving()
    {
        return runPsql(word("postgres"), {},
                   argv("-c", "ALTER SYSTEM SET primary_conninfo = ''", "-c",
                       "SELECT pg_reload_conf()"),
                   nullptr)
            && waitForValue(word("SELECT count(*) FROM pg_stat_wal_receiver"), word("0"));
    }

    // SIGKILL to the postmaster alone, as a crash or the OOM killer would:
    // no shutdown, no last WAL sent. Its backends exit when they see it gone,
    // closing their clients' connections. Returns once it is gone.
    bool killPostmaster()
    {
        const qint64 pid = serverPid();
        if (!m_running || pid <= 0)
            return fail("PgCluster::killPostmaster: not running");
        if (::kill(pid_t(pid), SIGKILL) != 0)
            return fail(word("cannot kill the postmaster (PID %1)").arg(pid));
        m_running = false;
        const auto gone = [pid] {
            QFile stat(word("/proc/%1/stat").arg(pid));
            // A zombie (state Z, after the command's closing parenthesis) is gone too.
            return ::kill(pid_t(pid), 0) != 0 || !stat.open(QIODevice::ReadOnly)
                || stat.readAll().split(')').last().trimmed().startsWith('Z');
        };
        return waitUntil(gone) || fail(word("the killed postmaster (PID %1) did not go").arg(pid));
    }

    // A standby becomes a primary; pg_ctl waits until it accepts writes.
    bool promote()
    {
        return run(bin("pg_ctl"), argv("-D", dataDir(), "-w", "-t", "30", "promote"), true);
    }

    // Polls `sql` (in database postgres) until it prints `expected`.
    bool waitForValue(const QString &sql, const QString &expected, int timeoutMs = ProcessTimeoutMs)
    {
        QString out;
        if (waitUntil(
                [&] { return psql(word("postgres"), sql, &out) && out.trimmed() == expected; },
                timeoutMs))
            return true;
        return fail(word("`%1` printed \"%2\", not \"%3\" (%4)")
                        .arg(sql, out.trimmed(), expected, m_error));
    }

private:
    static bool isRoot() { return ::geteuid() == 0; }

    // Polls a condition of another process (a server's state), 20 ms apart.
    template <typename Condition>
    static bool waitUntil(Condition done, int timeoutMs = ProcessTimeoutMs)
    {
        const QDeadlineTimer deadline(timeoutMs);
        while (!done()) {
            if (deadline.hasExpired())
                return false;
            QThread::msleep(20);
        }
        return true;
    }

    // What start() and startStandby() share: the binaries, the server's OS
    // user when root, the directory and its watchdog.
    bool prepare(const Options &options)
    {
        if (m_dir)
            return fail("PgCluster: already started once; use startAgain()");
        m_options = options;
        m_binDir = findBinDir();
        if (m_binDir.isEmpty())
            return fail("no PostgreSQL server binaries: looked for "
                        "/usr/lib/postgresql/<major>/bin/initdb and initdb on PATH");
        if (isRoot()) {
            const passwd *pw = ::getpwnam("postgres");
            if (!pw)
                return fail("running as root, which initdb and postgres refuse, and there is no "
                            "OS user `postgres` to run them as (apt-get install postgresql)");
            m_uid = pw->pw_uid;
            m_gid = pw->pw_gid;
            m_runuser = QStandardPaths::findExecutable(QStringLiteral("runuser"));
            if (m_runuser.isEmpty())
                return fail("running as root and no `runuser` on PATH to become `postgres`");
        }
        m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + word("/holdpoint-pg-XXXXXX"));
        if (!m_dir->isValid())
            return fail(word("cannot create a temporary directory: ") + m_dir->errorString());
        // sun_path holds `<dir>/.s.PGSQL.<port>` and its NUL.
        if (socketDir().toLocal8Bit().size() + 17 > int(sizeof(sockaddr_un::sun_path)))
            return fail(word("socket directory path too long for a Unix socket: ") + socketDir());
        // As root the parents must be traversable by `postgres` too (/tmp is).
        return (!isRoot() || (reachableByServer(m_dir->path()) && handOver(socketDir(), 0700)))
            && startWatchdog();
    }

    // Whether the server's OS user can walk down to `dir`: every folder above
    // it must let that user search it. A TMPDIR of mode 0700 (a private
    // temporary folder, a mktemp -d) does not, and initdb would fail with a
    // bare "Permission denied"; this says which folder and what to do.
    bool reachableByServer(const QString &dir)
    {
        for (QString at = QFileInfo(dir).absolutePath();; at = QFileInfo(at).absolutePath()) {
            struct stat st
            {
            };
            if (::stat(QFile::encodeName(at).constData(), &st) != 0)
                return fail(word("cannot stat ") + at);
            const bool searchable = (st.st_uid == m_uid) ? (st.st_mode & S_IXUSR)
                : (st.st_gid == m_gid)                   ? (st.st_mode & S_IXGRP)
                                                         : (st.st_mode & S_IXOTH);
            if (!searchable)
                return fail(word(
                    "the server runs as `postgres`, which cannot enter %1 (mode %2) on the way to "
                    "its data in %3: point TMPDIR at a folder it can reach (mode 1777, as /tmp)")
                                .arg(at, QString::number(st.st_mode & 07777, 8), dir));
            if (at == QLatin1String("/"))
                return true;
        }
    }

    // Command-line words and messages: Latin-1 literals and QStrings mixed.
    static QString word(const QString &s) { return s; }
    static QString word(const char *s) { return QString::fromLatin1(s); }
    template <typename... Words> static QStringList argv(const Words &...words)
    {
        return { word(words)... };
    }

    // Debian: /usr/lib/postgresql/<major>/bin, the highest major with initdb; else PATH.
    static QString findBinDir()
    {
        const QDir base(QStringLiteral("/usr/lib/postgresql"));
        int best = -1;
        const QStringList majors = base.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &entry : majors) {
            bool ok = false;
            const int major = entry.toInt(&ok);
            if (ok && major > best
                && QFileInfo(base.filePath(entry + word("/bin/initdb"))).isExecutable())
                best = major;
        }
        if (best >= 0)
            return base.filePath(QString::number(best) + word("/bin"));
        const QString initdb = QStandardPaths::findExecutable(QStringLiteral("initdb"));
        return initdb.isEmpty() ? QString() : QFileInfo(initdb).absolutePath();
    }

    QString at(const char *name) const { return socketDir() + QLatin1Char('/') + word(name); }
    QString bin(const char *name) const { return m_binDir + QLatin1Char('/') + word(name); }
    QString logFile() const { return at("server.log"); }

    template <typename Message> bool fail(const Message &message)
    {
        m_error = word(message);
        return false;
    }

    QByteArray settings() const
    {
        const auto quote = [](QString s) -> QString {
            return QLatin1Char('\'') + s.replace(QLatin1Char('\''), word("''")) + QLatin1Char('\'');
        };
        QString s = word("port = %1\nunix_socket_directories = %2\nmax_connections = 200\n"
                         "fsync = %3\nlisten_addresses = '%4'\n")
                        .arg(QString::number(m_port), quote(socketDir()),
                            word(m_options.durable ? "on" : "off"),
                            word(m_options.tls ? "127.0.0.1" : ""));
        // A standby whose primary died retries every wal_retrieve_retry_interval, and a
        // promotion asked for meanwhile waited out the rest of it (5 s by default).
        if (m_options.replication)
            s += word("wal_retrieve_retry_interval = '100ms'\n");
        if (m_options.tls)
            s += word("ssl = on\npassword_encryption = 'scram-sha-256'\nssl_cert_file = %1\n"
                      "ssl_key_file = %2\n")
                     .arg(quote(at("server.crt")), quote(at("server.key")));
        return s.toUtf8();
    }

    // As root: give `path` to the server's OS user; then set `mode`.
    bool handOver(const QString &path, mode_t mode)
    {
        const QByteArray native = QFile::encodeName(path);
        if (isRoot() && ::chown(native.constData(), m_uid, m_gid) != 0)
            return fail(word("cannot chown %1 to postgres").arg(path));
        return ::chmod(native.constData(), mode) == 0 || fail(word("cannot chmod ") + path);
    }

    bool writeFile(const QString &path, const QByteArray &data, bool append)
    {
        QFile f(path);
        if (!f.open(append ? QIODevice::Append : QIODevice::WriteOnly | QIODevice::Truncate)
            || f.write(data) != data.size())
            return fail(word("cannot write %1: %2").arg(path, f.errorString()));
        f.close();
        // What root creates in the cluster directory is the server's user's, like the rest.
        return !isRoot() || QFileInfo(path).ownerId() == m_uid || handOver(path, 0600);
    }

    QByteArray readLog(qint64 from = 0) const
    {
        QFile f(logFile());
        if (!f.open(QIODevice::ReadOnly) || !f.seek(from))
            return {};
        return f.readAll();
    }

    QStringList socketArgs(const QString &user) const
    {
        return argv("-h", socketDir(), "-p", QString::number(m_port), "-U",
            user.isEmpty() ? adminUser() : user);
    }

    bool runPsql(
        const QString &database, const QString &user, const QStringList &what, QString *output)
    {
        QByteArray out;
        const bool ok = run(bin("psql"),
            argv("-X", "-q", "-v", "ON_ERROR_STOP=1", "-At") + socketArgs(user)
                + argv("-d", database) + what,
            false, &out);
        if (output)
            *output = QString::fromUtf8(out);
        return ok;
    }

    // pg_ctl -w waits for the server; a failed start adds the log's tail to lastError().
    bool pgCtl(const QStringList &action, bool starts)
    {
        if (!m_dir)
            return fail("PgCluster: not started");
        if (run(bin("pg_ctl"), argv("-D", dataDir(), "-l", logFile(), "-w", "-t", "30") + action,
                true)) {
            m_running = starts;
            return true;
        }
        if (starts) {
            QList<QByteArray> lines = readLog().split('\n');
            lines = lines.mid(qMax(0, int(lines.size()) - LogTailLines - 1));
            const QString error = m_error + word("\n--- end of %1 ---\n").arg(logFile())
                + QString::fromLocal8Bit(lines.join('\n'));
            // A start that timed out may still come up later: do not leave it behind.
            if (QFile::exists(at("data/postmaster.pid")))
                run(bin("pg_ctl"), argv("-D", dataDir(), "-m", "immediate", "stop"), true);
            m_error = error;
            m_running = false;
        }
        return false;
    }

    // If this process dies without running its destructors (a crash, a kill on
    // a ctest timeout), the shell's stdin closes and it takes the server and the
    // directory with it, rather than leave an orphaned server behind.
    bool startWatchdog()
    {
        QStringList halt = argv(bin("pg_ctl"), "-D", dataDir(), "-m", "immediate", "stop");
        if (isRoot())
            halt = argv(m_runuser, "-u", "postgres", "--") + halt;
        m_watchdog.setProcessEnvironment(cleanEnvironment());
        m_watchdog.setWorkingDirectory(QDir::rootPath());
        m_watchdog.setStandardOutputFile(QProcess::nullDevice());
        m_watchdog.setStandardErrorFile(QProcess::nullDevice());
        m_watchdog.start(QStringLiteral("/bin/sh"),
            argv("-c", "trap '' HUP INT TERM; read -r _; \"$@\"; rm -rf -- \"$0\"", socketDir())
                + halt);
        return m_watchdog.waitForStarted(ProcessTimeoutMs)
            || fail(word("cannot start the watchdog shell: ") + m_watchdog.errorString());
    }

    // A CA and a server certificate (CN localhost, subjectAltName for verify-full)
    // from our own config, so the system's openssl.cnf cannot change them.
    bool makeCertificates()
    {
        const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
        if (openssl.isEmpty())
            return fail("TLS needs the `openssl` command (apt-get install openssl)");
        const QString cnf = at("openssl.cnf");
        if (!writeFile(cnf,
                "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\n[ca_ext]\n"
                "basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n"
                "[server_ext]\nbasicConstraints = critical,CA:FALSE\nextendedKeyUsage = "
                "serverAuth\n"
                "keyUsage = critical,digitalSignature,keyEncipherment\n"
                "subjectAltName = DNS:localhost,IP:127.0.0.1\nauthorityKeyIdentifier = keyid\n",
                false))
            return false;
        const QStringList key
            = argv("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes");
        const QString serial = QString::number(QRandomGenerator::global()->generate64() >> 2);
        if (!run(openssl,
                argv("req", "-x509", "-config", cnf, "-extensions", "ca_ext", "-subj",
                    "/CN=Holdpoint test CA", "-days", "30", "-keyout", at("ca.key"), "-out",
                    caFile())
                    + key)
            || !run(openssl,
                argv("req", "-new", "-config", cnf, "-subj", "/CN=localhost", "-keyout",
                    at("server.key"), "-out", at("server.csr"))
                    + key)
            || !run(openssl,
                argv("x509", "-req", "-in", at("server.csr"), "-CA", caFile(), "-CAkey",
                    at("ca.key"), "-set_serial", serial, "-days", "30", "-extfile", cnf,
                    "-extensions", "server_ext", "-out", at("server.crt"))))
            return false;
        // The server refuses a key that others can read or that it does not own (root: 0640).
        return handOver(at("server.key"), 0600) && handOver(at("server.crt"), 0644)
            && handOver(caFile(), 0644);
    }

    // One command to completion, run in the cluster directory (as `postgres`,
    // root's working directory is out of reach) without PG* variables.
    bool run(QString program, QStringList args, bool asServer = false, QByteArray *out = nullptr)
    {
        if (asServer && isRoot()) {
            args = argv("-u", "postgres", "--", program) + args;
            program = m_runuser;
        }
        const QString command
            = QString(program + QLatin1Char(' ') + args.join(QLatin1Char(' '))).left(400);
        QProcess p;
        p.setProcessEnvironment(cleanEnvironment());
        p.setWorkingDirectory(socketDir().isEmpty() ? QDir::rootPath() : socketDir());
        p.start(program, args);
        if (!p.waitForStarted(ProcessTimeoutMs))
            return fail(command + word(": ") + p.errorString());
        if (!p.waitForFinished(ProcessTimeoutMs)) {
            p.kill();
            p.waitForFinished(5000);
            return fail(word("timed out after %1 s: %2")
                            .arg(QString::number(ProcessTimeoutMs / 1000), command));
        }
        const QByteArray stdoutBytes = p.readAllStandardOutput();
        if (out)
            *out = stdoutBytes;
        if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
            return true;
        return fail(
            word("%1 (exit code %2):\n")
                .arg(command,
                    QString::number(p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1))
            + QString::fromLocal8Bit(QByteArray(p.readAllStandardError() + stdoutBytes)));
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess m_watchdog; // after m_dir: gone before the directory is
    Options m_options;
    QString m_binDir;
    QString m_runuser;
    QString m_error;
    uid_t m_uid = 0;
    gid_t m_gid = 0;
    int m_port = 0;
    bool m_running = false;
};

} // namespace holdpoint::test
