// tandem/net/task_condition_impl.hpp — the definitions of
// net/task_condition.hpp. Included at the end of task_condition.hpp when
// tandem is used header-only; compiled once into the library, by
// src/net.cpp, when TANDEM_SEPARATE_COMPILATION is defined.
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/net/suspend.hpp>
#include <tandem/net/task_condition.hpp>

#include <algorithm>

namespace tandem::net::detail {

TANDEM_INLINE bool task_condition::wait(std::unique_lock<std::mutex>& lock,
                                        std::optional<std::chrono::milliseconds> timeout,
                                        const std::function<bool()>& ready) {
    if (!can_suspend()) {
        if (timeout) return cv_.wait_for(lock, *timeout, ready);
        cv_.wait(lock, ready);
        return true;
    }
    std::optional<clock::time_point> deadline;
    if (timeout) deadline = clock::now() + *timeout;
    while (!ready()) {
        std::optional<clock::duration> left;
        if (deadline) {
            const clock::time_point now = clock::now();
            if (now >= *deadline) return false;
            left = *deadline - now;
        }
        auto waiting = std::make_shared<suspended_wait>(background().running());
        suspended_.push_back(waiting);
        lock.unlock();
        waiting->suspend(waiting, left);
        lock.lock();
        std::erase(suspended_, waiting);  // (gone already if a notify woke it)
        if (waiting->timed_out() && !ready()) return false;
    }
    return true;
}

TANDEM_INLINE void task_condition::notify_all() noexcept {
    cv_.notify_all();
    for (const auto& waiting : suspended_) waiting->wake();
    suspended_.clear();
}

}  // namespace tandem::net::detail
