// The sequence applications of examples/stream_apps.hpp, in plaintext: the
// minimum with its index and the edit distance agree with their C++ references
// on random and edge inputs, read their inputs once each and in order, run on
// std::array, std::vector and std::span inputs, and cost exactly the ANDs the
// header derives.
#include <doctest/doctest.h>

#include "../examples/stream_apps.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <span>
#include <tuple>
#include <vector>

namespace stream_apps_tests {

namespace {

using tandem::party;

const std::initializer_list<std::uint64_t> seeds = {1, 2, 20261121, 0xC0FFEE};

template <std::size_t W>
using u = tandem::secure_uint<W>;

/// An indexable sequence that hands out its elements by value and records
/// whether they were read in order, each once (as a stream would require).
template <class T>
struct in_order_reader {
    std::span<const T> items;
    std::size_t* next;
    bool* in_order;
    std::size_t size() const { return items.size(); }
    T operator[](std::size_t i) const {
        if (i != (*next)++) *in_order = false;
        return items[i];
    }
};

// ---- minimum --------------------------------------------------------------------

template <std::size_t N>
using values_t = std::array<std::uint32_t, N>;

/// `count` random arrays of W-bit values below `bound` (a small bound makes ties).
template <std::size_t N, std::size_t W>
std::vector<std::tuple<values_t<N>>> random_value_sets(std::mt19937_64& rng, std::size_t count, std::uint64_t bound) {
    std::vector<std::tuple<values_t<N>>> sets(count);
    for (auto& [v] : sets)
        for (auto& x : v) x = static_cast<std::uint32_t>(rng() % bound & ((std::uint64_t{1} << W) - 1));
    return sets;
}

template <class Circuit, std::size_t N>
void check_minimum(const Circuit& c, const std::vector<std::tuple<values_t<N>>>& sets) {
    const auto results = c.eval_plain_batch(sets);
    REQUIRE(results.size() == sets.size());
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const auto& v = std::get<0>(sets[k]);
        const auto expected = apps::minimum_plain(v);
        const auto value = expected.first, index = expected.second;
        INFO("set " << k << ": expected min " << value << " at " << index);
        CHECK(std::get<0>(results[k]) == value);
        CHECK(std::get<1>(results[k]) == index);
    }
}

template <std::size_t N, std::size_t W = 20>
void minimum_random() {
    const auto c = apps::minimum_circuit<N, W>();
    CHECK(c.stats().and_gates == apps::minimum_with_index_ands(N, W));
    for (const std::uint64_t seed : seeds) {
        INFO("N = " << N << ", W = " << W << ", seed " << seed);
        std::mt19937_64 rng(seed);
        check_minimum(c, random_value_sets<N, W>(rng, 100, std::uint64_t{1} << W));  // mostly distinct
        check_minimum(c, random_value_sets<N, W>(rng, 64, 4));                       // many ties
        check_minimum(c, random_value_sets<N, W>(rng, 64, 1));                       // all equal (0)
    }
    // All equal to the largest value, descending, ascending, the minimum last.
    values_t<N> v;
    v.fill(static_cast<std::uint32_t>((std::uint64_t{1} << W) - 1));
    std::vector<std::tuple<values_t<N>>> edge{{v}};
    for (std::size_t i = 0; i < N; ++i) v[i] = static_cast<std::uint32_t>(N - i);
    edge.push_back({v});
    for (std::size_t i = 0; i < N; ++i) v[i] = static_cast<std::uint32_t>(i + 5);
    edge.push_back({v});
    v.fill(7);
    v[N - 1] = 6;
    edge.push_back({v});
    check_minimum(c, edge);
}

// ---- edit distance ---------------------------------------------------------------

template <std::size_t N>
using string_t = std::array<std::uint8_t, N>;

template <std::size_t N, std::size_t M>
using string_pair = std::tuple<string_t<N>, string_t<M>>;

template <std::size_t N>
string_t<N> random_string(std::mt19937_64& rng, std::uint8_t letters) {
    string_t<N> s;
    for (auto& x : s) x = static_cast<std::uint8_t>(rng() % letters);
    return s;
}

template <std::size_t N>
string_t<N> filled(std::uint8_t x) {
    string_t<N> s;
    s.fill(x);
    return s;
}

template <class Circuit, std::size_t N, std::size_t M>
void check_edit(const Circuit& c, const std::vector<string_pair<N, M>>& sets) {
    const auto results = c.eval_plain_batch(sets);
    REQUIRE(results.size() == sets.size());
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const auto& [a, b] = sets[k];
        INFO("set " << k);
        CHECK(results[k] == apps::edit_distance_plain(a, b));
    }
}

/// The grid alone (edit_distance_edge), its edge deltas as the outputs.
template <std::size_t N, std::size_t M, std::size_t Bits>
auto edit_grid_circuit() {
    constexpr std::size_t K = std::min(N, M);
    return tandem::compile(
        [](const std::array<u<Bits>, N>& a, const std::array<u<Bits>, M>& b) {
            const apps::edit_edge edge = apps::edit_distance_edge(a, b);
            std::array<tandem::secure_bit, 2 * K> bits;
            for (std::size_t k = 0; k < K; ++k) {
                bits[2 * k] = edge.deltas.at(k).neg;
                bits[2 * k + 1] = edge.deltas.at(k).pos;
            }
            return bits;
        },
        tandem::input<party::alice, std::array<u<Bits>, N>>, tandem::input<party::bob, std::array<u<Bits>, M>>);
}

template <std::size_t N, std::size_t M, std::size_t Bits>
void edit_random() {
    constexpr std::uint8_t letters = 1u << Bits;
    const auto c = apps::edit_distance_circuit<N, M, Bits>();
    const auto grid = edit_grid_circuit<N, M, Bits>();
    const std::uint64_t total = c.stats().and_gates, cells = grid.stats().and_gates;
    INFO("N = " << N << ", M = " << M << ", " << int{letters} << " letters: " << total << " ANDs, grid " << cells);
    CHECK(cells == apps::edit_distance_grid_ands(N, M, Bits - 1));
    const std::uint64_t count = total - cells;  // the final sum
    CHECK(count <= 2 * std::min(N, M) + std::bit_width(std::max(N, M)));
    if constexpr (N == M && N >= 2) CHECK(count == 2 * N - 1 - std::popcount(2 * N - 1));
    if constexpr (std::min(N, M) >= 8)  // independent cells fill a level
        CHECK(*std::ranges::max_element(c.stats().level_and_width) >= std::min(N, M));

    for (const std::uint64_t seed : seeds) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        std::vector<string_pair<N, M>> sets;
        for (int k = 0; k < 100; ++k) sets.push_back({random_string<N>(rng, letters), random_string<M>(rng, letters)});
        // Few letters used: long matches.
        for (int k = 0; k < 28; ++k) sets.push_back({random_string<N>(rng, 2), random_string<M>(rng, 2)});
        check_edit(c, sets);
    }
    std::vector<string_pair<N, M>> edge{
        {filled<N>(0), filled<M>(letters - 1)},  // nothing matches: max(n, m)
        {filled<N>(0), filled<M>(0)},            // |n - m|
        {filled<N>(1), filled<M>(0)},
    };
    std::mt19937_64 rng(N * 1000 + M);
    if constexpr (N == M) {
        const string_t<N> s = random_string<N>(rng, letters);
        string_t<N> r = s;
        std::ranges::reverse(r);
        edge.push_back({s, s});  // equal: 0
        edge.push_back({s, r});  // reversed
        string_t<N> t = s;
        t[N / 2] = static_cast<std::uint8_t>((t[N / 2] + 1) % letters);
        edge.push_back({s, t});  // one substitution: 1
    }
    check_edit(c, edge);
    CHECK(c.eval_plain(filled<N>(0), filled<M>(letters - 1)) == std::max(N, M));
    if constexpr (N == M) {
        CHECK(c.eval_plain(std::get<0>(edge[3]), std::get<1>(edge[3])) == 0);
        CHECK(c.eval_plain(std::get<0>(edge[5]), std::get<1>(edge[5])) == 1);
    }
}

}  // namespace

// ---- minimum --------------------------------------------------------------------

TEST_CASE("stream_apps.minimum.random") {
    minimum_random<1>();
    minimum_random<2>();
    minimum_random<3>();
    minimum_random<7>();
    minimum_random<64>();
    minimum_random<100>();
    minimum_random<1000>();
    minimum_random<9, 32>();  // the widest values the reference takes
}

TEST_CASE("stream_apps.minimum.ands") {
    // ME-SFE §4.2.4 sizes, by the formula; n = 1000 measured above.
    CHECK(apps::minimum_with_index_ands(1000, 20) == 40'951);
    CHECK(apps::minimum_with_index_ands(1000, 20) < 999 * (2 * 20 + 2));
    CHECK(apps::minimum_with_index_ands(1'000'000, 20) == 40'999'947);
    const auto c = apps::minimum_circuit<1000>();
    CHECK(c.stats().and_gates == 40'951);
    MESSAGE("minimum of 1000 20-bit values: " << c.stats().and_gates << " ANDs, AND depth " << c.stats().and_depth);
}

TEST_CASE("stream_apps.minimum.every_length") {
    // Every n up to 130 through a std::span over one input array: the AND
    // count and the results, so each shape of the final stack merge is covered.
    constexpr std::size_t cap = 130;
    std::mt19937_64 rng(7);
    const auto sets = random_value_sets<cap, 20>(rng, 64, 16);
    for (std::size_t n = 1; n <= cap; ++n) {
        INFO("n = " << n);
        const auto c = tandem::compile(
            [n](const std::array<u<20>, cap>& v) { return apps::minimum_with_index<20>(std::span(v.data(), n)); },
            tandem::input<party::alice, std::array<u<20>, cap>>);
        CHECK(c.stats().and_gates == apps::minimum_with_index_ands(n, 20));
        CHECK(c.stats().and_gates < (n - 1) * (2 * 20 + 2) + 1);
        const auto results = c.eval_plain_batch(sets);
        for (std::size_t k = 0; k < sets.size(); ++k) {
            const auto [value, index] = apps::minimum_plain(std::span(std::get<0>(sets[k]).data(), n));
            INFO("set " << k);
            CHECK(std::get<0>(results[k]) == value);
            CHECK(std::get<1>(results[k]) == index);
        }
    }
}

TEST_CASE("stream_apps.minimum.containers") {
    constexpr std::size_t N = 13;
    const values_t<N> v{9, 4, 8, 4, 12, 30, 4, 5, 6, 7, 3, 3, 11};
    const auto vec = tandem::compile(
        [](const std::array<u<20>, N>& a) {
            const std::vector<u<20>> values(a.begin(), a.end());
            return apps::minimum_with_index<20>(values);
        },
        tandem::input<party::alice, std::array<u<20>, N>>);
    CHECK(vec.eval_plain(v) == std::tuple<std::uint32_t, std::uint32_t>{3, 10});
    CHECK(vec.stats().and_gates == apps::minimum_with_index_ands(N, 20));

    std::size_t next = 0;
    bool in_order = true;
    const auto streamed = tandem::compile(
        [&](const std::array<u<20>, N>& a) {
            return apps::minimum_with_index<20>(in_order_reader<u<20>>{a, &next, &in_order});
        },
        tandem::input<party::alice, std::array<u<20>, N>>);
    CHECK(in_order);
    CHECK(next == N);
    CHECK(streamed.eval_plain(v) == std::tuple<std::uint32_t, std::uint32_t>{3, 10});

    // No values: a usage error, in the secure function and in the reference.
    const auto empty = [] {
        return tandem::compile(
            [](const std::array<u<20>, N>& a) { return apps::minimum_with_index<20>(std::span(a.data(), 0)); },
            tandem::input<party::alice, std::array<u<20>, N>>);
    };
    CHECK_THROWS_AS(empty(), tandem::usage_error);
    CHECK_THROWS_AS(apps::minimum_plain({}), tandem::usage_error);
}

// ---- edit distance ---------------------------------------------------------------

TEST_CASE("stream_apps.edit_distance.binary") {
    edit_random<1, 1, 1>();
    edit_random<1, 5, 1>();
    edit_random<5, 1, 1>();
    edit_random<8, 8, 1>();
    edit_random<13, 7, 1>();
    edit_random<32, 32, 1>();
    edit_random<64, 50, 1>();
}

TEST_CASE("stream_apps.edit_distance.four_letters") {
    edit_random<1, 1, 2>();
    edit_random<1, 5, 2>();
    edit_random<5, 1, 2>();
    edit_random<8, 8, 2>();
    edit_random<13, 7, 2>();
    edit_random<32, 32, 2>();
    edit_random<64, 50, 2>();
}

TEST_CASE("stream_apps.edit_distance.every_length") {
    // Every n, m in 0..12 through std::spans over one pair of input arrays, both
    // alphabets: results and the grid's AND count.
    const auto run = []<std::size_t Bits>() {
        constexpr std::size_t cap = 12;
        using sym = u<Bits>;
        constexpr std::uint8_t letters = 1u << Bits;
        std::mt19937_64 rng(11 + Bits);
        std::vector<string_pair<cap, cap>> sets;
        for (int k = 0; k < 64; ++k)
            sets.push_back({random_string<cap>(rng, letters), random_string<cap>(rng, letters)});
        for (std::size_t n = 0; n <= cap; ++n)
            for (std::size_t m = 0; m <= cap; ++m) {
                INFO(int{letters} << " letters, n = " << n << ", m = " << m);
                const auto c = tandem::compile(
                    [n, m](const std::array<sym, cap>& a, const std::array<sym, cap>& b) {
                        return apps::edit_distance(std::span(a.data(), n), std::span(b.data(), m));
                    },
                    tandem::input<party::alice, std::array<sym, cap>>, tandem::input<party::bob, std::array<sym, cap>>);
                const auto results = c.eval_plain_batch(sets);
                for (std::size_t k = 0; k < sets.size(); ++k) {
                    const auto& [a, b] = sets[k];
                    INFO("set " << k);
                    CHECK(results[k] == apps::edit_distance_plain(std::span(a.data(), n), std::span(b.data(), m)));
                }
                if (n == 0 || m == 0) {
                    CHECK(c.stats().and_gates == 0);
                    continue;
                }
                const auto grid = tandem::compile(
                    [n, m](const std::array<sym, cap>& a, const std::array<sym, cap>& b) {
                        const auto edge = apps::edit_distance_edge(std::span(a.data(), n), std::span(b.data(), m));
                        std::array<tandem::secure_bit, 24> bits{};  // 2 * cap
                        for (std::size_t k = 0; k < edge.deltas.size(); ++k) {
                            bits[2 * k] = edge.deltas[k].neg;
                            bits[2 * k + 1] = edge.deltas[k].pos;
                        }
                        return bits;
                    },
                    tandem::input<party::alice, std::array<sym, cap>>, tandem::input<party::bob, std::array<sym, cap>>);
                CHECK(grid.stats().and_gates == apps::edit_distance_grid_ands(n, m, Bits - 1));
                const std::uint64_t count = c.stats().and_gates - grid.stats().and_gates;
                CHECK(count <= 2 * std::min(n, m) + std::bit_width(std::max(n, m)));
            }
    };
    run.template operator()<1>();
    run.template operator()<2>();
}

TEST_CASE("stream_apps.edit_distance.containers") {
    constexpr std::size_t N = 9, M = 6;
    using sym = u<2>;
    const string_t<N> a{0, 1, 2, 3, 3, 2, 1, 0, 2};
    const string_t<M> b{1, 2, 3, 0, 0, 2};
    const std::uint32_t expected = apps::edit_distance_plain(a, b);
    const auto vec = tandem::compile(
        [](const std::array<sym, N>& x, const std::array<sym, M>& y) {
            const std::vector<sym> xs(x.begin(), x.end()), ys(y.begin(), y.end());
            return apps::edit_distance(xs, ys);
        },
        tandem::input<party::alice, std::array<sym, N>>, tandem::input<party::bob, std::array<sym, M>>);
    CHECK(vec.eval_plain(a, b) == expected);

    std::size_t next_a = 0, next_b = 0;
    bool in_order = true;
    const auto streamed = tandem::compile(
        [&](const std::array<sym, N>& x, const std::array<sym, M>& y) {
            return apps::edit_distance<16>(in_order_reader<sym>{x, &next_a, &in_order},
                                           in_order_reader<sym>{y, &next_b, &in_order});
        },
        tandem::input<party::alice, std::array<sym, N>>, tandem::input<party::bob, std::array<sym, M>>);
    CHECK(in_order);
    CHECK(next_a == N);
    CHECK(next_b == M);
    CHECK(streamed.eval_plain(a, b) == expected);
    CHECK(apps::edit_distance_plain(a, a) == 0);
    CHECK(apps::edit_distance_plain(a, {}) == N);
    CHECK(apps::edit_distance_plain({}, b) == M);

    // A distance too wide for its width is refused.
    const auto too_wide = [] {
        using bit_string = std::array<u<1>, 4>;
        return tandem::compile([](const bit_string& x, const bit_string& y) { return apps::edit_distance<2>(x, y); },
                               tandem::input<party::alice, bit_string>, tandem::input<party::bob, bit_string>);
    };
    CHECK_THROWS_AS(too_wide(), tandem::usage_error);
}

TEST_CASE("stream_apps.edit_distance.ands") {
    // Per cell, measured: a 20th row adds 4 ANDs for each of its 19 cells past
    // column 1 (its first cell costs 1, as the dead AND it moves down did).
    CHECK(edit_grid_circuit<20, 20, 1>().stats().and_gates - edit_grid_circuit<19, 20, 1>().stats().and_gates ==
          4 * 19);
    CHECK(edit_grid_circuit<20, 20, 2>().stats().and_gates - edit_grid_circuit<19, 20, 2>().stats().and_gates ==
          4 * 19 + 20);
    const auto big = apps::edit_distance_circuit<64, 64, 1>().stats();
    const std::uint32_t widest = *std::ranges::max_element(big.level_and_width);
    MESSAGE("edit distance 64 x 64, 2 letters: " << big.and_gates << " ANDs, AND depth " << big.and_depth
                                                 << ", widest level " << widest);
    // n = m = 4095 by the formulas (grid + count of 2n - 1 secret bits).
    constexpr std::uint64_t n = 4095;
    CHECK(apps::edit_distance_grid_ands(n, n, 0) == 67'039'249);
    CHECK(apps::edit_distance_grid_ands(n, n, 1) == 83'808'273);
    CHECK(2 * n - 1 - std::popcount(2 * n - 1) == 8'177);
}

}  // namespace stream_apps_tests
