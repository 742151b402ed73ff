// The standard library's hashes (include/tandem/lib/sha256.hpp, sha3.hpp, word_sum.hpp):
// FIPS 180-4 examples, a plain C++ SHA-256 written here as the reference on
// random messages of many lengths and on random compressions, exact AND
// counts, a garbled two-party run and a streamed run equal to plaintext;
// the same for Keccak-f[1600] and SHA-3 (FIPS 202) with a plain Keccak here.
// Under TANDEM_SANITIZED the random-length sweep takes fewer lengths.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/sha256.hpp>
#include <tandem/lib/sha3.hpp>
#include <tandem/lib/word_sum.hpp>
#include <tandem/tandem.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lib_sha_tests {

using namespace tandem;
using tandem::test::rethrow;

namespace {

// ---- a plain SHA-256 (FIPS 180-4), the reference --------------------------

using words8 = std::array<std::uint32_t, 8>;
using words16 = std::array<std::uint32_t, 16>;

constexpr std::uint32_t ref_rotr(std::uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

words8 ref_compress(const words8& hv, const words16& m) {
    static constexpr std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = m[static_cast<std::size_t>(t)];
    for (int t = 16; t < 64; ++t) {
        const std::uint32_t s0 = ref_rotr(w[t - 15], 7) ^ ref_rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const std::uint32_t s1 = ref_rotr(w[t - 2], 17) ^ ref_rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    std::uint32_t a = hv[0], b = hv[1], c = hv[2], d = hv[3], e = hv[4], f = hv[5], g = hv[6], h = hv[7];
    for (int t = 0; t < 64; ++t) {
        const std::uint32_t t1 =
            h + (ref_rotr(e, 6) ^ ref_rotr(e, 11) ^ ref_rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
        const std::uint32_t t2 = (ref_rotr(a, 2) ^ ref_rotr(a, 13) ^ ref_rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    return {hv[0] + a, hv[1] + b, hv[2] + c, hv[3] + d, hv[4] + e, hv[5] + f, hv[6] + g, hv[7] + h};
}

std::array<std::uint8_t, 32> ref_sha256(std::span<const std::uint8_t> msg) {
    std::vector<std::uint8_t> p(msg.begin(), msg.end());
    p.push_back(0x80);
    while (p.size() % 64 != 56) p.push_back(0);
    const std::uint64_t bits = static_cast<std::uint64_t>(msg.size()) * 8;
    for (int i = 7; i >= 0; --i) p.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    words8 hv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (std::size_t off = 0; off < p.size(); off += 64) {
        words16 m{};
        for (std::size_t j = 0; j < 16; ++j)
            for (std::size_t k = 0; k < 4; ++k) m[j] = (m[j] << 8) | p[off + 4 * j + k];
        hv = ref_compress(hv, m);
    }
    std::array<std::uint8_t, 32> out{};
    for (std::size_t j = 0; j < 32; ++j) out[j] = static_cast<std::uint8_t>(hv[j / 4] >> (24 - 8 * (j % 4)));
    return out;
}

std::string hex(std::span<const std::uint8_t> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (const std::uint8_t b : bytes) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

constexpr std::size_t max_length = 200;
using message_t = std::array<secure_uint<8>, max_length>;
using plain_message = std::array<std::uint8_t, max_length>;

/// SHA-256 of the first `length` bytes of a max_length-byte input (the rest is unused).
auto compile_prefix_hash(std::size_t length) {
    return compile(
        [length](const message_t& m) { return lib::sha256(std::span<const secure_uint<8>>(m).first(length)); },
        input<party::alice, message_t>);
}

plain_message padded(std::string_view s) {
    plain_message m{};
    for (std::size_t i = 0; i < s.size(); ++i) m[i] = static_cast<std::uint8_t>(s[i]);
    return m;
}

auto compile_compress() {
    return compile([](const lib::sha256_state& s, const lib::sha256_block& b) { return lib::sha256_compress(s, b); },
                   input<party::alice, lib::sha256_state>, input<party::bob, lib::sha256_block>);
}

}  // namespace

// ---- the reference itself --------------------------------------------------

TEST_CASE("lib.sha256.reference_matches_fips180") {
    const std::string_view abc = "abc";
    const std::vector<std::uint8_t> v(abc.begin(), abc.end());
    CHECK(hex(ref_sha256(v)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(hex(ref_sha256({})) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// ---- FIPS 180-4 examples (NIST CSRC "SHA-256" example values) -------------

TEST_CASE("lib.sha256.fips180") {
    struct example {
        std::string_view message, digest;
    };
    const example examples[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    };
    for (const example& ex : examples) {
        const std::string message(ex.message), expected(ex.digest);
        INFO("message: \"" << message << "\"");
        const auto c = compile_prefix_hash(message.size());
        const auto digest = c.eval_plain(padded(message));
        CHECK(hex(digest) == expected);
    }
}

// ---- random messages of many public lengths --------------------------------

TEST_CASE("lib.sha256.random_messages") {
    std::vector<std::size_t> lengths;
#ifdef TANDEM_SANITIZED
    lengths = {0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 128, 200};
#else
    for (std::size_t n = 0; n <= 72; ++n) lengths.push_back(n);  // one and two blocks, every padding case
    for (const std::size_t n : {100, 119, 120, 127, 128, 129, 150, 183, 184, 191, 192, 199, 200}) lengths.push_back(n);
#endif
    const std::uint64_t seed = 0x5a256;
    std::mt19937_64 rng(seed);
    for (const std::size_t length : lengths) {
        INFO("seed " << seed << ", length " << length);
        const auto c = compile_prefix_hash(length);
        std::vector<std::tuple<plain_message>> sets(64);
        for (auto& s : sets)
            for (auto& byte : std::get<0>(s)) byte = static_cast<std::uint8_t>(rng());
        const auto got = c.eval_plain_batch(sets);
        REQUIRE(got.size() == sets.size());
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const auto expected = ref_sha256(std::span<const std::uint8_t>(std::get<0>(sets[i])).first(length));
            INFO("set " << i);
            CHECK(got[i] == expected);
        }
    }
}

// ---- the compression function alone ----------------------------------------

TEST_CASE("lib.sha256.compress_random") {
    const auto c = compile_compress();
    const std::uint64_t seed = 0xc0113;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<words8, words16>> sets(128);
    for (auto& s : sets) {
        for (auto& w : std::get<0>(s)) w = static_cast<std::uint32_t>(rng());
        for (auto& w : std::get<1>(s)) w = static_cast<std::uint32_t>(rng());
    }
    // Edge values: all zeros and all ones in the first two sets.
    std::get<0>(sets[0]).fill(0);
    std::get<1>(sets[0]).fill(0);
    std::get<0>(sets[1]).fill(0xffffffff);
    std::get<1>(sets[1]).fill(0xffffffff);
    const auto got = c.eval_plain_batch(sets);
    REQUIRE(got.size() == sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i) {
        INFO("set " << i);
        CHECK(got[i] == ref_compress(std::get<0>(sets[i]), std::get<1>(sets[i])));
    }
}

// ---- AND counts -----------------------------------------------------------

TEST_CASE("lib.sha256.and_counts") {
    CHECK(compile_compress().stats().and_gates == 22266);  // Bristol file: 22,573
    const auto three = compile([](const std::array<secure_uint<8>, 3>& m) { return lib::sha256(m); },
                               input<party::alice, std::array<secure_uint<8>, 3>>);
    CHECK(three.stats().and_gates == 20060);
    const auto sixty_four = compile([](const std::array<secure_uint<8>, 64>& m) { return lib::sha256(m); },
                                    input<party::alice, std::array<secure_uint<8>, 64>>);
    CHECK(sixty_four.stats().and_gates == 37779);
    // A public message costs nothing.
    const auto public_message = compile(
        [](secure_uint<8> x) {
            const std::array<secure_uint<8>, 3> m{'a', 'b', 'c'};
            return std::make_tuple(lib::sha256(m), x);
        },
        input<party::alice, secure_uint<8>>);
    CHECK(public_message.stats().and_gates == 0);
    const auto out = public_message.eval_plain(std::uint8_t{0});
    CHECK(hex(std::get<0>(out)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// ---- word_sum: multi-operand addition -------------------------------------

namespace {
template <std::size_t K>
auto compile_word_sum(std::uint32_t public_word) {
    return compile(
        [public_word](const std::array<secure_uint<32>, K>& rows) {
            std::vector<secure_uint<32>> v(rows.begin(), rows.end());
            if (public_word != 0) v.emplace_back(public_word);
            return tandem::detail::sum_words(std::span<const secure_uint<32>>(v));
        },
        input<party::alice, std::array<secure_uint<32>, K>>);
}

template <std::size_t K>
void check_word_sum(std::uint32_t public_word, std::uint64_t expected_ands, std::mt19937_64& rng) {
    const auto c = compile_word_sum<K>(public_word);
    INFO(K << " secret words + public " << public_word);
    CHECK(c.stats().and_gates == expected_ands);
    std::vector<std::tuple<std::array<std::uint32_t, K>>> sets(64);
    for (auto& s : sets)
        for (auto& w : std::get<0>(s)) w = static_cast<std::uint32_t>(rng());
    std::get<0>(sets[0]).fill(0xffffffff);
    const auto got = c.eval_plain_batch(sets);
    for (std::size_t i = 0; i < sets.size(); ++i) {
        std::uint32_t expected = public_word;
        for (const std::uint32_t w : std::get<0>(sets[i])) expected += w;
        CHECK(got[i] == expected);
    }
}
}  // namespace

TEST_CASE("lib.word_sum.counts_and_values") {
    const std::uint64_t seed = 0x5043;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    check_word_sum<1>(0, 0, rng);
    check_word_sum<2>(0, 31, rng);  // a ripple adder
    check_word_sum<3>(0, 61, rng);
    check_word_sum<4>(0, 92, rng);
    check_word_sum<5>(0, 121, rng);
    check_word_sum<8>(0, 213, rng);
    check_word_sum<1>(0xffffffff, 30, rng);   // x - 1: the public one at bit 0 is a free half adder
    check_word_sum<1>(1, 30, rng);            // x + 1: an incrementer, 30 ANDs
    check_word_sum<1>(0x80000000, 0, rng);    // only the top bit: an XOR
    check_word_sum<4>(0x428a2f98, 119, rng);  // T1 of round 0 (K_0)
    check_word_sum<2>(0xffffffff, 60, rng);
}

TEST_CASE("lib.word_sum.partly_public_words") {
    // Words whose low bits are public zeros (shifted values) cost no ANDs there.
    const auto c = compile(
        [](const std::array<secure_uint<32>, 3>& r) {
            const std::array<secure_uint<32>, 3> rows{r[0], r[1] << 8, (r[2] << 16) ^ 0x5a};
            return tandem::detail::sum_words(std::span<const secure_uint<32>>(rows));
        },
        input<party::alice, std::array<secure_uint<32>, 3>>);
    const std::uint64_t seed = 0x5044;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<std::array<std::uint32_t, 3>>> sets(64);
    for (auto& s : sets)
        for (auto& w : std::get<0>(s)) w = static_cast<std::uint32_t>(rng());
    const auto got = c.eval_plain_batch(sets);
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const auto& r = std::get<0>(sets[i]);
        CHECK(got[i] == r[0] + (r[1] << 8) + ((r[2] << 16) ^ 0x5au));
    }
    // bits 0-1: none (a public one meets a lone secret bit); 2-7: a carry chain, 6;
    // 8-15: two words and a carry, 8; 16: four bits, 2; 17-30: five bits, 2 each = 28.
    CHECK(c.stats().and_gates == 44);
}

// ---- garbled and streamed runs ---------------------------------------------

TEST_CASE("lib.sha256.garbled_two_party") {
    const auto c = compile_compress();
    const words8 state = {0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210,
                          0xdeadbeef, 0x0badf00d, 0xcafebabe, 0x8badf00d};
    words16 block{};
    for (std::size_t j = 0; j < 16; ++j) block[j] = static_cast<std::uint32_t>(0x9e3779b9u * (j + 1));
    words8 got_a{}, got_b{};
    rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1),
        [&](session& s) { got_a = s.run(c, state); }, [&](session& s) { got_b = s.run(c, block); }));
    const words8 expected = c.eval_plain(state, block);
    CHECK(expected == ref_compress(state, block));
    CHECK(got_a == expected);
    CHECK(got_b == expected);

    // A whole message, Alice's bytes.
    const auto h = compile_prefix_hash(56);
    const plain_message m = padded("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
    std::array<std::uint8_t, 32> digest_a{}, digest_b{};
    rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1), [&](session& s) { digest_a = s.run(h, m); },
        [&](session& s) { digest_b = s.run(h); }));
    CHECK(digest_a == h.eval_plain(m));
    CHECK(digest_b == digest_a);
    CHECK(hex(digest_a) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("lib.sha256.streamed") {
    auto f = [](const std::array<secure_uint<8>, 100>& m) { return lib::sha256(m); };
    const auto compiled = compile(f, input<party::alice, std::array<secure_uint<8>, 100>>);
    auto streamed = stream(f, input<party::alice, std::array<secure_uint<8>, 100>>);
    std::array<std::uint8_t, 100> m{};
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint8_t>(i * 37 + 11);
    const auto expected = compiled.eval_plain(m);
    CHECK(expected == ref_sha256(m));
    for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{1000}, default_segment_ands}) {  // 1: a cut after almost every AND
        INFO("segment_ands " << k);
        streamed.segment_ands = k;
        CHECK(streamed.eval_plain(m) == expected);
        CHECK(streamed.last_run().and_gates == compiled.stats().and_gates);
    }
}

// ---- SHA-3 (FIPS 202) --------------------------------------------------------

namespace {

/// A plain Keccak-f[1600] with the standard's tables typed in (FIPS 202 Table 2
/// for ρ; the round constants as listed in the Keccak reference), so the
/// header's derivations from Algorithms 2 and 5–6 are checked too.
void ref_keccak_f(std::array<std::uint64_t, 25>& a) {
    static constexpr std::uint64_t rc[24] = {
        0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000, 0x000000000000808b,
        0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008a, 0x0000000000000088,
        0x0000000080008009, 0x000000008000000a, 0x000000008000808b, 0x800000000000008b, 0x8000000000008089,
        0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
        0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008};
    static constexpr unsigned rho[5][5] = {// rho[x][y]
                                           {0, 36, 3, 41, 18},
                                           {1, 44, 10, 45, 2},
                                           {62, 6, 43, 15, 61},
                                           {28, 55, 25, 21, 56},
                                           {27, 20, 39, 8, 14}};
    auto rotl = [](std::uint64_t v, unsigned n) { return n == 0 ? v : (v << n) | (v >> (64 - n)); };
    for (int round = 0; round < 24; ++round) {
        std::uint64_t c[5], b[25];
        for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; ++x) {
            const std::uint64_t d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
            for (int y = 0; y < 5; ++y) a[x + 5 * y] ^= d;
        }
        for (int x = 0; x < 5; ++x)
            for (int y = 0; y < 5; ++y) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], rho[x][y]);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 5; ++x)
                a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
        a[0] ^= rc[round];
    }
}

std::vector<std::uint8_t> ref_sha3(std::span<const std::uint8_t> msg, std::size_t bits) {
    const std::size_t rate = (1600 - 2 * bits) / 8;
    std::vector<std::uint8_t> p(msg.begin(), msg.end());
    p.push_back(0x06);
    while (p.size() % rate != 0) p.push_back(0);
    p.back() |= 0x80;
    std::array<std::uint64_t, 25> s{};
    for (std::size_t off = 0; off < p.size(); off += rate) {
        for (std::size_t k = 0; k < rate; ++k) s[k / 8] ^= std::uint64_t{p[off + k]} << (8 * (k % 8));
        ref_keccak_f(s);
    }
    std::vector<std::uint8_t> out(bits / 8);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<std::uint8_t>(s[k / 8] >> (8 * (k % 8)));
    return out;
}

template <std::size_t Bits>
auto compile_prefix_sha3(std::size_t length) {
    return compile(
        [length](const message_t& m) { return lib::sha3<Bits>(std::span<const secure_uint<8>>(m).first(length)); },
        input<party::alice, message_t>);
}

template <std::size_t Bits>
void check_sha3_random(std::span<const std::size_t> lengths, std::mt19937_64& rng, std::uint64_t seed) {
    for (const std::size_t length : lengths) {
        INFO("SHA3-" << Bits << ", seed " << seed << ", length " << length);
        const auto c = compile_prefix_sha3<Bits>(length);
        std::vector<std::tuple<plain_message>> sets(64);
        for (auto& s : sets)
            for (auto& byte : std::get<0>(s)) byte = static_cast<std::uint8_t>(rng());
        const auto got = c.eval_plain_batch(sets);
        REQUIRE(got.size() == sets.size());
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const auto expected = ref_sha3(std::span<const std::uint8_t>(std::get<0>(sets[i])).first(length), Bits);
            const std::vector<std::uint8_t> digest(got[i].begin(), got[i].end());
            INFO("set " << i);
            CHECK(digest == expected);
        }
    }
}

}  // namespace

TEST_CASE("lib.sha3.reference_matches_fips202") {
    const std::string_view abc = "abc";
    const std::vector<std::uint8_t> v(abc.begin(), abc.end());
    CHECK(hex(ref_sha3({}, 256)) == "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    CHECK(hex(ref_sha3(v, 256)) == "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
}

TEST_CASE("lib.sha3.fips202") {
    // SHA3-256 of "" and "abc" (NIST CSRC example values for FIPS 202).
    struct example {
        std::string_view message, digest;
    };
    const example examples[] = {
        {"", "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"},
        {"abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
    };
    for (const example& ex : examples) {
        const std::string message(ex.message), expected(ex.digest);
        INFO("message: \"" << message << "\"");
        const auto c =
            compile([length = message.size()](
                        const message_t& m) { return lib::sha3_256(std::span<const secure_uint<8>>(m).first(length)); },
                    input<party::alice, message_t>);
        CHECK(hex(c.eval_plain(padded(message))) == expected);
    }
    // SHA3-512 of "abc".
    const auto c512 = compile_prefix_sha3<512>(3);
    CHECK(hex(c512.eval_plain(padded("abc"))) ==
          "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
          "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0");
}

TEST_CASE("lib.sha3.keccak_f1600_random") {
    const auto c = compile([](const lib::keccak_state& s) { return lib::keccak_f1600(s); },
                           input<party::alice, lib::keccak_state>);
    CHECK(c.stats().and_gates == 38400);  // 24 rounds × 1,600 χ ANDs, as the Bristol file
    const std::uint64_t seed = 0x3ecc;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<std::array<std::uint64_t, 25>>> sets(64);
    for (auto& s : sets)
        for (auto& lane : std::get<0>(s)) lane = rng();
    std::get<0>(sets[0]).fill(0);
    const auto got = c.eval_plain_batch(sets);
    REQUIRE(got.size() == sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i) {
        auto expected = std::get<0>(sets[i]);
        ref_keccak_f(expected);
        INFO("set " << i);
        CHECK(got[i] == expected);
    }
    // Keccak-f of the zero state: first lane F1258F7940E1DDE7 (Keccak team's test vectors).
    CHECK(got[0][0] == 0xf1258f7940e1dde7u);
}

TEST_CASE("lib.sha3.random_messages") {
    const std::uint64_t seed = 0x5a3;
    std::mt19937_64 rng(seed);
#ifdef TANDEM_SANITIZED
    const std::size_t lengths256[] = {0, 1, 134, 135, 136, 137, 200};
#else
    const std::size_t lengths256[] = {0, 1, 2, 3, 7, 8, 9, 63, 64, 100, 134, 135, 136, 137, 143, 144, 199, 200};
#endif
    const std::size_t others[] = {0, 71, 72, 103, 104, 143, 144, 200};  // around the 224/384/512 rates too
    check_sha3_random<256>(lengths256, rng, seed);
    check_sha3_random<224>(others, rng, seed);
    check_sha3_random<384>(others, rng, seed);
    check_sha3_random<512>(others, rng, seed);
}

TEST_CASE("lib.sha3.and_counts") {
    const auto three = compile([](const std::array<secure_uint<8>, 3>& m) { return lib::sha3_256(m); },
                               input<party::alice, std::array<secure_uint<8>, 3>>);
    CHECK(three.stats().and_gates == 35461);
    const auto two_hundred = compile([](const std::array<secure_uint<8>, 200>& m) { return lib::sha3_256(m); },
                                     input<party::alice, std::array<secure_uint<8>, 200>>);
    CHECK(two_hundred.stats().and_gates == 75456);  // 2 × 38,400 - 1,344: the last χ only on 4 lanes
}

TEST_CASE("lib.sha3.garbled_and_streamed") {
    auto f = [](const std::array<secure_uint<8>, 3>& a, const std::array<secure_uint<8>, 3>& b) {
        std::array<secure_uint<8>, 6> m;
        for (std::size_t i = 0; i < 3; ++i) {
            m[i] = a[i];
            m[3 + i] = b[i];
        }
        return lib::sha3_256(m);
    };
    using bytes3 = std::array<secure_uint<8>, 3>;
    const auto c = compile(f, input<party::alice, bytes3>, input<party::bob, bytes3>);
    const std::array<std::uint8_t, 3> a{'a', 'b', 'c'}, b{'d', 'e', 'f'};
    const std::array<std::uint8_t, 6> both{'a', 'b', 'c', 'd', 'e', 'f'};
    const auto expected = c.eval_plain(a, b);
    const std::vector<std::uint8_t> expected_v(expected.begin(), expected.end());
    CHECK(expected_v == ref_sha3(both, 256));
    std::array<std::uint8_t, 32> got_a{}, got_b{};
    rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1), [&](session& s) { got_a = s.run(c, a); },
        [&](session& s) { got_b = s.run(c, b); }));
    CHECK(got_a == expected);
    CHECK(got_b == expected);

    auto streamed = stream(f, input<party::alice, bytes3>, input<party::bob, bytes3>);
    for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{1000}}) {
        INFO("segment_ands " << k);
        streamed.segment_ands = k;
        CHECK(streamed.eval_plain(a, b) == expected);
        CHECK(streamed.last_run().and_gates == c.stats().and_gates);
    }
}

}  // namespace lib_sha_tests
