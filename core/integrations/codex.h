// SPDX-License-Identifier: Apache-2.0
#pragma once

// The hook formats live in core/hooks, where holdpoint-ctl's hooks reach
// them without Qt; this name stays for the code that includes it.
#include "hooks/codex.h"
#include "protocol/protocol.h"

namespace holdpoint::codex {

// capabilities() as the console's protocol types them.
inline protocol::Capabilities helloCapabilities()
{
    const wire::Capabilities c = capabilities();
    return protocol::Capabilities { c.modify, c.halt };
}

} // namespace holdpoint::codex
