// tandem/session/options.hpp — what a session and its runs are configured
// with, and what a run reports.
#pragma once

#include <tandem/exec/ipp_plan.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/party.hpp>

#include <chrono>
#include <cstdint>
#include <string_view>

namespace tandem {

/// Which hash garbles the ANDs (crypto/hash.hpp, crypto/fixed_key_hash.hpp).
enum class garbling_hash : std::uint8_t {
    rekeyed = 0,    ///< default: the multi-instance tweakable CCR hash (no multi-instance degradation)
    fixed_key = 1,  ///< opt-in: faster, with the weaker multi-instance bound its header documents
};

constexpr std::string_view to_string(garbling_hash h) noexcept {
    return h == garbling_hash::rekeyed ? "rekeyed (default)" : "fixed-key (opt-in)";
}

struct session_options {
    /// Deadline of every blocking network call once connected (renewed while
    /// bytes move). A peer silent for this long is taken for dead — so it also
    /// bounds how long one party may wait for the other to reach its next
    /// run() (compile circuits before opening the session if that is slow).
    std::chrono::milliseconds timeout = net::default_timeout;
    /// How long listen()/accept()/connect() wait for the peer to show up.
    std::chrono::milliseconds connect_timeout = net::default_connect_timeout;
    /// The garbling hash; both parties must choose the same (checked in the handshake).
    garbling_hash hash = garbling_hash::rekeyed;
    /// Workers per party: each runs its share of every parallel region (and
    /// of wide levels, FGP) on a thread and a TCP connection of its own
    /// (exec/plan.hpp). Both parties must choose the same (checked in the
    /// handshake); results do not depend on it.
    std::uint32_t threads = 1;
    /// Inter-party parallelization (paper 001 §5; exec/ipp_plan.hpp,
    /// session/ipp.hpp): each party garbles half of every large parallel
    /// region under a Δ of its own and evaluates the other half, so both
    /// parties' cores and both directions of the link work; wires crossing
    /// between the halves are re-shared by OT, never revealed. Opens
    /// `threads` more connections (the tables of Bob's half) and runs a second
    /// set of base OTs. Both parties must choose the same (checked in the
    /// handshake); results do not depend on it.
    bool ipp = false;
    /// With IPP, parallel regions with fewer ANDs stay whole in Alice's
    /// world (exec/ipp_plan.hpp). Checked alike in the handshake.
    std::uint64_t ipp_min_ands = exec::default_ipp_min_ands;
};

/// What one run did, as seen by this party.
struct run_stats {
    std::uint64_t and_gates = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    double seconds = 0;     ///< the whole run, from the run header to the result
    double ot_seconds = 0;  ///< of which OT extension for Bob's input labels
    /// IPP: wires re-shared between the worlds (both directions), the OTs
    /// this party extended for them (one per wire), and its time in them
    /// (OT extension and label fix-up in both worlds, not waiting).
    std::uint64_t transferred_bits = 0;
    std::uint64_t transfer_ots = 0;
    double transfer_seconds = 0;
};

/// Protocol version spoken in the handshake; changes with any wire-format change.
inline constexpr std::uint32_t protocol_version = 3;

}  // namespace tandem
