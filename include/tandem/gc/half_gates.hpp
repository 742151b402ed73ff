// tandem/gc/half_gates.hpp — garbling and evaluating a circuit with half-gates.
//
// Half-gates (Zahur, Rosulek, Evans, "Two halves make a whole", EUROCRYPT
// 2015, eprint 2014/756) with free-XOR (Kolesnikov–Schneider 2008) and
// point-and-permute: two ciphertexts per AND, XOR and NOT free. Labels are
// "zero labels" L0 of each wire; the one label is L0 ⊕ Δ with lsb(Δ) = 1, so
// lsb(L0) is the wire's permute bit. For an AND with inputs a, b, permute
// bits pa, pb and tweaks j = 2g, j' = 2g + 1 (g counts ANDs under this Δ):
//   TG = H(A0, j) ⊕ H(A1, j) ⊕ pb·Δ        WG0 = H(A0, j) ⊕ pa·TG
//   TE = H(B0, j') ⊕ H(B1, j') ⊕ A0        WE0 = H(B0, j') ⊕ pb·(TE ⊕ A0)
//   C0 = WG0 ⊕ WE0,   tables (TG, TE)
// and the evaluator, holding Wa, Wb with sa = lsb(Wa), sb = lsb(Wb):
//   Wc = H(Wa, j) ⊕ sa·TG ⊕ H(Wb, j') ⊕ sb·(TE ⊕ Wa).
// The selections are masks, never branches: nothing depends on secrets.
//
// The circuit is walked step by step (levels, then region instances); the
// ANDs of a level are independent, so they are hashed `batch` gates at a time
// with the keys of all their tweaks expanded side by side (crypto/hash.hpp),
// by the kernel of the widest AES instruction set the CPU has
// (gc/half_gates_kernels.hpp).
// Tweaks follow execution order: the sequential ANDs of a step level by
// level, a region's instances one after another — the ranges the planner's
// prefix sums give every worker (exec/plan.hpp) — except that instances run
// in lockstep share out their ranges' union level by level, gate-major
// (step_runner::lockstep).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/gc/half_gates_kernels.hpp>
#include <tandem/gc/tables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// What the garbler keeps to encode inputs: Δ and the zero label of every input bit.
/// Secret: whoever holds it and the tables learns every wire. Wiped on destruction.
struct encoding {
    block delta;
    std::vector<block> zero_labels;  ///< input bit k (in circuit order)

    encoding(block d, std::vector<block> z) noexcept : delta(d), zero_labels(std::move(z)) {}
    encoding(const encoding&) = default;
    encoding(encoding&&) noexcept = default;
    encoding& operator=(const encoding&) = default;
    encoding& operator=(encoding&&) noexcept = default;
    ~encoding() {
        tandem::detail::wipe(&delta, sizeof delta);
        tandem::detail::wipe_all(zero_labels);
    }

    /// The label that encodes `bit` on input bit k.
    block label(std::size_t k, bool bit) const noexcept { return zero_labels[k] ^ (mask_of(bit) & delta); }
};

/// What turns output labels into bits: the permute bit of each output wire
/// (the constant itself for outputs that are public constants).
struct decoding {
    std::vector<std::uint8_t> bits;
};

}  // namespace tandem::gc

TANDEM_CRYPTO_END


TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// One worker's garbling or evaluating engine, as the executor (exec/) and a
/// session's engine (session/engine.hpp) see it: garbler_core and
/// evaluator_core below, under any hash. Calls through it are per step, per
/// run of levels or per FGP part, never per gate, so the code that sequences
/// a run is compiled once for both hashes and both roles (issue 29: the
/// executor and the engine compiled once per hash cost ~2.5 s of every
/// including program's compile time).
class core {
public:
    virtual ~core() = default;
    /// Levels [begin, end) of c, the first AND with tweak index first_and;
    /// returns the tweak index after their ANDs.
    virtual std::uint64_t levels(const circuit_data& c, detail::label_array& label, std::uint32_t begin,
                                 std::uint32_t end, std::uint64_t first_and) = 0;
    /// Instances [begin, end) of region r (step_runner::instances).
    virtual std::uint64_t instances(const region_data& r, std::uint32_t begin, std::uint32_t end,
                                    detail::label_array& outer, std::uint64_t first_and) = 0;
    /// The ANDs [begin, end) of `gates` (all of one level, or a part of it),
    /// the first with tweak index first_and.
    virtual void ands(const gate* gates, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
                      std::uint64_t first_and) = 0;
    /// The XOR and NOT gates [begin, end) of c, in order.
    virtual void linear(const circuit_data& c, detail::label_array& label, std::uint32_t begin,
                        std::uint32_t end) = 0;
    /// Passes buffered tables on (a garbler whose sink buffers).
    virtual void flush() = 0;
};

namespace detail {
/// linear_copies (above) for CPUs without VAES.
inline void linear_copies(const gate* gates, block* label, std::uint32_t begin, std::uint32_t end, std::uint32_t k,
                          block not_mask) noexcept {
#if TANDEM_X86
    if (tandem::detail::use_vaes()) {
        vaes::linear_copies(gates, label, begin, end, k, not_mask);
        return;
    }
#endif
    for (std::uint32_t j = begin; j < end; ++j) {
        const gate g = gates[j];
        block* out = label + std::size_t{g.out} * k;
        const block* a = label + std::size_t{g.in0} * k;
        const block* b = label + std::size_t{g.in1} * k;
        switch (g.kind) {
        case gate_kind::xor_gate:
            for (std::uint32_t m = 0; m < k; ++m) out[m] = a[m] ^ b[m];
            break;
        case gate_kind::not_gate:
            for (std::uint32_t m = 0; m < k; ++m) out[m] = a[m] ^ not_mask;
            break;
        case gate_kind::and_gate:  // never in a linear range
            break;
        }
    }
}

/// At most this many instances run in lockstep, and their labels take at
/// most lockstep_bytes: 64 instances make even a chain of one AND per level
/// fill four 16-gate batches; the byte budget keeps a group's labels in the
/// L2/L3 caches (the interleaved layout reads each body slot's k labels as
/// one run of adjacent lines).
inline constexpr std::uint32_t max_lockstep = 64;
inline constexpr std::size_t lockstep_bytes = std::size_t{1} << 20;

/// How many consecutive instances of `body` run in lockstep: a pure function
/// of the body, so that both parties form the same groups.
inline std::uint32_t lockstep_width(const circuit_data& body) noexcept {
    const std::size_t room = lockstep_bytes / (sizeof(block) * std::max<std::size_t>(body.slot_count, 1));
    const std::size_t k = std::clamp<std::size_t>(room, 1, max_lockstep);
    return static_cast<std::uint32_t>(k < 4 ? k : k & ~std::size_t{3});  // whole registers of labels
}

/// What garbler_core and evaluator_core share: walking levels, and running a
/// region instance in a label array of its own, through the core's ands()
/// and linear() (called directly: the cores are final).
template <class Core>
class step_runner : public core {
public:
    /// Levels [begin, end) of c; returns the tweak index after their ANDs.
    /// Flattened: a lone AND inlines here, as it must in a chain of one AND
    /// per level, where a call per gate shows; a level of two ANDs or more is
    /// one call into a kernel (the cores' many_ands, not inlined, so that each
    /// kernel is compiled once per core type, not once per caller).
    [[gnu::flatten]] std::uint64_t levels(const circuit_data& c, label_array& label, std::uint32_t begin,
                                          std::uint32_t end, std::uint64_t first_and) final {
        Core& core = static_cast<Core&>(*this);
        for (std::uint32_t l = begin; l < end; ++l) {
            const level_range& lv = c.levels[l];
            core.ands(c.gates.data(), label, lv.and_begin, lv.xor_begin, first_and);
            first_and += lv.and_count();
            core.linear(c, label, lv.xor_begin, lv.end);
        }
        return first_and;
    }
    /// Instances [begin, end) of region r, the first with tweak index
    /// first_and (an instance's tweaks follow the one before, exec/plan.hpp);
    /// returns the tweak index after them. Consecutive instances of one body
    /// run in lockstep groups (lockstep_width), one instance alone as before.
    std::uint64_t instances(const region_data& r, std::uint32_t begin, std::uint32_t end, label_array& outer,
                            std::uint64_t first_and) final {
        for (std::uint32_t i = begin; i < end;) {
            const std::uint32_t body = r.instances[i].body;
            const std::uint32_t most = lockstep_width(r.bodies[body]);
            std::uint32_t k = 1;
            while (k < most && i + k < end && r.instances[i + k].body == body) ++k;
            first_and = k == 1 ? instance(r, r.instances[i], outer, first_and) : lockstep(r, i, k, outer, first_and);
            i += k;
        }
        return first_and;
    }

    /// One region instance: reads its inputs from `outer`, writes its outputs there.
    std::uint64_t instance(const region_data& r, const region_instance& i, label_array& outer,
                           std::uint64_t first_and) {
        const circuit_data& body = r.bodies[i.body];
        if (local_.size() < body.slot_count) local_.resize(body.slot_count);
        const auto in = r.inputs_of(i), out = r.outputs_of(i);
        for (std::size_t k = 0; k < in.size(); ++k) local_[k] = outer[in[k]];
        first_and = levels(body, local_, 0, static_cast<std::uint32_t>(body.levels.size()), first_and);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j] != unused_slot) outer[out[j]] = local_[body.output_slots[j]];
        return first_and;
    }

    /// Instances first .. first+k-1 (one body) in lockstep (paper 003 §3,
    /// SIMD sub-circuits): level d of all k runs as one level of k times the
    /// ANDs, so narrow bodies fill the hash batches as a wide circuit does.
    /// The k copies' labels are interleaved, slot s of copy m at s·k + m, so
    /// the k operands of one body gate are adjacent; the level's ANDs are
    /// relocated into that layout gate-major (gate j of copies 0..k-1, then
    /// gate j+1) and take consecutive tweaks in that order: tweak
    /// first_and + k·(ANDs of the levels before) + k·j + m. The group's
    /// tweaks are thus exactly the range its instances own, [first_and,
    /// first_and + k·ANDs(body)), and both parties derive the same groups
    /// from the same plan.
    std::uint64_t lockstep(const region_data& r, std::uint32_t first, std::uint32_t k, label_array& outer,
                           std::uint64_t first_and) {
        Core& core = static_cast<Core&>(*this);
        const circuit_data& body = r.bodies[r.instances[first].body];
        const std::size_t slots = std::size_t{body.slot_count} * k;
        if (local_.size() < slots) local_.resize(slots);
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto in = r.inputs_of(r.instances[first + m]);
            for (std::size_t s = 0; s < in.size(); ++s) local_[s * k + m] = outer[in[s]];
        }
        // With VAES and whole registers of copies, a core with quad kernels
        // (half-gates) reads the body's gates directly (vaes::quad_cursor);
        // otherwise they are relocated.
        const bool quads = Core::quad_kernels && k % 4 == 0 && tandem::detail::use_vaes();
        for (const level_range& lv : body.levels) {
            const std::size_t ands = std::size_t{lv.and_count()} * k;
            if (ands != 0 && quads) {
                if constexpr (Core::quad_kernels)
                    core.lockstep_ands(body.gates.data() + lv.and_begin, lv.and_count(), k, local_.data(), first_and);
                first_and += ands;
            } else if (ands != 0) {
                if (relocated_.size() < ands) relocated_.resize(ands);
                gate* g = relocated_.data();
                for (std::uint32_t j = lv.and_begin; j < lv.xor_begin; ++j) {
                    const gate x = body.gates[j];
                    for (std::uint32_t m = 0; m < k; ++m)
                        *g++ = gate{x.in0 * k + m, x.in1 * k + m, x.out * k + m, gate_kind::and_gate};
                }
                core.ands(relocated_.data(), local_, 0, static_cast<std::uint32_t>(ands), first_and);
                first_and += ands;
            }
            core.linear(body, local_, lv.xor_begin, lv.end, k);
        }
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto out = r.outputs_of(r.instances[first + m]);
            for (std::size_t j = 0; j < out.size(); ++j)
                if (out[j] != unused_slot) outer[out[j]] = local_[std::size_t{body.output_slots[j]} * k + m];
        }
        return first_and;
    }

    /// The XOR and NOT gates [begin, end) of c, in order; a NOT adds the
    /// core's not_offset() (the garbler's Δ; the evaluator's zero block,
    /// which the compiler folds away). Written out, not free_gate_value: that
    /// template sits outside this header's target region, and the label
    /// operations it calls were not inlined into it (bench_garble, AES
    /// circuit: 0.79x).
    void linear(const circuit_data& c, label_array& label, std::uint32_t begin, std::uint32_t end) final {
        const block not_offset = static_cast<const Core&>(*this).not_offset();
        for (std::uint32_t j = begin; j < end; ++j) {
            const gate& g = c.gates[j];
            static_assert(tandem::detail::free_kinds_are_xor_and_not, "give the new free kind its labels here");
            label[g.out] = g.kind == gate_kind::xor_gate ? label[g.in0] ^ label[g.in1] : label[g.in0] ^ not_offset;
        }
    }
    /// The same for k interleaved copies (lockstep: slot s of copy m at s·k + m).
    void linear(const circuit_data& c, label_array& label, std::uint32_t begin, std::uint32_t end,
                std::uint32_t k) const {
        linear_copies(c.gates.data(), label.data(), begin, end, k, static_cast<const Core&>(*this).not_offset());
    }

private:
    label_array local_;           // one instance's labels, or a lockstep group's, reused
    std::vector<gate> relocated_;  // a lockstep level's ANDs in the group's layout, reused
};
}  // namespace detail

/// One thread's garbling engine: garbles levels of a circuit, parts of
/// levels (FGP) and region instances, each with the tweaks it is given, into
/// its sink. The session's executor (exec/) runs one per worker; garble()
/// below runs one over a whole circuit.
template <tweakable_hash Hash, table_sink Sink>
class garbler_core final : public detail::step_runner<garbler_core<Hash, Sink>> {
public:
    static constexpr bool quad_kernels = true;  // lockstep_ands below

    garbler_core(block hash_start, block delta, Sink& sink) : hash_(hash_start), delta_(delta), sink_(sink) {}

    void ands(const gate* gates, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) override {
        // A lone AND (a chain: one per level) runs the same code on every ISA
        // and is taken here, without a call.
        if (end - begin > 1) return many_ands(gates, label, begin, end, first_and);
        detail::and_garbler<Hash, Sink> a{gates, hash_, sink_, label, delta_, first_and};
        if (end > begin) a.template run<1>(begin);
    }
    /// The w ANDs from `gates` on of k interleaved copies (k a multiple of 4,
    /// VAES only): see vaes::quad_cursor.
    void lockstep_ands(const gate* gates, std::uint32_t w, std::uint32_t k, block* label, std::uint64_t first_and) {
#if TANDEM_X86
        detail::vaes::garble_lockstep(gates, w, k, hash_, sink_, label, delta_, first_and);
#else
        (void)gates, (void)w, (void)k, (void)label, (void)first_and;  // quads are VAES only
#endif
    }
    /// What a NOT gate adds to its input's label (step_runner::linear).
    block not_offset() const noexcept { return delta_; }
    /// Passes buffered tables on, if the sink buffers (channel_sink).
    void flush() override {
        if constexpr (requires { sink_.flush(); }) sink_.flush();
    }

private:
    /// ands() for two ANDs or more, in the widest kernel that runs.
    [[gnu::noinline]] void many_ands(const gate* gates, detail::label_array& label, std::uint32_t begin,
                                     std::uint32_t end, std::uint64_t first_and) {
#if TANDEM_X86
        switch (tandem::detail::choose_aes_isa()) {
        case aes_isa::vaes:
            return detail::vaes::garble_ands(gates, hash_, sink_, label, delta_, begin, end, first_and);
        case aes_isa::vaes256:
            return detail::vaes256::garble_ands(gates, hash_, sink_, label, delta_, begin, end, first_and);
        default: break;
        }
#endif
        detail::and_garbler<Hash, Sink> a{gates, hash_, sink_, label, delta_, first_and};
        detail::run_ands<garble_batch>(begin, end, a);
    }

    Hash hash_;  // each core its own: the hash caches expanded keys (not thread-safe)
    block delta_;
    Sink& sink_;
};

/// The evaluator's counterpart of garbler_core, reading tables from a source.
template <tweakable_hash Hash, table_source Source>
class evaluator_core final : public detail::step_runner<evaluator_core<Hash, Source>> {
public:
    static constexpr bool quad_kernels = true;

    evaluator_core(block hash_start, Source& source) : hash_(hash_start), source_(source) {}

    void ands(const gate* gates, detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) override {
        if (end - begin > 1) return many_ands(gates, label, begin, end, first_and);
        detail::and_evaluator<Hash, Source> a{gates, hash_, source_, label, first_and};
        if (end > begin) a.template run<1>(begin);
    }
    void lockstep_ands(const gate* gates, std::uint32_t w, std::uint32_t k, block* label, std::uint64_t first_and) {
#if TANDEM_X86
        detail::vaes::evaluate_lockstep(gates, w, k, hash_, source_, label, first_and);
#else
        (void)gates, (void)w, (void)k, (void)label, (void)first_and;  // quads are VAES only
#endif
    }
    static block not_offset() noexcept { return block(); }  // the evaluator's labels need no Δ
    void flush() override {}

private:
    /// ands() for two ANDs or more, in the widest kernel that runs.
    [[gnu::noinline]] void many_ands(const gate* gates, detail::label_array& label, std::uint32_t begin,
                                     std::uint32_t end, std::uint64_t first_and) {
#if TANDEM_X86
        switch (tandem::detail::choose_aes_isa()) {
        case aes_isa::vaes: return detail::vaes::evaluate_ands(gates, hash_, source_, label, begin, end, first_and);
        case aes_isa::vaes256:
            return detail::vaes256::evaluate_ands(gates, hash_, source_, label, begin, end, first_and);
        default: break;
        }
#endif
        detail::and_evaluator<Hash, Source> a{gates, hash_, source_, label, first_and};
        detail::run_ands<evaluate_batch>(begin, end, a);
    }

    Hash hash_;
    Source& source_;
};

namespace detail {
/// Runs every step of c in order on one core (regions instance by instance);
/// returns the tweak index after the last AND.
template <class Core>
std::uint64_t run_all_steps(Core& core, const circuit_data& c, label_array& label, std::uint64_t first_and) {
    for (const step& st : c.steps) {
        if (st.kind == step_kind::sequential) {
            first_and = core.levels(c, label, st.level_begin, st.level_end, first_and);
            continue;
        }
        const region_data& r = c.regions[st.region];
        first_and = core.instances(r, 0, static_cast<std::uint32_t>(r.instances.size()), label, first_and);
    }
    return first_and;
}
}  // namespace detail

/// What garbling one circuit under a given encoding yields besides the tables.
struct garbled_outputs {
    decoding output;
    std::vector<block> output_zero;  ///< zero labels of the outputs (for checking returned labels)
    std::uint64_t and_gates = 0;     ///< ANDs garbled = tweaks used / 2
};

/// Everything garble() with a PRG produces besides the tables: the outputs
/// and the encoding and hash start it drew.
struct garbling : garbled_outputs {
    encoding input;
    block hash_start;  ///< S of the hash: public, the evaluator needs it
};

namespace detail {
/// Output decoding bits and zero labels from the final labels; wipes them.
inline garbled_outputs finish_garbling(const circuit_data& c, label_array& label, std::uint64_t and_gates) {
    garbled_outputs out;
    out.output.bits.reserve(c.output_slots.size());
    out.output_zero.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) {
        const bool constant = s == output_false || s == output_true;
        const block zero = constant ? block() : label[s];
        out.output_zero.push_back(zero);
        out.output.bits.push_back(constant ? (s == output_true) : zero.lsb());
    }
    out.and_gates = and_gates;
    tandem::detail::wipe_all(label);  // zero labels: with Δ they open every wire
    return out;
}

/// A label array holding the inputs' labels in front.
inline label_array input_slots(const circuit_data& c, std::span<const block> inputs) {
    label_array label(c.slot_count);
    std::copy(inputs.begin(), inputs.end(), label.begin());
    return label;
}

/// The active labels of the outputs (zero blocks for constants); wipes the labels.
inline std::vector<block> output_labels(const circuit_data& c, label_array& label) {
    std::vector<block> out;
    out.reserve(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) out.push_back(s == output_false || s == output_true ? block() : label[s]);
    tandem::detail::wipe_all(label);
    return out;
}
}  // namespace detail

/// Garbles c under a given encoding (Δ with lsb 1 and the zero label of every
/// input bit — a session keeps one Δ and takes the evaluator's zero labels
/// from OT extension), writing its tables to `sink` step by step (regions
/// instance by instance). `first_and` offsets the tweaks, so circuits
/// garbled under one Δ never share one. Hash is rekeyed_hash (default) or the
/// opt-in fixed_key_hash.
template <tweakable_hash Hash = rekeyed_hash, table_sink Sink>
garbled_outputs garble(const circuit<>& circ, const encoding& input, block hash_start, Sink& sink,
                       std::uint64_t first_and = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    detail::check_labels(c, input.zero_labels.size(), "garble");
    if (!input.delta.lsb()) throw usage_error("garble: Δ must have lsb 1 (point-and-permute)");
    detail::label_array label = detail::input_slots(c, input.zero_labels);
    garbler_core<Hash, Sink> core(hash_start, input.delta, sink);
    const std::uint64_t end = detail::run_all_steps(core, c, label, first_and);
    return detail::finish_garbling(c, label, end - first_and);
}

/// Garbles c, drawing Δ, the hash start S and the input labels from `rng`.
template <tweakable_hash Hash = rekeyed_hash, table_sink Sink>
garbling garble(const circuit<>& circ, prg& rng, Sink& sink, std::uint64_t first_and = 0) {
    const std::uint32_t n = circ.data().input_bits;
    encoding input{rng.next() | block(0, 1), std::vector<block>(n)};
    rng.fill(input.zero_labels.data(), n);
    const block hash_start = tandem::detail::declassified(rng.next());  // public (detail/secret.hpp)
    garbled_outputs outputs = garble<Hash>(circ, input, hash_start, sink, first_and);
    return garbling{std::move(outputs), std::move(input), hash_start};
}

/// Evaluates c from its tables and the active labels of its input bits;
/// returns the active label of every output bit. Hash must match the garbler's.
template <tweakable_hash Hash = rekeyed_hash, table_source Source>
std::vector<block> evaluate(const circuit<>& circ, block hash_start, Source& source,
                            std::span<const block> input_labels, std::uint64_t first_and = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    detail::check_labels(c, input_labels.size(), "evaluate");
    detail::label_array label = detail::input_slots(c, input_labels);
    evaluator_core<Hash, Source> core(hash_start, source);
    detail::run_all_steps(core, c, label, first_and);
    return detail::output_labels(c, label);
}

/// Output bits from output labels: lsb(label) ⊕ decoding bit.
inline std::vector<bool> decode(std::span<const block> labels, const decoding& d) {
    if (labels.size() != d.bits.size())
        throw usage_error("decode: " + std::to_string(labels.size()) + " labels for " +
                          std::to_string(d.bits.size()) + " output bits");
    std::vector<bool> bits(labels.size());
    for (std::size_t k = 0; k < labels.size(); ++k) bits[k] = labels[k].lsb() != (d.bits[k] != 0);
    return bits;
}

}  // namespace tandem::gc

TANDEM_CRYPTO_END
