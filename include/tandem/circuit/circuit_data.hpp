// tandem/circuit/circuit_data.hpp — the immutable representation behind tandem::circuit.
//
// Layout (DESIGN §3):
//  * `gates` holds every gate, level by level. Level L occupies
//    [levels[L].and_begin, levels[L].end): first its ANDs (all mutually
//    independent, the unit of batching and of FGP), then from xor_begin its
//    XOR and NOT gates in topological order. The level of a wire is its AND
//    depth; level 0 has no ANDs.
//  * `steps` cut the levels into sequential blocks and parallel regions. Until
//    regions land every circuit is one sequential block; passes that walk
//    `steps` rather than `levels` keep working when regions arrive.
//  * Inputs: the bits of all input values, in argument order, start in slots
//    [0, input_bits). `inputs[i]` says who owns value i and which bits it has.
//  * Outputs: `output_slots[k]` is the slot holding output bit k when the
//    circuit has run, or one of the two constant markers.
#pragma once

#include <tandem/circuit/gate.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/party.hpp>

#include <cstdint>
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

/// A contiguous run of levels executed as one unit of the plan.
struct step {
    step_kind kind;
    std::uint32_t level_begin;
    std::uint32_t level_end;
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

struct circuit_data {
    detail::big_vector<gate> gates;
    std::vector<level_range> levels;
    std::vector<step> steps;
    std::vector<value_layout> inputs;
    std::vector<value_layout> outputs;
    std::vector<std::uint32_t> output_slots;
    std::uint32_t input_bits = 0;
    std::uint32_t slot_count = 0;  ///< peak working set, in slots
    std::uint64_t wire_count = 0;  ///< distinct wires: input bits + gates
};

}  // namespace tandem
