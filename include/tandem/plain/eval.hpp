// tandem/plain/eval.hpp — the plaintext evaluator.
//
// Runs the recorded gates themselves — the very gates a garbled run would
// process — on plain bits, bit-sliced: every slot is a 64-bit word whose bit i
// belongs to input set i, so one pass evaluates up to 64 input sets (docs/DESIGN.md §4).
// No keys, no network, no threads: this is what unit tests of secure
// functions run.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/steps.hpp>
#include <tandem/error.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tandem {

namespace detail {

/// Runs the levels [begin, end) of c on the slots s.
inline void run_levels(const circuit_data& c, std::uint32_t begin, std::uint32_t end, std::uint64_t* s) {
    for (std::uint32_t l = begin; l < end; ++l) {
        const level_range& lv = c.levels[l];
        for (std::uint32_t i = lv.and_begin; i < lv.xor_begin; ++i) {
            const gate& g = c.gates[i];
            s[g.out] = s[g.in0] & s[g.in1];
        }
        for (std::uint32_t i = lv.xor_begin; i < lv.end; ++i) {
            const gate& g = c.gates[i];
            s[g.out] = free_gate_value(g.kind, s[g.in0], s[g.in1], ~std::uint64_t{0});
        }
    }
}

/// Evaluates c on 64 lanes: `in` has c.input_bits words, `out` receives one word per output bit.
inline void eval_lanes(const circuit_data& c, std::span<const std::uint64_t> in, std::span<std::uint64_t> out) {
    std::vector<std::uint64_t> slot(c.slot_count);
    std::copy(in.begin(), in.begin() + c.input_bits, slot.begin());
    const std::uint64_t* s = slot.data();
    walk_steps(c, slot.data(), std::uint64_t{0}, run_levels);
    for (std::size_t k = 0; k < c.output_slots.size(); ++k) {
        const std::uint32_t w = c.output_slots[k];
        out[k] = w == output_false ? 0 : w == output_true ? ~std::uint64_t{0} : s[w];
    }
}

}  // namespace detail

/// Evaluates an untyped circuit on one set of inputs given bit by bit:
/// inputs[i] holds the bits of input value i (least significant first), and
/// the result holds the bits of each output value.
inline std::vector<std::vector<bool>> eval_plain_bits(const circuit<>& c, const std::vector<std::vector<bool>>& inputs) {
    const circuit_data& d = c.data();
    if (inputs.size() != d.inputs.size())
        throw usage_error("eval_plain_bits: the circuit has " + std::to_string(d.inputs.size()) +
                          " input values but " + std::to_string(inputs.size()) +
                          " were given (pass every party's values in circuit order; circuit::input_widths() lists "
                          "their widths)");
    std::vector<std::uint64_t> in(d.input_bits), out(d.output_slots.size());
    for (std::size_t v = 0; v < inputs.size(); ++v) {
        if (inputs[v].size() != d.inputs[v].bits)
            throw usage_error("eval_plain_bits: input value " + std::to_string(v) + " (" +
                              std::string(to_string(d.inputs[v].owner)) + "'s) has " +
                              std::to_string(d.inputs[v].bits) + " bits but " + std::to_string(inputs[v].size()) +
                              " were given");
        for (std::size_t k = 0; k < inputs[v].size(); ++k) in[d.inputs[v].first_bit + k] = inputs[v][k] ? 1 : 0;
    }
    detail::eval_lanes(d, in, out);
    std::vector<std::vector<bool>> result;
    for (const value_layout& o : d.outputs) {
        std::vector<bool> bits(o.bits);
        for (std::uint32_t k = 0; k < o.bits; ++k) bits[k] = (out[o.first_bit + k] & 1u) != 0;
        result.push_back(std::move(bits));
    }
    return result;
}

}  // namespace tandem
