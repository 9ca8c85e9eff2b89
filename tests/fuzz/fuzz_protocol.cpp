// SPDX-License-Identifier: Apache-2.0
// libFuzzer: the protocol message parser and what the broker serialises back.
#include "protocol/protocol.h"

#include <cstdint>

using namespace holdpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const protocol::ParseResult r = protocol::parseMessage(text);
    if (!r.ok()) {
        (void)dumpJson(protocol::errorToJson(r.error.code, r.error.message, r.error.callId));
        return 0;
    }
    if (const auto *call = std::get_if<protocol::ToolCall>(&*r.message)) {
        protocol::Decision d;
        d.kind = protocol::DecisionKind::Modify;
        d.args = call->args;
        d.reason = call->toolName;
        (void)dumpJson(protocol::decisionToJson(call->callId, d));
        (void)protocol::compactResult(call->args, 64);
    }
    return 0;
}
