// tandem/session/run_header.hpp — what both parties state before each run.
//
// Each side sends its header, then reads the peer's and compares (Bob sends
// his OT extension columns in between, session/yao.hpp, so the run costs no
// extra round trip): the run's number, the circuit's fingerprint (circuit/fingerprint.hpp)
// and who learns the output must agree. A difference stops the run with a
// protocol_error that says what differs — e.g. both circuits' sizes, so a
// user sees at once that the peer compiled another program.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>
#include <tandem/session/options.hpp>

#include <cstdint>
#include <string>

namespace tandem::detail {

struct run_header {
    static constexpr std::uint64_t magic_value = 0x3130524e55444e54ull;  // "TNDUNR01"
    /// `who` of a session::prepare call's header (a count of executions follows it).
    static constexpr std::uint8_t prepare_who = 0x50;

    std::uint64_t magic, run, fp_hi, fp_lo, gates, and_gates;
    std::uint32_t alice_bits, bob_bits, output_bits;
    std::uint8_t who, sender;

    run_header(reveal r, const circuit<>& c, std::uint64_t run_index, party me)
        : magic(magic_value), run(run_index), fp_hi(c.fingerprint().hi), fp_lo(c.fingerprint().lo),
          gates(c.data().gates.size()), and_gates(c.stats().and_gates), alice_bits(0), bob_bits(0),
          output_bits(static_cast<std::uint32_t>(c.data().output_slots.size())), who(static_cast<std::uint8_t>(r)),
          sender(static_cast<std::uint8_t>(me)) {
        for (const value_layout& in : c.data().inputs) (in.owner == party::alice ? alice_bits : bob_bits) += in.bits;
    }

    void send(net::channel& ch) const {
        for (std::uint64_t w : {magic, run, fp_hi, fp_lo, gates, and_gates}) ch.send_value(w);
        for (std::uint32_t w : {alice_bits, bob_bits, output_bits}) ch.send_value(w);
        ch.send_value(who);
        ch.send_value(sender);
    }

    static run_header receive(net::channel& ch) {
        run_header h;
        for (std::uint64_t* w : {&h.magic, &h.run, &h.fp_hi, &h.fp_lo, &h.gates, &h.and_gates})
            *w = ch.recv_value<std::uint64_t>();
        for (std::uint32_t* w : {&h.alice_bits, &h.bob_bits, &h.output_bits}) *w = ch.recv_value<std::uint32_t>();
        h.who = ch.recv_value<std::uint8_t>();
        h.sender = ch.recv_value<std::uint8_t>();
        return h;
    }

    std::string describe() const {
        return std::to_string(gates) + " gates (" + std::to_string(and_gates) + " AND), inputs " +
               std::to_string(alice_bits) + " bits alice / " + std::to_string(bob_bits) + " bits bob, " +
               std::to_string(output_bits) + " output bits";
    }

private:
    run_header() = default;
};

/// What a run_batch adds to its header's checks, for messages only: the
/// batch's size and the header one run of its circuit would have.
struct batch_context {
    std::uint64_t sets;
    run_header one;
};

/// k if the peer's sizes (ANDs, input and output bits) are k times those of
/// `one` (the header of one run of a circuit), for some k >= 0; else -1.
inline std::int64_t multiple_of(const run_header& peer, const run_header& one) {
    const std::uint64_t p[4] = {peer.and_gates, peer.alice_bits, peer.bob_bits, peer.output_bits};
    const std::uint64_t o[4] = {one.and_gates, one.alice_bits, one.bob_bits, one.output_bits};
    std::uint64_t k = 0;
    bool found = false;
    for (int i = 0; i < 4 && !found; ++i)
        if (o[i] != 0) k = p[i] / o[i], found = true;
    if (!found || k > (std::uint64_t{1} << 32)) return -1;
    for (int i = 0; i < 4; ++i)
        if (p[i] != k * o[i]) return -1;
    return static_cast<std::int64_t>(k);
}

/// The message for headers whose circuits differ: what each side holds,
/// and, where the sizes say so, that the parties batched differently.
inline std::string different_circuits_message(const run_header& mine, const run_header& peer,
                                              const batch_context* batch) {
    const std::string prefix = "run: the parties hold different circuits (this party: " + mine.describe() +
                               (batch ? " for a batch of " + std::to_string(batch->sets) + " input sets" : "") +
                               "; the peer: " + peer.describe() + ")";
    const std::string same_calls =
        "both must make the same sequence of run() and run_batch() calls, with the same circuits and the same number "
        "of input sets in each batch";
    if (batch) {
        const std::int64_t k = multiple_of(peer, batch->one);
        if (k >= 0 && static_cast<std::uint64_t>(k) != batch->sets)
            return prefix + ": the peer's run has the sizes of a batch of " + std::to_string(k) +
                   " input sets of this circuit" + (k == 1 ? " (or of one run())" : "") +
                   " where this party's run_batch() has " + std::to_string(batch->sets) +
                   "; " + same_calls;
        if (k >= 0)
            return prefix + ": the peer's run has the sizes of this batch but another structure (did it call run() "
                             "where this party called run_batch(), or batch another circuit?); " + same_calls;
    } else if (const std::int64_t k = multiple_of(peer, mine); k >= 0 && k != 1) {
        return prefix + ": the peer's run has the sizes of " + std::to_string(k) +
               " runs of this circuit (did it call run_batch() where this party called run()?); " + same_calls;
    }
    return prefix + "; both must compile the same function with the same tandem version, and " + same_calls;
}

/// Receives the peer's header (flushing ours, sent before) and checks that
/// the two agree. `batch`: this run is a run_batch (for messages).
inline void check_peer_header(net::channel& ch, const run_header& mine, const batch_context* batch = nullptr) {
    const run_header peer = run_header::receive(ch);
    if (peer.magic != run_header::magic_value)
        throw protocol_error("run: the peer's run header is malformed (stream out of step or corrupted)");
    if (peer.run != mine.run)
        throw protocol_error("run: the parties are out of step (this party starts run #" + std::to_string(mine.run) +
                             ", the peer run #" + std::to_string(peer.run) +
                             "); both must make the same sequence of run() calls");
    if (peer.fp_hi != mine.fp_hi || peer.fp_lo != mine.fp_lo)
        throw protocol_error(different_circuits_message(mine, peer, batch));
    if ((peer.who == run_header::prepare_who) != (mine.who == run_header::prepare_who))
        throw protocol_error(std::string("run: this party called ") +
                             (mine.who == run_header::prepare_who ? "prepare()" : "run()") + " where the peer called " +
                             (peer.who == run_header::prepare_who ? "prepare()" : "run()") +
                             "; both must make the same sequence of prepare() and run() calls");
    if (peer.who != mine.who)
        throw protocol_error("run: the parties disagree on who learns the output (this party asked for " +
                             std::string(to_string(static_cast<reveal>(mine.who))) + ", the peer for " +
                             (peer.who <= 2 ? std::string(to_string(static_cast<reveal>(peer.who))) : "?") + ")");
    if (peer.sender == mine.sender) throw protocol_error("run: the peer claims this party's role (stream corrupted)");
}

}  // namespace tandem::detail
