// tandem/detail/thread_bound.hpp — whether the calling thread runs code
// that must not move to another thread.
//
// A oneTBB task that waits for its peer suspends (net/suspend.hpp), and a
// suspended task may resume on another worker of its arena. Code that keeps
// state in thread_locals cannot move: recording a function (the DSL's active
// builder, dsl/context.hpp) is such code, so while it runs the thread is
// bound, and its waits block the thread instead of suspending the task.
#pragma once

namespace tandem::detail {

/// How many scopes on this thread keep it from suspending (nested scopes add up).
inline thread_local unsigned thread_bound = 0;

/// Whether the calling thread is bound. Not inlined: a waiting task that
/// asks may have resumed on another thread since it last asked, and inline
/// code could reuse the first thread's address of the thread_local
/// (detail/thread_demand.hpp).
[[gnu::noinline]] inline bool thread_is_bound() noexcept { return thread_bound != 0; }

/// Binds the calling thread while alive.
class thread_bound_scope {
public:
    thread_bound_scope() noexcept { ++thread_bound; }
    ~thread_bound_scope() { --thread_bound; }
    thread_bound_scope(const thread_bound_scope&) = delete;
    thread_bound_scope& operator=(const thread_bound_scope&) = delete;
};

}  // namespace tandem::detail
