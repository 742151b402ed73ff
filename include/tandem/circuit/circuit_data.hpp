// tandem/circuit/circuit_data.hpp — the immutable representation behind tandem::circuit.
//
// Layout (docs/DESIGN.md §3):
//  * `gates` holds every gate, level by level. Level L occupies
//    [levels[L].and_begin, levels[L].end): first its ANDs (all mutually
//    independent, the unit of batching and of FGP), then from xor_begin its
//    XOR and NOT gates in topological order. The level of a wire is its AND
//    depth; level 0 has no ANDs.
//  * `steps` are the circuit in execution order: sequential blocks (a run of
//    levels of `gates`) and parallel regions (docs/DESIGN.md §3). Passes walk steps.
//  * A region is n instances of a body. Each distinct body is stored once as
//    a circuit_data of its own (inputs in slots [0, input_bits), outputs in
//    output_slots, no regions inside), and each instance is a body index plus
//    a wire map into this circuit's slots: first the slots its inputs are read
//    from, then the slots its outputs are written to (`unused_slot` for an
//    output nobody reads). Instances read only slots written before the
//    region and write only their own outputs, so they may run in any order or
//    at once.
//  * Inputs: the bits of all input values, in argument order, start in slots
//    [0, input_bits). `inputs[i]` says who owns value i and which bits it has.
//  * Outputs: `output_slots[k]` is the slot holding output bit k when the
//    circuit has run, or one of the two constant markers.
// tandem::circuit checks all of this, and the rules the engines rely on
// beyond it, when it is built from a circuit_data (circuit/validate.hpp).
#pragma once

#include <tandem/circuit/gate.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/party.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tandem {

/// Gate-index ranges of one level.
struct level_range {
    std::uint32_t and_begin;  ///< first AND of the level
    std::uint32_t xor_begin;  ///< first XOR/NOT of the level (== end of its ANDs)
    std::uint32_t end;        ///< one past the level's last gate
    std::uint32_t and_count() const noexcept { return xor_begin - and_begin; }
};

enum class step_kind : std::uint8_t { sequential, region };

/// One unit of the plan: a run of levels, or a parallel region.
struct step {
    step_kind kind;
    std::uint32_t level_begin;  ///< sequential: levels [level_begin, level_end); region: both = levels before it
    std::uint32_t level_end;
    std::uint32_t region = 0;   ///< region: index into circuit_data::regions
};

/// Where one input or output value lives among the circuit's bits.
struct value_layout {
    party owner;              ///< inputs: who supplies it (outputs: unused, alice)
    std::uint32_t first_bit;  ///< inputs: first input slot; outputs: first index into output_slots
    std::uint32_t bits;
};

/// Output markers for bits that are public constants.
inline constexpr std::uint32_t output_false = 0xFFFFFFFEu;
inline constexpr std::uint32_t output_true = 0xFFFFFFFFu;

struct region_data;

/// Wire-map marker: an instance output that nothing reads.
inline constexpr std::uint32_t unused_slot = 0xFFFFFFFFu;

/// The circuit IR: gates level by level, the steps in execution order, the
/// regions, and where inputs start and outputs end up (see the top of this
/// header; docs/DESIGN.md §3).
struct circuit_data {
    detail::big_vector<gate> gates;
    std::vector<level_range> levels;
    std::vector<step> steps;
    std::vector<value_layout> inputs;
    std::vector<value_layout> outputs;
    std::vector<std::uint32_t> output_slots;
    std::uint32_t input_bits = 0;
    std::uint32_t slot_count = 0;  ///< peak working set, in slots
    std::uint64_t wire_count = 0;  ///< distinct wires: input bits + gates + region instance outputs
    std::vector<region_data> regions;
};

/// One instance of a region: its body and where its wire map starts.
struct region_instance {
    std::uint32_t body;       ///< index into region_data::bodies
    std::uint32_t map_begin;  ///< index into region_data::wire_map
};

/// A parallel region: its distinct bodies, its instances, and each instance's
/// wire map into the enclosing circuit's slots.
struct region_data {
    std::string name;                      ///< where the region was written (for messages)
    std::vector<circuit_data> bodies;      ///< distinct structures, each stored once
    std::vector<region_instance> instances;
    /// Per instance: bodies[b].input_bits input slots, then one slot per output.
    std::vector<std::uint32_t> wire_map;

    std::span<const std::uint32_t> inputs_of(const region_instance& i) const noexcept {
        return {wire_map.data() + i.map_begin, bodies[i.body].input_bits};
    }
    std::span<const std::uint32_t> outputs_of(const region_instance& i) const noexcept {
        return {wire_map.data() + i.map_begin + bodies[i.body].input_bits, bodies[i.body].output_slots.size()};
    }
};

}  // namespace tandem
