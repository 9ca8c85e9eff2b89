// SPDX-License-Identifier: Apache-2.0
#include "datadir.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStandardPaths>

#include <cerrno>
#include <cstring>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace holdpoint {

QString resolveDataDir(const QString &fromFlag)
{
    if (!fromFlag.isEmpty())
        return QDir(fromFlag).absolutePath();
    const QByteArray env = qgetenv("HOLDPOINT_DATA_DIR");
    if (!env.isEmpty())
        return QDir(QString::fromLocal8Bit(env)).absolutePath();
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.local/share");
    return base + QStringLiteral("/holdpoint");
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

bool shareWithGroup(const QString &path, const QString &group, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const QByteArray name = group.toLocal8Bit();
    const struct group *g = getgrnam(name.constData());
    if (!g)
        return fail(QStringLiteral("--agent-group %1: no such group").arg(group));
    const QByteArray file = QFile::encodeName(path);
    struct stat st
    {
    };
    if (::stat(file.constData(), &st) != 0)
        return fail(QStringLiteral("cannot share %1 with group %2: %3")
                        .arg(path, group, QString::fromLocal8Bit(std::strerror(errno))));
    const mode_t mode = S_ISDIR(st.st_mode) ? 0710 : 0640;
    if (::chown(file.constData(), uid_t(-1), g->gr_gid) != 0)
        return fail(QStringLiteral("cannot give %1 to group %2 (is this user a member?): %3")
                        .arg(path, group, QString::fromLocal8Bit(std::strerror(errno))));
    if (::chmod(file.constData(), mode) != 0)
        return fail(QStringLiteral("cannot share %1 with group %2: %3")
                        .arg(path, group, QString::fromLocal8Bit(std::strerror(errno))));
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
    if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    const QByteArray user = qgetenv("USER");
    return user.isEmpty() ? std::string("uid") + std::to_string(geteuid()) : user.toStdString();
}

} // namespace holdpoint
