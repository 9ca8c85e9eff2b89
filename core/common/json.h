// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wire/json.h"

#include <QString>

#include <string>
#include <string_view>

namespace holdpoint {

inline QString toQString(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

inline std::string toStd(const QString &s)
{
    return s.toStdString();
}

} // namespace holdpoint
