// tandem/lib/float/convert.hpp — conversions between secure integers and
// secure_float, and between floating-point formats:
//
//   convert<secure_float<E, M>>(secure_int<N> / secure_uint<N>)
//       round to nearest, ties to even (IEEE 754-2019 §5.4.1 convertFromInt),
//       as x86-64 CVTSI2SS/CVTSI2SD and C++ static_cast; exact when the
//       integer fits the significand; an integer that rounds beyond the
//       format's range gives ±∞ (for binary32: unsigned 128-bit integers from
//       2^128 - 2^103 on; 64-bit and narrower integers never).
//   convert<secure_int<N>>(secure_float<E, M>)
//       truncation toward zero, as CVTTSS2SI/CVTTSD2SI (and static_cast where
//       C++ defines it). A NaN, ±∞ or a value whose truncation does not fit
//       gives the "integer indefinite" 1 followed by N - 1 zeros (0x80000000,
//       INT64_MIN for N = 32, 64; the same rule for every N).
//   convert<secure_uint<N>>(secure_float<E, M>)
//       truncation toward zero, as AVX-512 VCVTTSS2USI/VCVTTSD2USI: a NaN, ±∞
//       or a truncation outside [0, 2^N) gives 2^N - 1 (all ones); values in
//       (-1, 0) truncate to 0. (Not C++'s static_cast to unsigned, which is
//       undefined out of range.)
//   convert<secure_float<E2, M2>>(secure_float<E, M>)
//       wider formats (E2 >= E, M2 >= M: binary32 → binary64, binary16 or
//       bfloat16 → binary32): exact, as
//       CVTSS2SD — subnormals become normal, a NaN keeps its sign and payload
//       (shifted to the top of the wider fraction) and is quieted.
//       Narrower formats (E2 <= E, M2 <= M - 2: binary64 → binary32, binary32
//       → binary16 or bfloat16): round to
//       nearest even as CVTSD2SS — overflow gives ±∞, results below the normal
//       range are subnormal (gradual underflow), a NaN keeps its sign and the
//       top M2 bits of its payload and is quieted.
//
// Circuits (lib/float/round.hpp rounds and packs; arith.hpp's normalize
// shifts a leading one to the top, 2^k - 1 + n ANDs per stage k):
//   int → float:  |x| by a conditional negation (signed: N - 1 ANDs),
//                 normalize, exponent = bias + N - 1 - shift, one rounding
//                 (none when N <= M + 1: the guard bits are public zeros).
//   float → int:  the tests |x| < 1 and "out of range" on the exponent, the
//                 fraction masked into an N-bit window, a right shift by
//                 bias + N - 1 - e, a conditional negation (signed).
//   widening:     normalize the significand (only subnormals move), rebias the
//                 exponent, ∞/NaN/zero fixed up; the quiet bit ORed in.
//   narrowing:    the bits below the round bit ORed into a sticky bit,
//                 round_pack (denormalizing jammed shift, rounding), then one
//                 selection of ±∞ / NaN on overflow.
// AND gates (asserted in tests/lib_float_ops.cpp):
//              int → binary32  int → binary64  binary32 → int  binary64 → int
//   int8             42              42              56              62
//   uint8            35              35              51              57
//   int16            99              99             114             120
//   uint16           84              84             100             106
//   int32           266             228             223             250
//   uint32          235             197             193             219
//   int64           587             590             342             507
//   uint64          524             527             341             444
//   int128         1329            1295             518             765
//   uint128        1202            1168             522             763
//   binary32 → binary64: 198;  binary64 → binary32: 386;  to the same format: 0
//   binary16 → binary32: 92;   binary32 → binary16: 195
//   bfloat16 → binary32: 15;   binary32 → bfloat16: 172
// (Counts after the builder merges common subexpressions as it records; a
// merged gate's readers then fold against the gate kept, x ^ x = 0.)
#pragma once

#include <tandem/lib/float/arith.hpp>
#include <tandem/lib/float/classify.hpp>
#include <tandem/lib/float/compare.hpp>
#include <tandem/lib/float/round.hpp>
#include <tandem/lib/float/type.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace tandem {

namespace detail {

template <std::size_t E>
inline constexpr std::uint64_t float_bias = (std::uint64_t{1} << (E - 1)) - 1;

/// Integer → float: |x| (a conditional negation, N - 1 ANDs for signed x),
/// shifted left until its top bit is set (normalize), then rounded once.
template <std::size_t E, std::size_t M, std::size_t N, bool S>
secure_float<E, M> int_to_float(const secure_integer<N, S>& x) {
    static_assert(N >= 2, "convert<secure_float>(secure_int<N>): N must be at least 2 (resize a 1-bit value)");
    constexpr std::uint64_t top = float_bias<E> + N - 1;  // biased exponent of 2^(N-1)
    constexpr std::size_t EW = std::max<std::size_t>(E, std::bit_width(top)) + 2;
    const secure_bit sign = S ? x.msb() : secure_bit(false);
    secure_uint<N> u = x.as_unsigned();
    if constexpr (S) u = add_carry(u ^ broadcast<N>(sign), secure_uint<N>(0), sign);
    const normalized<N> n = normalize(u);
    // x == 0: the significand is 0 and round_pack_normalized packs +0 when e == 1.
    const secure_bit is_zero = !n.significand[N - 1];
    secure_int<EW> e = secure_int<EW>(static_cast<std::int64_t>(top)) - n.shift.template resize<EW>().as_signed();
    e = select(is_zero, secure_int<EW>(1), e);
    constexpr std::size_t G = N > M + 1 ? N - (M + 1) : 1;  // bits below the result's last
    secure_uint<M + 1 + G> sig;
    if constexpr (N >= M + 1 + G) sig = n.significand;
    else sig = concat(n.significand, secure_uint<M + 1 + G - N>(0));
    const rounded<E, M> r = round_pack_normalized<E, M, G>(sign, e, sig);
    if constexpr (top + 1 < (std::uint64_t{1} << E) - 1) {
        return secure_float<E, M>::from_bits(r.bits);  // cannot overflow
    } else {
        secure_uint<1 + E + M> inf = secure_uint<1 + E + M>((std::uint64_t{1} << E) - 1) << M;
        inf.set_bit(E + M, sign);
        return secure_float<E, M>::from_bits(select(r.overflow, inf, r.bits));
    }
}

/// Float → integer, truncating. The significand sits in an N-bit window with
/// the hidden bit at the top (bit N-1 is 2^(N-1) when the exponent is
/// `top`), and is shifted right by top - e. Out-of-range values are steered
/// into the same path: their window is forced to the indefinite value and
/// the shift to 0. An unsigned target's indefinite value (all ones) is
/// either filled into the window (`fill_window`) or ORed in at the end (N
/// ANDs); the end is cheaper when most of the window is public zeros below
/// the fraction, which the shifter then folds (N - 1 > 2M: binary32 → 64 bits).
template <std::size_t N, bool S, std::size_t E, std::size_t M, bool fill_window = (N - 1 <= 2 * M)>
secure_integer<N, S> float_to_int(const secure_float<E, M>& x) {
    static_assert(N >= 2, "convert<secure_int<N>>(secure_float): N must be at least 2");
    constexpr std::uint64_t bias = float_bias<E>;
    constexpr std::uint64_t ones = (std::uint64_t{1} << E) - 1;
    constexpr std::uint64_t top = bias + N - 1;  // e == top: 2^(N-1) <= |x| < 2^N
    constexpr std::size_t K = std::bit_width(N - 1);  // shift amounts 0..N-1
    const secure_bit sign = x.sign();
    const secure_uint<E> e = bit_slice<M, E>(x.bits());
    // |x| < 1 (zeros and subnormals included): the result is 0.
    const secure_bit tiny = e < bias;
    // Too large, ∞ or NaN. Signed: |x| >= 2^(N-1) (then the indefinite value
    // is also the right answer for -2^(N-1)). Unsigned: |x| >= 2^N, or a
    // negative x with |x| >= 1.
    secure_bit invalid;
    if constexpr (S) invalid = top >= ones ? secure_bit(e == ones) : !(e < top);
    else invalid = (top + 1 >= ones ? secure_bit(e == ones) : !(e < top + 1)) | (sign & !tiny);
    const secure_bit keep = !tiny & !invalid;
    // The window: hidden bit at N-1, then the fraction's top bits; below it,
    // zeros (or, for an invalid unsigned conversion, ones).
    const secure_bit fill = S || !fill_window ? secure_bit(false) : invalid;
    secure_uint<N> w;
    w.set_bit(N - 1, S || !fill_window ? !tiny : (!tiny | invalid));
    for (std::size_t i = 1; i < N; ++i) {
        const secure_bit f = i <= M ? x.bits()[M - i] : secure_bit(false);
        w.set_bit(N - 1 - i, select(keep, f, fill));
    }
    // Shift right by top - e (mod 2^K; exact whenever keep), 0 when invalid.
    const secure_uint<E + 1> amount_wide =
        secure_uint<E + 1>(top % (std::uint64_t{1} << (E + 1))) - e.template resize<E + 1>();
    const secure_uint<K> amount = amount_wide.template resize<K>() & broadcast<K>(!invalid);
    const secure_uint<N> magnitude = w >> amount;
    if constexpr (!S && fill_window) return magnitude;
    else if constexpr (!S) return magnitude | broadcast<N>(invalid);
    else return add_carry(magnitude ^ broadcast<N>(sign), secure_uint<N>(0), sign).as_signed();
}

/// A wider format: exact.
template <std::size_t E2, std::size_t M2, std::size_t E, std::size_t M>
secure_float<E2, M2> widen_float(const secure_float<E, M>& x) {
    const float_class c = classify_float(x);
    const secure_uint<M + 1> sig = concat(to_uint(!c.exp_zero), bit_slice<0, M>(x.bits()));
    const normalized<M + 1> n = normalize(sig);  // subnormals: leading one to the top; normal: unchanged
    // Exponent: the field, rebased (e - bias + bias2), or for a subnormal
    // 1 - bias + bias2 - shift; 0 for zeros, all ones for ∞ and NaN.
    constexpr std::uint64_t rebase = float_bias<E2> - float_bias<E>;
    const secure_uint<E2> field = bit_slice<M, E>(x.bits()).template resize<E2>() + secure_uint<E2>(rebase);
    const secure_uint<E2> sub = secure_uint<E2>(rebase + 1) - n.shift.template resize<E2>();
    secure_uint<E2> e2 = select(c.exp_zero, sub & broadcast<E2>(c.frac_nonzero), field);
    e2 = e2 | broadcast<E2>(c.exp_ones);
    secure_uint<M2> f2 = n.significand.template resize<M>().template resize<M2>() << (M2 - M);
    f2.set_bit(M2 - 1, f2[M2 - 1] | c.nan());  // quiet a signalling NaN
    return secure_float<E2, M2>::from_bits(concat(to_uint(x.sign()), concat(e2, f2)));
}

/// A wider fraction, the same exponent (bfloat16 → binary32): the fraction
/// padded with zeros, a NaN quieted: E + M ANDs (the NaN test, the quiet bit).
template <std::size_t M2, std::size_t E, std::size_t M>
secure_float<E, M2> pad_fraction(const secure_float<E, M>& x) {
    secure_uint<1 + E + M2> b = x.bits().template resize<1 + E + M2>() << (M2 - M);
    b.set_bit(M2 - 1, b[M2 - 1] | isnan(x));
    b.set_bit(E + M2, x.sign());
    return secure_float<E, M2>::from_bits(b);
}

/// A narrower format: one rounding (round.hpp), then ∞ and NaN.
template <std::size_t E2, std::size_t M2, std::size_t E, std::size_t M>
secure_float<E2, M2> narrow_float(const secure_float<E, M>& x) {
    constexpr std::size_t G = M - M2;  // ≥ 2 below (a one-bit narrowing rounds without sticky bits)
    static_assert(G >= 2, "convert<secure_float<E2, M2>>: narrowing by one fraction bit is not supported");
    constexpr std::size_t EW = E + 2;
    constexpr std::int64_t rebase = static_cast<std::int64_t>(float_bias<E> - float_bias<E2>);
    const secure_bit exp_ones = exponent_all_ones(x);
    const secure_bit exp_zero = bit_slice<M, E>(x.bits()) == 0;
    const secure_bit frac_nonzero = fraction_nonzero(x);
    const secure_uint<M + 1> sig = concat(to_uint(!exp_zero), bit_slice<0, M>(x.bits()));
    secure_uint<E> eff = bit_slice<M, E>(x.bits());
    eff.set_bit(0, eff[0] ^ exp_zero);  // subnormals and zeros: 1
    const secure_int<EW> e = eff.template resize<EW>().as_signed() - rebase;
    // Only the round bit and whether anything below it is set matter: the bits
    // below the round bit are ORed into one sticky bit first (G - 2 ANDs), so
    // the denormalizing shifter works on M2 + 4 bits instead of M + 1.
    const secure_uint<M2 + 3> short_sig =
        concat(bit_slice<G - 1, M2 + 2>(sig), to_uint(any_bit(bit_slice<0, G - 1>(sig))));
    const rounded<E2, M2> r = round_pack<E2, M2, 2>(x.sign(), e, short_sig);
    // Overflow (∞ and NaN inputs overflow too): exponent all ones, fraction 0
    // or, for a NaN, the top of its payload, quieted.
    secure_uint<M2> nan_fraction = bit_slice<G, M2>(x.bits()) & broadcast<M2>(exp_ones);
    nan_fraction.set_bit(M2 - 1, exp_ones & frac_nonzero);
    secure_uint<1 + E2 + M2> special = secure_uint<1 + E2 + M2>((std::uint64_t{1} << E2) - 1) << M2;
    special = special | nan_fraction.template resize<1 + E2 + M2>();
    special.set_bit(E2 + M2, x.sign());
    return secure_float<E2, M2>::from_bits(select(r.overflow, special, r.bits));
}

}  // namespace detail

/// Converts between secure integers and secure_float, and between float
/// formats (see the top of this header for each direction's rule):
///   convert<secure_f32>(i), convert<secure_int<32>>(f), convert<secure_f64>(f).
template <class To, std::size_t N, bool S>
    requires secure_floating<To>
To convert(const secure_integer<N, S>& x) {
    return detail::int_to_float<To::exponent_bits, To::fraction_bits>(x);
}

/// convert from a secure_float to a secure integer (see the first overload).
template <class To, std::size_t E, std::size_t M>
    requires secure_integral<To>
To convert(const secure_float<E, M>& x) {
    return detail::float_to_int<To::width, To::is_signed>(x);
}

/// convert from one float format to another (see the first overload).
template <class To, std::size_t E, std::size_t M>
    requires secure_floating<To>
To convert(const secure_float<E, M>& x) {
    constexpr std::size_t E2 = To::exponent_bits, M2 = To::fraction_bits;
    if constexpr (E2 == E && M2 == M) {
        return x;
    } else if constexpr (E2 == E && M2 > M) {
        return detail::pad_fraction<M2>(x);
    } else if constexpr (E2 >= E && M2 >= M) {
        return detail::widen_float<E2, M2>(x);
    } else {
        static_assert(E2 <= E && M2 + 2 <= M,
                      "convert<secure_float<E2, M2>>(secure_float<E, M>): one format must contain the other");
        return detail::narrow_float<E2, M2>(x);
    }
}

}  // namespace tandem
