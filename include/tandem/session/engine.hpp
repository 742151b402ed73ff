// tandem/session/engine.hpp — the steps every run of a session is made of,
// one party's side.
//
// A session builds one engine after its handshake and OT set-up
// (session/setup.hpp). The engine is the same code under either hash: only
// the cores it makes (session/cores.hpp) garble and evaluate under the
// agreed one. It holds what every run uses: the links,
// Δ and the correlated-OT pair (lent by the session), the worker threads,
// the plan of the circuit run last and the tweak counter (every AND under
// the session's Δ gets its own tweaks, across runs). Its steps, with the
// messages each one sends:
//
//   choose     Bob → Alice: OT extension columns for his input bits entering
//              now (ot/iknp.hpp): his label is the COT output t_i, Alice's
//              zero label q_i. Bob sends them before he reads Alice's header
//              (run or segment): they depend on nothing of hers, and Alice
//              can start half a round trip sooner. Only Bob sends ahead;
//              Alice reads before she sends more than her header, so large
//              inputs on both sides cannot fill both links.
//   start_run  Alice → Bob: the run's hash start S (fresh per run).
//   enter      Alice reads Bob's columns, draws zero labels for her own bits
//              and sends their active labels; both write every entering
//              bit's label into its slot of the label array.
//   run        Alice → Bob: the garbled tables of a circuit, streamed while
//              they are produced (gc/channel_tables.hpp) — on one core, or as a plan
//              says over the session's workers, worker w's tables on link w
//              (exec/), or with IPP both worlds at once (session/ipp.hpp).
//   open       outputs to whoever learns them: to Bob H(Z_k) and H(Z_k ⊕ Δ)
//              of each output wire k, against which he matches his label's
//              hash; to Alice Bob's labels, each of which must be Z_k or
//              Z_k ⊕ Δ. A label that fits neither means damaged tables or
//              labels, and the run stops with protocol_error instead of
//              returning a wrong answer. Constant outputs need nothing.
//
// A compiled run (session/yao.hpp) is choose, start_run, enter, run and open
// once; a streamed run (session/stream.hpp) is start_run, then per segment
// choose, enter, run and, where values are opened, open.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/ipp_plan.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/party.hpp>
#include <tandem/session/cores.hpp>
#include <tandem/session/ipp.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/remote_workers.hpp>

#include <algorithm>
#include <array>
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

/// Indices of the outputs from `first` on that are wires, not public constants.
inline std::vector<std::size_t> live_outputs(std::span<const std::uint32_t> slots, std::size_t first = 0) {
    std::vector<std::size_t> live;
    for (std::size_t k = first; k < slots.size(); ++k)
        if (slots[k] != output_false && slots[k] != output_true) live.push_back(k);
    return live;
}
inline std::vector<std::size_t> live_outputs(const circuit_data& d, std::size_t first = 0) {
    return live_outputs(d.output_slots, first);
}

/// H(label, k) under keys disjoint from every AND's (the high word of the
/// key is set), truncated to 64 bits: enough to tell the two labels apart
/// and to catch damage with probability 1 - 2^-64 per output bit. k runs
/// from `first` (a streamed run's opens continue where the last one ended).
inline void output_hashes(block hash_start, std::span<block> labels, std::size_t copies, std::uint64_t first = 0) {
    const rekeyed_hash h(hash_start ^ block(std::uint64_t{1} << 63, 0));
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

template <class F>
double seconds_of(F&& f) {
    const auto t0 = net::clock::now();
    f();
    return std::chrono::duration<double>(net::clock::now() - t0).count();
}

/// What a session lends its engine; it outlives the engine.
struct engine_parts {
    party me;
    std::uint32_t threads;
    std::span<net::channel* const> links;      ///< the main link, then the worker links
    std::span<net::channel* const> bob_links;  ///< with IPP: the links of Bob's world
    prg& rng;                                  ///< Alice's input labels, the hash starts
    const block& delta;                        ///< this party's Δ (Alice's; Bob's own with IPP)
    ot::cot_sender* sender;                    ///< correlation: this party's Δ (Alice; Bob with IPP)
    ot::cot_receiver* receiver;                ///< correlation: the peer's Δ (Bob; Alice with IPP)
    bool ipp = false;
    std::uint64_t ipp_min_ands = 0;
    core_maker cores = cores_for(garbling_hash::rekeyed);  ///< the cores under the agreed scheme and hash
    /// Workers 1 .. threads-1 in other processes (session/remote_workers.hpp);
    /// `links` is then the main link alone. Null: every worker is a thread here.
    remote_workers* remote = nullptr;
};

/// One party's engine, garbling and evaluating with the cores `parts.cores`
/// makes. Used by one thread at a time.
class engine {
public:
    explicit engine(const engine_parts& parts) : p_(parts) {
        require_aes_instructions();
        if (p_.remote && (p_.links.size() != 1 || p_.bob_links.size() != (p_.ipp ? 1u : 0u)))
            internal_error("engine: with remote workers, a party holds link 0 of each world alone");
        if (!garbler())  // each link's tables, given to the evaluator run by run (channel_source::allow)
            for (net::channel* l : p_.links) sources_.push_back(std::make_unique<gc::channel_source>(*l));
    }
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    bool garbler() const noexcept { return p_.me == party::alice; }
    net::channel& main_link() const noexcept { return *p_.links[0]; }

    /// Frees the table sources' buffers between runs (session::trim).
    void trim() noexcept {
        for (auto& s : sources_) s->trim();
    }
    /// The tweak index of the next AND garbled under this Δ.
    std::uint64_t first_and() const noexcept { return first_and_; }

    double ot_seconds = 0;  ///< this run's time in OT extension so far
    /// This run's IPP transfers, per world (zero without IPP), summed over a
    /// streamed run's segments.
    std::array<double, 2> transfer_seconds{};
    std::array<std::uint64_t, 2> transfer_ots{};
    std::uint64_t transferred_bits = 0;

    /// Alice draws the run's hash start and sends it; Bob reads it.
    void start_run() {
        ot_seconds = 0;
        transfer_seconds = {};
        transfer_ots = {};
        transferred_bits = 0;
        opened_ = 0;
        if (garbler()) {
            hash_start_ = declassified(p_.rng.next());  // sent: public (detail/secret.hpp)
            main_link().send_value(hash_start_);
        } else {
            hash_start_ = main_link().template recv_value<block>();
        }
    }

    /// Bob: OT extension with `choices` (his bits entering now, 0 or 1
    /// each, in order); returns his labels t. Flushes.
    std::vector<block> choose(std::span<const std::uint8_t> choices) {
        std::vector<block> t(choices.size());
        ot_seconds += seconds_of([&] {
            if (!choices.empty()) p_.receiver->extend(main_link(), choices, t);
            main_link().flush();
        });
        return t;
    }

    /// Writes the labels of the input bits entering now into their slots:
    /// Alice's zero labels (Bob's from his OT columns, hers drawn, their
    /// active labels sent); Bob's active labels (his from choose(), which `t`
    /// holds and which is wiped, Alice's received). Flushes.
    void enter(std::span<const stream_input_bit> inputs, gc::detail::label_array& labels, std::vector<block>& t) {
        net::channel& ch = main_link();
        if (garbler()) {
            std::size_t bob_bits = 0;
            for (const stream_input_bit& in : inputs) bob_bits += in.owner == party::bob;
            std::vector<block> q(bob_bits);
            ot_seconds += seconds_of([&] {
                if (!q.empty()) p_.sender->extend(ch, q);
            });
            std::size_t theirs = 0;
            for (const stream_input_bit& in : inputs) {
                block& zero = labels[in.slot];
                if (in.owner == party::bob) {
                    zero = q[theirs++];
                } else {
                    zero = p_.rng.next();
                    ch.send_value(zero ^ (mask_of(in.value != 0) & p_.delta));
                }
            }
            wipe_all(q);
            // Bob needs the labels before any table, and the first tables
            // may all go to worker links; with one link they follow these
            // on it, and go out with them (one send, one wake-up of Bob).
            if (p_.threads > 1 || p_.ipp) ch.flush();
        } else {
            std::size_t mine = 0;
            for (const stream_input_bit& in : inputs)
                labels[in.slot] = in.owner == party::bob ? t[mine++] : ch.template recv_value<block>();
        }
        wipe_all(t);
    }

    /// Garbles or evaluates a compiled run's circuit on `labels` (inputs
    /// entered), as the cached plan says, or both worlds with IPP. On return
    /// `labels` holds the final labels of the world the inputs and outputs
    /// live in (Alice's).
    void run(const circuit<>& c, gc::detail::label_array& labels) {
        plan_for_run(c);
        if (p_.ipp) return run_ipp(c, *ipp_plan_, labels);
        const exec::plan& p = plan_;
        if (!p.one_worker && !pool_) pool_.emplace(p_.threads, task_waits_on(p_.links));  // made once, for every run
        // One worker: the outputs follow the tables on the main link at
        // once, and open() sends both.
        run_cores(c.data(), p, labels, /*main_link_flushed_by_open=*/p.one_worker);
        first_and_ += p.and_gates;
    }

    /// Garbles or evaluates one segment of a streamed run on `labels`: on
    /// one core bound to the main link, or planned over the session's workers
    /// when it has regions or wide levels worth splitting; with IPP, both
    /// worlds at once when it has a region of at least ipp_min_ands ANDs to
    /// cut (the worlds are planned segment by segment: the carried wires
    /// and inputs enter, and the carried and opened wires leave, in Alice's
    /// world).
    void run_segment(const circuit<>& c, gc::detail::label_array& labels, std::uint64_t and_gates) {
        if (p_.ipp) {  // worlds planned per segment; one without a region to cut runs as without IPP
            const exec::ipp_plan ip = make_ipp_plan(c, 1);
            if (ip.world_ands[exec::index(exec::world::bob)] > 0) return run_ipp(c, ip, labels);
        }
        std::optional<exec::plan> p;
        if (p_.threads > 1) {
            p = make_plan(c);
            if (p->one_worker) p.reset();
            else if (!pool_) pool_.emplace(p_.threads, task_waits_on(p_.links));
        }
        if (p) {
            run_cores(c.data(), *p, labels);
        } else if (garbler()) {
            gc::channel_sink sink(main_link());
            gc::detail::run_all_steps(*p_.cores.garbler(hash_start_, p_.delta, sink), c.data(), labels, first_and_);
        } else {
            sources_[0]->allow(p_.cores.tables(and_gates));
            gc::detail::run_all_steps(*p_.cores.evaluator(hash_start_, *sources_[0]), c.data(), labels, first_and_);
        }
        first_and_ += and_gates;
    }

    /// What a run garbled as it is made (session/eager_stream.hpp) takes
    /// from the engine, after start_run: this party's core on the main
    /// link (the garbler's writing to `sink`), the evaluator's table source
    /// (null for the garbler) and the scheme that sizes its tables, and what
    /// a NOT adds to a label (Δ for the garbler, whose labels are zero
    /// labels; zero for the evaluator).
    struct eager_parts_t {
        std::unique_ptr<gc::core> core;
        gc::channel_source* source = nullptr;
        garbling_scheme scheme = garbling_scheme::half_gates;
        block not_mask{};
    };
    eager_parts_t eager_parts(gc::channel_sink& sink) {
        if (garbler()) return {p_.cores.garbler(hash_start_, p_.delta, sink), nullptr, p_.cores.scheme, p_.delta};
        return {p_.cores.evaluator(hash_start_, *sources_[0]), sources_[0].get(), p_.cores.scheme, block()};
    }
    /// Counts the ANDs an eager run garbled or evaluated (their tweaks are used).
    void advance_ands(std::uint64_t n) noexcept { first_and_ += n; }

    /// Opens the outputs at `slots` (output_false/output_true for constants)
    /// from `labels` to `who`; returns their bits if this party learns them.
    /// `name(k)` names output k in an error. Output hashes are indexed on
    /// across the run's opens.
    template <class Name>
    std::optional<std::vector<bool>> open(reveal who, std::span<const std::uint32_t> slots,
                                          const gc::detail::label_array& labels, Name&& name) {
        net::channel& ch = main_link();
        const std::vector<std::size_t> live = live_outputs(slots);
        std::vector<bool> bits(slots.size());
        for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = slots[k] == output_true;  // the constants
        const std::uint64_t first = opened_;
        opened_ += live.size();
        if (garbler()) {
            if (who != reveal::alice) {  // Bob decodes by matching H(his label) against both
                std::vector<block> x(2 * live.size());
                for (std::size_t m = 0; m < live.size(); ++m)
                    x[m] = labels[slots[live[m]]], x[live.size() + m] = labels[slots[live[m]]] ^ p_.delta;
                output_hashes(hash_start_, x, 2, first);
                for (const block& b : x) ch.send_value(b.low());
                wipe_all(x);
            }
            ch.flush();
            if (who == reveal::bob) return std::nullopt;
            for (const std::size_t k : live) {  // Bob's labels; each must be one of ours
                const block w = ch.template recv_value<block>();
                const block z = labels[slots[k]];
                const opened_bit b = open_bit(w, z, z ^ p_.delta);
                if (!b.valid) throw protocol_error(corrupted_message("the evaluator's label of " + name(k)));
                bits[k] = b.value;
            }
            return bits;
        }
        std::optional<std::vector<bool>> result;
        if (who != reveal::alice) {
            std::vector<std::uint64_t> hashes(2 * live.size());  // H(zero label)s, then H(one label)s
            if (!hashes.empty()) ch.recv(hashes.data(), hashes.size() * sizeof(std::uint64_t));
            std::vector<block> x(live.size());
            for (std::size_t m = 0; m < live.size(); ++m) x[m] = labels[slots[live[m]]];
            output_hashes(hash_start_, x, 1, first);
            for (std::size_t m = 0; m < live.size(); ++m) {
                const opened_bit b = open_bit(x[m].low(), hashes[m], hashes[live.size() + m]);
                if (!b.valid) throw protocol_error(corrupted_message(name(live[m])));
                bits[live[m]] = b.value;
            }
            wipe_all(x);
            result = std::move(bits);
        }
        if (who != reveal::bob) {
            for (const std::size_t k : live) ch.send_value(labels[slots[k]]);
            ch.flush();
        }
        return result;
    }

private:
    /// Stops every link at once when a worker fails.
    std::function<void()> interrupter() const {
        return [links = p_.links, bob = p_.bob_links] {
            for (net::channel* l : links) l->interrupt();
            for (net::channel* l : bob) l->interrupt();
        };
    }

    /// The plan of c, kept for the next run of the same circuit (planning
    /// MExp takes ~1 ms, its IPP plan ~2 ms). Holding the circuit keeps its
    /// data, and so the address compared, alive.
    void plan_for_run(const circuit<>& c) {
        if (planned_ && &planned_->data() == &c.data()) return;  // plans depend on the circuit and the options only
        planned_.reset();
        if (p_.ipp) ipp_plan_ = make_ipp_plan(c, 0);
        else plan_ = make_plan(c);
        planned_ = c;
    }

    /// The plan of c over this session's workers (exec::make_remote_plan's
    /// with remote workers).
    exec::plan make_plan(const circuit<>& c) const {
        return p_.remote ? exec::make_remote_plan(c, p_.threads) : exec::make_plan(c, p_.threads);
    }
    /// The same for IPP, with the same choice; the inputs start at slot first_input.
    exec::ipp_plan make_ipp_plan(const circuit<>& c, std::uint32_t first_input) const {
        return exec::make_ipp_plan(c, p_.threads, p_.ipp_min_ands,
                                   p_.remote ? exec::remote_min_part_ands : exec::default_fgp_min_ands, first_input,
                                   !p_.remote);
    }

    /// How the workers' tasks on `links` wait (exec::task_waits_on).
    exec::task_waits task_waits_on(std::span<net::channel* const> links) const noexcept {
        return exec::task_waits_on(links, p_.remote != nullptr);
    }

    /// The plan's workers on this party's links, worker w on link w — or,
    /// for w ≥ 1 with remote workers, its stand-in, its tables on its own link.
    void run_cores(const circuit_data& c, const exec::plan& p, gc::detail::label_array& labels,
                   bool main_link_flushed_by_open = false) {
        exec::workers* pool = pool_ ? &*pool_ : nullptr;
        if (garbler()) {
            std::vector<gc::channel_sink> sinks;
            for (net::channel* l : p_.links) sinks.emplace_back(*l, !(main_link_flushed_by_open && l == p_.links[0]));
            exec::detail::run_cores(
                p, c,
                [&](std::uint32_t w) { return garbler_of(p_.cores, sinks, p_.remote, w, 0, hash_start_, p_.delta); },
                labels, first_and_, pool, interrupter());
        } else {
            for (std::size_t w = 0; w < sources_.size(); ++w) sources_[w]->allow(p_.cores.tables(p.worker_ands[w]));
            exec::detail::run_cores(
                p, c,
                [&](std::uint32_t w) { return evaluator_of(p_.cores, sources_, p_.remote, w, 0, hash_start_); },
                labels, first_and_, pool, interrupter());
        }
    }

    /// IPP (session/ipp.hpp): this party garbles its world while evaluating
    /// the peer's. The inputs and outputs live in Alice's world: `labels` is
    /// Alice's own world for her, the world Bob evaluates for him.
    void run_ipp(const circuit<>& circ, const exec::ipp_plan& plan, gc::detail::label_array& labels) {
        const exec::world mine = garbler() ? exec::world::alice : exec::world::bob;
        // Both worlds' workers on one pool, made once, for every run: their
        // tasks block only where both worlds' links can suspend.
        if (!ipp_pool_) {
            const bool block = task_waits_on(p_.links) == exec::task_waits::block ||
                               task_waits_on(p_.bob_links) == exec::task_waits::block;
            ipp_pool_.emplace(2 * p_.threads, block ? exec::task_waits::block : exec::task_waits::suspend);
        }
        ipp_run r{plan, {p_.links, p_.bob_links}, *ipp_pool_, *p_.sender, *p_.receiver, p_.delta, mine, p_.cores,
                  first_and_, p_.remote};
        const circuit_data& c = circ.data();
        gc::detail::label_array other(c.slot_count);
        if (garbler()) {
            run_both(r, c, labels, hash_start_, other, std::nullopt);
        } else {
            r.bob_hash_start = declassified(p_.rng.next());  // sent: public
            run_both(r, c, other, r.bob_hash_start, labels, hash_start_);
        }
        wipe_all(other);
        first_and_ += plan.and_gates;
        for (std::size_t w = 0; w < 2; ++w) {  // a streamed run's segments add up
            transfer_seconds[w] += r.transfer_seconds[w];
            transfer_ots[w] += r.transfer_ots[w];
        }
        transferred_bits += plan.transferred_bits;
    }

    engine_parts p_;
    std::uint64_t first_and_ = 0;
    block hash_start_{};
    std::uint64_t opened_ = 0;  // outputs opened in this run so far: the output hashes' index
    std::vector<std::unique_ptr<gc::channel_source>> sources_;
    std::optional<exec::workers> pool_;       // the run's oneTBB arena, made at the first run that needs it
    std::optional<exec::workers> ipp_pool_;   // IPP: both worlds' workers
    std::optional<circuit<>> planned_;
    exec::plan plan_;
    std::optional<exec::ipp_plan> ipp_plan_;
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END
