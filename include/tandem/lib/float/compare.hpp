// tandem/lib/float/compare.hpp — IEEE-754 comparisons of secure_float, and
// min / max as x86-64 SSE computes them.
//
// Semantics (IEEE 754-2019 §5.11, and x86-64 CMPSS/CMPSD, MINSS/MAXSS as the
// Intel SDM vol. 2 defines them):
//   a == b, a < b, a <= b, a > b, a >= b   false when either is a NaN
//   a != b                                 true when either is a NaN
//   +0 == -0; neither is less than the other; NaN payloads and signs do not matter
//   isunordered(a, b)                      either is a NaN
//   min(a, b) = a < b ? a : b              MINSS: b when either is a NaN or both are zeros
//   max(a, b) = a > b ? a : b              MAXSS: likewise b
//   fmin(a, b), fmax(a, b)                 C's fmin/fmax, a NaN operand ignored, with
//                                          what C leaves open fixed as IEEE 754-2019
//                                          minimumNumber/maximumNumber (§9.6): -0 < +0,
//                                          a signalling NaN ignored like a quiet one;
//                                          two NaNs give a, quieted
// (So min/max are not fmin/fmax: MINSS does not ignore a NaN.)
// A public constant of the plain type mixes in: x < 1.0f, min(x, 0.0f), fmax(x, 2.0f).
//
// How. An ordered comparison picks which magnitude to compare by the signs
// (XOR with the sign is free: ~|a| < ~|b| is |b| < |a|), and classifies only
// the operand of greater magnitude: that one is a NaN exactly when either is,
// and zero exactly when both are. == compares magnitudes and classifies a.
//
// AND gates (binary32 / binary64), asserted in tests/lib_float_ops.cpp. With
// K = E + M (magnitude bits) and P = detail::ends_ands(E) (10 / 15):
//   <, <=, >, >=       2K + P + M + 4      ( 99 / 197)
//   ==, !=             K + P + M + 2       ( 66 / 132)
//   isunordered        2(E + M) - 1        ( 61 / 125)
//   min, max           < plus 1 + E + M    (131 / 261)
//   fmin, fmax         4K + 4              (128 / 256): the total-order key
//                      comparison (1 + K), both NaN tests (2(K - 1)), the
//                      selection (1 + K), 4 to combine
// Lower bounds: with a's sign bit set and b's clear, a < b is "neither is a
// NaN and not both are zero", whose algebraic degree over GF(2) is 2K - 1,
// and a circuit needs at least degree - 1 ANDs (Schnorr, "The multiplicative
// complexity of Boolean functions", AAECC-6, 1988): ≥ 60 for binary32, ≥ 124
// for binary64. == there is "both are zero", degree 2K: ≥ 61 / ≥ 125. (The
// degrees were checked by Möbius transform on small formats.)
#pragma once

#include <tandem/lib/float/classify.hpp>
#include <tandem/lib/float/operands.hpp>

#include <cstddef>

namespace tandem {

namespace detail {

template <std::size_t E, std::size_t M>
secure_uint<E + M> float_magnitude(const secure_float<E, M>& x) {
    return x.bits().template resize<E + M>();
}

/// All bits equal to s (free).
template <std::size_t N>
secure_uint<N> spread_bit(const secure_bit& s) {
    return select(s, ~secure_uint<N>(0), secure_uint<N>(0));
}

/// a < b (or a <= b with `or_equal`) in IEEE order; see the top of the header.
template <std::size_t E, std::size_t M>
secure_bit ordered_less(const secure_float<E, M>& a, const secure_float<E, M>& b, bool or_equal) {
    const secure_bit sa = a.sign(), sb = b.sign();
    const secure_uint<E + M> flip = spread_bit<E + M>(sa);
    const secure_uint<E + M> ma = float_magnitude(a) ^ flip, mb = float_magnitude(b) ^ flip;
    // Same signs: the answer, NaNs aside (with sa set, |b| < |a| or |b| <= |a|).
    const secure_bit d = or_equal ? !(mb < ma) : ma < mb;
    // The operand of greater magnitude (either when they are equal).
    const secure_bit pick_b = d ^ sa;
    const secure_uint<E + M> big = select(pick_b, float_magnitude(b), float_magnitude(a));
    const float_class c = classify_float(secure_float<E, M>::from_bits(big.template resize<1 + E + M>()));
    const secure_bit zero = c.zero();
    // Signs differ: a < b iff a is the negative one and not both are zero;
    // a <= b iff a is negative or both are zero.
    const secure_bit mixed = or_equal ? (sa | zero) : (sa & ~zero);
    return ~c.nan() & select(sa == sb, d, mixed);
}

template <std::size_t E, std::size_t M>
secure_bit ordered_equal(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    const secure_bit same_sign = a.sign() == b.sign();
    const float_class c = classify_float(a);
    // Equal magnitudes: a NaN (exponent all ones, fraction non-zero) equals
    // nothing; a zero (exponent and fraction zero) equals either zero.
    return (float_magnitude(a) == float_magnitude(b)) &
           select(c.frac_nonzero, same_sign & ~c.exp_ones, same_sign | c.exp_zero);
}

/// fmin (or fmax with `larger`); see the top of the header.
template <std::size_t E, std::size_t M>
secure_float<E, M> min_max_number(const secure_float<E, M>& a, const secure_float<E, M>& b, bool larger) {
    // The total order's key (IEEE 754-2019 §5.10, totalOrder, with NaNs at
    // the ends): the sign flipped, the magnitude complemented when negative.
    const auto key = [](const secure_float<E, M>& x) {
        secure_uint<1 + E + M> k = x.bits() ^ spread_bit<1 + E + M>(x.sign());
        k.set_bit(E + M, ~x.sign());
        return k;
    };
    const secure_bit a_first = larger ? key(b) < key(a) : key(a) < key(b);
    const secure_bit nan_a = isnan(a), nan_b = isnan(b);
    // a when it is not a NaN and b is one or a comes first; a when both are NaNs.
    const secure_bit pick_a = select(nan_a, nan_b, nan_b | a_first);
    secure_uint<1 + E + M> r = select(pick_a, a.bits(), b.bits());
    r.set_bit(M - 1, r[M - 1] | (nan_a & nan_b));  // two NaNs: a, quieted
    return secure_float<E, M>::from_bits(r);
}

}  // namespace detail

template <class A, class B>
    requires float_operands<A, B>
secure_bit operator<(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return detail::ordered_less(F(a), F(b), false);
}
template <class A, class B>
    requires float_operands<A, B>
secure_bit operator<=(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return detail::ordered_less(F(a), F(b), true);
}
template <class A, class B>
    requires float_operands<A, B>
secure_bit operator>(const A& a, const B& b) {
    return b < a;
}
template <class A, class B>
    requires float_operands<A, B>
secure_bit operator>=(const A& a, const B& b) {
    return b <= a;
}
template <class A, class B>
    requires float_operands<A, B>
secure_bit operator==(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return detail::ordered_equal(F(a), F(b));
}
template <class A, class B>
    requires float_operands<A, B>
secure_bit operator!=(const A& a, const B& b) {
    return !(a == b);
}

/// Either operand is a NaN.
template <class A, class B>
    requires float_operands<A, B>
secure_bit isunordered(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return isnan(F(a)) | isnan(F(b));
}

/// a < b ? a : b, as x86-64 MINSS/MINSD (so b when either is a NaN or both are zeros).
template <class A, class B>
    requires float_operands<A, B>
detail::common_float_t<A, B> min(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    const F x(a), y(b);
    return F::from_bits(select(x < y, x.bits(), y.bits()));
}

/// a > b ? a : b, as x86-64 MAXSS/MAXSD (so b when either is a NaN or both are zeros).
template <class A, class B>
    requires float_operands<A, B>
detail::common_float_t<A, B> max(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    const F x(a), y(b);
    return F::from_bits(select(y < x, x.bits(), y.bits()));
}

/// C's fmin with -0 < +0 and signalling NaNs ignored too (IEEE minimumNumber).
template <class A, class B>
    requires float_operands<A, B>
detail::common_float_t<A, B> fmin(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return detail::min_max_number(F(a), F(b), false);
}

/// C's fmax with -0 < +0 and signalling NaNs ignored too (IEEE maximumNumber).
template <class A, class B>
    requires float_operands<A, B>
detail::common_float_t<A, B> fmax(const A& a, const B& b) {
    using F = detail::common_float_t<A, B>;
    return detail::min_max_number(F(a), F(b), true);
}

}  // namespace tandem
