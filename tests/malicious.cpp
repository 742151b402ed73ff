// Sessions with session_options::security = security::malicious (authenticated
// garbling, auth/garble.hpp) between two threads over in-memory links: typed,
// untyped and batched runs equal plaintext mode for every choice of who
// learns the output, prepared ahead or not, over plain or sealed links; the
// handshake refuses a peer of the other mode; the settings malicious mode
// does not run yet, and plain links not asked for, are refused before
// anything is sent; and a link altered at any byte of a run never yields a
// wrong output.
#include "exception_text.hpp"
#include "hex_bits.hpp"
#include "laws.hpp"
#include "memory_sessions.hpp"
#include "random_inputs.hpp"
#include "tamper_channel.hpp"

#include <tandem/circuit/bristol.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/session.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace malicious_tests {

using namespace tandem;
using namespace std::chrono_literals;

namespace {

session_options malicious_options(std::uint64_t seed = 0) {
    session_options o;
    o.security = security::malicious;
    o.allow_plain_links = true;  // the tests alter the protocol's own bytes (sealed links: malicious.sealed_links)
    o.timeout = 10s;
    if (seed) o.insecure_seed = seed;
    return o;
}

/// Runs alice and bob in two sessions of the given options over memory links.
test::outcome pair_of(const session_options& a, const session_options& b, const std::function<void(session&)>& alice,
                      const std::function<void(session&)>& bob) {
    return test::two_party(test::make_wiring(0), a, b, alice, bob);
}

using V = secure_int<16>;
auto products() {
    return compile([](V a, V b, V c) { return std::tuple{a * b + c, a < b}; }, input<party::alice, V>,
                   input<party::bob, V>, input<party::alice, V>);
}

/// Whether e holds a security_error or a protocol_error: a failure the
/// protocol named, not only the link closing after one.
bool named_failure(const std::exception_ptr& e) {
    try {
        if (e) std::rethrow_exception(e);
    } catch (const security_error&) {
        return true;
    } catch (const protocol_error&) {
        return true;
    } catch (...) {
    }
    return false;
}

}  // namespace

TEST_CASE("malicious.runs_equal_plaintext_for_whoever_learns") {
    const auto c = products();
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const std::vector<std::vector<bool>> aes_in{bits_of_hex("2b7e151628aed2a6abf7158809cf4f3c"),
                                                bits_of_hex("3243f6a8885a308d313198a2e0370734")};
    const std::vector<std::int16_t> alice_a{-300, 7, 32767}, alice_c{5, -9, 1}, bob_b{12, -4, 2};
    std::optional<std::tuple<std::int16_t, bool>> a_got[3], b_got[3];
    std::vector<std::vector<bool>> a_aes, b_aes;
    std::vector<std::tuple<std::int16_t, bool>> a_batch, b_batch;
    run_stats a_stats{}, b_stats{};
    test::rethrow(pair_of(
        malicious_options(), malicious_options(),
        [&](session& s) {
            a_got[0] = s.run(reveal::both, c, alice_a[0], alice_c[0]);
            a_got[1] = s.run(reveal::alice, c, alice_a[1], alice_c[1]);
            a_got[2] = s.run(reveal::bob, c, alice_a[2], alice_c[2]);
            a_aes = s.run_bits(aes, {aes_in[0]});
            a_stats = s.last_run();
            a_batch = s.run_batch(c, std::vector<std::tuple<std::int16_t, std::int16_t>>{
                                         {alice_a[0], alice_c[0]}, {alice_a[1], alice_c[1]}, {alice_a[2], alice_c[2]}});
        },
        [&](session& s) {
            for (int k = 0; k < 3; ++k) b_got[k] = s.run(k == 0 ? reveal::both : k == 1 ? reveal::alice : reveal::bob, c, bob_b[k]);
            b_aes = s.run_bits(aes, {aes_in[1]});
            b_stats = s.last_run();
            b_batch = s.run_batch(c, bob_b);
        }));
    std::vector<std::tuple<std::int16_t, bool>> expected;
    for (int k = 0; k < 3; ++k) expected.push_back(c.eval_plain(alice_a[k], bob_b[k], alice_c[k]));
    CHECK(a_got[0] == expected[0]);
    CHECK(b_got[0] == expected[0]);
    CHECK(a_got[1] == expected[1]);
    CHECK_FALSE(b_got[1].has_value());
    CHECK_FALSE(a_got[2].has_value());
    CHECK(b_got[2] == expected[2]);
    CHECK(a_batch == expected);
    CHECK(b_batch == expected);
    // FIPS-197 appendix B.
    CHECK(a_aes == std::vector<std::vector<bool>>{bits_of_hex("3925841d02dc09fbdc118597196a0b32")});
    CHECK(b_aes == a_aes);
    // The AES run's report: its ANDs, its bytes split into the three phases.
    for (const run_stats* r : {&a_stats, &b_stats}) {
        CHECK(r->and_gates == 6400);
        CHECK(r->independent.bytes_sent > r->dependent.bytes_sent);  // triples dominate
        CHECK(r->online.bytes_sent > 0);
        CHECK(r->independent.bytes_sent + r->dependent.bytes_sent + r->online.bytes_sent <= r->bytes_sent);
        CHECK(r->independent.seconds + r->dependent.seconds + r->online.seconds <= r->seconds);
    }
    CHECK(a_stats.dependent.bytes_sent >= 32 * 6400);  // Alice's tables
    CHECK(a_stats.bytes_sent == b_stats.bytes_received);
}

TEST_CASE("malicious.prepared_runs_equal_plaintext") {
    // prepare() ahead, run() on inputs later: each prepared run equals
    // plaintext, does only the online phase and uses up one preparation; a
    // run of another circuit in between prepares its own; a run with none
    // left prepares one itself.
    const auto c = products();
    const auto other = compile([](V a, V b) { return a - b; }, input<party::alice, V>, input<party::bob, V>);
    const std::vector<std::int16_t> alice_a{-300, 7, 32767, 11}, alice_c{5, -9, 1, 0}, bob_b{12, -4, 2, 99};
    const reveal reveals[4] = {reveal::both, reveal::alice, reveal::bob, reveal::both};
    std::optional<std::tuple<std::int16_t, bool>> a_got[4], b_got[4];
    std::int16_t a_other = 0, b_other = 0;
    run_stats prepared_stats[2], online_stats[2], unprepared_stats[2];
    std::size_t left[2][3] = {};
    const std::uint64_t ands = c.stats().and_gates;
    auto side = [&](party me) {
        return [&, me](session& s) {
            const int p = me == party::alice ? 0 : 1;
            s.prepare(c, 3);
            prepared_stats[p] = s.last_run();
            left[p][0] = s.prepared(c);
            const std::int16_t o = me == party::alice ? *s.run(reveal::both, other, std::int16_t{500})
                                                      : *s.run(reveal::both, other, std::int16_t{-20});
            (me == party::alice ? a_other : b_other) = o;
            left[p][1] = s.prepared(c);
            for (int k = 0; k < 4; ++k) {
                auto& got = me == party::alice ? a_got[k] : b_got[k];
                got = me == party::alice ? s.run(reveals[k], c, alice_a[k], alice_c[k]) : s.run(reveals[k], c, bob_b[k]);
                if (k == 0) online_stats[p] = s.last_run();
                if (k == 3) unprepared_stats[p] = s.last_run();
            }
            left[p][2] = s.prepared(c);
        };
    };
    test::rethrow(pair_of(malicious_options(), malicious_options(), side(party::alice), side(party::bob)));
    for (int k = 0; k < 4; ++k) {
        INFO("run " << k);
        const auto expected = c.eval_plain(alice_a[k], bob_b[k], alice_c[k]);
        if (reveals[k] != reveal::bob) CHECK(a_got[k] == expected);
        else CHECK_FALSE(a_got[k].has_value());
        if (reveals[k] != reveal::alice) CHECK(b_got[k] == expected);
        else CHECK_FALSE(b_got[k].has_value());
    }
    CHECK(a_other == 520);
    CHECK(b_other == 520);
    for (int p = 0; p < 2; ++p) {
        INFO("party " << p);
        CHECK(left[p][0] == 3);
        CHECK(left[p][1] == 3);
        CHECK(left[p][2] == 0);
        // The preparation: all three executions' ANDs, both preprocessing phases, no online one.
        CHECK(prepared_stats[p].and_gates == 3 * ands);
        CHECK(prepared_stats[p].independent.bytes_sent > 0);
        CHECK(prepared_stats[p].dependent.bytes_sent > 0);
        CHECK(prepared_stats[p].online.bytes_sent == 0);
        // A prepared run: the online phase alone, a small part of the whole.
        CHECK(online_stats[p].and_gates == ands);
        CHECK(online_stats[p].independent.bytes_sent == 0);
        CHECK(online_stats[p].dependent.bytes_sent == 0);
        CHECK(online_stats[p].online.bytes_sent > 0);
        CHECK(online_stats[p].bytes_sent * 10 < prepared_stats[p].bytes_sent / 3);
        // The fourth run found none prepared: all three phases.
        CHECK(unprepared_stats[p].independent.bytes_sent > 0);
        CHECK(unprepared_stats[p].online.bytes_sent == online_stats[p].online.bytes_sent);
    }
}

TEST_CASE("malicious.prepare_calls_must_match") {
    const auto c = products();
    struct mismatch {
        const char* what;
        std::function<void(session&)> alice, bob;
        const char* says;
    };
    const mismatch cases[] = {
        {"different counts", [&](session& s) { s.prepare(c, 2); }, [&](session& s) { s.prepare(c, 3); },
         "with the same count"},
        {"prepare against run", [&](session& s) { s.prepare(c, 1); },
         [&](session& s) { (void)s.run(c, std::int16_t{1}); }, "where the peer called"},
    };
    for (const mismatch& m : cases) {
        INFO(m.what);
        const test::outcome o = pair_of(malicious_options(), malicious_options(), m.alice, m.bob);
        for (auto e : {o.alice, o.bob}) {
            CHECK_THROWS_AS(std::rethrow_exception(e), protocol_error);
            CHECK(message_of(e).find(m.says) != std::string::npos);
        }
    }
    // A semi-honest session refuses prepare() before sending anything and stays usable.
    session_options semi;
    semi.timeout = 10s;
    std::optional<std::tuple<std::int16_t, bool>> got;
    test::rethrow(pair_of(
        semi, semi,
        [&](session& s) {
            CHECK(error_of([&] { s.prepare(c, 2); }).find("security::malicious") != std::string::npos);
            CHECK(s.prepared(c) == 0);
            got = s.run(c, std::int16_t{3}, std::int16_t{4});
        },
        [&](session& s) {
            CHECK_THROWS_AS(s.prepare(c, 2), usage_error);
            (void)s.run(c, std::int16_t{5});
        }));
    CHECK(got == std::tuple<std::int16_t, bool>{19, true});
}

TEST_CASE("malicious.sealed_links") {
    // The default a user gets: malicious sessions over encrypted,
    // authenticated links (a pre-shared key here), equal to plaintext; and a
    // peer with another key is a security_error before any input is used.
    const auto c = products();
    const auto key = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    const auto other = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    session_options oa, ob;
    oa.security = ob.security = security::malicious;
    oa.timeout = ob.timeout = 10s;
    oa.encrypt_links = ob.encrypt_links = key;
    std::optional<std::tuple<std::int16_t, bool>> a_got, b_got;
    test::rethrow(pair_of(
        oa, ob,
        [&](session& s) {
            CHECK(s.channel().name().find("Noise") != std::string::npos);
            a_got = s.run(c, std::int16_t{-21}, std::int16_t{8});
        },
        [&](session& s) { b_got = s.run(c, std::int16_t{6}); }));
    CHECK(a_got == c.eval_plain(std::int16_t{-21}, std::int16_t{6}, std::int16_t{8}));
    CHECK(b_got == a_got);
    ob.encrypt_links = other;
    const test::outcome o = pair_of(oa, ob, [&](session& s) { (void)s.run(c, std::int16_t{1}, std::int16_t{2}); },
                                    [&](session& s) { (void)s.run(c, std::int16_t{3}); });
    CHECK_THROWS_AS(std::rethrow_exception(o.alice), security_error);
    CHECK_THROWS_AS(std::rethrow_exception(o.bob), security_error);
}

TEST_CASE("malicious.handshake_refuses_a_semi_honest_peer") {
    session_options semi;
    semi.timeout = 10s;
    const test::outcome o = pair_of(malicious_options(), semi, [](session&) {}, [](session&) {});
    for (auto e : {o.alice, o.bob}) {
        CHECK_THROWS_AS(std::rethrow_exception(e), protocol_error);
        CHECK(message_of(e).find("session_options::security") != std::string::npos);
    }
    CHECK(message_of(o.alice).find("this party runs malicious security and the peer semi-honest") != std::string::npos);
}

TEST_CASE("malicious.settings_it_does_not_run_are_refused") {
    session_options threads = malicious_options();
    threads.threads = 2;
    session_options ipp = malicious_options();
    ipp.ipp = true;
    session_options unsealed = malicious_options();
    unsealed.allow_plain_links = false;
    for (const session_options& o : {threads, ipp, unsealed}) {
        auto [a, b] = net::memory_pair();
        CHECK_THROWS_AS(session(party::alice, std::move(a), o, [] { return std::unique_ptr<net::channel>(); }),
                        usage_error);
    }
    {
        auto ends = net::memory_pair();  // (Clang 14 cannot capture structured bindings)
        const std::string why = error_of([&] { session(party::bob, std::move(ends.second), unsealed); });
        CHECK(why.find("session_options::encrypt_links") != std::string::npos);
        CHECK(why.find("allow_plain_links") != std::string::npos);
    }
    // A streamed run is refused before anything is sent: the session stays usable.
    const auto c = products();
    std::optional<std::tuple<std::int16_t, bool>> got;
    auto streamed = [](session& s, bool alice) {
        auto fn = stream(
            [](const sequence<secure_uint<8>>& xs) {
                secure_uint<8> sum = 0;
                for (std::size_t i = 0; i < xs.size(); ++i) sum = sum + xs[i];
                return sum;
            },
            sequence_input<party::alice, secure_uint<8>>(4));
        if (alice)
            CHECK(error_of([&] { (void)s.run(fn, std::vector<std::uint8_t>{1, 2, 3, 4}); }).find("security::malicious") !=
                  std::string::npos);
        else
            CHECK(error_of([&] { (void)s.run(fn); }).find("security::malicious") != std::string::npos);
    };
    test::rethrow(pair_of(
        malicious_options(), malicious_options(),
        [&](session& s) {
            streamed(s, true);
            got = s.run(c, std::int16_t{3}, std::int16_t{4});
        },
        [&](session& s) {
            streamed(s, false);
            (void)s.run(c, std::int16_t{5});
        }));
    CHECK(got == std::tuple<std::int16_t, bool>{19, true});
}

TEST_CASE("malicious.an_altered_link_never_gives_a_wrong_output") {
    // A byte of one party's stream flipped anywhere in a run — a table row, a
    // share, a MAC combination, a masked value, a header — must end the run
    // with security_error or protocol_error at a party (the other may then
    // only see the link close), or have no effect: a party that returns,
    // returns the right value. Offsets spread over the whole run, both ways.
    const auto c = products();
    const std::int16_t a = 1234, b = -77, cc = 3;
    const auto expected = c.eval_plain(a, b, cc);
    std::uint64_t length[2] = {0, 0};
    test::rethrow(pair_of(
        malicious_options(1), malicious_options(2),
        [&](session& s) {
            (void)s.run(c, a, cc);
            length[0] = s.last_run().bytes_sent;
        },
        [&](session& s) {
            (void)s.run(c, b);
            length[1] = s.last_run().bytes_sent;
        }));
    REQUIRE(length[0] > 10'000);
    constexpr int probes = 20;
    int caught = 0, harmless = 0;
    for (const party cheater : {party::alice, party::bob}) {
        const std::uint64_t n = length[cheater == party::alice ? 0 : 1];
        for (int k = 0; k < probes; ++k) {
            const std::uint64_t offset = n * static_cast<std::uint64_t>(k) / probes + static_cast<std::uint64_t>(k % 7);
            const auto mask = static_cast<std::uint8_t>(1u << (k % 8));
            INFO("cheater " << to_string(cheater) << ", byte " << offset << " of " << n << ", mask " << int(mask));
            auto [ea, eb] = net::memory_pair();
            ea->set_timeout(5s);
            eb->set_timeout(5s);
            auto ta = std::make_unique<test::tamper_channel>(*ea);
            auto tb = std::make_unique<test::tamper_channel>(*eb);
            test::tamper_channel* t = cheater == party::alice ? ta.get() : tb.get();
            test::wiring w;
            w.main_a = std::move(ta);
            w.main_b = std::move(tb);
            std::optional<std::tuple<std::int16_t, bool>> got[2];
            const auto flip_then = [&](session&) { t->flip_ahead(offset, mask); };
            const test::outcome o = test::two_party(
                std::move(w), malicious_options(1), malicious_options(2),
                [&](session& s) {
                    if (cheater == party::alice) flip_then(s);
                    got[0] = s.run(c, a, cc);
                },
                [&](session& s) {
                    if (cheater == party::bob) flip_then(s);
                    got[1] = s.run(c, b);
                });
            for (int p = 0; p < 2; ++p) {
                const std::exception_ptr e = p == 0 ? o.alice : o.bob;
                if (!e) {
                    REQUIRE(got[p].has_value());
                    CHECK(*got[p] == expected);
                    continue;
                }
                try {
                    std::rethrow_exception(e);
                } catch (const security_error&) {
                } catch (const protocol_error&) {
                } catch (const network_error&) {
                    CHECK_MESSAGE((p == 0 ? o.bob : o.alice) != nullptr, "a network_error with no cause at the peer");
                }
            }
            if (o.alice || o.bob) {
                const bool named = named_failure(o.alice) || named_failure(o.bob);
                CHECK_MESSAGE(named, "a run failed with neither a security_error nor a protocol_error: "
                                         << message_of(o.alice) << " / " << message_of(o.bob));
                ++caught;
            } else {
                ++harmless;
            }
        }
    }
    // Most single flips are caught. Those that are not hit a U block of the
    // leaky AND where the honest party's x-share is 0 (KRRW18 lets the
    // cheater learn that bit — that is the leak bucketing absorbs; about a
    // third of the stream is U, and half its flips pass), or a table row
    // whose input's masked value is 0 (the evaluator does not use it).
    CHECK(caught >= probes);
    MESSAGE("caught " << caught << ", harmless " << harmless);
}

}  // namespace malicious_tests
