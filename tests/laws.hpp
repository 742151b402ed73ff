// Shared harness of the "laws" suites: for one width N and signedness, one
// circuit computes every operator on two secure inputs; eval_plain of that
// circuit must equal the C++ operation on N bits, computed here on
// unsigned __int128 bit patterns.
#pragma once

#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace laws {

using u128 = tandem::uint128;
using i128 = tandem::int128;

template <std::size_t N>
constexpr u128 mask = N >= 128 ? ~u128{0} : (u128{1} << N) - 1;

/// The N-bit pattern p read as a two's-complement number.
template <std::size_t N>
constexpr i128 sext(u128 p) {
    p &= mask<N>;
    if (N < 128 && ((p >> (N - 1)) & 1u) != 0) p |= ~mask<N>;
    return static_cast<i128>(p);
}

/// The value C++ code sees for an N-bit result with pattern p, widened to 128 bits.
template <std::size_t N, bool S>
constexpr u128 as_value(u128 p) {
    return S ? static_cast<u128>(sext<N>(p)) : (p & mask<N>);
}

/// A plain output widened to 128 bits the same way.
template <class T>
constexpr u128 widen(T v) {
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else if constexpr (std::is_signed_v<T> || std::is_same_v<T, i128>) return static_cast<u128>(static_cast<i128>(v));
    else return static_cast<u128>(v);
}

inline std::string to_string(u128 v) {
    std::string s;
    do {
        s.insert(s.begin(), char('0' + int(v % 10)));
        v /= 10;
    } while (v != 0);
    return s;
}

template <std::size_t N, bool S>
using sint = tandem::secure_integer<N, S>;

/// Mask for a secure shift amount that keeps it mostly below 2N.
template <std::size_t N>
constexpr std::uint64_t small_amount_mask = 2 * std::bit_ceil(N) - 1;

/// The secure function under test: every operator at once.
template <std::size_t N, bool S>
auto all_ops(sint<N, S> a, sint<N, S> b) {
    using tandem::select;
    const auto k = b & small_amount_mask<N>;
    return std::tuple{a + b,          a - b,          a * b,          a / b,           a % b,
                      a & b,          a | b,          a ^ b,          a < b,           a <= b,
                      a > b,          a >= b,         a == b,         a != b,          min(a, b),
                      max(a, b),      select(b[0], a, b), a << b,     a >> b,          a << k,
                      a >> k,         -a,             ~a,             !a,              popcount(a),
                      abs(a.as_signed()).as_unsigned(), a << 1,       a >> 1,          a << (N - 1),
                      a >> (N - 1),   a << N,         a >> (N + 3),   a.msb(),         a * a};
}

inline const char* const op_names[] = {
    "a + b",  "a - b",  "a * b",  "a / b",  "a % b",  "a & b",  "a | b",      "a ^ b",      "a < b",
    "a <= b", "a > b",  "a >= b", "a == b", "a != b", "min",    "max",        "select",     "a << b",
    "a >> b", "a << k", "a >> k", "-a",     "~a",     "!a",     "popcount",   "abs",        "a << 1",
    "a >> 1", "a << N-1", "a >> N-1", "a << N", "a >> N+3", "msb",      "a * a"};

/// The C++ meaning of each entry of all_ops, as values widened to 128 bits.
template <std::size_t N, bool S>
std::array<u128, std::size(op_names)> reference(u128 a, u128 b) {
    a &= mask<N>;
    b &= mask<N>;
    const i128 sa = sext<N>(a), sb = sext<N>(b);
    auto v = [](u128 p) { return as_value<N, S>(p); };
    auto bit = [](bool x) { return u128{x ? 1u : 0u}; };
    auto shl = [&](u128 k) { return k >= N ? u128{0} : v(a << k); };
    auto shr = [&](u128 k) {
        if constexpr (S) return k >= N ? v(sa < 0 ? ~u128{0} : 0) : v(static_cast<u128>(sa >> static_cast<int>(k)));
        else return k >= N ? u128{0} : v(a >> k);
    };
    u128 q, r;
    if constexpr (S) {
        if (sb == 0) q = static_cast<u128>(sa >= 0 ? i128{-1} : i128{1}), r = a;
        else if (N == 128 && sb == -1) q = static_cast<u128>(0) - a, r = 0;  // __int128 would overflow
        else q = static_cast<u128>(sa / sb), r = static_cast<u128>(sa % sb);
    } else {
        if (b == 0) q = mask<N>, r = a;
        else q = a / b, r = a % b;
    }
    const bool lt = S ? sa < sb : a < b;
    const bool gt = S ? sa > sb : a > b;
    const u128 k = b & small_amount_mask<N>;
    int pop = 0;
    for (std::size_t i = 0; i < N; ++i) pop += int((a >> i) & 1u);
    const u128 absolute = (sa < 0 ? static_cast<u128>(0) - a : a) & mask<N>;
    return {v(a + b),      v(a - b),      v(a * b),   v(q),          v(r),
            v(a & b),      v(a | b),      v(a ^ b),   bit(lt),       bit(!gt),
            bit(gt),       bit(!lt),      bit(a == b), bit(a != b),  v(lt ? a : b),
            v(lt ? b : a), v((b & 1u) ? a : b), shl(b), shr(b),      shl(k),
            shr(k),        v(u128{0} - a), v(~a),     bit(a == 0),   u128(pop),
            absolute,      shl(1),        shr(1),     shl(N - 1),    shr(N - 1),
            shl(N),        shr(N + 3),    bit(((a >> (N - 1)) & 1u) != 0), v(a * a)};
}

/// Checks all_ops<N, S> on the given operand pairs (bit patterns).
template <std::size_t N, bool S>
void check_pairs(const std::vector<std::pair<u128, u128>>& pairs, std::uint64_t seed) {
    using A = sint<N, S>;
    static const auto c = tandem::compile(all_ops<N, S>, tandem::input<tandem::party::alice, A>,
                                          tandem::input<tandem::party::bob, A>);
    using plain = tandem::plain_type_t<A>;
    using input_tuple = typename std::remove_cvref_t<decltype(c)>::input_tuple;
    std::vector<input_tuple> sets;
    sets.reserve(pairs.size());
    for (auto [a, b] : pairs) sets.emplace_back(static_cast<plain>(a), static_cast<plain>(b));
    const auto outs = c.eval_plain_batch(sets);
    REQUIRE(outs.size() == pairs.size());
    std::size_t failures = 0;
    for (std::size_t i = 0; i < pairs.size() && failures < 10; ++i) {
        const auto expect = reference<N, S>(pairs[i].first, pairs[i].second);
        std::array<u128, std::size(op_names)> got{};
        std::apply([&](const auto&... o) {
            std::size_t j = 0;
            ((got[j++] = widen(o)), ...);
        }, outs[i]);
        for (std::size_t j = 0; j < got.size(); ++j) {
            if (got[j] == expect[j]) continue;
            ++failures;
            const std::string what = "N=" + std::to_string(N) + (S ? " signed " : " unsigned ") + op_names[j] +
                                     " with a=" + to_string(pairs[i].first) + " b=" + to_string(pairs[i].second) +
                                     ": got " + to_string(got[j]) + ", expected " + to_string(expect[j]) +
                                     " (seed " + std::to_string(seed) + ")";
            FAIL_CHECK(what);
        }
    }
    CHECK(failures == 0);
}

/// Every pair of N-bit patterns (N <= 8).
template <std::size_t N, bool S>
void check_exhaustive() {
    static_assert(N <= 8);
    std::vector<std::pair<u128, u128>> pairs;
    for (u128 a = 0; a < (u128{1} << N); ++a)
        for (u128 b = 0; b < (u128{1} << N); ++b) pairs.emplace_back(a, b);
    check_pairs<N, S>(pairs, 0);
}

/// `count` random pairs, one in eight drawn from edge values.
template <std::size_t N, bool S>
void check_random(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const u128 edges[] = {0, 1, 2, mask<N>, mask<N> - 1, mask<N> >> 1, (mask<N> >> 1) + 1, 3, 7};
    auto draw = [&]() -> u128 {
        if (rng() % 8 == 0) return edges[rng() % std::size(edges)] & mask<N>;
        return ((u128{rng()} << 64) | rng()) & mask<N>;
    };
    std::vector<std::pair<u128, u128>> pairs(count);
    for (auto& p : pairs) p = {draw(), draw()};
    check_pairs<N, S>(pairs, seed);
}

}  // namespace laws
