// SPDX-License-Identifier: Apache-2.0
// holdpoint-ctl as agents and people run it: a small front that answers the
// command hooks itself and hands every other command to the full program.
//
// Claude Code, Codex and Gemini CLI start `holdpoint-ctl hook ...` as a new
// process for every tool call. The full program loads Qt Network, Qt
// WebSockets, libpqxx and libpq, 46 libraries in all, before it does any
// work (12 ms for --version on the 2-core VM); this one loads libstdc++ and
// libc (tests/bench/README.md, "hook", has the figures). It links no Qt.
//
// The hand-off is an execv(2) of the full program with the same argv and
// environment, so its stdio, exit code and signals are the command's own.
// The full program is found beside this binary (the build tree) or in
// ../libexec/holdpoint/ (the install), from /proc/self/exe: never PATH.

#include "hookcommand.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr char FullProgram[] = "holdpoint-ctl-full";

// This program's directory, from /proc/self/exe; empty, with *why set, when
// it cannot be had (no /proc mounted, a path longer than PATH_MAX).
std::string selfDir(std::string *why)
{
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf);
    if (n < 0) {
        *why = std::string("cannot find this program's directory: readlink /proc/self/exe: ")
            + std::strerror(errno) + " (is /proc mounted?)";
        return {};
    }
    // readlink(2) fills the buffer without saying the name was longer.
    if (std::size_t(n) >= sizeof buf) {
        *why = "cannot find this program's directory: its path is longer than "
            + std::to_string(sizeof buf - 1) + " bytes";
        return {};
    }
    const std::string self(buf, std::size_t(n));
    return self.substr(0, self.rfind('/'));
}

int handOff(char **argv)
{
    std::string why;
    const std::string dir = selfDir(&why);
    if (dir.empty()) {
        std::fprintf(stderr, "holdpoint-ctl: %s\n", why.c_str());
        return 2; // exitcode::Failed
    }
    // Beside the front first: a build tree has both there, and an install
    // never has holdpoint-ctl-full in bin/, so the libexec copy of another
    // install cannot shadow the program built with this front.
    std::string tried;
    for (const std::string &candidate :
        { dir + "/" + FullProgram, dir + "/../libexec/holdpoint/" + FullProgram }) {
        if (::access(candidate.c_str(), X_OK) != 0)
            continue;
        ::execv(candidate.c_str(), argv);
        tried = candidate;
        break;
    }
    if (tried.empty())
        tried = dir + "/../libexec/holdpoint/" + FullProgram;
    std::fprintf(stderr, "holdpoint-ctl: cannot run %s: %s\n", tried.c_str(), std::strerror(errno));
    return 2; // exitcode::Failed
}

} // namespace

int main(int argc, char **argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    // The global options main.cpp takes before a command. Anything else
    // there (--help, --version, --credential, an unknown option) is the
    // full program's to answer.
    std::string dataDir;
    std::size_t i = 0;
    while (i < args.size() && !args[i].empty() && args[i][0] == '-') {
        const std::string &a = args[i++];
        if (a == "--data-dir" && i < args.size())
            dataDir = args[i++];
        else if (a.rfind("--data-dir=", 0) == 0)
            dataDir = a.substr(11);
        else if (a == "--team" && i < args.size())
            ++i; // a hook asks the console, never the team database
        else if (a.rfind("--team=", 0) != 0)
            return handOff(argv);
    }
    const std::vector<std::string> command(args.begin() + std::ptrdiff_t(i), args.end());
    if (holdpoint::isHookCommand(command))
        return holdpoint::runHook(command, dataDir);
    return handOff(argv);
}
