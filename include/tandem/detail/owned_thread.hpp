// tandem/detail/owned_thread.hpp — the threads tandem starts, counted.
//
// A session's worker threads and a pipelined stream's runner are
// owned_threads: a std::thread that counts itself in `threads_running()`
// from its start until it is joined. Every owner joins in its destructor, so
// the count is 0 whenever no session or stream is alive; a value above 0 then
// means an owner was never destroyed (a leak). The fault matrix
// (tests/faults.cpp) checks exactly that after every injected failure:
// counting the process's threads cannot tell a leaked thread from one a
// library in the same process started and keeps (oneTBB's pool, when tandem
// used it, grew mid-matrix under ThreadSanitizer and lived as long as the
// process).
#pragma once

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
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

/// The first exception of several threads working together: the one that
/// failed first, not those its clean-up (interrupted links) caused in the others.
class first_failure {
public:
    /// Keeps e if it is the first; returns whether it was.
    bool keep(std::exception_ptr e) {
        const std::lock_guard lock(m_);
        if (first_) return false;
        first_ = std::move(e);
        return true;
    }
    /// Rethrows the first exception kept, if any (after all threads are joined).
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::mutex m_;
    std::exception_ptr first_;
};

}  // namespace tandem::detail
