// tandem/lib/float/classify.hpp — classification of a secure_float: isnan,
// isinf, isfinite, isnormal, is_subnormal, is_zero, is_signaling, signbit.
//
// Where <cmath> has the predicate, the name is its name (isnan, isinf,
// isfinite, isnormal, signbit), so generic code that calls `isnan(x)` after
// `using std::isnan;` works for secure_float too (argument-dependent lookup).
// C23's issubnormal, iszero and issignaling are macros or templates in
// glibc's <math.h>, which would capture those names, so they are spelled
// is_subnormal, is_zero, is_signaling.
//
// Each reads the IEEE-754 encoding (IEEE 754-2019 §3.4): exponent all ones is
// ∞ (fraction zero) or NaN (fraction non-zero); exponent zero is ±0 (fraction
// zero) or a subnormal; a NaN is signalling when the fraction's top bit is
// clear (§6.2.1 recommends it; x86-64 reads it so).
//
// AND gates, E exponent and M fraction bits (binary32: E = 8, M = 23; binary64:
// E = 11, M = 52), asserted in tests/lib_float_ops.cpp:
//   signbit                              0
//   isfinite                             E - 1            ( 7 / 10)
//   isnormal                             P(E) + 1         (11 / 16)
//   isnan, isinf, is_zero,
//   is_subnormal, is_signaling           E + M - 1        (30 / 62)
// where P(E) = ⌊E/2⌋ + 2(⌈E/2⌉ - 1) ANDs give both "exponent all ones" and
// "exponent all zeros" (10 for E = 8, 15 for E = 11; detail::ones_and_zeros).
#pragma once

#include <tandem/lib/float/type.hpp>

#include <cmath>  // so that C's classification macros are undefined
#include <cstddef>
#include <vector>

namespace tandem {

namespace detail {

/// AND of all bits as a balanced tree: n - 1 ANDs, depth ⌈log2 n⌉ (true if empty).
inline secure_bit all_bits(std::vector<secure_bit> v) {
    if (v.empty()) return secure_bit(true);
    while (v.size() > 1) {
        std::size_t k = 0;
        for (std::size_t i = 0; i + 1 < v.size(); i += 2) v[k++] = v[i] & v[i + 1];
        if (v.size() % 2 != 0) v[k++] = v.back();
        v.resize(k);
    }
    return v[0];
}

/// OR of all bits: n - 1 ANDs (De Morgan; NOT is free).
inline secure_bit any_bits(std::vector<secure_bit> v) {
    for (auto& b : v) b = ~b;
    return ~all_bits(std::move(v));
}

template <std::size_t E, std::size_t M>
std::vector<secure_bit> exponent_bits(const secure_float<E, M>& x) {
    std::vector<secure_bit> e;
    for (std::size_t i = 0; i < E; ++i) e.push_back(x.bits()[M + i]);
    return e;
}

template <std::size_t E, std::size_t M>
std::vector<secure_bit> fraction_bits(const secure_float<E, M>& x, std::size_t from = 0, std::size_t to = M) {
    std::vector<secure_bit> f;
    for (std::size_t i = from; i < to; ++i) f.push_back(x.bits()[i]);
    return f;
}

/// Exponent all ones: E - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit exponent_all_ones(const secure_float<E, M>& x) {
    return all_bits(exponent_bits(x));
}

/// Fraction non-zero: M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit fraction_nonzero(const secure_float<E, M>& x) {
    return any_bits(fraction_bits(x));
}

/// Whether a bit vector is all ones and whether it is all zeros, together.
/// For a pair, AND(a, b) costs one AND and NOR(a, b) = ~(a ^ b ^ (a & b))
/// reuses it; the pairs' results are then combined in two trees. So
/// ⌊n/2⌋ + 2(⌈n/2⌉ - 1) ANDs instead of 2(n - 1).
struct bit_ends {
    secure_bit all_ones, all_zeros;
};
inline bit_ends ones_and_zeros(const std::vector<secure_bit>& v) {
    std::vector<secure_bit> ones, zeros;
    for (std::size_t i = 0; i < v.size(); i += 2) {
        if (i + 1 < v.size()) {
            const secure_bit both = v[i] & v[i + 1];
            ones.push_back(both);
            zeros.push_back(~(v[i] ^ v[i + 1] ^ both));
        } else {
            ones.push_back(v[i]);
            zeros.push_back(~v[i]);
        }
    }
    return {all_bits(std::move(ones)), all_bits(std::move(zeros))};
}

/// ANDs of ones_and_zeros on n bits.
constexpr std::size_t ends_ands(std::size_t n) { return n / 2 + 2 * ((n + 1) / 2 - 1); }

/// What the comparisons need to know of one operand: the exponent's two
/// special values and whether the fraction is zero. ends_ands(E) + M - 1 ANDs.
struct float_class {
    secure_bit exp_ones, exp_zero, frac_nonzero;
    secure_bit nan() const { return exp_ones & frac_nonzero; }    // 1 AND
    secure_bit zero() const { return exp_zero & ~frac_nonzero; }  // 1 AND
};

template <std::size_t E, std::size_t M>
float_class classify_float(const secure_float<E, M>& x) {
    const bit_ends e = ones_and_zeros(exponent_bits(x));
    return {e.all_ones, e.all_zeros, fraction_nonzero(x)};
}

}  // namespace detail

/// The sign bit (set for -0 and for NaNs with the sign set): free.
template <std::size_t E, std::size_t M>
secure_bit signbit(const secure_float<E, M>& x) {
    return x.sign();
}

/// Neither infinite nor NaN: E - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit isfinite(const secure_float<E, M>& x) {
    return ~detail::exponent_all_ones(x);
}

/// A NaN, quiet or signalling: E + M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit isnan(const secure_float<E, M>& x) {
    return detail::exponent_all_ones(x) & detail::fraction_nonzero(x);
}

/// ±∞: E + M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit isinf(const secure_float<E, M>& x) {
    return detail::exponent_all_ones(x) & ~detail::fraction_nonzero(x);
}

/// ±0: E + M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit is_zero(const secure_float<E, M>& x) {
    std::vector<secure_bit> all;  // one tree over every bit but the sign
    for (std::size_t i = 0; i < E + M; ++i) all.push_back(x.bits()[i]);
    return ~detail::any_bits(std::move(all));
}

/// Subnormal (exponent zero, fraction non-zero): E + M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit is_subnormal(const secure_float<E, M>& x) {
    std::vector<secure_bit> e = detail::exponent_bits(x);
    for (auto& b : e) b = ~b;
    return detail::all_bits(std::move(e)) & detail::fraction_nonzero(x);
}

/// Normal (neither zero, subnormal, infinite nor NaN): ends_ands(E) + 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit isnormal(const secure_float<E, M>& x) {
    const detail::bit_ends e = detail::ones_and_zeros(detail::exponent_bits(x));
    return ~e.all_ones & ~e.all_zeros;
}

/// A signalling NaN (exponent all ones, top fraction bit clear, fraction
/// non-zero): E + M - 1 ANDs.
template <std::size_t E, std::size_t M>
secure_bit is_signaling(const secure_float<E, M>& x) {
    static_assert(M >= 2, "is_signaling: a format with one fraction bit has no signalling NaN");
    std::vector<secure_bit> v = detail::exponent_bits(x);
    v.push_back(~x.bits()[M - 1]);
    v.push_back(detail::any_bits(detail::fraction_bits(x, 0, M - 1)));
    return detail::all_bits(std::move(v));
}

}  // namespace tandem
