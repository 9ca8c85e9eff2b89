// SPDX-License-Identifier: Apache-2.0
#pragma once

// SHA-1 (FIPS 180-4 §6.1), SHA-256 (§6.2) and base64 (RFC 4648 §4), for
// what must not load libcrypto: a hook's WebSocket handshake
// (Sec-WebSocket-Accept, RFC 6455 §4.1) and its note file names. Linking
// libcrypto costs a hook 1.3 ms at start on the 2-core VM; these hash a few
// hundred bytes per call. The console's audit chain keeps libcrypto
// (common/sha256.h).

#include <array>
#include <string>
#include <string_view>

namespace holdpoint::wire {

std::array<unsigned char, 20> sha1(std::string_view data);
std::array<unsigned char, 32> sha256(std::string_view data);
// Lowercase hex, 64 characters.
std::string sha256Hex(std::string_view data);
std::string toHex(std::string_view bytes);
std::string base64(std::string_view bytes);

} // namespace holdpoint::wire
