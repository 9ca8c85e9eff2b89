// SPDX-License-Identifier: Apache-2.0
#include "sha256.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace holdpoint {

Sha256Digest sha256(std::string_view data)
{
    // Fetched once: an implicit fetch on every call costs as much as the
    // hash of a record.
    static EVP_MD *const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    // One context per thread, reused: EVP_Digest makes and frees one per
    // hash, and the console hashes four times per call.
    thread_local const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)> ctx(
        EVP_MD_CTX_new(), EVP_MD_CTX_free);
    Sha256Digest digest {};
    unsigned int size = 0;
    // Fails only when libcrypto itself is broken (no SHA-256, no memory):
    // a log that cannot hash must not pretend to, so stop.
    if (!md || !ctx || EVP_DigestInit_ex2(ctx.get(), md, nullptr) != 1
        || EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1
        || EVP_DigestFinal_ex(ctx.get(), digest.data(), &size) != 1 || size != digest.size())
        std::abort();
    return digest;
}

std::string sha256Hex(std::string_view data)
{
    static constexpr char Digits[] = "0123456789abcdef";
    const Sha256Digest digest = sha256(data);
    std::string hex(digest.size() * 2, '\0');
    for (std::size_t i = 0; i < digest.size(); ++i) {
        hex[2 * i] = Digits[digest[i] >> 4];
        hex[2 * i + 1] = Digits[digest[i] & 0xf];
    }
    return hex;
}

} // namespace holdpoint
