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
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/error.hpp>

#include <algorithm>
#include <cstdint>
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
