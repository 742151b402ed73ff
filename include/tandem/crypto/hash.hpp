// tandem/crypto/hash.hpp — the tweakable hash that garbling uses (docs/DESIGN.md §5).
//
// Multi-instance tweakable circular correlation-robust hash of Guo, Katz,
// Wang, Weng and Yu, "Better concrete security for half-gates garbling (in the
// multi-instance setting)", CRYPTO 2020, eprint 2019/1168, §7:
//     H(x, j) = AES_{S ⊕ j}(σ(x)) ⊕ σ(x),   σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi),
// with S a public random block chosen by the garbler and j the tweak. Every
// tweak gets its own AES key, so the security bound does not degrade with the
// number of gates garbled (the level EMP ships). The price is one key
// schedule per tweak; schedules are expanded on the fly, several keys per
// VAES register (aes.hpp, multi_key_encrypt), or ahead of time for chains.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>

#include <cstddef>
#include <cstdint>

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi), a linear orthomorphism.
inline block sigma(block x) noexcept {
    const __m128i swapped = _mm_shuffle_epi32(x.v, 0x4E);  // (x_lo, x_hi)
    const __m128i high = _mm_and_si128(x.v, _mm_set_epi64x(-1, 0));
    return block(_mm_xor_si128(swapped, high));
}

}  // namespace tandem

TANDEM_CRYPTO_END

TANDEM_VAES_BEGIN

/// The hashes' VAES kernels: blocks four to a 512-bit register (lane l of
/// register z holds block 4z + l). Run only when detail::use_vaes() says so.
namespace tandem::detail::vaes {

/// σ on each 128-bit lane: swapped halves ^ (v & high half); vpternlog 0x78 = a ^ (b & c).
inline __m512i sigma_lanes(__m512i v) noexcept {
    const __m512i high_half = _mm512_set_epi64(-1, 0, -1, 0, -1, 0, -1, 0);
    return _mm512_ternarylogic_epi64(_mm512_maskz_shuffle_epi32(0xFFFF, v, _MM_PERM_BADC), v, high_half, 0x78);
}

/// Tweaks t, t+1, t+2, t+3 as blocks (0, t + l), one per lane.
inline __m512i tweak_lanes(std::uint64_t first) noexcept {
    const auto t = static_cast<long long>(first);
    return _mm512_set_epi64(0, t + 3, 0, t + 2, 0, t + 1, 0, t);
}
/// Adds 4 to every lane's tweak: the next register's tweaks, for one vpaddq.
inline __m512i next_tweak_lanes(__m512i tweaks) noexcept {
    return _mm512_add_epi64(tweaks, _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4));
}

/// v[c][z] ← x[c * N + 4z .. +4): a batch of N·C blocks into registers.
template <std::size_t N, std::size_t C>
inline void load_lanes(const block* x, __m512i (&v)[C][N / 4]) noexcept {
    for (std::size_t z = 0; z < N / 4; ++z)
        for (std::size_t c = 0; c < C; ++c) v[c][z] = _mm512_loadu_si512(x + c * N + 4 * z);
}
template <std::size_t N, std::size_t C>
inline void store_lanes(block* x, const __m512i (&v)[C][N / 4]) noexcept {
    for (std::size_t z = 0; z < N / 4; ++z)
        for (std::size_t c = 0; c < C; ++c) _mm512_storeu_si512(x + c * N + 4 * z, v[c][z]);
}

/// The MITCCR hash with start S on values already in registers:
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + 4z + l).
template <std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void mitccr_registers(block start_block, std::uint64_t first_tweak, __m512i (&v)[C][Z]) noexcept {
    const __m512i start = _mm512_maskz_broadcast_i32x4(0xFFFF, start_block.v);
    __m512i k[Z], sg[C][Z], st[C][Z];
    __m512i tweak = tweak_lanes(first_tweak);
    for (std::size_t z = 0; z < Z; ++z, tweak = next_tweak_lanes(tweak)) {
        k[z] = _mm512_xor_si512(start, tweak);
        for (std::size_t c = 0; c < C; ++c) st[c][z] = sg[c][z] = sigma_lanes(v[c][z]);
    }
    multi_key_rounds<Z, C>(k, st);
    for (std::size_t z = 0; z < Z; ++z)
        for (std::size_t c = 0; c < C; ++c) v[c][z] = _mm512_xor_si512(st[c][z], sg[c][z]);
}

/// The same on x[c * N + m] in memory (N a multiple of 4).
template <std::size_t N, std::size_t C>
inline void mitccr(block start, std::uint64_t first_tweak, block* x) noexcept {
    __m512i v[C][N / 4];
    load_lanes<N, C>(x, v);
    mitccr_registers<N / 4, C>(start, first_tweak, v);
    store_lanes<N, C>(x, v);
}

/// Round keys r = 0..10 of the tweaks j .. j + Keys - 1 (key S ⊕ (0, j + m)) into round_keys[r][m].
template <std::size_t Keys>
inline void expand_tweak_keys(block start_block, std::uint64_t j, __m128i (&round_keys)[11][Keys]) noexcept {
    static_assert(Keys % 4 == 0, "expand_tweak_keys: keys go four to a register");
    const __m512i start = _mm512_maskz_broadcast_i32x4(0xFFFF, start_block.v);
    for (std::size_t z = 0; z < Keys / 4; ++z) {
        __m512i k = _mm512_xor_si512(start, tweak_lanes(j + 4 * z));
        _mm512_storeu_si512(&round_keys[0][4 * z], k);
        for (int r = 0; r < 10; ++r) {
            k = aes_key_step(k, _mm512_set1_epi32(aes_round_constants[r]));
            _mm512_storeu_si512(&round_keys[r + 1][4 * z], k);
        }
    }
}

}  // namespace tandem::detail::vaes

TANDEM_VAES_END

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// The default garbling hash (garbling_hash::rekeyed): H(x, j) =
/// AES_{S⊕j}(σ(x)) ⊕ σ(x) under the run's start S, one AES key per tweak.
class mitccr_hash {
public:
    explicit mitccr_hash(block start) noexcept : start_(start) {}
    block start() const noexcept { return start_; }

    /// x[c * N + m] ← H(x[c * N + m], first_tweak + m) for m < N, c < C.
    template <std::size_t N, std::size_t C>
    void hash(std::uint64_t first_tweak, block* x) const noexcept {
        if constexpr (N % 4 == 0) {
            if (detail::use_vaes()) {
                detail::vaes::mitccr<N, C>(start_, first_tweak, x);
                return;
            }
        }
        if constexpr (N == 2) {  // one AND: in a chain of narrow levels, use schedules expanded ahead
            if (use_cached_keys(first_tweak)) {
                hash_cached<C>(first_tweak, x);
                return;
            }
        }
        block keys[N], s[C * N];
        for (std::size_t m = 0; m < N; ++m) keys[m] = start_ ^ block(0, first_tweak + m);
        for (std::size_t i = 0; i < C * N; ++i) x[i] = s[i] = sigma(x[i]);
        multi_key_encrypt<N, C>(keys, x);
        for (std::size_t i = 0; i < C * N; ++i) x[i] ^= s[i];
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

    void refill(std::uint64_t j) const noexcept {
        cache_first_ = j;
        if (detail::use_vaes()) {
            detail::vaes::expand_tweak_keys(start_, j, round_keys_);
            return;
        }
        for (std::size_t m = 0; m < cached_keys; ++m) {
            const aes_key key(start_ ^ block(0, j + m));
            for (int r = 0; r < 11; ++r) round_keys_[r][m] = key.round[r].v;
        }
    }

    /// H on x[c * 2 + m] with tweak j + m, keys from the cache.
    template <std::size_t C>
    void hash_cached(std::uint64_t j, block* x) const noexcept {
        const std::size_t at = j - cache_first_;
        __m128i sg[2 * C], st[2 * C];
        for (std::size_t i = 0; i < 2 * C; ++i) {
            sg[i] = sigma(x[i]).v;
            st[i] = _mm_xor_si128(sg[i], round_keys_[0][at + i % 2]);
        }
        for (int r = 1; r < 10; ++r)
            for (std::size_t i = 0; i < 2 * C; ++i) st[i] = _mm_aesenc_si128(st[i], round_keys_[r][at + i % 2]);
        for (std::size_t i = 0; i < 2 * C; ++i)
            x[i] = block(_mm_xor_si128(_mm_aesenclast_si128(st[i], round_keys_[10][at + i % 2]), sg[i]));
    }

    mutable std::uint64_t cache_first_ = no_tweak;
    mutable std::uint64_t last_end_ = no_tweak;
    mutable std::uint32_t chain_length_ = 0;
    mutable __m128i round_keys_[11][cached_keys];  // filled by refill() before any read; raw, so not zeroed per hash object

    block start_;
};

}  // namespace tandem

TANDEM_CRYPTO_END

TANDEM_VAES_BEGIN

namespace tandem::detail::vaes {
/// v[c][z] lane l ← H(v[c][z] lane l, first_tweak + 4z + l): the hash on
/// values already in registers (the garbler builds its batches there).
template <std::size_t Z, std::size_t C>
[[gnu::always_inline]] inline void hash_registers(const mitccr_hash& h, std::uint64_t first_tweak, __m512i (&v)[C][Z]) noexcept {
    mitccr_registers<Z, C>(h.start(), first_tweak, v);
}
}  // namespace tandem::detail::vaes

TANDEM_VAES_END
