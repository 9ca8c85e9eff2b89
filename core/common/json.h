// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace holdpoint {

using Json = nlohmann::json;

inline QString toQString(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

inline std::string toStd(const QString &s)
{
    return s.toStdString();
}

// Serialises for the wire and for people: invalid UTF-8 inside strings is
// replaced, never thrown on, because values can come from anywhere.
inline std::string dumpJson(const Json &j, int indent = -1)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace holdpoint
