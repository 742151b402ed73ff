// tandem/gc/half_gates.hpp — garbling and evaluating a circuit with half-gates.
//
// Half-gates (Zahur, Rosulek, Evans, "Two halves make a whole", EUROCRYPT
// 2015, eprint 2014/756) with free-XOR (Kolesnikov–Schneider 2008) and
// point-and-permute: two ciphertexts per AND, XOR and NOT free. Labels are
// "zero labels" L0 of each wire; the one label is L0 ⊕ Δ with lsb(Δ) = 1, so
// lsb(L0) is the wire's permute bit. For an AND with inputs a, b, permute
// bits pa, pb and tweaks j = 2g, j' = 2g + 1 (g counts ANDs under this Δ):
//   TG = H(A0, j) ⊕ H(A1, j) ⊕ pb·Δ        WG0 = H(A0, j) ⊕ pa·TG
//   TE = H(B0, j') ⊕ H(B1, j') ⊕ A0        WE0 = H(B0, j') ⊕ pb·(TE ⊕ A0)
//   C0 = WG0 ⊕ WE0,   tables (TG, TE)
// and the evaluator, holding Wa, Wb with sa = lsb(Wa), sb = lsb(Wb):
//   Wc = H(Wa, j) ⊕ sa·TG ⊕ H(Wb, j') ⊕ sb·(TE ⊕ Wa).
// The selections are masks, never branches: nothing depends on secrets.
//
// The circuit is walked step by step (levels, then region instances); the
// ANDs of a level are independent, so they are hashed `batch` gates at a time
// with the keys of all their tweaks expanded side by side (crypto/hash.hpp).
// Tweaks follow execution order: the sequential ANDs of a step level by
// level, a region's instances one after another — the ranges the planner's
// prefix sums give every worker (exec/plan.hpp) — except that instances run
// in lockstep share out their ranges' union level by level, gate-major
// (step_runner::lockstep).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/gc/tables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// What the garbler keeps to encode inputs: Δ and the zero label of every input bit.
/// Secret: whoever holds it and the tables learns every wire. Wiped on destruction.
struct encoding {
    block delta;
    std::vector<block> zero_labels;  ///< input bit k (in circuit order)

    encoding(block d, std::vector<block> z) noexcept : delta(d), zero_labels(std::move(z)) {}
    encoding(const encoding&) = default;
    encoding(encoding&&) noexcept = default;
    encoding& operator=(const encoding&) = default;
    encoding& operator=(encoding&&) noexcept = default;
    ~encoding() {
        tandem::detail::wipe(&delta, sizeof delta);
        tandem::detail::wipe_all(zero_labels);
    }

    /// The label that encodes `bit` on input bit k.
    block label(std::size_t k, bool bit) const noexcept { return zero_labels[k] ^ (mask_of(bit) & delta); }
};

/// What turns output labels into bits: the permute bit of each output wire
/// (the constant itself for outputs that are public constants).
struct decoding {
    std::vector<std::uint8_t> bits;
};

/// Gates per hash batch: 8 gates are 16 keys, four 512-bit registers.
inline constexpr std::size_t garble_batch = 8;
inline constexpr std::size_t evaluate_batch = 16;

namespace detail {

/// One label per slot. Large arrays are mapped in huge pages and their blocks
/// reused from run to run (detail/big_vector.hpp): the evaluator reads them
/// at random, so TLB misses and fresh-page faults would otherwise show. Every
/// label array is wiped before it is freed, so a reused block holds zeros.
using label_array = tandem::detail::big_vector<block>;

inline void check_labels(const circuit_data& c, std::size_t n, const char* who) {
    if (n != c.input_bits)
        throw usage_error(std::string(who) + ": the circuit has " + std::to_string(c.input_bits) + " input bits but " +
                          std::to_string(n) + " labels were given");
}

}  // namespace detail

}  // namespace tandem::gc

TANDEM_CRYPTO_END

// The loop over a level's ANDs has no target of its own and is always inlined,
// so it takes the target of the kernel it runs (AES-NI or VAES, below) and
// each batch's body inlines into it (a target-mismatched call per batch would
// cost a function call every 8 gates).
namespace tandem::gc::detail {

/// Runs the ANDs [begin, end) of one level in batches of Batch gates (tails
/// in halving batches, so they stay vectorised).
template <std::size_t Batch, class Ands>
[[gnu::always_inline]] inline void run_ands(std::uint32_t begin, std::uint32_t end, Ands& ands) {
    std::uint32_t i = begin;
    for (; i + Batch <= end; i += Batch) ands.template run<Batch>(i);
    if constexpr (Batch >= 16) if (i + 8 <= end) ands.template run<8>(i), i += 8;
    if constexpr (Batch >= 8) if (i + 4 <= end) ands.template run<4>(i), i += 4;
    if (i + 2 <= end) ands.template run<2>(i), i += 2;
    if (i < end) ands.template run<1>(i);
}

}  // namespace tandem::gc::detail

TANDEM_CRYPTO_BEGIN

namespace tandem::gc::detail {

/// v[c][m] ← H(v[c][m], first_tweak + m) for the AES-NI kernels below. A
/// lone AND (a chain, or a level's tail) goes through the hash's dispatch,
/// which keeps key schedules expanded ahead for chains. Batches of two ANDs
/// or more come here only where AES-NI is the widest ISA (the VAES kernels
/// take every such level), so they hash in 128-bit lanes directly: the
/// dispatch would only compile the VAES hashes again in each translation
/// unit for batches that never reach them.
template <std::size_t N, std::size_t C, class Hash>
[[gnu::always_inline]] inline void hash_lanes128(const Hash& hash, std::uint64_t first_tweak,
                                                 __m128i (&v)[C][N]) noexcept {
    if constexpr (N == 2) {
        block x[C * N];
        for (std::size_t c = 0; c < C; ++c)
            for (std::size_t m = 0; m < N; ++m) x[c * N + m] = block(v[c][m]);
        hash.template hash<N, C>(first_tweak, x);
        for (std::size_t c = 0; c < C; ++c)
            for (std::size_t m = 0; m < N; ++m) v[c][m] = x[c * N + m].v;
    } else {
        tandem::detail::hash_registers<tandem::detail::lanes128, N, C>(hash, first_tweak, v);
    }
}

/// All ones if the label's point-and-permute bit (its lsb) is 1, else zero.
inline __m128i permute_mask(__m128i x) noexcept {
    const __m128i low = _mm_shuffle_epi32(x, 0x00);  // the low word in all four
    return _mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(low, _mm_set1_epi64x(1)));
}

template <class Hash, class Sink>
struct and_garbler {
    const gate* gates;  ///< the level's gates (a circuit's, or a lockstep group's relocated copies)
    const Hash& hash;
    Sink& sink;
    label_array& label;
    block delta;
    std::uint64_t and_index;

    /// Garbles the n ANDs from gate i on, in 128-bit registers as the VAES
    /// kernels do it: the labels are loaded once, hashed where they are, and
    /// the half-gate algebra works on the registers (point-and-permute masks
    /// without leaving them). Measured on Zen 3 against the batch through
    /// memory (labels stored, hashed, read back): wide garbling 27 → 33 M
    /// AND/s, evaluation 35 → 40.
    template <std::size_t n>
    void run(std::uint32_t i) {
        const __m128i d = delta.v;
        __m128i x[2 * n], h[2][2 * n];  // x[2k], x[2k + 1]: A0, B0 of gate k; h[c]: their hashes (c = 1: of them ⊕ Δ)
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = gates[i + k];
            x[2 * k] = h[0][2 * k] = label[g.in0].v;
            x[2 * k + 1] = h[0][2 * k + 1] = label[g.in1].v;
            h[1][2 * k] = _mm_xor_si128(x[2 * k], d);
            h[1][2 * k + 1] = _mm_xor_si128(x[2 * k + 1], d);
        }
        hash_lanes128<2 * n, 2>(hash, 2 * and_index, h);
        block tables[2 * n];
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const __m128i a0 = x[2 * k], pa = permute_mask(a0), pb = permute_mask(x[2 * k + 1]);
            const __m128i tg = _mm_xor_si128(_mm_xor_si128(h[0][2 * k], h[1][2 * k]), _mm_and_si128(pb, d));
            const __m128i te = _mm_xor_si128(_mm_xor_si128(h[0][2 * k + 1], h[1][2 * k + 1]), a0);
            tables[2 * k] = block(tg);
            tables[2 * k + 1] = block(te);
            const __m128i wg = _mm_xor_si128(h[0][2 * k], _mm_and_si128(pa, tg));
            const __m128i we = _mm_xor_si128(h[0][2 * k + 1], _mm_and_si128(pb, _mm_xor_si128(te, a0)));
            label[gates[i + k].out] = block(_mm_xor_si128(wg, we));
        }
        sink.write(tables, 2 * n);
        and_index += n;
    }
};

template <class Hash, class Source>
struct and_evaluator {
    const gate* gates;
    const Hash& hash;
    Source& source;
    label_array& label;
    std::uint64_t and_index;

    template <std::size_t n>
    void run(std::uint32_t i) {
        const block* t = source.read(2 * n);
        __m128i x[2 * n], h[1][2 * n];
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = gates[i + k];
            x[2 * k] = h[0][2 * k] = label[g.in0].v;
            x[2 * k + 1] = h[0][2 * k + 1] = label[g.in1].v;
        }
        hash_lanes128<2 * n, 1>(hash, 2 * and_index, h);
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const __m128i a = x[2 * k];
            const __m128i wg = _mm_xor_si128(h[0][2 * k], _mm_and_si128(permute_mask(a), t[2 * k].v));
            const __m128i we = _mm_xor_si128(
                h[0][2 * k + 1], _mm_and_si128(permute_mask(x[2 * k + 1]), _mm_xor_si128(t[2 * k + 1].v, a)));
            label[gates[i + k].out] = block(_mm_xor_si128(wg, we));
        }
        and_index += n;
    }
};

}  // namespace tandem::gc::detail

TANDEM_CRYPTO_END

TANDEM_VAES_BEGIN

/// The garbler's and evaluator's VAES kernels (run when detail::use_vaes()):
/// two gates per 512-bit register, their tables computed in registers.
namespace tandem::gc::detail::vaes {

/// Lanes (label[g0.in0], label[g0.in1], label[g1.in0], label[g1.in1]): two
/// gates' operands in one register, placed by masked broadcasts (GCC 12 warns
/// falsely on the insert intrinsics, bug 105593).
inline __m512i operand_pair(const label_array& label, const gate& g0, const gate& g1) noexcept {
    __m512i v = _mm512_maskz_broadcast_i32x4(0x000F, label[g0.in0].v);
    v = _mm512_mask_broadcast_i32x4(v, 0x00F0, label[g0.in1].v);
    v = _mm512_mask_broadcast_i32x4(v, 0x0F00, label[g1.in0].v);
    return _mm512_mask_broadcast_i32x4(v, 0xF000, label[g1.in1].v);
}

/// Qword mask of each lane's point-and-permute bit (both qwords of a lane).
inline __mmask8 permute_bits(__m512i x) noexcept {
    const __mmask8 bit0 = _mm512_test_epi64_mask(x, _mm512_set1_epi64(1)) & 0x55;
    return static_cast<__mmask8>(bit0 | (bit0 << 1));
}

/// Swaps the lanes of each pair: (a, b, a', b') -> (b, a, b', a').
inline __m512i swap_pairs(__m512i x) noexcept { return _mm512_maskz_shuffle_i64x2(0xFF, x, x, 0xB1); }

/// (W, W') = the XOR of each lane pair of w, stored as the gates' output labels.
inline void store_pair_outputs(label_array& label, const gate& g0, const gate& g1, __m512i w) noexcept {
    const __m512i out = _mm512_xor_si512(w, swap_pairs(w));
    label[g0.out] = block(_mm512_maskz_extracti32x4_epi32(0xF, out, 0));
    label[g1.out] = block(_mm512_maskz_extracti32x4_epi32(0xF, out, 2));
}
/// Half-gates on one register of two gates, lanes (A0, B0, A0', B0'), with
/// h0, h1 the hashes of those lanes and of them ⊕ Δ: stores the lane pairs
/// (TG, TE) — the tables — and returns (WG0, WE0) pairs, whose XOR is C0.
inline __m512i garble_pair(__m512i x0, __m512i h0, __m512i h1, __m512i d, block* tables) noexcept {
    const __mmask8 own = permute_bits(x0);  // (pa, pb, pa', pb')
    const __mmask8 swapped = static_cast<__mmask8>(((own & 0x33) << 2) | ((own & 0xCC) >> 2));
    const __m512i sw = swap_pairs(x0);  // (B0, A0, B0', A0')
    // (TG, TE) = H0 ^ H1 ^ (pb·Δ, A0)
    const __m512i corr = _mm512_mask_blend_epi64(0xCC, _mm512_maskz_mov_epi64(swapped, d), sw);
    const __m512i t = _mm512_ternarylogic_epi64(h0, h1, corr, 0x96);
    _mm512_storeu_si512(tables, t);
    // (WG0, WE0) = H0 ^ (pa·TG, pb·(TE ^ A0)); C0 = WG0 ^ WE0.
    const __m512i u = _mm512_xor_si512(t, _mm512_maskz_mov_epi64(0xCC, sw));
    return _mm512_xor_si512(h0, _mm512_maskz_mov_epi64(own, u));
}

/// The evaluator's half on lanes (Wa, Wb, Wa', Wb') with hashes h and tables
/// t (TG, TE, TG', TE'): (TG, TE ^ Wa) selected by (sa, sb), XORed onto
/// (H(Wa), H(Wb)); the output label is each pair's XOR.
inline __m512i evaluate_pair(__m512i x, __m512i h, const block* t) noexcept {
    const __m512i u = _mm512_xor_si512(_mm512_loadu_si512(t), _mm512_maskz_mov_epi64(0xCC, swap_pairs(x)));
    return _mm512_xor_si512(h, _mm512_maskz_mov_epi64(permute_bits(x), u));
}

template <class Hash, class Sink>
struct and_garbler : detail::and_garbler<Hash, Sink> {
    using base = detail::and_garbler<Hash, Sink>;
    using base::and_index, base::gates, base::delta, base::hash, base::label, base::sink;

    /// Even batches in registers; a lone gate (a level's tail) as AES-NI does it.
    template <std::size_t n>
    void run(std::uint32_t i) {
        if constexpr (n % 2 == 0)
            run_registers<n>(i);
        else
            base::template run<n>(i);
    }

    /// The same with the batch in 512-bit registers, two gates per register:
    /// lanes (A0, B0) of gate 2z and (A0, B0) of gate 2z+1. The lane pairs
    /// come out as (TG, TE) — the tables, stored as they are — and the output
    /// label is the XOR of a pair's two lanes.
    template <std::size_t n>
    void run_registers(std::uint32_t i) {
        constexpr std::size_t Z = n / 2;
        const __m512i d = _mm512_maskz_broadcast_i32x4(0xFFFF, delta.v);
        __m512i h[2][Z], x0[Z];
        for (std::size_t z = 0; z < Z; ++z) {
            x0[z] = h[0][z] = operand_pair(label, gates[i + 2 * z], gates[i + 2 * z + 1]);
            h[1][z] = _mm512_xor_si512(x0[z], d);
        }
        tandem::detail::hash_registers<tandem::detail::lanes512, Z, 2>(hash, 2 * and_index, h);
        block tables[2 * n];
        for (std::size_t z = 0; z < Z; ++z)
            store_pair_outputs(label, gates[i + 2 * z], gates[i + 2 * z + 1],
                               garble_pair(x0[z], h[0][z], h[1][z], d, tables + 4 * z));
        sink.write(tables, 2 * n);
        and_index += n;
    }
};

template <class Hash, class Source>
struct and_evaluator : detail::and_evaluator<Hash, Source> {
    using base = detail::and_evaluator<Hash, Source>;
    using base::and_index, base::gates, base::hash, base::label, base::source;

    template <std::size_t n>
    void run(std::uint32_t i) {
        if constexpr (n % 2 == 0)
            run_registers<n>(i, source.read(2 * n));
        else
            base::template run<n>(i);
    }

    /// Two gates per 512-bit register, lanes (Wa, Wb, Wa', Wb'), as in the garbler;
    /// the tables load as (TG, TE, TG', TE') lanes directly.
    template <std::size_t n>
    void run_registers(std::uint32_t i, const block* t) {
        constexpr std::size_t Z = n / 2;
        __m512i h[1][Z], x[Z];
        for (std::size_t z = 0; z < Z; ++z)
            x[z] = h[0][z] = operand_pair(label, gates[i + 2 * z], gates[i + 2 * z + 1]);
        tandem::detail::hash_registers<tandem::detail::lanes512, Z, 1>(hash, 2 * and_index, h);
        for (std::size_t z = 0; z < Z; ++z)
            store_pair_outputs(label, gates[i + 2 * z], gates[i + 2 * z + 1], evaluate_pair(x[z], h[0][z], t + 4 * z));
        and_index += n;
    }
};

/// The XOR and NOT gates [begin, end) of k interleaved copies (lockstep):
/// gate j sets out·k + m for every copy m, the k labels four to a register;
/// a NOT adds `not_mask` (Δ for the garbler, zero for the evaluator).
inline void linear_copies(const gate* gates, block* label, std::uint32_t begin, std::uint32_t end, std::uint32_t k,
                          block not_mask) noexcept {
    const __m512i nm = _mm512_maskz_broadcast_i32x4(0xFFFF, not_mask.v);
    const std::uint32_t full = k & ~3u;
    const auto tail = static_cast<__mmask8>((1u << (2 * (k - full))) - 1);  // qwords of the last k % 4 labels
    for (std::uint32_t j = begin; j < end; ++j) {
        const gate g = gates[j];
        block* out = label + std::size_t{g.out} * k;
        const block* a = label + std::size_t{g.in0} * k;
        const block* b = label + std::size_t{g.in1} * k;
        if (g.kind == gate_kind::xor_gate) {
            for (std::uint32_t m = 0; m < full; m += 4)
                _mm512_storeu_si512(out + m, _mm512_xor_si512(_mm512_loadu_si512(a + m), _mm512_loadu_si512(b + m)));
            if (tail != 0)
                _mm512_mask_storeu_epi64(out + full, tail,
                                         _mm512_xor_si512(_mm512_maskz_loadu_epi64(tail, a + full),
                                                          _mm512_maskz_loadu_epi64(tail, b + full)));
        } else {
            for (std::uint32_t m = 0; m < full; m += 4)
                _mm512_storeu_si512(out + m, _mm512_xor_si512(_mm512_loadu_si512(a + m), nm));
            if (tail != 0)
                _mm512_mask_storeu_epi64(out + full, tail, _mm512_xor_si512(_mm512_maskz_loadu_epi64(tail, a + full), nm));
        }
    }
}

/// Lockstep levels (step_runner::lockstep) with k a multiple of 4: gate i of
/// the level's k·w ANDs is body gate i / k of copy i % k, so four gates in a
/// row are one body gate on four adjacent labels, loaded as one register
/// each for the left and the right operands and paired by two permutes —
/// no relocated gate list, no per-gate broadcasts. The gates, tweaks and
/// tables are those of the relocated order, so the tables are the same.
struct quad_cursor {
    const gate* gates;  ///< the level's body ANDs
    block* label;       ///< interleaved labels, slot s of copy m at s·k + m
    std::uint32_t k;
    std::uint32_t j = 0, m = 0;  ///< the next quad: body gate j, copies m .. m+3

    /// The next quad's operands as two gate pairs, (A, B, A', B') lanes, and
    /// where its four outputs go; advances.
    block* next(__m512i& pair0, __m512i& pair1) noexcept {
        const gate g = gates[j];
        const __m512i a = _mm512_loadu_si512(label + std::size_t{g.in0} * k + m);
        const __m512i b = _mm512_loadu_si512(label + std::size_t{g.in1} * k + m);
        pair0 = _mm512_permutex2var_epi64(a, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), b);
        pair1 = _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), b);
        block* out = label + std::size_t{g.out} * k + m;
        m += 4;
        if (m == k) m = 0, ++j;
        return out;
    }
};

/// Stores the outputs of two gate pairs (w0: copies m, m+1; w1: m+2, m+3;
/// each pair's label the XOR of its lanes) as four adjacent labels.
inline void store_quad_outputs(block* out, __m512i w0, __m512i w1) noexcept {
    const __m512i o0 = _mm512_xor_si512(w0, swap_pairs(w0)), o1 = _mm512_xor_si512(w1, swap_pairs(w1));
    _mm512_storeu_si512(out, _mm512_permutex2var_epi64(o0, _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), o1));
}

template <class Hash, class Sink>
struct lockstep_garbler {
    quad_cursor at;
    const Hash& hash;
    Sink& sink;
    block delta;
    std::uint64_t and_index;

    template <std::size_t n>
    void run() {
        static_assert(n % 4 == 0);
        constexpr std::size_t Z = n / 2;
        const __m512i d = _mm512_maskz_broadcast_i32x4(0xFFFF, delta.v);
        __m512i h[2][Z], x0[Z];
        block* out[n / 4];
        for (std::size_t q = 0; q < n / 4; ++q) out[q] = at.next(x0[2 * q], x0[2 * q + 1]);
        for (std::size_t z = 0; z < Z; ++z) {
            h[0][z] = x0[z];
            h[1][z] = _mm512_xor_si512(x0[z], d);
        }
        tandem::detail::hash_registers<tandem::detail::lanes512, Z, 2>(hash, 2 * and_index, h);
        block tables[2 * n];
        __m512i w[Z];
        for (std::size_t z = 0; z < Z; ++z) w[z] = garble_pair(x0[z], h[0][z], h[1][z], d, tables + 4 * z);
        for (std::size_t q = 0; q < n / 4; ++q) store_quad_outputs(out[q], w[2 * q], w[2 * q + 1]);
        sink.write(tables, 2 * n);
        and_index += n;
    }
};

template <class Hash, class Source>
struct lockstep_evaluator {
    quad_cursor at;
    const Hash& hash;
    Source& source;
    std::uint64_t and_index;

    template <std::size_t n>
    void run() {
        static_assert(n % 4 == 0);
        constexpr std::size_t Z = n / 2;
        const block* t = source.read(2 * n);
        __m512i h[1][Z], x[Z];
        block* out[n / 4];
        for (std::size_t q = 0; q < n / 4; ++q) out[q] = at.next(x[2 * q], x[2 * q + 1]);
        for (std::size_t z = 0; z < Z; ++z) h[0][z] = x[z];
        tandem::detail::hash_registers<tandem::detail::lanes512, Z, 1>(hash, 2 * and_index, h);
        __m512i w[Z];
        for (std::size_t z = 0; z < Z; ++z) w[z] = evaluate_pair(x[z], h[0][z], t + 4 * z);
        for (std::size_t q = 0; q < n / 4; ++q) store_quad_outputs(out[q], w[2 * q], w[2 * q + 1]);
        and_index += n;
    }
};

/// Runs the n ANDs (a multiple of 4) of a lockstep kernel in batches of
/// Batch, then 8 and 4.
template <std::size_t Batch, class Kernel>
[[gnu::always_inline]] inline void run_quads(std::size_t n, Kernel& kernel) {
    std::size_t i = 0;
    for (; i + Batch <= n; i += Batch) kernel.template run<Batch>();
    if constexpr (Batch >= 16) if (i + 8 <= n) kernel.template run<8>(), i += 8;
    if (i + 4 <= n) kernel.template run<4>();
}

/// garbler_core::lockstep_ands and evaluator_core::lockstep_ands with these kernels.
template <class Hash, class Sink>
void garble_lockstep(const gate* gates, std::uint32_t w, std::uint32_t k, const Hash& hash, Sink& sink, block* label,
                     block delta, std::uint64_t first_and) {
    lockstep_garbler<Hash, Sink> g{{gates, label, k}, hash, sink, delta, first_and};
    run_quads<garble_batch>(std::size_t{w} * k, g);
}
template <class Hash, class Source>
void evaluate_lockstep(const gate* gates, std::uint32_t w, std::uint32_t k, const Hash& hash, Source& source,
                       block* label, std::uint64_t first_and) {
    lockstep_evaluator<Hash, Source> e{{gates, label, k}, hash, source, first_and};
    run_quads<evaluate_batch>(std::size_t{w} * k, e);
}

/// garbler_core::ands and evaluator_core::ands with these kernels.
template <class Hash, class Sink>
void garble_ands(const gate* gates, const Hash& hash, Sink& sink, label_array& label, block delta,
                 std::uint32_t begin, std::uint32_t end, std::uint64_t first_and) {
    and_garbler<Hash, Sink> a{{gates, hash, sink, label, delta, first_and}};
    run_ands<garble_batch>(begin, end, a);
}
template <class Hash, class Source>
void evaluate_ands(const gate* gates, const Hash& hash, Source& source, label_array& label,
                   std::uint32_t begin, std::uint32_t end, std::uint64_t first_and) {
    and_evaluator<Hash, Source> a{{gates, hash, source, label, first_and}};
    run_ands<evaluate_batch>(begin, end, a);
}

}  // namespace tandem::gc::detail::vaes

TANDEM_VAES_END

TANDEM_VAES256_BEGIN

/// The garbler's and evaluator's kernels on VAES with 256-bit registers (run
/// when crypto/isa.hpp chooses vaes256: AMD Zen 3 and later, Intel client
/// cores): one gate per register, lanes (A, B), whose tweaks 2g and 2g + 1
/// make one register of keys, so the hash expands two schedules per
/// instruction. The tables come out of the lanes as they are stored.
namespace tandem::gc::detail::vaes256 {

using lanes = tandem::detail::lanes256;

/// Lanes (label[g.in0], label[g.in1]).
inline __m256i operands(const label_array& label, const gate& g) noexcept {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(label[g.in0].v), label[g.in1].v, 1);
}

/// All ones on each lane whose point-and-permute bit (its lsb) is 1.
inline __m256i permute_masks(__m256i x) noexcept {
    const __m256i low = _mm256_shuffle_epi32(x, 0x00);  // each lane's low word in all four
    return _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(low, _mm256_set1_epi64x(1)));
}

/// (B, A) from (A, B).
inline __m256i swap_lanes(__m256i x) noexcept { return _mm256_permute2x128_si256(x, x, 0x01); }

/// (0, A) from (A, B)'s swap (B, A).
inline __m256i high_of(__m256i swapped) noexcept { return _mm256_blend_epi32(_mm256_setzero_si256(), swapped, 0xF0); }

/// The XOR of the two lanes: the gate's output label.
inline block fold(__m256i w) noexcept {
    return block(_mm_xor_si128(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}

/// Half-gates on one gate, lanes x0 = (A0, B0), with h0 their hashes and h1
/// the hashes of them ⊕ Δ: stores the table (TG, TE), returns C0.
inline block garble_gate(__m256i x0, __m256i h0, __m256i h1, __m256i d, block* table) noexcept {
    const __m256i sw = swap_lanes(x0);  // (B0, A0)
    // (TG, TE) = H0 ^ H1 ^ (pb·Δ, A0)
    const __m256i corr = _mm256_blend_epi32(_mm256_and_si256(permute_masks(sw), d), sw, 0xF0);
    const __m256i t = _mm256_xor_si256(_mm256_xor_si256(h0, h1), corr);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(table), t);
    // (WG0, WE0) = H0 ^ (pa·TG, pb·(TE ^ A0)); C0 = WG0 ^ WE0.
    return fold(_mm256_xor_si256(h0, _mm256_and_si256(permute_masks(x0), _mm256_xor_si256(t, high_of(sw)))));
}

/// The evaluator's half on lanes x = (Wa, Wb) with hashes h and the table t
/// (TG, TE): (TG, TE ^ Wa) selected by (sa, sb), XORed onto (H(Wa), H(Wb)).
inline block evaluate_gate(__m256i x, __m256i h, const block* t) noexcept {
    const __m256i u = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t)), high_of(swap_lanes(x)));
    return fold(_mm256_xor_si256(h, _mm256_and_si256(permute_masks(x), u)));
}

template <class Hash, class Sink>
struct and_garbler : detail::and_garbler<Hash, Sink> {
    using base = detail::and_garbler<Hash, Sink>;
    using base::and_index, base::gates, base::delta, base::hash, base::label, base::sink;

    template <std::size_t n>
    void run(std::uint32_t i) {
        const __m256i d = _mm256_broadcastsi128_si256(delta.v);
        __m256i h[2][n], x0[n];
        TANDEM_UNROLL
        for (std::size_t z = 0; z < n; ++z) {
            x0[z] = h[0][z] = operands(label, gates[i + z]);
            h[1][z] = _mm256_xor_si256(x0[z], d);
        }
        tandem::detail::hash_registers<lanes, n, 2>(hash, 2 * and_index, h);
        block tables[2 * n];
        TANDEM_UNROLL
        for (std::size_t z = 0; z < n; ++z)
            label[gates[i + z].out] = garble_gate(x0[z], h[0][z], h[1][z], d, tables + 2 * z);
        sink.write(tables, 2 * n);
        and_index += n;
    }
};

template <class Hash, class Source>
struct and_evaluator : detail::and_evaluator<Hash, Source> {
    using base = detail::and_evaluator<Hash, Source>;
    using base::and_index, base::gates, base::hash, base::label, base::source;

    template <std::size_t n>
    void run(std::uint32_t i) {
        const block* t = source.read(2 * n);
        __m256i h[1][n], x[n];
        TANDEM_UNROLL
        for (std::size_t z = 0; z < n; ++z) x[z] = h[0][z] = operands(label, gates[i + z]);
        tandem::detail::hash_registers<lanes, n, 1>(hash, 2 * and_index, h);
        TANDEM_UNROLL
        for (std::size_t z = 0; z < n; ++z) label[gates[i + z].out] = evaluate_gate(x[z], h[0][z], t + 2 * z);
        and_index += n;
    }
};

/// garbler_core::ands and evaluator_core::ands with these kernels.
template <class Hash, class Sink>
void garble_ands(const gate* gates, const Hash& hash, Sink& sink, label_array& label, block delta,
                 std::uint32_t begin, std::uint32_t end, std::uint64_t first_and) {
    and_garbler<Hash, Sink> a{{gates, hash, sink, label, delta, first_and}};
    run_ands<garble_batch>(begin, end, a);
}
template <class Hash, class Source>
void evaluate_ands(const gate* gates, const Hash& hash, Source& source, label_array& label,
                   std::uint32_t begin, std::uint32_t end, std::uint64_t first_and) {
    and_evaluator<Hash, Source> a{{gates, hash, source, label, first_and}};
    run_ands<evaluate_batch>(begin, end, a);
}

}  // namespace tandem::gc::detail::vaes256

TANDEM_VAES256_END

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

namespace detail {
/// linear_copies (above) for CPUs without VAES.
inline void linear_copies(const gate* gates, block* label, std::uint32_t begin, std::uint32_t end, std::uint32_t k,
                          block not_mask) noexcept {
    if (tandem::detail::use_vaes()) {
        vaes::linear_copies(gates, label, begin, end, k, not_mask);
        return;
    }
    for (std::uint32_t j = begin; j < end; ++j) {
        const gate g = gates[j];
        block* out = label + std::size_t{g.out} * k;
        const block* a = label + std::size_t{g.in0} * k;
        const block* b = label + std::size_t{g.in1} * k;
        if (g.kind == gate_kind::xor_gate)
            for (std::uint32_t m = 0; m < k; ++m) out[m] = a[m] ^ b[m];
        else
            for (std::uint32_t m = 0; m < k; ++m) out[m] = a[m] ^ not_mask;
    }
}

/// At most this many instances run in lockstep, and their labels take at
/// most lockstep_bytes: 64 instances make even a chain of one AND per level
/// fill four 16-gate batches; the byte budget keeps a group's labels in the
/// L2/L3 caches (the interleaved layout reads each body slot's k labels as
/// one run of adjacent lines).
inline constexpr std::uint32_t max_lockstep = 64;
inline constexpr std::size_t lockstep_bytes = std::size_t{1} << 20;

/// How many consecutive instances of `body` run in lockstep: a pure function
/// of the body, so that both parties form the same groups.
inline std::uint32_t lockstep_width(const circuit_data& body) noexcept {
    const std::size_t room = lockstep_bytes / (sizeof(block) * std::max<std::size_t>(body.slot_count, 1));
    const std::size_t k = std::clamp<std::size_t>(room, 1, max_lockstep);
    return static_cast<std::uint32_t>(k < 4 ? k : k & ~std::size_t{3});  // whole registers of labels
}

/// What garbler_core and evaluator_core share: walking levels, and running a
/// region instance in a label array of its own, through the core's ands()
/// and linear().
template <class Core>
class step_runner {
public:
    /// Levels [begin, end) of c; returns the tweak index after their ANDs.
    /// Flattened: a lone AND inlines here, as it must in a chain of one AND
    /// per level, where a call per gate shows; a level of two ANDs or more is
    /// one call into a kernel (the cores' many_ands, not inlined, so that each
    /// kernel is compiled once per core type, not once per caller).
    [[gnu::flatten]] std::uint64_t levels(const circuit_data& c, label_array& label, std::uint32_t begin, std::uint32_t end,
                         std::uint64_t first_and) {
        Core& core = static_cast<Core&>(*this);
        for (std::uint32_t l = begin; l < end; ++l) {
            const level_range& lv = c.levels[l];
            core.ands(c.gates.data(), label, lv.and_begin, lv.xor_begin, first_and);
            first_and += lv.and_count();
            core.linear(c, label, lv.xor_begin, lv.end);
        }
        return first_and;
    }
    /// Instances [begin, end) of region r, the first with tweak index
    /// first_and (an instance's tweaks follow the one before, exec/plan.hpp);
    /// returns the tweak index after them. Consecutive instances of one body
    /// run in lockstep groups (lockstep_width), one instance alone as before.
    std::uint64_t instances(const region_data& r, std::uint32_t begin, std::uint32_t end, label_array& outer,
                            std::uint64_t first_and) {
        for (std::uint32_t i = begin; i < end;) {
            const std::uint32_t body = r.instances[i].body;
            const std::uint32_t most = lockstep_width(r.bodies[body]);
            std::uint32_t k = 1;
            while (k < most && i + k < end && r.instances[i + k].body == body) ++k;
            first_and = k == 1 ? instance(r, r.instances[i], outer, first_and) : lockstep(r, i, k, outer, first_and);
            i += k;
        }
        return first_and;
    }

    /// One region instance: reads its inputs from `outer`, writes its outputs there.
    std::uint64_t instance(const region_data& r, const region_instance& i, label_array& outer,
                           std::uint64_t first_and) {
        const circuit_data& body = r.bodies[i.body];
        if (local_.size() < body.slot_count) local_.resize(body.slot_count);
        const auto in = r.inputs_of(i), out = r.outputs_of(i);
        for (std::size_t k = 0; k < in.size(); ++k) local_[k] = outer[in[k]];
        first_and = levels(body, local_, 0, static_cast<std::uint32_t>(body.levels.size()), first_and);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j] != unused_slot) outer[out[j]] = local_[body.output_slots[j]];
        return first_and;
    }

    /// Instances first .. first+k-1 (one body) in lockstep (paper 003 §3,
    /// SIMD sub-circuits): level d of all k runs as one level of k times the
    /// ANDs, so narrow bodies fill the hash batches as a wide circuit does.
    /// The k copies' labels are interleaved, slot s of copy m at s·k + m, so
    /// the k operands of one body gate are adjacent; the level's ANDs are
    /// relocated into that layout gate-major (gate j of copies 0..k-1, then
    /// gate j+1) and take consecutive tweaks in that order: tweak
    /// first_and + k·(ANDs of the levels before) + k·j + m. The group's
    /// tweaks are thus exactly the range its instances own, [first_and,
    /// first_and + k·ANDs(body)), and both parties derive the same groups
    /// from the same plan.
    std::uint64_t lockstep(const region_data& r, std::uint32_t first, std::uint32_t k, label_array& outer,
                           std::uint64_t first_and) {
        Core& core = static_cast<Core&>(*this);
        const circuit_data& body = r.bodies[r.instances[first].body];
        const std::size_t slots = std::size_t{body.slot_count} * k;
        if (local_.size() < slots) local_.resize(slots);
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto in = r.inputs_of(r.instances[first + m]);
            for (std::size_t s = 0; s < in.size(); ++s) local_[s * k + m] = outer[in[s]];
        }
        // With VAES and whole registers of copies, the kernel reads the body's
        // gates directly (vaes::quad_cursor); otherwise they are relocated.
        const bool quads = k % 4 == 0 && tandem::detail::use_vaes();
        for (const level_range& lv : body.levels) {
            const std::size_t ands = std::size_t{lv.and_count()} * k;
            if (ands != 0 && quads) {
                core.lockstep_ands(body.gates.data() + lv.and_begin, lv.and_count(), k, local_.data(), first_and);
                first_and += ands;
            } else if (ands != 0) {
                if (relocated_.size() < ands) relocated_.resize(ands);
                gate* g = relocated_.data();
                for (std::uint32_t j = lv.and_begin; j < lv.xor_begin; ++j) {
                    const gate x = body.gates[j];
                    for (std::uint32_t m = 0; m < k; ++m)
                        *g++ = gate{x.in0 * k + m, x.in1 * k + m, x.out * k + m, gate_kind::and_gate};
                }
                core.ands(relocated_.data(), local_, 0, static_cast<std::uint32_t>(ands), first_and);
                first_and += ands;
            }
            core.linear(body, local_, lv.xor_begin, lv.end, k);
        }
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto out = r.outputs_of(r.instances[first + m]);
            for (std::size_t j = 0; j < out.size(); ++j)
                if (out[j] != unused_slot) outer[out[j]] = local_[std::size_t{body.output_slots[j]} * k + m];
        }
        return first_and;
    }

private:
    label_array local_;           // one instance's labels, or a lockstep group's, reused
    std::vector<gate> relocated_;  // a lockstep level's ANDs in the group's layout, reused
};
}  // namespace detail

/// One thread's garbling engine: garbles levels of a circuit, parts of
/// levels (FGP) and region instances, each with the tweaks it is given, into
/// its sink. The session's executor (exec/) runs one per worker; garble()
/// below runs one over a whole circuit.
template <class Hash, table_sink Sink>
class garbler_core : public detail::step_runner<garbler_core<Hash, Sink>> {
public:
    garbler_core(block hash_start, block delta, Sink& sink) : hash_(hash_start), delta_(delta), sink_(sink) {}

    /// The ANDs [begin, end) of `gates` (all of one level), the first with tweak index first_and.
    void ands(const gate* gates, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) {
        // A lone AND (a chain: one per level) runs the same code on every ISA
        // and is taken here, without a call.
        if (end - begin > 1) return many_ands(gates, label, begin, end, first_and);
        detail::and_garbler<Hash, Sink> a{gates, hash_, sink_, label, delta_, first_and};
        if (end > begin) a.template run<1>(begin);
    }
    /// The w ANDs from `gates` on of k interleaved copies (k a multiple of 4,
    /// VAES only): see vaes::quad_cursor.
    void lockstep_ands(const gate* gates, std::uint32_t w, std::uint32_t k, block* label, std::uint64_t first_and) {
        detail::vaes::garble_lockstep(gates, w, k, hash_, sink_, label, delta_, first_and);
    }
    /// The XOR and NOT gates [begin, end) of c, in order.
    void linear(const circuit_data& c, detail::label_array& label, std::uint32_t begin, std::uint32_t end) const {
        for (std::uint32_t j = begin; j < end; ++j) {
            const gate& g = c.gates[j];
            label[g.out] = g.kind == gate_kind::xor_gate ? label[g.in0] ^ label[g.in1] : label[g.in0] ^ delta_;
        }
    }
    /// The same for k interleaved copies (lockstep: slot s of copy m at s·k + m).
    void linear(const circuit_data& c, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
                std::uint32_t k) const {
        detail::linear_copies(c.gates.data(), label.data(), begin, end, k, delta_);
    }
    /// Passes buffered tables on, if the sink buffers (channel_sink).
    void flush() {
        if constexpr (requires { sink_.flush(); }) sink_.flush();
    }

private:
    /// ands() for two ANDs or more, in the widest kernel that runs.
    [[gnu::noinline]] void many_ands(const gate* gates, detail::label_array& label, std::uint32_t begin,
                                     std::uint32_t end, std::uint64_t first_and) {
        switch (tandem::detail::choose_aes_isa()) {
        case aes_isa::vaes:
            return detail::vaes::garble_ands(gates, hash_, sink_, label, delta_, begin, end, first_and);
        case aes_isa::vaes256:
            return detail::vaes256::garble_ands(gates, hash_, sink_, label, delta_, begin, end, first_and);
        case aes_isa::aesni: break;
        }
        detail::and_garbler<Hash, Sink> a{gates, hash_, sink_, label, delta_, first_and};
        detail::run_ands<garble_batch>(begin, end, a);
    }

    Hash hash_;  // each core its own: the hash caches expanded keys (not thread-safe)
    block delta_;
    Sink& sink_;
};

/// The evaluator's counterpart of garbler_core, reading tables from a source.
template <class Hash, table_source Source>
class evaluator_core : public detail::step_runner<evaluator_core<Hash, Source>> {
public:
    evaluator_core(block hash_start, Source& source) : hash_(hash_start), source_(source) {}

    void ands(const gate* gates, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) {
        if (end - begin > 1) return many_ands(gates, label, begin, end, first_and);
        detail::and_evaluator<Hash, Source> a{gates, hash_, source_, label, first_and};
        if (end > begin) a.template run<1>(begin);
    }
    void lockstep_ands(const gate* gates, std::uint32_t w, std::uint32_t k, block* label, std::uint64_t first_and) {
        detail::vaes::evaluate_lockstep(gates, w, k, hash_, source_, label, first_and);
    }
    static void linear(const circuit_data& c, detail::label_array& label, std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t j = begin; j < end; ++j) {
            const gate& g = c.gates[j];
            label[g.out] = g.kind == gate_kind::xor_gate ? label[g.in0] ^ label[g.in1] : label[g.in0];
        }
    }
    static void linear(const circuit_data& c, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
                       std::uint32_t k) {
        detail::linear_copies(c.gates.data(), label.data(), begin, end, k, block());
    }

private:
    /// ands() for two ANDs or more, in the widest kernel that runs.
    [[gnu::noinline]] void many_ands(const gate* gates, detail::label_array& label, std::uint32_t begin,
                                     std::uint32_t end, std::uint64_t first_and) {
        switch (tandem::detail::choose_aes_isa()) {
        case aes_isa::vaes: return detail::vaes::evaluate_ands(gates, hash_, source_, label, begin, end, first_and);
        case aes_isa::vaes256:
            return detail::vaes256::evaluate_ands(gates, hash_, source_, label, begin, end, first_and);
        case aes_isa::aesni: break;
        }
        detail::and_evaluator<Hash, Source> a{gates, hash_, source_, label, first_and};
        detail::run_ands<evaluate_batch>(begin, end, a);
    }

    Hash hash_;
    Source& source_;
};

namespace detail {
/// Runs every step of c in order on one core (regions instance by instance);
/// returns the tweak index after the last AND.
template <class Core>
std::uint64_t run_all_steps(Core& core, const circuit_data& c, label_array& label, std::uint64_t first_and) {
    for (const step& st : c.steps) {
        if (st.kind == step_kind::sequential) {
            first_and = core.levels(c, label, st.level_begin, st.level_end, first_and);
            continue;
        }
        const region_data& r = c.regions[st.region];
        first_and = core.instances(r, 0, static_cast<std::uint32_t>(r.instances.size()), label, first_and);
    }
    return first_and;
}
}  // namespace detail

/// What garbling one circuit under a given encoding yields besides the tables.
struct garbled_outputs {
    decoding output;
    std::vector<block> output_zero;  ///< zero labels of the outputs (for checking returned labels)
    std::uint64_t and_gates = 0;     ///< ANDs garbled = tweaks used / 2
};

/// Everything garble() with a PRG produces besides the tables: the outputs
/// and the encoding and hash start it drew.
struct garbling : garbled_outputs {
    encoding input;
    block hash_start;  ///< S of the hash: public, the evaluator needs it
};

namespace detail {
/// Output decoding bits and zero labels from the final labels; wipes them.
inline garbled_outputs finish_garbling(const circuit_data& c, label_array& label, std::uint64_t and_gates) {
    garbled_outputs out;
    out.output.bits.reserve(c.output_slots.size());
    out.output_zero.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) {
        const bool constant = s == output_false || s == output_true;
        const block zero = constant ? block() : label[s];
        out.output_zero.push_back(zero);
        out.output.bits.push_back(constant ? (s == output_true) : zero.lsb());
    }
    out.and_gates = and_gates;
    tandem::detail::wipe_all(label);  // zero labels: with Δ they open every wire
    return out;
}

/// A label array holding the inputs' labels in front.
inline label_array input_slots(const circuit_data& c, std::span<const block> inputs) {
    label_array label(c.slot_count);
    std::copy(inputs.begin(), inputs.end(), label.begin());
    return label;
}

/// The active labels of the outputs (zero blocks for constants); wipes the labels.
inline std::vector<block> output_labels(const circuit_data& c, label_array& label) {
    std::vector<block> out;
    out.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) out.push_back(s == output_false || s == output_true ? block() : label[s]);
    tandem::detail::wipe_all(label);
    return out;
}
}  // namespace detail

/// Garbles c under a given encoding (Δ with lsb 1 and the zero label of every
/// input bit — a session keeps one Δ and takes the evaluator's zero labels
/// from OT extension), writing its tables to `sink` step by step (regions
/// instance by instance). `first_gate` offsets the tweaks, so circuits
/// garbled under one Δ never share one. Hash is mitccr_hash (default) or the
/// opt-in fixed_key_hash.
template <class Hash = mitccr_hash, table_sink Sink>
garbled_outputs garble(const circuit<>& circ, const encoding& input, block hash_start, Sink& sink,
                       std::uint64_t first_gate = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    detail::check_labels(c, input.zero_labels.size(), "garble");
    if (!input.delta.lsb()) throw usage_error("garble: Δ must have lsb 1 (point-and-permute)");
    detail::label_array label = detail::input_slots(c, input.zero_labels);
    garbler_core<Hash, Sink> core(hash_start, input.delta, sink);
    const std::uint64_t end = detail::run_all_steps(core, c, label, first_gate);
    return detail::finish_garbling(c, label, end - first_gate);
}

/// Garbles c, drawing Δ, the hash start S and the input labels from `rng`.
template <class Hash = mitccr_hash, table_sink Sink>
garbling garble(const circuit<>& circ, prg& rng, Sink& sink, std::uint64_t first_gate = 0) {
    const std::uint32_t n = circ.data().input_bits;
    encoding input{rng.next() | block(0, 1), std::vector<block>(n)};
    rng.fill(input.zero_labels.data(), n);
    const block hash_start = tandem::detail::declassified(rng.next());  // public (detail/secret.hpp)
    garbled_outputs outputs = garble<Hash>(circ, input, hash_start, sink, first_gate);
    return garbling{std::move(outputs), std::move(input), hash_start};
}

/// Evaluates c from its tables and the active labels of its input bits;
/// returns the active label of every output bit. Hash must match the garbler's.
template <class Hash = mitccr_hash, table_source Source>
std::vector<block> evaluate(const circuit<>& circ, block hash_start, Source& source,
                            std::span<const block> input_labels, std::uint64_t first_gate = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    detail::check_labels(c, input_labels.size(), "evaluate");
    detail::label_array label = detail::input_slots(c, input_labels);
    evaluator_core<Hash, Source> core(hash_start, source);
    detail::run_all_steps(core, c, label, first_gate);
    return detail::output_labels(c, label);
}

/// Output bits from output labels: lsb(label) ⊕ decoding bit.
inline std::vector<bool> decode(std::span<const block> labels, const decoding& d) {
    if (labels.size() != d.bits.size())
        throw usage_error("decode: " + std::to_string(labels.size()) + " labels for " +
                          std::to_string(d.bits.size()) + " output bits");
    std::vector<bool> bits(labels.size());
    for (std::size_t k = 0; k < labels.size(); ++k) bits[k] = labels[k].lsb() != (d.bits[k] != 0);
    return bits;
}

}  // namespace tandem::gc

TANDEM_CRYPTO_END
