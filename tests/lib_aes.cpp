// tandem::lib AES (lib/aes.hpp): the 32-AND S-box on all 256 inputs, the
// FIPS-197 and SP 800-38A vectors, bit-for-bit agreement with the Bristol
// Fashion AES-128, a plain reference AES on random inputs, exact AND counts,
// garbled two-party runs, a streamed run and many blocks under one key.
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/lib/aes.hpp>
#include <tandem/tandem.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace lib_aes_tests {

using namespace tandem;

namespace {

using bytes16 = std::array<std::uint8_t, 16>;

// Random input sets per sweep (the whole file runs in well under a second,
// so the sweeps need not shrink under the sanitizers).
constexpr std::size_t random_sets = 1024;

template <std::size_t N>
std::array<std::uint8_t, N> hex(std::string_view h) {
    if (h.size() != 2 * N) throw std::logic_error("hex: expected " + std::to_string(2 * N) + " digits");
    std::array<std::uint8_t, N> out{};
    for (std::size_t i = 0; i < N; ++i)
        out[i] = static_cast<std::uint8_t>(std::stoul(std::string(h.substr(2 * i, 2)), nullptr, 16));
    return out;
}

template <std::size_t N>
std::string hex_of(const std::array<std::uint8_t, N>& b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (const std::uint8_t v : b) {
        s += digits[v >> 4];
        s += digits[v & 15];
    }
    return s;
}

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes(std::mt19937_64& rng) {
    std::array<std::uint8_t, N> out{};
    for (auto& b : out) b = static_cast<std::uint8_t>(rng());
    return out;
}

// ---- A plain reference AES, written apart from the library ------------------
// (FIPS-197: the S-box from log/antilog tables to the generator 0x03, the
// cipher on a 4x4 state with MixColumns as its matrix, the schedule on words.)
namespace ref {

std::uint8_t mul(std::uint8_t a, std::uint8_t b) {
    std::uint8_t r = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & 1) r ^= a;
        const bool hi = (a & 0x80) != 0;
        a = static_cast<std::uint8_t>(a << 1);
        if (hi) a ^= 0x1b;
        b >>= 1;
    }
    return r;
}

std::array<std::uint8_t, 256> make_sbox() {
    std::array<std::uint8_t, 256> exp{}, log{};
    std::uint8_t p = 1;
    for (int i = 0; i < 255; ++i) {
        exp[i] = p;
        log[p] = static_cast<std::uint8_t>(i);
        p = mul(p, 3);
    }
    std::array<std::uint8_t, 256> s{};
    for (int x = 0; x < 256; ++x) {
        const std::uint8_t inv = x == 0 ? 0 : exp[(255 - log[x]) % 255];
        std::uint8_t b = inv;
        auto rotl = [](std::uint8_t v, int k) { return static_cast<std::uint8_t>((v << k) | (v >> (8 - k))); };
        b = static_cast<std::uint8_t>(inv ^ rotl(inv, 1) ^ rotl(inv, 2) ^ rotl(inv, 3) ^ rotl(inv, 4) ^ 0x63);
        s[x] = b;
    }
    return s;
}

const std::array<std::uint8_t, 256>& sbox() {
    static const auto s = make_sbox();
    return s;
}

template <std::size_t K>
std::vector<std::uint8_t> expand(const std::array<std::uint8_t, K>& key) {
    const std::size_t nk = K / 4, nr = nk + 6, total = 4 * (nr + 1);
    std::vector<std::uint32_t> w(total);
    for (std::size_t i = 0; i < nk; ++i)
        w[i] = std::uint32_t{key[4 * i]} << 24 | std::uint32_t{key[4 * i + 1]} << 16 |
               std::uint32_t{key[4 * i + 2]} << 8 | key[4 * i + 3];
    auto sub_word = [](std::uint32_t v) {
        std::uint32_t r = 0;
        for (int s = 0; s < 32; s += 8) r |= std::uint32_t{sbox()[(v >> s) & 0xff]} << s;
        return r;
    };
    std::uint8_t rcon = 1;
    for (std::size_t i = nk; i < total; ++i) {
        std::uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = sub_word(t << 8 | t >> 24) ^ (std::uint32_t{rcon} << 24);
            rcon = mul(rcon, 2);
        } else if (nk > 6 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    std::vector<std::uint8_t> out;
    for (const std::uint32_t v : w)
        for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
    return out;
}

template <std::size_t K>
bytes16 encrypt(const std::array<std::uint8_t, K>& key, const bytes16& in) {
    const std::vector<std::uint8_t> w = expand(key);
    const std::size_t nr = K / 4 + 6;
    std::uint8_t st[4][4];  // st[row][column]
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) st[r][c] = in[r + 4 * c];
    auto add_key = [&](std::size_t round) {
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) st[r][c] ^= w[16 * round + 4 * c + r];
    };
    add_key(0);
    for (std::size_t round = 1; round <= nr; ++round) {
        for (auto& row : st)
            for (auto& b : row) b = sbox()[b];
        for (int r = 1; r < 4; ++r) {
            std::uint8_t row[4];
            for (int c = 0; c < 4; ++c) row[c] = st[r][(c + r) % 4];
            for (int c = 0; c < 4; ++c) st[r][c] = row[c];
        }
        if (round != nr) {
            static constexpr std::uint8_t m[4][4] = {{2, 3, 1, 1}, {1, 2, 3, 1}, {1, 1, 2, 3}, {3, 1, 1, 2}};
            for (int c = 0; c < 4; ++c) {
                std::uint8_t col[4];
                for (int r = 0; r < 4; ++r) {
                    col[r] = 0;
                    for (int k = 0; k < 4; ++k) col[r] ^= mul(m[r][k], st[k][c]);
                }
                for (int r = 0; r < 4; ++r) st[r][c] = col[r];
            }
        }
        add_key(round);
    }
    bytes16 out{};
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) out[r + 4 * c] = st[r][c];
    return out;
}

}  // namespace ref

// ---- Circuits, compiled once per run ------------------------------------------

template <std::size_t K>
const auto& encrypt_circuit() {
    static const auto c =
        compile([](const lib::aes_key<K>& k, const lib::aes_block& b) { return lib::aes_encrypt(k, b); },
                input<party::alice, lib::aes_key<K>>, input<party::bob, lib::aes_block>);
    return c;
}

template <std::size_t K>
const auto& expanded_circuit() {
    static const auto c = compile(
        [](const lib::aes_round_keys<K>& k, const lib::aes_block& b) { return lib::aes_encrypt_expanded(k, b); },
        input<party::alice, lib::aes_round_keys<K>>, input<party::bob, lib::aes_block>);
    return c;
}

constexpr std::size_t n_blocks = 8;
using blocks_t = std::array<bytes16, n_blocks>;

/// n_blocks blocks under one secret key: the schedule once, then a region
/// with one instance per block.
template <std::size_t K>
const auto& many_blocks_circuit() {
    static const auto c = compile(
        [](const lib::aes_key<K>& k, const std::array<lib::aes_block, n_blocks>& blocks) {
            const lib::aes_round_keys<K> rk = lib::aes_expand_key(k);
            return parallel_for<n_blocks>([&](std::size_t i) { return lib::aes_encrypt_expanded(rk, blocks[i]); });
        },
        input<party::alice, lib::aes_key<K>>, input<party::bob, std::array<lib::aes_block, n_blocks>>);
    return c;
}

/// The FIPS-197 Appendix C example: key 00 01 02 …, plaintext 00 11 22 … ff.
template <std::size_t K>
std::array<std::uint8_t, K> counting_key() {
    std::array<std::uint8_t, K> k{};
    for (std::size_t i = 0; i < K; ++i) k[i] = static_cast<std::uint8_t>(i);
    return k;
}
constexpr bytes16 appendix_c_plaintext{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

template <std::size_t K>
void check_appendix_c(std::string_view ciphertext, std::uint64_t ands, std::uint64_t expanded_ands,
                      std::uint64_t depth) {
    INFO("AES-" << 8 * K);
    const auto key = counting_key<K>();
    const auto& c = encrypt_circuit<K>();
    const auto& e = expanded_circuit<K>();
    CHECK(hex_of(c.eval_plain(key, appendix_c_plaintext)) == ciphertext);
    CHECK(hex_of(e.eval_plain(lib::aes_expand_key(key), appendix_c_plaintext)) == ciphertext);
    CHECK(hex_of(ref::encrypt(key, appendix_c_plaintext)) == ciphertext);
    CHECK(c.stats().and_gates == ands);
    CHECK(e.stats().and_gates == expanded_ands);
    CHECK(c.stats().and_depth == depth);
    CHECK(e.stats().and_depth == depth);
}

/// The round-key bytes of FIPS-197 Appendix A, typed as its words w[i].
template <std::size_t K>
void check_appendix_a(std::string_view key, std::string_view words) {
    INFO("AES-" << 8 * K);
    const auto expanded = lib::aes_expand_key(hex<K>(key));
    REQUIRE(words.size() == 2 * expanded.size());
    CHECK(hex_of(expanded) == words);
    const std::vector<std::uint8_t> r = ref::expand(hex<K>(key));
    CHECK(std::vector<std::uint8_t>(expanded.begin(), expanded.end()) == r);
}

template <std::size_t K>
void check_random_against_reference(std::uint64_t seed) {
    INFO("AES-" << 8 * K << ", seed " << seed);
    std::mt19937_64 rng(seed);
    using key_t = std::array<std::uint8_t, K>;
    using rk_t = std::array<std::uint8_t, lib::aes_round_key_bytes(K)>;
    std::vector<std::tuple<key_t, bytes16>> sets;
    std::vector<std::tuple<rk_t, bytes16>> expanded_sets;
    for (std::size_t i = 0; i < random_sets / 4; ++i) {
        const auto key = random_bytes<K>(rng);
        const auto block = random_bytes<16>(rng);
        sets.emplace_back(key, block);
        expanded_sets.emplace_back(lib::aes_expand_key(key), block);
    }
    const auto got = encrypt_circuit<K>().eval_plain_batch(sets);
    const auto got_expanded = expanded_circuit<K>().eval_plain_batch(expanded_sets);
    REQUIRE(got.size() == sets.size());
    REQUIRE(got_expanded.size() == sets.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const bytes16 want = ref::encrypt(std::get<0>(sets[i]), std::get<1>(sets[i]));
        if (got[i] != want || got_expanded[i] != want) {
            ++wrong;
            INFO("set " << i << ": key " << hex_of(std::get<0>(sets[i])) << ", block " << hex_of(std::get<1>(sets[i])));
            CHECK(hex_of(got[i]) == hex_of(want));
            CHECK(hex_of(got_expanded[i]) == hex_of(want));
        }
    }
    CHECK(wrong == 0);
}

/// Garbled two-party runs (key from Alice, block from Bob) equal plaintext.
template <std::size_t K>
void check_garbled(std::uint64_t seed) {
    INFO("AES-" << 8 * K << ", seed " << seed);
    std::mt19937_64 rng(seed);
    const auto& c = encrypt_circuit<K>();
    const auto& e = expanded_circuit<K>();
    const std::array<std::array<std::uint8_t, K>, 2> keys{counting_key<K>(), random_bytes<K>(rng)};
    const std::array<bytes16, 2> blocks{appendix_c_plaintext, random_bytes<16>(rng)};
    std::array<bytes16, 2> alice_got{}, bob_got{}, alice_expanded{}, bob_expanded{};
    test::rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1),
        [&](session& s) {
            for (std::size_t i = 0; i < 2; ++i) {
                alice_got[i] = s.run(c, keys[i]);
                alice_expanded[i] = s.run(e, lib::aes_expand_key(keys[i]));
            }
        },
        [&](session& s) {
            for (std::size_t i = 0; i < 2; ++i) {
                bob_got[i] = s.run(c, blocks[i]);
                bob_expanded[i] = s.run(e, blocks[i]);
            }
        }));
    for (std::size_t i = 0; i < 2; ++i) {
        const bytes16 want = c.eval_plain(keys[i], blocks[i]);
        CHECK(want == ref::encrypt(keys[i], blocks[i]));
        CHECK(alice_got[i] == want);
        CHECK(bob_got[i] == want);
        CHECK(alice_expanded[i] == want);
        CHECK(bob_expanded[i] == want);
    }
}

// SP 800-38A Appendix F.1: four plaintext blocks shared by all key sizes.
constexpr std::array<std::string_view, 4> sp800_38a_plaintexts{
    "6bc1bee22e409f96e93d7e117393172a", "ae2d8a571e03ac9c9eb76fac45af8e51", "30c81c46a35ce411e5fbc1191a0a52ef",
    "f69f2445df4f9b17ad2b417be66c3710"};

template <std::size_t K>
void check_sp800_38a(std::string_view key_hex, const std::array<std::string_view, 4>& ciphertexts) {
    INFO("AES-" << 8 * K);
    const auto key = hex<K>(key_hex);
    // The four blocks under one key in one circuit (blocks 4..7 repeat them).
    blocks_t blocks{};
    for (std::size_t i = 0; i < n_blocks; ++i) blocks[i] = hex<16>(sp800_38a_plaintexts[i % 4]);
    const auto got = many_blocks_circuit<K>().eval_plain(key, blocks);
    for (std::size_t i = 0; i < n_blocks; ++i) {
        INFO("block " << i);
        CHECK(hex_of(got[i]) == ciphertexts[i % 4]);
        CHECK(hex_of(encrypt_circuit<K>().eval_plain(key, blocks[i])) == ciphertexts[i % 4]);
    }
}

}  // namespace

// ---- The S-box ----------------------------------------------------------------

TEST_CASE("lib.aes.sbox_exhaustive") {
    const auto c =
        compile([](const secure_uint<8>& x) { return lib::aes_sbox(x); }, input<party::alice, secure_uint<8>>);
    CHECK(c.stats().and_gates == 32);
    CHECK(c.stats().and_depth == 6);
    std::vector<std::tuple<std::uint8_t>> all;
    for (unsigned x = 0; x < 256; ++x) all.emplace_back(static_cast<std::uint8_t>(x));
    const auto got = c.eval_plain_batch(all);
    REQUIRE(got.size() == 256);
    for (unsigned x = 0; x < 256; ++x) {
        INFO("x = " << x);
        CHECK(got[x] == ref::sbox()[x]);
        CHECK(detail::aes_sbox_table[x] == ref::sbox()[x]);
    }
    // FIPS-197 Figure 7, a few entries typed from the standard.
    CHECK(ref::sbox()[0x00] == 0x63);
    CHECK(ref::sbox()[0x01] == 0x7c);
    CHECK(ref::sbox()[0x53] == 0xed);
    CHECK(ref::sbox()[0x9a] == 0xb8);
    CHECK(ref::sbox()[0xff] == 0x16);
}

TEST_CASE("lib.aes.public_inputs_fold") {
    // A public byte folds to the table entry; a public key leaves only the
    // 160 S-boxes of the rounds.
    const auto s = compile(
        [](const secure_uint<8>& x) {
            return std::tuple{x, lib::aes_sbox(secure_uint<8>(0)), lib::aes_sbox(secure_uint<8>(0x53))};
        },
        input<party::alice, secure_uint<8>>);
    CHECK(s.stats().and_gates == 0);
    CHECK(s.eval_plain(std::uint8_t{7}) == std::tuple<std::uint8_t, std::uint8_t, std::uint8_t>{7, 0x63, 0xed});

    const auto key = hex<16>("2b7e151628aed2a6abf7158809cf4f3c");
    const auto c = compile(
        [&](const lib::aes_block& b) {
            lib::aes_key<16> k;
            for (std::size_t i = 0; i < 16; ++i) k[i] = key[i];
            return lib::aes_encrypt(k, b);
        },
        input<party::bob, lib::aes_block>);
    CHECK(c.stats().and_gates == 5120);
    // FIPS-197 Appendix B.
    CHECK(hex_of(c.eval_plain(hex<16>("3243f6a8885a308d313198a2e0370734"))) == "3925841d02dc09fbdc118597196a0b32");

    // The overload for a public key gives the same circuit size and result.
    const auto p128 = compile([&](const lib::aes_block& b) { return lib::aes_encrypt(key, b); },
                              input<party::bob, lib::aes_block>);
    CHECK(p128.stats().and_gates == 5120);
    CHECK(hex_of(p128.eval_plain(hex<16>("3243f6a8885a308d313198a2e0370734"))) == "3925841d02dc09fbdc118597196a0b32");
    const auto key192 = counting_key<24>();
    const auto key256 = counting_key<32>();
    const auto p192 = compile([&](const lib::aes_block& b) { return lib::aes_encrypt(key192, b); },
                              input<party::bob, lib::aes_block>);
    const auto p256 = compile([&](const lib::aes_block& b) { return lib::aes_encrypt(key256, b); },
                              input<party::bob, lib::aes_block>);
    CHECK(p192.stats().and_gates == 6144);
    CHECK(p256.stats().and_gates == 7168);
    CHECK(hex_of(p192.eval_plain(appendix_c_plaintext)) == "dda97ca4864cdfe06eaf70a0ec0d7191");
    CHECK(hex_of(p256.eval_plain(appendix_c_plaintext)) == "8ea2b7ca516745bfeafc49904b496089");
}

// ---- Standard vectors ---------------------------------------------------------

// The plain expansion runs at compile time too (FIPS-197 A.1: w[43] = b6630ca6).
constexpr std::array<std::uint8_t, 16> appendix_a1_key{0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                                       0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
static_assert(lib::aes_expand_key(appendix_a1_key)[175] == 0xa6);

TEST_CASE("lib.aes.fips197_key_expansion") {
    // FIPS-197 Appendix A.1, A.2, A.3: w[0] … w[4 Nr + 3].
    check_appendix_a<16>("2b7e151628aed2a6abf7158809cf4f3c",
                         "2b7e151628aed2a6abf7158809cf4f3c"
                         "a0fafe1788542cb123a339392a6c7605"
                         "f2c295f27a96b9435935807a7359f67f"
                         "3d80477d4716fe3e1e237e446d7a883b"
                         "ef44a541a8525b7fb671253bdb0bad00"
                         "d4d1c6f87c839d87caf2b8bc11f915bc"
                         "6d88a37a110b3efddbf98641ca0093fd"
                         "4e54f70e5f5fc9f384a64fb24ea6dc4f"
                         "ead27321b58dbad2312bf5607f8d292f"
                         "ac7766f319fadc2128d12941575c006e"
                         "d014f9a8c9ee2589e13f0cc8b6630ca6");
    check_appendix_a<24>("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                         "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"
                         "fe0c91f72402f5a5ec12068e6c827f6b0e7a95b95c56fec2"
                         "4db7b4bd69b5411885a74796e92538fde75fad44bb095386"
                         "485af05721efb14fa448f6d94d6dce24aa326360113b30e6"
                         "a25e7ed583b1cf9a27f939436a94f767c0a69407d19da4e1"
                         "ec1786eb6fa64971485f703222cb8755e26d135233f0b7b3"
                         "40beeb282f18a2596747d26b458c553ea7e1466c9411f1df"
                         "821f750aad07d753ca4005388fcc5006282d166abc3ce7b5"
                         "e98ba06f448c773c8ecc720401002202");
    check_appendix_a<32>("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                         "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
                         "9ba354118e6925afa51a8b5f2067fcdea8b09c1a93d194cdbe49846eb75d5b9a"
                         "d59aecb85bf3c917fee94248de8ebe96b5a9328a2678a647983122292f6c79b3"
                         "812c81addadf48ba24360af2fab8b46498c5bfc9bebd198e268c3ba709e04214"
                         "68007bacb2df331696e939e46c518d80c814e20476a9fb8a5025c02d59c58239"
                         "de1369676ccc5a71fa2563959674ee155886ca5d2e2f31d77e0af1fa27cf73c3"
                         "749c47ab18501ddae2757e4f7401905acafaaae3e4d59b349adf6acebd10190d"
                         "fe4890d1e6188d0b046df344706c631e");
}

TEST_CASE("lib.aes.fips197_appendix_c") {
    // C.1, C.2, C.3; AND counts as the Bristol Fashion circuits (6,400 /
    // 7,168 / 8,832) and 32 per S-box of the rounds when expanded outside.
    check_appendix_c<16>("69c4e0d86a7b0430d8cdb78070b4c55a", 6400, 5120, 60);
    check_appendix_c<24>("dda97ca4864cdfe06eaf70a0ec0d7191", 7168, 6144, 72);
    check_appendix_c<32>("8ea2b7ca516745bfeafc49904b496089", 8832, 7168, 84);
}

TEST_CASE("lib.aes.sp800_38a_ecb") {
    // F.1.1 ECB-AES128, F.1.3 ECB-AES192, F.1.5 ECB-AES256 (encrypt).
    check_sp800_38a<16>("2b7e151628aed2a6abf7158809cf4f3c",
                        {"3ad77bb40d7a3660a89ecaf32466ef97", "f5d3d58503b9699de785895a96fdbaaf",
                         "43b1cd7f598ece23881b00e3ed030688", "7b0c785e27e8ad3f8223207104725dd4"});
    check_sp800_38a<24>("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                        {"bd334f1d6e45f25ff712a214571fa5cc", "974104846d0ad3ad7734ecb3ecee4eef",
                         "ef7afd2270e2e60adce0ba2face6444e", "9a4b41ba738d6c72fb16691603c18e0e"});
    check_sp800_38a<32>("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                        {"f3eed1bdb5d2a03c064b5a7e3db181f8", "591ccb10d410ed26dc5ba74a31362870",
                         "b6ed21b99ca6f4f9f153e7b1beafed1d", "23304b7a39f9f3ff067d8d8f9e24ecc7"});
}

// ---- Agreement with other implementations -------------------------------------

TEST_CASE("lib.aes.bristol_aes128_bit_for_bit") {
    // tests/data/README.md: key is input 0, plaintext input 1; a
    // 16-byte string is a big-endian integer and wire j carries its bit j,
    // so bit k of byte i is wire 8 (15 - i) + k. Both circuits run in
    // plaintext, 64 input sets per pass.
    const circuit<> bristol = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const circuit_data& d = bristol.data();
    REQUIRE(d.inputs.size() == 2);
    REQUIRE(d.inputs[0].bits == 128);
    REQUIRE(d.inputs[1].bits == 128);
    REQUIRE(d.outputs.size() == 1);
    REQUIRE(d.outputs[0].bits == 128);
    CHECK(bristol.stats().and_gates == encrypt_circuit<16>().stats().and_gates);

    const std::uint64_t seed = 20261124;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::tuple<bytes16, bytes16>> sets;
    for (std::size_t i = 0; i < random_sets; ++i) sets.emplace_back(random_bytes<16>(rng), random_bytes<16>(rng));
    sets[0] = {counting_key<16>(), appendix_c_plaintext};
    const auto ours = encrypt_circuit<16>().eval_plain_batch(sets);
    REQUIRE(ours.size() == sets.size());

    std::vector<std::uint64_t> in(d.input_bits), out(d.output_slots.size());
    std::size_t compared = 0, wrong = 0;
    for (std::size_t base = 0; base < sets.size(); base += 64) {
        const std::size_t lanes = std::min<std::size_t>(64, sets.size() - base);
        std::fill(in.begin(), in.end(), 0);
        for (std::size_t l = 0; l < lanes; ++l)
            for (std::size_t v = 0; v < 2; ++v) {
                const bytes16& bytes = v == 0 ? std::get<0>(sets[base + l]) : std::get<1>(sets[base + l]);
                for (std::size_t i = 0; i < 16; ++i)
                    for (std::size_t k = 0; k < 8; ++k)
                        if ((bytes[i] >> k) & 1u) in[d.inputs[v].first_bit + 8 * (15 - i) + k] |= std::uint64_t{1} << l;
            }
        detail::eval_lanes(d, in, out);
        for (std::size_t l = 0; l < lanes; ++l) {
            bytes16 theirs{};
            for (std::size_t i = 0; i < 16; ++i)
                for (std::size_t k = 0; k < 8; ++k)
                    if ((out[d.outputs[0].first_bit + 8 * (15 - i) + k] >> l) & 1u)
                        theirs[i] |= static_cast<std::uint8_t>(1u << k);
            ++compared;
            if (theirs != ours[base + l]) {
                ++wrong;
                INFO("set " << base + l);
                CHECK(hex_of(ours[base + l]) == hex_of(theirs));
            }
        }
    }
    CHECK(compared == sets.size());
    CHECK(wrong == 0);
    CHECK(hex_of(ours[0]) == "69c4e0d86a7b0430d8cdb78070b4c55a");
}

TEST_CASE("lib.aes.random_against_reference") {
    check_random_against_reference<16>(1);
    check_random_against_reference<24>(2);
    check_random_against_reference<32>(3);
}

// ---- Composition: many blocks, streaming, two parties ---------------------------

TEST_CASE("lib.aes.many_blocks_one_key") {
    // The schedule once (1,280 / 1,024 / 1,664 ANDs), then 8 instances of the
    // rounds in one region: the instances are stored once.
    CHECK(many_blocks_circuit<16>().stats().and_gates == 1280 + n_blocks * 5120);
    CHECK(many_blocks_circuit<24>().stats().and_gates == 1024 + n_blocks * 6144);
    CHECK(many_blocks_circuit<32>().stats().and_gates == 1664 + n_blocks * 7168);
    const std::uint64_t seed = 77;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto key = random_bytes<32>(rng);
    blocks_t blocks{};
    for (auto& b : blocks) b = random_bytes<16>(rng);
    const auto got = many_blocks_circuit<32>().eval_plain(key, blocks);
    for (std::size_t i = 0; i < n_blocks; ++i) {
        INFO("block " << i);
        CHECK(got[i] == ref::encrypt(key, blocks[i]));
    }
}

TEST_CASE("lib.aes.stream_equals_compiled") {
    auto fn = stream([](const lib::aes_key<16>& k, const lib::aes_block& b) { return lib::aes_encrypt(k, b); },
                     input<party::alice, lib::aes_key<16>>, input<party::bob, lib::aes_block>);
    const std::uint64_t seed = 5;
    std::mt19937_64 rng(seed);
    for (const std::uint64_t segment : {default_segment_ands, std::uint64_t{100}}) {
        const auto key = random_bytes<16>(rng);
        const auto block = random_bytes<16>(rng);
        INFO("seed " << seed << ", segment_ands " << segment);
        fn.segment_ands = segment;
        const bytes16 streamed = fn.eval_plain(key, block);
        CHECK(streamed == encrypt_circuit<16>().eval_plain(key, block));
        CHECK(streamed == ref::encrypt(key, block));
        if (segment == default_segment_ands) CHECK(fn.last_run().and_gates == 6400);
    }
}

TEST_CASE("lib.aes.garbled_two_party") {
    check_garbled<16>(11);
    check_garbled<24>(12);
    check_garbled<32>(13);
}

TEST_CASE("lib.aes.garbled_stream") {
    // The streamed function between two sessions, in segments of about 1,000
    // ANDs, equals the compiled circuit in plaintext.
    auto fn = stream([](const lib::aes_key<32>& k, const lib::aes_block& b) { return lib::aes_encrypt(k, b); },
                     input<party::alice, lib::aes_key<32>>, input<party::bob, lib::aes_block>);
    fn.segment_ands = 1000;
    const std::uint64_t seed = 31;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto key = random_bytes<32>(rng);
    const auto block = random_bytes<16>(rng);
    bytes16 alice_got{}, bob_got{};
    test::rethrow(test::two_party(
        test::make_wiring(0), test::with_threads(1), test::with_threads(1),
        [&](session& s) { alice_got = s.run(fn, key); }, [&](session& s) { bob_got = s.run(fn, block); }));
    const bytes16 want = encrypt_circuit<32>().eval_plain(key, block);
    CHECK(alice_got == want);
    CHECK(bob_got == want);
    CHECK(want == ref::encrypt(key, block));
}

TEST_CASE("lib.aes.garbled_many_blocks_two_threads") {
    // The region of many_blocks_one_key on two workers per party.
    const std::uint64_t seed = 21;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto key = random_bytes<16>(rng);
    blocks_t blocks{};
    for (auto& b : blocks) b = random_bytes<16>(rng);
    const auto& c = many_blocks_circuit<16>();
    using out_t = std::array<bytes16, n_blocks>;
    out_t alice_got{}, bob_got{};
    test::rethrow(test::two_party(
        test::make_wiring(1), test::with_threads(2), test::with_threads(2),
        [&](session& s) { alice_got = s.run(c, key); }, [&](session& s) { bob_got = s.run(c, blocks); }));
    const out_t want = c.eval_plain(key, blocks);
    CHECK(alice_got == want);
    CHECK(bob_got == want);
    for (std::size_t i = 0; i < n_blocks; ++i) CHECK(want[i] == ref::encrypt(key, blocks[i]));
}

}  // namespace lib_aes_tests
