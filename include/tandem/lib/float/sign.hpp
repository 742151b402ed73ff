// tandem/lib/float/sign.hpp — sign-bit operations on secure_float: abs,
// unary minus, copysign. All free (0 ANDs): they rename or flip the sign bit.
//
// As IEEE 754-2019 §5.5.1 and x86-64 ANDPS/XORPS with a sign mask: they touch
// only the sign, NaNs included (a NaN's payload and quiet bit are kept, and
// -NaN flips its sign), so -x is not 0 - x.
#pragma once

#include <tandem/lib/float/type.hpp>

#include <cstddef>

namespace tandem {

/// |x|: the sign bit cleared.
template <std::size_t E, std::size_t M>
secure_float<E, M> abs(const secure_float<E, M>& x) {
    auto b = x.bits();
    b.set_bit(E + M, secure_bit(false));
    return secure_float<E, M>::from_bits(b);
}

/// -x: the sign bit flipped.
template <std::size_t E, std::size_t M>
secure_float<E, M> operator-(const secure_float<E, M>& x) {
    auto b = x.bits();
    b.set_bit(E + M, ~x.sign());
    return secure_float<E, M>::from_bits(b);
}

/// x's magnitude with y's sign.
template <std::size_t E, std::size_t M>
secure_float<E, M> copysign(const secure_float<E, M>& x, const secure_float<E, M>& y) {
    auto b = x.bits();
    b.set_bit(E + M, y.sign());
    return secure_float<E, M>::from_bits(b);
}

}  // namespace tandem
