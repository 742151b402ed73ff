// tandem/circuit/layout.hpp — turns a recording into the levelled, slotted circuit.
//
// Run once at the end of compile (DESIGN §3), in three linear passes:
//  1. backwards, in record order: dead-gate removal — a gate nobody reads
//     (use count 0) is dropped and stops using its operands, so whole dead
//     cones vanish — while counting the live gates of each bucket
//     2*level + (kind != AND);
//  2. forwards, in record order: levelling, a stable counting sort into those
//     buckets. Record order is topological, so the XORs of a level stay in
//     topological order and an AND of level L reads only levels < L. Operands
//     are renamed to "nodes": input bit k is node k, the gate at levelled
//     position p is node input_bits + p;
//  3. in levelled order: slot assignment by reference counting. A node's slot
//     is released when its last reader has run and handed out again from the
//     *next* level on, so no gate of a level overwrites a slot another gate
//     of that level still reads — FGP may run a level's ANDs in any order.
// Passes 1 and 2 touch the operands of a gate near it in record order, pass 3
// near it in levelled order, so lookups hit recently used memory.
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit_data.hpp>
#include <tandem/detail/big_vector.hpp>

#include <cstdint>
#include <vector>

namespace tandem::detail {

inline circuit_data lay_out(recording&& rec) {
    const std::uint32_t n_in = rec.input_bits;
    const std::uint32_t first = rec.first_gate_wire();
    const std::size_t n_gates = rec.gates.size();
    chunked_vector<recorded_gate>& gates = rec.gates;
    const auto is_wire = [](std::uint32_t w) { return w != output_false && w != output_true; };
    const auto bucket_of = [](const recorded_gate& x) {
        return 2 * std::size_t{x.level()} + (x.kind() == gate_kind::and_gate ? 0 : 1);
    };

    // 1. Dead gates out, live gates counted per bucket.
    const std::size_t n_buckets = 2 * (std::size_t{rec.max_level} + 1);
    std::vector<std::uint32_t> bucket_start(n_buckets + 1, 0);
    for (std::size_t g = n_gates; g-- > 0;) {
        const recorded_gate& x = gates[g];
        if (x.uses != 0) {
            ++bucket_start[bucket_of(x) + 1];
        } else {
            --rec.uses(x.in0);
            if (x.in1 != x.in0) --rec.uses(x.in1);
        }
    }
    for (std::size_t b = 0; b < n_buckets; ++b) bucket_start[b + 1] += bucket_start[b];
    const std::uint32_t n_live = bucket_start[n_buckets];

    // 2. Levelling. A node's use count is the number of reads still to come.
    struct node_state {
        std::uint32_t reads_left;
        std::uint32_t slot;
    };
    big_vector<node_state> ns(std::size_t{n_in} + n_live);
    for (std::uint32_t k = 0; k < n_in; ++k) ns[k] = {rec.input_uses[k + 1], k};  // input bit k starts in slot k
    circuit_data out;
    out.gates.resize(n_live);
    {
        // The node of each placed gate goes into its (now unused) not_of field.
        std::vector<std::uint32_t> next(bucket_start.begin(), bucket_start.end() - 1);
        const auto node = [&](std::uint32_t w) { return w >= first ? gates[w - first].not_of : w - 1; };
        for (std::size_t g = 0; g < n_gates; ++g) {
            recorded_gate& x = gates[g];
            if (x.uses == 0) continue;
            const std::uint32_t p = next[bucket_of(x)]++;
            x.not_of = n_in + p;
            // `out` carries the use count until pass 3 gives the gate its slot.
            out.gates[p] = gate{node(x.in0), node(x.in1), x.uses, x.kind()};
        }
        for (std::uint32_t& w : rec.output_wires)
            if (is_wire(w)) w = node(w);  // outputs now name nodes (their extra use is never released)
    }
    gates.clear();  // free the recording before the next allocation

    for (std::size_t l = 0; 2 * l < n_buckets; ++l) {
        const level_range r{bucket_start[2 * l], bucket_start[2 * l + 1], bucket_start[2 * l + 2]};
        if (r.end != r.and_begin) out.levels.push_back(r);
    }
    if (!out.levels.empty())
        out.steps.push_back({step_kind::sequential, 0, static_cast<std::uint32_t>(out.levels.size())});

    // 3. Slots.
    std::vector<std::uint32_t> free_slots, released;
    for (std::uint32_t k = 0; k < n_in; ++k)
        if (ns[k].reads_left == 0) free_slots.push_back(k);
    std::uint32_t slot_count = n_in;
    const auto read = [&](std::uint32_t node) {
        node_state& s = ns[node];
        if (--s.reads_left == 0) released.push_back(s.slot);
        return s.slot;
    };
    for (const level_range& lv : out.levels) {
        free_slots.insert(free_slots.end(), released.begin(), released.end());
        released.clear();
        for (std::uint32_t p = lv.and_begin; p < lv.end; ++p) {
            gate& g = out.gates[p];
            const std::uint32_t a = read(g.in0);
            g.in1 = g.in1 != g.in0 ? read(g.in1) : a;
            g.in0 = a;
            std::uint32_t s;
            if (free_slots.empty()) {
                s = slot_count++;
            } else {
                s = free_slots.back();
                free_slots.pop_back();
            }
            ns[n_in + p] = {g.out, s};
            g.out = s;
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
