// tandem/gc/half_gates_kernels.hpp — the AND kernels of half-gates, one per
// AES instruction set: 128-bit (AES-NI on any x86-64 with it, or the ARMv8
// Crypto Extensions on AArch64: one code, crypto/lanes.hpp), VAES on
// 512-bit registers (two gates per register, AVX-512) and VAES on 256-bit
// registers (one gate per register, e.g. AMD Zen 3). Each garbles or
// evaluates `Batch` independent ANDs of a level at a time; the scheme and
// its equations are at the top of gc/half_gates.hpp, which picks a kernel
// (crypto/isa.hpp) and walks the circuit.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/gc/tables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {
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

/// v[c][m] ← H(v[c][m], first_tweak + m) for the 128-bit kernels below. A
/// lone AND (a chain, or a level's tail) goes through the hash's dispatch,
/// which keeps key schedules expanded ahead for chains. Batches of two ANDs
/// or more come here only where 128 bits is the widest ISA (the VAES kernels
/// take every such level), so they hash in 128-bit lanes directly: the
/// dispatch would only compile the VAES hashes again in each translation
/// unit for batches that never reach them.
template <std::size_t N, std::size_t C, class Hash>
[[gnu::always_inline]] inline void hash_lanes128(const Hash& hash, std::uint64_t first_tweak,
                                                 tandem::detail::vec128 (&v)[C][N]) noexcept {
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
        const block d = delta;
        // x[2k], x[2k + 1]: A0, B0 of gate k; h[c]: their hashes (c = 1: of them ⊕ Δ).
        // Registers, not blocks: arrays of blocks measured 1 % more moves.
        tandem::detail::vec128 x[2 * n], h[2][2 * n];
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = gates[i + k];
            x[2 * k] = h[0][2 * k] = label[g.in0].v;
            x[2 * k + 1] = h[0][2 * k + 1] = label[g.in1].v;
            h[1][2 * k] = (block(x[2 * k]) ^ d).v;
            h[1][2 * k + 1] = (block(x[2 * k + 1]) ^ d).v;
        }
        hash_lanes128<2 * n, 2>(hash, 2 * and_index, h);
        block tables[2 * n];
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const block a0(x[2 * k]), pa = permute_mask(a0), pb = permute_mask(block(x[2 * k + 1]));
            const block h0g(h[0][2 * k]), h0e(h[0][2 * k + 1]);
            const block tg = h0g ^ block(h[1][2 * k]) ^ (pb & d);
            const block te = h0e ^ block(h[1][2 * k + 1]) ^ a0;
            tables[2 * k] = tg;
            tables[2 * k + 1] = te;
            const block wg = h0g ^ (pa & tg);
            const block we = h0e ^ (pb & (te ^ a0));
            label[gates[i + k].out] = wg ^ we;
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
        tandem::detail::vec128 x[2 * n], h[1][2 * n];
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = gates[i + k];
            x[2 * k] = h[0][2 * k] = label[g.in0].v;
            x[2 * k + 1] = h[0][2 * k + 1] = label[g.in1].v;
        }
        hash_lanes128<2 * n, 1>(hash, 2 * and_index, h);
        TANDEM_UNROLL
        for (std::size_t k = 0; k < n; ++k) {
            const block a(x[2 * k]);
            const block wg = block(h[0][2 * k]) ^ (permute_mask(a) & t[2 * k]);
            const block we = block(h[0][2 * k + 1]) ^ (permute_mask(block(x[2 * k + 1])) & (t[2 * k + 1] ^ a));
            label[gates[i + k].out] = wg ^ we;
        }
        and_index += n;
    }
};

}  // namespace tandem::gc::detail

TANDEM_CRYPTO_END

#if TANDEM_X86

// The helpers below that take or return 256- or 512-bit vectors by value are
// always inlined: an out-of-line copy would be called across translation
// units built with different -march (the library without, a program with
// -march=native), and Clang passes 512-bit vectors differently depending on
// the preferred vector width of each side (-march=native on an AVX-512 CPU
// prefers 256) — wrong labels, found when the library began to be compiled
// apart (issue 29). By reference (as crypto/lanes.hpp does) or inlined, no
// vector crosses a call.
TANDEM_VAES_BEGIN

/// The garbler's and evaluator's VAES kernels (run when detail::use_vaes()):
/// two gates per 512-bit register, their tables computed in registers.
namespace tandem::gc::detail::vaes {

/// Lanes (label[g0.in0], label[g0.in1], label[g1.in0], label[g1.in1]): two
/// gates' operands in one register, placed by masked broadcasts (GCC 12 warns
/// falsely on the insert intrinsics, bug 105593).
[[gnu::always_inline]] inline __m512i operand_pair(const label_array& label, const gate& g0, const gate& g1) noexcept {
    __m512i v = _mm512_maskz_broadcast_i32x4(0x000F, label[g0.in0].v);
    v = _mm512_mask_broadcast_i32x4(v, 0x00F0, label[g0.in1].v);
    v = _mm512_mask_broadcast_i32x4(v, 0x0F00, label[g1.in0].v);
    return _mm512_mask_broadcast_i32x4(v, 0xF000, label[g1.in1].v);
}

/// Qword mask of each lane's point-and-permute bit (both qwords of a lane).
[[gnu::always_inline]] inline __mmask8 permute_bits(__m512i x) noexcept {
    const __mmask8 bit0 = _mm512_test_epi64_mask(x, _mm512_set1_epi64(1)) & 0x55;
    return static_cast<__mmask8>(bit0 | (bit0 << 1));
}

/// Swaps the lanes of each pair: (a, b, a', b') -> (b, a, b', a').
[[gnu::always_inline]] inline __m512i swap_pairs(__m512i x) noexcept { return _mm512_maskz_shuffle_i64x2(0xFF, x, x, 0xB1); }

/// (W, W') = the XOR of each lane pair of w, stored as the gates' output labels.
[[gnu::always_inline]] inline void store_pair_outputs(label_array& label, const gate& g0, const gate& g1, __m512i w) noexcept {
    const __m512i out = _mm512_xor_si512(w, swap_pairs(w));
    label[g0.out] = block(_mm512_maskz_extracti32x4_epi32(0xF, out, 0));
    label[g1.out] = block(_mm512_maskz_extracti32x4_epi32(0xF, out, 2));
}
/// Half-gates on one register of two gates, lanes (A0, B0, A0', B0'), with
/// h0, h1 the hashes of those lanes and of them ⊕ Δ: stores the lane pairs
/// (TG, TE) — the tables — and returns (WG0, WE0) pairs, whose XOR is C0.
[[gnu::always_inline]] inline __m512i garble_pair(__m512i x0, __m512i h0, __m512i h1, __m512i d, block* tables) noexcept {
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
[[gnu::always_inline]] inline __m512i evaluate_pair(__m512i x, __m512i h, const block* t) noexcept {
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
        switch (g.kind) {
        case gate_kind::xor_gate:
            for (std::uint32_t m = 0; m < full; m += 4)
                _mm512_storeu_si512(out + m, _mm512_xor_si512(_mm512_loadu_si512(a + m), _mm512_loadu_si512(b + m)));
            if (tail != 0)
                _mm512_mask_storeu_epi64(out + full, tail,
                                         _mm512_xor_si512(_mm512_maskz_loadu_epi64(tail, a + full),
                                                          _mm512_maskz_loadu_epi64(tail, b + full)));
            break;
        case gate_kind::not_gate:
            for (std::uint32_t m = 0; m < full; m += 4)
                _mm512_storeu_si512(out + m, _mm512_xor_si512(_mm512_loadu_si512(a + m), nm));
            if (tail != 0)
                _mm512_mask_storeu_epi64(out + full, tail, _mm512_xor_si512(_mm512_maskz_loadu_epi64(tail, a + full), nm));
            break;
        case gate_kind::and_gate:  // never in a linear range
            break;
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
[[gnu::always_inline]] inline void store_quad_outputs(block* out, __m512i w0, __m512i w1) noexcept {
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
[[gnu::always_inline]] inline __m256i operands(const label_array& label, const gate& g) noexcept {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(label[g.in0].v), label[g.in1].v, 1);
}

/// All ones on each lane whose point-and-permute bit (its lsb) is 1.
[[gnu::always_inline]] inline __m256i permute_masks(__m256i x) noexcept {
    const __m256i low = _mm256_shuffle_epi32(x, 0x00);  // each lane's low word in all four
    return _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(low, _mm256_set1_epi64x(1)));
}

/// (B, A) from (A, B).
[[gnu::always_inline]] inline __m256i swap_lanes(__m256i x) noexcept { return _mm256_permute2x128_si256(x, x, 0x01); }

/// (0, A) from (A, B)'s swap (B, A).
[[gnu::always_inline]] inline __m256i high_of(__m256i swapped) noexcept { return _mm256_blend_epi32(_mm256_setzero_si256(), swapped, 0xF0); }

/// The XOR of the two lanes: the gate's output label.
[[gnu::always_inline]] inline block fold(__m256i w) noexcept {
    return block(_mm_xor_si128(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}

/// Half-gates on one gate, lanes x0 = (A0, B0), with h0 their hashes and h1
/// the hashes of them ⊕ Δ: stores the table (TG, TE), returns C0.
[[gnu::always_inline]] inline block garble_gate(__m256i x0, __m256i h0, __m256i h1, __m256i d, block* table) noexcept {
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
[[gnu::always_inline]] inline block evaluate_gate(__m256i x, __m256i h, const block* t) noexcept {
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

#endif  // TANDEM_X86
