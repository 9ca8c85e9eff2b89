// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "policy/policy.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

namespace holdpoint {

// Reloads policy files when they change on disk. A valid edit yields a new
// Policy (a new chain: the running one is never touched); an invalid one
// yields the error, and the caller keeps what it had.
class PolicyWatcher final : public QObject
{
    Q_OBJECT
public:
    explicit PolicyWatcher(QStringList files, QObject *parent = nullptr);
    const QStringList &files() const { return m_files; }
    // Loads now if the files changed, as a change would.
    void reload();
    // Loads now, changed or not (a person asked for it).
    void reloadNow();

Q_SIGNALS:
    void reloaded(const holdpoint::Policy &policy);
    void reloadFailed(const QString &error);

private:
    void rewatch();
    void reloadIf(bool force);
    // The files' bytes, to tell a real edit from an unrelated directory event.
    QByteArray currentContent() const;

    QStringList m_files;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
    QByteArray m_lastContent;
};

} // namespace holdpoint
