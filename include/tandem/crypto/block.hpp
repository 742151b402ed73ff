// tandem/crypto/block.hpp — a 128-bit value in an SSE register: a wire label,
// an AES block, a key.
#pragma once

#include <tandem/crypto/target.hpp>

#include <cstdint>
#include <cstring>

#include <emmintrin.h>
#include <smmintrin.h>

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// 128 bits in an SSE register: a wire label, Δ, an AES key or block, or one
/// half of a garbled AND table.
struct block {
    __m128i v;

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
    block& operator^=(block b) noexcept { return *this = *this ^ b; }
    friend bool operator==(block a, block b) noexcept {
        return _mm_movemask_epi8(_mm_cmpeq_epi8(a.v, b.v)) == 0xFFFF;
    }
};

/// All ones if b is true, all zeros otherwise — for selecting without branches.
inline block mask_of(bool b) noexcept { return block(_mm_set1_epi64x(-static_cast<long long>(b))); }

}  // namespace tandem

TANDEM_CRYPTO_END
