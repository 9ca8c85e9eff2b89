// SPDX-License-Identifier: Apache-2.0
// libFuzzer: the shell reader behind Bash(…) rules, on any bytes as a
// command line and, split at NULs, as an argv. It must stay within its
// caps, keep every command's text inside the parse, and never call an
// empty or oversized line understood.
#include "guardrails/shellparse.h"

#include <cstdint>

using namespace holdpoint;

namespace {

void check(const ShellParse &p, std::size_t inputBytes)
{
    if (p.size() > ShellParse::MaxCommands)
        __builtin_trap();
    if (inputBytes > ShellParse::MaxBytes && p.understood())
        __builtin_trap();
    if (p.size() == 0 && p.understood())
        __builtin_trap();
    std::size_t sink = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        sink += p.text(i).size() + p.written(i).size();
    if (sink > 4 * ShellParse::MaxBytes * ShellParse::MaxDepth)
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view line(reinterpret_cast<const char *>(data), size);
    check(ShellParse::parse(line), size);
    Json argv = Json::array();
    std::size_t start = 0;
    for (std::size_t i = 0; i <= size; ++i) {
        if (i == size || line[i] == '\0') {
            argv.push_back(std::string(line.substr(start, i - start)));
            start = i + 1;
        }
    }
    check(ShellParse::parseArgv(argv), size);
    return 0;
}
