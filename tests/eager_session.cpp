// Streamed runs garbled as they are made, between two sessions
// (streamed_function::eager, session/eager_stream.hpp): the minimum, a
// function with products, squares, a mid-run open and results for one party
// only, and the edit distance equal plain C++ for several segment sizes, both
// hashes, both garbling schemes and thread counts, mixed with levelled and compiled runs in one
// session, pipelined on one side, both or neither; a peer running the other
// mode, or another program, is named; a function that throws ends both
// sides; regions run inline; the default is chosen by the session; what the
// eager path does not run says so (a cut link: stream_session.cpp).
#include <doctest/doctest.h>

#include "../examples/stream_apps.hpp"
#include "memory_sessions.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <chrono>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace eager_session_tests {

namespace {

using namespace tandem;
using namespace tandem::test;
template <std::size_t W>
using u = secure_uint<W>;

/// Σ (x_i − y)² · x_i over Alice's sequence and Bob's single y, with the
/// partial sum opened to both every 16 values (it steers nothing, but opens
/// mid-segment), and the last difference opened to Alice only.
auto products_stream(std::size_t n) {
    auto fn = stream(
        [](const sequence<u<32>>& xs, u<32> y) {
            u<32> sum = 0;
            u<32> last = 0;
            std::uint32_t checkpoints = 0;
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const u<32> d = xs[i] - y;
                sum = sum + d * d * xs[i];
                last = d;
                if (i % 16 == 15) checkpoints ^= open(sum);
            }
            const std::optional<std::uint32_t> to_alice = open(last, reveal::alice);
            (void)to_alice;
            return std::make_tuple(sum, u<32>(checkpoints));
        },
        sequence_input<party::alice, u<32>>(n), input<party::bob, u<32>>);
    fn.eager = true;
    return fn;
}

std::tuple<std::uint32_t, std::uint32_t> products_plain(const std::vector<std::uint32_t>& xs, std::uint32_t y) {
    std::uint32_t sum = 0, checkpoints = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const std::uint32_t d = xs[i] - y;
        sum += d * d * xs[i];
        if (i % 16 == 15) checkpoints ^= sum;
    }
    return {sum, checkpoints};
}

}  // namespace

TEST_CASE("eager_session.garbled_as_made_equals_plain_cpp") {
    for (const std::uint64_t seed : {31, 32}) {
        for (const auto& g : {std::pair{garbling_hash::rekeyed, garbling_scheme::half_gates},
                              std::pair{garbling_hash::fixed_key, garbling_scheme::half_gates},
                              std::pair{garbling_hash::rekeyed, garbling_scheme::three_halves}}) {
            const garbling_hash hash = g.first;  // (Clang 14 cannot capture structured bindings)
            const garbling_scheme scheme = g.second;
            const std::uint32_t threads = seed == 31 ? 1u : 2u;  // an eager run uses the main link only
            // Gates handed to a thread of their own (pipelined_sink) on one side or both: the protocol is the same.
            const bool alice_pipelines = seed == 32, bob_pipelines = seed == 32 && hash == garbling_hash::fixed_key;
            INFO("seed " << seed << ", hash " << to_string(hash) << ", " << to_string(scheme) << ", threads "
                         << threads << ", pipelined " << alice_pipelines << bob_pipelines);
            std::mt19937_64 rng(seed);
            const auto a = random_values(rng, 700, 1u << 20), b = random_values(rng, 900, 1u << 20);
            std::vector<std::uint32_t> both(a);
            both.insert(both.end(), b.begin(), b.end());
            const auto expected_min = apps::minimum_plain(both);
            const auto xs = random_values(rng, 100, 1u << 31);
            const std::uint32_t y = static_cast<std::uint32_t>(rng());
            const auto expected_products = products_plain(xs, y);
            const auto product = compile([](u<32> p, u<32> q) { return p * q; }, input<party::alice, u<32>>,
                                         input<party::bob, u<32>>);
            session_options oa = with_threads(threads);
            oa.hash = hash;
            oa.scheme = scheme;
            session_options ob = oa;
            oa.pipeline_streams = alice_pipelines;
            ob.pipeline_streams = bob_pipelines;
            std::vector<std::tuple<std::uint32_t, std::uint32_t>> mins[2], sums[2];
            std::uint64_t ands[2] = {0, 0};
            const auto side = [&](party me) {
                return [&, me](session& s) {
                    const int p = me == party::bob;
                    for (const std::uint64_t k : {300u, 70000u}) {
                        auto fn = apps::minimum_stream<20>(a.size(), b.size());
                        fn.segment_ands = k;
                        fn.eager = true;
                        mins[p].push_back(me == party::alice ? s.run(fn, a) : s.run(fn, b));
                        CHECK(s.last_run().and_gates == fn.expected_ands);  // the minimum makes no twin
                        CHECK(s.last_run().pipelined == (me == party::alice ? alice_pipelines : bob_pipelines));
                        // A levelled run and a compiled one between eager runs: tweaks continue.
                        fn.eager = false;
                        mins[p].push_back(me == party::alice ? s.run(fn, a) : s.run(fn, b));
                        CHECK((me == party::alice ? s.run(product, 6u) : s.run(product, 7u)) == 42u);
                    }
                    for (const std::uint64_t k : {50u, 5000u}) {
                        auto fn = products_stream(xs.size());
                        fn.segment_ands = k;
                        const auto got = me == party::alice ? s.run(reveal::both, fn, xs) : s.run(reveal::both, fn, y);
                        REQUIRE(got.has_value());
                        sums[p].push_back(*got);
                        ands[p] = s.last_run().and_gates;
                        const auto only = me == party::alice ? s.run(reveal::bob, fn, xs) : s.run(reveal::bob, fn, y);
                        CHECK(only.has_value() == (me == party::bob));
                        if (only) CHECK(*only == expected_products);
                    }
                };
            };
            rethrow(two_party(make_wiring(threads - 1), oa, ob, side(party::alice), side(party::bob)));
            for (int p = 0; p < 2; ++p) {
                REQUIRE(mins[p].size() == 4);
                for (const auto& [value, index] : mins[p]) CHECK(std::make_pair(value, index) == expected_min);
                REQUIRE(sums[p].size() == 2);
                for (const auto& s : sums[p]) CHECK(s == expected_products);
            }
            CHECK(ands[0] == ands[1]);
            CHECK(ands[0] > 0);
        }
    }
}

TEST_CASE("eager_session.the_edit_distance_over_tcp") {
    std::mt19937_64 rng(33);
    std::vector<std::uint8_t> sa(60), sb(45);
    for (auto& c : sa) c = static_cast<std::uint8_t>(rng() % 4);
    for (auto& c : sb) c = static_cast<std::uint8_t>(rng() % 4);
    const std::uint32_t expected = apps::edit_distance_plain(sa, sb);
    std::uint32_t got[2] = {0, 0};
    const auto side = [&](int p) {
        return [&, p](session& s) {
            auto ed = apps::edit_distance_stream<2>(sa.size(), sb.size());
            ed.segment_ands = 700;
            ed.eager = true;
            got[p] = p == 0 ? s.run(ed, sa) : s.run(ed, sb);
        };
    };
    session_options o = with_threads(1);
    o.pipeline_streams = true;
    rethrow(two_party(make_tcp_wiring(0), o, o, side(0), side(1)));
    CHECK(got[0] == expected);
    CHECK(got[1] == expected);
}

TEST_CASE("eager_session.a_peer_in_the_other_mode_or_with_another_program_is_named") {
    const std::vector<std::uint32_t> va(50, 1), vb(50, 2);
    auto eager = apps::minimum_stream<20>(50, 50), levelled = apps::minimum_stream<20>(50, 50);
    eager.eager = true;
    levelled.eager = false;
    const outcome modes = two_party(
        make_wiring(0), with_threads(1), with_threads(1), [&](session& s) { (void)s.run(eager, va); },
        [&](session& s) { (void)s.run(levelled, vb); });
    REQUIRE(modes.alice);
    REQUIRE(modes.bob);
    CHECK(message_of(modes.bob).find("set streamed_function::eager the same on both parties") != std::string::npos);
    CHECK(message_of(modes.alice).find("gate by gate") != std::string::npos);

    // Same inputs, different functions: the digests differ at the first cut, before anything is opened.
    const auto body = [](bool product) {
        auto fn = stream(
            [product](const sequence<u<20>>& a, const sequence<u<20>>& b) {
                u<20> s = 0;
                for (std::size_t i = 0; i < a.size(); ++i) s = s + (product ? a[i] * b[i] : a[i] + b[i]);
                return s;
            },
            sequence_input<party::alice, u<20>>(50), sequence_input<party::bob, u<20>>(50));
        fn.eager = true;
        return fn;
    };
    auto sum_fn = body(false), product_fn = body(true);
    session_options pipelined = with_threads(1);
    pipelined.pipeline_streams = true;  // the error comes from the thread that runs the windows
    const outcome bodies = two_party(
        make_wiring(0), pipelined, pipelined, [&](session& s) { (void)s.run(sum_fn, va); },
        [&](session& s) { (void)s.run(product_fn, vb); });
    REQUIRE(bodies.bob);
    REQUIRE(bodies.alice);
    // The product makes more ANDs than the sum: Bob's first window already differs from Alice's.
    CHECK(message_of(bodies.bob).find("the parties run different functions") != std::string::npos);
    CHECK(message_of(bodies.bob).find("in segment 0 this party runs a window of") != std::string::npos);

    // Same ANDs, different XORs: the windows agree, the digest at the first cut does not.
    const auto linear = [](bool plus) {
        auto fn = stream(
            [plus](const sequence<u<20>>& a, const sequence<u<20>>& b) {
                u<20> s = 0;
                for (std::size_t i = 0; i < a.size(); ++i) s = s + (plus ? a[i] ^ b[i] : a[i] ^ ~b[i]);
                return s;
            },
            sequence_input<party::alice, u<20>>(50), sequence_input<party::bob, u<20>>(50));
        fn.eager = true;
        return fn;
    };
    auto xor_fn = linear(true), xnor_fn = linear(false);
    const outcome xors = two_party(
        make_wiring(0), with_threads(1), with_threads(1), [&](session& s) { (void)s.run(xor_fn, va); },
        [&](session& s) { (void)s.run(xnor_fn, vb); });
    REQUIRE(xors.bob);
    REQUIRE(xors.alice);
    CHECK(message_of(xors.bob).find("segment 0 differs") != std::string::npos);
}

TEST_CASE("eager_session.a_function_that_throws_mid_run_ends_both_sides") {
    // Pipelined on both sides: Alice's function throws while her thread may be
    // sending tables and Bob's waiting for them; both end at once, no thread left.
    const std::vector<std::uint32_t> va(3000, 1), vb(3000, 2);
    for (const bool pipeline : {true, false}) {
        INFO("pipelined " << pipeline);
        const auto make = [](bool throws) {
            auto fn = stream(
                [throws](const sequence<u<20>>& a, const sequence<u<20>>& b) {
                    u<20> s = 0;
                    for (std::size_t i = 0; i < a.size(); ++i) {
                        if (throws && i == 300) throw std::runtime_error("the function gave up");
                        s = s + a[i] * b[i];
                    }
                    return s;
                },
                sequence_input<party::alice, u<20>>(3000), sequence_input<party::bob, u<20>>(3000));
            fn.eager = true;
            fn.segment_ands = 5000;
            return fn;
        };
        auto gives_up = make(true), runs = make(false);
        session_options o = with_threads(1);
        o.timeout = std::chrono::milliseconds(5000);
        o.pipeline_streams = pipeline;
        const auto t0 = std::chrono::steady_clock::now();
        const outcome r = two_party(
            make_wiring(0), o, o, [&](session& s) { (void)s.run(gives_up, va); },
            [&](session& s) { (void)s.run(runs, vb); });
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2500));  // not at the deadline
        REQUIRE(r.alice);
        REQUIRE(r.bob);
        CHECK(message_of(r.alice) == "the function gave up");
        CHECK(detail::threads_running() == 0);
    }
}

TEST_CASE("eager_session.regions_run_inline_and_the_default_is_chosen_by_the_session") {
    // A region in an eager run: its instances run one after another, the window levels their ANDs.
    const auto make_regions = [] {  // each party its own: the mode is set on it
        return stream(
            [](const std::array<u<8>, 4>& a, u<8> b) {
                const auto products = parallel_for<4>([&](std::size_t k) { return a[k] * b; });
                const u<8> sum = reduce(std::span<const u<8>>(products), [](u<8> x, u<8> y) { return x + y; });
                return products[0] + products[3] + sum;
            },
            input<party::alice, std::array<u<8>, 4>>, input<party::bob, u<8>>);
    };
    const std::array<std::uint8_t, 4> a{1, 2, 3, 4};
    const std::uint8_t expected = static_cast<std::uint8_t>(5 + 20 + 50);
    bool eager[2][2] = {};
    const auto side = [&](int p) {
        return [&, p](session& s) {
            auto regions = make_regions();
            for (const std::optional<bool> mode : {std::optional<bool>(true), std::optional<bool>()}) {
                regions.eager = mode;
                CHECK((p == 0 ? s.run(regions, a) : s.run(regions, std::uint8_t{5})) == expected);
                eager[p][mode.has_value() ? 0 : 1] = s.last_run().eager;
            }
        };
    };
    rethrow(two_party(make_wiring(0), with_threads(1), with_threads(1), side(0), side(1)));
    for (int p = 0; p < 2; ++p) {
        CHECK(eager[p][0]);
        CHECK(eager[p][1]);  // unset, one thread, semi-honest, no IPP: eager
    }
    // Two threads: unset runs levelled (workers are the levelled stream's).
    bool levelled_eager[2] = {true, true};
    const auto two_threads = [&](int p) {
        return [&, p](session& s) {
            auto regions = make_regions();  // eager unset
            CHECK((p == 0 ? s.run(regions, a) : s.run(regions, std::uint8_t{5})) == expected);
            levelled_eager[p] = s.last_run().eager;
        };
    };
    rethrow(two_party(make_wiring(1), with_threads(2), with_threads(2), two_threads(0), two_threads(1)));
    CHECK_FALSE(levelled_eager[0]);
    CHECK_FALSE(levelled_eager[1]);
}

TEST_CASE("eager_session.what_runs_levelled_says_so") {
    // IPP: refused before anything is sent, so the session goes on.
    const std::vector<std::uint32_t> v(20, 4);
    session_options o = with_threads(1);
    o.ipp = true;
    const auto side = [&](session& s) {
        auto fn = apps::minimum_stream<20>(20, 20);  // each party's own: the two threads change it
        fn.eager = true;
        std::string what;
        try {
            (void)s.run(fn, v);
        } catch (const usage_error& e) {
            what = e.what();
        }
        CHECK(what.find("set eager = false or turn IPP off") != std::string::npos);
        fn.eager = false;
        CHECK(s.run(fn, v) == std::make_tuple(4u, 0u));
    };
    rethrow(two_party(make_wiring(1), o, o, side, side));
}

}  // namespace eager_session_tests
