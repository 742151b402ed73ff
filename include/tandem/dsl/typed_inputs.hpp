// tandem/dsl/typed_inputs.hpp — from one party's C++ inputs to the bits a
// run takes, and from output bits back to the circuit's result type.
//
// A typed circuit<R(input<P, T>...)> declares whose each input is; a party
// passes only its own, in declaration order. Which arguments fit is decided
// at compile time for both parties (the party itself is known only at run
// time, so a call that fits neither is a compile error, and one that fits
// only the other party is a usage_error before anything is sent).
#pragma once

#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/party.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tandem::detail {

/// std::tuple of the plain types of P's inputs, in order.
template <party P, class... Inputs>
using owned_inputs =
    decltype(std::tuple_cat(std::declval<std::conditional_t<Inputs::owner == P,
                                                            std::tuple<plain_type_t<typename Inputs::type>>,
                                                            std::tuple<>>>()...));

/// An argument fits an input if it converts implicitly, numbers without
/// narrowing, and bools only fit bools: passing `true` for an integer (or a
/// 300 held in an int for a uint8_t) is a bug the caller should hear about.
template <class Target, class Arg>
constexpr bool fits_input() {
    using A = std::remove_cvref_t<Arg>;
    if constexpr (std::is_same_v<A, bool> != std::is_same_v<Target, bool>) return false;
    else if constexpr (std::is_arithmetic_v<Target> && std::is_arithmetic_v<A>) return requires(const A& a) { Target{a}; };
    else return std::is_convertible_v<const A&, Target>;
}

template <class Tuple, class... Args>
struct inputs_fit : std::false_type {};
template <class... Targets, class... Args>
    requires(sizeof...(Targets) == sizeof...(Args))
struct inputs_fit<std::tuple<Targets...>, Args...> : std::bool_constant<(fits_input<Targets, Args>() && ...)> {};

/// One input set of a batch (session::run_batch): a std::tuple of a party's
/// inputs, or the value itself where the party owns one input. A tuple that
/// fits as the inputs is taken as them, else as a single value.
template <class Tuple, class Set>
struct set_fits_tuple : std::false_type {};
template <class Tuple, class... Args>
struct set_fits_tuple<Tuple, std::tuple<Args...>> : inputs_fit<Tuple, Args...> {};
template <class Tuple, class Set>
inline constexpr bool set_as_tuple = set_fits_tuple<Tuple, std::remove_cvref_t<Set>>::value;
template <class Tuple, class Set>
inline constexpr bool set_fits = set_as_tuple<Tuple, Set> || inputs_fit<Tuple, std::remove_cvref_t<Set>>::value;

/// The bits of one input value: one byte, 0 or 1, per bit. Not a
/// vector<bool>: the bits are secret, and setting a bit of a vector<bool>
/// branches on it (libstdc++'s bit reference), which the secret-independence
/// test reports (tests/secret_independence.cpp).
using input_bits = std::vector<std::uint8_t>;

template <party P, std::size_t J, class Tuple>
void encode_each(const Tuple&, std::vector<input_bits>&) {}

template <party P, std::size_t J, class First, class... Rest, class Tuple>
void encode_each(const Tuple& values, std::vector<input_bits>& bits) {
    if constexpr (First::owner == P) {
        using T = typename First::type;
        std::vector<std::uint64_t> words(value_traits<T>::bits);
        lane_cursor cur{words.data(), 0};
        value_traits<T>::encode(std::get<J>(values), cur);
        bits.emplace_back(words.begin(), words.end());
        encode_each<P, J + 1, Rest...>(values, bits);
    } else {
        encode_each<P, J, Rest...>(values, bits);
    }
}

/// The bits of each of P's input values, from the tuple of P's plain inputs.
template <party P, class... Inputs, class Tuple>
std::vector<input_bits> encode_inputs(const Tuple& values) {
    std::vector<input_bits> bits;
    encode_each<P, 0, Inputs...>(values, bits);
    return bits;
}

/// The result value from the bits of every output value.
template <class R>
plain_type_t<R> decode_outputs(const std::vector<std::vector<bool>>& values) {
    std::vector<std::uint64_t> words;
    for (const auto& value : values)
        for (bool b : value) words.push_back(b ? 1 : 0);
    const_lane_cursor cur{words.data(), 0};
    return value_traits<R>::decode(cur);
}

}  // namespace tandem::detail
