// tandem/dsl/arith.hpp — adders, comparators and muxes over bit vectors.
//
// The building blocks of the DSL, as non-template functions over spans of wire
// references (bit 0 = least significant), so each is compiled once however
// many widths a program uses. AND counts are the best known (docs/DESIGN.md §2) and are
// asserted in tests/dsl_gate_counts.cpp:
//   n-bit add / sub: n-1 ANDs          (full adder with one AND:
//   comparison <:    n ANDs             c' = c ^ ((a ^ c) & (b ^ c)),
//   equality:        n-1 ANDs           Kolesnikov–Sadeghi–Schneider, CANS 2009)
//   mux:             n ANDs
// Outputs may alias inputs: every bit is read before it is written.
#pragma once

#include <tandem/circuit/builder.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace tandem::detail {

using bits_in = std::span<const wire_ref>;
using bits_out = std::span<wire_ref>;

/// out = a + b + carry_in (mod 2^n, n = out.size() = a.size() = b.size());
/// returns the carry out when `want_carry`, otherwise false_ref (and saves an AND).
inline wire_ref add(builder& bld, bits_in a, bits_in b, wire_ref carry, bits_out out, bool want_carry = false) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
        const wire_ref ai = a[i], bi = b[i];
        const wire_ref t = bld.xor_(ai, carry);
        out[i] = bld.xor_(t, bi);
        if (i + 1 < n || want_carry) carry = bld.xor_(carry, bld.and_(t, bld.xor_(bi, carry)));
    }
    return want_carry ? carry : false_ref;
}

/// Carry out of one bit of a + ~b + c, maj(a, ~b, c), written without NOT gates:
/// a ^ (t & (b ^ c)) with t = a ^ c; with the carry-in a constant 1 it is
/// a | ~b = ~(b ^ (a & b)). `flipped` compares sign bits: maj(~a, b, c) = b ^ (t & (b ^ c)).
inline wire_ref borrow_carry(builder& bld, wire_ref a, wire_ref b, wire_ref c, wire_ref t, bool flipped = false) {
    if (c == true_ref) return ~bld.xor_(flipped ? a : b, bld.and_(a, b));
    return bld.xor_(flipped ? b : a, bld.and_(t, bld.xor_(b, c)));
}

/// out = a - b (mod 2^n) = a + ~b + 1; returns the carry out (1 iff a >= b unsigned) when asked.
inline wire_ref sub(builder& bld, bits_in a, bits_in b, bits_out out, bool want_carry = false) {
    const std::size_t n = out.size();
    wire_ref carry = true_ref;
    for (std::size_t i = 0; i < n; ++i) {
        const wire_ref ai = a[i], bi = b[i];
        const wire_ref t = bld.xor_(ai, carry);
        out[i] = ~bld.xor_(t, bi);
        if (i + 1 < n || want_carry) carry = borrow_carry(bld, ai, bi, carry, t);
    }
    return want_carry ? carry : false_ref;
}

/// out = a + bit (mod 2^n): an increment by a secure bit, n-1 ANDs.
inline void add_bit(builder& bld, bits_in a, wire_ref bit, bits_out out) {
    wire_ref carry = bit;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const wire_ref ai = a[i];
        out[i] = bld.xor_(ai, carry);
        if (i + 1 < out.size()) carry = bld.and_(ai, carry);
    }
}

/// out = -a (mod 2^n) = ~a + 1: n-2 ANDs. The carry ~a_i & c equals c & (a_i ^ c), with no NOT gate.
inline void negate(builder& bld, bits_in a, bits_out out) {
    wire_ref carry = true_ref;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const wire_ref t = bld.xor_(a[i], carry);
        out[i] = ~t;  // ~a_i ^ c
        if (i + 1 < out.size()) carry = bld.and_(carry, t);
    }
}

/// a < b as unsigned numbers (or signed, with `is_signed`): the borrow of a - b, n ANDs.
inline wire_ref less_than(builder& bld, bits_in a, bits_in b, bool is_signed) {
    const std::size_t n = a.size();
    wire_ref carry = true_ref;  // carry of a + ~b + 1, as in sub()
    for (std::size_t i = 0; i < n; ++i)  // signed: compare with both sign bits flipped
        carry = borrow_carry(bld, a[i], b[i], carry, carry == true_ref ? false_ref : bld.xor_(a[i], carry),
                             is_signed && i + 1 == n);
    return ~carry;
}

/// AND of all bits, as a balanced tree (n-1 ANDs, depth log n).
inline wire_ref and_all(builder& bld, std::vector<wire_ref> v) {
    if (v.empty()) return true_ref;
    while (v.size() > 1) {
        std::size_t k = 0;
        for (std::size_t i = 0; i + 1 < v.size(); i += 2) v[k++] = bld.and_(v[i], v[i + 1]);
        if (v.size() % 2 != 0) v[k++] = v.back();
        v.resize(k);
    }
    return v[0];
}

/// OR of all bits (n-1 ANDs by De Morgan, NOT is free).
inline wire_ref or_all(builder& bld, bits_in a) {
    std::vector<wire_ref> v(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) v[i] = ~a[i];
    return ~and_all(bld, std::move(v));
}

/// a == b: n-1 ANDs.
inline wire_ref equal(builder& bld, bits_in a, bits_in b) {
    std::vector<wire_ref> v(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) v[i] = ~bld.xor_(a[i], b[i]);
    return and_all(bld, std::move(v));
}

/// out = c ? a : b, n ANDs.
inline void mux(builder& bld, wire_ref c, bits_in a, bits_in b, bits_out out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = bld.mux(c, a[i], b[i]);
}

}  // namespace tandem::detail
