// tandem/session/stream.hpp — one streamed run (docs/DESIGN.md §11): this
// party's segment runner.
//
// Both parties call the function (dsl/stream.hpp); each of its segments
// reaches this party's runner as it is cut and goes through the engine's
// steps (session/engine.hpp, which lists each step's messages), after the
// run's start_run (the hash start):
//
//   Bob            choose: OT extension columns for his input bits entering
//                  in this segment, as soon as he has cut it
//   Alice → Bob    the segment header: its number, the digest chained over
//                  all segments so far, its sizes; Bob compares it with his
//                  own and stops with protocol_error at the first segment
//                  that differs (different programs, sizes or options)
//   both           enter: Bob's columns read, Alice's active labels sent
//   Alice → Bob    run_segment: the garbled tables of the segment, then a
//                  flush (with several workers, a segment with regions or
//                  wide levels is planned like a compiled circuit, exec/, and
//                  worker w's tables go on link w)
//   both           open, where the segment opens values: checked, so damage
//                  in transit is a protocol_error, never a wrong value
//
// Two label arrays per party, used in turn, indexed by a segment's wire ids
// (what is carried plus one segment's inputs and gates, not the function's
// size: stream_segment in circuit/builder.hpp, enter() below); tweaks
// continue across segments and runs under the session's Δ.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/engine.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// What a party says of its segment; the evaluator compares both.
struct segment_header {
    std::uint64_t index = 0, digest_hi = 0, digest_lo = 0, and_gates = 0, gates = 0;
    std::uint32_t alice_bits = 0, bob_bits = 0, carried = 0, opened = 0;

    void send(net::channel& ch) const {
        for (std::uint64_t w : {index, digest_hi, digest_lo, and_gates, gates}) ch.send_value(w);
        for (std::uint32_t w : {alice_bits, bob_bits, carried, opened}) ch.send_value(w);
    }
    static segment_header receive(net::channel& ch) {
        segment_header h;
        for (std::uint64_t* w : {&h.index, &h.digest_hi, &h.digest_lo, &h.and_gates, &h.gates})
            *w = ch.recv_value<std::uint64_t>();
        for (std::uint32_t* w : {&h.alice_bits, &h.bob_bits, &h.carried, &h.opened}) *w = ch.recv_value<std::uint32_t>();
        return h;
    }
    std::string describe() const {
        return std::to_string(gates) + " gates (" + std::to_string(and_gates) + " AND), inputs " +
               std::to_string(alice_bits) + " bits alice / " + std::to_string(bob_bits) + " bits bob, " +
               std::to_string(carried) + " wires carried, " + std::to_string(opened) + " bits opened";
    }
};

/// What both parties state before a streamed run: the function's inputs
/// (owner, bits per value, count), its segment size, who learns the result.
struct stream_run_header {
    static constexpr std::uint64_t magic_value = 0x3130525453444e54ull;  // "TNDSTR01"
    std::uint64_t run = 0, segment_ands = 0;
    std::vector<std::uint64_t> inputs;  ///< per input: owner << 62 | sequence << 61 | bits << 40, then the count
    std::uint8_t who = 0;
    std::uint8_t eager = 0;  ///< garbled as it is made (streamed_function::eager)

    void send(net::channel& ch) const {
        ch.send_value(magic_value);
        ch.send_value(run);
        ch.send_value(segment_ands);
        ch.send_value(static_cast<std::uint64_t>(inputs.size()));
        for (const std::uint64_t w : inputs) ch.send_value(w);
        ch.send_value(who);
        ch.send_value(eager);
    }
    static stream_run_header receive(net::channel& ch) {
        if (ch.recv_value<std::uint64_t>() != magic_value)
            throw protocol_error("streamed run: the peer did not start a streamed run (it runs a compiled circuit, or the "
                                 "stream is out of step); both must run the same kind of function");
        stream_run_header h;
        h.run = ch.recv_value<std::uint64_t>();
        h.segment_ands = ch.recv_value<std::uint64_t>();
        const auto n = ch.recv_value<std::uint64_t>();
        if (n > 4096) throw protocol_error("streamed run: the peer's run header is malformed");
        h.inputs.resize(n);
        for (std::uint64_t& w : h.inputs) w = ch.recv_value<std::uint64_t>();
        h.who = ch.recv_value<std::uint8_t>();
        h.eager = ch.recv_value<std::uint8_t>();
        return h;
    }
    std::string describe() const {
        std::string d = "inputs (";
        for (std::size_t i = 0; i + 1 < inputs.size(); i += 2) {
            const std::uint64_t w = inputs[i];
            d += std::string(i ? ", " : "") + (w >> 62 ? "bob " : "alice ") +
                 ((w >> 61) & 1 ? std::to_string(inputs[i + 1]) + " x " : "") + std::to_string((w >> 40) & 0xFFFFF) + " bits";
        }
        return d + "), segment_ands " + std::to_string(segment_ands);
    }

    /// Compares the peer's header with this one.
    void check(const stream_run_header& peer) const {
        if (peer.run != run)
            throw protocol_error("run: the parties are out of step (this party starts run #" + std::to_string(run) +
                                 ", the peer run #" + std::to_string(peer.run) +
                                 "); both must make the same sequence of run() calls");
        if (peer.inputs != inputs || peer.segment_ands != segment_ands)
            throw protocol_error("streamed run: the parties run different functions (this party: " + describe() +
                                 "; the peer: " + peer.describe() +
                                 "); both must run the same streamed function with the same sizes and segment_ands");
        if (peer.eager != eager)
            throw protocol_error(std::string("streamed run: this party runs the function ") +
                                 (eager ? "gate by gate" : "levelled") + " and the peer " +
                                 (peer.eager == 1 ? "gate by gate" : peer.eager == 0 ? "levelled" : "?") +
                                 "; set streamed_function::eager the same on both parties");
        if (peer.who != who)
            throw protocol_error("run: the parties disagree on who learns the output (this party asked for " +
                                 std::string(to_string(static_cast<reveal>(who))) + ", the peer for " +
                                 (peer.who <= 2 ? std::string(to_string(static_cast<reveal>(peer.who))) : "?") + ")");
    }
};

/// The digest of a streamed run's segments so far: `previous` (that of the
/// segments before s) chained with s's number, structure, inputs and open.
/// The gates' part is the one the lay-out summed (stream_segment::gates_digest).
inline circuit_fingerprint chain_segment_digest(const circuit_fingerprint& previous, const stream_segment& s) {
    fingerprint_mixer m;
    m.add(previous.hi);
    m.add(previous.lo);
    m.add(s.index);
    mix_circuit(m, s.data, s.gates_digest ? &*s.gates_digest : nullptr);
    m.add(s.inputs.size());
    for (const stream_input_bit& in : s.inputs) m.add2(in.slot, static_cast<std::uint32_t>(in.owner));
    m.add(s.open ? 1 + static_cast<std::uint64_t>(*s.open) : 0);
    return m.finish();
}

/// What a party's segment runner keeps of a streamed run whatever the
/// protocol: the digest chain, with which the evaluator compares each segment
/// header with the garbler's, the counts and the progress reports.
class segment_log {
public:
    segment_log(const net::channel& ch, const progress_callback& progress, std::uint64_t expected_ands)
        : ch_(ch), progress_(progress), expected_ands_(expected_ands), sent0_(ch.bytes_sent()),
          received0_(ch.bytes_received()), t0_(net::clock::now()) {}

    std::uint64_t and_gates = 0;
    std::uint64_t segments = 0;

    /// This party's header of s, chaining its digest.
    segment_header header_of(const stream_segment& s) {
        digest_ = chain_segment_digest(digest_, s);
        segment_header h;
        h.index = s.index;
        h.digest_hi = digest_.hi;
        h.digest_lo = digest_.lo;
        h.and_gates = s.and_gates;
        h.gates = s.data.gates.size();
        for (const stream_input_bit& in : s.inputs) ++(in.owner == party::alice ? h.alice_bits : h.bob_bits);
        h.carried = s.carried;
        h.opened = s.open ? static_cast<std::uint32_t>(s.data.output_slots.size() - s.carried) : 0;
        return h;
    }

    /// The evaluator: reads the garbler's header of this segment from ch and
    /// stops with protocol_error if it is not `mine`.
    static void compare(net::channel& ch, const segment_header& mine) {
        const segment_header peer = segment_header::receive(ch);
        if (peer.index != mine.index || peer.digest_hi != mine.digest_hi || peer.digest_lo != mine.digest_lo)
            throw protocol_error("streamed run: the parties run different functions (or sizes, or segment_ands): "
                                 "segment " + std::to_string(mine.index) + " differs (this party: " + mine.describe() +
                                 "; the peer's segment " + std::to_string(peer.index) + ": " + peer.describe() +
                                 "); both must call session::run with the same streamed function and options");
    }

    /// Counts a segment that ran (its ANDs in and_gates) and reports progress.
    void done(std::uint64_t segment_ands, std::size_t label_slots) {
        and_gates += segment_ands;
        ++segments;
        if (progress_) {
            stream_progress p;
            p.and_gates = and_gates;
            p.expected_ands = expected_ands_;
            p.segments = segments;
            p.bytes_sent = ch_.bytes_sent() - sent0_;
            p.bytes_received = ch_.bytes_received() - received0_;
            p.seconds = std::chrono::duration<double>(net::clock::now() - t0_).count();
            p.label_slots = label_slots;
            progress_(p);
        }
    }

private:
    const net::channel& ch_;
    circuit_fingerprint digest_;
    const progress_callback& progress_;
    std::uint64_t expected_ands_;
    std::uint64_t sent0_, received0_;
    net::clock::time_point t0_;
};

/// This party's segment runner of a streamed run: each segment as it is cut
/// goes through the session's engine (session/engine.hpp); the runner keeps
/// the two label arrays and the log.
class stream_runner final : public segment_runner {
public:
    /// Starts the run (the engine's start_run: Alice sends the hash start, Bob reads it).
    stream_runner(engine& e, const progress_callback& progress, std::uint64_t expected_ands)
        : e_(e), ch_(e.main_link()), log(ch_, progress, expected_ands) {
        e_.start_run();
    }
    stream_runner(const stream_runner&) = delete;
    stream_runner& operator=(const stream_runner&) = delete;
    ~stream_runner() {
        wipe_all(labels_);
        wipe_all(spare_);
    }

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        const segment_header mine = log.header_of(s);
        std::vector<block> t;  // Bob's input labels
        const wipe_on_exit wipe_t{t};
        if (e_.garbler()) {
            mine.send(ch_);
        } else {
            std::vector<std::uint8_t> choices;
            for (const stream_input_bit& in : s.inputs)
                if (in.owner == party::bob) choices.push_back(in.value);
            t = e_.choose(choices);
            segment_log::compare(ch_, mine);
        }
        enter(s);
        e_.enter(s.inputs, labels_, t);
        const circuit<> c(std::move(s.data), trusted_layout);  // inputs sit in the run's slots: not a stand-alone circuit
        e_.run_segment(c, labels_, s.and_gates);
        s.data.output_slots = c.data().output_slots;  // the opens below read them
        carried_from_.assign(s.data.output_slots.begin(), s.data.output_slots.begin() + s.carried);
        std::optional<std::vector<bool>> result;
        if (s.open) {  // the run's `who` for the result, an open's own otherwise
            const std::span<const std::uint32_t> opened(s.data.output_slots.begin() + s.carried, s.data.output_slots.end());
            result = e_.open(*s.open, opened, labels_, [&](std::size_t k) {
                return "opened bit " + std::to_string(k) + " of segment " + std::to_string(s.index);
            });
        }
        ch_.flush();
        log.done(s.and_gates, labels_.size());
        return result;
    }

private:
    /// Makes the segment's label array: the other of the two arrays, grown to
    /// its slots if needed (a new array; the old one is wiped, so no label is
    /// left in freed memory; a mapped array takes its whole block, whole huge
    /// pages, so it rarely grows twice), with the last segment's carried
    /// wires moved into slots 1..C (stream_segment, circuit/builder.hpp).
    void enter(const stream_segment& s) {
        if (spare_.size() < s.data.slot_count) {
            const std::size_t want = std::max<std::size_t>(s.data.slot_count, spare_.size() + spare_.size() / 2);
            gc::detail::label_array bigger(big_allocator<block>::mapped_size(want) / sizeof(block));
            wipe_all(spare_);
            spare_.swap(bigger);
        }
        for (std::size_t c = 0; c < carried_from_.size(); ++c) spare_[c + 1] = labels_[carried_from_[c]];
        labels_.swap(spare_);
    }

    engine& e_;
    net::channel& ch_;
    gc::detail::label_array labels_, spare_;    // this segment's labels; the last one's (enter)
    std::vector<std::uint32_t> carried_from_;  // the last segment's carried wires, in its slots

public:
    segment_log log;
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END
