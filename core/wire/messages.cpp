// SPDX-License-Identifier: Apache-2.0
#include "messages.h"

#include "wire/digest.h"
#include "wire/files.h"

namespace holdpoint::wire {

bool isValidId(std::string_view id)
{
    if (id.empty() || id.size() > MaxIdLength)
        return false;
    for (unsigned char c : id) {
        if (c < 0x20 || c == 0x7f)
            return false;
    }
    return true;
}

bool isValidName(std::string_view name)
{
    return !name.empty() && name.size() <= MaxNameLength;
}

Json compactResult(const Json &result, std::size_t maxBytes)
{
    const std::string text = dumpJson(result);
    if (text.size() <= maxBytes)
        return result;
    return Json { { "truncated", true }, { "bytes", text.size() }, { "sha256", sha256Hex(text) } };
}

Json capabilitiesToJson(const Capabilities &c)
{
    Json j = Json::object();
    if (!c.modify)
        j["modify"] = false;
    if (!c.halt)
        j["halt"] = false;
    return j;
}

Json helloMessage(const Hello &h)
{
    Json hello { { "type", "hello" }, { "protocol", ProtocolVersion }, { "role", h.role },
        { "token", h.token }, { "agent", { { "name", h.agentName } } } };
    if (!h.framework.empty())
        hello["agent"]["framework"] = h.framework;
    // Who started the agent, for rules that exclude the requester.
    if (h.role == "agent")
        hello["agent"]["user"] = h.user.empty() ? currentOsUser() : h.user;
    if (!h.capabilities.all())
        hello["capabilities"] = capabilitiesToJson(h.capabilities);
    if (h.sessionId)
        hello["session_id"] = *h.sessionId;
    return hello;
}

} // namespace holdpoint::wire
