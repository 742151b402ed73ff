// lib/float: classification, comparisons, min/max, sign operations and
// conversions of secure_float (classify.hpp, compare.hpp, sign.hpp,
// convert.hpp), checked bit for bit against the CPU: CMPSS/CMPSD,
// MINSS/MAXSS, CVTSI2SS/SD, CVTTSS2SI/CVTTSD2SI, CVTSS2SD, CVTSD2SS, the
// AVX-512 unsigned conversions (VCVTUSI2SS, VCVTTSS2USI, …, where the build
// has AVX-512F) and F16C for binary16; <cmath> for classification; libgcc
// for 128-bit integers; a model of convert.hpp's rule for the truncations
// no instruction does (8 and 16 bits, 128 bits), itself checked against the
// instructions at 32 and 64 bits; bfloat16 against its encoding arithmetic.
// Every pair of a list of special values, plus random sweeps in plaintext (64
// sets per pass); exact AND counts; public constants; a streamed run cut
// after almost every operation; garbled two-party runs that must give what
// plaintext gives.
//
// The random sweeps run `sweep` cases per operation, format and width:
// 100,000, or 10,000 when TANDEM_SANITIZED is defined (the sanitizer
// presets); the 128-bit ones a tenth of that. binary16 → binary32 and
// bfloat16 → binary32 are exhaustive. Seeds are fixed and printed on failure.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/float/classify.hpp>
#include <tandem/lib/float/compare.hpp>
#include <tandem/lib/float/convert.hpp>
#include <tandem/lib/float/sign.hpp>
#include <tandem/tandem.hpp>

#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace lib_float_ops_tests {

using tandem::input;
using tandem::party;
using tandem::secure_bit;
using tandem::secure_f32;
using tandem::secure_f64;
using tandem::secure_int;
using tandem::secure_uint;

namespace {

#ifdef TANDEM_SANITIZED
constexpr std::size_t sweep = 10'000;
#else
constexpr std::size_t sweep = 100'000;
#endif

template <class F>
using bits_of = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
template <class F>
using secure_of = std::conditional_t<sizeof(F) == 4, secure_f32, secure_f64>;

template <class F>
constexpr int fraction_bits = std::numeric_limits<F>::digits - 1;
template <class F>
constexpr int exponent_bits = int(sizeof(F) * 8) - 1 - fraction_bits<F>;

template <class F>
F make(bool sign, std::uint64_t exponent, std::uint64_t fraction) {
    using U = bits_of<F>;
    const U b = (U(sign) << (sizeof(F) * 8 - 1)) | (U(exponent) << fraction_bits<F>) | U(fraction);
    return std::bit_cast<F>(b);
}

template <class F>
bits_of<F> bits(F x) {
    return std::bit_cast<bits_of<F>>(x);
}

/// ±0, subnormals, ±min normal, ±1, ±max finite, ±∞, quiet and signalling
/// NaNs with payloads, both signs, and a few ordinary values.
template <class F>
std::vector<F> specials() {
    constexpr std::uint64_t emax = (std::uint64_t{1} << exponent_bits<F>) - 1;
    constexpr std::uint64_t fmax = (std::uint64_t{1} << fraction_bits<F>) - 1;
    constexpr std::uint64_t quiet = std::uint64_t{1} << (fraction_bits<F> - 1);
    constexpr std::uint64_t bias = emax / 2;
    const std::uint64_t fields[][2] = {
        {0, 0},       {0, 1},          {0, 2},         {0, fmax},         {0, quiet},    {1, 0},
        {1, 1},       {bias, 0},       {bias, 1},      {bias - 1, 0},     {bias, quiet}, {bias + 1, 0},
        {emax - 1, fmax}, {emax - 1, 0}, {emax, 0},    {emax, quiet},     {emax, quiet | 0x12345}, {emax, 1},
        {emax, quiet >> 1}, {emax, fmax}, {bias + 24, 1}, {bias + 31, 0}, {bias + 30, fmax}};
    std::vector<F> v;
    for (bool s : {false, true})
        for (const auto& f : fields) v.push_back(make<F>(s, f[0], f[1]));
    return v;
}

/// A random encoding, biased towards the special exponents and fractions.
template <class F>
F random_float(std::mt19937_64& g) {
    constexpr std::uint64_t emax = (std::uint64_t{1} << exponent_bits<F>) - 1;
    constexpr std::uint64_t fmax = (std::uint64_t{1} << fraction_bits<F>) - 1;
    std::uint64_t e = g() & emax, f = g() & fmax;
    switch (g() % 10) {
    case 0: e = 0; break;
    case 1: e = 1; break;
    case 2: e = emax; break;
    case 3: e = emax - 1; break;
    default: break;
    }
    switch (g() % 8) {
    case 0: f = 0; break;
    case 1: f = 1; break;
    case 2: f = (fmax + 1) >> 1; break;
    case 3: f = fmax; break;
    default: break;
    }
    return make<F>(g() & 1, e, f);
}

/// A second operand for a: often equal, negated, or one ulp away.
template <class F>
F partner(std::mt19937_64& g, F a) {
    switch (g() % 8) {
    case 0: return a;
    case 1: return std::bit_cast<F>(bits(a) ^ (bits_of<F>(1) << (sizeof(F) * 8 - 1)));
    case 2: return std::bit_cast<F>(bits_of<F>(bits(a) + 1));
    case 3: return std::bit_cast<F>(bits_of<F>(bits(a) - 1));
    default: return random_float<F>(g);
    }
}

// ---- the CPU's answers ------------------------------------------------------

bool mask_bit(__m128 m) { return (_mm_cvtsi128_si32(_mm_castps_si128(m)) & 1) != 0; }
bool mask_bit(__m128d m) { return (_mm_cvtsi128_si32(_mm_castpd_si128(m)) & 1) != 0; }

using cmp7 = std::tuple<bool, bool, bool, bool, bool, bool, bool>;  // == != < <= > >= unordered

cmp7 cpu_compare(float a, float b) {
    const __m128 x = _mm_set_ss(a), y = _mm_set_ss(b);
    return {mask_bit(_mm_cmpeq_ss(x, y)), mask_bit(_mm_cmpneq_ss(x, y)), mask_bit(_mm_cmplt_ss(x, y)),
            mask_bit(_mm_cmple_ss(x, y)), mask_bit(_mm_cmpgt_ss(x, y)), mask_bit(_mm_cmpge_ss(x, y)),
            mask_bit(_mm_cmpunord_ss(x, y))};
}
cmp7 cpu_compare(double a, double b) {
    const __m128d x = _mm_set_sd(a), y = _mm_set_sd(b);
    return {mask_bit(_mm_cmpeq_sd(x, y)), mask_bit(_mm_cmpneq_sd(x, y)), mask_bit(_mm_cmplt_sd(x, y)),
            mask_bit(_mm_cmple_sd(x, y)), mask_bit(_mm_cmpgt_sd(x, y)), mask_bit(_mm_cmpge_sd(x, y)),
            mask_bit(_mm_cmpunord_sd(x, y))};
}

float cpu_min(float a, float b) { return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(a), _mm_set_ss(b))); }
float cpu_max(float a, float b) { return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b))); }
double cpu_min(double a, double b) { return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b))); }
double cpu_max(double a, double b) { return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b))); }

/// andps / xorps with the sign mask, and copysign by bits.
template <class F>
F cpu_abs(F a) {
    return std::bit_cast<F>(bits_of<F>(bits(a) & ~(bits_of<F>(1) << (sizeof(F) * 8 - 1))));
}
template <class F>
F cpu_neg(F a) {
    return std::bit_cast<F>(bits_of<F>(bits(a) ^ (bits_of<F>(1) << (sizeof(F) * 8 - 1))));
}

/// CVTSI2SS/SD and (AVX-512) VCVTUSI2SS/SD; narrower integers convert exactly.
template <class F, class I>
F cpu_from_int(I v) {
    if constexpr (sizeof(I) < 4) {
        return static_cast<F>(v);
    } else if constexpr (std::is_signed_v<I>) {
        if constexpr (sizeof(F) == 4)
            return sizeof(I) == 4 ? _mm_cvtss_f32(_mm_cvtsi32_ss(_mm_setzero_ps(), int(v)))
                                  : _mm_cvtss_f32(_mm_cvtsi64_ss(_mm_setzero_ps(), std::int64_t(v)));
        else
            return sizeof(I) == 4 ? _mm_cvtsd_f64(_mm_cvtsi32_sd(_mm_setzero_pd(), int(v)))
                                  : _mm_cvtsd_f64(_mm_cvtsi64_sd(_mm_setzero_pd(), std::int64_t(v)));
    } else {
#ifdef __AVX512F__
        if constexpr (sizeof(F) == 4)
            return sizeof(I) == 4 ? _mm_cvtss_f32(_mm_cvtu32_ss(_mm_setzero_ps(), unsigned(v)))
                                  : _mm_cvtss_f32(_mm_cvtu64_ss(_mm_setzero_ps(), std::uint64_t(v)));
        else
            return sizeof(I) == 4 ? _mm_cvtsd_f64(_mm_cvtu32_sd(_mm_setzero_pd(), unsigned(v)))
                                  : _mm_cvtsd_f64(_mm_cvtu64_sd(_mm_setzero_pd(), std::uint64_t(v)));
#else
        return static_cast<F>(v);  // GCC and Clang round unsigned → float to nearest even
#endif
    }
}

/// The rule of convert.hpp for every width: truncate; NaN or out of range
/// gives the indefinite value (signed: 1 then zeros; unsigned: all ones).
template <class I, class F>
I model_truncate(F x) {
    const I indefinite = std::is_signed_v<I> ? std::numeric_limits<I>::min() : std::numeric_limits<I>::max();
    if (std::isnan(x)) return indefinite;
    const long double t = std::trunc(static_cast<long double>(x));
    if (t < static_cast<long double>(std::numeric_limits<I>::min()) ||
        t > static_cast<long double>(std::numeric_limits<I>::max()))
        return indefinite;
    return static_cast<I>(t);
}

/// CVTTSS2SI/CVTTSD2SI (32, 64-bit signed), AVX-512 VCVTTSS2USI/VCVTTSD2USI
/// (32, 64-bit unsigned); other widths follow the model (same rule).
template <class I, class F>
I cpu_truncate(F x) {
    constexpr bool is_f = sizeof(F) == 4;
    if constexpr (std::is_same_v<I, std::int32_t>)
        return is_f ? _mm_cvttss_si32(_mm_set_ss(float(x))) : _mm_cvttsd_si32(_mm_set_sd(double(x)));
    else if constexpr (std::is_same_v<I, std::int64_t>)
        return is_f ? _mm_cvttss_si64(_mm_set_ss(float(x))) : _mm_cvttsd_si64(_mm_set_sd(double(x)));
#ifdef __AVX512F__
    else if constexpr (std::is_same_v<I, std::uint32_t>)
        return is_f ? _mm_cvttss_u32(_mm_set_ss(float(x))) : _mm_cvttsd_u32(_mm_set_sd(double(x)));
    else if constexpr (std::is_same_v<I, std::uint64_t>)
        return is_f ? _mm_cvttss_u64(_mm_set_ss(float(x))) : _mm_cvttsd_u64(_mm_set_sd(double(x)));
#endif
    else
        return model_truncate<I>(x);
}

double cpu_widen(float x) { return _mm_cvtsd_f64(_mm_cvtss_sd(_mm_setzero_pd(), _mm_set_ss(x))); }
float cpu_narrow(double x) { return _mm_cvtss_f32(_mm_cvtsd_ss(_mm_setzero_ps(), _mm_set_sd(x))); }

// ---- circuits ---------------------------------------------------------------

template <class SF>
auto compare_circuit() {
    return tandem::compile(
        [](SF a, SF b) {
            return std::tuple{a == b, a != b, a < b, a <= b, a > b, a >= b, isunordered(a, b)};
        },
        input<party::alice, SF>, input<party::bob, SF>);
}

template <class SF>
auto min_max_sign_circuit() {
    return tandem::compile(
        [](SF a, SF b) { return std::tuple{tandem::min(a, b), tandem::max(a, b), abs(a), -a, copysign(a, b)}; },
        input<party::alice, SF>, input<party::bob, SF>);
}

template <class SF>
auto fmin_fmax_circuit() {
    return tandem::compile([](SF a, SF b) { return std::tuple{fmin(a, b), fmax(a, b)}; }, input<party::alice, SF>,
                           input<party::bob, SF>);
}

/// IEEE 754-2019 minimumNumber / maximumNumber (§9.6), by the total order's
/// key; two NaNs give a, quieted.
template <class F>
F model_min_max_number(F a, F b, bool larger) {
    using U = bits_of<F>;
    constexpr U sign = U(1) << (sizeof(F) * 8 - 1);
    if (std::isnan(a) && std::isnan(b)) return std::bit_cast<F>(U(bits(a) | (U(1) << (fraction_bits<F> - 1))));
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    const auto key = [](F x) { return (bits(x) & sign) != 0 ? U(~bits(x)) : U(bits(x) | sign); };
    const bool a_first = larger ? key(b) < key(a) : key(a) < key(b);
    return a_first ? a : b;
}

bool is_signalling(float x) { return std::isnan(x) && (bits(x) & 0x00400000u) == 0; }
bool is_signalling(double x) { return std::isnan(x) && (bits(x) & (std::uint64_t{1} << 51)) == 0; }

template <class SF>
auto classify_circuit() {
    return tandem::compile(
        [](SF a) {
            return std::tuple{isnan(a), isinf(a), isfinite(a), isnormal(a), is_subnormal(a), is_zero(a),
                              is_signaling(a), signbit(a)};
        },
        input<party::alice, SF>);
}

template <class F>
std::tuple<bool, bool, bool, bool, bool, bool, bool, bool> cpp_classify(F a) {
    const bool nan = std::isnan(a);
    const bool signalling = nan && ((bits(a) >> (fraction_bits<F> - 1)) & 1) == 0;
    return {nan,
            std::isinf(a),
            std::isfinite(a),
            std::isnormal(a),
            std::fpclassify(a) == FP_SUBNORMAL,
            std::fpclassify(a) == FP_ZERO,
            signalling,
            std::signbit(a)};
}

/// Every pair of specials, then `sweep` random pairs, against the CPU.
template <class F>
void check_compare() {
    using SF = secure_of<F>;
    const auto c = compare_circuit<SF>();
    const auto m = min_max_sign_circuit<SF>();
    std::vector<std::tuple<F, F>> sets;
    for (F a : specials<F>())
        for (F b : specials<F>()) sets.emplace_back(a, b);
    const std::size_t n_specials = sets.size();
    const std::uint64_t seed = 0xf10a7c0 + sizeof(F);
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) {
        const F a = random_float<F>(g);
        sets.emplace_back(a, partner<F>(g, a));
    }
    const auto got = c.eval_plain_batch(sets);
    const auto got_m = m.eval_plain_batch(sets);
    const auto got_f = fmin_fmax_circuit<SF>().eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const F a = std::get<0>(sets[i]), b = std::get<1>(sets[i]);
        const cmp7 want = cpu_compare(a, b);
        const auto want_m = std::tuple{bits(cpu_min(a, b)), bits(cpu_max(a, b)), bits(cpu_abs(a)), bits(cpu_neg(a)),
                                       bits(std::copysign(a, b))};
        const auto& gm = got_m[i];
        const auto have_m = std::tuple{bits(std::get<0>(gm)), bits(std::get<1>(gm)), bits(std::get<2>(gm)),
                                       bits(std::get<3>(gm)), bits(std::get<4>(gm))};
        const bool ok = got[i] == want && have_m == want_m;
        if (!ok) ++bad;
        INFO("seed " << seed << (i < n_specials ? " (specials)" : "") << ", case " << i << ": a = " << std::hexfloat
                     << a << " (0x" << std::hex << bits(a) << "), b = " << std::hexfloat << b << " (0x" << std::hex
                     << bits(b) << ")");
        CHECK(got[i] == want);
        CHECK(have_m == want_m);
        // fmin/fmax: the model everywhere; glibc's fmin/fmax where C fixes the
        // result (not ±0 against ∓0, no signalling NaN, not two NaNs).
        const auto have_f = std::tuple{bits(std::get<0>(got_f[i])), bits(std::get<1>(got_f[i]))};
        const auto want_f = std::tuple{bits(model_min_max_number(a, b, false)), bits(model_min_max_number(a, b, true))};
        if (have_f != want_f) ++bad;
        CHECK(have_f == want_f);
        const bool c_defined = !(a == 0 && b == 0) && !is_signalling(a) && !is_signalling(b) &&
                               !(std::isnan(a) && std::isnan(b));
        if (c_defined) CHECK(have_f == std::tuple{bits(std::fmin(a, b)), bits(std::fmax(a, b))});
    }
}

template <class F>
void check_classify() {
    using SF = secure_of<F>;
    const auto c = classify_circuit<SF>();
    std::vector<std::tuple<F>> sets;
    for (F a : specials<F>()) sets.emplace_back(a);
    const std::uint64_t seed = 0xc1a55 + sizeof(F);
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) sets.emplace_back(random_float<F>(g));
    const auto got = c.eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const F a = std::get<0>(sets[i]);
        const auto want = cpp_classify(a);
        if (got[i] != want) ++bad;
        INFO("seed " << seed << ", case " << i << ": 0x" << std::hex << bits(a));
        CHECK(got[i] == want);
    }
}

template <class T>
std::size_t ands_of(const T& c) {
    return static_cast<std::size_t>(c.stats().and_gates);
}

template <class SF, class Fn>
std::size_t ands2(Fn fn) {
    return ands_of(tandem::compile(fn, input<party::alice, SF>, input<party::bob, SF>));
}
template <class T, class Fn>
std::size_t ands1(Fn fn) {
    return ands_of(tandem::compile(fn, input<party::alice, T>));
}

}  // namespace

TEST_CASE("lib.float.classify_f32") { check_classify<float>(); }
TEST_CASE("lib.float.classify_f64") { check_classify<double>(); }
TEST_CASE("lib.float.compare_min_max_sign_f32") { check_compare<float>(); }
TEST_CASE("lib.float.compare_min_max_sign_f64") { check_compare<double>(); }

// ---- conversions --------------------------------------------------------------

namespace {

template <class I>
using secure_integer_of = tandem::secure_integer<sizeof(I) * 8, std::is_signed_v<I>>;

/// Edge values of I: 0, ±1, the extremes, and the rounding edges of binary32
/// and binary64 (2^24 ± 1, 2^53 ± 1, ties to even above them, just below 2^31
/// and 2^63), each reduced to I.
template <class I>
std::vector<I> integer_edges() {
    std::vector<I> v{0, 1, I(-1), std::numeric_limits<I>::min(), std::numeric_limits<I>::max(),
                     I(std::numeric_limits<I>::min() + 1), I(std::numeric_limits<I>::max() - 1)};
    const std::uint64_t p24 = std::uint64_t{1} << 24, p53 = std::uint64_t{1} << 53;
    for (std::uint64_t base : {p24, p24 << 1, p53, p53 << 1, std::uint64_t{1} << 31, std::uint64_t{1} << 63})
        for (std::int64_t d : {-64, -3, -2, -1, 0, 1, 2, 3, 5, 6, 64, 192, 512, 1024, 1536})
            for (bool negative : {false, true}) {
                const std::uint64_t u = base + static_cast<std::uint64_t>(d);
                v.push_back(static_cast<I>(negative ? ~u + 1 : u));
            }
    v.push_back(static_cast<I>(0x7FFFFFC0u));
    v.push_back(static_cast<I>(0xFFFFFF80u));
    v.push_back(static_cast<I>(0x7FFFFFFFFFFFFE00ull));
    v.push_back(static_cast<I>(0xFFFFFFFFFFFFFC00ull));
    return v;
}

template <class I, class F>
void check_int_to_float() {
    using SF = secure_of<F>;
    using SI = secure_integer_of<I>;
    const auto c = tandem::compile([](SI x) { return tandem::convert<SF>(x); }, input<party::alice, SI>);
    std::vector<std::tuple<I>> sets;
    for (I v : integer_edges<I>()) sets.emplace_back(v);
    const std::uint64_t seed = 0x1f10a7 + sizeof(I) * 16 + sizeof(F) + std::is_signed_v<I>;
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) {  // every magnitude, both signs (negated as unsigned: no overflow)
        const std::uint64_t r = g();
        const std::uint64_t u = r >> (g() % 64);
        sets.emplace_back(static_cast<I>(g() & 1 ? ~u + 1 : u));
    }
    const auto got = c.eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const I v = std::get<0>(sets[i]);
        const auto want = bits(cpu_from_int<F>(v)), have = bits(got[i]);
        if (want != have) ++bad;
        INFO("seed " << seed << ", case " << i << ": " << static_cast<std::int64_t>(v) << " / "
                     << static_cast<std::uint64_t>(v));
        CHECK(have == want);
    }
}

/// Values around the ends of I's range (±2^(N-1), 2^N and their neighbours),
/// around ±1, plus the specials and random encodings, a quarter of them with
/// an exponent in I's range.
template <class I, class F>
std::vector<std::tuple<F>> truncation_inputs(std::uint64_t seed) {
    constexpr int n = int(sizeof(I) * 8);
    std::vector<std::tuple<F>> sets;
    for (F x : specials<F>()) sets.emplace_back(x);
    for (int p : {n - 1, n, n + 1, 0, 1, -1})
        for (bool negative : {false, true}) {
            const F edge = std::ldexp(negative ? F(-1) : F(1), p);
            sets.emplace_back(edge);
            sets.emplace_back(std::nextafter(edge, F(0)));
            sets.emplace_back(std::nextafter(edge, negative ? -INFINITY : INFINITY));
        }
    for (F x : {F(-0.5), F(0.5), F(-0.99), F(1.5), F(-1.5), F(2.5), F(-2.5)}) sets.emplace_back(x);
    std::mt19937_64 g(seed);
    constexpr std::uint64_t bias = (std::uint64_t{1} << (exponent_bits<F> - 1)) - 1;
    for (std::size_t i = 0; i < sweep; ++i) {
        if (i % 4 == 0)
            sets.emplace_back(
                make<F>(g() & 1, bias - 2 + g() % (n + 4), g() & ((std::uint64_t{1} << fraction_bits<F>) - 1)));
        else
            sets.emplace_back(random_float<F>(g));
    }
    return sets;
}

template <class I, class F>
void check_float_to_int() {
    using SF = secure_of<F>;
    using SI = secure_integer_of<I>;
    const auto c = tandem::compile([](SF x) { return tandem::convert<SI>(x); }, input<party::alice, SF>);
    const std::uint64_t seed = 0x7f10a7 + sizeof(I) * 16 + sizeof(F) + std::is_signed_v<I>;
    const auto sets = truncation_inputs<I, F>(seed);
    const auto got = c.eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const F x = std::get<0>(sets[i]);
        const I want = cpu_truncate<I>(x), have = got[i];
        // Where the CPU has the instruction, the model of the other widths
        // must agree with it too.
        const I model = model_truncate<I>(x);
        if (want != have || model != want) ++bad;
        INFO("seed " << seed << ", case " << i << ": " << std::hexfloat << x << " (0x" << std::hex << bits(x) << ")");
        CHECK(have == want);
        CHECK(model == want);
    }
}

template <class I>
void check_integer_width() {
    check_int_to_float<I, float>();
    check_int_to_float<I, double>();
    check_float_to_int<I, float>();
    check_float_to_int<I, double>();
}

}  // namespace

TEST_CASE("lib.float.int8") { check_integer_width<std::int8_t>(); }
TEST_CASE("lib.float.uint8") { check_integer_width<std::uint8_t>(); }
TEST_CASE("lib.float.int16") { check_integer_width<std::int16_t>(); }
TEST_CASE("lib.float.uint16") { check_integer_width<std::uint16_t>(); }
TEST_CASE("lib.float.int32") { check_integer_width<std::int32_t>(); }
TEST_CASE("lib.float.uint32") { check_integer_width<std::uint32_t>(); }
TEST_CASE("lib.float.int64") { check_integer_width<std::int64_t>(); }
TEST_CASE("lib.float.uint64") { check_integer_width<std::uint64_t>(); }

TEST_CASE("lib.float.f32_to_f64") {
    const auto c = tandem::compile([](secure_f32 x) { return tandem::convert<secure_f64>(x); },
                                   input<party::alice, secure_f32>);
    std::vector<std::tuple<float>> sets;
    for (float x : specials<float>()) sets.emplace_back(x);
    const std::uint64_t seed = 0x3264;
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) sets.emplace_back(random_float<float>(g));
    const auto got = c.eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const float x = std::get<0>(sets[i]);
        const std::uint64_t want = bits(cpu_widen(x)), have = bits(got[i]);
        if (want != have) ++bad;
        INFO("seed " << seed << ", case " << i << ": 0x" << std::hex << bits(x));
        CHECK(have == want);
    }
}

TEST_CASE("lib.float.f64_to_f32") {
    const auto c = tandem::compile([](secure_f64 x) { return tandem::convert<secure_f32>(x); },
                                   input<party::alice, secure_f64>);
    std::vector<std::tuple<double>> sets;
    for (double x : specials<double>()) sets.emplace_back(x);
    for (float x : specials<float>()) sets.emplace_back(cpu_widen(x));
    const std::uint64_t seed = 0x6432;
    std::mt19937_64 g(seed);
    constexpr std::uint64_t frac_mask = (std::uint64_t{1} << 52) - 1;
    for (std::size_t i = 0; i < sweep; ++i) {
        switch (i % 4) {
        case 0: sets.emplace_back(random_float<double>(g)); break;
        case 1:  // binary32's whole range, subnormals and overflow included
            sets.emplace_back(make<double>(g() & 1, 1023 - 152 + g() % 284, g() & frac_mask));
            break;
        case 2: {  // ties and near-ties: the 29 bits rounded off are 1000…0 ± 1
            const std::uint64_t tie = std::uint64_t{1} << 28;
            const std::uint64_t low = tie + static_cast<std::uint64_t>(static_cast<std::int64_t>(g() % 3) - 1);
            const std::uint64_t high = g() & frac_mask & ~((tie << 1) - 1);
            sets.emplace_back(make<double>(g() & 1, 1023 - 152 + g() % 284, high | low));
            break;
        }
        default: {  // binary32 subnormal range with ties at every position
            const int shift = int(g() % 30);
            const std::uint64_t f =
                (g() & frac_mask) >> shift << shift | (std::uint64_t{1} << (shift > 0 ? shift - 1 : 0));
            sets.emplace_back(make<double>(g() & 1, 1023 - 150 + g() % 25, f & frac_mask));
        }
        }
    }
    const auto got = c.eval_plain_batch(sets);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sets.size() && bad < 10; ++i) {
        const double x = std::get<0>(sets[i]);
        const std::uint32_t want = bits(cpu_narrow(x)), have = bits(got[i]);
        if (want != have) ++bad;
        INFO("seed " << seed << ", case " << i << ": " << std::hexfloat << x << " (0x" << std::hex << bits(x) << ")");
        CHECK(have == want);
    }
}

// ---- AND counts -----------------------------------------------------------------

namespace {

template <class SF>
void check_counts(std::size_t nan_like, std::size_t finite, std::size_t normal, std::size_t less, std::size_t equal,
                  std::size_t unordered, std::size_t min_max, std::size_t min_max_number) {
    CHECK(ands1<SF>([](SF a) { return isnan(a); }) == nan_like);
    CHECK(ands1<SF>([](SF a) { return isinf(a); }) == nan_like);
    CHECK(ands1<SF>([](SF a) { return is_zero(a); }) == nan_like);
    CHECK(ands1<SF>([](SF a) { return is_subnormal(a); }) == nan_like);
    CHECK(ands1<SF>([](SF a) { return is_signaling(a); }) == nan_like);
    CHECK(ands1<SF>([](SF a) { return isfinite(a); }) == finite);
    CHECK(ands1<SF>([](SF a) { return isnormal(a); }) == normal);
    CHECK(ands1<SF>([](SF a) { return signbit(a); }) == 0);
    CHECK(ands2<SF>([](SF a, SF b) { return a < b; }) == less);
    CHECK(ands2<SF>([](SF a, SF b) { return a <= b; }) == less);
    CHECK(ands2<SF>([](SF a, SF b) { return a > b; }) == less);
    CHECK(ands2<SF>([](SF a, SF b) { return a >= b; }) == less);
    CHECK(ands2<SF>([](SF a, SF b) { return a == b; }) == equal);
    CHECK(ands2<SF>([](SF a, SF b) { return a != b; }) == equal);
    CHECK(ands2<SF>([](SF a, SF b) { return isunordered(a, b); }) == unordered);
    CHECK(ands2<SF>([](SF a, SF b) { return tandem::min(a, b); }) == min_max);
    CHECK(ands2<SF>([](SF a, SF b) { return tandem::max(a, b); }) == min_max);
    CHECK(ands2<SF>([](SF a, SF b) { return fmin(a, b); }) == min_max_number);
    CHECK(ands2<SF>([](SF a, SF b) { return fmax(a, b); }) == min_max_number);
    CHECK(ands2<SF>([](SF a, SF b) { return std::tuple{abs(a), -a, copysign(a, b)}; }) == 0);
}

/// ANDs of int → binary32, int → binary64, binary32 → int, binary64 → int.
template <std::size_t N, bool S>
void check_conversion_counts(std::size_t to_f32, std::size_t to_f64, std::size_t from_f32, std::size_t from_f64) {
    using SI = tandem::secure_integer<N, S>;
    INFO((S ? "int" : "uint") << N);
    CHECK(ands1<SI>([](SI x) { return tandem::convert<secure_f32>(x); }) == to_f32);
    CHECK(ands1<SI>([](SI x) { return tandem::convert<secure_f64>(x); }) == to_f64);
    CHECK(ands1<secure_f32>([](secure_f32 x) { return tandem::convert<SI>(x); }) == from_f32);
    CHECK(ands1<secure_f64>([](secure_f64 x) { return tandem::convert<SI>(x); }) == from_f64);
}

}  // namespace

TEST_CASE("lib.float.and_counts") {
    // The figures in classify.hpp, compare.hpp and convert.hpp.
    check_counts<secure_f32>(30, 7, 11, 99, 66, 61, 131, 128);
    check_counts<secure_f64>(62, 10, 16, 197, 132, 125, 261, 256);
    check_conversion_counts<8, true>(42, 42, 56, 62);
    check_conversion_counts<8, false>(35, 35, 51, 57);
    check_conversion_counts<16, true>(99, 99, 114, 120);
    check_conversion_counts<16, false>(84, 84, 100, 106);
    check_conversion_counts<32, true>(266, 228, 223, 250);
    check_conversion_counts<32, false>(235, 197, 193, 219);
    check_conversion_counts<64, true>(587, 590, 342, 507);
    check_conversion_counts<64, false>(524, 527, 341, 444);
    check_conversion_counts<128, true>(1329, 1295, 518, 765);
    check_conversion_counts<128, false>(1202, 1168, 522, 763);
    CHECK(ands1<secure_f32>([](secure_f32 x) { return tandem::convert<secure_f64>(x); }) == 198);
    CHECK(ands1<secure_f64>([](secure_f64 x) { return tandem::convert<secure_f32>(x); }) == 386);
    CHECK(ands1<secure_f32>([](secure_f32 x) { return tandem::convert<secure_f32>(x); }) == 0);
}

TEST_CASE("lib.float.public_constants") {
    // A public operand mixes in on either side, and constants fold: a
    // comparison of two public values costs nothing.
    const auto c = tandem::compile(
        [](secure_f32 a) {
            return std::tuple{a < 1.0f, 1.0f < a, a == 0.0f, a != -0.0f, a >= -INFINITY, tandem::min(a, 2.0f),
                              tandem::max(-2.0f, a), secure_f32(1.0f) < secure_f32(2.0f)};
        },
        input<party::alice, secure_f32>);
    for (float x : specials<float>()) {
        const auto got = c.eval_plain(x);
        INFO(std::hexfloat << x);
        CHECK(std::get<0>(got) == (x < 1.0f));
        CHECK(std::get<1>(got) == (1.0f < x));
        CHECK(std::get<2>(got) == (x == 0.0f));
        CHECK(std::get<3>(got) == (x != -0.0f));
        CHECK(std::get<4>(got) == (x >= -INFINITY));
        CHECK(bits(std::get<5>(got)) == bits(cpu_min(x, 2.0f)));
        CHECK(bits(std::get<6>(got)) == bits(cpu_max(-2.0f, x)));
        CHECK(std::get<7>(got));
    }
    // (A one-element tuple: eval_plain of a bare secure_bit result does not
    // compile, as its results vector is a vector<bool>.)
    const auto k = tandem::compile(
        [](secure_f64 a) { return std::tuple{secure_f64(1.0) < secure_f64(2.0) && a == a}; },
        input<party::alice, secure_f64>);
    CHECK(ands_of(k) == 62);  // a == a: the magnitudes fold, leaving !isnan(a)
    CHECK(std::get<0>(k.eval_plain(1.0)));
    CHECK(!std::get<0>(k.eval_plain(std::numeric_limits<double>::quiet_NaN())));
}

// ---- streamed and garbled runs ----------------------------------------------------

namespace {

/// A bit of everything, as one function: compiled, streamed and garbled.
auto mixed_ops(const secure_f32& a, const secure_f32& b, const secure_int<32>& i) {
    const secure_f64 wide = tandem::convert<secure_f64>(a);
    return std::tuple{a < b,
                      a == b,
                      a >= b,
                      tandem::min(a, b),
                      tandem::max(a, b),
                      fmin(a, b),
                      fmax(a, 2.0f),
                      tandem::convert<secure_f32>(i),
                      tandem::convert<secure_int<32>>(b),
                      wide,
                      tandem::convert<secure_f32>(wide),
                      tandem::convert<secure_uint<16>>(tandem::convert<secure_f64>(i)),
                      -a,
                      isnan(b),
                      is_zero(a)};
}

/// Equal element by element, floats compared by encoding (NaN == NaN).
template <class T>
bool same(const T& x, const T& y) {
    if constexpr (std::is_floating_point_v<T>) return bits(x) == bits(y);
    else return x == y;
}
template <class... T>
bool same(const std::tuple<T...>& x, const std::tuple<T...>& y) {
    return std::apply([&](const T&... a) { return std::apply([&](const T&... b) { return (same(a, b) && ...); }, y); },
                      x);
}

struct mixed_input {
    float a, b;
    std::int32_t i;
};

std::vector<mixed_input> mixed_inputs() {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
    return {{1.0f, 2.0f, 16777217},
            {-0.0f, 0.0f, -1},
            {nan, 1.0f, std::numeric_limits<std::int32_t>::min()},
            {1e-40f, -1e-40f, std::numeric_limits<std::int32_t>::max()},
            {-inf, 2147483648.0f, 123456789},
            {std::bit_cast<float>(0xff800001u), -2.5f, 65535},
            {3.0e38f, 65535.9f, -65536},
            {-7.5f, -7.5f, 0}};
}

}  // namespace

TEST_CASE("lib.float.streamed") {
    // The same functions streamed, cut after almost every operation, give
    // what the compiled circuit gives.
    const auto compiled = tandem::compile(mixed_ops, input<party::alice, secure_f32>, input<party::bob, secure_f32>,
                                          input<party::alice, secure_int<32>>);
    auto streamed = tandem::stream(mixed_ops, input<party::alice, secure_f32>, input<party::bob, secure_f32>,
                                   input<party::alice, secure_int<32>>);
    for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{17}, tandem::default_segment_ands}) {
        streamed.segment_ands = k;
        for (const mixed_input& in : mixed_inputs()) {
            INFO("segment_ands " << k << ", a = " << std::hexfloat << in.a << ", b = " << in.b << ", i = " << in.i);
            const auto want = compiled.eval_plain(in.a, in.b, in.i);
            const auto got = streamed.eval_plain(in.a, in.b, in.i);
            CHECK(same(got, want));
        }
    }
}

TEST_CASE("lib.float.garbled") {
    // Garbled two-party runs (in-process, memory channels) give exactly what
    // plaintext evaluation gives.
    using namespace tandem::test;
    const auto mixed = tandem::compile(mixed_ops, input<party::alice, secure_f32>, input<party::bob, secure_f32>,
                                       input<party::alice, secure_int<32>>);
    const auto compare64 = compare_circuit<secure_f64>();
    const auto minmax64 = min_max_sign_circuit<secure_f64>();
    const auto ins = mixed_inputs();
    std::vector<std::tuple<double, double>> pairs;
    const auto sp = specials<double>();
    for (std::size_t k = 0; k < sp.size(); k += 5) pairs.emplace_back(sp[k], sp[(k * 7 + 3) % sp.size()]);
    pairs.emplace_back(-0.0, 0.0);
    pairs.emplace_back(1.0, 1.0);
    using mixed_out = decltype(mixed)::output_type;
    std::vector<mixed_out> got_a(ins.size()), got_b(ins.size());
    std::vector<cmp7> cmp_a(pairs.size()), cmp_b(pairs.size());
    std::vector<decltype(minmax64)::output_type> mm_a(pairs.size()), mm_b(pairs.size());
    rethrow(two_party(
        make_wiring(0), with_threads(1), with_threads(1),
        [&](tandem::session& s) {
            for (std::size_t k = 0; k < ins.size(); ++k) got_a[k] = s.run(mixed, ins[k].a, ins[k].i);
            for (std::size_t k = 0; k < pairs.size(); ++k) {
                cmp_a[k] = s.run(compare64, std::get<0>(pairs[k]));
                mm_a[k] = s.run(minmax64, std::get<0>(pairs[k]));
            }
        },
        [&](tandem::session& s) {
            for (std::size_t k = 0; k < ins.size(); ++k) got_b[k] = s.run(mixed, ins[k].b);
            for (std::size_t k = 0; k < pairs.size(); ++k) {
                cmp_b[k] = s.run(compare64, std::get<1>(pairs[k]));
                mm_b[k] = s.run(minmax64, std::get<1>(pairs[k]));
            }
        }));
    for (std::size_t k = 0; k < ins.size(); ++k) {
        INFO("mixed input " << k);
        const auto want = mixed.eval_plain(ins[k].a, ins[k].b, ins[k].i);
        CHECK(same(got_a[k], want));
        CHECK(same(got_b[k], want));
    }
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const double a = std::get<0>(pairs[k]), b = std::get<1>(pairs[k]);
        INFO("binary64 pair " << k << ": " << std::hexfloat << a << ", " << b);
        CHECK(cmp_a[k] == cpu_compare(a, b));
        CHECK(cmp_b[k] == cmp_a[k]);
        CHECK(same(mm_a[k], minmax64.eval_plain(a, b)));
        CHECK(same(mm_b[k], mm_a[k]));
        CHECK(bits(std::get<0>(mm_a[k])) == bits(cpu_min(a, b)));
    }
}

// ---- other formats: binary16 (F16C) and bfloat16 ------------------------------------

namespace {
using secure_f16 = tandem::secure_float<5, 10>;   // IEEE binary16; its plain type is the encoding
using secure_bf16 = tandem::secure_float<8, 7>;   // bfloat16

/// bfloat16 → binary32 is exact: the encoding moved up 16 bits, a NaN quieted.
std::uint32_t bf16_to_f32_bits(std::uint16_t h) {
    std::uint32_t b = std::uint32_t{h} << 16;
    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0) b |= 0x00400000u;
    return b;
}
/// binary32 → bfloat16, round to nearest even on the encoding (the carry
/// runs into the exponent, so subnormals and overflow come out right); a NaN
/// keeps its top payload bits and is quieted.
std::uint16_t f32_to_bf16_bits(std::uint32_t b) {
    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0) return std::uint16_t((b >> 16) | 0x0040u);
    return std::uint16_t((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
}  // namespace

TEST_CASE("lib.float.bfloat16") {
    const auto up = tandem::compile([](secure_bf16 x) { return tandem::convert<secure_f32>(x); },
                                    input<party::alice, secure_bf16>);
    std::vector<std::tuple<std::uint16_t>> all;
    for (std::uint32_t h = 0; h < 0x10000; ++h) all.emplace_back(static_cast<std::uint16_t>(h));
    const auto got_up = up.eval_plain_batch(all);
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        INFO("bfloat16 0x" << std::hex << h);
        const std::uint32_t want = bf16_to_f32_bits(static_cast<std::uint16_t>(h));
        if (bits(got_up[h]) != want) CHECK(bits(got_up[h]) == want);
    }
    const auto down = tandem::compile([](secure_f32 x) { return tandem::convert<secure_bf16>(x); },
                                      input<party::alice, secure_f32>);
    std::vector<std::tuple<float>> sets;
    for (float x : specials<float>()) sets.emplace_back(x);
    const std::uint64_t seed = 0xbf16;
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) sets.emplace_back(random_float<float>(g));
    const auto got_down = down.eval_plain_batch(sets);
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const std::uint32_t x = bits(std::get<0>(sets[i]));
        INFO("seed " << seed << ", case " << i << ": 0x" << std::hex << x);
        if (got_down[i] != f32_to_bf16_bits(x)) CHECK(got_down[i] == f32_to_bf16_bits(x));
    }
    CHECK(ands_of(up) == 15);
    CHECK(ands_of(down) == 172);
}

#ifdef __F16C__
TEST_CASE("lib.float.binary16") {
    // Against F16C: VCVTPH2PS (exact) and VCVTPS2PH with round to nearest even.
    const auto up = tandem::compile([](secure_f16 x) { return tandem::convert<secure_f32>(x); },
                                    input<party::alice, secure_f16>);
    std::vector<std::tuple<std::uint16_t>> all;
    for (std::uint32_t h = 0; h < 0x10000; ++h) all.emplace_back(static_cast<std::uint16_t>(h));
    const auto got_up = up.eval_plain_batch(all);
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const std::uint32_t want = bits(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(h)))));
        INFO("binary16 0x" << std::hex << h);
        if (bits(got_up[h]) != want) CHECK(bits(got_up[h]) == want);
    }
    const auto down = tandem::compile([](secure_f32 x) { return tandem::convert<secure_f16>(x); },
                                      input<party::alice, secure_f32>);
    std::vector<std::tuple<float>> sets;
    for (float x : specials<float>()) sets.emplace_back(x);
    const std::uint64_t seed = 0xf16;
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep; ++i) {
        if (i % 2 == 0) sets.emplace_back(random_float<float>(g));
        else sets.emplace_back(make<float>(g() & 1, 127 - 26 + g() % 44, g() & 0x7fffff));  // binary16's range
    }
    const auto got_down = down.eval_plain_batch(sets);
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const float x = std::get<0>(sets[i]);
        const auto want = static_cast<std::uint16_t>(
            _mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT)) & 0xffff);
        INFO("seed " << seed << ", case " << i << ": 0x" << std::hex << bits(x));
        if (got_down[i] != want) CHECK(got_down[i] == want);
    }
    CHECK(ands_of(up) == 92);
    CHECK(ands_of(down) == 195);
}
#endif

// ---- 128-bit integers (the overflow of int → binary32) ---------------------------------

namespace {
using tandem::int128;
using tandem::uint128;

/// The convert.hpp rule for 128 bits: truncate; NaN or out of range gives
/// the indefinite value (signed: 2^127 as a bit pattern; unsigned: all ones).
template <bool Signed, class F>
uint128 model_truncate_128(F x) {
    const uint128 indefinite = Signed ? uint128{1} << 127 : ~uint128{0};
    if (std::isnan(x)) return indefinite;
    const long double t = std::trunc(static_cast<long double>(x));  // exact: 64 significant bits
    const long double lo = Signed ? -std::ldexp(1.0L, 127) : 0.0L, hi = std::ldexp(1.0L, Signed ? 127 : 128);
    if (!(t >= lo && t < hi)) return indefinite;
    if (t < 0) return ~static_cast<uint128>(-t) + 1;
    return static_cast<uint128>(t);
}
}  // namespace

TEST_CASE("lib.float.int128") {
    // libgcc's __floattisf & co. round to nearest even: the reference here.
    const auto to_float = tandem::compile(
        [](const secure_int<128>& i, const secure_uint<128>& u) {
            return std::tuple{tandem::convert<secure_f32>(i), tandem::convert<secure_f64>(i),
                              tandem::convert<secure_f32>(u), tandem::convert<secure_f64>(u)};
        },
        input<party::alice, secure_int<128>>, input<party::bob, secure_uint<128>>);
    std::vector<uint128> values{0, 1, ~uint128{0}, uint128{1} << 127, (uint128{1} << 127) - 1, (uint128{1} << 127) + 1};
    for (int p : {24, 53, 64, 103, 104, 127})
        for (int d : {-1, 0, 1})  // 2^128 - 2^103 is the tie between binary32's largest and 2^128 (→ ∞)
            values.push_back(~(uint128{1} << p) + 1 + static_cast<uint128>(static_cast<int128>(d)));
    const std::uint64_t seed = 0x128;
    std::mt19937_64 g(seed);
    for (std::size_t i = 0; i < sweep / 10; ++i) {
        const uint128 r = (uint128{g()} << 64) | g();
        values.push_back(r >> (g() % 128));
    }
    std::vector<std::tuple<int128, uint128>> sets;
    for (std::size_t k = 0; k < values.size(); ++k)
        sets.emplace_back(static_cast<int128>(values[k]), values[(k * 7) % values.size()]);
    const auto got = to_float.eval_plain_batch(sets);
    for (std::size_t k = 0; k < sets.size(); ++k) {
        const int128 i = std::get<0>(sets[k]);
        const uint128 u = std::get<1>(sets[k]);
        const auto want = std::tuple{bits(static_cast<float>(i)), bits(static_cast<double>(i)),
                                     bits(static_cast<float>(u)), bits(static_cast<double>(u))};
        const auto have = std::tuple{bits(std::get<0>(got[k])), bits(std::get<1>(got[k])), bits(std::get<2>(got[k])),
                                     bits(std::get<3>(got[k]))};
        const auto iu = static_cast<uint128>(i);
        INFO("seed " << seed << ", case " << k << ": i = 0x" << std::hex << static_cast<std::uint64_t>(iu >> 64) << "_"
                     << static_cast<std::uint64_t>(iu) << ", u = 0x" << static_cast<std::uint64_t>(u >> 64) << "_"
                     << static_cast<std::uint64_t>(u));
        CHECK(have == want);
    }
    CHECK(bits(std::get<2>(to_float.eval_plain(0, ~uint128{0}))) == bits(INFINITY));

    const auto from_float = tandem::compile(
        [](const secure_f32& f, const secure_f64& d) {
            return std::tuple{tandem::convert<secure_int<128>>(f), tandem::convert<secure_uint<128>>(f),
                              tandem::convert<secure_int<128>>(d), tandem::convert<secure_uint<128>>(d)};
        },
        input<party::alice, secure_f32>, input<party::bob, secure_f64>);
    std::vector<std::tuple<float, double>> fsets;
    const auto sf = specials<float>();
    const auto sd = specials<double>();
    for (std::size_t k = 0; k < sf.size(); ++k) fsets.emplace_back(sf[k], sd[k]);
    for (int p : {126, 127, 128})
        for (float s : {1.0f, -1.0f}) {
            const float f = std::ldexp(s, p);
            const double d = std::ldexp(double(s), p);
            fsets.emplace_back(f, d);
            fsets.emplace_back(std::nextafter(f, 0.0f), std::nextafter(d, 0.0));
        }
    for (std::size_t i = 0; i < sweep / 10; ++i)
        fsets.emplace_back(make<float>(g() & 1, 127 + g() % 131, g() & 0x7fffff),
                           make<double>(g() & 1, 1023 + g() % 131, g() & ((std::uint64_t{1} << 52) - 1)));
    const auto fgot = from_float.eval_plain_batch(fsets);
    for (std::size_t k = 0; k < fsets.size(); ++k) {
        const float f = std::get<0>(fsets[k]);
        const double d = std::get<1>(fsets[k]);
        const auto want = std::tuple{model_truncate_128<true>(f), model_truncate_128<false>(f),
                                     model_truncate_128<true>(d), model_truncate_128<false>(d)};
        const auto have = std::tuple{static_cast<uint128>(std::get<0>(fgot[k])), std::get<1>(fgot[k]),
                                     static_cast<uint128>(std::get<2>(fgot[k])), std::get<3>(fgot[k])};
        INFO("seed " << seed << ", case " << k << ": " << std::hexfloat << f << ", " << d);
        CHECK(have == want);
    }
}

}  // namespace lib_float_ops_tests
