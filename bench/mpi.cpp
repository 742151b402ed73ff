// bench_mpi — offline garbling with the plan's workers as MPI ranks (issue
// 31, mpi/garble.hpp): run as `mpirun -np R bench_mpi [--reps N] [--quick]
// [--json]`. Garbles paper 001's BioMatch (512 entries, 4 dimensions; --quick:
// 64) over R ranks into discarding sinks, --reps times after a warm-up; the
// time is rank 0's from the call to the garbled outputs (it waits for every
// rank's part), the median printed with M AND/s. Compare -np 1 and -np 2 in
// the same session (docs/BENCH.md).
#include "../examples/apps.hpp"
#include "common.hpp"

#include <tandem/crypto/prg.hpp>
#include <tandem/mpi.hpp>
#include <tandem/tandem.hpp>

#include <chrono>
#include <cstdio>
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

}  // namespace

int main(int argc, char** argv) {
    tandem::mpi::environment env(argc, argv);
    const bench::options opt = bench::parse(argc, argv, "mpirun -np R bench_mpi");
    const tandem::mpi::ranks r;
    try {
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
        if (r.rank() == 0) {
            const double t = bench::median(seconds);
            if (opt.json)
                std::cout << bench::record("mpi", "offline_garble")
                                 .add_string("circuit", opt.quick ? "biomatch-64" : "biomatch-512")
                                 .add("ranks", r.size())
                                 .add("and_gates", double(ands))
                                 .add("seconds", t)
                                 .add("and_per_s", double(ands) / t)
                                 .add("reps", opt.reps)
                                 .json()
                          << "\n";
            else
                std::printf("BioMatch %s, offline garbling over %d rank(s): %.4f s (median of %d), %.1f M AND/s, %llu ANDs\n",
                            opt.quick ? "64" : "512", r.size(), t, opt.reps, double(ands) / t / 1e6,
                            static_cast<unsigned long long>(ands));
        }
        return 0;
    } catch (const tandem::error& e) {
        std::fprintf(stderr, "bench_mpi (rank %d): %s\n", r.rank(), e.what());
        return 1;
    }
}
