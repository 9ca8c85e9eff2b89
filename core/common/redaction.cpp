// SPDX-License-Identifier: Apache-2.0
#include "redaction.h"

namespace holdpoint {

std::string maskText(std::string text, const std::vector<Redaction> &redactions)
{
    for (const Redaction &r : redactions) {
        if (r.secret.empty())
            continue;
        for (std::size_t pos = text.find(r.secret); pos != std::string::npos;
             pos = text.find(r.secret, pos + r.placeholder.size()))
            text.replace(pos, r.secret.size(), r.placeholder);
    }
    return text;
}

namespace {

template <typename Fn> Json mapStrings(const Json &j, const Fn &fn)
{
    if (j.is_string())
        return fn(j.get<std::string>());
    if (j.is_object()) {
        Json out = Json::object();
        for (auto it = j.begin(); it != j.end(); ++it)
            out[fn(it.key())] = mapStrings(it.value(), fn);
        return out;
    }
    if (j.is_array()) {
        Json out = Json::array();
        for (const auto &e : j)
            out.push_back(mapStrings(e, fn));
        return out;
    }
    return j;
}

} // namespace

Json maskJson(const Json &j, const std::vector<Redaction> &redactions)
{
    if (redactions.empty())
        return j;
    return mapStrings(j, [&](const std::string &s) { return maskText(s, redactions); });
}

Json unmaskJson(const Json &j, const std::vector<Redaction> &redactions)
{
    if (redactions.empty())
        return j;
    return mapStrings(j, [&](std::string s) {
        for (const Redaction &r : redactions)
            for (std::size_t pos = s.find(r.placeholder); pos != std::string::npos;
                 pos = s.find(r.placeholder, pos + r.secret.size()))
                s.replace(pos, r.placeholder.size(), r.secret);
        return s;
    });
}

} // namespace holdpoint
