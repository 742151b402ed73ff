// Gate counts: every building block uses the best known construction, and
// the AND count of each is asserted here (docs/DESIGN.md §2, issue 2).
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <bit>
#include <cstdint>
#include <sstream>
#include <type_traits>

namespace dsl_gate_counts_tests {

using namespace tandem;

namespace {

template <class T, class F>
std::uint64_t ands(F f) {
    return compile(f, input<party::alice, T>, input<party::bob, T>).stats().and_gates;
}

template <std::size_t N>
void check_integer_counts() {
    using U = secure_uint<N>;
    using I = secure_int<N>;
    CAPTURE(N);
    CHECK(ands<U>([](U a, U b) { return a + b; }) == N - 1);
    CHECK(ands<U>([](U a, U b) { return a - b; }) == N - 1);
    CHECK(ands<I>([](I a, I b) { return a + b; }) == N - 1);
    CHECK(ands<U>([](U a, U b) { return a < b; }) == N);
    CHECK(ands<I>([](I a, I b) { return a < b; }) == N);
    CHECK(ands<I>([](I a, I b) { return a <= b; }) == N);
    CHECK(ands<U>([](U a, U b) { return a > b; }) == N);
    CHECK(ands<U>([](U a, U b) { return a >= b; }) == N);
    CHECK(ands<U>([](U a, U b) { return a == b; }) == N - 1);
    CHECK(ands<I>([](I a, I b) { return a != b; }) == N - 1);
    CHECK(ands<U>([](U a, U b) { return select(a[0], a, b); }) == N);
    CHECK(ands<U>([](U a, U b) { return select(a < b, a, b); }) == 2 * N);
    CHECK(ands<U>([](U a, U b) { return a * b; }) <= N * N - N + 1);
    CHECK(ands<U>([](U a, U b) { return a / b; }) <= N * N + 3 * N - 1);
    CHECK(ands<U>([](U a, U b) { return a % b; }) <= N * N + 3 * N - 1);
    if constexpr (N >= 2) {
        CHECK(ands<I>([](I a, I) { return -a; }) == N - 2);
        CHECK(ands<I>([](I a, I) { return abs(a); }) == N - 1);
    }
}

/// ANDs of the truncated product by each construction, on N-bit operands.
template <std::size_t N>
std::pair<std::uint64_t, std::uint64_t> truncated_product_ands() {
    using U = secure_uint<N>;
    auto by = [](auto method) {
        return ands<U>([method](U a, U b) {
            typename U::bits_type out;
            method(detail::builder_for(detail::join_owner(a.owner(), b.owner())), a.bits(), b.bits(), out);
            return U(out, a.owner());
        });
    };
    return {by([](auto& bld, auto& x, auto& y, auto& o) { detail::multiply_truncated_schoolbook(bld, x, y, o); }),
            by([](auto& bld, auto& x, auto& y, auto& o) { detail::multiply_truncated_karatsuba(bld, x, y, o); })};
}

/// ANDs of the square of an N-bit value into Out bits (N: truncated, 2N:
/// full) by square_schoolbook and by Karatsuba's split (truncated: the low
/// half's full square and one cross product; full: three half-size squares).
template <std::size_t N, std::size_t Out>
std::pair<std::uint64_t, std::uint64_t> square_ands() {
    using U = secure_uint<N>;
    using W = secure_uint<Out>;
    auto by = [](auto method) {
        return ands<U>([method](U a, U) {
            typename W::bits_type out;
            method(detail::builder_for(a.owner()), a.bits(), out);
            return W(out, a.owner());
        });
    };
    return {by([](auto& bld, auto& x, auto& o) { detail::square_schoolbook(bld, x, o); }),
            by([](auto& bld, auto& x, auto& o) {
                if constexpr (Out == N) detail::multiply_truncated_karatsuba(bld, x, x, o);
                else detail::multiply_full_karatsuba(bld, x, x, o);
            })};
}

}  // namespace

TEST_CASE("dsl.gate_counts.integers") {
    check_integer_counts<1>();
    check_integer_counts<2>();
    check_integer_counts<3>();
    check_integer_counts<7>();
    check_integer_counts<8>();
    check_integer_counts<16>();
    check_integer_counts<31>();
    check_integer_counts<32>();
    check_integer_counts<33>();
    check_integer_counts<64>();
}

TEST_CASE("dsl.gate_counts.multiplication") {
    using U32 = secure_uint<32>;
    using U64 = secure_uint<64>;
    // Karatsuba from 32 bits on (see the crossover case) beats the schoolbook bound.
    CHECK(ands<U32>([](U32 a, U32 b) { return a * b; }) <= 993);   // 32² - 32 + 1
    CHECK(ands<U64>([](U64 a, U64 b) { return a * b; }) <= 4033);  // 64² - 64 + 1
    using I64 = secure_int<64>;
    CHECK(ands<I64>([](I64 a, I64 b) { return a * b; }) == ands<U64>([](U64 a, U64 b) { return a * b; }));
    using U16 = secure_uint<16>;
    CHECK(ands<U16>([](U16 a, U16 b) { return a * b; }) == 16 * 16 - 16 + 1);
    // A public factor folds to shifts and adds: x * 5 = x + (x << 2).
    CHECK(ands<U32>([](U32 a, U32) { return a * 5; }) <= 31);
    CHECK(ands<U32>([](U32 a, U32) { return a * 0; }) == 0);
    CHECK(ands<U32>([](U32 a, U32) { return a * 1; }) == 0);
}

TEST_CASE("dsl.gate_counts.karatsuba_crossover") {
    // The dispatch threshold must sit where Karatsuba starts to win. This
    // prints the measured table (recorded in bench/RESULTS.md) and checks that
    // the chosen construction is the smaller one on both sides of it.
    std::ostringstream table;
    auto row = [&](std::size_t n, std::pair<std::uint64_t, std::uint64_t> c) {
        table << n << ": schoolbook " << c.first << ", karatsuba " << c.second << "\n";
        return c;
    };
    const auto c24 = row(24, truncated_product_ands<24>());
    const auto c31 = row(31, truncated_product_ands<31>());
    const auto c32 = row(32, truncated_product_ands<32>());
    const auto c33 = row(33, truncated_product_ands<33>());
    const auto c48 = row(48, truncated_product_ands<48>());
    const auto c64 = row(64, truncated_product_ands<64>());
    const auto c128 = row(128, truncated_product_ands<128>());
    MESSAGE("truncated product ANDs\n" << table.str());
    static_assert(detail::karatsuba_truncated_threshold == 32, "update the checks below with the threshold");
    CHECK(c24.first <= c24.second);
    CHECK(c31.first <= c31.second);
    CHECK(c32.second < c32.first);
    CHECK(c33.second < c33.first);
    CHECK(c48.second < c48.first);
    CHECK(c64.second < c64.first);
    CHECK(c128.second < c128.first);
    using U32 = secure_uint<32>;
    using U64 = secure_uint<64>;
    using U128 = secure_uint<128>;
    CHECK(ands<U32>([](U32 a, U32 b) { return a * b; }) == c32.second);
    CHECK(ands<U64>([](U64 a, U64 b) { return a * b; }) == c64.second);
    CHECK(ands<U128>([](U128 a, U128 b) { return a * b; }) == c128.second);
}

TEST_CASE("dsl.gate_counts.square_crossover") {
    // x * x makes each partial product once (square_schoolbook): about half a
    // product's ANDs. From square_karatsuba_threshold on, Karatsuba's split
    // is smaller: one full square of the low half (Karatsuba's three products
    // of a full square are squares again) and one cross product, doubled by
    // a shift.
    std::ostringstream table;
    const auto row = [&](std::size_t n, std::pair<std::uint64_t, std::uint64_t> c, std::uint64_t product) {
        table << n << ": square " << c.first << ", karatsuba " << c.second << ", product " << product << "\n";
        CHECK(std::min(c.first, c.second) < product);
        return c;
    };
    const auto counts = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        using U = secure_uint<N>;
        return row(N, square_ands<N, N>(), ands<U>([](U a, U b) { return a * b; }));
    };
    const auto c8 = counts(std::integral_constant<std::size_t, 8>{});
    const auto c31 = counts(std::integral_constant<std::size_t, 31>{});
    const auto c32 = counts(std::integral_constant<std::size_t, 32>{});
    const auto c40 = counts(std::integral_constant<std::size_t, 40>{});
    const auto c48 = counts(std::integral_constant<std::size_t, 48>{});
    const auto c56 = counts(std::integral_constant<std::size_t, 56>{});
    const auto c64 = counts(std::integral_constant<std::size_t, 64>{});
    const auto c128 = counts(std::integral_constant<std::size_t, 128>{});
    const auto c512 = counts(std::integral_constant<std::size_t, 512>{});
    MESSAGE("truncated square ANDs\n" << table.str());
    std::ostringstream full;
    const auto full_row = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        const auto c = square_ands<N, 2 * N>();
        full << N << ": square " << c.first << ", karatsuba " << c.second << "\n";
        return c;
    };
    const auto f16 = full_row(std::integral_constant<std::size_t, 16>{});
    const auto f24 = full_row(std::integral_constant<std::size_t, 24>{});
    const auto f32 = full_row(std::integral_constant<std::size_t, 32>{});
    const auto f48 = full_row(std::integral_constant<std::size_t, 48>{});
    const auto f64 = full_row(std::integral_constant<std::size_t, 64>{});
    const auto f128 = full_row(std::integral_constant<std::size_t, 128>{});
    MESSAGE("full square ANDs\n" << full.str());
    CHECK(c8.first == 21);  // rows of 6, 4 and 2 products; adds of 3 and 1 (the first folds); the last add 5
    CHECK(c64.first == 1953);
    static_assert(detail::square_karatsuba_threshold == 48 && detail::square_full_karatsuba_threshold == 24,
                  "update the checks below with the thresholds");
    for (const auto& c : {c8, c31, c32, c40}) CHECK(c.first < c.second);
    for (const auto& c : {c48, c56, c64, c128, c512}) CHECK(c.second < c.first);
    CHECK(f16.first < f16.second);
    for (const auto& c : {f24, f32, f48, f64, f128}) CHECK(c.second < c.first);
    // The dispatch takes the smaller one on both sides.
    using U40 = secure_uint<40>;
    using U64 = secure_uint<64>;
    CHECK(ands<U40>([](U40 a, U40) { return a * a; }) == c40.first);
    CHECK(ands<U64>([](U64 a, U64) { return a * a; }) == c64.second);

    // (x - y)² squares the difference once it is one value; d's top bit does
    // not reach a truncated square, so the subtraction's last borrow is dead.
    CHECK(ands<U64>([](U64 a, U64 b) {
              const U64 d = a - b;
              return d * d;
          }) == 62 + c64.second);
}

TEST_CASE("dsl.gate_counts.division") {
    using U32 = secure_uint<32>;
    using U64 = secure_uint<64>;
    CHECK(ands<U32>([](U32 a, U32 b) { return a / b; }) <= 32 * 32 + 3 * 32 - 1);
    CHECK(ands<U64>([](U64 a, U64 b) { return a % b; }) <= 64 * 64 + 3 * 64 - 1);
}

TEST_CASE("dsl.gate_counts.popcount") {
    // ℓ - h(ℓ) ANDs (Boyar–Peralta; paper 003 §4.2.1).
    using B900 = secure_uint<900>;
    CHECK(ands<B900>([](B900 a, B900) { return popcount(a); }) == 896);
    using B7 = secure_uint<7>;
    CHECK(ands<B7>([](B7 a, B7) { return popcount(a); }) == 7 - 3);
    using B64 = secure_uint<64>;
    CHECK(ands<B64>([](B64 a, B64) { return popcount(a); }) == 63);
    using B100 = secure_uint<100>;
    CHECK(ands<B100>([](B100 a, B100) { return popcount(a); }) == 100 - std::popcount(100u));
    // Hamming distance of 900 bits, the paper's application.
    CHECK(ands<B900>([](B900 a, B900 b) { return popcount(a ^ b); }) == 896);
}

TEST_CASE("dsl.gate_counts.shifts") {
    using U32 = secure_uint<32>;
    CHECK(ands<U32>([](U32 a, U32) { return a << 7; }) == 0);
    CHECK(ands<U32>([](U32 a, U32) { return a >> 40; }) == 0);
    // 5 mux stages of 32 plus the "amount >= 32" fill: a barrel shifter.
    using U8 = secure_uint<8>;
    CHECK(compile([](U32 a, U8 s) { return a << s.resize<5>(); }, input<party::alice, U32>, input<party::bob, U8>)
              .stats()
              .and_gates <= 5 * 32);
}

TEST_CASE("dsl.gate_counts.folding") {
    // Trivial gates and public constants never reach the circuit.
    using U16 = secure_uint<16>;
    CHECK(compile([](U16 a, U16) { return std::tuple{a & a, a ^ a, a & 0, a | 0xFFFF, a ^ 0, ~~a, a + 0, a - 0};
                  }, input<party::alice, U16>, input<party::bob, U16>)
              .stats()
              .and_gates == 0);
    const auto c = compile([](U16 a, U16) { return std::tuple{a & a, a ^ a, a & 0, a ^ 0, ~~a}; },
                           input<party::alice, U16>, input<party::bob, U16>);
    CHECK(c.stats().xor_gates == 0);
    CHECK(c.stats().not_gates == 0);
    secure_bit t = true;
    CHECK(compile([t](secure_bit a, secure_bit b) { return std::tuple{a & t, a | t, a ^ t, a & ~a, a | ~a, b ^ b}; },
                  input<party::alice, secure_bit>, input<party::bob, secure_bit>)
              .stats()
              .and_gates == 0);
    // Constants fold through whole operators: 100 < 200 costs nothing, x < 100 at most N ANDs.
    CHECK(ands<U16>([](U16, U16) { return U16(100) < U16(200); }) == 0);
    CHECK(ands<U16>([](U16 a, U16) { return a < 100; }) <= 16);
    CHECK(ands<U16>([](U16 a, U16 b) { return select(a == b, a, 0); }) == 15 + 16);
}

}  // namespace dsl_gate_counts_tests
