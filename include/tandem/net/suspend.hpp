// tandem/net/suspend.hpp — a socket wait that parks no thread: the oneTBB
// task that waits suspends (tbb::task::suspend, "resumable tasks"), one
// async_wait and a deadline timer run on an io_context, and whichever ends
// first cancels the other; the second to complete resumes the task, on any
// worker of its arena. Internal: included by the definitions of the TCP
// channel (net/tcp_impl.hpp) and of task conditions
// (net/task_condition_impl.hpp), never by a program's own headers.
//
// Every TCP socket waits this way when its channel is used by a oneTBB task
// on an unbound thread (detail/thread_bound.hpp): an asynchronous session's
// on the user's io_context (tandem/async.hpp), any other — a blocking
// session run inside a user's oneTBB task — on tandem's background I/O
// thread; a task of a session's own arena only when another task of the
// arena needs its thread (detail/thread_demand.hpp). The waits on a
// condition (net/task_condition.hpp: the in-process pair) suspend through
// suspended_wait. Elsewhere a wait blocks its thread, as a
// blocking socket's always did (net/tcp_impl.hpp).
#pragma once

#include <tandem/detail/thread_bound.hpp>
#include <tandem/detail/thread_demand.hpp>
#include <tandem/detail/sanitizers.hpp>
#include <tandem/net/channel.hpp>

#include <asio/error.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>

#include <oneapi/tbb/task.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace tandem::net::detail {

/// Whether a wait on this thread may suspend its task instead of blocking:
/// the thread runs a oneTBB task (of any arena, a user's too) and nothing on
/// it keeps state in thread_locals. A task, not merely a thread of an
/// arena: a thread that once entered an arena stays attached to one after
/// it left (oneTBB's implicit arena), and the function an arena's `execute`
/// runs on the calling thread is no task either; there a wait blocks, as a
/// thread's outside oneTBB does (a suspended wait costs a hand-off through
/// the background thread, which only a thread that has other tasks to run
/// earns back).
/// Never under ThreadSanitizer (detail/sanitizers.hpp).
inline bool can_suspend() noexcept {
    if (TANDEM_THREAD_SANITIZER) return false;
    return !tandem::detail::thread_is_bound() && tbb::task::current_context() != nullptr;
}

/// A task's suspension as its arena sees it (detail/thread_demand.hpp): the
/// task leaves its thread, and once resumed it is a ready task waiting for a
/// thread of its arena until it runs again — perhaps on another thread.
class leaving_thread {
public:
    leaving_thread() noexcept : demand_(tandem::detail::current_demand()) { tandem::detail::set_current_demand(nullptr); }
    ~leaving_thread() {  // (resumed, perhaps on another thread)
        if (demand_) demand_->taken();
        tandem::detail::set_current_demand(demand_);
    }
    leaving_thread(const leaving_thread&) = delete;
    leaving_thread& operator=(const leaving_thread&) = delete;
    /// Resumes the task (once).
    void resume(tbb::task::suspend_point task) const noexcept {
        if (demand_) demand_->ready();
        tbb::task::resume(task);
    }

private:
    tandem::detail::thread_demand* demand_;
};

/// Suspends the calling task until start(handler)'s operation completes or
/// `timeout` passes. Both the operation and `timer` run on `executor` (one
/// strand: their handlers never run at once); cancel() stops the operation
/// when the timer fires first, and finished() runs there once both have
/// completed, before the task resumes. Returns the operation's error code,
/// or nothing when the timeout passed first. Call only where can_suspend().
template <class Executor, class Start, class Cancel, class Finished>
std::optional<asio::error_code> suspend_until(const Executor& executor, asio::steady_timer& timer,
                                              clock::duration timeout, Start start, Cancel cancel, Finished finished) {
    struct state {
        tbb::task::suspend_point task{};
        int pending = 2;
        bool done = false, timed_out = false;
        asio::error_code ec;
        leaving_thread leaving;
    } st;
    const auto finish = [&st, finished] {
        if (--st.pending != 0) return;
        finished();
        st.leaving.resume(st.task);  // (st is not touched after this)
    };
    tbb::task::suspend([&](tbb::task::suspend_point task) {
        st.task = task;
        asio::post(executor, [&st, &timer, timeout, start, cancel, finish] {
            timer.expires_after(timeout);
            timer.async_wait([&st, cancel, finish](const asio::error_code& ec) {
                if (!ec && !st.done) {
                    st.timed_out = true;
                    cancel();
                }
                finish();
            });
            start([&st, &timer, finish](const asio::error_code& ec, auto&&...) {
                st.done = true;
                st.ec = ec;
                timer.cancel();
                finish();
            });
        });
    });
    if (st.timed_out) return std::nullopt;
    return st.ec;
}

/// A task suspended until an event wakes it or its deadline passes — for
/// events that are not descriptors (net/task_condition.hpp). Shared by the task, the notifier and the timer: each
/// holds it while it may touch it.
class suspended_wait {
public:
    explicit suspended_wait(asio::io_context& io) : timer_(io) {}

    /// Suspends the calling task until wake() or `timeout` (then
    /// timed_out()); with no timeout, until wake(). Call only where
    /// can_suspend(), with `self` this object.
    void suspend(const std::shared_ptr<suspended_wait>& self, std::optional<clock::duration> timeout) {
        const leaving_thread leaving;
        leaving_ = &leaving;
        tbb::task::suspend([&](tbb::task::suspend_point task) {
            point_ = task;
            if (timeout)
                asio::post(timer_.get_executor(), [self, timeout] {
                    self->timer_.expires_after(*timeout);
                    self->timer_.async_wait([self](const asio::error_code& ec) {
                        if (!ec) self->wake(timed_out_state);
                    });
                });
            // A wake before this point could not resume the task (it had no
            // point yet): then it is resumed here.
            int expected = setting_up;
            if (!state_.compare_exchange_strong(expected, suspended)) leaving.resume(task);
        });
        if (timeout) asio::post(timer_.get_executor(), [self] { self->timer_.cancel(); });  // (its handler then does nothing)
    }
    /// Wakes the task (once, whoever comes first).
    void wake() noexcept { wake(woken); }
    bool timed_out() const noexcept { return state_.load(std::memory_order_acquire) == timed_out_state; }

private:
    static constexpr int setting_up = 0, suspended = 1, woken = 2, timed_out_state = 3;
    void wake(int why) noexcept {
        for (int s = state_.load(std::memory_order_acquire); s < woken;)
            if (state_.compare_exchange_weak(s, why, std::memory_order_acq_rel)) {
                if (s == suspended) leaving_->resume(point_);
                return;
            }
    }
    asio::steady_timer timer_;
    tbb::task::suspend_point point_{};
    const leaving_thread* leaving_ = nullptr;  // (set before point_, by the task)
    std::atomic<int> state_{setting_up};
};

/// tandem's background I/O: one io_context, run by one thread that starts
/// at the first wait it serves and lives as long as the process (it is
/// never destroyed, so that no socket of a static object outlives it).
struct background_io {
    asio::io_context io{1};  // (concurrency hint: one thread runs it)
    std::once_flag started;

    asio::io_context& running() {
        std::call_once(started, [this] {
            std::thread([this] {
                const auto keep = asio::make_work_guard(io);
                io.run();
            }).detach();
        });
        return io;
    }
};

inline background_io& background() {
    static background_io* const b = new background_io;  // never destroyed: see above
    return *b;
}

}  // namespace tandem::net::detail
