// bench_malicious — the figures of malicious security (issue 30), two
// processes over loopback TCP, each pinned to its own core when the machine
// has two or more (docs/BENCH.md). This process is Alice (the COT sender, Δ);
// it starts a copy of itself as Bob and prints the figures.
//
//   bench_malicious [--case cot|lpn|triples|aes|sha256|stream|seal|all] [--ot NAME[,security]] [--seal] [--reps N] [--quick] [--json]
//                   [--ands N] [--segment-ands N] [--threads N]
// --seal runs the two-party cases over a sealed link (a pre-shared key), as
// malicious sessions have it by default.
//
// Cases:
//   cot   correlated OTs per second of each extension: IKNP (semi-honest),
//         SoftSpoken K = 2, 4, 8 semi-honest and malicious (the consistency
//         check included), silent OT (Ferret, random choices) semi-honest and
//         malicious; 2^23 OTs per repetition (--quick: 2^16), set-up
//         (base OTs, GGM trees; Ferret's SoftSpoken bootstrap and set-up
//         round) timed apart. A repetition's time is the
//         slower party's, both starting after a barrier; "per CPU-second" is
//         OTs over the busier party's CPU time (each party has one core).
//   lpn   the silent extension's LPN code alone, in this process (not in
//         "all"): ns per output of a batch of 2^18 outputs against the
//         steady round's table of k = 452,000 seed COTs (ten random reads
//         each), and of deriving the rows alone (fixed-key AES); 20 batches
//         per repetition (--quick: 2).
//   triples  authenticated AND triples (auth/triples.hpp), the function-
//         independent preprocessing, on each COT extension (SoftSpoken K = 4;
//         silent OT, "ferret"; --ot keeps one): per batch size (3,100 triples, bucket 4;
//         280,000, bucket 3; --quick: 3,100 only) the slower party's time,
//         triples per second, CPU per triple and bytes per triple each way;
//         set-up (both SoftSpoken extensions, the hash-start coin toss) timed
//         apart; peak RSS of each party after the largest batch.
//   aes   AES-128 (the Bristol circuit, 6,400 ANDs) by authenticated
//         garbling (auth/garble.hpp), one execution from run() to output with
//         every phase in it (its triples, masks, tables, inputs, AND check,
//         outputs); the session's set-up apart; both parties learn the output.
//         Then amortised: prepare() of 1,024 executions (--quick: 32), the
//         offline phases, and 1,024 runs on them one after another, the
//         online phase alone: time per AES of each (the slower party's),
//         CPU, bytes each way, the median run's latency, peak RSS. On each
//         extension of malicious sessions' authenticated bits, side by side
//         (SoftSpoken K = 4, "softspoken-k4"; silent OT, "ferret").
//   seal  the sealed links' AEAD in this process alone: GB/s of AES-256-GCM
//         (crypto/aes_gcm.hpp) sealing and opening 65,519-byte records on
//         each instruction set the CPU runs, beside libsodium's AES-256-GCM
//         and ChaCha20-Poly1305 (docs/DESIGN.md §9.3); 2^13 records per
//         repetition (--quick: 2^9).
//   sha256  a chain of 45 SHA-256 compressions (1.0 M ANDs; --quick: 2),
//         s ← compress(s, m) with Alice's state and Bob's block, compiled and
//         run by authenticated garbling, everything in memory, --reps fresh
//         executions: M AND/s from run() to output (median; the process's
//         first apart, which also pays for fresh pages), bytes per AND each
//         way, the phases, peak RSS. On each extension, as aes.
//   stream  the chain of about 10^8 ANDs (--ands N; --quick: 10^6),
//         s ← compress(s, m) as a streamed function (dsl/stream.hpp) run by a
//         session with security::malicious, segment by segment in bounded
//         memory (session/authenticated.hpp), segments of --segment-ands ANDs
//         (default the library's, 2^14): M AND/s from run() to output, bytes
//         per AND each way, the phases, peak RSS per party. Not in "all".
//         With --threads N, the session's N workers (N - 1 worker links, each
//         making its part of every batch of triples). Over SoftSpoken, or
//         with --ot ferret over silent OT (session_options::malicious_ot).
//   wide  64 AES-128 blocks under one secret key (329,000 ANDs, levels of
//         up to ~10,000), compiled and run by a malicious session with
//         --threads N (default 1): with N > 1 the wide levels are garbled and
//         evaluated in parts on the workers, the rows on their links
//         (garbler_evaluator::garble_on), as the triples are made. A warm-up
//         run, then --reps runs: the median time from run() to output, its
//         phases, bytes per AND. Not in "all".
// Each party is pinned to --threads cores of its own where the machine has
// twice as many (stream, wide), else to one core (threads 1) or not at all.
// --ot keeps one extension (e.g. --ot softspoken-k4 or --ot softspoken-k4,malicious;
// in the two-party cases softspoken-k4 or ferret).
#include "common.hpp"
#include "processes.hpp"

#include <tandem/auth/garble.hpp>
#include <tandem/auth/triples.hpp>
#include <tandem/crypto/aes_gcm.hpp>
#include <tandem/lib/aes.hpp>
#include <tandem/lib/sha256.hpp>
#include <tandem/net/noise.hpp>
#include <tandem/net/secure_channel.hpp>
#include <tandem/ot/ferret.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/tandem.hpp>

#include <sodium.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <memory>
#include <random>
#include <thread>

namespace {

using namespace tandem;
using clock_type = std::chrono::steady_clock;
using bench::barrier;
using bench::pin_to_core;
using bench::swap_figure;

/// The phases of ge's last run or prepare into r.
void report(const auth::garbler_evaluator& ge, run_stats& r) {
    r.independent = ge.last_phases().independent;
    r.dependent = ge.last_phases().dependent;
    r.online = ge.last_phases().online;
}

struct config {
    bench::options opt;
    std::string which = "all";
    bool is_bob = false;
    std::uint16_t port = 0;
    std::string only;  // --ot: one extension ("name" or "name,security")
    bool seal = false;  // --seal: the link sealed (Noise NNpsk0), as malicious sessions have it by default
    /// Pins party `index` (0 Alice, 1 Bob) to cores of its own: one, or
    /// --threads in the cases that run the session's workers where the
    /// machine has room for both parties' (else both share every core).
    void pin_party(int index) const {
        const int t = which == "stream" || which == "wide" ? std::max(opt.threads, 1) : 1;
        if (t == 1) return bench::pin_to_core(index);
        if (std::thread::hardware_concurrency() >= static_cast<unsigned>(2 * t)) bench::pin_to_cores(index * t, t);
    }
    std::uint64_t ands = 0;          // --ands: the streamed chain's size (0: 10^8, --quick 10^6)
    std::uint64_t segment_ands = 0;  // --segment-ands (0: the library's default)
    session_options session() const {
        session_options o;
        if (which == "stream" || which == "wide") {  // the cases run through a malicious session
            o.security = security::malicious;
            o.malicious_ot = only == "ferret" ? cot_extension::silent : cot_extension::softspoken;  // --ot
            o.allow_plain_links = !seal;
            o.threads = static_cast<std::uint32_t>(opt.threads);  // --threads
        }
        if (seal) {  // a fixed key: both processes know it, nobody else is measured
            net::key_bytes k{};
            k[0] = 30;
            o.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key(k));
        }
        return o;
    }
};

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

/// One side of an extension, behind one interface for the timing loop.
struct cot_side {
    virtual ~cot_side() = default;
    virtual void extend(net::channel& ch, std::span<block> out, std::span<const std::uint8_t> choices) = 0;
};

template <class Sender>
struct sender_side final : cot_side {
    Sender s;
    template <class... A>
    explicit sender_side(A&&... a) : s(std::forward<A>(a)...) {}
    void extend(net::channel& ch, std::span<block> out, std::span<const std::uint8_t>) override { s.extend(ch, out); }
};

template <class Receiver>
struct receiver_side final : cot_side {
    Receiver r;
    template <class... A>
    explicit receiver_side(A&&... a) : r(std::forward<A>(a)...) {}
    void extend(net::channel& ch, std::span<block> out, std::span<const std::uint8_t> choices) override {
        r.extend(ch, choices, out);
    }
};

/// A silent extension's sides: random choices (what authenticated bits use).
struct ferret_sender_side final : cot_side {
    ot::ferret_sender s;
    ferret_sender_side(net::channel& ch, block delta, security mode) : s(ch, delta, mode) {}
    void extend(net::channel& ch, std::span<block> out, std::span<const std::uint8_t>) override { s.extend_random(ch, out); }
};

struct ferret_receiver_side final : cot_side {
    ot::ferret_receiver r;
    std::vector<std::uint8_t> bits;
    ferret_receiver_side(net::channel& ch, security mode) : r(ch, mode) {}
    void extend(net::channel& ch, std::span<block> out, std::span<const std::uint8_t>) override {
        bits.resize(out.size());
        r.extend_random(ch, bits, out);
    }
};

struct variant {
    const char* name;
    const char* protocol;
    std::function<std::unique_ptr<cot_side>(net::channel&, bool alice, block delta)> make;
};

template <std::size_t K>
variant softspoken(const char* name, security mode) {
    return {name, mode == security::malicious ? "malicious" : "semi-honest",
            [mode](net::channel& ch, bool alice, block delta) -> std::unique_ptr<cot_side> {
                if (alice) return std::make_unique<sender_side<ot::softspoken_sender<K>>>(ch, delta, mode);
                return std::make_unique<receiver_side<ot::softspoken_receiver<K>>>(ch, mode);
            }};
}

variant ferret(security mode) {
    return {"ferret", mode == security::malicious ? "malicious" : "semi-honest",
            [mode](net::channel& ch, bool alice, block delta) -> std::unique_ptr<cot_side> {
                if (alice) return std::make_unique<ferret_sender_side>(ch, delta, mode);
                return std::make_unique<ferret_receiver_side>(ch, mode);
            }};
}

void bench_cot(const config& c, session& s) {
    const std::size_t m = c.opt.quick ? std::size_t{1} << 16 : std::size_t{1} << 23;
    net::channel& ch = s.channel();
    const bool alice = s.me() == party::alice;
    std::vector<block> out(m);
    std::vector<std::uint8_t> choices(m);
    std::mt19937_64 rng(60);
    for (auto& x : choices) x = rng() & 1;
    const block delta = prg().next() | block(0, 1);
    const std::vector<variant> variants{
        {"iknp", "semi-honest",
         [](net::channel& ch, bool alice, block delta) -> std::unique_ptr<cot_side> {
             if (alice) return std::make_unique<sender_side<ot::cot_sender>>(ch, delta);
             return std::make_unique<receiver_side<ot::cot_receiver>>(ch);
         }},
        softspoken<2>("softspoken-k2", security::semi_honest),
        softspoken<4>("softspoken-k4", security::semi_honest),
        softspoken<8>("softspoken-k8", security::semi_honest),
        softspoken<2>("softspoken-k2", security::malicious),
        softspoken<4>("softspoken-k4", security::malicious),
        softspoken<8>("softspoken-k8", security::malicious),
        ferret(security::semi_honest),
        ferret(security::malicious),
    };
    if (alice && !c.opt.json)
        std::printf("%-14s %-11s %9s %12s %12s %14s %9s %9s\n", "cot", "security", "set-up ms", "M COT/s", "(best rep)",
                    "M per CPU-s", "B/COT A", "B/COT B");
    for (const variant& v : variants) {
        if (!c.only.empty() && c.only != v.name && c.only != std::string(v.name) + "," + v.protocol) continue;
        barrier(s);
        auto t0 = clock_type::now();
        const std::unique_ptr<cot_side> side = v.make(ch, alice, delta);
        ch.flush();
        const double setup = std::max(since(t0), swap_figure(s, since(t0)));
        std::vector<double> seconds, cpu;
        std::uint64_t sent_a = 0, sent_b = 0;
        for (int r = 0; r < c.opt.reps + 1; ++r) {  // the first is a warm-up
            barrier(s);
            const std::uint64_t sent0 = ch.bytes_sent();
            const double cpu0 = cpu_seconds();
            t0 = clock_type::now();
            side->extend(ch, out, choices);
            ch.flush();
            const double mine = since(t0);
            const double my_cpu = cpu_seconds() - cpu0;
            const double sent = double(ch.bytes_sent() - sent0);
            const double theirs = swap_figure(s, mine);
            const double their_cpu = swap_figure(s, my_cpu);
            const double their_sent = swap_figure(s, sent);
            if (r == 0) continue;
            seconds.push_back(std::max(mine, theirs));
            cpu.push_back(std::max(my_cpu, their_cpu));
            sent_a = static_cast<std::uint64_t>(alice ? sent : their_sent);
            sent_b = static_cast<std::uint64_t>(alice ? their_sent : sent);
        }
        if (!alice) continue;
        const double med = bench::median(seconds);
        const double per_cpu = double(m) / bench::median(cpu);
        if (c.opt.json) {
            std::cout << bench::record("malicious", "cot")
                             .add_string("extension", v.name)
                             .add_string("security", v.protocol)
                             .add("cots", m)
                             .add("setup_seconds", setup)
                             .add("seconds", med)
                             .add("seconds_min", bench::minimum(seconds))
                             .add("reps", seconds.size())
                             .add("cot_per_s", double(m) / med)
                             .add("cot_per_cpu_s", per_cpu)
                             .add("bytes_per_cot_alice", double(sent_a) / double(m))
                             .add("bytes_per_cot_bob", double(sent_b) / double(m))
                             .json()
                      << "\n";
        } else {
            std::printf("%-14s %-11s %9.2f %12.1f %12.1f %14.1f %9.3f %9.3f\n", v.name, v.protocol, setup * 1e3,
                        double(m) / med / 1e6, double(m) / bench::minimum(seconds) / 1e6, per_cpu / 1e6,
                        double(sent_a) / double(m), double(sent_b) / double(m));
        }
    }
}

void bench_triples_with(const config& c, session& s, const char* name, cot_extension extension) {
    net::channel& ch = s.channel();
    const party me = s.me();
    const bool alice = me == party::alice;
    prg rng;
    const block delta = auth::draw_delta(me, extension, rng);
    barrier(s);
    auto t0 = clock_type::now();
    auth::authenticator auth(ch, me, delta, rng, extension);
    auth::triple_maker maker(ch, auth, rng);
    ch.flush();
    const double setup = std::max(since(t0), swap_figure(s, since(t0)));
    std::vector<std::size_t> sizes{3'100};
    if (!c.opt.quick) sizes.push_back(280'000);
    auth::triples out;
    for (const std::size_t wanted : sizes) {
        const auto plan = auth::triple_plan::for_request(wanted);
        std::vector<double> seconds, cpu;
        double sent_a = 0, sent_b = 0;
        for (int r = 0; r < c.opt.reps + 1; ++r) {  // the first is a warm-up
            barrier(s);
            const std::uint64_t sent0 = ch.bytes_sent();
            const double cpu0 = cpu_seconds();
            t0 = clock_type::now();
            maker.make(ch, wanted, out);
            ch.flush();
            const double mine = since(t0), my_cpu = cpu_seconds() - cpu0;
            const double sent = double(ch.bytes_sent() - sent0);
            const double theirs = swap_figure(s, mine), their_cpu = swap_figure(s, my_cpu);
            const double their_sent = swap_figure(s, sent);
            if (r == 0) continue;
            seconds.push_back(std::max(mine, theirs));
            cpu.push_back(std::max(my_cpu, their_cpu));
            sent_a = alice ? sent : their_sent;
            sent_b = alice ? their_sent : sent;
        }
        const double rss = double(bench::peak_rss_bytes());
        const double their_rss = swap_figure(s, rss);
        if (!alice) continue;
        const double med = bench::median(seconds), n = double(plan.outputs);
        if (c.opt.json) {
            std::cout << bench::record("malicious", "triples")
                             .add_string("extension", name)
                             .add("triples", plan.outputs)
                             .add("bucket", plan.bucket)
                             .add("setup_seconds", setup)
                             .add("seconds", med)
                             .add("seconds_min", bench::minimum(seconds))
                             .add("reps", seconds.size())
                             .add("triples_per_s", n / med)
                             .add("cpu_ns_per_triple", bench::median(cpu) / n * 1e9)
                             .add("bytes_per_triple_alice", sent_a / n)
                             .add("bytes_per_triple_bob", sent_b / n)
                             .add("peak_rss_alice", rss)
                             .add("peak_rss_bob", their_rss)
                             .json()
                      << "\n";
        } else {
            std::printf("%-14s %-10zu %6zu %9.2f %11.2f %11.1f %13.0f %10.1f %10.1f   peak RSS %.0f, %.0f MiB\n",
                        name, plan.outputs, plan.bucket, setup * 1e3, med * 1e3, n / med / 1e3,
                        bench::median(cpu) / n * 1e9, sent_a / n, sent_b / n, rss / 1048576, their_rss / 1048576);
        }
    }
    out.wipe();
}

/// The COT extensions of malicious sessions the two-party cases run side
/// by side (--ot keeps one), by their names in the cot case.
struct extension_choice {
    const char* name;
    cot_extension extension;
};

std::vector<extension_choice> extensions(const config& c) {
    std::vector<extension_choice> out;
    for (const extension_choice e : {extension_choice{"softspoken-k4", cot_extension::softspoken},
                                     extension_choice{"ferret", cot_extension::silent}})
        if (c.only.empty() || c.only == e.name) out.push_back(e);
    return out;
}

void bench_triples(const config& c, session& s) {
    if (s.me() == party::alice && !c.opt.json)
        std::printf("%-14s %-10s %6s %9s %11s %11s %13s %10s %10s\n", "cot", "triples", "bucket", "set-up ms",
                    "ms/batch", "k triple/s", "CPU ns/triple", "B/tri A", "B/tri B");
    for (const extension_choice& e : extensions(c)) bench_triples_with(c, s, e.name, e.extension);
}

/// One party's authenticated-garbling stack over a session's link: the
/// authenticator (both extensions' set-up), the triple maker and the
/// garbler/evaluator.
struct auth_stack {
    prg rng;
    block delta;
    auth::authenticator auth;
    auth::triple_maker maker;
    auth::garbler_evaluator ge;

    auth_stack(net::channel& ch, party me, cot_extension extension)
        : delta(auth::draw_delta(me, extension, rng)), auth(ch, me, delta, rng, extension), maker(ch, auth, rng),
          ge(auth, maker, rng) {
        ch.flush();
    }
};

void bench_aes(const config& c, session& s, const extension_choice& e) {
    net::channel& ch = s.channel();
    const party me = s.me();
    const bool alice = me == party::alice;
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    barrier(s);
    auto t0 = clock_type::now();
    auth_stack stack(ch, me, e.extension);
    auth::garbler_evaluator& ge = stack.ge;
    const double setup = std::max(since(t0), swap_figure(s, since(t0)));
    std::vector<std::uint8_t> bits(128, 0);
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint8_t>((i * 7 + (alice ? 1 : 3)) % 5 == 0);
    std::vector<double> seconds, cpu, independent, dependent, online;
    double sent_a = 0, sent_b = 0;
    const int reps = c.opt.quick ? 1 : std::max(c.opt.reps, 1) * 4;
    for (int r = 0; r < reps + 1; ++r) {  // the first is a warm-up
        barrier(s);
        const std::uint64_t sent0 = ch.bytes_sent();
        const double cpu0 = cpu_seconds();
        t0 = clock_type::now();
        const auto out = ge.run(ch, aes, bits);
        ch.flush();
        const double mine = since(t0), my_cpu = cpu_seconds() - cpu0;
        const double sent = double(ch.bytes_sent() - sent0);
        const double theirs = swap_figure(s, mine), their_cpu = swap_figure(s, my_cpu);
        const double their_sent = swap_figure(s, sent);
        if (!out || out->size() != 128) std::abort();
        run_stats phases;
        report(ge, phases);
        const double ind = swap_figure(s, phases.independent.seconds), dep = swap_figure(s, phases.dependent.seconds),
                     onl = swap_figure(s, phases.online.seconds);
        if (r == 0) continue;
        // Each phase ends when the later party finishes it.
        independent.push_back(std::max(ind, phases.independent.seconds));
        dependent.push_back(std::max(dep, phases.dependent.seconds));
        online.push_back(std::max(onl, phases.online.seconds));
        seconds.push_back(std::max(mine, theirs));
        cpu.push_back(std::max(my_cpu, their_cpu));
        sent_a = alice ? sent : their_sent;
        sent_b = alice ? their_sent : sent;
    }
    if (!alice) return;
    const double med = bench::median(seconds);
    if (c.opt.json) {
        std::cout << bench::record("malicious", "aes_single")
                         .add_string("extension", e.name)
                         .add("setup_seconds", setup)
                         .add("seconds", med)
                         .add("seconds_min", bench::minimum(seconds))
                         .add("reps", seconds.size())
                         .add("cpu_seconds", bench::median(cpu))
                         .add("independent_seconds", bench::median(independent))
                         .add("dependent_seconds", bench::median(dependent))
                         .add("online_seconds", bench::median(online))
                         .add("bytes_alice", sent_a)
                         .add("bytes_bob", sent_b)
                         .json()
                  << "\n";
    } else {
        std::printf("[%s] aes-128 single execution, authenticated garbling: %.2f ms (min %.2f, CPU %.2f ms), set-up "
                    "%.2f ms, %.0f kB Alice -> Bob, %.0f kB Bob -> Alice\n"
                    "  phases (medians): independent preprocessing %.2f ms, dependent %.2f ms, online %.2f ms\n",
                    e.name, med * 1e3, bench::minimum(seconds) * 1e3, bench::median(cpu) * 1e3, setup * 1e3, sent_a / 1e3,
                    sent_b / 1e3, bench::median(independent) * 1e3, bench::median(dependent) * 1e3,
                    bench::median(online) * 1e3);
    }
}

/// AES-128 amortised: `prepare` of n executions (the offline phases, in
/// bulk), then n runs one after another on prepared material (the online
/// phase alone), each party's time from its first call to its last output.
void bench_aes_amortised(const config& c, session& s, const extension_choice& e) {
    net::channel& ch = s.channel();
    const party me = s.me();
    const bool alice = me == party::alice;
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    auth_stack stack(ch, me, e.extension);
    auth::garbler_evaluator& ge = stack.ge;
    std::vector<std::uint8_t> bits(128, 0);
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint8_t>((i * 5 + (alice ? 2 : 1)) % 3 == 0);
    const std::size_t n = c.opt.quick ? 32 : 1024;
    (void)ge.run(ch, aes, bits);  // warm-up
    ch.flush();
    barrier(s);
    std::uint64_t sent0 = ch.bytes_sent();
    double cpu0 = cpu_seconds();
    auto t0 = clock_type::now();
    ge.prepare(ch, aes, n);
    ch.flush();
    const double offline = since(t0), offline_cpu = cpu_seconds() - cpu0;
    const double offline_sent = double(ch.bytes_sent() - sent0);
    const double rss = double(bench::peak_rss_bytes());
    run_stats phases;
    report(ge, phases);
    barrier(s);
    std::vector<double> latency;
    sent0 = ch.bytes_sent();
    cpu0 = cpu_seconds();
    t0 = clock_type::now();
    for (std::size_t k = 0; k < n; ++k) {
        const auto t1 = clock_type::now();
        const auto out = ge.run(ch, aes, bits);
        if (!out || out->size() != 128) std::abort();
        latency.push_back(since(t1));
    }
    ch.flush();
    const double online = since(t0), online_cpu = cpu_seconds() - cpu0;
    const double online_sent = double(ch.bytes_sent() - sent0);
    const double their_offline = swap_figure(s, offline), their_online = swap_figure(s, online);
    const double their_offline_cpu = swap_figure(s, offline_cpu), their_online_cpu = swap_figure(s, online_cpu);
    const double their_offline_sent = swap_figure(s, offline_sent), their_online_sent = swap_figure(s, online_sent);
    const double their_rss = swap_figure(s, rss);
    const double independent = std::max(phases.independent.seconds, swap_figure(s, phases.independent.seconds));
    const double dependent = std::max(phases.dependent.seconds, swap_figure(s, phases.dependent.seconds));
    const double their_median = swap_figure(s, bench::median(latency));
    if (!alice) return;
    const double off = std::max(offline, their_offline) / double(n), on = std::max(online, their_online) / double(n);
    const double med = std::max(bench::median(latency), their_median);
    if (c.opt.json) {
        std::cout << bench::record("malicious", "aes_amortised")
                         .add_string("extension", e.name)
                         .add("executions", n)
                         .add("offline_seconds_per_aes", off)
                         .add("independent_seconds_per_aes", independent / double(n))
                         .add("dependent_seconds_per_aes", dependent / double(n))
                         .add("online_seconds_per_aes", on)
                         .add("online_median_seconds", med)
                         .add("offline_cpu_per_aes", std::max(offline_cpu, their_offline_cpu) / double(n))
                         .add("online_cpu_per_aes", std::max(online_cpu, their_online_cpu) / double(n))
                         .add("offline_bytes_alice_per_aes", offline_sent / double(n))
                         .add("offline_bytes_bob_per_aes", their_offline_sent / double(n))
                         .add("online_bytes_alice_per_aes", online_sent / double(n))
                         .add("online_bytes_bob_per_aes", their_online_sent / double(n))
                         .add("peak_rss_alice", rss)
                         .add("peak_rss_bob", their_rss)
                         .json()
                  << "\n";
    } else {
        std::printf("[%s] aes-128 amortised over %zu prepared executions: offline %.3f ms + online %.3f ms per AES "
                    "(online median %.3f ms; CPU %.3f + %.3f ms), per AES offline %.0f kB Alice -> Bob, %.0f kB "
                    "Bob -> Alice, online %.2f kB, %.2f kB; peak RSS %.0f, %.0f MiB\n"
                    "  offline phases per AES: independent %.3f ms, dependent %.3f ms\n",
                    e.name, n, off * 1e3, on * 1e3, med * 1e3, std::max(offline_cpu, their_offline_cpu) / double(n) * 1e3,
                    std::max(online_cpu, their_online_cpu) / double(n) * 1e3, offline_sent / double(n) / 1e3,
                    their_offline_sent / double(n) / 1e3, online_sent / double(n) / 1e3,
                    their_online_sent / double(n) / 1e3, rss / 1048576, their_rss / 1048576,
                    independent / double(n) * 1e3, dependent / double(n) * 1e3);
    }
}

/// What both SHA-256 chain cases report: the slower party's time, both
/// parties' bytes and peak RSS, each phase's slower party (swap_figure: both
/// parties construct it at the same point).
struct chain_figures {
    double k, ands, t, cpu, sent, their_sent, independent, dependent, online, rss, their_rss;

    chain_figures(session& s, std::uint64_t compressions, double and_gates, double seconds, double my_cpu,
                  double my_sent, const run_stats& phases)
        : k(double(compressions)), ands(and_gates), t(std::max(seconds, swap_figure(s, seconds))),
          cpu(std::max(my_cpu, swap_figure(s, my_cpu))), sent(my_sent), their_sent(swap_figure(s, my_sent)),
          independent(std::max(phases.independent.seconds, swap_figure(s, phases.independent.seconds))),
          dependent(std::max(phases.dependent.seconds, swap_figure(s, phases.dependent.seconds))),
          online(std::max(phases.online.seconds, swap_figure(s, phases.online.seconds))),
          rss(double(bench::peak_rss_bytes())), their_rss(swap_figure(s, rss)) {}

    bench::record record(const char* name) const {
        bench::record r("malicious", name);
        r.add("compressions", k)
            .add("and_gates", ands)
            .add("seconds", t)
            .add("and_per_s", ands / t)
            .add("cpu_seconds", cpu)
            .add("bytes_alice", sent)
            .add("bytes_bob", their_sent)
            .add("independent_seconds", independent)
            .add("dependent_seconds", dependent)
            .add("online_seconds", online)
            .add("peak_rss_alice", rss)
            .add("peak_rss_bob", their_rss);
        return r;
    }
    std::string summary() const {
        char line[320];
        std::snprintf(line, sizeof line,
                      "%.3f s, %.2f M AND/s (CPU %.3f s), %.1f B/AND Alice -> Bob, %.1f B/AND Bob -> Alice; "
                      "phases %.3f + %.3f + %.3f s; peak RSS %.0f, %.0f MiB",
                      t, ands / t / 1e6, cpu, sent / ands, their_sent / ands, independent, dependent, online,
                      rss / 1048576, their_rss / 1048576);
        return line;
    }
};

/// --case sha256: one execution of a chain of SHA-256 compressions.
void bench_sha256_chain(const config& c, session& s, const extension_choice& e) {
    net::channel& ch = s.channel();
    const party me = s.me();
    const bool alice = me == party::alice;
    const std::size_t k = c.opt.quick ? 2 : 45;
    const circuit<> chain = compile(
        [k](const lib::sha256_state& start, const lib::sha256_block& m) {
            lib::sha256_state h = start;
            for (std::size_t i = 0; i < k; ++i) h = lib::sha256_compress(h, m);
            return h;
        },
        input<party::alice, lib::sha256_state>, input<party::bob, lib::sha256_block>);
    std::mt19937_64 bits_rng(2030);
    std::vector<std::vector<bool>> all{std::vector<bool>(256), std::vector<bool>(512)};
    for (auto& v : all)
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = (bits_rng() & 1) != 0;
    std::vector<std::uint8_t> mine;
    for (const bool b : all[alice ? 0 : 1]) mine.push_back(b ? 1 : 0);
    std::vector<std::uint8_t> expected;
    for (const auto& v : eval_plain_bits(chain, all))
        for (const bool b : v) expected.push_back(b ? 1 : 0);
    auth_stack stack(ch, me, e.extension);
    auth::garbler_evaluator& ge = stack.ge;
    // Each repetition a fresh execution; the first also pays for the
    // process's fresh pages (the kernel zeroes them), so it is shown apart.
    std::vector<double> times, cpus;
    double sent = 0;
    run_stats phases;
    for (int rep = 0; rep < c.opt.reps; ++rep) {
        barrier(s);
        const std::uint64_t sent0 = ch.bytes_sent();
        const double cpu0 = cpu_seconds();
        const auto t0 = clock_type::now();
        const auto out = ge.run(ch, chain, mine);
        ch.flush();
        times.push_back(since(t0));
        cpus.push_back(cpu_seconds() - cpu0);
        if (!out || *out != expected) {
            std::cerr << "bench_malicious: the SHA-256 chain's output differs from plaintext\n";
            std::abort();
        }
        sent = double(ch.bytes_sent() - sent0);
        report(ge, phases);
    }
    const double first = swap_figure(s, times.front());
    const chain_figures f(s, k, double(ge.and_gates()), bench::median(times), bench::median(cpus), sent, phases);
    if (!alice) return;
    const double cold = std::max(times.front(), first);
    if (c.opt.json)
        std::cout << f.record("sha256_chain")
                         .add_string("extension", e.name)
                         .add("reps", c.opt.reps)
                         .add("first_run_seconds", cold)
                         .json()
                  << "\n";
    else
        std::printf("[%s] sha-256 chain of %zu compressions (%.0f ANDs), one execution (the process's first: %.3f s): "
                    "%s\n", e.name, k, f.ands, cold, f.summary().c_str());
}

/// SHA-256's compression function on plain words (FIPS 180-4 §6.2.2), to
/// check the streamed chain's output.
std::array<std::uint32_t, 8> sha256_compress_plain(const std::array<std::uint32_t, 8>& h,
                                                   const std::array<std::uint32_t, 16>& m) {
    const auto rotr = [](std::uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); };
    std::array<std::uint32_t, 64> w{};
    for (std::size_t t = 0; t < 16; ++t) w[t] = m[t];
    for (std::size_t t = 16; t < 64; ++t) {
        const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (std::size_t t = 0; t < 64; ++t) {
        const std::uint32_t t1 = v[7] + (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25)) +
                                 ((v[4] & v[5]) ^ (~v[4] & v[6])) + tandem::detail::sha256_k[t] + w[t];
        const std::uint32_t t2 = (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22)) +
                                 ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        for (std::size_t i = 7; i > 0; --i) v[i] = v[i - 1];
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (std::size_t i = 0; i < 8; ++i) v[i] += h[i];
    return v;
}

/// --case stream: one streamed run of a long SHA-256 chain in malicious mode.
void bench_stream_chain(const config& c, session& s) {
    const bool alice = s.me() == party::alice;
    const std::uint64_t wanted = c.ands ? c.ands : c.opt.quick ? 1'000'000 : 100'000'000;
    const std::uint64_t per_compression =
        compile([](const lib::sha256_state& h, const lib::sha256_block& m) { return lib::sha256_compress(h, m); },
                input<party::alice, lib::sha256_state>, input<party::bob, lib::sha256_block>)
            .stats()
            .and_gates;
    const std::uint64_t k = std::max<std::uint64_t>(1, (wanted + per_compression - 1) / per_compression);
    auto fn = stream(
        [k](const lib::sha256_state& start, const lib::sha256_block& m) {
            lib::sha256_state h = start;
            for (std::uint64_t i = 0; i < k; ++i) h = lib::sha256_compress(h, m);
            return h;
        },
        input<party::alice, lib::sha256_state>, input<party::bob, lib::sha256_block>);
    if (c.segment_ands) fn.segment_ands = c.segment_ands;
    std::mt19937_64 rng(2030);
    std::array<std::uint32_t, 8> start{};
    std::array<std::uint32_t, 16> block{};
    for (auto& w : start) w = static_cast<std::uint32_t>(rng());
    for (auto& w : block) w = static_cast<std::uint32_t>(rng());
    std::array<std::uint32_t, 8> expected = start;
    for (std::uint64_t i = 0; i < k; ++i) expected = sha256_compress_plain(expected, block);
    barrier(s);
    const double cpu0 = cpu_seconds();
    const auto t0 = clock_type::now();
    const std::array<std::uint32_t, 8> got = alice ? s.run(fn, start) : s.run(fn, block);
    const double seconds = since(t0), cpu = cpu_seconds() - cpu0;
    if (got != expected) {
        std::cerr << "bench_malicious: the streamed SHA-256 chain's output differs from plaintext\n";
        std::abort();
    }
    const run_stats r = s.last_run();
    const chain_figures f(s, k, double(r.and_gates), seconds, cpu, double(r.bytes_sent), r);
    if (!alice) return;
    const std::uint64_t segment = c.segment_ands ? c.segment_ands : default_segment_ands;
    const char* extension = c.session().malicious_ot == cot_extension::silent ? "ferret" : "softspoken-k4";
    if (c.opt.json)
        std::cout << f.record("sha256_stream")
                         .add_string("extension", extension)
                         .add("segment_ands", segment)
                         .add("threads", c.opt.threads)
                         .json()
                  << "\n";
    else
        std::printf("[%s] streamed sha-256 chain of %llu compressions (%.0f ANDs, segments of %llu): %s\n", extension,
                    static_cast<unsigned long long>(k), f.ands, static_cast<unsigned long long>(segment),
                    f.summary().c_str());
}

/// --case wide: 64 AES-128 blocks under one key in one compiled circuit,
/// run by a malicious session with the session's threads.
void bench_wide(const config& c, session& s) {
    constexpr std::size_t blocks = 64;
    using many = std::array<lib::aes_block, blocks>;
    const auto wide = compile(
        [](const lib::aes_key<16>& k, const many& in) {
            const auto round_keys = lib::aes_expand_key(k);
            many out;
            for (std::size_t i = 0; i < blocks; ++i) out[i] = lib::aes_encrypt_expanded(round_keys, in[i]);
            return out;
        },
        input<party::alice, lib::aes_key<16>>, input<party::bob, many>);
    const bool alice = s.me() == party::alice;
    std::mt19937_64 rng(2031);
    std::array<std::uint8_t, 16> key{};
    std::array<std::array<std::uint8_t, 16>, blocks> in{};
    for (auto& b : key) b = static_cast<std::uint8_t>(rng());
    for (auto& block : in)
        for (auto& b : block) b = static_cast<std::uint8_t>(rng());
    const auto expected = wide.eval_plain(key, in);
    std::vector<double> seconds, independent, dependent, online;
    run_stats last;
    for (int r = 0; r < c.opt.reps + 1; ++r) {  // the first is a warm-up
        barrier(s);
        const auto t0 = clock_type::now();
        const auto got = alice ? s.run(wide, key) : s.run(wide, in);
        const double t = since(t0);
        if (got != expected) {
            std::cerr << "bench_malicious: the wide AES circuit's output differs from plaintext\n";
            std::abort();
        }
        last = s.last_run();
        if (r == 0) continue;
        seconds.push_back(std::max(t, swap_figure(s, t)));
        independent.push_back(std::max(last.independent.seconds, swap_figure(s, last.independent.seconds)));
        dependent.push_back(std::max(last.dependent.seconds, swap_figure(s, last.dependent.seconds)));
        online.push_back(std::max(last.online.seconds, swap_figure(s, last.online.seconds)));
    }
    const double ands = double(last.and_gates), sent = double(last.bytes_sent), their_sent = swap_figure(s, sent);
    if (!alice) return;
    const char* extension = c.session().malicious_ot == cot_extension::silent ? "ferret" : "softspoken-k4";
    const double t = bench::median(seconds);
    if (c.opt.json)
        std::cout << bench::record("malicious", "wide_aes")
                         .add_string("extension", extension)
                         .add("threads", c.opt.threads)
                         .add("and_gates", ands)
                         .add("seconds", t)
                         .add("and_per_s", ands / t)
                         .add("independent_seconds", bench::median(independent))
                         .add("dependent_seconds", bench::median(dependent))
                         .add("online_seconds", bench::median(online))
                         .add("bytes_alice", sent)
                         .add("bytes_bob", their_sent)
                         .json()
                  << "\n";
    else
        std::printf("[%s] 64 AES-128 blocks in one circuit (%.0f ANDs), threads %d: %.3f s (min %.3f), %.2f M AND/s; "
                    "phases %.3f + %.3f + %.3f s; %.1f + %.1f B/AND\n",
                    extension, ands, c.opt.threads, t, bench::minimum(seconds), ands / t / 1e6,
                    bench::median(independent), bench::median(dependent), bench::median(online), sent / ands,
                    their_sent / ands);
}

bool wants(const std::string& which, const std::string& name) { return which == "all" || which == name; }

int party_main(const config& c, session s) {
    if (wants(c.which, "cot")) bench_cot(c, s);
    if (wants(c.which, "triples")) bench_triples(c, s);
    for (const extension_choice& e : extensions(c)) {
        if (wants(c.which, "aes")) bench_aes(c, s, e);
        if (wants(c.which, "aes")) bench_aes_amortised(c, s, e);
        if (wants(c.which, "sha256")) bench_sha256_chain(c, s, e);
    }
    if (c.which == "stream") bench_stream_chain(c, s);
    if (c.which == "wide") bench_wide(c, s);
    return 0;
}

}  // namespace

/// --case seal: GB/s of one record size through each AEAD, in this process.
int bench_seal(const config& c) {
    if (sodium_init() < 0) return 1;
    const std::size_t records = c.opt.quick ? 512 : 8192, n = net::secure_channel::max_payload;
    std::vector<std::uint8_t> plain(n, 0x5a), sealed(n + 16), opened(n);
    std::uint8_t key[32] = {30}, nonce[12] = {};
    const auto rate = [&](std::string name, const std::function<void(std::size_t)>& one) {
        std::vector<double> gbs, seconds;
        for (int r = 0; r < std::max(c.opt.reps, 1); ++r) {
            const auto t0 = clock_type::now();
            for (std::size_t i = 0; i < records; ++i) one(i);
            seconds.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
            gbs.push_back(static_cast<double>(records * n) / seconds.back() / 1e9);
        }
        if (c.opt.json) {
            std::string key = "seal " + name;
            std::replace(key.begin(), key.end(), ' ', '_');
            std::replace(key.begin(), key.end(), '-', '_');
            std::cout << bench::record("malicious", key)
                             .add("seconds", bench::median(seconds))
                             .add("seconds_min", bench::minimum(seconds))
                             .add("reps", seconds.size())
                             .add("bytes", records * n)
                             .add("gb_per_second", bench::median(gbs))
                             .json()
                      << "\n";
        } else {
            std::printf("%-34s %6.2f GB/s (min %.2f)\n", name.c_str(), bench::median(gbs), bench::minimum(gbs));
        }
    };
#if TANDEM_X86
    const aes_isa before = active_aes_isa();
    for (const aes_isa isa : all_aes_isas) {
        if (!cpu_supports(isa) || isa == aes_isa::armv8) continue;
        use_aes_isa(isa);
        aes256_gcm g(key);
        const std::string tag = "aes256-gcm " + std::string(tandem::to_string(isa));
        rate(tag + " seal", [&](std::size_t i) {
            nonce[0] = static_cast<std::uint8_t>(i);
            g.seal(nonce, nullptr, 0, plain.data(), n, sealed.data(), sealed.data() + n);
        });
        rate(tag + " open", [&](std::size_t) {
            if (!g.open(nonce, nullptr, 0, sealed.data(), n, sealed.data() + n, opened.data())) std::abort();
        });
    }
    use_aes_isa(before);
#endif
    unsigned long long len = 0;
    if (crypto_aead_aes256gcm_is_available())
        rate("libsodium aes256-gcm seal", [&](std::size_t i) {
            nonce[0] = static_cast<std::uint8_t>(i);
            crypto_aead_aes256gcm_encrypt(sealed.data(), &len, plain.data(), n, nullptr, 0, nullptr, nonce, key);
        });
    rate("libsodium chacha20-poly1305 seal", [&](std::size_t i) {
        nonce[0] = static_cast<std::uint8_t>(i);
        crypto_aead_chacha20poly1305_ietf_encrypt(sealed.data(), &len, plain.data(), n, nullptr, 0, nullptr, nonce, key);
    });
    return 0;
}

/// The silent extension's code alone (ot/lpn.hpp): ns per output of one
/// batch of the steady round, and of deriving its rows alone.
int bench_lpn(const config& c) {
    const std::size_t k = ot::ferret_main.k, n = std::size_t{1} << 18, batches = c.opt.quick ? 2 : 20;
    tandem::detail::big_vector<block> seeds(k), out(n);
    prg rng(block(0, 55));
    rng.fill(seeds.data(), k);
    rng.fill(out.data(), n);
    const auto rate = [&](const char* name, const std::function<void(std::size_t)>& batch) {
        std::vector<double> ns, seconds;
        for (int r = 0; r < std::max(c.opt.reps, 1) + 1; ++r) {  // the first is a warm-up
            const auto t0 = clock_type::now();
            for (std::size_t b = 0; b < batches; ++b) batch(b);
            if (r == 0) continue;
            seconds.push_back(since(t0));
            ns.push_back(seconds.back() / double(batches * n) * 1e9);
        }
        if (c.opt.json)
            std::cout << bench::record("malicious", std::string("lpn_") + name)
                             .add("seconds", bench::median(seconds))
                             .add("seconds_min", bench::minimum(seconds))
                             .add("reps", seconds.size())
                             .add("k", k)
                             .add("outputs", batches * n)
                             .add("ns_per_output", bench::median(ns))
                             .add("ns_per_output_min", bench::minimum(ns))
                             .json()
                      << "\n";
        else
            std::printf("lpn %-8s k = %zu: %6.2f ns per output (min %.2f)\n", name, k, bench::median(ns),
                        bench::minimum(ns));
    };
    rate("encode", [&](std::size_t b) { ot::detail::lpn_encode(1, b * n, n, k, seeds.data(), out.data()); });
    std::uint32_t rows[ot::detail::lpn_group * ot::detail::lpn_weight];
    rate("rows", [&](std::size_t b) {
        for (std::size_t i = 0; i < n; i += ot::detail::lpn_group) ot::detail::lpn_rows(1, b * n + i, ot::detail::lpn_group, k, rows);
    });
    return rows[0] == k;  // (never: keeps the rows alive)
}

int main(int argc, char** argv) {
    config c;
    std::vector<char*> common{argv[0]};
    std::vector<std::string> passthrough;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--case" && i + 1 < argc) {
            c.which = argv[++i];
            passthrough.insert(passthrough.end(), {"--case", c.which});
        } else if (a == "--ot" && i + 1 < argc) {
            c.only = argv[++i];
            passthrough.insert(passthrough.end(), {"--ot", c.only});
        } else if ((a == "--ands" || a == "--segment-ands") && i + 1 < argc) {
            (a == "--ands" ? c.ands : c.segment_ands) = std::stoull(argv[i + 1]);
            passthrough.insert(passthrough.end(), {a, argv[++i]});
        } else if (a == "--seal") {
            c.seal = true;
            passthrough.push_back(a);
        } else if (a == "--bob-port" && i + 1 < argc) {
            c.is_bob = true;
            c.port = static_cast<std::uint16_t>(std::stoi(argv[++i]));
        } else {
            common.push_back(argv[i]);
            passthrough.push_back(a);
        }
    }
    if (c.which != "all" && c.which != "cot" && c.which != "triples" && c.which != "aes" && c.which != "sha256" &&
        c.which != "stream" && c.which != "wide" && c.which != "seal" && c.which != "lpn") {
        std::cerr << "bench_malicious: unknown --case " << c.which
                  << " (cot, lpn, triples, aes, sha256, stream, wide, seal or all)\n";
        return 2;
    }
    c.opt = bench::parse(static_cast<int>(common.size()), common.data(),
                         "bench_malicious [--case cot|lpn|triples|aes|sha256|stream|wide|seal|all] [--seal] [--ands N] "
                         "[--segment-ands N]");
    if (c.which == "lpn") {
        pin_to_core(0);
        return bench_lpn(c);
    }
    if (!c.is_bob && (c.which == "seal" || c.which == "all")) {
        pin_to_core(0);
        if (const int status = bench_seal(c); status != 0 || c.which == "seal") return status;
    }
    try {
        if (c.is_bob) {
            c.pin_party(1);
            return party_main(c, session::connect(party::bob, "127.0.0.1", c.port, c.session()));
        }
        net::tcp_listener listener(0, "127.0.0.1");
        std::vector<std::string> args{argv[0], "--bob-port", std::to_string(listener.port())};
        args.insert(args.end(), passthrough.begin(), passthrough.end());
        const pid_t bob = bench::spawn_self(args);
        c.pin_party(0);
        if (!c.opt.json)
            std::printf("bench_malicious: two processes over loopback TCP, pinned to cores of their own (nproc %u), AES "
                        "kernels %s%s\n",
                        std::thread::hardware_concurrency(), tandem::to_string(tandem::active_aes_isa()),
                        c.seal ? ", sealed link (Noise NNpsk0)" : "");
        const int status = party_main(c, session::accept(party::alice, listener, c.session()));
        const bool bob_ok = bench::wait_ok(bob);
        return status != 0 ? status : bob_ok ? 0 : 1;
    } catch (const tandem::error& e) {
        std::cerr << "bench_malicious (" << (c.is_bob ? "bob" : "alice") << "): " << e.what() << "\n";
        return 1;
    }
}
