// tandem/lib/float/arith.hpp — IEEE-754 addition, subtraction, multiplication,
// division and square root on secure_float<E, M>.
//
// Semantics: IEEE 754-2019 §5.4.1 (addition, subtraction, multiplication,
// division, squareRoot) with roundTiesToEven, exactly as x86-64 SSE computes
// them with the default MXCSR (addss/subss/mulss/divss/sqrtss and the sd
// forms; Intel SDM vol. 1 §4.8.3.5 and table 4-7 for NaN results):
//   * a NaN operand: the result is the first operand quieted if it is a NaN,
//     else the second quieted (quiet bit set; sign and payload kept — also for
//     subtraction, which does not flip a NaN's sign);
//   * invalid operations (∞ − ∞, 0 × ∞, 0 / 0, ∞ / ∞, sqrt of a negative
//     non-zero number including −∞) give the default NaN: sign 1, quiet bit,
//     zero payload (0xFFC00000 for binary32);
//   * x + (−x) = +0, (−0) + (−0) = −0, sqrt(−0) = −0;
//   * subnormal inputs and outputs are exact (no flush to zero), overflow
//     gives ±∞. No flags are raised.
// Operators mix with public constants of the plain type (float for secure_f32,
// double for secure_f64); those fold while recording.
//
// Circuits (only ANDs count; lib/float/round.hpp rounds and packs):
//   add/sub: one magnitude comparison and a swap (one AND per bit), one
//            alignment shifter that jams the bits shifted out into a sticky
//            bit, one adder (the subtrahend complemented by XOR), one
//            normalising shifter bounded by the exponent (so results that
//            underflow come out subnormal without a second shift), rounding.
//   mul:     a subnormal significand normalised by a leading-zero shifter
//            (one only: the operands are ordered so that a subnormal comes
//            first; two subnormals multiply below the normal range, where the
//            rounding's shift places any product), the full (M+1)×(M+1)
//            product (dsl/multiply.hpp: Karatsuba, 983 ANDs for 24 bits,
//            3,895 for 53), the low half folded into a sticky bit, rounding
//            with gradual underflow (a jammed right shift).
//   div:     normalised significands, the dividend doubled when smaller than
//            the divisor, non-restoring division (one adder/subtractor per
//            quotient bit; the remainder's sign picks the next operation),
//            the remainder's non-zeroness as the sticky bit.
//   sqrt:    the normalised significand, doubled for an odd exponent, and the
//            non-restoring digit-by-digit square root (one bit of root per
//            step, one adder/subtractor as wide as the partial root): a
//            normal result is never an exact midpoint, so the round bit alone
//            decides rounding and no remainder test is needed.
// AND counts (asserted in tests/lib_float.cpp; EMP's binary32 counts, the
// anchors, in brackets):
//                binary32    binary64
//   + and −          695       1,512    [1,143]
//   ×              1,651       5,332    [2,286]
//   /              1,434       4,773    [7,845]
//   sqrt             595       2,114    [5,699]
// (lay-out merges common subexpressions: before it, 709 / 1,652 / 1,457 / 609
// and 1,514 / 5,333 / 4,774 / 2,117.)
// With a public operand the circuit folds while recording and has fewer ANDs.
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/multiply.hpp>
#include <tandem/lib/float/round.hpp>
#include <tandem/lib/float/type.hpp>

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tandem {

namespace detail {

/// Exponent width of intermediate results (signed): room for the sum or
/// difference of two exponents (2^(E+1) in magnitude) and for subnormals
/// normalised up to 2(M+1) places below the range.
template <std::size_t E, std::size_t M>
inline constexpr std::size_t wide_exponent_bits = std::max(E + 2, std::size_t(std::bit_width(M)) + 4);

/// Amounts 0..N-1 (the shifts a leading-zero normalisation of N bits needs).
template <std::size_t N>
inline constexpr std::size_t shift_bits = std::bit_width(N - 1);

template <std::size_t N>
struct normalized {
    secure_uint<N> significand;
    secure_uint<shift_bits<N>> shift;  ///< how far it moved left
};

/// Shifts x left until its top bit is set (x != 0); for x == 0 the result is 0.
/// Stage k (largest first) moves by 2^k when the top 2^k bits are zero:
/// 2^k - 1 + N ANDs per stage.
template <std::size_t N>
normalized<N> normalize(secure_uint<N> x) {
    constexpr std::size_t K = shift_bits<N>;
    secure_uint<K> s;
    for (std::size_t k = K; k-- > 0;) {
        const std::size_t sh = std::size_t{1} << k;
        const secure_bit top_zero = (x >> (N - sh)) == 0;
        x = select(top_zero, x << sh, x);
        s.set_bit(k, top_zero);
    }
    return {x, s};
}

/// Like normalize, but moves at most `limit` places: the result is min(leading
/// zeros, limit). The limit is saturated to K bits (2^K - 1 >= N - 1, so a
/// larger limit never binds). Stage k moves by 2^k when the top 2^k bits are
/// zero and at least 2^k places remain; the remaining allowance before stage k
/// is below 2^(k+1), so "at least 2^k" is its bit k, and when bit k is set but
/// the top bits are not zero the later stages can move less than 2^k in all,
/// so the allowance saturates to 2^k - 1 (k ORs).
template <std::size_t N, std::size_t L>
normalized<N> normalize_limited(secure_uint<N> x, const secure_uint<L>& limit) {
    constexpr std::size_t K = shift_bits<N>;
    secure_uint<K> allowance;
    if constexpr (L > K) allowance = bit_slice<0, K>(limit) | broadcast<K>(any_bit(bit_slice<K, L - K>(limit)));
    else allowance = limit.template resize<K>();
    secure_uint<K> s;
    for (std::size_t k = K; k-- > 0;) {
        const std::size_t sh = std::size_t{1} << k;
        const secure_bit top_zero = (x >> (N - sh)) == 0;
        const secure_bit room = allowance[k];
        const secure_bit move = top_zero & room;
        x = select(move, x << sh, x);
        s.set_bit(k, move);
        if (k > 0) {
            const secure_uint<K> low_mask((std::uint64_t{1} << k) - 1);
            allowance = allowance | (broadcast<K>(room & !top_zero) & low_mask);
        }
    }
    return {x, s};
}

/// The full 2N-bit product (dsl/multiply.hpp's multiply_full).
template <std::size_t N>
secure_uint<2 * N> full_product(const secure_uint<N>& a, const secure_uint<N>& b) {
    const std::uint32_t o = join_owner(a.owner(), b.owner());
    typename secure_uint<2 * N>::bits_type out;
    multiply_full(builder_for(o), a.bits(), b.bits(), out);
    return {out, o};
}

/// The significand of a finite x normalised (top bit set unless x is zero) and
/// its exponent to match: value = significand · 2^(exponent - bias - M).
template <std::size_t E, std::size_t M>
struct normal_form {
    secure_uint<M + 1> significand;
    secure_int<wide_exponent_bits<E, M>> exponent;
};
template <std::size_t E, std::size_t M>
normal_form<E, M> normal_form_of(const float_parts<E, M>& p) {
    constexpr std::size_t EW = wide_exponent_bits<E, M>;
    const normalized<M + 1> n = normalize(p.significand());
    return {n.significand,
            p.effective_exponent().template resize<EW>().as_signed() - n.shift.template resize<EW>().as_signed()};
}

/// What an operation's special cases decide (NaN operands come from the parts).
struct special_flags {
    secure_bit invalid;   ///< default NaN
    secure_bit infinite;  ///< ±∞ (loses to zero when both are set, see below)
    secure_bit zero;      ///< ±0
    secure_bit sign;      ///< sign of the ±∞ / ±0 / finite result
};

/// Selects the result: a NaN operand quieted (the first one first), the default
/// NaN, ±∞, ±0, or the rounded value `packed`. `zero` beats `infinite` (an
/// overflow computed from a zero operand's meaningless exponent must lose).
/// 2(M-1) + 1+E+M ANDs and about ten more; b may be absent (sqrt).
template <std::size_t E, std::size_t M>
secure_uint<1 + E + M> resolve(const float_parts<E, M>& a, const float_parts<E, M>* b, const special_flags& f,
                               const secure_uint<1 + E + M>& packed) {
    static_assert(M >= 2, "secure_float arithmetic needs at least 2 fraction bits (a quiet bit and a payload)");
    const secure_bit nan_a = a.is_nan();
    const secure_bit nan_b = b != nullptr ? b->is_nan() & !nan_a : secure_bit(false);  // b's NaN only if a is none
    const secure_bit nan = nan_a | nan_b | f.invalid;
    const secure_bit inf = f.infinite & !f.zero;
    const secure_bit special = nan | inf | f.zero;
    secure_uint<M - 1> payload = bit_slice<0, M - 1>(a.fraction) & broadcast<M - 1>(nan_a);
    if (b != nullptr) payload = payload ^ (bit_slice<0, M - 1>(b->fraction) & broadcast<M - 1>(nan_b));
    const secure_uint<E> exponent = broadcast<E>(nan | inf);
    const secure_bit sign = b != nullptr ? select(nan_a, a.sign, select(nan_b, b->sign, f.invalid | f.sign))
                                         : select(nan_a, a.sign, f.invalid | f.sign);
    const secure_uint<1 + E + M> value = concat(concat(to_uint(sign), exponent), concat(to_uint(nan), payload));
    return select(special, value, packed);
}

/// a + b, or a - b when `subtract`.
template <std::size_t E, std::size_t M>
secure_float<E, M> float_add(const secure_float<E, M>& a, const secure_float<E, M>& b, bool subtract) {
    constexpr std::size_t EW = wide_exponent_bits<E, M>;
    constexpr std::size_t G = 3;          // guard, round and sticky places for the alignment
    constexpr std::size_t N = M + 1 + G;  // aligned significands
    const float_parts<E, M> pa = unpack(a), pb = unpack(b);
    const secure_bit sign_b = subtract ? !pb.sign : pb.sign;
    const secure_bit op = pa.sign ^ sign_b;  // effective subtraction

    // Order by magnitude (the encoding without the sign orders finite numbers
    // and ∞), swapping with one AND per bit.
    const secure_uint<E + M> ma = bit_slice<0, E + M>(a.bits()), mb = bit_slice<0, E + M>(b.bits());
    const secure_bit swap = ma < mb;
    const secure_uint<E + M> t = (ma ^ mb) & broadcast<E + M>(swap);
    const secure_uint<E + M> big = ma ^ t, small = mb ^ t;
    const secure_bit tz = (pa.exponent_zero ^ pb.exponent_zero) & swap;
    const secure_bit big_exp_zero = pa.exponent_zero ^ tz, small_exp_zero = pb.exponent_zero ^ tz;
    const secure_bit sign_big = select(swap, sign_b, pa.sign);

    secure_uint<E> e_big = bit_slice<M, E>(big), e_small = bit_slice<M, E>(small);
    e_big.set_bit(0, e_big[0] ^ big_exp_zero);  // effective exponents (subnormals: 1)
    e_small.set_bit(0, e_small[0] ^ small_exp_zero);
    const secure_uint<N> sig_big = concat(to_uint(!big_exp_zero), bit_slice<0, M>(big)).template resize<N>() << G;
    const secure_uint<N> sig_small = concat(to_uint(!small_exp_zero), bit_slice<0, M>(small)).template resize<N>()
                                     << G;

    // Align the smaller operand; a distance of N or more leaves only its sticky bit.
    constexpr std::size_t K = std::bit_width(N);
    const secure_uint<E> distance = e_big - e_small;
    secure_uint<K> amount;
    if constexpr (E > K) amount = bit_slice<0, K>(distance) | broadcast<K>(any_bit(bit_slice<K, E - K>(distance)));
    else amount = distance.template resize<K>();
    const secure_uint<N> aligned = shift_right_jam(sig_small, amount);

    // big ± aligned in N+1 bits: never negative, as big's magnitude is the larger.
    const secure_uint<N + 1> sum = add_carry(sig_big.template resize<N + 1>(),
                                             aligned.template resize<N + 1>() ^ broadcast<N + 1>(op), op);
    // The sum's top bit stands for 2^(e_big + 1); moving left by s <= e_big keeps e >= 1.
    const normalized<N + 1> n = normalize_limited(sum, e_big);
    const secure_uint<E> e_moved = e_big - n.shift.template resize<E>();  // >= 0
    const secure_int<EW> e = (e_moved.template resize<EW>() + 1).as_signed();
    const rounded<E, M> r = round_pack_normalized<E, M, G + 1>(sign_big, e, n.significand);

    special_flags f;
    const secure_bit inf_a = pa.is_inf(), inf_b = pb.is_inf();
    f.invalid = inf_a & inf_b & op;  // ∞ − ∞
    f.infinite = inf_a | inf_b | r.overflow;
    f.zero = sum == 0;                                    // exact cancellation, or two zeros
    f.sign = select(f.zero, pa.sign & sign_b, sign_big);  // an exact zero is +0 unless both are −
    return secure_float<E, M>::from_bits(resolve(pa, &pb, f, r.bits));
}

/// a × b.
template <std::size_t E, std::size_t M>
secure_float<E, M> float_multiply(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    static_assert(M >= 3, "secure_float multiplication needs at least 3 fraction bits");
    constexpr std::size_t EW = wide_exponent_bits<E, M>;
    constexpr std::int64_t bias = float_parts<E, M>::bias;
    const float_parts<E, M> pa = unpack(a), pb = unpack(b);
    const secure_bit sign = pa.sign ^ pb.sign;
    // Only a subnormal operand needs normalising: when both are subnormal the
    // product lies below the normal range (its exponent e <= 2 - bias, and
    // e == 1 only for E = 2), so the rounding's denormalising shift places it
    // whatever the position of its leading bit (the kept window below holds
    // every bit above the round position exactly). So b goes first when it is
    // subnormal (a swap, one AND per bit) and only the first is normalised.
    const secure_bit swap = pb.exponent_zero;
    const secure_uint<M + 1> sa = pa.significand(), sb = pb.significand();
    const secure_uint<M + 1> ts = (sa ^ sb) & broadcast<M + 1>(swap);
    const secure_uint<E> xa = pa.effective_exponent(), xb = pb.effective_exponent();
    const secure_uint<E> te = (xa ^ xb) & broadcast<E>(swap);
    const normalized<M + 1> na = normalize(sa ^ ts);
    const secure_uint<M + 1> other = sb ^ ts;
    const secure_int<EW> ea = (xa ^ te).template resize<EW>().as_signed() - na.shift.template resize<EW>().as_signed();
    const secure_int<EW> eb = (xb ^ te).template resize<EW>().as_signed();

    // Unless both are subnormal, the product lies in [2^(2M), 2^(2M+2)).
    const secure_uint<2 * M + 2> p = full_product(na.significand, other);
    const secure_bit top = p[2 * M + 1];
    // Keep M+4 bits below the top, the rest only as a sticky bit (G = 3).
    secure_uint<M + 4> kept = bit_slice<M - 2, M + 4>(p);
    kept.set_bit(0, kept[0] | any_bit(bit_slice<0, M - 2>(p)));
    const secure_uint<M + 4> sig = select(top, kept, kept << 1);
    // value = p · 2^(ea + eb - 2 bias - 2M) = sig · 2^(e - bias - M - 3) with e = ea + eb - bias + top.
    const secure_int<EW> e = add_carry((ea - bias).as_unsigned(), eb.as_unsigned(), top).as_signed();
    const rounded<E, M> r = round_pack<E, M, 3>(sign, e, sig);

    special_flags f;
    const secure_bit inf_a = pa.is_inf(), inf_b = pb.is_inf(), zero_a = pa.is_zero(), zero_b = pb.is_zero();
    f.invalid = (inf_a & zero_b) | (zero_a & inf_b);  // 0 × ∞
    f.infinite = inf_a | inf_b | r.overflow;
    f.zero = zero_a | zero_b;
    f.sign = sign;
    return secure_float<E, M>::from_bits(resolve(pa, &pb, f, r.bits));
}

/// a / b.
template <std::size_t E, std::size_t M>
secure_float<E, M> float_divide(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    constexpr std::size_t EW = wide_exponent_bits<E, M>;
    constexpr std::int64_t bias = float_parts<E, M>::bias;
    // The partial remainder, two's complement: it stays in [-y, y) with
    // y < 2^(M+1), so M+2 bits hold it and every step may wrap modulo 2^(M+2).
    constexpr std::size_t R = M + 2;
    const float_parts<E, M> pa = unpack(a), pb = unpack(b);
    const secure_bit sign = pa.sign ^ pb.sign;
    const normal_form<E, M> na = normal_form_of(pa), nb = normal_form_of(pb);

    // Make the quotient of significands lie in [1, 2): double the dividend when smaller.
    const secure_bit smaller = na.significand < nb.significand;
    const secure_uint<M + 2> x0 = na.significand.template resize<M + 2>();
    const secure_uint<R> x = select(smaller, x0 << 1, x0);
    const secure_uint<R> y = nb.significand.template resize<R>();

    // Non-restoring division (e.g. Koren, Computer Arithmetic Algorithms, §5.2):
    // the remainder stays in [-y, y); each step doubles it and adds y when it is
    // negative, subtracts y otherwise; the quotient bit is "not negative". The
    // first quotient bit is 1 (x >= y).
    secure_uint<M + 3> q;  // M+2 quotient bits above the sticky bit (bit 0)
    q.set_bit(M + 2, true);
    secure_uint<R> r = x - y;
    for (std::size_t i = M + 1; i-- > 0;) {
        const secure_bit add_back = r[R - 1];
        r = add_carry(r << 1, y ^ broadcast<R>(!add_back), !add_back);
        q.set_bit(i + 1, !r[R - 1]);
    }
    // The true remainder is r, or r + y when r is negative: non-zero means inexact.
    const secure_uint<R> remainder = r + (y & broadcast<R>(r[R - 1]));
    q.set_bit(0, any_bit(remainder));
    // value = (x / y) · 2^(ea - eb - smaller) = q · 2^(e - bias - M - 2) with e = ea - eb + bias - smaller.
    const secure_int<EW> e =
        add_carry((na.exponent + bias).as_unsigned(), ~nb.exponent.as_unsigned(), !smaller).as_signed();
    const rounded<E, M> rd = round_pack<E, M, 2>(sign, e, q);

    special_flags f;
    const secure_bit inf_a = pa.is_inf(), inf_b = pb.is_inf(), zero_a = pa.is_zero(), zero_b = pb.is_zero();
    f.invalid = (zero_a & zero_b) | (inf_a & inf_b);  // 0 / 0, ∞ / ∞
    f.infinite = inf_a | zero_b | rd.overflow;
    f.zero = zero_a | inf_b;
    f.sign = sign;
    return secure_float<E, M>::from_bits(resolve(pa, &pb, f, rd.bits));
}

/// floor(sqrt(x · 2^D)) for a D-bit x (a 2D-bit radicand whose low half is
/// public zeros), D bits, above one more bit: whether the remainder is non-zero
/// (a public 1 unless `want_inexact`). One value, so that a streamed run cannot
/// cut between two made from the same raw wires.
///
/// Non-restoring digit-by-digit square root (Li and Chu, "A new non-restoring
/// square root algorithm and its VLSI implementations", ICCD 1996): with root
/// Q and signed remainder R, each step brings down two radicand bits and sets
/// R = 4R + pair - (4Q + 1) when R >= 0, R = 4R + pair + (4Q + 3) when R < 0;
/// the new root bit is R >= 0. |R| <= 2Q + 1, so after j steps R fits in j+2
/// signed bits and step j is one (j+3)-bit adder with its subtrahend
/// complemented by XOR (j+2 ANDs, the sign is the top bit): at most
/// D(D+3)/2 ANDs, fewer as the radicand's low half is public. The remainder,
/// when wanted, is R, or R + 2Q + 1 when R < 0.
template <std::size_t D>
secure_uint<D + 1> digit_square_root(const secure_uint<D>& x, bool want_inexact) {
    const std::uint32_t o = result_owner(x.owner());
    builder& bld = builder_for(o);
    std::vector<wire_ref> in(2 * D, false_ref);
    for (std::size_t i = 0; i < D; ++i) in[D + i] = x.bits()[i];
    std::vector<wire_ref> rem(D + 2, false_ref), operand(D + 2);
    typename secure_uint<D + 1>::bits_type out;  // the root in bits 1..D, filled from the top
    wire_ref* root = out.data() + 1;
    wire_ref negative = false_ref;
    for (std::size_t j = 0; j < D; ++j) {
        const std::size_t w = j + 3;  // bits of 4R + pair ± (4Q + 1 or 3), modulo which R fits
        for (std::size_t i = w - 1; i >= 2; --i) rem[i] = rem[i - 2];
        rem[1] = in[2 * (D - 1 - j) + 1];
        rem[0] = in[2 * (D - 1 - j)];
        // 4Q + 1 (subtracted) or 4Q + 3 (added): bit 1 is `negative`; XOR with
        // `subtract` complements it for the subtraction, whose carry-in is 1.
        const wire_ref subtract = ~negative;
        operand[0] = negative;  // 1 ^ subtract
        operand[1] = true_ref;  // negative ^ subtract
        for (std::size_t i = 0; i < j; ++i) operand[2 + i] = bld.xor_(root[D - j + i], subtract);
        operand[w - 1] = subtract;  // Q's bit j is 0
        add(bld, bits_in(rem).first(w), bits_in(operand).first(w), subtract, bits_out(rem).first(w));
        negative = rem[w - 1];
        root[D - 1 - j] = ~negative;
    }
    if (want_inexact) {
        constexpr std::size_t w = D + 2;
        std::vector<wire_ref> back(w, false_ref);  // (2Q + 1) when R < 0
        back[0] = negative;
        for (std::size_t i = 0; i < D; ++i) back[1 + i] = bld.and_(root[i], negative);
        add(bld, bits_in(rem).first(w), back, false_ref, bits_out(rem).first(w));
        out[0] = or_all(bld, bits_in(rem).first(w));
    } else {
        out[0] = true_ref;
    }
    return {out, o};
}

/// Square root of x.
template <std::size_t E, std::size_t M>
secure_float<E, M> float_sqrt(const secure_float<E, M>& x) {
    constexpr std::size_t EW = wide_exponent_bits<E, M>;
    constexpr std::int64_t bias = float_parts<E, M>::bias;
    constexpr std::size_t D = M + 2;  // root digits: M+1 significand bits and the round bit
    // The root of the smallest subnormal, 2^((1 - bias - M) / 2), is normal
    // unless bias <= M (not in the IEEE formats, whose bias is far larger).
    constexpr bool subnormal_results = bias <= std::int64_t(M);
    const float_parts<E, M> p = unpack(x);
    const normal_form<E, M> n = normal_form_of(p);

    // value = X · 2^(e - bias - M) with an even e - bias after doubling X for an
    // odd one (the bias is odd, so e - bias is odd when e is even).
    const secure_bit odd = !n.exponent[0];
    const secure_uint<D> x0 = n.significand.template resize<D>();
    const secure_uint<D> radicand = select(odd, x0 << 1, x0);  // X in [2^M, 2^(M+2))
    // sqrt(X · 2^D) has D bits and lies in [2^(M+1), 2^(M+2)). A normal result is
    // never an exact midpoint (a D-bit root with its last bit set squares to an
    // odd number, but X · 2^D is even), so the round bit alone decides and the
    // sticky bit may be a public 1; a subnormal one is rounded further up, where
    // exact ties occur and the remainder counts.
    const secure_uint<M + 3> sig = digit_square_root(radicand, subnormal_results);
    // Result exponent: floor((e - bias) / 2) + bias = floor((e + bias) / 2).
    const secure_int<EW> e = (n.exponent + bias) >> 1;
    rounded<E, M> r;
    if constexpr (subnormal_results) r = round_pack<E, M, 2>(false, e, sig);
    else r = round_pack_normalized<E, M, 2>(false, e, sig);

    special_flags f;
    const secure_bit negative = p.sign & !p.is_zero() & !p.is_nan();
    f.invalid = negative;
    f.infinite = p.is_inf();  // +∞ (−∞ is invalid, which wins)
    f.zero = p.is_zero();     // ±0, sign kept
    f.sign = p.sign;
    return secure_float<E, M>::from_bits(resolve<E, M>(p, nullptr, f, r.bits));
}

/// A public operand of the plain type (float / double) for secure_float<E, M>.
template <class F, std::size_t E, std::size_t M>
concept plain_float_of = std::floating_point<F> && std::same_as<F, typename plain_float<E, M>::type>;

}  // namespace detail

// ---- operators -------------------------------------------------------------------

template <std::size_t E, std::size_t M>
secure_float<E, M> operator+(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    return detail::float_add(a, b, false);
}
template <std::size_t E, std::size_t M>
secure_float<E, M> operator-(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    return detail::float_add(a, b, true);
}
template <std::size_t E, std::size_t M>
secure_float<E, M> operator*(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    return detail::float_multiply(a, b);
}
template <std::size_t E, std::size_t M>
secure_float<E, M> operator/(const secure_float<E, M>& a, const secure_float<E, M>& b) {
    return detail::float_divide(a, b);
}

// Mixed with a public constant of the plain type (on either side).
#define TANDEM_FLOAT_MIXED_OPERATOR(op)                                                   \
    template <std::size_t E, std::size_t M, detail::plain_float_of<E, M> F>               \
    secure_float<E, M> operator op(const secure_float<E, M>& a, F b) {                    \
        return a op secure_float<E, M>(b);                                                \
    }                                                                                     \
    template <std::size_t E, std::size_t M, detail::plain_float_of<E, M> F>               \
    secure_float<E, M> operator op(F a, const secure_float<E, M>& b) {                    \
        return secure_float<E, M>(a) op b;                                                \
    }                                                                                     \
    template <std::size_t E, std::size_t M, class B>                                      \
    secure_float<E, M>& operator op##=(secure_float<E, M>& a, const B& b) {               \
        return a = a op b;                                                                \
    }
TANDEM_FLOAT_MIXED_OPERATOR(+)
TANDEM_FLOAT_MIXED_OPERATOR(-)
TANDEM_FLOAT_MIXED_OPERATOR(*)
TANDEM_FLOAT_MIXED_OPERATOR(/)
#undef TANDEM_FLOAT_MIXED_OPERATOR

/// The correctly rounded square root (IEEE 754 squareRoot, x86 sqrtss/sqrtsd).
template <std::size_t E, std::size_t M>
secure_float<E, M> sqrt(const secure_float<E, M>& x) {
    return detail::float_sqrt(x);
}

}  // namespace tandem
