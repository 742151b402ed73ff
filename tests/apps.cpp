// The benchmark applications of paper 001 §6.2 (examples/apps.hpp), in
// plaintext: the circuit with parallel regions, the circuit written with plain
// loops and the C++ reference agree, at the paper's sizes and at small ones.
#include <doctest/doctest.h>

#include "../examples/apps.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace apps_tests {

namespace {

constexpr std::uint64_t max64 = UINT64_MAX;
constexpr std::uint32_t max32 = UINT32_MAX;
const std::initializer_list<std::uint64_t> seeds = {1, 2, 20261121, 0xC0FFEE};

// Full-size circuits, compiled once for the whole run.
const auto& biomatch_full() {
    static const auto c = apps::biomatch_circuit<>();
    return c;
}
const auto& biomatch_full_sequential() {
    static const auto c = apps::biomatch_sequential_circuit<>();
    return c;
}
const auto& mexp_full() {
    static const auto c = apps::mexp_circuit<>();
    return c;
}
const auto& mexp_full_sequential() {
    static const auto c = apps::mexp_sequential_circuit<>();
    return c;
}
const auto& mvmul_full() {
    static const auto c = apps::mvmul_circuit<>();
    return c;
}
const auto& mvmul_full_sequential() {
    static const auto c = apps::mvmul_sequential_circuit<>();
    return c;
}

/// apps::mexp_plain with the default modulus, as a two-argument function.
template <std::size_t K>
std::uint32_t mexp_plain_default(const std::array<std::uint32_t, K>& b, const std::array<std::uint32_t, K>& e) {
    return apps::mexp_plain<K>(b, e);
}

/// The three computations agree on one input set; returns the common result.
template <class Regions, class Sequential, class Plain, class... In>
auto agree(const Regions& regions, const Sequential& sequential, const Plain& plain, const In&... in) {
    const auto expected = plain(in...);
    CHECK(regions.eval_plain(in...) == expected);
    CHECK(sequential.eval_plain(in...) == expected);
    return expected;
}

template <std::size_t N, std::size_t D>
void biomatch_random(std::initializer_list<std::uint64_t> seeds_) {
    const auto regions = apps::biomatch_circuit<N, D>();
    const auto sequential = apps::biomatch_sequential_circuit<N, D>();
    for (const std::uint64_t seed : seeds_) {
        INFO("N = " << N << ", D = " << D << ", seed " << seed);
        const auto in = apps::make_biomatch_inputs<N, D>(seed);
        agree(regions, sequential, apps::biomatch_plain<N, D>, in.db, in.sample);
    }
}

template <std::size_t K>
void mexp_random(std::initializer_list<std::uint64_t> seeds_, std::uint32_t m) {
    const auto regions = apps::mexp_circuit<K>(m);
    const auto sequential = apps::mexp_sequential_circuit<K>(m);
    for (const std::uint64_t seed : seeds_) {
        INFO("K = " << K << ", m = " << m << ", seed " << seed);
        const auto in = apps::make_mexp_inputs<K>(seed);
        const auto r = agree(regions, sequential,
                             [m](const auto& b, const auto& e) { return apps::mexp_plain<K>(b, e, m); }, in.bases,
                             in.exps);
        CHECK(r < m);
    }
}

template <std::size_t R, std::size_t C>
void mvmul_random(std::initializer_list<std::uint64_t> seeds_) {
    const auto regions = apps::mvmul_circuit<R, C>();
    const auto sequential = apps::mvmul_sequential_circuit<R, C>();
    for (const std::uint64_t seed : seeds_) {
        INFO("R = " << R << ", C = " << C << ", seed " << seed);
        const auto in = apps::make_mvmul_inputs<R, C>(seed);
        agree(regions, sequential, apps::mvmul_plain<R, C>, in.matrix, in.vector);
    }
}

}  // namespace

// ---- BioMatch -----------------------------------------------------------------

TEST_CASE("apps.biomatch.plain") {
    for (const std::uint64_t seed : seeds) {
        INFO("seed " << seed);
        const auto in = apps::make_biomatch_inputs<>(seed);
        agree(biomatch_full(), biomatch_full_sequential(), apps::biomatch_plain<>, in.db, in.sample);
    }
}

TEST_CASE("apps.biomatch.small") {
    biomatch_random<1, 4>(seeds);
    biomatch_random<2, 1>(seeds);
    biomatch_random<5, 3>(seeds);  // odd counts: reduce carries a value up a level
    biomatch_random<8, 4>(seeds);
    biomatch_random<13, 2>(seeds);
}

TEST_CASE("apps.biomatch.edges") {
    constexpr std::size_t N = 6;
    const auto regions = apps::biomatch_circuit<N>();
    const auto sequential = apps::biomatch_sequential_circuit<N>();
    using db_t = std::array<std::array<std::uint64_t, 4>, N>;
    using sample_t = std::array<std::uint64_t, 4>;
    const auto check = [&](const db_t& db, const sample_t& s, std::uint64_t expected) {
        CHECK(agree(regions, sequential, apps::biomatch_plain<N>, db, s) == expected);
    };
    db_t db{};
    check(db, {0, 0, 0, 0}, 0);  // all zeros
    for (auto& e : db) e.fill(max64);
    check(db, {max64, max64, max64, max64}, 0);  // all ones
    check(db, {0, 0, 0, 0}, 4);                  // each difference is 1 mod 2^64
    for (auto& e : db) e.fill(std::uint64_t{1} << 32);
    check(db, {0, 0, 0, 0}, 0);  // (2^32)² wraps to 0
    for (auto& e : db) e.fill((std::uint64_t{1} << 32) + 1);
    check(db, {0, 0, 0, 0}, 4 * ((std::uint64_t{1} << 33) + 1));  // (2^32+1)² mod 2^64

    // The minimum at the first, a middle and the last entry; and ties.
    const auto in = apps::make_biomatch_inputs<N>(7);
    for (std::size_t best : {std::size_t{0}, std::size_t{3}, N - 1}) {
        INFO("exact match at entry " << best);
        db_t d = in.db;
        d[best] = in.sample;
        check(d, in.sample, 0);
        d[best][2] += 1;  // distance 1 (other entries are random: far larger)
        check(d, in.sample, 1);
    }
    db_t tie{};
    tie[1] = {3, 0, 0, 0};
    tie[4] = {0, 0, 0, 3};
    for (std::size_t i : {0, 2, 3, 5}) tie[i] = {100, 100, 100, 100};
    check(tie, {0, 0, 0, 0}, 9);
}

// ---- MExp ---------------------------------------------------------------------

TEST_CASE("apps.mexp.plain") {
    for (const std::uint64_t seed : seeds) {
        INFO("seed " << seed);
        const auto in = apps::make_mexp_inputs<>(seed);
        CHECK(agree(mexp_full(), mexp_full_sequential(), mexp_plain_default<32>, in.bases, in.exps) <
              apps::mexp_default_modulus);
    }
}

TEST_CASE("apps.mexp.small") {
    mexp_random<1>(seeds, apps::mexp_default_modulus);
    mexp_random<3>(seeds, apps::mexp_default_modulus);
    mexp_random<4>(seeds, 1000003u);
}

TEST_CASE("apps.mexp.edges") {
    constexpr std::uint32_t m = apps::mexp_default_modulus;
    constexpr std::size_t K = 4;
    const auto regions = apps::mexp_circuit<K>();
    const auto sequential = apps::mexp_sequential_circuit<K>();
    using arr = std::array<std::uint32_t, K>;
    const auto check = [&](const arr& b, const arr& e, std::uint32_t expected) {
        INFO("bases " << b[0] << " " << b[1] << " " << b[2] << " " << b[3] << ", exps " << e[0] << " " << e[1]
                      << " " << e[2] << " " << e[3]);
        CHECK(agree(regions, sequential, mexp_plain_default<K>, b, e) == expected);
    };
    check({0, 0, 0, 0}, {0, 0, 0, 0}, 1);                          // 0^0 = 1, like the reference
    check({12345, max32, 7, 0}, {0, 0, 0, 0}, 1);                  // exponent 0
    check({0, 5, 6, 7}, {1, 1, 1, 1}, 0);                          // base 0
    check({0, 1, 1, 1}, {max32, 1, 2, 3}, 0);                      // base 0, largest exponent
    check({1, 1, 1, 1}, {max32, max32, 0, 123456789}, 1);          // base 1
    check({2, 3, 5, 7}, {1, 1, 1, 1}, 210);                        // exponent 1
    check({2, 1, 1, 1}, {31, 0, 0, 0}, std::uint32_t{1} << 31);    // below m: no reduction
    check({2, 1, 1, 1}, {32, 0, 0, 0}, 5);                         // 2^32 ≡ 5 (mod 2^32 - 5)
    check({m, 1, 1, 1}, {3, 0, 0, 0}, 0);                          // base = m
    check({max32, 1, 1, 1}, {3, 0, 0, 0}, 64);                     // base 2^32 - 1 ≡ 4
    check({m - 1, 1, 1, 1}, {max32, 0, 0, 0}, m - 1);              // (-1)^odd = -1
    check({m - 1, m - 1, 1, 1}, {1, 1, 0, 0}, 1);                  // (-1)(-1): the tail reduces
    check({123456789, 987654321, 3, max32}, {m - 1, m - 1, m - 1, m - 1}, 1);  // Fermat
    // Each exponentiation below m but their product not: the tail reduces.
    check({65536, 65536, 1, 1}, {1, 1, 0, 0}, 5);
}

TEST_CASE("apps.mexp.modulus") {
    // Other public moduli, including 1 (everything is 0), 2, small primes and
    // composites, powers of two and the largest 32-bit value.
    for (const std::uint32_t m : {1u, 2u, 3u, 7u, 10u, 65536u, 65537u, 2147483648u, 4294967295u}) {
        mexp_random<2>({3, 4}, m);
        const auto c = apps::mexp_circuit<2>(m);
        INFO("m = " << m);
        CHECK(c.eval_plain({0, 0}, {0, 0}) == 1 % m);
        CHECK(c.eval_plain({max32, max32}, {max32, max32}) == apps::mexp_plain<2>({max32, max32}, {max32, max32}, m));
        CHECK(c.eval_plain({m, 5}, {1, 1}) == 0);
    }
    CHECK_THROWS_AS(apps::mexp_circuit<2>(0), std::invalid_argument);
    CHECK_THROWS_AS(apps::mexp_plain<2>({1, 1}, {1, 1}, 0), std::invalid_argument);
}

// ---- MVMul --------------------------------------------------------------------

TEST_CASE("apps.mvmul.plain") {
    for (const std::uint64_t seed : seeds) {
        INFO("seed " << seed);
        const auto in = apps::make_mvmul_inputs<>(seed);
        agree(mvmul_full(), mvmul_full_sequential(), apps::mvmul_plain<>, in.matrix, in.vector);
    }
}

TEST_CASE("apps.mvmul.small") {
    mvmul_random<1, 1>(seeds);
    mvmul_random<3, 5>(seeds);
    mvmul_random<4, 2>(seeds);
}

TEST_CASE("apps.mvmul.edges") {
    constexpr std::size_t n = 16;
    using matrix_t = std::array<std::array<std::uint64_t, n>, n>;
    using vector_t = std::array<std::uint64_t, n>;
    const auto check = [&](const matrix_t& a, const vector_t& v, const vector_t& expected) {
        CHECK(agree(mvmul_full(), mvmul_full_sequential(), apps::mvmul_plain<>, a, v) == expected);
    };
    const auto filled = [](std::uint64_t x) {
        vector_t v;
        v.fill(x);
        return v;
    };
    matrix_t a{};
    check(a, filled(max64), filled(0));  // zero matrix
    for (auto& row : a) row.fill(max64);
    check(a, filled(0), filled(0));            // zero vector
    check(a, filled(max64), filled(n));        // (2^64 - 1)² ≡ 1, sixteen times
    check(a, filled(1), filled(0 - n));        // sixteen times -1
    a = {};
    for (std::size_t i = 0; i < n; ++i) a[i][i] = 1;
    const auto v = apps::make_mvmul_inputs<>(5).vector;
    check(a, v, v);  // identity
    for (auto& row : a) row.fill(std::uint64_t{1} << 32);
    check(a, filled(std::uint64_t{1} << 32), filled(0));  // 2^64 wraps to 0
}

// ---- sizes --------------------------------------------------------------------

TEST_CASE("apps.stats") {
    const auto report = [](const std::string& name, const auto& regions, const auto& sequential) {
        const auto& r = regions.stats();
        const auto& s = sequential.stats();
        MESSAGE(name << ": " << r.and_gates << " ANDs (" << r.executed_gates << " gates executed, "
                     << r.stored_gates << " stored, " << r.regions.size() << " regions, AND depth " << r.and_depth
                     << "); sequential: " << s.and_gates << " ANDs, " << s.stored_gates << " stored, AND depth "
                     << s.and_depth);
        // Regions change how a circuit is stored and scheduled, not what it
        // computes. The ANDs differ only by common subexpressions merged at
        // lay-out, within a segment: recorded sequentially, MVMul's rows share
        // the Karatsuba sums of v's words (928,592 ANDs against 938,000 for
        // its instances, which merge only within a body), and MExp's regions
        // save a few more than its sequential segments.
        CHECK(r.and_gates <= s.and_gates + s.and_gates / 50);
        CHECK(s.and_gates <= r.and_gates + r.and_gates / 50);
        CHECK(r.stored_gates < s.stored_gates);
        CHECK(r.input_bits_alice == s.input_bits_alice);
        CHECK(r.input_bits_bob == s.input_bits_bob);
        CHECK(r.output_bits == s.output_bits);
        for (const auto& region : r.regions) {
            INFO(region.name);
            CHECK(region.deduplicated == (region.instances > 1));
        }
    };
    report("BioMatch", biomatch_full(), biomatch_full_sequential());
    report("MExp", mexp_full(), mexp_full_sequential());
    report("MVMul", mvmul_full(), mvmul_full_sequential());
    CHECK(biomatch_full().stats().input_bits_alice == 512 * 4 * 64);
    CHECK(biomatch_full().stats().input_bits_bob == 4 * 64);
    CHECK(mexp_full().stats().input_bits_alice == 32 * 32);
    CHECK(mvmul_full().stats().output_bits == 16 * 64);
}

}  // namespace apps_tests
