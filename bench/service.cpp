// bench_service — one server process answering many concurrent clients
// (tandem/async.hpp), over loopback TCP. This process is the server (Alice:
// an async_listener on a runtime of T threads, one io_context thread); it
// starts a copy of itself as the clients (Bob: N concurrent coroutines on a
// runtime of T threads of their own) and prints the figures.
//
//   bench_service [--sessions N[,N...]] [--threads T[,T...]] [--seconds S] [--resume] [--workers W] [--runs R]
//                 [--quick]
//
// For each N and T, two phases:
//   idle        N sessions set up, run once and left open (each server
//               session awaits a release before its second run): the
//               server's RSS growth per open session
//   throughput  for S seconds each of N clients in turn connects, sets a
//               session up, runs the 32-bit millionaires comparison once and
//               closes — what a service pays per client: completed runs per
//               second, p50/p99 latency of one (connect to result)
// and for the server throughout: its most threads, its peak RSS (VmHWM).
// --runs R: each throughput session runs the comparison R times before it
// closes, and the figures add the latency of one run in an open session
// (from async_run to its result, p50/p99): what a service's returning
// requests pay once a session is set up.
// --workers W: every session runs W workers per party (session_options::
// threads), so it opens W - 1 worker links to the server's port, which the
// listener routes to it (tandem/async.hpp): the cost of that routing.
// --resume: the server keeps a ticket_store and each client a ticket slot
// (session/tickets.hpp), so every session after a client's first resumes
// (no base OTs).
// Both processes share the machine's cores (docs/BENCH.md).
#include "processes.hpp"

#include <tandem/async.hpp>
#include <tandem/tandem.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tandem;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using asio::awaitable;
using asio::use_awaitable;

auto millionaires() {
    return compile([](secure_int<32> a, secure_int<32> b) { return a > b; }, input<party::alice, secure_int<32>>,
                   input<party::bob, secure_int<32>>);
}

/// A field of /proc/self/status, in its unit (kB for memory).
long status_field(const std::string& name) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(name + ":", 0) == 0) return std::stol(line.substr(name.size() + 1));
    return -1;
}

std::vector<int> int_list(const std::string& s) {
    std::vector<int> v;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) v.push_back(std::stoi(item));
    return v;
}

/// Lets this process hold many sockets (the soft limit up to the hard one).
void raise_descriptor_limit() {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

constexpr int max_client_set_ups = 1024;

struct client_figures {
    long runs = 0, failures = 0;
    double seconds = 0, p50_ms = 0, p99_ms = 0, run_p50_us = 0, run_p99_us = 0;
    std::string first_error;
};

/// The p-th percentile of sorted values (0 if none).
double percentile(const std::vector<double>& sorted, int p) {
    if (sorted.empty()) return 0;
    return sorted[std::min(sorted.size() - 1, sorted.size() * static_cast<std::size_t>(p) / 100)];
}

/// The clients: phase 1, N sessions each run once, then awaiting a second
/// run (the server releases them); phase 2, S seconds of connect-run-close
/// per client, each session R runs.
int clients(std::uint16_t port, int n, int threads, double seconds, bool resume, std::uint32_t workers, int runs,
            const std::string& out) {
    raise_descriptor_limit();
    std::vector<session_options> options(static_cast<std::size_t>(n));  // each client's: its ticket slot
    for (auto& o : options) o.threads = workers;
    // (Default deadlines: at N = 10,000 a client's phase-1 session waits for
    // its second run until all N are open, over 60 s for the first ones, and
    // fails then — a longer deadline made the benchmark wait for clients
    // whose connection had failed, for as long.)
    if (resume)
        for (auto& o : options) o.ticket = std::make_shared<session_ticket>();
    asio::io_context io;
    async_runtime rt(io, static_cast<unsigned>(threads));
    const auto circ = millionaires();
    client_figures f;
    std::vector<double> latencies, run_latencies;  // per session (ms), per run in an open session (µs)
    long completed_runs = 0;
    int idle_done = 0;
    const auto note_error = [&](std::exception_ptr e) {
        if (!e) return;
        ++f.failures;
        if (f.first_error.empty()) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                f.first_error = x.what();
            }
        }
    };
    // At most max_client_set_ups of this process's clients set up at once:
    // 10,000 at once on its T workers would each advance so slowly that the
    // server's 60 s deadline passed (a client overloaded, not the server).
    // No bound below N = 1024, so those rows measure what they always did.
    int setting_up = 0;
    const auto set_up_slot = [&]() -> awaitable<void> {
        asio::steady_timer wait(io);
        while (setting_up >= max_client_set_ups) {
            wait.expires_after(1ms);
            co_await wait.async_wait(use_awaitable);
        }
        ++setting_up;
    };
    struct slot_release {
        int& count;
        ~slot_release() { --count; }
    };
    for (int k = 0; k < n; ++k)
        asio::co_spawn(
            io,
            [&, k]() -> awaitable<void> {
                co_await set_up_slot();
                std::optional<slot_release> slot(std::in_place, setting_up);
                async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", port, options[k]);
                const bool r = co_await s.async_run(circ, std::int32_t(k));
                slot.reset();
                const bool again = co_await s.async_run(circ, std::int32_t(k));  // once the server is measured
                (void)r;
                (void)again;
                ++idle_done;
            },
            note_error);
    io.run();
    io.restart();
    const auto start = clock_type::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    for (int k = 0; k < n; ++k)
        asio::co_spawn(
            io,
            [&, k]() -> awaitable<void> {
                while (clock_type::now() < end) {
                    const auto t0 = clock_type::now();
                    co_await set_up_slot();
                    const slot_release slot{setting_up};
                    async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", port, options[k]);
                    for (int r = 0; r < runs; ++r) {
                        const auto r0 = clock_type::now();
                        const bool got = co_await s.async_run(circ, std::int32_t(k));
                        (void)got;
                        if (r > 0) run_latencies.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - r0).count());
                        ++completed_runs;
                    }
                    latencies.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
                }
            },
            note_error);
    io.run();
    f.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    f.runs = completed_runs;
    std::sort(latencies.begin(), latencies.end());
    std::sort(run_latencies.begin(), run_latencies.end());
    f.p50_ms = percentile(latencies, 50);
    f.p99_ms = percentile(latencies, 99);
    f.run_p50_us = percentile(run_latencies, 50);
    f.run_p99_us = percentile(run_latencies, 99);
    std::ofstream o(out);
    o << f.runs << ' ' << f.failures << ' ' << f.seconds << ' ' << f.p50_ms << ' ' << f.p99_ms << ' ' << idle_done
      << ' ' << f.run_p50_us << ' ' << f.run_p99_us << '\n'
      << f.first_error << '\n';
    return f.failures == 0 && idle_done == n ? 0 : 1;
}

/// The server for one N and T; prints one line of figures.
bool serve(const std::string& self, int n, int threads, double seconds, bool resume, std::uint32_t workers,
           int runs) {
    asio::io_context io;
    async_runtime rt(io, static_cast<unsigned>(threads));
    // Room for a client's next session while the server's side of its last
    // one is still being closed.
    async_listener server(rt, 0, "127.0.0.1", static_cast<std::size_t>(2 * n + 8));
    const auto circ = millionaires();
    asio::steady_timer release(io, clock_type::time_point::max());
    bool releasing = false;
    int idle_open = 0;
    long rss_before = status_field("VmRSS"), rss_idle = 0, threads_most = status_field("Threads");
    std::exception_ptr server_error;
    session_options options;
    options.threads = workers;
    if (resume) options.ticket_store = std::make_shared<ticket_store>(static_cast<std::size_t>(2 * n + 8));
    asio::co_spawn(io,
                   server.serve(
                       party::alice, options,
                       [&](async_session s) -> awaitable<void> {
                           const bool r = co_await s.async_run(circ, std::int32_t(1 << 30));
                           (void)r;
                           if (!releasing) {  // phase 1: after one run, stay open until all N are
                               ++idle_open;
                               asio::error_code ignored;
                               co_await release.async_wait(asio::redirect_error(use_awaitable, ignored));
                               const bool again = co_await s.async_run(circ, std::int32_t(1 << 30));
                               (void)again;
                               co_return;
                           }
                           for (int k = 1; k < runs; ++k) {  // phase 2: the client's R runs
                               const bool more = co_await s.async_run(circ, std::int32_t(1 << 30));
                               (void)more;
                           }
                       },
                       [&](std::exception_ptr e) {
                           if (!server_error) server_error = e;
                       }),
                   asio::detached);
    const std::string out = "/tmp/bench_service." + std::to_string(getpid()) + ".txt";
    std::vector<std::string> args{self,        "--client",           "--port",  std::to_string(server.port()),
                                  "--sessions", std::to_string(n),    "--threads", std::to_string(threads),
                                  "--seconds", std::to_string(seconds), "--out",   out,
                                  "--workers", std::to_string(workers), "--runs", std::to_string(runs)};
    if (resume) args.push_back("--resume");
    const pid_t client = bench::spawn_self(args);
    bool client_ok = false;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            asio::steady_timer tick(io);
            for (;;) {
                threads_most = std::max(threads_most, status_field("Threads"));
                if (!releasing && idle_open == n) {
                    rss_idle = status_field("VmRSS");
                    releasing = true;
                    release.cancel();
                }
                int status = 0;
                if (waitpid(client, &status, WNOHANG) == client) {
                    client_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
                    server.close();
                    // Sessions still held for phase 1 (a client failed before
                    // all N were open) go on, and fail: nothing waits for ever.
                    releasing = true;
                    release.cancel();
                    co_return;
                }
                tick.expires_after(5ms);
                co_await tick.async_wait(use_awaitable);
            }
        },
        asio::detached);
    io.run();
    client_figures f;
    long idle_done = 0;
    std::ifstream in(out);
    in >> f.runs >> f.failures >> f.seconds >> f.p50_ms >> f.p99_ms >> idle_done >> f.run_p50_us >> f.run_p99_us;
    in.ignore();
    std::getline(in, f.first_error);
    std::remove(out.c_str());
    const double per_session_kib = n > 0 ? double(rss_idle - rss_before) / n : 0;
    std::printf("N=%5d T=%d%s%s  runs/s %7.1f  p50 %7.1f ms  p99 %7.1f ms  server threads %3ld  peak RSS %6.1f MiB  "
                "idle session %6.1f KiB  (%ld runs in %.1f s, %ld failed)\n",
                n, threads, resume ? " resumed" : "", workers > 1 ? (" W=" + std::to_string(workers)).c_str() : "", f.seconds > 0 ? f.runs / f.seconds : 0.0, f.p50_ms, f.p99_ms, threads_most,
                status_field("VmHWM") / 1024.0, per_session_kib, f.runs, f.seconds, f.failures);
    if (runs > 1)
        std::printf("  %d runs per session: one run in an open session p50 %.1f us, p99 %.1f us\n", runs, f.run_p50_us,
                    f.run_p99_us);
    if (!f.first_error.empty()) std::printf("  first client error: %s\n", f.first_error.c_str());
    if (server_error) {
        try {
            std::rethrow_exception(server_error);
        } catch (const std::exception& e) {
            std::printf("  a server session failed: %s\n", e.what());
        }
    }
    std::fflush(stdout);
    return client_ok;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sessions{1, 16, 256, 1024}, threads{1, 2};
    double seconds = 5;
    bool is_client = false, resume = false;
    std::uint32_t workers = 1;
    int runs = 1;
    std::uint16_t port = 0;
    std::string out;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        if (a == "--sessions") sessions = int_list(value());
        else if (a == "--threads") threads = int_list(value());
        else if (a == "--seconds") seconds = std::stod(value());
        else if (a == "--quick") sessions = {1, 8}, threads = {1}, seconds = 0.5;
        else if (a == "--client") is_client = true;
        else if (a == "--resume") resume = true;
        else if (a == "--workers") workers = static_cast<std::uint32_t>(std::stoul(value()));
        else if (a == "--runs") runs = std::max(1, std::stoi(value()));
        else if (a == "--port") port = static_cast<std::uint16_t>(std::stoi(value()));
        else if (a == "--out") out = value();
        else {
            std::cerr << "usage: bench_service [--sessions N[,N...]] [--threads T[,T...]] [--seconds S] [--resume] "
                         "[--workers W] [--runs R] [--quick]\n";
            return 2;
        }
    }
    try {
        if (is_client) return clients(port, sessions.at(0), threads.at(0), seconds, resume, workers, runs, out);
        raise_descriptor_limit();
        if (sessions.size() == 1 && threads.size() == 1)
            return serve(argv[0], sessions[0], threads[0], seconds, resume, workers, runs) ? 0 : 1;
        // Each N and T in a server process of its own, so that its RSS and
        // threads are its own (an allocator keeps what earlier rows freed).
        std::printf("bench_service: millionaires (32-bit) per client session, server and clients over loopback\n");
        std::fflush(stdout);
        bool ok = true;
        for (const int t : threads)
            for (const int n : sessions) {
                std::vector<std::string> args{argv[0], "--sessions", std::to_string(n), "--threads", std::to_string(t),
                                              "--seconds", std::to_string(seconds), "--workers", std::to_string(workers),
                                              "--runs", std::to_string(runs)};
                if (resume) args.push_back("--resume");
                ok = bench::wait_ok(bench::spawn_self(args)) && ok;
            }
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "bench_service: " << e.what() << "\n";
        return 1;
    }
}
