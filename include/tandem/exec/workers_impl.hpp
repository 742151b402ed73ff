// tandem/exec/workers_impl.hpp — the definitions of exec::workers
// (exec/executor.hpp), on oneTBB. Included at the end of executor.hpp when
// tandem is used header-only; compiled once into the library, by
// src/async.cpp, when TANDEM_SEPARATE_COMPILATION is defined (so programs
// that include tandem.hpp parse none of oneTBB).
//
// Under ThreadSanitizer every task has a thread of its own, as tasks that
// cannot suspend do; under AddressSanitizer every task outside a user's
// arena (detail/sanitizers.hpp).
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/detail/owned_thread.hpp>
#include <tandem/detail/thread_demand.hpp>
#include <tandem/detail/sanitizers.hpp>
#include <tandem/detail/worker_budget.hpp>
#include <tandem/exec/executor.hpp>

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace tandem::exec {

namespace detail {
/// Per task of g, how many tasks it still waits for (counted down as they end).
inline std::unique_ptr<std::atomic<std::uint32_t>[]> tasks_left(const task_graph& g) {
    auto left = std::make_unique<std::atomic<std::uint32_t>[]>(g.tasks.size());
    for (std::size_t t = 0; t < g.tasks.size(); ++t) left[t].store(g.waits_for[t], std::memory_order_relaxed);
    return left;
}
}  // namespace detail

struct workers::impl {
    explicit impl(std::uint32_t n) : budget(n - 1), arena(static_cast<int>(n), 1) {}
    tandem::detail::worker_budget budget;  // the n - 1 workers the arena adds to the process
    tbb::task_arena arena;                 // n threads, one of them the caller (made at its first use)
    tandem::detail::thread_demand demand;  // its tasks that wait for a thread
};

TANDEM_INLINE workers::workers(std::uint32_t n, task_waits waits) : n_(n), waits_(waits) {
    if (TANDEM_THREAD_SANITIZER) waits_ = task_waits::block;
}

TANDEM_INLINE workers::impl* workers::own_arena() {
    // Made at the first run outside a user's task: a session whose runs all
    // are tasks of a user's arena (an asynchronous session's) never adds
    // workers to the process.
    if (!impl_ && waits_ == task_waits::suspend && n_ > 1 && !TANDEM_ADDRESS_SANITIZER)
        impl_ = std::make_unique<impl>(n_);
    return impl_.get();
}

TANDEM_INLINE workers::~workers() = default;

TANDEM_INLINE bool workers::in_users_task() const noexcept {
    // (or a node of the session's own graph, whose fan-outs join its arena)
    return waits_ == task_waits::suspend && tbb::task::current_context() != nullptr;
}

TANDEM_INLINE void workers::run_on_each(std::uint32_t n, const std::function<void(std::uint32_t)>& f) {
    if (n > n_) tandem::detail::internal_error("workers: more tasks than workers");
    if (n == 1) {
        f(0);
        return;
    }
    if (in_users_task()) {
        // Called from a task: a node of the session's graph (FGP) fans out
        // on the same arena, counted like it; a user's task on the user's
        // arena (one pool, no oversubscription), counted where its arena is
        // an async_runtime's, whose waits otherwise suspend (no count).
        spawn_and_wait(n, f, tandem::detail::current_demand());
        return;
    }
    impl* const own = own_arena();
    if (!own) {  // tasks that block: a thread each
        tandem::detail::run_together(n, [&f](std::size_t k) { f(static_cast<std::uint32_t>(k)); }, [] {});
        return;
    }
    // The session's arena; the caller joins it until all are done.
    own->arena.execute([&] { spawn_and_wait(n, f, &own->demand); });
}

TANDEM_INLINE void workers::spawn_and_wait(std::uint32_t n, const std::function<void(std::uint32_t)>& f,
                                           tandem::detail::thread_demand* demand) {
    // Isolated: while this thread waits for the group it runs only the
    // group's tasks. Otherwise it could take up an unrelated task (a user's)
    // on top of the one that waits here, and if that task waited for
    // something only this group's end brings, neither would go on.
    tandem::detail::thread_demand* const callers = tandem::detail::current_demand();
    tbb::this_task_arena::isolate([&] {
        tbb::task_group tasks;
        for (std::uint32_t k = 0; k < n; ++k) {
            if (demand) demand->ready();
            tasks.run([&f, demand, k] {
                if (demand) demand->taken();
                tandem::detail::set_current_demand(demand);
                f(k);  // (may suspend, and end on another thread)
                tandem::detail::set_current_demand(nullptr);  // (the thread may go to another arena)
            });
        }
        tasks.wait();
    });
    // The waiting thread may have run some of the tasks, which left it with
    // no count: the caller's, if it is a task (it never moved while it waited).
    tandem::detail::set_current_demand(callers);
}

TANDEM_INLINE void workers::run_graph(const task_graph& g, const std::function<void(std::uint32_t)>& f) {
    if (in_users_task()) {
        flow(g, f, tandem::detail::current_demand());  // on the user's arena (above)
    } else if (impl* const own = own_arena()) {
        own->arena.execute([&] { flow(g, f, &own->demand); });
    } else {
        walk(g, f);
    }
}

TANDEM_INLINE void workers::flow(const task_graph& g, const std::function<void(std::uint32_t)>& f,
                                 tandem::detail::thread_demand* demand) {
    using tbb::flow::continue_msg;
    const auto n = static_cast<std::uint32_t>(g.tasks.size());
    // The graph counts what each node waits for; `left` counts it again only
    // to tell `demand` the moment a task becomes ready (the graph does not say).
    const auto left = demand ? detail::tasks_left(g) : nullptr;
    tandem::detail::thread_demand* const callers = tandem::detail::current_demand();
    tbb::this_task_arena::isolate([&] {  // (isolated: see spawn_and_wait)
        tbb::flow::graph graph;
        std::vector<tbb::flow::continue_node<continue_msg>> nodes;
        nodes.reserve(n);
        for (std::uint32_t t = 0; t < n; ++t)
            nodes.emplace_back(graph, [&f, &g, &left, demand, t](const continue_msg&) {
                if (demand) demand->taken();
                tandem::detail::set_current_demand(demand);
                f(t);  // (may suspend, and end on another thread)
                tandem::detail::set_current_demand(nullptr);
                if (demand)
                    for (const std::uint32_t s : g.successors(t))
                        if (left[s].fetch_sub(1, std::memory_order_acq_rel) == 1) demand->ready();
                return continue_msg();
            });
        for (std::uint32_t t = 0; t < n; ++t)
            for (const std::uint32_t s : g.successors(t)) tbb::flow::make_edge(nodes[t], nodes[s]);
        for (std::uint32_t t = 0; t < n; ++t) {
            if (g.waits_for[t] != 0) continue;
            if (demand) demand->ready();
            nodes[t].try_put(continue_msg());
        }
        graph.wait_for_all();
    });
    tandem::detail::set_current_demand(callers);  // (as in spawn_and_wait)
}

TANDEM_INLINE void workers::walk(const task_graph& g, const std::function<void(std::uint32_t)>& f) {
    const auto n = static_cast<std::uint32_t>(g.tasks.size());
    const auto left = detail::tasks_left(g);
    std::atomic<std::uint64_t> finished{0};  // tasks done (or the walk stopped): what a waiting worker waits on
    std::atomic<bool> stop{false};           // a worker's thread could not be started
    const auto wake = [&] {
        finished.fetch_add(1, std::memory_order_acq_rel);
        finished.notify_all();
    };
    tandem::detail::run_together(
        n_,
        [&](std::size_t w) {
            for (std::uint32_t t = 0; t < n; ++t) {
                if (g.tasks[t].worker != w) continue;
                for (;;) {
                    const std::uint64_t seen = finished.load(std::memory_order_acquire);
                    if (left[t].load(std::memory_order_acquire) == 0) break;
                    if (stop.load(std::memory_order_acquire)) return;
                    finished.wait(seen, std::memory_order_acquire);
                }
                f(t);
                for (const std::uint32_t s : g.successors(t)) left[s].fetch_sub(1, std::memory_order_acq_rel);
                wake();
            }
        },
        [&] {
            stop.store(true, std::memory_order_release);
            wake();
        });
}

}  // namespace tandem::exec
