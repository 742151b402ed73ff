// tandem/exec/plan.hpp — who runs what, computed alike by both parties.
//
// A plan is a pure function of (circuit, workers, FGP threshold), so the two
// parties derive the same one without talking (docs/DESIGN.md §8). For W workers:
//  * Region steps: instances are cut into W contiguous parts balanced by AND
//    count (fewer for regions under fgp_min_ands ANDs per part); worker w
//    runs part w in instance order, its tables travelling on link w (link 0
//    is the session's main connection).
//  * Sequential steps run on worker 0, except FGP: a level with at least
//    fgp_min_ands ANDs per part has its ANDs split into up to W parts, part k
//    on worker k and link k (paper 001 §4.3); the level's XORs follow on
//    worker 0 once all parts are done.
//  * Tweaks: every step, level and region instance gets a range of AND
//    indices by prefix sums (sequential ANDs level by level, a region's
//    instances one after another), disjoint from all others. Instances that
//    a worker runs in lockstep (gc/half_gates.hpp) share their ranges' union
//    out gate-major, so one worker garbles exactly what gc::garble does.
//  * Tasks (task_graph): a sequential step is one task of worker 0, a region
//    step one task per worker with a part, an IPP boundary two tasks of
//    worker 0 (the transfers out of the world, then those into it). Each worker runs its tasks in plan order (its link carries
//    their tables in that order), and a task waits for the tasks of other
//    workers whose slots it depends on — so independent regions' parts and
//    parts that only read their own worker's outputs follow each other
//    without a barrier.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/error.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tandem::exec {

/// ANDs per thread below which FGP does not split a level (nor the planner a
/// region). Measured with `bench_cgp --case tau` (bench/RESULTS.md): on the
/// 2-core development VM two threads break even at ~128 ANDs per thread and
/// gain 1.3× at 1024, 1.7× from 4096; paper 001 reports ≈8 for any gain and
/// ≈512 for 90 % efficiency on its machine.
inline constexpr std::uint32_t default_fgp_min_ands = 1024;
/// The least ANDs worth a region part on a worker in another process
/// (mpi/: the part's header, bodies and labels go there and its outputs come
/// back, a round trip of MPI messages whose receiver may be resting, ~0.1–1
/// ms): 65,536 ANDs garble in ~0.8 ms on one core. A reduction's last levels
/// thus stay with worker 0 instead of costing a round trip each.
inline constexpr std::uint32_t remote_min_part_ands = 65536;

/// Instances [begin, end) of a region.
struct instance_range {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
};

/// What the plan says of one step of the circuit.
struct step_plan {
    bool here = true;                               ///< sequential: this plan runs it (IPP: only Alice's world)
    std::uint64_t first_and = 0;                    ///< tweak index of the step's first AND
    std::vector<std::uint64_t> instance_first_and;  ///< regions: per instance
    std::vector<instance_range> parts;              ///< regions: per worker
};

/// One task of a plan: a sequential step, on worker 0 (its wide levels fan
/// out to the other workers, FGP); worker w's part of a region step; or, at
/// an IPP boundary before step `step` (steps.size(): after the last), on
/// worker 0, the transfers out of the world and then those into it
/// (session/ipp.hpp). In the graph of both IPP worlds (ipp_plan::joint),
/// `worker` counts the workers of both, Bob's world's after Alice's.
struct task {
    enum class kind : std::uint8_t { sequential, part, transfers_out, transfers_in };
    kind what = kind::sequential;
    std::uint32_t worker = 0;
    std::uint32_t step = 0;
    std::uint8_t world = 0;  ///< IPP: exec::world's index (0: Alice's, and without IPP)
};

/// A plan's tasks and what each waits for (paper 001's regions as nodes of
/// a flow graph; docs/DESIGN.md §8). `tasks` are in plan order, which is a
/// topological order. A task waits for the task before it on its worker
/// (the worker's link carries their tables in plan order, and its core is
/// used by one task at a time) and for each task of another worker that
/// wrote a slot it reads, read a slot it writes (the layout reuses slots),
/// or wrote a slot it writes. Sequential steps and boundaries' tasks touch
/// every link or the whole label array: they wait for all tasks before them
/// and all tasks after them wait for them.
struct task_graph {
    std::vector<task> tasks;
    std::vector<std::uint32_t> waits_for;  ///< per task: how many tasks must finish before it starts
    std::vector<std::uint32_t> next_begin;  ///< per task t, then one more: where t's successors start in `next`
    std::vector<std::uint32_t> next;        ///< the tasks that wait for t, for each t in turn

    std::span<const std::uint32_t> successors(std::uint32_t t) const noexcept {
        return {next.data() + next_begin[t], next_begin[t + 1] - next_begin[t]};
    }
};

/// Who runs what: per step, per level and per region instance, which worker
/// and link, and the tweak ranges (see the top of this header).
struct plan {
    std::uint32_t workers = 1;
    std::uint32_t fgp_min_ands = default_fgp_min_ands;
    /// FGP: wide levels are split between the workers. Off where the workers
    /// are processes of their own (mpi/: a level's parts would cost a round
    /// trip each), so levels stay whole with worker 0.
    bool split_levels = true;
    std::vector<step_plan> steps;
    std::vector<std::uint64_t> level_first_and;  ///< per level of the sequential gates
    std::vector<std::uint64_t> worker_ands;      ///< ANDs whose tables travel on link w
    std::uint64_t and_gates = 0;
    /// Every task is worker 0's (one worker, or a circuit too small to
    /// split): the executor runs the steps on the calling thread.
    bool one_worker = true;
    /// IPP (exec/ipp_plan.hpp): 1 at k where the executor calls its boundary
    /// hook before step k (k == steps.size(): after the last step); empty
    /// without IPP.
    std::vector<std::uint8_t> hooks;
    /// The tasks and their dependencies (link_tasks, once the rest is set).
    task_graph graph;

    bool hooked(std::size_t k) const noexcept { return k < hooks.size() && hooks[k] != 0; }

    /// Into how many parts FGP splits the ANDs of a level (1: not split).
    std::uint32_t level_parts(const level_range& lv) const noexcept {
        if (!split_levels) return 1;
        const std::uint64_t by_size = fgp_min_ands == 0 ? workers : lv.and_count() / fgp_min_ands;
        return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(by_size, 1, workers));
    }
    /// ANDs [first, second) of part k of n of a level.
    static std::pair<std::uint32_t, std::uint32_t> level_part(const level_range& lv, std::uint32_t k,
                                                              std::uint32_t n) noexcept {
        const std::uint64_t w = lv.and_count();
        return {lv.and_begin + static_cast<std::uint32_t>(w * k / n),
                lv.and_begin + static_cast<std::uint32_t>(w * (k + 1) / n)};
    }
};

/// Adds the ANDs of each FGP part of level lv to p.worker_ands; returns the
/// number of parts.
inline std::uint32_t add_level_parts(plan& p, const level_range& lv) {
    const std::uint32_t n = p.level_parts(lv);
    for (std::uint32_t k = 0; k < n; ++k) {
        const auto [b, e] = plan::level_part(lv, k, n);
        p.worker_ands[k] += e - b;
    }
    return n;
}

/// Cuts instances [range.begin, range.end) of a region into contiguous parts
/// balanced by AND count, one per worker (sp.parts[w]; empty for the workers
/// left out), adding each part's ANDs to p.worker_ands. Worker w takes
/// instances until its share of the ANDs, (w + 1) / parts of the total, is
/// reached. A small range is not worth a hand-off: like an FGP level, it gets
/// at most one part per fgp_min_ands ANDs. Returns the number of parts.
inline std::uint32_t split_instances(const region_data& r, const std::vector<std::uint64_t>& body_ands,
                                     instance_range range, plan& p, step_plan& sp) {
    std::uint64_t total = 0;
    for (std::uint32_t i = range.begin; i < range.end; ++i) total += body_ands[r.instances[i].body];
    const std::uint64_t by_size = p.fgp_min_ands == 0 ? p.workers : total / p.fgp_min_ands;
    const auto parts = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(by_size, 1, p.workers));
    sp.parts.assign(p.workers, {range.begin, range.begin});
    std::uint32_t i = range.begin;
    std::uint64_t done = 0;
    for (std::uint32_t w = 0; w < parts; ++w) {
        sp.parts[w].begin = i;
        const std::uint64_t target = total * (w + 1) / parts;
        while (i < range.end && (w + 1 == parts || done + body_ands[r.instances[i].body] / 2 < target)) {
            done += body_ands[r.instances[i].body];
            p.worker_ands[w] += body_ands[r.instances[i].body];
            ++i;
        }
        sp.parts[w].end = i;
    }
    for (std::uint32_t w = parts; w < p.workers; ++w) sp.parts[w] = {i, i};
    return range.end > range.begin ? parts : 0;
}

/// One dependency of a task graph: task `to` waits for task `from`.
struct task_edge {
    std::uint32_t from, to;
};

/// Sets g's counts and successor lists (g.tasks set) from its edges, each
/// listed once.
inline void set_dependencies(task_graph& g, const std::vector<task_edge>& edges) {
    const std::size_t n = g.tasks.size();
    g.waits_for.assign(n, 0);
    g.next_begin.assign(n + 1, 0);
    for (const task_edge& e : edges) {
        ++g.waits_for[e.to];
        ++g.next_begin[e.from + 1];
    }
    for (std::size_t t = 0; t < n; ++t) g.next_begin[t + 1] += g.next_begin[t];
    g.next.resize(edges.size());
    std::vector<std::uint32_t> fill(g.next_begin.begin(), g.next_begin.end() - 1);
    for (const task_edge& e : edges) g.next[fill[e.from]++] = e.to;
}

/// Fills p.graph from the rest of p (see task_graph). Cross-worker
/// dependencies come from one pass over the region parts' wire maps: per
/// slot, the task that last wrote it and the tasks that read it since
/// (sequential steps and boundaries reset both, as everything waits for
/// them). Plans where one worker runs everything need no such pass.
inline void link_tasks(plan& p, const circuit_data& c) {
    constexpr std::uint32_t none = 0xFFFFFFFFu;
    task_graph& g = p.graph;
    g = {};
    std::vector<task_edge> edges;
    std::vector<std::uint32_t> last(p.workers, none);  // each worker's latest task
    std::uint32_t barrier = none;                      // the latest sequential step or boundary task
    const bool cross = !p.one_worker;
    std::vector<std::uint32_t> writer, reader;  // per slot: last writer, newest reader (into reads)
    struct read { std::uint32_t task, older; };
    std::vector<read> reads;
    std::vector<std::uint32_t> seen;  // per task: the latest task that listed it as a wait
    if (cross) {
        writer.assign(c.slot_count, none);
        reader.assign(c.slot_count, none);
    }
    // A task before the latest barrier is waited for through it.
    const auto current = [&](std::uint32_t t) { return t != none && (barrier == none || t >= barrier); };

    const auto add = [&](task t) {
        const auto id = static_cast<std::uint32_t>(g.tasks.size());
        g.tasks.push_back(t);
        seen.push_back(none);
        const auto wait_for = [&](std::uint32_t u) {
            if (seen[u] != id) {
                seen[u] = id;
                edges.push_back({u, id});
            }
        };
        if (t.what != task::kind::part) {  // a barrier: after every worker's latest task
            for (const std::uint32_t u : last)
                if (current(u)) wait_for(u);
            if (barrier != none) wait_for(barrier);
            barrier = id;
            last[t.worker] = id;
            return;
        }
        if (current(last[t.worker])) wait_for(last[t.worker]);
        else if (barrier != none) wait_for(barrier);
        last[t.worker] = id;
        if (!cross) return;
        const region_data& r = c.regions[c.steps[t.step].region];
        const instance_range part = p.steps[t.step].parts[t.worker];
        const auto other = [&](std::uint32_t u) { return current(u) && g.tasks[u].worker != t.worker; };
        for (std::uint32_t i = part.begin; i < part.end; ++i) {
            for (const std::uint32_t s : r.inputs_of(r.instances[i])) {
                if (other(writer[s])) wait_for(writer[s]);
                if (reader[s] == none || reads[reader[s]].task != id) {
                    reads.push_back({id, reader[s]});
                    reader[s] = static_cast<std::uint32_t>(reads.size() - 1);
                }
            }
        }
        for (std::uint32_t i = part.begin; i < part.end; ++i) {
            for (const std::uint32_t s : r.outputs_of(r.instances[i])) {
                if (s == unused_slot) continue;
                if (other(writer[s])) wait_for(writer[s]);
                for (std::uint32_t k = reader[s]; k != none && current(reads[k].task); k = reads[k].older)
                    if (other(reads[k].task)) wait_for(reads[k].task);
                writer[s] = id;
                reader[s] = none;
            }
        }
    };

    const std::size_t n_steps = c.steps.size();
    for (std::size_t s = 0; s <= n_steps; ++s) {
        const auto step = static_cast<std::uint32_t>(s);
        if (p.hooked(s)) {
            add({task::kind::transfers_out, 0, step});
            add({task::kind::transfers_in, 0, step});
        }
        if (s == n_steps) break;
        if (c.steps[s].kind == step_kind::sequential) {
            if (p.steps[s].here) add({task::kind::sequential, 0, step});
            continue;
        }
        for (std::uint32_t w = 0; w < p.workers; ++w)
            if (p.steps[s].parts[w].end > p.steps[s].parts[w].begin) add({task::kind::part, w, step});
    }

    set_dependencies(g, edges);
}

/// Throws usage_error unless p was made for a circuit shaped like c (same
/// steps, levels and region instances): the executor indexes the plan with
/// c's numbers and does not check them again.
inline void check_plan_fits(const plan& p, const circuit_data& c) {
    const auto fail = [](const std::string& what) {
        throw usage_error("tandem: the plan does not fit the circuit (" + what +
                          "); make the plan with exec::make_plan from the circuit it runs");
    };
    if (p.workers == 0 || p.worker_ands.size() != p.workers) fail("its worker counts disagree");
    if (p.steps.size() != c.steps.size())
        fail("the plan has " + std::to_string(p.steps.size()) + " steps, the circuit " +
             std::to_string(c.steps.size()));
    if (p.level_first_and.size() != c.levels.size())
        fail("the plan has " + std::to_string(p.level_first_and.size()) + " levels, the circuit " +
             std::to_string(c.levels.size()));
    for (std::size_t s = 0; s < c.steps.size(); ++s) {
        if (c.steps[s].kind != step_kind::region) continue;
        const std::size_t n = c.regions[c.steps[s].region].instances.size();
        const step_plan& sp = p.steps[s];
        if (sp.instance_first_and.size() != n || sp.parts.size() != p.workers)
            fail("step " + std::to_string(s) + " is a region of " + std::to_string(n) + " instances");
        for (const instance_range& part : sp.parts)
            if (part.begin > part.end || part.end > n) fail("step " + std::to_string(s) + " has a part out of range");
    }
}

/// The plan for running c with `workers` workers (threads and links per
/// party); levels split between them unless split_levels is false.
inline plan make_plan(const circuit<>& circ, std::uint32_t workers,
                      std::uint32_t fgp_min_ands = default_fgp_min_ands, bool split_levels = true) {
    if (workers == 0 || workers > 256)
        throw usage_error("tandem: threads must be between 1 and 256, not " + std::to_string(workers));
    const circuit_data& c = circ.data();
    plan p;
    p.workers = workers;
    p.fgp_min_ands = fgp_min_ands;
    p.split_levels = split_levels;
    p.worker_ands.assign(workers, 0);
    p.level_first_and.assign(c.levels.size(), 0);
    std::uint64_t next = 0;
    for (const step& st : c.steps) {
        step_plan sp;
        sp.first_and = next;
        if (st.kind == step_kind::sequential) {
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l) {
                const level_range& lv = c.levels[l];
                p.level_first_and[l] = next;
                const std::uint32_t parts = add_level_parts(p, lv);  // always: not in &&
                p.one_worker = p.one_worker && parts == 1;
                next += lv.and_count();
            }
        } else {
            const region_data& r = c.regions[st.region];
            std::vector<std::uint64_t> body_ands;
            for (const circuit_data& b : r.bodies) body_ands.push_back(detail::count_gates(b).and_gates);
            std::uint64_t total = 0;
            for (const region_instance& i : r.instances) {
                sp.instance_first_and.push_back(next + total);
                total += body_ands[i.body];
            }
            const std::uint32_t parts =
                split_instances(r, body_ands, {0, static_cast<std::uint32_t>(r.instances.size())}, p, sp);
            p.one_worker = p.one_worker && parts <= 1;
            next += total;
        }
        p.steps.push_back(std::move(sp));
    }
    p.and_gates = next;
    link_tasks(p, c);
    return p;
}

/// The plan for workers 1 .. workers-1 in other processes (MPI ranks, mpi/):
/// levels stay whole with worker 0 (a level's parts across processes would
/// cost a round trip each) and region parts have at least
/// remote_min_part_ands ANDs.
inline plan make_remote_plan(const circuit<>& circ, std::uint32_t workers) {
    return make_plan(circ, workers, remote_min_part_ands, false);
}

}  // namespace tandem::exec
