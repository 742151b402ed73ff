// Plaintext mode: typed inputs and outputs, the plain type mapping, batches,
// Hana structs, arrays, widths beyond 128 bits, resize/concat/bit access.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <boost/hana/define_struct.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <tuple>
#include <type_traits>

namespace plain_tests {

using namespace tandem;

// ---- the plain type mapping (documented in dsl/value_traits.hpp) -----------
static_assert(std::is_same_v<plain_type_t<secure_bit>, bool>);
static_assert(std::is_same_v<plain_type_t<secure_int<32>>, std::int32_t>);
static_assert(std::is_same_v<plain_type_t<secure_uint<32>>, std::uint32_t>);
static_assert(std::is_same_v<plain_type_t<secure_int<1>>, std::int8_t>);
static_assert(std::is_same_v<plain_type_t<secure_int<12>>, std::int16_t>);
static_assert(std::is_same_v<plain_type_t<secure_uint<33>>, std::uint64_t>);
static_assert(std::is_same_v<plain_type_t<secure_int<100>>, int128>);
static_assert(std::is_same_v<plain_type_t<secure_uint<128>>, uint128>);
static_assert(std::is_same_v<plain_type_t<secure_uint<256>>, wide_uint<256>>);
static_assert(std::is_same_v<plain_type_t<std::array<secure_int<8>, 3>>, std::array<std::int8_t, 3>>);

namespace geo {
struct point {
    BOOST_HANA_DEFINE_STRUCT(point, (secure_int<32>, x), (secure_int<32>, y));
};
struct plain_point {
    BOOST_HANA_DEFINE_STRUCT(plain_point, (std::int32_t, x), (std::int32_t, y));
};
struct record {
    BOOST_HANA_DEFINE_STRUCT(record, (secure_uint<16>, id), (std::array<secure_bit, 3>, flags), (point, where));
};
}  // namespace geo
}  // namespace plain_tests
// An explicit specialization lives at namespace scope, outside plain_tests.
template <>
struct tandem::plain_struct<plain_tests::geo::point> {
    using type = plain_tests::geo::plain_point;
};
namespace plain_tests {

TEST_CASE("plain.small_widths_sign_extend") {
    using I = secure_int<12>;
    const auto c = compile([](I a, I b) { return std::tuple{a + b, a.as_unsigned() + b.as_unsigned()}; },
                           input<party::alice, I>, input<party::bob, I>);
    const auto [s, u] = c.eval_plain(2047, 1);  // 2047 + 1 wraps to -2048 on 12 bits
    CHECK(s == -2048);
    CHECK(u == 2048);
    // Bits above the width of a plain input are ignored.
    CHECK(std::get<0>(c.eval_plain(std::int16_t(0x1005), 0)) == 5);
}

TEST_CASE("plain.batch_matches_single") {
    using I = secure_int<32>;
    const auto c = compile([](I a, I b) { return a * b - (a >> 3); }, input<party::alice, I>, input<party::bob, I>);
    const std::uint64_t seed = 20261121;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<std::int32_t, std::int32_t>> sets(200);  // more than 64: several passes
    for (auto& s : sets) s = {static_cast<std::int32_t>(rng()), static_cast<std::int32_t>(rng())};
    const auto batch = c.eval_plain_batch(sets);
    REQUIRE(batch.size() == sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const auto [a, b] = sets[i];
        CHECK(batch[i] == c.eval_plain(a, b));
        CHECK(batch[i] == static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b) -
                                                    static_cast<std::uint32_t>(a >> 3)));
    }
}

TEST_CASE("plain.hana_structs") {
    using geo::point;
    // With plain_struct specialised, points come and go as geo::plain_point.
    const auto c = compile([](point p, point q) { return point{p.x + q.x, max(p.y, q.y)}; },
                           input<party::alice, point>, input<party::bob, point>);
    const geo::plain_point r = c.eval_plain({1, -5}, {10, -7});
    CHECK(r.x == 11);
    CHECK(r.y == -5);
    // Without it, a struct's plain form is the tuple of its members.
    using geo::record;
    const auto d = compile(
        [](record r, secure_uint<16> k) {
            record out = r;
            out.id = r.id + k;
            out.flags[1] = r.flags[0] ^ r.flags[2];
            out.where.x = -r.where.x;
            return out;
        },
        input<party::alice, record>, input<party::bob, secure_uint<16>>);
    using plain_record = plain_type_t<record>;
    static_assert(std::is_same_v<plain_record,
                                 std::tuple<std::uint16_t, std::array<bool, 3>, geo::plain_point>>);
    const plain_record in{40000, {true, false, false}, {3, 4}};
    const auto out = d.eval_plain(in, 30000);
    CHECK(std::get<0>(out) == std::uint16_t(70000 % 65536));
    CHECK(std::get<1>(out) == std::array<bool, 3>{true, true, false});
    CHECK(std::get<2>(out).x == -3);
    CHECK(std::get<2>(out).y == 4);
}

TEST_CASE("plain.arrays") {
    using U = secure_uint<8>;
    const auto c = compile(
        [](std::array<U, 4> a, std::array<U, 4> b) {
            std::array<U, 4> r;
            for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] * b[3 - i];
            return r;
        },
        input<party::alice, std::array<U, 4>>, input<party::bob, std::array<U, 4>>);
    const auto r = c.eval_plain({1, 2, 3, 200}, {5, 6, 7, 8});
    CHECK(r == std::array<std::uint8_t, 4>{8, 14, 18, std::uint8_t(200 * 5)});
}

TEST_CASE("plain.resize_concat_bits") {
    using I = secure_int<8>;
    const auto c = compile(
        [](I a, I b) {
            secure_uint<8> m = a.as_unsigned();
            m.set_bit(7, b[0]);
            return std::tuple{a.resize<16>(), a.as_unsigned().resize<16>(), a.resize<4>(), concat(a, b), a[7],
                              m, to_uint(a[3]).resize<8>()};
        },
        input<party::alice, I>, input<party::bob, I>);
    for (int a = -128; a < 128; a += 7) {
        for (int b : {-128, -1, 0, 1, 77}) {
            const auto [s16, z16, t4, cat, top, m, bit3] = c.eval_plain(std::int8_t(a), std::int8_t(b));
            CHECK(s16 == a);
            CHECK(z16 == std::uint8_t(a));
            CHECK(t4 == static_cast<std::int8_t>((a & 0xF) >= 8 ? (a & 0xF) - 16 : (a & 0xF)));
            CHECK(cat == std::uint16_t(std::uint8_t(a) << 8 | std::uint8_t(b)));
            CHECK(top == (a < 0));
            CHECK(m == std::uint8_t((std::uint8_t(a) & 0x7F) | ((b & 1) << 7)));
            CHECK(bit3 == ((a >> 3) & 1));
        }
    }
}

// ---- 256-bit values against a small limb reference --------------------------
namespace {
using L = std::array<std::uint64_t, 4>;
L add(L a, L b) {
    L r{};
    uint128 c = 0;
    for (int i = 0; i < 4; ++i) {
        c += uint128{a[i]} + b[i];
        r[i] = static_cast<std::uint64_t>(c);
        c >>= 64;
    }
    return r;
}
L neg(L a) {
    for (auto& x : a) x = ~x;
    return add(a, L{1, 0, 0, 0});
}
L mul(L a, L b) {
    L r{};
    for (int i = 0; i < 4; ++i) {
        uint128 c = 0;
        for (int j = 0; i + j < 4; ++j) {
            c += uint128{a[i]} * b[j] + r[i + j];
            r[i + j] = static_cast<std::uint64_t>(c);
            c >>= 64;
        }
    }
    return r;
}
bool bit(const L& a, int i) { return (a[i / 64] >> (i % 64)) & 1u; }
L shl(const L& a, int k) {
    L r{};
    for (int i = 255; i >= k; --i)
        if (bit(a, i - k)) r[i / 64] |= std::uint64_t{1} << (i % 64);
    return r;
}
bool less(const L& a, const L& b, bool is_signed) {
    for (int i = 3; i >= 0; --i) {
        std::uint64_t x = a[i], y = b[i];
        if (is_signed && i == 3) x ^= std::uint64_t{1} << 63, y ^= std::uint64_t{1} << 63;
        if (x != y) return x < y;
    }
    return false;
}
L divide(const L& a, const L& b, L& rem) {
    L q{}, r{};
    for (int i = 255; i >= 0; --i) {
        r = shl(r, 1);
        r[0] |= bit(a, i) ? 1 : 0;
        if (!less(r, b, false)) {
            r = add(r, neg(b));
            q[i / 64] |= std::uint64_t{1} << (i % 64);
        }
    }
    rem = r;
    return q;
}
}  // namespace

TEST_CASE("plain.width_256") {
    using U = secure_uint<256>;
    const auto c = compile(
        [](U a, U b) { return std::tuple{a + b, a - b, a * b, a / b, a % b, a < b, a == b, a << 77, a >> 130}; },
        input<party::alice, U>, input<party::bob, U>);
    using S = secure_int<256>;
    const auto cs = compile([](S a, S b) { return std::tuple{a < b, a >> 200, -a}; }, input<party::alice, S>,
                            input<party::bob, S>);
    const std::uint64_t seed = 256256;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 300; ++t) {
        wide_uint<256> a, b;
        for (auto& x : a.limbs) x = rng();
        for (auto& x : b.limbs) x = rng();
        if (t % 3 == 1) b.limbs[3] = b.limbs[2] = 0;  // divisors of every size
        if (t % 5 == 2) b.limbs = {};                   // and zero
        if (t % 7 == 3) b = a;
        const auto [sum, diff, prod, q, r, lt, eq, sl, sr] = c.eval_plain(a, b);
        L rem;
        const L b_or_one = b.limbs;
        CHECK(sum.limbs == add(a.limbs, b.limbs));
        CHECK(diff.limbs == add(a.limbs, neg(b.limbs)));
        CHECK(prod.limbs == mul(a.limbs, b.limbs));
        if (b.limbs == L{}) {
            CHECK(q.limbs == L{~0ull, ~0ull, ~0ull, ~0ull});
            CHECK(r.limbs == a.limbs);
        } else {
            CHECK(q.limbs == divide(a.limbs, b_or_one, rem));
            CHECK(r.limbs == rem);
        }
        CHECK(lt == less(a.limbs, b.limbs, false));
        CHECK(eq == (a.limbs == b.limbs));
        CHECK(sl.limbs == shl(a.limbs, 77));
        L expect_sr{};
        for (int i = 0; i + 130 < 256; ++i)
            if (bit(a.limbs, i + 130)) expect_sr[i / 64] |= std::uint64_t{1} << (i % 64);
        CHECK(sr.limbs == expect_sr);

        wide_int<256> sa, sb;
        sa.limbs = a.limbs;
        sb.limbs = b.limbs;
        const auto [slt, ssr, sneg] = cs.eval_plain(sa, sb);
        CHECK(slt == less(a.limbs, b.limbs, true));
        L expect_ssr{};
        for (int i = 0; i < 256; ++i)
            if (bit(a.limbs, std::min(i + 200, 255))) expect_ssr[i / 64] |= std::uint64_t{1} << (i % 64);
        CHECK(ssr.limbs == expect_ssr);
        CHECK(sneg.limbs == neg(a.limbs));
    }
}

TEST_CASE("plain.untyped_bits") {
    using U = secure_uint<4>;
    const circuit<> c = compile([](U a, U b) { return std::tuple{a + b, a == b}; }, input<party::alice, U>,
                                input<party::bob, U>);
    const auto out = eval_plain_bits(c, {{true, false, true, false}, {true, true, false, false}});  // 5, 3
    REQUIRE(out.size() == 2);
    CHECK(out[0] == std::vector<bool>{false, false, false, true});  // 8
    CHECK(out[1] == std::vector<bool>{false});
    CHECK_THROWS_AS(eval_plain_bits(c, {{true}}), usage_error);
    CHECK_THROWS_AS(eval_plain_bits(c, {{true}, {false}}), usage_error);
}

TEST_CASE("plain.bits_and_mixed_operands") {
    using U = secure_uint<16>;
    using I = secure_int<16>;
    using A = secure_uint<3>;
    const auto c = compile(
        [](I x, A s) {
            const secure_bit neg = x < 0;
            const secure_bit big = x > 1000;
            return std::tuple{x << s, x >> s, x.as_unsigned() >> s, select(neg && !big, x, 0), 100 - x, 7 / x.as_unsigned(),
                              x % 3, neg || big, select(neg, big, !big), neg != big, 1000 < x};
        },
        input<party::alice, I>, input<party::bob, A>);
    for (int x : {-32768, -1001, -5, -1, 0, 1, 7, 999, 1001, 32767}) {
        for (unsigned s = 0; s < 8; ++s) {
            CAPTURE(x);
            CAPTURE(s);
            const auto [l, ra, rl, sel, sub, div, mod, either, mux, ne, gt] = c.eval_plain(std::int16_t(x), std::uint8_t(s));
            CHECK(l == std::int16_t(std::uint16_t(x) << s));
            CHECK(ra == std::int16_t(x >> s));
            CHECK(rl == std::uint16_t(std::uint16_t(x) >> s));
            CHECK(sel == (x < 0 ? x : 0));
            CHECK(sub == std::int16_t(100 - x));
            CHECK(div == (x == 0 ? 0xFFFF : 7 / std::uint16_t(x)));
            CHECK(mod == x % 3);
            CHECK(either == (x < 0 || x > 1000));
            CHECK(mux == (x < 0 ? x > 1000 : x <= 1000));
            CHECK(ne == ((x < 0) != (x > 1000)));
            CHECK(gt == (x > 1000));
        }
    }
    static_assert(std::is_same_v<decltype(std::declval<U>() + 1), U>);
}

TEST_CASE("plain.nested_arrays_and_bit_arrays") {
    using I = secure_int<8>;
    using grid = std::array<std::array<I, 2>, 3>;
    const auto c = compile(
        [](grid g, std::array<secure_bit, 3> flags) {
            std::array<I, 3> row_sums;
            for (std::size_t r = 0; r < 3; ++r) row_sums[r] = select(flags[r], g[r][0] + g[r][1], g[r][0] - g[r][1]);
            return std::tuple{row_sums, flags[0] ^ flags[1] ^ flags[2]};
        },
        input<party::alice, grid>, input<party::bob, std::array<secure_bit, 3>>);
    static_assert(std::is_same_v<plain_type_t<grid>, std::array<std::array<std::int8_t, 2>, 3>>);
    const auto [sums, parity] = c.eval_plain({{{1, 2}, {100, 100}, {-5, 7}}}, {true, true, false});
    CHECK(sums == std::array<std::int8_t, 3>{3, static_cast<std::int8_t>(200 - 256), -12});
    CHECK(parity == false);
}

TEST_CASE("plain.bare_secure_bit_result") {
    // A function returning one secure_bit: eval_plain gives a bool (its
    // batch is a std::vector<bool>, whose elements are no bool&).
    const auto c = tandem::compile([](tandem::secure_int<32> a, tandem::secure_int<32> b) { return a < b; },
                                   tandem::input<tandem::party::alice, tandem::secure_int<32>>,
                                   tandem::input<tandem::party::bob, tandem::secure_int<32>>);
    const bool lt = c.eval_plain(3, 5);
    CHECK(lt);
    CHECK_FALSE(c.eval_plain(5, 3));
    const std::vector<std::tuple<std::int32_t, std::int32_t>> sets{{1, 2}, {2, 1}, {-7, 0}, {0, 0}};
    CHECK(c.eval_plain_batch(sets) == std::vector<bool>{true, false, true, false});
}

}  // namespace plain_tests
