// tandem/crypto/aes.hpp — AES-128 with AES-NI, and batched under one or many keys.
//
// FIPS-197. The key schedule uses the aesenclast formulation (Gueron, "Intel
// AES-NI instructions set", 2010, §5): RotWord of the last word is broadcast
// by a byte shuffle, and aesenclast applies SubWord and the round constant —
// unlike aeskeygenassist it takes the constant from a register, so many keys
// expand side by side, four per 512-bit register with VAES.
//
// multi_key_encrypt() expands keys round by round while it encrypts (round r
// only needs round key r), so no schedule is ever stored: the form the
// re-keyed hash of gc/ needs. On a CPU with VAES and AVX-512 four AES lanes
// run per instruction (the kernels in namespace detail::vaes, chosen at run
// time, crypto/isa.hpp); otherwise AES-NI runs one block per instruction.
// Both give identical results (tests/crypto.cpp).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>

#include <array>
#include <cstddef>

#include <immintrin.h>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

inline constexpr std::array<int, 10> aes_round_constants{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

/// One step of the AES-128 key schedule on a 128-bit lane.
inline __m128i aes_key_step(__m128i k, __m128i rcon) noexcept {
    __m128i t = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f0e0d));  // RotWord(w3) in every word
    t = _mm_aesenclast_si128(t, rcon);                              // SubWord(...) ^ rcon
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 8));
    return _mm_xor_si128(k, t);
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {

/// The key-schedule step on four keys, one per 128-bit lane.
inline __m512i aes_key_step(__m512i k, __m512i rcon) noexcept {
    __m512i t = _mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f0e0d));
    t = _mm512_aesenclast_epi128(t, rcon);
    // Prefix XOR of the four words with two byte shifts (shuffles are the
    // scarce port here), the last XOR merged with t (vpternlog 0x96: a ^ b ^ c).
    k = _mm512_xor_si512(k, _mm512_bslli_epi128(k, 4));
    return _mm512_ternarylogic_epi64(k, _mm512_bslli_epi128(k, 8), t, 0x96);
}

/// Encrypts b[0 .. 16·⌊n/16⌋) in place under the 11 round keys `round`,
/// sixteen blocks per iteration; returns how many it did.
inline std::size_t encrypt_blocks(const block* round, block* b, std::size_t n) noexcept {
    __m512i rk[11];
    for (int r = 0; r < 11; ++r) rk[r] = _mm512_maskz_broadcast_i32x4(0xFFFF, round[r].v);  // maskz: GCC 12 warns on the plain form
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i s[4];
        for (int j = 0; j < 4; ++j) s[j] = _mm512_xor_si512(_mm512_loadu_si512(b + i + 4 * j), rk[0]);
        for (int r = 1; r < 10; ++r)
            for (int j = 0; j < 4; ++j) s[j] = _mm512_aesenc_epi128(s[j], rk[r]);
        for (int j = 0; j < 4; ++j) _mm512_storeu_si512(b + i + 4 * j, _mm512_aesenclast_epi128(s[j], rk[10]));
    }
    return i;
}

/// s[c][z] ← AES_{k[z]}(s[c][z]) lane by lane, expanding the keys k (four per
/// register) round by round in place. The core of every re-keyed batch.
template <std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void multi_key_rounds(__m512i (&k)[Z], __m512i (&s)[C][Z]) noexcept {
    for (std::size_t z = 0; z < Z; ++z)
        for (std::size_t c = 0; c < C; ++c) s[c][z] = _mm512_xor_si512(s[c][z], k[z]);
    for (int r = 0; r < 10; ++r) {
        const __m512i rcon = _mm512_set1_epi32(aes_round_constants[r]);
        for (std::size_t z = 0; z < Z; ++z) {
            k[z] = aes_key_step(k[z], rcon);
            for (std::size_t c = 0; c < C; ++c)
                s[c][z] = r < 9 ? _mm512_aesenc_epi128(s[c][z], k[z]) : _mm512_aesenclast_epi128(s[c][z], k[z]);
        }
    }
}

/// multi_key_encrypt with four keys per 512-bit register. N is a multiple of 4.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt(const block* keys, block* blocks) noexcept {
    static_assert(N % 4 == 0, "vaes::multi_key_encrypt: keys go four to a register");
    constexpr std::size_t Z = N / 4;
    __m512i k[Z], s[C][Z];
    for (std::size_t z = 0; z < Z; ++z) {
        k[z] = _mm512_loadu_si512(keys + 4 * z);
        for (std::size_t c = 0; c < C; ++c) s[c][z] = _mm512_loadu_si512(blocks + c * N + 4 * z);
    }
    multi_key_rounds<Z, C>(k, s);
    for (std::size_t z = 0; z < Z; ++z)
        for (std::size_t c = 0; c < C; ++c) _mm512_storeu_si512(blocks + c * N + 4 * z, s[c][z]);
}

}  // namespace tandem::detail::vaes

TANDEM_VAES_END

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// An expanded AES-128 key: 11 round keys.
struct aes_key {
    std::array<block, 11> round;

    explicit aes_key(block key) noexcept {
        __m128i k = key.v;
        round[0] = block(k);
        for (int r = 0; r < 10; ++r) {
            k = detail::aes_key_step(k, _mm_set1_epi32(detail::aes_round_constants[r]));
            round[r + 1] = block(k);
        }
    }

    block encrypt(block x) const noexcept {
        __m128i s = _mm_xor_si128(x.v, round[0].v);
        for (int r = 1; r < 10; ++r) s = _mm_aesenc_si128(s, round[r].v);
        return block(_mm_aesenclast_si128(s, round[10].v));
    }

    /// Encrypts n blocks in place, many at a time so the AES pipeline stays full
    /// (sixteen per iteration with VAES, eight with AES-NI).
    void encrypt(block* b, std::size_t n) const noexcept {
        std::size_t i = n >= 16 && detail::use_vaes() ? detail::vaes::encrypt_blocks(round.data(), b, n) : 0;
        for (; i + 8 <= n; i += 8) {
            __m128i s[8];
            for (int j = 0; j < 8; ++j) s[j] = _mm_xor_si128(b[i + j].v, round[0].v);
            for (int r = 1; r < 10; ++r)
                for (int j = 0; j < 8; ++j) s[j] = _mm_aesenc_si128(s[j], round[r].v);
            for (int j = 0; j < 8; ++j) b[i + j] = block(_mm_aesenclast_si128(s[j], round[10].v));
        }
        for (block* p = b + i; p != b + n; ++p) *p = encrypt(*p);  // (an index loop here trips a false GCC 12 warning)
    }
};

/// Encrypts, for every m < N and c < C, blocks[c * N + m] under keys[m],
/// expanding the N keys on the fly — AES-NI, one block per instruction.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt_aesni(const block* keys, block* blocks) noexcept {
    __m128i k[N], s[C][N];
    for (std::size_t m = 0; m < N; ++m) {
        k[m] = keys[m].v;
        for (std::size_t c = 0; c < C; ++c) s[c][m] = _mm_xor_si128(blocks[c * N + m].v, k[m]);
    }
    for (int r = 0; r < 10; ++r) {
        const __m128i rcon = _mm_set1_epi32(detail::aes_round_constants[r]);
        for (std::size_t m = 0; m < N; ++m) {
            k[m] = detail::aes_key_step(k[m], rcon);
            for (std::size_t c = 0; c < C; ++c)
                s[c][m] = r < 9 ? _mm_aesenc_si128(s[c][m], k[m]) : _mm_aesenclast_si128(s[c][m], k[m]);
        }
    }
    for (std::size_t m = 0; m < N; ++m)
        for (std::size_t c = 0; c < C; ++c) blocks[c * N + m] = block(s[c][m]);
}

/// Encrypts, for every m < N and c < C, blocks[c * N + m] under keys[m]: with
/// VAES where it runs (N a multiple of 4), else with AES-NI.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt(const block* keys, block* blocks) noexcept {
    if constexpr (N % 4 == 0) {
        if (detail::use_vaes()) {
            detail::vaes::multi_key_encrypt<N, C>(keys, blocks);
            return;
        }
    }
    multi_key_encrypt_aesni<N, C>(keys, blocks);
}

/// One key at a time, any number of keys (the tails of batches; the reference in tests).
inline void multi_key_encrypt_scalar(const block* keys, std::size_t n, std::size_t copies, block* blocks) noexcept {
    for (std::size_t m = 0; m < n; ++m) {
        const aes_key key(keys[m]);
        for (std::size_t c = 0; c < copies; ++c) blocks[c * n + m] = key.encrypt(blocks[c * n + m]);
    }
}

}  // namespace tandem

TANDEM_CRYPTO_END
