// Two-party benchmark plumbing shared by bench_two_party, bench_cgp, …: this
// process is Alice and starts a copy of itself as Bob; both start each timed
// part together and swap their figures (docs/BENCH.md: one command
// gives one figure, the slower party's).
#pragma once

#include <tandem/session.hpp>

#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace bench {

/// Pins this process to one core (when the machine has two or more).
inline void pin_to_cores(int first, int count) {
    if (std::thread::hardware_concurrency() < 2) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = first; c < first + count; ++c) CPU_SET(c, &set);
    sched_setaffinity(0, sizeof set, &set);
}
inline void pin_to_core(int core) { pin_to_cores(core, 1); }

/// Both parties start the timed part together: Alice pings, Bob answers.
inline void barrier(tandem::session& s) {
    tandem::net::channel& ch = s.channel();
    if (s.me() == tandem::party::alice) {
        ch.send_value(std::uint8_t{1});
        (void)ch.recv_value<std::uint8_t>();
    } else {
        (void)ch.recv_value<std::uint8_t>();
        ch.send_value(std::uint8_t{2});
        ch.flush();
    }
}

/// Exchanges a figure: returns the peer's.
inline double swap_figure(tandem::session& s, double mine) {
    tandem::net::channel& ch = s.channel();
    ch.send_value(mine);
    return ch.recv_value<double>();
}

/// Starts this program again with `args` (argv[0] first); returns its pid.
inline pid_t spawn_self(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0)
        throw std::runtime_error("cannot start the bob process");
    return pid;
}

/// Waits for a child; true if it exited with status 0.
inline bool wait_ok(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace bench
