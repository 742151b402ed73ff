// tandem/circuit/gate.hpp — the gates of a tandem circuit.
//
// Meaning of the IR (read this before touching any pass):
//  * A circuit computes a fixed Boolean function of the parties' input bits.
//    It is input-independent: which gates run never depends on a secret.
//  * Gates are AND, XOR and NOT. NOT is free in a garbled run (XOR with the
//    public one). Constants never appear as gate inputs: they are folded away
//    when the circuit is recorded.
//  * Operands and results name storage *slots*, not wires: a slot is reused
//    once the wire it held has been read for the last time (docs/DESIGN.md §3), so an
//    evaluator needs only `slot_count` labels of storage. A NOT gate stores its
//    operand in both `in0` and `in1`.
//  * Gates are stored level by level (see circuit.hpp); inside a level every
//    AND is independent of every other AND of that level.
#pragma once

#include <cstdint>
#include <string_view>

namespace tandem {

/// X-macro over gate kinds: X(enumerator, bristol_name). One list drives the
/// enum, the names and every dispatch table.
#define TANDEM_FOR_EACH_GATE_KIND(X) \
    X(and_gate, "AND")               \
    X(xor_gate, "XOR")               \
    X(not_gate, "INV")

/// The kind of a stored gate: AND, XOR or NOT (Bristol's INV).
enum class gate_kind : std::uint8_t {
#define TANDEM_GATE_ENUM(name, text) name,
    TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_ENUM)
#undef TANDEM_GATE_ENUM
};

/// Name of a gate kind as Bristol Fashion spells it.
constexpr std::string_view to_string(gate_kind k) noexcept {
    switch (k) {
#define TANDEM_GATE_NAME(name, text) \
    case gate_kind::name:            \
        return text;
        TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_NAME)
#undef TANDEM_GATE_NAME
    }
    return "?";
}

/// One stored gate: 16 bytes (the storage budget of issue 2).
struct gate {
    std::uint32_t in0;
    std::uint32_t in1;  ///< == in0 for NOT
    std::uint32_t out;
    gate_kind kind;
};
static_assert(sizeof(gate) == 16, "a stored gate must stay 16 bytes");

}  // namespace tandem
