// tandem/dsl/integer.hpp — secure_int<N> and secure_uint<N>.
//
// N-bit integers whose value is secret. Arithmetic wraps modulo 2^N like C++
// unsigned arithmetic (signed values are two's complement and wrap too — no
// undefined behaviour). Operands must have the same width and signedness;
// public C++ integers mix in freely and are folded while recording:
// `x + 5`, `x < 100`, `select(c, x, 0)`.
//
// A public divisor (a C++ integer, or a secure integer whose bits are all
// constants) picks the circuits of constant_divide.hpp, a public factor the
// shifts and adds of constant_multiply.hpp.
//
// Defined results where C++ has none: x / 0 and x % 0 (see divide.hpp),
// shifts by N or more (the fill, see shift.hpp), INT_MIN / -1 (wraps).
#pragma once

#include <tandem/dsl/arith.hpp>
#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/constant_divide.hpp>
#include <tandem/dsl/divide.hpp>
#include <tandem/dsl/multiply.hpp>
#include <tandem/dsl/popcount.hpp>
#include <tandem/dsl/shift.hpp>
#include <tandem/int128.hpp>

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace tandem {

template <std::size_t N, bool Signed>
class secure_integer;

/// An N-bit two's-complement secret integer.
template <std::size_t N>
using secure_int = secure_integer<N, true>;
/// An N-bit unsigned secret integer.
template <std::size_t N>
using secure_uint = secure_integer<N, false>;

/// A public C++ integer that may be mixed with secure integers (not bool).
template <class T>
concept public_integer = (std::integral<T> && !std::same_as<T, bool>) || std::same_as<T, int128> ||
                         std::same_as<T, uint128>;

namespace detail {
template <class T>
struct is_secure_integer : std::false_type {};
template <std::size_t N, bool S>
struct is_secure_integer<secure_integer<N, S>> : std::true_type {};
}  // namespace detail

template <class T>
concept secure_integral = detail::is_secure_integer<std::remove_cvref_t<T>>::value;

/// An N-bit secret integer, two's complement when Signed; used through the
/// aliases `secure_int<N>` and `secure_uint<N>`. It holds wire references of
/// the enclosing compile or streamed run, and its operators record gates;
/// arithmetic wraps modulo 2^N (see the top of this header).
template <std::size_t N, bool Signed>
class secure_integer {
    static_assert(N >= 1, "secure_int<N>/secure_uint<N>: N must be at least 1");

public:
    static constexpr std::size_t width = N;
    static constexpr bool is_signed = Signed;
    using bits_type = std::array<detail::wire_ref, N>;

    /// Public zero.
    constexpr secure_integer() noexcept { bits_.fill(detail::false_ref); }

    /// A public constant, reduced modulo 2^N (two's complement), like a C++ conversion.
    template <public_integer T>
    constexpr secure_integer(T value) noexcept {  // NOLINT: public constants mix in implicitly
        using wide = std::conditional_t<detail::is_signed_integer_v<T>, int128, uint128>;
        const wide v = static_cast<wide>(value);
        const bool negative = detail::is_signed_integer_v<T> && v < 0;
        for (std::size_t i = 0; i < N; ++i)
            bits_[i] = detail::constant_ref(i < 128 ? ((static_cast<uint128>(v) >> i) & 1u) != 0 : negative);
    }

    /// For tandem's own use: wraps recorded wires.
    secure_integer(const bits_type& bits, std::uint32_t owner) : bits_(bits), owner_(owner) {
        detail::track_value(link_, bits_.data(), N, owner_);
    }
    /// A copy: the same wires (no gates).
    secure_integer(const secure_integer& o) noexcept : bits_(o.bits_), owner_(o.owner_) {
        link_.follow(o.link_, bits_.data(), N);
    }
    secure_integer& operator=(const secure_integer& o) noexcept {
        bits_ = o.bits_;
        owner_ = o.owner_;
        link_.follow(o.link_, bits_.data(), N);
        return *this;
    }
    ~secure_integer() = default;

    const bits_type& bits() const noexcept { return bits_; }
    std::uint32_t owner() const noexcept { return owner_; }
    /// True if every bit is a public constant.
    bool is_public() const noexcept {
        for (auto r : bits_)
            if (!r.is_constant()) return false;
        return true;
    }

    /// Bit i (0 = least significant) as a secure_bit; i must be < N.
    secure_bit operator[](std::size_t i) const { return {bits_[checked(i)], owner_}; }
    secure_bit bit(std::size_t i) const { return (*this)[i]; }
    /// Replaces bit i with b.
    void set_bit(std::size_t i, const secure_bit& b) {
        owner_ = detail::join_owner(owner_, b.owner());
        bits_[checked(i)] = b.ref();
        if (!b.is_public()) detail::track_value(link_, bits_.data(), N, owner_);
    }
    /// The most significant bit: the sign of a secure_int.
    secure_bit msb() const { return {bits_[N - 1], owner_}; }

    /// Sign extension (secure_int) or zero extension (secure_uint) to M bits, or truncation.
    template <std::size_t M>
    secure_integer<M, Signed> resize() const {
        typename secure_integer<M, Signed>::bits_type out;
        for (std::size_t i = 0; i < M; ++i) out[i] = i < N ? bits_[i] : (Signed ? bits_[N - 1] : detail::false_ref);
        return {out, owner_};
    }
    /// The same bits read as two's complement / as unsigned.
    secure_integer<N, true> as_signed() const { return {bits_, owner_}; }
    /// The same bits read as unsigned.
    secure_integer<N, false> as_unsigned() const { return {bits_, owner_}; }

    template <class T>
    secure_integer& operator+=(const T& b) { return *this = *this + b; }
    template <class T>
    secure_integer& operator-=(const T& b) { return *this = *this - b; }
    template <class T>
    secure_integer& operator*=(const T& b) { return *this = *this * b; }
    template <class T>
    secure_integer& operator/=(const T& b) { return *this = *this / b; }
    template <class T>
    secure_integer& operator%=(const T& b) { return *this = *this % b; }
    template <class T>
    secure_integer& operator&=(const T& b) { return *this = *this & b; }
    template <class T>
    secure_integer& operator|=(const T& b) { return *this = *this | b; }
    template <class T>
    secure_integer& operator^=(const T& b) { return *this = *this ^ b; }
    template <class T>
    secure_integer& operator<<=(const T& k) { return *this = *this << k; }
    template <class T>
    secure_integer& operator>>=(const T& k) { return *this = *this >> k; }

private:
    static std::size_t checked(std::size_t i) {
        if (i >= N)
            throw usage_error("secure integer bit index " + std::to_string(i) + " is out of range for a " +
                              std::to_string(N) + "-bit value");
        return i;
    }

    bits_type bits_;
    std::uint32_t owner_ = 0;
    detail::live_link link_;
};

namespace detail {

/// The secure type two operands of a binary operator combine into.
template <class A, class B>
struct common_integer;
template <std::size_t N, bool S, std::size_t M, bool T>
struct common_integer<secure_integer<N, S>, secure_integer<M, T>> {
    static_assert(N == M, "secure_int<N> op secure_int<M>: widths differ; use resize<N>() on one operand");
    static_assert(S == T, "secure_int<N> op secure_uint<N>: signedness differs; use as_signed() or as_unsigned()");
    using type = secure_integer<N, S>;
};
template <std::size_t N, bool S, public_integer P>
struct common_integer<secure_integer<N, S>, P> {
    using type = secure_integer<N, S>;
};
template <std::size_t N, bool S, public_integer P>
struct common_integer<P, secure_integer<N, S>> {
    using type = secure_integer<N, S>;
};

template <class A, class B>
concept integer_operands = (secure_integral<A> && (secure_integral<B> || public_integer<B>)) ||
                           (public_integer<A> && secure_integral<B>);

/// Applies f(builder, a_bits, b_bits, out_bits) to two operands promoted to their common type.
template <class A, class B, class F>
auto binary(const A& a, const B& b, F&& f) {
    using R = typename common_integer<A, B>::type;
    const R x(a), y(b);
    const std::uint32_t o = join_owner(x.owner(), y.owner());
    typename R::bits_type out;
    f(builder_for(o), bits_in(x.bits()), bits_in(y.bits()), bits_out(out));
    return R(out, o);
}

/// Applies f(builder, a_bits, b_bits) -> wire_ref to two promoted operands.
template <class A, class B, class F>
secure_bit predicate(const A& a, const B& b, F&& f) {
    using R = typename common_integer<A, B>::type;
    const R x(a), y(b);
    const std::uint32_t o = join_owner(x.owner(), y.owner());
    return secure_bit(f(builder_for(o), bits_in(x.bits()), bits_in(y.bits())), o);
}

}  // namespace detail

// ---- arithmetic -------------------------------------------------------------

/// a + b modulo 2^N: n - 1 ANDs. Operands of one type, or one secure and one public.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator+(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        detail::add(bld, x, y, detail::false_ref, out);
    });
}

/// a - b modulo 2^N: n - 1 ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator-(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) { detail::sub(bld, x, y, out); });
}

/// a · b modulo 2^N: schoolbook or Karatsuba (dsl/multiply.hpp); a public factor
/// becomes shifts and adds (dsl/constant_multiply.hpp).
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator*(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        detail::multiply_truncated(bld, x, y, out);
    });
}

/// a / b, truncated like C++; x / 0 is defined (dsl/divide.hpp); a public divisor
/// uses dsl/constant_divide.hpp.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator/(const A& a, const B& b) {
    using R = typename detail::common_integer<A, B>::type;
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        detail::divide(bld, x, y, R::is_signed, out, {});
    });
}

/// a % b with the sign of a, like C++; x % 0 = x (dsl/divide.hpp).
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator%(const A& a, const B& b) {
    using R = typename detail::common_integer<A, B>::type;
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        detail::divide(bld, x, y, R::is_signed, {}, out);
    });
}

/// -a modulo 2^N.
template <std::size_t N, bool S>
secure_integer<N, S> operator-(const secure_integer<N, S>& a) {
    typename secure_integer<N, S>::bits_type out;
    detail::negate(detail::builder_for(a.owner()), a.bits(), out);
    return {out, detail::result_owner(a.owner())};
}

/// +a: a itself.
template <std::size_t N, bool S>
secure_integer<N, S> operator+(const secure_integer<N, S>& a) {
    return a;
}

// ---- bitwise ----------------------------------------------------------------

/// Bitwise complement: free.
template <std::size_t N, bool S>
secure_integer<N, S> operator~(const secure_integer<N, S>& a) {
    typename secure_integer<N, S>::bits_type out;
    for (std::size_t i = 0; i < N; ++i) out[i] = ~a.bits()[i];
    return {out, a.owner()};
}

/// Bitwise and: one AND per bit that is not a public constant.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator&(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = bld.and_(x[i], y[i]);
    });
}

/// Bitwise or: one AND per bit that is not a public constant.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator|(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = bld.or_(x[i], y[i]);
    });
}

/// Bitwise exclusive or: free.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto operator^(const A& a, const B& b) {
    return detail::binary(a, b, [](detail::builder& bld, auto x, auto y, auto out) {
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = bld.xor_(x[i], y[i]);
    });
}

// ---- shifts -----------------------------------------------------------------

namespace detail {
template <std::size_t N, bool S>
constexpr shift_dir right_shift_of() {
    return S ? shift_dir::right_arithmetic : shift_dir::right_logical;
}
template <std::size_t N, bool S>
secure_integer<N, S> shift_by_public(const secure_integer<N, S>& a, std::uint64_t k, shift_dir dir) {
    typename secure_integer<N, S>::bits_type out;
    shift_public(a.bits(), k, dir, out);
    return {out, a.owner()};
}
template <std::size_t N, bool S, std::size_t M, bool T>
secure_integer<N, S> shift_by_secure(const secure_integer<N, S>& a, const secure_integer<M, T>& k, shift_dir dir) {
    const std::uint32_t o = join_owner(a.owner(), k.owner());
    typename secure_integer<N, S>::bits_type out;
    shift_secure(builder_for(o), a.bits(), k.bits(), dir, out);
    return {out, o};
}
template <public_integer T>
std::uint64_t shift_amount(T k) {
    if constexpr (detail::is_signed_integer_v<T>)
        if (k < 0) throw usage_error("secure integer shifted by a negative public amount");
    constexpr std::uint64_t cap = std::uint64_t{1} << 32;  // any amount >= N gives the fill
    return static_cast<uint128>(k) > cap ? cap : static_cast<std::uint64_t>(k);
}
}  // namespace detail

/// Shift by a public amount: free (wires are renamed). Amounts >= N give the fill.
template <std::size_t N, bool S, public_integer T>
secure_integer<N, S> operator<<(const secure_integer<N, S>& a, T k) {
    return detail::shift_by_public(a, detail::shift_amount(k), detail::shift_dir::left);
}
/// Right shift by a public amount: free; arithmetic for secure_int, logical
/// for secure_uint. Amounts >= N give the fill.
template <std::size_t N, bool S, public_integer T>
secure_integer<N, S> operator>>(const secure_integer<N, S>& a, T k) {
    return detail::shift_by_public(a, detail::shift_amount(k), detail::right_shift_of<N, S>());
}
/// Shift by a secret amount (read as unsigned): a barrel shifter.
template <std::size_t N, bool S, std::size_t M, bool T>
secure_integer<N, S> operator<<(const secure_integer<N, S>& a, const secure_integer<M, T>& k) {
    return detail::shift_by_secure(a, k, detail::shift_dir::left);
}
/// Right shift by a secret amount (read as unsigned): a barrel shifter.
template <std::size_t N, bool S, std::size_t M, bool T>
secure_integer<N, S> operator>>(const secure_integer<N, S>& a, const secure_integer<M, T>& k) {
    return detail::shift_by_secure(a, k, detail::right_shift_of<N, S>());
}

// ---- comparisons ------------------------------------------------------------

/// a < b, signed or unsigned as the operands are: n ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator<(const A& a, const B& b) {
    using R = typename detail::common_integer<A, B>::type;
    return detail::predicate(a, b, [](detail::builder& bld, auto x, auto y) {
        return detail::less_than(bld, x, y, R::is_signed);
    });
}
/// a > b: n ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator>(const A& a, const B& b) {
    return b < a;
}
/// a <= b: n ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator<=(const A& a, const B& b) {
    return !(b < a);
}
/// a >= b: n ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator>=(const A& a, const B& b) {
    return !(a < b);
}
/// a == b: n - 1 ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator==(const A& a, const B& b) {
    return detail::predicate(a, b, [](detail::builder& bld, auto x, auto y) { return detail::equal(bld, x, y); });
}
/// a != b: n - 1 ANDs.
template <class A, class B>
    requires detail::integer_operands<A, B>
secure_bit operator!=(const A& a, const B& b) {
    return !(a == b);
}

/// !x is x == 0, like C++.
template <std::size_t N, bool S>
secure_bit operator!(const secure_integer<N, S>& a) {
    return a == 0;
}

// ---- selection and friends --------------------------------------------------

/// c ? a : b, N ANDs. Either branch may be a public constant.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto select(const secure_bit& c, const A& a, const B& b) {
    using R = typename detail::common_integer<A, B>::type;
    const R x(a), y(b);
    const std::uint32_t o = detail::join_owner(c.owner(), detail::join_owner(x.owner(), y.owner()));
    typename R::bits_type out;
    detail::mux(detail::builder_for(o), c.ref(), x.bits(), y.bits(), out);
    return R(out, o);
}

/// The smaller of two secure integers (or one and a public constant): one
/// comparison and one mux.
template <class A, class B>
    requires detail::integer_operands<A, B>
auto min(const A& a, const B& b) {
    return select(b < a, b, a);
}
/// The larger of two secure integers (or one and a public constant).
template <class A, class B>
    requires detail::integer_operands<A, B>
auto max(const A& a, const B& b) {
    return select(a < b, b, a);
}

/// |a| (N-1 ANDs); like C++ on N bits, abs(INT_MIN) wraps to INT_MIN.
template <std::size_t N>
secure_int<N> abs(const secure_int<N>& a) {
    typename secure_int<N>::bits_type out;
    detail::absolute(detail::builder_for(a.owner()), a.bits(), out);
    return {out, detail::result_owner(a.owner())};
}

/// Number of set bits, as a secure_uint wide enough to hold N (ℓ - h(ℓ) ANDs).
template <std::size_t N, bool S>
secure_uint<std::bit_width(N)> popcount(const secure_integer<N, S>& a) {
    typename secure_uint<std::bit_width(N)>::bits_type out;
    detail::popcount(detail::builder_for(a.owner()), a.bits(), out);
    return {out, detail::result_owner(a.owner())};
}

/// The bits of `hi` above the bits of `lo`, as an unsigned integer.
template <std::size_t NH, bool SH, std::size_t NL, bool SL>
secure_uint<NH + NL> concat(const secure_integer<NH, SH>& hi, const secure_integer<NL, SL>& lo) {
    typename secure_uint<NH + NL>::bits_type out;
    for (std::size_t i = 0; i < NL; ++i) out[i] = lo.bits()[i];
    for (std::size_t i = 0; i < NH; ++i) out[NL + i] = hi.bits()[i];
    return {out, detail::join_owner(hi.owner(), lo.owner())};
}

/// A one-bit unsigned integer holding b, for arithmetic on bits (resize it further).
inline secure_uint<1> to_uint(const secure_bit& b) { return {{b.ref()}, b.owner()}; }

}  // namespace tandem
