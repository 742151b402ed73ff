// tandem/crypto/block.hpp — a 128-bit value in a vector register (SSE on
// x86-64, NEON on AArch64): a wire label, an AES block, a key.
#pragma once

#include <tandem/crypto/target.hpp>

#include <cstdint>
#include <cstring>

#if TANDEM_X86
#include <emmintrin.h>
#include <smmintrin.h>
#else
#include <arm_neon.h>
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem {

namespace detail {
/// The 128-bit register type of this CPU.
#if TANDEM_X86
using vec128 = __m128i;
#else
using vec128 = uint8x16_t;
#endif
}  // namespace detail

/// 128 bits in a vector register: a wire label, Δ, an AES key or block, or
/// one half of a garbled AND table. The same bytes in memory on every CPU
/// (both are little-endian): bit j is bit j % 8 of byte j / 8.
struct block {
    detail::vec128 v;

#if TANDEM_X86
    block() noexcept : v(_mm_setzero_si128()) {}
    explicit block(__m128i x) noexcept : v(x) {}
    /// The block whose high 64 bits are `hi` and low 64 bits `lo`.
    block(std::uint64_t hi, std::uint64_t lo) noexcept
        : v(_mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo))) {}

    static block load(const void* p) noexcept { return block(_mm_loadu_si128(static_cast<const __m128i*>(p))); }
    void store(void* p) const noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

    std::uint64_t low() const noexcept { return static_cast<std::uint64_t>(_mm_cvtsi128_si64(v)); }
    std::uint64_t high() const noexcept { return static_cast<std::uint64_t>(_mm_extract_epi64(v, 1)); }
    /// The point-and-permute bit.
    bool lsb() const noexcept { return (_mm_cvtsi128_si32(v) & 1) != 0; }

    friend block operator^(block a, block b) noexcept { return block(_mm_xor_si128(a.v, b.v)); }
    friend block operator&(block a, block b) noexcept { return block(_mm_and_si128(a.v, b.v)); }
    friend block operator|(block a, block b) noexcept { return block(_mm_or_si128(a.v, b.v)); }
    friend bool operator==(block a, block b) noexcept {
        return _mm_movemask_epi8(_mm_cmpeq_epi8(a.v, b.v)) == 0xFFFF;
    }
#else
    block() noexcept : v(vdupq_n_u8(0)) {}
    explicit block(uint8x16_t x) noexcept : v(x) {}
    /// The block whose high 64 bits are `hi` and low 64 bits `lo`.
    block(std::uint64_t hi, std::uint64_t lo) noexcept
        : v(vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))) {}

    static block load(const void* p) noexcept { return block(vld1q_u8(static_cast<const std::uint8_t*>(p))); }
    void store(void* p) const noexcept { vst1q_u8(static_cast<std::uint8_t*>(p), v); }

    std::uint64_t low() const noexcept { return vgetq_lane_u64(vreinterpretq_u64_u8(v), 0); }
    std::uint64_t high() const noexcept { return vgetq_lane_u64(vreinterpretq_u64_u8(v), 1); }
    /// The point-and-permute bit.
    bool lsb() const noexcept { return (vgetq_lane_u8(v, 0) & 1) != 0; }

    friend block operator^(block a, block b) noexcept { return block(veorq_u8(a.v, b.v)); }
    friend block operator&(block a, block b) noexcept { return block(vandq_u8(a.v, b.v)); }
    friend block operator|(block a, block b) noexcept { return block(vorrq_u8(a.v, b.v)); }
    friend bool operator==(block a, block b) noexcept { return vminvq_u8(vceqq_u8(a.v, b.v)) == 0xFF; }
#endif
    block& operator^=(block b) noexcept { return *this = *this ^ b; }
};

/// All ones if b is true, all zeros otherwise — for selecting without branches.
inline block mask_of(bool b) noexcept {
#if TANDEM_X86
    return block(_mm_set1_epi64x(-static_cast<long long>(b)));
#else
    return block(vreinterpretq_u8_u64(vdupq_n_u64(-static_cast<std::uint64_t>(b))));
#endif
}

/// All ones if x's point-and-permute bit (its lsb) is 1, else zero.
inline block permute_mask(block x) noexcept {
#if TANDEM_X86
    const __m128i low = _mm_shuffle_epi32(x.v, 0x00);  // the low word in all four
    return block(_mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(low, _mm_set1_epi64x(1))));
#else
    // Bit 0 of byte 0 to the top of a byte, then an arithmetic shift spreads it.
    const int8x16_t top = vreinterpretq_s8_u8(vshlq_n_u8(vdupq_laneq_u8(x.v, 0), 7));
    return block(vreinterpretq_u8_s8(vshrq_n_s8(top, 7)));
#endif
}

}  // namespace tandem

TANDEM_CRYPTO_END
