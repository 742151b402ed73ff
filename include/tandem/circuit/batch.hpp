// tandem/circuit/batch.hpp — one circuit over many input sets, as one circuit.
//
// session::run_batch runs a circuit c on B input sets in one run: one run
// header, one OT extension for all of Bob's input bits, one exchange of
// outputs. It does so by running the batched circuit made here, which the
// protocol (session/yao.hpp), the planners and the executors take like any
// other:
//  * inputs: B copies of c's input values, set b's after set b - 1's, so
//    input bits [b·n, (b+1)·n) are set b's (n = c's input bits);
//  * one step, a region with B instances of one body equal to c (flattened
//    when c has regions; one sequential step over its levels), instance b
//    reading set b's input bits and writing its outputs to slots of its own
//    after the inputs;
//  * outputs: B copies of c's output values, set b's after set b - 1's;
//    c's public-constant outputs stay constants in every copy (a body's
//    outputs must be slots, so the body has only c's other outputs).
// The planner splits the instances over workers (and over both parties'
// worlds with IPP), so the B runs garble side by side as one wide circuit.
// An empty batch (B = 0) is a region without instances: the run still
// exchanges its header, so both parties stay in step.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/circuit_data.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/error.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tandem::detail {

/// The circuit that runs c on `sets` input sets (see the top of this header).
/// Throws usage_error if the batch needs more slots than a circuit holds.
inline circuit<> make_batched(const circuit<>& c, std::uint64_t sets) {
    const circuit<> flat = flatten(c);
    const circuit_data& d = flat.data();

    // The body: c's gates and levels, its inputs, its outputs that are slots.
    circuit_data body;
    body.gates = d.gates;
    body.levels = d.levels;
    if (!d.levels.empty())
        body.steps.push_back(step{step_kind::sequential, 0, static_cast<std::uint32_t>(d.levels.size()), 0});
    body.inputs = d.inputs;
    body.input_bits = d.input_bits;
    body.slot_count = d.slot_count;
    body.wire_count = std::uint64_t{d.input_bits} + d.gates.size();
    std::vector<std::uint32_t> body_output(d.output_slots.size(), 0);  // c's output k -> body output, if a slot
    for (std::size_t k = 0; k < d.output_slots.size(); ++k) {
        const std::uint32_t s = d.output_slots[k];
        if (s == output_false || s == output_true) continue;
        body_output[k] = static_cast<std::uint32_t>(body.output_slots.size());
        body.output_slots.push_back(s);
    }
    const std::uint64_t in = d.input_bits, live = body.output_slots.size(), out = d.output_slots.size();
    if (live > 0) body.outputs.push_back(value_layout{party::alice, 0, static_cast<std::uint32_t>(live)});

    // Slots: the B sets' input bits, then each instance's outputs.
    const std::uint64_t slots = sets * (in + live);
    if (slots >= output_false || sets * out >= output_false || sets * (in + out) >= output_false)
        throw usage_error("session::run_batch: " + std::to_string(sets) + " input sets of this circuit (" +
                          std::to_string(in) + " input and " + std::to_string(out) +
                          " output bits each) need more than 2^32 - 2 slots, more than one circuit holds; split the "
                          "batch into smaller ones");

    circuit_data b;
    b.input_bits = static_cast<std::uint32_t>(sets * in);
    b.slot_count = static_cast<std::uint32_t>(slots);
    b.wire_count = slots;  // input bits + region instance outputs; no gates of its own
    b.inputs.reserve(sets * d.inputs.size());
    b.outputs.reserve(sets * d.outputs.size());
    b.output_slots.reserve(sets * out);
    region_data r;
    r.name = "run_batch";
    r.instances.reserve(sets);
    r.wire_map.reserve(slots);
    for (std::uint64_t s = 0; s < sets; ++s) {
        const auto first_in = static_cast<std::uint32_t>(s * in);
        const auto first_out = static_cast<std::uint32_t>(sets * in + s * live);  // this instance's output slots
        for (const value_layout& v : d.inputs)
            b.inputs.push_back(value_layout{v.owner, first_in + v.first_bit, v.bits});
        for (const value_layout& v : d.outputs)
            b.outputs.push_back(value_layout{v.owner, static_cast<std::uint32_t>(s * out) + v.first_bit, v.bits});
        for (std::size_t k = 0; k < d.output_slots.size(); ++k) {
            const std::uint32_t slot = d.output_slots[k];
            b.output_slots.push_back(slot == output_false || slot == output_true ? slot : first_out + body_output[k]);
        }
        r.instances.push_back(region_instance{0, static_cast<std::uint32_t>(r.wire_map.size())});
        for (std::uint64_t k = 0; k < in; ++k) r.wire_map.push_back(first_in + static_cast<std::uint32_t>(k));
        for (std::uint64_t j = 0; j < live; ++j) r.wire_map.push_back(first_out + static_cast<std::uint32_t>(j));
    }
    r.bodies.push_back(std::move(body));
    b.regions.push_back(std::move(r));
    b.steps.push_back(step{step_kind::region, 0, 0, 0});
    return circuit<>(std::move(b));  // validated: next to the body's gates the check costs little
}

}  // namespace tandem::detail
