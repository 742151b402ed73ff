// examples/stream_runner.hpp — the command line of the streamed applications
// (minimum, edit_distance): two parties, a streamed function of any size run
// in bounded memory, a one-line progress bar on stderr when it is a terminal.
//
//   <app> --local [app options] [--segment-ands K] [--seed S]
//   <app> --party alice [--port P] ...    /    <app> --party bob --host <alice> ...
//
// Each party draws its own inputs from the seed through a generator (values
// are made when the function reads them, never all at once). For this demo
// the seed is shared, so each party can also compute the plaintext reference
// and check the garbled result; a real deployment would not.
#pragma once

#include "stream_apps.hpp"
#include "two_party.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

namespace example {

/// Peak resident memory of this process so far, in MiB (getrusage).
inline double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

/// A progress callback drawing one line on stderr, at most 10 times a
/// second, or nothing when stderr is not a terminal.
inline tandem::progress_callback progress_bar(tandem::party me) {
    if (isatty(STDERR_FILENO) == 0) return {};
    std::string who = "[";  // (appended, not "[" + std::string(...): GCC 12 warns falsely on that)
    who.append(tandem::to_string(me)).append("]");
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    return [who, last](const tandem::stream_progress& p) {
        const auto now = std::chrono::steady_clock::now();
        if (now - *last < std::chrono::milliseconds(100)) return;
        *last = now;
        char line[200];
        const double rate = p.ands_per_second() / 1e6;
        if (const auto eta = p.eta_seconds(); eta && p.expected_ands > 0) {
            const double f = std::min(1.0, static_cast<double>(p.and_gates) / static_cast<double>(p.expected_ands));
            const int filled = static_cast<int>(f * 30);
            std::snprintf(line, sizeof line, "\r%s [%.*s%*s] %5.1f%%  %.1f M AND/s  sent %.0f MB  ETA %.0f s ",
                          who.c_str(), filled, "##############################", 30 - filled, "", 100 * f, rate,
                          static_cast<double>(p.bytes_sent) / 1e6, *eta);
        } else {
            std::snprintf(line, sizeof line, "\r%s %.1f M ANDs  %.1f M AND/s  sent %.0f MB ", who.c_str(),
                          static_cast<double>(p.and_gates) / 1e6, rate, static_cast<double>(p.bytes_sent) / 1e6);
        }
        std::fputs(line, stderr);
    };
}

/// Clears the progress line, if one was drawn.
inline void end_progress() {
    if (isatty(STDERR_FILENO) != 0) std::fputs("\r\033[K", stderr);
}

/// Prints a streamed run's report (as report() does) plus its memory.
inline void report_stream(const tandem::session& s, const std::string& result) {
    report(s, result);
    const tandem::run_stats& r = s.last_run();
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << "[" << tandem::to_string(s.me()) << "] " << static_cast<double>(r.and_gates) / r.seconds / 1e6
        << " M AND/s online; peak RSS " << peak_rss_mib() << " MiB\n";
    std::cout << out.str() << std::flush;
}

/// A 64-bit mix of (seed, stream, i): the demo's inputs, made on demand.
inline std::uint64_t demo_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + i * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace example
