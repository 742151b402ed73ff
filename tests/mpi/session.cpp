// test_mpi_session — one party of the tests of sessions over MPI ranks
// (mpi/session.hpp; tests/mpi/pair.sh runs Alice's and Bob's mpirun side by
// side, each rank linked to the peer's rank of its number):
//
//   --case apps   paper 001's three applications (BioMatch, MVMul, MExp: their
//                 regions split between the ranks), the standard library's
//                 two-party sort and a random program, each compiled and run
//                 twice on seeded random inputs, and the streamed BioMatch:
//                 every result must equal plaintext on both parties. With
//                 --ipp yes, the same with IPP: both worlds on every rank,
//                 regions of 1,000 ANDs and more cut between them. With
//                 --scheme three-halves, garbled with three-halves.
//                 With --security malicious, the same with authenticated
//                 garbling on links sealed with a pre-shared key: every rank
//                 makes AND triples on its own link.
//   --case kill --die-rank K --die-after-ms M
//                 rank K of this party kills itself M ms after the first of
//                 a long series of runs completed (Open MPI's mpirun then
//                 ends this party's job);
//   --case kill --stall-rank K --stall-after-ms M
//                 rank K of this party stops (SIGSTOP) M ms after the first
//                 run completed:
//                 the others must report it lost ("failed on rank K",
//                 "not been heard from"; pair.sh reads this party's output),
//                 then the job ends with MPI_Abort;
//   --case kill --expect-failure yes --peer-dies-after-ms M
//                 the peer of such a party: every rank must fail with a
//                 tandem::error naming one of this party's ranks ("failed on
//                 rank K of R") and a lost link as the cause, not before the
//                 peer's rank died (M ms after the first run, less a second)
//                 and, on rank 0, within two deadlines after it; rank 0 must
//                 have completed a run first (the fault came mid-session).
//
// Every rank of --case apps also checks what its own links to the peer
// carried (mpi::run's link_totals): at least 64 KiB — tables, or in
// malicious mode AND triples, so a rank that did no work fails — and, in
// malicious mode, every link sealed.
//
//   test_mpi_session --party alice|bob --port P [--case C] [--timeout-ms T] ...
#include "../../examples/apps.hpp"
#include "../random_inputs.hpp"

#include <tandem/lib/sort.hpp>
#include <tandem/mpi.hpp>
#include <tandem/tandem.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace tandem;

/// A random program of additions, products, comparisons and selects.
circuit<> random_program(std::uint64_t seed) {
    return compile(
        [seed](const secure_uint<16>& a, const secure_uint<16>& b) {
            std::mt19937_64 rng(seed);
            std::vector<secure_uint<16>> v{a, b};
            for (int k = 0; k < 40; ++k) {
                const secure_uint<16>& x = v[rng() % v.size()];
                const secure_uint<16>& y = v[rng() % v.size()];
                switch (rng() % 4) {
                case 0: v.push_back(x + y); break;
                case 1: v.push_back(x * y); break;
                case 2: v.push_back(select(x < y, x, y)); break;
                default: v.push_back(x ^ (y >> 3)); break;
                }
            }
            return std::tuple{v[v.size() - 1], v[v.size() - 2]};
        },
        input<party::alice, secure_uint<16>>, input<party::bob, secure_uint<16>>);
}

/// The compiled programs of --case apps.
std::vector<std::pair<std::string, circuit<>>> programs() {
    using w32 = secure_uint<32>;
    return {
        {"BioMatch 64", apps::biomatch_circuit<64, 4>()},
        {"MVMul 8x8", apps::mvmul_circuit<8, 8>()},
        {"MExp 4", apps::mexp_circuit<4>()},
        {"sort 16+16", compile(
                           [](const std::array<w32, 16>& a, const std::array<w32, 16>& b) {
                               std::array<w32, 32> v;
                               for (std::size_t i = 0; i < 16; ++i) v[i] = a[i], v[16 + i] = b[i];
                               tandem::sort(v);
                               return v;
                           },
                           input<party::alice, std::array<w32, 16>>, input<party::bob, std::array<w32, 16>>)},
        {"random program", random_program(3101)},
    };
}

/// --case apps on rank 0: each program twice, then the streamed BioMatch.
/// Returns whether every result equals plaintext.
bool run_apps(session& s, party me) {
    const char* name = me == party::alice ? "alice" : "bob";
    bool ok = true;
    std::mt19937_64 rng(3102);  // the same inputs on both parties: each passes its own
    for (const auto& [what, c] : programs())
        for (int round = 0; round < 2; ++round) {
            const std::vector<std::vector<bool>> in = test::random_inputs(c, rng);
            const std::vector<std::vector<bool>> got = s.run_bits(c, c.inputs_of(me, in));
            const bool same = got == eval_plain_bits(c, in);
            std::printf("%s: %s, run %d over %u ranks: %s\n", name, what.c_str(), round + 1, s.threads(),
                        same ? "equals plaintext" : "DIFFERS from plaintext");
            ok = ok && same;
        }
    constexpr std::size_t n = 64;
    std::array<std::array<std::uint64_t, 4>, n> db;
    for (auto& e : db)
        for (auto& x : e) x = rng() % 4096;
    const std::array<std::uint64_t, 4> sample{rng() % 4096, rng() % 4096, rng() % 4096, rng() % 4096};
    auto fn = apps::biomatch_stream<16>(n);
    const std::uint64_t got = me == party::alice ? s.run(fn, std::vector(db.begin(), db.end())) : s.run(fn, sample);
    const bool same = got == apps::biomatch_plain<n, 4>(db, sample);
    const run_stats stats = s.last_run();
    std::printf("%s: streamed BioMatch of %zu entries, %llu ANDs, %llu bits transferred between worlds: %s\n", name,
                n, static_cast<unsigned long long>(stats.and_gates),
                static_cast<unsigned long long>(stats.transferred_bits), same ? "equals plaintext" : "DIFFERS");
    return ok && same && (stats.transferred_bits > 0) == s.ipp();  // with IPP the regions were cut
}

}  // namespace

int main(int argc, char** argv) {
    mpi::environment env(argc, argv);
    party me = party::alice;
    std::string what = "apps";
    bool expect_failure = false, ipp = false, malicious = false, three_halves = false;
    int port = 0, die_rank = -1, stall_rank = -1;
    long timeout_ms = 5000, die_after_ms = 1000, peer_dies_after_ms = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--party") me = v == "bob" ? party::bob : party::alice;
        else if (a == "--port") port = std::stoi(v);
        else if (a == "--case") what = v;
        else if (a == "--timeout-ms") timeout_ms = std::stol(v);
        else if (a == "--die-rank") die_rank = std::stoi(v);
        else if (a == "--die-after-ms" || a == "--stall-after-ms") die_after_ms = std::stol(v);
        else if (a == "--stall-rank") stall_rank = std::stoi(v);
        else if (a == "--peer-dies-after-ms") peer_dies_after_ms = std::stol(v);
        else if (a == "--expect-failure") expect_failure = v == "yes";
        else if (a == "--ipp") ipp = v == "yes";
        else if (a == "--security") malicious = v == "malicious";
        else if (a == "--scheme") three_halves = v == "three-halves";
    }
    const mpi::ranks r;
    const char* name = me == party::alice ? "alice" : "bob";
    session_options o;
    o.timeout = std::chrono::milliseconds(timeout_ms);
    o.connect_timeout = std::chrono::seconds(30);
    o.ipp = ipp;
    o.ipp_min_ands = 1000;
    if (three_halves) o.scheme = garbling_scheme::three_halves;
    if (malicious) {
        o.security = security::malicious;
        net::key_bytes psk{};  // a fixed test key: both parties' jobs must hold the same one
        for (std::size_t i = 0; i < psk.size(); ++i) psk[i] = static_cast<std::uint8_t>(31 * i + 7);
        o.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key(psk));
    }
    // The rank that dies or stops does so die_after_ms after rank 0 told it
    // the first run completed (so the fault lands mid-session, never in the
    // set-up), or after a minute at the latest.
    constexpr int first_run_done_tag = 4242;
    const int victim = die_rank >= 0 ? die_rank : stall_rank;
    if (victim > 0 && r.rank() == victim)
        std::thread([&r, die_after_ms, sig = die_rank >= 0 ? SIGKILL : SIGSTOP] {
            int done = 0, arrived = 0;
            MPI_Request request;
            MPI_Irecv(&done, 1, MPI_INT, 0, first_run_done_tag, r.comm(), &request);
            for (int k = 0; k < 6000 && !arrived; ++k) {
                MPI_Test(&request, &arrived, MPI_STATUS_IGNORE);
                if (!arrived) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(die_after_ms));
            std::raise(sig);
        }).detach();
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = true;
    int completed = 0;  // runs rank 0 completed
    std::chrono::steady_clock::time_point first_done;  // when rank 0 completed its first
    try {
        const mpi::link_totals links = mpi::run(r, me, "127.0.0.1", static_cast<std::uint16_t>(port), o, [&](session& s) {
            if (what == "apps") {
                ok = run_apps(s, me);
                return;
            }
            const circuit<> c = apps::biomatch_circuit<256, 4>();  // kill: runs until a rank dies
            std::mt19937_64 rng(3103);
            for (int k = 0; k < 1000; ++k) {
                const auto in = test::random_inputs(c, rng);
                (void)s.run_bits(c, c.inputs_of(me, in));
                if (++completed == 1) first_done = std::chrono::steady_clock::now();
                if (completed == 1 && victim > 0) {
                    int done = 1;
                    MPI_Send(&done, 1, MPI_INT, victim, first_run_done_tag, r.comm());
                }
            }
        });
        std::printf("%s rank %d of %d: done; its %u link(s) to the peer, %u sealed, sent %llu and received %llu bytes\n",
                    name, r.rank(), r.size(), links.links, links.sealed,
                    static_cast<unsigned long long>(links.bytes_sent), static_cast<unsigned long long>(links.bytes_received));
        if (what == "apps") {
            const bool worked = links.bytes_sent + links.bytes_received >= 64 * 1024;
            const bool sealed = !malicious || (links.links > 0 && links.sealed == links.links);
            if (!worked) std::printf("%s rank %d: FAILED: its links carried too little for a rank that worked\n", name, r.rank());
            if (!sealed) std::printf("%s rank %d: FAILED: a malicious session's link was not sealed\n", name, r.rank());
            ok = ok && worked && sealed;
        }
        ok = ok && what == "apps";
    } catch (const error& e) {
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string why = e.what();
        std::printf("%s rank %d of %d: error after %.1f s (%d runs completed): %s\n", name, r.rank(), r.size(), sec,
                    completed, why.c_str());
        if (expect_failure) {  // the killed party's ranks die by peer_dies_after_ms; then one deadline
            const std::string size = " of " + std::to_string(r.size()) + ": ";
            bool named = false;
            for (int k = 0; k < r.size(); ++k) named = named || why.find("failed on rank " + std::to_string(k) + size) != std::string::npos;
            const bool cause = why.find("closed the connection") != std::string::npos ||
                               why.find("reset") != std::string::npos || why.find("no progress") != std::string::npos ||
                               why.find("not been heard from") != std::string::npos;
            // The peer's rank dies peer_dies_after_ms after the peer's rank 0 completed its first
            // run, which ended with this party's first run: so on rank 0 the error comes that long
            // after its first run, plus at most a deadline or two; on the other ranks (which run no
            // body) not before that long after the start.
            const double after_first =
                completed > 0 ? std::chrono::duration<double>(std::chrono::steady_clock::now() - first_done).count() : 0;
            const double dies = static_cast<double>(peer_dies_after_ms) / 1000;
            const bool in_time = r.rank() == 0 ? after_first >= dies - 1 &&
                                                     after_first < static_cast<double>(peer_dies_after_ms + 2 * timeout_ms) / 1000 + 10
                                               : sec >= dies - 1;
            const bool mid_session = r.rank() != 0 || completed >= 1;
            if (!named) std::printf("%s rank %d: FAILED: the error names no rank of this party\n", name, r.rank());
            if (!cause) std::printf("%s rank %d: FAILED: the error does not say the link was lost\n", name, r.rank());
            if (!in_time)
                std::printf("%s rank %d: FAILED: the error came before the peer died or too late (%.1f s after the "
                            "first run)\n", name, r.rank(), after_first);
            if (!mid_session) std::printf("%s rank %d: FAILED: no run completed before the fault\n", name, r.rank());
            ok = named && cause && in_time && mid_session;
        } else {
            ok = false;
        }
    }
    std::fflush(stdout);
    return ok ? 0 : 1;
}
