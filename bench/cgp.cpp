// bench_cgp — coarse-grained parallelism (parallel regions) and FGP, for the
// three applications of paper 001 §6.2 (BioMatch, MExp, MVMul; examples/apps.hpp).
//
//   bench_cgp [--case offline|online|tau|levels|all] [--threads N] [--reps N] [--quick] [--json]
//             [--csv <file>] [--hash rekeyed|fixed-key]
//
// Cases:
//   offline  garbling alone (tables folded into a checksum, no network) with
//            1..N threads: CGP (the regions spread over workers, FGP in the
//            sequential parts) and FGP alone (the same circuit flattened, its
//            wide levels split across threads) — paper 001 Fig. 6 — and, as
//            the machine's ceiling, t independent one-thread garblings at once
//   online   two processes over loopback TCP, 1 and N workers per party
//            (paper Fig. 8). Not pinned: with two cores both parties share
//            both, which is the point of comparing 1 and 2 workers here
//   tau      FGP threshold τ: levels of w independent ANDs garbled by 1 and
//            by 2 threads; prints the speed-up per w/thread and the smallest
//            w/thread with any gain and with 90 % efficiency
//   levels   stored vs executed gates, regions, and the level-width
//            histogram (paper Fig. 7) written as CSV to --csv
//            (default cgp_level_widths.csv): app,level,and_width; with --json
//            also one line per app (case level_widths_<app>, "and_width": [...])
// --threads N is the largest worker count (default 2); any N is accepted.
// --quick uses small instances (BioMatch 64 entries, MExp 4, MVMul 4×16).
#include "common.hpp"
#include "app_set.hpp"
#include "processes.hpp"

#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <algorithm>
#include <numeric>
#include <cstdio>
#include <sys/resource.h>
#include <memory>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <thread>

namespace {

using namespace tandem;
using bench::app;
using bench::make_apps;
using bench::since;
using clock_type = std::chrono::steady_clock;

/// CPU seconds (user + system) this process has used.
double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct config {
    bench::options opt;
    std::string which = "all";
    std::string csv = "cgp_level_widths.csv";
    garbling_hash hash = garbling_hash::rekeyed;  // online case
    bool is_bob = false;
    std::uint16_t port = 0;
};

// ---- offline garbling ----------------------------------------------------------

struct alignas(64) folding_sink {  // one cache line each: workers' sinks must not share one
    block sum;
    void write(const block* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) sum ^= p[i];
    }
};
volatile std::uint64_t checksum = 0;  // keeps the discarded tables observable

/// Garbles c with plan p into discarding sinks.
class garbler {
public:
    garbler(const circuit<>& c, exec::plan p) : c_(c), p_(std::move(p)), pool_(p_.workers), sinks_(p_.workers) {
        rng_.fill(enc_.zero_labels.data(), enc_.zero_labels.size());
        for (folding_sink& s : sinks_) ptrs_.push_back(&s);
        once();  // warm-up: label arrays, page faults, threads
    }
    ~garbler() {
        for (const folding_sink& s : sinks_) checksum = checksum ^ s.sum.low();
    }
    double once() {
        const auto t0 = clock_type::now();
        exec::garble<rekeyed_hash, folding_sink>(p_, c_, enc_, rng_.next(), std::span<folding_sink* const>(ptrs_), 0,
                                                &pool_);
        return since(t0);
    }

private:
    const circuit<>& c_;
    exec::plan p_;
    exec::workers pool_;
    prg rng_{block(3, 4)};
    gc::encoding enc_{rng_.next() | block(0, 1), std::vector<block>(c_.data().input_bits)};
    std::vector<folding_sink> sinks_;
    std::vector<folding_sink*> ptrs_;
};

/// The machine's own ceiling for T threads: T independent one-thread
/// garblings of the circuit at once (each with its own everything); the
/// time of a repetition is the slowest one's.
class independent {
public:
    independent(const circuit<>& c, int copies) {
        for (int k = 0; k < copies; ++k) gs_.push_back(std::make_unique<garbler>(c, exec::make_plan(c, 1)));
    }
    double once() {
        std::vector<double> t(gs_.size());
        std::vector<std::thread> threads;
        for (std::size_t k = 0; k < gs_.size(); ++k) threads.emplace_back([&, k] { t[k] = gs_[k]->once(); });
        for (std::thread& th : threads) th.join();
        return *std::max_element(t.begin(), t.end());
    }

private:
    std::vector<std::unique_ptr<garbler>> gs_;
};

/// Seconds of each repetition of each runner, taking turns so that the
/// machine's slow and fast phases (a shared VM) hit all of them alike.
std::vector<std::vector<double>> take_turns(const std::vector<std::function<double()>>& runs, int reps) {
    std::vector<std::vector<double>> t(runs.size());
    for (int r = 0; r < reps; ++r)
        for (std::size_t k = 0; k < runs.size(); ++k) t[k].push_back(runs[k]());
    return t;
}

void bench_offline(const config& c, const std::vector<app>& apps) {
    if (!c.opt.json)
        std::printf("offline garbling (no network), median of %d; speed-up against 1 thread of the same mode\n",
                    c.opt.reps);
    for (const app& a : apps) {
        const circuit<> flat = flatten(a.c);
        std::vector<std::unique_ptr<garbler>> gs;  // cgp 1..T, then fgp 1..T
        for (int t = 1; t <= c.opt.threads; ++t) gs.push_back(std::make_unique<garbler>(a.c, exec::make_plan(a.c, t)));
        for (int t = 1; t <= c.opt.threads; ++t) gs.push_back(std::make_unique<garbler>(flat, exec::make_plan(flat, t)));
        std::vector<std::unique_ptr<independent>> ceilings;  // 1..T independent one-thread garblings
        for (int t = 1; t <= c.opt.threads; ++t) ceilings.push_back(std::make_unique<independent>(a.c, t));
        std::vector<std::function<double()>> runs;
        for (auto& g : gs) runs.push_back([&g] { return g->once(); });
        for (auto& i : ceilings) runs.push_back([&i] { return i->once(); });
        const std::vector<std::vector<double>> times = take_turns(runs, c.opt.reps);
        const double ands = double(a.c.stats().and_gates);
        const auto T = static_cast<std::size_t>(c.opt.threads);
        for (std::size_t t = 1; t <= T; ++t) {
            const double cgp = bench::median(times[t - 1]), fgp = bench::median(times[T + t - 1]);
            const double cgp_min = bench::minimum(times[t - 1]), fgp_min = bench::minimum(times[T + t - 1]);
            const double base_cgp = bench::median(times[0]), base_fgp = bench::median(times[T]);
            // t copies of the work in the time of the slowest: the speed-up t threads could at most give.
            const double ceiling = double(t) * bench::median(times[2 * T]) / bench::median(times[2 * T + t - 1]);
            if (c.opt.json) {
                for (const auto& [mode, sec, smin, base] :
                     {std::tuple{"cgp", cgp, cgp_min, base_cgp}, std::tuple{"fgp", fgp, fgp_min, base_fgp}})
                    std::cout << bench::record("cgp", "offline_" + a.name)
                                     .add_string("mode", mode)
                                     .add("threads", t)
                                     .add("seconds", sec)
                                     .add("seconds_min", smin)
                                     .add("reps", c.opt.reps)
                                     .add("and_gates", a.c.stats().and_gates)
                                     .add("and_per_s", ands / sec)
                                     .add("speedup", base / sec)
                                     .add("speedup_min", bench::minimum(times[mode[0] == 'c' ? 0 : T]) / smin)
                                     .add("machine_ceiling", ceiling)
                                     .add("peak_rss_bytes", bench::peak_rss_bytes())
                                     .json()
                              << "\n";
            } else {
                std::printf("  %-9s %zu thread%s  CGP %8.2f ms (min %8.2f) %6.1f M AND/s x%.2f   FGP alone %8.2f ms "
                            "(min %8.2f) %6.1f M AND/s x%.2f   (machine: x%.2f)\n",
                            a.name.c_str(), t, t == 1 ? " " : "s", cgp * 1e3, cgp_min * 1e3, ands / cgp / 1e6,
                            base_cgp / cgp, fgp * 1e3, fgp_min * 1e3, ands / fgp / 1e6, base_fgp / fgp, ceiling);
            }
        }
    }
}

// ---- τ -------------------------------------------------------------------------

/// `levels` levels of `width` independent ANDs each (a ring of bits ANDed with their neighbours).
circuit<> wide_levels(std::size_t width, std::size_t levels) {
    return compile(
        [&](const std::array<secure_bit, 16384>& in) {
            std::vector<secure_bit> x(width);
            for (std::size_t i = 0; i < width; ++i) x[i] = in[i % in.size()] ^ in[(i * 7 + 1) % in.size()];
            for (std::size_t l = 0; l < levels; ++l) {
                std::vector<secure_bit> y(width);
                for (std::size_t i = 0; i < width; ++i) y[i] = x[i] & x[(i + 1 + l) % width];
                x = std::move(y);
            }
            secure_bit r;
            for (const secure_bit& b : x) r ^= b;
            return r;
        },
        input<party::alice, std::array<secure_bit, 16384>>);
}

void bench_tau(const config& c) {
    const std::size_t total = c.opt.quick ? (1u << 16) : (1u << 21);
    std::optional<std::size_t> tau_any, tau_90;
    if (!c.opt.json)
        std::printf("FGP threshold: levels of w ANDs, garbled by 1 thread and split over 2 (%zu ANDs per case)\n",
                    total);
    for (std::size_t per_thread = 4; per_thread <= (c.opt.quick ? 256u : 8192u); per_thread *= 2) {
        const std::size_t width = 2 * per_thread;
        const circuit<> circ = wide_levels(width, total / width);
        garbler one_thread(circ, exec::make_plan(circ, 1)), two_threads(circ, exec::make_plan(circ, 2, 1));  // split every level
        const std::vector<std::vector<double>> t =
            take_turns({[&] { return one_thread.once(); }, [&] { return two_threads.once(); }}, c.opt.reps);
        const double one = bench::median(t[0]), two = bench::median(t[1]);
        const double speedup = one / two;
        if (!tau_any && speedup > 1.0) tau_any = per_thread;
        if (!tau_90 && speedup >= 1.8) tau_90 = per_thread;
        if (c.opt.json)
            std::cout << bench::record("cgp", "tau")
                             .add("ands_per_thread", per_thread)
                             .add("threads", 2)
                             .add("seconds", two)
                             .add("seconds_one_thread", one)
                             .add("reps", c.opt.reps)
                             .add("and_gates", circ.stats().and_gates)
                             .add("speedup", speedup)
                             .add("efficiency", speedup / 2)
                             .json()
                      << "\n";
        else
            std::printf("  %5zu ANDs/thread: 1 thread %7.2f ms, 2 threads %7.2f ms: x%.2f (efficiency %3.0f %%)\n",
                        per_thread, one * 1e3, two * 1e3, speedup, 50 * speedup);
    }
    const auto show = [](const std::optional<std::size_t>& v) { return v ? std::to_string(*v) : std::string("none"); };
    if (c.opt.json)
        std::cout << bench::record("cgp", "tau_summary")
                         .add_string("tau_any_gain", show(tau_any))
                         .add_string("tau_90_percent", show(tau_90))
                         .json()
                  << "\n";
    else
        std::printf("  tau: any gain from %s ANDs/thread, 90 %% efficiency from %s (library default %u)\n",
                    show(tau_any).c_str(), show(tau_90).c_str(), exec::default_fgp_min_ands);
}

// ---- structure ----------------------------------------------------------------

void bench_levels(const config& c, const std::vector<app>& apps) {
    std::ofstream csv(c.csv);
    csv << "app,level,and_width\n";
    for (const app& a : apps) {
        const circuit_stats& s = a.c.stats();
        for (std::size_t l = 0; l < s.level_and_width.size(); ++l)
            csv << a.name << ',' << l << ',' << s.level_and_width[l] << '\n';
        std::uint64_t wide = 0;  // levels an FGP split over 2 threads would take
        for (std::uint32_t w : s.level_and_width) wide += w >= 2 * exec::default_fgp_min_ands;
        if (c.opt.json) {
            std::cout << bench::record("cgp", "levels_" + a.name)
                             .add("seconds", 0)
                             .add("seconds_min", 0)
                             .add("reps", 1)
                             .add("and_gates", s.and_gates)
                             .add("stored_gates", s.stored_gates)
                             .add("executed_gates", s.executed_gates)
                             .add("stored_fraction", double(s.stored_gates) / double(s.executed_gates))
                             .add("regions", s.regions.size())
                             .add("levels", s.levels)
                             .add("fgp_levels", wide)
                             .json()
                      << "\n";
            // The CSV's histogram as JSON too: the AND width of every level, in execution order.
            std::string widths = "[";
            for (std::size_t l = 0; l < s.level_and_width.size(); ++l) {
                if (l) widths += ',';
                widths += std::to_string(s.level_and_width[l]);
            }
            std::cout << bench::record("cgp", "level_widths_" + a.name)
                             .add_string("app", a.name)
                             .add("levels", s.level_and_width.size())
                             .add("and_width", widths + "]")
                             .json()
                      << "\n";
        } else {
            std::printf("  %-9s %9llu ANDs; stored %9llu of %9llu executed gates (1/%.1f); %zu regions; %u levels, "
                        "%llu wide enough for FGP on 2 threads\n",
                        a.name.c_str(), static_cast<unsigned long long>(s.and_gates),
                        static_cast<unsigned long long>(s.stored_gates),
                        static_cast<unsigned long long>(s.executed_gates),
                        double(s.executed_gates) / double(s.stored_gates), s.regions.size(), s.levels,
                        static_cast<unsigned long long>(wide));
            for (const region_stats& r : s.regions)
                if (r.instances > 1 && r.and_per_instance_max > 1000)
                    std::printf("            region %s: %u instances of %llu ANDs, %u bod%s\n", r.name.c_str(),
                                r.instances, static_cast<unsigned long long>(r.and_per_instance_max), r.bodies,
                                r.bodies == 1 ? "y" : "ies");
        }
    }
    if (!c.opt.json) std::printf("  level widths (paper Fig. 7) written to %s\n", c.csv.c_str());
}

// ---- online, two processes ----------------------------------------------------

/// Both parties: for each app, 1 and N workers, a fresh session each.
int party_main(const config& c, const std::vector<app>& apps, const std::function<session(std::uint32_t)>& open) {
    const bool alice = !c.is_bob;
    if (alice && !c.opt.json)
        std::printf("two-party online, two processes over loopback TCP sharing %u cores, %s hash, median of %d\n",
                    std::thread::hardware_concurrency(), std::string(to_string(c.hash)).c_str(), c.opt.reps);
    for (const app& a : apps) {
        double base = 0;
        std::vector<std::uint32_t> counts{1};
        if (c.opt.threads > 1) counts.push_back(static_cast<std::uint32_t>(c.opt.threads));
        for (const std::uint32_t t : counts) {
            session s = open(t);
            const auto& mine = alice ? a.alice : a.bob;
            const auto run = [&] {
                const auto out = s.run_bits(reveal::both, a.c, mine);
                if (!out || *out != a.expected) throw std::runtime_error(a.name + ": wrong result");
            };
            run();  // warm-up
            std::vector<double> secs;
            std::uint64_t sent = 0;
            double cpu = 0;  // this party's CPU seconds over all repetitions
            for (int r = 0; r < c.opt.reps; ++r) {
                bench::barrier(s);
                const auto t0 = clock_type::now();
                const double cpu0 = cpu_seconds();
                run();
                const double me = since(t0);
                cpu += cpu_seconds() - cpu0;
                secs.push_back(std::max(me, bench::swap_figure(s, me)));
                sent = s.last_run().bytes_sent;
            }
            const double their_sent = bench::swap_figure(s, double(sent));
            const double their_cpu = bench::swap_figure(s, cpu);
            // Cores busy on average during a run, both parties together.
            const double busy = (cpu + their_cpu) / std::accumulate(secs.begin(), secs.end(), 0.0);
            const double med = bench::median(secs), mn = bench::minimum(secs);
            if (t == 1) base = med;
            if (!alice) continue;
            const double ands = double(a.c.stats().and_gates);
            if (c.opt.json)
                std::cout << bench::record("cgp", "online_" + a.name)
                                 .add("threads", t)
                                 .add("seconds", med)
                                 .add("seconds_min", mn)
                                 .add("reps", c.opt.reps)
                                 .add("and_gates", a.c.stats().and_gates)
                                 .add("and_per_s", ands / med)
                                 .add("bytes_alice", sent)
                                 .add("bytes_bob", static_cast<std::uint64_t>(their_sent))
                                 .add("speedup", base / med)
                                 .add("cores_busy", busy)
                                 .add_string("hash", c.hash == garbling_hash::rekeyed ? "rekeyed" : "fixed-key")
                                 .add("peak_rss_bytes", bench::peak_rss_bytes())
                                 .json()
                          << "\n";
            else
                std::printf("  %-9s %u worker%s per party: %8.2f ms (min %8.2f) %6.1f M AND/s  x%.2f  (%.2f cores busy)\n",
                            a.name.c_str(), t, t == 1 ? " " : "s", med * 1e3, mn * 1e3, ands / med / 1e6, base / med,
                            busy);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    config c;
    std::vector<char*> common{argv[0]};
    std::vector<std::string> passthrough;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--case" && i + 1 < argc) c.which = argv[++i];
        else if (a == "--csv" && i + 1 < argc) c.csv = argv[++i];
        else if (a == "--hash" && i + 1 < argc) {
            const std::string h = argv[++i];
            if (h != "rekeyed" && h != "fixed-key") {
                std::cerr << "bench_cgp: --hash must be rekeyed or fixed-key\n";
                return 2;
            }
            c.hash = h == "rekeyed" ? garbling_hash::rekeyed : garbling_hash::fixed_key;
            passthrough.insert(passthrough.end(), {"--hash", h});
        }
        else if (a == "--bob-port" && i + 1 < argc) c.is_bob = true, c.port = static_cast<std::uint16_t>(std::stoi(argv[++i]));
        else common.push_back(argv[i]), passthrough.push_back(a);
    }
    const std::vector<std::string> cases{"all", "offline", "online", "tau", "levels"};
    if (std::find(cases.begin(), cases.end(), c.which) == cases.end()) {
        std::cerr << "bench_cgp: unknown --case " << c.which << "\n";
        return 2;
    }
    bool threads_given = false;
    for (char* a : common) threads_given |= std::string(a) == "--threads";
    c.opt = bench::parse(static_cast<int>(common.size()), common.data(),
                         "bench_cgp [--case offline|online|tau|levels|all] [--csv <file>]");
    if (!threads_given) c.opt.threads = 2;
    if (!threads_given) passthrough.insert(passthrough.end(), {"--threads", "2"});
    try {
        const std::vector<app> apps = make_apps(c.opt.quick);
        const auto options = [&](std::uint32_t t) {
            session_options o;
            o.threads = t;
            o.hash = c.hash;
            return o;
        };
        if (c.is_bob)
            return party_main(c, apps, [&](std::uint32_t t) {
                return session::connect(party::bob, "127.0.0.1", c.port, options(t));
            });
        const bool all = c.which == "all";
        if (c.which == "levels" || all) bench_levels(c, apps);
        if (c.which == "offline" || all) bench_offline(c, apps);
        if (c.which == "tau" || all) bench_tau(c);
        if (c.which == "online" || all) {
            net::tcp_listener listener(0, "127.0.0.1");
            std::vector<std::string> args{argv[0], "--bob-port", std::to_string(listener.port()), "--case", "online"};
            args.insert(args.end(), passthrough.begin(), passthrough.end());
            const pid_t bob = bench::spawn_self(args);
            const int status = party_main(
                c, apps, [&](std::uint32_t t) { return session::accept(party::alice, listener, options(t)); });
            const bool bob_ok = bench::wait_ok(bob);
            return status != 0 ? status : bob_ok ? 0 : 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "bench_cgp (" << (c.is_bob ? "bob" : "alice") << "): " << e.what() << "\n";
        return 1;
    }
}
