// tandem/detail/thread_sanitizer.hpp — TANDEM_THREAD_SANITIZER is 1 in a
// build under ThreadSanitizer (GCC's and Clang's ways of saying so).
//
// There nothing of tandem's runs on oneTBB: oneTBB, as Debian ships it, is
// not instrumented — the sanitizer sees none of its hand-offs, and reports
// its per-thread set-up (memory it frees at a thread's exit and hands the
// next new thread) as races — and a suspended task's stack is switched where
// the sanitizer cannot follow. So a stage's tasks get a thread each
// (exec/workers_impl.hpp) and no wait asks oneTBB whether it runs in a task
// (net/suspend.hpp). That keeps what the sanitizer checks: tandem's own
// sharing between threads.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define TANDEM_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TANDEM_THREAD_SANITIZER 1
#endif
#endif
#ifndef TANDEM_THREAD_SANITIZER
#define TANDEM_THREAD_SANITIZER 0
#endif
