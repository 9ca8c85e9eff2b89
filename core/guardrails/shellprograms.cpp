// SPDX-License-Identifier: Apache-2.0
// What programs do by their options that the words of a rule do not say:
// run a command given after them (wrappers), run code from a string, a
// file or a configuration value, or write a file. Split from
// shellparse.cpp, which reads the line.
#include "shellparse.h"

#include <algorithm>
#include <array>

namespace holdpoint {

namespace {

bool isAllDigits(std::string_view s)
{
    return !s.empty()
        && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <std::size_t N>
bool inList(std::string_view s, const std::array<std::string_view, N> &list)
{
    return std::find(list.begin(), list.end(), s) != list.end();
}

} // namespace

namespace {

// How a program that runs another one takes its options: those that take a
// value in the next word, and how many words come between the options and
// the command (timeout's duration, chroot's directory).
struct Wrapper
{
    std::string_view name;
    std::string_view valueOptions; // short options with a value, e.g. "nu"
    std::array<std::string_view, 4> longValueOptions;
    int operands;
};

constexpr std::array<Wrapper, 20> wrappers { {
    { "env", "uCS", { "--unset", "--chdir", "--split-string" }, 0 },
    { "command", "", {}, 0 },
    { "builtin", "", {}, 0 },
    { "exec", "a", {}, 0 },
    { "nohup", "", {}, 0 },
    { "time", "fo", { "--format", "--output" }, 0 },
    { "nice", "n", { "--adjustment" }, 0 },
    { "ionice", "cnp", { "--class", "--classdata", "--pid" }, 0 },
    { "timeout", "sk", { "--signal", "--kill-after" }, 1 },
    { "stdbuf", "ioe", { "--input", "--output", "--error" }, 0 },
    { "sudo", "ugpChDrtTU", { "--user", "--group", "--prompt", "--chdir" }, 0 },
    { "doas", "uC", {}, 0 },
    { "setsid", "", {}, 0 },
    { "xargs", "adEeIiLlnPs", { "--arg-file", "--delimiter", "--max-args", "--max-procs" }, 0 },
    { "chroot", "", { "--userspec", "--groups" }, 1 },
    { "taskset", "", {}, 1 },
    { "flock", "wEc", { "--timeout", "--conflict-exit-code", "--command" }, 1 },
    { "unbuffer", "", {}, 0 },
    { "strace", "eoOpPsSuEXb", { "--output" }, 0 },
    { "busybox", "", {}, 0 },
} };

// `--name` or `--name=…`.
bool isLong(std::string_view word, std::string_view name)
{
    return word.starts_with(name) && (word.size() == name.size() || word[name.size()] == '=');
}

} // namespace

bool ShellParse::isShell(std::string_view name)
{
    static constexpr std::array<std::string_view, 9> shells { "sh", "bash", "zsh", "dash", "ksh",
        "mksh", "ash", "fish", "csh" };
    return inList(name, shells);
}

// What a program does by its options that the words of a rule do not say:
// it runs a command given after them (a wrapper), runs code from a string
// or a file, or writes a file.
void ShellParse::readOptions(
    const std::vector<Word> &words, std::size_t from, int depth, std::string_view name)
{
    const auto arg = [&](std::size_t i) -> std::string_view { return words[i].text; };
    if (isShell(name) || name == "eval" || name == "source" || name == ".") {
        m_opaque |= ShellString;
        // Read the string too, so a deny rule still sees rm in bash -c 'rm -rf ~'.
        if (name == "eval") {
            std::string joined;
            for (std::size_t i = from; i < words.size(); ++i)
                joined.append(i == from ? "" : " ").append(words[i].text);
            parseNested(joined, depth + 1);
            return;
        }
        for (std::size_t i = from; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (a.size() < 2 || a[0] != '-' || a == "--")
                break;
            if (a[1] != '-' && a.find('c') != std::string_view::npos) {
                if (i + 1 < words.size())
                    parseNested(words[i + 1].text, depth + 1);
                break;
            }
        }
        return;
    }
    if (name == "su" || name == "watch" || name == "script" || name == "ssh" || name == "nsenter"
        || name == "unshare") {
        // They run their command through a shell, or somewhere else.
        m_opaque |= ShellString;
        return;
    }
    for (const Wrapper &wr : wrappers) {
        if (wr.name != name)
            continue;
        if (name == "xargs")
            m_opaque |= RiskyOption; // the rest of the command comes from its input
        std::size_t i = from;
        while (i < words.size()) {
            const std::string_view a = arg(i);
            if (name == "env" && a.find('=') != std::string_view::npos && a[0] != '-') {
                m_opaque |= Assignment;
                ++i;
                continue;
            }
            if (a == "--") {
                ++i;
                break;
            }
            if (a.size() < 2 || a[0] != '-')
                break;
            if (name == "env" && (a == "-S" || isLong(a, "--split-string") || a.starts_with("-S")))
                m_opaque |= ShellString;
            if ((name == "sudo" || name == "doas") && a[1] != '-'
                && a.find_first_of("is") != std::string_view::npos)
                m_opaque |= ShellString; // a login or root shell
            if (name == "flock" && (a == "-c" || isLong(a, "--command")))
                m_opaque |= ShellString;
            if (a[1] == '-') {
                ++i;
                if (a.find('=') == std::string_view::npos
                    && std::find(wr.longValueOptions.begin(), wr.longValueOptions.end(), a)
                        != wr.longValueOptions.end())
                    ++i;
                continue;
            }
            // -abc: a short cluster; a value option takes the rest, or the next word.
            bool valueInNext = false;
            for (std::size_t k = 1; k < a.size(); ++k) {
                if (wr.valueOptions.find(a[k]) != std::string_view::npos) {
                    valueInNext = k + 1 == a.size();
                    break;
                }
            }
            if (name == "nice" && isAllDigits(a.substr(1)))
                valueInNext = false; // nice -10
            i += valueInNext ? 2 : 1;
        }
        i += std::size_t(wr.operands);
        if (i < words.size())
            addWords(words, i, depth + 1);
        return;
    }
    if (name == "find") {
        for (std::size_t i = from; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") {
                m_opaque |= RiskyOption;
                if (i + 1 < words.size())
                    addWords(words, i + 1, depth + 1);
                return;
            }
            if (a == "-delete")
                m_opaque |= RiskyOption;
            if (a == "-fprint" || a == "-fprint0" || a == "-fprintf" || a == "-fls")
                m_opaque |= WritesFile;
        }
        return;
    }
    if (name == "git") {
        // Options before the subcommand: -c core.fsmonitor=… (or
        // core.pager, core.sshCommand, alias.*) runs a program of the
        // caller's choosing; --git-dir and --work-tree take another
        // repository's configuration and hooks.
        std::size_t i = from;
        for (; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (a.empty() || a[0] != '-')
                break;
            if (a == "-c" || a.starts_with("-c") || isLong(a, "--config-env")
                || isLong(a, "--exec-path") || isLong(a, "--git-dir") || isLong(a, "--work-tree")
                || isLong(a, "--namespace") || isLong(a, "--super-prefix")
                || isLong(a, "--attr-source"))
                m_opaque |= RiskyOption;
            // -C elsewhere: another repository, whose configuration (core.fsmonitor) runs.
            if (a == "-C" && (i + 1 >= words.size() || !staysInPlace(arg(i + 1), m_cwd)))
                m_opaque |= RiskyOption;
            if (a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree"
                || a == "--namespace" || a == "--config-env" || a == "--super-prefix"
                || a == "--attr-source")
                ++i; // its value
        }
        for (; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (isLong(a, "--output"))
                m_opaque |= WritesFile;
            if (isLong(a, "--ext-diff") || isLong(a, "--textconv") || isLong(a, "--exec")
                || isLong(a, "--upload-pack") || isLong(a, "--receive-pack")
                || isLong(a, "--open-files-in-pager"))
                m_opaque |= RiskyOption; // writes a file, or runs a program
        }
        return;
    }
    if (name == "make" || name == "gmake") {
        for (std::size_t i = from; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (a == "--")
                break;
            if (isLong(a, "--file") || isLong(a, "--makefile") || isLong(a, "--eval"))
                m_opaque |= RiskyOption; // a makefile the project does not have
            // -C DIR outside the project runs that directory's makefile.
            const std::string_view dir = a == "-C" || a == "--directory"
                ? (i + 1 < words.size() ? arg(i + 1) : "")
                : a.starts_with("--directory=") ? a.substr(12)
                : a.starts_with("-C")           ? a.substr(2)
                                                : std::string_view("build");
            if (!staysInPlace(dir, m_cwd))
                m_opaque |= RiskyOption;
            if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
                // -f FILE and -E TEXT, alone or in a cluster before an option with a value.
                for (std::size_t k = 1; k < a.size(); ++k) {
                    if (a[k] == 'f' || a[k] == 'E')
                        m_opaque |= RiskyOption;
                    if (std::string_view("CIjloOW").find(a[k]) != std::string_view::npos)
                        break;
                }
            }
            // VAR=value overrides the makefile's variables, SHELL and CC included.
            if (!a.empty() && a[0] != '-' && a.find('=') != std::string_view::npos)
                m_opaque |= RiskyOption;
        }
        return;
    }
    if (name == "npm" || name == "pnpm" || name == "yarn") {
        for (std::size_t i = from; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            if (a == "--")
                break; // the script's own arguments
            if (isLong(a, "--script-shell") || isLong(a, "--node-options")
                || isLong(a, "--userconfig") || isLong(a, "--globalconfig") || isLong(a, "--prefix")
                || a == "-C")
                m_opaque |= RiskyOption;
        }
        return;
    }
    if (name == "pytest" || name == "py.test") {
        for (std::size_t i = from; i < words.size(); ++i) {
            const std::string_view a = arg(i);
            // -p loads a plugin module, -c/-o change the configuration,
            // --basetemp is a directory pytest deletes, the rest write files.
            if (a.starts_with("-p") || a == "-c" || a.starts_with("-o")
                || isLong(a, "--config-file") || isLong(a, "--override-ini")
                || isLong(a, "--basetemp") || isLong(a, "--rootdir") || isLong(a, "--confcutdir")
                || isLong(a, "--junitxml") || isLong(a, "--junit-xml") || isLong(a, "--result-log")
                || isLong(a, "--report-log") || isLong(a, "--log-file") || isLong(a, "--pastebin")
                || isLong(a, "--debug"))
                m_opaque |= RiskyOption;
            // A test file or directory outside the project is code of anyone's.
            if (!a.empty() && a[0] != '-' && !staysInPlace(a, m_cwd))
                m_opaque |= RiskyOption;
        }
    }
}

} // namespace holdpoint
