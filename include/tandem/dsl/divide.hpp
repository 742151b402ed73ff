// tandem/dsl/divide.hpp — division and remainder circuits.
//
// Unsigned restoring division that exploits how few bits the running remainder
// has: in step k (k = 0..n-1) the remainder has only k+1 bits, so it is
// compared with the low k+1 bits of the divisor, and the divisor's high bits
// enter only through one shared chain "d has no bit set at position ≥ j".
// Step k costs k+1 ANDs to subtract, k+1 to restore and 1 to form the quotient
// bit, so the whole circuit has n² + 3n - 3 ANDs (issue bound: n² + 3n - 1).
//
// A public divisor does not come here: `/` and `%` pick the circuits of
// constant_divide.hpp for it (same results, far fewer ANDs).
//
// Division by zero is deterministic: unsigned x / 0 = all ones (2^n - 1) and
// x % 0 = x. Signed division truncates toward zero like C++; signed x / 0 is -1
// for x >= 0 and 1 for x < 0, x % 0 = x, and INT_MIN / -1 wraps to INT_MIN
// with remainder 0.
#pragma once

#include <tandem/dsl/arith.hpp>

#include <cstddef>
#include <vector>

namespace tandem::detail {

/// Unsigned n-bit division; either output may be empty when not wanted.
inline void divide_unsigned(builder& bld, bits_in a, bits_in d, bits_out quotient, bits_out remainder) {
    const std::size_t n = a.size();
    // high_zero[j] = (d_j | ... | d_{n-1}) == 0, for j = 1..n-1.
    std::vector<wire_ref> high_zero(n + 1, true_ref);
    for (std::size_t j = n - 1; j >= 1; --j) high_zero[j] = bld.and_(high_zero[j + 1], ~d[j]);
    std::vector<wire_ref> rem(n), diff(n);
    for (std::size_t k = 0; k < n; ++k) {
        // rem = rem << 1 | a_{n-1-k}, now k+1 bits.
        for (std::size_t i = k; i > 0; --i) rem[i] = rem[i - 1];
        rem[0] = a[n - 1 - k];
        const std::size_t w = k + 1;
        const wire_ref fits = sub(bld, bits_in(rem).first(w), d.first(w), bits_out(diff).first(w), true);
        const wire_ref q = k + 1 < n ? bld.and_(fits, high_zero[k + 1]) : fits;
        if (!quotient.empty()) quotient[n - 1 - k] = q;
        if (k + 1 < n || !remainder.empty())
            mux(bld, q, bits_in(diff).first(w), bits_in(rem).first(w), bits_out(rem).first(w));
    }
    if (!remainder.empty()) std::copy(rem.begin(), rem.end(), remainder.begin());
}

/// |a| for two's complement a: (a ^ s) + s with s the sign, n-1 ANDs (INT_MIN stays INT_MIN).
inline void absolute(builder& bld, bits_in a, bits_out out) {
    const wire_ref s = a.back();
    std::vector<wire_ref> t(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) t[i] = bld.xor_(a[i], s);
    add_bit(bld, t, s, out);
}

/// Signed division truncating toward zero; either output may be empty.
inline void divide_signed(builder& bld, bits_in a, bits_in d, bits_out quotient, bits_out remainder) {
    const std::size_t n = a.size();
    const wire_ref sa = a.back(), sd = d.back();
    std::vector<wire_ref> ua(n), ud(n), uq(quotient.empty() ? 0 : n), ur(remainder.empty() ? 0 : n), t(n);
    absolute(bld, a, ua);
    absolute(bld, d, ud);
    divide_unsigned(bld, ua, ud, uq, ur);
    if (!quotient.empty()) {
        const wire_ref s = bld.xor_(sa, sd);
        for (std::size_t i = 0; i < n; ++i) t[i] = bld.xor_(uq[i], s);
        add_bit(bld, t, s, quotient);
    }
    if (!remainder.empty()) {
        for (std::size_t i = 0; i < n; ++i) t[i] = bld.xor_(ur[i], sa);
        add_bit(bld, t, sa, remainder);
    }
}

}  // namespace tandem::detail
