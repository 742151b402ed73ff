// tandem/net/task_condition.hpp — a condition variable that oneTBB tasks
// wait on without holding their thread.
//
// A thread that is not a oneTBB task (or one that may not move:
// detail/thread_bound.hpp) waits on it as on a std::condition_variable; a
// task suspends (net/suspend.hpp) and is resumed by the notify, so that its
// thread runs other tasks meanwhile — among them, perhaps, the one that
// will notify. Used by the in-process pair's byte queues (net/memory.hpp).
// Definitions in net/task_condition_impl.hpp (they need oneTBB and Asio).
#pragma once

#include <tandem/detail/linkage.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace tandem::net::detail {

class suspended_wait;

class task_condition {
public:
    /// Waits, with the caller's mutex held by `lock`, until ready() or
    /// `timeout` passes (false then); with no timeout, until ready().
    bool wait(std::unique_lock<std::mutex>& lock, std::optional<std::chrono::milliseconds> timeout,
              const std::function<bool()>& ready);
    /// Wakes every waiter (the caller's mutex held).
    void notify_all() noexcept;

private:
    std::condition_variable cv_;                               // threads waiting
    std::vector<std::shared_ptr<suspended_wait>> suspended_;  // and tasks
};

}  // namespace tandem::net::detail

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/net/task_condition_impl.hpp>
#endif
