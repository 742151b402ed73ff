// tandem/circuit/layout_impl.hpp — the definitions of layout.hpp's passes
// (and of the builder's lay_out_* steps). Included at the end of layout.hpp
// header-only; compiled once in src/core.cpp otherwise (detail/linkage.hpp).
#pragma once

#include <tandem/circuit/layout.hpp>
#include <tandem/detail/linkage.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tandem::detail {

TANDEM_INLINE std::uint64_t merge_common_subexpressions(recording& rec, std::uint32_t kept) {
    recorded_gate* const gates = rec.gates();
    const std::size_t n_gates = rec.gate_count();
    const std::uint32_t first = rec.first_gate_wire();
    if (n_gates < 2) return 0;
    // merged_bit: one bit per gate, set where not_of names another wire.
    std::vector<std::uint64_t> merged_bit((n_gates + 63) / 64, 0);
    const auto rep = [&](std::uint32_t w) {
        if (w < first) return w;
        const std::size_t g = w - first;
        return (merged_bit[g / 64] >> (g % 64) & 1u) != 0 ? gates[g].not_of : w;
    };
    const auto rename_to = [&](std::uint32_t& w, std::uint32_t r) {
        if (r == w) return;
        --rec.uses(w);
        ++rec.uses(r);
        w = r;
    };
    const auto rename = [&](std::uint32_t& w) { rename_to(w, rep(w)); };
    // readers[w]: the number of listed gates reading wire w << 32 | (1 + the
    // newest one's node), 0 for none. node[2g + i], g's entry on the list of
    // its operand i: its other operand << 32 | (1 + the next node), 0 at the
    // end; written when g is listed and read only then. A scan reads nodes
    // only, not gate records, and compares kinds only where operands match.
    std::vector<std::uint64_t> readers(std::size_t{first} + n_gates, 0);
    const std::unique_ptr<std::uint64_t[]> node(new std::uint64_t[2 * n_gates]);
    const auto link = [&](std::uint32_t w, std::uint32_t other, std::size_t g, std::size_t i) {
        std::uint64_t& r = readers[w];
        node[2 * g + i] = std::uint64_t{other} << 32 | static_cast<std::uint32_t>(r);
        r = ((r >> 32) + 1) << 32 | (2 * g + i + 1);
    };
    std::uint64_t merged = 0;
    for (std::size_t g = 0; g < n_gates; ++g) {
        recorded_gate& x = gates[g];
        if (x.is_region_output()) continue;
        const std::uint32_t r0 = rep(x.in0), r1 = rep(x.in1);
        if (x.in0 == x.in1) {  // a NOT (reads its operand once)
            rename_to(x.in0, r0);
            x.in1 = x.in0;
        } else if (r0 != r1) {
            rename_to(x.in0, r0);
            rename_to(x.in1, r1);
        } else if (x.kind() == gate_kind::and_gate) {
            // r & r = r: its readers read r. It keeps its recorded operands
            // for pass 1 (it is kept only as a carried wire, see above).
            x.not_of = r0;
            merged_bit[g / 64] |= std::uint64_t{1} << (g % 64);
            ++merged;
            continue;
        }
        const std::uint32_t a = x.in0, b = x.in1, kind = x.level_kind & 3u;
        const std::uint32_t w = (readers[a] >> 32) <= (readers[b] >> 32) ? a : b;  // the shorter list
        const std::uint32_t other = w == a ? b : a;
        std::uint32_t at = static_cast<std::uint32_t>(readers[w]);
        while (at != 0) {
            const std::uint64_t e = node[at - 1];
            if ((e >> 32) == other && (gates[(at - 1) / 2].level_kind & 3u) == kind) break;
            at = static_cast<std::uint32_t>(e);
        }
        if (at != 0) {
            const std::uint32_t twin = (at - 1) / 2;
            recorded_gate& y = gates[twin];
            x.not_of = first + twin;
            merged_bit[g / 64] |= std::uint64_t{1} << (g % 64);
            if (y.level() > x.level()) y.level_kind = x.level_kind;  // same kind: only the level changes
            ++merged;
            continue;
        }
        link(a, b, g, 0);
        if (b != a) link(b, a, g, 1);
    }
    if (merged == 0) return 0;
    for (std::size_t k = kept; k < rec.output_wires.size(); ++k)
        if (rec.output_wires[k] != output_false && rec.output_wires[k] != output_true) rename(rec.output_wires[k]);
    for (recorded_region& r : rec.regions)
        for (recorded_region::instance& i : r.instances)
            for (std::uint32_t& w : i.imports) rename(w);
    return merged;
}

TANDEM_INLINE void sort_slots(std::vector<std::uint32_t>& s, std::vector<std::uint32_t>& scratch) {
    if (std::is_sorted(s.begin(), s.end())) return;
    if (std::is_sorted(s.rbegin(), s.rend())) {
        std::reverse(s.begin(), s.end());
        return;
    }
    if (s.size() <= 32) {
        std::sort(s.begin(), s.end());
        return;
    }
    const std::uint32_t largest = *std::max_element(s.begin(), s.end());
    scratch.resize(s.size());
    // Digits of 11 bits for large arrays (a streamed segment's slots, up to
    // 2^22 in two passes), of 8 where clearing 2048 counters would dominate.
    const unsigned digit = s.size() > 4096 ? 11 : 8;
    const std::uint32_t mask = (1u << digit) - 1;
    for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += digit) {
        std::uint32_t start[2048];
        std::fill_n(start, mask + 1, 0u);
        for (const std::uint32_t x : s) ++start[(x >> shift) & mask];
        std::uint32_t sum = 0;
        for (std::uint32_t d = 0; d <= mask; ++d) {
            const std::uint32_t n = start[d];
            start[d] = sum;
            sum += n;
        }
        for (const std::uint32_t x : s) scratch[start[(x >> shift) & mask]++] = x;
        s.swap(scratch);
    }
}

TANDEM_INLINE void check_buckets_filled(const std::vector<std::uint32_t>& next,
                                        const std::vector<std::uint32_t>& bucket_start) {
    for (std::size_t b = 0; b < next.size(); ++b)
        if (next[b] != bucket_start[b + 1]) internal_error("lay-out: a level's gate count does not match its gates");
}

TANDEM_INLINE void lay_out_by_id(recording& rec, const std::vector<std::uint32_t>& bucket_start, circuit_data& out) {
    const std::uint32_t first = rec.first_gate_wire();
    const recorded_gate* const gates = rec.gates();
    const auto n_gates = static_cast<std::uint32_t>(rec.gate_count());
    std::vector<std::uint32_t> next(bucket_start.begin(), bucket_start.end() - 1);
    // Locals, so that the compiler keeps them in registers: the stores into
    // the gates could alias any of them.
    gate* const placed = out.gates.data();
    std::uint32_t* const next_of = next.data();
    const auto place = [&](const recorded_gate& x, std::uint32_t g) {
        const std::uint32_t in0 = x.in0, in1 = x.in1, lk = x.level_kind;  // loaded once: the store may alias x
        placed[next_of[bucket_of(lk)]++] = gate{in0, in1, first + g, recorded_gate::kind_of(lk)};
    };
    if (rec.deduplicated && rec.unread_gates == 0 && rec.regions.empty()) {  // all live (lay_out, pass 1)
        for (std::uint32_t g = 0; g < n_gates; ++g) place(gates[g], g);
    } else {
        for (std::uint32_t g = 0; g < n_gates; ++g)
            if (gates[g].uses != 0 && !gates[g].is_region_output()) place(gates[g], g);  // else dead, or a region's
    }
    check_buckets_filled(next, bucket_start);
    out.output_slots = std::move(rec.output_wires);
    out.regions.resize(rec.regions.size());
    for (std::size_t k = 0; k < rec.regions.size(); ++k) {
        recorded_region& rr = rec.regions[k];
        region_data& rd = out.regions[k];
        for (const recorded_region::instance& i : rr.instances) {
            rd.instances.push_back({i.body, static_cast<std::uint32_t>(rd.wire_map.size())});
            rd.wire_map.insert(rd.wire_map.end(), i.imports.begin(), i.imports.end());
            const auto n_outputs = static_cast<std::uint32_t>(rr.bodies[i.body].output_slots.size());
            for (std::uint32_t j = 0; j < n_outputs; ++j) {
                const std::uint32_t w = i.first_output + j;
                rd.wire_map.push_back(rec.wires[w].uses != 0 ? w : unused_slot);
            }
        }
        rd.name = std::move(rr.name);
        rd.bodies = std::move(rr.bodies);
    }
}

TANDEM_INLINE circuit_data lay_out(recording&& rec, slot_pool* pool, bool by_id, std::uint32_t kept) {
    const std::uint32_t n_in = rec.input_bits;
    const std::uint32_t first = rec.first_gate_wire();
    const std::size_t n_gates = rec.gate_count();
    recorded_gate* const gates = rec.gates();
    const auto is_wire = [](std::uint32_t w) { return w != output_false && w != output_true; };

    // 0. Common subexpressions merged (their duplicates left unread for pass
    // 1), unless the builder merged them as it recorded.
    if (!rec.deduplicated) merge_common_subexpressions(rec, kept);

    // 1. Dead gates out, live gates counted per bucket — unless the builder
    // counted them as it recorded and found no gate unread (then none is dead).
    const std::size_t n_buckets = 2 * (std::size_t{rec.max_level} + 1);
    std::vector<std::uint32_t> bucket_start(n_buckets + 1, 0);
    std::uint32_t n_region_outputs = 0;
    const bool counted = rec.deduplicated && rec.unread_gates == 0 && rec.regions.empty();
    if (counted)
        for (std::size_t b = 0; b < n_buckets && b < rec.bucket_counts.size(); ++b)
            bucket_start[b + 1] = rec.bucket_counts[b];
    for (std::size_t g = counted ? 0 : n_gates; g-- > 0;) {
        const recorded_gate& x = gates[g];
        if (x.is_region_output()) {  // written by a region instance: never dropped (bodies are shared)
            ++n_region_outputs;
        } else if (x.uses != 0) {
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
    // Region outputs are nodes n_in + n_live + k, k in record order.
    big_vector<node_state> ns;
    circuit_data out;
    out.gates.resize(n_live);
    if (by_id) {
        lay_out_by_id(rec, bucket_start, out);
    } else {
        ns.resize(std::size_t{n_in} + n_live + n_region_outputs);
        for (std::uint32_t k = 0; k < n_in; ++k) ns[k] = {rec.wires[k + 1].uses, pool ? rec.input_slots[k] : k};
        // The node of each placed gate goes into its (now unused) not_of field.
        std::vector<std::uint32_t> next(bucket_start.begin(), bucket_start.end() - 1);
        const auto node = [&](std::uint32_t w) { return w >= first ? gates[w - first].not_of : w - 1; };
        std::uint32_t next_region_output = n_in + n_live;
        for (std::size_t g = 0; g < n_gates; ++g) {
            recorded_gate& x = gates[g];
            if (x.is_region_output()) {
                x.not_of = next_region_output;
                ns[next_region_output++] = {x.uses, unused_slot};
                continue;
            }
            if (x.uses == 0) continue;
            const std::uint32_t p = next[bucket_of(x)]++;
            x.not_of = n_in + p;
            // `out` carries the use count until pass 3 gives the gate its slot.
            out.gates[p] = gate{node(x.in0), node(x.in1), x.uses, x.kind()};
        }
        check_buckets_filled(next, bucket_start);
        for (std::uint32_t& w : rec.output_wires)
            if (is_wire(w)) w = node(w);  // outputs now name nodes (their extra use is never released)
        for (recorded_region& r : rec.regions)
            for (recorded_region::instance& i : r.instances) {
                for (std::uint32_t& w : i.imports) w = node(w);
                i.first_output = node(i.first_output);
            }
    }
    if (pool != nullptr || by_id) rec.wires.clear();  // the next segment records into the same storage
    else rec.wires.release();                         // free the recording before the next allocation

    // Steps: runs of levels with gates, cut by the levels regions occupy.
    std::size_t next_region = 0;
    for (std::size_t l = 0; 2 * l < n_buckets; ++l) {
        const auto n_levels = static_cast<std::uint32_t>(out.levels.size());
        if (next_region < rec.regions.size() && rec.regions[next_region].level == l) {
            out.steps.push_back({step_kind::region, n_levels, n_levels, static_cast<std::uint32_t>(next_region++)});
            continue;
        }
        const level_range r{bucket_start[2 * l], bucket_start[2 * l + 1], bucket_start[2 * l + 2]};
        if (r.end == r.and_begin) continue;
        out.levels.push_back(r);
        if (out.steps.empty() || out.steps.back().kind != step_kind::sequential)
            out.steps.push_back({step_kind::sequential, n_levels, n_levels});
        out.steps.back().level_end = n_levels + 1;
    }

    // 3. Slots (a streamed segment's are its wire ids).
    std::uint32_t own_count = n_in;
    if (!by_id) {
        std::vector<std::uint32_t> own_free, released, and_slots, sort_scratch;
        std::vector<std::uint32_t>& free_slots = pool ? pool->free : own_free;
        std::uint32_t& slot_count = pool ? pool->count : own_count;
        for (std::uint32_t k = 0; k < n_in; ++k)
            if (ns[k].reads_left == 0) free_slots.push_back(ns[k].slot);
        const auto read = [&](std::uint32_t node) {
            node_state& s = ns[node];
            if (--s.reads_left == 0) released.push_back(s.slot);
            return s.slot;
        };
        const auto new_slot = [&] {
            if (pool) return pool->take();
            if (free_slots.empty()) return slot_count++;
            const std::uint32_t s = free_slots.back();
            free_slots.pop_back();
            return s;
        };
        const auto next_step = [&] {  // slots released by one step are reused from the next on
            free_slots.insert(free_slots.end(), released.begin(), released.end());
            released.clear();
        };
        out.regions.resize(rec.regions.size());
        for (const step& st : out.steps) {
            if (st.kind == step_kind::region) {
                // Instances read their inputs, then write their outputs to fresh
                // slots: no output lands where any instance of the region still reads.
                // The slots the step before released are spread over the outputs
                // in proportion (output k of n takes the (k·r/n)-th of r, in the
                // order they were released), so an instance's outputs land where
                // instances in the same place of that step read or wrote: parts
                // are contiguous, so a region that follows another elementwise
                // finds its slots on the same worker and waits for no other
                // (exec::link_tasks); the rest go back to the free list.
                std::vector<std::uint32_t> recent;
                recent.swap(released);
                recorded_region& rr = rec.regions[st.region];
                region_data& rd = out.regions[st.region];
                std::vector<std::uint32_t> input_slots;
                std::size_t n_outputs_read = 0;
                for (const recorded_region::instance& i : rr.instances) {
                    for (const std::uint32_t w : i.imports) input_slots.push_back(read(w));
                    for (std::uint32_t j = 0; j < rr.bodies[i.body].output_slots.size(); ++j)
                        n_outputs_read += ns[i.first_output + j].reads_left != 0 ? 1 : 0;
                }
                std::size_t next_input = 0, k = 0, taken = 0;
                for (const recorded_region::instance& i : rr.instances) {
                    rd.instances.push_back({i.body, static_cast<std::uint32_t>(rd.wire_map.size())});
                    rd.wire_map.insert(rd.wire_map.end(), input_slots.begin() + next_input,
                                       input_slots.begin() + next_input + i.imports.size());
                    next_input += i.imports.size();
                    const auto n_outputs = static_cast<std::uint32_t>(rr.bodies[i.body].output_slots.size());
                    for (std::uint32_t j = 0; j < n_outputs; ++j) {
                        node_state& o = ns[i.first_output + j];
                        if (o.reads_left == 0) {
                            o.slot = unused_slot;
                        } else {
                            const std::size_t at = k++ * recent.size() / n_outputs_read;  // nondecreasing
                            if (at < recent.size() && at >= taken) {
                                o.slot = recent[at];
                                recent[at] = unused_slot;
                                taken = at + 1;
                            } else {
                                o.slot = new_slot();
                            }
                        }
                        rd.wire_map.push_back(o.slot);
                    }
                }
                for (const std::uint32_t r : recent)
                    if (r != unused_slot) free_slots.push_back(r);
                rd.name = std::move(rr.name);
                rd.bodies = std::move(rr.bodies);
                continue;
            }
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l) {
                const level_range& lv = out.levels[l];
                next_step();
                // The level's ANDs take their slots first, all at once: the same
                // slots new_slot would hand them one by one (reads release only
                // into `released`), so slot_count does not change, but in
                // increasing order of gate position (sort_slots).
                and_slots.clear();
                for (std::uint32_t p = lv.and_begin; p < lv.xor_begin; ++p) and_slots.push_back(new_slot());
                sort_slots(and_slots, sort_scratch);
                for (std::uint32_t p = lv.and_begin; p < lv.end; ++p) {
                    gate& g = out.gates[p];
                    const std::uint32_t a = read(g.in0);
                    g.in1 = g.in1 != g.in0 ? read(g.in1) : a;
                    g.in0 = a;
                    const std::uint32_t s = p < lv.xor_begin ? and_slots[p - lv.and_begin] : new_slot();
                    ns[n_in + p] = {g.out, s};
                    g.out = s;
                }
            }
        }

        next_step();  // a segment's last releases are free for the next one

        out.output_slots.reserve(rec.output_wires.size());
        for (std::uint32_t w : rec.output_wires) out.output_slots.push_back(is_wire(w) ? ns[w].slot : w);
    }

    out.inputs = std::move(rec.inputs);
    out.outputs = std::move(rec.outputs);
    out.input_bits = n_in;
    out.slot_count = by_id ? first + static_cast<std::uint32_t>(n_gates) : pool ? pool->count : own_count;
    out.wire_count = std::uint64_t{n_in} + n_live + n_region_outputs;
    return out;
}

TANDEM_INLINE std::uint64_t drop_dead_gates(circuit_data& c) {
    std::vector<std::uint8_t> needed(c.slot_count, 0);
    for (const std::uint32_t s : c.output_slots)
        if (s != output_false && s != output_true) needed[s] = 1;
    constexpr auto dead = static_cast<gate_kind>(0xFF);
    std::uint64_t dropped = 0;
    for (std::size_t k = c.steps.size(); k-- > 0;) {
        const step& st = c.steps[k];
        if (st.kind == step_kind::region) {
            const region_data& r = c.regions[st.region];
            for (std::size_t i = r.instances.size(); i-- > 0;) {
                for (const std::uint32_t s : r.outputs_of(r.instances[i]))
                    if (s != unused_slot) needed[s] = 0;
                for (const std::uint32_t s : r.inputs_of(r.instances[i])) needed[s] = 1;
            }
            continue;
        }
        for (std::uint32_t l = st.level_end; l-- > st.level_begin;) {
            const level_range& lv = c.levels[l];
            for (std::uint32_t p = lv.end; p-- > lv.and_begin;) {
                gate& g = c.gates[p];
                if (needed[g.out] == 0) {
                    g.kind = dead;
                    ++dropped;
                    continue;
                }
                needed[g.out] = 0;
                needed[g.in0] = 1;
                needed[g.in1] = 1;
            }
        }
    }
    if (dropped == 0) return 0;
    // Compaction, in order; levels left empty go, and steps follow them.
    std::vector<std::uint32_t> new_level(c.levels.size() + 1);
    std::uint32_t w = 0, kept = 0;
    for (std::size_t l = 0; l < c.levels.size(); ++l) {
        const level_range lv = c.levels[l];
        new_level[l] = kept;
        const std::uint32_t and_begin = w;
        for (std::uint32_t p = lv.and_begin; p < lv.xor_begin; ++p)
            if (c.gates[p].kind != dead) c.gates[w++] = c.gates[p];
        const std::uint32_t xor_begin = w;
        for (std::uint32_t p = lv.xor_begin; p < lv.end; ++p)
            if (c.gates[p].kind != dead) c.gates[w++] = c.gates[p];
        if (w != and_begin) c.levels[kept++] = {and_begin, xor_begin, w};
    }
    new_level[c.levels.size()] = kept;
    c.levels.resize(kept);
    c.gates.resize(w);
    std::vector<step> steps;
    for (step st : c.steps) {
        st.level_begin = new_level[st.level_begin];
        st.level_end = new_level[st.level_end];
        if (st.kind == step_kind::sequential && st.level_begin == st.level_end) continue;
        append_step(steps, st);
    }
    c.steps = std::move(steps);
    c.wire_count -= dropped;
    return dropped;
}

TANDEM_INLINE circuit_data builder::lay_out_body(const std::vector<std::uint32_t>& key, std::size_t imports,
                                                 const std::vector<std::uint32_t>& outputs) {
    recording r;
    r.input_bits = static_cast<std::uint32_t>(imports);
    r.inputs.push_back({party::alice, 0, r.input_bits});
    r.wires.assign(std::size_t{r.input_bits} + 1, recorded_gate{});
    const std::uint32_t first = r.first_gate_wire();
    const std::size_t n_gates = (key.size() - 1 - outputs.size()) / 3;  // key: gates, import count, outputs
    const auto wire = [&](std::uint32_t code) { return code & 1u ? (code >> 1) + 1 : first + (code >> 1); };
    const auto level = [&](std::uint32_t w) { return r.wires[w].level(); };
    for (std::size_t g = 0; g < n_gates; ++g) {
        const auto kind = static_cast<gate_kind>(key[3 * g]);
        const std::uint32_t x = wire(key[3 * g + 1]), y = wire(key[3 * g + 2]);
        const std::uint32_t lvl = std::max(level(x), level(y)) + (is_free(kind) ? 0u : 1u);
        r.wires.push_back({x, y, lvl << 2 | static_cast<std::uint32_t>(kind), 0, 0, 0, 0, 0});
        ++r.uses(x);
        if (y != x) ++r.uses(y);
        r.max_level = std::max(r.max_level, lvl);
    }
    r.outputs.push_back({party::alice, 0, static_cast<std::uint32_t>(outputs.size())});
    for (const std::uint32_t g : outputs) {
        r.output_wires.push_back(first + g);
        ++r.uses(first + g);
    }
    return lay_out(std::move(r));
}

TANDEM_INLINE circuit_data builder::lay_out_segment(recording&& rec, slot_pool& pool, std::uint32_t kept) {
    return lay_out(std::move(rec), &pool, false, kept);
}

TANDEM_INLINE circuit_data builder::lay_out_streamed(recording&& rec, std::uint32_t kept) {
    return lay_out(std::move(rec), nullptr, true, kept);
}

}  // namespace tandem::detail
