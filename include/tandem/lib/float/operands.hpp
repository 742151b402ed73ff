// tandem/lib/float/operands.hpp — which operand pairs the secure_float
// operators take: two secure_float<E, M> of one format, or one of them and a
// public constant of its plain type (float for secure_f32, double for
// secure_f64; a double does not mix with secure_f32 — write 1.0f).
#pragma once

#include <tandem/lib/float/type.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace tandem {

namespace detail {
template <class T>
struct is_secure_float : std::false_type {};
template <std::size_t E, std::size_t M>
struct is_secure_float<secure_float<E, M>> : std::true_type {};

/// The secure_float type two operands combine into (no `type` if they do not).
template <class A, class B>
struct common_float {};
template <std::size_t E, std::size_t M>
struct common_float<secure_float<E, M>, secure_float<E, M>> {
    using type = secure_float<E, M>;
};
template <std::size_t E, std::size_t M, std::floating_point P>
    requires std::constructible_from<secure_float<E, M>, P>
struct common_float<secure_float<E, M>, P> {
    using type = secure_float<E, M>;
};
template <std::size_t E, std::size_t M, std::floating_point P>
    requires std::constructible_from<secure_float<E, M>, P>
struct common_float<P, secure_float<E, M>> {
    using type = secure_float<E, M>;
};
}  // namespace detail

/// A secure_float<E, M> (any format).
template <class T>
concept secure_floating = detail::is_secure_float<std::remove_cvref_t<T>>::value;

/// Two operands a secure_float operator takes (see the top of this header).
template <class A, class B>
concept float_operands = requires { typename detail::common_float<A, B>::type; };

namespace detail {
template <class A, class B>
using common_float_t = typename common_float<A, B>::type;
}  // namespace detail

}  // namespace tandem
