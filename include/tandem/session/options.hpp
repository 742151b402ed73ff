// tandem/session/options.hpp — what a session and its runs are configured
// with, and what a run reports.
#pragma once

#include <tandem/exec/ipp_plan.hpp>
#include <tandem/gc/scheme.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/keys.hpp>
#include <tandem/net/tls.hpp>
#include <tandem/party.hpp>
#include <tandem/run_stats.hpp>
#include <tandem/security.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace tandem {

/// Which hash garbles the ANDs (crypto/hash.hpp, crypto/fixed_key_hash.hpp).
enum class garbling_hash : std::uint8_t {
    rekeyed = 0,    ///< default: the multi-instance tweakable CCR hash (no multi-instance degradation)
    fixed_key = 1,  ///< opt-in: faster, with the weaker multi-instance bound its header documents
};

/// The hash's name, for messages.
constexpr std::string_view to_string(garbling_hash h) noexcept {
    return h == garbling_hash::rekeyed ? "rekeyed (default)" : "fixed-key (opt-in)";
}

/// How far a streamed run has got (session_options::progress).
struct stream_progress {
    std::uint64_t and_gates = 0;      ///< ANDs garbled or evaluated so far
    std::uint64_t expected_ands = 0;  ///< streamed_function::expected_ands (0: not known)
    std::uint64_t segments = 0;
    std::uint64_t bytes_sent = 0, bytes_received = 0;
    double seconds = 0;               ///< since the run began
    std::uint64_t label_slots = 0;    ///< this party's label array, in slots
    double ands_per_second() const noexcept { return seconds > 0 ? static_cast<double>(and_gates) / seconds : 0; }
    /// Seconds left at the rate so far, if the total is known.
    std::optional<double> eta_seconds() const noexcept {
        if (expected_ands == 0 || and_gates == 0) return std::nullopt;
        const double left = expected_ands > and_gates ? static_cast<double>(expected_ands - and_gates) : 0.0;
        return left / ands_per_second();
    }
};

/// Called by streamed runs after each segment, from the session's threads
/// (one at a time).
using progress_callback = std::function<void(const stream_progress&)>;

namespace detail {
/// A worker link of a session: the session's id (Alice's public draw, sent
/// on the main link) and the link's index (1 .. threads-1; with IPP,
/// threads .. 2·threads-1 for Bob's world).
struct link_id {
    std::uint64_t session;
    std::uint32_t index;
};
/// Opens one more connection to the peer, worker link `id`: one party's
/// accepts, the other's connects. Called once per worker link while a
/// session is set up.
using link_opener = std::function<std::unique_ptr<net::channel>(const link_id&)>;
/// How many worker links a session of `threads` workers opens besides its
/// main link (the main link is worker 0's; IPP doubles them for Bob's world).
constexpr std::uint32_t worker_link_count(std::uint32_t threads, bool ipp) noexcept {
    return threads - 1 + (ipp ? threads : 0);
}
}  // namespace detail

class session_ticket;  // session/tickets.hpp
class ticket_store;

/// How a session is set up and runs. Fields marked as checked must be equal
/// on both parties (the handshake compares them).
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
    /// How ANDs are garbled (gc/scheme.hpp; checked in the handshake):
    /// half_gates (the default: 32 bytes per AND, the least computation) or
    /// three_halves (24.6 bytes per AND for 1.5× the hashing: faster where
    /// the link, not the cores, is the limit — README, "Which garbling
    /// scheme"). Every semi-honest run kind takes either; malicious sessions
    /// garble with authenticated garbling's own tables and refuse it (no
    /// authenticated three-halves construction is known). tandem-run --scheme.
    garbling_scheme scheme = garbling_scheme::half_gates;
    /// The adversary runs are secure against (README, "Security"; checked in
    /// the handshake). semi_honest (the default): a peer that follows the
    /// protocol learns nothing beyond the output. malicious: authenticated
    /// garbling (auth/garble.hpp, docs/DESIGN.md §9.2) — a peer that deviates
    /// in any way is caught with a security_error before any output, and
    /// never learns more or changes the answer. Malicious sessions encrypt
    /// their links: they need encrypt_links, or allow_plain_links. For now
    /// they run compiled circuits and batches with threads = 1 and without
    /// IPP; other settings and streamed runs are a usage_error saying so.
    tandem::security security = tandem::security::semi_honest;
    /// With security::malicious, the correlated OT extension that makes the
    /// authenticated bits (security.hpp; checked in the handshake):
    /// softspoken (the default) or silent — silent OT, under half a bit per
    /// COT instead of four bytes: ~42 % fewer bytes per AND triple for more
    /// CPU, the choice for slow links (bench/RESULTS.md, issue 55).
    /// tandem-run --silent-ot. Semi-honest sessions: a usage_error.
    cot_extension malicious_ot = cot_extension::softspoken;
    /// Workers per party: each runs its share of every parallel region (and
    /// of wide levels, FGP) over a TCP connection of its own (exec/plan.hpp),
    /// as oneTBB tasks on an arena of this many threads — or on the caller's
    /// arena when a oneTBB task runs the session (exec/executor.hpp). In
    /// malicious sessions the workers make AND triples and garble the levels
    /// of at least 2,048 ANDs in parts (auth/garble.hpp, garble_on). Both
    /// parties must choose the same (checked in the handshake); results do
    /// not depend on it.
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
    /// Streamed runs report their progress here after each segment (not
    /// checked with the peer; leave empty for none).
    progress_callback progress;
    /// Streamed runs record the next segment on the calling thread while a
    /// thread of the session garbles or evaluates the last one. Recording
    /// costs about as much as garbling a gate, so with a second core the
    /// two overlap (bench/RESULTS.md, issue 53: ~1.7× modelled for the
    /// minimum of 10^6); on a core shared with the garbling they take turns
    /// and gain nothing, and where both parties share two cores they halve
    /// the speed. Unset (the default): pipelined where this process may use
    /// two cores per party on its host — two where the peer runs elsewhere,
    /// four where it runs on this host (an in-process pair, TCP over
    /// loopback: net::channel::peer_on_this_host) — recording and garbling
    /// taking turns on the calling thread otherwise. A pipelined run holds
    /// one more segment (+1–3 MiB). An eager stream (streamed_function::
    /// eager) pipelines the same way, its gates handed over in batches
    /// (session/pipelined.hpp, pipelined_sink; at most ~1 MiB of gates in
    /// flight). Each party chooses for itself.
    std::optional<bool> pipeline_streams;
    /// Encrypts and authenticates every link of the session (Noise KK with
    /// pinned public keys, or NNpsk0 with a pre-shared key; net/keys.hpp,
    /// docs/DESIGN.md §9.3). Unset (the default): plain TCP, which anyone
    /// on the path can read and alter. Both parties must set it alike —
    /// each with its own key pair and the other's public key, or the same
    /// pre-shared key — or the set-up fails before any input is used: a
    /// protocol_error if one party does not encrypt or uses the other kind
    /// of credentials, a security_error if a key does not match.
    std::optional<net::link_credentials> encrypt_links;
    /// Protects every link of the session with TLS 1.3 instead, each party
    /// presenting an X.509 certificate and checking the peer's against a CA
    /// or a pinned certificate (net/tls.hpp; tandem-run --cert/--key with
    /// --ca or --peer-cert): for deployments that already run a PKI. Set it
    /// as `tls = net::tls_context(credentials)`, which reads and checks the
    /// files at once (a usage_error naming the file and the option), once
    /// for every link of every session made with these options. Bob is the
    /// TLS client. Both parties must set it, or the set-up fails before any
    /// input is used: a protocol_error if one party does not run TLS, a
    /// security_error if a certificate does not verify. Not with
    /// encrypt_links (usage_error).
    std::optional<net::tls_context> tls;
    /// security::malicious protects against the peer, not against whoever
    /// sits on the path between the parties, so a malicious session without
    /// encrypt_links or tls is a usage_error unless this is set: plain TCP, for paths
    /// protected otherwise (one host, a VPN, an SSH tunnel). Semi-honest
    /// sessions ignore it. Not checked with the peer (the handshake compares
    /// encrypt_links itself).
    bool allow_plain_links = false;
    /// INSECURE — for tests only. Derives all of this party's randomness (Δ,
    /// labels, hash keys, the base OTs' secret scalars) from this seed, so a
    /// failing two-party test replays byte for byte. Anyone who knows the
    /// seed learns this party's inputs from the transcript. Leave unset (the
    /// default: the OS's generator) for any real use. Not checked with the peer.
    std::optional<std::uint64_t> insecure_seed;
    /// A server's tickets (session/tickets.hpp, docs/DESIGN.md §7.11): set
    /// on the party that serves, it gives each peer that keeps a `ticket`
    /// slot a ticket at the end of its set-up, and a peer that presents one
    /// it holds skips the base OTs (session::resumed). Share one store among
    /// the sessions of a server. Semi-honest sessions only (usage_error).
    std::shared_ptr<tandem::ticket_store> ticket_store;
    /// A client's ticket slot: the session presents the ticket it holds, if
    /// any, to a peer with a ticket_store, and keeps the next one it is
    /// given there. Keep the slot (and these options) for the next session
    /// to the same server. Not with ticket_store (usage_error); semi-honest only.
    std::shared_ptr<session_ticket> ticket;
};

/// Protocol version spoken in the handshake; changes with any wire-format change.
inline constexpr std::uint32_t protocol_version = 14;

}  // namespace tandem
