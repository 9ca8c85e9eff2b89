// SPDX-License-Identifier: Apache-2.0
#include "reviewertokens.h"

#include "common/json.h"
#include "common/jsonparse.h"
#include "common/sha256.h"

#include <QFile>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace holdpoint {

namespace {

constexpr std::size_t MaxFileDepth = 8;

bool isHex64(const std::string &s)
{
    if (s.size() != 64)
        return false;
    for (const char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

// "expected one of: a, b" for a key this version does not know.
std::string unknownKey(
    const std::string &where, const std::string &key, const std::set<std::string> &known)
{
    std::string list;
    for (const std::string &k : known)
        list += (list.empty() ? "" : ", ") + k;
    return where + key + ": unknown field (expected one of: " + list + ")";
}

// The string at `key`, or an error; `where` prefixes the message.
bool stringField(const Json &obj, const std::string &where, const char *key, std::string *out,
    std::string *error)
{
    const auto it = obj.find(key);
    if (it == obj.end()) {
        *error = where + key + ": missing";
        return false;
    }
    if (!it->is_string()) {
        *error = where + key + ": expected a string, got " + it->type_name();
        return false;
    }
    *out = it->get<std::string>();
    return true;
}

bool versionField(const Json &obj, int expected, std::string *error)
{
    const auto it = obj.find("version");
    if (it == obj.end() || !it->is_number_integer() || it->get<long long>() != expected) {
        *error = "version: expected " + std::to_string(expected)
            + (it == obj.end() ? ", missing" : ", got " + dumpJson(*it));
        return false;
    }
    return true;
}

bool parseObject(std::string_view bytes, Json *j, std::string *error)
{
    if (!parseStrictJson(bytes, MaxFileDepth, j, error))
        return false;
    if (!j->is_object()) {
        *error = std::string("expected a JSON object, got ") + j->type_name();
        return false;
    }
    return true;
}

} // namespace

std::string reviewerNameProblem(std::string_view name)
{
    if (name.empty())
        return "empty";
    if (name.size() > MaxReviewerNameLength)
        return "longer than " + std::to_string(MaxReviewerNameLength) + " characters";
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool alnum
            = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-')))
            return "expected a letter or digit, then letters, digits, '.', '_' or '-'";
    }
    return {};
}

ReviewersParse parseReviewersFile(std::string_view bytes)
{
    ReviewersParse r;
    Json j;
    if (!parseObject(bytes, &j, &r.error) || !versionField(j, ReviewersFileVersion, &r.error))
        return r;
    for (const auto &[key, value] : j.items())
        if (key != "version" && key != "reviewers") {
            r.error = unknownKey("", key, { "version", "reviewers" });
            return r;
        }
    const auto list = j.find("reviewers");
    if (list == j.end() || !list->is_array()) {
        r.error = "reviewers: expected an array";
        return r;
    }
    if (list->size() > MaxNamedReviewers) {
        r.error = "reviewers: more than " + std::to_string(MaxNamedReviewers) + " entries";
        return r;
    }
    static const std::set<std::string> known { "name", "os_user", "token_sha256", "added" };
    std::set<std::string> names, hashes;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json &e = (*list)[i];
        const std::string where = "reviewers[" + std::to_string(i) + "].";
        if (!e.is_object()) {
            r.error
                = where.substr(0, where.size() - 1) + ": expected an object, got " + e.type_name();
            return r;
        }
        for (const auto &[key, value] : e.items())
            if (!known.contains(key)) {
                r.error = unknownKey(where, key, known);
                return r;
            }
        NamedReviewer n;
        if (!stringField(e, where, "name", &n.name, &r.error)
            || !stringField(e, where, "os_user", &n.osUser, &r.error)
            || !stringField(e, where, "token_sha256", &n.tokenSha256, &r.error)
            || !stringField(e, where, "added", &n.added, &r.error))
            return r;
        if (const std::string why = reviewerNameProblem(n.name); !why.empty()) {
            r.error = where + "name: " + why;
            return r;
        }
        if (const std::string why = reviewerNameProblem(n.osUser); !why.empty()) {
            r.error = where + "os_user: " + why;
            return r;
        }
        if (!isHex64(n.tokenSha256)) {
            r.error = where + "token_sha256: expected 64 lowercase hex digits";
            return r;
        }
        if (!names.insert(n.name).second) {
            r.error = where + "name: \"" + n.name + "\" appears twice";
            return r;
        }
        if (!hashes.insert(n.tokenSha256).second) {
            r.error = where + "token_sha256: the same token as an earlier entry";
            return r;
        }
        r.reviewers.push_back(std::move(n));
    }
    return r;
}

std::string reviewersFileText(const std::vector<NamedReviewer> &reviewers)
{
    Json list = Json::array();
    for (const NamedReviewer &n : reviewers)
        list.push_back(Json { { "name", n.name }, { "os_user", n.osUser },
            { "token_sha256", n.tokenSha256 }, { "added", n.added } });
    return dumpJson(
               Json { { "version", ReviewersFileVersion }, { "reviewers", std::move(list) } }, 2)
        + "\n";
}

CredentialParse parseCredentialFile(std::string_view bytes)
{
    CredentialParse r;
    Json j;
    if (!parseObject(bytes, &j, &r.error) || !versionField(j, CredentialFileVersion, &r.error))
        return r;
    static const std::set<std::string> known { "version", "kind", "url", "reviewer", "token" };
    for (const auto &[key, value] : j.items())
        if (!known.contains(key)) {
            r.error = unknownKey("", key, known);
            return r;
        }
    std::string kind;
    if (!stringField(j, "", "kind", &kind, &r.error))
        return r;
    if (kind != CredentialKind) {
        r.error = std::string("kind: expected \"") + CredentialKind + "\"";
        return r;
    }
    ReviewerCredential &c = r.credential;
    if (!stringField(j, "", "url", &c.url, &r.error)
        || !stringField(j, "", "reviewer", &c.name, &r.error)
        || !stringField(j, "", "token", &c.token, &r.error))
        return r;
    if (!c.url.starts_with("ws://")) {
        r.error = "url: expected the console's ws:// URL";
        return r;
    }
    if (const std::string why = reviewerNameProblem(c.name); !why.empty()) {
        r.error = "reviewer: " + why;
        return r;
    }
    if (!isHex64(c.token)) // never quoted back: it is the secret
        r.error = "token: expected 64 lowercase hex digits";
    return r;
}

std::string credentialFileText(const ReviewerCredential &c)
{
    return dumpJson(Json { { "version", CredentialFileVersion }, { "kind", CredentialKind },
                        { "url", c.url }, { "reviewer", c.name }, { "token", c.token } },
               2)
        + "\n";
}

std::optional<NamedReviewer> findReviewerByToken(
    const std::vector<NamedReviewer> &reviewers, const QByteArray &token)
{
    if (token.isEmpty())
        return std::nullopt;
    const std::string digest
        = sha256Hex(std::string_view(token.constData(), std::size_t(token.size())));
    std::optional<NamedReviewer> found;
    for (const NamedReviewer &n : reviewers) {
        unsigned char diff = n.tokenSha256.size() == digest.size() ? 0 : 1;
        for (std::size_t i = 0; i < digest.size() && i < n.tokenSha256.size(); ++i)
            diff |= static_cast<unsigned char>(digest[i] ^ n.tokenSha256[i]);
        if (diff == 0 && !found)
            found = n;
    }
    return found;
}

namespace {

// What readRegularFile and readPrivateFile share: the file opened without
// blocking, and its fstat, or why not. The checks look at the open file,
// not the path: what is checked is what is read.
bool openRegularFile(
    const QString &path, QFile *file, struct stat *st, QString *error, bool *missing)
{
    if (missing)
        *missing = false;
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        if (missing)
            *missing = e == ENOENT;
        *error = QStringLiteral("cannot read %1: %2")
                     .arg(path, QString::fromLocal8Bit(std::strerror(e)));
        return false;
    }
    if (!file->open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        *error = QStringLiteral("cannot read %1: %2").arg(path, file->errorString());
        return false;
    }
    if (fstat(fd, st) != 0) {
        *error = QStringLiteral("cannot read %1: %2")
                     .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (!S_ISREG(st->st_mode)) {
        *error = QStringLiteral("%1 is not a regular file").arg(path);
        return false;
    }
    return true;
}

bool readAtMost(QFile *file, const struct stat &st, const QString &path, qint64 maxBytes,
    QByteArray *bytes, QString *error)
{
    if (st.st_size > maxBytes) {
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(maxBytes);
        return false;
    }
    *bytes = file->read(maxBytes + 1);
    if (bytes->size() > maxBytes) {
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(maxBytes);
        return false;
    }
    return true;
}

} // namespace

bool readRegularFile(
    const QString &path, qint64 maxBytes, QByteArray *bytes, QString *error, bool *missing)
{
    QFile file;
    struct stat st
    {
    };
    return openRegularFile(path, &file, &st, error, missing)
        && readAtMost(&file, st, path, maxBytes, bytes, error);
}

bool readPrivateFile(
    const QString &path, qint64 maxBytes, QByteArray *bytes, QString *error, bool *missing)
{
    QFile file;
    struct stat st
    {
    };
    if (!openRegularFile(path, &file, &st, error, missing))
        return false;
    if (st.st_uid != geteuid()) {
        *error = QStringLiteral("%1 belongs to another user (uid %2); it must be yours, mode 0600")
                     .arg(path)
                     .arg(st.st_uid);
        return false;
    }
    if ((st.st_mode & 0077) != 0) {
        *error = QStringLiteral("permissions %1 for %2 are too open: it holds or guards a secret; "
                                "run `chmod 600 %2`")
                     .arg(QString::number(st.st_mode & 0777, 8).rightJustified(4, u'0'), path);
        return false;
    }
    return readAtMost(&file, st, path, maxBytes, bytes, error);
}

} // namespace holdpoint
