// tandem/session/stream.hpp — one streamed run (docs/DESIGN.md §11), each party's
// segment runner.
//
// Both parties call the function (dsl/stream.hpp); each of its segments
// reaches this party's runner as it is cut, and the runners speak per segment:
//
//   Bob → Alice    OT extension columns for his input bits entering in this
//                  segment (sent as soon as he has cut it: they depend on
//                  nothing of Alice's, as in session/yao.hpp)
//   Alice → Bob    the segment header: its number, the digest chained over
//                  all segments so far, its sizes; Bob compares it with his
//                  own and stops with protocol_error at the first segment
//                  that differs (different programs, sizes or options)
//   Alice → Bob    the active labels of her input bits entering here; the
//                  garbled tables of the segment, then a flush (with several
//                  workers, a segment with regions or wide levels is planned
//                  like a compiled circuit, exec/, and worker w's tables go
//                  on link w)
//   opened values  as at the end of a compiled run (session/yao.hpp): to Bob
//                  by hashes of both labels, to Alice by Bob's labels, which
//                  she checks — so damage in transit is a protocol_error,
//                  never a wrong value
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
#include <tandem/gc/stream.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/yao.hpp>

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

    void send(net::channel& ch) const {
        ch.send_value(magic_value);
        ch.send_value(run);
        ch.send_value(segment_ands);
        ch.send_value(static_cast<std::uint64_t>(inputs.size()));
        for (const std::uint64_t w : inputs) ch.send_value(w);
        ch.send_value(who);
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
        if (peer.who != who)
            throw protocol_error("run: the parties disagree on who learns the output (this party asked for " +
                                 std::string(to_string(static_cast<reveal>(who))) + ", the peer for " +
                                 (peer.who <= 2 ? std::string(to_string(static_cast<reveal>(peer.who))) : "?") + ")");
    }
};

/// What both stream runners share: the digest chain, the label array, counts.
class stream_runner_base : public segment_runner {
public:
    stream_runner_base(net::channel& ch, std::span<net::channel* const> links, exec::workers* pool,
                       std::uint64_t first_and, const progress_callback& progress, std::uint64_t expected_ands)
        : ch_(ch), links_(links), pool_(pool), next_and_(first_and), progress_(progress), expected_ands_(expected_ands),
          sent0_(ch.bytes_sent()), received0_(ch.bytes_received()), t0_(net::clock::now()) {}
    stream_runner_base(const stream_runner_base&) = delete;
    stream_runner_base& operator=(const stream_runner_base&) = delete;

    std::uint64_t and_gates = 0;
    std::uint64_t segments = 0;
    double ot_seconds = 0;

protected:
    ~stream_runner_base() {
        wipe_all(labels_);
        wipe_all(spare_);
    }

    /// This party's header of s, chaining its digest.
    segment_header header_of(const stream_segment& s) {
        fingerprint_mixer m;
        m.add(digest_.hi);
        m.add(digest_.lo);
        m.add(s.index);
        mix_circuit(m, s.data);
        m.add(s.inputs.size());
        for (const stream_input_bit& in : s.inputs) m.add2(in.slot, static_cast<std::uint32_t>(in.owner));
        m.add(s.open ? 1 + static_cast<std::uint64_t>(*s.open) : 0);
        digest_ = m.finish();
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

    /// Notes where the segment left its carried wires, for the next enter().
    void leave(const stream_segment& s) {
        carried_from_.assign(s.data.output_slots.begin(), s.data.output_slots.begin() + s.carried);
    }

    /// The opened bits with the constants filled in.
    static std::vector<bool> opened_constants(const stream_segment& s) {
        std::vector<bool> bits;
        for (std::size_t k = s.carried; k < s.data.output_slots.size(); ++k) bits.push_back(s.data.output_slots[k] == output_true);
        return bits;
    }

    /// Output hashes of an open (copies labels per bit), the hash index
    /// continuing across the run's opens.
    void hash_opened(block hash_start, std::span<block> labels, std::size_t copies) {
        output_hashes(hash_start, labels, copies, opened_so_far_);
        opened_so_far_ += labels.size() / copies;
    }

    void done(const stream_segment& s) {
        and_gates += s.and_gates;
        next_and_ += s.and_gates;
        ++segments;
        if (progress_) {
            stream_progress p;
            p.and_gates = and_gates;
            p.expected_ands = expected_ands_;
            p.segments = segments;
            p.bytes_sent = ch_.bytes_sent() - sent0_;
            p.bytes_received = ch_.bytes_received() - received0_;
            p.seconds = std::chrono::duration<double>(net::clock::now() - t0_).count();
            p.label_slots = labels_.size();
            progress_(p);
        }
    }

    /// A plan for a segment with several workers, or nullopt when one core
    /// runs it (one link, or nothing worth splitting): regions' instances and
    /// wide levels go to the session's workers, each on its own link (exec/).
    std::optional<exec::plan> plan_for(const circuit<>& c) const {
        if (links_.size() < 2 || pool_ == nullptr) return std::nullopt;
        exec::plan p = exec::make_plan(c, static_cast<std::uint32_t>(links_.size()));
        if (p.one_worker) return std::nullopt;
        return p;
    }

    /// Runs a segment on this party's cores: planned over the session's
    /// workers when that is worth it (make(w, &plan) gives worker w's core),
    /// else on one core bound to the main link (make(0, nullptr)).
    template <class Core, class Make>
    void run_segment(const circuit<>& c, Make&& make) {
        if (const std::optional<exec::plan> p = plan_for(c)) {
            exec::detail::run_cores<Core>(
                *p, c.data(), [&](std::uint32_t w) { return make(w, &*p); }, labels_, next_and_, pool_, interrupter());
        } else {
            const std::unique_ptr<Core> one = make(0, nullptr);
            run_all_steps(*one, c.data(), labels_, next_and_);
        }
    }

    /// Stops every link at once when a worker fails.
    std::function<void()> interrupter() const {
        return [links = links_] {
            for (net::channel* l : links) l->interrupt();
        };
    }

    net::channel& ch_;
    std::span<net::channel* const> links_;  // the main link, then the worker links
    exec::workers* pool_;
    std::uint64_t next_and_;  // tweak index of the segment's first AND
    gc::detail::label_array labels_, spare_;    // this segment's labels; the last one's (enter)
    std::vector<std::uint32_t> carried_from_;  // the last segment's carried wires, in its slots
    circuit_fingerprint digest_;
    std::uint64_t opened_so_far_ = 0;
    const progress_callback& progress_;
    std::uint64_t expected_ands_;
    std::uint64_t sent0_, received0_;
    net::clock::time_point t0_;
};

/// Alice's runner: garbles each segment as it is cut.
template <class Hash>
class garbler_stream_runner final : public stream_runner_base {
public:
    garbler_stream_runner(net::channel& ch, std::span<net::channel* const> links, exec::workers* pool,
                          ot::cot_sender& sender, prg& rng, block delta, std::uint64_t first_and,
                          const progress_callback& progress, std::uint64_t expected_ands)
        : stream_runner_base(ch, links, pool, first_and, progress, expected_ands), sender_(sender), rng_(rng), delta_(delta),
          hash_start_(declassified(rng.next())) {  // sent: public (detail/secret.hpp)
        ch.send_value(hash_start_);
    }
    ~garbler_stream_runner() { wipe(&delta_, sizeof delta_); }

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        const segment_header h = header_of(s);
        h.send(ch_);
        enter(s);
        // Input labels: Bob's zero labels from his OT columns, Alice's drawn here.
        std::vector<block> q(h.bob_bits);
        ot_seconds += seconds_of([&] {
            if (!q.empty()) sender_.extend(ch_, q);
        });
        std::size_t theirs = 0;
        for (const stream_input_bit& in : s.inputs) {
            block& zero = labels_[in.slot];
            if (in.owner == party::bob) {
                zero = q[theirs++];
            } else {
                zero = rng_.next();
                ch_.send_value(zero ^ (mask_of(in.value != 0) & delta_));
            }
        }
        wipe_all(q);
        using core = gc::garbler_core<Hash, gc::channel_sink>;
        const circuit<> c(std::move(s.data), trusted_layout);  // inputs sit in the run's slots: not a stand-alone circuit
        ch_.flush();  // Bob needs the labels before any table: a segment's first tables may all go to worker links
        std::vector<gc::channel_sink> sinks;
        for (net::channel* l : links_) sinks.emplace_back(*l);
        run_segment<core>(c, [&](std::uint32_t w, const exec::plan*) {
            return std::make_unique<core>(hash_start_, delta_, sinks[w]);
        });
        s.data.output_slots = c.data().output_slots;  // the opens below read them
        leave(s);
        std::optional<std::vector<bool>> result;
        if (s.open) result = open(s);
        ch_.flush();
        done(s);
        return result;
    }

private:
    std::optional<std::vector<bool>> open(const stream_segment& s) {
        const reveal who = *s.open;  // the run's `who` for the result, an open's own otherwise
        const std::vector<std::size_t> live = live_outputs(s.data, s.carried);
        const auto& slots = s.data.output_slots;
        if (who != reveal::alice) {  // Bob decodes by matching H(his label) against both
            std::vector<block> x(2 * live.size());
            for (std::size_t m = 0; m < live.size(); ++m)
                x[m] = labels_[slots[live[m]]], x[live.size() + m] = labels_[slots[live[m]]] ^ delta_;
            hash_opened(hash_start_, x, 2);
            for (const block& b : x) ch_.send_value(b.low());
            wipe_all(x);
        } else {
            opened_so_far_ += live.size();
        }
        if (who == reveal::bob) return std::nullopt;
        ch_.flush();
        std::vector<bool> bits = opened_constants(s);
        for (const std::size_t k : live) {
            const block w = ch_.recv_value<block>();
            const block z = labels_[slots[k]];
            const opened_bit b = open_bit(w, z, z ^ delta_);
            if (!b.valid)
                throw protocol_error(corrupted_message("the evaluator's label of opened bit " +
                                                       std::to_string(k - s.carried) + " in segment " +
                                                       std::to_string(s.index)));
            bits[k - s.carried] = b.value;
        }
        return bits;
    }

    ot::cot_sender& sender_;
    prg& rng_;
    block delta_;
    block hash_start_;
};

/// Bob's runner: evaluates each segment from the tables as they arrive.
template <class Hash>
class evaluator_stream_runner final : public stream_runner_base {
public:
    evaluator_stream_runner(net::channel& ch, std::span<net::channel* const> links, exec::workers* pool,
                            ot::cot_receiver& receiver, std::uint64_t first_and, const progress_callback& progress,
                            std::uint64_t expected_ands)
        : stream_runner_base(ch, links, pool, first_and, progress, expected_ands), receiver_(receiver),
          hash_start_(ch.recv_value<block>()) {
        for (net::channel* l : links_) sources_.push_back(std::make_unique<gc::channel_source>(*l, 0));
    }

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        const segment_header mine = header_of(s);
        std::vector<std::uint8_t> choices;
        for (const stream_input_bit& in : s.inputs)
            if (in.owner == party::bob) choices.push_back(in.value);
        std::vector<block> t(choices.size());
        ot_seconds += seconds_of([&] {
            if (!choices.empty()) receiver_.extend(ch_, choices, t);
        });
        const segment_header peer = segment_header::receive(ch_);
        if (peer.index != mine.index || peer.digest_hi != mine.digest_hi || peer.digest_lo != mine.digest_lo)
            throw protocol_error("streamed run: the parties run different functions (or sizes, or segment_ands): "
                                 "segment " + std::to_string(mine.index) + " differs (this party: " + mine.describe() +
                                 "; the peer's segment " + std::to_string(peer.index) + ": " + peer.describe() +
                                 "); both must call session::run with the same streamed function and options");
        enter(s);
        std::size_t mine_k = 0;
        for (const stream_input_bit& in : s.inputs)
            labels_[in.slot] = in.owner == party::bob ? t[mine_k++] : ch_.recv_value<block>();
        wipe_all(t);
        using core = gc::evaluator_core<Hash, gc::channel_source>;
        const circuit<> c(std::move(s.data), trusted_layout);  // inputs sit in the run's slots: not a stand-alone circuit
        run_segment<core>(c, [&](std::uint32_t w, const exec::plan* p) {
            sources_[w]->allow(2 * (p != nullptr ? p->worker_ands[w] : s.and_gates));  // this segment's tables on link w
            return std::make_unique<core>(hash_start_, *sources_[w]);
        });
        s.data.output_slots = c.data().output_slots;
        leave(s);
        std::optional<std::vector<bool>> result;
        if (s.open) result = open(s);
        done(s);
        return result;
    }

private:
    std::optional<std::vector<bool>> open(const stream_segment& s) {
        const reveal who = *s.open;  // the run's `who` for the result, an open's own otherwise
        const std::vector<std::size_t> live = live_outputs(s.data, s.carried);
        const auto& slots = s.data.output_slots;
        std::optional<std::vector<bool>> result;
        if (who != reveal::alice) {
            std::vector<bool> bits = opened_constants(s);
            std::vector<std::uint64_t> hashes(2 * live.size());  // H(zero label)s, then H(one label)s
            if (!hashes.empty()) ch_.recv(hashes.data(), hashes.size() * sizeof(std::uint64_t));
            std::vector<block> x(live.size());
            for (std::size_t m = 0; m < live.size(); ++m) x[m] = labels_[slots[live[m]]];
            hash_opened(hash_start_, x, 1);
            for (std::size_t m = 0; m < live.size(); ++m) {
                const opened_bit b = open_bit(x[m].low(), hashes[m], hashes[live.size() + m]);
                if (!b.valid)
                    throw protocol_error(corrupted_message("opened bit " + std::to_string(live[m] - s.carried) +
                                                           " of segment " + std::to_string(s.index)));
                bits[live[m] - s.carried] = b.value;
            }
            wipe_all(x);
            result = std::move(bits);
        } else {
            opened_so_far_ += live.size();
        }
        if (who != reveal::bob) {
            for (const std::size_t k : live) ch_.send_value(labels_[slots[k]]);
            ch_.flush();
        }
        return result;
    }

    ot::cot_receiver& receiver_;
    block hash_start_;
    std::vector<std::unique_ptr<gc::channel_source>> sources_;  // one per link, given each segment's share
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END
