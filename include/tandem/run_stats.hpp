// tandem/run_stats.hpp — what one run did, as seen by one party
// (session::last_run). Plain data, beside party.hpp and security.hpp: the
// malicious protocol (auth/garble.hpp) times its phases in phase_stats
// without depending on the session.
#pragma once

#include <cstdint>

namespace tandem {

/// One phase of a run: its time and the bytes this party moved in it.
struct phase_stats {
    double seconds = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
};

/// What one run did, as seen by this party.
struct run_stats {
    /// ANDs garbled or evaluated.
    std::uint64_t and_gates = 0;
    /// Bytes this party sent and received, on all links.
    std::uint64_t bytes_sent = 0;
    /// \copydoc bytes_sent
    std::uint64_t bytes_received = 0;
    double seconds = 0;     ///< the whole run, from the run header to the result
    double ot_seconds = 0;  ///< of which OT extension for Bob's input labels (semi-honest runs)
    /// IPP: wires re-shared between the worlds (both directions), the OTs
    /// this party extended for them (one per wire), and its time in them
    /// (OT extension and label fix-up in both worlds, not waiting).
    std::uint64_t transferred_bits = 0;
    std::uint64_t transfer_ots = 0;
    double transfer_seconds = 0;
    /// Malicious runs (security::malicious; docs/DESIGN.md §9.2), in the
    /// order they happen; zero in semi-honest runs.
    ///   independent — function-independent preprocessing: random
    ///                 authenticated bits and AND triples;
    ///   dependent   — function-dependent preprocessing: the wires' masks,
    ///                 the Beaver openings and the garbled circuit;
    ///   online      — the inputs, evaluation, the AND check and the outputs.
    phase_stats independent;
    phase_stats dependent;  ///< \copydoc independent
    phase_stats online;     ///< \copydoc independent
    /// A streamed run that recorded each segment while a thread garbled or
    /// evaluated the one before (session_options::pipeline_streams, or its
    /// automatic choice where unset).
    bool pipelined = false;
    /// A streamed run garbled as it was made (streamed_function::eager, or
    /// its automatic choice where unset), not recorded and levelled.
    bool eager = false;
};

}  // namespace tandem
