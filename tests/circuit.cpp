// The recorded circuit: levelling, slot assignment, steps, stats and misuse.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <array>
#include <numeric>
#include <set>
#include <string>

namespace circuit_tests {

using namespace tandem;

namespace {

/// Checks docs/DESIGN.md §3 on any circuit: ANDs of level i read only values written
/// before level i; XORs read values of levels <= i written before them; no
/// gate of level i overwrites a slot whose older value level i still reads.
void check_levelled(const circuit<>& c) {
    const circuit_data& d = c.data();
    constexpr int unset = -2, input_value = -1;
    std::vector<int> written(d.slot_count, unset);
    for (std::uint32_t k = 0; k < d.input_bits; ++k) written[k] = input_value;
    std::uint32_t expect_begin = 0;
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
        const level_range& lv = d.levels[i];
        REQUIRE(lv.and_begin == expect_begin);
        REQUIRE(lv.and_begin <= lv.xor_begin);
        REQUIRE(lv.xor_begin <= lv.end);
        expect_begin = lv.end;
        std::set<std::uint32_t> old_reads, writes;
        for (std::uint32_t g = lv.and_begin; g < lv.end; ++g) {
            const gate& x = d.gates[g];
            const bool is_and = g < lv.xor_begin;
            CHECK((x.kind == gate_kind::and_gate) == is_and);
            for (std::uint32_t in : {x.in0, x.in1}) {
                REQUIRE(in < d.slot_count);
                REQUIRE(written[in] != unset);
                if (is_and) CHECK(written[in] < static_cast<int>(i));
                else CHECK(written[in] <= static_cast<int>(i));
                if (written[in] < static_cast<int>(i)) old_reads.insert(in);
            }
            if (x.kind == gate_kind::not_gate) CHECK(x.in0 == x.in1);
            written[x.out] = static_cast<int>(i);
            writes.insert(x.out);
        }
        for (std::uint32_t s : writes) CHECK_MESSAGE(old_reads.count(s) == 0, "level " << i << " reuses slot " << s);
    }
    CHECK(expect_begin == d.gates.size());
    std::uint64_t level_ands = 0;
    for (auto w : c.stats().level_and_width) level_ands += w;
    CHECK(level_ands == c.stats().and_gates);
}

}  // namespace

TEST_CASE("circuit.gate_kinds_have_one_list") {
    // The X-macro's columns, as every pass sees them.
    CHECK(to_string(gate_kind::and_gate) == "AND");
    CHECK(to_string(gate_kind::xor_gate) == "XOR");
    CHECK(to_string(gate_kind::not_gate) == "INV");
    CHECK(input_count(gate_kind::and_gate) == 2);
    CHECK(input_count(gate_kind::xor_gate) == 2);
    CHECK(input_count(gate_kind::not_gate) == 1);
    CHECK_FALSE(is_free(gate_kind::and_gate));
    CHECK(is_free(gate_kind::xor_gate));
    CHECK(is_free(gate_kind::not_gate));
    // A kind outside the list (a corrupted byte) is neither free nor named.
    CHECK_FALSE(is_free(static_cast<gate_kind>(7)));
    CHECK(to_string(static_cast<gate_kind>(7)) == "?");
    // Free gates in plaintext (one = all ones) and on labels (one = Δ for the
    // garbler, nothing for the evaluator): the evaluator's label of NOT x is
    // x's, the garbler's zero label of NOT x is x's zero label ⊕ Δ.
    const std::uint64_t a = 0b1100, b = 0b1010;
    CHECK(free_gate_value(gate_kind::xor_gate, a, b, ~std::uint64_t{0}) == 0b0110);
    CHECK(free_gate_value(gate_kind::not_gate, a, a, ~std::uint64_t{0}) == ~a);
    const block x(5, 6), y(7, 9), delta(3, 1);
    CHECK(free_gate_value(gate_kind::xor_gate, x, y, delta) == (x ^ y));
    CHECK(free_gate_value(gate_kind::not_gate, x, x, delta) == (x ^ delta));
    CHECK(free_gate_value(gate_kind::not_gate, x, x, block()) == x);
}

TEST_CASE("circuit.recording_storage_grows_moves_and_is_reused") {
    // The recorder appends gate records into a flat big_vector
    // (detail/big_vector.hpp): through growth from the ordinary allocator
    // into mapped blocks (mremap, or a cached block), after a move (the
    // source empty and usable) and after clear() (a segment's next one
    // records into the same storage, which keeps its capacity), every
    // element reads back as written.
    using detail::big_vector;
    const auto value = [](std::size_t i) { return i * 0x9e3779b97f4a7c15ull + 1; };
    const auto holds = [&](const big_vector<std::uint64_t>& v, std::size_t n, std::size_t shift) {
        if (v.size() != n) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] != value(i + shift)) return false;
        return true;
    };
    big_vector<std::uint64_t> v;
    const std::size_t n = (std::size_t{3} << 20) + 12345;  // 24 MiB: well past the mapped-block size
    for (std::size_t i = 0; i < n; ++i) v.push_back(value(i));
    CHECK(holds(v, n, 0));
    big_vector<std::uint64_t> w = std::move(v);
    CHECK(holds(w, n, 0));
    CHECK(v.empty());  // NOLINT(bugprone-use-after-move): moved-from storage starts afresh
    for (std::size_t i = 0; i < 100; ++i) v.push_back(value(i + 7));
    CHECK(holds(v, 100, 7));
    const std::size_t capacity = w.capacity();
    w.clear();
    CHECK(w.empty());
    CHECK(w.capacity() == capacity);
    for (std::size_t i = 0; i < n + 5; ++i) w.push_back(value(i + 3));
    CHECK(holds(w, n + 5, 3));
    v = std::move(w);
    CHECK(holds(v, n + 5, 3));
    CHECK(w.empty());  // NOLINT(bugprone-use-after-move)
    w.release();
    w.push_back(value(0));
    CHECK(holds(w, 1, 0));
}

TEST_CASE("circuit.levelled_layout") {
    using I = secure_int<32>;
    const auto c = compile(
        [](I a, I b) {
            I acc = a;
            for (int i = 0; i < 8; ++i) acc = acc * b + (a ^ (b >> i)) - select(acc < b, a, b);
            return std::tuple{acc, acc / (b | 1), a == b};
        },
        input<party::alice, I>, input<party::bob, I>);
    check_levelled(c);
    CHECK(c.data().steps.size() == 1);
    CHECK(c.data().steps[0].kind == step_kind::sequential);
    CHECK(c.data().steps[0].level_begin == 0);
    CHECK(c.data().steps[0].level_end == c.data().levels.size());
    const auto& s = c.stats();
    CHECK(s.and_depth > 0);
    CHECK(s.levels >= s.and_depth);
    CHECK(s.input_bits_alice == 32);
    CHECK(s.input_bits_bob == 32);
    CHECK(s.output_bits == 65);
    CHECK(s.wire_count == 64 + s.and_gates + s.xor_gates + s.not_gates);
    std::uint64_t live = 0;  // outputs that are not public constants
    for (auto slot : c.data().output_slots) live += slot != tandem::output_false && slot != tandem::output_true;
    CHECK(live > 0);
    CHECK(s.bytes_garbler_to_evaluator == 62 + 16 + 16 * 32 + 32 * s.and_gates + 16 * live);
    CHECK(s.bytes_evaluator_to_garbler == 62 + 8 + 128 * 4 + 16 * live);
    std::uint32_t histogram_levels = 0;
    for (auto n : s.width_histogram) histogram_levels += n;
    CHECK(histogram_levels == s.and_depth);
    // The plaintext result of the levelled circuit is still the function.
    const auto [acc, q, eq] = c.eval_plain(123456, -789);
    std::int32_t ra = 123456, rb = -789;
    std::int32_t r = ra;
    for (int i = 0; i < 8; ++i)
        r = static_cast<std::int32_t>(static_cast<std::uint32_t>(r) * static_cast<std::uint32_t>(rb) +
                                      static_cast<std::uint32_t>(ra ^ (rb >> i)) -
                                      static_cast<std::uint32_t>(r < rb ? ra : rb));
    CHECK(acc == r);
    CHECK(q == r / (rb | 1));
    CHECK(eq == false);
}

TEST_CASE("circuit.working_set_is_reused") {
    // Summing 64 inputs: thousands of wires, but only a few live at a time.
    using U = secure_uint<16>;
    const auto c = compile(
        [](std::array<U, 64> xs, U y) {
            U acc = y;
            for (const U& x : xs) acc = acc + x;
            return acc;
        },
        input<party::alice, std::array<U, 64>>, input<party::bob, U>);
    check_levelled(c);
    CHECK(c.stats().wire_count > 4000);
    // Levelling runs gates as early as possible, which costs some slots over
    // program order, but storage stays far below one label per wire.
    CHECK(c.stats().peak_working_set < c.data().input_bits + 512);
    CHECK(c.stats().peak_working_set * 3 < c.stats().wire_count);
    std::array<std::uint16_t, 64> xs{};
    std::uint16_t sum = 7;
    for (std::size_t i = 0; i < xs.size(); ++i) sum = static_cast<std::uint16_t>(sum + (xs[i] = std::uint16_t(i * 977)));
    CHECK(c.eval_plain(xs, 7) == sum);
}

TEST_CASE("circuit.dead_gates_are_dropped") {
    using U = secure_uint<32>;
    const auto c = compile(
        [](U a, U b) {
            const U unused = a * b;  // never reaches an output
            (void)unused;
            return a + b;
        },
        input<party::alice, U>, input<party::bob, U>);
    CHECK(c.stats().and_gates == 31);
}

TEST_CASE("circuit.constant_and_passthrough_outputs") {
    using U = secure_uint<8>;
    const auto c = compile([](U a, U b) { return std::tuple{a, U(0xA5), b ^ b, ~a}; }, input<party::alice, U>,
                           input<party::bob, U>);
    CHECK(c.stats().and_gates == 0);
    CHECK(c.stats().xor_gates == 0);
    CHECK(c.stats().not_gates == 8);
    const auto [x, k, z, n] = c.eval_plain(0x3C, 0x11);
    CHECK(x == 0x3C);
    CHECK(k == 0xA5);
    CHECK(z == 0);
    CHECK(n == 0xC3);
}

TEST_CASE("circuit.copies_share_data") {
    using U = secure_uint<8>;
    const auto c = compile([](U a, U b) { return a * b; }, input<party::alice, U>, input<party::bob, U>);
    const auto copy = c;
    const circuit<> untyped = c;
    CHECK(&copy.data() == &c.data());
    CHECK(&untyped.data() == &c.data());
    CHECK(copy.eval_plain(7, 9) == 63);
}

TEST_CASE("circuit.value_used_outside_its_compile") {
    using U = secure_uint<8>;
    U leaked;
    const auto c = compile(
        [&leaked](U a, U b) {
            leaked = a;
            return a + b;
        },
        input<party::alice, U>, input<party::bob, U>);
    (void)c;
    CHECK_THROWS_WITH_AS(leaked + 1, doctest::Contains("outside tandem::compile"), usage_error);
    // Used inside a later compile, it belongs to another builder.
    CHECK_THROWS_WITH_AS(compile([&leaked](U a, U) { return a + leaked; }, input<party::alice, U>, input<party::bob, U>),
                         doctest::Contains("another tandem::compile call"), usage_error);
    CHECK_THROWS_WITH_AS(compile([&leaked](U, U) { return leaked * 3; }, input<party::alice, U>, input<party::bob, U>),
                         doctest::Contains("another tandem::compile"), usage_error);
    CHECK_THROWS_WITH_AS(compile([&leaked](U, U) { return leaked; }, input<party::alice, U>, input<party::bob, U>),
                         doctest::Contains("another tandem::compile call"), usage_error);
    // Public constants are fine anywhere.
    const U k = U(3) + U(4);
    CHECK(k.is_public());
}

TEST_CASE("circuit.bit_index_out_of_range") {
    using U = secure_uint<8>;
    CHECK_THROWS_WITH_AS(compile([](U a, U) { return a[8]; }, input<party::alice, U>, input<party::bob, U>),
                         doctest::Contains("out of range"), usage_error);
}

TEST_CASE("circuit.negative_public_shift") {
    using U = secure_uint<8>;
    CHECK_THROWS_AS(compile([](U a, U) { return a << -1; }, input<party::alice, U>, input<party::bob, U>), usage_error);
}

TEST_CASE("circuit.segmented_levelling_bounds_the_working_set") {
    // 12 x 12 independent 64-bit products summed: 521 k ANDs, two segments of
    // 2^18 ANDs. Without segments all 144 products would be levelled side by
    // side (64 levels, every product's wires live at once).
    constexpr std::size_t k = 12;
    using vec = std::array<secure_int<64>, k>;
    const auto c = compile(
        [](const vec& x, const vec& y) {
            secure_int<64> sum = 0;
            for (std::size_t i = 0; i < k; ++i)
                for (std::size_t j = 0; j < k; ++j) sum = sum + x[i] * y[j];
            return sum;
        },
        input<party::alice, vec>, input<party::bob, vec>);
    const auto one = compile([](secure_int<64> a, secure_int<64> b) { return a * b; },
                             input<party::alice, secure_int<64>>, input<party::bob, secure_int<64>>);
    const circuit_stats& s = c.stats();
    CHECK(s.and_gates > (std::uint64_t{1} << 18));
    CHECK(s.and_depth > one.stats().and_depth + 12);  // later segments start after earlier ones
    check_levelled(c);
    // Working set: about one segment's products, not all 144.
    CHECK(c.data().slot_count < 144 * one.data().slot_count / 2);
    std::array<std::int64_t, k> x{}, y{};
    std::int64_t expected = 0;
    for (std::size_t i = 0; i < k; ++i) x[i] = std::int64_t(i * 977 + 3) << 20, y[i] = -std::int64_t(i * 131 + 7);
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < k; ++j)
            expected = static_cast<std::int64_t>(static_cast<std::uint64_t>(expected) +
                                                 static_cast<std::uint64_t>(x[i]) * static_cast<std::uint64_t>(y[j]));
    CHECK(c.eval_plain(x, y) == expected);
}

TEST_CASE("circuit.fingerprint") {
    auto lt = [](secure_int<32> a, secure_int<32> b) { return a < b; };
    auto le = [](secure_int<32> a, secure_int<32> b) { return a <= b; };
    const auto a1 = compile(lt, input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    const auto a2 = compile(lt, input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    const auto b = compile(le, input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    const auto swapped = compile(lt, input<party::bob, secure_int<32>>, input<party::alice, secure_int<32>>);
    const circuit<> copy = a1;
    CHECK(a1.fingerprint() == a2.fingerprint());  // the same program compiles to the same circuit
    CHECK(copy.fingerprint() == a1.fingerprint());
    CHECK(!(a1.fingerprint() == b.fingerprint()));
    CHECK(!(a1.fingerprint() == swapped.fingerprint()));  // owners are part of it
}

}  // namespace circuit_tests
