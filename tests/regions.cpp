// Parallel regions end to end: parallel_for / reduce record the same function
// as plain loops (many value types, odd counts, pass-through and constant
// results, misuse caught and named); identical instances are stored once and
// differing ones apart; stats, flatten(), Bristol export and fingerprints see
// through regions; plans' tasks wait only for the slots they share, and the
// executor runs them so; gc::garble and exec::garble with 1..4 workers (and FGP)
// decode to the plaintext result; sessions with threads = 1, 2, 4 over
// in-memory worker links, thread mismatches and a worker link cut mid-run.
#include <doctest/doctest.h>

#include "exception_text.hpp"
#include "memory_sessions.hpp"
#include "random_inputs.hpp"

#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace regions_tests {

using namespace tandem;
using namespace tandem::test;
using namespace std::chrono_literals;

namespace {

using u8 = secure_uint<8>;
using u32 = secure_uint<32>;
using u64 = secure_uint<64>;
using bits_t = std::vector<std::vector<bool>>;

// ---- helpers -------------------------------------------------------------------

/// "parallel_for at regions.cpp:<line>" as the library names a region.
std::string region_at(const char* what, int line) {
    return std::string(what) + " at regions.cpp:" + std::to_string(line);
}


std::vector<bool> flat(const bits_t& v) {
    std::vector<bool> r;
    for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
    return r;
}

template <class T, std::size_t N>
std::array<T, N> random_array(std::mt19937_64& rng) {
    std::array<T, N> a{};
    for (auto& x : a) x = static_cast<T>(rng());
    return a;
}

circuit<> bristol_round_trip(const circuit<>& c) {
    std::stringstream s;
    bristol::write(s, c);
    std::vector<party> owners;
    for (const value_layout& v : c.data().inputs) owners.push_back(v.owner);
    return bristol::read(s, "round-trip", owners);
}

std::size_t sequential_steps(const circuit<>& c) {
    std::size_t n = 0;
    for (const step& s : c.data().steps) n += s.kind == step_kind::sequential ? 1 : 0;
    return n;
}

// ---- programs ------------------------------------------------------------------

/// a[i] * b[i] + (a[i] ^ b[i+1 mod N]), element-wise, and the sum of it all.
template <class T, std::size_t N>
auto elementwise_body(const std::array<T, N>& a, const std::array<T, N>& b) {
    return [&a, &b](std::size_t i) -> T { return a[i] * b[i] + (a[i] ^ b[(i + 1) % N]); };
}

template <class T, std::size_t N>
auto elementwise_regions() {
    return compile(
        [](const std::array<T, N>& a, const std::array<T, N>& b) {
            const std::array<T, N> r = parallel_for<N>(elementwise_body<T, N>(a, b));
            const T sum = reduce(r, [](const T& x, const T& y) { return x + y; });
            return std::make_tuple(r, sum);
        },
        input<party::alice, std::array<T, N>>, input<party::bob, std::array<T, N>>);
}

template <class T, std::size_t N>
auto elementwise_runtime_count() {
    return compile(
        [](const std::array<T, N>& a, const std::array<T, N>& b) {
            const std::vector<T> v = parallel_for(N, elementwise_body<T, N>(a, b));
            std::array<T, N> r;
            for (std::size_t i = 0; i < N; ++i) r[i] = v[i];
            const T sum = reduce(v, [](const T& x, const T& y) { return x + y; });
            return std::make_tuple(r, sum);
        },
        input<party::alice, std::array<T, N>>, input<party::bob, std::array<T, N>>);
}

template <class T, std::size_t N>
auto elementwise_loops() {
    return compile(
        [](const std::array<T, N>& a, const std::array<T, N>& b) {
            std::array<T, N> r;
            const auto body = elementwise_body<T, N>(a, b);
            for (std::size_t i = 0; i < N; ++i) r[i] = body(i);
            T sum = r[0];
            for (std::size_t i = 1; i < N; ++i) sum = sum + r[i];
            return std::make_tuple(r, sum);
        },
        input<party::alice, std::array<T, N>>, input<party::bob, std::array<T, N>>);
}

template <class P, std::size_t N>
std::tuple<std::array<P, N>, P> elementwise_plain(const std::array<P, N>& a, const std::array<P, N>& b) {
    std::array<P, N> r{};
    P sum = 0;
    for (std::size_t i = 0; i < N; ++i) {
        r[i] = static_cast<P>(static_cast<P>(a[i] * b[i]) + static_cast<P>(a[i] ^ b[(i + 1) % N]));
        sum = static_cast<P>(sum + r[i]);
    }
    return {r, sum};
}

/// 2x2 matrices of bytes, multiplied mod 256: associative, not commutative,
/// so reduce must keep the order of the values.
using mat = std::array<u8, 4>;
using plain_mat = std::array<std::uint8_t, 4>;

mat mat_mul(const mat& x, const mat& y) {
    return {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
            x[2] * y[1] + x[3] * y[3]};
}
plain_mat plain_mat_mul(const plain_mat& x, const plain_mat& y) {
    const auto m = [](int a, int b, int c, int d) { return static_cast<std::uint8_t>(a * b + c * d); };
    return {m(x[0], y[0], x[1], y[2]), m(x[0], y[1], x[1], y[3]), m(x[2], y[0], x[3], y[2]),
            m(x[2], y[1], x[3], y[3])};
}

/// Bodies whose structure depends on i: a product, a sum, a pass-through.
u32 by_kind(const u32& a, const u32& b, std::size_t i) {
    switch (i % 3) {
        case 0: return a * b;
        case 1: return a + b;
        default: return a;
    }
}
template <std::size_t N>
auto differing_regions() {
    return compile(
        [](const std::array<u32, N>& a, const std::array<u32, N>& b) {
            return parallel_for<N>([&](std::size_t i) { return by_kind(a[i], b[i], i); });
        },
        input<party::alice, std::array<u32, N>>, input<party::bob, std::array<u32, N>>);
}
template <std::size_t N>
auto differing_loops() {
    return compile(
        [](const std::array<u32, N>& a, const std::array<u32, N>& b) {
            std::array<u32, N> r;
            for (std::size_t i = 0; i < N; ++i) r[i] = by_kind(a[i], b[i], i);
            return r;
        },
        input<party::alice, std::array<u32, N>>, input<party::bob, std::array<u32, N>>);
}

/// Results that are not (only) the instance's own gates: a pass-through outer
/// value, a constant, the same wire twice, complements, XOR with i (the same
/// gates for every instance, complemented differently).
using odd_result = std::tuple<u8, u8, u8, u8, u8, u8, u8, secure_bit>;
odd_result odd_body(const std::array<u8, 5>& a, const std::array<u8, 5>& b, const secure_bit& f, std::size_t i) {
    const u8 s = a[i] + b[i];
    return {a[i], u8(static_cast<std::uint8_t>(3 * i + 1)), s, s, ~s, ~a[i], s ^ static_cast<std::uint8_t>(i), ~f};
}
auto odd_regions() {
    return compile(
        [](const std::array<u8, 5>& a, const std::array<u8, 5>& b, secure_bit f) {
            return parallel_for<5>([&](std::size_t i) { return odd_body(a, b, f, i); });
        },
        input<party::alice, std::array<u8, 5>>, input<party::bob, std::array<u8, 5>>, input<party::bob, secure_bit>);
}
auto odd_loops() {
    return compile(
        [](const std::array<u8, 5>& a, const std::array<u8, 5>& b, secure_bit f) {
            std::array<odd_result, 5> r;
            for (std::size_t i = 0; i < 5; ++i) r[i] = odd_body(a, b, f, i);
            return r;
        },
        input<party::alice, std::array<u8, 5>>, input<party::bob, std::array<u8, 5>>, input<party::bob, secure_bit>);
}

/// Regions inside region bodies (inlined), with sequential gates before,
/// between and after the outer regions.
auto nested_regions() {
    return compile(
        [](const std::array<u32, 3>& a, const std::array<u32, 4>& b) {
            const u32 bias = a[0] * b[0];  // sequential, before
            const auto rows = parallel_for<3>([&](std::size_t i) {
                const auto products = parallel_for<4>([&](std::size_t j) { return a[i] * b[j] + bias; });
                return reduce(products, [](const u32& x, const u32& y) { return x ^ y; });
            });
            const u32 mid = rows[0] + rows[2];  // sequential, between
            const auto again = parallel_for(std::size_t{3}, [&](std::size_t i) { return rows[i] - mid; });
            return std::make_tuple(rows, again[0] * again[1] + again[2]);  // sequential, after
        },
        input<party::alice, std::array<u32, 3>>, input<party::bob, std::array<u32, 4>>);
}
std::tuple<std::array<std::uint32_t, 3>, std::uint32_t> nested_plain(const std::array<std::uint32_t, 3>& a,
                                                                     const std::array<std::uint32_t, 4>& b) {
    const std::uint32_t bias = a[0] * b[0];
    std::array<std::uint32_t, 3> rows{};
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) rows[i] ^= a[i] * b[j] + bias;
    const std::uint32_t mid = rows[0] + rows[2];
    std::array<std::uint32_t, 3> again{};
    for (std::size_t i = 0; i < 3; ++i) again[i] = rows[i] - mid;
    return {rows, again[0] * again[1] + again[2]};
}

/// n instances of a 64-bit product: enough tables to share among workers.
template <std::size_t N>
auto products() {
    return compile(
        [](const std::array<u64, N>& a, const std::array<u64, N>& b) {
            return parallel_for<N>([&](std::size_t i) { return a[i] * b[i]; });
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

// ---- garbling --------------------------------------------------------------------

/// gc::garble + gc::evaluate in memory; decoded output bits.
std::vector<bool> garbled_run(const circuit<>& c, const bits_t& in, std::uint64_t seed) {
    prg rng(block(seed, 99));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble(c, rng, tables);
    CHECK(tables.tables().size() == 2 * c.stats().and_gates);
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k)
            active.push_back(g.input.label(c.data().inputs[v].first_bit + k, in[v][k]));
    gc::table_reader reader(tables.tables());
    const std::vector<block> out = gc::evaluate(c, g.hash_start, reader, active);
    CHECK(reader.remaining() == 0);
    return gc::decode(out, g.output);
}

struct exec_result {
    std::vector<bool> bits;
    std::vector<block> tables;  // all workers' tables, worker 0 first
};

/// exec::garble + exec::evaluate with `workers` workers, one table buffer each.
exec_result exec_run(const circuit<>& c, const bits_t& in, std::uint64_t seed, std::uint32_t workers,
                     std::uint32_t fgp_min_ands) {
    const exec::plan p = exec::make_plan(c, workers, fgp_min_ands);
    prg rng(block(seed, 7));
    gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    rng.fill(enc.zero_labels.data(), enc.zero_labels.size());
    const block hash_start = rng.next();
    std::vector<gc::table_buffer> buffers(workers);
    std::vector<gc::table_buffer*> sinks;
    for (auto& b : buffers) sinks.push_back(&b);
    const gc::garbled_outputs g =
        exec::garble<rekeyed_hash>(p, c, enc, hash_start, std::span<gc::table_buffer* const>(sinks));
    CHECK(g.and_gates == c.stats().and_gates);
    exec_result r;
    std::vector<gc::table_reader> readers;
    for (std::uint32_t w = 0; w < workers; ++w) {
        CHECK(buffers[w].tables().size() == 2 * p.worker_ands[w]);
        r.tables.insert(r.tables.end(), buffers[w].tables().begin(), buffers[w].tables().end());
        readers.emplace_back(buffers[w].tables());
    }
    CHECK(r.tables.size() == 2 * c.stats().and_gates);
    std::vector<gc::table_reader*> sources;
    for (auto& rd : readers) sources.push_back(&rd);
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k)
            active.push_back(enc.label(c.data().inputs[v].first_bit + k, in[v][k]));
    const std::vector<block> out =
        exec::evaluate<rekeyed_hash>(p, c, hash_start, std::span<gc::table_reader* const>(sources), active);
    for (const auto& rd : readers) CHECK(rd.remaining() == 0);
    r.bits = gc::decode(out, g.output);
    return r;
}

/// Every way of garbling c decodes to eval_plain on random inputs.
void check_garbling(const std::string& name, const circuit<>& c, std::uint64_t seed, int sets = 2) {
    std::mt19937_64 rng(seed);
    for (int t = 0; t < sets; ++t) {
        INFO(name << ", seed " << seed << ", set " << t);
        const bits_t in = random_inputs(c, rng);
        const std::vector<bool> expected = flat(eval_plain_bits(c, in));
        CHECK(garbled_run(c, in, seed + t) == expected);
        for (std::uint32_t fgp : {exec::default_fgp_min_ands, 16u}) {
            for (std::uint32_t w = 1; w <= 4; ++w) {
                INFO("workers " << w << ", fgp_min_ands " << fgp);
                CHECK(exec_run(c, in, seed + t, w, fgp).bits == expected);
            }
        }
    }
}

}  // namespace

// =====================================================================================
// 1. DSL and recording
// =====================================================================================

namespace {

template <class T, class P, std::size_t N>
void check_elementwise(std::uint64_t seed) {
    const auto regions = elementwise_regions<T, N>();
    const auto runtime = elementwise_runtime_count<T, N>();
    const auto loops = elementwise_loops<T, N>();
    CHECK(regions.data().regions.size() >= 1);
    CHECK(runtime.data().regions.size() == regions.data().regions.size());
    CHECK(loops.data().regions.empty());
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 4; ++t) {
        INFO("bits " << sizeof(P) * 8 << ", N " << N << ", seed " << seed << ", set " << t);
        const auto a = random_array<P, N>(rng);
        const auto b = random_array<P, N>(rng);
        const auto expected = elementwise_plain<P, N>(a, b);
        CHECK(regions.eval_plain(a, b) == expected);
        CHECK(runtime.eval_plain(a, b) == expected);
        CHECK(loops.eval_plain(a, b) == expected);
    }
}

}  // namespace

TEST_CASE("regions.dsl.parallel_for_equals_loops_for_integer_types") {
    check_elementwise<u8, std::uint8_t, 7>(101);
    check_elementwise<u32, std::uint32_t, 4>(102);
    check_elementwise<u64, std::uint64_t, 3>(103);
    check_elementwise<u64, std::uint64_t, 1>(104);
    check_elementwise<u8, std::uint8_t, 2>(105);
}

TEST_CASE("regions.dsl.bits_arrays_and_tuples") {
    // secure_bit results, std::array results and std::tuple results.
    const auto regions = compile(
        [](const std::array<secure_bit, 6>& x, const std::array<u8, 6>& a, const std::array<u8, 6>& b) {
            const auto bits =
                parallel_for<6>([&](std::size_t i) { return (x[i] & x[(i + 1) % 6]) | ~x[(i + 2) % 6]; });
            const auto pairs = parallel_for<6>(
                [&](std::size_t i) { return std::array<u8, 2>{a[i] + b[i], select(x[i], a[i], b[i])}; });
            const auto tuples =
                parallel_for(6, [&](std::size_t i) { return std::make_tuple(a[i] < b[i], a[i] * b[i]); });
            std::array<std::tuple<secure_bit, u8>, 6> t;
            for (std::size_t i = 0; i < 6; ++i) t[i] = tuples[i];
            return std::make_tuple(bits, pairs, t);
        },
        input<party::alice, std::array<secure_bit, 6>>, input<party::alice, std::array<u8, 6>>,
        input<party::bob, std::array<u8, 6>>);
    const auto loops = compile(
        [](const std::array<secure_bit, 6>& x, const std::array<u8, 6>& a, const std::array<u8, 6>& b) {
            std::array<secure_bit, 6> bits;
            std::array<std::array<u8, 2>, 6> pairs;
            std::array<std::tuple<secure_bit, u8>, 6> t;
            for (std::size_t i = 0; i < 6; ++i) {
                bits[i] = (x[i] & x[(i + 1) % 6]) | ~x[(i + 2) % 6];
                pairs[i] = {a[i] + b[i], select(x[i], a[i], b[i])};
                t[i] = std::make_tuple(a[i] < b[i], a[i] * b[i]);
            }
            return std::make_tuple(bits, pairs, t);
        },
        input<party::alice, std::array<secure_bit, 6>>, input<party::alice, std::array<u8, 6>>,
        input<party::bob, std::array<u8, 6>>);
    CHECK(regions.data().regions.size() == 3);
    const std::uint64_t seed = 201;
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 6; ++t) {
        INFO("seed " << seed << ", set " << t);
        std::array<bool, 6> x{};
        for (auto& v : x) v = (rng() & 1) != 0;
        const auto a = random_array<std::uint8_t, 6>(rng);
        const auto b = random_array<std::uint8_t, 6>(rng);
        const auto got = regions.eval_plain(x, a, b);
        CHECK(got == loops.eval_plain(x, a, b));
        for (std::size_t i = 0; i < 6; ++i) {
            CHECK(std::get<0>(got)[i] == ((x[i] && x[(i + 1) % 6]) || !x[(i + 2) % 6]));
            CHECK(std::get<1>(got)[i][0] == static_cast<std::uint8_t>(a[i] + b[i]));
            CHECK(std::get<1>(got)[i][1] == (x[i] ? a[i] : b[i]));
            CHECK(std::get<0>(std::get<2>(got)[i]) == (a[i] < b[i]));
            CHECK(std::get<1>(std::get<2>(got)[i]) == static_cast<std::uint8_t>(a[i] * b[i]));
        }
    }
}

namespace {

/// reduce over N values of several types equals a left fold written as a loop.
template <std::size_t N>
void check_reduce(std::uint64_t seed) {
    using in_t = std::array<mat, N>;
    auto fn = [](bool use_reduce) {
        return [use_reduce](const in_t& m, const std::array<u32, N>& v, const std::array<secure_bit, N>& x) {
            mat prod;
            u32 mn;
            secure_bit parity, all;
            std::tuple<u32, secure_bit> pair;
            if (use_reduce) {
                prod = reduce(m, [](const mat& p, const mat& q) { return mat_mul(p, q); });
                mn = reduce(v, [](const u32& p, const u32& q) { return select(p < q, p, q); });
                parity = reduce(x, [](const secure_bit& p, const secure_bit& q) { return p ^ q; });
                all = reduce(std::vector<secure_bit>(x.begin(), x.end()),
                             [](const secure_bit& p, const secure_bit& q) { return p & q; });
                std::array<std::tuple<u32, secure_bit>, N> t;
                for (std::size_t i = 0; i < N; ++i) t[i] = {v[i], x[i]};
                using P = std::tuple<u32, secure_bit>;
                pair = reduce(t, [](const P& p, const P& q) {
                    return P{std::get<0>(p) + std::get<0>(q), std::get<1>(p) | std::get<1>(q)};
                });
            } else {
                prod = m[0], mn = v[0], parity = x[0], all = x[0];
                pair = {v[0], x[0]};
                for (std::size_t i = 1; i < N; ++i) {
                    prod = mat_mul(prod, m[i]);
                    mn = select(mn < v[i], mn, v[i]);
                    parity = parity ^ x[i];
                    all = all & x[i];
                    pair = {std::get<0>(pair) + v[i], std::get<1>(pair) | x[i]};
                }
            }
            return std::make_tuple(prod, mn, parity, all, pair);  // a tuple inside the result tuple
        };
    };
    const auto with_reduce = compile(fn(true), input<party::alice, in_t>, input<party::bob, std::array<u32, N>>,
                                     input<party::bob, std::array<secure_bit, N>>);
    const auto with_loops = compile(fn(false), input<party::alice, in_t>, input<party::bob, std::array<u32, N>>,
                                    input<party::bob, std::array<secure_bit, N>>);
    // ⌈log2 N⌉ levels per reduce, five reduces (none for a single value).
    std::size_t levels = 0;
    for (std::size_t n = N; n > 1; n = (n + 1) / 2) ++levels;
    CHECK(with_reduce.data().regions.size() == 5 * levels);
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 4; ++t) {
        INFO("N " << N << ", seed " << seed << ", set " << t);
        std::array<plain_mat, N> m{};
        for (auto& e : m) e = random_array<std::uint8_t, 4>(rng);
        const auto v = random_array<std::uint32_t, N>(rng);
        std::array<bool, N> x{};
        for (auto& b : x) b = (rng() % 4) != 0;
        plain_mat prod = m[0];
        std::uint32_t mn = v[0], sum = v[0];
        bool parity = x[0], all = x[0], any = x[0];
        for (std::size_t i = 1; i < N; ++i) {
            prod = plain_mat_mul(prod, m[i]);
            mn = std::min(mn, v[i]);
            sum += v[i];
            parity = parity != x[i];
            all = all && x[i];
            any = any || x[i];
        }
        const auto expected = std::make_tuple(prod, mn, parity, all, std::make_tuple(sum, any));
        CHECK(with_reduce.eval_plain(m, v, x) == expected);
        CHECK(with_loops.eval_plain(m, v, x) == expected);
    }
}

}  // namespace

TEST_CASE("regions.dsl.reduce_counts_keep_order") {
    check_reduce<1>(301);
    check_reduce<2>(302);
    check_reduce<3>(303);
    check_reduce<4>(304);
    check_reduce<5>(305);
    check_reduce<7>(306);
    check_reduce<8>(307);
    check_reduce<9>(308);
}

TEST_CASE("regions.dsl.pass_through_constant_repeated_and_negated_results") {
    const auto regions = odd_regions();
    const auto loops = odd_loops();
    REQUIRE(regions.data().regions.size() == 1);
    // The XOR with i complements differently per instance but records the same gates.
    CHECK(regions.data().regions[0].bodies.size() == 1);
    const std::uint64_t seed = 401;
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 6; ++t) {
        INFO("seed " << seed << ", set " << t);
        const auto a = random_array<std::uint8_t, 5>(rng);
        const auto b = random_array<std::uint8_t, 5>(rng);
        const bool f = (rng() & 1) != 0;
        const auto got = regions.eval_plain(a, b, f);
        CHECK(got == loops.eval_plain(a, b, f));
        for (std::size_t i = 0; i < 5; ++i) {
            const auto s = static_cast<std::uint8_t>(a[i] + b[i]);
            const auto expected =
                std::make_tuple(a[i], static_cast<std::uint8_t>(3 * i + 1), s, s, static_cast<std::uint8_t>(~s),
                                static_cast<std::uint8_t>(~a[i]), static_cast<std::uint8_t>(s ^ i), !f);
            CHECK(got[i] == expected);
        }
    }

    // Bodies that compute nothing at all: no region is recorded, results pass through.
    const auto nothing = compile(
        [](const std::array<u8, 3>& a) {
            return parallel_for<3>([&](std::size_t i) { return std::make_tuple(a[2 - i], ~a[i], u8(7)); });
        },
        input<party::alice, std::array<u8, 3>>);
    CHECK(nothing.data().regions.empty());
    CHECK(nothing.stats().and_gates == 0);
    const std::array<std::uint8_t, 3> in{1, 20, 250};
    const auto r = nothing.eval_plain(in);
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(r[i] == std::make_tuple(in[2 - i], static_cast<std::uint8_t>(~in[i]), std::uint8_t{7}));

    // Results of which only some are used later: unread outputs.
    const auto partly = compile(
        [](const std::array<u32, 4>& a, const std::array<u32, 4>& b) {
            const auto r = parallel_for<4>([&](std::size_t i) { return std::make_tuple(a[i] * b[i], a[i] - b[i]); });
            return std::get<0>(r[1]) + std::get<1>(r[3]);
        },
        input<party::alice, std::array<u32, 4>>, input<party::bob, std::array<u32, 4>>);
    bool some_unused = false;
    for (const std::uint32_t s : partly.data().regions.at(0).wire_map) some_unused = some_unused || s == unused_slot;
    CHECK(some_unused);
    const std::array<std::uint32_t, 4> pa{3, 5, 7, 100000}, pb{11, 13, 17, 19};
    CHECK(partly.eval_plain(pa, pb) == 5u * 13u + (100000u - 19u));
    CHECK(flatten(partly).stats().and_gates <= partly.stats().and_gates);
}

TEST_CASE("regions.dsl.instance_reading_another_instance_is_named") {
    int line = 0;
    auto computed = [&] {
        (void)compile(
            [&](const std::array<u8, 3>& a, const std::array<u8, 3>& b) {
                u8 previous;  // NOLINT: the mistake under test
                line = __LINE__; return parallel_for<3>([&](std::size_t i) {
                    u8 v = a[i] * b[i];
                    if (i > 0) v = v + previous;
                    previous = v;
                    return v;
                });
            },
            input<party::alice, std::array<u8, 3>>, input<party::bob, std::array<u8, 3>>);
    };
    CHECK_THROWS_AS(computed(), usage_error);
    REQUIRE(line > 0);
    CHECK_THROWS_WITH_AS(computed(), doctest::Contains(region_at("parallel_for", line).c_str()), usage_error);
    CHECK_THROWS_WITH_AS(computed(), doctest::Contains("another instance"), usage_error);

    // Returned as is (no gate recorded with it).
    int line2 = 0;
    auto passed = [&] {
        (void)compile(
            [&](const std::array<u8, 3>& a, const std::array<u8, 3>& b) {
                u8 previous;
                line2 = __LINE__; return parallel_for(3, [&](std::size_t i) {
                    const u8 v = a[i] + b[i];
                    const u8 r = i > 0 ? previous : v;
                    previous = v;
                    return r;
                })[0];
            },
            input<party::alice, std::array<u8, 3>>, input<party::bob, std::array<u8, 3>>);
    };
    CHECK_THROWS_AS(passed(), usage_error);  // sets the line
    CHECK_THROWS_WITH_AS(passed(), doctest::Contains(region_at("parallel_for", line2).c_str()), usage_error);

    // In a reduce op.
    int line3 = 0;
    auto in_reduce = [&] {
        (void)compile(
            [&](const std::array<u8, 4>& a) {
                u8 keep;
                bool first = true;
                line3 = __LINE__; return reduce(a, [&](const u8& x, const u8& y) {
                    u8 r = x + y;
                    if (!first) r = r ^ keep;
                    keep = r;
                    first = false;
                    return r;
                });
            },
            input<party::alice, std::array<u8, 4>>);
    };
    CHECK_THROWS_AS(in_reduce(), usage_error);  // sets the line
    CHECK_THROWS_WITH_AS(in_reduce(), doctest::Contains((region_at("reduce", line3) + " (level 0)").c_str()),
                         usage_error);
}

TEST_CASE("regions.dsl.value_not_returned_from_an_instance") {
    // Used alone after the region.
    int line = 0;
    auto alone = [&] {
        (void)compile(
            [&](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                line = __LINE__; const auto r = parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i] + b[i];
                });
                return std::make_tuple(r, leaked + 1);
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_AS(alone(), usage_error);  // sets the line
    CHECK_THROWS_WITH_AS(alone(), doctest::Contains(region_at("parallel_for", line).c_str()), usage_error);
    CHECK_THROWS_WITH_AS(alone(), doctest::Contains("without being returned"), usage_error);

    // Read by an instance of a later region.
    int line2 = 0;
    auto later_region = [&] {
        (void)compile(
            [&](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                line2 = __LINE__; const auto r = parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i] + b[i];
                });
                return parallel_for<2>([&](std::size_t i) { return r[i] + leaked; });
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_AS(later_region(), usage_error);  // sets the line
    CHECK_THROWS_WITH_AS(later_region(), doctest::Contains(region_at("parallel_for", line2).c_str()), usage_error);

    // Combined with an outer value after the region.
    int line3 = 0;
    auto mixed = [&] {
        (void)compile(
            [&](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                line3 = __LINE__; const auto r = parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i] + b[i];
                });
                return r[0] + leaked;
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_AS(mixed(), usage_error);
    CHECK_THROWS_WITH_AS(mixed(), doctest::Contains(region_at("parallel_for", line3).c_str()), usage_error);

    // Returned from the secure function.
    int line4 = 0;
    auto returned = [&] {
        (void)compile(
            [&](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                line4 = __LINE__; (void)parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i] + b[i];
                });
                return leaked;
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_AS(returned(), usage_error);
    CHECK_THROWS_WITH_AS(returned(), doctest::Contains(region_at("parallel_for", line4).c_str()), usage_error);
}

TEST_CASE("regions.dsl.value_not_returned_from_a_region_that_records_nothing") {
    // Every instance returns only outer values, so no region is stored; a
    // value computed inside (and dropped with it) is read by a later region.
    int line = 0;
    auto later_region = [&] {
        (void)compile(
            [&](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                line = __LINE__; const auto r = parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i];
                });
                const auto r2 = parallel_for<2>([&](std::size_t i) { return a[i] + leaked; });
                return r2[0] + r[1];
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_AS(later_region(), usage_error);
    CHECK_THROWS_WITH_AS(later_region(), doctest::Contains(region_at("parallel_for", line).c_str()), usage_error);
    CHECK_THROWS_WITH_AS(later_region(), doctest::Contains("without being returned"), usage_error);
}

TEST_CASE("regions.dsl.value_not_returned_from_a_region_that_records_nothing_used_after") {
    auto used_after = [] {
        (void)compile(
            [](const std::array<u8, 2>& a, const std::array<u8, 2>& b) {
                u8 leaked;
                (void)parallel_for<2>([&](std::size_t i) {
                    leaked = a[i] * b[i];
                    return a[i];
                });
                return leaked + 1;
            },
            input<party::alice, std::array<u8, 2>>, input<party::bob, std::array<u8, 2>>);
    };
    CHECK_THROWS_WITH_AS(used_after(), doctest::Contains("without being returned"), usage_error);
}

TEST_CASE("regions.dsl.nested_regions_are_inlined") {
    const auto c = nested_regions();
    // Outer regions only: the first parallel_for and the second; the inner
    // parallel_for and reduce ran inside the first one's instances.
    CHECK(c.data().regions.size() == 2);
    CHECK(c.stats().regions.size() == 2);
    for (const region_data& r : c.data().regions) {
        CHECK(r.bodies.size() == 1);
        CHECK(r.instances.size() == 3);
        for (const circuit_data& b : r.bodies) CHECK(b.regions.empty());
    }
    CHECK(c.data().regions[0].name.find("parallel_for at regions.cpp:") == 0);
    const std::uint64_t seed = 501;
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 4; ++t) {
        INFO("seed " << seed << ", set " << t);
        const auto a = random_array<std::uint32_t, 3>(rng);
        const auto b = random_array<std::uint32_t, 4>(rng);
        CHECK(c.eval_plain(a, b) == nested_plain(a, b));
    }
}

TEST_CASE("regions.dsl.reduce_of_nothing") {
    CHECK_THROWS_AS(reduce(std::vector<u8>{}, [](const u8& x, const u8& y) { return x + y; }), usage_error);
    auto in_compile = [] {
        (void)compile(
            [](u8 a) {
                std::vector<u8> none;
                return a + reduce(none, [](const u8& x, const u8& y) { return x + y; });
            },
            input<party::alice, u8>);
    };
    CHECK_THROWS_WITH_AS(in_compile(), doctest::Contains("no values"), usage_error);
    // Outside compile (public constants) both functions just compute.
    const std::vector<u8> constants{u8(3), u8(4), u8(5)};
    const u8 sum = reduce(constants, [](const u8& x, const u8& y) { return x + y; });
    CHECK(sum.is_public());
    const auto squares = parallel_for<3>([&](std::size_t i) { return constants[i] * constants[i]; });
    CHECK(squares[2].is_public());
}

TEST_CASE("regions.dsl.exceptions_from_bodies_propagate") {
    struct boom : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    auto throwing = [](int where) {
        return compile(
            [where](const std::array<u32, 4>& a, const std::array<u32, 4>& b) {
                const auto r = parallel_for<4>([&](std::size_t i) {
                    if (where == 0 && i == 2) throw boom("body");
                    const auto inner = parallel_for<2>([&](std::size_t j) {
                        if (where == 1 && i == 1 && j == 1) throw boom("nested body");
                        return a[i] * b[j];
                    });
                    return inner[0] + inner[1];
                });
                return reduce(r, [&](const u32& x, const u32& y) {
                    if (where == 2) throw boom("reduce op");
                    return x ^ y;
                });
            },
            input<party::alice, std::array<u32, 4>>, input<party::bob, std::array<u32, 4>>);
    };
    CHECK_THROWS_WITH_AS(throwing(0), "body", boom);
    CHECK_THROWS_WITH_AS(throwing(1), "nested body", boom);
    CHECK_THROWS_WITH_AS(throwing(2), "reduce op", boom);
    // A later compile on this thread works (the active builder was restored).
    const auto c = throwing(3);
    const std::array<std::uint32_t, 4> a{1, 2, 3, 4}, b{5, 6, 7, 8};
    std::uint32_t expected = 0;
    for (std::size_t i = 0; i < 4; ++i) expected ^= a[i] * b[0] + a[i] * b[1];
    CHECK(c.eval_plain(a, b) == expected);
    CHECK(c.data().regions.size() == 3);

    // Caught inside the secure function: the region is dropped, recording goes on.
    const auto recovered = compile(
        [](const std::array<u32, 3>& a) {
            try {
                (void)parallel_for<3>([&](std::size_t i) {
                    if (i == 1) throw boom("abandoned");
                    return a[i] * a[i];
                });
            } catch (const boom&) {
            }
            return parallel_for<3>([&](std::size_t i) { return a[i] + a[(i + 1) % 3]; });
        },
        input<party::alice, std::array<u32, 3>>);
    CHECK(recovered.data().regions.size() == 1);
    CHECK(recovered.eval_plain(std::array<std::uint32_t, 3>{1, 10, 100}) == std::array<std::uint32_t, 3>{11, 110, 101});
}

// =====================================================================================
// 2. Structure: deduplication, stats, flatten, Bristol, fingerprints
// =====================================================================================

TEST_CASE("regions.structure.identical_instances_stored_once") {
    const auto c = products<8>();
    REQUIRE(c.data().regions.size() == 1);
    const region_data& r = c.data().regions[0];
    CHECK(r.bodies.size() == 1);
    CHECK(r.instances.size() == 8);
    const circuit_stats& s = c.stats();
    REQUIRE(s.regions.size() == 1);
    CHECK(s.regions[0].deduplicated);
    CHECK(s.regions[0].instances == 8);
    CHECK(s.regions[0].bodies == 1);
    CHECK(s.regions[0].stored_gates * 8 == s.regions[0].executed_gates);
    CHECK(s.regions[0].and_per_instance_min == s.regions[0].and_per_instance_max);
    CHECK(s.stored_gates * 7 < s.executed_gates);
    CHECK(s.and_gates == 8 * s.regions[0].and_per_instance_min);
    // Each instance's wire map: its body's inputs, then its outputs.
    for (const region_instance& i : r.instances) {
        CHECK(r.inputs_of(i).size() == r.bodies[i.body].input_bits);
        CHECK(r.outputs_of(i).size() == 64);
    }
}

TEST_CASE("regions.structure.differing_instances_get_several_bodies") {
    constexpr std::size_t N = 9;
    const auto c = differing_regions<N>();
    const auto loops = differing_loops<N>();
    REQUIRE(c.data().regions.size() == 1);
    const region_data& r = c.data().regions[0];
    CHECK(r.instances.size() == N);
    CHECK(r.bodies.size() == 3);  // product, sum, pass-through
    for (std::size_t i = 3; i < N; ++i) CHECK(r.instances[i].body == r.instances[i % 3].body);
    const region_stats& rs = c.stats().regions.at(0);
    CHECK(rs.deduplicated);
    CHECK(rs.and_per_instance_min == 0);
    CHECK(rs.and_per_instance_max > 31);
    CHECK(c.stats().and_gates == loops.stats().and_gates);

    // Multiplying by the public constant i + 1 folds differently for each i.
    const auto by_constant = compile(
        [](const std::array<u32, 6>& a) {
            return parallel_for<6>([&](std::size_t i) { return a[i] * static_cast<std::uint32_t>(i + 1); });
        },
        input<party::alice, std::array<u32, 6>>);
    REQUIRE(by_constant.data().regions.size() == 1);
    CHECK(by_constant.data().regions[0].bodies.size() > 1);

    const std::uint64_t seed = 601;
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 4; ++t) {
        INFO("seed " << seed << ", set " << t);
        const auto a = random_array<std::uint32_t, N>(rng);
        const auto b = random_array<std::uint32_t, N>(rng);
        std::array<std::uint32_t, N> expected{};
        for (std::size_t i = 0; i < N; ++i) expected[i] = i % 3 == 0 ? a[i] * b[i] : i % 3 == 1 ? a[i] + b[i] : a[i];
        CHECK(c.eval_plain(a, b) == expected);
        CHECK(loops.eval_plain(a, b) == expected);
        const auto a6 = random_array<std::uint32_t, 6>(rng);
        std::array<std::uint32_t, 6> e6{};
        for (std::size_t i = 0; i < 6; ++i) e6[i] = a6[i] * static_cast<std::uint32_t>(i + 1);
        CHECK(by_constant.eval_plain(a6) == e6);
    }
}

namespace {

/// Regions and loops record the same ANDs but for common subexpressions, which
/// lay-out merges within a body or a segment: flattened, instances that read
/// the same imports (MVMul's rows all read v) share terms, so flatten() and
/// Bristol keep the function with at most the ANDs of the regions, and loops
/// are within 2% of them. Without that merging, all three were equal.
void check_structure(const std::string& name, const circuit<>& regions, const circuit<>& sequential,
                     std::uint64_t seed) {
    INFO(name << ", seed " << seed);
    CHECK(!regions.data().regions.empty());
    const circuit<> flat_c = flatten(regions);
    CHECK(flat_c.data().regions.empty());
    CHECK(sequential_steps(flat_c) == flat_c.data().steps.size());
    const std::uint64_t r_ands = regions.stats().and_gates, s_ands = sequential.stats().and_gates;
    CHECK(flat_c.stats().and_gates <= r_ands);
    CHECK(s_ands <= r_ands + r_ands / 50);
    CHECK(r_ands <= s_ands + s_ands / 50);
    std::uint64_t region_executed = 0, region_stored = 0;
    for (const region_stats& r : regions.stats().regions) {
        region_executed += r.executed_gates;
        region_stored += r.stored_gates;
        CHECK(r.stored_gates <= r.executed_gates);
    }
    CHECK(regions.stats().stored_gates - region_stored == regions.stats().executed_gates - region_executed);
    const circuit<> back = bristol_round_trip(regions);
    CHECK(back.data().regions.empty());
    CHECK(back.stats().and_gates == flat_c.stats().and_gates);
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 3; ++t) {
        INFO("set " << t);
        const bits_t in = random_inputs(regions, rng);
        const bits_t expected = eval_plain_bits(regions, in);
        CHECK(eval_plain_bits(sequential, in) == expected);
        CHECK(eval_plain_bits(flat_c, in) == expected);
        CHECK(eval_plain_bits(back, in) == expected);
    }
}

}  // namespace

TEST_CASE("regions.structure.stats_flatten_bristol") {
    check_structure("elementwise u64", elementwise_regions<u64, 5>(), elementwise_loops<u64, 5>(), 701);
    check_structure("elementwise u8", elementwise_regions<u8, 6>(), elementwise_loops<u8, 6>(), 702);
    check_structure("differing", differing_regions<7>(), differing_loops<7>(), 703);
    check_structure("odd results", odd_regions(), odd_loops(), 704);
    check_structure("biomatch 5x3", apps::biomatch_circuit<5, 3>(), apps::biomatch_sequential_circuit<5, 3>(), 705);
    check_structure("mexp 2", apps::mexp_circuit<2>(), apps::mexp_sequential_circuit<2>(), 706);
    check_structure("mvmul 3x4", apps::mvmul_circuit<3, 4>(), apps::mvmul_sequential_circuit<3, 4>(), 707);
    // The nested program against flatten only (its loop version is the plain one).
    const auto nested = nested_regions();
    CHECK(flatten(nested).stats().and_gates <= nested.stats().and_gates);
    const circuit<> back = bristol_round_trip(nested);
    std::mt19937_64 rng(708);
    for (int t = 0; t < 3; ++t) {
        INFO("nested, seed 708, set " << t);
        const bits_t in = random_inputs(nested, rng);
        CHECK(eval_plain_bits(back, in) == eval_plain_bits(nested, in));
        CHECK(eval_plain_bits(flatten(nested), in) == eval_plain_bits(nested, in));
    }
    // A circuit without regions flattens to itself.
    const auto loops = elementwise_loops<u8, 3>();
    CHECK(flatten(loops).fingerprint() == loops.fingerprint());
}

TEST_CASE("regions.structure.batch_evaluation_crosses_lanes") {
    // eval_plain_batch runs 64 input sets per pass, regions included.
    const auto c = elementwise_regions<u8, 5>();
    using set_t = decltype(c)::input_tuple;
    const std::uint64_t seed = 709;
    std::mt19937_64 rng(seed);
    std::vector<set_t> sets;
    for (int t = 0; t < 150; ++t)
        sets.emplace_back(random_array<std::uint8_t, 5>(rng), random_array<std::uint8_t, 5>(rng));
    const auto got = c.eval_plain_batch(sets);
    REQUIRE(got.size() == sets.size());
    for (std::size_t t = 0; t < sets.size(); ++t) {
        INFO("seed " << seed << ", set " << t);
        CHECK(got[t] == elementwise_plain<std::uint8_t, 5>(std::get<0>(sets[t]), std::get<1>(sets[t])));
    }
}

TEST_CASE("regions.structure.fingerprints") {
    CHECK(elementwise_regions<u32, 4>().fingerprint() == elementwise_regions<u32, 4>().fingerprint());
    CHECK(nested_regions().fingerprint() == nested_regions().fingerprint());
    CHECK(elementwise_regions<u32, 4>().fingerprint() != elementwise_loops<u32, 4>().fingerprint());
    CHECK(elementwise_regions<u32, 4>().fingerprint() != elementwise_regions<u32, 5>().fingerprint());
    CHECK(elementwise_regions<u32, 4>().fingerprint() != flatten(elementwise_regions<u32, 4>()).fingerprint());
    // Programs that differ only inside a body, or only in which value an instance reads.
    auto body_op = [](bool add) {
        return compile(
            [add](const std::array<u32, 4>& a, const std::array<u32, 4>& b) {
                return parallel_for<4>([&](std::size_t i) { return add ? a[i] + b[i] : a[i] - b[i]; });
            },
            input<party::alice, std::array<u32, 4>>, input<party::bob, std::array<u32, 4>>);
    };
    auto wiring_of = [](std::size_t shift) {
        return compile(
            [shift](const std::array<u32, 4>& a, const std::array<u32, 4>& b) {
                return parallel_for<4>([&](std::size_t i) { return a[i] + b[(i + shift) % 4]; });
            },
            input<party::alice, std::array<u32, 4>>, input<party::bob, std::array<u32, 4>>);
    };
    CHECK(body_op(true).fingerprint() == body_op(true).fingerprint());
    CHECK(body_op(true).fingerprint() != body_op(false).fingerprint());
    CHECK(wiring_of(1).fingerprint() == wiring_of(1).fingerprint());
    CHECK(wiring_of(0).fingerprint() != wiring_of(1).fingerprint());
    CHECK(apps::mvmul_circuit<3, 4>().fingerprint() == apps::mvmul_circuit<3, 4>().fingerprint());
    CHECK(apps::mvmul_circuit<3, 4>().fingerprint() != apps::mvmul_sequential_circuit<3, 4>().fingerprint());
}

TEST_CASE("regions.structure.apps_deduplicate") {
    const auto check_all_deduplicated = [](const std::string& name, const circuit<>& c) {
        INFO(name);
        const circuit_stats& s = c.stats();
        REQUIRE(!s.regions.empty());
        for (const region_stats& r : s.regions) {
            INFO(r.name);
            if (r.instances > 1) CHECK(r.deduplicated);
            CHECK(r.bodies == 1);
        }
        CHECK(s.stored_gates < s.executed_gates);
    };
    check_all_deduplicated("biomatch 8x2", apps::biomatch_circuit<8, 2>());
    check_all_deduplicated("mexp 3", apps::mexp_circuit<3>());
    check_all_deduplicated("mvmul 4x3", apps::mvmul_circuit<4, 3>());

    const auto full = apps::mvmul_circuit<>();
    const circuit_stats& s = full.stats();
    REQUIRE(s.regions.size() == 1);
    CHECK(s.regions[0].instances == 16);
    CHECK(s.regions[0].bodies == 1);
    CHECK(s.stored_gates * 10 <= s.executed_gates);
    const auto in = apps::make_mvmul_inputs<>(20261121);
    INFO("mvmul full size, seed 20261121");
    CHECK(full.eval_plain(in.matrix, in.vector) == apps::mvmul_plain<>(in.matrix, in.vector));
}

// =====================================================================================
// 3. Garbling with one and several workers
// =====================================================================================

TEST_CASE("regions.garble.programs_with_1_to_4_workers") {
    check_garbling("elementwise u32 x5", elementwise_regions<u32, 5>(), 801);
    check_garbling("differing x7", differing_regions<7>(), 802);
    check_garbling("odd results", odd_regions(), 803);
    check_garbling("nested", nested_regions(), 804);
    check_garbling("one instance", products<1>(), 805);
    check_garbling("two instances", products<2>(), 806);
    check_garbling("flattened products x4", flatten(products<4>()), 807, 1);
    // Bodies without ANDs: the plan balances nothing, every instance still runs once.
    const auto xor_only = compile(
        [](const std::array<u32, 5>& a, const std::array<u32, 5>& b) {
            return parallel_for<5>([&](std::size_t i) { return a[i] ^ b[i] ^ ~a[(i + 1) % 5]; });
        },
        input<party::alice, std::array<u32, 5>>, input<party::bob, std::array<u32, 5>>);
    REQUIRE(xor_only.data().regions.size() == 1);
    CHECK(xor_only.stats().and_gates == 0);
    check_garbling("xor only", xor_only, 808);
}

TEST_CASE("regions.garble.apps_with_1_to_4_workers") {
    check_garbling("biomatch 5x2", apps::biomatch_circuit<5, 2>(), 901, 1);
    check_garbling("mexp 1", apps::mexp_circuit<1>(), 902, 1);
    check_garbling("mvmul 3x3", apps::mvmul_circuit<3, 3>(), 903, 1);
}

TEST_CASE("regions.garble.plans_split_work") {
    const auto c = products<6>();
    const std::uint64_t ands = c.stats().and_gates;
    for (std::uint32_t w = 1; w <= 4; ++w) {
        INFO("workers " << w);
        const exec::plan p = exec::make_plan(c, w);
        std::uint64_t total = 0;
        for (const std::uint64_t n : p.worker_ands) total += n;
        CHECK(total == ands);
        CHECK(p.and_gates == ands);
        for (const std::uint64_t n : p.worker_ands) CHECK(n > 0);  // 6 equal instances, at most 4 workers
    }
    // FGP: a tiny threshold splits the wide levels of the flattened circuit.
    const circuit<> flat_c = flatten(c);
    const exec::plan p = exec::make_plan(flat_c, 3, 16);
    bool split = false;
    for (const level_range& lv : flat_c.data().levels) split = split || p.level_parts(lv) > 1;
    CHECK(split);
    CHECK_THROWS_AS(exec::make_plan(c, 0), usage_error);

    // One worker garbles exactly what gc::garble does (same encoding, same tweaks).
    std::mt19937_64 rng(1001);
    const bits_t in = random_inputs(c, rng);
    const exec_result one = exec_run(c, in, 1001, 1, exec::default_fgp_min_ands);
    prg g(block(1001, 7));
    gc::encoding enc{g.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    g.fill(enc.zero_labels.data(), enc.zero_labels.size());
    const block hash_start = g.next();
    gc::table_buffer tables;
    (void)gc::garble(c, enc, hash_start, tables);
    CHECK(one.tables == tables.tables());
    // Several workers: other tables in the buffers, the same decoded result.
    for (std::uint32_t w = 2; w <= 4; ++w) CHECK(exec_run(c, in, 1001, w, 16).bits == one.bits);
}

namespace {

/// Two regions and a sum: the second multiplies the first's outputs
/// elementwise, or (reversed) each by its mirror image, which crosses the
/// workers' parts.
template <std::size_t N>
circuit<> chained_regions(bool reversed) {
    return compile(
        [reversed](const std::array<u64, N>& a, const std::array<u64, N>& b) {
            const auto p = parallel_for<N>([&](std::size_t i) { return a[i] * b[i]; });
            const auto q = parallel_for<N>([&](std::size_t i) { return p[reversed ? N - 1 - i : i] * p[i]; });
            u64 sum = q[0];
            for (std::size_t i = 1; i < N; ++i) sum = sum + q[i];
            return sum;
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

/// A core that garbles nothing and notes when each region part starts and
/// ends; the part of region `slow_region` on worker `slow_worker` takes `slow`.
class timed_core final : public gc::core {
public:
    struct span_t {
        std::chrono::steady_clock::time_point start, end;
    };
    timed_core(const circuit_data& c, std::map<std::pair<std::size_t, std::uint32_t>, span_t>& spans, std::mutex& m,
               std::uint32_t worker, std::chrono::milliseconds slow)
        : c_(c), spans_(spans), m_(m), worker_(worker), slow_(slow) {}
    std::uint64_t instances(const region_data& r, std::uint32_t, std::uint32_t, gc::detail::label_array&,
                            std::uint64_t first_and) override {
        const auto region = static_cast<std::size_t>(&r - c_.regions.data());
        const auto start = std::chrono::steady_clock::now();
        if (region == 0 && worker_ == 0) std::this_thread::sleep_for(slow_);
        const std::lock_guard lock(m_);
        spans_[{region, worker_}] = {start, std::chrono::steady_clock::now()};
        return first_and;
    }
    std::uint64_t levels(const circuit_data&, gc::detail::label_array&, std::uint32_t, std::uint32_t,
                         std::uint64_t first_and) override {
        return first_and;
    }
    void ands(const gate*, gc::detail::label_array&, std::uint32_t, std::uint32_t, std::uint64_t) override {}
    void linear(const circuit_data&, gc::detail::label_array&, std::uint32_t, std::uint32_t) override {}
    void flush() override {}

private:
    const circuit_data& c_;
    std::map<std::pair<std::size_t, std::uint32_t>, span_t>& spans_;
    std::mutex& m_;
    std::uint32_t worker_;
    std::chrono::milliseconds slow_;
};

}  // namespace

TEST_CASE("regions.plan.tasks_wait_only_for_the_slots_they_share") {
    for (const bool reversed : {false, true}) {
        INFO((reversed ? "reversed" : "elementwise"));
        const circuit<> c = chained_regions<8>(reversed);
        const exec::plan p = exec::make_plan(c, 2, 16);
        const exec::task_graph& g = p.graph;
        // Both regions split over both workers, then the sum on worker 0.
        REQUIRE(g.tasks.size() == 5);
        std::size_t edges = 0;
        for (std::uint32_t t = 0; t < g.tasks.size(); ++t) {
            for (const std::uint32_t s : g.successors(t)) CHECK(s > t);  // plan order is a topological order
            edges += g.successors(t).size();
        }
        std::size_t waits = 0;
        for (const std::uint32_t n : g.waits_for) waits += n;
        CHECK(waits == edges);
        for (std::uint32_t t = 0; t < 4; ++t) {
            CHECK(g.tasks[t].what == exec::task::kind::part);
            CHECK(g.tasks[t].worker == t % 2);
            CHECK(g.tasks[t].step == t / 2);
        }
        CHECK(g.tasks[4].what == exec::task::kind::sequential);
        CHECK(g.waits_for[0] == 0);
        CHECK(g.waits_for[1] == 0);
        // Elementwise, each worker's second part reads only what its first
        // wrote, and its outputs reuse only slots its own first part read.
        CHECK(g.waits_for[2] == (reversed ? 2u : 1u));
        CHECK(g.waits_for[3] == (reversed ? 2u : 1u));
        CHECK(g.waits_for[4] == 2);  // the sum waits for both workers
    }
    // One worker: a chain in plan order.
    const exec::plan one = exec::make_plan(chained_regions<8>(false), 1);
    REQUIRE(one.one_worker);
    for (std::uint32_t t = 0; t < one.graph.tasks.size(); ++t) CHECK(one.graph.waits_for[t] == (t == 0 ? 0u : 1u));
}

TEST_CASE("regions.exec.a_part_waits_only_for_the_tasks_it_depends_on") {
    // Worker 0's first part takes 200 ms. Elementwise, worker 1 runs both its
    // parts meanwhile; reversed, its second part waits for worker 0's first.
    // On oneTBB (tasks that suspend) and on a thread per worker (tasks that block).
    using namespace std::chrono;
    const auto slow = 200ms;
    for (const exec::task_waits waits : {exec::task_waits::suspend, exec::task_waits::block}) {
        for (const bool reversed : {false, true}) {
            INFO((waits == exec::task_waits::suspend ? "suspend " : "block ") << (reversed ? "reversed" : "elementwise"));
            const circuit<> c = chained_regions<8>(reversed);
            const exec::plan p = exec::make_plan(c, 2, 16);
            std::map<std::pair<std::size_t, std::uint32_t>, timed_core::span_t> spans;
            std::mutex m;
            timed_core w0(c.data(), spans, m, 0, slow), w1(c.data(), spans, m, 1, slow);
            std::array<gc::core*, 2> cores{&w0, &w1};
            std::vector<block> inputs(c.data().input_bits);
            gc::detail::label_array label = gc::detail::input_slots(c.data(), inputs);
            exec::workers pool(2, waits);
            exec::execute(p, c.data(), std::span<gc::core* const>(cores), label, 0, pool);
            REQUIRE(spans.size() == 4);
            const auto first0 = spans[{0, 0}], second1 = spans[{1, 1}];
            CHECK(first0.end - first0.start >= slow);
            if (reversed) CHECK(second1.start >= first0.end);
            else CHECK(second1.end < first0.end);
            CHECK(spans[{1, 0}].start >= first0.end);  // worker 0's own order
        }
    }
}

// =====================================================================================
// 4. Sessions with worker links
// =====================================================================================

TEST_CASE("regions.session.threads_1_2_4") {
    const auto bio = apps::biomatch_circuit<6, 2>();
    const auto mexp = apps::mexp_circuit<4>();
    const auto mvmul = apps::mvmul_circuit<3, 3>();
    const auto prog = elementwise_regions<u32, 5>();
    const auto nested = nested_regions();
    const auto wide = flatten(products<4>());  // levels wide enough for FGP at the default threshold
    const std::uint64_t seed = 1101;
    const auto bio_in = apps::make_biomatch_inputs<6, 2>(seed);
    const auto bio_in2 = apps::make_biomatch_inputs<6, 2>(seed + 1);
    const auto mexp_in = apps::make_mexp_inputs<4>(seed);
    const auto mv_in = apps::make_mvmul_inputs<3, 3>(seed);
    std::mt19937_64 rng(seed);
    const auto pa = random_array<std::uint32_t, 5>(rng), pb = random_array<std::uint32_t, 5>(rng);
    const auto na = random_array<std::uint32_t, 3>(rng);
    const auto nb = random_array<std::uint32_t, 4>(rng);
    bool fgp = false;
    for (const level_range& lv : wide.data().levels) fgp = fgp || exec::make_plan(wide, 2).level_parts(lv) > 1;
    CHECK(fgp);
    std::mt19937_64 wide_rng(seed);
    const bits_t wide_in = random_inputs(wide, wide_rng);

    for (std::uint32_t threads : {1u, 2u, 4u}) {
        INFO("threads " << threads << ", seed " << seed);
        struct results {
            std::uint64_t bio = 0, bio2 = 0;
            std::uint32_t mexp = 0;
            std::array<std::uint64_t, 3> mvmul{};
            std::tuple<std::array<std::uint32_t, 5>, std::uint32_t> prog{};
            std::tuple<std::array<std::uint32_t, 3>, std::uint32_t> nested{};
            std::optional<bits_t> wide;
            std::optional<std::array<std::uint64_t, 3>> mv_alice, mv_bob;
        } ra, rb;
        const auto t0 = std::chrono::steady_clock::now();
        rethrow(two_party(
            make_wiring(threads - 1), with_threads(threads), with_threads(threads),
            [&](session& s) {
                CHECK(s.threads() == threads);
                ra.bio = s.run(bio, bio_in.db);
                ra.mexp = s.run(mexp, mexp_in.bases);
                ra.mvmul = s.run(mvmul, mv_in.matrix);
                ra.prog = s.run(prog, pa);
                ra.bio2 = s.run(bio, bio_in2.db);
                ra.nested = s.run(nested, na);
                ra.wide = s.run_bits(reveal::both, wide, {wide_in[0]});
                ra.mv_alice = s.run(reveal::alice, mvmul, mv_in.matrix);
                ra.mv_bob = s.run(reveal::bob, mvmul, mv_in.matrix);
            },
            [&](session& s) {
                rb.bio = s.run(bio, bio_in.sample);
                rb.mexp = s.run(mexp, mexp_in.exps);
                rb.mvmul = s.run(mvmul, mv_in.vector);
                rb.prog = s.run(prog, pb);
                rb.bio2 = s.run(bio, bio_in2.sample);
                rb.nested = s.run(nested, nb);
                rb.wide = s.run_bits(reveal::both, wide, {wide_in[1]});
                rb.mv_alice = s.run(reveal::alice, mvmul, mv_in.vector);
                rb.mv_bob = s.run(reveal::bob, mvmul, mv_in.vector);
            }));
        MESSAGE("threads " << threads << ": "
                           << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
        for (const results* r : {&ra, &rb}) {
            CHECK(r->bio == apps::biomatch_plain<6, 2>(bio_in.db, bio_in.sample));
            CHECK(r->bio2 == apps::biomatch_plain<6, 2>(bio_in2.db, bio_in2.sample));
            CHECK(r->mexp == apps::mexp_plain<4>(mexp_in.bases, mexp_in.exps));
            CHECK(r->mvmul == apps::mvmul_plain<3, 3>(mv_in.matrix, mv_in.vector));
            CHECK(r->prog == elementwise_plain<std::uint32_t, 5>(pa, pb));
            CHECK(r->nested == nested_plain(na, nb));
            REQUIRE(r->wide.has_value());
            CHECK(*r->wide == eval_plain_bits(wide, wide_in));
        }
        CHECK(ra.mv_alice == apps::mvmul_plain<3, 3>(mv_in.matrix, mv_in.vector));
        CHECK(!rb.mv_alice.has_value());
        CHECK(!ra.mv_bob.has_value());
        CHECK(rb.mv_bob == apps::mvmul_plain<3, 3>(mv_in.matrix, mv_in.vector));
    }
}

TEST_CASE("regions.session.thread_count_mismatch_and_missing_opener") {
    const outcome o = two_party(make_wiring(1), with_threads(2), with_threads(1), [](session&) {}, [](session&) {});
    for (auto e : {o.alice, o.bob}) {
        REQUIRE(e);
        CHECK_THROWS_AS(std::rethrow_exception(e), protocol_error);
        CHECK(message_of(e).find("thread") != std::string::npos);
    }

    // threads > 1 needs a link_opener; nothing is sent before the check.
    auto [a, b] = net::memory_pair();
    CHECK_THROWS_WITH_AS(session(party::alice, std::move(a), with_threads(2)), doctest::Contains("link_opener"),
                         usage_error);
    b->set_timeout(100ms);
    CHECK_THROWS_AS(b->recv_value<std::uint8_t>(), network_error);  // closed, and nothing was sent
    auto [c, d] = net::memory_pair();
    CHECK_THROWS_AS(session(party::bob, std::move(d), with_threads(4), session::link_opener{}), usage_error);
}

namespace {

struct cut_result {
    outcome errors;
    double seconds = 0;
    bool cut = false;
    int alice_runs = 0, bob_runs = 0;  // runs completed before the failure
};

/// threads workers; worker link `which` (1-based) of `side` cut after `cut_after` bytes.
cut_result run_with_cut_link(std::uint32_t threads, party side, std::size_t which, std::uint64_t cut_after) {
    const auto c = products<8>();
    wiring w = make_wiring(threads - 1);
    link_list& links = side == party::alice ? w.links_a : w.links_b;
    const auto was_cut = std::make_shared<std::atomic<bool>>(false);
    links[which - 1] = std::make_unique<cutting_channel>(std::move(links[which - 1]), cut_after, was_cut);
    session_options o = with_threads(threads);
    o.timeout = 2s;
    const std::array<std::uint64_t, 8> x{1, 2, 3, 4, 5, 6, 7, 8}, y{9, 8, 7, 6, 5, 4, 3, 2};
    std::array<std::uint64_t, 8> expected{};
    for (std::size_t i = 0; i < 8; ++i) expected[i] = x[i] * y[i];
    cut_result r;
    const auto t0 = std::chrono::steady_clock::now();
    r.errors = two_party(
        std::move(w), o, o,
        [&](session& s) {
            for (int k = 0; k < 4; ++k) {
                const auto got = s.run(c, x);
                CHECK(got == expected);
                ++r.alice_runs;
            }
        },
        [&](session& s) {
            for (int k = 0; k < 4; ++k) {
                const auto got = s.run(c, y);
                CHECK(got == expected);
                ++r.bob_runs;
            }
        });
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cut = *was_cut;
    return r;
}

}  // namespace

TEST_CASE("regions.session.worker_link_dropped_mid_run") {
    // One run sends about 8 * 4000 ANDs * 32 bytes, half of it on link 1 with two workers.
    struct scenario {
        std::uint32_t threads;
        party side;
        std::size_t which;
        std::uint64_t cut_after;
    };
    for (const scenario sc : {scenario{2, party::alice, 1, 100}, scenario{2, party::alice, 1, 200000},
                              scenario{2, party::bob, 1, 5000}, scenario{4, party::alice, 3, 50000},
                              scenario{4, party::bob, 2, 300000}}) {
        INFO("threads " << sc.threads << ", " << to_string(sc.side) << "'s link " << sc.which << " cut after "
                        << sc.cut_after << " bytes");
        const cut_result r = run_with_cut_link(sc.threads, sc.side, sc.which, sc.cut_after);
        CHECK(r.cut);
        CHECK(r.seconds < 8.0);
        CHECK(r.alice_runs < 4);
        CHECK(r.bob_runs < 4);
        for (auto e : {r.errors.alice, r.errors.bob}) {
            REQUIRE(e);
            try {
                std::rethrow_exception(e);
            } catch (const network_error&) {
            } catch (const protocol_error&) {
            } catch (const std::exception& other) {
                FAIL("not a network_error or protocol_error: " << other.what());
            }
        }
    }
}

TEST_CASE("regions.session.first_step_without_worker_0") {
    // One instance whose tables (~4.6 MB) exceed the in-memory link's 4 MiB
    // buffer; with two workers it runs on worker 1, so worker 0 sends nothing
    // in the first step.
    const auto c = compile(
        [](const std::array<u64, 2>& a, const std::array<u64, 2>& b) {
            const auto r = parallel_for<1>([&](std::size_t) {
                u64 x = a[0];
                for (int k = 0; k < 40; ++k) x = x * b[0] + a[1];
                return x;
            });
            return r[0] ^ b[1];
        },
        input<party::alice, std::array<u64, 2>>, input<party::bob, std::array<u64, 2>>);
    REQUIRE(32 * c.stats().and_gates > net::detail::memory_pipe::capacity);
    const std::array<std::uint64_t, 2> a{3, 5}, b{7, 11};
    const std::uint64_t expected = c.eval_plain(a, b);
    session_options o = with_threads(2);
    o.timeout = 2s;
    std::optional<std::uint64_t> ra, rb;
    const auto t0 = std::chrono::steady_clock::now();
    const outcome out = two_party(
        make_wiring(1), o, o, [&](session& s) { ra = s.run(c, a); }, [&](session& s) { rb = s.run(c, b); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(seconds < 8.0);
    // Alice flushes the hash start and her labels on the main link before
    // garbling: otherwise she would block on a full worker link while Bob
    // waits on the main link for them.
    CHECK_MESSAGE(!out.alice, "alice: " << message_of(out.alice));
    CHECK_MESSAGE(!out.bob, "bob: " << message_of(out.bob));
    CHECK(ra == expected);
    CHECK(rb == expected);
}

}  // namespace regions_tests
