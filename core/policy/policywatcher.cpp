// SPDX-License-Identifier: Apache-2.0
#include "policywatcher.h"

#include <QFile>
#include <QFileInfo>

namespace holdpoint {

PolicyWatcher::PolicyWatcher(QStringList files, QObject *parent)
    : QObject(parent)
    , m_files(std::move(files))
{
    // Editors write in bursts, or write a new file and rename it over the
    // old one; wait for the burst to end, and watch the directories too.
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(150);
    connect(&m_debounce, &QTimer::timeout, this, &PolicyWatcher::reload);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { m_debounce.start(); });
    connect(
        &m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { m_debounce.start(); });
    rewatch();
    m_lastContent = currentContent();
}

QByteArray PolicyWatcher::currentContent() const
{
    QByteArray content;
    for (const QString &f : m_files) {
        QFile file(f);
        if (file.open(QIODevice::ReadOnly))
            content += file.readAll() + '\0';
    }
    return content;
}

void PolicyWatcher::rewatch()
{
    QStringList paths;
    for (const QString &f : m_files) {
        if (f.startsWith(u':'))
            continue; // compiled in: never changes
        const QFileInfo info(f);
        if (info.exists())
            paths << info.absoluteFilePath();
        paths << info.absolutePath();
    }
    paths.removeDuplicates();
    const QStringList watched = m_watcher.files() + m_watcher.directories();
    QStringList missing;
    for (const QString &p : paths)
        if (!watched.contains(p))
            missing << p;
    if (!missing.isEmpty())
        m_watcher.addPaths(missing);
}

void PolicyWatcher::reload()
{
    reloadIf(false);
}

void PolicyWatcher::reloadNow()
{
    reloadIf(true);
}

void PolicyWatcher::reloadIf(bool force)
{
    rewatch(); // a renamed-over file is a new inode to watch
    QByteArray content = currentContent();
    // A directory event for some other file changes nothing here.
    if (content == m_lastContent && !force)
        return;
    m_lastContent = std::move(content);
    PolicyResult r = loadPolicyFiles(m_files);
    if (r.policy)
        Q_EMIT reloaded(*r.policy);
    else
        Q_EMIT reloadFailed(r.error);
}

} // namespace holdpoint
