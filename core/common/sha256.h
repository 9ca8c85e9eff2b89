// SPDX-License-Identifier: Apache-2.0
#pragma once

// SHA-256 through OpenSSL's libcrypto, which uses the CPU's SHA extensions:
// the audit log hashes every record it writes and every record it verifies.

#include <array>
#include <string>
#include <string_view>

namespace holdpoint {

using Sha256Digest = std::array<unsigned char, 32>;

Sha256Digest sha256(std::string_view data);
// Lowercase hex, 64 characters.
std::string sha256Hex(std::string_view data);

} // namespace holdpoint
