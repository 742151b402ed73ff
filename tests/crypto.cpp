// crypto/: AES-128 against FIPS-197, the batched and multi-key paths against
// each other, the PRG and the hash.
#include <doctest/doctest.h>

#include "isa.hpp"

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>

#include <cstdlib>
#include <string>

namespace crypto_tests {

using namespace tandem;
using tandem::test::for_each_isa;

namespace {
block from_hex(const std::string& hex) {
    unsigned char b[16];
    for (int i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    return block::load(b);
}
std::string to_hex(block x) {
    unsigned char b[16];
    x.store(b);
    std::string s;
    for (unsigned char c : b) {
        s += "0123456789abcdef"[c >> 4];
        s += "0123456789abcdef"[c & 15];
    }
    return s;
}
}  // namespace

TEST_CASE("crypto.aes.fips197") {
    // Appendix C.1 and Appendix B (with the last round key of Appendix A.1).
    const aes_key k1(from_hex("000102030405060708090a0b0c0d0e0f"));
    CHECK(to_hex(k1.encrypt(from_hex("00112233445566778899aabbccddeeff"))) == "69c4e0d86a7b0430d8cdb78070b4c55a");
    const aes_key k2(from_hex("2b7e151628aed2a6abf7158809cf4f3c"));
    CHECK(to_hex(k2.round[10]) == "d014f9a8c9ee2589e13f0cc8b6630ca6");
    CHECK(to_hex(k2.encrypt(from_hex("3243f6a8885a308d313198a2e0370734"))) == "3925841d02dc09fbdc118597196a0b32");
}

TEST_CASE("crypto.aes.batched_paths_agree") {
    for_each_isa([](aes_isa) {
        prg rng(block(0, 42));
        const aes_key key(rng.next());
        block b[21], ref[21];
        rng.fill(b, 21);
        for (int i = 0; i < 21; ++i) ref[i] = key.encrypt(b[i]);
        key.encrypt(b, 21);
        for (int i = 0; i < 21; ++i) CHECK(b[i] == ref[i]);

        // Many keys, expanded on the fly: AES-NI form, VAES form (when compiled), one key at a time.
        constexpr std::size_t N = 16, C = 2;
        block keys[N], x[C * N], y[C * N], z[C * N];
        rng.fill(keys, N);
        rng.fill(x, C * N);
        std::copy(x, x + C * N, y);
        std::copy(x, x + C * N, z);
        multi_key_encrypt_aesni<N, C>(keys, x);
        multi_key_encrypt_scalar(keys, N, C, y);
        multi_key_encrypt<N, C>(keys, z);
        for (std::size_t i = 0; i < C * N; ++i) {
            CHECK(x[i] == y[i]);
            CHECK(z[i] == y[i]);
        }
        // The FIPS-197 vector through the multi-key path.
        block k[4] = {from_hex("000102030405060708090a0b0c0d0e0f"), keys[1], keys[2], keys[3]};
        block p[4] = {from_hex("00112233445566778899aabbccddeeff"), x[1], x[2], x[3]};
        block q[4] = {p[0], p[1], p[2], p[3]};
        multi_key_encrypt<4, 1>(k, p);
        CHECK(to_hex(p[0]) == "69c4e0d86a7b0430d8cdb78070b4c55a");
        multi_key_encrypt_aesni<4, 1>(k, q);
        CHECK(to_hex(q[0]) == "69c4e0d86a7b0430d8cdb78070b4c55a");
    });
}

TEST_CASE("crypto.isa.choice") {
    // The chosen set is one this CPU runs; forcing either works or says why not.
    CHECK(cpu_supports(active_aes_isa()));
    CHECK(cpu_supports(narrowest_aes_isa));
    const aes_isa before = active_aes_isa();
    for (const aes_isa isa : all_aes_isas) {
        if (cpu_supports(isa)) {
            use_aes_isa(isa);
            CHECK(active_aes_isa() == isa);
        } else {
            CHECK_THROWS_WITH_AS(use_aes_isa(isa), doctest::Contains("cannot run"), usage_error);
        }
    }
    use_aes_isa(before);
    // TANDEM_ISA is read by every engine's entry check: a value tandem does
    // not know is refused with the values it does.
    const char* old = std::getenv("TANDEM_ISA");
    const std::string saved = old ? old : "";
    ::setenv("TANDEM_ISA", "avx9000", 1);
    CHECK_THROWS_WITH_AS(detail::require_aes_instructions(),
                         doctest::Contains("use aesni, vaes256, vaes, armv8 or auto"), usage_error);
    ::setenv("TANDEM_ISA", to_string(narrowest_aes_isa), 1);
    CHECK_NOTHROW(detail::require_aes_instructions());
    for (const aes_isa isa : {aes_isa::aesni, aes_isa::vaes256, aes_isa::vaes, aes_isa::armv8}) {
        ::setenv("TANDEM_ISA", to_string(isa), 1);
        if (cpu_supports(isa))
            CHECK_NOTHROW(detail::require_aes_instructions());
        else  // another architecture's, or a wider one this CPU lacks
            CHECK_THROWS_WITH_AS(detail::require_aes_instructions(), doctest::Contains("but this CPU"), usage_error);
    }
    if (old)
        ::setenv("TANDEM_ISA", saved.c_str(), 1);
    else
        ::unsetenv("TANDEM_ISA");
    MESSAGE("AES kernels chosen for this CPU: " << std::string(to_string(before)));
}

TEST_CASE("crypto.prg") {
    prg a(block(1, 2)), b(block(1, 2)), c(block(1, 3));
    for (int i = 0; i < 10; ++i) {
        const block x = a.next();
        CHECK(x == b.next());
        CHECK(!(x == c.next()));
    }
    prg os1, os2;  // seeded from getrandom
    CHECK(!(os1.next() == os2.next()));
    CHECK(!(os_random_block() == os_random_block()));
}

TEST_CASE("crypto.hash.batched_equals_scalar") {
    for_each_isa([](aes_isa) {
        prg rng(block(7, 7));
        const rekeyed_hash h(rng.next());
        constexpr std::size_t N = 32;
        block x[2 * N], y[2 * N];
        rng.fill(x, 2 * N);
        std::copy(x, x + 2 * N, y);
        h.hash<N, 2>(1000, x);
        h.hash(1000, N, 2, y);
        for (std::size_t i = 0; i < 2 * N; ++i) CHECK(x[i] == y[i]);
        // Batches whose tweaks carry into the high word, or wrap: the
        // word-sliced schedules split each tweak into 32-bit words.
        for (const std::uint64_t first : {std::uint64_t{0xFFFFFFF0}, ~std::uint64_t{0} - 20}) {
            INFO("first tweak " << first);
            block u[2 * N], w[2 * N];
            rng.fill(u, 2 * N);
            std::copy(u, u + 2 * N, w);
            h.hash<N, 2>(first, u);
            h.hash(first, N, 2, w);
            for (std::size_t i = 0; i < 2 * N; ++i) CHECK(u[i] == w[i]);
            block e[N], f[N];  // the evaluator's shape: one block per tweak
            rng.fill(e, N);
            std::copy(e, e + N, f);
            h.hash<N, 1>(first + 1, e);
            h.hash(first + 1, N, 1, f);
            for (std::size_t i = 0; i < N; ++i) CHECK(e[i] == f[i]);
        }
        // Definition: H(x, j) = AES_{S ^ j}(sigma(x)) ^ sigma(x).
        block one[1] = {y[0]};
        const block input = rng.next();
        one[0] = input;
        h.hash(5, 1, 1, one);
        const block s = sigma(input);
        CHECK(one[0] == (aes_key(h.start() ^ block(0, 5)).encrypt(s) ^ s));
        // sigma(hi, lo) = (hi ^ lo, hi)
        const block t = sigma(block(0x1111, 0x2222));
        CHECK(t.high() == (0x1111 ^ 0x2222));
        CHECK(t.low() == 0x1111);
    });
}


TEST_CASE("crypto.fixed_key_hash.batched_equals_scalar") {
    for_each_isa([](aes_isa) {
        prg rng(block(8, 8));
        const fixed_key_hash h(rng.next());
        constexpr std::size_t N = 16;
        block x[2 * N], y[2 * N];
        rng.fill(x, 2 * N);
        std::copy(x, x + 2 * N, y);
        h.hash<N, 2>(77, x);
        h.hash(77, N, 2, y);
        for (std::size_t i = 0; i < 2 * N; ++i) CHECK(x[i] == y[i]);
        block small[4], small_ref[4];  // the small-batch path (one gate, both labels)
        rng.fill(small, 4);
        std::copy(small, small + 4, small_ref);
        h.hash<2, 2>(123, small);
        h.hash(123, 2, 2, small_ref);
        for (int i = 0; i < 4; ++i) CHECK(small[i] == small_ref[i]);
        // Definition: H(x, j) = pi(sigma(x) ^ j) ^ sigma(x) ^ j with pi = AES_S.
        const block in = y[0];
        block one[1] = {in};
        h.hash(9, 1, 1, one);
        const block k = sigma(in) ^ block(0, 9);
        CHECK(one[0] == (aes_key(h.start()).encrypt(k) ^ k));
    });
}

}  // namespace crypto_tests

// The 128-bit hash's two schedule paths, each called directly: the kernels
// run only the one this CPU picks (AVX2 where it has it), so the other is
// checked here against FIPS-197's one-key schedule (aes_key).
TANDEM_CRYPTO_BEGIN
namespace crypto_tests {
template <std::size_t Z>
void sliced_round_keys_128(tandem::block start, std::uint64_t first, tandem::detail::vec128 (&k)[11][Z]) {
    tandem::detail::sliced_tweak_round_keys<tandem::detail::lanes128, Z>(start, first, k);
}
}  // namespace crypto_tests
TANDEM_CRYPTO_END

namespace crypto_tests {

template <std::size_t Z>
void check_tweak_schedules(bool avx2) {
    prg rng(block(11, Z));
    const block start = rng.next();
    for (const std::uint64_t first : {std::uint64_t{40}, std::uint64_t{0xFFFFFFFC}, ~std::uint64_t{0} - 5}) {
        INFO("Z " << Z << ", first tweak " << first << (avx2 ? ", AVX2" : ", 128-bit"));
        alignas(32) detail::vec128 k[11][Z];
#if TANDEM_X86
        if constexpr (Z % 8 == 0) {
            if (avx2) detail::avx2::tweak_round_keys<Z>(start, first, k);
        }
#endif
        if (!avx2) sliced_round_keys_128<Z>(start, first, k);
        for (std::size_t m = 0; m < Z; ++m) {
            const aes_key key(start ^ block(0, first + m));
            for (std::size_t r = 0; r < 11; ++r) CHECK(block(k[r][m]) == key.round[r]);
        }
    }
}

TEST_CASE("crypto.hash.aesni_schedules_equal_fips197") {
    for (const bool avx2 : {false, true}) {
#if TANDEM_X86
        const bool have_avx2 = detail::cpu().avx2;
#else
        const bool have_avx2 = false;
#endif
        if (avx2 && !have_avx2) {
            MESSAGE("this CPU lacks AVX2: its AES-NI schedule path is not run here");
            continue;
        }
        if (!avx2) check_tweak_schedules<4>(false);
        check_tweak_schedules<8>(avx2);
        check_tweak_schedules<16>(avx2);
        check_tweak_schedules<32>(avx2);
    }
}

TEST_CASE("crypto.hash.key_cache_for_chains") {
    // Consecutive one-gate calls (a chain) switch to cached key schedules; the
    // results must not change, including across refills and after jumps.
    for_each_isa([](aes_isa) {
        prg rng(block(9, 9));
        const rekeyed_hash cached(rng.next());
        const rekeyed_hash reference(cached.start());
        std::uint64_t tweak = 0;
        for (int call = 0; call < 200; ++call) {
            if (call == 50) tweak += 1000;  // a jump: back to the direct path, then a new chain
            if (call == 120) tweak += 3;    // misaligned restart
            block x[4], y[4];
            rng.fill(x, 4);
            std::copy(x, x + 4, y);
            cached.hash<2, 2>(tweak, x);
            reference.hash(tweak, 2, 2, y);
            for (int i = 0; i < 4; ++i) CHECK(x[i] == y[i]);
            tweak += 2;
        }
    });
}

}  // namespace crypto_tests
