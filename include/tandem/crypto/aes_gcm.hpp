// tandem/crypto/aes_gcm.hpp — AES-256-GCM (NIST SP 800-38D [035]) with a 96-bit
// nonce, for the sealed links' records (net/noise.hpp, docs/DESIGN.md §9.3).
//
// libsodium's AES-256-GCM runs one block per instruction, ~1.5 GB/s per core
// on the 2-vCPU VM: slower than the garbler fills a link. This one runs the
// counter mode on the AES lanes the garbling kernels use (crypto/lanes.hpp:
// four blocks per instruction with VAES on 512-bit registers, two on 256,
// one with AES-NI, chosen by crypto/isa.hpp) and GHASH as one sum of
// products with precomputed powers of H, Σ X_i·H^(m−i+1), on
// gf128::multiply_add_rows (VPCLMULQDQ), reduced once per record. GCM's
// field is gf128's with every byte's bits reversed (GCM numbers bits from
// the most significant), so blocks are bit-reversed byte by byte on the way
// in and the tag on the way out. x86 only: elsewhere the links use
// ChaCha20-Poly1305 or libsodium. Checked against NIST's test cases and
// against libsodium on random keys, nonces and lengths (tests/secure_link.cpp).
#pragma once

#include <tandem/crypto/target.hpp>

#if TANDEM_X86

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tandem::detail {

// GCM's two passes, written once over "gcm ops" O (a register of O::width
// blocks; 128-, 256- and 512-bit versions below, each in its target region):
// inlined into one entry point per instruction set. Registers go by
// reference, as in crypto/lanes.hpp: by value, a wide vector crossing these
// untargeted templates would be an ABI change GCC warns of and Clang refuses.

/// out = in ⊕ AES-256(counters first, first + 1, …) for whole groups of
/// R·width blocks; returns how many blocks it did. The counter blocks are
/// made in registers: nonce ‖ BE32(c), c kept little-endian in each lane's
/// last word and byte-swapped into place.
template <class O, std::size_t R>
[[gnu::always_inline]] inline std::size_t gcm_ctr(const block* round, __m128i nonce, std::uint32_t first,
                                                  const std::uint8_t* in, std::uint8_t* out, std::size_t n) noexcept {
    using vec = typename O::vec;
    constexpr std::size_t step = R * O::width;
    vec rk[15];
    TANDEM_UNROLL
    for (int r = 0; r < 15; ++r) O::broadcast(rk[r], round[r].v);
    vec base, swap, one_step, ctr;
    O::broadcast(base, nonce);
    O::broadcast(swap, _mm_setr_epi8(-128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 15, 14,
                                     13, 12));
    O::broadcast(one_step, _mm_setr_epi32(0, 0, 0, static_cast<int>(O::width)));
    O::lane_counters(ctr, first);
    std::size_t i = 0;
    for (; i + step <= n; i += step) {
        vec s[R];
        TANDEM_UNROLL
        for (std::size_t j = 0; j < R; ++j) {
            vec c;
            O::shuffle(c, ctr, swap);
            O::xor3(s[j], base, c, rk[0]);
            O::add32(ctr, ctr, one_step);
        }
        TANDEM_UNROLL
        for (int r = 1; r < 14; ++r) {
            TANDEM_UNROLL
            for (std::size_t j = 0; j < R; ++j) O::aesenc(s[j], rk[r]);
        }
        TANDEM_UNROLL
        for (std::size_t j = 0; j < R; ++j) {
            const std::size_t at = 16 * (i + j * O::width);
            vec x;
            O::aesenclast(s[j], rk[14]);
            O::load(x, in + at);
            O::xor2(x, x, s[j]);
            O::store(out + at, x);
        }
    }
    return i;
}

/// acc += Σ_i rev(data block i)·powers[top − i] over whole groups of width
/// blocks (rev: each byte's bits reversed, GCM's bit order to gf128's);
/// returns how many blocks it did.
template <class O>
[[gnu::always_inline]] inline std::size_t gcm_ghash(const block* powers, std::size_t top, const std::uint8_t* data,
                                                    std::size_t n, gf128::accumulator& acc) noexcept {
    using vec = typename O::vec;
    vec low, rev, rev_high, lo, mid, hi;
    O::broadcast(low, _mm_set1_epi8(0x0f));
    O::broadcast(rev, _mm_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15));
    O::broadcast(rev_high, _mm_setr_epi8(0, -128, 64, -64, 32, -96, 96, -32, 16, -112, 80, -48, 48, -80, 112, -16));
    O::zero(lo);
    O::zero(mid);
    O::zero(hi);
    std::size_t i = 0;
    for (; i + O::width <= n; i += O::width) {
        vec x, a, b, h, p0, p1;
        O::load(x, data + 16 * i);
        O::and2(a, x, low);  // x's low nibbles, then its high ones, each through the table
        O::shift4(b, x);
        O::and2(b, b, low);
        O::shuffle(a, rev_high, a);
        O::shuffle(b, rev, b);
        O::or2(x, a, b);
        O::load(h, powers + top - i - (O::width - 1));
        O::reverse_lanes(h, h);
        O::template clmul<0x00>(p0, h, x);
        O::xor2(lo, lo, p0);
        O::template clmul<0x01>(p0, h, x);
        O::template clmul<0x10>(p1, h, x);
        O::xor3(mid, mid, p0, p1);
        O::template clmul<0x11>(p0, h, x);
        O::xor2(hi, hi, p0);
    }
    acc.lo = acc.lo ^ O::fold(lo);
    acc.mid = acc.mid ^ O::fold(mid);
    acc.hi = acc.hi ^ O::fold(hi);
    return i;
}

}  // namespace tandem::detail

TANDEM_VAES_BEGIN
namespace tandem::detail::vaes {
struct gcm_ops {
    using vec = __m512i;
    static constexpr std::size_t width = 4;
    static void broadcast(vec& r, __m128i b) noexcept { r = _mm512_maskz_broadcast_i32x4(0xFFFF, b); }
    static void zero(vec& r) noexcept { r = _mm512_setzero_si512(); }
    static void load(vec& r, const void* p) noexcept { r = _mm512_loadu_si512(p); }
    static void store(void* p, const vec& v) noexcept { _mm512_storeu_si512(p, v); }
    static void xor2(vec& r, const vec& a, const vec& b) noexcept { r = _mm512_xor_si512(a, b); }
    static void xor3(vec& r, const vec& a, const vec& b, const vec& c) noexcept { r = _mm512_ternarylogic_epi64(a, b, c, 0x96); }
    static void or2(vec& r, const vec& a, const vec& b) noexcept { r = _mm512_or_si512(a, b); }
    static void and2(vec& r, const vec& a, const vec& b) noexcept { r = _mm512_and_si512(a, b); }
    static void shift4(vec& r, const vec& a) noexcept { r = _mm512_srli_epi16(a, 4); }
    static void shuffle(vec& r, const vec& t, const vec& i) noexcept { r = _mm512_shuffle_epi8(t, i); }
    static void add32(vec& r, const vec& a, const vec& b) noexcept { r = _mm512_add_epi32(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm512_aesenc_epi128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm512_aesenclast_epi128(s, k); }
    static void lane_counters(vec& r, std::uint32_t c) noexcept {
        const auto x = static_cast<int>(c);
        r = _mm512_setr_epi32(0, 0, 0, x, 0, 0, 0, x + 1, 0, 0, 0, x + 2, 0, 0, 0, x + 3);
    }
    static void reverse_lanes(vec& r, const vec& v) noexcept { r = _mm512_maskz_shuffle_i64x2(0xFF, v, v, 0x1B); }
    template <int Which>
    static void clmul(vec& r, const vec& a, const vec& b) noexcept { r = _mm512_clmulepi64_epi128(a, b, Which); }
    static block fold(const vec& v) noexcept { return gf128::detail::vaes::fold(v); }
};
inline std::size_t gcm_ctr(const block* round, __m128i nonce, std::uint32_t first, const std::uint8_t* in,
                           std::uint8_t* out, std::size_t n) noexcept {
    return detail::gcm_ctr<gcm_ops, 8>(round, nonce, first, in, out, n);
}
inline std::size_t gcm_ghash(const block* powers, std::size_t top, const std::uint8_t* data, std::size_t n,
                             gf128::accumulator& acc) noexcept {
    return detail::gcm_ghash<gcm_ops>(powers, top, data, n, acc);
}
}  // namespace tandem::detail::vaes
TANDEM_VAES_END

TANDEM_VAES256_BEGIN
namespace tandem::detail::vaes256 {
struct gcm_ops {
    using vec = __m256i;
    static constexpr std::size_t width = 2;
    static void broadcast(vec& r, __m128i b) noexcept { r = _mm256_broadcastsi128_si256(b); }
    static void zero(vec& r) noexcept { r = _mm256_setzero_si256(); }
    static void load(vec& r, const void* p) noexcept { r = _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
    static void store(void* p, const vec& v) noexcept { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
    static void xor2(vec& r, const vec& a, const vec& b) noexcept { r = _mm256_xor_si256(a, b); }
    static void xor3(vec& r, const vec& a, const vec& b, const vec& c) noexcept { r = _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
    static void or2(vec& r, const vec& a, const vec& b) noexcept { r = _mm256_or_si256(a, b); }
    static void and2(vec& r, const vec& a, const vec& b) noexcept { r = _mm256_and_si256(a, b); }
    static void shift4(vec& r, const vec& a) noexcept { r = _mm256_srli_epi16(a, 4); }
    static void shuffle(vec& r, const vec& t, const vec& i) noexcept { r = _mm256_shuffle_epi8(t, i); }
    static void add32(vec& r, const vec& a, const vec& b) noexcept { r = _mm256_add_epi32(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm256_aesenc_epi128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm256_aesenclast_epi128(s, k); }
    static void lane_counters(vec& r, std::uint32_t c) noexcept {
        const auto x = static_cast<int>(c);
        r = _mm256_setr_epi32(0, 0, 0, x, 0, 0, 0, x + 1);
    }
    static void reverse_lanes(vec& r, const vec& v) noexcept { r = _mm256_permute2x128_si256(v, v, 0x01); }
    template <int Which>
    static void clmul(vec& r, const vec& a, const vec& b) noexcept { r = _mm256_clmulepi64_epi128(a, b, Which); }
    static block fold(const vec& v) noexcept { return gf128::detail::vaes256::fold(v); }
};
inline std::size_t gcm_ctr(const block* round, __m128i nonce, std::uint32_t first, const std::uint8_t* in,
                           std::uint8_t* out, std::size_t n) noexcept {
    return detail::gcm_ctr<gcm_ops, 6>(round, nonce, first, in, out, n);
}
inline std::size_t gcm_ghash(const block* powers, std::size_t top, const std::uint8_t* data, std::size_t n,
                             gf128::accumulator& acc) noexcept {
    return detail::gcm_ghash<gcm_ops>(powers, top, data, n, acc);
}
}  // namespace tandem::detail::vaes256
TANDEM_VAES256_END

TANDEM_CRYPTO_BEGIN
namespace tandem::detail::aesni {
struct gcm_ops {
    using vec = __m128i;
    static constexpr std::size_t width = 1;
    static void broadcast(vec& r, __m128i b) noexcept { r = b; }
    static void zero(vec& r) noexcept { r = _mm_setzero_si128(); }
    static void load(vec& r, const void* p) noexcept { r = _mm_loadu_si128(static_cast<const __m128i*>(p)); }
    static void store(void* p, const vec& v) noexcept { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
    static void xor2(vec& r, const vec& a, const vec& b) noexcept { r = _mm_xor_si128(a, b); }
    static void xor3(vec& r, const vec& a, const vec& b, const vec& c) noexcept { r = _mm_xor_si128(_mm_xor_si128(a, b), c); }
    static void or2(vec& r, const vec& a, const vec& b) noexcept { r = _mm_or_si128(a, b); }
    static void and2(vec& r, const vec& a, const vec& b) noexcept { r = _mm_and_si128(a, b); }
    static void shift4(vec& r, const vec& a) noexcept { r = _mm_srli_epi16(a, 4); }
    static void shuffle(vec& r, const vec& t, const vec& i) noexcept { r = _mm_shuffle_epi8(t, i); }
    static void add32(vec& r, const vec& a, const vec& b) noexcept { r = _mm_add_epi32(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm_aesenc_si128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm_aesenclast_si128(s, k); }
    static void lane_counters(vec& r, std::uint32_t c) noexcept {
        const auto x = static_cast<int>(c);
        r = _mm_setr_epi32(0, 0, 0, x);
    }
    static void reverse_lanes(vec& r, const vec& v) noexcept { r = v; }
    template <int Which>
    static void clmul(vec& r, const vec& a, const vec& b) noexcept { r = _mm_clmulepi64_si128(a, b, Which); }
    static block fold(const vec& v) noexcept { return block(v); }
};
template <std::size_t R>
inline std::size_t gcm_ctr(const block* round, __m128i nonce, std::uint32_t first, const std::uint8_t* in,
                           std::uint8_t* out, std::size_t n) noexcept {
    return detail::gcm_ctr<gcm_ops, R>(round, nonce, first, in, out, n);
}
inline std::size_t gcm_ghash(const block* powers, std::size_t top, const std::uint8_t* data, std::size_t n,
                             gf128::accumulator& acc) noexcept {
    return detail::gcm_ghash<gcm_ops>(powers, top, data, n, acc);
}
}  // namespace tandem::detail::aesni
TANDEM_CRYPTO_END

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// AES-256-GCM under one key, for messages of up to max_bytes with up to
/// max_ad_bytes of associated data. seal/open are not thread-safe (they
/// share scratch space); one object per direction of a link.
class aes256_gcm {
public:
    static constexpr std::size_t max_bytes = 65536;
    static constexpr std::size_t max_ad_bytes = 64;
    static constexpr std::size_t tag_bytes = 16;

    explicit aes256_gcm(const std::uint8_t* key) {
        expand_key(key);
        h_ = bit_reverse_bytes(encrypt_block(block(0, 0)));  // H = AES_K(0), in gf128's bit order
    }
    aes256_gcm(const aes256_gcm&) = delete;
    aes256_gcm& operator=(const aes256_gcm&) = delete;
    ~aes256_gcm() {
        tandem::detail::wipe(round_.data(), sizeof round_);
        tandem::detail::wipe(&h_, sizeof h_);
        tandem::detail::wipe_all(powers_);
    }

    /// out = the encryption of in (n bytes; in and out the same or
    /// disjoint), tag = its tag over ad and the ciphertext.
    void seal(const std::uint8_t* nonce, const std::uint8_t* ad, std::size_t ad_len, const std::uint8_t* in,
              std::size_t n, std::uint8_t* out, std::uint8_t* tag) {
        prepare(ad_len, n);
        ctr(nonce, in, n, out);
        make_tag(nonce, ad, ad_len, out, n, tag);
    }

    /// Checks the tag over ad and in; if it verifies, out = the decryption
    /// of in and true, else false and out untouched.
    [[nodiscard]] bool open(const std::uint8_t* nonce, const std::uint8_t* ad, std::size_t ad_len,
                            const std::uint8_t* in, std::size_t n, const std::uint8_t* tag, std::uint8_t* out) {
        prepare(ad_len, n);
        std::uint8_t want[16];
        make_tag(nonce, ad, ad_len, in, n, want);
        std::uint8_t diff = 0;
        for (int i = 0; i < 16; ++i) diff |= static_cast<std::uint8_t>(want[i] ^ tag[i]);  // constant time
        if (diff != 0) return false;
        ctr(nonce, in, n, out);
        return true;
    }

private:
    // The powers of H are made as far as the message needs (its blocks of
    // associated data and text, and the lengths): a short handshake
    // message costs a few products, not a table.
    void prepare(std::size_t ad_len, std::size_t n) {
        if (ad_len > max_ad_bytes || n > max_bytes) detail::internal_error("aes256_gcm: message too long");
        const std::size_t blocks = (ad_len + 15) / 16 + (n + 15) / 16 + 1;
        if (powers_.empty()) powers_.push_back(h_);
        while (powers_.size() < blocks) powers_.push_back(gf128::multiply(powers_.back(), h_));
    }

    // FIPS-197 §5.2 for Nk = 8, with AESKEYGENASSIST: even round keys take
    // RotWord∘SubWord of the last word and the round constant, odd ones
    // SubWord alone.
    template <int Rcon>
    static __m128i expand_even(__m128i prev2, __m128i prev) noexcept {
        const __m128i t = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(prev, Rcon), 0xff);
        return spread(prev2, t);
    }
    static __m128i expand_odd(__m128i prev2, __m128i prev) noexcept {
        const __m128i t = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(prev, 0), 0xaa);
        return spread(prev2, t);
    }
    static __m128i spread(__m128i a, __m128i t) noexcept {
        a = _mm_xor_si128(a, _mm_slli_si128(a, 4));
        a = _mm_xor_si128(a, _mm_slli_si128(a, 4));
        a = _mm_xor_si128(a, _mm_slli_si128(a, 4));
        return _mm_xor_si128(a, t);
    }
    void expand_key(const std::uint8_t* key) noexcept {
        __m128i k[15];
        k[0] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key));
        k[1] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key + 16));
        k[2] = expand_even<0x01>(k[0], k[1]);
        k[3] = expand_odd(k[1], k[2]);
        k[4] = expand_even<0x02>(k[2], k[3]);
        k[5] = expand_odd(k[3], k[4]);
        k[6] = expand_even<0x04>(k[4], k[5]);
        k[7] = expand_odd(k[5], k[6]);
        k[8] = expand_even<0x08>(k[6], k[7]);
        k[9] = expand_odd(k[7], k[8]);
        k[10] = expand_even<0x10>(k[8], k[9]);
        k[11] = expand_odd(k[9], k[10]);
        k[12] = expand_even<0x20>(k[10], k[11]);
        k[13] = expand_odd(k[11], k[12]);
        k[14] = expand_even<0x40>(k[12], k[13]);
        for (int r = 0; r < 15; ++r) round_[r] = block(k[r]);
        tandem::detail::wipe(k, sizeof k);
    }

    block encrypt_block(block x) const noexcept {
        __m128i s = _mm_xor_si128(x.v, round_[0].v);
        for (int r = 1; r < 14; ++r) s = _mm_aesenc_si128(s, round_[r].v);
        return block(_mm_aesenclast_si128(s, round_[14].v));
    }

    // Each byte's bits in reverse order (GCM's bit order ↔ gf128's).
    static block bit_reverse_bytes(block x) noexcept {
        const __m128i rev = _mm_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
        const __m128i low = _mm_set1_epi8(0x0f);
        const __m128i lo = _mm_and_si128(x.v, low), hi = _mm_and_si128(_mm_srli_epi16(x.v, 4), low);
        return block(_mm_or_si128(_mm_slli_epi16(_mm_shuffle_epi8(rev, lo), 4), _mm_shuffle_epi8(rev, hi)));
    }

    // The counter block nonce ‖ BE32(c), built in a register (bytes stored
    // one by one and loaded as a block would stall on store forwarding).
    static block counter(const std::uint8_t* nonce, std::uint32_t c) noexcept {
        return counter(nonce_block(nonce), c);
    }
    static __m128i nonce_block(const std::uint8_t* nonce) noexcept {
        std::uint64_t lo;
        std::uint32_t hi;
        std::memcpy(&lo, nonce, 8);
        std::memcpy(&hi, nonce + 8, 4);
        return _mm_set_epi32(0, static_cast<int>(hi), static_cast<int>(lo >> 32), static_cast<int>(lo));
    }
    static block counter(__m128i base, std::uint32_t c) noexcept {
        return block(_mm_insert_epi32(base, static_cast<int>(__builtin_bswap32(c)), 3));
    }

    // out = in ⊕ the key stream from counter 2 on (SP 800-38D §7.1: 1 is the tag's).
    void ctr(const std::uint8_t* nonce, const std::uint8_t* in, std::size_t n, std::uint8_t* out) noexcept {
        const __m128i base = nonce_block(nonce);
        const std::size_t whole = n / 16;
        std::size_t i = 0;
        const aes_isa isa = detail::choose_aes_isa();
        if (isa == aes_isa::vaes) i = detail::vaes::gcm_ctr(round_.data(), base, 2, in, out, whole);
        else if (isa == aes_isa::vaes256) i = detail::vaes256::gcm_ctr(round_.data(), base, 2, in, out, whole);
        i += detail::aesni::gcm_ctr<8>(round_.data(), base, static_cast<std::uint32_t>(2 + i), in + 16 * i,
                                       out + 16 * i, whole - i);
        i += detail::aesni::gcm_ctr<1>(round_.data(), base, static_cast<std::uint32_t>(2 + i), in + 16 * i,
                                       out + 16 * i, whole - i);
        if (const std::size_t rest = n % 16) {
            alignas(16) std::uint8_t k[16];
            _mm_store_si128(reinterpret_cast<__m128i*>(k),
                            encrypt_block(counter(base, static_cast<std::uint32_t>(2 + whole))).v);
            for (std::size_t b = 0; b < rest; ++b)
                out[16 * whole + b] = static_cast<std::uint8_t>(in[16 * whole + b] ^ k[b]);
            tandem::detail::wipe(k, sizeof k);
        }
    }

    // The GHASH of ad and the ciphertext c (SP 800-38D §6.4), encrypted
    // under counter 1. As one sum, Σ X_j·H^(m−j) over the m blocks
    // (ad, c, the lengths), so each part adds its own products.
    void make_tag(const std::uint8_t* nonce, const std::uint8_t* ad, std::size_t ad_len, const std::uint8_t* c,
                  std::size_t n, std::uint8_t* tag) noexcept {
        const std::size_t m = (ad_len + 15) / 16 + (n + 15) / 16 + 1;
        std::size_t top = m - 1;  // block j meets powers_[top] = H^(m − j)
        gf128::accumulator acc;
        const auto one = [&](const std::uint8_t* p, std::size_t len) {  // a last, short block: zero-padded
            alignas(16) std::uint8_t last[16] = {};
            std::memcpy(last, p, len);
            gf128::multiply_add(acc, powers_[top--],
                                bit_reverse_bytes(block(_mm_load_si128(reinterpret_cast<const __m128i*>(last)))));
        };
        const auto absorb = [&](const std::uint8_t* p, std::size_t len) {
            const std::size_t whole = len / 16;
            std::size_t i = 0;
            const aes_isa isa = detail::choose_aes_isa();
            if (isa == aes_isa::vaes) i = detail::vaes::gcm_ghash(powers_.data(), top, p, whole, acc);
            else if (isa == aes_isa::vaes256) i = detail::vaes256::gcm_ghash(powers_.data(), top, p, whole, acc);
            i += detail::aesni::gcm_ghash(powers_.data(), top - i, p + 16 * i, whole - i, acc);
            top -= i;
            if (len % 16) one(p + 16 * whole, len % 16);
        };
        absorb(ad, ad_len);
        absorb(c, n);
        const std::uint64_t ad_bits = std::uint64_t{ad_len} * 8, c_bits = std::uint64_t{n} * 8;
        gf128::multiply_add(acc, powers_[0],
                            bit_reverse_bytes(block(_mm_set_epi64x(static_cast<long long>(__builtin_bswap64(c_bits)),
                                                                   static_cast<long long>(__builtin_bswap64(ad_bits))))));
        const block s = bit_reverse_bytes(gf128::reduce(acc)) ^ encrypt_block(counter(nonce, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(tag), s.v);
    }

    std::array<block, 15> round_;
    block h_;
    std::vector<block> powers_;  // H, H^2, … as far as the longest message needed
};

}  // namespace tandem

TANDEM_CRYPTO_END

#endif  // TANDEM_X86
