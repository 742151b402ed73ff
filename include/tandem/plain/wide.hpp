// tandem/plain/wide.hpp — plain values of secure integers wider than 128 bits.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace tandem {

/// The plain value of a `secure_int<N>` or `secure_uint<N>` with N > 128: N bits in
/// 64-bit limbs, least significant limb first. Bits at positions >= N are
/// always zero (a negative secure_int<N> value is stored as its N-bit two's
/// complement pattern), so == compares values.
template <std::size_t N, bool Signed>
struct wide_integer {
    static constexpr std::size_t limb_count = (N + 63) / 64;
    std::array<std::uint64_t, limb_count> limbs{};

    constexpr bool bit(std::size_t i) const noexcept { return ((limbs[i / 64] >> (i % 64)) & 1u) != 0; }
    constexpr void set_bit(std::size_t i, bool b) noexcept {
        const std::uint64_t m = std::uint64_t{1} << (i % 64);
        limbs[i / 64] = b ? (limbs[i / 64] | m) : (limbs[i / 64] & ~m);
    }
    friend constexpr bool operator==(const wide_integer&, const wide_integer&) = default;
};

/// The plain value of a `secure_int<N>` with N > 128.
template <std::size_t N>
using wide_int = wide_integer<N, true>;
/// The plain value of a `secure_uint<N>` with N > 128.
template <std::size_t N>
using wide_uint = wide_integer<N, false>;

}  // namespace tandem
