// tandem/circuit/flatten.hpp — a circuit with its regions inlined.
//
// Replays every executed gate, each region instance in order, into a fresh
// builder and lays the result out as one sequential circuit: the same
// function, levelled across what were instances. Bristol export uses it (the
// format has no regions), and so do benchmarks of fine-grained parallelism
// alone (FGP sees the wide levels that side-by-side instances make).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/layout.hpp>
#include <tandem/circuit/steps.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tandem {

namespace detail {

/// Replays the levels [begin, end) of c on wire references held per slot.
inline void replay_levels(builder& b, const circuit_data& c, std::uint32_t begin, std::uint32_t end, wire_ref* ref) {
    for (std::uint32_t l = begin; l < end; ++l)
        for (std::uint32_t i = c.levels[l].and_begin; i < c.levels[l].end; ++i) {
            const gate& g = c.gates[i];
            switch (g.kind) {
                case gate_kind::and_gate: ref[g.out] = b.and_(ref[g.in0], ref[g.in1]); break;
                case gate_kind::xor_gate: ref[g.out] = b.xor_(ref[g.in0], ref[g.in1]); break;
                case gate_kind::not_gate: ref[g.out] = ~ref[g.in0]; break;
            }
        }
}

}  // namespace detail

/// The circuit c computes, without regions (same inputs and outputs).
inline circuit<> flatten(const circuit<>& c) {
    const circuit_data& d = c.data();
    if (d.regions.empty()) return c;
    detail::builder b;
    std::vector<detail::wire_ref> ref(d.slot_count);
    for (const value_layout& v : d.inputs) {
        const detail::wire_ref first = b.add_input_value(v.owner, v.bits);
        for (std::uint32_t k = 0; k < v.bits; ++k) ref[v.first_bit + k] = detail::builder::input_bit(first, k);
    }
    detail::walk_steps(d, ref.data(), detail::false_ref,
                       [&b](const circuit_data& part, std::uint32_t begin, std::uint32_t end, detail::wire_ref* r) {
                           detail::replay_levels(b, part, begin, end, r);
                       });
    std::vector<detail::wire_ref> bits;
    for (const value_layout& v : d.outputs) {
        bits.clear();
        for (std::uint32_t k = 0; k < v.bits; ++k) {
            const std::uint32_t s = d.output_slots[v.first_bit + k];
            bits.push_back(s == output_false ? detail::false_ref : s == output_true ? detail::true_ref : ref[s]);
        }
        b.add_output_value(bits.data(), v.bits);
    }
    return circuit<>(detail::lay_out(std::move(b).take()));
}

/// The circuit d computes, without regions, with the bits in `entry_slots`
/// (d's slots: a streamed segment's carried wires and inputs, say) as its
/// input bits 0, 1, ... in that order (one input value), and d's outputs.
inline circuit<> flatten_entries(const circuit_data& d, std::span<const std::uint32_t> entry_slots) {
    detail::builder b;
    std::vector<detail::wire_ref> ref(d.slot_count);
    if (!entry_slots.empty()) {
        const detail::wire_ref first = b.add_input_value(party::alice, static_cast<std::uint32_t>(entry_slots.size()));
        for (std::uint32_t k = 0; k < entry_slots.size(); ++k) ref[entry_slots[k]] = detail::builder::input_bit(first, k);
    }
    detail::walk_steps(d, ref.data(), detail::false_ref,
                       [&b](const circuit_data& part, std::uint32_t begin, std::uint32_t end, detail::wire_ref* r) {
                           detail::replay_levels(b, part, begin, end, r);
                       });
    std::vector<detail::wire_ref> bits;
    for (const std::uint32_t s : d.output_slots)
        bits.push_back(s == output_false ? detail::false_ref : s == output_true ? detail::true_ref : ref[s]);
    if (!bits.empty()) b.add_output_value(bits.data(), static_cast<std::uint32_t>(bits.size()));
    return circuit<>(detail::lay_out(std::move(b).take()));
}

}  // namespace tandem
