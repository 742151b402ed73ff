// tandem/detail/worker_budget.hpp — how many oneTBB workers tandem's own
// arenas bring to the process.
//
// oneTBB starts at most (hardware threads - 1) workers, shared by every
// arena of the process (tbb::global_control's max_allowed_parallelism).
// tandem's arenas — a session's workers (exec/workers_impl.hpp), an
// asynchronous runtime (session/async_impl.hpp) — hold threads a user's
// program did not count on: a session's tasks may block their threads while
// they wait for the peer (detail/thread_demand.hpp), as its dedicated
// threads did before its workers ran on oneTBB. So each arena raises the
// limit by the workers it needs while it lives, and the process keeps one
// control variable at (hardware threads + their sum). oneTBB applies the
// smallest of all live control variables: a user's lower limit still wins
// (and then the tasks suspend where threads are short; nothing deadlocks).
// Internal: included by the definitions above, never by a program's headers.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>

#include <cstddef>
#include <mutex>
#include <memory>

namespace tandem::detail {

class worker_budget {
public:
    /// Raises the limit by `workers` while alive.
    explicit worker_budget(std::size_t workers) : workers_(workers) { change(static_cast<long>(workers)); }
    ~worker_budget() { change(-static_cast<long>(workers_)); }
    worker_budget(const worker_budget&) = delete;
    worker_budget& operator=(const worker_budget&) = delete;

private:
    struct process {
        std::mutex m;
        std::size_t extra = 0;
        std::unique_ptr<tbb::global_control> control;
    };
    static process& shared() {
        static process* const p = new process;  // never destroyed: sessions may outlive static destruction
        return *p;
    }
    static void change(long by) {
        process& p = shared();
        std::lock_guard lock(p.m);
        p.extra = static_cast<std::size_t>(static_cast<long>(p.extra) + by);
        std::unique_ptr<tbb::global_control> next;
        if (p.extra > 0)
            next = std::make_unique<tbb::global_control>(
                tbb::global_control::max_allowed_parallelism,
                static_cast<std::size_t>(tbb::info::default_concurrency()) + p.extra);
        p.control.swap(next);  // the old one goes after the new one exists
    }
    std::size_t workers_;
};

}  // namespace tandem::detail
