// tandem/crypto/fixed_key_hash.hpp — OPT-IN: a faster hash with a weaker bound.
//
//     H(x, j) = π(σ(x) ⊕ j) ⊕ σ(x) ⊕ j,   π = AES under one fixed public key S,
//
// the fixed-key construction in the style of Bellare–Hoang–Keelveedhi–Rogaway
// (JustGarble, 2013) and Zahur–Rosulek–Evans (2015), with σ as in hash.hpp.
// One key schedule serves every gate, so it costs only the encryptions. Its
// security is proven with π an ideal permutation and its bound degrades with
// the total number of hash queries across all instances (Guo–Katz–Wang–Yu,
// eprint 2019/074, and GKWWY, eprint 2019/1168, §1: an attacker who sees many
// garbled circuits can recover a label with work about 2^128 / (number of
// ANDs garbled)). Use it only where that multi-instance bound is acceptable;
// the default, mitccr_hash, does not degrade.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>

#include <cstddef>
#include <cstdint>

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {

/// The fixed-key hash under the 11 round keys `round`, on values in registers:
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + 4z + l).
template <std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void fixed_key_registers(const block* round, std::uint64_t first_tweak, __m512i (&v)[C][Z]) noexcept {
    __m512i rk[11];
    for (int r = 0; r < 11; ++r) rk[r] = _mm512_maskz_broadcast_i32x4(0xFFFF, round[r].v);
    __m512i in[C][Z], st[C][Z];
    __m512i tweak = tweak_lanes(first_tweak);
    for (std::size_t z = 0; z < Z; ++z, tweak = next_tweak_lanes(tweak)) {
        for (std::size_t c = 0; c < C; ++c) {
            in[c][z] = _mm512_xor_si512(sigma_lanes(v[c][z]), tweak);  // σ(v) ^ j
            st[c][z] = _mm512_xor_si512(in[c][z], rk[0]);
        }
    }
    for (int r = 1; r < 10; ++r)
        for (std::size_t z = 0; z < Z; ++z)
            for (std::size_t c = 0; c < C; ++c) st[c][z] = _mm512_aesenc_epi128(st[c][z], rk[r]);
    for (std::size_t z = 0; z < Z; ++z)
        for (std::size_t c = 0; c < C; ++c) v[c][z] = _mm512_xor_si512(_mm512_aesenclast_epi128(st[c][z], rk[10]), in[c][z]);
}

/// The same on x[c * N + m] in memory (N a multiple of 4).
template <std::size_t N, std::size_t C>
inline void fixed_key(const block* round, std::uint64_t first_tweak, block* x) noexcept {
    __m512i v[C][N / 4];
    load_lanes<N, C>(x, v);
    fixed_key_registers<N / 4, C>(round, first_tweak, v);
    store_lanes<N, C>(x, v);
}

}  // namespace tandem::detail::vaes

TANDEM_VAES_END

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// The opt-in fixed-key garbling hash (garbling_hash::fixed_key; see the top
/// of this header for its weaker multi-instance bound).
class fixed_key_hash {
public:
    explicit fixed_key_hash(block start) noexcept : start_(start), key_(start) {}
    block start() const noexcept { return start_; }

    /// x[c * N + m] ← H(x[c * N + m], first_tweak + m) for m < N, c < C.
    template <std::size_t N, std::size_t C>
    void hash(std::uint64_t first_tweak, block* x) const noexcept {
        if constexpr (N % 4 == 0) {
            if (detail::use_vaes()) {
                detail::vaes::fixed_key<N, C>(key_.round.data(), first_tweak, x);
                return;
            }
        }
        if constexpr (N * C <= 8) {  // small batches (chains, tails): all blocks through the rounds together
            __m128i in[N * C], st[N * C];
            for (std::size_t i = 0; i < N * C; ++i) {
                in[i] = (sigma(x[i]) ^ block(0, first_tweak + i % N)).v;
                st[i] = _mm_xor_si128(in[i], key_.round[0].v);
            }
            for (int r = 1; r < 10; ++r)
                for (std::size_t i = 0; i < N * C; ++i) st[i] = _mm_aesenc_si128(st[i], key_.round[r].v);
            for (std::size_t i = 0; i < N * C; ++i)
                x[i] = block(_mm_xor_si128(_mm_aesenclast_si128(st[i], key_.round[10].v), in[i]));
        } else {
            hash(first_tweak, N, C, x);
        }
    }
    void hash(std::uint64_t first_tweak, std::size_t n, std::size_t copies, block* x) const noexcept {
        block s[64];
        for (std::size_t done = 0; done < n * copies; done += 64) {  // batches of up to 64 blocks
            const std::size_t len = n * copies - done < 64 ? n * copies - done : 64;
            for (std::size_t i = 0; i < len; ++i) {
                const std::size_t at = done + i;
                x[at] = s[i] = sigma(x[at]) ^ block(0, first_tweak + at % n);
            }
            key_.encrypt(x + done, len);
            for (std::size_t i = 0; i < len; ++i) x[done + i] ^= s[i];
        }
    }

    /// The expanded fixed key (public: π is a public permutation).
    const aes_key& key() const noexcept { return key_; }

private:

    block start_;
    aes_key key_;
};

}  // namespace tandem

TANDEM_CRYPTO_END

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {
template <std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void hash_registers(const fixed_key_hash& h, std::uint64_t first_tweak, __m512i (&v)[C][Z]) noexcept {
    fixed_key_registers<Z, C>(h.key().round.data(), first_tweak, v);
}
}  // namespace tandem::detail::vaes

TANDEM_VAES_END
