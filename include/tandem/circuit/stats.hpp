// tandem/circuit/stats.hpp — what a circuit costs.
#pragma once

#include <tandem/circuit/circuit_data.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace tandem {

struct circuit_stats {
    std::uint64_t and_gates = 0;
    std::uint64_t xor_gates = 0;
    std::uint64_t not_gates = 0;
    std::uint32_t and_depth = 0;  ///< longest chain of ANDs
    std::uint32_t levels = 0;     ///< stored levels (and_depth, plus level 0 if it has gates)
    /// ANDs in each stored level, in order (paper 001 Fig. 7 plots this).
    std::vector<std::uint32_t> level_and_width;
    /// width_histogram[k] = number of levels whose AND width w has floor(log2 w) == k
    /// (levels without ANDs are not counted).
    std::vector<std::uint32_t> width_histogram;
    std::uint32_t peak_working_set = 0;  ///< slots an evaluator must hold at once
    std::uint64_t wire_count = 0;
    std::uint32_t input_bits_alice = 0;
    std::uint32_t input_bits_bob = 0;
    std::uint32_t output_bits = 0;
    /// Bytes a semi-honest half-gates run sends, garbler (Alice) to evaluator:
    /// 32 per AND, 16 per garbler input bit, 16 per evaluator input bit (the
    /// IKNP sender's correction), one decoding bit per output bit.
    std::uint64_t bytes_garbler_to_evaluator = 0;
    /// Evaluator to garbler: 16 per evaluator input bit (the IKNP matrix column).
    /// Base OTs and output labels sent back are not included.
    std::uint64_t bytes_evaluator_to_garbler = 0;
};

/// Counts everything in circuit_stats; linear in the number of gates.
inline circuit_stats compute_stats(const circuit_data& c) {
    circuit_stats s;
    for (const gate& g : c.gates) {
        switch (g.kind) {
            case gate_kind::and_gate: ++s.and_gates; break;
            case gate_kind::xor_gate: ++s.xor_gates; break;
            case gate_kind::not_gate: ++s.not_gates; break;
        }
    }
    s.levels = static_cast<std::uint32_t>(c.levels.size());
    for (const level_range& l : c.levels) {
        const std::uint32_t w = l.and_count();
        s.level_and_width.push_back(w);
        if (w == 0) continue;
        ++s.and_depth;
        const auto k = static_cast<std::size_t>(std::bit_width(w) - 1);
        if (s.width_histogram.size() <= k) s.width_histogram.resize(k + 1, 0);
        ++s.width_histogram[k];
    }
    s.peak_working_set = c.slot_count;
    s.wire_count = c.wire_count;
    for (const value_layout& v : c.inputs) (v.owner == party::alice ? s.input_bits_alice : s.input_bits_bob) += v.bits;
    s.output_bits = static_cast<std::uint32_t>(c.output_slots.size());
    s.bytes_garbler_to_evaluator =
        32 * s.and_gates + 16 * std::uint64_t{s.input_bits_alice} + 16 * std::uint64_t{s.input_bits_bob} +
        (std::uint64_t{s.output_bits} + 7) / 8;
    s.bytes_evaluator_to_garbler = 16 * std::uint64_t{s.input_bits_bob};
    return s;
}

}  // namespace tandem
