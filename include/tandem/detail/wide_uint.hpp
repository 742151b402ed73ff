// tandem/detail/wide_uint.hpp — a fixed 384-bit unsigned integer for planning
// circuits with public constants.
//
// Division by a public constant (dsl/constant_divide.hpp) needs 2^s / d, the
// error term e·X and bounds on sums of shifted operands, for dividends of up
// to 128 bits: values of up to about 2^260. This is plain public arithmetic,
// done once while recording; it never touches a secret.
#pragma once

#include <tandem/int128.hpp>

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>

namespace tandem::detail {

struct wide_uint {
    static constexpr std::size_t limbs = 6;
    static constexpr std::size_t bits = 64 * limbs;
    std::array<std::uint64_t, limbs> w{};  // little-endian limbs

    static constexpr wide_uint from(uint128 v) noexcept {
        wide_uint r;
        r.w[0] = static_cast<std::uint64_t>(v);
        r.w[1] = static_cast<std::uint64_t>(v >> 64);
        return r;
    }
    /// 2^k (k < bits).
    static constexpr wide_uint power_of_two(std::size_t k) noexcept {
        wide_uint r;
        r.set_bit(k);
        return r;
    }
    /// 2^k - 1 (k <= bits).
    static constexpr wide_uint low_mask(std::size_t k) noexcept {
        wide_uint r;
        for (std::size_t i = 0; i < k; ++i) r.set_bit(i);
        return r;
    }

    constexpr bool bit(std::size_t i) const noexcept { return i < bits && ((w[i / 64] >> (i % 64)) & 1u) != 0; }
    constexpr void set_bit(std::size_t i) noexcept { w[i / 64] |= std::uint64_t{1} << (i % 64); }
    constexpr bool is_zero() const noexcept {
        for (auto x : w)
            if (x != 0) return false;
        return true;
    }
    /// Number of bits up to the highest set one (0 for zero).
    constexpr std::size_t bit_width() const noexcept {
        for (std::size_t i = limbs; i-- > 0;)
            if (w[i] != 0) return 64 * i + (64 - static_cast<std::size_t>(__builtin_clzll(w[i])));
        return 0;
    }
    constexpr bool is_power_of_two() const noexcept {
        std::size_t ones = 0;
        for (auto x : w) ones += static_cast<std::size_t>(__builtin_popcountll(x));
        return ones == 1;
    }
    constexpr uint128 low128() const noexcept { return (uint128{w[1]} << 64) | w[0]; }

    friend constexpr bool operator==(const wide_uint&, const wide_uint&) = default;
    friend constexpr std::strong_ordering operator<=>(const wide_uint& a, const wide_uint& b) noexcept {
        for (std::size_t i = limbs; i-- > 0;)
            if (a.w[i] != b.w[i]) return a.w[i] <=> b.w[i];
        return std::strong_ordering::equal;
    }
    friend constexpr wide_uint operator+(const wide_uint& a, const wide_uint& b) noexcept {
        wide_uint r;
        uint128 carry = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
            carry += uint128{a.w[i]} + b.w[i];
            r.w[i] = static_cast<std::uint64_t>(carry);
            carry >>= 64;
        }
        return r;
    }
    /// a - b modulo 2^bits.
    friend constexpr wide_uint operator-(const wide_uint& a, const wide_uint& b) noexcept {
        wide_uint r;
        std::uint64_t borrow = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
            const uint128 d = uint128{a.w[i]} - b.w[i] - borrow;
            r.w[i] = static_cast<std::uint64_t>(d);
            borrow = static_cast<std::uint64_t>(d >> 64) != 0 ? 1 : 0;
        }
        return r;
    }
    /// a · b modulo 2^bits.
    friend constexpr wide_uint operator*(const wide_uint& a, const wide_uint& b) noexcept {
        wide_uint r;
        for (std::size_t i = 0; i < limbs; ++i) {
            uint128 carry = 0;
            for (std::size_t j = 0; i + j < limbs; ++j) {
                carry += uint128{a.w[i]} * b.w[j] + r.w[i + j];
                r.w[i + j] = static_cast<std::uint64_t>(carry);
                carry >>= 64;
            }
        }
        return r;
    }
    /// a · 2^k modulo 2^bits.
    friend constexpr wide_uint operator<<(const wide_uint& a, std::size_t k) noexcept {
        wide_uint r;
        const std::size_t limb = k / 64, b = k % 64;
        for (std::size_t i = limbs; i-- > limb;) {
            r.w[i] = a.w[i - limb] << b;
            if (b != 0 && i > limb) r.w[i] |= a.w[i - limb - 1] >> (64 - b);
        }
        return r;
    }
    /// floor(a / 2^k).
    friend constexpr wide_uint operator>>(const wide_uint& a, std::size_t k) noexcept {
        wide_uint r;
        const std::size_t limb = k / 64, b = k % 64;
        for (std::size_t i = 0; i + limb < limbs; ++i) {
            r.w[i] = a.w[i + limb] >> b;
            if (b != 0 && i + limb + 1 < limbs) r.w[i] |= a.w[i + limb + 1] << (64 - b);
        }
        return r;
    }
};

/// floor(a / d) and a mod d by binary long division; d must not be zero.
constexpr void divide_wide(const wide_uint& a, const wide_uint& d, wide_uint& quotient, wide_uint& remainder) noexcept {
    quotient = {};
    remainder = {};
    for (std::size_t i = a.bit_width(); i-- > 0;) {
        remainder = remainder << 1;
        if (a.bit(i)) remainder.w[0] |= 1u;
        if (remainder >= d) {
            remainder = remainder - d;
            quotient.set_bit(i);
        }
    }
}

}  // namespace tandem::detail
