// tandem/lib/sha256.hpp — SHA-256 (FIPS 180-4, §6.2) as a secure function.
//
//   tandem::lib::sha256_compress(state, block)  one compression, §6.2.2
//   tandem::lib::sha256_initial_state()         H(0), §5.3.3 (public constants)
//   tandem::lib::sha256(message)                digest of a message of public length
//
// Conventions, as in FIPS 180-4: a state is eight 32-bit words H0..H7, a block
// sixteen 32-bit words M0..M15, and bytes map to words big-endian (byte 0 is the
// most significant byte of word 0). Messages are whole bytes (secure_uint<8>);
// the digest is 32 bytes in the standard's order (the usual hex string).
// Padding (§5.1.1) depends only on the public length, so it is constants and free.
//
// AND gates (asserted in tests/lib_sha.cpp):
//   sha256_compress, secret state and block:  22,266  (Bristol file: 22,573; EMP: 24,744)
//   sha256 of a 3-byte message (one block, public IV folds):  20,060
//   sha256 of a 64-byte message (two blocks):                 37,779
// Where they come from: Ch(e,f,g) = g ^ (e & (f ^ g)) and Maj(a,b,c) = b ^ ((a ^ b) & (b ^ c))
// are 32 ANDs each per round; every sum of words is one column-compressed
// multi-operand addition (lib/word_sum.hpp), which saves about an AND per extra
// operand over chained ripple adders; the public bits of K_t add no ANDs (a
// public one in a column lets a carry go up for free, so some rounds save a few).
// W_62 and W_63 are never rotated, so their four terms go straight into T1's
// sum; in the last round e and a are only fed forward, so H4 + d + T1 and
// H0 + T1 + Σ0 + Maj are single sums. Exactly:
//     4,096  Ch and Maj, 64 × 64
//     7,385  T1 = h + Σ1(e) + Ch + K_t + W_t, rounds 0–61 (114–120 each, by K_t)
//       418  T1 with W_t's four terms, rounds 62–63 (210 + 208)
//     1,953  e' = d + T1, 63 × 31
//     3,843  a' = T1 + Σ0(a) + Maj, 63 × 61
//     4,232  W_t = σ1(W_t-2) + W_t-7 + σ0(W_t-15) + W_t-16, t = 16..61, 46 × 92
//       339  feed-forward: H0 + T1 + Σ0 + Maj 92, H4 + d + T1 61, six of H_i + x 31
//    22,266  (chained ripple adders: 22,696)
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/error.hpp>
#include <tandem/lib/word_sum.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tandem::detail {

/// K_0..K_63 (FIPS 180-4 §4.2.2): the first 32 bits of the fractional parts of
/// the cube roots of the first 64 primes.
inline constexpr std::array<std::uint32_t, 64> sha256_k = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/// H(0) (FIPS 180-4 §5.3.3): the first 32 bits of the fractional parts of the
/// square roots of the first 8 primes.
inline constexpr std::array<std::uint32_t, 8> sha256_h0 = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/// ROTR^n (§3.2): free, wires are renamed.
inline secure_uint<32> sha256_rotr(const secure_uint<32>& x, unsigned n) { return (x >> n) ^ (x << (32 - n)); }

// The functions of §4.1.2. Σ and σ are XORs of rotations (free); Ch and Maj are 32 ANDs each.
inline secure_uint<32> sha256_big_sigma0(const secure_uint<32>& x) {
    return sha256_rotr(x, 2) ^ sha256_rotr(x, 13) ^ sha256_rotr(x, 22);
}
inline secure_uint<32> sha256_big_sigma1(const secure_uint<32>& x) {
    return sha256_rotr(x, 6) ^ sha256_rotr(x, 11) ^ sha256_rotr(x, 25);
}
inline secure_uint<32> sha256_small_sigma0(const secure_uint<32>& x) {
    return sha256_rotr(x, 7) ^ sha256_rotr(x, 18) ^ (x >> 3);
}
inline secure_uint<32> sha256_small_sigma1(const secure_uint<32>& x) {
    return sha256_rotr(x, 17) ^ sha256_rotr(x, 19) ^ (x >> 10);
}
/// Ch(e, f, g) = (e & f) ^ (~e & g), a bitwise mux: one AND per bit.
inline secure_uint<32> sha256_ch(const secure_uint<32>& e, const secure_uint<32>& f, const secure_uint<32>& g) {
    return g ^ (e & (f ^ g));
}
/// Maj(a, b, c) = (a & b) ^ (a & c) ^ (b & c), one AND per bit.
inline secure_uint<32> sha256_maj(const secure_uint<32>& a, const secure_uint<32>& b, const secure_uint<32>& c) {
    return b ^ ((a ^ b) & (b ^ c));
}

inline secure_uint<32> sha256_sum(std::initializer_list<secure_uint<32>> rows) { return sum_words(rows); }
inline secure_uint<32> sha256_sum(const std::vector<secure_uint<32>>& rows) {
    return sum_words(std::span<const secure_uint<32>>(rows));
}

}  // namespace tandem::detail

namespace tandem::lib {

/// A SHA-256 state: the eight 32-bit words H0..H7.
using sha256_state = std::array<secure_uint<32>, 8>;
/// One 512-bit message block: sixteen 32-bit words, big-endian from bytes.
using sha256_block = std::array<secure_uint<32>, 16>;
/// A SHA-256 digest: 32 bytes in the standard's order.
using sha256_digest = std::array<secure_uint<8>, 32>;

/// The initial hash value H(0) of FIPS 180-4 §5.3.3, as public constants.
inline sha256_state sha256_initial_state() {
    sha256_state h;
    for (std::size_t i = 0; i < 8; ++i) h[i] = detail::sha256_h0[i];
    return h;
}

/// One SHA-256 compression (FIPS 180-4 §6.2.2, steps 1–4): the next hash value
/// H(i) from H(i-1) = `state` and the message block M(i) = `block`.
inline sha256_state sha256_compress(const sha256_state& state, const sha256_block& block) {
    // Step 1, the message schedule. W_t for t < 62 is needed as bits (σ0, σ1
    // rotate it); W_62 and W_63 only enter T1, so they stay as their four terms.
    std::array<secure_uint<32>, 64> w;
    for (std::size_t t = 0; t < 16; ++t) w[t] = block[t];
    auto schedule_terms = [&w](std::size_t t) {
        return std::vector<secure_uint<32>>{detail::sha256_small_sigma1(w[t - 2]), w[t - 7],
                                            detail::sha256_small_sigma0(w[t - 15]), w[t - 16]};
    };
    for (std::size_t t = 16; t < 62; ++t) w[t] = detail::sha256_sum(schedule_terms(t));

    // Steps 2–3: the 64 rounds on the working variables a..h.
    secure_uint<32> a = state[0], b = state[1], c = state[2], d = state[3];
    secure_uint<32> e = state[4], f = state[5], g = state[6], h = state[7];
    for (std::size_t t = 0; t < 64; ++t) {
        std::vector<secure_uint<32>> t1_terms{h, detail::sha256_big_sigma1(e), detail::sha256_ch(e, f, g),
                                              secure_uint<32>(detail::sha256_k[t])};
        if (t < 62) {
            t1_terms.push_back(w[t]);
        } else {
            for (const secure_uint<32>& term : schedule_terms(t)) t1_terms.push_back(term);
        }
        const secure_uint<32> t1 = detail::sha256_sum(t1_terms);
        const secure_uint<32> s0 = detail::sha256_big_sigma0(a), mj = detail::sha256_maj(a, b, c);
        if (t == 63) {  // step 4 with the last round's additions folded in: a and e are only fed forward
            return {detail::sha256_sum({state[0], t1, s0, mj}), detail::sha256_sum({state[1], a}),
                    detail::sha256_sum({state[2], b}),          detail::sha256_sum({state[3], c}),
                    detail::sha256_sum({state[4], d, t1}),      detail::sha256_sum({state[5], e}),
                    detail::sha256_sum({state[6], f}),          detail::sha256_sum({state[7], g})};
        }
        h = g;
        g = f;
        f = e;
        e = detail::sha256_sum({d, t1});
        d = c;
        c = b;
        b = a;
        a = detail::sha256_sum({t1, s0, mj});
    }
    return state;  // not reached: the loop returns in round 63
}

/// SHA-256 of a message whose length (in bytes) is public (FIPS 180-4 §5.1.1
/// padding, §6.2 hash computation from H(0)). The digest bytes are in the
/// standard's order.
inline sha256_digest sha256(std::span<const secure_uint<8>> message) {
    const std::size_t length = message.size();
    if (length >= (std::size_t{1} << 61))  // the padding writes the length in bits in 64 bits (§5.1.1)
        throw usage_error("tandem::lib::sha256: FIPS 180-4 hashes messages of fewer than 2^64 bits (2^61 bytes)");
    const std::size_t blocks = (length + 9 + 63) / 64;  // the message, the 0x80 byte and the 64-bit length
    const std::uint64_t bit_length = static_cast<std::uint64_t>(length) * 8;
    auto byte_at = [&](std::size_t k) -> secure_uint<8> {
        if (k < length) return message[k];
        if (k == length) return 0x80;
        const std::size_t from_end = blocks * 64 - 1 - k;  // 0 for the last byte
        if (from_end < 8) return static_cast<std::uint8_t>(bit_length >> (8 * from_end));
        return 0;
    };
    sha256_state h = sha256_initial_state();
    for (std::size_t i = 0; i < blocks; ++i) {
        sha256_block m;
        for (std::size_t j = 0; j < 16; ++j) {
            const std::size_t k = i * 64 + 4 * j;
            m[j] = concat(concat(byte_at(k), byte_at(k + 1)), concat(byte_at(k + 2), byte_at(k + 3)));
        }
        h = sha256_compress(h, m);
    }
    sha256_digest out;
    for (std::size_t j = 0; j < 8; ++j)
        for (std::size_t k = 0; k < 4; ++k) out[4 * j + k] = (h[j] >> (24 - 8 * k)).template resize<8>();
    return out;
}

/// sha256 of a message held in a std::array.
template <std::size_t L>
sha256_digest sha256(const std::array<secure_uint<8>, L>& message) {
    return sha256(std::span<const secure_uint<8>>(message));
}

}  // namespace tandem::lib
