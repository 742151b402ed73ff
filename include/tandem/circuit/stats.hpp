// tandem/circuit/stats.hpp — what a circuit costs.
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/gc/scheme.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace tandem {

/// What one parallel region costs and how compactly it is stored.
struct region_stats {
    std::string name;
    std::uint32_t instances = 0;
    std::uint32_t bodies = 0;        ///< distinct structures, each stored once
    bool deduplicated = false;       ///< bodies < instances
    std::uint64_t and_per_instance_min = 0;
    std::uint64_t and_per_instance_max = 0;
    std::uint64_t stored_gates = 0;    ///< gates of its bodies
    std::uint64_t executed_gates = 0;  ///< gates run: each instance's body
};

/// What a circuit costs: gate counts, AND depth, level widths, working set,
/// input and output sizes, bytes a run sends (circuit::stats()).
struct circuit_stats {
    /// Gates a run executes (every region instance counted).
    std::uint64_t and_gates = 0;
    std::uint64_t xor_gates = 0;
    std::uint64_t not_gates = 0;
    std::uint64_t executed_gates = 0;  ///< AND + XOR + NOT run
    std::uint64_t stored_gates = 0;    ///< gates held: sequential ones plus each region body once
    std::vector<region_stats> regions;
    std::uint32_t and_depth = 0;  ///< levels with ANDs, a region counting its deepest body
    std::uint32_t levels = 0;     ///< levels in execution order, a region counting its deepest body
    /// ANDs in each level, in execution order (paper 001 Fig. 7 plots this);
    /// a region's level d holds the ANDs of level d of all its instances.
    std::vector<std::uint32_t> level_and_width;
    /// width_histogram[k] = number of levels whose AND width w has floor(log2 w) == k
    /// (levels without ANDs are not counted).
    std::vector<std::uint32_t> width_histogram;
    /// Slots an evaluator holds at once: the circuit's plus one instance's (per thread).
    std::uint32_t peak_working_set = 0;
    std::uint64_t wire_count = 0;
    std::uint32_t input_bits_alice = 0;
    std::uint32_t input_bits_bob = 0;
    std::uint32_t output_bits = 0;
    /// Bytes one run of this circuit sends from the garbler (Alice) to the
    /// evaluator on a session already set up, both parties learning the
    /// outputs, without IPP (docs/DESIGN.md §7.4): the run header (62), the
    /// hash start (16), 16 per Alice input bit (her labels), 32 per AND (the
    /// half-gates tables) and 16 per output bit that is not a public
    /// constant (decoding). Exact: session::last_run().bytes_sent agrees.
    std::uint64_t bytes_garbler_to_evaluator = 0;
    /// The same run, evaluator to garbler: the run header (62); for Bob's b
    /// input bits, if any, one IKNP extension (8, then 128 columns of
    /// ⌈n/8⌉ bytes per chunk of n ≤ 8192 OTs); 16 per non-constant output
    /// bit (his output labels, so that Alice learns it). The session's
    /// one-off set-up (handshake, base OTs) is not included.
    std::uint64_t bytes_evaluator_to_garbler = 0;

    /// bytes_garbler_to_evaluator with the tables of another garbling scheme
    /// (gc/scheme.hpp), each level's ANDs garbled in one call as a run on
    /// one worker does: exact for circuits without parallel regions; with
    /// them, lockstep groups may add a byte per group and level (three-halves).
    std::uint64_t bytes_garbler_to_evaluator_with(garbling_scheme s) const noexcept {
        std::uint64_t tables = 0;
        for (const std::uint32_t w : level_and_width) tables += gc::call_bytes(s, w);
        return bytes_garbler_to_evaluator - gc::call_bytes(garbling_scheme::half_gates, and_gates) + tables;
    }
};

namespace detail {
struct gate_counts {
    std::uint64_t and_gates = 0, xor_gates = 0, not_gates = 0;
    std::uint64_t total() const noexcept { return and_gates + xor_gates + not_gates; }
};
inline gate_counts count_gates(const circuit_data& c) {
    gate_counts n;
    for (const gate& g : c.gates) {
        switch (g.kind) {
            case gate_kind::and_gate: ++n.and_gates; break;
            case gate_kind::xor_gate: ++n.xor_gates; break;
            case gate_kind::not_gate: ++n.not_gates; break;
        }
    }
    return n;
}
}  // namespace detail

/// Counts everything in circuit_stats; linear in the number of stored gates.
inline circuit_stats compute_stats(const circuit_data& c) {
    circuit_stats s;
    const detail::gate_counts own = detail::count_gates(c);
    s.and_gates = own.and_gates, s.xor_gates = own.xor_gates, s.not_gates = own.not_gates;
    s.stored_gates = own.total();
    std::uint32_t peak_body_slots = 0;
    for (const step& st : c.steps) {
        if (st.kind == step_kind::sequential) {
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l)
                s.level_and_width.push_back(c.levels[l].and_count());
            continue;
        }
        const region_data& r = c.regions[st.region];
        std::vector<detail::gate_counts> body_counts;
        region_stats rs;
        rs.name = r.name;
        rs.instances = static_cast<std::uint32_t>(r.instances.size());
        rs.bodies = static_cast<std::uint32_t>(r.bodies.size());
        rs.deduplicated = r.bodies.size() < r.instances.size();
        rs.and_per_instance_min = ~std::uint64_t{0};
        std::size_t depth = 0;
        for (const circuit_data& b : r.bodies) {
            body_counts.push_back(detail::count_gates(b));
            rs.stored_gates += body_counts.back().total();
            depth = std::max(depth, b.levels.size());
            peak_body_slots = std::max(peak_body_slots, b.slot_count);
        }
        std::vector<std::uint32_t> width(depth, 0);
        for (const region_instance& i : r.instances) {
            const detail::gate_counts& n = body_counts[i.body];
            s.and_gates += n.and_gates, s.xor_gates += n.xor_gates, s.not_gates += n.not_gates;
            rs.executed_gates += n.total();
            rs.and_per_instance_min = std::min(rs.and_per_instance_min, n.and_gates);
            rs.and_per_instance_max = std::max(rs.and_per_instance_max, n.and_gates);
            const circuit_data& b = r.bodies[i.body];
            for (std::size_t l = 0; l < b.levels.size(); ++l) width[l] += b.levels[l].and_count();
        }
        s.stored_gates += rs.stored_gates;
        s.level_and_width.insert(s.level_and_width.end(), width.begin(), width.end());
        s.regions.push_back(std::move(rs));
    }
    s.executed_gates = s.and_gates + s.xor_gates + s.not_gates;
    s.levels = static_cast<std::uint32_t>(s.level_and_width.size());
    for (const std::uint32_t w : s.level_and_width) {
        if (w == 0) continue;
        ++s.and_depth;
        const auto k = static_cast<std::size_t>(std::bit_width(w) - 1);
        if (s.width_histogram.size() <= k) s.width_histogram.resize(k + 1, 0);
        ++s.width_histogram[k];
    }
    s.peak_working_set = c.slot_count + peak_body_slots;
    s.wire_count = c.wire_count;
    for (const value_layout& v : c.inputs) (v.owner == party::alice ? s.input_bits_alice : s.input_bits_bob) += v.bits;
    s.output_bits = static_cast<std::uint32_t>(c.output_slots.size());
    // The message sizes of session.hpp, session/yao.hpp and ot/iknp.hpp (docs/DESIGN.md §7.4).
    constexpr std::uint64_t run_header_bytes = 62, hash_start_bytes = 16, ot_chunk = 8192;
    std::uint64_t live_outputs = 0;
    for (const std::uint32_t slot : c.output_slots) live_outputs += slot != output_false && slot != output_true;
    const std::uint64_t b = s.input_bits_bob;
    const std::uint64_t ot_columns =
        b == 0 ? 0 : 8 + (b / ot_chunk) * 128 * (ot_chunk / 8) + 128 * ((b % ot_chunk + 7) / 8);
    s.bytes_garbler_to_evaluator = run_header_bytes + hash_start_bytes + 16 * std::uint64_t{s.input_bits_alice} +
                                   32 * s.and_gates + 16 * live_outputs;
    s.bytes_evaluator_to_garbler = run_header_bytes + ot_columns + 16 * live_outputs;
    return s;
}

}  // namespace tandem
