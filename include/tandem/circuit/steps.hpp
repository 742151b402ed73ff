// tandem/circuit/steps.hpp — walking a circuit's steps with per-slot values.
//
// Shared by the passes that hold one value per slot in a plain array
// (plaintext evaluation: 64-lane words; flatten: wire references): run the
// levels of each sequential step in place, and run each region instance's
// body in a local array — its inputs gathered from the circuit's slots, its
// outputs scattered back (docs/DESIGN.md §3). The garbling cores (gc/half_gates.hpp)
// do the same with tweaks and their own label arrays.
#pragma once

#include <tandem/circuit/circuit_data.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tandem::detail {

/// Calls run_levels(circuit, level_begin, level_end, slots) for every
/// sequential step of c on `slots` (c.slot_count values, inputs in front) and
/// for every region instance's body on a local array; `fill` initialises
/// the local array's slots.
template <class T, class RunLevels>
void walk_steps(const circuit_data& c, T* slots, const T& fill, RunLevels&& run_levels) {
    std::vector<T> local;
    for (const step& st : c.steps) {
        if (st.kind == step_kind::sequential) {
            run_levels(c, st.level_begin, st.level_end, slots);
            continue;
        }
        const region_data& r = c.regions[st.region];
        for (const region_instance& inst : r.instances) {
            const circuit_data& body = r.bodies[inst.body];
            local.assign(body.slot_count, fill);
            const std::span<const std::uint32_t> in = r.inputs_of(inst), out = r.outputs_of(inst);
            for (std::size_t k = 0; k < in.size(); ++k) local[k] = slots[in[k]];
            run_levels(body, 0, static_cast<std::uint32_t>(body.levels.size()), local.data());
            for (std::size_t j = 0; j < out.size(); ++j)
                if (out[j] != unused_slot) slots[out[j]] = local[body.output_slots[j]];
        }
    }
}

}  // namespace tandem::detail
