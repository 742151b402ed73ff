// tandem/circuit/layout.hpp — turns a recording into the levelled, slotted circuit.
//
// Run once at the end of compile (DESIGN §3), in a few linear passes:
//  1. dead-gate removal: gates that reach no output are dropped;
//  2. levelling: a stable counting sort by (AND depth, AND-before-XOR). Record
//     order is topological, so the XORs of a level stay in topological order,
//     and an AND of level L only reads wires of levels < L. Operands are
//     renamed to "nodes" on the way: input bit k is node k, the gate at
//     levelled position p is node input_bits + p;
//  3. slot assignment by liveness: a node's slot is released after its last
//     read and handed out again from the *next* level on, so the gates of one
//     level never write a slot another gate of that level still reads — FGP
//     can run a level's ANDs in any order.
// Passes 1 and 2 walk the recording in record order and passes 3 the levelled
// order, so lookups stay close to recently touched data.
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit_data.hpp>
#include <tandem/detail/big_vector.hpp>

#include <cstdint>
#include <vector>

namespace tandem::detail {

inline circuit_data lay_out(recording&& rec) {
    constexpr std::uint32_t none = 0xFFFFFFFFu;
    constexpr std::uint32_t live_bit = 0x80000000u;
    const std::uint32_t n_in = rec.input_bits;
    const std::uint32_t first = rec.first_gate_wire();
    const std::size_t n_gates = rec.gates.size();
    chunked_vector<recorded_gate>& gates = rec.gates;
    const auto is_wire = [](std::uint32_t w) { return w != output_false && w != output_true; };
    const auto is_gate_wire = [first](std::uint32_t w) { return w >= first; };

    // 1. Liveness, backwards from the outputs (bit 31 of level_kind marks a live gate).
    for (std::uint32_t w : rec.output_wires)
        if (is_wire(w) && is_gate_wire(w)) gates[w - first].level_kind |= live_bit;
    std::uint32_t depth = 0;
    for (std::size_t g = n_gates; g-- > 0;) {
        const recorded_gate& x = gates[g];
        if (!(x.level_kind & live_bit)) continue;
        depth = std::max(depth, x.level());
        if (is_gate_wire(x.in0)) gates[x.in0 - first].level_kind |= live_bit;
        if (is_gate_wire(x.in1)) gates[x.in1 - first].level_kind |= live_bit;
    }

    // 2. Counting sort of live gates into buckets 2*level + (kind != AND).
    const auto bucket_of = [](const recorded_gate& x) {
        return 2 * std::size_t{x.level()} + (x.kind() == gate_kind::and_gate ? 0 : 1);
    };
    const std::size_t n_buckets = 2 * (std::size_t{depth} + 1);
    std::vector<std::uint32_t> bucket_start(n_buckets + 1, 0);
    for (std::size_t g = 0; g < n_gates; ++g)
        if (gates[g].level_kind & live_bit) ++bucket_start[bucket_of(gates[g]) + 1];
    for (std::size_t b = 0; b < n_buckets; ++b) bucket_start[b + 1] += bucket_start[b];
    const std::uint32_t n_live = bucket_start[n_buckets];

    circuit_data out;
    out.gates.resize(n_live);
    {
        // The node of each placed gate goes into its (now unused) not_of
        // field; operands are looked up in record order, near recent gates.
        std::vector<std::uint32_t> next(bucket_start.begin(), bucket_start.end() - 1);
        const auto node = [&](std::uint32_t w) { return is_gate_wire(w) ? gates[w - first].not_of : w - 1; };
        for (std::size_t g = 0; g < n_gates; ++g) {
            recorded_gate& x = gates[g];
            if (!(x.level_kind & live_bit)) continue;
            const std::uint32_t p = next[bucket_of(x)]++;
            x.not_of = n_in + p;
            out.gates[p] = gate{node(x.in0), node(x.in1), 0, x.kind()};
        }
        for (std::uint32_t& w : rec.output_wires)
            if (is_wire(w)) w = node(w);  // outputs now name nodes
    }
    gates.clear();  // free the recording before the next allocation

    for (std::uint32_t l = 0; l <= depth; ++l) {
        const level_range r{bucket_start[2 * l], bucket_start[2 * l + 1], bucket_start[2 * l + 2]};
        if (r.end != r.and_begin) out.levels.push_back(r);
    }
    if (!out.levels.empty())
        out.steps.push_back({step_kind::sequential, 0, static_cast<std::uint32_t>(out.levels.size())});

    // 3. Last read of every node (levelled position), then slots.
    struct node_state {
        std::uint32_t last_read;
        std::uint32_t slot;
    };
    big_vector<node_state> ns(std::size_t{n_in} + n_live, node_state{none, none});
    for (std::uint32_t p = 0; p < n_live; ++p) {
        ns[out.gates[p].in0].last_read = p;
        ns[out.gates[p].in1].last_read = p;
    }
    constexpr std::uint32_t forever = none - 1;
    for (std::uint32_t w : rec.output_wires)
        if (is_wire(w)) ns[w].last_read = forever;

    std::vector<std::uint32_t> free_slots, released;
    for (std::uint32_t k = 0; k < n_in; ++k) {
        ns[k].slot = k;  // input bit k starts in slot k
        if (ns[k].last_read == none) free_slots.push_back(k);
    }
    std::uint32_t slot_count = n_in;
    for (const level_range& lv : out.levels) {
        free_slots.insert(free_slots.end(), released.begin(), released.end());
        released.clear();
        for (std::uint32_t p = lv.and_begin; p < lv.end; ++p) {
            gate& g = out.gates[p];
            const node_state a = ns[g.in0];
            if (a.last_read == p) released.push_back(a.slot);
            if (g.in1 != g.in0) {
                const node_state b = ns[g.in1];
                if (b.last_read == p) released.push_back(b.slot);
                g.in1 = b.slot;
            } else {
                g.in1 = a.slot;
            }
            g.in0 = a.slot;
            std::uint32_t s;
            if (free_slots.empty()) {
                s = slot_count++;
            } else {
                s = free_slots.back();
                free_slots.pop_back();
            }
            g.out = s;
            ns[n_in + p].slot = s;
        }
    }

    out.inputs = std::move(rec.inputs);
    out.outputs = std::move(rec.outputs);
    out.output_slots.reserve(rec.output_wires.size());
    for (std::uint32_t w : rec.output_wires) out.output_slots.push_back(is_wire(w) ? ns[w].slot : w);
    out.input_bits = n_in;
    out.slot_count = slot_count;
    out.wire_count = std::uint64_t{n_in} + n_live;
    return out;
}

}  // namespace tandem::detail
