// Streamed runs between two sessions over in-memory links
// (session/stream.hpp): garbled == plaintext == C++ for several segment
// sizes, both hashes, both garbling schemes and thread counts, several runs per session mixed with
// compiled ones; results and opened values reach only whom they are for;
// mismatched programs fail at the first differing segment; a cut link fails
// both sides quickly; progress is reported.
#include <doctest/doctest.h>

#include "../examples/apps.hpp"
#include "../examples/stream_apps.hpp"
#include "memory_sessions.hpp"

#include <tandem/tandem.hpp>
#include <tandem/session/pipelined.hpp>  // detail::pipelining_pays, usable_cpus

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace stream_session_tests {

namespace {

using namespace tandem;
using namespace tandem::test;
template <std::size_t W>
using u = secure_uint<W>;

std::vector<std::uint8_t> random_symbols(std::mt19937_64& rng, std::size_t n, unsigned letters) {
    std::vector<std::uint8_t> v(n);
    for (auto& x : v) x = static_cast<std::uint8_t>(rng() % letters);
    return v;
}

std::string thrown_message(const std::exception_ptr& e) { return message_of(e); }

}  // namespace

TEST_CASE("stream_session.minimum_and_edit_distance_equal_plaintext") {
    for (const std::uint64_t seed : {11, 12}) {
        for (const auto& g : {std::pair{garbling_hash::rekeyed, garbling_scheme::half_gates},
                              std::pair{garbling_hash::fixed_key, garbling_scheme::half_gates},
                              std::pair{garbling_hash::rekeyed, garbling_scheme::three_halves}}) {
            const garbling_hash hash = g.first;  // (Clang 14 cannot capture structured bindings)
            const garbling_scheme scheme = g.second;
            for (const std::uint32_t threads : {1u, 2u}) {
                INFO("seed " << seed << ", hash " << to_string(hash) << ", " << to_string(scheme) << ", threads "
                             << threads);
                std::mt19937_64 rng(seed);
                const auto a = random_values(rng, 1500, 1u << 20), b = random_values(rng, 1700, 1u << 20);
                std::vector<std::uint32_t> both(a);
                both.insert(both.end(), b.begin(), b.end());
                const auto expected_min = apps::minimum_plain(both);
                const auto sa = random_symbols(rng, 70, 4), sb = random_symbols(rng, 55, 4);
                const std::uint32_t expected_edit = apps::edit_distance_plain(sa, sb);
                session_options o = with_threads(threads);
                o.hash = hash;
                o.scheme = scheme;
                o.pipeline_streams = threads == 2 || seed == 12;  // recorded while the last segment runs
                // Seed 11 levelled; seed 12 the session's choice (eager on one thread, levelled on two).
                const std::optional<bool> levelled_or_default = seed == 11 ? std::optional<bool>(false) : std::nullopt;
                const bool levelled = levelled_or_default.has_value();
                std::vector<std::tuple<std::uint32_t, std::uint32_t>> mins[2];
                std::vector<std::uint32_t> edits[2];
                const auto side = [&](party me) {
                    return [&, me](session& s) {
                        const int p = me == party::bob;
                        for (const std::uint64_t k : {300u, 70000u}) {
                            auto fn = apps::minimum_stream<20>(a.size(), b.size());
                            fn.segment_ands = k;
                            fn.eager = levelled_or_default;
                            mins[p].push_back(me == party::alice ? s.run(fn, a) : s.run(fn, b));
                            CHECK(s.last_run().and_gates == fn.expected_ands);
                            CHECK(s.last_run().pipelined == *o.pipeline_streams);
                            CHECK(s.last_run().eager == (!levelled && threads == 1));
                        }
                        auto ed = apps::edit_distance_stream<2>(sa.size(), sb.size());
                        ed.segment_ands = 500;
                        ed.eager = levelled_or_default;
                        edits[p].push_back(me == party::alice ? s.run(ed, sa) : s.run(ed, sb));
                    };
                };
                rethrow(two_party(make_wiring(threads - 1), o, o, side(party::alice), side(party::bob)));
                for (int p = 0; p < 2; ++p) {
                    REQUIRE(mins[p].size() == 2);
                    for (const auto& [value, index] : mins[p])
                        CHECK(std::make_pair(value, index) == expected_min);
                    REQUIRE(edits[p].size() == 1);
                    CHECK(edits[p][0] == expected_edit);
                }
            }
        }
    }
}

TEST_CASE("stream_session.mixed_with_compiled_runs_and_reveals") {
    // A streamed function that opens its partial sums to both (steering its
    // loop) and one value to Alice only, run between compiled runs.
    auto fn = stream(
        [](const sequence<u<32>>& xs, u<32> y) {
            u<32> sum = 0;
            std::size_t i = 0;
            while (i < xs.size() && open(sum) < 5000) sum = sum + xs[i++] * y;
            const std::optional<std::uint32_t> secret = open(sum ^ y, reveal::alice);
            (void)secret;
            return std::make_tuple(sum, u<32>(static_cast<std::uint32_t>(i)));
        },
        sequence_input<party::alice, u<32>>(200), input<party::bob, u<32>>);
    fn.segment_ands = 40;
    const auto product = compile([](u<32> x, u<32> y) { return x * y; }, input<party::alice, u<32>>,
                                 input<party::bob, u<32>>);
    std::vector<std::uint32_t> xs(200);
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<std::uint32_t>(i % 13);
    const std::uint32_t y = 7;
    std::uint32_t sum = 0, steps = 0;
    while (steps < xs.size() && sum < 5000) sum += xs[steps++] * y;

    std::optional<std::tuple<std::uint32_t, std::uint32_t>> got[2][3];
    // What each party's copy of a function saw of a value opened to Alice only.
    static thread_local std::optional<std::uint32_t> seen_by_this_party;
    auto probe = stream(
        [](u<32> x, u<32> z) {
            seen_by_this_party = open(x + z, reveal::alice);
            return x ^ z;
        },
        input<party::alice, u<32>>, input<party::bob, u<32>>);
    std::optional<std::uint32_t> probe_seen[2];
    const auto side = [&](party me) {
        return [&, me](session& s) {
            const int p = me == party::bob;
            CHECK((me == party::alice ? s.run(product, 6u) : s.run(product, 9u)) == 54u);
            got[p][0] = me == party::alice ? s.run(reveal::both, fn, xs) : s.run(reveal::both, fn, y);
            got[p][1] = me == party::alice ? s.run(reveal::alice, fn, xs) : s.run(reveal::alice, fn, y);
            got[p][2] = me == party::alice ? s.run(reveal::bob, fn, xs) : s.run(reveal::bob, fn, y);
            CHECK((me == party::alice ? s.run(product, 3u) : s.run(product, 5u)) == 15u);
            CHECK((me == party::alice ? s.run(probe, 40u) : s.run(probe, 2u)) == (40u ^ 2u));
            probe_seen[p] = seen_by_this_party;
        };
    };
    rethrow(two_party(make_wiring(0), with_threads(1), with_threads(1), side(party::alice), side(party::bob)));
    const auto expected = std::make_tuple(sum, steps);
    for (int p = 0; p < 2; ++p) {
        CHECK(got[p][0] == expected);
        CHECK(got[p][1].has_value() == (p == 0));
        CHECK(got[p][2].has_value() == (p == 1));
        if (got[p][1]) CHECK(*got[p][1] == expected);
        if (got[p][2]) CHECK(*got[p][2] == expected);
    }
    CHECK(probe_seen[0] == std::optional<std::uint32_t>(42));
    CHECK(!probe_seen[1].has_value());
}

TEST_CASE("stream_session.mismatched_programs_fail_at_the_first_differing_segment") {
    const auto run_pair = [](auto fa, auto fb) {
        std::vector<std::uint32_t> va(50, 1), vb(50, 2);
        return two_party(
            make_wiring(0), with_threads(1), with_threads(1), [&](session& s) { (void)s.run(fa, va); },
            [&](session& s) { (void)s.run(fb, vb); });
    };
    // Different segment sizes: the run headers differ.
    auto k100 = apps::minimum_stream<20>(50, 50), k200 = apps::minimum_stream<20>(50, 50);
    k100.segment_ands = 100;
    k200.segment_ands = 200;
    const outcome sizes = run_pair(k100, k200);
    REQUIRE(sizes.alice);
    REQUIRE(sizes.bob);
    CHECK(thrown_message(sizes.bob).find("segment_ands 100") != std::string::npos);

    // Same inputs, different functions: the segment digests differ at segment 0.
    auto sum_fn = stream(
        [](const sequence<u<20>>& a, const sequence<u<20>>& b) {
            u<20> s = 0;
            for (std::size_t i = 0; i < a.size(); ++i) s = s + a[i] + b[i];
            return s;
        },
        sequence_input<party::alice, u<20>>(50), sequence_input<party::bob, u<20>>(50));
    auto xor_fn = stream(
        [](const sequence<u<20>>& a, const sequence<u<20>>& b) {
            u<20> s = 0;
            for (std::size_t i = 0; i < a.size(); ++i) s = s + (a[i] & b[i]);
            return s;
        },
        sequence_input<party::alice, u<20>>(50), sequence_input<party::bob, u<20>>(50));
    sum_fn.eager = xor_fn.eager = false;  // levelled: the header before the tables (eager: eager_session.cpp)
    const outcome bodies = run_pair(sum_fn, xor_fn);
    REQUIRE(bodies.bob);
    CHECK(thrown_message(bodies.bob).find("segment 0 differs") != std::string::npos);
    CHECK(bodies.bob != nullptr);
    REQUIRE(bodies.alice);
}

TEST_CASE("stream_session.wrong_inputs_are_usage_errors") {
    auto fn = apps::minimum_stream<20>(10, 10);
    const std::vector<std::uint32_t> ten(10, 3), nine(9, 3);
    const outcome o = two_party(
        make_wiring(0), with_threads(1), with_threads(1),
        [&](session& s) {
            CHECK_THROWS_AS(s.run(fn, nine), usage_error);     // wrong length: nothing sent
            CHECK_THROWS_AS(s.run(fn, ten, ten), usage_error);  // Bob's input too
            CHECK(s.run(fn, ten) == std::make_tuple(3u, 0u));   // the session still works
        },
        [&](session& s) { CHECK(s.run(fn, ten) == std::make_tuple(3u, 0u)); });
    rethrow(o);
}

TEST_CASE("stream_session.cut_link_fails_both_sides_quickly") {
    // Even: pipelined; ending in 1: not; ending in 3 or 4: garbled as made (streamed_function::eager).
    for (const std::uint64_t cut_after :
         {200u, 5000u, 60000u, 400000u, 60001u, 400001u, 5003u, 60003u, 400003u, 5004u, 400004u}) {
        INFO("cut after " << cut_after << " bytes");
        auto fn = apps::minimum_stream<20>(3000, 3000);
        fn.segment_ands = 2000;
        fn.eager = cut_after % 10 == 3 || cut_after % 10 == 4;
        const std::vector<std::uint32_t> values(3000, 5);
        wiring w = make_wiring(0);
        auto was_cut = std::make_shared<std::atomic<bool>>(false);
        w.main_a = std::make_unique<cutting_channel>(std::move(w.main_a), cut_after, was_cut);
        session_options o = with_threads(1);
        o.timeout = std::chrono::milliseconds(2000);
        o.pipeline_streams = cut_after % 2 == 0;
        const auto t0 = std::chrono::steady_clock::now();
        const outcome r = two_party(
            std::move(w), o, o, [&](session& s) { (void)s.run(fn, values); }, [&](session& s) { (void)s.run(fn, values); });
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(8));
        CHECK(r.alice != nullptr);
        CHECK(r.bob != nullptr);
    }
}

// session_options::pipeline_streams unset: pipelined where the process has
// two cores per party on its host. Both parties here share this process's
// cores (an in-process pair, TCP over loopback), so four are needed.
TEST_CASE("stream_session.pipelining_is_chosen_by_cores_per_party") {
    using detail::pipelining_pays;
    CHECK_FALSE(pipelining_pays(1, false));
    CHECK(pipelining_pays(2, false));
    CHECK_FALSE(pipelining_pays(3, true));
    CHECK(pipelining_pays(4, true));
    const unsigned cpus = detail::usable_cpus();
    REQUIRE(cpus >= 1);
    INFO("usable cpus " << cpus);
    auto fn = apps::minimum_stream<20>(300, 300);
    fn.segment_ands = 1000;
    const std::vector<std::uint32_t> values(300, 5);
    for (const bool tcp : {false, true}) {
        INFO("link: " << (tcp ? "tcp over loopback" : "in-process pair"));
        fn.eager = tcp;  // an eager run pipelines by the same rule
        bool pipelined[2] = {!(cpus >= 4), !(cpus >= 4)};
        const auto side = [&](int p) {
            return [&, p](session& s) {
                (void)s.run(fn, values);
                pipelined[p] = s.last_run().pipelined;
            };
        };
        rethrow(two_party(tcp ? make_tcp_wiring(0) : make_wiring(0), with_threads(1), with_threads(1), side(0), side(1)));
        CHECK(pipelined[0] == (cpus >= 4));
        CHECK(pipelined[1] == (cpus >= 4));
    }
}

TEST_CASE("stream_session.progress_is_reported") {
    auto fn = apps::minimum_stream<20>(2000, 2000);
    fn.segment_ands = 5000;
    const std::vector<std::uint32_t> values(2000, 9);
    std::vector<stream_progress> seen;
    session_options alice = with_threads(1);
    alice.progress = [&](const stream_progress& p) { seen.push_back(p); };
    rethrow(two_party(
        make_wiring(0), alice, with_threads(1), [&](session& s) { (void)s.run(fn, values); },
        [&](session& s) { (void)s.run(fn, values); }));
    REQUIRE(seen.size() >= 10);
    for (std::size_t i = 1; i < seen.size(); ++i) {
        CHECK(seen[i].and_gates > seen[i - 1].and_gates);
        CHECK(seen[i].bytes_sent >= seen[i - 1].bytes_sent);
        CHECK(seen[i].segments == i + 1);
    }
    CHECK(seen.back().and_gates == fn.expected_ands);
    CHECK(seen.back().bytes_sent >= 32 * fn.expected_ands);
    CHECK(seen[seen.size() / 2].eta_seconds().has_value());
}

namespace {

/// Σ x_i·y_i over n 32-bit values in blocks of 16 products, each block one
/// parallel_for (instances of ~1000 ANDs, so a plan splits them between
/// workers, and IPP between worlds from ipp_min_ands = 8000 down) and a reduce.
auto blocked_products(std::size_t n) {
    return stream(
        [](const sequence<u<32>>& x, const sequence<u<32>>& y) {
            u<32> total = 0;
            for (std::size_t base = 0; base < x.size(); base += 16) {
                std::array<u<32>, 16> a, b;
                for (std::size_t k = 0; k < 16; ++k) a[k] = x[base + k], b[k] = y[base + k];
                const auto products = parallel_for<16>([&](std::size_t k) { return a[k] * b[k]; });
                total = total + reduce(products, [](const u<32>& p, const u<32>& q) { return p + q; });
            }
            return total;
        },
        sequence_input<party::alice, u<32>>(n), sequence_input<party::bob, u<32>>(n));
}

struct blocked_inputs {
    std::vector<std::uint32_t> x, y;
    std::uint32_t expected = 0;
    explicit blocked_inputs(std::size_t n) : x(n), y(n) {
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<std::uint32_t>(i * 2654435761u), y[i] = static_cast<std::uint32_t>(i * 40503u + 7);
            expected += x[i] * y[i];
        }
    }
};

}  // namespace

TEST_CASE("stream_session.regions_run_on_the_session_workers") {
    constexpr std::size_t n = 160;
    auto fn = blocked_products(n);
    fn.segment_ands = 20000;
    const blocked_inputs in(n);
    const std::vector<std::uint32_t>&x = in.x, &y = in.y;
    const std::uint32_t expected = in.expected;
    REQUIRE(fn.eval_plain(x, y) == expected);
    for (const std::uint32_t threads : {1u, 2u, 4u}) {
        INFO("threads " << threads);
        std::uint32_t got[2] = {};
        std::uint64_t main_sent = 0, all_sent = 0;
        rethrow(two_party(
            make_wiring(threads - 1), with_threads(threads), with_threads(threads),
            [&](session& s) {
                got[0] = s.run(fn, x);
                const std::uint64_t before = s.channel().bytes_sent();
                got[0] = s.run(fn, x);  // twice: the workers' links stay in step
                main_sent = s.channel().bytes_sent() - before;
                all_sent = s.last_run().bytes_sent;
            },
            [&](session& s) {
                got[1] = s.run(fn, y);
                got[1] = s.run(fn, y);
            }));
        CHECK(got[0] == expected);
        CHECK(got[1] == expected);
        // With workers most tables travel on their links, not the main one.
        if (threads > 1) CHECK(main_sent < all_sent * 3 / 4);
        else CHECK(main_sent == all_sent);
    }
}

TEST_CASE("stream_session.ipp_equals_raw_and_plaintext") {
    // IPP is planned segment by segment: a segment whose regions reach
    // ipp_min_ands runs both worlds (Bob garbles half of each region), the
    // others as without IPP; the result is the same either way.
    constexpr std::size_t n = 160;
    auto fn = blocked_products(n);
    const blocked_inputs in(n);
    REQUIRE(fn.eval_plain(in.x, in.y) == in.expected);
    for (const std::uint64_t segment_ands : {20000u, 3000u}) {
        fn.segment_ands = segment_ands;
        for (const std::uint32_t threads : {1u, 2u})
            for (const std::uint64_t min_ands : {std::uint64_t{0}, std::uint64_t{8000}, std::uint64_t{1} << 20})
                for (const bool pipeline : {false, true}) {
                    const bool ipp = min_ands != 0;
                    INFO("segment_ands " << segment_ands << ", threads " << threads << ", ipp_min_ands " << min_ands
                                         << " (0: no IPP), pipeline " << pipeline);
                    session_options o = with_threads(threads);
                    o.ipp = ipp;
                    o.ipp_min_ands = ipp ? min_ands : exec::default_ipp_min_ands;
                    o.pipeline_streams = pipeline;
                    std::uint32_t got[2] = {};
                    run_stats stats[2];
                    rethrow(two_party(
                        make_wiring(threads - 1 + (ipp ? threads : 0)), o, o,
                        [&](session& s) {
                            got[0] = s.run(fn, in.x);
                            got[0] = s.run(fn, in.x);  // twice: the worlds' links stay in step
                            stats[0] = s.last_run();
                        },
                        [&](session& s) {
                            got[1] = s.run(fn, in.y);
                            got[1] = s.run(fn, in.y);
                            stats[1] = s.last_run();
                        }));
                    CHECK(got[0] == in.expected);
                    CHECK(got[1] == in.expected);
                    // A region (16 products, ~16 k ANDs, never cut between
                    // segments) reaches ipp_min_ands 8000: Bob garbles about half
                    // of the tables. Below 2^20 every segment runs as without IPP.
                    const bool split = min_ands == 8000;
                    CHECK((stats[0].transfer_ots > 0) == split);
                    CHECK((stats[1].transfer_ots > 0) == split);
                    if (split) CHECK(stats[1].bytes_sent > stats[0].bytes_sent / 3);
                    else CHECK(stats[1].bytes_sent < stats[0].bytes_sent / 10);
                }
    }
}

TEST_CASE("stream_session.biomatch_stream_equals_plaintext_raw_and_with_ipp") {
    // The streamed BioMatch of bench_ipp: Alice's database a sequence of
    // arrays, Bob's sample a single array (a party's single array beside the
    // other party's sequence of arrays once failed to compile in feeds_for).
    constexpr std::size_t n = 256;
    std::mt19937_64 rng(2611);
    std::array<std::array<std::uint64_t, 4>, n> db;
    for (auto& e : db)
        for (auto& x : e) x = rng() % 4096;
    const std::array<std::uint64_t, 4> sample{rng() % 4096, rng() % 4096, rng() % 4096, rng() % 4096};
    const std::vector<std::array<std::uint64_t, 4>> db_seq(db.begin(), db.end());
    const std::uint64_t expected = apps::biomatch_plain<n, 4>(db, sample);
    auto fn = apps::biomatch_stream<128>(n);
    REQUIRE(fn.eval_plain(db_seq, sample) == expected);
    for (const bool ipp : {false, true}) {
        INFO("ipp " << ipp << ", seed 2611");
        session_options o = with_threads(1);
        o.ipp = ipp;
        std::uint64_t got[2] = {};
        run_stats bob;
        rethrow(two_party(
            make_wiring(ipp ? 1 : 0), o, o, [&](session& s) { got[0] = s.run(fn, db_seq); },
            [&](session& s) {
                got[1] = s.run(fn, sample);
                bob = s.last_run();
            }));
        CHECK(got[0] == expected);
        CHECK(got[1] == expected);
        CHECK((bob.transfer_ots > 0) == ipp);  // each block's region (~1.9 M ANDs) is split
    }
}

}  // namespace stream_session_tests
