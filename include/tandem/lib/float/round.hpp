// tandem/lib/float/round.hpp — unpacking and rounding of IEEE-754 binary
// floating-point numbers (detail; used by lib/float/arith.hpp and convert.hpp).
//
// Conventions (IEEE 754-2019 §3.4, binary interchange formats): a
// secure_float<E, M> has bias = 2^(E-1) - 1; its biased exponent field e_f and
// fraction f mean (-1)^s · 1.f · 2^(e_f - bias) for 0 < e_f < 2^E - 1,
// (-1)^s · 0.f · 2^(1 - bias) for e_f = 0 (subnormals and zeros), and ±∞ / NaN
// for e_f = 2^E - 1. The "effective exponent" of a finite number is e_f, or 1
// for e_f = 0, so that value = significand · 2^(eff - bias - M) for both kinds,
// the significand being the M+1-bit integer hidden·2^M + f.
//
// Rounding (§4.3.1, roundTiesToEven) works on an unbounded-range intermediate
// given as a sign, a signed biased exponent e and a significand `sig` of
// M+1+G bits whose value is sig · 2^(e - bias - M - G): the top bit is the
// leading one of a normal result, the low G bits are the guard (round) bit
// and bits that only matter as "sticky" (any non-zero). Two entry points:
//   * round_pack_normalized: the caller guarantees e >= 1 and that the top bit
//     is set unless e == 1 (then the value is subnormal or zero and already
//     aligned). Rounding carries into the exponent field by itself: a fraction
//     that rounds up to 2^(M+1) increments the exponent, a subnormal that
//     rounds up to 2^M becomes the smallest normal (the packing adds the
//     hidden bit into the exponent field, as in Berkeley SoftFloat's packing).
//   * round_pack: e may be anything and the top bit is set unless e <= 1
//     (a value below the normal range anyway); a result below the normal
//     range is first shifted right by 1 - e with the bits shifted out folded
//     into the lowest bit (gradual underflow, §7.5, with tininess irrelevant
//     as no flags are raised).
// Both report overflow (the result's exponent reaches 2^E - 1, before or after
// rounding) instead of forcing ±∞, so that callers fold ±∞ into the one
// selection of special results they need anyway; round_pack_saturate forces it.
// A zero significand is only meaningful with e == 1: callers that can produce
// an exact zero elsewhere select ±0 themselves.
//
// AND counts (N = M+1+G, EW the exponent width, K = bit_width(N); public
// bits fold, so the totals can be a little lower — tests/lib_float.cpp
// asserts round_pack_saturate<8, 23, 3> with EW = 10 at 279 and unpack with
// its three class flags at 2(E-1) + (M-1) + 3):
//   unpack:                 2(E-1) + (M-1); is_nan, is_inf, is_zero: 1 each
//   round_pack_normalized:  EW (overflow test) + G-2 (sticky OR) + 2 (round
//                           up) + E+M-1 (the increment)
//   round_pack:             the above + EW (underflow test) + EW-1 (1 - e) +
//                           at most EW-1 (saturating the amount to K bits) + K
//                           + at most N + 2^k per stage k of the jammed shifter
//                           + EW (e := 1)
//   round_pack_saturate:    + E + M
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/lib/float/type.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace tandem::detail {

/// Every bit of the result equals b (free: wires are copied).
template <std::size_t N>
secure_uint<N> broadcast(const secure_bit& b) {
    secure_uint<N> r;
    for (std::size_t i = 0; i < N; ++i) r.set_bit(i, b);
    return r;
}

/// Bits [Lo, Lo + Len) of x, as an unsigned integer (free). Bits beyond x read as 0.
template <std::size_t Lo, std::size_t Len, std::size_t N, bool S>
secure_uint<Len> bit_slice(const secure_integer<N, S>& x) {
    return (x.as_unsigned() >> Lo).template resize<Len>();
}

/// Whether any bit is set (N-1 ANDs).
template <std::size_t N, bool S>
secure_bit any_bit(const secure_integer<N, S>& x) {
    return x != 0;
}

/// a + b + carry_in (mod 2^N), N-1 ANDs.
template <std::size_t N>
secure_uint<N> add_carry(const secure_uint<N>& a, const secure_uint<N>& b, const secure_bit& carry_in) {
    const std::uint32_t o = join_owner(join_owner(a.owner(), b.owner()), carry_in.owner());
    typename secure_uint<N>::bits_type out;
    add(builder_for(o), a.bits(), b.bits(), carry_in.ref(), out);
    return {out, o};
}

/// x shifted right by the secret amount `amount` (K bits), with every bit
/// shifted out ORed into bit 0 ("jamming", so the result stays correct as a
/// sticky-bit significand). Amounts >= N leave only the jam. Per stage k:
/// N ANDs for the selection and 2^k for the jam (fewer where bits are public).
template <std::size_t N, std::size_t K>
secure_uint<N> shift_right_jam(secure_uint<N> x, const secure_uint<K>& amount) {
    for (std::size_t k = 0; k < K; ++k) {
        const std::size_t sh = std::size_t{1} << k;
        secure_uint<N> shifted;
        secure_bit lost;
        if (sh >= N) {
            lost = any_bit(x);
        } else {
            shifted = x >> sh;
            secure_uint<N> low = x & ((secure_uint<N>(1) << sh) - 1);  // public mask: free
            lost = any_bit(low);
        }
        shifted.set_bit(0, shifted[0] | lost);
        x = select(amount[k], shifted, x);
    }
    return x;
}

/// The fields of an encoding and the flags every operation needs.
template <std::size_t E, std::size_t M>
struct float_parts {
    static constexpr std::uint64_t bias = (std::uint64_t{1} << (E - 1)) - 1;

    secure_bit sign;
    secure_uint<E> exponent;  ///< the biased exponent field
    secure_uint<M> fraction;
    secure_bit exponent_zero;  ///< zero or subnormal
    secure_bit exponent_max;   ///< infinity or NaN
    secure_bit fraction_zero;

    secure_bit is_nan() const { return exponent_max & !fraction_zero; }
    secure_bit is_inf() const { return exponent_max & fraction_zero; }
    secure_bit is_zero() const { return exponent_zero & fraction_zero; }
    /// 1 for normal numbers (and ∞/NaN), 0 for subnormals and zeros (free).
    secure_bit hidden() const { return !exponent_zero; }
    /// hidden·2^M + fraction (free).
    secure_uint<M + 1> significand() const { return concat(to_uint(hidden()), fraction); }
    /// The exponent field, or 1 for subnormals and zeros (free: the field is 0 then).
    secure_uint<E> effective_exponent() const {
        secure_uint<E> e = exponent;
        e.set_bit(0, e[0] ^ exponent_zero);
        return e;
    }
};

/// Splits x into its fields: 2(E-1) + (M-1) ANDs.
template <std::size_t E, std::size_t M>
float_parts<E, M> unpack(const secure_float<E, M>& x) {
    float_parts<E, M> p;
    p.sign = x.sign();
    p.exponent = bit_slice<M, E>(x.bits());
    p.fraction = bit_slice<0, M>(x.bits());
    p.exponent_zero = p.exponent == 0;
    p.exponent_max = p.exponent == ((std::uint64_t{1} << E) - 1);
    p.fraction_zero = p.fraction == 0;
    return p;
}

/// The encoding of x with the quiet bit (top fraction bit) set (free).
template <std::size_t E, std::size_t M>
secure_uint<1 + E + M> quieted(const secure_float<E, M>& x) {
    return x.bits() | (secure_uint<1 + E + M>(1) << (M - 1));
}

/// A rounded, packed result and whether it overflowed (then bits are
/// meaningless and the result is ±∞, which the caller selects).
template <std::size_t E, std::size_t M>
struct rounded {
    secure_uint<1 + E + M> bits;
    secure_bit overflow;
};

/// Rounds to nearest, ties to even, and packs; see the header comment for the
/// contract (e >= 1; top bit of sig clear only when e == 1).
template <std::size_t E, std::size_t M, std::size_t G, std::size_t EW>
rounded<E, M> round_pack_normalized(const secure_bit& sign, const secure_int<EW>& e,
                                    const secure_uint<M + 1 + G>& sig) {
    static_assert(G >= 1, "round_pack: needs at least a round bit");
    static_assert(EW > E, "round_pack: the exponent needs room for overflow");
    constexpr std::size_t N = M + 1 + G;
    const secure_bit lsb = sig[G];
    const secure_bit round = sig[G - 1];
    secure_bit up;
    if constexpr (G >= 2) up = round & (lsb | any_bit(bit_slice<0, G - 1>(sig)));
    else up = round & lsb;
    // Exponent field: e, or 0 when the top bit is clear (then e == 1: flip bit 0).
    secure_uint<E> field = bit_slice<0, E>(e);
    field.set_bit(0, field[0] ^ !sig[N - 1]);
    secure_uint<E + M> packed = concat(field, bit_slice<G, M>(sig));
    packed = add_carry(packed, secure_uint<E + M>(0), up);
    rounded<E, M> r;
    r.bits = concat(to_uint(sign), packed);
    // Overflow before rounding; a carry from rounding that makes the field all
    // ones leaves the fraction 0, which is already the encoding of ±∞.
    r.overflow = !(e < std::int64_t((std::uint64_t{1} << E) - 1));
    return r;
}

/// Rounds an intermediate whose exponent may lie below the normal range (see
/// the header comment): denormalizes with a jammed right shift, then rounds.
template <std::size_t E, std::size_t M, std::size_t G, std::size_t EW>
rounded<E, M> round_pack(const secure_bit& sign, const secure_int<EW>& e, const secure_uint<M + 1 + G>& sig) {
    constexpr std::size_t N = M + 1 + G;
    constexpr std::size_t K = std::bit_width(N);  // amounts up to 2^K - 1 >= N clear every bit
    const secure_bit tiny = e < 1;
    const secure_int<EW> distance = 1 - e;  // > 0 when tiny
    secure_uint<K> amount = bit_slice<0, K>(distance);
    if constexpr (EW > K) {  // saturate: a huge distance (or a negative one, masked next) clears all
        const secure_bit huge = any_bit(bit_slice<K, EW - K>(distance));
        amount = amount | broadcast<K>(huge);
    }
    amount = amount & broadcast<K>(tiny);
    const secure_uint<N> shifted = shift_right_jam(sig, amount);
    secure_int<EW> e1 = e & broadcast<EW>(!tiny).as_signed();  // tiny: e := 1
    e1.set_bit(0, e[0] | tiny);
    return round_pack_normalized<E, M, G>(sign, e1, shifted);
}

/// round_pack with overflow resolved to ±∞: E + M ANDs more.
template <std::size_t E, std::size_t M, std::size_t G, std::size_t EW>
secure_uint<1 + E + M> round_pack_saturate(const secure_bit& sign, const secure_int<EW>& e,
                                           const secure_uint<M + 1 + G>& sig) {
    const rounded<E, M> r = round_pack<E, M, G>(sign, e, sig);
    const secure_uint<1 + E + M> inf_mask = (secure_uint<1 + E + M>((std::uint64_t{1} << E) - 1) << M);
    const secure_uint<1 + E + M> ovf = broadcast<1 + E + M>(r.overflow);
    // Exponent bits: OR with the overflow; fraction bits: cleared by it; sign kept.
    const secure_uint<1 + E + M> keep_frac = ~ovf | inf_mask | (secure_uint<1 + E + M>(1) << (E + M));
    return (r.bits | (ovf & inf_mask)) & keep_frac;
}

}  // namespace tandem::detail
