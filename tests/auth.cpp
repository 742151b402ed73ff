// auth/: authenticated bits from SoftSpoken in both directions (every MAC
// checked against the peer's key and Δ), their checked opening, and cheating
// peers caught at each step — two parties in two threads over an in-memory
// channel pair.
#include <doctest/doctest.h>
#include <tandem/auth/bits.hpp>
#include <tandem/auth/garble.hpp>
#include <tandem/auth/triples.hpp>
#include <tandem/tandem.hpp>
#include <tandem/crypto/prg.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "hex_bits.hpp"
#include "laws.hpp"
#include "party_pair.hpp"
#include "random_inputs.hpp"
#include "tamper_channel.hpp"

namespace auth_tests {

using namespace tandem;
using test::run_pair;

namespace {

const block alice_delta = block(0x5a5a1234deadbeefULL, 0x0badf00d13572469ULL);  // lowest bit 1
const block bob_delta = block(0x1111222233334444ULL, 0x5555666677778888ULL);

/// Checks that both halves of n shared bits are authenticated: every MAC is
/// the peer's key ⊕ share·(peer's Δ).
void check_macs(const auth::shares& a, const auth::shares& b, block delta_a = alice_delta, block delta_b = bob_delta) {
    REQUIRE(a.size() == b.size());
    std::size_t wrong = 0, ones = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        wrong += !(a.mac[i] == (b.key[i] ^ (a.bit[i] ? delta_b : block())));
        wrong += !(b.mac[i] == (a.key[i] ^ (b.bit[i] ? delta_a : block())));
        ones += a.bit[i] + b.bit[i];
    }
    CHECK(wrong == 0);
    if (a.size() >= 1000) {  // random shares: about half are 1
        CHECK(ones > a.size() * 2 * 45 / 100);
        CHECK(ones < a.size() * 2 * 55 / 100);
    }
}

}  // namespace

TEST_CASE("auth.random_bits_are_authenticated_both_ways") {
    const std::vector<std::size_t> sizes{1, 127, 128, 1000, 70000};
    std::vector<auth::shares> a(sizes.size()), b(sizes.size());
    run_pair(
        [&](net::channel& ch) {
            prg rng(block(1, 30));
            auth::authenticator alice(ch, party::alice, alice_delta, rng);
            CHECK(alice.delta() == alice_delta);
            for (std::size_t k = 0; k < sizes.size(); ++k) alice.random(ch, sizes[k], a[k]);
        },
        [&](net::channel& ch) {
            prg rng(block(2, 30));
            auth::authenticator bob(ch, party::bob, bob_delta, rng);
            for (std::size_t k = 0; k < sizes.size(); ++k) bob.random(ch, sizes[k], b[k]);
        });
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        INFO("n = " << sizes[k]);
        check_macs(a[k], b[k]);
    }
}

TEST_CASE("auth.keys_must_suit_the_party") {
    prg rng(block(3, 30));
    auto [ca, cb] = net::memory_pair();
    CHECK_THROWS_AS(auth::authenticator(*ca, party::alice, block(7, 2), rng), usage_error);  // lowest bit 0
    CHECK_THROWS_AS(auth::authenticator(*cb, party::bob, block(), rng), usage_error);
}

namespace {

/// Opens the XOR of two batches of n random shared bits; `cheat` may alter
/// Bob's stream (called with his tampering channel just before the opening).
/// Returns both parties' opened values and the expected ones.
struct opened {
    std::vector<std::uint8_t> alice, bob, expected;
};
opened open_sums(std::size_t n, const std::function<void(test::tamper_channel&)>& cheat) {
    opened out;
    auth::shares a[3], b[3];
    out.alice.resize(n);
    out.bob.resize(n);
    run_pair(
        [&](net::channel& ch) {
            prg rng(block(4, 30));
            auth::authenticator alice(ch, party::alice, alice_delta, rng);
            alice.random(ch, n, a[0]);
            alice.random(ch, n, a[1]);
            auth::add(a[0], a[1], a[2]);
            alice.open(ch, a[2], out.alice, "a test opening");
        },
        [&](net::channel& ch) {
            test::tamper_channel bad(ch);
            prg rng(block(5, 30));
            auth::authenticator bob(bad, party::bob, bob_delta, rng);
            bob.random(bad, n, b[0]);
            bob.random(bad, n, b[1]);
            auth::add(b[0], b[1], b[2]);
            cheat(bad);
            bob.open(bad, b[2], out.bob, "a test opening");
            bad.flush();
        });
    out.expected.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.expected[i] = static_cast<std::uint8_t>(a[2].bit[i] ^ b[2].bit[i]);
    return out;
}

}  // namespace

TEST_CASE("auth.opening_gives_both_parties_the_value") {
    for (const std::size_t n : {1, 9, 5000}) {
        INFO("n = " << n);
        const opened o = open_sums(n, [](test::tamper_channel&) {});
        CHECK(o.alice == o.expected);
        CHECK(o.bob == o.expected);
    }
}

TEST_CASE("auth.random_combination_is_the_field_sum_and_catches_changes") {
    // Σ χ_i·x_i in GF(2^128), χ the seed's AES-CTR stream: the chunked,
    // vectorized sum equals one product at a time, across chunk borders; and
    // values off by multiples of a Δ give another sum, even two changes of Δ
    // (which an XOR of the values would cancel).
    prg rng(block(0, 71));
    const block seed = rng.next(), delta = rng.next();
    std::vector<block> x(2'500), chi, rows;
    rng.fill(x.data(), x.size());
    const auto combination = [&](const std::vector<block>& v) {
        return auth::random_combination(seed, v.size(), [&](std::size_t i) { return v[i]; }, chi, rows);
    };
    prg stream(seed);
    block expected{};
    for (const block& v : x) expected ^= gf128::multiply(stream.next(), v);
    CHECK(combination(x) == expected);
    std::vector<block> changed = x;
    changed[1'500] ^= delta;
    CHECK(combination(changed) != expected);
    changed[7] ^= delta;
    CHECK(combination(changed) != expected);
    CHECK(auth::random_combination(rng.next(), x.size(), [&](std::size_t i) { return x[i]; }, chi, rows) != expected);
}

TEST_CASE("auth.opening_catches_a_peer_that_shows_other_bits") {
    // Bob's opening: ⌈n/8⌉ bytes of bits, his 16-byte challenge seed, then
    // his 16-byte combination of MACs.
    const std::size_t n = 5000, bytes = (n + 7) / 8;
    struct cheat_case {
        const char* what;
        std::function<void(test::tamper_channel&)> tamper;
    };
    const std::vector<cheat_case> cheats{
        {"one flipped bit", [](test::tamper_channel& c) { c.flip_ahead(17, 0x04); }},
        {"two flipped bits (cancel in an XOR of MACs)",
         [](test::tamper_channel& c) { c.flip_ahead(3, 0x01), c.flip_ahead(400, 0x80); }},
        {"every bit flipped",
         [&](test::tamper_channel& c) {
             for (std::size_t k = 0; k < bytes; ++k) c.flip_ahead(k, 0xff);
         }},
        {"the combination", [&](test::tamper_channel& c) { c.flip_ahead(bytes + 16 + 7, 0x20); }},
    };
    for (const cheat_case& cheat : cheats) {
        INFO("cheat: " << cheat.what);
        CHECK_THROWS_WITH_AS(open_sums(n, cheat.tamper), doctest::Contains("a test opening"), security_error);
    }
    // A seed altered on its way: Alice then proves against another χ, and
    // Bob, the verifier of that proof, refuses it.
    CHECK_THROWS_WITH_AS(open_sums(n, [&](test::tamper_channel& c) { c.flip_ahead(bytes + 2, 0x10); }),
                         doctest::Contains("a test opening"), security_error);
}

}  // namespace auth_tests

// ---- AND triples (auth/triples.hpp) ----

namespace auth_tests {

namespace {

/// log2 of [030]'s bound on a bucketing failure: some bucket of B holds only
/// leaked triples, when the adversary attacks t of ℓ·B and survives each
/// check with probability 1/2: max_t 2^-t · ℓ · C(t,B) / C(ℓB,B).
double log2_bucket_failure(double outputs, double b) {
    auto log2_choose = [](double n, double k) {
        return (std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)) / std::log(2.0);
    };
    double worst = -1e9;
    for (double t = b; t <= std::min(outputs * b, b + 2000); ++t)
        worst = std::max(worst, -t + std::log2(outputs) + log2_choose(t, b) - log2_choose(outputs * b, b));
    return worst;
}

struct made {
    auth::triples a, b;
};

/// Both parties make `wanted` triples (after the maker's set-up); `cheat`
/// may alter the cheater's stream, called just before make() with the
/// offset at which that party's U blocks start.
made make_triples(std::size_t wanted, party cheater,
                  const std::function<void(test::tamper_channel&, std::uint64_t u_at)>& cheat = {},
                  std::uint64_t seed = 30) {
    made out;
    std::uint64_t random_bytes[2] = {0, 0};
    const std::size_t n = auth::triple_plan::for_request(wanted).leaky();
    // What each party sends for x, y and r (n random bits each): the same on
    // every run.
    auto measure = [&](party me, block delta) {
        return [&, me, delta](net::channel& ch) {
            prg rng(block(me == party::alice ? 1 : 2, seed));
            auth::authenticator auth(ch, me, delta, rng);
            auth::shares s;
            const auto before = ch.bytes_sent();
            for (int k = 0; k < 3; ++k) auth.random(ch, n, s);
            ch.flush();
            random_bytes[me == party::alice ? 0 : 1] = ch.bytes_sent() - before;
        };
    };
    run_pair(measure(party::alice, alice_delta), measure(party::bob, bob_delta));
    auto side = [&](party me, block delta, auth::triples& t) {
        return [&, me, delta](net::channel& ch) {
            test::tamper_channel tc(ch);
            prg rng(block(me == party::alice ? 3 : 4, seed));
            auth::authenticator auth(tc, me, delta, rng);
            auth::triple_maker maker(tc, auth, rng);
            if (me == cheater && cheat) cheat(tc, random_bytes[me == party::alice ? 0 : 1]);
            maker.make(tc, wanted, t);
            tc.flush();
        };
    };
    run_pair(side(party::alice, alice_delta, out.a), side(party::bob, bob_delta, out.b));
    return out;
}

/// Every triple multiplies (x·y = z on the opened bits) and every share's
/// MAC is right; about half of each opened bit is 1.
void check_triples(const auth::triples& a, const auth::triples& b, block delta_a = alice_delta,
                   block delta_b = bob_delta) {
    REQUIRE(a.size() == b.size());
    check_macs(a.x, b.x, delta_a, delta_b);
    check_macs(a.y, b.y, delta_a, delta_b);
    check_macs(a.z, b.z, delta_a, delta_b);
    std::size_t wrong = 0, ones = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const int x = a.x.bit[i] ^ b.x.bit[i], y = a.y.bit[i] ^ b.y.bit[i], z = a.z.bit[i] ^ b.z.bit[i];
        wrong += (x & y) != z;
        ones += x + y;
    }
    CHECK(wrong == 0);
    CHECK(ones > a.size() * 2 * 45 / 100);
    CHECK(ones < a.size() * 2 * 55 / 100);
}

}  // namespace

TEST_CASE("auth.silent_ot_makes_the_same_bits_and_triples") {
    // cot_extension::silent: Ferret both ways (the secure parameters); Bob's
    // Δ carries the silent COTs' choices in bit 1, so it must have it set.
    const block silent_bob_delta = bob_delta | block(0, 2);
    const std::vector<std::size_t> sizes{1, 1000, 70000};
    std::vector<auth::shares> a(sizes.size()), b(sizes.size());
    auth::triples ta, tb;
    auto side = [&](party me, block delta, std::vector<auth::shares>& bits, auth::triples& t) {
        return [&, me, delta](net::channel& ch) {
            prg rng(block(me == party::alice ? 1 : 2, 31));
            auth::authenticator auth(ch, me, delta, rng, cot_extension::silent);
            for (std::size_t k = 0; k < sizes.size(); ++k) auth.random(ch, sizes[k], bits[k]);
            auth::triple_maker maker(ch, auth, rng);
            maker.make(ch, 3'100, t);
        };
    };
    run_pair(side(party::alice, alice_delta, a, ta), side(party::bob, silent_bob_delta, b, tb));
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        INFO("n = " << sizes[k]);
        check_macs(a[k], b[k], alice_delta, silent_bob_delta);
    }
    check_triples(ta, tb, alice_delta, silent_bob_delta);
    // Bob's Δ without bit 1 cannot carry the choices.
    prg rng(block(3, 31));
    CHECK_THROWS_WITH_AS(run_pair([&](net::channel& ch) { auth::authenticator(ch, party::alice, alice_delta, rng, cot_extension::silent); },
                                  [&](net::channel& ch) {
                                      prg r2(block(4, 31));
                                      auth::authenticator(ch, party::bob, bob_delta, r2, cot_extension::silent);
                                  }),
                         doctest::Contains("Δ must have bit 1 set"), usage_error);
    // A sender that cheats in its GGM messages is caught by the silent OT's check.
    CHECK_THROWS_WITH_AS(run_pair(
                             [&](net::channel& ch) {
                                 test::tamper_channel bad(ch);
                                 prg r1(block(5, 31));
                                 auth::authenticator auth(bad, party::alice, alice_delta, r1, cot_extension::silent);
                                 bad.flip_ahead(2, 0x01);  // the first batch's level-1 sums, both sides
                                 bad.flip_ahead(18, 0x01);
                                 auth::shares s;
                                 auth.random(bad, 70'000, s);
                             },
                             [&](net::channel& ch) {
                                 prg r2(block(6, 31));
                                 auth::authenticator auth(ch, party::bob, silent_bob_delta, r2, cot_extension::silent);
                                 auth::shares s;
                                 auth.random(ch, 70'000, s);
                             }),
                         doctest::Contains("silent OT: the check of the sender's GGM trees failed"), security_error);
}

TEST_CASE("auth.bucket_sizes_meet_the_statistical_bound") {
    // Each size class meets 2^-40 from its smallest output count on, and the
    // class below would not have (the table is tight).
    CHECK(log2_bucket_failure(280'000, 3) <= -40);
    CHECK(log2_bucket_failure(280'000, 2) > -40);
    CHECK(log2_bucket_failure(3'100, 4) <= -40);
    CHECK(log2_bucket_failure(3'100, 3) > -40);
    CHECK(log2_bucket_failure(320, 5) <= -40);
    CHECK(log2_bucket_failure(320, 4) > -40);
    // Every plan is one of those, with at least the triples asked for, and
    // rounding up is taken where it costs fewer leaky triples.
    for (std::size_t wanted : {0, 1, 319, 320, 2'000, 2'480, 2'481, 3'099, 3'100, 100'000, 209'999, 210'001,
                               279'999, 280'000, 1'000'000}) {
        INFO("wanted = " << wanted);
        const auto plan = auth::triple_plan::for_request(wanted);
        CHECK(plan.outputs >= wanted);
        CHECK(plan.bucket == auth::triple_plan::bucket_for(plan.outputs));
        CHECK(log2_bucket_failure(static_cast<double>(plan.outputs), static_cast<double>(plan.bucket)) <= -40);
    }
    CHECK(auth::triple_plan::for_request(2'000).outputs == 2'000);   // 10,000 leaky < 12,400
    CHECK(auth::triple_plan::for_request(2'481).outputs == 3'100);   // 12,405 > 12,400
    CHECK(auth::triple_plan::for_request(250'000).outputs == 280'000);  // 1,000,000 > 840,000
    CHECK(auth::triple_plan::for_request(200'000).bucket == 4);
}

TEST_CASE("auth.and_triples_multiply_and_are_authenticated") {
    for (const std::size_t wanted : {1, 2'000, 3'100}) {
        INFO("wanted = " << wanted);
        const made m = make_triples(wanted, party::bob);
        CHECK(m.a.size() == auth::triple_plan::for_request(wanted).outputs);
        check_triples(m.a, m.b);
    }
}

TEST_CASE("auth.and_triples_catch_a_cheating_peer") {
    const std::size_t wanted = 320, n = auth::triple_plan::for_request(wanted).leaky(), u_bytes = 16 * n,
                      bits = (n + 7) / 8;
    REQUIRE(auth::triple_plan::for_request(wanted).bucket == 5);
    using cheat_fn = std::function<void(test::tamper_channel&, std::uint64_t)>;
    struct cheat {
        const char* what;
        party who;
        cheat_fn act;
        const char* step;
    };
    const cheat cheats[] = {
        // A wrong U in 64 triples: each passes only if the cheater guessed the
        // honest party's x-share there (1/2), so all pass with 2^-64.
        {"U blocks of 64 triples (Bob)", party::bob,
         [](test::tamper_channel& c, std::uint64_t u) {
             for (std::uint64_t k = 0; k < 64; ++k) c.flip_ahead(u + 16 * k + 5, 0x10);
         },
         auth::triple_maker::leaky_step},
        {"U blocks of 64 triples (Alice)", party::alice,
         [](test::tamper_channel& c, std::uint64_t u) {
             for (std::uint64_t k = 0; k < 64; ++k) c.flip_ahead(u + 16 * 25 * k + 15, 0x80);
         },
         auth::triple_maker::leaky_step},
        // A wrong lsb(S) bit: a wrong d, off by Δ_A ⊕ Δ_B in S'; always caught.
        {"one lsb(S) bit (Bob)", party::bob,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + 11, 0x02); },
         auth::triple_maker::leaky_step},
        {"one lsb(S) bit (Alice)", party::alice,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits - 1, 0x01); },
         auth::triple_maker::leaky_step},
        // F_EQ: Bob's digest, Alice's commitment to hers, her opening.
        {"F_EQ digest (Bob)", party::bob,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits + 3, 0x01); },
         auth::triple_maker::leaky_step},
        {"F_EQ commitment (Alice)", party::alice,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits + 31, 0x40); },
         auth::triple_maker::leaky_step},
        {"F_EQ opening, the nonce (Alice)", party::alice,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits + 32 + 32 + 4, 0x01); },
         auth::triple_maker::leaky_step},
        // The bucket coin toss: Alice's opening of her share.
        {"coin-toss opening (Alice)", party::alice,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits + 80 + 32 + 2, 0x08); },
         auth::triple_maker::toss_step},
        // The bucket openings d = y_1 ⊕ y_k: one bit, then the MAC combination.
        {"one bucket bit d (Bob)", party::bob,
         [&](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + u_bytes + bits + 32 + 16 + 9, 0x04); },
         auth::triple_maker::bucket_step},
        {"the bucket bits' MAC combination (Alice)", party::alice,
         [&](test::tamper_channel& c, std::uint64_t u) {
             c.flip_ahead(u + u_bytes + bits + 80 + 64 + (wanted * 4 + 7) / 8 + 16 + 1, 0x01);
         },
         auth::triple_maker::bucket_step},
    };
    for (const cheat& c : cheats) {
        INFO("cheat: " << std::string(c.what));
        CHECK_THROWS_WITH_AS(make_triples(wanted, c.who, c.act), doctest::Contains(c.step), security_error);
    }
}

TEST_CASE("auth.an_attacked_leaky_and_aborts_or_still_multiplies") {
    // One wrong U block: the run passes exactly when the cheater's error
    // meets an honest x-share of 0 (the leak F_LaAND allows, [030]), and then
    // every triple still multiplies. Over 12 triples both outcomes occur.
    std::size_t aborted = 0, passed = 0;
    for (std::uint64_t k = 0; k < 12; ++k) {
        INFO("attacked triple " << k);
        try {
            const made m = make_triples(
                320, party::bob, [k](test::tamper_channel& c, std::uint64_t u) { c.flip_ahead(u + 16 * k, 0x01); });
            check_triples(m.a, m.b);
            ++passed;
        } catch (const security_error& e) {
            CHECK(std::string(e.what()).find(auth::triple_maker::leaky_step) != std::string::npos);
            ++aborted;
        }
    }
    CHECK(aborted > 0);
    CHECK(passed > 0);
}

}  // namespace auth_tests

// ---- authenticated garbling of whole circuits (auth/garble.hpp) ----

namespace auth_tests {

namespace {

std::vector<std::uint8_t> flat_bits(const std::vector<std::vector<bool>>& values) {
    std::vector<std::uint8_t> out;
    for (const auto& v : values)
        for (const bool b : v) out.push_back(b);
    return out;
}

/// The bits of `who`'s input values, in circuit order.
std::vector<std::uint8_t> bits_of(const circuit<>& c, const std::vector<std::vector<bool>>& in, party who) {
    std::vector<std::uint8_t> out;
    for (std::size_t v = 0; v < c.inputs().size(); ++v)
        if (c.inputs()[v].owner == who)
            for (const bool b : in[v]) out.push_back(b);
    return out;
}

/// A small circuit with three inputs and two outputs, for the prepare tests.
circuit<> products_and_less() {
    using V = secure_uint<8>;
    return compile([](V a, V b, V x) { return std::tuple{a * b + x, a < b}; }, input<party::alice, V>,
                   input<party::bob, V>, input<party::alice, V>);
}

/// Each party's k-th output equals plaintext on sets[k].
void check_equal_plaintext(const circuit<>& c, const std::vector<std::vector<std::vector<bool>>>& sets,
                           const std::vector<std::vector<std::uint8_t>> (&got)[2]) {
    for (int p = 0; p < 2; ++p) {
        REQUIRE(got[p].size() == sets.size());
        for (std::size_t k = 0; k < sets.size(); ++k) {
            INFO("party " << p << ", execution " << k);
            CHECK(got[p][k] == flat_bits(eval_plain_bits(c, sets[k])));
        }
    }
}

std::size_t and_count(const circuit<>& c) {
    std::size_t n = 0;
    for (const gate& g : flatten(c).data().gates) n += g.kind == gate_kind::and_gate;
    return n;
}

struct garbled {
    std::vector<std::vector<std::uint8_t>> alice, bob;
    std::uint64_t pre[2] = {0, 0};  // the preprocessing's bytes, each party's (measured for a cheat)
};

using garble_cheat = std::function<void(test::tamper_channel&, std::uint64_t preprocessing_bytes)>;

/// Runs every input set through c in one session (one authenticator and
/// triple maker per party); `cheat` alters the cheater's stream of the
/// first run, given the bytes that party's random bits and triples take.
garbled garble_runs(const circuit<>& c, const std::vector<std::vector<std::vector<bool>>>& sets, party cheater = party::bob,
                    const garble_cheat& cheat = {}, std::uint64_t seed = 40, const std::uint64_t* known_pre = nullptr) {
    std::uint64_t pre[2] = {0, 0};
    if (known_pre) {
        pre[0] = known_pre[0];
        pre[1] = known_pre[1];
    } else if (cheat) {  // what each party sends in the first run's preprocessing
        const std::size_t ands = and_count(c), inputs = flatten(c).data().input_bits;
        auto measure = [&](party me, block delta) {
            return [&, me, delta](net::channel& ch) {
                prg rng(block(me == party::alice ? 1 : 2, seed));
                auth::authenticator auth(ch, me, delta, rng);
                auth::triple_maker maker(ch, auth, rng);
                auth::shares s;
                auth::triples t;
                const auto before = ch.bytes_sent();
                auth.random(ch, inputs, s);
                auth.random(ch, ands, s);
                maker.make(ch, ands, t);
                ch.flush();
                pre[me == party::alice ? 0 : 1] = ch.bytes_sent() - before;
            };
        };
        run_pair(measure(party::alice, alice_delta), measure(party::bob, bob_delta));
    }
    garbled out;
    auto side = [&](party me, block delta, std::vector<std::vector<std::uint8_t>>& results) {
        return [&, me, delta](net::channel& ch) {
            test::tamper_channel tc(ch);
            prg rng(block(me == party::alice ? 3 : 4, seed));
            auth::authenticator auth(tc, me, delta, rng);
            auth::triple_maker maker(tc, auth, rng);
            auth::garbler_evaluator ge(auth, maker, rng);
            for (std::size_t k = 0; k < sets.size(); ++k) {
                if (k == 0 && me == cheater && cheat) cheat(tc, pre[me == party::alice ? 0 : 1]);
                results.push_back(*ge.run(tc, c, bits_of(c, sets[k], me)));
            }
            tc.flush();
        };
    };
    run_pair(side(party::alice, alice_delta, out.alice), side(party::bob, bob_delta, out.bob));
    out.pre[0] = pre[0];
    out.pre[1] = pre[1];
    return out;
}

}  // namespace

TEST_CASE("auth.garbled_runs_equal_plaintext") {
    using U = laws::sint<32, false>;
    using V = secure_uint<8>;
    const std::vector<circuit<>> circuits{
        bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt"),
        compile(laws::all_ops<32, false>, input<party::alice, U>, input<party::bob, U>),
        compile([](V a, V b) { return std::tuple{a, V(9), ~b, a & b, a * b}; }, input<party::alice, V>,
                input<party::bob, V>),
    };
    for (std::size_t i = 0; i < circuits.size(); ++i) {
        const std::uint64_t seed = 50 + i;
        INFO("circuit " << i << ", seed " << seed);
        std::mt19937_64 rng(seed);
        std::vector<std::vector<std::vector<bool>>> sets;
        for (int k = 0; k < 3; ++k) sets.push_back(test::random_inputs(circuits[i], rng));
        const garbled g = garble_runs(circuits[i], sets);
        for (std::size_t k = 0; k < sets.size(); ++k) {
            const auto expected = flat_bits(eval_plain_bits(circuits[i], sets[k]));
            CHECK(g.alice[k] == expected);
            CHECK(g.bob[k] == expected);
        }
    }
}

TEST_CASE("auth.prepared_executions_equal_plaintext") {
    // prepare() in batches smaller than the request (7 executions in batches
    // of 4 and 3 at 3 executions' ANDs per batch), then run() each: every
    // execution equals plaintext and the tweaks stay apart across batches.
    const circuit<> c = products_and_less();
    const std::size_t ands = and_count(c);
    std::mt19937_64 rng(80);
    std::vector<std::vector<std::vector<bool>>> sets;
    for (int k = 0; k < 7; ++k) sets.push_back(test::random_inputs(c, rng));
    std::vector<std::vector<std::uint8_t>> got[2];
    std::size_t left[2][2] = {};
    std::vector<std::pair<std::uint64_t, std::uint64_t>> tweaks[2];  // each execution's (first, count)
    auto side = [&](party me, block delta) {
        return [&, me, delta](net::channel& ch) {
            const int p = me == party::alice ? 0 : 1;
            prg r(block(p + 5, 80));
            auth::authenticator auth(ch, me, delta, r);
            auth::triple_maker maker(ch, auth, r);
            auth::garbler_evaluator ge(auth, maker, r, 3 * ands);
            ge.prepare(ch, c, 7);
            left[p][0] = ge.prepared(c);
            for (const auto& set : sets) {
                got[p].push_back(*ge.run(ch, c, bits_of(c, set, me)));
                tweaks[p].emplace_back(ge.last_tweaks().first, ge.last_tweaks().count);
            }
            left[p][1] = ge.prepared(c);
        };
    };
    run_pair(side(party::alice, alice_delta), side(party::bob, bob_delta));
    for (int p = 0; p < 2; ++p) {
        CHECK(left[p][0] == 7);
        CHECK(left[p][1] == 0);
    }
    check_equal_plaintext(c, sets, got);
    // The tweaks: both parties garble each execution alike, each execution
    // takes two per AND, and no two executions share one.
    CHECK(tweaks[0] == tweaks[1]);
    REQUIRE(tweaks[0].size() == 7);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted = tweaks[0];
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        INFO("execution's tweaks from " << sorted[k].first << ", " << sorted[k].second << " of them");
        CHECK(sorted[k].second == 2 * ands);
        if (k > 0) CHECK(sorted[k].first >= sorted[k - 1].first + sorted[k - 1].second);
    }
}

TEST_CASE("auth.an_execution_larger_than_a_batch_equals_plaintext") {
    // An execution with more ANDs than a batch takes its triples in even
    // chunks (here 4 of about a quarter each), run alone and prepared.
    const circuit<> c = products_and_less();
    const std::size_t ands = and_count(c);
    REQUIRE(ands >= 16);
    std::mt19937_64 rng(81);
    std::vector<std::vector<std::vector<bool>>> sets;
    for (int k = 0; k < 3; ++k) sets.push_back(test::random_inputs(c, rng));
    std::vector<std::vector<std::uint8_t>> got[2];
    auto side = [&](party me, block delta) {
        return [&, me, delta](net::channel& ch) {
            const int p = me == party::alice ? 0 : 1;
            prg r(block(p + 5, 81));
            auth::authenticator auth(ch, me, delta, r);
            auth::triple_maker maker(ch, auth, r);
            auth::garbler_evaluator ge(auth, maker, r, ands / 4 + 1);
            got[p].push_back(*ge.run(ch, c, bits_of(c, sets[0], me)));
            ge.prepare(ch, c, 2);
            for (std::size_t k = 1; k < sets.size(); ++k) got[p].push_back(*ge.run(ch, c, bits_of(c, sets[k], me)));
        };
    };
    run_pair(side(party::alice, alice_delta), side(party::bob, bob_delta));
    check_equal_plaintext(c, sets, got);
}

TEST_CASE("auth.garbled_aes_meets_fips_197") {
    // FIPS-197 appendix B: key 2b7e1516…, plaintext 3243f6a8… → 3925841d…
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const std::vector<std::vector<bool>> in{bits_of_hex("2b7e151628aed2a6abf7158809cf4f3c"),
                                            bits_of_hex("3243f6a8885a308d313198a2e0370734")};
    const auto expected = flat_bits(eval_plain_bits(aes, in));
    const garbled g = garble_runs(aes, {in});
    CHECK(g.bob[0] == expected);
    CHECK(g.alice[0] == expected);
    CHECK(flat_bits({bits_of_hex("3925841d02dc09fbdc118597196a0b32")}) == expected);
}

TEST_CASE("auth.garbled_runs_catch_a_cheating_peer") {
    using V = secure_uint<16>;
    const circuit<> c = compile([](V a, V b) { return a * b + (a ^ b); }, input<party::alice, V>, input<party::bob, V>);
    const std::size_t ands = and_count(c), k_bits = (ands + 7) / 8, beaver_bits = (2 * ands + 7) / 8;
    REQUIRE(ands > 64);
    std::mt19937_64 rng(60);
    const std::vector<std::vector<std::vector<bool>>> sets{test::random_inputs(c, rng)};
    // Alice's stream: hash start 16, preprocessing, the Beaver opening
    // (bits, seed 16, combination 16), the tables (32 per AND) and colour
    // bits, her seed for Bob's input masks (16), her input masks' bits (2 B)
    // and combination (16), her inputs' Λ (2 B) and labels (16 each), the
    // labels of Bob's inputs (16 each), the AND-check combination (16), her
    // output masks' bits (2 B) and their MACs' digest (32).
    // Bob's: preprocessing, the Beaver opening, his input masks' bits (2 B)
    // and combination (16), his seed (16), his inputs' Λ (2 B), the ANDs' Λ
    // and his labels' combination (16), his output masks' bits and their MACs' digest.
    const auto alice_tables = [&](std::uint64_t pre) { return 16 + pre + beaver_bits + 32; };
    const auto alice_after_tables = [&](std::uint64_t pre) { return alice_tables(pre) + 32 * ands + k_bits; };
    const auto alice_check = [&](std::uint64_t pre) { return alice_after_tables(pre) + 16 + 2 + 16 + 2 + 16 * 32; };
    const auto bob_inputs = [&](std::uint64_t pre) { return pre + beaver_bits + 32; };
    const auto bob_check = [&](std::uint64_t pre) { return bob_inputs(pre) + 2 + 16 + 16 + 2; };
    struct cheat {
        const char* what;
        party who;
        garble_cheat act;
        const char* step;
    };
    using ge = auth::garbler_evaluator;
    const cheat cheats[] = {
        {"a Beaver bit (Bob)", party::bob, [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(pre + 3, 0x08); },
         ge::beaver_step},
        // Rows of 64 ANDs: each is used when its input's Λ is 1, so some are.
        {"garbled rows (Alice)", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) {
             for (std::uint64_t k = 0; k < 64; ++k) t.flip_ahead(alice_tables(pre) + 32 * k + 16 * (k % 2) + 7, 0x40);
         },
         ge::lambda_step},
        {"one colour bit (Alice)", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(alice_tables(pre) + 32 * ands + 1, 0x04); },
         ge::lambda_step},
        {"Alice's input mask shares, opened to Bob", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(alice_after_tables(pre) + 16, 0x01); },
         ge::input_step},
        {"a label of Bob's input (Alice)", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) {
             t.flip_ahead(alice_after_tables(pre) + 16 + 2 + 16 + 2 + 16 * 16 + 16 * 5 + 9, 0x10);
         },
         ge::lambda_step},
        {"Bob's input mask shares, opened to Alice", party::bob,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(bob_inputs(pre) + 1, 0x80); }, ge::input_step},
        {"a masked value Λ of an AND (Bob)", party::bob,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(bob_check(pre) + k_bits / 2, 0x02); },
         ge::lambda_step},
        {"the AND-check combination (Alice)", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(alice_check(pre) + 5, 0x01); },
         ge::and_check_step},
        {"an output mask share (Alice)", party::alice,
         [&](test::tamper_channel& t, std::uint64_t pre) { t.flip_ahead(alice_check(pre) + 16 + 1, 0x20); },
         ge::output_step},
        {"an output mask share (Bob)", party::bob,
         [&](test::tamper_channel& t, std::uint64_t pre) {
             t.flip_ahead(bob_check(pre) + k_bits + 16 + 1, 0x01);
         },
         ge::output_step},
    };
    for (const cheat& ch : cheats) {
        INFO("cheat: " << std::string(ch.what));
        CHECK_THROWS_WITH_AS(garble_runs(c, sets, ch.who, ch.act), doctest::Contains(ch.step), security_error);
    }
    // Untampered, the same harness runs (the offsets above are not vacuous).
    const garbled g = garble_runs(c, sets, party::bob, [](test::tamper_channel&, std::uint64_t) {});
    CHECK(g.bob[0] == flat_bits(eval_plain_bits(c, sets[0])));
}

TEST_CASE("auth.aborts_do_not_depend_on_the_honest_input") {
    // Selective failure: whether the honest party aborts under a deviation
    // must not depend on its input. Abort here depends on the masks (a row
    // is used when its input's masked value is 1; a U block matters when the
    // honest x-share is 1), so it is a coin flip per run — the same coin for
    // either input. Over the same seeds, the abort counts under two
    // different honest inputs must agree within sampling noise (an
    // input-dependent abort would give 0 against all of them).
    using V = secure_uint<8>;
    const circuit<> c = compile([](V a, V b) { return a * b; }, input<party::alice, V>, input<party::bob, V>);
    const std::size_t ands = and_count(c), k_bits = (ands + 7) / 8, beaver_bits = (2 * ands + 7) / 8;
    const auto byte = [](unsigned v) {
        std::vector<bool> b(8);
        for (unsigned i = 0; i < 8; ++i) b[i] = ((v >> i) & 1) != 0;
        return b;
    };
    using inputs = std::vector<std::vector<bool>>;
    const inputs bob_low{byte(0x5a), byte(0x00)}, bob_high{byte(0x5a), byte(0xff)};        // Bob's input differs
    const inputs alice_low{byte(0x00), byte(0x33)}, alice_high{byte(0xff), byte(0x33)};  // Alice's differs
    REQUIRE(16 * auth::triple_plan::for_request(ands).leaky() > 4000);  // p - 2000 below lies in U
    const garbled measured = garble_runs(c, {bob_low}, party::alice, [](test::tamper_channel&, std::uint64_t) {}, 70);
    struct deviation {
        const char* what;
        party cheater;
        garble_cheat act;
        std::vector<std::vector<bool>> honest_a, honest_b;
        bool always;  // caught whatever the masks
    };
    const deviation deviations[] = {
        // Both rows of AND 20 (a partial product a_i·b_j): the first is used
        // when Λ of one input is 1, the second when Λ of the other is.
        {"both rows of one garbled AND (Alice), Bob's input varies", party::alice,
         [&](test::tamper_channel& t, std::uint64_t p) {
             t.flip_ahead(16 + p + beaver_bits + 32 + 32 * 20 + 3, 0x10);
             t.flip_ahead(16 + p + beaver_bits + 32 + 32 * 20 + 16 + 9, 0x02);
         },
         bob_low, bob_high, false},
        {"a label of Bob's input (Alice), Bob's input varies", party::alice,
         [&](test::tamper_channel& t, std::uint64_t p) {
             t.flip_ahead(16 + p + beaver_bits + 32 + 32 * ands + k_bits + 16 + 1 + 16 + 1 + 16 * 8 + 16 * 2 + 4, 0x01);
         },
         bob_low, bob_high, true},
        {"a U block of the leaky ANDs (Bob), Alice's input varies", party::bob,
         [&](test::tamper_channel& t, std::uint64_t p) { t.flip_ahead(p - 2000, 0x20); }, alice_low, alice_high,
         false},
    };
    constexpr int seeds = 24;
    for (const deviation& d : deviations) {
        int aborts[2] = {0, 0};
        for (int which = 0; which < 2; ++which)
            for (std::uint64_t seed = 100; seed < 100 + seeds; ++seed) {
                INFO(d.what << ", honest input " << which << ", seed " << seed);
                try {
                    (void)garble_runs(c, {which == 0 ? d.honest_a : d.honest_b}, d.cheater, d.act, seed, measured.pre);
                } catch (const security_error&) {
                    ++aborts[which];
                }
            }
        MESSAGE(std::string(d.what) << ": aborts " << aborts[0] << " and " << aborts[1] << " of " << seeds);
        CHECK(std::abs(aborts[0] - aborts[1]) <= seeds / 3);
        if (d.always) {
            CHECK(aborts[0] == seeds);
            CHECK(aborts[1] == seeds);
        } else {  // a coin flip, not a constant: the statistic is not vacuous
            CHECK(aborts[0] > 0);
            CHECK(aborts[0] < seeds);
        }
    }
}

}  // namespace auth_tests
