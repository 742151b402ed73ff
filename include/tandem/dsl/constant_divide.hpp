// tandem/dsl/constant_divide.hpp — division and remainder by a public constant.
//
// `x / c` and `x % c` with a public c (a C++ integer, or a secure integer
// whose wires are all constants) do not need the generic divider of
// divide.hpp (n² + 3n - 3 ANDs): they are chosen automatically by `/` and `%`.
//
// Unsigned x (n bits, at most X — constant-zero high bits lower X), public d:
//  * d = 0: x / 0 = 2^n - 1 and x % 0 = x, as in divide.hpp; X < d: q = 0,
//    r = x; d = 2^k: a shift and a mask. No ANDs.
//  * floor(X / d) = 1: q = (x >= d) (n ANDs at most), r = x - (q ? d : 0)
//    on bit_width(d) bits (one subtraction: d's bits ANDed with q are free).
//  * otherwise division by an invariant integer as a multiply-high
//    (Granlund & Montgomery, "Division by invariant integers using
//    multiplication", PLDI 1994, Thm 4.2; Möller & Granlund 2011 §3): for a
//    shift s and M = ceil(2^s / d), e = M·d - 2^s, floor(x·M / 2^s) = floor(x / d)
//    for every x <= X when e·X < 2^s (x/d + e·x/(d·2^s) stays below the next
//    integer since r <= d - 1). A circuit is not tied to a machine word: the
//    (n+1)-bit M of the paper's worst case costs nothing special, so every
//    valid s from bit_width(d) on is planned and the cheapest product kept
//    (constant_multiply.hpp: signed digits, only the bits below s that carry
//    into the quotient). Then r = x - q·d, computed modulo 2^L with
//    L = bit_width(d) since r < d: q·d's digits start at bit 0, so it costs
//    about L ANDs per nonzero digit of d (or of 2^L - d, whichever is cheaper).
//    It reads only q's low L bits, so the gates that form only q's top bits
//    are dropped as dead (compile.hpp): x % c can cost less than x / c.
//
// Signed x (C++ truncation; the division-by-zero results of divide.hpp):
//  * d = 0: q = -1 for x >= 0 and 1 for x < 0, r = x; d = ±1: q = ±x, r = 0
//    (INT_MIN / -1 wraps to INT_MIN).
//  * |d| = 2^k: q = (x + (x < 0 ? 2^k - 1 : 0)) >> k arithmetically (n - 1
//    ANDs; negated for d < 0), r = x - (q << k) on bits k.. only.
//  * otherwise |x| (n - 1 ANDs) divided as above with X = 2^(n-1), and the
//    quotient and remainder given their signs on as many bits as they have.
//
// The binary digits of 1/d repeat (with period the order of 2 modulo d's odd
// part), so M's terms share subexpressions (constant_multiply.hpp): 1/10 at
// 64 bits is built by doublings, not by 30-odd adders.
//
// AND counts (asserted in tests/constant_divisors.cpp), n = 32 / 64 bits; the
// generic divider takes n² + 3n - 3 = 1,117 / 4,285 for either:
//   unsigned x / 3:  196 / 466     x % 3:  136 / 329
//   unsigned x / 7:  216 / 514     x % 7:  137 / 324
//   unsigned x / 10: 202 / 486     x % 10: 148 / 343    (16 bits: x / 10 78;
//                                                        128 bits: 1,122 / 794)
//   unsigned x / 1000000007: 263 / 1,103   x % 1000000007: 384 / 1,233
//   unsigned x / (2^32 - 5): 31 / 258      x % (2^32 - 5):  62 / 317
//   signed x / 10:   255 / 602     x % 10: 182 / 409
//   signed 32-bit x / -7: 270, x % -7: 170, x / 8: 31, x % 8: 59,
//   x / INT_MIN: 31, x / -1: 30; x / 0, x / 2^k unsigned, x % 2^k: none.
#pragma once

#include <tandem/detail/wide_uint.hpp>
#include <tandem/dsl/arith.hpp>
#include <tandem/dsl/constant_multiply.hpp>
#include <tandem/dsl/divide.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tandem::detail {

/// A multiply-high that divides by d: q = floor(x·M / 2^shift).
struct division_plan {
    std::size_t shift = 0;
    multiple_plan product;
};

/// The cheapest valid (s, M) for x <= xmax, d >= 2 not a power of two, floor(xmax/d) >= 2.
/// Every valid s is costed with plain signed digits; the few cheapest are
/// planned again with shared subexpressions (which take longer to plan).
inline division_plan plan_division(const wide_uint& d, const wide_uint& xmax, std::size_t quotient_bits) {
    const std::size_t l = d.bit_width();
    const std::size_t last = xmax.bit_width() + l;  // e < d <= 2^l: e·X < 2^s holds from here on
    std::vector<std::pair<std::uint64_t, std::size_t>> valid;  // (plain cost, s)
    std::vector<wide_uint> multipliers(last + 1);
    wide_uint m, rem;
    for (std::size_t s = l; s <= last; ++s) {
        divide_wide(wide_uint::power_of_two(s), d, m, rem);
        if (!rem.is_zero()) m = m + wide_uint::from(1);  // ceil
        const wide_uint e = m * d - wide_uint::power_of_two(s);
        if (!(e * xmax < wide_uint::power_of_two(s))) continue;
        multipliers[s] = m;
        const auto plain = plan_multiple({}, xmax, {binary_digits(m), canonical_digits(m)}, s + quotient_bits, false);
        valid.push_back({plain.cost, s});
    }
    std::sort(valid.begin(), valid.end());
    division_plan best;
    for (std::size_t i = 0; i < valid.size() && i < 3; ++i) {
        const std::size_t s = valid[i].second;
        const wide_uint& mult = multipliers[s];
        auto plan = plan_multiple({}, xmax, {binary_digits(mult), canonical_digits(mult)}, s + quotient_bits);
        if (plan.cost < best.product.cost) best = {s, std::move(plan)};
    }
    return best;
}

/// Unsigned division of x (at most xmax) by public d; quotient and remainder
/// have x.size() bits, either may be empty when not wanted.
inline void divide_by_constant_unsigned(builder& bld, bits_in x, const wide_uint& xmax, const wide_uint& d,
                                        bits_out quotient, bits_out remainder) {
    const std::size_t n = x.size();
    std::fill(quotient.begin(), quotient.end(), false_ref);
    std::fill(remainder.begin(), remainder.end(), false_ref);
    if (d.is_zero() || xmax < d) {
        std::fill(quotient.begin(), quotient.end(), d.is_zero() ? true_ref : false_ref);
        if (!remainder.empty()) std::copy(x.begin(), x.end(), remainder.begin());
        return;
    }
    const std::size_t l = d.bit_width();
    if (d.is_power_of_two()) {  // d = 2^(l-1)
        for (std::size_t i = 0; i + l - 1 < n && !quotient.empty(); ++i) quotient[i] = x[i + l - 1];
        for (std::size_t i = 0; i + 1 < l && !remainder.empty(); ++i) remainder[i] = x[i];
        return;
    }
    wide_uint qmax, unused;
    divide_wide(xmax, d, qmax, unused);
    const std::size_t qbits = qmax.bit_width();
    std::vector<wire_ref> q(qbits);
    if (qbits == 1) {
        // q = x >= d: the borrow of x - d, with d's bits constants.
        std::vector<wire_ref> dbits(n);
        for (std::size_t i = 0; i < n; ++i) dbits[i] = constant_ref(d.bit(i));
        q[0] = ~less_than(bld, x, dbits, false);
    } else {
        const division_plan plan = plan_division(d, xmax, qbits);
        constant_sum acc;
        build_multiple(bld, acc, x, xmax, plan.product, plan.shift + qbits);
        for (std::size_t i = 0; i < qbits; ++i) q[i] = acc.bit(plan.shift + i);
    }
    if (!quotient.empty()) std::copy(q.begin(), q.end(), quotient.begin());
    if (remainder.empty()) return;
    if (qbits == 1) {  // r = x - (q ? d : 0) on l bits: d's bits ANDed with q are q or 0
        std::vector<wire_ref> masked(l);
        for (std::size_t i = 0; i < l; ++i) masked[i] = d.bit(i) ? q[0] : false_ref;
        sub(bld, x.first(l), masked, remainder.first(l));
        return;
    }
    // r = x - q·d (mod 2^l), as r < d < 2^l; the sum starts from x's low bits.
    constant_sum acc;
    acc.bits.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(l));
    acc.pos = wide_uint::low_mask(l);
    const wide_uint complement = wide_uint::power_of_two(l) - d;  // -d ≡ 2^l - d
    const auto plan = plan_multiple(acc, qmax,
                                      {negated(binary_digits(d)), negated(canonical_digits(d)),
                                       binary_digits(complement), canonical_digits(complement)},
                                      l);
    build_multiple(bld, acc, q, qmax, plan, l);
    for (std::size_t i = 0; i < l; ++i) remainder[i] = acc.bit(i);
}

/// out = s ? -v : v on out.size() bits, for unsigned v < 2^(w-1) given by its
/// low w - 1 bits: w - 1 ANDs ((v ^ s) + s on w bits, then sign-extended).
inline void negate_if(builder& bld, wire_ref s, bits_in v, std::size_t w, bits_out out) {
    w = std::min(w, out.size());
    std::vector<wire_ref> t(w);
    for (std::size_t i = 0; i < w; ++i) t[i] = bld.xor_(i < v.size() ? v[i] : false_ref, s);
    add_bit(bld, t, s, bits_out(out).first(w));
    for (std::size_t i = w; i < out.size(); ++i) out[i] = out[w - 1];
}

/// Signed division of x by the public n-bit two's-complement d (truncating,
/// the division-by-zero results of divide.hpp); either output may be empty.
inline void divide_by_constant_signed(builder& bld, bits_in x, const wide_uint& d, bits_out quotient,
                                      bits_out remainder) {
    const std::size_t n = x.size();
    const wire_ref sx = x.back();
    const bool negative = d.bit(n - 1);
    const wide_uint mag = negative ? (wide_uint::power_of_two(n) - d) : d;  // |d| as an unsigned n-bit value
    if (mag.is_zero()) {  // x / 0 = x < 0 ? 1 : -1
        for (std::size_t i = 0; i < quotient.size(); ++i) quotient[i] = i == 0 ? true_ref : ~sx;
        if (!remainder.empty()) std::copy(x.begin(), x.end(), remainder.begin());
        return;
    }
    if (mag == wide_uint::from(1)) {
        if (!quotient.empty()) {
            if (negative) negate(bld, x, quotient);
            else std::copy(x.begin(), x.end(), quotient.begin());
        }
        std::fill(remainder.begin(), remainder.end(), false_ref);
        return;
    }
    if (mag.is_power_of_two()) {
        const std::size_t k = mag.bit_width() - 1;  // 1 <= k <= n - 1
        // sum = x + (x < 0 ? 2^k - 1 : 0): rounds the arithmetic shift toward zero.
        std::vector<wire_ref> bias(n, false_ref), sum(n), q(n);
        for (std::size_t i = 0; i < k; ++i) bias[i] = sx;
        add(bld, x, bias, false_ref, sum);
        for (std::size_t i = 0; i < n; ++i) q[i] = sum[std::min(i + k, n - 1)];
        if (!quotient.empty()) {
            if (negative) negate(bld, q, quotient);
            else std::copy(q.begin(), q.end(), quotient.begin());
        }
        if (!remainder.empty()) {
            // r = x - (q << k): the low k bits are x's, the rest x - sum on bits k..n-1.
            std::copy_n(x.begin(), k, remainder.begin());  // k < n
            if (k < n) sub(bld, x.subspan(k), bits_in(sum).subspan(k), remainder.subspan(k));
        }
        return;
    }
    // |x| <= 2^(n-1), divided as unsigned; then the signs of C++ truncation.
    std::vector<wire_ref> ux(n), uq(quotient.empty() ? 0 : n), ur(remainder.empty() ? 0 : n);
    absolute(bld, x, ux);
    const wide_uint xmax = wide_uint::power_of_two(n - 1);
    divide_by_constant_unsigned(bld, ux, xmax, mag, uq, ur);
    if (!quotient.empty()) {
        wide_uint qmax, unused;
        divide_wide(xmax, mag, qmax, unused);
        negate_if(bld, negative ? ~sx : sx, uq, qmax.bit_width() + 1, quotient);
    }
    if (!remainder.empty()) negate_if(bld, sx, ur, mag.bit_width() + 1, remainder);
}

/// `/` and `%` on n-bit operands: the constant-divisor circuits when every bit
/// of d is public (and x is not), the generic divider of divide.hpp otherwise.
inline void divide(builder& bld, bits_in x, bits_in d, bool is_signed, bits_out quotient, bits_out remainder) {
    const bool public_divisor = std::all_of(d.begin(), d.end(), [](wire_ref r) { return r.is_constant(); });
    const bool public_dividend = std::all_of(x.begin(), x.end(), [](wire_ref r) { return r.is_constant(); });
    if (public_divisor && !public_dividend) {
        if (is_signed) divide_by_constant_signed(bld, x, constant_value(d), quotient, remainder);
        else divide_by_constant_unsigned(bld, x, bound_of(x), constant_value(d), quotient, remainder);
    } else if (is_signed) {
        divide_signed(bld, x, d, quotient, remainder);
    } else {
        divide_unsigned(bld, x, d, quotient, remainder);
    }
}

}  // namespace tandem::detail
