// IEEE-754 arithmetic on secure_float (lib/float/round.hpp, lib/float/arith.hpp):
// bit-exact against the CPU (SSE scalar instructions through intrinsics, default
// MXCSR: round to nearest even, no FTZ/DAZ), NaN encodings included.
//
// Each operation runs on every pair of a list of special values, then on random
// cases (uniform encodings mixed with structured ones: nearby exponents,
// subnormals, ties) in plaintext (eval_plain_batch), and a few hundred cases
// garbled two-party over memory channels, and streamed (tandem::stream) in
// small segments. binary16 and bfloat16 run against a double-based reference
// (the code is generic in E and M). Seeds are fixed and printed on failure.
// Under TANDEM_SANITIZED the random sweeps are 10x smaller.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/float/arith.hpp>
#include <tandem/lib/float/round.hpp>
#include <tandem/tandem.hpp>

#include <immintrin.h>

#include <bit>
#include <limits>
#include <string>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

namespace lib_float_tests {

using namespace tandem;

namespace {

#ifdef TANDEM_SANITIZED
constexpr std::size_t sweep_scale = 10;
#else
constexpr std::size_t sweep_scale = 1;
#endif

}  // namespace

// ---- rounding ---------------------------------------------------------------------

TEST_CASE("lib.float.round_pack_f32") {
    // round_pack_saturate against the CPU's double -> float conversion, which
    // rounds an exact double to nearest even with gradual underflow.
    constexpr std::size_t G = 3, EW = 10;
    const auto c = compile(
        [](secure_bit s, secure_int<EW> e, secure_uint<24 + G> sig) {
            return detail::round_pack_saturate<8, 23, G>(s, e, sig);
        },
        input<party::alice, secure_bit>, input<party::alice, secure_int<EW>>, input<party::alice, secure_uint<24 + G>>);
    CHECK(c.stats().and_gates == 279);
    const std::uint64_t seed = 0x20261124;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<bool, std::int16_t, std::uint32_t>> sets;
    for (std::size_t i = 0; i < 100000 / sweep_scale; ++i) {
        const bool s = (rng() & 1) != 0;
        int e = static_cast<int>(rng() % 330) - 60;  // far below and above the range
        std::uint32_t sig = static_cast<std::uint32_t>(rng()) & ((1u << 27) - 1);
        if (e == 1 && rng() % 2 == 0) sig &= (1u << 26) - 1;  // subnormal-or-zero, already aligned
        else sig |= 1u << 26;                                // normalized
        if (rng() % 50 == 0) sig = 0, e = 1;  // zero: only as an aligned (e == 1) value
        sets.emplace_back(s, static_cast<std::int16_t>(e), sig);
    }
    const auto got = c.eval_plain_batch(sets);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const bool s = std::get<0>(sets[k]);
        const int e = std::get<1>(sets[k]);
        const std::uint32_t sig = std::get<2>(sets[k]);
        float f = static_cast<float>(std::ldexp(static_cast<double>(sig), e - 127 - 23 - static_cast<int>(G)));
        if (s) f = -f;
        const std::uint32_t want = std::bit_cast<std::uint32_t>(f);
        const std::uint32_t have = got[k];
        INFO("case " << k << ": s " << s << " e " << e << " sig " << sig);
        CHECK(have == want);
    }
}

TEST_CASE("lib.float.unpack_flags") {
    // unpack's fields and class flags against the C++ classification.
    const auto c = compile(
        [](secure_f32 x) {
            const auto p = detail::unpack(x);
            return std::make_tuple(p.is_nan(), p.is_inf(), p.is_zero(), p.hidden(), p.effective_exponent(),
                                   p.significand(), detail::quieted(x));
        },
        input<party::alice, secure_f32>);
    CHECK(c.stats().and_gates == 2 * (8 - 1) + (23 - 1) + 3);
    std::vector<std::tuple<float>> sets;
    for (std::uint32_t u : {0x0u, 0x80000000u, 0x1u, 0x807fffffu, 0x00800000u, 0x3f800000u, 0x7f7fffffu, 0x7f800000u,
                            0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffa00001u})
        sets.emplace_back(std::bit_cast<float>(u));
    std::mt19937_64 rng(20261124);
    for (int i = 0; i < 1000; ++i) sets.emplace_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    const auto got = c.eval_plain_batch(sets);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const float x = std::get<0>(sets[k]);
        const std::uint32_t u = std::bit_cast<std::uint32_t>(x), field = (u >> 23) & 0xff;
        INFO("x = " << std::hex << u);
        CHECK(std::get<0>(got[k]) == std::isnan(x));
        CHECK(std::get<1>(got[k]) == std::isinf(x));
        CHECK(std::get<2>(got[k]) == (x == 0));
        CHECK(std::get<3>(got[k]) == (field != 0));
        CHECK(std::get<4>(got[k]) == (field == 0 ? 1u : field));
        CHECK(std::get<5>(got[k]) == ((u & 0x7fffffu) | (field != 0 ? 0x800000u : 0u)));
        CHECK(std::get<6>(got[k]) == (u | 0x400000u));
    }
}

// ---- the CPU's results ----------------------------------------------------------

namespace {

template <class T>
using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Intrinsics keep the operand order (and stop constant folding across it).
float cpu_add(float a, float b) { return _mm_cvtss_f32(_mm_add_ss(_mm_set_ss(a), _mm_set_ss(b))); }
float cpu_sub(float a, float b) { return _mm_cvtss_f32(_mm_sub_ss(_mm_set_ss(a), _mm_set_ss(b))); }
float cpu_mul(float a, float b) { return _mm_cvtss_f32(_mm_mul_ss(_mm_set_ss(a), _mm_set_ss(b))); }
float cpu_div(float a, float b) { return _mm_cvtss_f32(_mm_div_ss(_mm_set_ss(a), _mm_set_ss(b))); }
float cpu_sqrt(float a) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(a))); }
double cpu_add(double a, double b) { return _mm_cvtsd_f64(_mm_add_sd(_mm_set_sd(a), _mm_set_sd(b))); }
double cpu_sub(double a, double b) { return _mm_cvtsd_f64(_mm_sub_sd(_mm_set_sd(a), _mm_set_sd(b))); }
double cpu_mul(double a, double b) { return _mm_cvtsd_f64(_mm_mul_sd(_mm_set_sd(a), _mm_set_sd(b))); }
double cpu_div(double a, double b) { return _mm_cvtsd_f64(_mm_div_sd(_mm_set_sd(a), _mm_set_sd(b))); }
double cpu_sqrt(double a) {
    const __m128d x = _mm_set_sd(a);
    return _mm_cvtsd_f64(_mm_sqrt_sd(x, x));
}

enum class op { add, sub, mul, div, sqrt };
const char* name_of(op o) {
    switch (o) {
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
    case op::sqrt: return "sqrt";
    }
    return "?";
}

template <class T>
T cpu(op o, T a, T b) {
    switch (o) {
    case op::add: return cpu_add(a, b);
    case op::sub: return cpu_sub(a, b);
    case op::mul: return cpu_mul(a, b);
    case op::div: return cpu_div(a, b);
    case op::sqrt: return cpu_sqrt(a);
    }
    return a;
}

template <class T>
struct format;
template <>
struct format<float> {
    using secure = secure_f32;
    static constexpr int E = 8, M = 23;
};
template <>
struct format<double> {
    using secure = secure_f64;
    static constexpr int E = 11, M = 52;
};

template <class T>
T from_bits(bits_of<T> u) {
    return std::bit_cast<T>(u);
}
template <class T>
bits_of<T> to_bits(T x) {
    return std::bit_cast<bits_of<T>>(x);
}

template <class T>
std::string hex(T x) {
    std::ostringstream s;
    s << std::hex << "0x" << to_bits(x);
    return s.str();
}

/// The binary operators as circuits (alice's a, bob's b), and sqrt of alice's a.
template <class T>
auto binary_circuit(op o) {
    using S = typename format<T>::secure;
    return compile(
        [o](S a, S b) {
            switch (o) {
            case op::add: return a + b;
            case op::sub: return a - b;
            case op::mul: return a * b;
            default: return a / b;
            }
        },
        input<party::alice, S>, input<party::bob, S>);
}
template <class T>
auto sqrt_circuit() {
    using S = typename format<T>::secure;
    return compile([](S a) { return tandem::sqrt(a); }, input<party::alice, S>);
}

/// Special values: zeros, subnormals, normals at the edges and one ulp apart,
/// ties, values whose products or quotients overflow or underflow, ∞ and NaNs
/// (quiet and signalling, with payloads), each with both signs.
template <class T>
std::vector<T> special_values() {
    using L = std::numeric_limits<T>;
    using U = bits_of<T>;
    constexpr int M = format<T>::M, E = format<T>::E;
    const T one = 1;
    std::vector<T> pos{0,
                       L::denorm_min(),
                       std::nextafter(L::denorm_min(), one),
                       L::min() - L::denorm_min(),  // largest subnormal
                       L::min() / 2,
                       L::min(),
                       std::nextafter(L::min(), one),
                       one,
                       std::nextafter(one, T(2)),
                       std::nextafter(one, T(0)),
                       T(1.5),
                       T(2),
                       T(3),
                       T(0.5),
                       T(0.1),
                       T(10),
                       std::ldexp(one, M + 1),           // 2^(M+1): adding 1 is a tie
                       std::ldexp(one, -M - 1),          // half an ulp of 1
                       std::ldexp(T(1.5), -M - 1),       // more than half an ulp of 1
                       std::ldexp(one, L::max_exponent / 2 + 1),
                       std::ldexp(one, L::min_exponent / 2 - M / 2),
                       std::ldexp(T(1.5), L::min_exponent - 2),  // normal × 0.5 is subnormal
                       L::max(),
                       std::nextafter(L::max(), one),
                       L::infinity()};
    std::vector<T> v;
    for (T x : pos) {
        v.push_back(x);
        v.push_back(-x);
    }
    const U sign = U{1} << (E + M), exp_max = ((U{1} << E) - 1) << M, quiet = U{1} << (M - 1);
    for (U nan : {exp_max | quiet, exp_max | quiet | 0x12345, exp_max | 1, exp_max | (quiet >> 1) | 0x50}) {
        v.push_back(from_bits<T>(nan));
        v.push_back(from_bits<T>(nan | sign));
    }
    return v;
}

/// Random operands: uniform encodings mixed with structured ones.
template <class T>
std::pair<T, T> random_pair(std::mt19937_64& rng) {
    using U = bits_of<T>;
    constexpr int M = format<T>::M, E = format<T>::E;
    constexpr U frac_mask = (U{1} << M) - 1, sign = U{1} << (E + M);
    const auto with_exponent = [&](U e) { return (rng() & (sign | frac_mask)) | ((e & ((U{1} << E) - 1)) << M); };
    U a = static_cast<U>(rng()), b = static_cast<U>(rng());
    const U ea = (a >> M) & ((U{1} << E) - 1);
    switch (rng() % 8) {
    case 0:
    case 1: break;  // uniform encodings
    case 2:         // nearby exponents: cancellation, carries
        b = with_exponent(ea + rng() % 5 - 2);
        break;
    case 3:  // exponents up to M+3 apart: alignment, ties
        b = with_exponent(ea - rng() % (M + 4));
        if (rng() % 2) b &= ~(frac_mask >> (rng() % M));  // few fraction bits
        break;
    case 4:  // subnormals
        a &= sign | frac_mask;
        if (rng() % 2) b &= sign | frac_mask;
        break;
    case 5:  // short fractions: exact products and ties
        a &= ~(frac_mask >> (rng() % (M + 1)));
        b &= ~(frac_mask >> (rng() % (M + 1)));
        break;
    case 6:  // exponents near the ends of the range: overflow and underflow
        a = with_exponent(rng() % 2 ? rng() % (M + 3) : (U{1} << E) - 2 - rng() % 8);
        b = with_exponent(rng() % 2 ? ((U{1} << (E - 1)) + rng() % 8) : rng() % (M + 3) + (U{1} << (E - 2)));
        break;
    default: {  // a special value against a random one
        static const std::vector<T> specials = special_values<T>();
        a = to_bits(specials[rng() % specials.size()]);
        if (rng() % 2) std::swap(a, b);
    }
    }
    return {from_bits<T>(a), from_bits<T>(b)};
}

template <class T>
std::vector<std::tuple<T, T>> all_special_pairs() {
    const std::vector<T> v = special_values<T>();
    std::vector<std::tuple<T, T>> sets;
    for (T a : v)
        for (T b : v) sets.emplace_back(a, b);
    return sets;
}

/// Plaintext results against the CPU; reports at most a few mismatches in full.
template <class T, class Results>
void compare(op o, const std::vector<std::tuple<T, T>>& sets, const Results& got, const std::string& what) {
    REQUIRE(got.size() == sets.size());
    std::size_t failures = 0;
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const T a = std::get<0>(sets[k]), b = std::get<1>(sets[k]);
        const T want = cpu(o, a, b);
        const T have = got[k];
        if (to_bits(have) == to_bits(want)) continue;
        if (++failures > 8) continue;
        const std::string line = what + " case " + std::to_string(k) + ": " + hex(a) + " " + name_of(o) + " " +
                                 hex(b) + " gave " + hex(have) + ", the CPU " + hex(want);
        INFO(line);
        CHECK(to_bits(have) == to_bits(want));
    }
    INFO(what);
    CHECK(failures == 0);
}

template <class T>
std::vector<std::tuple<T, T>> random_sets(std::uint64_t seed, std::size_t count) {
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<T, T>> sets;
    for (std::size_t i = 0; i < count; ++i) {
        const auto p = random_pair<T>(rng);
        sets.emplace_back(p.first, p.second);
    }
    return sets;
}

constexpr std::size_t random_cases = 1000000 / sweep_scale;

/// Every pair of special values, then random cases, in plaintext (batched).
template <class T>
void sweep_binary(op o, std::size_t and_gates, std::uint64_t seed) {
    const auto c = binary_circuit<T>(o);
    CHECK(c.stats().and_gates == and_gates);
    const auto specials = all_special_pairs<T>();
    compare(o, specials, c.eval_plain_batch(specials), "special pairs");
    const auto sets = random_sets<T>(seed, random_cases);
    compare(o, sets, c.eval_plain_batch(sets), "random, seed " + std::to_string(seed));
}

template <class T>
void sweep_sqrt(std::size_t and_gates, std::uint64_t seed) {
    const auto c = sqrt_circuit<T>();
    CHECK(c.stats().and_gates == and_gates);
    std::vector<std::tuple<T, T>> sets;
    for (T a : special_values<T>()) sets.emplace_back(a, T(0));
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < random_cases; ++i) {
        T a = random_pair<T>(rng).first;
        if (rng() % 4 != 0) a = std::fabs(a);  // mostly non-negative: the interesting ones
        if (std::isnan(a) && rng() % 2) a = -a;
        sets.emplace_back(a, T(0));
    }
    std::vector<std::tuple<T>> in;
    for (const auto& s : sets) in.emplace_back(std::get<0>(s));
    compare(op::sqrt, sets, c.eval_plain_batch(in), "specials then random, seed " + std::to_string(seed));
}

}  // namespace

// AND counts (anchors, EMP binary32: add 1,143, mul 2,286, div 7,845, sqrt 5,699).
constexpr std::size_t add_f32_ands = 695, mul_f32_ands = 1651, div_f32_ands = 1434, sqrt_f32_ands = 595;
constexpr std::size_t add_f64_ands = 1512, mul_f64_ands = 5332, div_f64_ands = 4773, sqrt_f64_ands = 2114;

TEST_CASE("lib.float.and_counts_beat_emp") {
    CHECK(add_f32_ands <= 1143);
    CHECK(mul_f32_ands <= 2286);
    CHECK(div_f32_ands <= 7845);
    CHECK(sqrt_f32_ands <= 5699);
}

TEST_CASE("lib.float.add_f32") { sweep_binary<float>(op::add, add_f32_ands, 101); }
TEST_CASE("lib.float.sub_f32") { sweep_binary<float>(op::sub, add_f32_ands, 102); }
TEST_CASE("lib.float.mul_f32") { sweep_binary<float>(op::mul, mul_f32_ands, 103); }
TEST_CASE("lib.float.div_f32") { sweep_binary<float>(op::div, div_f32_ands, 104); }
TEST_CASE("lib.float.sqrt_f32") { sweep_sqrt<float>(sqrt_f32_ands, 105); }
TEST_CASE("lib.float.add_f64") { sweep_binary<double>(op::add, add_f64_ands, 201); }
TEST_CASE("lib.float.sub_f64") { sweep_binary<double>(op::sub, add_f64_ands, 202); }
TEST_CASE("lib.float.mul_f64") { sweep_binary<double>(op::mul, mul_f64_ands, 203); }
TEST_CASE("lib.float.div_f64") { sweep_binary<double>(op::div, div_f64_ands, 204); }
TEST_CASE("lib.float.sqrt_f64") { sweep_sqrt<double>(sqrt_f64_ands, 205); }

TEST_CASE("lib.float.public_constants_fold") {
    // Mixing with a constant of the plain type gives the same results, for fewer ANDs.
    const auto c = compile(
        [](secure_f32 a) {
            return std::make_tuple(a + 1.5f, 2.0f - a, a * 0.1f, 1.0f / a, (a * 2.0f) / a);
        },
        input<party::alice, secure_f32>);
    CHECK(c.stats().and_gates < 2 * add_f32_ands + mul_f32_ands + div_f32_ands + div_f32_ands + mul_f32_ands);
    std::mt19937_64 rng(301);
    for (int i = 0; i < 200; ++i) {
        const float a = random_pair<float>(rng).first;
        const auto got = c.eval_plain(a);
        INFO("a = " << hex(a));
        CHECK(to_bits(std::get<0>(got)) == to_bits(cpu_add(a, 1.5f)));
        CHECK(to_bits(std::get<1>(got)) == to_bits(cpu_sub(2.0f, a)));
        CHECK(to_bits(std::get<2>(got)) == to_bits(cpu_mul(a, 0.1f)));
        CHECK(to_bits(std::get<3>(got)) == to_bits(cpu_div(1.0f, a)));
        CHECK(to_bits(std::get<4>(got)) == to_bits(cpu_div(cpu_mul(a, 2.0f), a)));
    }
    // Compound assignment.
    const auto d = compile(
        [](secure_f64 a, secure_f64 b) {
            a += b;
            a *= 3.0;
            a -= b;
            a /= b;
            return a;
        },
        input<party::alice, secure_f64>, input<party::bob, secure_f64>);
    const double want = cpu_div(cpu_sub(cpu_mul(cpu_add(1.25, -0.5), 3.0), -0.5), -0.5);
    CHECK(to_bits(d.eval_plain(1.25, -0.5)) == to_bits(want));
}

// ---- garbled two-party ------------------------------------------------------------

namespace {

/// Runs each set garbled (alice holds a, bob b) and checks it against plaintext mode.
template <class T, class Circuit>
void garbled_binary(const Circuit& c, const std::vector<std::tuple<T, T>>& sets) {
    std::vector<T> got_a(sets.size()), got_b(sets.size());
    rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1),
        [&](session& s) {
            for (std::size_t k = 0; k < sets.size(); ++k) got_a[k] = s.run(c, std::get<0>(sets[k]));
        },
        [&](session& s) {
            for (std::size_t k = 0; k < sets.size(); ++k) got_b[k] = s.run(c, std::get<1>(sets[k]));
        }));
    const auto plain = c.eval_plain_batch(sets);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const std::string line = "case " + std::to_string(k) + ": " + hex(std::get<0>(sets[k])) + ", " +
                                 hex(std::get<1>(sets[k])) + ": garbled " + hex(got_a[k]) + ", plaintext " +
                                 hex(plain[k]);
        INFO(line);
        CHECK(to_bits(got_a[k]) == to_bits(plain[k]));
        CHECK(to_bits(got_b[k]) == to_bits(got_a[k]));
    }
}

/// Special pairs (every 17th, so each value meets several others) and random pairs.
template <class T>
std::vector<std::tuple<T, T>> garbled_sets(std::uint64_t seed, std::size_t count) {
    std::vector<std::tuple<T, T>> sets;
    const auto specials = all_special_pairs<T>();
    for (std::size_t k = 0; k < specials.size() && sets.size() < count / 2; k += 17) sets.push_back(specials[k]);
    const auto random = random_sets<T>(seed, count - sets.size());
    sets.insert(sets.end(), random.begin(), random.end());
    return sets;
}

template <class T>
void garbled_all(std::size_t count, std::uint64_t seed) {
    for (op o : {op::add, op::sub, op::mul, op::div}) {
        INFO("operation " << name_of(o));
        garbled_binary<T>(binary_circuit<T>(o), garbled_sets<T>(seed + static_cast<std::uint64_t>(o), count));
    }
    const auto c = sqrt_circuit<T>();
    const auto sets = garbled_sets<T>(seed + 9, count);
    std::vector<T> got(sets.size());
    rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1),
        [&](session& s) {
            for (std::size_t k = 0; k < sets.size(); ++k) got[k] = s.run(c, std::get<0>(sets[k]));
        },
        [&](session& s) {
            for (std::size_t k = 0; k < sets.size(); ++k) s.run(c);
        }));
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const T a = std::get<0>(sets[k]);
        const std::string line = "sqrt case " + std::to_string(k) + ": " + hex(a);
        INFO(line);
        CHECK(to_bits(got[k]) == to_bits(cpu_sqrt(a)));
    }
}

}  // namespace

TEST_CASE("lib.float.garbled_f32") { garbled_all<float>(300, 401); }
TEST_CASE("lib.float.garbled_f64") { garbled_all<double>(200, 402); }

// ---- streamed ---------------------------------------------------------------------

TEST_CASE("lib.float.streamed_equals_cpu") {
    // The same operations run by tandem::stream, cut into small segments (a
    // segment may end after any value an operation makes).
    auto fn = tandem::stream(
        [](secure_f64 a, secure_f64 b) { return std::make_tuple(a + b, a - b, a * b, a / b, tandem::sqrt(a)); },
        input<party::alice, secure_f64>, input<party::bob, secure_f64>);
    auto fn32 = tandem::stream(
        [](secure_f32 a, secure_f32 b) { return std::make_tuple(a + b, a * b, a / b, tandem::sqrt(a)); },
        input<party::alice, secure_f32>, input<party::bob, secure_f32>);
    const auto sets = garbled_sets<double>(501, 40);
    const auto sets32 = garbled_sets<float>(502, 40);
    for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{50}, tandem::default_segment_ands}) {
        fn.segment_ands = k;
        fn32.segment_ands = k;
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const double a = std::get<0>(sets[i]), b = std::get<1>(sets[i]);
            const auto got = fn.eval_plain(a, b);
            const std::string line = "segment_ands " + std::to_string(k) + ", " + hex(a) + ", " + hex(b);
            INFO(line);
            CHECK(to_bits(std::get<0>(got)) == to_bits(cpu_add(a, b)));
            CHECK(to_bits(std::get<1>(got)) == to_bits(cpu_sub(a, b)));
            CHECK(to_bits(std::get<2>(got)) == to_bits(cpu_mul(a, b)));
            CHECK(to_bits(std::get<3>(got)) == to_bits(cpu_div(a, b)));
            CHECK(to_bits(std::get<4>(got)) == to_bits(cpu_sqrt(a)));
        }
        for (std::size_t i = 0; i < sets32.size(); ++i) {
            const float a = std::get<0>(sets32[i]), b = std::get<1>(sets32[i]);
            const auto got = fn32.eval_plain(a, b);
            const std::string line = "segment_ands " + std::to_string(k) + ", " + hex(a) + ", " + hex(b);
            INFO(line);
            CHECK(to_bits(std::get<0>(got)) == to_bits(cpu_add(a, b)));
            CHECK(to_bits(std::get<1>(got)) == to_bits(cpu_mul(a, b)));
            CHECK(to_bits(std::get<2>(got)) == to_bits(cpu_div(a, b)));
            CHECK(to_bits(std::get<3>(got)) == to_bits(cpu_sqrt(a)));
        }
    }
}

// ---- other formats ----------------------------------------------------------------

namespace {

/// A reference for small formats (E, M), whose plain type is the encoding:
/// operands decoded exactly into double, the operation done in double, the
/// result rounded once more (innocuous: binary64 has more than 2(M+1)+2
/// bits, Figueroa 1995), NaNs as on x86.
template <int E, int M>
struct small_format {
    using U = std::uint32_t;
    static constexpr U exp_max = (U{1} << E) - 1, frac_mask = (U{1} << M) - 1, sign = U{1} << (E + M);
    static constexpr int bias = (1 << (E - 1)) - 1;
    static constexpr U quiet = U{1} << (M - 1), default_nan = sign | (exp_max << M) | quiet;

    static bool is_nan(U x) { return ((x >> M) & exp_max) == exp_max && (x & frac_mask) != 0; }
    static double decode(U x) {
        const U field = (x >> M) & exp_max, frac = x & frac_mask;
        const int scale = static_cast<int>(field == 0 ? 1 : field) - bias - M;
        const U significand = field == 0 ? frac : frac | (U{1} << M);
        const double v = field == exp_max ? (frac != 0 ? std::nan("") : HUGE_VAL)
                                          : std::ldexp(static_cast<double>(significand), scale);
        return (x & sign) != 0 ? -v : v;
    }
    /// Rounds a non-NaN double to nearest even in this format.
    static U encode(double v) {
        const U s = std::signbit(v) ? sign : 0;
        const double a = std::fabs(v);
        if (a == 0) return s;
        if (std::isinf(a)) return s | (exp_max << M);
        int e = 0;
        std::frexp(a, &e);                             // a = f · 2^e, f in [0.5, 1)
        int q = std::max(e - 1, 1 - bias) - M;         // the quantum's exponent
        double m = std::nearbyint(std::ldexp(a, -q));  // ties to even (default rounding mode)
        if (m == std::ldexp(1.0, M + 1)) m /= 2, ++q;  // rounded up to the next binade
        const U mi = static_cast<U>(m);
        if (mi < (U{1} << M)) return s | mi;  // subnormal (q is the minimum)
        const int field = q + M + bias;
        if (field >= static_cast<int>(exp_max)) return s | (exp_max << M);
        return s | (static_cast<U>(field) << M) | (mi & frac_mask);
    }
    static U apply(op o, U a, U b) {
        if (is_nan(a)) return a | quiet;
        if (o != op::sqrt && is_nan(b)) return b | quiet;
        const double x = decode(a), y = decode(b);
        double r = 0;
        switch (o) {
        case op::add: r = x + y; break;
        case op::sub: r = x - y; break;
        case op::mul: r = x * y; break;
        case op::div: r = x / y; break;
        case op::sqrt: r = std::sqrt(x); break;
        }
        if (std::isnan(r)) return default_nan;
        return encode(r);
    }
};

template <int E, int M>
void sweep_small(std::uint64_t seed, std::size_t count) {
    using F = small_format<E, M>;
    using S = secure_float<E, M>;
    using P = typename value_traits<S>::plain_type;
    constexpr std::uint32_t width_mask = (std::uint32_t{1} << (1 + E + M)) - 1;
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<P, P>> sets;
    if constexpr (1 + E + M <= 8) {  // every pair
        for (std::uint32_t a = 0; a <= width_mask; ++a)
            for (std::uint32_t b = 0; b <= width_mask; ++b) sets.emplace_back(static_cast<P>(a), static_cast<P>(b));
        count = 0;
    }
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t a = static_cast<std::uint32_t>(rng()) & width_mask;
        std::uint32_t b = static_cast<std::uint32_t>(rng()) & width_mask;
        if (i % 4 == 1) b = (b & ~(F::exp_max << M)) | (a & (F::exp_max << M));  // same exponent: cancellation
        if (i % 8 == 3) a &= F::sign | F::frac_mask;                                 // subnormal
        sets.emplace_back(static_cast<P>(a), static_cast<P>(b));
    }
    for (op o : {op::add, op::sub, op::mul, op::div, op::sqrt}) {
        const auto c = compile(
            [o](S a, S b) {
                switch (o) {
                case op::add: return a + b;
                case op::sub: return a - b;
                case op::mul: return a * b;
                case op::div: return a / b;
                default: return tandem::sqrt(a);
                }
            },
            input<party::alice, S>, input<party::bob, S>);
        const auto got = c.eval_plain_batch(sets);
        std::size_t failures = 0;
        for (std::size_t k = 0; k < sets.size(); ++k) {
            const std::uint32_t a = std::get<0>(sets[k]), b = std::get<1>(sets[k]);
            const std::uint32_t want = F::apply(o, a, b), have = got[k];
            if (have == want || ++failures > 8) continue;
            std::ostringstream line;
            line << "E " << E << " M " << M << ", seed " << seed << ": " << std::hex << a << " " << name_of(o) << " "
                 << b << " gave " << have << ", expected " << want;
            const std::string text = line.str();
            INFO(text);
            CHECK(have == want);
        }
        CHECK(failures == 0);
    }
}

}  // namespace

TEST_CASE("lib.float.other_formats") {
    // The operations are generic in E and M: binary16, bfloat16 and three odd
    // formats against a double-based reference (the 8-bit ones exhaustively).
    sweep_small<5, 10>(601, 200000 / sweep_scale);
    sweep_small<8, 7>(602, 200000 / sweep_scale);
    sweep_small<3, 20>(603, 100000 / sweep_scale);  // few exponent bits, many fraction bits
    sweep_small<4, 3>(604, 0);  // 8 bits: every pair
    sweep_small<2, 5>(605, 0);  // the smallest exponent (bias 1), every pair
}

}  // namespace lib_float_tests
