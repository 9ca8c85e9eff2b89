// SPDX-License-Identifier: Apache-2.0
#include "digest.h"

#include <algorithm>
#include <cstdint>

namespace holdpoint::wire {

namespace {

std::uint32_t rotl(std::uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}
std::uint32_t rotr(std::uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

// Both hashes pad alike (FIPS 180-4 §5.1.1): 0x80, zeros, the bit length
// as 64 bits big-endian, to a multiple of 64 bytes. `block` takes each
// 64-byte block as 16 big-endian words.
template <typename Block> void eachBlock(std::string_view data, Block &&block)
{
    std::string tail(data.size() % 64 < 56 ? 64 : 128, '\0');
    const std::size_t whole = data.size() - data.size() % 64;
    for (std::size_t i = whole; i < data.size(); ++i)
        tail[i - whole] = data[i];
    tail[data.size() - whole] = char(0x80);
    const std::uint64_t bits = std::uint64_t(data.size()) * 8;
    for (int i = 0; i < 8; ++i)
        tail[tail.size() - 1 - i] = char(bits >> (8 * i));
    auto run = [&](const char *p) {
        std::uint32_t w[16];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(std::uint8_t(p[4 * i])) << 24
                | std::uint32_t(std::uint8_t(p[4 * i + 1])) << 16
                | std::uint32_t(std::uint8_t(p[4 * i + 2])) << 8
                | std::uint32_t(std::uint8_t(p[4 * i + 3]));
        block(w);
    };
    for (std::size_t i = 0; i < whole; i += 64)
        run(data.data() + i);
    for (std::size_t i = 0; i < tail.size(); i += 64)
        run(tail.data() + i);
}

template <std::size_t N> std::array<unsigned char, 4 * N> bigEndian(const std::uint32_t (&h)[N])
{
    std::array<unsigned char, 4 * N> out {};
    for (std::size_t i = 0; i < N; ++i)
        for (int b = 0; b < 4; ++b)
            out[4 * i + std::size_t(b)] = static_cast<unsigned char>(h[i] >> (24 - 8 * b));
    return out;
}

constexpr std::uint32_t K256[64] = { 0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
    0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
    0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3,
    0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354,
    0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3,
    0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa,
    0xa4506ceb, 0xbef9a3f7, 0xc67178f2 };

} // namespace

std::array<unsigned char, 20> sha1(std::string_view data)
{
    std::uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
    eachBlock(data, [&](const std::uint32_t *m) {
        std::uint32_t w[80];
        for (int t = 0; t < 80; ++t)
            w[t] = t < 16 ? m[t] : rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int t = 0; t < 80; ++t) {
            std::uint32_t f, k;
            if (t < 20) {
                f = (b & c) | (~b & d);
                k = 0x5a827999;
            } else if (t < 40) {
                f = b ^ c ^ d;
                k = 0x6ed9eba1;
            } else if (t < 60) {
                f = (b & c) | (b & d) | (c & d);
                k = 0x8f1bbcdc;
            } else {
                f = b ^ c ^ d;
                k = 0xca62c1d6;
            }
            const std::uint32_t temp = rotl(a, 5) + f + e + k + w[t];
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = temp;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    });
    return bigEndian(h);
}

std::array<unsigned char, 32> sha256(std::string_view data)
{
    std::uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
        0x1f83d9ab, 0x5be0cd19 };
    eachBlock(data, [&](const std::uint32_t *m) {
        std::uint32_t w[64];
        for (int t = 0; t < 64; ++t) {
            if (t < 16) {
                w[t] = m[t];
                continue;
            }
            const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        std::uint32_t v[8];
        for (int i = 0; i < 8; ++i)
            v[i] = h[i];
        for (int t = 0; t < 64; ++t) {
            const std::uint32_t e = v[4], a = v[0];
            const std::uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25))
                + ((e & v[5]) ^ (~e & v[6])) + K256[t] + w[t];
            const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22))
                + ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
            for (int i = 7; i > 0; --i)
                v[i] = v[i - 1];
            v[4] += t1;
            v[0] = t1 + t2;
        }
        for (int i = 0; i < 8; ++i)
            h[i] += v[i];
    });
    return bigEndian(h);
}

std::string toHex(std::string_view bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string sha256Hex(std::string_view data)
{
    const auto d = sha256(data);
    return toHex(std::string_view(reinterpret_cast<const char *>(d.data()), d.size()));
}

std::string base64(std::string_view bytes)
{
    static constexpr char alphabet[]
        = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        std::uint32_t v = 0;
        for (std::size_t j = 0; j < 3; ++j)
            v = v << 8 | (j < n ? std::uint8_t(bytes[i + j]) : 0);
        for (std::size_t j = 0; j < 4; ++j)
            out += j <= n ? alphabet[(v >> (18 - 6 * j)) & 63] : '=';
    }
    return out;
}

} // namespace holdpoint::wire
