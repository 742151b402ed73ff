// tandem/detail/handoff.hpp — work handed to a thread of its own, run in
// the order it was handed over.
//
// A pipelined stream's two halves meet here: the function makes the next
// segment (or, eager, the next batch of gates) while a thread of its own
// garbles or evaluates the last one (session/pipelined.hpp; docs/DESIGN.md
// §11). The caller posts jobs; at most `depth` wait, so what is in flight
// stays bounded. A step whose result the caller needs (opening values) runs
// on the caller's thread once every job before it has run: run_here. A
// failure on the thread is rethrown to the caller by its next post, run_here
// or finish, and the jobs still waiting are dropped.
#pragma once

#include <tandem/detail/owned_thread.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <utility>

namespace tandem::detail {

template <class Job>
class handoff {
public:
    /// `run(job)` runs each job on the thread. `interrupt` stops run's
    /// blocking calls (its links): called when the handoff is destroyed with
    /// a job still waiting or running, e.g. because the function failed, so
    /// the thread ends now and not at a deadline. With `reuse`, jobs that
    /// have run are kept (up to `depth`) for recycled(), their buffers'
    /// capacity with them.
    handoff(std::size_t depth, std::function<void(Job&)> run, std::function<void()> interrupt, bool reuse = false)
        : depth_(depth), reuse_(reuse), run_(std::move(run)), interrupt_(std::move(interrupt)),
          thread_([this] { loop(); }) {}
    handoff(const handoff&) = delete;
    handoff& operator=(const handoff&) = delete;
    ~handoff() {
        {
            const std::lock_guard lock(m_);
            stop_ = true;
            if ((busy_ || !waiting_.empty()) && interrupt_) interrupt_();
        }
        cv_.notify_all();
        thread_.join();
    }

    /// Hands `job` to the thread, once fewer than `depth` wait.
    void post(Job&& job) {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return waiting_.size() < depth_ || failure_; });
        if (failure_) std::rethrow_exception(failure_);
        waiting_.push_back(std::move(job));
        lock.unlock();
        cv_.notify_all();
    }

    /// Runs f() on the caller's thread once every job posted has run (the
    /// thread stays away meanwhile); returns what f returns.
    template <class F>
    decltype(auto) run_here(F&& f) {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return (waiting_.empty() && !busy_) || failure_; });
        if (failure_) std::rethrow_exception(failure_);
        busy_ = true;
        lock.unlock();
        struct release {
            handoff& h;
            ~release() {
                {
                    const std::lock_guard l(h.m_);
                    h.busy_ = false;
                }
                h.cv_.notify_all();
            }
        } r{*this};
        return std::forward<F>(f)();
    }

    /// Waits until every job posted has run; rethrows a failure.
    void finish() {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return (waiting_.empty() && !busy_) || failure_; });
        if (failure_) std::rethrow_exception(failure_);
    }

    /// A job that has run (with `reuse`), to be filled again, or a new one.
    Job recycled() {
        const std::lock_guard lock(m_);
        if (spare_.empty()) return Job{};
        Job j = std::move(spare_.back());
        spare_.pop_back();
        return j;
    }

private:
    void loop() {
        std::unique_lock lock(m_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (!waiting_.empty() && !busy_); });
            if (stop_) return;
            Job job = std::move(waiting_.front());
            waiting_.pop_front();
            busy_ = true;
            lock.unlock();
            cv_.notify_all();  // the caller may post the next one now
            std::exception_ptr e;
            try {
                run_(job);
            } catch (...) {
                e = std::current_exception();
            }
            lock.lock();
            busy_ = false;
            if (e && !failure_) {
                failure_ = e;
                waiting_.clear();  // what follows a failure is not run
            }
            if (reuse_ && spare_.size() < depth_) spare_.push_back(std::move(job));
            cv_.notify_all();
        }
    }

    const std::size_t depth_;
    const bool reuse_;
    std::function<void(Job&)> run_;
    std::function<void()> interrupt_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> waiting_;
    std::deque<Job> spare_;
    bool busy_ = false, stop_ = false;
    std::exception_ptr failure_;
    owned_thread thread_;  // last: started once everything above exists
};

}  // namespace tandem::detail
