// SPDX-License-Identifier: Apache-2.0
#include "files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace holdpoint::wire {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string homePath()
{
    std::string home = env("HOME");
    if (home.empty()) {
        if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_dir)
            home = pw->pw_dir;
    }
    return home.empty() ? std::string("/") : absolutePath(home);
}

} // namespace

std::string absolutePath(const std::string &path)
{
    std::string full = path;
    if (full.empty() || full[0] != '/') {
        char cwd[4096];
        full = std::string(::getcwd(cwd, sizeof cwd) ? cwd : "/") + "/" + path;
    }
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= full.size()) {
        const std::size_t slash = full.find('/', i);
        const std::string part
            = full.substr(i, slash == std::string::npos ? std::string::npos : slash - i);
        if (part == "..") {
            // As QDir::cleanPath(): ".." above the root stays.
            if (!parts.empty() && parts.back() != "..")
                parts.pop_back();
            else
                parts.push_back(part);
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        if (slash == std::string::npos)
            break;
        i = slash + 1;
    }
    std::string out;
    for (const std::string &p : parts)
        out += "/" + p;
    return out.empty() ? std::string("/") : out;
}

std::string resolveDataDir(const std::string &fromFlag)
{
    if (!fromFlag.empty())
        return absolutePath(fromFlag);
    if (const std::string dir = env("HOLDPOINT_DATA_DIR"); !dir.empty())
        return absolutePath(dir);
    std::string base = env("XDG_DATA_HOME");
    if (base.empty())
        base = homePath() + "/.local/share";
    return base + "/holdpoint";
}

std::string currentOsUser()
{
    if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    const std::string user = env("USER");
    return user.empty() ? std::string("uid") + std::to_string(geteuid()) : user;
}

namespace {

// Qt 6.4's checkXdgRuntimeDir (qstandardpaths_unix.cpp): created 0700 when
// missing; else a directory, not a symlink, owned by this user, its mode
// made 0700 when it is not ("Its Unix access mode MUST be 0700", XDG Base
// Directory spec). Empty when it holds, else why not.
std::string checkRuntimeDir(const std::string &path)
{
    if (::mkdir(path.c_str(), 0700) == 0)
        return {};
    if (errno != EEXIST)
        return "cannot create " + path + ": " + std::strerror(errno);
    struct stat st
    {
    };
    if (::lstat(path.c_str(), &st) != 0)
        return "cannot stat " + path + ": " + std::strerror(errno);
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
        return path + " is not a directory (or is a symlink)";
    if (st.st_uid != geteuid())
        return path + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid "
            + std::to_string(geteuid()) + ")";
    if ((st.st_mode & 07777) != 0700 && ::chmod(path.c_str(), 0700) != 0)
        return "cannot make " + path + " private (mode 0700): " + std::strerror(errno);
    return {};
}

} // namespace

bool runtimeDir(std::string *dir, std::string *error)
{
    // As QStandardPaths::RuntimeLocation: $XDG_RUNTIME_DIR when it passes
    // the check, else $TMPDIR/runtime-USER (QDir::tempPath()), which must
    // pass it too.
    std::string why;
    if (const std::string xdg = env("XDG_RUNTIME_DIR"); !xdg.empty()) {
        why = checkRuntimeDir(xdg);
        if (why.empty()) {
            *dir = xdg;
            return true;
        }
    }
    const std::string tmp = env("TMPDIR");
    const std::string fallback
        = absolutePath(tmp.empty() ? std::string("/tmp") : tmp) + "/runtime-" + currentOsUser();
    if (const std::string fallbackWhy = checkRuntimeDir(fallback); !fallbackWhy.empty()) {
        *error = "no private runtime directory: "
            + (why.empty() ? std::string() : "XDG_RUNTIME_DIR: " + why + "; ") + fallbackWhy;
        return false;
    }
    *dir = fallback;
    return true;
}

bool ensurePrivateDir(const std::string &dir, std::string *error)
{
    const std::string path = absolutePath(dir);
    for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
        const std::string prefix = path.substr(0, slash);
        if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
            *error = "cannot create data directory " + dir;
            return false;
        }
        if (slash == std::string::npos)
            break;
    }
    if (::chmod(path.c_str(), 0700) != 0) {
        *error = "cannot make data directory " + dir + " private (mode 0700)";
        return false;
    }
    return true;
}

bool writePrivateFile(const std::string &path, const std::string &bytes, std::string *error)
{
    // A temporary beside it, renamed over it: rename(2) replaces it whole.
    const std::string id = randomId("tmp-");
    if (id.empty()) {
        *error = "cannot write " + path + ": no random numbers (getrandom and /dev/urandom failed)";
        return false;
    }
    const std::string temp = path + "." + id;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    for (std::size_t done = 0; ok && done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? std::size_t(n) : 0;
    }
    ok = ok && ::fsync(fd) == 0;
    const int saved = errno;
    if (fd >= 0)
        ::close(fd);
    if (ok && ::rename(temp.c_str(), path.c_str()) == 0)
        return true;
    *error = "cannot write " + path + ": " + std::strerror(ok ? errno : saved);
    ::unlink(temp.c_str());
    return false;
}

bool readFile(const std::string &path, std::size_t maxBytes, std::string *out)
{
    out->clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char chunk[16 * 1024];
    while (out->size() < maxBytes) {
        const ssize_t n = ::read(fd, chunk, std::min(sizeof chunk, maxBytes - out->size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            return n == 0;
        }
        out->append(chunk, std::size_t(n));
    }
    ::close(fd);
    return true;
}

bool randomBytes(void *out, std::size_t n)
{
    auto *bytes = static_cast<unsigned char *>(out);
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::getrandom(bytes + got, n - got, 0);
        if (r > 0)
            got += std::size_t(r);
        else if (r < 0 && errno != EINTR)
            break; // ENOSYS (an old kernel, a seccomp filter): /dev/urandom
    }
    if (got == n)
        return true;
    const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    while (got < n) {
        const ssize_t r = ::read(fd, bytes + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += std::size_t(r);
    }
    ::close(fd);
    return got == n;
}

std::string randomId(const char *prefix)
{
    unsigned long long v = 0;
    if (!randomBytes(&v, sizeof v))
        return {};
    char hex[17];
    std::snprintf(hex, sizeof hex, "%llx", v);
    return prefix + std::string(hex);
}

std::int64_t nowMs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

} // namespace holdpoint::wire
