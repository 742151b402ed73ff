// tandem/detail/owned_thread.hpp — the threads tandem starts, counted.
//
// The threads tandem starts itself — a run's workers where their tasks
// cannot suspend (exec/workers_impl.hpp), a pipelined stream's runner —
// are owned_threads: a std::thread that counts itself in `threads_running()`
// from its start until it is joined. Every owner joins in its destructor, so
// the count is 0 whenever no session or stream is alive; a value above 0 then
// means an owner was never destroyed (a leak). The fault matrix
// (tests/faults.cpp) checks exactly that after every injected failure:
// counting the process's threads cannot tell a leaked thread from one a
// library in the same process started and keeps (oneTBB's pool, which runs
// the sessions' arenas, lives as long as the process).
#pragma once

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#include <utility>

namespace tandem::detail {

/// Threads tandem has started and not yet joined.
inline std::atomic<int>& threads_running() noexcept {
    static std::atomic<int> n{0};
    return n;
}

/// A started, counted thread; join() must be called before destruction.
class owned_thread {
public:
    owned_thread() noexcept = default;
    template <class F>
    explicit owned_thread(F&& f) {
        threads_running().fetch_add(1, std::memory_order_relaxed);
        try {
            t_ = std::thread(std::forward<F>(f));
        } catch (...) {
            threads_running().fetch_sub(1, std::memory_order_relaxed);
            throw;
        }
    }
    owned_thread(owned_thread&&) noexcept = default;
    owned_thread& operator=(owned_thread&&) noexcept = default;

    void join() {
        if (!t_.joinable()) return;
        t_.join();
        threads_running().fetch_sub(1, std::memory_order_release);
    }

private:
    std::thread t_;
};

/// Runs body(k) for k in [0, n) at once, body(0) on the calling thread and
/// each other on an owned_thread of its own; returns when all are done. The
/// first body to throw calls `interrupt` (so the others' blocking link calls
/// end now, not at their deadline), and its exception — not those the
/// interruption then caused in the others — is rethrown once all are joined.
/// A thread that cannot be started calls `interrupt` too, before the bodies
/// started are joined (they may be waiting for the one that never runs).
template <class Body, class Interrupt>
void run_together(std::size_t n, Body&& body, Interrupt&& interrupt) {
    std::mutex m;
    std::exception_ptr first;
    const auto guarded = [&](std::size_t k) {
        try {
            body(k);
        } catch (...) {
            {
                const std::lock_guard lock(m);
                if (first) return;
                first = std::current_exception();
            }
            interrupt();
        }
    };
    {
        std::vector<owned_thread> threads;
        if (n > 1) threads.reserve(n - 1);
        try {
            for (std::size_t k = 1; k < n; ++k) threads.emplace_back([&guarded, k] { guarded(k); });
        } catch (...) {  // no thread to be had: those started are stopped, and finish first
            interrupt();
            for (owned_thread& t : threads) t.join();
            throw;
        }
        guarded(0);
        for (owned_thread& t : threads) t.join();
    }
    if (first) std::rethrow_exception(first);
}

}  // namespace tandem::detail
