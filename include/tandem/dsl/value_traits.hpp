// tandem/dsl/value_traits.hpp — how secure values map to circuit bits and to plain C++ values.
//
// Every type usable as an input or output of a secure function has a
// value_traits specialisation: secure_bit, secure_int<N>, secure_uint<N>,
// std::array of them, std::tuple of them, and user structs adapted with
// Boost.Hana (BOOST_HANA_DEFINE_STRUCT / BOOST_HANA_ADAPT_STRUCT).
//
// Plain types (what eval_plain takes and returns):
//   secure_bit                  -> bool
//   secure_int<N>, N <= 64      -> the smallest of std::int8/16/32/64_t holding N bits,
//                                  sign-extended from bit N-1 (secure_int<1> is 0 or -1)
//   secure_uint<N>, N <= 64     -> the smallest of std::uint8/16/32/64_t; only the low N
//                                  bits of a plain input are used
//   N in 65..128                -> tandem::int128 / tandem::uint128 (__int128), likewise
//   N > 128                     -> tandem::wide_int<N> / wide_uint<N> (plain/wide.hpp)
//   std::array<T, K>            -> std::array<plain of T, K>
//   std::tuple<T...>            -> std::tuple<plain of T...>
//   Hana struct S               -> tandem::plain_struct<S>::type, by default
//                                  std::tuple<plain of each member...>; specialise
//                                  plain_struct<S> to name your own Hana struct with
//                                  the same members in the same order.
// Bits are laid out in declaration order, least significant bit first.
//
// Besides make (bits -> secure value) and decode (bits -> plain value), each
// specialisation has in-place forms, assign and decode_into, that fill an
// existing object: tandem uses those for inputs and results it keeps on the
// heap, since an array of a million secure values returned by value would
// sit on the stack (dozens of MB) on its way there.
#pragma once

#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/int128.hpp>
#include <tandem/plain/wide.hpp>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/members.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tandem {

template <class T, class Enable = void>
struct value_traits;  // undefined: T is not a secure value type

/// Name the plain counterpart of a Hana-adapted secure struct S by specialising this.
template <class S>
struct plain_struct;

/// The plain C++ type of secure value type T: bool, an integer, `wide_int<N>`,
/// or arrays, tuples and structs of them.
template <class T>
using plain_type_t = typename value_traits<std::remove_cvref_t<T>>::plain_type;

namespace detail {

/// Cursor over the lanes of consecutive bits: bit k of value-set `lane` lives
/// in bit `lane` of words[k].
struct lane_cursor {
    std::uint64_t* words;
    unsigned lane;
    void put(bool b) { *words++ |= std::uint64_t{b} << lane; }
};
struct const_lane_cursor {
    const std::uint64_t* words;
    unsigned lane;
    bool get() { return ((*words++ >> lane) & 1u) != 0; }
};

/// Cursor over the wires of consecutive bits while building or reading values.
struct ref_cursor {
    wire_ref* refs;
    std::uint32_t owner;
};

template <std::size_t N, bool S>
struct plain_integer {
    using type = std::conditional_t<
        (N <= 8), std::conditional_t<S, std::int8_t, std::uint8_t>,
        std::conditional_t<
            (N <= 16), std::conditional_t<S, std::int16_t, std::uint16_t>,
            std::conditional_t<
                (N <= 32), std::conditional_t<S, std::int32_t, std::uint32_t>,
                std::conditional_t<(N <= 64), std::conditional_t<S, std::int64_t, std::uint64_t>,
                                   std::conditional_t<(N <= 128), std::conditional_t<S, int128, uint128>,
                                                      wide_integer<N, S>>>>>>;
};

template <class T>
concept hana_struct = boost::hana::Struct<T>::value;

template <class S>
concept has_plain_struct = requires { typename plain_struct<S>::type; };

}  // namespace detail

template <>
struct value_traits<secure_bit> {
    static constexpr std::size_t bits = 1;
    using plain_type = bool;
    static secure_bit make(detail::ref_cursor& c) { return {*c.refs++, c.owner}; }
    static void assign(secure_bit& v, detail::ref_cursor& c) { v = make(c); }
    static void collect(const secure_bit& v, detail::ref_cursor& c) {
        c.owner = detail::join_owner(c.owner, v.owner());
        *c.refs++ = v.ref();
    }
    static void encode(bool p, detail::lane_cursor& c) { c.put(p); }
    static bool decode(detail::const_lane_cursor& c) { return c.get(); }
    static void decode_into(bool& p, detail::const_lane_cursor& c) { p = c.get(); }
};

template <std::size_t N, bool S>
struct value_traits<secure_integer<N, S>> {
    static constexpr std::size_t bits = N;
    using plain_type = typename detail::plain_integer<N, S>::type;
    using secure_type = secure_integer<N, S>;

    static secure_type make(detail::ref_cursor& c) {
        typename secure_type::bits_type b;
        for (std::size_t i = 0; i < N; ++i) b[i] = *c.refs++;
        return {b, c.owner};
    }
    static void assign(secure_type& v, detail::ref_cursor& c) { v = make(c); }
    static void collect(const secure_type& v, detail::ref_cursor& c) {
        c.owner = detail::join_owner(c.owner, v.owner());
        for (std::size_t i = 0; i < N; ++i) *c.refs++ = v.bits()[i];
    }
    static void encode(const plain_type& p, detail::lane_cursor& c) {
        for (std::size_t i = 0; i < N; ++i) {
            if constexpr (N <= 128) c.put(((static_cast<uint128>(p) >> i) & 1u) != 0);
            else c.put(p.bit(i));
        }
    }
    static plain_type decode(detail::const_lane_cursor& c) {
        if constexpr (N <= 128) {
            uint128 v = 0;
            for (std::size_t i = 0; i < N; ++i) v |= static_cast<uint128>(c.get()) << i;
            if constexpr (S && N < 128)  // sign-extend from bit N-1
                if ((v >> (N - 1)) & 1u) v |= ~static_cast<uint128>(0) << N;
            return static_cast<plain_type>(v);
        } else {
            plain_type v{};
            for (std::size_t i = 0; i < N; ++i) v.set_bit(i, c.get());
            return v;
        }
    }
    static void decode_into(plain_type& p, detail::const_lane_cursor& c) { p = decode(c); }
};

template <class T, std::size_t K>
struct value_traits<std::array<T, K>> {
    using elem = value_traits<T>;
    static constexpr std::size_t bits = elem::bits * K;
    using plain_type = std::array<typename elem::plain_type, K>;

    static std::array<T, K> make(detail::ref_cursor& c) {
        std::array<T, K> v;
        assign(v, c);
        return v;
    }
    static void assign(std::array<T, K>& v, detail::ref_cursor& c) {
        for (auto& e : v) elem::assign(e, c);
    }
    static void collect(const std::array<T, K>& v, detail::ref_cursor& c) {
        for (const auto& e : v) elem::collect(e, c);
    }
    static void encode(const plain_type& p, detail::lane_cursor& c) {
        for (const auto& e : p) elem::encode(e, c);
    }
    static plain_type decode(detail::const_lane_cursor& c) {
        plain_type p;
        decode_into(p, c);
        return p;
    }
    static void decode_into(plain_type& p, detail::const_lane_cursor& c) {
        for (auto& e : p) elem::decode_into(e, c);
    }
};

template <class... Ts>
struct value_traits<std::tuple<Ts...>> {
    static constexpr std::size_t bits = (value_traits<Ts>::bits + ... + 0);
    using plain_type = std::tuple<typename value_traits<Ts>::plain_type...>;

    static std::tuple<Ts...> make(detail::ref_cursor& c) { return std::tuple<Ts...>{value_traits<Ts>::make(c)...}; }
    static void assign(std::tuple<Ts...>& v, detail::ref_cursor& c) {
        std::apply([&](auto&... e) { (value_traits<Ts>::assign(e, c), ...); }, v);  // in order
    }
    static void collect(const std::tuple<Ts...>& v, detail::ref_cursor& c) {
        std::apply([&](const auto&... e) { (value_traits<std::remove_cvref_t<decltype(e)>>::collect(e, c), ...); }, v);
    }
    static void encode(const plain_type& p, detail::lane_cursor& c) {
        std::apply([&](const auto&... e) { (value_traits<Ts>::encode(e, c), ...); }, p);
    }
    static plain_type decode(detail::const_lane_cursor& c) {
        // Braced initialisation evaluates left to right.
        return plain_type{value_traits<Ts>::decode(c)...};
    }
    static void decode_into(plain_type& p, detail::const_lane_cursor& c) {
        std::apply([&](auto&... e) { (value_traits<Ts>::decode_into(e, c), ...); }, p);  // in order
    }
};

namespace detail {
/// The member types of a Hana struct, as a pack.
template <class HanaTuple>
struct member_types;
template <class... Ms>
struct member_types<boost::hana::tuple<Ms...>> {
    static constexpr std::size_t bits = (value_traits<Ms>::bits + ... + std::size_t{0});
    using default_plain = std::tuple<typename value_traits<Ms>::plain_type...>;
    using traits = std::tuple<std::type_identity<value_traits<Ms>>...>;
};
template <class S>
using struct_members = member_types<std::remove_cvref_t<decltype(boost::hana::members(std::declval<S>()))>>;

template <class S, bool Named = has_plain_struct<S>>
struct struct_plain {
    using type = typename struct_members<S>::default_plain;
};
template <class S>
struct struct_plain<S, true> {
    using type = typename plain_struct<S>::type;
};
}  // namespace detail

template <detail::hana_struct S>
struct value_traits<S> {
    static constexpr std::size_t bits = detail::struct_members<S>::bits;
    using plain_type = typename detail::struct_plain<S>::type;

    static S make(detail::ref_cursor& c) {
        S v{};
        assign(v, c);
        return v;
    }
    static void assign(S& v, detail::ref_cursor& c) {
        boost::hana::for_each(boost::hana::accessors<S>(), [&](auto p) {
            auto& m = boost::hana::second(p)(v);
            value_traits<std::remove_cvref_t<decltype(m)>>::assign(m, c);
        });
    }
    static void collect(const S& v, detail::ref_cursor& c) {
        boost::hana::for_each(boost::hana::accessors<S>(), [&](auto p) {
            const auto& m = boost::hana::second(p)(v);
            value_traits<std::remove_cvref_t<decltype(m)>>::collect(m, c);
        });
    }
    static void encode(const plain_type& pv, detail::lane_cursor& c) {
        for_each_plain(pv, [&](auto tag, const auto& m) { decltype(tag)::type::encode(m, c); });
    }
    static plain_type decode(detail::const_lane_cursor& c) {
        plain_type pv{};
        decode_into(pv, c);
        return pv;
    }
    static void decode_into(plain_type& pv, detail::const_lane_cursor& c) {
        for_each_plain(pv, [&](auto tag, auto& m) { decltype(tag)::type::decode_into(m, c); });
    }

private:
    using secure_members = typename detail::struct_members<S>::traits;

    /// The members of a plain value, as a tuple of references.
    template <class P>
    static auto plain_members(P& pv) {
        if constexpr (detail::has_plain_struct<S>)
            return boost::hana::unpack(boost::hana::accessors<std::remove_const_t<P>>(),
                                       [&](auto... a) { return std::tie(boost::hana::second(a)(pv)...); });
        else
            return std::apply([](auto&... m) { return std::tie(m...); }, pv);
    }

    /// Calls f(type_identity<value_traits<member>>, plain member) for each member in order.
    template <class P, class F>
    static void for_each_plain(P& pv, F&& f) {
        auto members = plain_members(pv);
        static_assert(std::tuple_size_v<decltype(members)> == std::tuple_size_v<secure_members>,
                      "plain_struct<S>::type must have as many members as S, in the same order");
        apply_members(members, f, std::make_index_sequence<std::tuple_size_v<secure_members>>{});
    }
    // (A named function: GCC 12 crashes on a templated lambda here.)
    template <class M, class F, std::size_t... I>
    static void apply_members(M& members, F& f, std::index_sequence<I...>) {
        (f(std::tuple_element_t<I, secure_members>{}, std::get<I>(members)), ...);
    }
};

}  // namespace tandem
