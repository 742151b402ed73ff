// tandem/exec/executor.hpp — runs a plan on the session's worker threads.
//
// The plan's steps run one after another: a sequential step is one task (on
// worker 0; its wide levels fan out to the other workers, FGP), a region step
// one task per worker (its part of the instances). A step's tasks start when
// every task of the step before has finished: the steps share one label
// array whose slots are reused step after step (circuit/layout.hpp), so a
// step depends on its predecessor through data and through slot reuse alike.
// Within a step nothing is shared but reads: instances write disjoint slots.
// The dependencies are thus a chain of stages, and the executor is a loop
// that hands each stage's tasks to their workers and waits for them all (a
// flow graph of one node per task, as this was until issue 29, expressed the
// same chain at ~2 s of every including program's compile time).
//
// Tasks block on sockets, so each worker's tasks run on a thread of their
// own: worker 0's on the calling thread, the others' on exec::workers' (a
// pool of fewer threads than blocked tasks could not promise that the tasks
// which would unblock them ever run).
// With IPP (exec/ipp_plan.hpp) the plan also has boundaries, where the
// `boundary` hook runs on worker 0 between two steps: there the session
// re-shares wires between the worlds (session/ipp.hpp).
// The first task to fail records its exception and calls `interrupt`, which
// makes every other blocked task fail at once instead of at its deadline;
// no stage starts after a failure, and the first exception is rethrown
// when the stage running has drained.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/detail/owned_thread.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

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

/// One thread per worker, kept for many runs (a session owns one). Worker w's
/// jobs run on thread w in the order posted.
class workers {
public:
    explicit workers(std::uint32_t n) {
        for (std::uint32_t w = 0; w < n; ++w) {
            threads_.push_back(std::make_unique<thread>());
            thread& t = *threads_.back();
            t.t = tandem::detail::owned_thread([&t] { t.loop(); });
        }
    }
    workers(const workers&) = delete;
    workers& operator=(const workers&) = delete;
    ~workers() {
        for (auto& t : threads_) {
            {
                std::lock_guard lock(t->m);
                t->stop = true;
            }
            t->cv.notify_one();
            t->t.join();
        }
    }
    std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(threads_.size()); }

    /// Runs job on worker w's thread (job must not throw).
    void post(std::uint32_t w, std::function<void()> job) {
        thread& t = *threads_[w];
        {
            std::lock_guard lock(t.m);
            t.jobs.push_back(std::move(job));
            t.pending.store(true, std::memory_order_release);
        }
        t.cv.notify_one();
    }

    /// Runs f(k) for k in [0, n) on workers 0..n-1 at once (f must not
    /// throw); returns when all are done. The caller must be none of them
    /// except worker 0, which it runs itself. FGP calls this once per wide
    /// level, so the hand-off is a spin on an atomic, not a sleep.
    template <class F>
    void run_on_each(std::uint32_t n, F&& f) {
        std::atomic<std::uint32_t> left{n - 1};
        for (std::uint32_t k = 1; k < n; ++k)
            post(k, [&, k] {
                f(k);
                left.fetch_sub(1, std::memory_order_acq_rel);
            });
        f(0);
        while (left.load(std::memory_order_acquire) != 0) pause();
    }

    /// How long an idle worker polls for its next job before it sleeps. Steps
    /// and FGP levels follow each other within microseconds, and waking a
    /// sleeping thread costs ~25 µs on the 2-core development VM (measured:
    /// FGP with sleeping helpers spent 50 µs per level).
    static constexpr std::chrono::microseconds poll_before_sleep{200};

private:
    static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#else
        std::this_thread::yield();
#endif
    }

    struct thread {
        tandem::detail::owned_thread t;
        std::mutex m;
        std::condition_variable cv;
        std::deque<std::function<void()>> jobs;
        std::atomic<bool> pending{false};  // jobs is not empty (read without the lock while polling)
        bool stop = false;
        void loop() {
            for (;;) {
                const auto idle_since = std::chrono::steady_clock::now();
                for (unsigned spins = 0; !pending.load(std::memory_order_acquire); ++spins)
                    if (spins % 64 == 0 && std::chrono::steady_clock::now() - idle_since > poll_before_sleep) break;
                    else pause();
                std::function<void()> job;
                {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return stop || !jobs.empty(); });
                    if (jobs.empty()) return;
                    job = std::move(jobs.front());
                    jobs.pop_front();
                    pending.store(!jobs.empty(), std::memory_order_relaxed);
                }
                job();
            }
        }
    };
    std::vector<std::unique_ptr<thread>> threads_;
};

/// Runs every step of c as the plan says. cores[w] is worker w's engine
/// (a gc::garbler_core or gc::evaluator_core, bound to link w); `label`
/// holds the circuit's slots with its inputs in front; `first_and` offsets
/// all tweaks. `interrupt` is called once if any task fails. `pool` has at
/// least p.workers threads (unused when p.one_worker: then the calling
/// thread runs everything). Not a template: the cores are called per run of
/// levels, per FGP part and per region part, never per gate.
inline void execute(const plan& p, const circuit_data& c, std::span<gc::core* const> cores,
                    gc::detail::label_array& label, std::uint64_t first_and, workers& pool,
                    std::function<void()> interrupt = {}, const std::function<void(std::size_t)>& boundary = {}) {
    if (cores.size() != p.workers || (!p.one_worker && pool.size() < p.workers))
        tandem::detail::internal_error("executor: one core and one thread per worker expected");
    if (!p.hooks.empty() && !boundary) tandem::detail::internal_error("executor: an IPP plan needs a boundary hook");
    detail::failure fail(std::move(interrupt));

    const auto run_sequential = [&](const step& st) {
        gc::core& main = *cores[0];
        for (std::uint32_t l = st.level_begin; l < st.level_end;) {
            // The levels up to the next one split over workers run in one call
            // (their tweaks follow each other: exec/plan.hpp).
            std::uint32_t whole = l;
            while (whole < st.level_end && p.level_parts(c.levels[whole]) == 1) ++whole;
            if (whole > l) main.levels(c, label, l, whole, first_and + p.level_first_and[l]);
            if ((l = whole) == st.level_end) break;
            const level_range& lv = c.levels[l];  // FGP: part k of the level's ANDs on worker k
            const std::uint64_t first = first_and + p.level_first_and[l];
            const std::uint32_t n = p.level_parts(lv);
            pool.run_on_each(n, [&](std::uint32_t k) {
                fail.guard([&] {
                    const auto [b, e] = plan::level_part(lv, k, n);
                    cores[k]->ands(c.gates.data(), label, b, e, first + (b - lv.and_begin));
                    if (k != 0) cores[k]->flush();
                });
            });
            if (fail.happened()) return;
            main.linear(c, label, lv.xor_begin, lv.end);
            ++l;
        }
        main.flush();
    };
    const auto run_part = [&](std::size_t s, std::uint32_t w) {
        const region_data& r = c.regions[c.steps[s].region];
        const step_plan& sp = p.steps[s];
        const instance_range part = sp.parts[w];
        if (part.end > part.begin)
            cores[w]->instances(r, part.begin, part.end, label, first_and + sp.instance_first_and[part.begin]);
        cores[w]->flush();
    };

    // A stage: worker 0's task runs on the calling thread (a sequential step
    // or a boundary is then no hand-off at all; with one worker, nothing
    // is), the others' on their workers' threads, and the stage ends when all
    // are done. The count is
    // guarded by a mutex and the last task notifies under it, so the waiter
    // cannot return, and the count go out of scope, while a task still uses
    // it.
    std::mutex m;
    std::condition_variable cv;
    std::size_t left = 0;
    std::vector<std::pair<std::uint32_t, std::function<void()>>> stage;
    const auto run_stage = [&] {
        std::function<void()> mine;
        {
            std::lock_guard lock(m);
            left = 0;
            for (const auto& task : stage) left += task.first != 0;
        }
        for (auto& [w, body] : stage) {
            if (w == 0) {
                mine = std::move(body);
                continue;
            }
            pool.post(w, [&, body = std::move(body)] {
                fail.guard(body);
                std::lock_guard lock(m);
                if (--left == 0) cv.notify_one();
            });
        }
        stage.clear();
        if (mine) fail.guard(mine);
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return left == 0; });
    };
    const std::size_t n_steps = c.steps.size();
    for (std::size_t s = 0; s <= n_steps && !fail.happened(); ++s) {
        if (p.hooked(s)) {
            stage.emplace_back(0, [&, s] { boundary(s); });
            run_stage();
            if (fail.happened()) break;
        }
        if (s == n_steps) break;
        if (c.steps[s].kind == step_kind::sequential) {
            if (p.steps[s].here) stage.emplace_back(0, [&, s] { run_sequential(c.steps[s]); });
        } else {
            const region_data& r = c.regions[c.steps[s].region];
            const step_plan& sp = p.steps[s];
            for (std::uint32_t w = 0; w < p.workers; ++w) {
                const instance_range part = sp.parts[w];
                if (part.end == part.begin) continue;
                if (w != 0)  // a worker in another process gets its part now (gc::core::hand_over)
                    fail.guard([&] {
                        cores[w]->hand_over(r, part.begin, part.end, label, first_and + sp.instance_first_and[part.begin]);
                    });
                stage.emplace_back(w, [&, s, w] { run_part(s, w); });
            }
            if (fail.happened()) break;
        }
        run_stage();
    }
    fail.rethrow();
}

namespace detail {
/// Makes one core per worker with make(w), runs the plan on them (on `pool`,
/// or on threads made for this call), and wipes the labels if it fails.
inline void run_cores(const plan& p, const circuit_data& c,
                      const std::function<std::unique_ptr<gc::core>(std::uint32_t)>& make,
                      gc::detail::label_array& label, std::uint64_t first_and, workers* pool,
                      std::function<void()> interrupt, const std::function<void(std::size_t)>& boundary = {}) {
    std::vector<std::unique_ptr<gc::core>> cores;
    std::vector<gc::core*> ptrs;
    for (std::uint32_t w = 0; w < p.workers; ++w) {
        cores.push_back(make(w));
        ptrs.push_back(cores.back().get());
    }
    try {
        std::optional<workers> own;
        if (pool == nullptr) pool = &own.emplace(p.one_worker ? 0 : p.workers);
        execute(p, c, std::span<gc::core* const>(ptrs), label, first_and, *pool, std::move(interrupt), boundary);
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
