// tandem/exec/ipp_plan.hpp — inter-party parallelization: which world runs
// what, and which wires cross between the worlds (paper 001 §5, docs/DESIGN.md §8).
//
// A world is a Yao execution with one garbler: in Alice's world Alice
// garbles under her Δ and Bob evaluates, in Bob's world the roles and the Δ
// are the other way round. Both run at once, so each party garbles and
// evaluates at the same time and both directions of the link carry tables.
// The rule, computed alike by both parties from the circuit alone:
//  * Sequential steps, the inputs and the outputs live in Alice's world.
//  * A region with at least ipp_min_ands ANDs is cut in two contiguous
//    halves balanced by AND count: the first in Alice's world, the second in
//    Bob's. Smaller regions stay in Alice's world (a cut costs a transfer and
//    a wait for the peer's tables at both ends of the region).
//  * Within a world each step is split among the workers as exec/plan.hpp
//    says (make_plan), with the same tweaks as without IPP.
//  * Transfers: a slot read in a world where its current value is not held
//    is re-shared into that world at the boundary before the reading step
//    (the value is never revealed: session/ipp.hpp); outputs held only in
//    Bob's world move to Alice's before the outputs are opened. The planner
//    tracks, slot by slot and step by step, which worlds hold the value a
//    slot has (slots are reused, so a write invalidates the other world's copy).
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/plan.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace tandem::exec {

/// A world is named by its garbler.
enum class world : std::uint8_t { alice = 0, bob = 1 };

/// The other world.
constexpr world other(world w) noexcept { return w == world::alice ? world::bob : world::alice; }
/// A world as an array index: Alice's 0, Bob's 1.
constexpr std::size_t index(world w) noexcept { return static_cast<std::size_t>(w); }

/// Regions with fewer ANDs than this stay in Alice's world. Each cut region
/// adds up to two boundaries at which a world waits for the other party's
/// tables (a one-way latency each, 50 ms on a 100 ms round trip); BioMatch's
/// reduce levels (≤ 51 k ANDs each) stay whole, its and MVMul's and MExp's
/// main regions (1–6 M ANDs) are cut.
inline constexpr std::uint64_t default_ipp_min_ands = std::uint64_t{1} << 16;

/// The slots re-shared at one boundary, into each world.
struct transfer_set {
    std::array<std::vector<std::uint32_t>, 2> into;  ///< by destination world

    const std::vector<std::uint32_t>& into_world(world w) const noexcept { return into[index(w)]; }
    const std::vector<std::uint32_t>& out_of(world w) const noexcept { return into[index(other(w))]; }
    bool empty() const noexcept { return into[0].empty() && into[1].empty(); }
};

/// An IPP plan: a plan per world, the wires transferred at each boundary,
/// where each cut region splits, and the tables per link and segment.
struct ipp_plan {
    std::array<plan, 2> worlds;             ///< by world; hooks alike in both
    std::vector<transfer_set> boundary;     ///< before step k; [steps]: before the outputs
    std::vector<std::uint32_t> cut;         ///< per step: regions: first instance of Bob's world
    /// Per world, per hooked boundary k, per link w: ANDs whose tables travel
    /// on that link between boundary k and the next hooked one. An evaluator
    /// reads tables a segment at a time: reading ahead into the next segment
    /// would wait for tables its garbler can only make once this party's
    /// evaluator has finished the segment and handed its transfers over.
    std::array<std::vector<std::vector<std::uint64_t>>, 2> segment_ands;
    std::uint64_t transferred_bits = 0;     ///< both directions, all boundaries
    std::uint64_t and_gates = 0;
    std::array<std::uint64_t, 2> world_ands{};  ///< ANDs garbled in each world
    /// Both worlds' tasks in one graph (join_worlds): what a party runs.
    task_graph joint;
};

/// The graph of both worlds' tasks: each world's graph (its workers counted
/// after the other world's: Bob's world's worker w is workers + w), with one
/// more wait per boundary — a world's transfers in wait for the other
/// world's transfers out, whose labels they install. So the flow graph, not a
/// thread per world, decides when each world's regions run, and a world waits
/// for the other only where wires cross. In plan order per world, the worlds
/// interleaved boundary by boundary (a topological order).
inline task_graph join_worlds(const std::array<plan, 2>& worlds) {
    const std::uint32_t workers = worlds[0].workers;
    task_graph joint;
    std::vector<task_edge> edges;
    std::array<std::vector<std::uint32_t>, 2> at;  // per world: its tasks' indices in joint
    for (std::size_t x = 0; x < 2; ++x) at[x].assign(worlds[x].graph.tasks.size(), 0);
    const auto emit = [&](std::size_t x, std::uint32_t t) {
        at[x][t] = static_cast<std::uint32_t>(joint.tasks.size());
        task tk = worlds[x].graph.tasks[t];
        tk.worker += static_cast<std::uint32_t>(x) * workers;
        tk.world = static_cast<std::uint8_t>(x);
        joint.tasks.push_back(tk);
    };
    std::array<std::uint32_t, 2> next{0, 0}, out{0, 0};
    const auto left = [&](std::size_t x) { return next[x] < worlds[x].graph.tasks.size(); };
    while (left(0) || left(1)) {
        for (std::size_t x = 0; x < 2; ++x)
            while (left(x)) {
                const std::uint32_t t = next[x]++;
                emit(x, t);
                if (worlds[x].graph.tasks[t].what == task::kind::transfers_out) {
                    out[x] = at[x][t];
                    break;
                }
            }
        for (std::size_t x = 0; x < 2; ++x)
            if (left(x) && worlds[x].graph.tasks[next[x]].what == task::kind::transfers_in) {
                edges.push_back({out[1 - x], static_cast<std::uint32_t>(joint.tasks.size())});
                emit(x, next[x]++);
            }
    }
    for (std::size_t x = 0; x < 2; ++x) {  // each world's own waits
        const task_graph& g = worlds[x].graph;
        for (std::uint32_t t = 0; t < g.tasks.size(); ++t)
            for (const std::uint32_t s : g.successors(t)) edges.push_back({at[x][t], at[x][s]});
    }
    set_dependencies(joint, edges);
    return joint;
}

/// The IPP plan for running c with `workers` workers per world and party.
/// Its input bits sit in slots first_input .. first_input + input_bits - 1
/// of Alice's world: 0 for a compiled circuit, 1 for a streamed run's
/// segment (slot 0 is its constant, then the wires carried in and the new
/// inputs: stream_segment in circuit/builder.hpp).
inline ipp_plan make_ipp_plan(const circuit<>& circ, std::uint32_t workers,
                              std::uint64_t ipp_min_ands = default_ipp_min_ands,
                              std::uint32_t fgp_min_ands = default_fgp_min_ands, std::uint32_t first_input = 0,
                              bool split_levels = true) {
    const circuit_data& c = circ.data();
    const std::size_t n_steps = c.steps.size();
    ipp_plan ip;
    ip.worlds[0] = make_plan(circ, workers, fgp_min_ands, split_levels);  // tweaks, level offsets, sequential FGP
    ip.worlds[1] = ip.worlds[0];
    ip.and_gates = ip.worlds[0].and_gates;
    ip.cut.assign(n_steps, 0);
    ip.boundary.assign(n_steps + 1, {});
    std::array<std::vector<std::vector<std::uint64_t>>, 2> step_ands;  // per world, per step, per link
    for (plan& p : ip.worlds) {
        p.worker_ands.assign(workers, 0);
        p.one_worker = true;
        p.hooks.assign(n_steps + 1, 0);
    }
    for (auto& v : step_ands) v.assign(n_steps, std::vector<std::uint64_t>(workers, 0));

    // Which worlds hold the current value of each slot: bit 0 Alice's, bit 1 Bob's.
    std::vector<std::uint8_t> held(c.slot_count, 0);
    for (std::uint32_t s = first_input; s < first_input + c.input_bits; ++s) held[s] = 1;
    const auto need = [&](std::uint32_t slot, world w, std::size_t k) {
        const auto bit = static_cast<std::uint8_t>(1u << index(w));
        if (held[slot] & bit) return;
        if (held[slot] == 0)
            tandem::detail::internal_error("ipp plan: a slot is read before any step wrote it");
        ip.boundary[k].into[index(w)].push_back(slot);
        held[slot] = static_cast<std::uint8_t>(held[slot] | bit);
    };

    for (std::size_t k = 0; k < n_steps; ++k) {
        const step& st = c.steps[k];
        const std::array<std::vector<std::uint64_t>, 2> before{ip.worlds[0].worker_ands, ip.worlds[1].worker_ands};
        if (st.kind == step_kind::sequential) {
            ip.worlds[1].steps[k].here = false;
            plan& a = ip.worlds[0];
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l) {
                const level_range& lv = c.levels[l];
                const std::uint32_t parts = add_level_parts(a, lv);  // always: not in &&
                a.one_worker = a.one_worker && parts == 1;
                for (std::uint32_t g = lv.and_begin; g < lv.end; ++g) {
                    const gate& gt = c.gates[g];
                    need(gt.in0, world::alice, k);
                    need(gt.in1, world::alice, k);
                    held[gt.out] = 1;
                }
            }
        } else {
            const region_data& r = c.regions[st.region];
            std::vector<std::uint64_t> body_ands;
            for (const circuit_data& b : r.bodies) body_ands.push_back(tandem::detail::count_gates(b).and_gates);
            std::uint64_t total = 0;
            for (const region_instance& i : r.instances) total += body_ands[i.body];
            const auto n = static_cast<std::uint32_t>(r.instances.size());
            std::uint32_t cut = n;
            if (total >= ipp_min_ands) {  // Alice's world takes instances until it has half of the ANDs
                std::uint64_t done = 0;
                for (cut = 0; cut < n && done + body_ands[r.instances[cut].body] / 2 < total / 2; ++cut)
                    done += body_ands[r.instances[cut].body];
            }
            ip.cut[k] = cut;
            for (std::size_t w = 0; w < 2; ++w) {
                plan& p = ip.worlds[w];
                const instance_range range = w == 0 ? instance_range{0, cut} : instance_range{cut, n};
                const std::uint32_t parts = split_instances(r, body_ands, range, p, p.steps[k]);  // always: not in &&
                p.one_worker = p.one_worker && parts <= 1;
            }
            for (std::uint32_t i = 0; i < n; ++i)  // instances read only slots written before the region
                for (std::uint32_t s : r.inputs_of(r.instances[i])) need(s, i < cut ? world::alice : world::bob, k);
            for (std::uint32_t i = 0; i < n; ++i)
                for (std::uint32_t s : r.outputs_of(r.instances[i]))
                    if (s != unused_slot) held[s] = i < cut ? 1 : 2;
        }
        for (std::size_t w = 0; w < 2; ++w)
            for (std::uint32_t j = 0; j < workers; ++j) step_ands[w][k][j] = ip.worlds[w].worker_ands[j] - before[w][j];
    }
    for (std::uint32_t s : c.output_slots)
        if (s != output_false && s != output_true) need(s, world::alice, n_steps);

    // Hooks: boundary 0 (the evaluators learn their first table segment) and
    // every boundary with transfers; each link's tables counted per segment.
    for (std::size_t k = 0; k <= n_steps; ++k) {
        const bool hook = k == 0 || !ip.boundary[k].empty();
        for (plan& p : ip.worlds) p.hooks[k] = hook ? 1 : 0;
        ip.transferred_bits += ip.boundary[k].into[0].size() + ip.boundary[k].into[1].size();
    }
    for (std::size_t w = 0; w < 2; ++w) {
        ip.segment_ands[w].assign(n_steps + 1, std::vector<std::uint64_t>(workers, 0));
        std::size_t last = 0;
        for (std::size_t k = 0; k < n_steps; ++k) {
            if (ip.worlds[w].hooks[k]) last = k;
            for (std::uint32_t j = 0; j < workers; ++j) ip.segment_ands[w][last][j] += step_ands[w][k][j];
        }
        for (std::uint64_t a : ip.worlds[w].worker_ands) ip.world_ands[w] += a;
    }
    for (plan& p : ip.worlds) link_tasks(p, c);
    ip.joint = join_worlds(ip.worlds);
    return ip;
}

}  // namespace tandem::exec
