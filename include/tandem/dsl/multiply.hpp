// tandem/dsl/multiply.hpp — multiplication circuits.
//
// Truncated n-bit product (what `*` on secure_int<N> computes):
//  * schoolbook: partial products a_i & b_j for i + j < n, then n-1 row
//    additions of shrinking width: n(n+1)/2 + (n-1)(n-2)/2 = n² - n + 1 ANDs;
//  * Karatsuba–Ofman (1962; as used for GC by Henecka–Schneider, paper 003):
//    with h = n/2, a·b mod 2^n = a0·b0 + ((a1·b0 + a0·b1) mod 2^(n-h)) · 2^h
//    (+ (a1·b1 mod 2) · 2^(n-1) when n is odd),
//    where a0·b0 is a full product computed with Karatsuba's three half-size
//    products. The cross products recurse through the same dispatch.
// A public factor (every bit a constant) takes constant_multiply.hpp instead.
// A square (both factors the same bits, x * x) makes each partial product
// x_i·x_j once: square_schoolbook, or Karatsuba's split from 48 bits (the
// two cross products of a square are one). About half a product's ANDs
// (64 bits: 1,860 against 3,605). The DSL knows this where a recorder would
// only find some of it by merging twin gates afterwards, and an eager
// stream, which merges none, would not at all.
// Full 2n-bit product (inside Karatsuba): schoolbook 2n² - n ANDs, Karatsuba
// (three products of n/2 + 1 bits at most) from karatsuba_full_threshold on.
//
// Thresholds, measured by counting the ANDs of both constructions at every
// width 4..136 (tests/dsl_gate_counts.cpp "karatsuba_crossover" prints them):
//  * full product: Karatsuba is smaller for every n >= 14 (13: 337 vs 325);
//  * truncated: Karatsuba is smaller for every n >= 32 (31: 944 vs 931;
//    32: 975 vs 993; 64: 3605 vs 4033; 128: 12471 vs 16257).
#pragma once

#include <tandem/dsl/arith.hpp>
#include <tandem/dsl/constant_multiply.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tandem::detail {

inline constexpr std::size_t karatsuba_full_threshold = 14;
inline constexpr std::size_t karatsuba_truncated_threshold = 32;
/// A truncated square this wide or wider takes Karatsuba's split — the low
/// half's full square and one cross product a1·a0, doubled by a shift (the
/// two cross products of a square are one) — smaller from between 40 bits
/// (759 ANDs against 741) and 48 (1,072 against 1,081; 64: 1,860 against
/// 1,953); tests/dsl_gate_counts.cpp "square_crossover" measures it.
inline constexpr std::size_t square_karatsuba_threshold = 48;
/// The same for a full (2n-bit) square, whose three Karatsuba products are
/// all squares: smaller from between 16 bits (263 against 254) and 24
/// (543 against 574).
inline constexpr std::size_t square_full_karatsuba_threshold = 24;

inline void multiply_full(builder& bld, bits_in a, bits_in b, bits_out out);
inline bool is_square(bits_in a, bits_in b);

/// out (n bits) = a · b mod 2^n by the schoolbook method; a, b have n bits.
inline void multiply_truncated_schoolbook(builder& bld, bits_in a, bits_in b, bits_out out) {
    const std::size_t n = out.size();
    std::vector<wire_ref> acc(n), row(n);
    for (std::size_t i = 0; i < n; ++i) acc[i] = bld.and_(a[i], b[0]);
    for (std::size_t j = 1; j < n; ++j) {
        const std::size_t w = n - j;  // row j only reaches bits j..n-1
        for (std::size_t i = 0; i < w; ++i) row[i] = bld.and_(a[i], b[j]);
        add(bld, bits_in(acc).subspan(j, w), bits_in(row).first(w), false_ref, bits_out(acc).subspan(j, w));
    }
    std::copy(acc.begin(), acc.end(), out.begin());
}

/// out = a · b mod 2^out.size() for n-bit a, b, schoolbook: the full product
/// (2n bits, 2n² - n ANDs), or all but its top bit (2n - 1 bits, one AND
/// less), which is all Karatsuba's middle product needs. No gate is made for
/// a bit beyond out: a carry nobody reads would be recorded, then dropped as
/// dead (and in a streamed run send its segment down the lay-out's dead-gate
/// pass).
inline void multiply_full_schoolbook(builder& bld, bits_in a, bits_in b, bits_out out) {
    const std::size_t n = a.size(), n_out = out.size();
    std::vector<wire_ref> acc(2 * n, false_ref), row(n);
    for (std::size_t i = 0; i < n; ++i) acc[i] = bld.and_(a[i], b[0]);
    for (std::size_t j = 1; j < n; ++j) {
        for (std::size_t i = 0; i < n; ++i) row[i] = bld.and_(a[i], b[j]);
        // acc has j + n - 1 significant bits; the sum has j + n, the last its carry.
        acc[j + n] = add(bld, bits_in(acc).subspan(j, n), row, false_ref, bits_out(acc).subspan(j, n), j + n < n_out);
    }
    std::copy_n(acc.begin(), n_out, out.begin());
}

/// As multiply_full_schoolbook (out: 2n or 2n - 1 bits), by Karatsuba:
/// three products of about n/2 bits, each asked only for the bits out needs
/// (2n' or 2n' - 1 of its own n' bits again).
inline void multiply_full_karatsuba(builder& bld, bits_in a, bits_in b, bits_out out) {
    const std::size_t n = a.size(), n_out = out.size();
    const std::size_t h = n / 2, m = n - h;  // low half h bits, high half m >= h bits
    // middle = z1 - z0 - z2 = a0·b1 + a1·b0 fits in 2m + 1 bits and lands at
    // bit h, where only its bits below n_out - h count: w bits of it, and of
    // z1 = sa·sb, are made. z0 and z2 are whole: the subtraction reads their
    // bits below w (and z2's top bit is below w where n_out = 2n - 1).
    const std::size_t w = std::min(2 * m + 1, n_out - h);
    std::vector<wire_ref> z0(2 * h), z2(2 * m), sa(m + 1), sb(m + 1), z1(w);
    multiply_full(bld, a.first(h), b.first(h), z0);
    multiply_full(bld, a.subspan(h), b.subspan(h), z2);
    std::vector<wire_ref> a0(m, false_ref), b0(m, false_ref);
    std::copy_n(a.begin(), h, a0.begin());
    std::copy_n(b.begin(), h, b0.begin());
    sa[m] = add(bld, a0, a.subspan(h), false_ref, bits_out(sa).first(m), true);
    if (is_square(a, b)) sb = sa;  // (a0 + a1)² is a square too: made as one
    else sb[m] = add(bld, b0, b.subspan(h), false_ref, bits_out(sb).first(m), true);
    multiply_full(bld, sa, sb, z1);
    std::vector<wire_ref> t(w, false_ref), middle(w);
    std::copy_n(z0.begin(), std::min(2 * h, w), t.begin());
    sub(bld, z1, t, middle);
    std::fill(t.begin(), t.end(), false_ref);
    std::copy_n(z2.begin(), std::min(z2.size(), w), t.begin());
    sub(bld, middle, t, middle);
    // result = z0 + z2·2^(2h) + middle·2^h; z0 and z2 do not overlap.
    std::vector<wire_ref> r(n_out, false_ref);
    std::copy(z0.begin(), z0.end(), r.begin());
    std::copy_n(z2.begin(), n_out - 2 * h, r.begin() + 2 * h);
    const std::size_t top = n_out - h;  // bits h..n_out-1 receive the middle term
    std::vector<wire_ref> mid(top, false_ref);
    std::copy_n(middle.begin(), std::min(w, top), mid.begin());
    add(bld, bits_in(r).subspan(h, top), mid, false_ref, bits_out(r).subspan(h, top));
    std::copy(r.begin(), r.end(), out.begin());
}

inline bool all_public(bits_in a);

/// out = a² mod 2^out.size() (out at most 2n bits, n = a.size()), each
/// partial product made once: a² = Σ_j a_j·2^(2j) + Σ_(i>j) a_i·a_j·2^(i+j+1)
/// (the twins a_i·a_j and a_j·a_i sum to one product a bit higher; a_j·a_j =
/// a_j needs no AND). Row j, the products a_i·a_j for i > j, lands at bit
/// 2j + 2 and is added to the rows before it (their sum reaches one bit
/// below its top); the diagonal a_j at bits 2j is added last. ANDs,
/// truncated (out n bits): about n²/2 + n (64 bits: 1,953 against a
/// product's 3,605); full: about n² + n against 2n² - n.
inline void square_schoolbook(builder& bld, bits_in a, bits_out out) {
    const std::size_t n = a.size(), n_out = out.size();
    std::vector<wire_ref> acc(n_out, false_ref), row(n);
    for (std::size_t j = 0; j + 1 < n && 2 * j + 2 < n_out; ++j) {
        const std::size_t at = 2 * j + 2;                       // where a_(j+1)·a_j lands
        const std::size_t w = std::min(n - j - 1, n_out - at);  // the row's bits below the top of out
        for (std::size_t k = 0; k < w; ++k) row[k] = bld.and_(a[j + 1 + k], a[j]);
        const bool carry = at + w < n_out;  // a whole row: its carry is the sum's new top bit
        const wire_ref c = add(bld, bits_in(acc).subspan(at, w), bits_in(row).first(w), false_ref,
                               bits_out(acc).subspan(at, w), carry);
        if (carry) acc[at + w] = c;
    }
    std::vector<wire_ref> diagonal(n_out, false_ref);
    for (std::size_t j = 0; j < n && 2 * j < n_out; ++j) diagonal[2 * j] = a[j];
    add(bld, acc, diagonal, false_ref, out);
}

/// Both factors are the same secret bits (x * x): a square.
inline bool is_square(bits_in a, bits_in b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()) && !all_public(a);
}

inline void multiply_full(builder& bld, bits_in a, bits_in b, bits_out out) {
    if (is_square(a, b) && a.size() < square_full_karatsuba_threshold) return square_schoolbook(bld, a, out);
    if (a.size() >= karatsuba_full_threshold && !all_public(a) && !all_public(b))
        multiply_full_karatsuba(bld, a, b, out);
    else multiply_full_schoolbook(bld, a, b, out);
}

inline void multiply_truncated(builder& bld, bits_in a, bits_in b, bits_out out);

/// out (n bits) = a · b mod 2^n by one Karatsuba step (see the header comment).
inline void multiply_truncated_karatsuba(builder& bld, bits_in a, bits_in b, bits_out out) {
    const std::size_t n = out.size();
    const std::size_t h = n / 2, m = n - h;
    const bool square = is_square(a, b);
    std::vector<wire_ref> r(n, false_ref);
    multiply_full(bld, a.first(h), b.first(h), bits_out(r).first(2 * h));
    // For odd n, a1·b1·2^(2h) still reaches the top bit, 2h = n - 1.
    if (2 * h < n) r[n - 1] = square ? a[h] : bld.and_(a[h], b[h]);
    std::vector<wire_ref> a0(m, false_ref), b0(m, false_ref), c1(m), c2(m);
    std::copy_n(a.begin(), h, a0.begin());
    std::copy_n(b.begin(), h, b0.begin());
    multiply_truncated(bld, a.subspan(h), b0, c1);
    if (square) {  // a1·a0 + a0·a1 = 2·a1·a0: one product, shifted a bit up
        std::copy_backward(c1.begin(), c1.end() - 1, c1.end());
        c1[0] = false_ref;
    } else {
        multiply_truncated(bld, a0, b.subspan(h), c2);
        add(bld, c1, c2, false_ref, c1);
    }
    add(bld, bits_in(r).subspan(h, m), c1, false_ref, bits_out(r).subspan(h, m));
    std::copy(r.begin(), r.end(), out.begin());
}

inline bool all_public(bits_in a) {
    return std::all_of(a.begin(), a.end(), [](wire_ref r) { return r.is_constant(); });
}

inline void multiply_truncated(builder& bld, bits_in a, bits_in b, bits_out out) {
    // A public factor: shifts and adds in signed digits (constant_multiply.hpp).
    if (all_public(b) && !all_public(a)) return multiply_by_constant(bld, a, bound_of(a), constant_value(b), out);
    if (all_public(a) && !all_public(b)) return multiply_by_constant(bld, b, bound_of(b), constant_value(a), out);
    if (is_square(a, b) && out.size() < square_karatsuba_threshold) return square_schoolbook(bld, a, out);
    if (out.size() >= karatsuba_truncated_threshold && !all_public(a) && !all_public(b))
        multiply_truncated_karatsuba(bld, a, b, out);
    else multiply_truncated_schoolbook(bld, a, b, out);
}

}  // namespace tandem::detail
