// Division, remainder and multiplication by public constants
// (dsl/constant_divide.hpp, dsl/constant_multiply.hpp): the laws of C++ on
// widths 1..128 for many divisors, exact AND counts, garbled == plaintext, and
// MExp (examples/apps.hpp), which reduces modulo a public m.
#include "laws.hpp"
#include "memory_sessions.hpp"

#include "../examples/apps.hpp"

#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/gc/half_gates.hpp>

#include <random>
#include <tuple>
#include <vector>

namespace constant_divisors_tests {

using namespace tandem;
using laws::u128;
using laws::i128;

namespace {

/// The divisors tried at width N, as N-bit patterns.
template <std::size_t N>
std::vector<u128> divisors(std::uint64_t seed) {
    constexpr u128 m = laws::mask<N>;
    std::vector<u128> c = {0, 1, 2, 3, 5, 6, 7, 10, 12, 641, 1000000007, m, m - 1, m - 2, m >> 1, (m >> 1) + 1,
                           (m >> 1) - 1, (m >> 2) + 1, m / 3, m / 10};
    for (std::size_t k = 2; k < N; k += 7) c.push_back(u128{1} << k);
    for (std::size_t k = 3; k < N; k += 11) c.push_back((u128{1} << k) + 1);
    for (std::size_t k = 3; k < N; k += 9) c.push_back((u128{1} << k) - 1);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 6; ++i) {
        const u128 r = (u128{rng()} << 64) | rng();
        c.push_back(r);                                // full width
        c.push_back(r >> (rng() % 128));               // any width
        c.push_back(u128{rng() % 1000});               // small
        c.push_back(m - u128{rng() % 1000});           // small negative / near the maximum
    }
    for (auto& v : c) v &= m;
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

/// Dividends for divisor c: edge values, values around multiples of c, random ones.
template <std::size_t N>
std::vector<u128> dividends(u128 c, std::mt19937_64& rng) {
    constexpr u128 m = laws::mask<N>;
    std::vector<u128> x = {0, 1, 2, 3, m, m - 1, m >> 1, (m >> 1) + 1, (m >> 1) - 1, c, c - 1, c + 1,
                           2 * c, 2 * c - 1, 3 * c + 1, 0 - c, 0 - c - 1};
    if (c != 0) {
        const u128 top = m - m % c;  // largest multiple of c
        x.push_back(top);
        x.push_back(top - 1);
        x.push_back(top - c);
    }
    for (int i = 0; i < 60; ++i) {
        const u128 r = (u128{rng()} << 64) | rng();
        x.push_back(r);
        x.push_back(r >> (rng() % 128));
        if (c != 0) x.push_back(c * (r >> (rng() % 128)) + (rng() % 3) - 1);
    }
    for (auto& v : x) v &= m;
    return x;
}

/// The public constant of pattern c as the C++ integer a program would write.
template <std::size_t N, bool S>
auto as_public(u128 c) {
    if constexpr (S) return laws::sext<N>(c);
    else return c;
}

/// x / c and x % c for public c at width N: c as a C++ integer and as a
/// secure integer made of constants must both match C++ bit for bit.
template <std::size_t N, bool S>
void check_constant_division(std::uint64_t seed) {
    using A = laws::sint<N, S>;
    using plain = plain_type_t<A>;
    std::mt19937_64 rng(seed);
    std::size_t failures = 0;
    for (const u128 c : divisors<N>(seed)) {
        const auto pc = as_public<N, S>(c);
        const auto circ = compile(
            [pc](A x) {
                const A secure_c(pc);
                return std::tuple{x / pc, x % pc, x / secure_c, x % secure_c};
            },
            input<party::alice, A>);
        const std::vector<u128> xs = dividends<N>(c, rng);
        std::vector<std::tuple<plain>> sets;
        for (const u128 x : xs) sets.emplace_back(static_cast<plain>(x));
        const auto outs = circ.eval_plain_batch(sets);
        for (std::size_t i = 0; i < xs.size() && failures < 10; ++i) {
            const auto expect = laws::reference<N, S>(xs[i], c);
            const u128 got[] = {laws::widen(std::get<0>(outs[i])), laws::widen(std::get<1>(outs[i])),
                                laws::widen(std::get<2>(outs[i])), laws::widen(std::get<3>(outs[i]))};
            const u128 want[] = {expect[3], expect[4], expect[3], expect[4]};
            for (int j = 0; j < 4; ++j) {
                if (got[j] == want[j]) continue;
                ++failures;
                const std::string what = "N=" + std::to_string(N) + (S ? " signed " : " unsigned ") +
                                         (j % 2 == 0 ? "x / c" : "x % c") + (j >= 2 ? " (secure constant)" : "") +
                                         " with x=" + laws::to_string(xs[i]) + " c=" + laws::to_string(c) +
                                         ": got " + laws::to_string(got[j]) + ", expected " +
                                         laws::to_string(want[j]) + " (seed " + std::to_string(seed) + ")";
                FAIL_CHECK(what);
            }
        }
    }
    CHECK(failures == 0);
}

/// x * c for public c, truncated to N bits, against C++.
template <std::size_t N, bool S>
void check_constant_product(std::uint64_t seed) {
    using A = laws::sint<N, S>;
    using plain = plain_type_t<A>;
    std::mt19937_64 rng(seed);
    std::size_t failures = 0;
    for (const u128 c : divisors<N>(seed)) {
        const auto pc = as_public<N, S>(c);
        const auto circ = compile([pc](A x) { return std::tuple{x * pc, pc * x}; }, input<party::alice, A>);
        const std::vector<u128> xs = dividends<N>(c, rng);
        std::vector<std::tuple<plain>> sets;
        for (const u128 x : xs) sets.emplace_back(static_cast<plain>(x));
        const auto outs = circ.eval_plain_batch(sets);
        for (std::size_t i = 0; i < xs.size() && failures < 10; ++i) {
            const u128 want = laws::as_value<N, S>(xs[i] * c);
            const u128 got0 = laws::widen(std::get<0>(outs[i])), got1 = laws::widen(std::get<1>(outs[i]));
            if (got0 == want && got1 == want) continue;
            ++failures;
            const std::string what = "N=" + std::to_string(N) + (S ? " signed" : " unsigned") +
                                     " x * c with x=" + laws::to_string(xs[i]) + " c=" + laws::to_string(c) +
                                     ": got " + laws::to_string(got0) + " / " + laws::to_string(got1) +
                                     ", expected " + laws::to_string(want) + " (seed " + std::to_string(seed) + ")";
            FAIL_CHECK(what);
        }
    }
    CHECK(failures == 0);
}

template <class T, class F>
std::uint64_t ands(F f) {
    return compile(f, input<party::alice, T>).stats().and_gates;
}

/// Garbles c with `seed`, evaluates it on `inputs` (bits per input value) and decodes.
std::vector<bool> garbled_run(const circuit<>& c, const std::vector<std::vector<bool>>& inputs, std::uint64_t seed) {
    prg rng(block(seed, 77));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble<rekeyed_hash>(c, rng, tables);
    std::vector<block> active;
    for (std::size_t v = 0; v < inputs.size(); ++v)
        for (std::size_t k = 0; k < inputs[v].size(); ++k)
            active.push_back(g.input.label(c.data().inputs[v].first_bit + k, inputs[v][k]));
    gc::table_reader reader(tables.tables());
    const std::vector<block> out = gc::evaluate<rekeyed_hash>(c, g.hash_start, reader, active);
    CHECK(reader.remaining() == 0);
    return gc::decode(out, g.output);
}

template <std::size_t N, bool S>
void check_garbled(u128 c, std::uint64_t seed) {
    using A = laws::sint<N, S>;
    const auto pc = as_public<N, S>(c);
    const circuit<> circ = compile([pc](A x) { return std::tuple{x / pc, x % pc, x * pc}; }, input<party::alice, A>);
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 6; ++t) {
        std::vector<std::vector<bool>> in(1, std::vector<bool>(N));
        for (std::size_t k = 0; k < N; ++k) in[0][k] = t == 1 ? true : t == 0 ? false : (rng() & 1) != 0;
        std::vector<std::vector<bool>> plain_out = eval_plain_bits(circ, in);
        std::vector<bool> flat;
        for (const auto& v : plain_out) flat.insert(flat.end(), v.begin(), v.end());
        INFO("N=" << N << " signed=" << S << " c=" << laws::to_string(c) << " set " << t << " seed " << seed);
        CHECK(garbled_run(circ, in, seed + t) == flat);
    }
}

}  // namespace

// ---- laws -----------------------------------------------------------------------

TEST_CASE_TEMPLATE_DEFINE("constant_divisors.laws", W, constant_laws) {
    constexpr std::size_t n = W::value;
    check_constant_division<n, false>(0xd1000000 + n);
    check_constant_division<n, true>(0x5d100000 + n);
    check_constant_product<n, false>(0x3a000000 + n);
    check_constant_product<n, true>(0x3b000000 + n);
}
TEST_CASE_TEMPLATE_INVOKE(constant_laws, std::integral_constant<std::size_t, 1>, std::integral_constant<std::size_t, 2>,
                          std::integral_constant<std::size_t, 3>, std::integral_constant<std::size_t, 4>,
                          std::integral_constant<std::size_t, 5>, std::integral_constant<std::size_t, 7>,
                          std::integral_constant<std::size_t, 8>, std::integral_constant<std::size_t, 9>,
                          std::integral_constant<std::size_t, 13>, std::integral_constant<std::size_t, 16>,
                          std::integral_constant<std::size_t, 31>, std::integral_constant<std::size_t, 32>,
                          std::integral_constant<std::size_t, 33>, std::integral_constant<std::size_t, 63>,
                          std::integral_constant<std::size_t, 64>, std::integral_constant<std::size_t, 65>,
                          std::integral_constant<std::size_t, 100>, std::integral_constant<std::size_t, 127>,
                          std::integral_constant<std::size_t, 128>);

TEST_CASE("constant_divisors.exhaustive_8") {
    // Every dividend and every divisor at 8 bits, unsigned and signed.
    using U = secure_uint<8>;
    using I = secure_int<8>;
    for (unsigned c = 0; c < 256; ++c) {
        const auto cu = compile([c](U x) { return std::tuple{x / std::uint8_t(c), x % std::uint8_t(c)}; },
                                input<party::alice, U>);
        const auto ci = compile([c](I x) { return std::tuple{x / std::int8_t(c), x % std::int8_t(c)}; },
                                input<party::alice, I>);
        for (unsigned x = 0; x < 256; ++x) {
            const auto eu = laws::reference<8, false>(x, c);
            const auto ei = laws::reference<8, true>(x, c);
            const auto [qu, ru] = cu.eval_plain(std::uint8_t(x));
            const auto [qi, ri] = ci.eval_plain(std::int8_t(x));
            const u128 got_qu = laws::widen(qu), got_ru = laws::widen(ru), got_qi = laws::widen(qi),
                       got_ri = laws::widen(ri);
            if (got_qu == eu[3] && got_ru == eu[4] && got_qi == ei[3] && got_ri == ei[4]) continue;
            INFO("x = " << x << ", c = " << c);
            CHECK(got_qu == eu[3]);
            CHECK(got_ru == eu[4]);
            CHECK(got_qi == ei[3]);
            CHECK(got_ri == ei[4]);
        }
    }
}

// ---- garbled == plaintext -------------------------------------------------------

TEST_CASE("constant_divisors.garbled") {
    check_garbled<8, false>(7, 1);
    check_garbled<8, true>(0xF9, 2);  // -7
    check_garbled<32, false>(10, 3);
    check_garbled<32, false>(4294967291u, 4);
    check_garbled<32, true>(0x80000000u, 5);  // INT_MIN
    check_garbled<32, true>(0xFFFFFFF6u, 6);  // -10
    check_garbled<64, false>(1000000007, 7);
    check_garbled<64, true>(3, 8);
    check_garbled<128, false>(~u128{0} / 3, 9);
}

// ---- gate counts ----------------------------------------------------------------

namespace {

template <std::size_t N, bool S>
std::uint64_t divide_ands(u128 c, bool remainder) {
    using A = laws::sint<N, S>;
    const auto pc = as_public<N, S>(c);
    return remainder ? ands<A>([pc](A x) { return x % pc; }) : ands<A>([pc](A x) { return x / pc; });
}

template <std::size_t N>
std::uint64_t multiply_ands(u128 c) {
    using A = secure_uint<N>;
    return ands<A>([c](A x) { return x * c; });
}

struct expected_count {
    const char* what;
    std::uint64_t got, want;
};

}  // namespace

TEST_CASE("constant_divisors.gate_counts") {
    // Exact AND counts of the constructions (stated in constant_divide.hpp and
    // constant_multiply.hpp); the generic divider has n² + 3n - 3.
    const u128 m32 = apps::mexp_default_modulus;
    const expected_count table[] = {
        {"u32 / 3", divide_ands<32, false>(3, false), 196},
        {"u32 % 3", divide_ands<32, false>(3, true), 136},
        {"u32 / 7", divide_ands<32, false>(7, false), 216},
        {"u32 % 7", divide_ands<32, false>(7, true), 137},
        {"u32 / 10", divide_ands<32, false>(10, false), 202},
        {"u32 % 10", divide_ands<32, false>(10, true), 148},
        {"u32 / 1000000007", divide_ands<32, false>(1000000007, false), 263},
        {"u32 % 1000000007", divide_ands<32, false>(1000000007, true), 384},
        {"u32 / 2^32-5", divide_ands<32, false>(m32, false), 31},
        {"u32 % 2^32-5", divide_ands<32, false>(m32, true), 62},
        {"u32 / 0", divide_ands<32, false>(0, false), 0},
        {"u32 % 1024", divide_ands<32, false>(1024, true), 0},
        {"u64 / 3", divide_ands<64, false>(3, false), 466},
        {"u64 % 3", divide_ands<64, false>(3, true), 329},
        {"u64 / 7", divide_ands<64, false>(7, false), 514},
        {"u64 % 7", divide_ands<64, false>(7, true), 324},
        {"u64 / 10", divide_ands<64, false>(10, false), 486},
        {"u64 % 10", divide_ands<64, false>(10, true), 343},
        {"u64 / 1000000007", divide_ands<64, false>(1000000007, false), 1103},
        {"u64 % 1000000007", divide_ands<64, false>(1000000007, true), 1233},
        {"u64 / 2^32-5", divide_ands<64, false>(m32, false), 258},
        {"u64 % 2^32-5", divide_ands<64, false>(m32, true), 317},
        {"u16 / 10", divide_ands<16, false>(10, false), 78},
        {"u128 / 10", divide_ands<128, false>(10, false), 1122},
        {"u128 % 10", divide_ands<128, false>(10, true), 794},
        {"i32 / 10", divide_ands<32, true>(10, false), 255},
        {"i32 % 10", divide_ands<32, true>(10, true), 182},
        {"i32 / -7", divide_ands<32, true>(0xFFFFFFF9u, false), 270},
        {"i32 % -7", divide_ands<32, true>(0xFFFFFFF9u, true), 170},
        {"i32 / 8", divide_ands<32, true>(8, false), 31},
        {"i32 % 8", divide_ands<32, true>(8, true), 59},
        {"i32 / INT_MIN", divide_ands<32, true>(0x80000000u, false), 31},
        {"i32 / -1", divide_ands<32, true>(0xFFFFFFFFu, false), 30},
        {"i32 / 0", divide_ands<32, true>(0, false), 0},
        {"i64 / 10", divide_ands<64, true>(10, false), 602},
        {"i64 % 10", divide_ands<64, true>(10, true), 409},
        {"u32 * 10", multiply_ands<32>(10), 28},
        {"u32 * 0xFFFFFFFF", multiply_ands<32>(0xFFFFFFFFu), 30},
        {"u32 * 0x55555555", multiply_ands<32>(0x55555555u), 94},
        {"u64 * (2^32-5)", multiply_ands<64>(m32), 123},
        {"mul_mod (2^32-5)", ands<apps::u32>([](apps::u32 a) {
             return apps::mul_mod(a, a ^ 0x1234u, apps::mexp_default_modulus);
         }), 1664},  // 1,744 before squares were made once: the factors' high halves are one value
    };
    for (const auto& row : table) {
        INFO(std::string(row.what) << ": " << row.got << " ANDs");
        CHECK(row.got == row.want);
    }
}

// ---- MExp -----------------------------------------------------------------------

TEST_CASE("constant_divisors.mexp_moduli") {
    // Every 32-bit modulus must work: the default 2^32 - 5, tiny, Mersenne,
    // the largest, a random odd and a random even one, 1 (everything is 0).
    for (const std::uint32_t m : {4294967291u, 3u, 2147483647u, 4294967295u, 2654435761u, 3000000000u, 1u, 2u,
                                  65536u, 1000003u}) {
        const auto c = apps::mexp_circuit<2>(m);
        for (const std::uint64_t seed : {1u, 2u, 3u, 77u}) {
            const auto in = apps::make_mexp_inputs<2>(seed);
            const std::uint32_t got = c.eval_plain(in.bases, in.exps);
            const std::uint32_t want = apps::mexp_plain<2>(in.bases, in.exps, m);
            INFO("m = " << m << ", seed " << seed);
            CHECK(got == want);
        }
        const std::array<std::uint32_t, 2> big{UINT32_MAX, m - 1}, one{1, 1}, e{UINT32_MAX, 2};
        const std::uint32_t got_big = c.eval_plain(big, e), want_big = apps::mexp_plain<2>(big, e, m);
        const std::uint32_t got_one = c.eval_plain(big, one), want_one = apps::mexp_plain<2>(big, one, m);
        INFO("m = " << m);
        CHECK(got_big == want_big);
        CHECK(got_one == want_one);
    }
}

TEST_CASE("constant_divisors.mexp_session") {
    // Garbled over the in-memory session pair: equal to plaintext.
    for (const std::uint32_t m : {apps::mexp_default_modulus, 3000000000u}) {
        const auto c = apps::mexp_circuit<2>(m);
        const auto in = apps::make_mexp_inputs<2>(20261124);
        std::uint32_t got_a = 0, got_b = 0;
        test::rethrow(test::two_party(
            test::make_wiring(0), test::with_threads(1), test::with_threads(1),
            [&](session& s) { got_a = s.run(c, in.bases); }, [&](session& s) { got_b = s.run(c, in.exps); }));
        const std::uint32_t want = apps::mexp_plain<2>(in.bases, in.exps, m);
        INFO("m = " << m);
        CHECK(got_a == want);
        CHECK(got_b == want);
    }
}

TEST_CASE("constant_divisors.mexp_size") {
    // MExp k = 32, m = 2^32 - 5: % m by the constant-divisor circuit. Before
    // it: 9,431,255 ANDs and 33,544,461 gates executed (the generic divider);
    // with it, 3,468,632 and 13,326,936 until the DSL made each square's
    // partial products once (dsl/multiply.hpp, square_schoolbook).
    const auto c = apps::mexp_circuit<>();
    const auto& st = c.stats();
    MESSAGE("MExp: " << st.and_gates << " ANDs, " << st.executed_gates << " gates executed");
    CHECK(st.and_gates == 3191864);
    CHECK(st.executed_gates == 11490035);
    CHECK(st.and_gates * 100 <= 9431255ull * 55);
    CHECK(st.executed_gates < 21500000ull);
}

}  // namespace constant_divisors_tests
