// tandem/exec/executor.hpp — runs a plan on a oneTBB flow graph.
//
// One graph node per task of the plan: a sequential step is one task (on
// worker 0; its wide levels fan out to the other workers, FGP), a region step
// one task per worker (its part of the instances). A step's tasks start when
// every task of the step before has finished: the steps share one label
// array whose slots are reused step after step (circuit/layout.hpp), so a
// step depends on its predecessor through data and through slot reuse alike.
// Within a step nothing is shared but reads: instances write disjoint slots.
//
// Tasks block on sockets, so the graph runs in an arena with a thread per
// worker (even beyond the core count: a blocked task holds its thread).
// The first task to fail records its exception and calls `interrupt`, which
// makes every other blocked task fail at once instead of at its deadline;
// the first exception is rethrown when the graph has drained.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::exec {

namespace detail {

/// The first failure of a graph run, and what to do about the others.
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

/// Calls f() inside an arena of at least `threads` threads.
template <class F>
void in_arena(std::uint32_t threads, F&& f) {
    using tbb::global_control;
    // Allow more threads than cores when asked: tasks blocked on sockets
    // must not starve the ones that would unblock them.
    const auto allowed = static_cast<std::uint32_t>(global_control::active_value(global_control::max_allowed_parallelism));
    std::unique_ptr<global_control> more;
    if (allowed < threads) more = std::make_unique<global_control>(global_control::max_allowed_parallelism, threads);
    tbb::task_arena arena(static_cast<int>(threads), threads > 1 ? 1 : 0);
    arena.execute(std::forward<F>(f));
}

}  // namespace detail

/// Runs every step of c as the plan says. cores[w] is worker w's engine
/// (gc::garbler_core or gc::evaluator_core, bound to link w); `label` holds
/// the circuit's slots with its inputs in front; `first_gate` offsets all
/// tweaks. `interrupt` is called once if any task fails.
template <class Core>
void execute(const plan& p, const circuit_data& c, std::span<Core* const> cores, gc::detail::label_array& label,
             std::uint64_t first_gate, std::function<void()> interrupt = {}) {
    if (cores.size() != p.workers)
        tandem::detail::internal_error("executor: one core per worker expected");
    detail::failure fail(std::move(interrupt));
    const auto flush = [](Core* core) {
        if constexpr (requires { core->flush(); }) core->flush();
    };

    const auto run_sequential = [&](const step& st) {
        Core& main = *cores[0];
        for (std::uint32_t l = st.level_begin; l < st.level_end; ++l) {
            const level_range& lv = c.levels[l];
            const std::uint64_t first = first_gate + p.level_first_and[l];
            const std::uint32_t n = p.level_parts(lv);
            if (n == 1) {
                main.ands(c, label, lv.and_begin, lv.xor_begin, first);
            } else {  // FGP: part k of the level's ANDs on worker k
                tbb::task_group parts;
                for (std::uint32_t k = 1; k < n; ++k)
                    parts.run([&, k] {
                        fail.guard([&] {
                            const auto [b, e] = plan::level_part(lv, k, n);
                            cores[k]->ands(c, label, b, e, first + (b - lv.and_begin));
                            flush(cores[k]);
                        });
                    });
                fail.guard([&] {
                    const auto [b, e] = plan::level_part(lv, 0, n);
                    main.ands(c, label, b, e, first);
                });
                parts.wait();
                if (fail.happened()) return;
            }
            main.linear(c, label, lv.xor_begin, lv.end);
        }
        flush(&main);
    };
    const auto run_part = [&](std::size_t s, std::uint32_t w) {
        const region_data& r = c.regions[c.steps[s].region];
        const step_plan& sp = p.steps[s];
        for (std::uint32_t i = sp.parts[w].begin; i < sp.parts[w].end; ++i)
            cores[w]->instance(r, r.instances[i], label, first_gate + sp.instance_first_and[i]);
        flush(cores[w]);
    };

    detail::in_arena(p.workers, [&] {
        using namespace tbb::flow;
        graph g;
        std::vector<std::unique_ptr<continue_node<continue_msg>>> nodes;
        continue_node<continue_msg>* done_before = nullptr;  // fires when the previous step is done
        std::vector<continue_node<continue_msg>*> first_tasks;
        const auto add = [&](auto&& body) {
            nodes.push_back(std::make_unique<continue_node<continue_msg>>(
                g, [&fail, body](const continue_msg&) { fail.guard(body); }));
            continue_node<continue_msg>* n = nodes.back().get();
            if (done_before) make_edge(*done_before, *n);
            else first_tasks.push_back(n);
            return n;
        };
        for (std::size_t s = 0; s < c.steps.size(); ++s) {
            std::vector<continue_node<continue_msg>*> tasks;
            if (c.steps[s].kind == step_kind::sequential) {
                tasks.push_back(add([&, s] { run_sequential(c.steps[s]); }));
            } else {
                for (std::uint32_t w = 0; w < p.workers; ++w)
                    if (p.steps[s].parts[w].end > p.steps[s].parts[w].begin)
                        tasks.push_back(add([&, s, w] { run_part(s, w); }));
            }
            if (tasks.empty()) continue;
            nodes.push_back(std::make_unique<continue_node<continue_msg>>(g, [](const continue_msg&) {}));
            for (continue_node<continue_msg>* t : tasks) make_edge(*t, *nodes.back());
            done_before = nodes.back().get();
        }
        for (continue_node<continue_msg>* n : first_tasks) n->try_put(continue_msg());
        g.wait_for_all();
    });
    fail.rethrow();
}

/// Garbles c as the plan says, worker w writing its tables to sinks[w].
template <class Hash, gc::table_sink Sink>
gc::garbled_outputs garble(const plan& p, const circuit<>& circ, const gc::encoding& input, block hash_start,
                           std::span<Sink* const> sinks, std::uint64_t first_gate = 0,
                           std::function<void()> interrupt = {}) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input.zero_labels.size(), "garble");
    if (!input.delta.lsb()) throw usage_error("garble: Δ must have lsb 1 (point-and-permute)");
    gc::detail::label_array label = gc::detail::input_slots(c, input.zero_labels);
    std::vector<std::unique_ptr<gc::garbler_core<Hash, Sink>>> cores;
    std::vector<gc::garbler_core<Hash, Sink>*> ptrs;
    for (Sink* s : sinks) {
        cores.push_back(std::make_unique<gc::garbler_core<Hash, Sink>>(hash_start, input.delta, *s));
        ptrs.push_back(cores.back().get());
    }
    try {
        execute(p, c, std::span<gc::garbler_core<Hash, Sink>* const>(ptrs), label, first_gate, std::move(interrupt));
    } catch (...) {
        tandem::detail::wipe_all(label);
        throw;
    }
    return gc::detail::finish_garbling(c, label, p.and_gates);
}

/// Evaluates c as the plan says, worker w reading its tables from sources[w];
/// returns the active output labels.
template <class Hash, gc::table_source Source>
std::vector<block> evaluate(const plan& p, const circuit<>& circ, block hash_start, std::span<Source* const> sources,
                            std::span<const block> input_labels, std::uint64_t first_gate = 0,
                            std::function<void()> interrupt = {}) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input_labels.size(), "evaluate");
    gc::detail::label_array label = gc::detail::input_slots(c, input_labels);
    std::vector<std::unique_ptr<gc::evaluator_core<Hash, Source>>> cores;
    std::vector<gc::evaluator_core<Hash, Source>*> ptrs;
    for (Source* s : sources) {
        cores.push_back(std::make_unique<gc::evaluator_core<Hash, Source>>(hash_start, *s));
        ptrs.push_back(cores.back().get());
    }
    try {
        execute(p, c, std::span<gc::evaluator_core<Hash, Source>* const>(ptrs), label, first_gate,
                std::move(interrupt));
    } catch (...) {
        tandem::detail::wipe_all(label);
        throw;
    }
    return gc::detail::output_labels(c, label);
}

}  // namespace tandem::exec

TANDEM_CRYPTO_END
