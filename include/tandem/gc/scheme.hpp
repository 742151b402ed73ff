// tandem/gc/scheme.hpp — the garbling schemes a session chooses from, and
// the one place that says how many bytes the tables of n ANDs take under
// each. Everything that sizes, reads ahead or reports tables asks here (the
// table sources, the engine's runs and segments, IPP, MPI parts, eager runs,
// circuit statistics), so a third scheme touches this file, session/cores.hpp
// and its kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tandem {

/// How a session garbles its ANDs (session_options::scheme; checked in the
/// handshake). Both keep free XOR and point-and-permute; only the AND
/// tables differ.
enum class garbling_scheme : std::uint8_t {
    /// The default: Zahur–Rosulek–Evans half-gates (gc/half_gates.hpp),
    /// 32 bytes per AND, two hashes per AND for the evaluator, four for the
    /// garbler. The fastest where the cores are the limit.
    half_gates = 0,
    /// Rosulek–Roy three-halves (gc/three_halves.hpp): 24.6 bytes per AND,
    /// 1.5× the hashing. A quarter fewer bytes: faster where the link is the
    /// limit (README, "Which garbling scheme").
    three_halves = 1,
};

/// The scheme's name, for messages and reports.
constexpr std::string_view to_string(garbling_scheme s) noexcept {
    switch (s) {
    case garbling_scheme::half_gates: return "half-gates";
    case garbling_scheme::three_halves: return "three-halves";
    }
    return "unknown";
}

}  // namespace tandem

namespace tandem::gc {

namespace three_halves {
inline constexpr std::size_t row_bytes = 24;     ///< G0, G1, G2: three half labels
inline constexpr std::size_t control_bits = 5;   ///< z0..z4
inline constexpr std::size_t group_ands = 8;     ///< ANDs whose control bits share bytes

/// Bytes of a group of m ≤ 8 ANDs: their rows, then their control bits.
constexpr std::size_t group_bytes(std::size_t m) noexcept { return m * row_bytes + (m * control_bits + 7) / 8; }

/// Bytes of the tables of n ANDs garbled in one call (whole groups and a tail).
constexpr std::uint64_t table_bytes(std::uint64_t ands) noexcept {
    return ands / group_ands * group_bytes(group_ands) + group_bytes(ands % group_ands);
}
}  // namespace three_halves

/// How many bytes the tables of some ANDs take: exactly `least` with
/// half-gates; with three-halves it depends on how the ANDs were cut into
/// kernel calls (a call's last group rounds its control bits up to a byte),
/// so between `least` (one call) and `most` (every AND alone).
struct table_bytes_range {
    std::uint64_t least = 0, most = 0;
};

constexpr table_bytes_range tables_of(garbling_scheme s, std::uint64_t ands) noexcept {
    switch (s) {
    case garbling_scheme::half_gates: return {32 * ands, 32 * ands};
    case garbling_scheme::three_halves:
        return {ands * three_halves::row_bytes + (ands * three_halves::control_bits + 7) / 8,
                ands * three_halves::group_bytes(1)};
    }
    return {};
}

/// Bytes of the tables of `ands` ANDs garbled in one call of the kernel.
constexpr std::uint64_t call_bytes(garbling_scheme s, std::uint64_t ands) noexcept {
    switch (s) {
    case garbling_scheme::half_gates: return 32 * ands;
    case garbling_scheme::three_halves: return three_halves::table_bytes(ands);
    }
    return 0;
}

}  // namespace tandem::gc
