// tandem/dsl/shift.hpp — shifts and rotations of bit vectors.
//
// A shift by a public amount only renames wires. A shift by a secure amount s
// is a logarithmic barrel shifter: stage k shifts by 2^k when bit k of s is
// set (n ANDs per stage). Shifting by n or more gives the fill (0, or copies of
// the sign bit for an arithmetic right shift) — a defined result where C++
// would have undefined behaviour.
#pragma once

#include <tandem/dsl/arith.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tandem::detail {

enum class shift_dir : std::uint8_t { left, right_logical, right_arithmetic };

/// out = a shifted by the public amount k.
inline void shift_public(bits_in a, std::uint64_t k, shift_dir dir, bits_out out) {
    const std::size_t n = a.size();
    const wire_ref fill = dir == shift_dir::right_arithmetic ? a.back() : false_ref;
    std::vector<wire_ref> r(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (dir == shift_dir::left) r[i] = i >= k ? a[i - k] : false_ref;
        else r[i] = k < n - i ? a[i + k] : fill;
    }
    std::copy(r.begin(), r.end(), out.begin());
}

/// out = a shifted by the secure unsigned amount s.
inline void shift_secure(builder& bld, bits_in a, bits_in s, shift_dir dir, bits_out out) {
    const std::size_t n = a.size();
    const std::size_t stages = std::bit_width(n - 1);  // amounts 0..2^stages-1 cover 0..n-1
    std::vector<wire_ref> x(a.begin(), a.end()), shifted(n);
    for (std::size_t k = 0; k < stages && k < s.size(); ++k) {
        shift_public(x, std::uint64_t{1} << k, dir, shifted);
        mux(bld, s[k], shifted, x, x);
    }
    if (s.size() > stages) {  // any higher bit set: the amount is at least n
        const wire_ref big = or_all(bld, s.subspan(stages));
        const wire_ref fill = dir == shift_dir::right_arithmetic ? a.back() : false_ref;
        for (std::size_t i = 0; i < n; ++i) x[i] = bld.mux(big, fill, x[i]);
    }
    std::copy(x.begin(), x.end(), out.begin());
}

}  // namespace tandem::detail
