// bench_scale — memory and time of whole two-party jobs as they grow
// (issue 12): each job runs in two fresh processes (Alice and Bob over
// loopback TCP, pinned to cores 0 and 1), and each process reports its wall
// time from start to result (recording or compiling included), its online
// time, and its peak RSS (getrusage). Memory should stay flat for streamed
// jobs however large they get.
//
//   bench_scale [--case minimum|edit|mul64|all] [--quick] [--json] [--reps N] [--segment-ands K] [--pipeline] [--eager]
//
//   minimum   ME-SFE §4.2.4: the minimum (and its index) of n 20-bit values, half
//             from each party, n = 10^4, 10^5, 10^6 (streamed)
//   edit      the edit distance of two L-symbol binary strings, L = 255, 1023, 4095 (streamed)
//   mul64     Σ x_i·y_j over 136 64-bit values per party (68 M ANDs), streamed and compiled
//
// Reported per job: the slower party's wall time, both parties' peak RSS,
// ANDs and AND/s (of the wall time). --reps repeats each job in fresh processes.
// --pipeline runs each streamed job a second time right after it with
// session_options::pipeline_streams (recording overlapped with garbling); each
// party then gets two cores where the machine has four, else still one.
// --eager runs each streamed job a second time right after it garbled as it
// is made (streamed_function::eager: nothing recorded or laid out); with
// both flags, a third time eager and pipelined (the gates on a second thread).
#include "common.hpp"
#include "processes.hpp"

#include "../examples/stream_apps.hpp"

#include <tandem/tandem.hpp>

#include <sys/resource.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>

using namespace tandem;

namespace {

struct job {
    std::string kind;     // minimum | edit | mul64
    std::uint64_t size;   // values, symbols, or values per party
    bool streamed = true;
    bool pipelined = false;  // streamed with session_options::pipeline_streams
    bool eager = false;      // streamed with streamed_function::eager
};

struct party_figures {
    double wall = 0, online = 0;
    std::uint64_t and_gates = 0, bytes_sent = 0, peak_rss = 0;
    bool ok = false;
};

double peak_rss_mib_of(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

std::uint64_t own_peak_rss() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
}

std::uint32_t value_of(std::uint64_t stream, std::uint64_t i) {
    std::uint64_t z = (stream + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::uint32_t>(z ^ (z >> 31));
}

constexpr std::size_t mul64_values = 136, mul64_quick = 8;

template <std::size_t K>
std::int64_t mul64_plain(const std::array<std::int64_t, K>& x, const std::array<std::int64_t, K>& y) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < K; ++i)
        for (std::size_t j = 0; j < K; ++j) sum += static_cast<std::uint64_t>(x[i]) * static_cast<std::uint64_t>(y[j]);
    return static_cast<std::int64_t>(sum);
}

template <std::size_t K>
secure_int<64> mul64_sum(const std::array<secure_int<64>, K>& x, const std::array<secure_int<64>, K>& y) {
    secure_int<64> sum = 0;
    for (std::size_t i = 0; i < K; ++i)
        for (std::size_t j = 0; j < K; ++j) sum = sum + x[i] * y[j];
    return sum;
}

template <std::size_t K>
party_figures run_mul64(session& s, bool streamed, bool eager, std::chrono::steady_clock::time_point t0) {
    using vec = std::array<secure_int<64>, K>;
    std::array<std::int64_t, K> x{}, y{};
    for (std::size_t i = 0; i < K; ++i) x[i] = value_of(2, i) * 977, y[i] = -static_cast<std::int64_t>(value_of(3, i));
    const std::int64_t expected = mul64_plain(x, y);
    party_figures f;
    std::int64_t got = 0;
    if (streamed) {
        auto fn = stream([](vec a, vec b) { return mul64_sum<K>(a, b); }, input<party::alice, vec>, input<party::bob, vec>);
        fn.eager = eager;
        got = s.me() == party::alice ? s.run(fn, x) : s.run(fn, y);
    } else {
        const auto c = compile([](const vec& a, const vec& b) { return mul64_sum<K>(a, b); }, input<party::alice, vec>,
                               input<party::bob, vec>);
        got = s.me() == party::alice ? s.run(c, x) : s.run(c, y);
    }
    f.wall = bench::since(t0);
    f.ok = got == expected;
    return f;
}

/// One party of one job: connects, runs, writes its figures to `out`.
int run_party(party me, const job& j, std::uint16_t port, std::uint64_t segment_ands, const std::string& out) {
    const auto t0 = std::chrono::steady_clock::now();
    const int cores = j.pipelined && std::thread::hardware_concurrency() >= 4 ? 2 : 1;
    bench::pin_to_cores(me == party::alice ? 0 : cores, cores);
    session_options o;
    o.timeout = std::chrono::minutes(5);
    o.pipeline_streams = j.pipelined;
    session s = me == party::alice ? session::listen(me, port, o, "127.0.0.1") : session::connect(me, "127.0.0.1", port, o);
    party_figures f;
    if (j.kind == "minimum") {
        const std::uint64_t na = j.size / 2, nb = j.size - na;
        const auto alice = [](std::uint64_t i) { return value_of(0, i) & 0xFFFFF; };
        const auto bob = [](std::uint64_t i) { return value_of(1, i) & 0xFFFFF; };
        std::pair<std::uint32_t, std::uint64_t> best{~0u, 0};
        for (std::uint64_t i = 0; i < j.size; ++i) {
            const std::uint32_t v = i < na ? alice(i) : bob(i - na);
            if (v < best.first) best = {v, i};
        }
        auto fn = apps::minimum_stream<20>(na, nb);
        fn.segment_ands = segment_ands;
        fn.eager = j.eager;
        const auto [value, index] = me == party::alice ? s.run(fn, alice) : s.run(fn, bob);
        f.wall = bench::since(t0);
        f.ok = value == best.first && index == best.second;
    } else if (j.kind == "edit") {
        std::vector<std::uint8_t> a(j.size), b(j.size);
        for (std::uint64_t i = 0; i < j.size; ++i) a[i] = value_of(4, i) & 1, b[i] = value_of(5, i) & 1;
        auto fn = apps::edit_distance_stream<1>(j.size, j.size);
        fn.segment_ands = segment_ands;
        fn.eager = j.eager;
        const std::uint32_t d = me == party::alice ? s.run(fn, a) : s.run(fn, b);
        f.wall = bench::since(t0);
        f.ok = d == apps::edit_distance_plain(a, b);
    } else {
        f = j.size == mul64_quick ? run_mul64<mul64_quick>(s, j.streamed, j.eager, t0)
                                  : run_mul64<mul64_values>(s, j.streamed, j.eager, t0);
    }
    f.online = s.last_run().seconds;
    f.and_gates = s.last_run().and_gates;
    f.bytes_sent = s.last_run().bytes_sent;
    f.peak_rss = own_peak_rss();
    std::ofstream(out) << f.wall << " " << f.online << " " << f.and_gates << " " << f.bytes_sent << " " << f.peak_rss
                       << " " << f.ok << "\n";
    return f.ok ? 0 : 1;
}

party_figures read_figures(const std::string& path) {
    party_figures f;
    std::ifstream in(path);
    in >> f.wall >> f.online >> f.and_gates >> f.bytes_sent >> f.peak_rss >> f.ok;
    if (!in) throw std::runtime_error("bench_scale: a party wrote no figures to " + path);
    return f;
}

std::uint16_t free_port() {
    net::tcp_listener l(0, "127.0.0.1");
    return l.port();
}

}  // namespace

int main(int argc, char** argv) {
    // A party process: bench_scale --party alice|bob kind size streamed port segment_ands out
    if (argc == 9 && std::string(argv[1]) == "--party") {
        try {
            // 0 compiled, 1 streamed, 2 streamed and pipelined, 3 eager, 4 eager and pipelined
            const std::string mode = argv[5];
            const job j{argv[3], std::stoull(argv[4]), mode != "0", mode == "2" || mode == "4", mode == "3" || mode == "4"};
            return run_party(std::string(argv[2]) == "alice" ? party::alice : party::bob, j,
                             static_cast<std::uint16_t>(std::stoul(argv[6])), std::stoull(argv[7]), argv[8]);
        } catch (const std::exception& e) {
            std::cerr << "bench_scale (" << argv[2] << "): " << e.what() << "\n";
            return 1;
        }
    }
    std::string which = "all";
    bool pipeline = false, eager = false;
    std::uint64_t segment_ands = default_segment_ands;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--eager") {
            eager = true;
        } else if (a == "--pipeline") {
            pipeline = true;
        } else if ((a == "--case" || a == "--segment-ands") && i + 1 < argc) {
            (a == "--case" ? which = argv[++i] : (segment_ands = std::stoull(argv[++i]), which));
        } else {
            rest.push_back(argv[i]);
        }
    }
    const bench::options opt = bench::parse(static_cast<int>(rest.size()), rest.data(), "bench_scale [--case minimum|edit|mul64|all] [--segment-ands K] [--pipeline] [--eager]");
    std::vector<job> jobs;
    const bool all = which == "all";
    if (all || which == "minimum")
        for (const std::uint64_t n : opt.quick ? std::vector<std::uint64_t>{10'000} : std::vector<std::uint64_t>{10'000, 100'000, 1'000'000})
            jobs.push_back({"minimum", n});
    if (all || which == "edit")
        for (const std::uint64_t l : opt.quick ? std::vector<std::uint64_t>{63} : std::vector<std::uint64_t>{255, 1023, 4095})
            jobs.push_back({"edit", l});
    if (all || which == "mul64")
        for (const bool streamed : {true, false}) jobs.push_back({"mul64", opt.quick ? mul64_quick : mul64_values, streamed});
    if (pipeline || eager) {  // each streamed job again, pipelined and/or eager, right after it
        std::vector<job> more;
        for (const job& j : jobs) {
            more.push_back(j);
            if (j.streamed && pipeline) more.push_back({j.kind, j.size, true, true});
            if (j.streamed && eager) more.push_back({j.kind, j.size, true, false, true});
            if (j.streamed && eager && pipeline) more.push_back({j.kind, j.size, true, true, true});
        }
        jobs = std::move(more);
    }
    if (jobs.empty()) {
        std::cerr << "bench_scale: unknown --case '" << which << "'\n";
        return 2;
    }
    if (!opt.json)
        std::cout << "job                      mode      ANDs            wall s (min)      M AND/s   online s   RSS alice   RSS bob\n";
    const std::string dir = std::filesystem::temp_directory_path().string();
    for (const job& j : jobs) {
        std::vector<double> wall, online;
        party_figures fa, fb;
        for (int r = 0; r < opt.reps; ++r) {
            const std::string port = std::to_string(free_port());
            const std::string base = dir + "/bench_scale_" + std::to_string(getpid()) + "_";
            const auto args = [&](const char* who) {
                return std::vector<std::string>{argv[0], "--party", who, j.kind, std::to_string(j.size),
                                                j.eager ? (j.pipelined ? "4" : "3") : j.pipelined ? "2" : j.streamed ? "1" : "0", port, std::to_string(segment_ands), base + who};
            };
            const pid_t a = bench::spawn_self(args("alice"));
            const pid_t b = bench::spawn_self(args("bob"));
            const bool ok_a = bench::wait_ok(a), ok_b = bench::wait_ok(b);
            if (!ok_a || !ok_b) {
                std::cerr << "bench_scale: " << j.kind << " " << j.size << " failed (alice " << ok_a << ", bob " << ok_b << ")\n";
                return 1;
            }
            fa = read_figures(base + "alice");
            fb = read_figures(base + "bob");
            std::remove((base + "alice").c_str());
            std::remove((base + "bob").c_str());
            wall.push_back(std::max(fa.wall, fb.wall));
            online.push_back(std::max(fa.online, fb.online));
        }
        const double med = bench::median(wall), mn = bench::minimum(wall);
        const std::string mode = j.eager ? (j.pipelined ? "eager+pipe" : "eager") : j.pipelined ? "pipelined"
                                 : j.streamed                    ? "streamed"
                                                                 : "compiled";
        const std::string name = j.kind + " " + std::to_string(j.size);
        if (opt.json) {
            std::cout << bench::record("scale", j.kind)
                             .add("size", j.size)
                             .add_string("mode", mode)
                             .add("seconds", med)
                             .add("seconds_min", mn)
                             .add("online_seconds", bench::median(online))
                             .add("reps", opt.reps)
                             .add("and_gates", fa.and_gates)
                             .add("and_per_s", static_cast<double>(fa.and_gates) / med)
                             .add("bytes_alice", fa.bytes_sent)
                             .add("bytes_bob", fb.bytes_sent)
                             .add("peak_rss_bytes", std::max(fa.peak_rss, fb.peak_rss))
                             .add("peak_rss_alice", fa.peak_rss)
                             .add("peak_rss_bob", fb.peak_rss)
                             .add("segment_ands", segment_ands)
                             .json()
                      << "\n";
        } else {
            std::cout << std::left << std::setw(25) << name << std::setw(10) << mode << std::setw(16) << fa.and_gates
                      << std::fixed << std::setprecision(3) << std::setw(8) << med << " (" << std::setw(7) << mn << ")  "
                      << std::setprecision(1) << std::setw(10) << static_cast<double>(fa.and_gates) / med / 1e6
                      << std::setprecision(3) << std::setw(11) << bench::median(online) << std::setprecision(1)
                      << std::setw(7) << peak_rss_mib_of(fa.peak_rss) << " MiB  " << std::setw(6)
                      << peak_rss_mib_of(fb.peak_rss) << " MiB\n"
                      << std::flush;
        }
    }
    return 0;
}
