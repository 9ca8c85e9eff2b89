// SPDX-License-Identifier: Apache-2.0
#pragma once

// UTF-8 as RFC 3629 §4 defines it: no overlong forms, no surrogates,
// nothing past U+10FFFF. One reading for the WebSocket client's text
// messages (RFC 6455 §8.1) and for the JSON writer's replacement of bad
// bytes (common/jsonwriter.h).

#include <cstddef>
#include <string_view>

namespace holdpoint::wire {

// The length of the valid sequence starting at s[i] (2 to 4) for a byte of
// 0x80 or more, or, for an invalid one, 0 with `*skip` set to the bytes
// its maximal invalid prefix spans: at least 1 for a byte that cannot
// start a sequence, else the valid prefix before the offending byte (which
// starts afresh), as the Unicode "maximal subpart" rule and nlohmann's
// decoder have it. A prefix cut short by the string's end spans to the end.
inline std::size_t utf8Sequence(std::string_view s, std::size_t i, std::size_t *skip)
{
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t need;
    unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0)
            lo = 0xA0; // overlong
        else if (c == 0xED)
            hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0)
            lo = 0x90; // overlong
        else if (c == 0xF4)
            hi = 0x8F; // beyond U+10FFFF
    } else {
        *skip = 1; // a continuation byte, C0, C1 or F5..FF
        return 0;
    }
    for (std::size_t k = 1; k < need; ++k) {
        if (i + k >= s.size()) {
            *skip = s.size() - i;
            return 0;
        }
        const auto b = static_cast<unsigned char>(s[i + k]);
        const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        if (!ok) {
            *skip = k;
            return 0;
        }
    }
    return need;
}

inline bool isUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        std::size_t skip = 0;
        const std::size_t n = utf8Sequence(s, i, &skip);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

} // namespace holdpoint::wire
