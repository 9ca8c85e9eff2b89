// SPDX-License-Identifier: Apache-2.0
// libFuzzer: the Claude Code hook input parser and the messages and output
// built from what it accepts.
#include "integrations/claudecode.h"

#include <cstdint>

using namespace holdpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const claudecode::ParseResult r = claudecode::parseHookInput(text);
    if (!r.input)
        return 0;
    (void)dumpJson(claudecode::toolCallMessage(*r.input, "c"));
    (void)dumpJson(claudecode::toolResultMessage(*r.input, "c"));
    const Json decision = { { "type", "decision" }, { "decision", "modify" },
        { "args", r.input->toolInput }, { "reason", r.input->toolName } };
    (void)claudecode::preToolUseOutput(decision);
    (void)claudecode::postToolUseOutput({ { "action", "warn" }, { "reason", r.input->sessionId } });
    return 0;
}
