// TLS 1.3 links with X.509 certificates (net/tls.hpp): bytes carried
// unchanged, whole sessions over TLS on every link, and every certificate
// that should not pass — another CA's, a pinned one that differs, a wrong
// name, none at all — and every altered byte ending in the error its cause
// calls for. The certificates are tests/data/tls/ (make-certs.sh).
#include "exception_text.hpp"
#include "memory_sessions.hpp"
#include "tamper_channel.hpp"
#include "wire_checks.hpp"

#include <tandem/net/memory.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/net/tls.hpp>
#include <tandem/tandem.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tls_tests {

using namespace tandem;
using namespace std::chrono_literals;
using bytes = std::vector<std::uint8_t>;

std::string file(const std::string& name) { return TANDEM_DATA_DIR "/tls/" + name; }

/// `name`'s certificate and key, checking the peer against the test CA.
net::tls_credentials under_ca(const std::string& name) {
    net::tls_credentials c;
    c.certificate = file(name + ".pem");
    c.private_key = file(name + ".key");
    c.ca = file("tandem-test-ca.pem");
    return c;
}
/// `name`'s certificate and key, pinning `peer`'s certificate.
net::tls_credentials pinning(const std::string& name, const std::string& peer) {
    net::tls_credentials c;
    c.certificate = file(name + ".pem");
    c.private_key = file(name + ".key");
    c.peer_certificate = file(peer + ".pem");
    return c;
}

struct linked {
    std::unique_ptr<net::channel> alice, bob;
    std::exception_ptr alice_error, bob_error;
};

/// Runs the TLS handshake on both ends at once (Bob the client).
linked handshake(std::unique_ptr<net::channel> a, std::unique_ptr<net::channel> b, const net::tls_credentials& ca,
                 const net::tls_credentials& cb) {
    linked out;
    a->set_timeout(test::honest_deadline(10s));
    b->set_timeout(test::honest_deadline(10s));
    std::thread tb([&] {
        try {
            out.bob = net::tls_link(std::move(b), net::tls_context(cb), true);
        } catch (...) {
            out.bob_error = std::current_exception();
        }
    });
    try {
        out.alice = net::tls_link(std::move(a), net::tls_context(ca), false);
    } catch (...) {
        out.alice_error = std::current_exception();
    }
    tb.join();
    return out;
}

/// After the handshake, Bob sends and Alice reads (a refusal of Bob's
/// certificate reaches Bob only here: TLS 1.3's client finishes first).
void exchange(linked& l) {
    std::thread tb([&] {
        try {
            if (!l.bob) return;
            const std::uint64_t hello = 42;
            l.bob->send_value(hello);
            l.bob->flush();
            (void)l.bob->recv_value<std::uint64_t>();
        } catch (...) {
            l.bob_error = std::current_exception();
        }
    });
    try {
        if (l.alice) {
            const auto got = l.alice->recv_value<std::uint64_t>();
            l.alice->send_value(got + 1);
            l.alice->flush();
        }
    } catch (...) {
        l.alice_error = std::current_exception();
    }
    tb.join();
}

TEST_CASE("tls.links_carry_bytes_unchanged") {
    // Sizes around the channel's buffer and TLS's 16 KiB records, both ways.
    for (const bool pinned : {false, true}) {
        INFO("pinned " << pinned);
        auto [a, b] = net::memory_pair();
        linked l = handshake(std::move(a), std::move(b), pinned ? pinning("alice", "bob") : under_ca("alice"),
                             pinned ? pinning("bob", "alice") : under_ca("bob"));
        REQUIRE(message_of(l.alice_error) == "");
        REQUIRE(message_of(l.bob_error) == "");
        CHECK(l.alice->name().find("(TLS 1.3, peer bob.tandem.test, ") != std::string::npos);
        CHECK(l.bob->name().find("(TLS 1.3, peer alice.tandem.test, ") != std::string::npos);
        for (const std::size_t n : {std::size_t{1}, std::size_t{16383}, std::size_t{16385}, std::size_t{65536},
                                    std::size_t{200001}}) {
            bytes m(n), got(n), back(n);
            for (std::size_t k = 0; k < n; ++k) m[k] = static_cast<std::uint8_t>(k * 131 + n);
            std::thread tb([&] {
                l.bob->send(m.data(), n);
                l.bob->recv(back.data(), n);
            });
            l.alice->recv(got.data(), n);
            l.alice->send(got.data(), n);
            l.alice->flush();
            tb.join();
            CHECK(got == m);
            CHECK(back == m);
        }
    }
}

TEST_CASE("tls.certificates_that_should_not_pass_are_security_errors") {
    struct refusal {
        const char* what;
        net::tls_credentials alice, bob;
        bool alice_refused;  // Alice's certificate is the bad one (Bob refuses it)
        const char* reason;  // in the refusing party's message
    };
    net::tls_credentials wrong_name = under_ca("bob");
    wrong_name.peer_name = "carol.tandem.test";
    const refusal cases[] = {
        {"mallory calls itself alice under a rogue CA", under_ca("mallory"), under_ca("bob"), true, "did not verify"},
        {"bob presents a certificate of another CA", under_ca("alice"), under_ca("mallory"), false, "did not verify"},
        {"carol is under the CA, but alice pins bob", pinning("alice", "bob"), under_ca("carol"), false,
         "did not verify"},
        {"bob pins alice, carol answers", under_ca("carol"), pinning("bob", "alice"), true, "did not verify"},
        {"bob expects another name", under_ca("alice"), wrong_name, true, "did not verify"},
    };
    for (const refusal& r : cases) {
        INFO(r.what);
        auto [a, b] = net::memory_pair();
        linked l = handshake(std::move(a), std::move(b), r.alice, r.bob);
        exchange(l);
        const std::exception_ptr refusing = r.alice_refused ? l.bob_error : l.alice_error;
        const std::exception_ptr refused = r.alice_refused ? l.alice_error : l.bob_error;
        CHECK_THROWS_AS(std::rethrow_exception(refusing), security_error);
        CHECK(message_of(refusing).find(r.reason) != std::string::npos);
        CHECK(message_of(refusing).find("session_options::tls") != std::string::npos);
        // The refused party hears it from the peer's alert.
        CHECK_THROWS_AS(std::rethrow_exception(refused), security_error);
        CHECK(message_of(refused).find("refused this party's certificate") != std::string::npos);
    }
}

TEST_CASE("tls.altered_bytes_on_the_wire_are_security_errors") {
    // Bob's bytes pass through a tamper_channel: a flip in his ClientHello
    // breaks the handshake transcript (both ends stop with an error), one in
    // a sealed record after it fails that record's authentication at Alice.
    {
        auto [a, b] = net::memory_pair();
        auto tampered = std::make_unique<test::tamper_channel>(*b);
        tampered->flip_ahead(100, 0x08);  // inside the ClientHello's random or key share
        linked l = handshake(std::move(a), std::move(tampered), under_ca("alice"), under_ca("bob"));
        exchange(l);
        CHECK(l.alice_error);
        CHECK(l.bob_error);
        CHECK(named_failure(l.alice_error));
    }
    {
        auto [a, b] = net::memory_pair();
        auto tampered = std::make_unique<test::tamper_channel>(*b);
        test::tamper_channel& t = *tampered;
        linked l = handshake(std::move(a), std::move(tampered), under_ca("alice"), under_ca("bob"));
        REQUIRE(message_of(l.alice_error) == "");
        REQUIRE(message_of(l.bob_error) == "");
        t.flip_after_written(2 + 100, 0x20);  // a sealed record's body: after its 2-byte length
        bytes m(1000, 0x5a), got(1000);
        l.bob->send(m.data(), m.size());
        l.bob->flush();
        l.alice->set_timeout(2s);
        CHECK_THROWS_WITH_AS(l.alice->recv(got.data(), got.size()), doctest::Contains("failed authentication"),
                             security_error);
        CHECK(t.flipped() == 1);
    }
}

TEST_CASE("tls.unusable_credentials_are_usage_errors_naming_the_option") {
    net::tls_credentials missing = under_ca("alice");
    missing.certificate = file("nowhere.pem");
    net::tls_credentials wrong_key = under_ca("alice");
    wrong_key.private_key = file("bob.key");
    net::tls_credentials both = under_ca("alice");
    both.peer_certificate = file("bob.pem");
    net::tls_credentials neither = under_ca("alice");
    neither.ca.clear();
    const std::pair<net::tls_credentials, const char*> cases[] = {
        {missing, "tls.certificate"}, {wrong_key, "does not belong to the certificate"}, {both, "not both"},
        {neither, "tls.ca"}};
    for (const auto& entry : cases) {  // (Clang 14 cannot capture structured bindings)
        const net::tls_credentials& c = entry.first;
        const char* why = entry.second;
        INFO(why);
        const std::string what = error_of([&c] { (void)net::tls_context(c); });
        INFO(what);
        CHECK(what.find(why) != std::string::npos);
    }
}

TEST_CASE("tls.sessions_over_tls_links_equal_plaintext") {
    // Every link — the main one and each worker's, with IPP Bob's world's
    // too — runs TLS: each end starts with a handshake record, and none of
    // the bytes the same run sends in the clear appear on it.
    const auto mul = test::link_workload_product();
    const auto dots = test::link_workload_dots();  // a region the workers (and with IPP both worlds) share
    const auto& da = test::link_workload_alice_row;
    const auto& db = test::link_workload_bob_row;
    for (const bool ipp : {false, true}) {
        INFO("ipp " << ipp);
        const std::size_t extra = ipp ? 3 : 1;
        session_options oa, ob;
        oa.threads = ob.threads = 2;
        oa.ipp = ob.ipp = ipp;
        oa.ipp_min_ands = ob.ipp_min_ands = 1;
        oa.timeout = ob.timeout = test::honest_deadline(20s);
        oa.insecure_seed = 11, ob.insecure_seed = 12;
        const auto run = [&](const session_options& a, const session_options& b) {
            test::recorded_wiring r = test::make_recorded_wiring(extra);
            std::uint32_t ra = 0, rb = 1;
            auto out = test::two_party(
                std::move(r.w), a, b,
                [&](session& s) {
                    CHECK((s.channel().name().find("(TLS 1.3, peer bob.tandem.test") != std::string::npos) ==
                          a.tls.has_value());
                    ra = s.run(mul, std::uint32_t{123456789});
                    CHECK(s.run(dots, da) == dots.eval_plain(da, db));
                },
                [&](session& s) {
                    rb = s.run(mul, std::uint32_t{987654321});
                    CHECK(s.run(dots, db) == dots.eval_plain(da, db));
                });
            CHECK(message_of(out.alice) == "");
            CHECK(message_of(out.bob) == "");
            CHECK(ra == mul.eval_plain(std::uint32_t{123456789}, std::uint32_t{987654321}));
            CHECK(rb == ra);
            return r;
        };
        const test::recorded_wiring plain = run(oa, ob);
        oa.tls = net::tls_context(under_ca("alice"));
        ob.tls = net::tls_context(under_ca("bob"));
        const test::recorded_wiring sealed = run(oa, ob);
        REQUIRE(sealed.alice.size() == 1 + extra);
        std::size_t probed = 0;
        for (std::size_t l = 0; l <= extra; ++l) {
            for (const bool alice : {true, false}) {
                INFO(std::string(alice ? "alice" : "bob") << "'s end of link " << l);
                const test::wire_bytes& p = *(alice ? plain.alice : plain.bob)[l];
                const test::wire_bytes& s = *(alice ? sealed.alice : sealed.bob)[l];
                REQUIRE(s.size() > 5);
                CHECK(s[0] == 0x16);  // a TLS handshake record: ClientHello (Bob) or ServerHello (Alice)
                CHECK(s[1] == 0x03);
                if (p.size() < 4096) continue;
                CHECK(test::windows_found(p, p) == 64);
                CHECK(test::windows_found(p, s) == 0);
                ++probed;
            }
        }
        CHECK(probed >= extra + 1);
    }
}

TEST_CASE("tls.a_malicious_session_runs_on_tls_links") {
    // TLS counts as the links' protection that malicious mode asks for.
    const auto add = compile([](secure_uint<16> x, secure_uint<16> y) { return x + y; },
                             input<party::alice, secure_uint<16>>, input<party::bob, secure_uint<16>>);
    session_options oa, ob;
    oa.security = ob.security = security::malicious;
    oa.tls = net::tls_context(under_ca("alice"));
    ob.tls = net::tls_context(under_ca("bob"));
    oa.timeout = ob.timeout = test::honest_deadline(20s);
    std::uint16_t ra = 0, rb = 0;
    auto out = test::two_party(
        test::make_wiring(0), oa, ob, [&](session& s) { ra = s.run(add, std::uint16_t{1000}); },
        [&](session& s) { rb = s.run(add, std::uint16_t{234}); });
    CHECK(message_of(out.alice) == "");
    CHECK(message_of(out.bob) == "");
    CHECK(ra == 1234);
    CHECK(rb == 1234);
}

TEST_CASE("tls.mismatched_set_ups_are_refused_with_the_reason") {
    const auto add = compile([](secure_uint<8> x, secure_uint<8> y) { return x + y; },
                             input<party::alice, secure_uint<8>>, input<party::bob, secure_uint<8>>);
    session_options with_tls, plain;
    with_tls.timeout = plain.timeout = test::honest_deadline(5s);
    for (const bool alice_tls : {true, false}) {
        INFO("alice runs TLS " << alice_tls);
        session_options oa = alice_tls ? with_tls : plain, ob = alice_tls ? plain : with_tls;
        (alice_tls ? oa : ob).tls = net::tls_context(under_ca(alice_tls ? "alice" : "bob"));
        auto out = test::two_party(test::make_wiring(0), oa, ob, [&](session& s) { s.run(add, std::uint8_t{1}); },
                                   [&](session& s) { s.run(add, std::uint8_t{2}); });
        const std::string tls_side = message_of(alice_tls ? out.alice : out.bob);
        const std::string plain_side = message_of(alice_tls ? out.bob : out.alice);
        CHECK(!tls_side.empty());
        CHECK(!plain_side.empty());
        // The party that reads the other's first bytes names the option.
        if (alice_tls) CHECK(tls_side.find("does not speak TLS 1.3") != std::string::npos);
        else CHECK(plain_side.find("the peer protects its links with TLS") != std::string::npos);
    }
    session_options both = with_tls;
    both.tls = net::tls_context(under_ca("alice"));
    both.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    auto ends = net::memory_pair();
    const std::string why = error_of([&] { session(party::alice, std::move(ends.first), both); });
    CHECK(why.find("not both") != std::string::npos);
}

TEST_CASE("tls.over_tcp_with_workers") {
    const auto mul = compile([](secure_uint<64> x, secure_uint<64> y) { return x * y; },
                             input<party::alice, secure_uint<64>>, input<party::bob, secure_uint<64>>);
    session_options oa, ob;
    oa.threads = ob.threads = 2;
    net::tls_credentials bob = pinning("bob", "alice");
    bob.peer_name = "alice.tandem.test";
    oa.tls = net::tls_context(pinning("alice", "bob"));
    ob.tls = net::tls_context(bob);  // one context for both links: main and worker
    oa.timeout = ob.timeout = test::honest_deadline(20s);
    std::uint64_t ra = 0, rb = 0;
    auto out = test::two_party(
        test::make_tcp_wiring(1), oa, ob, [&](session& s) { ra = s.run(mul, std::uint64_t{0x123456789}); },
        [&](session& s) { rb = s.run(mul, std::uint64_t{0xfedcba987}); });
    CHECK(message_of(out.alice) == "");
    CHECK(message_of(out.bob) == "");
    CHECK(ra == std::uint64_t{0x123456789} * std::uint64_t{0xfedcba987});
    CHECK(rb == ra);
}

}  // namespace tls_tests
