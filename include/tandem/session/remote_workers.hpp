// tandem/session/remote_workers.hpp — a session whose workers 1 .. W-1 run
// in other processes (mpi/session.hpp: the party's MPI ranks), each with a
// link of its own to the peer's worker of its number: region parts in
// semi-honest runs, AND triples in malicious ones. The session, compiled once
// without MPI, sees them only through this interface.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/triples.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/session/cores.hpp>

#include <cstdint>
#include <memory>
#include <span>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// Makes the stand-ins for a session's remote workers.
class remote_workers {
public:
    virtual ~remote_workers() = default;
    /// Worker w's core (1 ≤ w < threads) in world `world` (0: Alice's, the
    /// only one without IPP; 1: Bob's) for one run or streamed segment: it
    /// runs the region parts the plan gives w under hash start S — and, when
    /// `delta` is set, garbles them under that Δ (this party garbles the
    /// world), else evaluates them — with the tables on w's own link for the
    /// world, in plan order. Only region parts: plans for remote workers keep
    /// levels whole (exec::plan::split_levels).
    virtual std::unique_ptr<gc::core> core(std::uint32_t w, std::uint32_t world, block hash_start,
                                           const block* delta) = 0;
    /// Malicious mode: worker w's maker of authenticated AND triples
    /// (1 ≤ w < threads), on w's own link to the peer's worker w, under this
    /// party's global key `delta` with randomness from `seed`, on the
    /// session's COT extension (set up as auth::linked_triples is, the
    /// peer's worker w at the same time). The rest of a malicious run stays
    /// on the main link (docs/DESIGN.md §9.2).
    virtual std::unique_ptr<auth::triple_source> triples(std::uint32_t w, block delta, block seed,
                                                         cot_extension extension) = 0;
};

/// Worker w's garbler core for one run or segment: on sinks[w], its link,
/// when w works in this process, else remote worker w's stand-in in `world`.
inline std::unique_ptr<gc::core> garbler_of(const core_maker& cores, std::span<gc::channel_sink> sinks,
                                           remote_workers* remote, std::uint32_t w, std::uint32_t world,
                                           block hash_start, const block& delta) {
    if (w < sinks.size()) return cores.garbler(hash_start, delta, sinks[w]);
    return remote->core(w, world, hash_start, &delta);
}
/// The same for worker w's evaluator core, on sources[w] here.
inline std::unique_ptr<gc::core> evaluator_of(const core_maker& cores,
                                             std::span<const std::unique_ptr<gc::channel_source>> sources,
                                             remote_workers* remote, std::uint32_t w, std::uint32_t world,
                                             block hash_start) {
    if (w < sources.size()) return cores.evaluator(hash_start, *sources[w]);
    return remote->core(w, world, hash_start, nullptr);
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END
