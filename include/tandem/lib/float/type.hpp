// tandem/lib/float/type.hpp — secure_float<E, M>: an IEEE-754 binary
// floating-point number whose value is secret.
//
// The value is its IEEE-754 interchange encoding, 1 + E + M bits: the
// fraction in bits [0, M), the biased exponent in [M, M + E), the sign in bit
// M + E. secure_f32 is binary32 (E = 8, M = 23), secure_f64 binary64 (E = 11,
// M = 52); as inputs and outputs their plain types are float and double
// (bit for bit, NaN payloads included). The operations live beside this
// header (lib/float.hpp includes them all).
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/value_traits.hpp>

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tandem {

/// A secret IEEE-754 binary floating-point number with E exponent bits and M
/// fraction bits (secure_f32, secure_f64); see the top of this header.
template <std::size_t E, std::size_t M>
class secure_float {
    static_assert(E >= 2 && M >= 1, "secure_float<E, M>: needs at least 2 exponent bits and 1 fraction bit");

public:
    static constexpr std::size_t exponent_bits = E;
    static constexpr std::size_t fraction_bits = M;
    static constexpr std::size_t width = 1 + E + M;
    using bits_type = secure_uint<width>;

    /// Public +0.
    secure_float() = default;

    /// A public constant of the plain type (float for secure_f32, double for
    /// secure_f64), bit for bit.
    template <std::floating_point F>
        requires(sizeof(F) * 8 == width && std::numeric_limits<F>::digits == int(M) + 1)
    secure_float(F value) noexcept  // NOLINT: public constants mix in implicitly
        : bits_(std::bit_cast<typename detail::plain_integer<width, false>::type>(value)) {}

    /// The number whose encoding is `bits`.
    static secure_float from_bits(const bits_type& bits) {
        secure_float f;
        f.bits_ = bits;
        return f;
    }

    /// The encoding: sign, biased exponent, fraction (see the top of this header).
    const bits_type& bits() const noexcept { return bits_; }
    secure_bit sign() const { return bits_[width - 1]; }
    bool is_public() const noexcept { return bits_.is_public(); }

private:
    bits_type bits_;
};

/// IEEE-754 binary32 (float).
using secure_f32 = secure_float<8, 23>;
/// IEEE-754 binary64 (double).
using secure_f64 = secure_float<11, 52>;

namespace detail {
template <std::size_t E, std::size_t M>
struct plain_float {
    using type = typename plain_integer<1 + E + M, false>::type;  // other formats: the encoding
};
template <>
struct plain_float<8, 23> {
    using type = float;
};
template <>
struct plain_float<11, 52> {
    using type = double;
};
}  // namespace detail

template <std::size_t E, std::size_t M>
struct value_traits<secure_float<E, M>> {
    using secure_type = secure_float<E, M>;
    using bits_traits = value_traits<typename secure_type::bits_type>;
    using encoding = typename bits_traits::plain_type;
    static constexpr std::size_t bits = secure_type::width;
    using plain_type = typename detail::plain_float<E, M>::type;

    static secure_type make(detail::ref_cursor& c) { return secure_type::from_bits(bits_traits::make(c)); }
    static void assign(secure_type& v, detail::ref_cursor& c) { v = make(c); }
    static void collect(const secure_type& v, detail::ref_cursor& c) { bits_traits::collect(v.bits(), c); }
    static void encode(const plain_type& p, detail::lane_cursor& c) {
        bits_traits::encode(std::bit_cast<encoding>(p), c);
    }
    static plain_type decode(detail::const_lane_cursor& c) { return std::bit_cast<plain_type>(bits_traits::decode(c)); }
    static void decode_into(plain_type& p, detail::const_lane_cursor& c) { p = decode(c); }
};

}  // namespace tandem
