// tandem/crypto/hash.hpp — the tweakable hash that garbling uses (docs/DESIGN.md §5).
//
// Multi-instance tweakable circular correlation-robust hash of Guo, Katz,
// Wang, Weng and Yu, "Better concrete security for half-gates garbling (in the
// multi-instance setting)", CRYPTO 2020, eprint 2019/1168, §7:
//     H(x, j) = AES_{S ⊕ j}(σ(x)) ⊕ σ(x),   σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi),
// with S a public random block chosen by the garbler and j the tweak. Every
// tweak gets its own AES key, so the security bound does not degrade with the
// number of gates garbled (the level EMP ships). The price is one key
// schedule per tweak; schedules are expanded on the fly, one to four keys
// per register (aes.hpp, multi_key_rounds), or ahead of time for chains.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// A garbling hash H(x, j): made from the run's start block S (public,
/// drawn by the garbler), `hash<N, C>(first_tweak, x)` replaces
/// x[c·N + m] by H(x[c·N + m], first_tweak + m). The two models are
/// rekeyed_hash (below) and fixed_key_hash (crypto/fixed_key_hash.hpp); a new
/// one also gives `detail::hash_registers` for the wide kernels' registers
/// (see the end of this header) and a `garbling_hash` value for the handshake
/// (docs/DESIGN.md, "to change X, open Y").
template <class H>
concept tweakable_hash = std::constructible_from<H, block> && requires(const H& h, std::uint64_t j, block* x) {
    { h.start() } -> std::same_as<block>;
    h.template hash<2, 1>(j, x);
    h.template hash<16, 2>(j, x);
};

/// σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi), a linear orthomorphism.
inline block sigma(block x) noexcept {
    block s;
    detail::lanes128::sigma(s.v, x.v);
    return s;
}

}  // namespace tandem

TANDEM_CRYPTO_END

// The hash over any AES lanes L (crypto/lanes.hpp), always inlined into an
// entry point of one instruction set.
namespace tandem::detail {

/// The MITCCR hash with start S on values already in registers:
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + width·z + l), a key group
/// at a time (aes.hpp, key_group): σ, the tweaked keys S ⊕ j, the on-the-fly
/// key schedules and the final XOR all in registers.
template <class L, std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void mitccr_registers(block start_block, std::uint64_t first_tweak,
                                                    typename L::vec (&v)[C][Z]) noexcept {
    using vec = typename L::vec;
    if constexpr (L::sliced_keys && Z % 4 == 0) {  // schedules word-sliced, four registers of keys a set
        // Keys, slices and blocks at once need more than 16 registers: all
        // round keys of the batch are expanded first, two sets of slices side
        // by side, into memory (one store each, then read by the AES
        // instructions directly), and the blocks encrypted after, four
        // registers of keys at a time, so that neither phase spills.
        // Measured on Zen 3 (bench_garble wide, VAES-256): round keys through
        // memory, four registers at a time, garbling 46 → 56 M AND/s; the
        // whole batch's keys first, two sets at a time, 56 → 69 (evaluating
        // 77 → 92). AES-NI with one block per key keeps its keys in
        // registers (51 M AND/s for the hash alone against 44–49; wide
        // evaluation 5 % slower with the AVX2 schedules through memory).
        constexpr bool keys_in_memory = C >= 2 || L::width > 1;
        alignas(32) [[maybe_unused]] vec k[keys_in_memory ? 11 : 1][keys_in_memory ? Z : 1];
        if constexpr (keys_in_memory) tweak_round_keys<L, Z>(start_block, first_tweak, k);
        TANDEM_UNROLL
        for (std::size_t g = 0; g < Z; g += 4) {
            vec sg[C][4], st[C][4];
            TANDEM_UNROLL
            for (std::size_t z = 0; z < 4; ++z) {
                TANDEM_UNROLL
                for (std::size_t c = 0; c < C; ++c) {
                    L::sigma(sg[c][z], v[c][g + z]);
                    st[c][z] = sg[c][z];
                }
            }
            if constexpr (keys_in_memory)
                round_keys_encrypt<L, 4, C>(k, g, st);
            else
                tweak_key_rounds_sliced<L, C>(start_block, first_tweak + g * L::width, st);
            TANDEM_UNROLL
            for (std::size_t z = 0; z < 4; ++z) {
                TANDEM_UNROLL
                for (std::size_t c = 0; c < C; ++c) {
                    v[c][g + z] = st[c][z];
                    L::xor_into(v[c][g + z], sg[c][z]);
                }
            }
        }
        return;
    }
    constexpr std::size_t G = key_group<L, Z, C>();
    vec start;
    L::broadcast(start, start_block);
    TANDEM_UNROLL
    for (std::size_t g = 0; g < Z; g += G) {
        vec k[G], sg[C][G], st[C][G], tweak;
        L::tweaks(tweak, first_tweak + g * L::width);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            k[z] = start;
            L::xor_into(k[z], tweak);
            L::next_tweaks(tweak);
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                L::sigma(sg[c][z], v[c][g + z]);
                st[c][z] = sg[c][z];
            }
        }
        multi_key_rounds<L, G, C>(k, st);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < G; ++z) {
            TANDEM_UNROLL
            for (std::size_t c = 0; c < C; ++c) {
                v[c][g + z] = st[c][z];
                L::xor_into(v[c][g + z], sg[c][z]);
            }
        }
    }
}

/// The same on x[c * N + m] in memory (N a multiple of L::width).
template <class L, std::size_t N, std::size_t C>
[[gnu::always_inline]] inline void mitccr(block start, std::uint64_t first_tweak, block* x) noexcept {
    constexpr std::size_t Z = N / L::width;
    typename L::vec v[C][Z];
    load_batch<L, N, C>(x, v);
    mitccr_registers<L, Z, C>(start, first_tweak, v);
    store_batch<L, N, C>(x, v);
}

/// Round keys r = 0..10 of the tweaks j .. j + Keys - 1 (key S ⊕ (0, j + m)) into round_keys[r][m].
template <class L, std::size_t Keys>
[[gnu::always_inline]] inline void expand_tweak_keys(block start_block, std::uint64_t j,
                                                     vec128 (&round_keys)[11][Keys]) noexcept {
    static_assert(Keys % L::width == 0, "expand_tweak_keys: whole registers of keys");
    constexpr std::size_t Z = Keys / L::width;
    if constexpr (L::sliced_keys && Z % 4 == 0) {
        // Register z holds keys width·z .. width·z + width − 1, so the rows
        // of round_keys are the registers in order.
        tweak_round_keys<L, Z>(start_block, j, reinterpret_cast<typename L::vec(&)[11][Z]>(round_keys));
        return;
    }
    typename L::vec start, tweak;
    L::broadcast(start, start_block);
    L::tweaks(tweak, j);
    for (std::size_t m = 0; m < Keys; m += L::width) {
        typename L::vec k = start;
        L::xor_into(k, tweak);
        L::next_tweaks(tweak);
        L::store(reinterpret_cast<block*>(&round_keys[0][m]), k);
        TANDEM_UNROLL
        for (int r = 0; r < 10; ++r) {
            L::key_step(k, r);
            L::store(reinterpret_cast<block*>(&round_keys[r + 1][m]), k);
        }
    }
}

}  // namespace tandem::detail

#if TANDEM_X86
TANDEM_VAES256_BEGIN

namespace tandem::detail::vaes256 {
template <std::size_t N, std::size_t C>
inline void mitccr(block start, std::uint64_t first_tweak, block* x) noexcept {
    detail::mitccr<lanes256, N, C>(start, first_tweak, x);
}
template <std::size_t Keys>
inline void expand_tweak_keys(block start, std::uint64_t j, vec128 (&round_keys)[11][Keys]) noexcept {
    detail::expand_tweak_keys<lanes256, Keys>(start, j, round_keys);
}
}  // namespace tandem::detail::vaes256

TANDEM_VAES256_END

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {
template <std::size_t N, std::size_t C>
inline void mitccr(block start, std::uint64_t first_tweak, block* x) noexcept {
    detail::mitccr<lanes512, N, C>(start, first_tweak, x);
}
template <std::size_t Keys>
inline void expand_tweak_keys(block start, std::uint64_t j, vec128 (&round_keys)[11][Keys]) noexcept {
    detail::expand_tweak_keys<lanes512, Keys>(start, j, round_keys);
}
}  // namespace tandem::detail::vaes

TANDEM_VAES_END
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// The default garbling hash (garbling_hash::rekeyed; Guo et al.'s MiTCCR):
/// H(x, j) = AES_{S⊕j}(σ(x)) ⊕ σ(x) under the run's start S, one AES key per
/// tweak. "Rekeyed" is its one name in the API; the kernels below keep the
/// paper's (mitccr_*).
class rekeyed_hash {
public:
    explicit rekeyed_hash(block start) noexcept : start_(start) {}
    block start() const noexcept { return start_; }

    /// x[c * N + m] ← H(x[c * N + m], first_tweak + m) for m < N, c < C.
    template <std::size_t N, std::size_t C>
    void hash(std::uint64_t first_tweak, block* x) const noexcept {
#if TANDEM_X86
        const aes_isa isa = detail::choose_aes_isa();
        if constexpr (N % 4 == 0) {
            if (isa == aes_isa::vaes) return detail::vaes::mitccr<N, C>(start_, first_tweak, x);
        }
#endif
        if constexpr (N == 2) {  // one AND: in a chain of narrow levels, use schedules expanded ahead
            if (use_cached_keys(first_tweak)) return hash_cached<C>(first_tweak, x);
        }
#if TANDEM_X86
        if constexpr (N % 2 == 0) {
            if (isa != aes_isa::aesni) return detail::vaes256::mitccr<N, C>(start_, first_tweak, x);
        }
#endif
        detail::mitccr<detail::lanes128, N, C>(start_, first_tweak, x);
    }

    /// The same for any n (tails of batches), one key at a time.
    void hash(std::uint64_t first_tweak, std::size_t n, std::size_t copies, block* x) const noexcept {
        for (std::size_t m = 0; m < n; ++m) {
            const aes_key key(start_ ^ block(0, first_tweak + m));
            for (std::size_t c = 0; c < copies; ++c) {
                const block s = sigma(x[c * n + m]);
                x[c * n + m] = key.encrypt(s) ^ s;
            }
        }
    }

private:
    // Key schedules do not depend on data. When ANDs come one per level (a
    // chain), the schedules of the next `cached_keys` tweaks are expanded
    // together, side by side, and each gate then waits only for its own
    // encryptions instead of a ten-step schedule (bench_garble "deep").
    // This state makes a hash object single-threaded: one per garbling.
    static constexpr std::size_t cached_keys = 32;
    static constexpr std::uint64_t no_tweak = ~std::uint64_t{0};

    /// True if the keys of tweaks j, j+1 are cached, or if the last few calls
    /// were one-gate calls in a row (a chain), in which case the cache is
    /// refilled from j. A lone one-gate call (the tail of a wide level) does not
    /// pay for a refill.
    bool use_cached_keys(std::uint64_t j) const noexcept {
        chain_length_ = j == last_end_ ? chain_length_ + 1 : 0;
        last_end_ = j + 2;
        if (cache_first_ != no_tweak && j >= cache_first_ && j + 2 <= cache_first_ + cached_keys) return true;
        if (chain_length_ < 4) return false;
        refill(j);
        return true;
    }

    // Not inlined: it runs once per cached_keys / 2 chained gates, and the
    // flattened level loop (gc/half_gates.hpp) would otherwise take a copy of
    // all three instruction sets' schedules per core type (17 KB each, ~2 s
    // of a header-only program's compile time).
    [[gnu::noinline]] void refill(std::uint64_t j) const noexcept {
        cache_first_ = j;
#if TANDEM_X86
        switch (detail::choose_aes_isa()) {
        case aes_isa::vaes: return detail::vaes::expand_tweak_keys(start_, j, round_keys_);
        case aes_isa::vaes256: return detail::vaes256::expand_tweak_keys(start_, j, round_keys_);
        default: break;
        }
#endif
        detail::expand_tweak_keys<detail::lanes128>(start_, j, round_keys_);
    }

    /// H on x[c * 2 + m] with tweak j + m, keys from the cache.
    template <std::size_t C>
    void hash_cached(std::uint64_t j, block* x) const noexcept {
        using L = detail::lanes128;
        const std::size_t at = j - cache_first_;
        detail::vec128 sg[2 * C], st[2 * C];
        for (std::size_t i = 0; i < 2 * C; ++i) {
            sg[i] = st[i] = sigma(x[i]).v;
            L::xor_into(st[i], round_keys_[0][at + i % 2]);
        }
        for (int r = 1; r < 10; ++r)
            for (std::size_t i = 0; i < 2 * C; ++i) L::aesenc(st[i], round_keys_[r][at + i % 2]);
        for (std::size_t i = 0; i < 2 * C; ++i) {
            L::aesenclast(st[i], round_keys_[10][at + i % 2]);
            L::xor_into(st[i], sg[i]);
            x[i] = block(st[i]);
        }
    }

    mutable std::uint64_t cache_first_ = no_tweak;
    mutable std::uint64_t last_end_ = no_tweak;
    mutable std::uint32_t chain_length_ = 0;
    // Filled by refill() before any read; raw, so not zeroed per hash object;
    // 32-byte aligned for the 256-bit stores of tweak_round_keys.
    alignas(32) mutable detail::vec128 round_keys_[11][cached_keys];

    block start_;
};

static_assert(tweakable_hash<rekeyed_hash>);

/// The name this class had before the option and the type shared one.
using mitccr_hash [[deprecated("renamed rekeyed_hash, after garbling_hash::rekeyed")]] = rekeyed_hash;

}  // namespace tandem

TANDEM_CRYPTO_END

namespace tandem::detail {
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + width·z + l): the hash on
/// values already in registers (the garbler builds its batches there).
template <class L, std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void hash_registers(const rekeyed_hash& h, std::uint64_t first_tweak,
                                                  typename L::vec (&v)[C][Z]) noexcept {
    mitccr_registers<L, Z, C>(h.start(), first_tweak, v);
}
}  // namespace tandem::detail
