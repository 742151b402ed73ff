// tandem/session/yao.hpp — one run of Yao's protocol, each party's half,
// after the run headers agreed (session/run_header.hpp).
//
//   Bob → Alice    OT extension columns for his input bits (ot/iknp.hpp): his
//                  label is the COT output t_i, Alice's zero label q_i. Bob
//                  sends them right after his run header, before reading
//                  Alice's: they depend on nothing of hers, and Alice can
//                  start garbling half a round trip sooner. (Only Bob sends
//                  ahead; Alice reads before she sends more than her header,
//                  so large inputs on both sides cannot fill both links.)
//   Alice → Bob    the hash start S; the active labels of her input bits;
//                  the garbled tables, streamed while they are produced
//                  (gc/stream.hpp) — with several workers, worker w's tables
//                  on link w, as the plan says (exec/); if Bob learns the output, H(Z_k) and
//                  H(Z_k ⊕ Δ) of each output wire k
//   Bob → Alice    if Alice learns the output, Bob's output labels
//
// With IPP (session/ipp.hpp) the garbling step in the middle runs both
// worlds at once; everything before and after it is as above, in Alice's world.
//
// Outputs are checked, not just decoded: Bob's label must hash to one of the
// two values he was sent, and a label Bob returns must be Z_k or Z_k ⊕ Δ. A
// label that fits neither means damaged tables or labels, and the run stops
// with protocol_error instead of returning a wrong answer. Outputs that are
// public constants need nothing: both sides know them from the circuit.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/stream.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/session/ipp.hpp>
#include <tandem/session/options.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// What both halves of a run need besides the circuit and the inputs.
struct yao_run {
    net::channel& ch;                     ///< the main connection (links[0])
    std::span<net::channel* const> links; ///< one per worker
    const exec::plan& plan;
    exec::workers* pool;                  ///< one thread per worker (none needed for one-worker plans)
    garbling_hash hash;
    std::uint64_t first_gate;  ///< tweak offset: the ANDs garbled under this Δ so far
    reveal who;
    ipp_run* ipp = nullptr;    ///< with IPP: both worlds (session/ipp.hpp); links/plan/pool are then unused
    double ot_seconds = 0;     ///< out: time in OT extension
};

/// Indices of the outputs from `first` on that are wires, not public constants.
inline std::vector<std::size_t> live_outputs(const circuit_data& d, std::size_t first = 0) {
    std::vector<std::size_t> live;
    for (std::size_t k = first; k < d.output_slots.size(); ++k)
        if (d.output_slots[k] != output_false && d.output_slots[k] != output_true) live.push_back(k);
    return live;
}

/// H(label, k) under keys disjoint from every AND's (the high word of the
/// key is set), truncated to 64 bits: enough to tell the two labels apart
/// and to catch damage with probability 1 - 2^-64 per output bit. k runs
/// from `first` (a streamed run's opens continue where the last one ended).
inline void output_hashes(block hash_start, std::span<block> labels, std::size_t copies, std::uint64_t first = 0) {
    const mitccr_hash h(hash_start ^ block(std::uint64_t{1} << 63, 0));
    const std::size_t n = labels.size() / copies;
    if (n > 0) h.hash(first, n, copies, labels.data());
}

/// What opening one output wire reveals: whether the label (or its hash)
/// received is one of the wire's two valid ones, and which — computed
/// without a branch on the secret labels, then made public
/// (detail/secret.hpp): the bit is what the opening reveals, and an invalid
/// label ends the run. The zero label wins if both match (as a hash may).
struct opened_bit {
    bool valid;
    bool value;
};
template <class T>
opened_bit open_bit(const T& got, const T& zero, const T& one) noexcept {
    const bool is_zero = got == zero, is_one = got == one;
    return {declassified(static_cast<bool>(is_zero | is_one)), declassified(!is_zero)};
}

inline std::string corrupted_message(const std::string& what) {
    return "run: " + what +
           " is neither of its two valid values: garbled tables or labels were damaged in transit (or the peer is "
           "not following the protocol); the result is discarded";
}

/// What the executor calls when a worker fails: every link stops at once.
inline std::function<void()> interrupter(const yao_run& run) {
    return [links = run.links] {
        for (net::channel* l : links) l->interrupt();
    };
}

template <class F>
double seconds_of(F&& f) {
    const auto t0 = net::clock::now();
    f();
    return std::chrono::duration<double>(net::clock::now() - t0).count();
}

/// Alice's half: garbles under `delta`; returns the output bits if she learns
/// them, and the ANDs garbled in `and_gates`.
inline std::optional<std::vector<bool>> garbler_run(yao_run& run, ot::cot_sender& sender, prg& rng, block delta,
                                                    const circuit<>& c, const std::vector<std::uint8_t>& my_bits,
                                                    std::uint64_t& and_gates) {
    net::channel& ch = run.ch;
    const circuit_data& d = c.data();

    // Bob's zero labels: the COT outputs q (he gets q ⊕ b·Δ).
    std::uint32_t bob_bits = 0;
    for (const value_layout& in : d.inputs) bob_bits += in.owner == party::bob ? in.bits : 0;
    std::vector<block> q(bob_bits);
    run.ot_seconds = seconds_of([&] {
        if (bob_bits > 0) sender.extend(ch, q);
    });

    gc::encoding enc{delta, std::vector<block>(d.input_bits)};
    rng.fill(enc.zero_labels.data(), d.input_bits);
    const block hash_start = declassified(rng.next());  // sent: public (detail/secret.hpp)
    ch.send_value(hash_start);
    std::size_t mine = 0, theirs = 0;
    for (const value_layout& in : d.inputs)
        for (std::uint32_t k = 0; k < in.bits; ++k) {
            const std::uint32_t bit = in.first_bit + k;
            if (in.owner == party::alice) ch.send_value(enc.label(bit, my_bits[mine++] != 0));
            else enc.zero_labels[bit] = q[theirs++];
        }
    wipe_all(q);
    ch.flush();  // Bob needs these before any table: the first step's tables may all go to other links

    std::vector<gc::channel_sink> sinks;
    for (net::channel* l : run.links) sinks.emplace_back(*l);
    std::vector<gc::channel_sink*> sink_ptrs;
    for (gc::channel_sink& k : sinks) sink_ptrs.push_back(&k);
    const std::span<gc::channel_sink* const> out(sink_ptrs);
    gc::garbled_outputs g =
        run.ipp ? ipp_alice(*run.ipp, c, enc, hash_start)
        : run.hash == garbling_hash::fixed_key
            ? exec::garble<fixed_key_hash>(run.plan, c, enc, hash_start, out, run.first_gate, run.pool,
                                           interrupter(run))
            : exec::garble<mitccr_hash>(run.plan, c, enc, hash_start, out, run.first_gate, run.pool,
                                        interrupter(run));
    and_gates = g.and_gates;

    const std::vector<std::size_t> live = live_outputs(d);
    if (run.who != reveal::alice) {  // Bob decodes by matching H(his label) against both
        std::vector<block> x(2 * live.size());
        for (std::size_t m = 0; m < live.size(); ++m)
            x[m] = g.output_zero[live[m]], x[live.size() + m] = g.output_zero[live[m]] ^ delta;
        output_hashes(hash_start, x, 2);
        for (const block& b : x) ch.send_value(b.low());
        wipe_all(x);
    }
    ch.flush();

    std::optional<std::vector<bool>> result;
    if (run.who != reveal::bob) {  // Bob's output labels; each must be one of ours
        std::vector<bool> bits(d.output_slots.size());
        for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = d.output_slots[k] == output_true;  // the constants
        for (std::size_t m = 0; m < live.size(); ++m) {
            const block w = ch.recv_value<block>();
            const block z = g.output_zero[live[m]];
            const opened_bit b = open_bit(w, z, z ^ delta);
            if (!b.valid)
                throw protocol_error(corrupted_message("the evaluator's output label " + std::to_string(live[m])));
            bits[live[m]] = b.value;
        }
        result = std::move(bits);
    }
    wipe_all(g.output_zero);  // with Δ they open the outputs
    return result;
}

/// Bob's first step, before he reads Alice's run header: OT extension with
/// his input bits (0 or 1 each) as choices. Returns his input labels t.
inline std::vector<block> evaluator_choose(yao_run& run, ot::cot_receiver& receiver,
                                           const std::vector<std::uint8_t>& my_bits) {
    std::vector<block> t(my_bits.size());
    run.ot_seconds = seconds_of([&] {
        if (!my_bits.empty()) receiver.extend(run.ch, my_bits, t);
        run.ch.flush();
    });
    return t;
}

/// Bob's half after the headers agreed: evaluates as the tables arrive;
/// returns the output bits if he learns them. Wipes t.
inline std::optional<std::vector<bool>> evaluator_run(yao_run& run, const circuit<>& c, std::vector<block>& t) {
    net::channel& ch = run.ch;
    const circuit_data& d = c.data();

    const block hash_start = ch.recv_value<block>();
    std::vector<block> labels(d.input_bits);
    std::size_t mine = 0;
    for (const value_layout& in : d.inputs)
        for (std::uint32_t k = 0; k < in.bits; ++k)
            labels[in.first_bit + k] = in.owner == party::alice ? ch.recv_value<block>() : t[mine++];
    wipe_all(t);

    std::vector<block> out;
    if (run.ipp) {
        out = ipp_bob(*run.ipp, c, labels, hash_start);
    } else {
        std::vector<std::unique_ptr<gc::channel_source>> sources;
        std::vector<gc::channel_source*> source_ptrs;
        for (std::size_t w = 0; w < run.links.size(); ++w) {
            sources.push_back(std::make_unique<gc::channel_source>(*run.links[w], 2 * run.plan.worker_ands[w]));
            source_ptrs.push_back(sources.back().get());
        }
        const std::span<gc::channel_source* const> in(source_ptrs);
        out = run.hash == garbling_hash::fixed_key
                  ? exec::evaluate<fixed_key_hash>(run.plan, c, hash_start, in, labels, run.first_gate, run.pool,
                                                   interrupter(run))
                  : exec::evaluate<mitccr_hash>(run.plan, c, hash_start, in, labels, run.first_gate, run.pool,
                                                interrupter(run));
    }
    wipe_all(labels);

    const std::vector<std::size_t> live = live_outputs(d);
    std::optional<std::vector<bool>> result;
    if (run.who != reveal::alice) {
        std::vector<bool> bits(d.output_slots.size());
        for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = d.output_slots[k] == output_true;  // the constants
        std::vector<std::uint64_t> hashes(2 * live.size());  // H(zero label)s, then H(one label)s
        if (!hashes.empty()) ch.recv(hashes.data(), hashes.size() * sizeof(std::uint64_t));
        std::vector<block> x(live.size());
        for (std::size_t m = 0; m < live.size(); ++m) x[m] = out[live[m]];
        output_hashes(hash_start, x, 1);
        for (std::size_t m = 0; m < live.size(); ++m) {
            const opened_bit b = open_bit(x[m].low(), hashes[m], hashes[live.size() + m]);
            if (!b.valid) throw protocol_error(corrupted_message("output label " + std::to_string(live[m])));
            bits[live[m]] = b.value;
        }
        wipe_all(x);
        result = std::move(bits);
    }
    if (run.who != reveal::bob) {
        for (std::size_t k : live) ch.send_value(out[k]);
        ch.flush();
    }
    return result;
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END
