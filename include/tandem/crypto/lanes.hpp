// tandem/crypto/lanes.hpp — a vector register seen as AES lanes: one 128-bit
// block per lane, 1 with AES-NI, 2 with VAES on 256-bit registers, 4 with
// VAES on 512-bit registers.
//
// Each instruction set gets one struct of the few operations the AES batch
// loops need (load, XOR, a round, a key-schedule step, σ, tweaks), compiled
// for that set (crypto/target.hpp). The loops themselves — many keys expanded
// while they encrypt, the hashes, a fixed key over many blocks (aes.hpp,
// hash.hpp, fixed_key_hash.hpp) — are written once, as templates over these
// structs without a target of their own, always inlined into an entry point
// of one set, so each runs at its own width (crypto/isa.hpp chooses). The
// structs' functions must not be always_inline: a loop template has no
// target, so neither compiler may inline them there, only once the loop sits
// in its entry point (Clang refuses always_inline across targets outright).
// For the same reason they take and give vectors by reference: a function
// without AVX may not pass AVX vectors by value (the ABI would change).
//
// The key schedule is the aesenclast formulation (Gueron, "Intel AES-NI
// instructions set", 2010, §5): RotWord of the last word is broadcast by a
// byte shuffle and aesenclast applies SubWord and the round constant — unlike
// aeskeygenassist it takes the constant from a register, so many keys expand
// side by side, several per register with VAES.
//
// On AArch64 lanes128 is written with NEON and the Crypto Extensions. AESE
// is AddRoundKey, then ShiftRows and SubBytes; AESMC is MixColumns (Arm
// ARM, "AESE", "AESMC"). With a zero round key, AESE(x, 0) ⊕ k is x86's
// aesenclast(x, k) and AESMC(AESE(x, 0)) ⊕ k its aesenc(x, k), so the batch
// loops, the schedules and the shuffle tables are the same on both, and so
// are the results bit for bit. (Folding the XOR into the next AESE's key
// would save one instruction per round; not done: no ARM machine here to
// measure it on, and the loops would differ from x86's.)
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

#if TANDEM_X86
#include <immintrin.h>
#else
#include <arm_neon.h>
#endif

// Fully unrolls the loop it precedes: the batch loops index small register
// arrays, which stay in registers only when every index is a constant.
// Sanitizer builds check memory and threads, not speed: there the loops stay
// loops (every file that garbles instantiates them for three instruction
// sets and two hashes; unrolled, the kernel tests took 159 s to compile
// under ASan, as loops 100 s).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TANDEM_UNROLL
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TANDEM_UNROLL
#endif
#endif
#ifndef TANDEM_UNROLL
#if defined(__clang__)
#define TANDEM_UNROLL _Pragma("unroll")
#else
#define TANDEM_UNROLL _Pragma("GCC unroll 64")
#endif
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

inline constexpr std::array<int, 10> aes_round_constants{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

/// Each round constant in all sixteen words, so every width loads its
/// broadcast from memory instead of building it in registers.
struct round_constant_table {
    alignas(64) std::uint32_t words[10][16];
};
inline constexpr round_constant_table round_constant_words = [] {
    round_constant_table t{};
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t w = 0; w < 16; ++w) t.words[r][w] = static_cast<std::uint32_t>(aes_round_constants[r]);
    return t;
}();

/// The key schedule word-sliced: four keys per 128-bit lane, register W_i
/// holding word i of each (dword c of a lane = key c). A round is then
///     T = aesenclast(pshufb(W3, sliced_rotate), rcon)   SubWord(RotWord(w3)) ^ rcon, per key
///     W0 ^= T,  W1 ^= W0,  W2 ^= W1,  W3 ^= W2          the prefix XOR, one XOR per word
/// — 6 instructions for 4 keys where the one-key form needs 7 for one —
/// and a 4×4 transpose of words (8 unpacks) gives the four round keys. The
/// shuffle puts byte (r+1) mod 4 of key c's w3 where ShiftRows, which
/// aesenclast applies first, moves it to column c: input byte (row r, column
/// c') ← W3 byte (row (r+1) mod 4, column (c' - r) mod 4).
struct sliced_rotate_table {
    alignas(64) std::uint8_t bytes[64];
};
inline constexpr sliced_rotate_table sliced_rotate = [] {
    sliced_rotate_table t{};
    for (std::size_t i = 0; i < 64; ++i) {
        const std::size_t column = (i % 16) / 4, row = i % 4;
        t.bytes[i] = static_cast<std::uint8_t>(4 * ((column + 4 - row) % 4) + (row + 1) % 4);
    }
    return t;
}();

#if TANDEM_X86

/// One step of the AES-128 key schedule on a 128-bit lane (FIPS-197 §5.2).
inline __m128i aes_key_step(__m128i k, __m128i rcon) noexcept {
    __m128i t = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f0e0d));  // RotWord(w3) in every word
    t = _mm_aesenclast_si128(t, rcon);                              // SubWord(...) ^ rcon
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 8));
    return _mm_xor_si128(k, t);
}

/// AES-NI: one block per 128-bit register; 16 registers.
struct lanes128 {
    using vec = __m128i;
    static constexpr std::size_t width = 1, registers = 16;
    static constexpr bool sliced_keys = true;  // tweak keys expanded word-sliced (sliced_rotate)
    static void load(vec& v, const block* p) noexcept { v = _mm_loadu_si128(&p->v); }
    static void store(block* p, const vec& v) noexcept { _mm_storeu_si128(&p->v, v); }
    static void broadcast(vec& v, block b) noexcept { v = b.v; }
    static void xor_into(vec& a, const vec& b) noexcept { a = _mm_xor_si128(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm_aesenc_si128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm_aesenclast_si128(s, k); }
    static void key_step(vec& k, int round) noexcept {
        k = aes_key_step(k, _mm_load_si128(reinterpret_cast<const __m128i*>(round_constant_words.words[round])));
    }
    /// σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi), a linear orthomorphism (hash.hpp).
    static void sigma(vec& out, const vec& x) noexcept {
        const __m128i swapped = _mm_shuffle_epi32(x, 0x4E);  // (x_lo, x_hi)
        out = _mm_xor_si128(swapped, _mm_and_si128(x, _mm_set_epi64x(-1, 0)));
    }
    /// The tweak `first` as the block (0, first).
    static void tweaks(vec& t, std::uint64_t first) noexcept { t = _mm_set_epi64x(0, static_cast<long long>(first)); }
    static void next_tweaks(vec& t) noexcept { t = _mm_add_epi64(t, _mm_set_epi64x(0, 1)); }

    /// Word-sliced keys (sliced_rotate): w[i] word c = word i of the key S ⊕ (0, first + c).
    static void sliced_tweak_keys(vec (&w)[4], block start, std::uint64_t first) noexcept {
        const __m128i lo = _mm_set_epi32(static_cast<int>(first + 3), static_cast<int>(first + 2),
                                         static_cast<int>(first + 1), static_cast<int>(first));
        const __m128i hi = _mm_set_epi32(static_cast<int>((first + 3) >> 32), static_cast<int>((first + 2) >> 32),
                                         static_cast<int>((first + 1) >> 32), static_cast<int>(first >> 32));
        w[0] = _mm_xor_si128(_mm_shuffle_epi32(start.v, 0x00), lo);
        w[1] = _mm_xor_si128(_mm_shuffle_epi32(start.v, 0x55), hi);
        w[2] = _mm_shuffle_epi32(start.v, 0xAA);
        w[3] = _mm_shuffle_epi32(start.v, 0xFF);
    }
    static void sliced_step(vec (&w)[4], int round) noexcept {
        __m128i t = _mm_shuffle_epi8(w[3], _mm_load_si128(reinterpret_cast<const __m128i*>(sliced_rotate.bytes)));
        t = _mm_aesenclast_si128(t, _mm_load_si128(reinterpret_cast<const __m128i*>(round_constant_words.words[round])));
        w[0] = _mm_xor_si128(w[0], t);
        w[1] = _mm_xor_si128(w[1], w[0]);
        w[2] = _mm_xor_si128(w[2], w[1]);
        w[3] = _mm_xor_si128(w[3], w[2]);
    }
    /// k[c] = key c of the slices.
    static void sliced_round_keys(vec (&k)[4], const vec (&w)[4]) noexcept {
        const __m128i a = _mm_unpacklo_epi32(w[0], w[1]), b = _mm_unpackhi_epi32(w[0], w[1]);
        const __m128i c = _mm_unpacklo_epi32(w[2], w[3]), d = _mm_unpackhi_epi32(w[2], w[3]);
        k[0] = _mm_unpacklo_epi64(a, c);
        k[1] = _mm_unpackhi_epi64(a, c);
        k[2] = _mm_unpacklo_epi64(b, d);
        k[3] = _mm_unpackhi_epi64(b, d);
    }
};

#else

/// One step of the AES-128 key schedule on a 128-bit lane (FIPS-197 §5.2).
inline uint8x16_t aes_key_step(uint8x16_t k, uint8x16_t rcon) noexcept {
    // RotWord(w3) in every word: bytes 13, 14, 15, 12 of k, four times.
    static constexpr std::uint8_t rot_word[16] = {13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12};
    // Four equal columns: ShiftRows leaves them as they are, so AESE with a
    // zero key is SubWord in every word.
    const uint8x16_t zero = vdupq_n_u8(0);
    const uint8x16_t t = veorq_u8(vaeseq_u8(vqtbl1q_u8(k, vld1q_u8(rot_word)), zero), rcon);
    k = veorq_u8(k, vextq_u8(zero, k, 12));  // k ^ (k << 32 bits)
    k = veorq_u8(k, vextq_u8(zero, k, 8));   // and (k << 64 bits)
    return veorq_u8(k, t);
}

/// The round constant of `round` in all sixteen words' first bytes.
inline uint8x16_t round_constant(int round) noexcept {
    return vreinterpretq_u8_u32(vld1q_u32(round_constant_words.words[round]));
}

/// ARMv8 Crypto Extensions: one block per 128-bit register; 32 registers.
struct lanes128 {
    using vec = uint8x16_t;
    static constexpr std::size_t width = 1, registers = 32;
    static constexpr bool sliced_keys = true;  // tweak keys expanded word-sliced (sliced_rotate)
    static void load(vec& v, const block* p) noexcept { v = vld1q_u8(reinterpret_cast<const std::uint8_t*>(p)); }
    static void store(block* p, const vec& v) noexcept { vst1q_u8(reinterpret_cast<std::uint8_t*>(p), v); }
    static void broadcast(vec& v, block b) noexcept { v = b.v; }
    static void xor_into(vec& a, const vec& b) noexcept { a = veorq_u8(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = veorq_u8(vaesmcq_u8(vaeseq_u8(s, vdupq_n_u8(0))), k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = veorq_u8(vaeseq_u8(s, vdupq_n_u8(0)), k); }
    static void key_step(vec& k, int round) noexcept { k = aes_key_step(k, round_constant(round)); }
    /// σ(x_hi, x_lo) = (x_hi ⊕ x_lo, x_hi), a linear orthomorphism (hash.hpp).
    static void sigma(vec& out, const vec& x) noexcept {
        const uint8x16_t swapped = vextq_u8(x, x, 8);  // (x_lo, x_hi)
        const uint64x2_t high = vcombine_u64(vcreate_u64(0), vget_high_u64(vreinterpretq_u64_u8(x)));
        out = veorq_u8(swapped, vreinterpretq_u8_u64(high));
    }
    /// The tweak `first` as the block (0, first).
    static void tweaks(vec& t, std::uint64_t first) noexcept { t = block(0, first).v; }
    static void next_tweaks(vec& t) noexcept {
        t = vreinterpretq_u8_u64(vaddq_u64(vreinterpretq_u64_u8(t), vcombine_u64(vcreate_u64(1), vcreate_u64(0))));
    }

    /// Word-sliced keys (sliced_rotate): w[i] word c = word i of the key S ⊕ (0, first + c).
    static void sliced_tweak_keys(vec (&w)[4], block start, std::uint64_t first) noexcept {
        const std::uint32_t lo[4] = {static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(first + 1),
                                     static_cast<std::uint32_t>(first + 2), static_cast<std::uint32_t>(first + 3)};
        const std::uint32_t hi[4] = {static_cast<std::uint32_t>(first >> 32), static_cast<std::uint32_t>((first + 1) >> 32),
                                     static_cast<std::uint32_t>((first + 2) >> 32),
                                     static_cast<std::uint32_t>((first + 3) >> 32)};
        const uint32x4_t s = vreinterpretq_u32_u8(start.v);
        w[0] = vreinterpretq_u8_u32(veorq_u32(vdupq_laneq_u32(s, 0), vld1q_u32(lo)));
        w[1] = vreinterpretq_u8_u32(veorq_u32(vdupq_laneq_u32(s, 1), vld1q_u32(hi)));
        w[2] = vreinterpretq_u8_u32(vdupq_laneq_u32(s, 2));
        w[3] = vreinterpretq_u8_u32(vdupq_laneq_u32(s, 3));
    }
    static void sliced_step(vec (&w)[4], int round) noexcept {
        uint8x16_t t = vqtbl1q_u8(w[3], vld1q_u8(sliced_rotate.bytes));
        t = veorq_u8(vaeseq_u8(t, vdupq_n_u8(0)), round_constant(round));
        w[0] = veorq_u8(w[0], t);
        w[1] = veorq_u8(w[1], w[0]);
        w[2] = veorq_u8(w[2], w[1]);
        w[3] = veorq_u8(w[3], w[2]);
    }
    /// k[c] = key c of the slices (a 4×4 transpose of words).
    static void sliced_round_keys(vec (&k)[4], const vec (&w)[4]) noexcept {
        const uint32x4_t a = vzip1q_u32(vreinterpretq_u32_u8(w[0]), vreinterpretq_u32_u8(w[1]));
        const uint32x4_t b = vzip2q_u32(vreinterpretq_u32_u8(w[0]), vreinterpretq_u32_u8(w[1]));
        const uint32x4_t c = vzip1q_u32(vreinterpretq_u32_u8(w[2]), vreinterpretq_u32_u8(w[3]));
        const uint32x4_t d = vzip2q_u32(vreinterpretq_u32_u8(w[2]), vreinterpretq_u32_u8(w[3]));
        k[0] = vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(c)));
        k[1] = vreinterpretq_u8_u64(vzip2q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(c)));
        k[2] = vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u32(b), vreinterpretq_u64_u32(d)));
        k[3] = vreinterpretq_u8_u64(vzip2q_u64(vreinterpretq_u64_u32(b), vreinterpretq_u64_u32(d)));
    }
};

#endif

}  // namespace tandem::detail

TANDEM_CRYPTO_END

#if TANDEM_X86

TANDEM_AVX2_BEGIN

namespace tandem::detail {

/// The word-sliced key schedule (sliced_rotate) of eight keys per set of
/// 256-bit registers, four per lane, for every CPU with AVX2: the XORs and
/// the transposes take one instruction per two lanes, and each lane's SubWord
/// takes one AES-NI instruction. With AES-NI alone this halves the
/// schedule's instructions (hash.hpp, mitccr_registers, has the
/// measurement); lanes256 inherits it and steps both lanes with one VAES
/// instruction.
struct sliced_keys256 {
    using vec = __m256i;
    static constexpr std::size_t width = 2;
    /// Word-sliced keys: dword c of lane l of w[i] = word i of the key
    /// S ⊕ (0, first + 2c + l), so that transposed, register c holds the
    /// keys of tweaks first + 2c, first + 2c + 1 — a register of tweaks as
    /// lanes256::tweaks() makes it, and in memory the keys in tweak order.
    static void sliced_tweak_keys(vec (&w)[4], block start, std::uint64_t first) noexcept {
        alignas(32) std::uint32_t lo[8], hi[8];
        for (std::uint32_t l = 0; l < 2; ++l)
            for (std::uint32_t c = 0; c < 4; ++c) {
                const std::uint64_t t = first + 2 * c + l;
                lo[4 * l + c] = static_cast<std::uint32_t>(t);
                hi[4 * l + c] = static_cast<std::uint32_t>(t >> 32);
            }
        const __m256i s = _mm256_broadcastsi128_si256(start.v);
        w[0] = _mm256_xor_si256(_mm256_shuffle_epi32(s, 0x00), _mm256_load_si256(reinterpret_cast<const __m256i*>(lo)));
        w[1] = _mm256_xor_si256(_mm256_shuffle_epi32(s, 0x55), _mm256_load_si256(reinterpret_cast<const __m256i*>(hi)));
        w[2] = _mm256_shuffle_epi32(s, 0xAA);
        w[3] = _mm256_shuffle_epi32(s, 0xFF);
    }
    /// The prefix XOR of a round, given T = SubWord(RotWord(w3)) ^ rcon.
    static void sliced_prefix(vec (&w)[4], const vec& t) noexcept {
        w[0] = _mm256_xor_si256(w[0], t);
        w[1] = _mm256_xor_si256(w[1], w[0]);
        w[2] = _mm256_xor_si256(w[2], w[1]);
        w[3] = _mm256_xor_si256(w[3], w[2]);
    }
    static void sliced_step(vec (&w)[4], int round) noexcept {
        const __m256i t = _mm256_shuffle_epi8(w[3], _mm256_load_si256(reinterpret_cast<const __m256i*>(sliced_rotate.bytes)));
        const __m128i rcon = _mm_load_si128(reinterpret_cast<const __m128i*>(round_constant_words.words[round]));
        const __m128i low = _mm_aesenclast_si128(_mm256_castsi256_si128(t), rcon);
        const __m128i high = _mm_aesenclast_si128(_mm256_extracti128_si256(t, 1), rcon);
        sliced_prefix(w, _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1));
    }
    static void sliced_round_keys(vec (&k)[4], const vec (&w)[4]) noexcept {
        const __m256i a = _mm256_unpacklo_epi32(w[0], w[1]), b = _mm256_unpackhi_epi32(w[0], w[1]);
        const __m256i c = _mm256_unpacklo_epi32(w[2], w[3]), d = _mm256_unpackhi_epi32(w[2], w[3]);
        k[0] = _mm256_unpacklo_epi64(a, c);
        k[1] = _mm256_unpackhi_epi64(a, c);
        k[2] = _mm256_unpacklo_epi64(b, d);
        k[3] = _mm256_unpackhi_epi64(b, d);
    }
};

}  // namespace tandem::detail

TANDEM_AVX2_END

TANDEM_VAES256_BEGIN

namespace tandem::detail {

/// VAES on 256-bit registers (AVX2): two blocks per register; 16 registers.
/// Lane l of the register at blocks p holds block p[l]. The sliced schedule
/// is sliced_keys256's, its SubWord one VAES instruction for both lanes.
struct lanes256 : sliced_keys256 {
    using vec = __m256i;
    static constexpr std::size_t width = 2, registers = 16;
    static constexpr bool sliced_keys = true;
    static void load(vec& v, const block* p) noexcept { v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static void store(block* p, const vec& v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    static void broadcast(vec& v, block b) noexcept { v = _mm256_broadcastsi128_si256(b.v); }
    static void xor_into(vec& a, const vec& b) noexcept { a = _mm256_xor_si256(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm256_aesenc_epi128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm256_aesenclast_epi128(s, k); }
    static void key_step(vec& k, int round) noexcept {
        const vec rcon = _mm256_load_si256(reinterpret_cast<const __m256i*>(round_constant_words.words[round]));
        vec t = _mm256_shuffle_epi8(k, _mm256_set1_epi32(0x0c0f0e0d));
        t = _mm256_aesenclast_epi128(t, rcon);
        k = _mm256_xor_si256(k, _mm256_bslli_epi128(k, 4));
        k = _mm256_xor_si256(k, _mm256_bslli_epi128(k, 8));
        k = _mm256_xor_si256(k, t);
    }
    static void sigma(vec& out, const vec& x) noexcept {
        const vec swapped = _mm256_shuffle_epi32(x, 0x4E);
        out = _mm256_xor_si256(swapped, _mm256_and_si256(x, _mm256_set_epi64x(-1, 0, -1, 0)));
    }
    /// Tweaks first, first + 1 as blocks (0, first + l), one per lane.
    static void tweaks(vec& t, std::uint64_t first) noexcept {
        const auto j = static_cast<long long>(first);
        t = _mm256_set_epi64x(0, j + 1, 0, j);
    }
    static void next_tweaks(vec& t) noexcept { t = _mm256_add_epi64(t, _mm256_set_epi64x(0, 2, 0, 2)); }
    static void sliced_step(vec (&w)[4], int round) noexcept {
        __m256i t = _mm256_shuffle_epi8(w[3], _mm256_load_si256(reinterpret_cast<const __m256i*>(sliced_rotate.bytes)));
        t = _mm256_aesenclast_epi128(t, _mm256_load_si256(reinterpret_cast<const __m256i*>(round_constant_words.words[round])));
        sliced_prefix(w, t);
    }
};

}  // namespace tandem::detail

TANDEM_VAES256_END

TANDEM_VAES_BEGIN

namespace tandem::detail {

/// VAES with AVX-512: four blocks per register; 32 registers.
struct lanes512 {
    using vec = __m512i;
    static constexpr std::size_t width = 4, registers = 32;
    static constexpr bool sliced_keys = false;
    static void load(vec& v, const block* p) noexcept { v = _mm512_loadu_si512(p); }
    static void store(block* p, const vec& v) noexcept { _mm512_storeu_si512(p, v); }
    // maskz: GCC 12 warns falsely on the plain broadcast.
    static void broadcast(vec& v, block b) noexcept { v = _mm512_maskz_broadcast_i32x4(0xFFFF, b.v); }
    static void xor_into(vec& a, const vec& b) noexcept { a = _mm512_xor_si512(a, b); }
    static void aesenc(vec& s, const vec& k) noexcept { s = _mm512_aesenc_epi128(s, k); }
    static void aesenclast(vec& s, const vec& k) noexcept { s = _mm512_aesenclast_epi128(s, k); }
    static void key_step(vec& k, int round) noexcept {
        const vec rcon = _mm512_load_si512(round_constant_words.words[round]);
        vec t = _mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f0e0d));
        t = _mm512_aesenclast_epi128(t, rcon);
        // Prefix XOR of the four words with two byte shifts (shuffles are the
        // scarce port here), the last XOR merged with t (vpternlog 0x96: a ^ b ^ c).
        k = _mm512_xor_si512(k, _mm512_bslli_epi128(k, 4));
        k = _mm512_ternarylogic_epi64(k, _mm512_bslli_epi128(k, 8), t, 0x96);
    }
    /// σ on each lane: swapped halves ^ (v & high half); vpternlog 0x78 = a ^ (b & c).
    static void sigma(vec& out, const vec& v) noexcept {
        const vec high_half = _mm512_set_epi64(-1, 0, -1, 0, -1, 0, -1, 0);
        out = _mm512_ternarylogic_epi64(_mm512_maskz_shuffle_epi32(0xFFFF, v, _MM_PERM_BADC), v, high_half, 0x78);
    }
    /// Tweaks first .. first + 3 as blocks (0, first + l), one per lane.
    static void tweaks(vec& t, std::uint64_t first) noexcept {
        const auto j = static_cast<long long>(first);
        t = _mm512_set_epi64(0, j + 3, 0, j + 2, 0, j + 1, 0, j);
    }
    static void next_tweaks(vec& t) noexcept { t = _mm512_add_epi64(t, _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4)); }
};

}  // namespace tandem::detail

TANDEM_VAES_END

#endif  // TANDEM_X86

// Moving a batch between memory and registers, for any AES lanes L (no
// target of its own, always inlined into an entry point of one set).
namespace tandem::detail {

/// v[c][z] ← the register at x[c * N + width·z] (N a multiple of L::width).
template <class L, std::size_t N, std::size_t C>
[[gnu::always_inline]] inline void load_batch(const block* x, typename L::vec (&v)[C][N / L::width]) noexcept {
    static_assert(N % L::width == 0, "whole registers of tweaks");
    TANDEM_UNROLL
    for (std::size_t z = 0; z < N / L::width; ++z) {
        TANDEM_UNROLL
        for (std::size_t c = 0; c < C; ++c) L::load(v[c][z], x + c * N + L::width * z);
    }
}

/// The inverse of load_batch.
template <class L, std::size_t N, std::size_t C>
[[gnu::always_inline]] inline void store_batch(block* x, const typename L::vec (&v)[C][N / L::width]) noexcept {
    TANDEM_UNROLL
    for (std::size_t z = 0; z < N / L::width; ++z) {
        TANDEM_UNROLL
        for (std::size_t c = 0; c < C; ++c) L::store(x + c * N + L::width * z, v[c][z]);
    }
}

}  // namespace tandem::detail
