// SPDX-License-Identifier: Apache-2.0
#pragma once

// Alone mode's other reviewers (issue 26): the console's owner gives each
// person a token of their own. The data directory keeps only each token's
// SHA-256 (reviewers.json); the person gets a credential file with the
// token itself. Both formats are in PROTOCOL.md "Connecting". The console's
// endpoint and holdpoint-ctl share this code, so both read the files the
// same strict way.

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

inline constexpr char ReviewersFileName[] = "reviewers.json";
inline constexpr int ReviewersFileVersion = 1;
inline constexpr int CredentialFileVersion = 1;
inline constexpr char CredentialKind[] = "holdpoint-reviewer-credential";
// Caps on what the parsers read: a hand-edited or hostile file cannot make
// the console allocate without bound.
inline constexpr qint64 MaxReviewersFileBytes = 256 * 1024;
inline constexpr std::size_t MaxNamedReviewers = 1000;
inline constexpr qint64 MaxCredentialFileBytes = 16 * 1024;
inline constexpr std::size_t MaxReviewerNameLength = 32;

struct NamedReviewer
{
    std::string name; // decided_by is "human:<name>"
    std::string osUser; // who this person is on this machine (exclude_requester)
    std::string tokenSha256; // lowercase hex; the token itself is never stored
    std::string added; // ISO 8601, UTC
};

struct ReviewerCredential
{
    std::string url; // the console's ws:// URL
    std::string name; // for display and for --reviewer checks; the token decides
    std::string token;
};

// A short identifier: a letter or digit, then letters, digits, '.', '_',
// '-', at most MaxReviewerNameLength in all. Empty when valid, else why not.
std::string reviewerNameProblem(std::string_view name);

// Pure parsers: the file's bytes in, the entries or a precise message out
// ("reviewers[1].name: ..."). Unknown fields, a wrong version, a duplicate
// name or token are errors, not guesses.
struct ReviewersParse
{
    std::vector<NamedReviewer> reviewers;
    std::string error; // empty: ok
};
ReviewersParse parseReviewersFile(std::string_view bytes);
std::string reviewersFileText(const std::vector<NamedReviewer> &reviewers);

struct CredentialParse
{
    ReviewerCredential credential;
    std::string error;
};
CredentialParse parseCredentialFile(std::string_view bytes);
std::string credentialFileText(const ReviewerCredential &credential);

// The reviewer `token` belongs to, compared in constant time against every
// entry (how long it takes says nothing about which, if any, matched).
std::optional<NamedReviewer> findReviewerByToken(
    const std::vector<NamedReviewer> &reviewers, const QByteArray &token);

// Reads at most `maxBytes` of a regular file (a symlink to one is followed):
// a FIFO or a device is refused at once, never waited on (open(2) on a FIFO
// blocks until a writer comes), and a larger file is refused, not cut.
// `missing` is set when it does not exist.
bool readRegularFile(const QString &path, qint64 maxBytes, QByteArray *bytes, QString *error,
    bool *missing = nullptr);

// Reads a file that holds or guards a secret, as ssh reads its keys: it must
// belong to this process's user and be closed to group and others (no bits
// of 0077), or it is refused, whatever its content. `missing` is set when it
// does not exist. At most `maxBytes`.
bool readPrivateFile(const QString &path, qint64 maxBytes, QByteArray *bytes, QString *error,
    bool *missing = nullptr);

} // namespace holdpoint
