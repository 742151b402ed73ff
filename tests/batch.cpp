// session::run_batch: one circuit over many input sets in one run. The
// batched circuit (circuit/batch.hpp) validates and computes each set's
// outputs in order; two sessions over the in-memory pair get plaintext's
// results for every set (typed and untyped; 1 and 2 threads, with and
// without IPP, both hashes, both garbling schemes, every reveal); runs and batches mix in one
// session; mismatched batch sizes fail both sides with a message saying so.
#include "memory_sessions.hpp"
#include "random_inputs.hpp"

#include <tandem/circuit/validate.hpp>
#include <tandem/lib/aes.hpp>
#include <tandem/circuit/batch.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace batch_tests {

using namespace tandem;
using namespace tandem::test;

namespace {

using bits_t = std::vector<std::vector<bool>>;

auto millionaires() {
    return compile([](secure_int<32> a, secure_int<32> b) { return a > b; }, input<party::alice, secure_int<32>>,
                   input<party::bob, secure_int<32>>);
}

const circuit<>& bristol_aes() {
    static const circuit<> c = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    return c;
}

/// A circuit with a region: Alice's four values times Bob's one, each in an instance, and their sum.
auto with_region() {
    return compile(
        [](const std::array<secure_uint<16>, 4>& a, secure_uint<16> b) {
            const std::array<secure_uint<16>, 4> p = parallel_for<4>([&](std::size_t i) { return a[i] * b; });
            return std::make_tuple(p, p[0] + p[1] + p[2] + p[3]);
        },
        input<party::alice, std::array<secure_uint<16>, 4>>, input<party::bob, secure_uint<16>>);
}

/// Alice's inputs only, with constant outputs.
auto alice_only() {
    return compile([](secure_uint<8> a) { return std::make_tuple(a * a, a ^ a, ~(a ^ a)); },
                   input<party::alice, secure_uint<8>>);
}

/// Bob's inputs only (two of them).
auto bob_only() {
    return compile([](secure_uint<8> x, secure_bit neg) { return select(neg, x * x, x + x); },
                   input<party::bob, secure_uint<8>>, input<party::bob, secure_bit>);
}

session_options options(std::uint32_t threads, bool ipp, garbling_hash hash = garbling_hash::rekeyed,
                        garbling_scheme scheme = garbling_scheme::half_gates) {
    session_options o = with_threads(threads);
    o.ipp = ipp;
    o.ipp_min_ands = 1;  // split even small batches between the parties
    o.hash = hash;
    o.scheme = scheme;
    return o;
}

/// The hashes and schemes a test runs under: both hashes with half-gates, and three-halves.
struct garbling {
    garbling_hash hash;
    garbling_scheme scheme;
};
constexpr garbling garblings[] = {{garbling_hash::rekeyed, garbling_scheme::half_gates},
                                  {garbling_hash::fixed_key, garbling_scheme::half_gates},
                                  {garbling_hash::rekeyed, garbling_scheme::three_halves}};

std::size_t extra_links(const session_options& o) { return o.threads - 1 + (o.ipp ? o.threads : 0); }

outcome two_party(const session_options& o, const std::function<void(session&)>& alice,
                  const std::function<void(session&)>& bob) {
    return test::two_party(make_wiring(extra_links(o)), o, o, alice, bob);
}

/// The input values owned by p, from all input values.
bits_t owned(const circuit<>& c, const bits_t& all, party p) {
    bits_t r;
    for (std::size_t v = 0; v < all.size(); ++v)
        if (c.data().inputs[v].owner == p) r.push_back(all[v]);
    return r;
}

std::vector<bits_t> random_sets(const circuit<>& c, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<bits_t> sets;
    for (std::size_t k = 0; k < n; ++k) sets.push_back(random_inputs(c, rng));
    return sets;
}

/// One untyped run_bits_batch of c on `sets` between two sessions: each
/// side's results equal plaintext's, set by set, for whoever learns them.
/// Returns Alice's run_stats.
run_stats check_bits_batch(const circuit<>& c, const std::vector<bits_t>& sets, reveal who,
                           const session_options& o) {
    std::optional<std::vector<bits_t>> got_a, got_b;
    run_stats stats;
    const auto mine = [&](party p) {
        std::vector<bits_t> r;
        for (const bits_t& s : sets) r.push_back(owned(c, s, p));
        return r;
    };
    rethrow(two_party(
        o,
        [&](session& s) {
            got_a = s.run_bits_batch(who, c, mine(party::alice));
            stats = s.last_run();
        },
        [&](session& s) { got_b = s.run_bits_batch(who, c, mine(party::bob)); }));
    CHECK(got_a.has_value() == (who != reveal::bob));
    CHECK(got_b.has_value() == (who != reveal::alice));
    for (const auto* got : {&got_a, &got_b}) {
        if (!got->has_value()) continue;
        REQUIRE((*got)->size() == sets.size());
        for (std::size_t k = 0; k < sets.size(); ++k) {
            INFO("set " << k);
            CHECK((**got)[k] == eval_plain_bits(c, sets[k]));
        }
    }
    return stats;
}

}  // namespace

TEST_CASE("batch.batched_circuit_validates_and_computes_each_set") {
    const std::vector<std::pair<const char*, circuit<>>> circuits{
        {"millionaires", millionaires()}, {"bristol aes", bristol_aes()}, {"region", with_region()},
        {"alice only, constants", alice_only()}, {"bob only", bob_only()}};
    for (const auto& entry : circuits) {
        const char* name = entry.first;
        const circuit<>& c = entry.second;
        for (std::uint64_t n : {0, 1, 3}) {
            const std::uint64_t seed = 1500 + n;
            INFO(name << ", " << n << " sets, seed " << seed);
            const circuit<> b = detail::make_batched(c, n);
            CHECK_NOTHROW(detail::validate_circuit(b.data()));
            CHECK(b.stats().and_gates == n * c.stats().and_gates);
            CHECK(b.data().inputs.size() == n * c.data().inputs.size());
            CHECK(b.data().outputs.size() == n * c.data().outputs.size());
            const std::vector<bits_t> sets = random_sets(c, n, seed);
            bits_t all;
            for (const bits_t& s : sets) all.insert(all.end(), s.begin(), s.end());
            const bits_t out = eval_plain_bits(b, all);
            const std::size_t per_set = c.data().outputs.size();
            for (std::size_t k = 0; k < n; ++k) {
                INFO("set " << k);
                const bits_t part(out.begin() + static_cast<std::ptrdiff_t>(k * per_set),
                                  out.begin() + static_cast<std::ptrdiff_t>((k + 1) * per_set));
                CHECK(part == eval_plain_bits(c, sets[k]));
            }
        }
    }
    // Constant outputs stay constants (a ^ a and ~(a ^ a): bits 8 to 23).
    const circuit<> one = alice_only();
    const circuit<> b = detail::make_batched(one, 2);
    const std::size_t per_set = one.data().output_slots.size();
    for (std::size_t k = 0; k < 2 * per_set; ++k) {
        INFO("output bit " << k);
        const std::uint32_t was = one.data().output_slots[k % per_set], is = b.data().output_slots[k];
        if (was == output_false || was == output_true) CHECK(is == was);
        else CHECK(is < output_false);
        if (k % per_set >= 8) CHECK(is == (k % per_set < 16 ? output_false : output_true));
    }
}

TEST_CASE("batch.typed_results_equal_plaintext") {
    const auto c = millionaires();
    for (std::uint32_t threads : {1u, 2u})
        for (bool ipp : {false, true})
            for (const garbling g : garblings)
                for (std::size_t n : {1, 2, 100}) {
                    const std::uint64_t seed = 1600 + n;
                    INFO("threads " << threads << ", ipp " << ipp << ", hash " << to_string(g.hash) << ", "
                                    << to_string(g.scheme) << ", " << n << " sets, seed " << seed);
                    std::mt19937_64 rng(seed);
                    std::vector<std::int32_t> a(n), b(n);
                    for (auto& x : a) x = static_cast<std::int32_t>(rng());
                    for (auto& x : b) x = static_cast<std::int32_t>(rng() % 4 == 0 ? 0 : rng());
                    b[0] = a[0];  // equal values: a > b is false
                    std::vector<bool> got_a, got_b;
                    rethrow(two_party(
                        options(threads, ipp, g.hash, g.scheme), [&](session& s) { got_a = s.run_batch(c, a); },
                        [&](session& s) { got_b = s.run_batch(c, b); }));
                    REQUIRE(got_a.size() == n);
                    CHECK(got_b == got_a);
                    for (std::size_t k = 0; k < n; ++k) {
                        INFO("set " << k);
                        CHECK(got_a[k] == c.eval_plain(a[k], b[k]));
                    }
                }
}

TEST_CASE("batch.aes") {
    SUBCASE("bristol, 100 sets, 2 threads with IPP") {
        const std::vector<bits_t> sets = random_sets(bristol_aes(), 100, 1700);
        INFO("seed 1700");
        const run_stats st = check_bits_batch(bristol_aes(), sets, reveal::both, options(2, true));
        CHECK(st.and_gates == 100 * bristol_aes().stats().and_gates);
        CHECK(st.transfer_ots > 0);  // IPP gave some of the sets to Bob's world
    }
    SUBCASE("bristol, 2 sets, 1 thread") {
        const std::vector<bits_t> sets = random_sets(bristol_aes(), 2, 1701);
        INFO("seed 1701");
        check_bits_batch(bristol_aes(), sets, reveal::both, options(1, false));
    }
    SUBCASE("tandem::lib, typed, 3 sets") {
        const auto c =
            compile([](const lib::aes_key<16>& k, const lib::aes_block& b) { return lib::aes_encrypt(k, b); },
                    input<party::alice, lib::aes_key<16>>, input<party::bob, lib::aes_block>);
        using bytes = std::array<std::uint8_t, 16>;
        std::mt19937_64 rng(1702);
        INFO("seed 1702");
        std::vector<bytes> keys(3), blocks(3);
        for (auto* v : {&keys, &blocks})
            for (bytes& x : *v)
                for (auto& byte : x) byte = static_cast<std::uint8_t>(rng());
        std::vector<bytes> got_a, got_b;
        rethrow(two_party(
            options(2, false), [&](session& s) { got_a = s.run_batch(c, keys); },
            [&](session& s) { got_b = s.run_batch(c, blocks); }));
        REQUIRE(got_a.size() == 3);
        CHECK(got_b == got_a);
        for (std::size_t k = 0; k < 3; ++k) CHECK(got_a[k] == c.eval_plain(keys[k], blocks[k]));
    }
}

TEST_CASE("batch.regions_constants_and_one_sided_inputs") {
    for (std::uint32_t threads : {1u, 2u})
        for (bool ipp : {false, true}) {
            INFO("threads " << threads << ", ipp " << ipp << ", seed 1800");
            const session_options o = options(threads, ipp);
            // A region inside each set.
            const auto r = with_region();
            std::mt19937_64 rng(1800);
            std::vector<std::array<std::uint16_t, 4>> xs(5);
            std::vector<std::uint16_t> ys(5);
            for (auto& x : xs)
                for (auto& v : x) v = static_cast<std::uint16_t>(rng());
            for (auto& y : ys) y = static_cast<std::uint16_t>(rng());
            // Alice only, with constant outputs: Bob passes the number of sets.
            const auto ao = alice_only();
            const std::vector<std::uint8_t> as{0, 1, 13, 255};
            // Bob only, two inputs per set as tuples: Alice passes the number of sets.
            const auto bo = bob_only();
            const std::vector<std::tuple<std::uint8_t, bool>> bs{{3, false}, {3, true}, {200, false}};
            using r_out = decltype(r)::output_type;
            using ao_out = decltype(ao)::output_type;
            std::vector<r_out> r_a, r_b;
            std::vector<ao_out> ao_a, ao_b;
            std::vector<std::uint8_t> bo_a, bo_b;
            rethrow(two_party(
                o,
                [&](session& s) {
                    r_a = s.run_batch(r, xs);
                    ao_a = s.run_batch(ao, as);
                    bo_a = s.run_batch(bo, bs.size());
                },
                [&](session& s) {
                    r_b = s.run_batch(r, ys);
                    ao_b = s.run_batch(ao, as.size());
                    bo_b = s.run_batch(bo, bs);
                }));
            REQUIRE(r_a.size() == xs.size());
            CHECK(r_b == r_a);
            for (std::size_t k = 0; k < xs.size(); ++k) CHECK(r_a[k] == r.eval_plain(xs[k], ys[k]));
            REQUIRE(ao_a.size() == as.size());
            CHECK(ao_b == ao_a);
            for (std::size_t k = 0; k < as.size(); ++k) {
                CHECK(ao_a[k] == ao.eval_plain(as[k]));
                CHECK(std::get<1>(ao_a[k]) == 0);
                CHECK(std::get<2>(ao_a[k]) == 255);
            }
            REQUIRE(bo_a.size() == bs.size());
            CHECK(bo_b == bo_a);
            for (std::size_t k = 0; k < bs.size(); ++k) {
                const std::uint8_t x = std::get<0>(bs[k]);
                const bool neg = std::get<1>(bs[k]);
                CHECK(bo_a[k] == bo.eval_plain(x, neg));
            }
        }
}

TEST_CASE("batch.reveal") {
    const auto c = millionaires();
    const std::vector<std::int32_t> a{5, -7, 100, 0}, b{4, -7, 101, -1};
    for (reveal who : {reveal::both, reveal::alice, reveal::bob})
        for (bool ipp : {false, true}) {
            INFO("reveal " << to_string(who) << ", ipp " << ipp);
            std::optional<std::vector<bool>> got_a, got_b;
            rethrow(two_party(
                options(2, ipp), [&](session& s) { got_a = s.run_batch(who, c, a); },
                [&](session& s) { got_b = s.run_batch(who, c, b); }));
            CHECK(got_a.has_value() == (who != reveal::bob));
            CHECK(got_b.has_value() == (who != reveal::alice));
            const std::vector<bool> expected{true, false, false, true};
            if (got_a) CHECK(*got_a == expected);
            if (got_b) CHECK(*got_b == expected);
        }
    // Untyped, every reveal, on a circuit with constant outputs.
    const std::vector<bits_t> sets = random_sets(alice_only(), 3, 1900);
    for (reveal who : {reveal::both, reveal::alice, reveal::bob}) {
        INFO("untyped, reveal " << to_string(who) << ", seed 1900");
        check_bits_batch(alice_only(), sets, who, options(1, false));
    }
}

TEST_CASE("batch.runs_and_batches_mix_in_one_session") {
    const auto c = millionaires();
    const std::vector<std::int32_t> a{1, 2, 3}, b{2, 2, 2};
    bool r1 = false, r2 = true;
    std::vector<bool> b1, b2, b3, empty_a, empty_b;
    rethrow(two_party(
        options(2, false),
        [&](session& s) {
            r1 = s.run(c, 10);
            b1 = s.run_batch(c, a);
            empty_a = s.run_batch(c, std::vector<std::int32_t>{});
            r2 = s.run(c, 1);
            b2 = s.run_batch(c, a);  // the cached batched circuit
            b3 = s.run_batch(c, std::vector<std::int32_t>{3});
        },
        [&](session& s) {
            s.run(c, 3);
            s.run_batch(c, b);
            empty_b = s.run_batch(c, std::vector<std::int32_t>{});
            s.run(c, 3);
            s.run_batch(c, b);
            s.run_batch(c, std::vector<std::int32_t>{2});
        }));
    CHECK(r1);
    CHECK(!r2);
    CHECK(b1 == std::vector<bool>{false, false, true});
    CHECK(b2 == b1);
    CHECK(b3 == std::vector<bool>{true});
    CHECK(empty_a.empty());
    CHECK(empty_b.empty());
}

TEST_CASE("batch.mismatched_batches_fail_both_sides") {
    const auto c = millionaires();
    const auto fails_both = [&](const std::function<void(session&)>& alice, const std::function<void(session&)>& bob,
                                const char* expected) {
        const outcome o = two_party(options(1, false), alice, bob);
        for (const std::exception_ptr& e : {o.alice, o.bob}) {
            REQUIRE(e);
            const std::string what = message_of(e);
            INFO(what);
            CHECK_THROWS_AS(std::rethrow_exception(e), tandem::error);
            CHECK(what.find(expected) != std::string::npos);
            CHECK(what.find("same number of input sets") != std::string::npos);
        }
    };
    SUBCASE("3 sets against 4") {
        fails_both([&](session& s) { s.run_batch(c, std::vector<std::int32_t>(3)); },
                   [&](session& s) { s.run_batch(c, std::vector<std::int32_t>(4)); }, "input sets of this circuit");
    }
    SUBCASE("an empty batch against 2 sets") {
        fails_both([&](session& s) { s.run_batch(c, std::vector<std::int32_t>{}); },
                   [&](session& s) { s.run_batch(c, std::vector<std::int32_t>(2)); }, "input sets of this circuit");
    }
    SUBCASE("run() against a batch of one") {
        fails_both([&](session& s) { s.run(c, 1); }, [&](session& s) { s.run_batch(c, std::vector<std::int32_t>{1}); },
                   "run_batch()");
    }
    SUBCASE("run() against a batch of three") {
        fails_both([&](session& s) { s.run(c, 1); },
                   [&](session& s) { s.run_batch(c, std::vector<std::int32_t>(3)); }, "run_batch()");
    }
}

TEST_CASE("batch.bad_sets_fail_before_sending") {
    const circuit<> c = millionaires();
    std::optional<std::vector<bits_t>> got_a, got_b;
    rethrow(two_party(
        options(1, false),
        [&](session& s) {
            // Set 1 has a 31-bit value: refused before anything is sent; the session stays usable.
            const std::vector<bits_t> bad{bits_t{std::vector<bool>(32)}, bits_t{std::vector<bool>(31)}};
            CHECK_THROWS_WITH_AS(s.run_bits_batch(reveal::both, c, bad), doctest::Contains("input set 1"),
                                 usage_error);
            got_a = s.run_bits_batch(reveal::both, c, std::vector<bits_t>{bits_t{std::vector<bool>(32, true)}});
        },
        [&](session& s) { got_b = s.run_bits_batch(reveal::both, c, std::vector<bits_t>{bits_t{std::vector<bool>(32, false)}}); }));
    REQUIRE(got_a);
    CHECK(got_b == got_a);
    CHECK((*got_a)[0][0] == std::vector<bool>{false});  // -1 > 0 is false
}

TEST_CASE("batch.one_header_and_one_ot_extension") {
    const auto c = millionaires();
    const std::vector<std::int32_t> a{10, 20, 30, 40}, b{15, 15, 15, 15};
    run_stats sa{}, sb{};
    rethrow(two_party(
        options(1, false),
        [&](session& s) {
            CHECK(s.run_batch(c, a) == std::vector<bool>{false, true, true, true});
            sa = s.last_run();
        },
        [&](session& s) {
            s.run_batch(c, b);
            sb = s.last_run();
        }));
    const std::uint64_t header = 6 * 8 + 3 * 4 + 2, ands = 4 * c.stats().and_gates;
    CHECK(sa.and_gates == ands);
    // alice: one header, one hash start, 4 x 32 labels, tables, 2 x 8-byte hashes per output bit.
    CHECK(sa.bytes_sent == header + 16 + 4 * 32 * 16 + 32 * ands + 4 * 16);
    // bob: one header, one OT extension (its count, 128 columns of one bit per input bit: 128 bits, 16 bytes
    // each), his 4 output labels.
    CHECK(sb.bytes_sent == header + 8 + 128 * 16 + 4 * 16);
}

}  // namespace batch_tests
