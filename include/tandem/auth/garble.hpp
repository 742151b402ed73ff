// tandem/auth/garble.hpp — one run of a circuit by authenticated garbling,
// secure against a malicious garbler or evaluator (docs/DESIGN.md §9.2):
// Alice garbles, Bob evaluates, the outputs go to whoever `reveal` names.
// Sessions with security::malicious run every compiled run and batch through
// it (session/session_impl.hpp). It keeps the whole circuit's preprocessing
// in memory and garbles and evaluates a level at a time, 8 ANDs per call of
// the batched hash.
//
// Katz–Ranellucci–Rosulek–Wang, CRYPTO 2018 [031] §3–4 (authenticated
// half-gates) on Wang–Ranellucci–Katz, CCS 2017 [030] (the framework).
// Every wire w has a mask λ_w = λ^A_w ⊕ λ^B_w of authenticated shares
// (auth/bits.hpp); Bob learns the masked value Λ_w = v_w ⊕ λ_w and the
// label L_{w,Λ_w} = L_{w,0} ⊕ Λ_w·Δ_A. For u shared, [u·Δ_A] is shared as
// Alice's u_A·Δ_A ⊕ K[u_B] and Bob's M[u_B].
//  1. Function-dependent preprocessing. Fresh shared masks for the input
//     wires and every AND output; XOR outputs take the XOR of their inputs'
//     masks, NOT outputs the mask plus 1. Per AND (α, β → γ), λ_σ = λ_α·λ_β
//     from a triple (auth/triples.hpp) by Beaver: d = λ_α ⊕ x and
//     e = λ_β ⊕ y opened with their MACs, λ_σ = z ⊕ d·y ⊕ e·x ⊕ d·e. Alice
//     garbles each AND with tweaks j0 = 2k, j1 = 2k + 1:
//        G0 = H(L_α0, j0) ⊕ H(L_α1, j0) ⊕ [λ_β Δ_A],
//        G1 = H(L_β0, j1) ⊕ H(L_β1, j1) ⊕ [λ_α Δ_A] ⊕ L_α0,
//        L_γ0 = H(L_α0, j0) ⊕ H(L_β0, j1) ⊕ [λ_σ Δ_A] ⊕ [λ_γ Δ_A],
//     and sends G0, G1 and lsb(L_γ0): 2κ + 1 bits per AND.
//  2. Inputs. For Alice's input bits Bob opens his mask shares to her (MAC
//     checked); she sends Λ = x ⊕ λ and L_{w,Λ}. For Bob's, Alice opens hers;
//     Bob sends Λ = y ⊕ λ and Alice answers with L_{w,Λ}. Λ is uniform to
//     the party that did not choose the input, so nothing either party can
//     do with it depends on the other's input (no selective failure).
//  3. Evaluation: Bob computes L_γ = H(L_α, j0) ⊕ H(L_β, j1) ⊕ Λ_α·G0 ⊕
//     Λ_β·(G1 ⊕ L_α) ⊕ [λ_σ Δ_A]_B ⊕ [λ_γ Δ_A]_B ⊕ Λ_α·[λ_β Δ_A]_B ⊕
//     Λ_β·[λ_α Δ_A]_B and Λ_γ = lsb(L_γ) ⊕ lsb(L_γ0).
//  4. The AND check. Every AND must satisfy (Λ_α ⊕ λ_α)(Λ_β ⊕ λ_β) =
//     Λ_γ ⊕ λ_γ, i.e. c_γ = Λ_αΛ_β ⊕ Λ_γ ⊕ Λ_α λ_β ⊕ Λ_β λ_α ⊕ λ_σ ⊕ λ_γ = 0,
//     linear in the shares once the Λ are public. Bob sends every Λ_γ with a
//     random GF(2^128) combination of his labels L_γ (χ seeded by a hash of
//     the Λs): Alice recomputes it from L_γ0 ⊕ Λ_γ·Δ_A and refuses Λs that
//     his labels do not back (otherwise a flipped Λ would make her next
//     message depend on a mask share). Alice then sends a random combination
//     of the MACs of her shares of every c_γ; Bob compares it with his keys ⊕
//     (his share of c_γ)·Δ_B. A wrong table, lsb or input label changes some
//     Λ_γ without Bob noticing during evaluation; it is caught here unless
//     the cheater knows Δ_B. Nothing is output before both checks pass.
//  5. Outputs: each party opens its mask shares of the output wires to the
//     other, if the other learns them, with their MACs; the value is
//     Λ ⊕ λ^A ⊕ λ^B.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/agree.hpp>
#include <tandem/auth/bits.hpp>
#include <tandem/auth/triples.hpp>
#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>
#include <tandem/run_stats.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::auth {

/// Runs circuits with authenticated garbling over one session's
/// authenticator and triple maker (both parties hold one each). Executions
/// can be prepared ahead (prepare: both preprocessing phases, in bulk) and
/// run later on their inputs (run: the online phase alone); a run with
/// nothing prepared for its circuit prepares one execution first.
class garbler_evaluator {
public:
    static constexpr const char* beaver_step = "function-dependent preprocessing: the Beaver openings";
    static constexpr const char* input_step = "function-dependent preprocessing: the input masks' openings";
    static constexpr const char* lambda_step = "AND check: the evaluator's masked values";
    static constexpr const char* and_check_step = "AND check";
    static constexpr const char* output_step = "outputs: the mask openings";

    /// The ANDs prepared in one batch of triples, by default: a prepare()
    /// of many executions splits them evenly into batches of about this many
    /// ANDs (at least one execution each), so its triples take about 200 MiB
    /// at once however many executions are prepared. Bucket 3 needs 280,000
    /// triples (triple_plan); more per batch would not send less.
    static constexpr std::size_t default_batch_ands = 320'000;

    garbler_evaluator(authenticator& auth, triple_maker& maker, prg& rng,
                      std::size_t batch_ands = default_batch_ands)
        : auth_(auth), maker_(maker), rng_(rng), batch_ands_(std::max<std::size_t>(batch_ands, 1)) {}
    garbler_evaluator(const garbler_evaluator&) = delete;
    garbler_evaluator& operator=(const garbler_evaluator&) = delete;
    /// Wipes the label scratch (the share arrays wipe themselves), also
    /// where a run ended in an exception before its own wipes.
    ~garbler_evaluator() {
        tandem::detail::wipe_all(slot_label_);
        tandem::detail::wipe_all(input_label_);
        tandem::detail::wipe_all(and_label_);
        tandem::detail::wipe_all(carry_label_);
    }

    /// Prepares `runs` executions of c (regions are flattened): the random
    /// authenticated bits and triples, the masks, Beaver, the garbled
    /// circuits and the input masks' openings. They are kept, in order, for
    /// the next `runs` calls of run() on c. Both parties call it with the same
    /// circuit and count. Prepared material takes about 115 B (Alice) and
    /// 130 B (Bob) per AND until it is run. Throws security_error naming the
    /// step if the peer deviated.
    void prepare(net::channel& ch, const circuit<>& original, std::size_t runs) {
        me_ = auth_.me();
        last_ = {};
        ands_ = 0;
        if (runs == 0) return;
        phase_clock clock(ch);
        const std::shared_ptr<const plan> p = make_plan(ch, original);
        clock.lap(last_.dependent);  // the hash start
        std::deque<material>& queue = prepared_[key(original)];
        const std::size_t batches = std::clamp<std::size_t>(runs * p->ands / batch(), 1, runs);
        for (std::size_t b = 0; b < batches; ++b) {
            const std::size_t r = runs / batches + (b < runs % batches ? 1 : 0);
            independent(ch, *p, r);
            clock.add(last_.independent);
            std::vector<material> batch = dependent(ch, p, r);
            clock.add(last_.dependent);
            for (material& m : batch) queue.push_back(std::move(m));
        }
        ands_ = runs * p->ands;
    }

    /// The hash tweaks the last run() garbled its ANDs with: count of them
    /// from first on. Executions under one Δ never share a tweak (tests
    /// check the ranges are disjoint): one used twice would hand the
    /// evaluator two tables' rows under the same hash.
    struct tweak_range {
        std::uint64_t first = 0, count = 0;
    };
    tweak_range last_tweaks() const noexcept { return last_tweaks_; }

    /// Executions of c prepared and not yet run.
    std::size_t prepared(const circuit<>& c) const {
        const auto it = prepared_.find(key(c));
        return it == prepared_.end() ? 0 : it->second.size();
    }

    /// Runs c on this party's input bits, the bits of its input values in
    /// circuit order, on the next execution prepared for c (or prepares one
    /// first); returns every output bit, in order, to the parties `who` names
    /// (the other gets nullopt). Throws security_error naming the step if the
    /// peer deviated, before any output is opened.
    std::optional<std::vector<std::uint8_t>> run(net::channel& ch, const circuit<>& c,
                                                 std::span<const std::uint8_t> my_bits, reveal who = reveal::both) {
        me_ = auth_.me();
        std::size_t mine = 0;
        for (const value_layout& v : c.data().inputs)
            if (v.owner == me_) mine += v.bits;
        if (my_bits.size() != mine)
            throw usage_error("auth::garbler_evaluator::run: " + std::to_string(my_bits.size()) +
                              " input bits given; this party's input values have " + std::to_string(mine));
        auto it = prepared_.find(key(c));
        if (it == prepared_.end() || it->second.empty()) {
            prepare(ch, c, 1);
            it = prepared_.find(key(c));
        } else {
            last_ = {};
        }
        const material m = std::move(it->second.front());
        it->second.pop_front();
        last_tweaks_ = {m.tweak, 2 * m.p->ands};
        if (it->second.empty()) prepared_.erase(it);
        phase_clock clock(ch);
        std::optional<std::vector<std::uint8_t>> out = online(ch, m, my_bits, who);
        clock.lap(last_.online);
        ands_ = m.p->ands;
        return out;
    }

    /// Further sources of triples (under the same global keys), asked in
    /// parallel with the main link's maker (make_triples), each part a task
    /// on `pool` (at least 1 + sources.size() workers); a session with
    /// threads > 1 adds one per worker link or MPI rank. The peer adds its
    /// matching sources, in the same order.
    void add_triple_sources(std::vector<triple_source*> sources, exec::workers& pool) {
        if (pool.size() < 1 + sources.size()) tandem::detail::internal_error("auth: a worker per triple source expected");
        triple_sources_ = std::move(sources);
        pool_ = &pool;
    }

    /// The ANDs of a level are cut into parts of at least this many, one
    /// part per link at most (garble_on).
    static constexpr std::size_t min_part_ands = 1024;

    /// Worker links the garbling also runs on (docs/DESIGN.md §9.2, "Garbling
    /// on the workers"): a level of at least 2·min_part_ands ANDs is cut into
    /// up to 1 + links.size() parts that the pool's workers (add_triple_sources,
    /// one per link at least) garble at once under this party's Δ_A, part j's
    /// rows on links[j - 1] and part 0's on the main link; Bob receives on
    /// every link at once and evaluates the parts the same way, and both sum
    /// the AND check's random combinations in parts. The peer gives its links
    /// of the same numbers. Without them (a single thread, or MPI ranks, whose
    /// workers are other processes) all of it runs on the caller's thread and
    /// the main link.
    void garble_on(std::vector<net::channel*> links) {
        if (!links.empty() && (!pool_ || pool_->size() < 1 + links.size()))
            tandem::detail::internal_error("auth: a worker per garbling link expected");
        links_ = std::move(links);
    }

    /// Starts a streamed run (docs/DESIGN.md §11, "In malicious mode"): then run_segment() for
    /// each of its segments as the function is cut, both parties alike.
    void start_stream() {
        me_ = auth_.me();
        last_ = {};
        ands_ = 0;
        refill_ = 0;
        carry_.clear();
    }

    /// Runs one segment of a streamed run (stream_segment, circuit/builder.hpp;
    /// regions are flattened): its preprocessing and online phase at once, since
    /// its gates are known only now, AND check included, before the next
    /// segment starts. The wires carried into the next segment keep their
    /// authenticated masks, Alice's 0-labels and Bob's labels and Λ, so the
    /// segments are one circuit garbled piece by piece under one Δ_A and one
    /// run of tweaks. Triples come from a reservoir refilled in growing steps
    /// up to a batch (take_triples, next_refill): a short run pays for a few
    /// times what it uses, a long one mostly bucket 3's price, and memory stays
    /// bounded by a batch whatever the run's length. Returns the bits the
    /// segment opens, to the parties its `open` names.
    std::optional<std::vector<std::uint8_t>> run_segment(net::channel& ch, tandem::detail::stream_segment&& s) {
        std::vector<std::uint8_t> my_bits;
        for (const tandem::detail::stream_input_bit& in : s.inputs)
            if (in.owner == me_) my_bits.push_back(static_cast<std::uint8_t>(in.value & 1));
        const tandem::detail::wipe_on_exit wipe_bits{my_bits};
        phase_clock clock(ch);
        const block start = hash_start(ch);
        const auto p = std::make_shared<const plan>(std::move(s.data), start, static_cast<std::uint32_t>(carry_.lam.size()),
                                                    s.inputs, s.carried);
        clock.add(last_.dependent);
        independent(ch, *p, 1, true);
        clock.add(last_.independent);
        std::vector<material> batch = dependent(ch, p, 1);
        clock.add(last_.dependent);
        material& m = batch.front();
        std::optional<std::vector<std::uint8_t>> out = online(ch, m, my_bits, s.open);
        clock.add(last_.online);
        carry_.lam = std::move(m.carry_lam);
        if (me_ == party::alice) carry_.label.swap(m.carry_label);
        else carry_.label.swap(carry_label_);
        carry_.lambda.swap(carry_lambda_);
        ands_ += p->ands;
        return out;
    }

    /// Ends a streamed run: the carried wires' shares and labels are wiped.
    void end_stream() noexcept { carry_.clear(); }

    /// ANDs in the last run's circuit (regions flattened), or in all the
    /// executions the last prepare() prepared.
    std::uint64_t and_gates() const noexcept { return ands_; }

    /// The time and bytes of each phase of a run (run_stats::independent,
    /// dependent, online).
    struct phases {
        phase_stats independent, dependent, online;
    };
    /// The phases of the last run or prepare(); a run of prepared material
    /// has only the online one.
    const phases& last_phases() const noexcept { return last_; }

private:
    // ---- helpers on one shared bit ----
    struct bit_share {
        std::uint8_t bit;
        block mac, key;
    };
    static bit_share get(const shares& s, std::size_t i) noexcept { return {s.bit[i], s.mac[i], s.key[i]}; }
    static void put(shares& s, std::size_t i, const bit_share& v) noexcept {
        s.bit[i] = v.bit;
        s.mac[i] = v.mac;
        s.key[i] = v.key;
    }
    static bit_share add(const bit_share& a, const bit_share& b) noexcept {
        return {static_cast<std::uint8_t>(a.bit ^ b.bit), a.mac ^ b.mac, a.key ^ b.key};
    }
    /// c·u for a public bit c.
    static bit_share times(std::uint8_t c, const bit_share& u) noexcept {
        const block m = mask_of(c != 0);
        return {static_cast<std::uint8_t>(c & u.bit), m & u.mac, m & u.key};
    }
    /// u ⊕ c for a public bit c: Alice's share flips, Bob's key of it moves by c·Δ_B.
    bit_share plus(const bit_share& u, std::uint8_t c) const noexcept {
        if (me_ == party::alice) return {static_cast<std::uint8_t>(u.bit ^ c), u.mac, u.key};
        return {u.bit, u.mac, u.key ^ (auth_.delta() & mask_of(c != 0))};
    }
    /// Alice's share of u·Δ_A: u_A·Δ_A ⊕ K[u_B].
    block times_delta(const bit_share& u) const noexcept { return (auth_.delta() & mask_of(u.bit != 0)) ^ u.key; }
    static std::uint8_t lsb(const block& b) noexcept { return static_cast<std::uint8_t>(b.low() & 1); }

    /// What every prepared execution of one prepare() call, or one segment
    /// of a streamed run, shares: the circuit with its regions flattened, its
    /// entries (the wires whose masks and labels exist before its gates: the
    /// input bits, and a segment's carried wires first), the fresh input
    /// bits by owner and the garbler's hash.
    struct plan {
        /// A compiled circuit: its input bits are the entries, in slots 0, 1, ...
        plan(circuit<> flat, block start) : c(std::move(flat)), hash(tandem::detail::declassified(start)) {
            const circuit_data& d = c.data();
            count_ands();
            entry.resize(d.input_bits);
            for (std::uint32_t e = 0; e < d.input_bits; ++e) entry[e] = e;
            for (const value_layout& v : d.inputs)
                for (std::uint32_t b = 0; b < v.bits; ++b) of[v.owner == party::alice ? 0 : 1].push_back(v.first_bit + b);
        }
        /// A streamed segment (stream_segment, circuit/builder.hpp): the C
        /// wires the last segment carried out (slots 1..C) are the first
        /// entries, its inputs the rest; its first `carried_out` outputs go on
        /// to the next segment.
        plan(circuit_data segment, block start, std::uint32_t carried_in,
             std::span<const tandem::detail::stream_input_bit> inputs, std::uint32_t carried_out)
            : hash(tandem::detail::declassified(start)), carried_in(carried_in), carried_out(carried_out) {
            entry.reserve(carried_in + inputs.size());
            for (std::uint32_t k = 1; k <= carried_in; ++k) entry.push_back(k);
            for (std::size_t j = 0; j < inputs.size(); ++j) {
                entry.push_back(inputs[j].slot);
                of[inputs[j].owner == party::alice ? 0 : 1].push_back(carried_in + static_cast<std::uint32_t>(j));
            }
            if (segment.regions.empty()) {
                c = circuit<>(std::move(segment), tandem::detail::trusted_layout);
            } else {  // flattened: the entries land in slots 0, 1, ...
                c = flatten_entries(segment, entry);
                for (std::uint32_t e = 0; e < entry.size(); ++e) entry[e] = e;
            }
            count_ands();
        }
        circuit<> c;
        std::size_t ands = 0;
        std::vector<std::uint32_t> entry;   // each entry's slot
        std::vector<std::uint32_t> of[2];   // the entries of Alice's input bits, of Bob's, in input order
        rekeyed_hash hash;
        std::uint32_t carried_in = 0;       // entries 0..carried_in-1: carried from the last segment
        std::uint32_t carried_out = 0;      // outputs 0..carried_out-1: carried into the next one
        std::size_t fresh() const noexcept { return entry.size() - carried_in; }

    private:
        void count_ands() {
            for (const gate& g : c.data().gates) ands += g.kind == gate_kind::and_gate;
        }
    };

    /// One prepared execution: everything its online phase needs.
    struct material {
        material() = default;
        material(material&&) noexcept = default;
        material& operator=(material&&) noexcept = default;
        ~material() {
            tandem::detail::wipe_all(own_lambda);
            tandem::detail::wipe_all(input_label);
            tandem::detail::wipe_all(and_label);
            tandem::detail::wipe_all(carry_label);
        }
        std::shared_ptr<const plan> p;
        std::uint64_t tweak = 0;  // its first AND's j0
        shares lam_a, lam_b;      // per AND, λ_α and λ_β
        shares rho;               // per AND, λ_σ ⊕ λ_γ
        shares output_lam;        // per output bit opened (0 for the constants)
        shares carry_lam;         // a segment's: per output carried into the next one
        std::vector<std::uint8_t> own_lambda;      // λ of this party's input bits, opened to it
        tandem::detail::big_vector<block> input_label;  // Alice: each input wire's 0-label
        tandem::detail::big_vector<block> and_label;    // Alice: each AND's 0-label L_γ0
        tandem::detail::big_vector<block> carry_label;  // Alice: each carried output's 0-label
        tandem::detail::big_vector<block> tables;       // Bob: G0, G1 per AND
        std::vector<std::uint8_t> colour;               // Bob: lsb(L_γ0) per AND
    };

    using circuit_key = std::pair<std::uint64_t, std::uint64_t>;
    static circuit_key key(const circuit<>& c) { return {c.fingerprint().hi, c.fingerprint().lo}; }

    /// The flattened circuit and the garbler's hash start, as in a
    /// semi-honest run (only the garbler's own secrets depend on it being
    /// random); one per prepare(), the tweaks continue across executions.
    std::shared_ptr<const plan> make_plan(net::channel& ch, const circuit<>& original) {
        return std::make_shared<const plan>(flatten(original), hash_start(ch));
    }
    block hash_start(net::channel& ch) {
        if (me_ == party::bob) return ch.recv_value<block>();
        const block start = rng_.next();
        ch.send_value(start);
        return start;
    }

    /// Function-independent preprocessing for r executions: random shared
    /// bits for the input wires' and AND outputs' masks, and the AND triples
    /// (a streamed segment's from the reservoir, take_triples).
    void independent(net::channel& ch, const plan& p, std::size_t r, bool from_reservoir = false) {
        auth_.random(ch, r * p.fresh(), inputs_lam_);
        const std::size_t wanted = r * p.ands;
        auth_.random(ch, wanted, fresh_);
        if (from_reservoir) return take_triples(ch, wanted);
        if (wanted <= batch()) {
            if (wanted > 0) make_triples(ch, wanted, triples_);
            return;
        }
        // One execution larger than a batch: its triples in even chunks of at
        // most a batch, so the triple maker's scratch (~350 B per triple) is
        // the same memory chunk after chunk instead of fresh pages for all.
        const std::size_t chunks = (wanted + batch() - 1) / batch();
        triples_.resize(wanted);
        for (std::size_t c = 0, first = 0; c < chunks; ++c) {
            const std::size_t n = wanted / chunks + (c < wanted % chunks ? 1 : 0);
            make_triples(ch, n, chunk_);
            copy_triples(chunk_, 0, triples_, first, n);
            first += n;
        }
        chunk_.wipe();
    }

    /// The ANDs of one batch: batch_ands_ per link that makes triples.
    std::size_t batch() const noexcept { return batch_ands_ * (1 + triple_sources_.size()); }

    /// At least n fresh triples into out. With further sources
    /// (add_triple_sources) they are made in parts at once, a task per source on the pool, in as many
    /// parts as makes the largest part's leaky triples fewest (a part below
    /// a bucket size's threshold needs a larger bucket); both parties split
    /// alike. A failure on one link interrupts the others, and the first
    /// error (not the interrupted links' errors it caused) is rethrown once
    /// all parts are done (exec::workers::run_together).
    void make_triples(net::channel& ch, std::size_t n, triples& out) {
        std::size_t parts = 1;
        for (std::size_t p = 2; p <= 1 + triple_sources_.size(); ++p)
            if (triple_plan::for_request((n + p - 1) / p).leaky() <
                triple_plan::for_request((n + parts - 1) / parts).leaky())
                parts = p;
        if (parts == 1) return maker_.make(ch, n, out);
        part_.resize(parts);
        pool_->run_together(
            static_cast<std::uint32_t>(parts),
            [&](std::uint32_t k) {
                const std::size_t count = n / parts + (k < n % parts ? 1 : 0);
                if (k == 0) maker_.make(ch, count, part_[0]);
                else triple_sources_[k - 1]->make(count, part_[k]);
            },
            [&] {
                ch.interrupt();
                for (triple_source* source : triple_sources_) source->interrupt();
            });
        std::size_t total = 0;
        for (std::size_t k = 0; k < parts; ++k) total += part_[k].size();
        out.resize(total);
        for (std::size_t k = 0, first = 0; k < parts; ++k) {
            copy_triples(part_[k], 0, out, first, part_[k].size());
            first += part_[k].size();
            part_[k].wipe();
        }
    }

    /// A segment's n triples into triples_, from the reservoir (reservoir_
    /// from reservoir_next_ on), which is refilled when it runs dry
    /// (next_refill). Both parties take alike; what a run leaves stays for
    /// the next streamed run.
    void take_triples(net::channel& ch, std::size_t n) {
        triples_.resize(n);
        for (std::size_t first = 0; first < n;) {
            if (reservoir_next_ == reservoir_.size()) {
                refill_ = next_refill(n - first);
                make_triples(ch, refill_, reservoir_);
                reservoir_next_ = 0;
            }
            const std::size_t k = std::min(n - first, reservoir_.size() - reservoir_next_);
            copy_triples(reservoir_, reservoir_next_, triples_, first, k);
            reservoir_next_ += k;
            first += k;
        }
    }

    /// How many triples the reservoir is refilled with when a segment still
    /// needs `needed`: a stream's first refill is that need, each later one
    /// four times the last, and a whole batch once that reaches a quarter of
    /// one. The run's length is not known ahead, and a fixed batch made a
    /// 100-AND streamed run pay 960,000 leaky triples (30 MB per party);
    /// growing steps make a short run pay for a few times what it uses, and
    /// a long one pay bucket 4 rather than 3 on under a third of a batch
    /// (triple_plan). Both parties compute it from the same segments.
    std::size_t next_refill(std::size_t needed) const noexcept {
        const std::size_t grown = std::max(needed, 4 * refill_);
        return 4 * grown >= batch() ? batch() : grown;
    }

    /// Triples [from_first, from_first + n) of `from` to `into` from `first` on.
    static void copy_triples(const triples& from, std::size_t from_first, triples& into, std::size_t first,
                             std::size_t n) {
        for (auto [to, src] : {std::pair{&into.x, &from.x}, {&into.y, &from.y}, {&into.z, &from.z}}) {
            std::copy_n(src->bit.data() + from_first, n, to->bit.data() + first);
            std::copy_n(src->mac.data() + from_first, n, to->mac.data() + first);
            std::copy_n(src->key.data() + from_first, n, to->key.data() + first);
        }
    }

    /// Function-dependent preprocessing for r executions, on the batch the
    /// last independent() made: masks, one Beaver opening for them all, the
    /// garbled circuits, and each party's input masks opened to it.
    std::vector<material> dependent(net::channel& ch, const std::shared_ptr<const plan>& p, std::size_t r) {
        std::vector<material> batch(r);
        for (std::size_t i = 0; i < r; ++i) {
            material& m = batch[i];
            m.p = p;
            m.tweak = next_tweak_;
            next_tweak_ += 2 * p->ands;
            masks(*p, i, m);
        }
        beaver(ch, batch);
        for (material& m : batch) {
            if (me_ == party::alice)
                garble(ch, m);
            else
                receive_tables(ch, m);
        }
        input_masks(ch, batch);
        inputs_lam_.wipe();
        fresh_.wipe();
        return batch;
    }

    /// Step 1 for both parties, execution i of the batch: masks for every
    /// wire, the per-AND shares (λ_α, λ_β, and λ_γ for now in rho) and the
    /// output wires' masks.
    void masks(const plan& p, std::size_t i, material& m) {
        const circuit_data& d = p.c.data();
        const std::size_t in0 = i * p.fresh(), and0 = i * p.ands;
        slot_lam_.resize(d.slot_count);
        m.lam_a.resize(p.ands);
        m.lam_b.resize(p.ands);
        m.rho.resize(p.ands);
        for (std::uint32_t e = 0; e < p.carried_in; ++e) put(slot_lam_, p.entry[e], get(carry_.lam, e));
        for (std::size_t e = p.carried_in; e < p.entry.size(); ++e)
            put(slot_lam_, p.entry[e], get(inputs_lam_, in0 + e - p.carried_in));
        std::size_t k = 0;
        for (const level_range& level : d.levels) {  // a wide level's ANDs in parts (garble_on)
            each_level_part(level, k, [&](std::size_t, std::uint32_t first, std::size_t a, std::size_t count) {
                for (const gate* g = d.gates.data() + first; count > 0; --count, ++a, ++g) {
                    put(m.lam_a, a, get(slot_lam_, g->in0));
                    put(m.lam_b, a, get(slot_lam_, g->in1));
                    put(slot_lam_, g->out, get(fresh_, and0 + a));
                    put(m.rho, a, get(fresh_, and0 + a));
                }
            });
            k += level.xor_begin - level.and_begin;
            for (std::uint32_t i = level.xor_begin; i < level.end; ++i) {
                const gate& g = d.gates[i];
                if (g.kind == gate_kind::xor_gate) put(slot_lam_, g.out, add(get(slot_lam_, g.in0), get(slot_lam_, g.in1)));
                else put(slot_lam_, g.out, plus(get(slot_lam_, g.in0), 1));
            }
        }
        m.carry_lam.resize(p.carried_out);  // never constants (builder::cut)
        for (std::uint32_t o = 0; o < p.carried_out; ++o) put(m.carry_lam, o, get(slot_lam_, d.output_slots[o]));
        m.output_lam.resize(d.output_slots.size() - p.carried_out);
        for (std::size_t o = p.carried_out; o < d.output_slots.size(); ++o) {
            const std::uint32_t s = d.output_slots[o];
            put(m.output_lam, o - p.carried_out, s >= output_false ? bit_share{0, block(), block()} : get(slot_lam_, s));
        }
        slot_lam_.wipe();
    }

    /// Step 1, both: λ_σ = λ_α·λ_β by Beaver, d = λ_α ⊕ x and e = λ_β ⊕ y
    /// opened together for the whole batch; rho becomes λ_σ ⊕ λ_γ.
    void beaver(net::channel& ch, std::vector<material>& batch) {
        const std::size_t ands = batch.front().p->ands, n = batch.size() * ands;
        if (n == 0) return;  // a segment without ANDs
        opened_.resize(2 * n);
        const std::size_t parts = term_parts(n);
        // The batch's ANDs t in [first, last) in parts (garble_on): f(execution, its AND j, t).
        const auto each_and = [&](const auto& f) {
            each_part(parts, [&](std::size_t p) {
                const std::size_t first = n * p / parts, last = n * (p + 1) / parts;
                for (std::size_t t = first, i = first / ands, j = first % ands; t < last; ++t) {
                    f(batch[i], j, t);
                    if (++j == ands) j = 0, ++i;
                }
            });
        };
        each_and([&](const material& m, std::size_t j, std::size_t t) {
            put(opened_, t, add(get(m.lam_a, j), get(triples_.x, t)));
            put(opened_, n + t, add(get(m.lam_b, j), get(triples_.y, t)));
        });
        de_.resize(2 * n);
        auth_.open(ch, opened_, de_, beaver_step);
        opened_.wipe();
        each_and([&](material& m, std::size_t j, std::size_t t) {
            const std::uint8_t dj = de_[t], ej = de_[n + t];
            const bit_share s = add(add(get(triples_.z, t), times(dj, get(triples_.y, t))), times(ej, get(triples_.x, t)));
            put(m.rho, j, add(plus(s, static_cast<std::uint8_t>(dj & ej)), get(m.rho, j)));
        });
        triples_.wipe();
    }

    /// Step 1, Alice: the garbled ANDs, sent, and the input wires' and ANDs' 0-labels.
    void garble(net::channel& ch, material& m) {
        const circuit_data& d = m.p->c.data();
        const std::size_t ands = m.p->ands;
        slot_label_.resize(d.slot_count);
        const plan& p = *m.p;
        m.input_label.resize(p.entry.size());
        rng_.fill(m.input_label.data() + p.carried_in, p.fresh());
        std::copy_n(carry_.label.data(), p.carried_in, m.input_label.data());
        for (std::size_t e = 0; e < p.entry.size(); ++e) slot_label_[p.entry[e]] = m.input_label[e];
        m.and_label.resize(ands);
        std::size_t k = 0;
        bool split = false;
        for (const level_range& level : d.levels) {
            const std::size_t n = level.xor_begin - level.and_begin;
            split |= level_parts(n) > 1;
            each_level_part(
                level, k,
                [&](std::size_t j, std::uint32_t first, std::size_t a, std::size_t count) {
                    net::channel& link = link_of(ch, j);
                    in_chunks(first, a, count, [&](auto w, std::uint32_t g, std::size_t b) {
                        garble_ands<decltype(w)::value>(link, m, g, b);
                    });
                },
                [&] { interrupt_links(ch); });
            k += n;
            linear_gates(d, level, false);
        }
        packed_.assign((ands + 7) / 8, 0);
        for (std::size_t a = 0; a < ands; ++a)
            packed_[a / 8] = static_cast<std::uint8_t>(packed_[a / 8] | (lsb(m.and_label[a]) << (a % 8)));
        ch.send(packed_.data(), packed_.size());
        if (split)
            for (net::channel* link : links_) link->flush();
        m.carry_label.resize(p.carried_out);
        for (std::uint32_t o = 0; o < p.carried_out; ++o) m.carry_label[o] = slot_label_[d.output_slots[o]];
        tandem::detail::wipe_all(slot_label_);
    }

    /// ANDs a level's gates are garbled and evaluated in at once: one call of
    /// the batched hash (its VAES kernels take 16 blocks per copy).
    static constexpr std::size_t and_chunk = 8;

    /// Alice: garbles the W ANDs from gate `first` (the k-th AND on), all of
    /// one level, and sends their rows on ch (their part's link). Their
    /// colours, lsb(L_γ0), go after the whole circuit (garble).
    template <std::size_t W>
    void garble_ands(net::channel& ch, material& m, std::uint32_t first, std::size_t k) {
        const gate* gates = m.p->c.data().gates.data() + first;
        const block delta = auth_.delta();
        block h[4 * W];  // L_α0, L_β0 of each AND, then L_α1, L_β1
        for (std::size_t i = 0; i < W; ++i) {
            const block la = slot_label_[gates[i].in0], lb = slot_label_[gates[i].in1];
            h[2 * i] = la;
            h[2 * i + 1] = lb;
            h[2 * W + 2 * i] = la ^ delta;
            h[2 * W + 2 * i + 1] = lb ^ delta;
        }
        m.p->hash.template hash<2 * W, 2>(m.tweak + 2 * k, h);
        block rows[2 * W];
        for (std::size_t i = 0; i < W; ++i) {
            const std::size_t a = k + i;
            rows[2 * i] = h[2 * i] ^ h[2 * W + 2 * i] ^ times_delta(get(m.lam_b, a));
            rows[2 * i + 1] = h[2 * i + 1] ^ h[2 * W + 2 * i + 1] ^ times_delta(get(m.lam_a, a)) ^ slot_label_[gates[i].in0];
            const block l0 = h[2 * i] ^ h[2 * i + 1] ^ times_delta(get(m.rho, a));
            slot_label_[gates[i].out] = m.and_label[a] = l0;
        }
        ch.send(rows, sizeof rows);
    }

    /// A level's XOR and NOT gates on slot_label_ and, for Bob (`lambdas`),
    /// slot_lambda_. A NOT keeps its input's label and Λ: the mask absorbs it.
    void linear_gates(const circuit_data& d, const level_range& level, bool lambdas) {
        for (std::uint32_t i = level.xor_begin; i < level.end; ++i) {
            const gate& g = d.gates[i];
            if (g.kind == gate_kind::xor_gate) {
                slot_label_[g.out] = slot_label_[g.in0] ^ slot_label_[g.in1];
                if (lambdas) slot_lambda_[g.out] = static_cast<std::uint8_t>(slot_lambda_[g.in0] ^ slot_lambda_[g.in1]);
            } else {
                slot_label_[g.out] = slot_label_[g.in0];
                if (lambdas) slot_lambda_[g.out] = slot_lambda_[g.in0];
            }
        }
    }

    /// Bob: the rows of every AND, each part's from its link (garble_on),
    /// every link read at once, then the colours.
    void receive_tables(net::channel& ch, material& m) {
        const std::size_t ands = m.p->ands;
        const circuit_data& d = m.p->c.data();
        m.tables.resize(2 * ands);
        std::size_t most = 1;
        for (const level_range& level : d.levels) most = std::max(most, level_parts(level.xor_begin - level.and_begin));
        if (most == 1) {
            ch.recv(m.tables.data(), m.tables.size() * sizeof(block));
        } else {
            each_part(
                most,
                [&](std::size_t j) {
                    net::channel& link = link_of(ch, j);
                    std::size_t k = 0;
                    for (const level_range& level : d.levels) {
                        const std::size_t n = level.xor_begin - level.and_begin, parts = level_parts(n);
                        if (j < parts) {
                            const auto [first, count] = part_of(n, parts, j);
                            link.recv(m.tables.data() + 2 * (k + first), 2 * count * sizeof(block));
                        }
                        k += n;
                    }
                },
                [&] { interrupt_links(ch); });
        }
        packed_.resize((ands + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        m.colour.resize(ands);
        for (std::size_t k = 0; k < ands; ++k) m.colour[k] = static_cast<std::uint8_t>((packed_[k / 8] >> (k % 8)) & 1);
    }

    /// Step 2's preparation: the mask shares of each party's input bits are
    /// opened to that party (MAC checked), for the whole batch. They are
    /// input-independent, so the online phase needs no opening before the
    /// inputs: a party's Λ = x ⊕ λ is uniform to the other.
    void input_masks(net::channel& ch, std::vector<material>& batch) {
        const plan& p = *batch.front().p;
        const std::size_t fresh = p.fresh();
        for (const party owner : {party::alice, party::bob}) {
            const std::vector<std::uint32_t>& bits = p.of[owner == party::alice ? 0 : 1];
            const std::size_t n = bits.size();
            if (n == 0) continue;  // a segment without this party's inputs
            opened_.resize(batch.size() * n);
            for (std::size_t i = 0; i < batch.size(); ++i)
                for (std::size_t j = 0; j < n; ++j) put(opened_, i * n + j, get(inputs_lam_, i * fresh + bits[j] - p.carried_in));
            std::vector<std::uint8_t> lambda(opened_.size());
            auth_.open_to(ch, owner, opened_, lambda, input_step);
            if (owner == me_)
                for (std::size_t i = 0; i < batch.size(); ++i)
                    batch[i].own_lambda.assign(lambda.begin() + static_cast<std::ptrdiff_t>(i * n),
                                               lambda.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
            tandem::detail::wipe_all(lambda);
        }
        opened_.wipe();
    }

    /// The seeds of step 4's two random combinations (seeds_of).
    struct check_seeds {
        block labels, and_check;
    };

    /// The online phase of one prepared execution (steps 2–5), in five
    /// messages: Bob's inputs' Λ; Alice's inputs' Λ with the labels of every
    /// input; Bob's ANDs' Λ with a random combination of his labels; Alice's
    /// of her AND-check MACs with her output mask shares for Bob; Bob's for
    /// Alice.
    std::optional<std::vector<std::uint8_t>> online(net::channel& ch, const material& m,
                                                    std::span<const std::uint8_t> my_bits,
                                                    std::optional<reveal> who) {
        const plan& p = *m.p;
        const std::vector<std::uint32_t>& alices = p.of[0];
        const std::vector<std::uint32_t>& bobs = p.of[1];
        const std::vector<std::uint32_t>& mine = me_ == party::alice ? alices : bobs;
        input_lambda_.assign(p.entry.size(), 0);
        std::copy_n(carry_.lambda.data(), p.carried_in, input_lambda_.data());
        for (std::size_t j = 0; j < mine.size(); ++j)
            input_lambda_[mine[j]] = static_cast<std::uint8_t>((my_bits[j] & 1) ^ m.own_lambda[j]);
        const bool bob_learns = who == reveal::both || who == reveal::bob;
        const bool alice_learns = who == reveal::both || who == reveal::alice;
        const std::size_t n_out = m.output_lam.size();
        std::vector<std::uint8_t> lambda(n_out), out(n_out);
        if (me_ == party::alice) {
            const block delta = auth_.delta();
            recv_bits(ch, bobs, input_lambda_);
            send_bits(ch, alices, input_lambda_);
            for (const auto* owned : {&alices, &bobs})
                for (const std::uint32_t w : *owned)
                    ch.send_value(m.input_label[w] ^ (delta & mask_of(input_lambda_[w] != 0)));
            ch.flush();
            const check_seeds seeds = check_evaluator(ch, m);
            ch.send_value(and_check_value(m, seeds.and_check));
            if (bob_learns) auth_.send_opening(ch, m.output_lam);
            ch.flush();
            if (alice_learns) auth_.receive_opening(ch, m.output_lam, lambda, output_step);
        } else {
            send_bits(ch, bobs, input_lambda_);
            ch.flush();
            recv_bits(ch, alices, input_lambda_);
            input_label_.resize(p.entry.size());
            std::copy_n(carry_.label.data(), p.carried_in, input_label_.data());
            for (const auto* owned : {&alices, &bobs})
                for (const std::uint32_t w : *owned) input_label_[w] = ch.recv_value<block>();
            evaluate(m);
            packed_.assign((p.ands + 7) / 8, 0);
            for (std::size_t k = 0; k < p.ands; ++k)
                packed_[k / 8] = static_cast<std::uint8_t>(packed_[k / 8] | (gamma_[k] << (k % 8)));
            ch.send(packed_.data(), packed_.size());
            const check_seeds seeds = seeds_of(m);
            ch.send_value(combination(seeds.labels, p.ands, [&](std::size_t k) { return and_label_[k]; }));
            ch.flush();
            tandem::detail::wipe_all(and_label_);
            const block alices = ch.recv_value<block>();
            if (!tandem::detail::declassified(alices == and_check_value(m, seeds.and_check)))
                detail::cheated(and_check_step, "the garbled circuit does not compute the ANDs it was given");
            if (bob_learns) auth_.receive_opening(ch, m.output_lam, lambda, output_step);
            if (alice_learns) {
                auth_.send_opening(ch, m.output_lam);
                ch.flush();
            }
        }
        if (!who || !(me_ == party::alice ? alice_learns : bob_learns)) return std::nullopt;
        // Constant outputs: their Λ is the constant and their mask 0.
        for (std::size_t i = 0; i < n_out; ++i) out[i] = static_cast<std::uint8_t>(output_lambda_[i] ^ lambda[i]);
        return out;
    }

    /// Step 3, Bob: every wire's Λ and label; per AND, Λ_α and Λ_β (in
    /// in_lambda_), Λ_γ (in gamma_) and the label (in and_label_); the
    /// outputs' Λ.
    void evaluate(const material& m) {
        const plan& p = *m.p;
        const circuit_data& d = p.c.data();
        slot_label_.resize(d.slot_count);
        slot_lambda_.assign(d.slot_count, 0);
        for (std::size_t e = 0; e < p.entry.size(); ++e) {
            slot_label_[p.entry[e]] = input_label_[e];
            slot_lambda_[p.entry[e]] = input_lambda_[e];
        }
        and_label_.resize(p.ands);
        gamma_.resize(p.ands);
        in_lambda_.resize(2 * p.ands);
        std::size_t k = 0;
        for (const level_range& level : d.levels) {
            each_level_part(level, k, [&](std::size_t, std::uint32_t first, std::size_t a, std::size_t count) {
                in_chunks(first, a, count,
                          [&](auto w, std::uint32_t g, std::size_t b) { evaluate_ands<decltype(w)::value>(m, g, b); });
            });
            k += level.xor_begin - level.and_begin;
            linear_gates(d, level, true);
        }
        output_lambda(p);
        carry_label_.resize(p.carried_out);
        for (std::uint32_t o = 0; o < p.carried_out; ++o) carry_label_[o] = slot_label_[d.output_slots[o]];
        tandem::detail::wipe_all(slot_label_);
        tandem::detail::wipe_all(input_label_);
    }

    /// Bob: evaluates the W ANDs from gate `first` (the k-th AND on), all of
    /// one level.
    template <std::size_t W>
    void evaluate_ands(const material& m, std::uint32_t first, std::size_t k) {
        const gate* gates = m.p->c.data().gates.data() + first;
        block h[2 * W];
        for (std::size_t i = 0; i < W; ++i) {
            h[2 * i] = slot_label_[gates[i].in0];
            h[2 * i + 1] = slot_label_[gates[i].in1];
        }
        m.p->hash.template hash<2 * W, 1>(m.tweak + 2 * k, h);
        for (std::size_t i = 0; i < W; ++i) {
            const gate& g = gates[i];
            const std::size_t a = k + i;
            const std::uint8_t ca = slot_lambda_[g.in0], cb = slot_lambda_[g.in1];
            const block ma = mask_of(ca != 0), mb = mask_of(cb != 0);
            const block l = h[2 * i] ^ h[2 * i + 1] ^ (ma & m.tables[2 * a]) ^
                            (mb & (m.tables[2 * a + 1] ^ slot_label_[g.in0])) ^ m.rho.mac[a] ^
                            (ma & m.lam_b.mac[a]) ^ (mb & m.lam_a.mac[a]);
            const auto cg = static_cast<std::uint8_t>(lsb(l) ^ m.colour[a]);
            slot_label_[g.out] = and_label_[a] = l;
            slot_lambda_[g.out] = gamma_[a] = cg;
            in_lambda_[2 * a] = ca;
            in_lambda_[2 * a + 1] = cb;
        }
    }

    /// Λ of every output bit, from slot_lambda_: of those carried into the
    /// next segment in carry_lambda_, of the rest in output_lambda_ (the
    /// constant itself for a constant).
    void output_lambda(const plan& p) {
        const std::vector<std::uint32_t>& slots = p.c.data().output_slots;
        carry_lambda_.resize(p.carried_out);
        for (std::uint32_t o = 0; o < p.carried_out; ++o) carry_lambda_[o] = slot_lambda_[slots[o]];
        output_lambda_.assign(slots.size() - p.carried_out, 0);
        for (std::size_t i = p.carried_out; i < slots.size(); ++i) {
            const std::uint32_t s = slots[i];
            output_lambda_[i - p.carried_out] =
                s >= output_false ? static_cast<std::uint8_t>(s == output_true) : slot_lambda_[s];
        }
    }

    /// Step 4, Alice: Bob's Λ_γ must be backed by his labels (she compares his
    /// random combination of them with hers of L_γ0 ⊕ Λ_γ·Δ_A; otherwise a
    /// flipped Λ would make her next message depend on a mask share). Then
    /// every wire's Λ follows by XOR: each AND's Λ_α, Λ_β into in_lambda_, and
    /// the outputs'. Returns the seeds of both checks.
    check_seeds check_evaluator(net::channel& ch, const material& m) {
        const plan& p = *m.p;
        const circuit_data& d = p.c.data();
        gamma_.resize(p.ands);
        packed_.resize((p.ands + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        for (std::size_t k = 0; k < p.ands; ++k) gamma_[k] = static_cast<std::uint8_t>((packed_[k / 8] >> (k % 8)) & 1);
        const block theirs = ch.recv_value<block>();
        const check_seeds seeds = seeds_of(m);
        const block delta = auth_.delta();
        const block expected = combination(seeds.labels, p.ands, [&](std::size_t k) {
            return m.and_label[k] ^ (delta & mask_of(gamma_[k] != 0));
        });
        if (!tandem::detail::declassified(theirs == expected))
            detail::cheated(lambda_step, "the evaluator's masked values are not those of its labels");
        slot_lambda_.assign(d.slot_count, 0);
        for (std::size_t e = 0; e < p.entry.size(); ++e) slot_lambda_[p.entry[e]] = input_lambda_[e];
        in_lambda_.resize(2 * p.ands);
        std::size_t k = 0;
        for (const gate& g : d.gates) {
            switch (g.kind) {
            case gate_kind::and_gate:
                in_lambda_[2 * k] = slot_lambda_[g.in0];
                in_lambda_[2 * k + 1] = slot_lambda_[g.in1];
                slot_lambda_[g.out] = gamma_[k++];
                break;
            case gate_kind::xor_gate:
                slot_lambda_[g.out] = static_cast<std::uint8_t>(slot_lambda_[g.in0] ^ slot_lambda_[g.in1]);
                break;
            case gate_kind::not_gate: slot_lambda_[g.out] = slot_lambda_[g.in0]; break;
            }
        }
        output_lambda(p);
        return seeds;
    }

    /// The seeds of step 4's random combinations: BLAKE2b of every AND's
    /// Λ_γ as Bob sent them (packed_) and the execution's first tweak, so χ
    /// is drawn after Bob fixed his Λs and labels and Alice her garbled
    /// circuit (Fiat–Shamir; each try of a cheater succeeds with probability
    /// 2^-128, and saves the round trip of a seed from the verifier).
    check_seeds seeds_of(const material& m) const {
        digester h("tandem auth AND check seeds");
        h.update(&m.tweak, sizeof m.tweak);
        h.update(packed_.data(), packed_.size());
        const digest d = h.finish();
        return {block::load(d.data()), block::load(d.data() + 16)};
    }

    /// Step 4, both: every AND must satisfy (Λ_α ⊕ λ_α)(Λ_β ⊕ λ_β) = Λ_γ ⊕
    /// λ_γ, i.e. c_γ = Λ_αΛ_β ⊕ Λ_γ ⊕ Λ_α λ_β ⊕ Λ_β λ_α ⊕ λ_σ ⊕ λ_γ = 0. Alice
    /// combines the MACs of her shares of every c_γ, Bob his keys of them plus
    /// his share times Δ_B (random_combination, χ from `seed`); the two must
    /// agree, which for a c_γ ≠ 0 needs Δ_B.
    block and_check_value(const material& m, block seed) {
        const plan& p = *m.p;
        const block delta = auth_.delta();
        const bool alice = me_ == party::alice;
        return combination(seed, p.ands, [&](std::size_t k) {
            const std::uint8_t ca = in_lambda_[2 * k], cb = in_lambda_[2 * k + 1], cg = gamma_[k];
            const bit_share c = add(add(times(ca, get(m.lam_b, k)), times(cb, get(m.lam_a, k))), get(m.rho, k));
            if (alice) return c.mac;
            const auto share = static_cast<std::uint8_t>((ca & cb) ^ cg ^ c.bit);
            return c.key ^ (delta & mask_of(share != 0));
        });
    }

    /// random_combination over x(0 .. n-1); with worker links (garble_on),
    /// in parts of at least min_part_terms summed on the pool at once.
    template <class Value>
    block combination(block seed, std::size_t n, Value x) {
        const std::size_t parts = term_parts(n);
        if (parts == 1) return random_combination(seed, n, x, chi_, rows_);
        part_scratch_.resize(parts);
        sums_.resize(parts);
        each_part(parts, [&](std::size_t j) {
            sums_[j] = random_combination_part(seed, n * j / parts, n * (j + 1) / parts, x, part_scratch_[j].chi,
                                               part_scratch_[j].rows);
        });
        gf128::accumulator all{};
        for (const gf128::accumulator& p : sums_) {
            all.lo = all.lo ^ p.lo;
            all.mid = all.mid ^ p.mid;
            all.hi = all.hi ^ p.hi;
        }
        return gf128::reduce(all);
    }
    static constexpr std::size_t min_part_terms = 8192;

    // ---- the parts a level is garbled in (garble_on) ----

    /// Parts a level of n ANDs is cut into: one per min_part_ands, at most
    /// one per link. Both parties cut alike.
    std::size_t level_parts(std::size_t n) const noexcept {
        return std::clamp<std::size_t>(n / min_part_ands, 1, 1 + links_.size());
    }
    /// Part j of n ANDs cut into `parts`: its first AND and count, every part
    /// but the last a whole number of and_chunk.
    static std::pair<std::size_t, std::size_t> part_of(std::size_t n, std::size_t parts, std::size_t j) noexcept {
        const std::size_t length = ((n + parts - 1) / parts + and_chunk - 1) / and_chunk * and_chunk;
        const std::size_t first = std::min(j * length, n);
        return {first, std::min(length, n - first)};
    }
    /// Parts n per-AND terms are cut into (Beaver's loops, the check's sums):
    /// one per min_part_terms, at most one per link.
    std::size_t term_parts(std::size_t n) const noexcept {
        return std::clamp<std::size_t>(n / min_part_terms, 1, 1 + links_.size());
    }
    /// f(j, first gate, first AND, count) for every part j of a level's ANDs
    /// (level_parts, part_of), the level's first AND being the k-th; at once
    /// as each_part runs them.
    template <class F>
    void each_level_part(const level_range& level, std::size_t k, F&& f,
                         const std::function<void()>& interrupt = [] {}) {
        const std::size_t n = level.xor_begin - level.and_begin, parts = level_parts(n);
        each_part(
            parts,
            [&](std::size_t j) {
                const auto [first, count] = part_of(n, parts, j);
                f(j, level.and_begin + static_cast<std::uint32_t>(first), k + first, count);
            },
            interrupt);
    }
    /// step(width, gate, AND) over `count` ANDs from gate g (the a-th AND):
    /// and_chunk at a time (the batched hash's width), then one at a time;
    /// width an std::integral_constant.
    template <class Step>
    static void in_chunks(std::uint32_t g, std::size_t a, std::size_t count, Step&& step) {
        for (; count >= and_chunk; count -= and_chunk, g += and_chunk, a += and_chunk)
            step(std::integral_constant<std::size_t, and_chunk>{}, g, a);
        for (; count > 0; --count) step(std::integral_constant<std::size_t, 1>{}, g++, a++);
    }
    /// Part j's link: the main link's for part 0, else worker link j's.
    net::channel& link_of(net::channel& ch, std::size_t j) const noexcept { return j == 0 ? ch : *links_[j - 1]; }
    void interrupt_links(net::channel& ch) noexcept {
        ch.interrupt();
        for (net::channel* link : links_) link->interrupt();
    }
    /// f(j) for every part j < parts, at once on the pool's workers when
    /// there are several; a failure runs `interrupt` so that the other parts
    /// end too, and the first is rethrown once all are done.
    template <class F>
    void each_part(std::size_t parts, F&& f, const std::function<void()>& interrupt = [] {}) {
        if (parts == 1) return f(0);
        pool_->run_together(
            static_cast<std::uint32_t>(parts), [&](std::uint32_t j) { f(j); }, interrupt);
    }

    /// Times the phases of a run and counts the bytes moved in each.
    class phase_clock {
    public:
        explicit phase_clock(const net::channel& ch) noexcept : ch_(ch) { start(); }
        /// The time and bytes since the last lap into p.
        void lap(phase_stats& p) noexcept {
            p = {};
            add(p);
        }
        /// The same, added to p.
        void add(phase_stats& p) noexcept {
            p.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
            p.bytes_sent += ch_.bytes_sent() - sent0_;
            p.bytes_received += ch_.bytes_received() - received0_;
            start();
        }

    private:
        void start() noexcept {
            t0_ = std::chrono::steady_clock::now();
            sent0_ = ch_.bytes_sent();
            received0_ = ch_.bytes_received();
        }
        const net::channel& ch_;
        std::chrono::steady_clock::time_point t0_;
        std::uint64_t sent0_ = 0, received0_ = 0;
    };

    void send_bits(net::channel& ch, const std::vector<std::uint32_t>& which, const std::vector<std::uint8_t>& bits) {
        packed_.assign((which.size() + 7) / 8, 0);
        for (std::size_t j = 0; j < which.size(); ++j)
            packed_[j / 8] = static_cast<std::uint8_t>(packed_[j / 8] | ((bits[which[j]] & 1) << (j % 8)));
        ch.send(packed_.data(), packed_.size());
    }
    void recv_bits(net::channel& ch, const std::vector<std::uint32_t>& which, std::vector<std::uint8_t>& bits) {
        packed_.resize((which.size() + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        for (std::size_t j = 0; j < which.size(); ++j)
            bits[which[j]] = static_cast<std::uint8_t>((packed_[j / 8] >> (j % 8)) & 1);
    }

    authenticator& auth_;
    triple_maker& maker_;
    prg& rng_;
    std::size_t batch_ands_;
    party me_ = party::alice;
    phases last_;  // of the last run or prepare()
    std::size_t ands_ = 0;
    std::uint64_t next_tweak_ = 0;
    tweak_range last_tweaks_;  // the last run()'s
    std::map<circuit_key, std::deque<material>> prepared_;

    /// What a streamed run carries from one segment into the next, per
    /// carried wire: this party's authenticated share of its mask, its label
    /// (Alice: the 0-label; Bob: the active one) and its Λ (both know it).
    struct carried {
        shares lam;
        tandem::detail::big_vector<block> label;
        std::vector<std::uint8_t> lambda;
        carried() = default;
        carried(const carried&) = delete;
        carried& operator=(const carried&) = delete;
        ~carried() { clear(); }
        void clear() noexcept {
            lam.wipe();
            lam.resize(0);
            tandem::detail::wipe_all(label);
            label.clear();
            lambda.clear();
        }
    };
    carried carry_;
    std::vector<triple_source*> triple_sources_;  // add_triple_sources
    exec::workers* pool_ = nullptr;               // where their parts run (add_triple_sources)
    std::vector<net::channel*> links_;            // garble_on: part j's link is links_[j - 1]
    struct combination_scratch {
        std::vector<block> chi, rows;
    };
    std::vector<combination_scratch> part_scratch_;  // combination's, per part
    std::vector<gf128::accumulator> sums_;
    std::vector<triples> part_;              // make_triples' parts
    triples reservoir_;  // a streamed run's triples, refilled in growing steps (next_refill)
    std::size_t reservoir_next_ = 0;
    std::size_t refill_ = 0;  // the reservoir's last refill in this streamed run (next_refill)
    // Scratch of one batch or one online phase.
    triples triples_, chunk_;
    shares inputs_lam_, fresh_, slot_lam_, opened_;
    tandem::detail::big_vector<block> slot_label_, input_label_, and_label_, carry_label_;
    std::vector<std::uint8_t> packed_, de_, input_lambda_, slot_lambda_, in_lambda_, gamma_, output_lambda_,
        carry_lambda_;
    std::vector<block> chi_, rows_;  // random_combination's scratch
};

}  // namespace tandem::auth

TANDEM_CRYPTO_END
