// tandem/session/yao.hpp — Yao's protocol as a session's protocol
// (session/protocol.hpp): free-XOR and half gates under the agreed hash, on
// IKNP OT, run by the engine (session/engine.hpp) over the session's
// workers and, with IPP, both parties' worlds.
//
// One compiled run, after the run headers were sent (session/run_header.hpp),
// is the engine's steps
// (session/engine.hpp, where each step's messages are listed) in the order
//
//   Bob            choose: his OT extension columns, right after his header
//   both           the peer's header checked
//   Alice → Bob    start_run: the hash start S
//   both           enter: Bob's columns read, Alice's active labels sent
//   Alice → Bob    run: the tables (with IPP, both worlds at once)
//   both           open: the outputs to whoever learns them
//
// A compiled circuit's input bit k sits in slot k of its label array.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/party.hpp>
#include <tandem/session/cores.hpp>
#include <tandem/session/eager_stream.hpp>
#include <tandem/session/engine.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/protocol.hpp>
#include <tandem/session/stream.hpp>
#include <tandem/session/tickets.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// The input bits of a compiled circuit in circuit order, each in its slot
/// (bit k in slot k), with this party's values (`my_bits`, its own bits in
/// circuit order) filled in.
inline std::vector<stream_input_bit> compiled_inputs(const circuit_data& d, party me,
                                                     std::span<const std::uint8_t> my_bits) {
    std::vector<stream_input_bit> inputs(d.input_bits);
    std::size_t mine = 0;
    for (const value_layout& in : d.inputs)
        for (std::uint32_t k = 0; k < in.bits; ++k) {
            const std::uint32_t bit = in.first_bit + k;
            inputs[bit] = {bit, in.owner, in.owner == me ? my_bits[mine++] : std::uint8_t{0}};
        }
    return inputs;
}

/// One compiled run of c, this party's side; `check_header()` reads and
/// checks the peer's run header. Returns the output bits if this party
/// learns them.
template <class CheckHeader>
std::optional<std::vector<bool>> compiled_run(engine& e, reveal who, const circuit<>& c,
                                              std::span<const std::uint8_t> my_bits, CheckHeader&& check_header) {
    const circuit_data& d = c.data();
    const std::vector<stream_input_bit> inputs = compiled_inputs(d, e.garbler() ? party::alice : party::bob, my_bits);
    std::vector<block> t;                        // Bob's input labels
    gc::detail::label_array labels(d.slot_count);
    const wipe_on_exit wipe_t{t};
    const wipe_on_exit wipe_labels{labels};
    if (!e.garbler()) t = e.choose(my_bits);
    check_header();
    e.start_run();
    e.enter(inputs, labels, t);
    e.run(c, labels);
    return e.open(who, d.output_slots, labels, [](std::size_t k) { return "output bit " + std::to_string(k); });
}

/// Yao's protocol, one party's side: its Δ, its half of the correlated OT
/// (of each world with IPP) and the run engine on them.
class yao_protocol final : public protocol {
public:
    /// Alice draws Δ (lsb 1, for point-and-permute) and becomes the COT
    /// sender with correlation Δ; Bob the receiver: 128 base OTs, once per
    /// session. With IPP Bob draws a Δ of his own for his world and the same
    /// is done the other way round: a second set of base OTs.
    yao_protocol(const protocol_setup& s, const core_maker& cores, garbling_hash hash, bool ipp,
                 std::uint64_t ipp_min_ands)
        : me_(s.me), rng_(s.rng), hash_(hash), cores_(cores), ipp_(ipp), ipp_min_ands_(ipp_min_ands) {
        const auto own_delta = [&] {
            delta_ = rng_.next() | block(0, 1);
            sender_.emplace(s.ch, delta_, s.base_ot_rng);
        };
        if (me_ == party::alice) own_delta();
        else receiver_.emplace(s.ch, s.base_ot_rng);
        if (ipp_) {
            if (me_ == party::bob) own_delta();
            else receiver_.emplace(s.ch, s.base_ot_rng);
        }
        s.ch.flush();
    }
    /// Resumed from a ticket (session/tickets.hpp) with no base OTs: its Δ
    /// and OT keys, each key re-keyed under n (which both parties derived
    /// from the ticket's name and their fresh nonces).
    yao_protocol(const protocol_setup& s, const core_maker& cores, garbling_hash hash, bool ipp,
                 std::uint64_t ipp_min_ands, const resumable_ot& from, block n)
        : me_(s.me), rng_(s.rng), hash_(hash), cores_(cores), ipp_(ipp), ipp_min_ands_(ipp_min_ands) {
        const bool sends = me_ == party::alice || ipp_, receives = me_ == party::bob || ipp_;
        if (from.me != me_ || from.hash != hash || from.ipp != ipp_ || from.sender.has_value() != sends ||
            from.receiver.has_value() != receives)
            internal_error("yao_protocol: a ticket of another configuration");
        if (sends) {
            delta_ = block::load(from.delta.data());
            std::array<block, 128> keys;
            for (std::size_t j = 0; j < 128; ++j) keys[j] = rekeyed((*from.sender)[j], n);
            sender_.emplace(delta_, keys);
            wipe(keys.data(), sizeof keys);
        }
        if (receives) {
            std::array<std::array<block, 2>, 128> keys;
            for (std::size_t j = 0; j < 128; ++j)
                keys[j] = {rekeyed((*from.receiver)[j][0], n), rekeyed((*from.receiver)[j][1], n)};
            receiver_.emplace(keys);
            wipe(keys.data(), sizeof keys);
        }
    }
    yao_protocol(const yao_protocol&) = delete;
    yao_protocol& operator=(const yao_protocol&) = delete;
    ~yao_protocol() override {
        engine_.reset();  // its workers stop before Δ is wiped
        wipe(&delta_, sizeof delta_);
    }

    void start(const protocol_links& l) override {
        threads_ = l.threads;
        engine_.emplace(engine_parts{me_, l.threads, l.links, l.bob_links, rng_, delta_, sender_ ? &*sender_ : nullptr,
                                     receiver_ ? &*receiver_ : nullptr, ipp_, ipp_min_ands_, cores_, l.remote});
    }

    std::optional<std::vector<bool>> run(reveal who, const circuit<>& c, std::span<const std::uint8_t> my_bits,
                                         const std::function<void()>& check_header) override {
        engine& e = the_engine();
        const std::uint64_t first = e.first_and();
        std::optional<std::vector<bool>> bits = compiled_run(e, who, c, my_bits, check_header);
        ands_ = e.first_and() - first;
        return bits;
    }

    /// Unset: garbled as made wherever that runs — without IPP, on one
    /// thread (workers are the levelled stream's); both parties' sessions
    /// agree on both, so they choose alike.
    bool eager(std::optional<bool> asked) const override {
        if (asked.value_or(false) && ipp_)
            throw usage_error("session::run: streamed_function::eager runs without IPP (session_options::ipp): both "
                              "parties garbling needs each segment's gates before its tables; set eager = false or "
                              "turn IPP off");
        return asked.value_or(!ipp_ && threads_ == 1);
    }

    void stream(bool eager, const progress_callback& progress, std::uint64_t expected_ands,
                const stream_body& body) override {
        engine& e = the_engine();
        if (eager) {
            eager_stream_runner r(e, progress, expected_ands);
            body(nullptr, &r);
            e.advance_ands(r.and_gates());
            ands_ = r.log.and_gates;
        } else {
            stream_runner r(e, progress, expected_ands);
            body(&r, nullptr);
            ands_ = r.log.and_gates;
        }
    }

    void check_prepare() const override {
        throw usage_error("session::prepare: only sessions with security::malicious prepare runs ahead; a semi-honest "
                          "run garbles as it sends, so call run() alone");
    }
    void prepare(const circuit<>&, std::size_t) override { check_prepare(); }
    std::size_t prepared(const circuit<>&) const override { return 0; }

    void report(run_stats& r) const override {
        r.and_gates = ands_;
        if (!engine_) return;
        r.ot_seconds = engine_->ot_seconds;
        r.transferred_bits = engine_->transferred_bits;
        r.transfer_ots = engine_->transfer_ots[0] + engine_->transfer_ots[1];
        r.transfer_seconds = engine_->transfer_seconds[0] + engine_->transfer_seconds[1];
    }

    void trim() noexcept override {
        if (sender_) sender_->trim();
        if (receiver_) receiver_->trim();
        if (engine_) engine_->trim();
    }

    std::unique_ptr<resumable_ot> resumable(block n) const override {
        auto r = std::make_unique<resumable_ot>();
        r->me = me_;
        r->hash = hash_;
        r->ipp = ipp_;
        if (sender_) {
            delta_.store(r->delta.data());
            std::array<block, 128> keys = sender_->rekeyed(n);
            r->sender.emplace();
            for (std::size_t j = 0; j < 128; ++j) keys[j].store((*r->sender)[j].data());
            wipe(keys.data(), sizeof keys);
        }
        if (receiver_) {
            std::array<std::array<block, 2>, 128> keys = receiver_->rekeyed(n);
            r->receiver.emplace();
            for (std::size_t j = 0; j < 128; ++j) {
                keys[j][0].store((*r->receiver)[j][0].data());
                keys[j][1].store((*r->receiver)[j][1].data());
            }
            wipe(keys.data(), sizeof keys);
        }
        return r;
    }

private:
    /// A raw key k a ticket kept, re-keyed: AES_k(rekey_input(n)) (ot/iknp.hpp).
    static block rekeyed(const bytes16& k, block n) noexcept {
        aes_key expanded(block::load(k.data()));
        const block out = expanded.encrypt(ot::detail::rekey_input(n));
        wipe(&expanded, sizeof expanded);
        return out;
    }

    engine& the_engine() {
        if (!engine_) internal_error("session: Yao's protocol was not started");
        return *engine_;
    }

    party me_;
    prg& rng_;
    garbling_hash hash_;
    core_maker cores_;
    bool ipp_;
    std::uint64_t ipp_min_ands_;
    std::uint32_t threads_ = 1;
    block delta_;                         // this party's free-XOR offset (Bob's only with IPP)
    std::optional<ot::cot_sender> sender_;      // correlation: this party's Δ (Alice; Bob with IPP)
    std::optional<ot::cot_receiver> receiver_;  // correlation: the peer's Δ (Bob; Alice with IPP)
    std::optional<engine> engine_;              // last: its threads stop before the OT it lends goes
    std::uint64_t ands_ = 0;                    // of the last run
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END
