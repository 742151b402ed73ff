// tandem/crypto/gf128.hpp — products in GF(2^128), for the universal hashes
// of the malicious-secure checks (ot/softspoken.hpp).
//
// The field is GF(2)[x] / (x^128 + x^7 + x^2 + x + 1) in the plain bit order:
// bit i of a block (bit i % 64 of its low word for i < 64, of its high word
// otherwise) is the coefficient of x^i — the order carry-less multiply
// (PCLMULQDQ, ARMv8 PMULL) works in, so no bit reflection as in GCM.
// Sums of many products are accumulated unreduced (three 128-bit parts) and
// reduced once at the end: a hash over n blocks costs n products (four
// carry-less multiplies each) and one reduction.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>

#include <cstddef>
#include <cstdint>

#if TANDEM_X86
#include <wmmintrin.h>
#else
#include <arm_neon.h>
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::gf128 {

/// Σ a_i·b_i before reduction: lo + mid·x^64 + hi·x^128.
struct accumulator {
    block lo, mid, hi;
};

namespace detail {
#if TANDEM_X86
template <int Which>
inline block clmul(block a, block b) noexcept {
    return block(_mm_clmulepi64_si128(a.v, b.v, Which));
}
#else
template <int Which>
inline block clmul(block a, block b) noexcept {  // Which as PCLMULQDQ's immediate: bit 0 picks a's word, bit 4 b's
    const poly64_t x = vgetq_lane_p64(vreinterpretq_p64_u8(a.v), Which & 1);
    const poly64_t y = vgetq_lane_p64(vreinterpretq_p64_u8(b.v), (Which >> 4) & 1);
    return block(vreinterpretq_u8_p128(vmull_p64(x, y)));
}
#endif
}  // namespace detail

/// acc += a·b (unreduced).
inline void multiply_add(accumulator& acc, block a, block b) noexcept {
    acc.lo = acc.lo ^ detail::clmul<0x00>(a, b);
    acc.mid = acc.mid ^ detail::clmul<0x01>(a, b) ^ detail::clmul<0x10>(a, b);
    acc.hi = acc.hi ^ detail::clmul<0x11>(a, b);
}

/// acc += a (a field element: no product, so it goes into the low part).
inline void add(accumulator& acc, block a) noexcept { acc.lo = acc.lo ^ a; }

/// The field element the accumulated sum is equal to.
inline block reduce(const accumulator& acc) noexcept {
    __extension__ typedef unsigned __int128 u128;  // GCC and Clang on both targets
    // The 256-bit product as four words w0 (lowest) .. w3.
    const std::uint64_t w0 = acc.lo.low();
    const std::uint64_t w1 = acc.lo.high() ^ acc.mid.low();
    const std::uint64_t w2 = acc.hi.low() ^ acc.mid.high();
    const std::uint64_t w3 = acc.hi.high();
    // h·x^128 ≡ h·(x^7 + x^2 + x + 1): the shifted copies of h, and the bits
    // they push past x^127 (at most 7) folded back the same way.
    const u128 h = (u128{w3} << 64) | w2;
    const u128 folded = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
    const u128 over = (h >> 127) ^ (h >> 126) ^ (h >> 121);
    const u128 r = ((u128{w1} << 64) | w0) ^ folded ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7);
    return block(static_cast<std::uint64_t>(r >> 64), static_cast<std::uint64_t>(r));
}

/// a·b in GF(2^128).
inline block multiply(block a, block b) noexcept {
    accumulator acc;
    multiply_add(acc, a, b);
    return reduce(acc);
}

/// acc[r] += Σ_{j<n} chi[j]·rows[r·stride + j] for r < count: the hash of
/// `count` rows of n blocks each, one accumulator per row.
inline void multiply_add_rows(const block* chi, std::size_t n, const block* rows, std::size_t stride,
                              std::size_t count, accumulator* acc) noexcept {
    for (std::size_t r = 0; r < count; ++r) {
        const block* row = rows + r * stride;
        accumulator a = acc[r];
        for (std::size_t j = 0; j < n; ++j) multiply_add(a, chi[j], row[j]);
        acc[r] = a;
    }
}

}  // namespace tandem::gf128

TANDEM_CRYPTO_END
