// bench_mpi — a party's work spread over MPI ranks (issue 31):
//
//   mpirun -np R bench_mpi [--reps N] [--quick] [--json]
//       offline garbling (mpi/garble.hpp): paper 001's BioMatch (512 entries,
//       4 dimensions; --quick: 64) garbled over R ranks into discarding
//       sinks, --reps times after a warm-up; the time is rank 0's from the
//       call to the garbled outputs (it waits for every rank's part).
//   mpirun -np R bench_mpi --party alice|bob --port P [--host H] [...]
//       two-party runs (mpi/session.hpp): one session with R ranks per party
//       (the other party started alike), BioMatch run --reps times after a
//       warm-up; the time is rank 0's for s.run (OT, tables, outputs).
//       With --security malicious: authenticated garbling on links sealed
//       with a fixed pre-shared key (a benchmark's), every rank making its
//       part of each run's AND triples on its link.
//
//   bench_mpi --model [--ranks-per-host K]
//       the model of issue 31 (bench/RESULTS.md): from the plans tandem makes
//       for R = 1 … 64 ranks and the rates measured here, the predicted
//       offline and two-party times of BioMatch, MExp, MVMul and a tiled
//       4095-symbol edit distance, on this machine and on a 10 Gbit/s cluster.
//
// The median is printed with M AND/s. Compare -np 1 and -np 2 in the same
// session (docs/BENCH.md).
#include "../examples/apps.hpp"
#include "common.hpp"

#include <tandem/crypto/prg.hpp>
#include <tandem/mpi.hpp>
#include <tandem/tandem.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <iostream>
#include <vector>

namespace {

struct alignas(64) folding_sink {
    tandem::block sum;
    void write(const tandem::block* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) sum ^= p[i];
    }
};
volatile std::uint64_t checksum = 0;  // keeps the discarded tables observable

/// --party/--port/--host, taken out of argv before bench::parse reads the rest.
struct peer_options {
    std::optional<tandem::party> party;
    std::uint16_t port = 0;
    std::string host = "127.0.0.1";
    bool malicious = false;
};
peer_options take_peer_options(int& argc, char** argv) {
    peer_options p;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--party" || a == "--port" || a == "--host" || a == "--security") && i + 1 < argc) {
            const std::string v = argv[++i];
            if (a == "--party") p.party = v == "bob" ? tandem::party::bob : tandem::party::alice;
            else if (a == "--port") p.port = static_cast<std::uint16_t>(std::stoi(v));
            else if (a == "--security") p.malicious = v == "malicious";
            else p.host = v;
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    return p;
}

/// What the model needs of a machine or cluster (bench/RESULTS.md, issue 31).
struct machine_model {
    const char* name;
    double garble;     ///< ANDs per second one rank garbles offline
    double two_party;  ///< ANDs per second one rank pair runs (garbler and evaluator, one core each)
    double handover;   ///< bytes per second rank 0 gathers and posts labels
    double party_net;  ///< bytes per second between two ranks of a party
    double latency;    ///< seconds a remote part's round trip adds (wake-ups, messages)
    double link;       ///< bytes per second between the parties, per host (0: not a limit)
    double cores;      ///< cores per party (0: one per rank)
    double fixed;      ///< seconds of a two-party run outside the plan (OT, inputs, outputs)
};

/// A step of the plan as the model sees it: ANDs, input and output labels per worker.
struct step_load {
    std::vector<double> ands, in, out;
};

/// Predicted seconds for running `steps` over R ranks at `rate` ANDs per
/// second per rank: per region step, rank 0 hands every remote part over
/// (its labels, serially), then runs its own part while each remote rank
/// receives its labels, waits out the latency, runs its part and sends its
/// outputs back; rank 0 then scatters them. Steps follow each other.
double predict(const std::vector<step_load>& steps, const machine_model& m, double rate) {
    double t = 0;
    for (const step_load& s : steps) {
        double hand = 0, remote = 0, back = 0;
        for (std::size_t w = 1; w < s.ands.size(); ++w) {
            if (s.ands[w] == 0) continue;
            hand += 16 * s.in[w] / m.handover;
            remote = std::max(remote, m.latency + 16 * (s.in[w] + s.out[w]) / m.party_net + s.ands[w] / rate);
            back += 16 * s.out[w] / m.handover;
        }
        t += hand + std::max(s.ands[0] / rate, remote) + back;
    }
    return t;
}

/// The plan of c over R ranks, step by step.
std::vector<step_load> loads_of(const tandem::circuit<>& circ, std::uint32_t ranks) {
    const tandem::exec::plan p = tandem::exec::make_plan(circ, ranks, tandem::exec::remote_min_part_ands, false);
    const tandem::circuit_data& c = circ.data();
    std::vector<step_load> steps;
    for (std::size_t k = 0; k < c.steps.size(); ++k) {
        step_load l{std::vector<double>(ranks), std::vector<double>(ranks), std::vector<double>(ranks)};
        const tandem::step& st = c.steps[k];
        if (st.kind == tandem::step_kind::sequential) {
            for (std::uint32_t v = st.level_begin; v < st.level_end; ++v) l.ands[0] += c.levels[v].and_count();
        } else {
            const tandem::region_data& r = c.regions[st.region];
            for (std::uint32_t w = 0; w < ranks; ++w)
                for (std::uint32_t i = p.steps[k].parts[w].begin; i < p.steps[k].parts[w].end; ++i) {
                    const tandem::circuit_data& b = r.bodies[r.instances[i].body];
                    l.ands[w] += static_cast<double>(tandem::detail::count_gates(b).and_gates);
                    l.in[w] += b.input_bits;
                    l.out[w] += static_cast<double>(b.output_slots.size());
                }
        }
        steps.push_back(std::move(l));
    }
    return steps;
}

/// The 4095-symbol edit distance (2 letters, 4 ANDs a cell) cut into T × T
/// tiles, each anti-diagonal of tiles one region (its tiles independent): a
/// tile reads its T symbols of each string and the 2T deltas (2 bits each)
/// entering it, writes the 2T leaving. Tiles go to ranks in contiguous
/// parts, as the planner cuts a region. Not an app yet: counted here.
std::vector<step_load> edit_distance_tiles(std::size_t n, std::size_t tile, std::uint32_t ranks) {
    const std::size_t k = (n + tile - 1) / tile;
    std::vector<step_load> steps;
    for (std::size_t d = 0; d + 1 < 2 * k; ++d) {
        const std::size_t tiles = d < k ? d + 1 : 2 * k - 1 - d;
        step_load l{std::vector<double>(ranks), std::vector<double>(ranks), std::vector<double>(ranks)};
        const std::size_t parts = std::min<std::size_t>(ranks, tiles);
        for (std::size_t w = 0; w < parts; ++w) {
            const double mine = static_cast<double>(tiles * (w + 1) / parts - tiles * w / parts);
            l.ands[w] = mine * 4.0 * static_cast<double>(tile * tile);
            l.in[w] = mine * 6.0 * static_cast<double>(tile);
            l.out[w] = mine * 4.0 * static_cast<double>(tile);
        }
        steps.push_back(std::move(l));
    }
    return steps;
}

/// --model: predictions for R = 1 … 64 on this machine and a 10 Gbit/s cluster.
int model(const bench::options& opt, double ranks_per_host) {
    // Measured on the development VM (AMD EPYC, 2 vCPUs; bench/RESULTS.md, issue 31): one rank
    // garbles 83 M AND/s offline and a rank pair runs 46 M AND/s; rank 0 gathers and posts 2 MB of
    // labels in 1.7 ms; rank 1 takes them in 0.5 ms; a part's round trip adds 1.5 ms (rank 1 waking
    // for the header, receiving the bodies, rank 0's thread waking for the reply). The cluster keeps
    // the per-rank rates, moves labels at 10 Gbit/s with 0.1 ms more latency, and carries every
    // host's tables (32 bytes per AND) over one 10 Gbit/s link to the peer.
    const machine_model here{"this VM (2 cores, shared memory)", 83e6, 46e6, 1.2e9, 4e9, 1.5e-3, 0, 2, 0.0};
    const machine_model cluster{"10 Gbit/s cluster", 83e6, 46e6, 1.2e9, 1.25e9, 1.6e-3, 1.25e9, 0, 0.0};
    struct app {
        std::string name;
        std::function<std::vector<step_load>(std::uint32_t)> loads;
    };
    const tandem::circuit<> bio = apps::biomatch_circuit<512, 4>(), mexp = apps::mexp_circuit<32>(),
                            mv = apps::mvmul_circuit<16, 16>();
    const std::vector<app> apps_ = {
        {"biomatch-512", [&](std::uint32_t r) { return loads_of(bio, r); }},
        {"mexp-32", [&](std::uint32_t r) { return loads_of(mexp, r); }},
        {"mvmul-16", [&](std::uint32_t r) { return loads_of(mv, r); }},
        {"edit-distance-4095-tiles-128", [&](std::uint32_t r) { return edit_distance_tiles(4095, 128, r); }},
    };
    for (const app& a : apps_)
        for (const std::uint32_t R : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
            const std::vector<step_load> steps = a.loads(R);
            double ands = 0;
            for (const step_load& s : steps)
                for (const double x : s.ands) ands += x;
            for (const machine_model* m : {&here, &cluster}) {
                if (m == &here && R > 2) continue;
                // Ranks share a party's cores (here: one core per party when both run, two offline);
                // on the cluster each host's link carries its ranks' tables (32 bytes per AND).
                const double share_off = m->cores > 0 ? std::min(1.0, m->cores / R) : 1.0;
                const double share_two = m->cores > 0 ? std::min(1.0, m->cores / 2 / R) : 1.0;
                double two_rate = m->two_party * share_two;
                if (m->link > 0) two_rate = std::min(two_rate, m->link / 32 / std::min<double>(R, ranks_per_host));
                const double off = predict(steps, *m, m->garble * share_off);
                const double two = m->fixed + predict(steps, *m, two_rate);
                if (opt.json)
                    std::cout << bench::record("mpi", "model")
                                     .add_string("circuit", a.name)
                                     .add_string("machine", m->name)
                                     .add("ranks", R)
                                     .add("ranks_per_host", m->link > 0 ? std::min<double>(R, ranks_per_host) : R)
                                     .add("and_gates", ands)
                                     .add("offline_seconds", off)
                                     .add("two_party_seconds", two)
                                     .json()
                              << "\n";
                else
                    std::printf("%-30s %-34s R = %2u: %.3g ANDs, offline %.4f s, two-party %.4f s\n",
                                a.name.c_str(), m->name, R, ands, off, two);
            }
        }
    return 0;
}

/// Prints one case's median (a line, or JSON with --json).
void report(const char* what, const tandem::mpi::ranks& r, const bench::options& opt,
            const std::vector<double>& seconds, std::uint64_t ands) {
    const double t = bench::median(seconds);
    if (opt.json)
        std::cout << bench::record("mpi", what)
                         .add_string("circuit", opt.quick ? "biomatch-64" : "biomatch-512")
                         .add("ranks", r.size())
                         .add("and_gates", double(ands))
                         .add("seconds", t)
                         .add("and_per_s", double(ands) / t)
                         .add("reps", opt.reps)
                         .json()
                  << "\n";
    else
        std::printf("BioMatch %s, %s over %d rank(s)%s: %.4f s (median of %d), %.1f M AND/s, %llu ANDs\n",
                    opt.quick ? "64" : "512", what, r.size(),
                    std::string(what).starts_with("two_party") ? " per party" : "", t, opt.reps,
                    double(ands) / t / 1e6, static_cast<unsigned long long>(ands));
}

/// Two-party runs of BioMatch with this party's ranks as the session's workers.
int two_party(const tandem::mpi::ranks& r, const peer_options& peer, const bench::options& opt) {
    const tandem::party me = *peer.party;
    const tandem::circuit<> c = opt.quick ? tandem::circuit<>(apps::biomatch_circuit<64, 4>())
                                          : tandem::circuit<>(apps::biomatch_circuit<512, 4>());
    std::vector<std::vector<bool>> in;
    for (const tandem::value_layout& v : c.data().inputs) in.emplace_back(v.bits, v.bits % 3 == 0);
    std::vector<double> seconds;
    std::uint64_t ands = 0;
    tandem::session_options o;
    if (peer.malicious) {
        o.security = tandem::security::malicious;
        tandem::net::key_bytes psk{};
        for (std::size_t i = 0; i < psk.size(); ++i) psk[i] = static_cast<std::uint8_t>(i);
        o.encrypt_links = tandem::net::link_credentials::pre_shared(tandem::net::pre_shared_key(psk));
    }
    tandem::mpi::run(r, me, peer.host, peer.port, o, [&](tandem::session& s) {
        for (int rep = 0; rep <= opt.reps; ++rep) {  // the first is a warm-up
            const auto t0 = std::chrono::steady_clock::now();
            (void)s.run_bits(c, c.inputs_of(me, in));
            if (rep > 0) seconds.push_back(bench::since(t0));
            ands = s.last_run().and_gates;
        }
    });
    if (r.rank() == 0 && me == tandem::party::alice)
        report(peer.malicious ? "two_party_malicious" : "two_party", r, opt, seconds, ands);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    tandem::mpi::environment env(argc, argv);
    double ranks_per_host = 16;
    bool modelling = false;
    {
        int kept = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--model") modelling = true;
            else if (a == "--ranks-per-host" && i + 1 < argc) ranks_per_host = std::stod(argv[++i]);
            else argv[kept++] = argv[i];
        }
        argc = kept;
    }
    const peer_options peer = take_peer_options(argc, argv);
    const bench::options opt = bench::parse(argc, argv, "mpirun -np R bench_mpi [--party alice|bob --port P]");
    const tandem::mpi::ranks r;
    try {
        if (modelling) return r.rank() == 0 ? model(opt, ranks_per_host) : 0;
        if (peer.party) return two_party(r, peer, opt);
        const tandem::circuit<> c = opt.quick ? tandem::circuit<>(apps::biomatch_circuit<64, 4>())
                                              : tandem::circuit<>(apps::biomatch_circuit<512, 4>());
        tandem::prg rng;
        std::vector<tandem::block> zero(c.data().input_bits);
        rng.fill(zero.data(), zero.size());
        const tandem::gc::encoding enc(rng.next() | tandem::block(0, 1), zero);
        folding_sink sink;
        std::vector<double> seconds;
        std::uint64_t ands = 0;
        for (int rep = 0; rep <= opt.reps; ++rep) {  // the first is a warm-up
            tandem::mpi::check(MPI_Barrier(r.comm()), "MPI_Barrier");
            const auto t0 = std::chrono::steady_clock::now();
            const auto out = tandem::mpi::garble<tandem::rekeyed_hash>(r, c, enc, rng.next(), sink);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (out) ands = out->and_gates;
            if (rep > 0) seconds.push_back(s);
        }
        checksum = checksum ^ sink.sum.low();
        if (r.rank() == 0) report("offline_garble", r, opt, seconds, ands);
        return 0;
    } catch (const tandem::error& e) {
        std::fprintf(stderr, "bench_mpi (rank %d): %s\n", r.rank(), e.what());
        return 1;
    }
}
