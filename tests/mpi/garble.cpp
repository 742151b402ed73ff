// test_mpi_garble — garbling with the plan's workers as MPI ranks
// (mpi/garble.hpp), run as `mpirun -np R test_mpi_garble`: BioMatch (one
// region of 64 instances) and MVMul garbled over R ranks must give, rank by
// rank, exactly the tables exec::garble writes to worker w's sink in one
// process for the same plan (BLAKE2b of each rank's tables, gathered on rank
// 0), and the same output 0-labels. With --other-circuit K, rank K builds
// another circuit: every rank must fail naming it, and the program exits 0
// only if all did.
#include "../../examples/apps.hpp"

#include <tandem/auth/agree.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/mpi.hpp>
#include <tandem/tandem.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A table sink that keeps only a BLAKE2b of the tables, in order.
struct digest_sink {
    tandem::auth::digester h{"tandem mpi test tables"};
    std::uint64_t blocks = 0;
    void write(const tandem::block* p, std::size_t n) {
        h.update(p, n * sizeof(tandem::block));
        blocks += n;
    }
};

/// Garbles c over the ranks and in one process; returns whether rank 0 found both alike.
bool same_as_one_process(const tandem::mpi::ranks& r, const tandem::circuit<>& c, const char* name) {
    tandem::prg rng(tandem::block(31, 2026));
    const tandem::block delta = rng.next() | tandem::block(0, 1), start = rng.next();
    std::vector<tandem::block> zero(c.data().input_bits);
    rng.fill(zero.data(), zero.size());
    const tandem::gc::encoding enc(delta, zero);
    digest_sink mine;
    const auto out = tandem::mpi::garble<tandem::rekeyed_hash>(r, c, enc, start, mine);
    const tandem::auth::digest d = mine.h.finish();
    std::vector<std::uint8_t> all(static_cast<std::size_t>(r.size()) * d.size());
    tandem::mpi::check(MPI_Gather(d.data(), static_cast<int>(d.size()), MPI_BYTE, all.data(), static_cast<int>(d.size()),
                                  MPI_BYTE, 0, r.comm()),
                       "MPI_Gather");
    if (r.rank() != 0) return true;
    const tandem::exec::plan p = tandem::mpi::rank_plan(c, r);
    std::vector<digest_sink> sinks(static_cast<std::size_t>(r.size()));
    std::vector<digest_sink*> ptrs;
    for (digest_sink& s : sinks) ptrs.push_back(&s);
    const auto expected =
        tandem::exec::garble<tandem::rekeyed_hash>(p, c, enc, start, std::span<digest_sink* const>(ptrs));
    bool ok = out.has_value() && out->output_zero == expected.output_zero && out->and_gates == expected.and_gates;
    std::size_t parts = 0;
    for (int w = 0; w < r.size(); ++w) {
        parts += sinks[static_cast<std::size_t>(w)].blocks != 0;
        const tandem::auth::digest e = sinks[static_cast<std::size_t>(w)].h.finish();
        ok = ok && std::memcmp(e.data(), all.data() + static_cast<std::size_t>(w) * e.size(), e.size()) == 0;
    }
    std::printf("%s over %d ranks: %s (%zu of them garbled tables, %llu ANDs)\n", name, r.size(),
                ok ? "the same tables and outputs as one process" : "DIFFERENT from one process", parts,
                static_cast<unsigned long long>(p.and_gates));
    return ok && parts == static_cast<std::size_t>(r.size());  // every rank garbled a part
}

}  // namespace

int main(int argc, char** argv) {
    tandem::mpi::environment env(argc, argv);
    int other = -1;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--other-circuit") other = std::stoi(argv[i + 1]);
    const tandem::mpi::ranks r;
    const tandem::circuit<> bio = apps::biomatch_circuit<64, 4>();
    const tandem::circuit<> mv = apps::mvmul_circuit<8, 8>();
    int ok = 1;
    try {
        if (other >= 0) {
            (void)same_as_one_process(r, r.rank() == other ? mv : bio, "mixed circuits");
            std::printf("rank %d: no error, though rank %d built another circuit\n", r.rank(), other);
            ok = 0;
        } else {
            const bool bio_ok = same_as_one_process(r, bio, "BioMatch 64");  // both: every rank takes part
            const bool mv_ok = same_as_one_process(r, mv, "MVMul 8x8");
            ok = bio_ok && mv_ok ? 1 : 0;
        }
    } catch (const tandem::error& e) {
        const std::string what = e.what();
        std::printf("rank %d: %s\n", r.rank(), what.c_str());
        ok = other >= 0 && what.find("rank " + std::to_string(other) + " of") != std::string::npos ? 1 : 0;
    }
    int all_ok = 0;
    tandem::mpi::check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, r.comm()), "MPI_Allreduce");
    return all_ok == 1 ? 0 : 1;
}
