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
// Terms share subexpressions (Hartley 1996, see share_subexpressions): a
// pair ±y ± y·2^k that recurs becomes a base of its own, formed once.
//
// AND counts (asserted in tests/constant_divisors.cpp; in brackets what the
// schoolbook method folded down to before): the truncated 32-bit products
// x * 10: 28 (28), x * 0xFFFFFFFF: 30, a negation (465), x * 0x55555555: 94
// (225); the 64-bit x * (2^32 - 5): 123 (1,396).
#pragma once

#include <tandem/detail/wide_uint.hpp>
#include <tandem/dsl/arith.hpp>

#include <algorithm>
#include <array>
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

/// One term of a sum of multiples: ±base·2^shift, base 0 being y itself.
struct multiple_term {
    std::size_t base = 0;
    std::size_t shift = 0;
    bool negative = false;
};

/// A derived base (bases[from] << k) + bases[from], or - bases[from] when `minus`:
/// never negative, so every base is an unsigned value with a known bound.
struct derived_base {
    std::size_t from = 0;
    std::size_t k = 0;
    bool minus = false;
};

/// How to form acc + y·c: the shared subexpressions, then the terms in order.
struct multiple_plan {
    std::vector<derived_base> bases;  // base i + 1
    std::vector<multiple_term> terms;
    std::uint64_t cost = ~std::uint64_t{0};  // ANDs, as planned
};

/// The values of the bases: their bits (when built) and bounds.
struct base_values {
    std::vector<std::vector<wire_ref>> bits;
    std::vector<wide_uint> max;
};

/// acc += Σ ±base·2^shift over `terms`, modulo 2^t. With bld == nullptr only
/// the ANDs are counted (the plan); returns the ANDs the adders take (an
/// upper bound: the builder may fold more).
inline std::uint64_t accumulate_terms(builder* bld, constant_sum& acc, const base_values& bases,
                                      std::span<const multiple_term> terms, std::size_t t) {
    std::uint64_t ands = 0;
    std::vector<wire_ref> a, b, out;
    for (const multiple_term& d : terms) {
        const wide_uint& ymax = bases.max[d.base];
        if (d.shift >= t || ymax.is_zero()) continue;  // reaches no bit below 2^t
        const bool empty = acc.pos.is_zero() && acc.neg.is_zero();
        const constant_sum old{bld == nullptr ? std::vector<wire_ref>{} : acc.bits, acc.pos, acc.neg};
        (d.negative ? acc.neg : acc.pos) = (d.negative ? acc.neg : acc.pos) + (ymax << d.shift);
        const std::size_t w = constant_sum::width_for(acc.pos, acc.neg, t);
        const std::size_t span = w - d.shift;  // w > shift: the term alone reaches bit shift
        if (!(empty && !d.negative)) ands += span - 1;
        if (bld == nullptr) continue;
        const std::vector<wire_ref>& y = bases.bits[d.base];
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

/// Forms the derived bases of `plan` (bits only when bld != nullptr), each on
/// at most t bits; returns their ANDs.
inline std::uint64_t form_bases(builder* bld, base_values& v, const multiple_plan& plan, std::size_t t) {
    std::uint64_t ands = 0;
    for (const derived_base& d : plan.bases) {
        const wide_uint& m = v.max[d.from];
        const wide_uint shifted = m << d.k;
        const wide_uint max = d.minus ? shifted - m : shifted + m;  // bounds the value: x·(2^k ± 1)
        const std::size_t w = std::min(max.bit_width(), t);
        constant_sum acc;
        const multiple_term pair[2] = {{d.from, d.minus ? d.k : 0, false}, {d.from, d.minus ? 0 : d.k, d.minus}};
        ands += accumulate_terms(bld, acc, v, pair, w);
        v.max.push_back(max);
        if (bld != nullptr) {
            std::vector<wire_ref> bits(w);
            for (std::size_t i = 0; i < w; ++i) bits[i] = acc.bit(i);
            v.bits.push_back(std::move(bits));
        } else {
            v.bits.emplace_back();
        }
    }
    return ands;
}

/// Cost of a plan for acc + y·c mod 2^t.
inline std::uint64_t plan_cost(const constant_sum& acc, const wide_uint& ymax, const multiple_plan& plan,
                               std::size_t t) {
    base_values v{{{}}, {ymax}};
    std::uint64_t c = form_bases(nullptr, v, plan, t);
    constant_sum trial{{}, acc.pos, acc.neg};
    return c + accumulate_terms(nullptr, trial, v, plan.terms, t);
}

/// Common subexpressions of signed digits (Hartley, "Subexpression sharing in
/// filters using canonic signed digit multipliers", 1996): the pair pattern
/// ±base ± base·2^k that occurs most often (without overlaps) becomes a base of
/// its own, each occurrence one term, and again while a pattern repeats. The
/// binary expansion of 1/d is periodic, so a divisor's multiplier shrinks from
/// about s/3 terms to a few adders per doubling of the period.
inline std::vector<multiple_plan> share_subexpressions(const std::vector<signed_digit>& digits, std::size_t t) {
    multiple_plan plan;
    for (const auto& d : digits)
        if (d.shift < t) plan.terms.push_back({0, d.shift, d.negative});
    std::vector<multiple_plan> steps{plan};
    for (int round = 0; round < 12 && plan.terms.size() >= 4; ++round) {
        // Occurrences of each (base, k, same sign) among pairs, then the most frequent few matched greedily.
        std::vector<std::pair<std::size_t, std::array<std::size_t, 3>>> counted;
        {
            std::vector<std::array<std::size_t, 3>> keys;
            for (std::size_t i = 0; i < plan.terms.size(); ++i)
                for (std::size_t j = i + 1; j < plan.terms.size(); ++j) {
                    const auto& lo = plan.terms[i];
                    const auto& hi = plan.terms[j];
                    if (lo.base != hi.base || hi.shift == lo.shift) continue;
                    keys.push_back({lo.base, hi.shift - lo.shift, lo.negative == hi.negative ? 1u : 0u});
                }
            std::sort(keys.begin(), keys.end());
            for (std::size_t i = 0; i < keys.size();) {
                std::size_t j = i;
                while (j < keys.size() && keys[j] == keys[i]) ++j;
                counted.push_back({j - i, keys[i]});
                i = j;
            }
            std::sort(counted.begin(), counted.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        }
        std::size_t best_count = 0;
        std::vector<std::pair<std::size_t, std::size_t>> best_pairs;
        std::array<std::size_t, 3> best_key{};
        for (std::size_t c = 0; c < counted.size() && c < 4 && counted[c].first >= 2; ++c) {
            const auto key = counted[c].second;
            std::vector<bool> used(plan.terms.size(), false);
            std::vector<std::pair<std::size_t, std::size_t>> pairs;
            for (std::size_t i = 0; i < plan.terms.size(); ++i) {
                if (used[i] || plan.terms[i].base != key[0]) continue;
                for (std::size_t j = i + 1; j < plan.terms.size(); ++j) {
                    const auto& lo = plan.terms[i];
                    const auto& hi = plan.terms[j];
                    if (used[j] || hi.base != key[0] || hi.shift != lo.shift + key[1] ||
                        (lo.negative == hi.negative) != (key[2] == 1))
                        continue;
                    used[i] = used[j] = true;
                    pairs.push_back({i, j});
                    break;
                }
            }
            if (pairs.size() > best_count) best_count = pairs.size(), best_pairs = pairs, best_key = key;
        }
        if (best_count < 2) break;
        const bool minus = best_key[2] == 0;
        plan.bases.push_back({best_key[0], best_key[1], minus});
        const std::size_t id = plan.bases.size();
        std::vector<bool> paired(plan.terms.size(), false);
        std::vector<multiple_term> next;
        for (const auto& [i, j] : best_pairs) {
            paired[i] = paired[j] = true;
            // s·y·2^p + s·y·2^(p+k) = s·2^p·(y<<k + y); -s·y·2^p + s·y·2^(p+k) = s·2^p·(y<<k - y).
            next.push_back({id, plan.terms[i].shift, minus ? plan.terms[j].negative : plan.terms[i].negative});
        }
        for (std::size_t i = 0; i < plan.terms.size(); ++i)
            if (!paired[i]) next.push_back(plan.terms[i]);
        std::stable_sort(next.begin(), next.end(), [](const auto& x, const auto& y) { return x.shift < y.shift; });
        plan.terms = std::move(next);
        steps.push_back(plan);
    }
    return steps;
}

/// The cheapest way found to form acc + y·c mod 2^t: binary or canonical digits
/// of each candidate (c, or alternatives that give the same sum), with or
/// without shared subexpressions, summed lowest first or from the lowest
/// positive term (which saves negating the first term of an empty sum).
inline multiple_plan plan_multiple(const constant_sum& acc, const wide_uint& ymax,
                                   const std::vector<std::vector<signed_digit>>& candidates, std::size_t t,
                                   bool share = true) {
    multiple_plan best;
    for (const auto& digits : candidates) {
        std::vector<multiple_plan> steps;
        if (share) {
            steps = share_subexpressions(digits, t);
        } else {
            steps.emplace_back();
            for (const auto& d : digits) steps.back().terms.push_back({0, d.shift, d.negative});
        }
        for (auto& plan : steps) {
            multiple_plan orders[2] = {plan, plan};
            auto& terms = orders[1].terms;
            const auto first_positive =
                std::find_if(terms.begin(), terms.end(), [](const multiple_term& d) { return !d.negative; });
            if (first_positive != terms.end()) std::rotate(terms.begin(), first_positive, first_positive + 1);
            for (auto& order : orders) {
                order.cost = plan_cost(acc, ymax, order, t);
                if (order.cost < best.cost) best = order;
            }
        }
    }
    return best;
}

/// acc += y·c mod 2^t by `plan`.
inline void build_multiple(builder& bld, constant_sum& acc, bits_in y, const wide_uint& ymax,
                           const multiple_plan& plan, std::size_t t) {
    base_values v{{std::vector<wire_ref>(y.begin(), y.end())}, {ymax}};
    form_bases(&bld, v, plan, t);
    accumulate_terms(&bld, acc, v, plan.terms, t);
}

/// out (t bits) = y · c mod 2^t for unsigned y ≤ ymax and public c ≥ 0.
inline void multiply_by_constant(builder& bld, bits_in y, const wide_uint& ymax, const wide_uint& c, bits_out out) {
    const std::size_t t = out.size();
    const wide_uint reduced = t >= wide_uint::bits ? c : (c << (wide_uint::bits - t)) >> (wide_uint::bits - t);
    constant_sum acc;
    const auto plan = plan_multiple(acc, ymax, {binary_digits(reduced), canonical_digits(reduced)}, t);
    build_multiple(bld, acc, y, ymax, plan, t);
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
