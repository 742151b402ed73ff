// tandem::compile lays a circuit out segment by segment as it is recorded
// (dsl/compile.hpp, builder::record_compile): circuits of many segments must
// compute what plain C++ computes, keep no gate whose result dies unused, and
// agree with the same function streamed.
//
// Lay-out merges common subexpressions within a segment (layout.hpp), so AND
// counts depend a little on where cuts fall: the chains below multiply by the
// same y at every step, and the terms of y that each product recomputes are
// merged once per segment. The checks bound that effect; a value kept alive
// by a cut would cost a whole product.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace compile_segments_tests {

using namespace tandem;

namespace {

using u64 = secure_uint<64>;
constexpr std::uint64_t segment = detail::builder::compile_segment_ands;

/// ANDs of one product a * b.
std::uint64_t mul_ands() {
    return compile([](u64 a, u64 b) { return a * b; }, input<party::alice, u64>, input<party::bob, u64>)
        .stats()
        .and_gates;
}

/// ANDs of one step acc * y + x.
std::uint64_t step_ands() {
    return compile([](u64 a, u64 b, u64 x) { return a * b + x; }, input<party::alice, u64>, input<party::alice, u64>,
                   input<party::bob, u64>)
        .stats()
        .and_gates;
}

std::uint64_t chain_plain(std::uint64_t y, std::uint64_t x, int steps) {
    std::uint64_t acc = y;
    for (int i = 0; i < steps; ++i) acc = acc * y + (x ^ static_cast<std::uint64_t>(i));
    return acc;
}

/// acc = acc * y + (x ^ i), `steps` times; with `waste`, each step also
/// computes acc * x into a value that lives across the next step and dies unused.
auto chain(int steps, bool waste) {
    return compile(
        [steps, waste](u64 y, u64 x) {
            u64 acc = y;
            u64 unused = 0;
            for (int i = 0; i < steps; ++i) {
                if (waste) unused = acc * x;
                acc = acc * y + (x ^ u64(static_cast<std::uint64_t>(i)));
            }
            return acc;
        },
        input<party::alice, u64>, input<party::bob, u64>);
}

}  // namespace

TEST_CASE("compile.segments.chain_of_many_segments_equals_plain") {
    const int steps = 3 * static_cast<int>(segment / step_ands()) + 5;  // about four segments
    const auto c = chain(steps, false);
    // Step 0 squares y (a few ANDs fold); every later step costs at most
    // step_ands(), less the terms of y it shares with the steps before it in
    // its segment.
    const std::uint64_t unshared =
        chain(1, false).stats().and_gates + static_cast<std::uint64_t>(steps - 1) * step_ands();
    CHECK(c.stats().and_gates <= unshared);
    CHECK(c.stats().and_gates >= unshared - unshared / 50);
    REQUIRE(c.stats().and_gates > 3 * segment);
    const std::uint64_t seed = 4242;
    std::mt19937_64 r(seed);
    for (int k = 0; k < 8; ++k) {
        const std::uint64_t y = r(), x = r();
        INFO("seed " << seed << ", y " << y << ", x " << x);
        CHECK(c.eval_plain(y, x) == chain_plain(y, x, steps));
    }
}

TEST_CASE("compile.segments.values_alive_at_a_cut_but_never_used_cost_nothing") {
    // Some `unused` product is alive at every cut; its gates must still go.
    const int steps = 2 * static_cast<int>(segment / step_ands()) + 3;
    const auto lean = chain(steps, false);
    const auto wasteful = chain(steps, true);
    // They are cut at different points, so they merge y's terms a different
    // number of times: within half a product of each other.
    const std::uint64_t w_ands = wasteful.stats().and_gates, l_ands = lean.stats().and_gates;
    CHECK(w_ands <= l_ands + mul_ands() / 2);
    CHECK(l_ands <= w_ands + mul_ands() / 2);
    const std::uint64_t w_xors = wasteful.stats().xor_gates, l_xors = lean.stats().xor_gates;
    CHECK(w_xors <= l_xors + mul_ands() / 2);
    CHECK(l_xors <= w_xors + mul_ands() / 2);
    // NOT gates may differ by a few: each segment materialises the NOT of a
    // carried wire afresh, and the two circuits are cut at different points.
    CHECK(wasteful.stats().not_gates <= lean.stats().not_gates + 16);
    CHECK(wasteful.eval_plain(3, 1000003) == chain_plain(3, 1000003, steps));
}

TEST_CASE("compile.segments.equals_the_streamed_function") {
    const int steps = static_cast<int>(segment / step_ands()) + 9;
    const auto fn = [steps](u64 y, u64 x) {
        u64 acc = y;
        for (int i = 0; i < steps; ++i) acc = acc * y + (x ^ u64(static_cast<std::uint64_t>(i)));
        return acc;
    };
    const auto c = compile(fn, input<party::alice, u64>, input<party::bob, u64>);
    auto s = stream(fn, input<party::alice, u64>, input<party::bob, u64>);
    const std::uint64_t seed = 77;
    std::mt19937_64 r(seed);
    for (int k = 0; k < 3; ++k) {
        const std::uint64_t y = r(), x = r();
        INFO("seed " << seed << ", y " << y << ", x " << x);
        CHECK(c.eval_plain(y, x) == s.eval_plain(y, x));
        CHECK(c.eval_plain(y, x) == chain_plain(y, x, steps));
    }
    // The stream's segments are smaller: fewer of y's terms merge.
    CHECK(s.last_run().and_gates >= c.stats().and_gates);
    CHECK(s.last_run().and_gates <= c.stats().and_gates + c.stats().and_gates / 50);
}

TEST_CASE("compile.segments.many_live_inputs") {
    // 2^14 input values stay alive throughout: cuts wait until a segment has
    // as many gates as there are live references, and the result is exact.
    constexpr std::size_t n = std::size_t{1} << 14;
    using byte = secure_uint<8>;
    const auto c = compile(
        [](const std::array<byte, n>& v) {
            secure_uint<32> acc = 1;
            for (int round = 0; round < 3; ++round)
                for (std::size_t i = 0; i < n; ++i) acc = acc * v[(i * 7 + round) % n].resize<32>() + 1;
            return acc;
        },
        input<party::alice, std::array<byte, n>>);
    REQUIRE(c.stats().and_gates > 2 * segment);
    std::array<std::uint8_t, n> v{};
    const std::uint64_t seed = 9;
    std::mt19937_64 r(seed);
    for (auto& x : v) x = static_cast<std::uint8_t>(r());
    std::uint32_t acc = 1;
    for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < n; ++i) acc = acc * v[(i * 7 + round) % n] + 1;
    INFO("seed " << seed);
    CHECK(c.eval_plain(v) == acc);
}

}  // namespace compile_segments_tests
