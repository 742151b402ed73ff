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
//                 regions of 1,000 ANDs and more cut between them.
//                 With --security malicious, the same with authenticated
//                 garbling on links sealed with a pre-shared key: every rank
//                 makes AND triples on its own link.
//   --case kill --die-rank K --die-after-ms M
//                 rank K of this party kills itself M ms into a long run
//                 (Open MPI's mpirun then ends this party's job);
//   --case kill --stall-rank K --stall-after-ms M
//                 rank K of this party stops (SIGSTOP) M ms into a long run:
//                 the others must report it lost ("failed on rank K",
//                 "not been heard from"; pair.sh reads this party's output),
//                 then the job ends with MPI_Abort;
//   --case kill --expect-failure yes
//                 the peer of such a party: every rank must fail with a
//                 tandem::error naming a rank, within the deadline.
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
    bool expect_failure = false, ipp = false, malicious = false;
    int port = 0, die_rank = -1, stall_rank = -1;
    long timeout_ms = 5000, die_after_ms = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--party") me = v == "bob" ? party::bob : party::alice;
        else if (a == "--port") port = std::stoi(v);
        else if (a == "--case") what = v;
        else if (a == "--timeout-ms") timeout_ms = std::stol(v);
        else if (a == "--die-rank") die_rank = std::stoi(v);
        else if (a == "--die-after-ms" || a == "--stall-after-ms") die_after_ms = std::stol(v);
        else if (a == "--stall-rank") stall_rank = std::stoi(v);
        else if (a == "--expect-failure") expect_failure = v == "yes";
        else if (a == "--ipp") ipp = v == "yes";
        else if (a == "--security") malicious = v == "malicious";
    }
    const mpi::ranks r;
    const char* name = me == party::alice ? "alice" : "bob";
    session_options o;
    o.timeout = std::chrono::milliseconds(timeout_ms);
    o.connect_timeout = std::chrono::seconds(30);
    o.ipp = ipp;
    o.ipp_min_ands = 1000;
    if (malicious) {
        o.security = security::malicious;
        net::key_bytes psk{};  // a fixed test key: both parties' jobs must hold the same one
        for (std::size_t i = 0; i < psk.size(); ++i) psk[i] = static_cast<std::uint8_t>(31 * i + 7);
        o.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key(psk));
    }
    if (r.rank() == die_rank)
        std::thread([die_after_ms] {
            std::this_thread::sleep_for(std::chrono::milliseconds(die_after_ms));
            std::raise(SIGKILL);
        }).detach();
    if (r.rank() == stall_rank)
        std::thread([die_after_ms] {
            std::this_thread::sleep_for(std::chrono::milliseconds(die_after_ms));
            std::raise(SIGSTOP);
        }).detach();
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = true;
    try {
        mpi::run(r, me, "127.0.0.1", static_cast<std::uint16_t>(port), o, [&](session& s) {
            if (what == "apps") {
                ok = run_apps(s, me);
                return;
            }
            const circuit<> c = apps::biomatch_circuit<256, 4>();  // kill: runs until a rank dies
            std::mt19937_64 rng(3103);
            for (int k = 0; k < 1000; ++k) {
                const auto in = test::random_inputs(c, rng);
                (void)s.run_bits(c, c.inputs_of(me, in));
            }
        });
        std::printf("%s rank %d of %d: done\n", name, r.rank(), r.size());
        ok = ok && what == "apps";
    } catch (const error& e) {
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string why = e.what();
        std::printf("%s rank %d of %d: error after %.1f s: %s\n", name, r.rank(), r.size(), sec, why.c_str());
        if (expect_failure)  // the killed party's ranks die by die_after_ms; then one deadline
            ok = why.find("failed on rank ") != std::string::npos &&
                 sec < static_cast<double>(die_after_ms + 2 * timeout_ms) / 1000 + 10;
        else ok = false;
    }
    std::fflush(stdout);
    return ok ? 0 : 1;
}
