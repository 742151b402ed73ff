// tandem/exec/executor.hpp — runs a plan on the session's workers.
//
// The plan's tasks (exec/plan.hpp: a sequential step, a worker's part of a
// region step, an IPP boundary's transfers) run as a graph: each starts once the tasks
// it depends on have finished — the one before it on its worker, and those
// of other workers whose slots it reads or overwrites. A region whose parts
// read only what the same workers wrote before thus follows without a
// barrier, and a slow part holds up only what depends on it. Sequential
// steps and boundaries wait for everything before them: a sequential step
// fans its wide levels out to every worker (FGP), a boundary re-shares wires
// between IPP's worlds (session/ipp.hpp). With IPP one graph holds both
// worlds' tasks (exec::ipp_plan::joint), a world's transfers in waiting for
// the other's transfers out.
//
// Tasks wait for their peer on sockets. A task may suspend there instead of
// blocking its thread (net/suspend.hpp), so the tasks need not each have a
// thread — the peer's tasks may run in any order on any number of threads;
// it blocks where that costs no other task its thread (see `workers`). A
// one-worker plan (one world) runs its tasks in order on the calling thread, which
// blocks while it waits, as a small run's latency wants.
// The first task to fail records its exception and calls `interrupt`, which
// makes every other waiting task fail at once instead of at its deadline;
// no task starts after a failure, and the first exception is rethrown once
// the tasks running have drained.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/detail/linkage.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/net/channel.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {
class thread_demand;
}

namespace tandem::exec {

namespace detail {

/// The first failure of a run, and what to do about the others.
class failure {
public:
    explicit failure(std::function<void()> interrupt) : interrupt_(std::move(interrupt)) {}
    bool happened() const noexcept { return failed_.load(std::memory_order_acquire); }
    /// Runs f unless a task already failed; records f's exception.
    template <class F>
    void guard(F&& f) noexcept {
        if (happened()) return;
        try {
            f();
        } catch (...) {
            {
                std::lock_guard lock(m_);
                if (!first_) first_ = std::current_exception();
            }
            failed_.store(true, std::memory_order_release);
            if (interrupt_) interrupt_();
        }
    }
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::function<void()> interrupt_;
    std::atomic<bool> failed_{false};
    std::mutex m_;
    std::exception_ptr first_;
};

}  // namespace detail

/// How a plan's tasks wait for their peer: by suspending (every link's
/// waits do, net::channel::waits_suspend, or the tasks never wait on a
/// link), or by blocking their thread.
enum class task_waits { suspend, block };

/// How tasks that wait on `links` wait: they suspend where every link can
/// (net::channel::waits_suspend) and no worker is in another process.
inline task_waits task_waits_on(std::span<net::channel* const> links, bool remote_workers) noexcept {
    const bool all = std::all_of(links.begin(), links.end(), [](const net::channel* l) { return l->waits_suspend(); });
    return all && !remote_workers ? task_waits::suspend : task_waits::block;
}

/// Where a plan's tasks run. Tasks that can suspend run on a oneTBB arena of
/// n threads (the caller and n - 1 of oneTBB's workers, which the session
/// adds to the process's limit while it lives: detail/worker_budget.hpp),
/// made once per session and kept for its runs — or, when the caller is
/// itself a oneTBB task (a user's program), on the caller's arena, so that
/// the program and tandem share one pool of threads. A task of the
/// session's arena that waits for its peer blocks its thread while no other
/// task of the arena needs one, and suspends when one does
/// (detail/thread_demand.hpp); in a user's arena it always suspends
/// (net/suspend.hpp). Either way no task can keep another from running,
/// whatever the number of threads. Tasks that cannot suspend (a transport
/// that cannot: remote workers' MPI links, a user's channel) run on a
/// thread per worker, started for the run (and one per FGP part): a blocked
/// task cannot give its thread to the task that would unblock it.
/// Definitions: exec/workers_impl.hpp.
class workers {
public:
    explicit workers(std::uint32_t n, task_waits waits = task_waits::suspend);
    workers(const workers&) = delete;
    workers& operator=(const workers&) = delete;
    ~workers();
    std::uint32_t size() const noexcept { return n_; }

    /// Runs f(t) for every task t of g, each once the tasks it waits for
    /// have finished (f must not throw); returns when all are done. g's
    /// tasks are on at most size() workers. One call per run: on oneTBB, a
    /// flow graph of one node per task; with tasks that block, a thread per
    /// worker that runs the worker's tasks in order.
    void run_graph(const task_graph& g, const std::function<void(std::uint32_t)>& f);

    /// Runs f(k) for k in [0, n) at once (f must not throw); returns when
    /// all are done. n ≤ size(). One call per wide level (FGP).
    void run_on_each(std::uint32_t n, const std::function<void(std::uint32_t)>& f);

    /// Runs f(k) for k in [0, n) at once, as run_on_each, where f may
    /// throw: the first to throw calls `interrupt` (so that the others'
    /// waits on their links end now, not at their deadline), and its
    /// exception — not those the interruption caused — is rethrown once all
    /// are done. For work that is no plan's: a malicious session's triples,
    /// a part per link (auth/garble.hpp), and their set-ups.
    void run_together(std::uint32_t n, const std::function<void(std::uint32_t)>& f, std::function<void()> interrupt) {
        detail::failure fail(std::move(interrupt));
        run_on_each(n, [&](std::uint32_t k) { fail.guard([&] { f(k); }); });
        fail.rethrow();
    }

private:
    struct impl;
    /// Whether the caller is a oneTBB task whose waits may suspend: the
    /// work joins its arena (a user's, or the session's own from a node).
    bool in_users_task() const noexcept;
    /// The session's own arena (made at its first use), or null where tasks
    /// get threads instead (they block; sanitizers).
    impl* own_arena();
    /// The tasks as one isolated group, counted in `demand` (null: a user's arena).
    static void spawn_and_wait(std::uint32_t n, const std::function<void(std::uint32_t)>& f,
                               tandem::detail::thread_demand* demand);
    /// g as a oneTBB flow graph, its tasks counted in `demand` (null: a user's arena).
    static void flow(const task_graph& g, const std::function<void(std::uint32_t)>& f,
                     tandem::detail::thread_demand* demand);
    /// g on a thread per worker, for tasks that block.
    void walk(const task_graph& g, const std::function<void(std::uint32_t)>& f);
    std::uint32_t n_;
    task_waits waits_;
    std::unique_ptr<impl> impl_;
};

/// One world of a run: its plan, its cores (cores[w] is worker w's engine,
/// a gc::garbler_core or gc::evaluator_core bound to link w), its label
/// array (the circuit's slots, with the inputs in front where the world
/// holds them) and the offset of all its tweaks.
struct world_run {
    const plan& p;
    std::span<gc::core* const> cores;
    gc::detail::label_array& label;
    std::uint64_t first_and = 0;
};

/// An IPP boundary's task (task::kind::transfers_out or transfers_in) of
/// world `world` before step k (session/ipp.hpp).
using transfer_hook = std::function<void(std::size_t k, std::uint8_t world, task::kind what)>;

/// Runs the tasks of g over the worlds (one, or IPP's two: g is then the
/// ipp_plan's joint graph), on `pool`, which runs at least as many workers
/// as g has; `transfers` runs the boundaries' tasks. `interrupt` is called
/// once if any task fails. Not a template: the cores are called per run of
/// levels, per FGP part and per region part, never per gate.
inline void execute_graph(const circuit_data& c, std::span<const world_run> worlds, const task_graph& g,
                          workers& pool, std::function<void()> interrupt, const transfer_hook& transfers) {
    std::uint32_t all = 0;
    for (const world_run& x : worlds) {
        if (x.cores.size() != x.p.workers) tandem::detail::internal_error("executor: one core per worker expected");
        if (!x.p.hooks.empty() && !transfers) tandem::detail::internal_error("executor: an IPP plan needs its transfers");
        all += x.p.workers;
    }
    if (pool.size() < all) tandem::detail::internal_error("executor: a pool for every worker expected");
    detail::failure fail(std::move(interrupt));

    const auto run_sequential = [&](const world_run& x, const step& st) {
        const plan& p = x.p;
        gc::core& main = *x.cores[0];
        for (std::uint32_t l = st.level_begin; l < st.level_end;) {
            // The levels up to the next one split over workers run in one call
            // (their tweaks follow each other: exec/plan.hpp).
            std::uint32_t whole = l;
            while (whole < st.level_end && p.level_parts(c.levels[whole]) == 1) ++whole;
            if (whole > l) main.levels(c, x.label, l, whole, x.first_and + p.level_first_and[l]);
            if ((l = whole) == st.level_end) break;
            const level_range& lv = c.levels[l];  // FGP: part k of the level's ANDs on worker k
            const std::uint64_t first = x.first_and + p.level_first_and[l];
            const std::uint32_t n = p.level_parts(lv);
            pool.run_on_each(n, [&](std::uint32_t k) {
                fail.guard([&] {
                    const auto [b, e] = plan::level_part(lv, k, n);
                    x.cores[k]->ands(c.gates.data(), x.label, b, e, first + (b - lv.and_begin));
                    if (k != 0) x.cores[k]->flush();
                });
            });
            if (fail.happened()) return;
            main.linear(c, x.label, lv.xor_begin, lv.end);
            ++l;
        }
        main.flush();
    };
    const auto run_part = [&](const world_run& x, std::size_t s, std::uint32_t w) {
        const region_data& r = c.regions[c.steps[s].region];
        const step_plan& sp = x.p.steps[s];
        const instance_range part = sp.parts[w];
        if (part.end > part.begin)
            x.cores[w]->instances(r, part.begin, part.end, x.label, x.first_and + sp.instance_first_and[part.begin]);
        x.cores[w]->flush();
    };
    const auto run_task = [&](std::uint32_t t) {
        fail.guard([&] {
            const task& tk = g.tasks[t];
            const world_run& x = worlds[tk.world];
            switch (tk.what) {
            case task::kind::sequential: run_sequential(x, c.steps[tk.step]); return;
            case task::kind::part: run_part(x, tk.step, tk.worker - tk.world * worlds[0].p.workers); return;
            case task::kind::transfers_out:
            case task::kind::transfers_in: transfers(tk.step, tk.world, tk.what); return;
            }
        });
    };
    if (worlds.size() == 1 && worlds[0].p.one_worker) {  // in plan order, on the calling thread: no hand-off
        for (std::uint32_t t = 0; t < g.tasks.size() && !fail.happened(); ++t) run_task(t);
    } else {
        pool.run_graph(g, run_task);
    }
    fail.rethrow();
}

/// Runs every step of c as the plan says, on one world (see world_run).
/// `pool` runs at least p.workers tasks at once (unused when p.one_worker:
/// then the calling thread runs everything).
inline void execute(const plan& p, const circuit_data& c, std::span<gc::core* const> cores,
                    gc::detail::label_array& label, std::uint64_t first_and, workers& pool,
                    std::function<void()> interrupt = {}) {
    const world_run world{p, cores, label, first_and};
    execute_graph(c, std::span<const world_run>(&world, 1), p.graph, pool, std::move(interrupt), {});
}

namespace detail {
/// Makes one core per worker with make(w), runs the plan on them (on `pool`,
/// or on threads started for the call), and wipes the labels if it fails.
inline void run_cores(const plan& p, const circuit_data& c,
                      const std::function<std::unique_ptr<gc::core>(std::uint32_t)>& make,
                      gc::detail::label_array& label, std::uint64_t first_and, workers* pool,
                      std::function<void()> interrupt) {
    std::vector<std::unique_ptr<gc::core>> cores;
    std::vector<gc::core*> ptrs;
    for (std::uint32_t w = 0; w < p.workers; ++w) {
        cores.push_back(make(w));
        ptrs.push_back(cores.back().get());
    }
    try {
        std::optional<workers> own;  // (its sinks are the caller's: they may block)
        if (pool == nullptr) pool = &own.emplace(p.workers, task_waits::block);
        execute(p, c, std::span<gc::core* const>(ptrs), label, first_and, *pool, std::move(interrupt));
    } catch (...) {
        tandem::detail::wipe_all(label);
        throw;
    }
}
}  // namespace detail

/// Garbles c as the plan says, worker w writing its tables to sinks[w]. With
/// no pool, one is made for this call (a session keeps one for all its runs).
template <tweakable_hash Hash, gc::table_sink Sink>
gc::garbled_outputs garble(const plan& p, const circuit<>& circ, const gc::encoding& input, block hash_start,
                           std::span<Sink* const> sinks, std::uint64_t first_and = 0,
                           workers* pool = nullptr, std::function<void()> interrupt = {}) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input.zero_labels.size(), "garble");
    if (!input.delta.lsb()) throw usage_error("garble: Δ must have lsb 1 (point-and-permute)");
    if (sinks.size() != p.workers) throw usage_error("exec::garble: one table sink per worker expected");
    check_plan_fits(p, c);
    gc::detail::label_array label = gc::detail::input_slots(c, input.zero_labels);
    detail::run_cores(
        p, c,
        [&](std::uint32_t w) {
            return std::make_unique<gc::garbler_core<Hash, Sink>>(hash_start, input.delta, *sinks[w]);
        },
        label, first_and, pool, std::move(interrupt));
    return gc::detail::finish_garbling(c, label, p.and_gates);
}

/// Evaluates c as the plan says, worker w reading its tables from sources[w];
/// returns the active output labels.
template <tweakable_hash Hash, gc::table_source Source>
std::vector<block> evaluate(const plan& p, const circuit<>& circ, block hash_start, std::span<Source* const> sources,
                            std::span<const block> input_labels, std::uint64_t first_and = 0,
                            workers* pool = nullptr, std::function<void()> interrupt = {}) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input_labels.size(), "evaluate");
    if (sources.size() != p.workers) throw usage_error("exec::evaluate: one table source per worker expected");
    check_plan_fits(p, c);
    gc::detail::label_array label = gc::detail::input_slots(c, input_labels);
    detail::run_cores(
        p, c, [&](std::uint32_t w) { return std::make_unique<gc::evaluator_core<Hash, Source>>(hash_start, *sources[w]); },
        label, first_and, pool, std::move(interrupt));
    return gc::detail::output_labels(c, label);
}

}  // namespace tandem::exec

TANDEM_CRYPTO_END

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/exec/workers_impl.hpp>
#endif
