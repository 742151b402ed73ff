// tandem/ot/lpn.hpp — the primal LPN code of a silent OT extension
// (ot/ferret.hpp): its parameters, and the local linear map that turns k
// correlated OTs and a sparse noise vector into n pseudorandom ones.
//
// Yang–Weng–Lan–Zhang–Wang, "Ferret: Fast Extension for coRRElated oT with
// small communication", CCS 2020 (ePrint 2020/924), §3 and §6: LPN with a
// local code and regular noise. The public k × n matrix A has d = 10 nonzero
// entries per column at uniformly random rows; output i of a round is
//     y_i = v_i ⊕ ⊕_{r<10} s[idx_r(i)],
// where s are the round's k seed COTs and v the i-th coordinate of the
// noise COTs (t single-point COTs, one noise position per block of 2^depth:
// "regular" noise). On the receiver's side the same map applies to its MACs
// and so to its choice bits, which ride in one bit of them (ot/ferret.hpp);
// the correlation t_i = q_i ⊕ r_i·Δ is linear and survives. Under LPN (x·A ⊕ e pseudorandom for a secret x and a
// regular e of weight t), the receiver's output bits look random to the
// sender, who sees only the GGM messages.
//
// The rows idx_r(i) are words of a fixed-key AES stream (counter block
// (round, c), words 10i .. 10i + 9 of the round), each mapped to [0, k) by a
// multiply-and-shift (Lemire): a bias below k/2^32 < 2^-13 per row, which
// the code's analyses (random local codes) do not depend on. A is public:
// both parties compute the same rows, and no index depends on a secret.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

/// One LPN round's shape: n outputs from k seed COTs and t single-point COTs
/// of 2^depth leaves each (n = t·2^depth, regular noise of weight t).
struct lpn_parameters {
    std::size_t n;
    std::size_t k;
    std::size_t t;
    unsigned depth;

    constexpr std::size_t leaves() const noexcept { return std::size_t{1} << depth; }
    /// The COTs a round takes from the one before it: its LPN secret (k),
    /// one base COT per level of every tree (t·depth), and the 128 that mask
    /// its first consistency check (ot/ferret.hpp).
    constexpr std::size_t base() const noexcept { return k + t * depth + 128; }
    friend constexpr bool operator==(const lpn_parameters&, const lpn_parameters&) = default;
};

/// The regular-noise sets for 128-bit security that emp-ot ships as
/// ferret_b13 (Ferret's §6 analysis, revised for the later attacks on
/// regular-noise LPN): a steady round of 10,485,760 outputs, and the
/// smaller set-up round that makes the first one's base from SoftSpoken.
inline constexpr lpn_parameters ferret_main{10'485'760, 452'000, 1'280, 13};
inline constexpr lpn_parameters ferret_setup{470'016, 32'768, 918, 9};

namespace detail {

/// The code's nonzero rows per column (Ferret's d).
inline constexpr std::size_t lpn_weight = 10;
/// Outputs whose rows one call derives together (160 AES blocks).
inline constexpr std::size_t lpn_group = 64;

/// The matrix A's stream: a fixed public key ("tandem lpn code").
inline const aes_key& lpn_key() noexcept {
    static const aes_key key(block(0x74616e64656d206cULL, 0x706e20636f646500ULL));
    return key;
}

/// The rows of outputs [first, first + count) of round `round` into
/// rows[10·i + r] (count ≤ lpn_group, first and count even: two outputs per
/// five blocks of the stream).
inline void lpn_rows(std::uint64_t round, std::size_t first, std::size_t count, std::size_t k,
                     std::uint32_t* rows) noexcept {
    constexpr std::size_t blocks_per_pair = lpn_weight * 2 / 4;
    block stream[lpn_group / 2 * blocks_per_pair];
    const std::size_t nb = count / 2 * blocks_per_pair;
    const std::uint64_t c0 = first / 2 * blocks_per_pair;
    for (std::size_t b = 0; b < nb; ++b) stream[b] = block(round, c0 + b);
    lpn_key().encrypt(stream, nb);
    // Each 32-bit word w becomes ⌊w·k / 2^32⌋, four at a time where the
    // instruction set has a 32 × 32 → 64-bit vector multiply.
    std::size_t j = 0;
#if TANDEM_X86
    const __m128i kk = _mm_set1_epi32(static_cast<int>(k));
    const __m128i high = _mm_set_epi32(-1, 0, -1, 0);
    for (; j < nb; ++j) {
        const __m128i w = stream[j].v;
        const __m128i even = _mm_srli_epi64(_mm_mul_epu32(w, kk), 32);               // words 0, 2
        const __m128i odd = _mm_and_si128(_mm_mul_epu32(_mm_srli_epi64(w, 32), kk), high);  // words 1, 3
        _mm_storeu_si128(reinterpret_cast<__m128i*>(rows + 4 * j), _mm_or_si128(even, odd));
    }
#endif
    for (; j < nb; ++j) {
        std::uint32_t words[4];
        std::memcpy(words, &stream[j], sizeof words);
        for (std::size_t w = 0; w < 4; ++w)
            rows[4 * j + w] = static_cast<std::uint32_t>((std::uint64_t{words[w]} * k) >> 32);
    }
}

/// out[i] ^= ⊕_r seeds[idx_r(first + i)] for i < count: the code applied
/// to one batch of a round (the receiver's choice bits ride in its blocks,
/// ot/ferret.hpp). The seeds' table (k blocks, 7 MiB in the steady round)
/// is read at ten random places per output, so the loop waits on memory:
/// the rows of the next group of outputs are derived a group ahead and
/// prefetched while this group's are read, keeping many reads in flight
/// (2-4x faster than without, on the Zen 3 VM).
inline void lpn_encode(std::uint64_t round, std::size_t first, std::size_t count, std::size_t k, const block* seeds,
                       block* out) noexcept {
    std::uint32_t rows[2][lpn_group * lpn_weight];
    std::size_t m = count < lpn_group ? count : lpn_group;
    lpn_rows(round, first, m, k, rows[0]);
    for (std::size_t done = 0, g = 0; done < count; done += lpn_group, g ^= 1) {
        const std::size_t next = done + lpn_group;
        const std::size_t next_m = next >= count ? 0 : (count - next < lpn_group ? count - next : lpn_group);
        if (next_m != 0) lpn_rows(round, first + next, next_m, k, rows[g ^ 1]);
        const std::uint32_t* ahead = rows[g ^ 1];
        for (std::size_t i = 0; i < m; ++i) {
            if (i < next_m) {
                for (std::size_t j = 0; j < lpn_weight; ++j) __builtin_prefetch(seeds + ahead[i * lpn_weight + j]);
            }
            const std::uint32_t* r = rows[g] + i * lpn_weight;
            block acc = out[done + i];
            for (std::size_t j = 0; j < lpn_weight; ++j) acc ^= seeds[r[j]];
            out[done + i] = acc;
        }
        m = next_m;
    }
}

}  // namespace detail

}  // namespace tandem::ot

TANDEM_CRYPTO_END
