// tandem/crypto/gf128.hpp — products in GF(2^128), for the universal hashes
// of the malicious-secure checks (ot/softspoken.hpp).
//
// The field is GF(2)[x] / (x^128 + x^7 + x^2 + x + 1) in the plain bit order:
// bit i of a block (bit i % 64 of its low word for i < 64, of its high word
// otherwise) is the coefficient of x^i — the order carry-less multiply
// (PCLMULQDQ, ARMv8 PMULL) works in, so no bit reflection as in GCM.
// Sums of many products are accumulated unreduced (three 128-bit parts) and
// reduced once at the end: a hash over n blocks costs n products (four
// carry-less multiplies each, four or two products per instruction with
// VPCLMULQDQ) and one reduction.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>

#include <cstddef>
#include <cstdint>

#if TANDEM_X86
#include <immintrin.h>
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

namespace detail {
/// multiply_add_rows for blocks [first, n) of every row, one product at a time.
inline void multiply_add_rows_from(std::size_t first, const block* chi, std::size_t n, const block* rows,
                                   std::size_t stride, std::size_t count, accumulator* acc) noexcept {
    for (std::size_t r = 0; r < count; ++r) {
        const block* row = rows + r * stride;
        accumulator a = acc[r];
        for (std::size_t j = first; j < n; ++j) multiply_add(a, chi[j], row[j]);
        acc[r] = a;
    }
}
}  // namespace detail

}  // namespace tandem::gf128

TANDEM_CRYPTO_END

#if TANDEM_X86
// VPCLMULQDQ: the same products, W blocks per instruction (W = 4 on 512-bit
// registers, 2 on 256-bit ones); the lanes' partial sums are folded at the
// end of each row. Returns how many blocks of each row it did.
TANDEM_VAES_BEGIN
namespace tandem::gf128::detail::vaes {
inline block fold(__m512i v) noexcept {  // (maskz forms: the plain ones trip a false -Wmaybe-uninitialized in GCC 12)
    return block(_mm_xor_si128(
        _mm_xor_si128(_mm512_maskz_extracti32x4_epi32(0xF, v, 0), _mm512_maskz_extracti32x4_epi32(0xF, v, 1)),
        _mm_xor_si128(_mm512_maskz_extracti32x4_epi32(0xF, v, 2), _mm512_maskz_extracti32x4_epi32(0xF, v, 3))));
}
inline std::size_t multiply_add_rows(const block* chi, std::size_t n, const block* rows, std::size_t stride,
                                     std::size_t count, accumulator* acc) noexcept {
    const std::size_t wide = n / 4 * 4;
    for (std::size_t r = 0; r < count && wide > 0; ++r) {
        const block* row = rows + r * stride;
        __m512i lo = _mm512_setzero_si512(), mid = lo, hi = lo;
        for (std::size_t j = 0; j < wide; j += 4) {
            const __m512i c = _mm512_loadu_si512(chi + j), x = _mm512_loadu_si512(row + j);
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(c, x, 0x00));
            mid = _mm512_ternarylogic_epi64(mid, _mm512_clmulepi64_epi128(c, x, 0x01),
                                            _mm512_clmulepi64_epi128(c, x, 0x10), 0x96);  // three-way XOR
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(c, x, 0x11));
        }
        acc[r].lo = acc[r].lo ^ fold(lo);
        acc[r].mid = acc[r].mid ^ fold(mid);
        acc[r].hi = acc[r].hi ^ fold(hi);
    }
    return wide;
}
}  // namespace tandem::gf128::detail::vaes
TANDEM_VAES_END

TANDEM_VAES256_BEGIN
namespace tandem::gf128::detail::vaes256 {
inline block fold(__m256i v) noexcept {
    return block(_mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
}
inline std::size_t multiply_add_rows(const block* chi, std::size_t n, const block* rows, std::size_t stride,
                                     std::size_t count, accumulator* acc) noexcept {
    const std::size_t wide = n / 2 * 2;
    for (std::size_t r = 0; r < count && wide > 0; ++r) {
        const block* row = rows + r * stride;
        __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
        for (std::size_t j = 0; j < wide; j += 2) {
            const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(chi + j));
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j));
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128(c, x, 0x00));
            mid = _mm256_xor_si256(mid, _mm256_xor_si256(_mm256_clmulepi64_epi128(c, x, 0x01),
                                                         _mm256_clmulepi64_epi128(c, x, 0x10)));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128(c, x, 0x11));
        }
        acc[r].lo = acc[r].lo ^ fold(lo);
        acc[r].mid = acc[r].mid ^ fold(mid);
        acc[r].hi = acc[r].hi ^ fold(hi);
    }
    return wide;
}
}  // namespace tandem::gf128::detail::vaes256
TANDEM_VAES256_END
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::gf128 {

/// acc[r] += Σ_{j<n} chi[j]·rows[r·stride + j] for r < count: the hash of
/// `count` rows of n blocks each, one accumulator per row — VPCLMULQDQ on
/// 512- or 256-bit registers where the AES kernels run VAES (crypto/isa.hpp),
/// else one product per instruction. Every path gives the same sums.
inline void multiply_add_rows(const block* chi, std::size_t n, const block* rows, std::size_t stride,
                              std::size_t count, accumulator* acc) noexcept {
    std::size_t done = 0;
#if TANDEM_X86
    const aes_isa isa = tandem::detail::choose_aes_isa();
    if (isa == aes_isa::vaes) done = detail::vaes::multiply_add_rows(chi, n, rows, stride, count, acc);
    if (isa == aes_isa::vaes256) done = detail::vaes256::multiply_add_rows(chi, n, rows, stride, count, acc);
#endif
    detail::multiply_add_rows_from(done, chi, n, rows, stride, count, acc);
}

}  // namespace tandem::gf128

TANDEM_CRYPTO_END
