// Common subexpressions merged at lay-out (circuit/layout.hpp,
// merge_common_subexpressions): duplicates of every gate kind go, commuted
// operands too, chains collapse in one pass; results stay what plain C++
// computes; the same recording always lays out the same circuit (both
// parties, Bristol export and import); streamed runs, region bodies and
// garbled runs agree with plaintext.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace cse_tests {

using namespace tandem;
using namespace tandem::test;

namespace {

using detail::builder;
using detail::wire_ref;
using bits_t = std::vector<std::vector<bool>>;

/// A circuit recorded gate by gate: two 8-bit inputs (alice's a, bob's b),
/// the outputs `outs` (one bit each, one value), laid out as compile does.
template <class F>
circuit<> recorded(F&& f) {
    builder b;
    const wire_ref a = b.add_input_value(party::alice, 8);
    const wire_ref c = b.add_input_value(party::bob, 8);
    std::array<wire_ref, 8> x{}, y{};
    for (std::uint32_t k = 0; k < 8; ++k) x[k] = builder::input_bit(a, k), y[k] = builder::input_bit(c, k);
    const std::vector<wire_ref> outs = f(b, x, y);
    b.add_output_value(outs.data(), static_cast<std::uint32_t>(outs.size()));
    return circuit<>(detail::lay_out(std::move(b).take()));
}

std::vector<bool> bits_of(std::uint32_t v, int n) {
    std::vector<bool> r(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) r[static_cast<std::size_t>(k)] = ((v >> k) & 1u) != 0;
    return r;
}

/// Output bits of a recorded() circuit on a, b.
std::vector<bool> run(const circuit<>& c, std::uint32_t a, std::uint32_t b) {
    return eval_plain_bits(c, {bits_of(a, 8), bits_of(b, 8)})[0];
}

bool same_structure(const circuit_data& p, const circuit_data& q) {
    if (p.gates.size() != q.gates.size() || p.levels.size() != q.levels.size()) return false;
    for (std::size_t g = 0; g < p.gates.size(); ++g) {
        const gate& x = p.gates[g];
        const gate& y = q.gates[g];
        if (x.in0 != y.in0 || x.in1 != y.in1 || x.out != y.out || x.kind != y.kind) return false;
    }
    return p.output_slots == q.output_slots && p.slot_count == q.slot_count &&
           compute_fingerprint(p) == compute_fingerprint(q);
}

using u8 = secure_uint<8>;
using u16 = secure_uint<16>;
using u32 = secure_uint<32>;

}  // namespace

TEST_CASE("cse.duplicates_of_each_kind_merge") {
    // Each output computed twice, once with the operands swapped.
    const circuit<> c = recorded([](builder& b, auto& x, auto& y) {
        std::vector<wire_ref> o;
        for (std::size_t k = 0; k < 8; ++k) {
            o.push_back(b.and_(x[k], y[k]));
            o.push_back(b.and_(y[k], x[k]));
            o.push_back(b.xor_(x[k], y[(k + 1) % 8]));
            o.push_back(b.xor_(y[(k + 1) % 8], x[k]));
        }
        return o;
    });
    CHECK(c.stats().and_gates == 8);
    CHECK(c.stats().xor_gates == 8);
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
        std::mt19937 r(seed);
        const std::uint32_t a = r() & 0xFF, bv = r() & 0xFF;
        INFO("seed " << seed << ", a " << a << ", b " << bv);
        const std::vector<bool> got = run(c, a, bv);
        for (std::size_t k = 0; k < 8; ++k) {
            const bool xa = (a >> k) & 1u, yb = (bv >> k) & 1u, yn = (bv >> ((k + 1) % 8)) & 1u;
            CHECK(got[4 * k] == (xa && yb));
            CHECK(got[4 * k + 1] == (xa && yb));
            CHECK(got[4 * k + 2] == (xa != yn));
            CHECK(got[4 * k + 3] == (xa != yn));
        }
    }
}

TEST_CASE("cse.not_gates_of_merged_wires_merge") {
    // The builder keeps one NOT per wire; two wires that merge had one each.
    const circuit<> c = recorded([](builder& b, auto& x, auto& y) {
        const wire_ref p = b.xor_(x[0], y[0]), q = b.xor_(y[0], x[0]);
        // ~p and ~q are materialised as NOT gates by the ANDs and the outputs.
        return std::vector<wire_ref>{b.and_(~p, x[1]), b.and_(~q, y[1]), ~p, ~q};
    });
    CHECK(c.stats().xor_gates == 1);
    CHECK(c.stats().not_gates == 1);
    CHECK(c.stats().and_gates == 2);
    for (std::uint32_t a = 0; a < 4; ++a)
        for (std::uint32_t bv = 0; bv < 4; ++bv) {
            INFO("a " << a << ", b " << bv);
            const bool np = ((a ^ bv) & 1u) == 0;
            CHECK(run(c, a, bv) == std::vector<bool>{np && (a & 2u) != 0, np && (bv & 2u) != 0, np, np});
        }
}

TEST_CASE("cse.widely_read_operands_still_merge") {
    // Past 32 uses of both operands, the builder looks twins up in a hash
    // table, not on reader lists (builder::emit): a twin made before both
    // crossed (moved there when the second crosses) and one made after must
    // still merge, with the operands either way round.
    const circuit<> c = recorded([](builder& b, auto& x, auto& y) {
        const wire_ref p = b.xor_(x[0], x[1]), q = b.xor_(y[0], y[1]);
        std::vector<wire_ref> o{b.and_(p, q)};  // made while p and q have 1 use each
        std::vector<wire_ref> fan;
        for (std::size_t k = 0; k < 40; ++k) {  // 40 more uses each, all distinct gates
            const wire_ref r = b.xor_(x[2 + k % 6], y[2 + (k / 6) % 6]);
            fan.push_back(b.and_(p, r));
            fan.push_back(b.xor_(q, b.and_(r, x[7])));
        }
        o.push_back(b.and_(q, p));  // both now widely read: the hash table finds the first
        o.push_back(b.xor_(p, q));
        o.push_back(b.xor_(q, p));
        wire_ref acc = detail::false_ref;
        for (const wire_ref f : fan) acc = b.xor_(acc, f);
        o.push_back(acc);
        return o;
    });
    CHECK(c.data().output_slots[0] == c.data().output_slots[1]);
    CHECK(c.data().output_slots[2] == c.data().output_slots[3]);
    for (std::uint32_t a = 0; a < 256; a += 29)
        for (std::uint32_t bv = 0; bv < 256; bv += 31) {
            INFO("a " << a << ", b " << bv);
            const bool p = ((a ^ (a >> 1)) & 1u) != 0, q = ((bv ^ (bv >> 1)) & 1u) != 0;
            const std::vector<bool> got = run(c, a, bv);
            CHECK(got[0] == (p && q));
            CHECK(got[1] == (p && q));
            CHECK(got[2] == (p != q));
        }
}

TEST_CASE("cse.chains_of_duplicates_collapse") {
    // Two copies of a 64-gate chain (AND, XOR, NOT alternating), the second
    // with commuted operands: one pass over the record leaves one chain.
    const auto chain = [](builder& b, auto& x, auto& y, bool swap) {
        wire_ref v = x[0];
        for (std::size_t k = 0; k < 64; ++k) {
            const wire_ref w = k % 2 == 0 ? y[k % 8] : x[(k + 3) % 8];
            v = k % 3 == 0 ? (swap ? b.and_(w, v) : b.and_(v, w)) : (swap ? b.xor_(w, ~v) : b.xor_(~v, w));
        }
        return v;
    };
    const circuit<> one = recorded([&](builder& b, auto& x, auto& y) { return std::vector<wire_ref>{chain(b, x, y, false)}; });
    const circuit<> two = recorded([&](builder& b, auto& x, auto& y) {
        const wire_ref p = chain(b, x, y, false);
        const wire_ref q = chain(b, x, y, true);
        return std::vector<wire_ref>{p, q};
    });
    CHECK(two.stats().and_gates == one.stats().and_gates);
    CHECK(two.stats().xor_gates == one.stats().xor_gates);
    CHECK(two.stats().not_gates == one.stats().not_gates);
    CHECK(two.data().output_slots[0] == two.data().output_slots[1]);
    for (std::uint32_t a = 0; a < 256; a += 37)
        for (std::uint32_t bv = 0; bv < 256; bv += 23) {
            INFO("a " << a << ", b " << bv);
            const std::vector<bool> got = run(two, a, bv);
            CHECK(got[0] == run(one, a, bv)[0]);
            CHECK(got[1] == got[0]);
        }
}

TEST_CASE("cse.operands_that_become_one_wire_keep_their_gate") {
    // (x & y) ^ (y & x) is 0 and (x & y) & (y & x) is x & y, but once the two
    // ANDs merge the XOR and AND read one wire twice; they keep their
    // recorded operands (no constants are made at lay-out).
    const circuit<> c = recorded([](builder& b, auto& x, auto& y) {
        const wire_ref p = b.and_(x[0], y[0]), q = b.and_(y[0], x[0]);
        return std::vector<wire_ref>{b.xor_(p, q), b.and_(p, q), b.xor_(b.xor_(p, q), x[1])};
    });
    for (std::uint32_t a = 0; a < 4; ++a)
        for (std::uint32_t bv = 0; bv < 4; ++bv) {
            INFO("a " << a << ", b " << bv);
            const bool pq = (a & bv & 1u) != 0;
            CHECK(run(c, a, bv) == std::vector<bool>{false, pq, (a & 2u) != 0});
        }
}

TEST_CASE("cse.compiled_functions_equal_plain_cpp") {
    // a*b computed twice (once as b*a) and compared, plus shared subterms.
    const auto c = compile(
        [](u32 a, u32 b) {
            const u32 p = a * b, q = a * b, s = (a ^ b) + (a & b), t = (b & a) + (b ^ a);
            return std::tuple{p + q, p == q, s - t, (a < b) == (a < b)};
        },
        input<party::alice, u32>, input<party::bob, u32>);
    const auto once = compile([](u32 a, u32 b) { return (a * b) + (a * b); }, input<party::alice, u32>,
                              input<party::bob, u32>);
    const auto mul = compile([](u32 a, u32 b) { return a * b; }, input<party::alice, u32>, input<party::bob, u32>);
    const auto add = compile([](u32 a, u32 b) { return a + b; }, input<party::alice, u32>, input<party::bob, u32>);
    // The second product is the first (the builder merges it as it records),
    // so the sum adds p to itself, and its adder folds away: p + p is p << 1.
    CHECK(once.stats().and_gates == mul.stats().and_gates);
    CHECK(add.stats().and_gates > 0);
    const std::uint64_t seed = 20261124;
    std::mt19937_64 r(seed);
    for (int k = 0; k < 64; ++k) {
        const auto a = static_cast<std::uint32_t>(r()), b = static_cast<std::uint32_t>(k % 8 == 0 ? a : r());
        INFO("seed " << seed << ", a " << a << ", b " << b);
        const auto got = c.eval_plain(a, b);
        CHECK(std::get<0>(got) == static_cast<std::uint32_t>(2u * a * b));
        CHECK(std::get<1>(got));
        CHECK(std::get<2>(got) == 0u);
        CHECK(std::get<3>(got));
        CHECK(once.eval_plain(a, b) == static_cast<std::uint32_t>(2u * a * b));
    }
}

TEST_CASE("cse.deterministic_and_bristol_round_trip") {
    const auto f = [](u16 a, u16 b) {
        return std::tuple{a * b + b * a, (a & b) ^ (b & a) ^ a, a < b, ~(a | b)};
    };
    const auto c1 = compile(f, input<party::alice, u16>, input<party::bob, u16>);
    const auto c2 = compile(f, input<party::alice, u16>, input<party::bob, u16>);
    CHECK(same_structure(c1.data(), c2.data()));
    std::stringstream s1, s2;
    bristol::write(s1, c1);
    bristol::write(s2, c2);
    CHECK(s1.str() == s2.str());
    const circuit<> back = bristol::read(s1, "cse-round-trip");
    // What was merged stays merged: the import lays out the same gates.
    CHECK(back.stats().and_gates == c1.stats().and_gates);
    CHECK(back.stats().xor_gates == c1.stats().xor_gates);
    CHECK(back.stats().not_gates == c1.stats().not_gates);
    CHECK(back.stats().and_depth == c1.stats().and_depth);
    // The import records NOTs lazily and materialises them where the builder
    // does, so an export of the import numbers and orders gates otherwise;
    // the gates themselves stay, round trip after round trip.
    std::stringstream s3;
    bristol::write(s3, back);
    const circuit<> twice = bristol::read(s3, "cse-round-trip-2");
    CHECK(twice.stats().and_gates == c1.stats().and_gates);
    CHECK(twice.stats().xor_gates == c1.stats().xor_gates);
    CHECK(twice.stats().not_gates == c1.stats().not_gates);
    std::mt19937_64 r(7);
    for (int k = 0; k < 16; ++k) {
        const auto a = static_cast<std::uint16_t>(r()), b = static_cast<std::uint16_t>(r());
        INFO("seed 7, a " << a << ", b " << b);
        const std::vector<std::vector<bool>> in{bits_of(a, 16), bits_of(b, 16)};
        CHECK(eval_plain_bits(back, in) == eval_plain_bits(c1, in));
    }
}

TEST_CASE("cse.streamed_equals_compiled") {
    constexpr std::size_t n = 24;
    const auto body = [](const auto& xs, const auto& ys) {
        u16 acc = 0, again = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const u16 x = xs[i], y = ys[i];
            acc = acc + x * y;      // the same products twice, once commuted:
            again = again + y * x;  // merged where a segment holds both
        }
        return std::tuple{acc, again, acc == again};
    };
    const auto compiled = compile([&](const std::array<u16, n>& a, const std::array<u16, n>& b) { return body(a, b); },
                                  input<party::alice, std::array<u16, n>>, input<party::bob, std::array<u16, n>>);
    auto streamed = tandem::stream([&](const sequence<u16>& a, const sequence<u16>& b) { return body(a, b); },
                                   sequence_input<party::alice, u16>(n), sequence_input<party::bob, u16>(n));
    for (const std::uint64_t seed : {1u, 2u}) {
        std::mt19937_64 r(seed);
        std::array<std::uint16_t, n> a{}, b{};
        std::uint16_t expected = 0;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = static_cast<std::uint16_t>(r()), b[i] = static_cast<std::uint16_t>(r());
            expected = static_cast<std::uint16_t>(expected + std::uint32_t{a[i]} * b[i]);  // u16 · u16 is int: keep it unsigned
        }
        REQUIRE(compiled.eval_plain(a, b) == std::tuple{expected, expected, true});
        for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{300}, default_segment_ands}) {
            INFO("seed " << seed << ", segment_ands " << k);
            streamed.segment_ands = k;
            CHECK(streamed.eval_plain(a, b) == std::tuple{expected, expected, true});
            if (k == default_segment_ands) CHECK(streamed.last_run().and_gates == compiled.stats().and_gates);
        }
    }
}

TEST_CASE("cse.region_bodies") {
    // Each instance returns a product twice and a bitwise AND twice (once
    // commuted): bodies merge inside, instances still share one body, and
    // each output of the body still lands where the instance's wire map says.
    const auto body = [](bool twice) {
        return [twice](const std::array<u16, 6>& a, const std::array<u16, 6>& b) {
            return parallel_for<6>([&](std::size_t i) {
                const u16 p = a[i] * b[i], q = twice ? a[i] * b[i] : p;
                const u16 m = a[i] & b[i], n = twice ? b[i] & a[i] : m;
                return std::tuple{p, q, q + a[i], m, n};
            });
        };
    };
    const auto c = compile(body(true), input<party::alice, std::array<u16, 6>>, input<party::bob, std::array<u16, 6>>);
    const auto reference =
        compile(body(false), input<party::alice, std::array<u16, 6>>, input<party::bob, std::array<u16, 6>>);
    REQUIRE(c.stats().regions.size() == 1);
    CHECK(c.stats().regions[0].bodies == 1);
    CHECK(c.stats().regions[0].instances == 6);
    CHECK(c.stats().and_gates == reference.stats().and_gates);
    CHECK(c.stats().xor_gates == reference.stats().xor_gates);
    CHECK(c.stats().regions[0].stored_gates == reference.stats().regions[0].stored_gates);
    std::mt19937_64 r(99);
    for (int t = 0; t < 8; ++t) {
        std::array<std::uint16_t, 6> a{}, b{};
        for (std::size_t i = 0; i < 6; ++i) a[i] = static_cast<std::uint16_t>(r()), b[i] = static_cast<std::uint16_t>(r());
        INFO("seed 99, run " << t);
        const auto got = c.eval_plain(a, b);
        for (std::size_t i = 0; i < 6; ++i) {
            const auto p = static_cast<std::uint16_t>(std::uint32_t{a[i]} * b[i]);
            const auto row = std::tuple<std::uint16_t, std::uint16_t, std::uint16_t, std::uint16_t, std::uint16_t>(
                p, p, static_cast<std::uint16_t>(p + a[i]), static_cast<std::uint16_t>(a[i] & b[i]),
                static_cast<std::uint16_t>(a[i] & b[i]));
            CHECK(got[i] == row);
            CHECK(reference.eval_plain(a, b)[i] == row);
        }
    }
}

TEST_CASE("cse.garbled_run_equals_plaintext") {
    const auto c = compile(
        [](u32 a, u32 b) {
            const u32 p = a * b, q = b * a;
            return std::tuple{p ^ (q >> 3), (a + b) * (b + a)};
        },
        input<party::alice, u32>, input<party::bob, u32>);
    const auto alone = compile([](u32 a, u32 b) { return (a + b) * (b + a); }, input<party::alice, u32>,
                               input<party::bob, u32>);
    const auto mul = compile([](u32 a, u32 b) { return a * b; }, input<party::alice, u32>, input<party::bob, u32>);
    REQUIRE(c.stats().and_gates < alone.stats().and_gates + 2 * mul.stats().and_gates);  // CSE fired
    const std::uint32_t a = 0x9E3779B9u, b = 0x7F4A7C15u;
    const auto expected = c.eval_plain(a, b);
    std::tuple<std::uint32_t, std::uint32_t> got_a{}, got_b{};
    rethrow(two_party(make_wiring(0), with_threads(1), with_threads(1), [&](session& s) { got_a = s.run(c, a); },
                      [&](session& s) { got_b = s.run(c, b); }));
    CHECK(got_a == expected);
    CHECK(got_b == expected);
    CHECK(std::get<0>(expected) == ((a * b) ^ ((a * b) >> 3)));
    CHECK(std::get<1>(expected) == (a + b) * (a + b));
}

}  // namespace cse_tests
