// tandem/net/memory_impl.hpp — the waits of the in-process pair
// (net/memory.hpp). Included at the end of memory.hpp when tandem is used
// header-only; compiled once into the library, by src/net.cpp, when
// TANDEM_SEPARATE_COMPILATION is defined (they need oneTBB and Asio).
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/net/suspend.hpp>

#include <algorithm>

namespace tandem::net::detail {

TANDEM_INLINE bool wait_on(memory_pipe& pipe, std::unique_lock<std::mutex>& lock, std::chrono::milliseconds timeout,
                           const std::function<bool()>& ready) {
    if (!can_suspend()) return pipe.cv.wait_for(lock, timeout, ready);
    const clock::time_point deadline = clock::now() + timeout;
    while (!ready()) {
        const clock::time_point now = clock::now();
        if (now >= deadline) return false;
        auto wait = std::make_shared<suspended_wait>(background().running());
        pipe.suspended.push_back(wait);
        lock.unlock();
        wait->suspend(wait, deadline - now);
        lock.lock();
        std::erase(pipe.suspended, wait);  // (gone already if a notify woke it)
        if (wait->timed_out() && !ready()) return false;
    }
    return true;
}

TANDEM_INLINE void notify(memory_pipe& pipe) noexcept {
    pipe.cv.notify_all();
    for (const auto& wait : pipe.suspended) wait->wake();
    pipe.suspended.clear();
}

}  // namespace tandem::net::detail
