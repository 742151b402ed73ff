// mpi_biomatch — paper 001's BioMatch with each party spread over the ranks
// of an MPI job (tandem::mpi, CMake -DTANDEM_MPI=ON; README, "A party over a
// cluster"). Start one job per party, the same -np on both:
//
//   mpirun --enable-recovery --hostfile alice_hosts -np 8 ./mpi_biomatch --party alice --port 7000
//   mpirun --enable-recovery --hostfile bob_hosts -np 8 ./mpi_biomatch --party bob --host alice-head --port 7000
//
// Alice's rank r listens on port 7000 + r; Bob's rank 0 connects to
// alice-head, and his rank r to where Alice's rank 0 says her rank r is
// ($TANDEM_MPI_HOST on that rank, else its host name). --ipp runs both
// worlds on every rank (both parties must say so). The database (Alice) and
// the sample (Bob) are drawn from --seed on both sides, so that each party can
// also print the plaintext answer; a real deployment reads its own input.
#include "apps.hpp"

#include <tandem/mpi.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

int main(int argc, char** argv) {
    tandem::mpi::environment env(argc, argv);
    const tandem::mpi::ranks ranks;
    tandem::party me = tandem::party::alice;
    std::string host = "127.0.0.1";
    std::uint16_t port = 7000;
    std::uint64_t seed = 1;
    tandem::session_options options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--party") me = value() == "bob" ? tandem::party::bob : tandem::party::alice;
        else if (a == "--host") host = value();
        else if (a == "--port") port = static_cast<std::uint16_t>(std::stoi(value()));
        else if (a == "--seed") seed = std::stoull(value());
        else if (a == "--ipp") options.ipp = true;
        else {
            if (ranks.rank() == 0)
                std::fprintf(stderr, "usage: mpirun -np R mpi_biomatch --party alice|bob [--host H] [--port P] "
                                     "[--seed S] [--ipp]\n");
            return 2;
        }
    }
    const auto in = apps::make_biomatch_inputs<512, 4>(seed);
    // Only rank 0 records the circuit: the other ranks get each region part with its bodies.
    std::optional<decltype(apps::biomatch_circuit<512, 4>())> c;
    if (ranks.rank() == 0) c.emplace(apps::biomatch_circuit<512, 4>());
    try {
        tandem::mpi::run(ranks, me, host, port, options, [&](tandem::session& s) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::uint64_t best = me == tandem::party::alice ? s.run(*c, in.db) : s.run(*c, in.sample);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const std::uint64_t plain = apps::biomatch_plain<512, 4>(in.db, in.sample);
            std::printf("%s: BioMatch over %d ranks per party%s: closest squared distance %llu (%s plaintext), "
                        "%.3f s, %.1f M AND/s\n",
                        me == tandem::party::alice ? "alice" : "bob", ranks.size(), options.ipp ? " with IPP" : "",
                        static_cast<unsigned long long>(best), best == plain ? "equals" : "DIFFERS from", seconds,
                        static_cast<double>(s.last_run().and_gates) / seconds / 1e6);
            if (best != plain) throw tandem::error("mpi_biomatch: the result differs from plaintext");
        });
        return 0;
    } catch (const tandem::error& e) {
        std::fprintf(stderr, "mpi_biomatch (%s rank %d): %s\n", me == tandem::party::alice ? "alice" : "bob",
                     ranks.rank(), e.what());
        return 1;
    }
}
