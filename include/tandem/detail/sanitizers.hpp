// tandem/detail/sanitizers.hpp — TANDEM_THREAD_SANITIZER and
// TANDEM_ADDRESS_SANITIZER are 1 in a build under ThreadSanitizer and
// AddressSanitizer (GCC's and Clang's ways of saying so), else 0.
//
// Neither can follow a oneTBB task that suspends: its stack is switched
// inside oneTBB (not instrumented, as Debian ships it), where neither
// sanitizer is told. ThreadSanitizer then loses the thread a task runs on;
// AddressSanitizer keeps the shadow of frames it saw left on a stack that a
// later task reuses, and reports the task's own locals as used after their
// scope (it warns "false positive error reports may follow").
//
// Under ThreadSanitizer nothing of tandem's runs on oneTBB: oneTBB's hand-offs
// are invisible to it, and it reports oneTBB's per-thread set-up (memory
// freed at a thread's exit and handed to the next new thread) as races. So a
// stage's tasks get a thread each (exec/workers_impl.hpp) and no wait asks
// oneTBB whether it runs in a task (net/suspend.hpp). Under AddressSanitizer
// a session's own tasks get a thread each too — they suspend only to make
// room on a full arena, which threads do not need — while a user's tasks
// still suspend where they wait (the asynchronous sessions rely on it, and
// are checked there). Both keep what the sanitizers check: tandem's own
// sharing between threads and its own memory.
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

#if defined(__SANITIZE_ADDRESS__)
#define TANDEM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TANDEM_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef TANDEM_ADDRESS_SANITIZER
#define TANDEM_ADDRESS_SANITIZER 0
#endif
