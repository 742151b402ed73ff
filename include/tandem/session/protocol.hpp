// tandem/session/protocol.hpp — what a session runs its functions with,
// made once when the handshake has fixed the security mode: Yao's protocol
// with free-XOR and half gates on IKNP OT (session/yao.hpp), or
// authenticated garbling on SoftSpoken (session/authenticated.hpp). Each
// owns its keys, its OT and its run state; the session (session/setup.hpp)
// owns the links, the run headers, the statistics' time and bytes, and what
// happens when a run fails — the same for both (docs/DESIGN.md §7.1).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>
#include <tandem/run_stats.hpp>
#include <tandem/session/options.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

class remote_workers;
struct resumable_ot;

/// The links a protocol runs on, once the session has opened them all.
struct protocol_links {
    std::uint32_t threads;
    std::span<net::channel* const> links;      ///< the main link, then the worker links here
    std::span<net::channel* const> bob_links;  ///< with IPP: the links of Bob's world
    /// Workers 1 .. threads-1 in other processes (session/remote_workers.hpp),
    /// or null: every worker is a thread of this one.
    remote_workers* remote;
};

/// A streamed run's body: it runs the function and hands its segments to
/// the runner, or — garbled as it is made — its gates to the sink (the
/// other pointer is null).
using stream_body = std::function<void(segment_runner*, gate_sink*)>;

/// One party's protocol. Its constructor runs the set-up on the main link
/// (the base OTs); start() the rest, once the worker links are open. Used
/// by one thread at a time.
class protocol {
public:
    virtual ~protocol() = default;

    /// The set-up that needs the worker links: the run engine, or each
    /// worker's triple maker.
    virtual void start(const protocol_links& links) = 0;

    /// One compiled run after this party's run header went out;
    /// `check_header` reads and checks the peer's. Returns the output bits
    /// if this party learns them.
    virtual std::optional<std::vector<bool>> run(reveal who, const circuit<>& c,
                                                 std::span<const std::uint8_t> my_bits,
                                                 const std::function<void()>& check_header) = 0;

    /// Whether a streamed run garbles as it is made, given what the function
    /// asked (unset: wherever that runs); a usage_error if this protocol
    /// cannot — before anything is sent, so both parties stop alike.
    virtual bool eager(std::optional<bool> asked) const = 0;
    /// One streamed run, after both run headers: calls `body` once with this
    /// protocol's runner (or, eager, its sink).
    virtual void stream(bool eager, const progress_callback& progress, std::uint64_t expected_ands,
                        const stream_body& body) = 0;

    /// A usage_error where the protocol garbles as it sends and so prepares
    /// nothing ahead — before anything is sent.
    virtual void check_prepare() const = 0;
    /// Prepares `runs` executions of c ahead of their inputs, after both
    /// prepare headers.
    virtual void prepare(const circuit<>& c, std::size_t runs) = 0;
    /// Executions of c prepared and not yet run.
    virtual std::size_t prepared(const circuit<>& c) const = 0;

    /// The last run's (or prepare's) ANDs and the figures only the protocol
    /// knows (OT time, IPP transfers, malicious phases) into r; the session
    /// has set its time and bytes.
    virtual void report(run_stats& r) const = 0;

    /// Frees what the protocol holds between runs only (session::trim): it
    /// is made again by the next run.
    virtual void trim() noexcept {}

    /// This party's OT set-up re-keyed under n, for a ticket
    /// (session/tickets.hpp); only Yao's protocol resumes (the session
    /// refuses tickets in malicious mode before it gets here).
    virtual std::unique_ptr<resumable_ot> resumable(block n) const = 0;
};

/// What the protocol's set-up takes from the session.
struct protocol_setup {
    party me;
    net::channel& ch;  ///< the main link, sealed if the links are
    prg& rng;          ///< all of this party's randomness but the base OTs'...
    prg* base_ot_rng;  ///< ...unless set (session_options::insecure_seed): then theirs too
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END
