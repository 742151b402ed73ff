// Streamed runs in plaintext (dsl/stream.hpp): a function run segment by
// segment gives what the same function compiled gives, and what plain C++
// gives, for every segment size down to one AND; values opened in the middle
// steer the rest; regions work inside a stream; the label array stays
// bounded while the function grows; misuse is a usage_error.
#include <doctest/doctest.h>

#include "../examples/stream_apps.hpp"
#include "exception_text.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace stream_tests {

namespace {

using tandem::party;

/// what() of the exception f throws ("" if none).
template <class F>
std::string thrown_by(F&& f) {
    try {
        f();
    } catch (...) {
        return message_of(std::current_exception());
    }
    return "";
}
template <std::size_t W>
using u = tandem::secure_uint<W>;

constexpr std::size_t n_values = 40;
const std::initializer_list<std::uint64_t> segment_sizes = {1, 3, 17, 100, 1000, tandem::default_segment_ands};

/// A function that mixes what a stream must handle: carried accumulators,
/// values read from two sequences, a parallel_for and a reduce over a window,
/// complemented bits, and constants. Works on any indexable Seq.
template <class SeqA, class SeqB>
std::tuple<u<16>, u<16>, tandem::secure_bit> mix(const SeqA& a, const SeqB& b) {
    u<16> acc = 1, best = 0xFFFF;
    tandem::secure_bit any_equal = false;
    std::array<u<16>, 4> window{};
    for (std::size_t i = 0; i < a.size(); ++i) {
        const u<16> x = a[i], y = b[i];
        acc = acc * 3 + (x ^ y);
        best = tandem::min(best, x + y);
        any_equal = any_equal | !(x != y);
        window[i % 4] = x - y;
        if (i % 8 == 7) {
            const auto squares = tandem::parallel_for<4>([&](std::size_t k) { return window[k] * window[k]; });
            acc = acc ^ tandem::reduce(squares, [](const u<16>& p, const u<16>& q) { return p + q; });
        }
    }
    return {acc, best, any_equal};
}

std::tuple<std::uint16_t, std::uint16_t, bool> mix_plain(std::span<const std::uint16_t> a,
                                                         std::span<const std::uint16_t> b) {
    std::uint16_t acc = 1, best = 0xFFFF;
    bool any_equal = false;
    std::array<std::uint16_t, 4> window{};
    for (std::size_t i = 0; i < a.size(); ++i) {
        acc = static_cast<std::uint16_t>(acc * 3 + (a[i] ^ b[i]));
        best = std::min<std::uint16_t>(best, static_cast<std::uint16_t>(a[i] + b[i]));
        any_equal = any_equal || a[i] == b[i];
        window[i % 4] = static_cast<std::uint16_t>(a[i] - b[i]);
        if (i % 8 == 7) {
            std::uint16_t s = 0;
            for (const std::uint16_t w : window) s = static_cast<std::uint16_t>(s + std::uint32_t{w} * w);  // (w * w in int overflows)
            acc ^= s;
        }
    }
    return {acc, best, any_equal};
}

auto mix_stream(std::size_t n) {
    return tandem::stream([](const tandem::sequence<u<16>>& a, const tandem::sequence<u<16>>& b) { return mix(a, b); },
                          tandem::sequence_input<party::alice, u<16>>(n), tandem::sequence_input<party::bob, u<16>>(n));
}

}  // namespace

TEST_CASE("stream.plain_equals_compiled_and_cpp") {
    const auto compiled = tandem::compile(
        [](const std::array<u<16>, n_values>& a, const std::array<u<16>, n_values>& b) { return mix(a, b); },
        tandem::input<party::alice, std::array<u<16>, n_values>>, tandem::input<party::bob, std::array<u<16>, n_values>>);
    auto streamed = mix_stream(n_values);
    for (const std::uint64_t seed : {1, 2, 3, 20261124}) {
        std::mt19937_64 rng(seed);
        std::array<std::uint16_t, n_values> a{}, b{};
        for (std::size_t i = 0; i < n_values; ++i) {
            a[i] = static_cast<std::uint16_t>(rng() % (seed == 3 ? 4 : 65536));  // seed 3: many equal pairs
            b[i] = static_cast<std::uint16_t>(rng() % (seed == 3 ? 4 : 65536));
        }
        const auto expected = mix_plain(a, b);
        REQUIRE(compiled.eval_plain(a, b) == expected);
        for (const std::uint64_t k : segment_sizes) {
            INFO("seed " << seed << ", segment_ands " << k);
            streamed.segment_ands = k;
            CHECK(streamed.eval_plain(a, b) == expected);
            // Dead gates are dropped within a segment; one that dies in a later segment has run.
            if (k == tandem::default_segment_ands) CHECK(streamed.last_run().and_gates == compiled.stats().and_gates);
            else CHECK(streamed.last_run().and_gates >= compiled.stats().and_gates);
            if (k <= 100) CHECK(streamed.last_run().segments >= compiled.stats().and_gates / (k + 2000));
        }
    }
}

TEST_CASE("stream.dead_gates_are_dropped_from_each_segment") {
    // A segment whose gates are all read takes the builder's bucket counts and
    // skips lay-out's dead-gate pass; one with unread gates (a product nothing
    // reads) goes through it (circuit/layout.hpp, pass 1). Either way, what runs
    // is what the compiled function runs, and the answer is right.
    constexpr std::size_t n = 24;
    const auto body = [](const auto& a, const auto& b, bool waste) {
        u<16> acc = 7;
        for (std::size_t i = 0; i < n; ++i) {
            if (waste) {
                const u<16> unused = a[i] * b[i];  // read by nothing
                (void)unused;
            }
            acc = acc + (a[i] ^ b[i]);
        }
        return acc;
    };
    const std::uint64_t product_ands =
        tandem::compile([](u<16> x, u<16> y) { return x * y; }, tandem::input<party::alice, u<16>>,
                        tandem::input<party::bob, u<16>>)
            .stats()
            .and_gates;
    std::uint64_t adders_only = 0;
    for (const bool waste : {false, true}) {
        INFO("with an unread product per step: " << waste);
        const auto compiled = tandem::compile(
            [&](const std::array<u<16>, n>& a, const std::array<u<16>, n>& b) { return body(a, b, waste); },
            tandem::input<party::alice, std::array<u<16>, n>>, tandem::input<party::bob, std::array<u<16>, n>>);
        // The adders only, with or without the products (n * 15, less what
        // folds in the first one, which adds to the constant 7).
        if (!waste) adders_only = compiled.stats().and_gates;
        CHECK(compiled.stats().and_gates == adders_only);
        CHECK(adders_only > n * 14);
        auto streamed = tandem::stream(
            [&](const tandem::sequence<u<16>>& a, const tandem::sequence<u<16>>& b) { return body(a, b, waste); },
            tandem::sequence_input<party::alice, u<16>>(n), tandem::sequence_input<party::bob, u<16>>(n));
        std::mt19937_64 rng(20261127);
        std::array<std::uint16_t, n> a{}, b{};
        std::uint16_t expected = 7;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = static_cast<std::uint16_t>(rng());
            b[i] = static_cast<std::uint16_t>(rng());
            expected = static_cast<std::uint16_t>(expected + (a[i] ^ b[i]));
        }
        for (const std::uint64_t k : {std::uint64_t{1} << 20, std::uint64_t{300}}) {
            INFO("segment_ands " << k);
            streamed.segment_ands = k;
            CHECK(streamed.eval_plain(a, b) == expected);
            // One segment: exactly the compiled ANDs. Small segments: a product
            // alive at a cut runs in its segment (it dies in a later one).
            if (k > 1000) {
                CHECK(streamed.last_run().and_gates == compiled.stats().and_gates);
            } else {
                CHECK(streamed.last_run().and_gates >= compiled.stats().and_gates);
                CHECK(streamed.last_run().and_gates <= compiled.stats().and_gates + (waste ? n * product_ands : 0));
            }
        }
    }
}

TEST_CASE("stream.inputs_from_containers_spans_and_generators") {
    auto fn = mix_stream(10);
    std::vector<std::uint16_t> a(10), b(10);
    for (std::size_t i = 0; i < 10; ++i) a[i] = static_cast<std::uint16_t>(i * 7919), b[i] = static_cast<std::uint16_t>(i * 31);
    const auto expected = mix_plain(a, b);
    CHECK(fn.eval_plain(a, b) == expected);
    CHECK(fn.eval_plain(std::span<const std::uint16_t>(a), b) == expected);
    CHECK(fn.eval_plain([&](std::uint64_t i) { return a[i]; }, [&](std::uint64_t i) { return b[i]; }) == expected);
}

TEST_CASE("stream.single_inputs_and_opened_values_steer") {
    // Sums x + i*y for i = 0.. until the opened partial sum passes a bound
    // (public control flow from an opened value), then returns how far it got.
    auto fn = tandem::stream(
        [](u<32> x, u<32> y) {
            u<32> sum = 0;
            std::uint32_t steps = 0;
            while (tandem::open(sum) < 1000 && steps < 100) {
                sum = sum + x + y * steps;
                ++steps;
            }
            const std::optional<std::uint32_t> to_alice = tandem::open(sum, tandem::reveal::alice);
            CHECK(to_alice.has_value());  // plaintext runs learn everything
            return std::make_tuple(sum, u<32>(steps));
        },
        tandem::input<party::alice, u<32>>, tandem::input<party::bob, u<32>>);
    for (const std::uint64_t k : {1, 50, 100000}) {
        fn.segment_ands = k;
        std::uint32_t sum = 0, steps = 0;
        while (sum < 1000 && steps < 100) sum += 7 + 5 * steps++;
        CHECK(fn.eval_plain(7u, 5u) == std::make_tuple(sum, steps));
    }
}

TEST_CASE("stream.minimum_and_edit_distance_match_references") {
    std::mt19937_64 rng(7);
    for (const std::size_t n : {1, 2, 5, 300, 4000}) {
        std::vector<std::uint32_t> values(n);
        for (auto& v : values) v = static_cast<std::uint32_t>(rng() % (n < 10 ? 3 : 1u << 20));
        auto fn = tandem::stream([](const tandem::sequence<u<20>>& xs) { return apps::minimum_with_index<20>(xs); },
                                 tandem::sequence_input<party::alice, u<20>>(n));
        for (const std::uint64_t k : {7, 1000, 65536}) {
            fn.segment_ands = k;
            INFO("n = " << n << ", segment_ands " << k);
            const auto [value, index] = fn.eval_plain(values);
            CHECK(std::make_pair(value, index) == apps::minimum_plain(values));
            CHECK(fn.last_run().and_gates == apps::minimum_with_index_ands(n, 20));
        }
    }
    for (const auto& sizes : {std::tuple{1, 1, 2}, {3, 9, 2}, {17, 12, 4}, {60, 60, 2}, {64, 33, 4}}) {
        const auto [n_, m_, letters_] = sizes;
        const int n = n_, m = m_, letters = letters_;  // (Clang 14 cannot capture structured bindings)
        std::vector<std::uint8_t> a(n), b(m);
        for (auto& x : a) x = static_cast<std::uint8_t>(rng() % letters);
        for (auto& x : b) x = static_cast<std::uint8_t>(rng() % letters);
        const auto check = [&]<std::size_t Bits>() {
            auto fn = tandem::stream(
                [](const tandem::sequence<u<Bits>>& x, const tandem::sequence<u<Bits>>& y) {
                    return apps::edit_distance(x, y);
                },
                tandem::sequence_input<party::alice, u<Bits>>(n), tandem::sequence_input<party::bob, u<Bits>>(m));
            for (const std::uint64_t k : {5, 2000}) {
                fn.segment_ands = k;
                INFO("n = " << n << ", m = " << m << ", letters " << letters << ", segment_ands " << k);
                CHECK(fn.eval_plain(a, b) == apps::edit_distance_plain(a, b));
            }
        };
        if (letters == 2) check.template operator()<1>();
        else check.template operator()<2>();
    }
}

TEST_CASE("stream.label_array_stays_bounded") {
    // 16x more values, about the same label array: slots hold what is live.
    std::uint64_t slots[2] = {};
    for (const std::size_t n : {5000u, 80000u}) {
        std::vector<std::uint32_t> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>((i * 2654435761u) % (1u << 20));
        auto fn = tandem::stream([](const tandem::sequence<u<20>>& xs) { return apps::minimum_with_index<20>(xs); },
                                 tandem::sequence_input<party::alice, u<20>>(n));
        fn.segment_ands = 1 << 14;
        const auto [value, index] = fn.eval_plain(values);
        CHECK(std::make_pair(value, index) == apps::minimum_plain(values));
        slots[n == 80000] = fn.last_run().max_slots;
        CHECK(fn.last_run().segments > n * 40 / (1 << 14) / 2);
    }
    INFO("slots " << slots[0] << " -> " << slots[1]);
    CHECK(slots[1] < slots[0] + slots[0] / 4);
}

TEST_CASE("stream.misuse_is_a_usage_error") {
    const auto open_in_compile = [] {
        (void)tandem::compile([](u<8> x) { return u<8>(tandem::open(x)); }, tandem::input<party::alice, u<8>>);
    };
    CHECK_THROWS_AS(open_in_compile(), tandem::usage_error);
    CHECK(thrown_by(open_in_compile).find("only inside a streamed function") != std::string::npos);

    auto past_end = tandem::stream([](const tandem::sequence<u<8>>& xs) { return xs[xs.size()]; },
                                   tandem::sequence_input<party::alice, u<8>>(3));
    const std::vector<std::uint8_t> three{1, 2, 3};
    CHECK(thrown_by([&] { past_end.eval_plain(three); }).find("out of range") != std::string::npos);

    auto sum = tandem::stream(
        [](const tandem::sequence<u<8>>& xs) {
            u<8> s = 0;
            for (std::size_t i = 0; i < xs.size(); ++i) s = s + xs[i];
            return s;
        },
        tandem::sequence_input<party::alice, u<8>>(4));
    CHECK(thrown_by([&] { sum.eval_plain(three); }).find("holds 3") != std::string::npos);

    std::optional<tandem::sequence<u<8>>> kept;
    auto keeps = tandem::stream(
        [&](const tandem::sequence<u<8>>& xs) {
            kept = xs;
            return xs[0];
        },
        tandem::sequence_input<party::alice, u<8>>(3));
    (void)keeps.eval_plain(three);
    CHECK(thrown_by([&] { (void)(*kept)[1]; }).find("outside the streamed run") != std::string::npos);

    auto in_region = tandem::stream(
        [](const tandem::sequence<u<8>>& xs) {
            const auto r = tandem::parallel_for<2>([&](std::size_t i) { return xs[i] + 1; });
            return r[0] + r[1];
        },
        tandem::sequence_input<party::alice, u<8>>(2));
    const std::vector<std::uint8_t> two{1, 2};
    CHECK(thrown_by([&] { in_region.eval_plain(two); }).find("inside a parallel region") != std::string::npos);
}

}  // namespace stream_tests
