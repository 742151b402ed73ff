// ot/: the bit-matrix transpose against a bit-by-bit reference, the base OTs,
// IKNP and SoftSpoken correlated OT extension (and its malicious check, with
// a cheating peer), silent OT (Ferret: GGM trees, the LPN code, rounds,
// batches and the check against a cheating sender), GF(2^128) products, two parties in two threads over an
// in-memory channel pair.
#include <doctest/doctest.h>
#include <tandem/crypto/prg.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/ot/base_ot.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/ot/ferret.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/ot/transpose.hpp>

#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "party_pair.hpp"
#include "tamper_channel.hpp"

namespace ot_tests {

using namespace tandem;

namespace {

using test::run_pair;

std::vector<std::uint8_t> random_bits(prg& rng, std::size_t n) {
    std::vector<std::uint8_t> bits(n);
    for (std::size_t i = 0; i < n; i += 64) {
        const std::uint64_t w = rng.next().low();
        for (std::size_t k = 0; k < 64 && i + k < n; ++k) bits[i + k] = static_cast<std::uint8_t>((w >> k) & 1);
    }
    return bits;
}

bool bit(block x, std::size_t j) { return (((j < 64 ? x.low() : x.high()) >> (j % 64)) & 1) != 0; }

/// A channel that records what is sent and replays it on recv: one party's
/// computation timed alone, without the other party or the transport.
class tape_channel final : public net::channel {
public:
    tape_channel() : channel("tape") {}
    void close() noexcept override {}
    void interrupt() noexcept override {}
    std::vector<std::byte> tape;
    std::size_t pos = 0;

protected:
    // (noinline: inlined into the channel, GCC 12 reports false out-of-bounds copies)
    [[gnu::noinline]] void write_all(const std::byte* p, std::size_t n, const char*) override { tape.insert(tape.end(), p, p + n); }
    [[gnu::noinline]] std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override {
        const std::size_t k = std::min(max, tape.size() - pos);
        if (k < min) fail_closed("recv");
        std::memcpy(p, tape.data() + pos, k);
        pos += k;
        return k;
    }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("ot.transpose_matches_the_reference") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        INFO("seed " << seed);
        prg rng(block(0x7a, seed));
        block rows[128], expect[128], got[128];
        rng.fill(rows, 128);
        if (seed == 1) {  // sparse: single bits
            for (auto& r : rows) r = block();
            rows[0] = block(0, 1);
            rows[5] = block(std::uint64_t{1} << 63, 0);
            rows[127] = block(0, std::uint64_t{1} << 17);
        }
        ot::transpose128_reference(rows, expect);
        for (std::size_t i = 0; i < 128; ++i)
            for (std::size_t j = 0; j < 128; j += 37) REQUIRE(bit(expect[j], i) == bit(rows[i], j));

        ot::transpose128(rows, got);
        for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
        // Every variant compiled in, not only the one transpose128 picks.
        const auto* p = reinterpret_cast<const unsigned char*>(rows);
#if TANDEM_X86
        ot::detail::transpose128_sse2(p, sizeof(block), got);
        for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
        if (tandem::detail::cpu().avx2) {
            ot::detail::transpose128_avx2(p, sizeof(block), got);
            for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
        }
        if (cpu_supports(aes_isa::vaes)) {  // AVX-512BW runs together with the VAES kernels
            ot::detail::transpose128_avx512(p, sizeof(block), got);
            for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
        }
        if (tandem::detail::cpu().gfni512) {
            ot::detail::transpose128_gfni(p, sizeof(block), got);
            for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
        }
#else
        ot::detail::transpose128_neon(p, sizeof(block), got);
        for (std::size_t j = 0; j < 128; ++j) CHECK(got[j] == expect[j]);
#endif
    }
#if TANDEM_X86
    std::string variants = "sse2";
    if (tandem::detail::cpu().avx2) variants += " avx2";
    if (cpu_supports(aes_isa::vaes)) variants += " avx512bw";
    if (tandem::detail::cpu().gfni512) variants += " gfni";
#else
    const std::string variants = "neon";
#endif
    MESSAGE("transpose variants tested: " << variants);
}

TEST_CASE("ot.transpose_twice_is_the_identity") {
    for (std::uint64_t seed = 100; seed < 110; ++seed) {
        INFO("seed " << seed);
        prg rng(block(0x7b, seed));
        block rows[128], cols[128], back[128];
        rng.fill(rows, 128);
        ot::transpose128(rows, cols);
        ot::transpose128(cols, back);
        for (std::size_t i = 0; i < 128; ++i) CHECK(back[i] == rows[i]);
    }
}

TEST_CASE("ot.transpose_of_a_128_x_m_matrix") {
    const std::uint64_t seed = 7;
    INFO("seed " << seed);
    prg rng(block(0x7c, seed));
    for (std::size_t m : {128u, 384u, 1024u}) {
        INFO("m " << m);
        const std::size_t w = m / 128;  // blocks per row
        std::vector<block> rows(m), cols(m);
        rng.fill(rows.data(), m);
        ot::transpose128xm(rows, cols);
        for (std::size_t t = 0; t < w; ++t) {  // tile t: block t of every row
            block tile[128], expect[128];
            for (std::size_t i = 0; i < 128; ++i) tile[i] = rows[i * w + t];
            ot::transpose128_reference(tile, expect);
            for (std::size_t j = 0; j < 128; ++j) CHECK(cols[128 * t + j] == expect[j]);
        }
    }
    std::vector<block> a(200), b(200), c(256);
    CHECK_THROWS_AS(ot::transpose128xm(a, b), usage_error);
    CHECK_THROWS_AS(ot::transpose128xm(a, c), usage_error);
}

TEST_CASE("ot.base_ot_keys") {
    for (const security mode : {security::semi_honest, security::malicious})
    for (std::size_t n : {1u, 5u, 128u}) {
        INFO("n " << n << (mode == security::malicious ? ", endemic OT" : ", Chou-Orlandi"));
        prg rng(block(0x0b, n));
        const auto choices = random_bits(rng, n);
        std::vector<std::array<block, 2>> pairs(n);
        std::vector<block> keys(n);
        run_pair([&](net::channel& ch) { ot::base_ot_send(ch, pairs, nullptr, mode); },
                 [&](net::channel& ch) { ot::base_ot_receive(ch, choices, keys, nullptr, mode); });
        for (std::size_t i = 0; i < n; ++i) {
            INFO("i " << i << " choice " << int(choices[i]));
            CHECK(keys[i] == pairs[i][choices[i]]);
            CHECK(!(keys[i] == pairs[i][1 - choices[i]]));
            CHECK(!(pairs[i][0] == pairs[i][1]));
        }
        for (std::size_t i = 1; i < n; ++i) CHECK(!(pairs[i][0] == pairs[0][0]));
    }
}

TEST_CASE("ot.base_ot_misuse_and_bad_peers") {
    std::vector<std::array<block, 2>> pairs(4);
    std::vector<block> keys(4);
    const std::vector<std::uint8_t> three(3, 0), two_is_bad{0, 1, 2, 0};
    auto [a, b] = net::memory_pair();
    CHECK_THROWS_AS(ot::base_ot_receive(*b, three, keys), usage_error);
    CHECK_THROWS_AS(ot::base_ot_receive(*b, two_is_bad, keys), usage_error);

    // Different n on the two sides: a protocol error at the receiver.
    const std::vector<std::uint8_t> five(5, 1);
    std::vector<block> keys5(5);
    CHECK_THROWS_AS(run_pair([&](net::channel& ch) { ot::base_ot_send(ch, pairs); },
                             [&](net::channel& ch) { ot::base_ot_receive(ch, five, keys5); }),
                    protocol_error);

    // A that is not a valid point.
    CHECK_THROWS_AS(run_pair(
                        [&](net::channel& ch) {
                            ch.send_value<std::uint64_t>(4);
                            const std::array<unsigned char, 32> junk{0xff, 0xff, 0xff};
                            ch.send(junk.data(), junk.size());
                            ch.flush();
                            std::byte x;
                            try {
                                ch.recv(&x, 1);  // wait until the receiver gives up
                            } catch (const network_error&) {
                            }
                        },
                        [&](net::channel& ch) { ot::base_ot_receive(ch, std::vector<std::uint8_t>(4, 0), keys); }),
                    protocol_error);
}

TEST_CASE("ot.endemic_base_ot_refuses_bad_peers") {
    std::vector<std::array<block, 2>> pairs(4);
    std::vector<block> keys(4);
    const std::vector<std::uint8_t> choices{0, 1, 1, 0};
    // One side malicious, the other semi-honest: a protocol error naming both.
    CHECK_THROWS_WITH_AS(run_pair([&](net::channel& ch) { ot::base_ot_send(ch, pairs); },
                                  [&](net::channel& ch) {
                                      ot::base_ot_receive(ch, choices, keys, nullptr, security::malicious);
                                  }),
                         doctest::Contains("the sender runs Chou-Orlandi OT (semi-honest), this party endemic OT"),
                         protocol_error);
    // A receiver whose r^1 of transfer 0 is not a valid encoding.
    CHECK_THROWS_WITH_AS(run_pair([&](net::channel& ch) { ot::base_ot_send(ch, pairs, nullptr, security::malicious); },
                                  [&](net::channel& ch) {
                                      ch.recv_value<std::uint64_t>();
                                      std::array<unsigned char, 32> a;
                                      ch.recv(a.data(), a.size());
                                      std::array<unsigned char, 8 * 64> junk{};
                                      junk[32] = 0xff;  // r^1 of transfer 0: 0xff.. is no Ristretto255 encoding
                                      junk[63] = 0xff;
                                      ch.send(junk.data(), 4 * 64);
                                      ch.flush();
                                      std::byte x;
                                      try {
                                          ch.recv(&x, 1);
                                      } catch (const network_error&) {
                                      }
                                  }),
                         doctest::Contains("invalid Ristretto255 point r^1 #0"), protocol_error);
}

TEST_CASE("ot.peer_closing_during_base_ots") {
    SUBCASE("the COT sender's peer closes before sending A") {
        auto pair = net::memory_pair();  // (not a structured binding: Clang 14 cannot capture those)
        auto& a = pair.first;
        auto& b = pair.second;
        a->set_timeout(std::chrono::milliseconds(20'000));
        std::thread closer([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            b->close();
        });
        CHECK_THROWS_AS(ot::cot_sender(*a, block(3, 5)), network_error);
        closer.join();
    }
    SUBCASE("the COT receiver's peer closes after reading A") {
        auto [a, b] = net::memory_pair();
        a->set_timeout(std::chrono::milliseconds(20'000));
        std::thread closer([&, b = b.get()] {
            std::byte header[8 + 32];
            b->recv(header, sizeof header);
            b->close();
        });
        CHECK_THROWS_AS(ot::cot_receiver{*a}, network_error);
        closer.join();
    }
}

TEST_CASE("ot.iknp_correlated_ots") {
    const block delta = block(0x0123456789abcdefULL, 0xfedcba9876543210ULL) | block(0, 1);
    const std::vector<std::size_t> sizes{1, 127, 128, 129, 1000, 70000};
    constexpr int rounds = 2;
    const std::uint64_t seed = 11;
    INFO("seed " << seed);
    prg rng(block(0x1c, seed));
    std::vector<std::vector<std::uint8_t>> choices;
    for (int r = 0; r < rounds; ++r)
        for (std::size_t m : sizes) choices.push_back(random_bits(rng, m));
    std::vector<std::vector<block>> q(choices.size()), t(choices.size());
    block kept;
    run_pair(
        [&](net::channel& ch) {
            ot::cot_sender s(ch, delta);
            kept = s.delta();
            for (std::size_t k = 0; k < choices.size(); ++k) {
                q[k].resize(choices[k].size());
                s.extend(ch, q[k]);
            }
        },
        [&](net::channel& ch) {
            ot::cot_receiver r(ch);
            for (std::size_t k = 0; k < choices.size(); ++k) {
                t[k].resize(choices[k].size());
                r.extend(ch, choices[k], t[k]);
            }
        });
    CHECK(kept == delta);
    CHECK(kept.lsb());
    for (std::size_t k = 0; k < choices.size(); ++k) {
        INFO("call " << k << ", m = " << choices[k].size());
        std::size_t wrong = 0, trivial = 0;
        for (std::size_t i = 0; i < choices[k].size(); ++i) {
            if (!(t[k][i] == (q[k][i] ^ (choices[k][i] ? delta : block())))) ++wrong;
            if (q[k][i] == block() || (i > 0 && q[k][i] == q[k][i - 1])) ++trivial;
        }
        CHECK(wrong == 0);
        CHECK(trivial == 0);
    }
    // The second round of calls gives fresh OTs (no counter reused).
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        INFO("m = " << sizes[s]);
        const auto& first = q[s];
        const auto& second = q[sizes.size() + s];
        std::size_t same = 0;
        for (std::size_t i = 0; i < first.size(); ++i) same += first[i] == second[i];
        CHECK(same == 0);
        CHECK(!(first[0] == q[(s + 1) % sizes.size()][0]));
    }
}

TEST_CASE("ot.iknp_with_packed_choice_bits") {
    const block delta(0x55, 0x1001);
    const std::size_t m = 9000;
    prg rng(block(0x1d, 3));
    const auto choices = random_bits(rng, m);
    std::vector<std::uint8_t> packed((m + 7) / 8);
    for (std::size_t i = 0; i < m; ++i) packed[i / 8] = static_cast<std::uint8_t>(packed[i / 8] | choices[i] << (i % 8));
    std::vector<block> q(m), t(m), q2(m), t2(m);
    run_pair(
        [&](net::channel& ch) {
            ot::cot_sender s(ch, delta);
            s.extend(ch, q);
            s.extend(ch, q2);
        },
        [&](net::channel& ch) {
            ot::cot_receiver r(ch);
            r.extend_packed(ch, packed, t);
            r.extend(ch, choices, t2);
        });
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) {
        wrong += !(t[i] == (q[i] ^ (choices[i] ? delta : block())));
        wrong += !(t2[i] == (q2[i] ^ (choices[i] ? delta : block())));
    }
    CHECK(wrong == 0);
}

TEST_CASE("ot.iknp_misuse") {
    std::vector<block> t(10), q(10), q11(11);
    const std::vector<std::uint8_t> nine(9, 0), bad(10, 2), short_packed(1);
    run_pair(
        [&](net::channel& ch) {
            CHECK_THROWS_AS(ot::cot_sender(ch, block()), usage_error);  // zero Δ, before any traffic
            ot::cot_sender s(ch, block(1, 1));
            CHECK_THROWS_AS(s.extend(ch, q11), protocol_error);  // the receiver asked for 10
        },
        [&](net::channel& ch) {
            ot::cot_receiver r(ch);
            CHECK_THROWS_AS(r.extend(ch, nine, t), usage_error);
            CHECK_THROWS_AS(r.extend(ch, bad, t), usage_error);
            CHECK_THROWS_AS(r.extend_packed(ch, short_packed, t), usage_error);
            r.extend(ch, std::vector<std::uint8_t>(10, 1), t);
        });
}

TEST_CASE("ot.iknp_throughput") {
    const block delta(0xabc, 0xdef1);
    const std::size_t m = std::size_t{1} << 20;
    constexpr int reps = 4;
    prg rng(block(0x1e, 1));
    const auto choices = random_bits(rng, m);
    std::vector<block> q(m), t(m);

    auto [ca, cb] = net::memory_pair();
    std::unique_ptr<ot::cot_sender> sender;
    std::unique_ptr<ot::cot_receiver> receiver;
    std::thread th([&, ca = ca.get()] { sender = std::make_unique<ot::cot_sender>(*ca, delta); });
    receiver = std::make_unique<ot::cot_receiver>(*cb);
    th.join();

    // Each side alone on a recorded stream: the computation, no transport.
    tape_channel tape;
    tape.tape.reserve(m * 16 + 64);
    double recv_s = 1e9, send_s = 1e9;
    for (int r = 0; r < reps; ++r) {
        tape.tape.clear();
        tape.pos = 0;
        auto t0 = std::chrono::steady_clock::now();
        receiver->extend(tape, choices, t);
        recv_s = std::min(recv_s, seconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        sender->extend(tape, q);
        send_s = std::min(send_s, seconds_since(t0));
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) wrong += !(t[i] == (q[i] ^ (choices[i] ? delta : block())));
    CHECK(wrong == 0);

    // Both sides, each in its own thread, over the memory pair.
    double both_s = 1e9;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::thread s([&, ca = ca.get()] { sender->extend(*ca, q); });
        receiver->extend(*cb, choices, t);
        s.join();
        both_s = std::min(both_s, seconds_since(t0));
    }
    wrong = 0;
    for (std::size_t i = 0; i < m; ++i) wrong += !(t[i] == (q[i] ^ (choices[i] ? delta : block())));
    CHECK(wrong == 0);
    MESSAGE("IKNP COT, m = 2^20, best of " << reps << ": receiver alone " << m / recv_s / 1e6 << " M/s, sender alone "
                                           << m / send_s / 1e6 << " M/s, both in two threads over net::memory_pair "
                                           << m / both_s / 1e6 << " M/s");
}

// ---- GF(2^128) and SoftSpoken OT ----------------------------------------------

namespace {

/// a·b mod x^128 + x^7 + x^2 + x + 1, bit by bit.
block gf128_reference(block a, block b) {
    std::uint64_t lo = 0, hi = 0;  // the product so far
    std::uint64_t alo = a.low(), ahi = a.high();
    for (std::size_t i = 0; i < 128; ++i) {
        if (bit(b, i)) {
            lo ^= alo;
            hi ^= ahi;
        }
        const bool carry = (ahi >> 63) != 0;  // a ← a·x mod the polynomial
        ahi = (ahi << 1) | (alo >> 63);
        alo = (alo << 1) ^ (carry ? 0x87 : 0);
    }
    return block(hi, lo);
}

}  // namespace

TEST_CASE("ot.gf128_products_match_the_reference") {
    const std::uint64_t seed = 128;
    INFO("seed " << seed);
    prg rng(block(0x6f, seed));
    gf128::accumulator sum;
    block expect;
    for (int k = 0; k < 300; ++k) {
        const block a = rng.next(), b = k % 7 == 0 ? block(0, 1) : rng.next();
        const block p = gf128::multiply(a, b);
        REQUIRE(p == gf128_reference(a, b));
        if (k % 7 == 0) CHECK(p == a);  // 1 is the unit
        gf128::multiply_add(sum, a, b);
        expect = expect ^ p;
    }
    CHECK(gf128::reduce(sum) == expect);  // one reduction of the sum = the sum of the products
    // x^127 · x = x^128 = x^7 + x^2 + x + 1
    CHECK(gf128::multiply(block(std::uint64_t{1} << 63, 0), block(0, 2)) == block(0, 0x87));

    // Row hashes: the dispatched path and every wide variant this CPU runs
    // against one product at a time, for lengths around the widths.
    for (std::size_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 64u, 65u}) {
        INFO("n = " << n);
        constexpr std::size_t count = 3;
        const std::size_t stride = n + 3;
        std::vector<block> chi(n), rows(count * stride);
        rng.fill(chi.data(), n);
        rng.fill(rows.data(), rows.size());
        auto reduced = [](const std::array<gf128::accumulator, count>& acc) {
            std::array<block, count> out;
            for (std::size_t r = 0; r < count; ++r) out[r] = gf128::reduce(acc[r]);
            return out;
        };
        std::array<gf128::accumulator, count> expect_acc{}, got_acc{};
        for (std::size_t r = 0; r < count; ++r)
            for (std::size_t j = 0; j < n; ++j) gf128::multiply_add(expect_acc[r], chi[j], rows[r * stride + j]);
        const auto expect_rows = reduced(expect_acc);
        gf128::multiply_add_rows(chi.data(), n, rows.data(), stride, count, got_acc.data());
        CHECK(reduced(got_acc) == expect_rows);
#if TANDEM_X86
        if (cpu_supports(aes_isa::vaes)) {
            std::array<gf128::accumulator, count> acc{};
            const std::size_t done = gf128::detail::vaes::multiply_add_rows(chi.data(), n, rows.data(), stride, count, acc.data());
            gf128::detail::multiply_add_rows_from(done, chi.data(), n, rows.data(), stride, count, acc.data());
            CHECK(reduced(acc) == expect_rows);
        }
        if (cpu_supports(aes_isa::vaes256)) {
            std::array<gf128::accumulator, count> acc{};
            const std::size_t done =
                gf128::detail::vaes256::multiply_add_rows(chi.data(), n, rows.data(), stride, count, acc.data());
            gf128::detail::multiply_add_rows_from(done, chi.data(), n, rows.data(), stride, count, acc.data());
            CHECK(reduced(acc) == expect_rows);
        }
#endif
    }
}

namespace {

/// Runs rounds of extends of the given sizes through SoftSpoken<K> in `mode`,
/// alternating unpacked and packed choices, and checks t = q ⊕ r·Δ, that no
/// output is trivial and that a second round gives fresh OTs.
template <std::size_t K>
void check_softspoken(security mode) {
    INFO("K = " << K << (mode == security::malicious ? ", malicious" : ", semi-honest"));
    const block delta = block(0x0123456789abcdefULL, 0xfedcba9876543210ULL) | block(0, 1);
    const std::vector<std::size_t> sizes{1, 127, 128, 129, 8192, 8193, 20000};
    const std::uint64_t seed = 30 + K;
    INFO("seed " << seed);
    prg rng(block(0x55, seed));
    std::vector<std::vector<std::uint8_t>> choices;
    for (int r = 0; r < 2; ++r)
        for (std::size_t m : sizes) choices.push_back(random_bits(rng, m));
    std::vector<std::vector<block>> q(choices.size()), t(choices.size());
    run_pair(
        [&](net::channel& ch) {
            ot::softspoken_sender<K> s(ch, delta, mode);
            CHECK(s.delta() == delta);
            for (std::size_t k = 0; k < choices.size(); ++k) {
                q[k].resize(choices[k].size());
                s.extend(ch, q[k]);
            }
        },
        [&](net::channel& ch) {
            ot::softspoken_receiver<K> r(ch, mode);
            for (std::size_t k = 0; k < choices.size(); ++k) {
                t[k].resize(choices[k].size());
                if (k % 2 == 0) {
                    r.extend(ch, choices[k], t[k]);
                } else {
                    std::vector<std::uint8_t> packed((choices[k].size() + 7) / 8);
                    for (std::size_t i = 0; i < choices[k].size(); ++i)
                        packed[i / 8] = static_cast<std::uint8_t>(packed[i / 8] | (choices[k][i] << (i % 8)));
                    r.extend_packed(ch, packed, t[k]);
                }
            }
        });
    for (std::size_t k = 0; k < choices.size(); ++k) {
        INFO("call " << k << ", m = " << choices[k].size());
        std::size_t wrong = 0, trivial = 0;
        for (std::size_t i = 0; i < choices[k].size(); ++i) {
            if (!(t[k][i] == (q[k][i] ^ (choices[k][i] ? delta : block())))) ++wrong;
            if (q[k][i] == block() || (i > 0 && q[k][i] == q[k][i - 1])) ++trivial;
        }
        CHECK(wrong == 0);
        CHECK(trivial == 0);
    }
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        std::size_t same = 0;
        for (std::size_t i = 0; i < sizes[s]; ++i) same += q[s][i] == q[sizes.size() + s][i];
        CHECK(same == 0);
    }
}

}  // namespace

TEST_CASE("ot.softspoken_correlated_ots") {
    for (const security mode : {security::semi_honest, security::malicious}) {
        check_softspoken<1>(mode);
        check_softspoken<2>(mode);
        check_softspoken<4>(mode);
        check_softspoken<8>(mode);
    }
}

namespace {

/// One SoftSpoken<4> extend of m OTs in `mode` where the receiver's stream is
/// altered by `cheat` (given the tampering channel before set-up and the
/// offset of the extend's first byte, when called a second time); returns
/// how many of the OTs are wrong. Throws what the parties threw.
std::size_t cheating_receiver(security mode, std::size_t m, const std::function<void(test::tamper_channel&, bool)>& cheat) {
    const block delta = block(0x0123456789abcdefULL, 0xfedcba9876543210ULL) | block(0, 1);  // piece 0 (bits 0-3) is 1
    prg rng(block(0x99, 5));
    const std::vector<std::uint8_t> choices = random_bits(rng, m);
    std::vector<block> q(m), t(m);
    run_pair(
        [&](net::channel& ch) {
            ot::softspoken_sender<4> s(ch, delta, mode);
            s.extend(ch, q);
        },
        [&](net::channel& ch) {
            test::tamper_channel bad(ch);
            cheat(bad, false);
            ot::softspoken_receiver<4> r(bad, mode);
            cheat(bad, true);
            r.extend(bad, choices, t);
            bad.flush();
        });
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) wrong += !(t[i] == (q[i] ^ (choices[i] ? delta : block())));
    return wrong;
}

}  // namespace

TEST_CASE("ot.softspoken_malicious_check_catches_a_cheating_receiver") {
    // The receiver's stream: set-up = 4 bytes of parameters, the base OTs'
    // 8-byte count and 32-byte point A, then the GGM corrections (piece 0,
    // level 1: e_0 at 44, e_1 at 60); an extend = 8-byte count, then per
    // chunk the 32 columns (malicious: 16 bytes per block, the mask block
    // last), then the 129 blocks of the check.
    const std::size_t m = 1000;  // 8 blocks + the mask: 144-byte columns
    auto column_bit = [](test::tamper_channel& c, bool extending) {
        if (extending) c.flip_ahead(8 + 3, 0x10);  // piece 0's column: a choice bit that differs from the others
    };
    auto tree = [](test::tamper_channel& c, bool extending) {
        if (!extending) {
            c.flip_ahead(44, 0x01);  // both sides' corrections of piece 0, level 1: a punctured key off the tree
            c.flip_ahead(60, 0x01);
        }
    };
    auto claimed = [](test::tamper_channel& c, bool extending) {
        if (extending) c.flip_ahead(8 + 32 * 144 + 5, 0x01);  // x̃, the hash of the choices
    };
    auto later_column = [](test::tamper_channel& c, bool extending) {
        if (extending) c.flip_ahead(8 + 30 * 144 + 16 * 8, 0x80);  // piece 30's mask block (Δ_30 = 1)
    };
    for (const auto& deviation :  // (no structured binding: Clang 14 cannot capture those in INFO)
         std::vector<std::pair<const char*, std::function<void(test::tamper_channel&, bool)>>>{
             {"a correction column", column_bit},
             {"the GGM tree corrections", tree},
             {"the check's hash of the choices", claimed},
             {"the mask block of a column", later_column}}) {
        INFO("cheat: " << deviation.first);
        CHECK_THROWS_AS(cheating_receiver(security::malicious, m, deviation.second), security_error);
    }
    // Without the check the same deviations go unnoticed and corrupt OTs —
    // which is what the check is for.
    CHECK(cheating_receiver(security::semi_honest, m, [](test::tamper_channel& c, bool extending) {
              if (extending) c.flip_ahead(8 + 3, 0x10);
          }) > 0);
    CHECK(cheating_receiver(security::semi_honest, m, [](test::tamper_channel& c, bool extending) {
              if (!extending) {
                  c.flip_ahead(44, 0x01);
                  c.flip_ahead(60, 0x01);
              }
          }) > 0);
    // An honest run through the same wrapper passes (the wrapper is faithful).
    CHECK(cheating_receiver(security::malicious, m, [](test::tamper_channel& c, bool extending) {
              if (extending) c.flip_ahead(1u << 30, 0x01);  // beyond the stream: never applied
          }) == 0);
}

TEST_CASE("ot.softspoken_mismatched_configuration") {
    auto attempt = [](std::size_t receiver_k, security sender_mode, security receiver_mode) {
        run_pair(
            [&](net::channel& ch) { ot::softspoken_sender<4> s(ch, block(0, 3), sender_mode); },
            [&](net::channel& ch) {
                if (receiver_k == 4) ot::softspoken_receiver<4> r(ch, receiver_mode);
                else ot::softspoken_receiver<2> r(ch, receiver_mode);
            });
    };
    CHECK_THROWS_WITH_AS(attempt(4, security::malicious, security::semi_honest),
                         doctest::Contains("the receiver runs SoftSpoken K=4 semi-honest, this party SoftSpoken K=4 malicious"),
                         protocol_error);
    CHECK_THROWS_AS(attempt(2, security::semi_honest, security::semi_honest), protocol_error);
    CHECK_NOTHROW(attempt(4, security::malicious, security::malicious));
}

namespace {

/// Small, insecure rounds that still cross every boundary: set-up round of 2
/// batches, main rounds of 8 batches of 8 trees (a test's extend runs
/// through several rounds in milliseconds).
constexpr ot::ferret_config toy_ferret{{4'096, 1'000, 32, 7}, {16'384, 2'000, 64, 8}, 2'048};

/// Checks t = q ⊕ r·Δ for every output.
std::size_t wrong_cots(std::span<const block> q, std::span<const block> t, std::span<const std::uint8_t> r, block delta) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < q.size(); ++i) wrong += !(t[i] == (q[i] ^ (r[i] ? delta : block())));
    return wrong;
}

}  // namespace

TEST_CASE("ot.ferret_lpn_code_is_public_and_linear") {
    // Both parties derive the same rows; the code is linear, so COTs whose
    // choice rides in bit 0 (q with it clear, Δ with it set) stay COTs with
    // their new choice in that bit.
    prg rng(block(0xfe, 1));
    const std::size_t k = 1000, n = 256;
    const block delta = rng.next() | block(0, 1), keep = block(~0ULL, ~1ULL);
    std::vector<block> seeds_q(k), seeds_t(k), q(n), t(n);
    std::vector<std::uint8_t> seed_r = random_bits(rng, k), r = random_bits(rng, n);
    rng.fill(seeds_q.data(), k);
    rng.fill(q.data(), n);
    for (std::size_t i = 0; i < k; ++i) seeds_q[i] = seeds_q[i] & keep;
    for (std::size_t i = 0; i < n; ++i) q[i] = q[i] & keep;
    for (std::size_t i = 0; i < k; ++i) seeds_t[i] = seeds_q[i] ^ (seed_r[i] ? delta : block());
    for (std::size_t i = 0; i < n; ++i) t[i] = q[i] ^ (r[i] ? delta : block());
    const std::vector<block> q0 = q;
    ot::detail::lpn_encode(3, 64, n, k, seeds_q.data(), q.data());
    ot::detail::lpn_encode(3, 64, n, k, seeds_t.data(), t.data());
    std::vector<std::uint8_t> r_out(n);
    std::size_t ones = 0;
    for (std::size_t i = 0; i < n; ++i) {
        r_out[i] = static_cast<std::uint8_t>(t[i].low() & 1);
        ones += r_out[i];
        CHECK((q[i].low() & 1) == 0);
    }
    CHECK(wrong_cots(q, t, r_out, delta) == 0);
    CHECK(ones > n / 4);  // the choices mixed (each the XOR of 11 random bits)
    CHECK(ones < 3 * n / 4);
    // Each output moved by ten rows (none left as it was), and the rows
    // depend on the round and stay in the table.
    std::size_t unchanged = 0;
    for (std::size_t i = 0; i < n; ++i) unchanged += q[i] == q0[i];
    CHECK(unchanged == 0);
    std::uint32_t a[640], b[640];
    ot::detail::lpn_rows(3, 0, 64, k, a);
    ot::detail::lpn_rows(4, 0, 64, k, b);
    CHECK(std::memcmp(a, b, sizeof a) != 0);
    for (std::uint32_t x : a) CHECK(x < k);
}

TEST_CASE("ot.ferret_single_point_trees") {
    // The receiver rebuilds every leaf but α from the level sums on its side,
    // and leaf α as v_α ⊕ Δ from c; α is the path of its choices' complements.
    // Leaves keep the bits in `keep` on both sides (bit 5 dropped here).
    prg rng(block(0xfe, 2));
    const aes_key salt(rng.next());
    const block delta = rng.next() | block(0, 32);
    for (const block keep : {mask_of(true), block(~0ULL, ~32ULL)}) {
        for (unsigned depth : {2u, 5u, 9u}) {
            for (int trial = 0; trial < 8; ++trial) {
                INFO("depth " << depth << " trial " << trial);
                const std::size_t n = std::size_t{1} << depth;
                const ot::detail::ggm_keys keys(salt, std::uint64_t(trial));
                std::vector<block> v(n), w(n);
                std::vector<ot::detail::level_sums> sums(depth);
                ot::detail::ggm_sender_tree(keys, rng.next(), depth, keep, v.data(), sums.data());
                std::vector<std::uint8_t> choice = random_bits(rng, depth);
                std::vector<block> opened(depth);
                for (unsigned l = 0; l < depth; ++l) opened[l] = choice[l] ? sums[l].right : sums[l].left;
                block c = delta;
                for (const block& x : v) c ^= x;
                const std::size_t alpha =
                    ot::detail::ggm_receiver_tree(keys, opened.data(), choice.data(), depth, keep, c, w.data());
                std::size_t expect_alpha = 0;
                for (unsigned l = 0; l < depth; ++l) expect_alpha = 2 * expect_alpha + (choice[l] ^ 1);
                CHECK(alpha == expect_alpha);
                for (std::size_t j = 0; j < n; ++j) {
                    CHECK(v[j] == (v[j] & keep));
                    CHECK(w[j] == (v[j] ^ (j == alpha ? delta : block())));
                }
            }
        }
    }
}

TEST_CASE("ot.ferret_correlated_ots") {
    // Both modes; the choice in bit 0 (a garbler's Δ) and in bit 1 with bit
    // 0 of Δ clear (authenticated garbling's Bob).
    // (no structured binding: Clang 14 cannot capture those in lambdas)
    for (const auto& variant : std::vector<std::pair<security, unsigned>>{
             {security::semi_honest, 0}, {security::malicious, 0}, {security::malicious, 1}}) {
        const security mode = variant.first;
        const unsigned choice_bit = variant.second;
        INFO(to_string(mode) << ", choice bit " << choice_bit);
        ot::ferret_config config = toy_ferret;
        config.choice_bit = choice_bit;
        const block delta = choice_bit == 0 ? block(0x0f0e0d0c0b0a0908ULL, 0x0706050403020100ULL) | block(0, 1)
                                            : block(0x0f0e0d0c0b0a0908ULL, 0x0706050403020102ULL);
        prg rng(block(0xfe, 3));
        // Sizes that cut batches and rounds anywhere: 3 main rounds in all.
        const std::vector<std::size_t> sizes{1, 1'327, 5'000, 15'488, 7, 20'000};
        std::vector<std::vector<block>> q(sizes.size()), t(sizes.size());
        std::vector<std::vector<std::uint8_t>> r(sizes.size());
        const std::vector<std::uint8_t> choices = random_bits(rng, 3'000);
        std::vector<block> cq(choices.size()), ct(choices.size()), pq(choices.size()), pt(choices.size());
        std::vector<std::uint8_t> packed((choices.size() + 7) / 8);
        for (std::size_t i = 0; i < choices.size(); ++i) packed[i / 8] = std::uint8_t(packed[i / 8] | (choices[i] << (i % 8)));
        std::uint64_t rounds = 0;
        run_pair(
            [&](net::channel& ch) {
                ot::ferret_sender s(ch, delta, mode, nullptr, config);
                for (std::size_t k = 0; k < sizes.size(); ++k) {
                    q[k].resize(sizes[k]);
                    s.extend_random(ch, q[k]);
                }
                s.extend(ch, cq);
                s.extend(ch, pq);
                rounds = s.rounds();
            },
            [&](net::channel& ch) {
                ot::ferret_receiver rc(ch, mode, nullptr, config);
                for (std::size_t k = 0; k < sizes.size(); ++k) {
                    t[k].resize(sizes[k]);
                    r[k].resize(sizes[k]);
                    rc.extend_random(ch, r[k], t[k]);
                }
                rc.extend(ch, choices, ct);
                rc.extend_packed(ch, packed, pt);
            });
        CHECK(rounds >= 3);
        std::size_t ones = 0, all = 0;
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            CHECK(wrong_cots(q[k], t[k], r[k], delta) == 0);
            for (std::uint8_t b : r[k]) ones += b;
            all += r[k].size();
        }
        // The receiver's random choices are balanced (LPN outputs, not the
        // sparse noise): 49,823 bits, so 45–55 % is far outside chance.
        CHECK(ones > all * 45 / 100);
        CHECK(ones < all * 55 / 100);
        CHECK(wrong_cots(cq, ct, choices, delta) == 0);
        CHECK(wrong_cots(pq, pt, choices, delta) == 0);
        // No two outputs alike (a repeated tree or code row would show here).
        std::vector<block> all_q;
        for (auto& v : q) all_q.insert(all_q.end(), v.begin(), v.end());
        std::sort(all_q.begin(), all_q.end(), [](block a, block b) { return a.high() != b.high() ? a.high() < b.high() : a.low() < b.low(); });
        CHECK(std::adjacent_find(all_q.begin(), all_q.end()) == all_q.end());
    }
}

TEST_CASE("ot.ferret_with_the_secure_parameters") {
    // The shipped rounds: the set-up (SoftSpoken, then 918 trees of 512) and
    // the first batches of the first main round (32 trees of 8,192).
    const block delta = block(0x1111, 0x2223);
    const std::size_t m = 300'000;
    std::vector<block> q(m), t(m);
    std::vector<std::uint8_t> r(m);
    std::uint64_t sent = 0;
    run_pair(
        [&](net::channel& ch) {
            ot::ferret_sender s(ch, delta, security::malicious);
            const std::uint64_t before = ch.bytes_sent();
            s.extend_random(ch, q);
            sent = ch.bytes_sent() - before;
        },
        [&](net::channel& ch) {
            ot::ferret_receiver rc(ch, security::malicious);
            rc.extend_random(ch, r, t);
        });
    CHECK(wrong_cots(q, t, r, delta) == 0);
    // What the sender sends: 27 blocks per tree of 8,192 and a 32-byte
    // answer per checked batch of 32 trees. The set-up round left 1,120
    // outputs; the first main round's first two batches refill the next
    // round's base (468,768 COTs) and leave 55,264, so 300,000 outputs take
    // three batches. (A whole round, 40 such batches, hands on 10,012,000:
    // 0.44 bits per COT.)
    CHECK(sent == 3 * (32 * 27 * 16 + 32));
}

namespace {

/// A Ferret extend of m random COTs in `mode` after a toy set-up, with the
/// sender's stream of that extend altered by `cheat`; returns how many of
/// the outputs are wrong. Throws what the parties threw.
std::size_t cheating_sender(security mode, std::size_t m, const std::function<void(test::tamper_channel&)>& cheat) {
    const block delta = block(0x5a5a, 0xa5a5) | block(0, 1);
    std::vector<block> q(m), t(m);
    std::vector<std::uint8_t> r(m);
    run_pair(
        [&](net::channel& ch) {
            test::tamper_channel bad(ch);
            ot::ferret_sender s(bad, delta, mode, nullptr, toy_ferret);
            cheat(bad);
            s.extend_random(bad, q);
            bad.flush();
        },
        [&](net::channel& ch) {
            ot::ferret_receiver rc(ch, mode, nullptr, toy_ferret);
            rc.extend_random(ch, r, t);
        });
    return wrong_cots(q, t, r, delta);
}

}  // namespace

TEST_CASE("ot.ferret_check_catches_a_cheating_sender") {
    // The extend's stream (the set-up leaves 1,328 outputs ready, so its
    // first bytes are the next batch's): per tree of depth 8, 17 blocks —
    // level l's left and right sums at 32·l and 32·l + 16, then c at 256 —
    // 8 trees a batch, then (malicious) the 32-byte answer to the check.
    // The first two batches of a round refill the next round's base; the
    // third's outputs reach the caller.
    const std::size_t m = 5'000;
    using cheat = std::function<void(test::tamper_channel&)>;
    auto at = [](security mode, std::size_t batch, std::size_t offset, std::uint8_t bits) -> cheat {
        const std::size_t start = batch * (8 * 272 + (mode == security::malicious ? 32 : 0));
        return [=](test::tamper_channel& c) { c.flip_ahead(start + offset, bits); };
    };
    auto both = [](cheat a, cheat b) -> cheat { return [=](test::tamper_channel& c) { a(c); b(c); }; };
    // Both sides of a level: whichever the receiver opens.
    auto level = [&](security mode, std::size_t batch, std::size_t l, std::size_t tree = 0) {
        return both(at(mode, batch, 272 * tree + 32 * l + 2, 0x04), at(mode, batch, 272 * tree + 32 * l + 16 + 2, 0x04));
    };
    const security mal = security::malicious;
    for (const auto& deviation : std::vector<std::pair<const char*, cheat>>{
             {"a level's sums", level(mal, 0, 3)},
             {"the last level's sums", level(mal, 0, 7)},
             {"c (a Δ off by a bit)", at(mal, 0, 256 + 15, 0x01)},
             {"a later tree's c", at(mal, 0, 5 * 272 + 256, 0x10)},
             {"the check's answer", at(mal, 0, 8 * 272 + 3, 0x01)},
             {"a level of a later batch", level(mal, 2, 1)}}) {
        INFO("cheat: " << deviation.first);
        CHECK_THROWS_WITH_AS(cheating_sender(mal, m, deviation.second),
                             doctest::Contains("silent OT: the check of the sender's GGM trees failed"), security_error);
    }
    // Without the check the same deviations go unnoticed and corrupt COTs
    // (tree 5 of the third batch: its outputs all reach the caller).
    const security semi = security::semi_honest;
    CHECK(cheating_sender(semi, m, level(semi, 2, 3, 5)) > 0);
    CHECK(cheating_sender(semi, m, at(semi, 2, 272 * 5 + 256 + 15, 0x01)) > 0);
    // An honest run through the same wrapper passes.
    CHECK(cheating_sender(mal, m, [](test::tamper_channel& c) { c.flip_ahead(1u << 30, 0x01); }) == 0);
}

TEST_CASE("ot.ferret_mismatches_and_misuse") {
    auto setup = [](security sender_mode, security receiver_mode, ot::ferret_config receiver_config) {
        run_pair([&](net::channel& ch) { ot::ferret_sender s(ch, block(0, 3), sender_mode, nullptr, toy_ferret); },
                 [&](net::channel& ch) { ot::ferret_receiver r(ch, receiver_mode, nullptr, receiver_config); });
    };
    CHECK_THROWS_WITH_AS(setup(security::malicious, security::semi_honest, toy_ferret),
                         doctest::Contains("silent OT: the receiver runs silent OT semi-honest"), protocol_error);
    ot::ferret_config other = toy_ferret;
    other.main.k = 2'001;
    CHECK_THROWS_WITH_AS(setup(security::malicious, security::malicious, other),
                         doctest::Contains("main round n=16384 k=2001"), protocol_error);
    // Extends of different sizes, or random against chosen choices.
    auto extend = [](std::size_t sender_m, bool chosen) {
        run_pair(
            [&](net::channel& ch) {
                ot::ferret_sender s(ch, block(0, 3), security::malicious, nullptr, toy_ferret);
                std::vector<block> q(sender_m);
                s.extend_random(ch, q);
            },
            [&](net::channel& ch) {
                ot::ferret_receiver r(ch, security::malicious, nullptr, toy_ferret);
                std::vector<block> t(100);
                std::vector<std::uint8_t> b(100);
                if (chosen) r.extend(ch, b, t);
                else r.extend_random(ch, b, t);
            });
    };
    CHECK_THROWS_WITH_AS(extend(99, false), doctest::Contains("the receiver asks for 100 random COTs, the sender for 99"),
                         protocol_error);
    CHECK_THROWS_WITH_AS(extend(100, true), doctest::Contains("100 COTs with chosen choices"), protocol_error);
    // A Δ without the choice bit, and shapes that cannot work, are refused
    // before anything is sent.
    {
        auto [a, b] = net::memory_pair();
        CHECK_THROWS_WITH_AS(ot::ferret_sender(*a, block(0, 2), security::malicious, nullptr, toy_ferret),
                             doctest::Contains("Δ must have bit 0 set"), usage_error);
    }
    ot::ferret_config bad = toy_ferret;
    bad.main.n += 1;
    auto [a, b] = net::memory_pair();  // (nothing crosses it: the constructors throw first)
    CHECK_THROWS_AS(ot::ferret_sender(*a, block(0, 3), security::malicious, nullptr, bad), usage_error);
    bad = toy_ferret;
    bad.setup.t = 8;  // a set-up round too small for the main round's base
    bad.setup.n = 8 << 7;
    CHECK_THROWS_WITH_AS(ot::ferret_receiver(*b, security::malicious, nullptr, bad),
                         doctest::Contains("the set-up round makes fewer COTs"), usage_error);
}

}  // namespace ot_tests
