// tandem/session/options.hpp — what a session and its runs are configured
// with, and what a run reports.
#pragma once

#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <string_view>

namespace tandem {

/// Who learns the outputs of a run.
enum class reveal : std::uint8_t { both = 0, alice = 1, bob = 2 };

constexpr std::string_view to_string(reveal r) noexcept {
    return r == reveal::both ? "both parties" : r == reveal::alice ? "alice only" : "bob only";
}

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
};

/// What one run did, as seen by this party.
struct run_stats {
    std::uint64_t and_gates = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    double seconds = 0;     ///< the whole run, from the run header to the result
    double ot_seconds = 0;  ///< of which OT extension for Bob's input labels
};

/// Protocol version spoken in the handshake; changes with any wire-format change.
inline constexpr std::uint32_t protocol_version = 2;

}  // namespace tandem
