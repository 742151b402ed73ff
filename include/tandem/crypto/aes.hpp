// tandem/crypto/aes.hpp — AES-128 with AES-NI or the ARMv8 Crypto
// Extensions, and batched under one or many keys.
//
// FIPS-197, with the key schedule of crypto/lanes.hpp. multi_key_encrypt()
// expands keys round by round while it encrypts (round r only needs round
// key r), so no schedule is ever stored: the form the re-keyed hash of gc/
// needs. Both batch loops here are written once over AES lanes
// (crypto/lanes.hpp) and run one, two or four blocks per instruction, as
// crypto/isa.hpp chooses; all widths give identical results (tests/crypto.cpp).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

#if TANDEM_X86
#include <immintrin.h>
#endif

// The batch loops, over any AES lanes L: no target of their own, always
// inlined into an entry point of one instruction set (below).
namespace tandem::detail {

/// How many of Z key registers, each with C registers of blocks, go through
/// the rounds together. With 32 registers of four lanes (AVX-512) all of
/// them; with 16 (and for AArch64's 32 of one lane, untuned: no ARM machine
/// to measure on), a
/// group whose keys and blocks stay in registers beside the key step's
/// temporaries: at most 12 live (4 keys with 4 or 8 blocks), so the AES
/// units see 8–12 independent rounds at a time and nothing spills. Groups
/// are independent, so out-of-order execution overlaps one group's last
/// rounds with the next one's first (docs/DESIGN.md, "The cycle budget of
/// an AND").
template <class L, std::size_t Z, std::size_t C>
consteval std::size_t key_group() {
    if constexpr (L::registers >= 32 && L::width >= 4) {
        return Z;
    } else {
        std::size_t g = 12 / (C + 1) < Z ? 12 / (C + 1) : Z;
        while (Z % g != 0) --g;
        return g;
    }
}

/// s[c][z] ← AES_{k[z]}(s[c][z]) lane by lane, expanding the keys k round by
/// round in place. The core of every re-keyed batch.
template <class L, std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void multi_key_rounds(typename L::vec (&k)[Z], typename L::vec (&s)[C][Z]) noexcept {
    TANDEM_UNROLL
    for (std::size_t z = 0; z < Z; ++z) {
        TANDEM_UNROLL
        for (std::size_t c = 0; c < C; ++c) L::xor_into(s[c][z], k[z]);
    }
    TANDEM_UNROLL
    for (int r = 0; r < 10; ++r) {
        TANDEM_UNROLL
        for (std::size_t z = 0; z < Z; ++z) {
            L::key_step(k[z], r);
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                if (r < 9)
                    L::aesenc(s[c][z], k[z]);
                else
                    L::aesenclast(s[c][z], k[z]);
            }
        }
    }
}

/// The round keys of the tweak keys S ⊕ (0, j), j = first + width·z + l
/// (register z, lane l), into k[r][z], with the schedules word-sliced
/// (lanes.hpp, sliced_rotate): four registers of keys per set of slices,
/// two sets stepped side by side. A set's round is a chain of dependent
/// instructions (shuffle, AES, the XORs) with the transposes hanging off it;
/// one set at a time, the out-of-order window does not reach the next set's
/// chain, and the schedule ran at its latency. Measured on Zen 3 (the
/// schedules alone, VAES-256): 24 → 17 cycles per AND; a third set gains
/// nothing more.
template <class L, std::size_t Z>
[[gnu::always_inline]] inline void sliced_tweak_round_keys(block start, std::uint64_t first,
                                                           typename L::vec (&k)[11][Z]) noexcept {
    static_assert(Z % 4 == 0, "sliced_tweak_round_keys: sets of four registers of keys");
    using vec = typename L::vec;
    constexpr std::size_t sets = Z % 8 == 0 ? 2 : 1;
    TANDEM_UNROLL
    for (std::size_t g = 0; g < Z; g += 4 * sets) {
        vec w[sets][4], t[4];
        TANDEM_UNROLL
        for (std::size_t s = 0; s < sets; ++s) {
            L::sliced_tweak_keys(w[s], start, first + (g + 4 * s) * L::width);
            L::sliced_round_keys(t, w[s]);
            TANDEM_UNROLL
            for (std::size_t z = 0; z < 4; ++z) k[0][g + 4 * s + z] = t[z];
        }
        TANDEM_UNROLL
        for (int r = 0; r < 10; ++r) {
            TANDEM_UNROLL
            for (std::size_t s = 0; s < sets; ++s) L::sliced_step(w[s], r);
            TANDEM_UNROLL
            for (std::size_t s = 0; s < sets; ++s) {
                L::sliced_round_keys(t, w[s]);
                TANDEM_UNROLL
                for (std::size_t z = 0; z < 4; ++z) k[r + 1][g + 4 * s + z] = t[z];
            }
        }
    }
}

/// s[c][z] ← AES_{key g + z}(s[c][z]) under round keys expanded ahead, k[r][g + z].
template <class L, std::size_t G, std::size_t C, std::size_t Z>
[[gnu::always_inline]] inline void round_keys_encrypt(const typename L::vec (&k)[11][Z], std::size_t g,
                                                      typename L::vec (&s)[C][G]) noexcept {
    TANDEM_UNROLL
    for (std::size_t z = 0; z < G; ++z) {
        TANDEM_UNROLL
        for (std::size_t c = 0; c < C; ++c) L::xor_into(s[c][z], k[0][g + z]);
    }
    TANDEM_UNROLL
    for (int r = 1; r < 11; ++r) {
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                if (r < 10)
                    L::aesenc(s[c][z], k[r][g + z]);
                else
                    L::aesenclast(s[c][z], k[r][g + z]);
            }
        }
    }
}

/// The same as sliced_tweak_round_keys then round_keys_encrypt for one set
/// of four registers, with the round keys in registers, made round by round
/// as the encryptions need them: for AES-NI with one block per key (the
/// evaluator), where keys, slices and blocks fit 16 registers together
/// (hash.hpp, mitccr_registers, has the measurement).
template <class L, std::size_t C>
[[gnu::always_inline]] inline void tweak_key_rounds_sliced(block start, std::uint64_t first,
                                                           typename L::vec (&s)[C][4]) noexcept {
    typename L::vec w[4], k[4];
    L::sliced_tweak_keys(w, start, first);
    L::sliced_round_keys(k, w);
    TANDEM_UNROLL
    for (std::size_t z = 0; z < 4; ++z) {
        TANDEM_UNROLL
        for (std::size_t c = 0; c < C; ++c) L::xor_into(s[c][z], k[z]);
    }
    TANDEM_UNROLL
    for (int r = 0; r < 10; ++r) {
        L::sliced_step(w, r);
        L::sliced_round_keys(k, w);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < 4; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                if (r < 9)
                    L::aesenc(s[c][z], k[z]);
                else
                    L::aesenclast(s[c][z], k[z]);
            }
        }
    }
}

/// blocks[c * N + m] ← AES_{keys[m]}(blocks[c * N + m]) for m < N, c < C,
/// L::width keys per register (N a multiple of it), a key group at a time.
template <class L, std::size_t N, std::size_t C>
[[gnu::always_inline]] inline void multi_key_encrypt_lanes(const block* keys, block* blocks) noexcept {
    static_assert(N % L::width == 0, "multi_key_encrypt: whole registers of keys");
    constexpr std::size_t Z = N / L::width, G = key_group<L, Z, C>(), W = L::width;
    TANDEM_UNROLL
    for (std::size_t g = 0; g < Z; g += G) {
        typename L::vec k[G], s[C][G];
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            L::load(k[z], keys + W * (g + z));
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) L::load(s[c][z], blocks + c * N + W * (g + z));
        }
        multi_key_rounds<L, G, C>(k, s);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) L::store(blocks + c * N + W * (g + z), s[c][z]);
        }
    }
}

/// out[i] = AES(in[i]) for i < R·width·⌊n / (R·width)⌋ under the 11 round
/// keys `round`, R registers per iteration; returns how many blocks it did.
/// in and out may be the same (in place), not otherwise overlap.
template <class L, std::size_t R>
[[gnu::always_inline]] inline std::size_t encrypt_blocks(const block* round, const block* in, block* out,
                                                         std::size_t n) noexcept {
    constexpr std::size_t step = R * L::width;
    typename L::vec rk[11];
    TANDEM_UNROLL
    for (int r = 0; r < 11; ++r) L::broadcast(rk[r], round[r]);
    std::size_t i = 0;
    for (; i + step <= n; i += step) {
        typename L::vec s[R];
        TANDEM_UNROLL
        for (std::size_t j = 0; j < R; ++j) {
            L::load(s[j], in + i + j * L::width);
            L::xor_into(s[j], rk[0]);
        }
        TANDEM_UNROLL
        for (int r = 1; r < 10; ++r) {
            TANDEM_UNROLL
            for (std::size_t j = 0; j < R; ++j) L::aesenc(s[j], rk[r]);
        }
        TANDEM_UNROLL
        for (std::size_t j = 0; j < R; ++j) {
            L::aesenclast(s[j], rk[10]);
            L::store(out + i + j * L::width, s[j]);
        }
    }
    return i;
}

}  // namespace tandem::detail

#if TANDEM_X86
TANDEM_AVX2_BEGIN

namespace tandem::detail::avx2 {
/// sliced_tweak_round_keys for AES-NI kernels on CPUs with AVX2: Z tweak
/// keys in tweak order, eight per set of 256-bit slices (sliced_keys256).
/// Out of line: the AES-NI kernels that call it are compiled without AVX2.
template <std::size_t Z>
[[gnu::noinline]] void tweak_round_keys(block start, std::uint64_t first, __m128i (&k)[11][Z]) noexcept {
    static_assert(Z % 8 == 0, "tweak_round_keys: sets of eight keys");
    sliced_tweak_round_keys<sliced_keys256, Z / 2>(start, first, reinterpret_cast<__m256i(&)[11][Z / 2]>(k));
}
}  // namespace tandem::detail::avx2

TANDEM_AVX2_END
#endif

namespace tandem::detail {
/// The round keys of Z registers of tweak keys first, first + 1, … into
/// k[r][z] (k 32-byte aligned), as sliced_tweak_round_keys. AES-NI takes the
/// AVX2 schedules where the CPU has them (sliced_keys256, half the
/// instructions): on Zen 3 the schedules alone take 14 cycles per key
/// against 18–23 for batches of 16 and 32 keys; 8 keys are one set of
/// 256-bit slices, which runs at its latency (22 against 18), so they stay.
template <class L, std::size_t Z>
[[gnu::always_inline]] inline void tweak_round_keys(block start, std::uint64_t first,
                                                    typename L::vec (&k)[11][Z]) noexcept {
#if TANDEM_X86
    if constexpr (std::is_same_v<L, lanes128> && Z % 16 == 0) {
        if (cpu().avx2) return avx2::tweak_round_keys<Z>(start, first, k);
    }
#endif
    sliced_tweak_round_keys<L, Z>(start, first, k);
}
}  // namespace tandem::detail

#if TANDEM_X86
TANDEM_VAES256_BEGIN

namespace tandem::detail::vaes256 {
/// 16 blocks per iteration, two per instruction.
inline std::size_t encrypt_blocks(const block* round, const block* in, block* out, std::size_t n) noexcept {
    return detail::encrypt_blocks<lanes256, 8>(round, in, out, n);
}
/// Two keys per register. N is even.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt(const block* keys, block* blocks) noexcept {
    multi_key_encrypt_lanes<lanes256, N, C>(keys, blocks);
}
}  // namespace tandem::detail::vaes256

TANDEM_VAES256_END

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {
/// 16 blocks per iteration, four per instruction.
inline std::size_t encrypt_blocks(const block* round, const block* in, block* out, std::size_t n) noexcept {
    return detail::encrypt_blocks<lanes512, 4>(round, in, out, n);
}
/// Four keys per register. N is a multiple of 4.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt(const block* keys, block* blocks) noexcept {
    multi_key_encrypt_lanes<lanes512, N, C>(keys, blocks);
}
}  // namespace tandem::detail::vaes

TANDEM_VAES_END
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// An expanded AES-128 key: 11 round keys.
struct aes_key {
    std::array<block, 11> round;

    explicit aes_key(block key) noexcept {
        detail::vec128 k = key.v;
        round[0] = block(k);
        for (int r = 0; r < 10; ++r) {
            detail::lanes128::key_step(k, r);
            round[r + 1] = block(k);
        }
    }

    block encrypt(block x) const noexcept {
        using L = detail::lanes128;
        detail::vec128 s = x.v;
        L::xor_into(s, round[0].v);
        for (int r = 1; r < 10; ++r) L::aesenc(s, round[r].v);
        L::aesenclast(s, round[10].v);
        return block(s);
    }

    /// Encrypts n blocks in place, many at a time so the AES pipeline stays full
    /// (sixteen per iteration with VAES, eight with AES-NI).
    void encrypt(block* b, std::size_t n) const noexcept { encrypt(b, b, n); }

    /// out[i] = AES(in[i]) for i < n; in and out are the same or do not
    /// overlap. Out of place, a stream's counter blocks are written once
    /// and read under many keys (ot/iknp.hpp, ot/softspoken.hpp): writing
    /// them per key, 16 bytes at a time, stalls the wide loads that follow.
    void encrypt(const block* in, block* out, std::size_t n) const noexcept {
        std::size_t i = 0;
#if TANDEM_X86
        if (n >= 16) {
            const aes_isa isa = detail::choose_aes_isa();
            if (isa == aes_isa::vaes) i = detail::vaes::encrypt_blocks(round.data(), in, out, n);
            if (isa == aes_isa::vaes256) i = detail::vaes256::encrypt_blocks(round.data(), in, out, n);
        }
#endif
        i += detail::encrypt_blocks<detail::lanes128, 8>(round.data(), in + i, out + i, n - i);
        for (; i < n; ++i) out[i] = encrypt(in[i]);
    }
};

/// Encrypts, for every m < N and c < C, blocks[c * N + m] under keys[m],
/// expanding the N keys on the fly — AES-NI (or ARMv8), one block per instruction.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt_aesni(const block* keys, block* blocks) noexcept {
    detail::multi_key_encrypt_lanes<detail::lanes128, N, C>(keys, blocks);
}

/// Encrypts, for every m < N and c < C, blocks[c * N + m] under keys[m]: with
/// the widest AES lanes that run and divide N.
template <std::size_t N, std::size_t C>
inline void multi_key_encrypt(const block* keys, block* blocks) noexcept {
#if TANDEM_X86
    const aes_isa isa = detail::choose_aes_isa();
    if constexpr (N % 4 == 0) {
        if (isa == aes_isa::vaes) return detail::vaes::multi_key_encrypt<N, C>(keys, blocks);
    }
    if constexpr (N % 2 == 0) {
        if (isa != aes_isa::aesni) return detail::vaes256::multi_key_encrypt<N, C>(keys, blocks);
    }
#endif
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
