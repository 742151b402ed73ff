// Tests of lib/sort.hpp and lib/set_ops.hpp: the network sorts (0–1
// principle, exhaustively for small n), the secure sort equals std::sort in
// plaintext, garbled (1 and 2 threads, IPP) and streamed, AND counts, stable
// sorting of key/payload pairs, and the set-intersection cardinality.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/set_ops.hpp>
#include <tandem/lib/sort.hpp>
#include <tandem/tandem.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

namespace lib_sort_tests {

using namespace tandem;
using tandem::test::make_wiring;
using tandem::test::rethrow;
using tandem::test::two_party;
using tandem::test::with_threads;
using u32 = secure_uint<32>;

namespace {

std::size_t comparators(const sorting_network& net) {
    std::size_t n = 0;
    for (const auto& layer : net) n += layer.size();
    return n;
}

template <std::size_t N>
auto sort_circuit() {
    return compile(
        [](const std::array<u32, N>& v) {
            std::array<u32, N> out = v;
            sort(out);
            return out;
        },
        input<party::alice, std::array<u32, N>>);
}

template <std::size_t N>
std::vector<std::array<std::uint32_t, N>> random_arrays(std::mt19937_64& rng, std::size_t count) {
    std::vector<std::array<std::uint32_t, N>> sets(count);
    for (std::size_t k = 0; k < count; ++k) {
        // Every third set draws from 4 values, so ties are common.
        const std::uint32_t mask = k % 3 == 0 ? 3u : 0xffffffffu;
        for (auto& x : sets[k]) x = static_cast<std::uint32_t>(rng()) & mask;
    }
    return sets;
}

template <std::size_t N>
void check_sorts_like_std(std::uint64_t seed) {
    INFO("n = " << N << ", seed = " << seed);
    const auto c = sort_circuit<N>();
    std::mt19937_64 rng(seed);
    const auto sets = random_arrays<N>(rng, 130);
    std::vector<std::tuple<std::array<std::uint32_t, N>>> in;
    for (const auto& s : sets) in.emplace_back(s);
    const auto out = c.eval_plain_batch(in);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        auto expected = sets[k];
        std::sort(expected.begin(), expected.end());
        CHECK(out[k] == expected);
    }
}

}  // namespace

TEST_CASE("lib.sort.network_sorts_every_0_1_input") {
    // The 0–1 principle (Knuth 5.3.4, Theorem Z): a comparator network that
    // sorts every sequence of 0s and 1s sorts every sequence.
    for (std::size_t n = 0; n <= 18; ++n) {
        INFO("n = " << n);
        const sorting_network net = odd_even_merge_sort_network(n);
        for (const auto& layer : net) {  // each layer's comparators are disjoint
            std::vector<bool> used(n);
            for (const comparator& c : layer) {
                REQUIRE(c.lo < c.hi);
                REQUIRE(c.hi < n);
                CHECK(!used[c.lo]);
                CHECK(!used[c.hi]);
                used[c.lo] = used[c.hi] = true;
            }
        }
        bool all_sorted = true;
        for (std::uint32_t x = 0; x < (1u << n); ++x) {
            std::uint32_t v = x;
            for (const auto& layer : net)
                for (const comparator& c : layer) {
                    const std::uint32_t lo = (v >> c.lo) & 1u, hi = (v >> c.hi) & 1u;
                    if (lo > hi) v ^= (1u << c.lo) | (1u << c.hi);
                }
            // sorted: every 0 before every 1, i.e. v's ones are the top bits
            const unsigned ones = static_cast<unsigned>(std::popcount(v));
            const std::uint32_t want = ones == 0 ? 0 : static_cast<std::uint32_t>(((1ull << n) - 1) ^ ((1ull << (n - ones)) - 1));
            if (v != want) all_sorted = false;
        }
        CHECK(all_sorted);
    }
}

TEST_CASE("lib.sort.network_size") {
    // Batcher: (k² − k + 4)·2^(k−2) − 1 comparators in k(k+1)/2 layers on 2^k inputs.
    for (std::size_t k = 1; k <= 16; ++k) {
        INFO("k = " << k);
        const sorting_network net = odd_even_merge_sort_network(std::size_t{1} << k);
        CHECK(net.size() == k * (k + 1) / 2);
        const std::size_t expected = k == 1 ? 1 : (k * k - k + 4) * (std::size_t{1} << (k - 2)) - 1;
        CHECK(comparators(net) == expected);
    }
    CHECK(comparators(odd_even_merge_sort_network(1u << 16)) == 3'997'695);  // bitonic: 4,456,448
    CHECK(odd_even_merge_sort_network(0).empty());
    CHECK(odd_even_merge_sort_network(1).empty());
}

TEST_CASE("lib.sort.plaintext_equals_std_sort") {
    check_sorts_like_std<2>(11);
    check_sorts_like_std<3>(12);
    check_sorts_like_std<5>(13);
    check_sorts_like_std<16>(14);
    check_sorts_like_std<37>(15);
    check_sorts_like_std<64>(16);
}

TEST_CASE("lib.sort.and_counts_and_regions") {
    // 32-bit keys with operator<: 32 ANDs for the comparison, 32 for the swap.
    const auto c16 = sort_circuit<16>();
    CHECK(c16.stats().and_gates == 63 * 64);
    const auto c64 = sort_circuit<64>();
    CHECK(c64.stats().and_gates == 543 * 64);
    // One region per layer, each stored as one body.
    const auto& regions = c64.data().regions;
    REQUIRE(regions.size() == 21);
    for (const auto& r : regions) CHECK(r.bodies.size() == 1);
    // The same network without regions has the same gates.
    const auto flat = compile(
        [](const std::array<u32, 64>& v) {
            std::array<u32, 64> out = v;
            for (const auto& layer : odd_even_merge_sort_network(64))
                for (const comparator& cmp : layer) compare_exchange(out[cmp.lo], out[cmp.hi]);
            return out;
        },
        input<party::alice, std::array<u32, 64>>);
    CHECK(flat.stats().and_gates == c64.stats().and_gates);
    CHECK(flat.data().regions.empty());
}

TEST_CASE("lib.sort.descending_and_custom_order") {
    const auto c = compile(
        [](const std::array<secure_int<8>, 9>& v) {
            std::array<secure_int<8>, 9> down = v, by_abs = v;
            sort(down, descending{});
            sort(by_abs, [](const secure_int<8>& a, const secure_int<8>& b) { return abs(a) < abs(b); });
            return std::tuple{down, by_abs};
        },
        input<party::bob, std::array<secure_int<8>, 9>>);
    const std::array<std::int8_t, 9> in{5, -3, 0, 7, -7, 2, 2, -100, 1};
    const auto [down, by_abs] = c.eval_plain(in);
    std::array<std::int8_t, 9> want = in;
    std::sort(want.begin(), want.end(), std::greater<>());
    CHECK(down == want);
    for (std::size_t i = 1; i < by_abs.size(); ++i) CHECK(std::abs(int(by_abs[i - 1])) <= std::abs(int(by_abs[i])));
    std::multiset<int> before(in.begin(), in.end()), after(by_abs.begin(), by_abs.end());
    CHECK(before == after);
}

TEST_CASE("lib.sort.stable_sort_keeps_ties_in_order") {
    using entry = std::tuple<secure_uint<4>, secure_uint<8>>;  // key, payload
    constexpr std::size_t n = 23;
    const auto by_key = [](const entry& a, const entry& b) { return std::get<0>(a) < std::get<0>(b); };
    const auto c = compile(
        [&](const std::array<entry, n>& v) {
            std::array<entry, n> s = v;
            stable_sort(std::span<entry>(s), by_key);
            return s;
        },
        input<party::alice, std::array<entry, n>>);
    const std::uint64_t seed = 2026;
    INFO("seed = " << seed);
    std::mt19937_64 rng(seed);
    using plain_entry = std::tuple<std::uint8_t, std::uint8_t>;
    std::vector<std::tuple<std::array<plain_entry, n>>> sets(70);
    for (auto& [s] : sets)
        for (std::size_t i = 0; i < n; ++i)
            s[i] = {static_cast<std::uint8_t>(rng() % 5), static_cast<std::uint8_t>(i)};  // many ties
    const auto out = c.eval_plain_batch(sets);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        auto want = std::get<0>(sets[k]);
        std::stable_sort(want.begin(), want.end(),
                         [](const plain_entry& a, const plain_entry& b) { return std::get<0>(a) < std::get<0>(b); });
        CHECK(out[k] == want);
    }
}

TEST_CASE("lib.sort.garbled_equals_plaintext" * doctest::timeout(120)) {
    // Alice and Bob hold 20 values each; both learn the sorted union.
    constexpr std::size_t n = 20;
    const auto c = compile(
        [](const std::array<u32, n>& a, const std::array<u32, n>& b) {
            std::vector<u32> all(a.begin(), a.end());
            all.insert(all.end(), b.begin(), b.end());
            sort(all);
            std::array<u32, 2 * n> out;
            std::copy(all.begin(), all.end(), out.begin());
            return out;
        },
        input<party::alice, std::array<u32, n>>, input<party::bob, std::array<u32, n>>);
    std::mt19937_64 rng(77);
    std::array<std::uint32_t, n> a, b;
    for (auto& x : a) x = static_cast<std::uint32_t>(rng() % 1000);
    for (auto& x : b) x = static_cast<std::uint32_t>(rng() % 1000);
    const auto expected = c.eval_plain(a, b);
    CHECK(std::is_sorted(expected.begin(), expected.end()));
    for (const bool ipp : {false, true})
        for (const std::uint32_t threads : {1u, 2u}) {
            INFO("threads = " << threads << ", ipp = " << ipp);
            session_options o = with_threads(threads);
            o.ipp = ipp;
            o.ipp_min_ands = 0;
            std::array<std::uint32_t, 2 * n> got_a{}, got_b{};
            rethrow(two_party(make_wiring(threads - 1 + (ipp ? threads : 0)), o, o,
                              [&](session& s) { got_a = s.run(c, a); }, [&](session& s) { got_b = s.run(c, b); }));
            CHECK(got_a == expected);
            CHECK(got_b == expected);
        }
}

TEST_CASE("lib.sort.streamed_equals_compiled") {
    constexpr std::size_t n = 100;
    auto fn = tandem::stream(
        [](const sequence<u32>& xs) {
            std::vector<u32> v;
            for (std::size_t i = 0; i < xs.size(); ++i) v.push_back(xs[i]);
            sort(v);
            std::array<u32, n> out;
            std::copy(v.begin(), v.end(), out.begin());
            return out;
        },
        sequence_input<party::alice, u32>(n));
    fn.segment_ands = 2000;  // several segments
    std::mt19937_64 rng(5);
    std::vector<std::uint32_t> xs(n);
    for (auto& x : xs) x = static_cast<std::uint32_t>(rng());
    const auto got = fn.eval_plain(xs);
    std::vector<std::uint32_t> want = xs;
    std::sort(want.begin(), want.end());
    CHECK(std::vector<std::uint32_t>(got.begin(), got.end()) == want);
}

TEST_CASE("lib.psi_cardinality") {
    constexpr std::size_t na = 12, nb = 9;
    const auto c = compile([](const std::array<u32, na>& a, const std::array<u32, nb>& b) { return lib::psi_cardinality(a, b); },
                           input<party::alice, std::array<u32, na>>, input<party::bob, std::array<u32, nb>>);
    const std::uint64_t seed = 99;
    INFO("seed = " << seed);
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 40; ++round) {
        // distinct values within each set, drawn from a small range so the sets overlap
        std::set<std::uint32_t> sa, sb;
        while (sa.size() < na) sa.insert(static_cast<std::uint32_t>(rng() % 30));
        while (sb.size() < nb) sb.insert(static_cast<std::uint32_t>(rng() % 30));
        std::array<std::uint32_t, na> a;
        std::array<std::uint32_t, nb> b;
        std::copy(sa.begin(), sa.end(), a.begin());
        std::copy(sb.begin(), sb.end(), b.begin());
        std::shuffle(a.begin(), a.end(), rng);
        std::size_t common = 0;
        for (auto x : sb) common += sa.count(x);
        CHECK(c.eval_plain(a, b) == common);
    }
    // Garbled: Alice's and Bob's sets.
    const std::array<std::uint32_t, na> a{1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45};
    const std::array<std::uint32_t, nb> b{2, 5, 13, 14, 29, 30, 45, 46, 100};
    std::uint8_t got_a = 0, got_b = 0;
    rethrow(two_party(make_wiring(0), with_threads(1), with_threads(1), [&](session& s) { got_a = s.run(c, a); },
                      [&](session& s) { got_b = s.run(c, b); }));
    CHECK(got_a == 4);
    CHECK(got_b == 4);
}

}  // namespace lib_sort_tests
