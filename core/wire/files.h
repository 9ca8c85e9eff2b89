// SPDX-License-Identifier: Apache-2.0
#pragma once

// The files and facts of this process a client needs, without Qt: where the
// data directory is, who runs it, private notes written whole, random ids.

#include <cstddef>
#include <cstdint>
#include <string>

namespace holdpoint::wire {

// `path` made absolute (against the working directory) with no ".", ".."
// or repeated separators, as QDir::absolutePath() gives it.
std::string absolutePath(const std::string &path);

// Where console and clients meet: endpoint.json and reviewer.token live here.
// --data-dir wins, then HOLDPOINT_DATA_DIR, then $XDG_DATA_HOME/holdpoint,
// else ~/.local/share/holdpoint (Qt's GenericDataLocation on Linux).
std::string resolveDataDir(const std::string &fromFlag);

// The OS user this process runs as (its effective uid's name).
std::string currentOsUser();

// This user's runtime directory ($XDG_RUNTIME_DIR, else $TMPDIR/runtime-USER,
// created), as Qt 6.4's QStandardPaths::RuntimeLocation names
// and checks it: a directory this user owns, made 0700. False, with *error
// saying why, for one that is not (a symlink, another user's).
bool runtimeDir(std::string *dir, std::string *error);

// Creates `dir` (and parents) and makes it 0700. On failure, *error says why.
bool ensurePrivateDir(const std::string &dir, std::string *error);

// Writes `bytes` to `path` whole, mode 0600 from the first byte: a reader
// sees the old file or the new one, never a part.
bool writePrivateFile(const std::string &path, const std::string &bytes, std::string *error);

// Up to `maxBytes` of the file at `path`. False with errno set when it
// cannot be opened or read.
bool readFile(const std::string &path, std::size_t maxBytes, std::string *out);

// `n` random bytes from getrandom(2), else /dev/urandom; false when
// neither gives them.
bool randomBytes(void *out, std::size_t n);

// `prefix` and 64 random bits in hex, for ids nobody else will pick; empty
// when there are no random numbers (randomBytes).
std::string randomId(const char *prefix);

// Milliseconds since the epoch.
std::int64_t nowMs();

} // namespace holdpoint::wire
