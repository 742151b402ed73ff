// tandem/exec/workers_impl.hpp — the definitions of exec::workers
// (exec/executor.hpp), on oneTBB. Included at the end of executor.hpp when
// tandem is used header-only; compiled once into the library, by
// src/async.cpp, when TANDEM_SEPARATE_COMPILATION is defined (so programs
// that include tandem.hpp parse none of oneTBB).
//
// Under ThreadSanitizer every task has a thread of its own, as tasks that
// cannot suspend do (detail/thread_sanitizer.hpp).
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/detail/owned_thread.hpp>
#include <tandem/detail/thread_demand.hpp>
#include <tandem/detail/thread_sanitizer.hpp>
#include <tandem/detail/worker_budget.hpp>
#include <tandem/exec/executor.hpp>

#include <oneapi/tbb/task.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <cstddef>

namespace tandem::exec {

struct workers::impl {
    explicit impl(std::uint32_t n) : budget(n - 1), arena(static_cast<int>(n), 1) {}
    tandem::detail::worker_budget budget;  // the n - 1 workers the arena adds to the process
    tbb::task_arena arena;                 // n threads, one of them the caller (made at its first use)
    tandem::detail::thread_demand demand;  // its tasks that wait for a thread
};

TANDEM_INLINE workers::workers(std::uint32_t n, task_waits waits) : n_(n), waits_(waits) {
    if (TANDEM_THREAD_SANITIZER) waits_ = task_waits::block;
    if (waits_ == task_waits::suspend && n > 1) impl_ = std::make_unique<impl>(n);
}

TANDEM_INLINE workers::~workers() = default;

TANDEM_INLINE void workers::run_on_each(std::uint32_t n, const std::function<void(std::uint32_t)>& f) {
    if (n > n_) tandem::detail::internal_error("workers: more tasks than workers");
    if (n == 1) {
        f(0);
        return;
    }
    if (!impl_) {  // tasks that block: a thread each
        tandem::detail::run_together(n, [&f](std::size_t k) { f(static_cast<std::uint32_t>(k)); }, [] {});
        return;
    }
    if (tbb::task::current_context() != nullptr) {
        // Called from a user's task: the user's arena runs ours too (one
        // pool, no oversubscription), and their waits suspend (no count).
        spawn_and_wait(n, f, nullptr);
        return;
    }
    // The session's arena; the caller joins it until all are done.
    impl_->arena.execute([&] { spawn_and_wait(n, f, &impl_->demand); });
}

TANDEM_INLINE void workers::spawn_and_wait(std::uint32_t n, const std::function<void(std::uint32_t)>& f,
                                           tandem::detail::thread_demand* demand) {
    // Isolated: while this thread waits for the group it runs only the
    // group's tasks. Otherwise it could take up an unrelated task (a user's)
    // on top of the one that waits here, and if that task waited for
    // something only this group's end brings, neither would go on.
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
}

}  // namespace tandem::exec
