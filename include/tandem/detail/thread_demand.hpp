// tandem/detail/thread_demand.hpp — whether a task of one of tandem's own
// oneTBB arenas is waiting for a thread.
//
// A session's workers run on an arena of its own (exec/workers_impl.hpp).
// When one of its tasks waits for the peer, it can block its thread, as the
// session's dedicated threads always did — one wake-up when the bytes
// arrive — or suspend (net/suspend.hpp), which frees the thread but costs a
// hand-off through the background I/O thread and a oneTBB worker spinning
// for the task's return (measured: 6–34 % slower two-worker runs, DESIGN
// §8). Blocking is only wrong when another task of the arena is ready and
// has no thread: then the blocked one might hold the thread that task
// needs. So the arena counts its ready tasks that have no thread yet (one
// submitted, or one resumed), and a blocked wait also watches the count's
// descriptor, readable exactly while the count is above 0: when it becomes
// readable, the wait suspends and its thread runs the ready task.
//
// An async_runtime's arena (tandem/async.hpp) counts its tasks the same way,
// and its operations in flight: a session alone on the runtime answers its
// peer with one wake-up, as a blocking session does, and while several are
// in flight every wait suspends, as before.
//
// `current_demand()` is the count of the arena whose task the calling thread
// runs (null outside tandem's arenas: in a user's arena every wait
// suspends, since a user's tasks are not counted).
#pragma once

#include <tandem/error.hpp>

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace tandem::detail {

class thread_demand {
public:
    thread_demand() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (fd_ < 0) throw error("cannot make an eventfd for a session's workers (out of descriptors?)");
    }
    thread_demand(const thread_demand&) = delete;
    thread_demand& operator=(const thread_demand&) = delete;
    ~thread_demand() { ::close(fd_); }

    /// A task became ready and has no thread yet.
    void ready() noexcept {
        std::lock_guard lock(m_);
        if (count_++ == 0) {
            const std::uint64_t one = 1;
            (void)!::write(fd_, &one, sizeof one);
        }
    }
    /// A ready task got its thread.
    void taken() noexcept {
        std::lock_guard lock(m_);
        if (--count_ == 0) {
            std::uint64_t drained;
            (void)!::read(fd_, &drained, sizeof drained);
        }
    }
    /// Readable exactly while a ready task has no thread (poll it with the
    /// descriptor a wait waits for).
    int fd() const noexcept { return fd_; }

    /// An async_runtime's operation (a session's set-up or run, with all
    /// its tasks) began or ended. While several are in flight, their waits
    /// suspend at once: one of the others may resume at any moment, and a
    /// blocked wait would first have to wake to give it the thread.
    void operation_began() noexcept { operations_.fetch_add(1, std::memory_order_relaxed); }
    void operation_ended() noexcept { operations_.fetch_sub(1, std::memory_order_relaxed); }
    /// Whether a wait may block its thread (see above; always, in a session's own arena).
    bool may_block() const noexcept { return operations_.load(std::memory_order_relaxed) <= 1; }

private:
    std::atomic<int> operations_{0};
    std::mutex m_;
    unsigned count_ = 0;  // (guarded by m_, which keeps fd_'s state equal to count_ > 0)
    int fd_;
};

namespace demand_slot {
inline thread_local thread_demand* value = nullptr;
}

/// The arena count of the task this thread runs (see above), read and set
/// only through these two functions, which are never inlined: a task that
/// suspends may resume on another thread, and code that accessed the
/// thread_local inline could reuse the first thread's address of it after
/// the switch (a compiler assumes a function stays on one thread). Found
/// when the first version, which wrote it inline, left a thread pointing at
/// an arena that was gone.
[[gnu::noinline]] inline thread_demand* current_demand() noexcept { return demand_slot::value; }
[[gnu::noinline]] inline void set_current_demand(thread_demand* d) noexcept { demand_slot::value = d; }

}  // namespace tandem::detail
