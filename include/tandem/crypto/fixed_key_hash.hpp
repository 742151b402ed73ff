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
// the default, rekeyed_hash, does not degrade.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>

#include <cstddef>
#include <cstdint>

// The hash over any AES lanes L (crypto/lanes.hpp), always inlined into an
// entry point of one instruction set.
namespace tandem::detail {

/// The fixed-key hash under the 11 round keys `round`, on values in registers:
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + width·z + l). With 16
/// registers, eight registers of blocks at a time (the round keys are then
/// read from memory, one load per AES instruction, which Zen 3 and Intel
/// cores issue beside it).
template <class L, std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void fixed_key_registers(const block* round, std::uint64_t first_tweak,
                                                       typename L::vec (&v)[C][Z]) noexcept {
    using vec = typename L::vec;
    // Groups of at most eight registers of blocks, all of one size (the
    // largest that divides Z: three-halves hashes 3·2^k blocks a batch).
    constexpr std::size_t most = L::registers >= 32 || Z * C <= 8 ? Z : (8 / C < 1 ? 1 : 8 / C);
    constexpr std::size_t G = [] {
        std::size_t g = most;
        while (Z % g != 0) --g;
        return g;
    }();
    vec rk[11];
    TANDEM_UNROLL
    for (int r = 0; r < 11; ++r) L::broadcast(rk[r], round[r]);
    TANDEM_UNROLL
    for (std::size_t g = 0; g < Z; g += G) {
        vec in[C][G], st[C][G], tweak;
        L::tweaks(tweak, first_tweak + g * L::width);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                L::sigma(in[c][z], v[c][g + z]);
                L::xor_into(in[c][z], tweak);  // σ(v) ^ j
                st[c][z] = in[c][z];
                L::xor_into(st[c][z], rk[0]);
            }
            L::next_tweaks(tweak);
        }
        TANDEM_UNROLL
        for (int r = 1; r < 10; ++r) {
            TANDEM_UNROLL
            for (std::size_t z = 0; z < G; ++z) {
                TANDEM_UNROLL
                for (std::size_t c = 0; c < C; ++c) L::aesenc(st[c][z], rk[r]);
            }
        }
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                L::aesenclast(st[c][z], rk[10]);
                v[c][g + z] = st[c][z];
                L::xor_into(v[c][g + z], in[c][z]);
            }
        }
    }
}

/// The same on x[c * N + m] in memory (N a multiple of L::width).
template <class L, std::size_t N, std::size_t C>
[[gnu::always_inline]] inline void fixed_key(const block* round, std::uint64_t first_tweak, block* x) noexcept {
    constexpr std::size_t Z = N / L::width;
    typename L::vec v[C][Z];
    load_batch<L, N, C>(x, v);
    fixed_key_registers<L, Z, C>(round, first_tweak, v);
    store_batch<L, N, C>(x, v);
}

}  // namespace tandem::detail

#if TANDEM_X86
TANDEM_VAES256_BEGIN
namespace tandem::detail::vaes256 {
template <std::size_t N, std::size_t C>
inline void fixed_key(const block* round, std::uint64_t first_tweak, block* x) noexcept {
    detail::fixed_key<lanes256, N, C>(round, first_tweak, x);
}
}  // namespace tandem::detail::vaes256
TANDEM_VAES256_END

TANDEM_VAES_BEGIN
namespace tandem::detail::vaes {
template <std::size_t N, std::size_t C>
inline void fixed_key(const block* round, std::uint64_t first_tweak, block* x) noexcept {
    detail::fixed_key<lanes512, N, C>(round, first_tweak, x);
}
}  // namespace tandem::detail::vaes
TANDEM_VAES_END
#endif

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
#if TANDEM_X86
        const aes_isa isa = detail::choose_aes_isa();
        if constexpr (N % 4 == 0) {
            if (isa == aes_isa::vaes) return detail::vaes::fixed_key<N, C>(key_.round.data(), first_tweak, x);
        }
        if constexpr (N % 2 == 0) {
            if (isa != aes_isa::aesni) return detail::vaes256::fixed_key<N, C>(key_.round.data(), first_tweak, x);
        }
#endif
        detail::fixed_key<detail::lanes128, N, C>(key_.round.data(), first_tweak, x);
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
static_assert(tweakable_hash<fixed_key_hash>);

}  // namespace tandem

TANDEM_CRYPTO_END

namespace tandem::detail {
template <class L, std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void hash_registers(const fixed_key_hash& h, std::uint64_t first_tweak,
                                                  typename L::vec (&v)[C][Z]) noexcept {
    fixed_key_registers<L, Z, C>(h.key().round.data(), first_tweak, v);
}
}  // namespace tandem::detail
