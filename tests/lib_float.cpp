// IEEE-754 arithmetic on secure_float (lib/float/round.hpp, lib/float/arith.hpp):
// bit-exact against the CPU (SSE scalar instructions through intrinsics, default
// MXCSR: round to nearest even, no FTZ/DAZ), NaN encodings included.
//
// Each operation runs on every pair of a list of special values, then on random
// cases (uniform encodings mixed with structured ones: nearby exponents,
// subnormals, ties) in plaintext (eval_plain_batch), and a few hundred cases
// garbled two-party over memory channels. Seeds are fixed and printed on
// failure. Under TANDEM_SANITIZED the random sweeps are 10x smaller.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/float/round.hpp>
#include <tandem/tandem.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

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
