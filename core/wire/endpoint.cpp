// SPDX-License-Identifier: Apache-2.0
#include "endpoint.h"

#include "wire/files.h"
#include "wire/json.h"

#include <cerrno>
#include <cstring>

namespace holdpoint::wire {

bool parseWsUrl(const std::string &url, WsUrl *out)
{
    const std::string scheme = "ws://";
    if (url.compare(0, scheme.size(), scheme) != 0)
        return false;
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find_first_of("/?#");
    const std::string authority = rest.substr(0, slash);
    WsUrl u;
    u.path = slash == std::string::npos ? "/" : rest.substr(slash);
    if (u.path[0] != '/')
        u.path = "/" + u.path;
    if (const std::size_t hash = u.path.find('#'); hash != std::string::npos)
        u.path.resize(hash);
    if (authority.empty() || authority.find('@') != std::string::npos)
        return false;
    std::size_t colon = authority.rfind(':');
    if (authority[0] == '[') { // an IPv6 literal
        const std::size_t close = authority.find(']');
        if (close == std::string::npos)
            return false;
        u.host = authority.substr(1, close - 1);
        colon = authority.size() > close + 1 && authority[close + 1] == ':' ? close + 1
                                                                            : std::string::npos;
        if (colon == std::string::npos && authority.size() != close + 1)
            return false;
    } else {
        u.host = authority.substr(0, colon);
    }
    if (colon != std::string::npos) {
        const std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5
            || port.find_first_not_of("0123456789") != std::string::npos)
            return false;
        u.port = std::stoi(port);
        if (u.port < 1 || u.port > 65535)
            return false;
    }
    if (u.host.empty())
        return false;
    *out = std::move(u);
    return true;
}

bool readEndpoint(
    const std::string &dataDir, bool withReviewer, Endpoint *out, std::string *error, bool *absent)
{
    const std::string path = dataDir + "/" + EndpointFileName;
    std::string bytes;
    if (absent)
        *absent = false;
    if (!readFile(path, 64 * 1024, &bytes)) {
        if (absent)
            *absent = errno == ENOENT;
        *error = "no console found: cannot read " + path + " (" + std::strerror(errno)
            + "). Start `holdpoint`, or point --data-dir or HOLDPOINT_DATA_DIR at its data "
              "directory";
        return false;
    }
    const Json j = Json::parse(bytes, nullptr, false);
    if (!j.is_object() || !j.contains("url") || !j["url"].is_string() || !j.contains("agent_token")
        || !j["agent_token"].is_string()) {
        *error = path + " is not a valid endpoint file (expected url and agent_token)";
        return false;
    }
    Endpoint e;
    e.url = j["url"].get<std::string>();
    e.agentToken = j["agent_token"].get<std::string>();
    if (const auto pid = j.find("pid"); pid != j.end() && pid->is_number_integer())
        e.pid = pid->get<std::int64_t>();
    if (WsUrl u; !parseWsUrl(e.url, &u)) {
        *error = path + ": url is not a ws:// URL";
        return false;
    }
    if (withReviewer) {
        const std::string tokenPath = dataDir + "/" + ReviewerTokenFileName;
        if (!readFile(tokenPath, 4096, &e.reviewerToken)) {
            *error
                = "cannot read the reviewer token " + tokenPath + " (" + std::strerror(errno) + ")";
            return false;
        }
        const std::size_t first = e.reviewerToken.find_first_not_of(" \t\n\r\f\v");
        const std::size_t last = e.reviewerToken.find_last_not_of(" \t\n\r\f\v");
        e.reviewerToken = first == std::string::npos
            ? std::string()
            : e.reviewerToken.substr(first, last - first + 1);
    }
    *out = std::move(e);
    return true;
}

} // namespace holdpoint::wire
