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

/// Receives the peer's header (flushing ours, sent before) and checks that
/// the two agree.
inline void check_peer_header(net::channel& ch, const run_header& mine) {
    const run_header peer = run_header::receive(ch);
    if (peer.magic != run_header::magic_value)
        throw protocol_error("run: the peer's run header is malformed (stream out of step or corrupted)");
    if (peer.run != mine.run)
        throw protocol_error("run: the parties are out of step (this party starts run #" + std::to_string(mine.run) +
                             ", the peer run #" + std::to_string(peer.run) +
                             "); both must make the same sequence of run() calls");
    if (peer.fp_hi != mine.fp_hi || peer.fp_lo != mine.fp_lo)
        throw protocol_error("run: the parties hold different circuits (this party: " + mine.describe() +
                             "; the peer: " + peer.describe() +
                             "); both must compile the same function with the same tandem version");
    if (peer.who != mine.who)
        throw protocol_error("run: the parties disagree on who learns the output (this party asked for " +
                             std::string(to_string(static_cast<reveal>(mine.who))) + ", the peer for " +
                             (peer.who <= 2 ? std::string(to_string(static_cast<reveal>(peer.who))) : "?") + ")");
    if (peer.sender == mine.sender) throw protocol_error("run: the peer claims this party's role (stream corrupted)");
}

}  // namespace tandem::detail
