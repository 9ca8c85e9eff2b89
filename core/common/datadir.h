// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>
#include <sys/types.h>

namespace holdpoint {

// Where console and clients meet: endpoint.json and reviewer.token live here.
// --data-dir wins, then HOLDPOINT_DATA_DIR, then the platform's app data dir.
QString resolveDataDir(const QString &fromFlag);

// Creates `dir` (and parents) and makes it 0700.
bool ensurePrivateDir(const QString &dir, QString *error);

// Writes `bytes` atomically to `path` with mode 0600: the content is never
// readable by others, not even for a moment, and a crash leaves either the
// old file or the new one.
bool writePrivateFile(const QString &path, const QByteArray &bytes, QString *error);

// The group --agent-group names; nullopt, and `error` saying so, when
// there is no such group.
std::optional<gid_t> groupId(const QString &group, QString *error);

// For --agent-group: opens the data dir `dir` to the members of `group`
// (0710: they reach a file whose name they know and list nothing), after
// checking it is this user's and not a symlink.
bool shareDirWithGroup(const QString &dir, const QString &group, QString *error);

// As writePrivateFile, but the file is `group`'s to read (0640): the
// endpoint file of a console shared with --agent-group. It is never
// readable with another group or mode, not even for a moment.
bool writeSharedFile(
    const QString &path, const QByteArray &bytes, const QString &group, QString *error);

// The OS user this process runs as (its effective uid's name): the data
// directory's owner for the console, the requester for an agent.
std::string currentOsUser();

// 256 bits from the operating system's CSPRNG, hex encoded.
QByteArray generateToken();

inline constexpr char EndpointFileName[] = "endpoint.json";
inline constexpr char ReviewerTokenFileName[] = "reviewer.token";

} // namespace holdpoint
