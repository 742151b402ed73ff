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
// The circuit is walked level by level; the ANDs of a level are independent,
// so they are hashed `batch` gates at a time with the keys of all their
// tweaks expanded side by side (crypto/hash.hpp).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/gc/tables.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// What the garbler keeps to encode inputs: Δ and the zero label of every input bit.
struct encoding {
    block delta;
    std::vector<block> zero_labels;  ///< input bit k (in circuit order)
    /// The label that encodes `bit` on input bit k.
    block label(std::size_t k, bool bit) const noexcept { return zero_labels[k] ^ (mask_of(bit) & delta); }
};

/// What turns output labels into bits: the permute bit of each output wire
/// (the constant itself for outputs that are public constants).
struct decoding {
    std::vector<std::uint8_t> bits;
};

/// Everything garble() produces besides the tables.
struct garbling {
    encoding input;
    decoding output;
    block hash_start;                ///< S of the hash: public, the evaluator needs it
    std::vector<block> output_zero;  ///< zero labels of the outputs (for checking returned labels)
    std::uint64_t and_gates = 0;     ///< ANDs garbled = tweaks used / 2
};

/// Gates per hash batch: 8 gates are 16 keys, four 512-bit registers.
inline constexpr std::size_t garble_batch = 8;
inline constexpr std::size_t evaluate_batch = 16;

namespace detail {
inline void check_labels(const circuit_data& c, std::size_t n) {
    if (n != c.input_bits)
        throw usage_error("evaluate: the circuit has " + std::to_string(c.input_bits) + " input bits but " +
                          std::to_string(n) + " labels were given");
}
}  // namespace detail

/// Garbles c, writing its tables to `sink` level by level. Draws Δ, the hash
/// start S and the input labels from `rng`. `first_gate` offsets the tweaks,
/// so several circuits garbled under one Δ never share one.
template <table_sink Sink>
garbling garble(const circuit<>& circ, prg& rng, Sink& sink, std::uint64_t first_gate = 0) {
    const circuit_data& c = circ.data();
    garbling out{encoding{rng.next() | block(0, 1), {}}, {}, rng.next(), {}, 0};
    const block delta = out.input.delta;
    const mitccr_hash hash(out.hash_start);

    std::vector<block> label(c.slot_count);
    out.input.zero_labels.resize(c.input_bits);
    rng.fill(out.input.zero_labels.data(), c.input_bits);
    std::copy(out.input.zero_labels.begin(), out.input.zero_labels.end(), label.begin());

    std::uint64_t and_index = first_gate;
    constexpr std::size_t B = garble_batch;
    block x[4 * B], tables[2 * B];
    // Garbles ANDs [i, i + n) of the level; x holds A0, B0 of each gate, then A1, B1.
    auto garble_ands = [&](std::uint32_t i, std::size_t n, bool full) {
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = c.gates[i + k];
            x[2 * k] = label[g.in0];
            x[2 * k + 1] = label[g.in1];
            x[2 * n + 2 * k] = label[g.in0] ^ delta;
            x[2 * n + 2 * k + 1] = label[g.in1] ^ delta;
        }
        if (full) hash.hash<2 * B, 2>(2 * and_index, x);
        else hash.hash(2 * and_index, 2 * n, 2, x);
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = c.gates[i + k];
            const block a0 = label[g.in0], b0 = label[g.in1];
            const block pa = mask_of(a0.lsb()), pb = mask_of(b0.lsb());
            const block ha0 = x[2 * k], hb0 = x[2 * k + 1], ha1 = x[2 * n + 2 * k], hb1 = x[2 * n + 2 * k + 1];
            const block tg = ha0 ^ ha1 ^ (pb & delta);
            const block te = hb0 ^ hb1 ^ a0;
            tables[2 * k] = tg;
            tables[2 * k + 1] = te;
            label[g.out] = ha0 ^ (pa & tg) ^ hb0 ^ (pb & (te ^ a0));
        }
        sink.write(tables, 2 * n);
        and_index += n;
    };

    for (const level_range& lv : c.levels) {
        std::uint32_t i = lv.and_begin;
        for (; i + B <= lv.xor_begin; i += B) garble_ands(i, B, true);
        if (i < lv.xor_begin) garble_ands(i, lv.xor_begin - i, false);
        for (std::uint32_t j = lv.xor_begin; j < lv.end; ++j) {
            const gate& g = c.gates[j];
            label[g.out] = g.kind == gate_kind::xor_gate ? label[g.in0] ^ label[g.in1] : label[g.in0] ^ delta;
        }
    }

    out.output.bits.reserve(c.output_slots.size());
    out.output_zero.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) {
        const bool constant = s == output_false || s == output_true;
        const block zero = constant ? block() : label[s];
        out.output_zero.push_back(zero);
        out.output.bits.push_back(constant ? (s == output_true) : zero.lsb());
    }
    out.and_gates = and_index - first_gate;
    return out;
}

/// Evaluates c from its tables and the active labels of its input bits;
/// returns the active label of every output bit.
template <table_source Source>
std::vector<block> evaluate(const circuit<>& circ, block hash_start, Source& source,
                            std::span<const block> input_labels, std::uint64_t first_gate = 0) {
    const circuit_data& c = circ.data();
    detail::check_labels(c, input_labels.size());
    const mitccr_hash hash(hash_start);
    std::vector<block> label(c.slot_count);
    std::copy(input_labels.begin(), input_labels.end(), label.begin());

    std::uint64_t and_index = first_gate;
    constexpr std::size_t B = evaluate_batch;
    block x[2 * B];
    auto evaluate_ands = [&](std::uint32_t i, std::size_t n, bool full) {
        const block* t = source.read(2 * n);
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = c.gates[i + k];
            x[2 * k] = label[g.in0];
            x[2 * k + 1] = label[g.in1];
        }
        if (full) hash.hash<2 * B, 1>(2 * and_index, x);
        else hash.hash(2 * and_index, 2 * n, 1, x);
        for (std::size_t k = 0; k < n; ++k) {
            const gate& g = c.gates[i + k];
            const block a = label[g.in0], b = label[g.in1];
            label[g.out] = x[2 * k] ^ (mask_of(a.lsb()) & t[2 * k]) ^ x[2 * k + 1] ^
                           (mask_of(b.lsb()) & (t[2 * k + 1] ^ a));
        }
        and_index += n;
    };

    for (const level_range& lv : c.levels) {
        std::uint32_t i = lv.and_begin;
        for (; i + B <= lv.xor_begin; i += B) evaluate_ands(i, B, true);
        if (i < lv.xor_begin) evaluate_ands(i, lv.xor_begin - i, false);
        for (std::uint32_t j = lv.xor_begin; j < lv.end; ++j) {
            const gate& g = c.gates[j];
            label[g.out] = g.kind == gate_kind::xor_gate ? label[g.in0] ^ label[g.in1] : label[g.in0];
        }
    }

    std::vector<block> out;
    out.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) out.push_back(s == output_false || s == output_true ? block() : label[s]);
    return out;
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
