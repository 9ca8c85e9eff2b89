// SPDX-License-Identifier: Apache-2.0
#include "datadir.h"

#include "wire/files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStandardPaths>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <optional>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace holdpoint {

QString resolveDataDir(const QString &fromFlag)
{
    // One rule for every client: the hooks use wire's without Qt.
    return QFile::decodeName(
        QByteArray::fromStdString(wire::resolveDataDir(QFile::encodeName(fromFlag).toStdString())));
}

bool ensurePrivateDir(const QString &dir, QString *error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QStringLiteral("cannot create data directory %1").arg(dir);
        return false;
    }
    if (!QFile::setPermissions(
            dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner)) {
        if (error)
            *error = QStringLiteral("cannot make data directory %1 private (mode 0700)").arg(dir);
        return false;
    }
    return true;
}

bool writePrivateFile(const QString &path, const QByteArray &bytes, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // Restrict before the first byte is written.
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    return true;
}

namespace {

bool failWith(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return false;
}

QString lastError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

// Gives the open file `fd` to `gid` with `mode`; chown only when needed, so
// a process whose own group it already is (the gateway's unit) never asks
// for a privileged call.
bool giveTo(int fd, const struct stat &st, gid_t gid, mode_t mode, const QString &path,
    const QString &group, QString *error)
{
    if (st.st_gid != gid && ::fchown(fd, uid_t(-1), gid) != 0)
        return failWith(error,
            QStringLiteral("cannot give %1 to group %2 (is this user a member?): %3")
                .arg(path, group, lastError()));
    if ((st.st_mode & 07777) != mode && ::fchmod(fd, mode) != 0)
        return failWith(error,
            QStringLiteral("cannot share %1 with group %2: %3").arg(path, group, lastError()));
    return true;
}

} // namespace

std::optional<gid_t> groupId(const QString &group, QString *error)
{
    const QByteArray name = group.toLocal8Bit();
    if (const struct group *g = getgrnam(name.constData()))
        return g->gr_gid;
    failWith(error, QStringLiteral("--agent-group %1: no such group").arg(group));
    return std::nullopt;
}

bool shareDirWithGroup(const QString &dir, const QString &group, QString *error)
{
    const std::optional<gid_t> gid = groupId(group, error);
    if (!gid)
        return false;
    // Not through a symlink, and only a directory of this user's: a data dir
    // someone else planted must not open their files, or ours, to the group.
    const int fd = ::open(
        QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return failWith(error,
            QStringLiteral("cannot share %1 with group %2: %3").arg(dir, group, lastError()));
    struct stat st
    {
    };
    bool ok = ::fstat(fd, &st) == 0;
    if (!ok)
        failWith(error,
            QStringLiteral("cannot share %1 with group %2: %3").arg(dir, group, lastError()));
    else if (st.st_uid != ::geteuid())
        ok = failWith(error,
            QStringLiteral("data directory %1 belongs to another user (uid %2); it must be yours")
                .arg(dir)
                .arg(st.st_uid));
    else
        ok = giveTo(fd, st, *gid, 0710, dir, group, error);
    ::close(fd);
    return ok;
}

bool writeSharedFile(
    const QString &path, const QByteArray &bytes, const QString &group, QString *error)
{
    const std::optional<gid_t> gid = groupId(group, error);
    if (!gid)
        return false;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failWith(error, QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    // The new file is the owner's alone until it has the group, then the
    // group's to read before the first byte, and it appears whole.
    struct stat st
    {
    };
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || ::fstat(file.handle(), &st) != 0
        || !giveTo(file.handle(), st, *gid, 0640, path, group, error)) {
        if (error && error->isEmpty())
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        failWith(error, QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
        file.cancelWriting();
        return false;
    }
    return true;
}

QByteArray generateToken()
{
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex();
}

std::string currentOsUser()
{
    return wire::currentOsUser();
}

} // namespace holdpoint
