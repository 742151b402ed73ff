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

/// X-macro over gate kinds: X(enumerator, bristol_name, inputs, free), where
/// `free` says the gate costs no garbled table (free XOR, Kolesnikov–Schneider
/// 2008). One list drives the enum, the names, the properties below and, by
/// exhaustive switches (no `default`), every pass that treats kinds
/// differently, so -Wswitch names each place a new kind must be handled.
#define TANDEM_FOR_EACH_GATE_KIND(X) \
    X(and_gate, "AND", 2, false)     \
    X(xor_gate, "XOR", 2, true)      \
    X(not_gate, "INV", 1, true)

/// The kind of a stored gate: AND, XOR or NOT (Bristol's INV).
enum class gate_kind : std::uint8_t {
#define TANDEM_GATE_ENUM(name, text, inputs, free) name,
    TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_ENUM)
#undef TANDEM_GATE_ENUM
};

/// How many kinds the list has (their codes are 0..gate_kind_count-1).
inline constexpr unsigned gate_kind_count = 0
#define TANDEM_GATE_COUNT(name, text, inputs, free) +1
    TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_COUNT)
#undef TANDEM_GATE_COUNT
    ;

/// Name of a gate kind as Bristol Fashion spells it.
constexpr std::string_view to_string(gate_kind k) noexcept {
    switch (k) {
#define TANDEM_GATE_NAME(name, text, inputs, free) \
    case gate_kind::name:                          \
        return text;
        TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_NAME)
#undef TANDEM_GATE_NAME
    }
    return "?";
}

/// How many distinct operands a gate of kind k reads (Bristol's input count).
constexpr unsigned input_count(gate_kind k) noexcept {
    switch (k) {
#define TANDEM_GATE_INPUTS(name, text, inputs, free) \
    case gate_kind::name:                            \
        return inputs;
        TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_INPUTS)
#undef TANDEM_GATE_INPUTS
    }
    return 2;
}

namespace detail {
/// Bit i set where the kind numbered i is free: is_free is a shift, not a
/// branch, on the recorder's and the lay-out's paths.
inline constexpr std::uint32_t free_kinds = 0
#define TANDEM_GATE_FREE_BIT(name, text, inputs, free) \
    | ((free) ? std::uint32_t{1} << static_cast<unsigned>(gate_kind::name) : 0u)
    TANDEM_FOR_EACH_GATE_KIND(TANDEM_GATE_FREE_BIT)
#undef TANDEM_GATE_FREE_BIT
    ;
}  // namespace detail

/// Whether a gate of kind k is garbled without a table (it sits in its
/// level's linear range, after the ANDs). False for a value outside the list.
constexpr bool is_free(gate_kind k) noexcept {
    const auto i = static_cast<unsigned>(k);
    return i < 32 && ((detail::free_kinds >> i) & 1u) != 0;
}

namespace detail {
/// The linear passes compute XOR and NOT only: free_gate_value below for
/// plaintext, the garbler's and evaluator's `linear` (gc/half_gates.hpp)
/// and `linear_copies` (gc/half_gates_kernels.hpp) for labels. Each asserts
/// this, so a new free kind fails to compile at every one of them.
inline constexpr bool free_kinds_are_xor_and_not =
    free_kinds == ((1u << static_cast<unsigned>(gate_kind::xor_gate)) |
                   (1u << static_cast<unsigned>(gate_kind::not_gate)));
}  // namespace detail

/// What a free gate stores, given its operands' values a and b (b == a for
/// NOT) and `one`, the value that stands for the constant 1 (all ones in
/// plaintext). A select, not a branch: linear ranges mix XORs and NOTs.
template <class T>
constexpr T free_gate_value(gate_kind k, T a, T b, T one) noexcept {
    static_assert(detail::free_kinds_are_xor_and_not, "give the new free kind its value here");
    return k == gate_kind::xor_gate ? a ^ b : a ^ one;
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
