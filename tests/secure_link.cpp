// Encrypted, authenticated links (net/noise.hpp, net/secure_channel.hpp,
// net/keys.hpp): the Noise handshake against the published vectors, sealed
// channels carrying bytes unchanged, every tampered or refused link ending in
// the error its cause calls for, and whole sessions over sealed links.
#include "exception_text.hpp"
#include "isa.hpp"
#include "memory_sessions.hpp"
#include "tamper_channel.hpp"
#include "wire_checks.hpp"

#include <tandem/crypto/aes_gcm.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/net/noise.hpp>
#include <tandem/net/secure_channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/tandem.hpp>

#include <doctest/doctest.h>

#include <sodium.h>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <utility>
#include <vector>

namespace secure_link_tests {

using namespace tandem;
using namespace std::chrono_literals;
using bytes = std::vector<std::uint8_t>;

bytes from_hex(const std::string& h) {
    bytes b(h.size() / 2);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
    return b;
}
net::noise::key32 key_of(const std::string& h) {
    net::noise::key32 k{};
    const bytes b = from_hex(h);
    REQUIRE(b.size() == 32);
    std::copy(b.begin(), b.end(), k.begin());
    return k;
}

struct vector_entry {
    std::map<std::string, std::string> field;
    std::vector<std::pair<bytes, bytes>> messages;  // (payload, ciphertext)
};

std::vector<vector_entry> read_vectors() {
    std::ifstream in(TANDEM_DATA_DIR "/noise_vectors.txt");
    REQUIRE(in);
    std::vector<vector_entry> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto eq = line.find('=');
        REQUIRE(eq != std::string::npos);
        const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        if (key == "protocol_name") out.emplace_back();
        REQUIRE(!out.empty());
        if (key == "msg") {
            const auto sp = value.find(' ');
            out.back().messages.emplace_back(from_hex(value.substr(0, sp)), from_hex(value.substr(sp + 1)));
        } else {
            out.back().field[key] = value;
        }
    }
    return out;
}

net::noise::handshake::keys keys_for(const vector_entry& v, const std::string& side) {
    net::noise::handshake::keys k;
    const auto& f = v.field;
    if (!f.at(side + "_static").empty()) k.s = net::key_pair::from_secret(key_of(f.at(side + "_static")));
    if (!f.at(side + "_remote_static").empty()) k.rs = key_of(f.at(side + "_remote_static"));
    if (!f.at(side + "_psk").empty()) k.psk = key_of(f.at(side + "_psk"));
    k.fixed_ephemeral = key_of(f.at(side + "_ephemeral"));
    return k;
}

#if TANDEM_X86
TEST_CASE("secure_link.aes_gcm_matches_nist_and_libsodium") {
    struct known {
        const char *key, *nonce, *ad, *plain, *cipher, *tag;
    };
    // The GCM specification's test case 16 (McGrew, Viega), and one of
    // NIST CAVP's gcmEncryptExtIV256 cases.
    const known cases[] = {
        {"feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
         "feedfacedeadbeeffeedfacedeadbeefabaddad2",
         "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de6"
         "57ba637b39",
         "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a"
         "0abcc9f662",
         "76fc6ece0f4e1768cddf8853bb2d551b"},
        {"83688deb4af8007f9b713b47cfa6c73e35ea7a3aa4ecdb414dded03bf7a0fd3a", "0b459724904e010a46901cf3",
         "794a14ccd178c8ebfd1379dc704c5e208f9d8424", "33d893a2114ce06fc15d55e454cf90c3",
         "cc66bee423e3fcd4c0865715e9586696", "0fb291bd3dba94a1dfd8b286cfb97ac5"},
    };
    REQUIRE(sodium_init() >= 0);
    test::for_each_isa([&](aes_isa) {
        for (const known& k : cases) {
            aes256_gcm g(from_hex(k.key).data());
            const bytes nonce = from_hex(k.nonce), ad = from_hex(k.ad), plain = from_hex(k.plain);
            bytes sealed(plain.size()), tag(16), opened(plain.size());
            g.seal(nonce.data(), ad.data(), ad.size(), plain.data(), plain.size(), sealed.data(), tag.data());
            CHECK(sealed == from_hex(k.cipher));
            CHECK(tag == from_hex(k.tag));
            CHECK(g.open(nonce.data(), ad.data(), ad.size(), sealed.data(), sealed.size(), tag.data(), opened.data()));
            CHECK(opened == plain);
        }
        // Random keys, nonces and lengths against libsodium's AES-256-GCM
        // (where this CPU runs it), and a flipped bit anywhere fails to open.
        const std::uint64_t seed = 30;
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        for (int t = 0; t < 300; ++t) {
            std::uint8_t key[32], nonce[12], ad[64];
            for (auto& x : key) x = static_cast<std::uint8_t>(rng());
            for (auto& x : nonce) x = static_cast<std::uint8_t>(rng());
            for (auto& x : ad) x = static_cast<std::uint8_t>(rng());
            const std::size_t n = t < 100 ? static_cast<std::size_t>(t) : rng() % 65537, ad_len = rng() % 65;
            bytes m(n), sealed(n), tag(16), back(n);
            for (auto& x : m) x = static_cast<std::uint8_t>(rng());
            aes256_gcm g(key);
            g.seal(nonce, ad, ad_len, m.data(), n, sealed.data(), tag.data());
            if (crypto_aead_aes256gcm_is_available()) {
                bytes want(n + 16);
                unsigned long long len = 0;
                crypto_aead_aes256gcm_encrypt(want.data(), &len, m.data(), n, ad, ad_len, nullptr, nonce, key);
                CHECK(std::equal(sealed.begin(), sealed.end(), want.begin()));
                CHECK(std::equal(tag.begin(), tag.end(), want.begin() + static_cast<std::ptrdiff_t>(n)));
            }
            REQUIRE(g.open(nonce, ad, ad_len, sealed.data(), n, tag.data(), back.data()));
            CHECK(back == m);
            const std::size_t where = rng() % (n + 16 + ad_len);
            bytes bad_sealed = sealed, bad_tag = tag;
            std::uint8_t bad_ad[64];
            std::copy(ad, ad + 64, bad_ad);
            if (where < n) bad_sealed[where] ^= 0x10;
            else if (where < n + 16) bad_tag[where - n] ^= 0x10;
            else bad_ad[where - n - 16] ^= 0x10;
            bytes untouched(n, 0xee), out = untouched;
            CHECK_FALSE(g.open(nonce, bad_ad, ad_len, bad_sealed.data(), n, bad_tag.data(), out.data()));
            CHECK(out == untouched);  // nothing released
        }
    });
}
#endif

TEST_CASE("secure_link.noise_matches_the_published_vectors") {
    const auto vectors = read_vectors();
    REQUIRE(vectors.size() == 4);
    for (const vector_entry& v : vectors) {
        const std::string& name = v.field.at("protocol_name");
        INFO(name);
        const auto pattern = name.find("_KK_") != std::string::npos ? net::noise::pattern::kk : net::noise::pattern::nn_psk0;
        const auto cipher = name.find("AESGCM") != std::string::npos ? net::noise::cipher::aes_gcm
                                                                      : net::noise::cipher::chacha_poly;
        if (cipher == net::noise::cipher::aes_gcm && !net::noise::aes_gcm_available()) continue;  // (not x86)
        CHECK(net::noise::protocol_name(pattern, cipher) == name);
        net::noise::handshake init(pattern, cipher, true, from_hex(v.field.at("init_prologue")), keys_for(v, "init"));
        net::noise::handshake resp(pattern, cipher, false, from_hex(v.field.at("resp_prologue")), keys_for(v, "resp"));
        REQUIRE(v.messages.size() >= 4);
        // The handshake: initiator, responder.
        const bytes m0 = init.write_message(v.messages[0].first);
        CHECK(m0 == v.messages[0].second);
        const auto p0 = resp.read_message(m0);
        REQUIRE(p0);
        CHECK(*p0 == v.messages[0].first);
        const bytes m1 = resp.write_message(v.messages[1].first);
        CHECK(m1 == v.messages[1].second);
        const auto p1 = init.read_message(m1);
        REQUIRE(p1);
        CHECK(*p1 == v.messages[1].first);
        CHECK(init.finished());
        CHECK(init.handshake_hash() == resp.handshake_hash());
        // Transport messages, alternating.
        net::noise::cipher_state i_send, i_recv, r_recv, r_send;
        init.split(i_send, i_recv);
        resp.split(r_recv, r_send);
        for (std::size_t k = 2; k < v.messages.size(); ++k) {
            const bytes& plain = v.messages[k].first;
            bytes sealed(plain.size() + net::noise::tag_bytes), opened(plain.size());
            (k % 2 == 0 ? i_send : r_send).encrypt(nullptr, 0, plain.data(), plain.size(), sealed.data());
            CHECK(sealed == v.messages[k].second);
            CHECK((k % 2 == 0 ? r_recv : i_recv).decrypt(nullptr, 0, sealed.data(), sealed.size(), opened.data()));
            CHECK(opened == plain);
        }
    }
}

TEST_CASE("secure_link.a_tampered_handshake_or_record_fails_to_open") {
    const auto v = read_vectors().at(1);  // KK, ChaCha20-Poly1305
    net::noise::handshake init(net::noise::pattern::kk, net::noise::cipher::chacha_poly, true, {}, keys_for(v, "init"));
    net::noise::handshake resp(net::noise::pattern::kk, net::noise::cipher::chacha_poly, false, {}, keys_for(v, "resp"));
    bytes m0 = init.write_message({});
    for (std::size_t i : {std::size_t{0}, std::size_t{31}, std::size_t{32}, m0.size() - 1}) {
        net::noise::handshake fresh(net::noise::pattern::kk, net::noise::cipher::chacha_poly, false, {},
                                    keys_for(v, "resp"));
        bytes bad = m0;
        bad[i] ^= 0x40;
        CHECK_FALSE(fresh.read_message(bad));
    }
    // Another prologue: the same message does not open.
    net::noise::handshake other(net::noise::pattern::kk, net::noise::cipher::chacha_poly, false, bytes{1},
                                keys_for(v, "resp"));
    CHECK_FALSE(other.read_message(m0));
    CHECK(resp.read_message(m0));
}

// Both ends of a sealed link over `a`/`b`, made on two threads.
struct sealed_pair {
    std::unique_ptr<net::channel> alice, bob;
    std::exception_ptr alice_error, bob_error;
};
sealed_pair seal(std::unique_ptr<net::channel> a, std::unique_ptr<net::channel> b, const net::link_credentials& ca,
                 const net::link_credentials& cb, bool alice_initiates = false, bool bob_initiates = true) {
    sealed_pair out;
    std::thread tb([&] {
        try {
            out.bob = net::secure_link(std::move(b), cb, bob_initiates, 0);
        } catch (...) {
            out.bob_error = std::current_exception();
        }
    });
    try {
        out.alice = net::secure_link(std::move(a), ca, alice_initiates, 0);
    } catch (...) {
        out.alice_error = std::current_exception();
        out.alice.reset();
    }
    tb.join();
    return out;
}

// Both ends of a TCP connection over loopback: the listener's, the client's.
std::pair<std::unique_ptr<net::channel>, std::unique_ptr<net::channel>> loopback_pair() { return test::tcp_pair(); }

struct keys4 {
    net::key_pair alice = net::key_pair::generate(), bob = net::key_pair::generate();
    net::link_credentials for_alice() const { return net::link_credentials::pinned(alice, bob.public_part()); }
    net::link_credentials for_bob() const { return net::link_credentials::pinned(bob, alice.public_part()); }
};

// Sends `sizes` from one end and checks the other receives the same bytes.
void carries(net::channel& from, net::channel& to, const std::vector<std::size_t>& sizes, std::uint64_t seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<bytes> sent;
    for (std::size_t n : sizes) {
        bytes m(n);
        for (auto& x : m) x = static_cast<std::uint8_t>(rng());
        sent.push_back(m);
    }
    std::thread t([&] {
        for (const bytes& m : sent) from.send(m.data(), m.size());
        from.flush();
    });
    for (const bytes& m : sent) {
        bytes got(m.size());
        to.recv(got.data(), got.size());
        CHECK(got == m);
    }
    t.join();
}

TEST_CASE("secure_link.sealed_links_carry_bytes_unchanged") {
    const std::vector<std::size_t> sizes = {1, 7, 65519, 65520, 3, 200000, 1 << 20, 16, 131038, 5};
    keys4 k;
    SUBCASE("pinned keys, memory") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), k.for_alice(), k.for_bob());
        REQUIRE(p.alice);
        REQUIRE(p.bob);
        CHECK(p.alice->name().find("(Noise, ") != std::string::npos);
        carries(*p.alice, *p.bob, sizes, 1);
        carries(*p.bob, *p.alice, sizes, 2);
        CHECK(p.bob->bytes_received() == p.alice->bytes_sent());
    }
    SUBCASE("pre-shared key, tcp") {
        auto [server, client] = loopback_pair();
        const auto psk = net::link_credentials::pre_shared(net::pre_shared_key::generate());
        auto p = seal(std::move(server), std::move(client), psk, psk);
        REQUIRE(p.alice);
        REQUIRE(p.bob);
        carries(*p.bob, *p.alice, sizes, 3);
        carries(*p.alice, *p.bob, sizes, 4);
    }
}

TEST_CASE("secure_link.trimmed_between_messages_carries_every_byte_and_keeps_what_was_read_ahead") {
    // channel::trim (what an asynchronous session does after each
    // operation): the buffers of the sealed channel and of the transport
    // beneath go when they hold nothing and come back on the next call; bytes
    // already read ahead keep them. Fixed seeds.
    keys4 k;
    auto [a, b] = net::memory_pair();
    auto p = seal(std::move(a), std::move(b), k.for_alice(), k.for_bob());
    REQUIRE(p.alice);
    REQUIRE(p.bob);
    const std::vector<std::size_t> sizes = {1, 300, 65519, 200000, 16};
    for (std::uint64_t round = 0; round < 3; ++round) {
        CHECK(p.alice->trim());
        CHECK(p.bob->trim());
        carries(*p.bob, *p.alice, sizes, 10 + round);
        CHECK(p.alice->trim());
        carries(*p.alice, *p.bob, sizes, 20 + round);
    }
    // Two messages sent at once, the first read: the second is read ahead
    // (one record), so trim leaves the buffers, and it arrives whole.
    const bytes first(40, 0xa1), second(50, 0xb2);
    p.bob->send(first.data(), first.size());
    p.bob->send(second.data(), second.size());
    p.bob->flush();
    bytes got(first.size());
    p.alice->recv(got.data(), got.size());
    CHECK(got == first);
    CHECK_FALSE(p.alice->trim());
    got.assign(second.size(), 0);
    p.alice->recv(got.data(), got.size());
    CHECK(got == second);
    CHECK(p.alice->trim());
}

/// Forwards to a channel; another thread can wait until n bytes were written through it.
class write_watch final : public net::channel {
public:
    struct state {
        std::mutex m;
        std::condition_variable cv;
        std::uint64_t written = 0;
        bool wait_for(std::uint64_t n, std::chrono::milliseconds limit) {
            std::unique_lock lock(m);
            return cv.wait_for(lock, limit, [&] { return written >= n; });
        }
    };
    write_watch(std::unique_ptr<net::channel> inner, std::shared_ptr<state> s)
        : net::channel(inner->name()), inner_(std::move(inner)), state_(std::move(s)) {}
    void close() noexcept override { inner_->close(); }
    void interrupt() noexcept override { inner_->interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_->peer_on_this_host(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        inner_->send(p, n);
        inner_->flush();
        {
            std::lock_guard lock(state_->m);
            state_->written += n;
        }
        state_->cv.notify_all();
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        inner_->recv(p, min);
        return min;
    }

private:
    std::unique_ptr<net::channel> inner_;
    std::shared_ptr<state> state_;
};

TEST_CASE("secure_link.plain_messages_before_the_handshake_are_read_through") {
    // A link that starts with a plain hello (mpi/links.hpp) and is sealed
    // after it: Alice's recv() of the hello reads ahead into the channel's
    // buffer whatever has arrived — Bob's greeting, sent right behind his
    // hello. The handshake must read those bytes first (they were lost once,
    // and Alice saw "the peer did not start an encrypted link"). Alice reads
    // the hello only once Bob's greeting has been written behind it, so the
    // read-ahead always happens (a late thread cannot skip the case).
    auto ends = loopback_pair();  // not a structured binding: the lambda below captures it (Clang 14)
    auto watch = std::make_shared<write_watch::state>();
    std::unique_ptr<net::channel> server = std::move(ends.first);
    std::unique_ptr<net::channel> client = std::make_unique<write_watch>(std::move(ends.second), watch);
    const auto psk = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    std::unique_ptr<net::channel> alice, bob;
    std::exception_ptr bob_error;
    std::thread tb([&] {
        try {
            client->send_value(std::uint64_t{0x68656c6c6f});  // Bob's hello, queued: secure_link flushes it first
            bob = net::secure_link(std::move(client), psk, true, 1);
        } catch (...) {
            bob_error = std::current_exception();
        }
    });
    const bool greeted = watch->wait_for(8 + net::detail::greeting_bytes, 20s);
    CHECK(greeted);  // Bob's hello and greeting are on the wire, in Alice's socket
    std::string alice_error;
    try {
        CHECK(server->recv_value<std::uint64_t>() == 0x68656c6c6f);
        alice = net::secure_link(std::move(server), psk, false, 1);
    } catch (const std::exception& e) {
        alice_error = e.what();
    }
    tb.join();
    CHECK_MESSAGE(alice_error.empty(), alice_error);
    CHECK_MESSAGE(!bob_error, message_of(bob_error));
    REQUIRE(alice);
    REQUIRE(bob);
    carries(*alice, *bob, {1, 65520, 200000}, 5);
    carries(*bob, *alice, {3, 7}, 6);
}

TEST_CASE("secure_link.wrong_keys_and_men_in_the_middle_are_security_errors") {
    keys4 k;
    const net::key_pair mallory = net::key_pair::generate();
    SUBCASE("bob pinned another key for alice (or mallory answers for alice)") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), net::link_credentials::pinned(mallory, k.bob.public_part()),
                      k.for_bob());
        CHECK_THROWS_WITH_AS(std::rethrow_exception(p.alice_error), doctest::Contains("failed authentication"),
                             security_error);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(p.bob_error), doctest::Contains("does not hold the secret key"),
                             security_error);
    }
    SUBCASE("alice pinned another key for bob") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), net::link_credentials::pinned(k.alice, mallory.public_part()),
                      k.for_bob());
        CHECK_THROWS_AS(std::rethrow_exception(p.alice_error), security_error);
        CHECK_THROWS_AS(std::rethrow_exception(p.bob_error), security_error);
    }
    SUBCASE("different pre-shared keys") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), net::link_credentials::pre_shared(net::pre_shared_key::generate()),
                      net::link_credentials::pre_shared(net::pre_shared_key::generate()));
        CHECK_THROWS_WITH_AS(std::rethrow_exception(p.alice_error), doctest::Contains("different pre-shared keys"),
                             security_error);
        CHECK_THROWS_AS(std::rethrow_exception(p.bob_error), security_error);
    }
}

TEST_CASE("secure_link.mismatched_set_ups_are_protocol_errors") {
    keys4 k;
    const auto psk = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    SUBCASE("keys against a pre-shared key") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), k.for_alice(), psk);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(p.alice_error),
                             doctest::Contains("pinned public keys and the peer with a pre-shared key"), protocol_error);
        CHECK_THROWS_AS(std::rethrow_exception(p.bob_error), protocol_error);
    }
    SUBCASE("both initiate") {
        auto [a, b] = net::memory_pair();
        auto p = seal(std::move(a), std::move(b), k.for_alice(), k.for_bob(), true, true);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(p.alice_error), doctest::Contains("both parties run as bob"),
                             protocol_error);
        CHECK_THROWS_AS(std::rethrow_exception(p.bob_error), protocol_error);
    }
}

// Tampering on the wire: a flipped bit in a greeting, a handshake message or
// a record. Bob's bytes pass through a tamper_channel.
TEST_CASE("secure_link.altered_bytes_on_the_wire_are_security_errors") {
    keys4 k;
    struct place {
        const char* what;
        std::uint64_t offset;  // of Bob's stream: greeting 16, message 1 (2 + 48), then records
        bool handshake;
    };
    for (const place& at : {place{"the greeting's reserved byte", 13, true}, place{"the ephemeral key", 20, true},
                            place{"message 1's tag", 16 + 2 + 47, true},
                            place{"a record's length", 16 + 50 + 1, false},
                            place{"a record's body", 16 + 50 + 2 + 100, false},
                            place{"a record's tag", 16 + 50 + 2 + 1000 + 15, false}}) {
        INFO(at.what);
        auto [a, b] = net::memory_pair();
        auto tampered = std::make_unique<test::tamper_channel>(*b);
        tampered->flip_ahead(at.offset, 0x08);
        auto p = seal(std::move(a), std::move(tampered), k.for_alice(), k.for_bob());
        if (at.handshake) {
            CHECK_THROWS_AS(std::rethrow_exception(p.alice_error), security_error);
            CHECK_THROWS_AS(std::rethrow_exception(p.bob_error), security_error);
            continue;
        }
        REQUIRE(p.alice);
        REQUIRE(p.bob);
        bytes m(1000, 0x5a), got(1000);
        p.bob->send(m.data(), m.size());
        p.bob->flush();
        p.alice->set_timeout(2s);
        CHECK_THROWS_WITH_AS(p.alice->recv(got.data(), got.size()), doctest::Contains("failed authentication"),
                             security_error);
        // and the link stays refused
        CHECK_THROWS_AS(p.alice->recv(got.data(), 1), security_error);
    }
}

// In the middle of Bob's direction: passes bytes on until told to hold
// them, so a test can deliver sealed records replayed or reordered.
class holding_channel final : public net::channel {
public:
    explicit holding_channel(net::channel& inner) : net::channel("held " + inner.name()), inner_(inner) {}
    bool hold = false;
    bytes held;
    void deliver(const std::uint8_t* p, std::size_t n) {
        inner_.send(p, n);
        inner_.flush();
    }
    void close() noexcept override { inner_.close(); }
    void interrupt() noexcept override { inner_.interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_.peer_on_this_host(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        if (hold) held.insert(held.end(), reinterpret_cast<const std::uint8_t*>(p), reinterpret_cast<const std::uint8_t*>(p) + n);
        else deliver(reinterpret_cast<const std::uint8_t*>(p), n);
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        inner_.recv(p, min);
        return min;
    }

private:
    net::channel& inner_;
};

TEST_CASE("secure_link.replayed_reordered_or_dropped_records_are_security_errors") {
    keys4 k;
    for (const char* attack : {"replay", "reorder", "drop"}) {
        INFO(attack);
        auto [a, b] = net::memory_pair();
        auto middle = std::make_unique<holding_channel>(*b);
        holding_channel& m = *middle;
        auto p = seal(std::move(a), std::move(middle), k.for_alice(), k.for_bob());
        REQUIRE(p.alice);
        REQUIRE(p.bob);
        m.hold = true;
        const bytes first(10, 1), second(10, 2);
        p.bob->send(first.data(), first.size());
        p.bob->flush();
        p.bob->send(second.data(), second.size());
        p.bob->flush();
        constexpr std::size_t record = 2 + 10 + 16;
        REQUIRE(m.held.size() == 2 * record);
        const std::uint8_t* r1 = m.held.data();
        const std::uint8_t* r2 = r1 + record;
        p.alice->set_timeout(2s);
        bytes got(10);
        if (std::string(attack) == "replay") {
            m.deliver(r1, record);
            p.alice->recv(got.data(), got.size());
            CHECK(got == first);
            m.deliver(r1, record);
        } else if (std::string(attack) == "reorder") {
            m.deliver(r2, record);
            m.deliver(r1, record);
        } else {
            m.deliver(r2, record);
        }
        CHECK_THROWS_WITH_AS(p.alice->recv(got.data(), got.size()), doctest::Contains("failed authentication"),
                             security_error);
    }
}

TEST_CASE("secure_link.sessions_over_sealed_links_equal_plaintext") {
    // Every link of the session — the main one and each worker's, with IPP
    // Bob's world's too — is sealed: it starts with the Noise greeting, and
    // none of the bytes the same run (same seeds) sends in the clear appear
    // on it. The checks are shown to see plain bytes: the plain run's links
    // do not start sealed and hold their own windows.
    keys4 k;
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
        oa.ipp_min_ands = ob.ipp_min_ands = 1;  // the region is cut between the worlds: Bob garbles on his links
        oa.timeout = ob.timeout = 20s;
        oa.insecure_seed = 11, ob.insecure_seed = 12;
        const auto run = [&](const session_options& a, const session_options& b) {
            std::uint32_t ra = 0, rb = 1;
            test::recorded_wiring r = test::make_recorded_wiring(extra);
            auto out = test::two_party(
                std::move(r.w), a, b,
                [&](session& s) {
                    CHECK((s.channel().name().find("Noise") != std::string::npos) == a.encrypt_links.has_value());
                    ra = s.run(mul, std::uint32_t{123456789});
                    CHECK(s.run(dots, da) == dots.eval_plain(da, db));
                },
                [&](session& s) {
                    rb = s.run(mul, std::uint32_t{987654321});
                    CHECK(s.run(dots, db) == dots.eval_plain(da, db));
                });
            CHECK(message_of(out.alice) == "");
            CHECK(message_of(out.bob) == "");
            const std::uint32_t x = 123456789, y = 987654321;
            CHECK(ra == static_cast<std::uint32_t>(x * y + (x ^ y)));
            CHECK(ra == mul.eval_plain(x, y));
            CHECK(rb == ra);
            return r;
        };
        const test::recorded_wiring plain = run(oa, ob);
        oa.encrypt_links = k.for_alice();
        ob.encrypt_links = k.for_bob();
        const test::recorded_wiring sealed = run(oa, ob);
        REQUIRE(sealed.alice.size() == 1 + extra);
        std::size_t probed = 0;
        for (std::size_t l = 0; l <= extra; ++l) {
            for (const bool alice : {true, false}) {
                const std::string end = std::string(alice ? "alice" : "bob") + "'s end of link " + std::to_string(l);
                INFO(end);
                const test::wire_bytes& p = *(alice ? plain.alice : plain.bob)[l];
                const test::wire_bytes& s = *(alice ? sealed.alice : sealed.bob)[l];
                CHECK(test::starts_sealed(s));
                CHECK_FALSE(test::starts_sealed(p));
                if (p.size() < 4096) continue;  // the evaluator's end of a worker link sends little
                CHECK(test::windows_found(p, p) == 64);
                CHECK(test::windows_found(p, s) == 0);
                ++probed;
            }
        }
        CHECK(probed >= extra + 1);  // every link's garbler end at least, each direction of the main link
    }
}

TEST_CASE("secure_link.a_plain_peer_is_refused_with_the_reason") {
    keys4 k;
    const auto add = compile([](secure_uint<8> x, secure_uint<8> y) { return x + y; },
                             input<party::alice, secure_uint<8>>, input<party::bob, secure_uint<8>>);
    session_options sealed, plain;
    sealed.encrypt_links = k.for_alice();
    sealed.timeout = plain.timeout = 5s;
    for (const bool alice_seals : {true, false}) {
        INFO("alice seals " << alice_seals);
        auto out = test::two_party(test::make_wiring(0), alice_seals ? sealed : plain, alice_seals ? plain : sealed,
                                   [&](session& s) { s.run(add, std::uint8_t{1}); },
                                   [&](session& s) { s.run(add, std::uint8_t{2}); });
        const std::string sealed_side = message_of(alice_seals ? out.alice : out.bob);
        const std::string plain_side = message_of(alice_seals ? out.bob : out.alice);
        CHECK(sealed_side.find("does not encrypt its links") != std::string::npos);
        CHECK(plain_side.find("the peer encrypts its links and this party does not") != std::string::npos);
    }
}

TEST_CASE("secure_link.key_files") {
    const auto dir = std::filesystem::temp_directory_path() / ("tandem_keys_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string sk = (dir / "a.key").string(), pk = (dir / "a.pub").string(), psk = (dir / "s.psk").string();
    const net::key_pair k = net::key_pair::generate();
    net::save_key_pair(k, sk, pk);
    struct stat st {};
    REQUIRE(::stat(sk.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    const net::key_pair back = net::load_key_pair(sk);
    CHECK(back.public_part() == k.public_part());
    CHECK(back.secret() == k.secret());
    CHECK(net::load_public_key(pk) == k.public_part());
    const net::pre_shared_key s = net::pre_shared_key::generate();
    net::save_pre_shared_key(s, psk);
    CHECK(net::load_pre_shared_key(psk).bytes() == s.bytes());
    // the wrong kind, a loose mode, a broken file, a missing file
    CHECK_THROWS_WITH_AS(net::load_public_key(sk), doctest::Contains("not a tandem key of this kind"), usage_error);
    CHECK_THROWS_AS(net::load_key_pair(psk), usage_error);
    ::chmod(sk.c_str(), 0644);
    CHECK_THROWS_WITH_AS(net::load_key_pair(sk), doctest::Contains("chmod 600"), usage_error);
    {
        std::ofstream(pk) << "tandem-public-key 12ab\n";
    }
    CHECK_THROWS_AS(net::load_public_key(pk), usage_error);
    CHECK_THROWS_WITH_AS(net::load_public_key((dir / "none.pub").string()), doctest::Contains("cannot read"),
                         usage_error);
    std::filesystem::remove_all(dir);
}

}  // namespace secure_link_tests
