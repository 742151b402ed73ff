// tandem/mpi/garble.hpp — garbling a circuit with the plan's workers as MPI
// ranks (issue 31, docs/DESIGN.md §12): rank 0 runs the plan (exec/) with
// worker 0 on itself and, for every worker w ≥ 1, a remote_core
// (mpi/worker.hpp) that ships w's region parts to rank w, which garbles them
// into its own table sink. Δ and the hash start go with each part; they
// never leave the party. Every rank holds the same circuit (an SPMD program
// compiles it on each): its fingerprint is compared first. The plan keeps
// sequential steps and levels on rank 0 (no FGP across ranks: a level's
// parts would cost a round trip each).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/mpi/ranks.hpp>
#include <tandem/mpi/worker.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::mpi {

/// The plan for a circuit garbled over r's ranks: one worker per rank,
/// regions split as in one process but into parts of at least
/// exec::remote_min_part_ands ANDs, levels kept whole on rank 0.
inline exec::plan rank_plan(const circuit<>& c, const ranks& r) {
    return exec::make_remote_plan(c, static_cast<std::uint32_t>(r.size()));
}

/// Garbles c over r's ranks, every rank calling it with the same circuit:
/// rank 0 with the input encoding (Δ, the input 0-labels) and the hash
/// start, the others with anything (the parts bring both); each rank's sink
/// takes the tables of the parts that rank garbles, in order — worker w's
/// tables, exactly those exec::garble writes to sink w for the same plan
/// (rank_plan). Returns the garbled outputs on rank 0, nullopt on the others.
/// A failure on any rank is an error on every rank naming it.
template <tweakable_hash Hash, gc::table_sink Sink>
std::optional<gc::garbled_outputs> garble(const ranks& r, const circuit<>& circ, const gc::encoding& input,
                                          block hash_start, Sink& sink) {
    const circuit_data& c = circ.data();
    std::exception_ptr failed;
    std::uint64_t fingerprint[2] = {circ.fingerprint().hi, circ.fingerprint().lo};
    std::uint64_t rank0s[2] = {fingerprint[0], fingerprint[1]};
    check(MPI_Bcast(rank0s, 2, MPI_UINT64_T, 0, r.comm()), "MPI_Bcast");
    if (rank0s[0] != fingerprint[0] || rank0s[1] != fingerprint[1])
        failed = std::make_exception_ptr(usage_error(
            "tandem::mpi::garble: this rank holds another circuit than rank 0; every rank must build the same one"));
    r.agree(failed, "comparing the circuit");
    std::optional<gc::garbled_outputs> out;
    if (r.rank() == 0) {
        detail::part_header base;  // what every part shares; Δ stays inside the party
        base.garbles = 1;
        base.hash_start = hash_start;
        base.delta = input.delta;
        try {
            gc::detail::check_labels(c, input.zero_labels.size(), "mpi::garble");
            if (!input.delta.lsb()) throw usage_error("mpi::garble: Δ must have lsb 1 (point-and-permute)");
            const exec::plan p = rank_plan(circ, r);
            exec::check_plan_fits(p, c);
            std::vector<rank_cache> caches(static_cast<std::size_t>(r.size()));
            gc::detail::label_array label = gc::detail::input_slots(c, input.zero_labels);
            exec::detail::run_cores(
                p, c,
                [&](std::uint32_t w) -> std::unique_ptr<gc::core> {
                    if (w == 0) return std::make_unique<gc::garbler_core<Hash, Sink>>(hash_start, input.delta, sink);
                    return std::make_unique<remote_core>(static_cast<int>(w), r.comm(), base, caches[w]);
                },
                label, 0, nullptr, {});
            out = gc::detail::finish_garbling(c, label, p.and_gates);
        } catch (...) {
            failed = std::current_exception();
        }
        tandem::detail::wipe(&base, sizeof base);
        for (int w = 1; w < r.size(); ++w) stop_serving(w, r.comm());
    } else {
        failed = serve(r.comm(), [&](const detail::part_header& h, std::uint64_t) {
            return std::make_unique<gc::garbler_core<Hash, Sink>>(h.hash_start, h.delta, sink);
        });
    }
    r.agree(failed, "garbling");
    return out;
}

}  // namespace tandem::mpi

TANDEM_CRYPTO_END
