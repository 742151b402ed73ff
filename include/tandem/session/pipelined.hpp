// tandem/session/pipelined.hpp — a streamed run's segments garbled or
// evaluated on a thread of their own while the function records the next
// (session_options::pipeline_streams; docs/DESIGN.md §11).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/detail/owned_thread.hpp>
#include <tandem/error.hpp>

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace tandem::detail {

/// The CPUs this process may run on: its affinity mask where the OS gives
/// one (taskset, a container's cpuset), else the machine's count; at least 1.
inline unsigned usable_cpus() noexcept {
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

/// session_options::pipeline_streams left unset: pipeline where each party
/// has two cores of its own — `cpus` of this process's, shared with the
/// peer where it runs on this host. (With one core per party the recorder
/// and the runner take turns, and gain nothing: bench/RESULTS.md, issue 28.)
constexpr bool pipelining_pays(unsigned cpus, bool peer_on_this_host) noexcept {
    return cpus >= (peer_on_this_host ? 4u : 2u);
}

/// Runs another runner's segments on a thread of its own, so that segment
/// k + 1 is recorded while segment k is garbled or evaluated (docs/DESIGN.md §11).
/// At most one segment waits; a segment that opens values is run after the
/// ones before it, on the caller's thread, since the caller needs its bits.
/// A failure on the thread is rethrown by the next run() or by finish().
/// The inner runner is used by one thread at a time (handed over under the
/// mutex), and it owns everything a segment touches (labels, links), so the
/// recorder and the runner share nothing else.
class pipelined_runner final : public segment_runner {
public:
    /// `interrupt` stops the inner runner's blocking calls (its links): called
    /// when this runner is destroyed with a segment still running, e.g. when
    /// the function failed, so that the thread ends now, not at a deadline.
    pipelined_runner(segment_runner& inner, std::function<void()> interrupt)
        : inner_(inner), interrupt_(std::move(interrupt)), thread_([this] { loop(); }) {}
    pipelined_runner(const pipelined_runner&) = delete;
    pipelined_runner& operator=(const pipelined_runner&) = delete;
    ~pipelined_runner() {
        {
            const std::lock_guard lock(m_);
            stop_ = true;
            if ((busy_ || pending_) && interrupt_) interrupt_();
        }
        cv_.notify_all();
        thread_.join();
    }

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return !pending_ || failure_; });
        if (failure_) std::rethrow_exception(failure_);
        if (s.open) {
            cv_.wait(lock, [&] { return !busy_ || failure_; });
            if (failure_) std::rethrow_exception(failure_);
            busy_ = true;  // the thread stays away while the caller runs it
            lock.unlock();
            struct release {
                pipelined_runner& p;
                ~release() {
                    const std::lock_guard l(p.m_);
                    p.busy_ = false;
                }
            } r{*this};
            return inner_.run(std::move(s));
        }
        next_ = std::move(s);
        pending_ = true;
        lock.unlock();
        cv_.notify_all();
        return std::nullopt;
    }

    /// Waits until every segment handed over has run; rethrows a failure.
    void finish() {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return (!pending_ && !busy_) || failure_; });
        if (failure_) std::rethrow_exception(failure_);
    }

private:
    void loop() {
        std::unique_lock lock(m_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (pending_ && !busy_); });
            if (stop_) return;
            stream_segment s = std::move(next_);
            pending_ = false;
            busy_ = true;
            lock.unlock();
            cv_.notify_all();  // the recorder may hand over the next one now
            std::exception_ptr e;
            try {
                (void)inner_.run(std::move(s));
            } catch (...) {
                e = std::current_exception();
            }
            lock.lock();
            busy_ = false;
            if (e && !failure_) failure_ = e;
            cv_.notify_all();
        }
    }

    segment_runner& inner_;
    std::function<void()> interrupt_;
    std::mutex m_;
    std::condition_variable cv_;
    stream_segment next_;
    bool pending_ = false, busy_ = false, stop_ = false;
    std::exception_ptr failure_;
    owned_thread thread_;  // last: started once everything above exists
};

}  // namespace tandem::detail
