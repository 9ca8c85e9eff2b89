// SPDX-License-Identifier: Apache-2.0
// libFuzzer: the MCP line framer (fed in chunks the input itself chooses)
// and the JSON-RPC classifier on every line it yields.
#include "integrations/mcp.h"

#include <cstdint>

using namespace holdpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    // The first byte picks a chunk size; a small cap exercises dropping.
    const qsizetype chunk = (data[0] % 31) + 1;
    mcp::LineFramer framer(512);
    std::vector<QByteArray> lines;
    int dropped = 0;
    for (size_t at = 1; at < size; at += size_t(chunk))
        framer.feed(reinterpret_cast<const char *>(data) + at,
            qsizetype(std::min<size_t>(size_t(chunk), size - at)), &lines, &dropped);
    lines.push_back(framer.takeRest());
    for (const QByteArray &line : lines) {
        const mcp::Message m = mcp::classify(line);
        if (m.kind != mcp::Kind::Invalid)
            (void)dumpJson(mcp::errorResult(m.id, m.method));
    }
    return 0;
}
