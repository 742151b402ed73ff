// auth/: authenticated bits from SoftSpoken in both directions (every MAC
// checked against the peer's key and Δ), their checked opening, and cheating
// peers caught at each step — two parties in two threads over an in-memory
// channel pair.
#include <doctest/doctest.h>
#include <tandem/auth/bits.hpp>
#include <tandem/crypto/prg.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "party_pair.hpp"
#include "tamper_channel.hpp"

namespace auth_tests {

using namespace tandem;
using test::run_pair;

namespace {

const block alice_delta = block(0x5a5a1234deadbeefULL, 0x0badf00d13572469ULL);  // lowest bit 1
const block bob_delta = block(0x1111222233334444ULL, 0x5555666677778888ULL);

/// Checks that both halves of n shared bits are authenticated: every MAC is
/// the peer's key ⊕ share·(peer's Δ).
void check_macs(const auth::shares& a, const auth::shares& b) {
    REQUIRE(a.size() == b.size());
    std::size_t wrong = 0, ones = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        wrong += !(a.mac[i] == (b.key[i] ^ (a.bit[i] ? bob_delta : block())));
        wrong += !(b.mac[i] == (a.key[i] ^ (b.bit[i] ? alice_delta : block())));
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

TEST_CASE("auth.opening_catches_a_peer_that_shows_other_bits") {
    // Bob's opening: ⌈n/8⌉ bytes of bits, his 16-byte challenge seed, then
    // his 16-byte combination of MACs.
    const std::size_t n = 5000, bytes = (n + 7) / 8;
    auto message = [](const char* what, std::function<void(test::tamper_channel&)> f) { return std::pair{what, f}; };
    for (const auto& cheat : {
             message("one flipped bit", [](test::tamper_channel& c) { c.flip_ahead(17, 0x04); }),
             message("two flipped bits (cancel in an XOR of MACs)",
                     [](test::tamper_channel& c) { c.flip_ahead(3, 0x01), c.flip_ahead(400, 0x80); }),
             message("every bit flipped",
                     [&](test::tamper_channel& c) {
                         for (std::size_t k = 0; k < bytes; ++k) c.flip_ahead(k, 0xff);
                     }),
             message("the combination", [&](test::tamper_channel& c) { c.flip_ahead(bytes + 16 + 7, 0x20); }),
         }) {
        INFO("cheat: " << cheat.first);
        CHECK_THROWS_WITH_AS(open_sums(n, cheat.second), doctest::Contains("a test opening"), security_error);
    }
    // A seed altered on its way: Alice then proves against another χ, and
    // Bob, the verifier of that proof, refuses it.
    CHECK_THROWS_WITH_AS(open_sums(n, [&](test::tamper_channel& c) { c.flip_ahead(bytes + 2, 0x10); }),
                         doctest::Contains("a test opening"), security_error);
}

}  // namespace auth_tests
