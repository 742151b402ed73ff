// tandem/dsl/constant_multiply.hpp — multiplication by a public constant as
// shifts and adds.
//
// y · c for a public c is a sum of shifted copies of y, one per nonzero digit
// of c. Written in canonical signed digits (digits in {-1, 0, 1}, no two
// adjacent nonzero — Reitwiesner 1960; the recoding used for constant
// multipliers since Booth), c has about a third of its bits nonzero instead of
// half, and a digit -1 costs a subtraction, as cheap as an addition. Both the
// plain binary digits and the canonical ones are planned and the cheaper is
// built, so a public factor never costs more than the schoolbook product folds
// down to.
//
// The terms are summed from the lowest shift up, and each partial sum is only
// as wide as its value can be: with y ≤ Y, the sum of the terms so far lies in
// [-neg, pos] (neg, pos: the sums of Y·2^p over the negative / positive
// digits), so it fits in bit_width(pos) bits, or one more when it may be
// negative (two's complement, read sign-extended). Adding the term ±y·2^p then
// touches bits p .. width-1 only (bits below p are final): width - p - 1 ANDs
// (n-bit add/sub: n-1, arith.hpp). Everything is reduced modulo 2^T for the T
// bits the caller needs, so a multiply-high (T = s + quotient bits, dsl/
// constant_divide.hpp) computes its low bits only as far as their carries
// reach the result: the result equals the exact product bit for bit.
//
// AND counts (asserted in tests/constant_divisors.cpp): the truncated 32-bit
// product x * 10 costs 29 ANDs (schoolbook with the constant: 29 as well),
// x * 0xFFFFFFFF costs 30 (a negation: 2^32 - 1 ≡ -1; schoolbook 465), and the
// 64-bit x * (2^32 - 5) costs 92 (schoolbook 120).
#pragma once

#include <tandem/detail/wide_uint.hpp>
#include <tandem/dsl/arith.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tandem::detail {

/// One nonzero digit of a public multiplier: ±2^shift.
struct signed_digit {
    std::size_t shift = 0;
    bool negative = false;
};

/// The set bits of c, lowest first.
inline std::vector<signed_digit> binary_digits(const wide_uint& c) {
    std::vector<signed_digit> out;
    for (std::size_t i = 0; i < c.bit_width(); ++i)
        if (c.bit(i)) out.push_back({i, false});
    return out;
}

/// Canonical signed-digit (non-adjacent) form of c, lowest first (Reitwiesner 1960):
/// an odd remainder takes the digit 2 - (c mod 4), so the next digit is 0.
inline std::vector<signed_digit> canonical_digits(wide_uint c) {
    std::vector<signed_digit> out;
    const wide_uint one = wide_uint::from(1);
    for (std::size_t i = 0; !c.is_zero(); ++i, c = c >> 1) {
        if (!c.bit(0)) continue;
        const bool negative = c.bit(1);  // c ≡ 3 (mod 4): digit -1
        out.push_back({i, negative});
        c = negative ? c + one : c - one;
    }
    return out;
}

/// Digits of -c modulo 2^t: the same digits with their signs flipped.
inline std::vector<signed_digit> negated(std::vector<signed_digit> digits) {
    for (auto& d : digits) d.negative = !d.negative;
    return digits;
}

/// A partial sum: its bits (read sign-extended when it may be negative, zero-
/// extended otherwise) and the interval [-neg, pos] its value lies in.
struct constant_sum {
    std::vector<wire_ref> bits;
    wide_uint pos, neg;

    /// Bits needed for any value in [-neg, pos], at most t.
    static std::size_t width_for(const wide_uint& pos, const wide_uint& neg, std::size_t t) {
        std::size_t w = pos.bit_width();
        if (!neg.is_zero()) w = std::max(w, (neg - wide_uint::from(1)).bit_width()) + 1;
        return std::min(w, t);
    }
    wire_ref bit(std::size_t i) const {
        if (i < bits.size()) return bits[i];
        return neg.is_zero() || bits.empty() ? false_ref : bits.back();
    }
};

/// acc += Σ ±y·2^shift over `digits` (lowest shift first), modulo 2^t; y is
/// unsigned, at most ymax. With bld == nullptr only the ANDs are counted
/// (the plan); returns the ANDs the adders take (an upper bound: the builder
/// may fold more).
inline std::uint64_t accumulate_multiple(builder* bld, constant_sum& acc, bits_in y, const wide_uint& ymax,
                                         std::span<const signed_digit> digits, std::size_t t) {
    std::uint64_t ands = 0;
    if (ymax.is_zero()) return 0;
    std::vector<wire_ref> a, b, out;
    for (const signed_digit& d : digits) {
        if (d.shift >= t) continue;  // reaches no bit below 2^t
        const bool empty = acc.pos.is_zero() && acc.neg.is_zero();
        const constant_sum old{bld == nullptr ? std::vector<wire_ref>{} : acc.bits, acc.pos, acc.neg};
        (d.negative ? acc.neg : acc.pos) = (d.negative ? acc.neg : acc.pos) + (ymax << d.shift);
        const std::size_t w = constant_sum::width_for(acc.pos, acc.neg, t);
        const std::size_t span = w - d.shift;  // w > shift: the term alone reaches bit shift
        if (!(empty && !d.negative)) ands += span - 1;
        if (bld == nullptr) continue;
        a.resize(span);
        b.resize(span);
        out.resize(span);
        for (std::size_t i = 0; i < span; ++i) {
            a[i] = old.bit(d.shift + i);
            b[i] = i < y.size() ? y[i] : false_ref;
        }
        std::vector<wire_ref> next(w);
        for (std::size_t i = 0; i < d.shift; ++i) next[i] = old.bit(i);
        if (d.negative) sub(*bld, a, b, out);
        else add(*bld, a, b, false_ref, out);
        std::copy(out.begin(), out.end(), next.begin() + static_cast<std::ptrdiff_t>(d.shift));
        acc.bits = std::move(next);
    }
    return ands;
}

/// The cheaper of the binary and canonical digits of c for acc += y·c mod 2^t,
/// and of summing them lowest first or starting from the lowest positive digit
/// (which saves negating the first term of an empty sum).
inline std::vector<signed_digit> plan_multiple(const constant_sum& acc, const wide_uint& ymax,
                                               const std::vector<std::vector<signed_digit>>& candidates,
                                               std::size_t t, std::uint64_t* cost = nullptr) {
    std::vector<signed_digit> best;
    std::uint64_t best_cost = ~std::uint64_t{0};
    for (const auto& digits : candidates) {
        std::vector<signed_digit> orders[2] = {digits, digits};
        const auto first_positive = std::find_if(orders[1].begin(), orders[1].end(),
                                                 [](const signed_digit& d) { return !d.negative; });
        if (first_positive != orders[1].end()) std::rotate(orders[1].begin(), first_positive, first_positive + 1);
        for (const auto& order : orders) {
            constant_sum trial{{}, acc.pos, acc.neg};
            const std::uint64_t c = accumulate_multiple(nullptr, trial, {}, ymax, order, t);
            if (c < best_cost) best_cost = c, best = order;
        }
    }
    if (cost != nullptr) *cost = best_cost;
    return best;
}

/// out (t bits) = y · c mod 2^t for unsigned y ≤ ymax and public c ≥ 0.
inline void multiply_by_constant(builder& bld, bits_in y, const wide_uint& ymax, const wide_uint& c, bits_out out) {
    const std::size_t t = out.size();
    const wide_uint reduced = t >= wide_uint::bits ? c : (c << (wide_uint::bits - t)) >> (wide_uint::bits - t);
    constant_sum acc;
    const auto digits = plan_multiple(acc, ymax, {binary_digits(reduced), canonical_digits(reduced)}, t);
    accumulate_multiple(&bld, acc, y, ymax, digits, t);
    for (std::size_t i = 0; i < t; ++i) out[i] = acc.bit(i);
}

/// Largest value the bits of a can hold: constant zeros stay zero (a value
/// widened with resize<M>() keeps its bound).
inline wide_uint bound_of(bits_in a) {
    wide_uint r;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i].is_constant() && !a[i].constant_value())) r.set_bit(i);
    return r;
}

/// The public value of constant bits (all of a must be constants).
inline wide_uint constant_value(bits_in a) {
    wide_uint r;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].constant_value()) r.set_bit(i);
    return r;
}

}  // namespace tandem::detail
