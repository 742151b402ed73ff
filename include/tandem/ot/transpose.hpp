// tandem/ot/transpose.hpp — 128×128 bit-matrix transpose, the core of OT
// extension (IKNP turns 128 long columns into one 128-bit row per OT).
//
// Bit numbering: bit j of a block is bit j%8 of its byte j/8 (little-endian),
// so transposing rows r[0..127] gives columns c[j] with bit i of c[j] equal to
// bit j of r[i].
//
// Method (the byte-gather transpose, cf. IKNP implementations since
// Asharov–Lindell–Schneider–Zohner, CCS 2013): take 16 rows, transpose them
// as a 16×16 byte matrix with four rounds of byte unpacks, so that one
// register holds byte b of the 16 rows; then _mm_movemask_epi8 reads bit 7 of
// every byte — 16 bits of column 8b+7 — and a left shift brings bit 6 up, and
// so on. With AVX2 (AVX-512BW) the same runs on 2 (4) groups of 16 rows per
// register, whose masks are 32 (64) consecutive bits of a column. All three
// are compiled in every build; the widest this CPU runs is chosen at run
// time (AVX-512 together with the VAES kernels, crypto/isa.hpp; where the CPU
// also has GFNI, the bit step is gf2p8affineqb's 8 × 8 bit-matrix transpose
// instead of the movemask loop: transpose128_gfni). On AArch64
// the unpacks are NEON's ZIP1/ZIP2 and the movemask, which NEON lacks, is
// bit 7 of each byte shifted to its place in a byte half and summed across
// the half (ADDV).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include <tandem/crypto/isa.hpp>

#if TANDEM_X86
#include <immintrin.h>
#else
#include <arm_neon.h>
#endif

// The shared steps have no target of their own and are always inlined, so
// each takes the width of the variant that calls it.
namespace tandem::ot::detail {

/// Transposes x as a 16×16 byte matrix in every 128-bit lane (vector k, byte b
/// → vector b, byte k). Each round of unpacks rotates the 8-bit index
/// (vector:4, byte:4) left by one, so four rounds swap the two halves.
/// Unpack::unpack(a, b, lo, hi) is the pair of byte unpacks of the width V
/// (vectors by reference: one function must not take wider vectors by value
/// than its target has registers for).
template <class Unpack, class V>
[[gnu::always_inline]] inline void byte_transpose16(V (&x)[16]) noexcept {
    for (int round = 0; round < 4; ++round) {
        V y[16];
        for (int k = 0; k < 8; ++k) Unpack::unpack(x[k], x[k + 8], y[2 * k], y[2 * k + 1]);
        for (int k = 0; k < 16; ++k) x[k] = y[k];
    }
}

/// Stores the low `Bytes` bytes of mask at byte offset `at` of column c.
template <std::size_t Bytes, class Mask>
[[gnu::always_inline]] inline void put_bits(block* cols, std::size_t c, std::size_t at, Mask mask) noexcept {
    std::memcpy(reinterpret_cast<unsigned char*>(cols + c) + at, &mask, Bytes);
}

/// One group of 16 rows per 128-bit register, for SSE2 and NEON alike; rows
/// at in + r * stride (bytes). Bytes gives the register type `vec`, `load`,
/// `unpack`, `top_bits` (bit 7 of byte i as bit i: x86's movemask) and
/// `next_bit` (bit 6 of every byte up to bit 7).
template <class Bytes>
[[gnu::always_inline]] inline void transpose128_by16(const unsigned char* in, std::size_t stride,
                                                     block* cols) noexcept {
    for (std::size_t g = 0; g < 8; ++g) {
        typename Bytes::vec x[16];
        for (std::size_t k = 0; k < 16; ++k) Bytes::load(x[k], in + (16 * g + k) * stride);
        byte_transpose16<Bytes>(x);
        for (std::size_t b = 0; b < 16; ++b) {
            typename Bytes::vec v = x[b];
            for (int bit = 7; bit >= 0; --bit) {
                put_bits<2>(cols, 8 * b + static_cast<std::size_t>(bit), 2 * g, Bytes::top_bits(v));
                Bytes::next_bit(v);
            }
        }
    }
}

}  // namespace tandem::ot::detail

#if TANDEM_X86

TANDEM_CRYPTO_BEGIN

namespace tandem::ot::detail {

struct bytes_sse2 {
    using vec = __m128i;
    static void load(vec& v, const unsigned char* p) noexcept { v = _mm_loadu_si128(reinterpret_cast<const vec*>(p)); }
    static void unpack(const vec& a, const vec& b, vec& lo, vec& hi) noexcept {
        lo = _mm_unpacklo_epi8(a, b);
        hi = _mm_unpackhi_epi8(a, b);
    }
    static std::uint16_t top_bits(const vec& v) noexcept { return static_cast<std::uint16_t>(_mm_movemask_epi8(v)); }
    static void next_bit(vec& v) noexcept { v = _mm_slli_epi64(v, 1); }
};

/// SSE2: one group of 16 rows per register.
inline void transpose128_sse2(const unsigned char* in, std::size_t stride, block* cols) noexcept {
    transpose128_by16<bytes_sse2>(in, stride, cols);
}

}  // namespace tandem::ot::detail

TANDEM_CRYPTO_END

TANDEM_AVX2_BEGIN

namespace tandem::ot::detail {

struct unpack_avx2 {
    static void unpack(const __m256i& a, const __m256i& b, __m256i& lo, __m256i& hi) noexcept {
        lo = _mm256_unpacklo_epi8(a, b);
        hi = _mm256_unpackhi_epi8(a, b);
    }
};

/// AVX2: register k holds rows 32g+k (low lane) and 32g+16+k (high lane).
inline void transpose128_avx2(const unsigned char* in, std::size_t stride, block* cols) noexcept {
    auto row = [&](std::size_t r) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + r * stride)); };
    for (std::size_t g = 0; g < 4; ++g) {
        __m256i x[16];
        for (std::size_t k = 0; k < 16; ++k)
            x[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(row(32 * g + k)), row(32 * g + 16 + k), 1);
        byte_transpose16<unpack_avx2>(x);
        for (std::size_t b = 0; b < 16; ++b) {
            __m256i v = x[b];
            for (int bit = 7; bit >= 0; --bit) {
                put_bits<4>(cols, 8 * b + static_cast<std::size_t>(bit), 4 * g,
                            static_cast<std::uint32_t>(_mm256_movemask_epi8(v)));
                v = _mm256_slli_epi64(v, 1);
            }
        }
    }
}
}  // namespace tandem::ot::detail

TANDEM_AVX2_END

TANDEM_VAES_BEGIN

namespace tandem::ot::detail {

struct unpack_avx512 {
    static void unpack(const __m512i& a, const __m512i& b, __m512i& lo, __m512i& hi) noexcept {
        lo = _mm512_unpacklo_epi8(a, b);
        hi = _mm512_unpackhi_epi8(a, b);
    }
};

/// AVX-512BW: register k holds rows 64h+k, 64h+16+k, 64h+32+k, 64h+48+k.
inline void transpose128_avx512(const unsigned char* in, std::size_t stride, block* cols) noexcept {
    auto row = [&](std::size_t r) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + r * stride)); };
    for (std::size_t h = 0; h < 2; ++h) {
        __m512i x[16];
        for (std::size_t k = 0; k < 16; ++k) {
            const std::size_t r = 64 * h + k;
            // maskz forms: the plain ones trip a false -Wmaybe-uninitialized in GCC 12.
            __m512i v = _mm512_maskz_broadcast_i32x4(0x000F, row(r));
            v = _mm512_mask_broadcast_i32x4(v, 0x00F0, row(r + 16));
            v = _mm512_mask_broadcast_i32x4(v, 0x0F00, row(r + 32));
            x[k] = _mm512_mask_broadcast_i32x4(v, 0xF000, row(r + 48));
        }
        byte_transpose16<unpack_avx512>(x);
        for (std::size_t b = 0; b < 16; ++b) {
            __m512i v = x[b];
            for (int bit = 7; bit >= 0; --bit) {
                put_bits<8>(cols, 8 * b + static_cast<std::size_t>(bit), 8 * h,
                            static_cast<std::uint64_t>(_mm512_movepi8_mask(v)));
                v = _mm512_add_epi8(v, v);  // next bit up (bytes shift on their own)
            }
        }
    }
}
}  // namespace tandem::ot::detail

TANDEM_VAES_END

TANDEM_GFNI_BEGIN

namespace tandem::ot::detail {

/// AVX-512 with GFNI and VBMI (Intel since Ice Lake, AMD since Zen 4): per
/// group of 8 rows, a two-source byte permute (vpermt2b) gathers each byte
/// column of the 8 rows into a qword — an 8 × 8 bit matrix — and one
/// gf2p8affineqb transposes the eight matrices of a register at once; the
/// byte transpose of the 16 groups' results then gives the columns. About
/// half the instructions of the movemask loop, none of them to the scalar
/// side. Same results as every other variant (tests/ot.cpp).
inline void transpose128_gfni(const unsigned char* in, std::size_t stride, block* cols) noexcept {
    auto row = [&](std::size_t r) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + r * stride)); };
    auto four_rows = [&](std::size_t r) {  // rows r .. r + 3, one per 128-bit lane
        __m512i v = _mm512_maskz_broadcast_i32x4(0x000F, row(r));
        v = _mm512_mask_broadcast_i32x4(v, 0x00F0, row(r + 1));
        v = _mm512_mask_broadcast_i32x4(v, 0x0F00, row(r + 2));
        return _mm512_mask_broadcast_i32x4(v, 0xF000, row(r + 3));
    };
    // Byte 8c + m of half h gathers byte 8h + c of the group's row 7 − m
    // (bytes 16t + c of the two sources hold row t's byte c): gf2p8affineqb
    // with x = 1 << i in byte i returns, in byte i, bit i of each source
    // byte in reverse byte order, so the rows go in reversed.
    static constexpr auto index = [] {
        std::array<std::array<unsigned char, 64>, 2> t{};
        for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t c = 0; c < 8; ++c)
                for (std::size_t m = 0; m < 8; ++m)
                    t[h][8 * c + m] = static_cast<unsigned char>(16 * (7 - m) + 8 * h + c);
        return t;
    }();
    const __m512i unit = _mm512_set1_epi64(static_cast<long long>(0x8040201008040201ULL));
    for (std::size_t h = 0; h < 2; ++h) {
        const __m512i idx = _mm512_loadu_si512(index[h].data());
        __m512i x[16];  // x[g] byte j: byte g of column 64h + j
        for (std::size_t g = 0; g < 16; ++g)
            x[g] = _mm512_gf2p8affine_epi64_epi8(unit, _mm512_permutex2var_epi8(four_rows(8 * g), idx, four_rows(8 * g + 4)), 0);
        byte_transpose16<unpack_avx512>(x);  // now x[t] lane l is column 64h + 16l + t
        for (std::size_t t = 0; t < 16; ++t) {
            block* c = cols + 64 * h + t;
            // (maskz forms: the plain ones trip a false -Wmaybe-uninitialized in GCC 12)
            _mm_storeu_si128(&c[0].v, _mm512_maskz_extracti32x4_epi32(0xF, x[t], 0));
            _mm_storeu_si128(&c[16].v, _mm512_maskz_extracti32x4_epi32(0xF, x[t], 1));
            _mm_storeu_si128(&c[32].v, _mm512_maskz_extracti32x4_epi32(0xF, x[t], 2));
            _mm_storeu_si128(&c[48].v, _mm512_maskz_extracti32x4_epi32(0xF, x[t], 3));
        }
    }
}
}  // namespace tandem::ot::detail

TANDEM_GFNI_END

#else

TANDEM_CRYPTO_BEGIN

namespace tandem::ot::detail {

/// NEON: ZIP1/ZIP2 are the byte unpacks; NEON has no movemask, so bit 7 of
/// each byte is shifted to its place in its half and each half summed (ADDV).
struct bytes_neon {
    using vec = uint8x16_t;
    static void load(vec& v, const unsigned char* p) noexcept { v = vld1q_u8(p); }
    static void unpack(const vec& a, const vec& b, vec& lo, vec& hi) noexcept {
        lo = vzip1q_u8(a, b);
        hi = vzip2q_u8(a, b);
    }
    static std::uint16_t top_bits(const vec& v) noexcept {
        static constexpr std::int8_t to_place[16] = {-7, -6, -5, -4, -3, -2, -1, 0, -7, -6, -5, -4, -3, -2, -1, 0};
        const uint8x16_t t = vshlq_u8(vandq_u8(v, vdupq_n_u8(0x80)), vld1q_s8(to_place));
        return static_cast<std::uint16_t>(vaddv_u8(vget_low_u8(t)) | (vaddv_u8(vget_high_u8(t)) << 8));
    }
    static void next_bit(vec& v) noexcept { v = vshlq_n_u8(v, 1); }
};

/// NEON: one group of 16 rows per register.
inline void transpose128_neon(const unsigned char* in, std::size_t stride, block* cols) noexcept {
    transpose128_by16<bytes_neon>(in, stride, cols);
}

}  // namespace tandem::ot::detail

TANDEM_CRYPTO_END

#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

namespace detail {
/// The widest variant this CPU runs. Rows are 16 bytes at in + r * stride;
/// cols (128 blocks) must not overlap them.
inline void transpose128_strided(const void* in, std::size_t stride, block* cols) noexcept {
    const auto* p = static_cast<const unsigned char*>(in);
#if TANDEM_X86
    if (tandem::detail::use_vaes() && tandem::detail::cpu().gfni512)
        transpose128_gfni(p, stride, cols);
    else if (tandem::detail::use_vaes())
        transpose128_avx512(p, stride, cols);
    else if (tandem::detail::cpu().avx2)
        transpose128_avx2(p, stride, cols);
    else
        transpose128_sse2(p, stride, cols);
#else
    transpose128_neon(p, stride, cols);
#endif
}
}  // namespace detail

/// cols[j] bit i = rows[i] bit j, for 128 rows. rows and cols must not overlap.
inline void transpose128(const block* rows, block* cols) noexcept {
    detail::transpose128_strided(rows, sizeof(block), cols);
}

/// Bit by bit; the reference for the tests.
inline void transpose128_reference(const block* rows, block* cols) noexcept {
    for (std::size_t j = 0; j < 128; ++j) {
        std::uint64_t half[2] = {0, 0};
        for (std::size_t i = 0; i < 128; ++i) {
            const std::uint64_t word = j < 64 ? rows[i].low() : rows[i].high();
            half[i / 64] |= ((word >> (j % 64)) & 1) << (i % 64);
        }
        cols[j] = block(half[1], half[0]);
    }
}

/// Transposes a 128 × m bit matrix: rows holds 128 rows of m/128 blocks each
/// (row r is rows[r*m/128 .. (r+1)*m/128)); cols receives m blocks, cols[j]
/// bit i = bit j of row i. m = cols.size() must be a multiple of 128 and equal
/// rows.size(); the spans must not overlap.
inline void transpose128xm(std::span<const block> rows, std::span<block> cols) {
    const std::size_t m = cols.size();
    if (m % 128 != 0 || rows.size() != m)
        throw usage_error("ot::transpose128xm: need rows.size() == cols.size() == m with m a multiple of 128 (got " +
                          std::to_string(rows.size()) + " and " + std::to_string(m) + ")");
    const std::size_t row_blocks = m / 128;
    for (std::size_t t = 0; t < row_blocks; ++t)
        detail::transpose128_strided(rows.data() + t, row_blocks * sizeof(block), cols.data() + 128 * t);
}

}  // namespace tandem::ot

TANDEM_CRYPTO_END
