// tandem/circuit/builder.hpp — records gates while a secure function runs.
//
// One builder per tandem::compile call (or Bristol import). Values of the DSL
// hold wire references into it. The builder folds constants and trivial gates
// as they are recorded, so what it stores is already free of them:
//   x & 0 = 0, x & 1 = x, x & x = x, x & ~x = 0, x ^ 0 = x, x ^ x = 0, ...
// NOT is recorded lazily as a flag on the reference and becomes a NOT gate only
// where an AND or an output needs the complemented wire (at most one NOT per
// wire), so `~~x`, `~x ^ ~y` and friends cost nothing.
//
// The class and its hot path (and_, xor_, emit: inlined into the DSL) are
// here; the definitions of its cold members (construction, inputs and
// outputs, cuts, regions, the twin table) are in builder_impl.hpp, compiled
// once into the library unless tandem is used header-only
// (detail/linkage.hpp). Slightly over this project's ~600-line mark: one
// class, whose sections all act inside `emit` on the same records.
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/error.hpp>
#include <tandem/party.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tandem::detail {

/// A reference to a wire of one builder, possibly complemented:
/// v = id << 1 | negated. Wire id 0 is the constant false, so v == 0 is false
/// and v == 1 is true.
struct wire_ref {
    std::uint32_t v = 0;

    constexpr std::uint32_t id() const noexcept { return v >> 1; }
    constexpr bool negated() const noexcept { return (v & 1u) != 0; }
    constexpr bool is_constant() const noexcept { return id() == 0; }
    /// Value of a constant reference; meaningless otherwise.
    constexpr bool constant_value() const noexcept { return negated(); }
    friend constexpr bool operator==(wire_ref, wire_ref) = default;
};

inline constexpr wire_ref false_ref{0};
inline constexpr wire_ref true_ref{1};
constexpr wire_ref constant_ref(bool b) noexcept { return wire_ref{b ? 1u : 0u}; }
constexpr wire_ref operator~(wire_ref r) noexcept { return wire_ref{r.v ^ 1u}; }

/// Membership of one DSL value in the live list of a streaming builder
/// (docs/DESIGN.md §11). secure_bit and secure_integer each hold one: while linked,
/// `refs` points at the value's own wire references, which the builder reads
/// and renumbers when it cuts a segment. Copying a value does not copy its
/// membership (the copy's constructor links it afresh); destroying it unlinks
/// it in O(1). Unlinked (prev == nullptr) outside streamed runs.
class live_link {
public:
    constexpr live_link() noexcept = default;
    constexpr live_link(const live_link&) noexcept {}
    constexpr live_link& operator=(const live_link&) noexcept { return *this; }
    constexpr ~live_link() { unlink(); }

    constexpr bool linked() const noexcept { return prev_ != nullptr; }
    constexpr void unlink() noexcept {
        if (prev_ == nullptr) return;
        prev_->next_ = next_;
        if (next_ != nullptr) next_->prev_ = prev_;
        prev_ = next_ = nullptr;
    }
    /// Mirrors `source` after a copy: linked (just after it, so in the same
    /// builder's list) with `refs` if the source is, unlinked otherwise.
    void follow(const live_link& source, wire_ref* refs, std::uint32_t n) noexcept {
        if (!source.linked()) {
            unlink();
            return;
        }
        refs_ = refs;
        count_ = n;
        if (linked() || &source == this) return;
        prev_ = const_cast<live_link*>(&source);
        next_ = source.next_;
        if (next_ != nullptr) next_->prev_ = this;
        source.next_ = this;
    }

private:
    friend class builder;
    live_link* prev_ = nullptr;
    mutable live_link* next_ = nullptr;
    wire_ref* refs_ = nullptr;
    std::uint32_t count_ = 0;
};

/// A wire as recorded, before levelling: a gate (its output is the wire), or
/// the constant or an input bit (level 0, no operands; only uses, readers and
/// not_of are used).
struct recorded_gate {
    std::uint32_t in0;  ///< wire id (never complemented, never constant)
    std::uint32_t in1;
    std::uint32_t level_kind;  ///< AND depth << 2 | gate_kind
    std::uint32_t not_of;      ///< wire id of the NOT gate of this wire, 0 if none yet
    std::uint32_t uses;        ///< gates reading this wire, plus one per output naming it
    /// The AND and XOR gates reading this wire, newest first, as a list
    /// through the readers' next0/next1 (wire ids, 0 at the end): the
    /// builder's common-subexpression lookup (builder::emit).
    std::uint32_t readers;
    std::uint32_t next0;  ///< the next reader of in0
    std::uint32_t next1;  ///< the next reader of in1

    static constexpr std::uint32_t max_level = (1u << 29) - 1;
    /// Kind code of a region output: a wire written by a region instance, not a gate.
    static constexpr std::uint32_t region_output = 3;
    std::uint32_t level() const noexcept { return (level_kind >> 2) & max_level; }
    static gate_kind kind_of(std::uint32_t level_kind) noexcept { return static_cast<gate_kind>(level_kind & 3u); }
    gate_kind kind() const noexcept { return kind_of(level_kind); }
    bool is_region_output() const noexcept { return (level_kind & 3u) == region_output; }
};

/// A parallel region as recorded: its bodies already laid out, and for each
/// instance the outer wires it reads and the first of its output wires.
struct recorded_region {
    std::string name;
    std::uint32_t level;  ///< the level number the region occupies between sequential gates
    std::vector<circuit_data> bodies;
    struct instance {
        std::uint32_t body;
        std::uint32_t first_output;  ///< wire id of its first output (region_output entries)
        std::vector<std::uint32_t> imports;  ///< outer wire ids, in order of first use
    };
    std::vector<instance> instances;
};

/// Everything a builder has recorded; consumed by lay_out() (layout.hpp).
/// Wire 0 is the constant false, wires 1..input_bits the input bits, and wire
/// first_gate_wire() + g the output of gate g.
struct recording {
    std::uint32_t input_bits = 0;
    /// One record per wire, indexed by wire id (the constant and the inputs
    /// first, then the gates in record order), flat: whatever a gate reads of
    /// its operands — level, uses, readers — is one load away, with no test
    /// of whether the operand is an input. One segment's wires (a streamed
    /// run's or a compile's); the storage is kept for the next segment.
    big_vector<recorded_gate> wires;
    std::vector<value_layout> inputs;
    std::vector<value_layout> outputs;
    std::vector<std::uint32_t> output_wires;  ///< wire ids, or output_false/output_true
    std::uint32_t max_level = 0;
    std::vector<recorded_region> regions;     ///< in record order (increasing level)
    /// A compile's segments: the slot each input bit already occupies (empty:
    /// input bit k starts in slot k, as in a compiled circuit).
    std::vector<std::uint32_t> input_slots;
    /// Set by a builder, which merges common subexpressions as it records
    /// (builder::emit): lay-out's own merging pass is then skipped.
    bool deduplicated = false;
    /// Kept by a builder as it records: the gates of each bucket 2·level +
    /// (kind is free) (possibly longer than the levels used), and, once the
    /// recording is closed (builder::close_recording), how many gates nobody
    /// reads (unknown: unread_unknown). With none, lay-out takes the counts
    /// and skips its dead-gate pass (layout.hpp, pass 1).
    std::vector<std::uint32_t> bucket_counts;
    static constexpr std::uint32_t unread_unknown = ~0u;
    std::uint32_t unread_gates = unread_unknown;
    /// A builder's gates as recorded (fingerprint.hpp): a streamed segment's digest.
    gate_chain chain;

    std::uint32_t first_gate_wire() const noexcept { return input_bits + 1; }
    std::size_t gate_count() const noexcept { return wires.size() - first_gate_wire(); }
    /// The gates' records: gates()[g] is wire first_gate_wire() + g.
    recorded_gate* gates() noexcept { return wires.data() + first_gate_wire(); }
    /// Readers of wire w (gates and outputs).
    std::uint32_t& uses(std::uint32_t w) noexcept { return wires[w].uses; }
};

/// The storage slots of a compile laid out by segments: one slot array for
/// the whole circuit, its free slots reused segment after segment
/// (circuit/layout.hpp).
struct slot_pool {
    std::vector<std::uint32_t> free;
    std::uint32_t count = 0;  ///< slots ever used: the run's label array size
    std::uint32_t take() {
        if (free.empty()) {
            if (count >= output_false - 1)
                throw usage_error("tandem::compile: the circuit holds more than 2^32 live wires; split the computation");
            return count++;
        }
        const std::uint32_t s = free.back();
        free.pop_back();
        return s;
    }
};

/// An input bit that enters a streamed run in a segment: where its label goes,
/// whose it is, and its value where this party knows it (else 0).
struct stream_input_bit {
    std::uint32_t slot;
    party owner;
    std::uint8_t value;
};

/// One segment of a streamed run (docs/DESIGN.md §11): a levelled circuit
/// whose wire ids are its slots: slot 0 the constant, 1..C the C wires
/// carried in from the previous segment, then `inputs`, then the gates in
/// record order (a dead or merged gate leaves its slot unused). The runner
/// moves carried wire c from the previous segment's slot output_slots[c - 1]
/// to slot c of this one (two label arrays, used in turn), and writes the
/// inputs' labels, before running it. data.output_slots holds first the
/// `carried` wires that live values still name (the next segment's 1..carried),
/// then the bits opened to `open` at its end, if any.
struct stream_segment {
    std::uint64_t index = 0;
    circuit_data data;
    std::vector<stream_input_bit> inputs;
    std::uint64_t and_gates = 0;  ///< ANDs it runs (region instances included)
    std::uint32_t carried = 0;
    std::optional<reveal> open;
    /// What stands for data.gates in the segment's digest: the builder's
    /// gate_chain of the recording they were laid out from (chain_segment_digest
    /// in session/stream.hpp sums the gates where there is none).
    std::optional<gate_sum> gates_digest;
};

/// Where a streaming builder hands its segments, in order: the plaintext or
/// the garbled runner. Returns the opened bits where this party learns them.
class segment_runner {
public:
    virtual std::optional<std::vector<bool>> run(stream_segment&& s) = 0;

protected:
    ~segment_runner() = default;
};

/// Where an eager builder hands its gates as they are made (garble as you
/// go, docs/DESIGN.md §11): nothing is recorded or levelled; the builder
/// passes them on in made order, a few hundred at a time (a call per gate
/// cost more than an XOR's label), and the sink computes each gate's value
/// (a label, a bit) at once or in a small levelled window of pending gates
/// (gc/eager.hpp). Wire ids as the builder numbers them: 0 the constant
/// false (never an operand: gates on constants fold), 1..C the wires
/// carried into the segment, then inputs and gates in the order made; each
/// gate's `out` is a fresh id.
class gate_sink {
public:
    /// The next gates, in the order made.
    virtual void gates(std::span<const gate> made) = 0;
    /// `bits` input bits of `owner` enter as wires first .. first + bits - 1;
    /// values[k] is bit k where this party knows it (else nullptr).
    virtual void inputs(std::uint32_t first, party owner, std::uint32_t bits, const std::uint8_t* values) = 0;
    /// The segment ends (every gate made has been passed on): wire
    /// carried[c] becomes wire c + 1 of the next one; the wires `opened`
    /// (output_false / output_true for constants) are opened to `who` if set;
    /// `gates` digests the segment's gates in order. Returns the opened bits
    /// where this party learns them.
    virtual std::optional<std::vector<bool>> end_segment(std::span<const std::uint32_t> carried,
                                                         std::span<const std::uint32_t> opened,
                                                         std::optional<reveal> who, const gate_sum& gates) = 0;

protected:
    ~gate_sink() = default;
};

class builder {
public:
    builder();
    /// A streaming builder (docs/DESIGN.md §11): once a segment holds `segment_ands`
    /// ANDs it is cut at the next safe point (when an operation's result
    /// value is made, outside regions and internal multi-value steps) and
    /// handed to `runner`; only the wires that a live value still names are
    /// carried into the next segment.
    builder(std::uint64_t segment_ands, segment_runner& runner);
    /// An eager streaming builder: each gate goes to `sink` as it is made
    /// (no recording, no levels, no merging of twin gates: a stream runs the
    /// gates its program makes); segments are cut as above, so that only the
    /// wires live values name are carried and the sink's memory stays bounded.
    /// A parallel region runs inline, its instances one after another
    /// (dsl/parallel.hpp, record_region): the sink's window batches their
    /// independent ANDs by level as it does any others.
    builder(std::uint64_t segment_ands, gate_sink& sink);
    ~builder();
    builder(const builder&) = delete;
    builder& operator=(const builder&) = delete;

    /// Identifies this builder; DSL values carry it to catch mixing of compiles.
    /// Values computed inside a region instance carry the instance's serial instead.
    std::uint32_t serial() const noexcept { return serial_; }

    /// Declares the next input value; returns the reference of its first bit.
    /// All inputs must be declared before the first gate.
    wire_ref add_input_value(party owner, std::uint32_t bits);

    /// Bit k of the input value whose first bit is `first` (as add_input_value returned it).
    static constexpr wire_ref input_bit(wire_ref first, std::uint32_t k) noexcept { return wire_ref{first.v + 2 * k}; }

    [[gnu::always_inline]] wire_ref and_(wire_ref a, wire_ref b) {
        if (a.is_constant()) return a.constant_value() ? b : false_ref;
        if (b.is_constant()) return b.constant_value() ? a : false_ref;
        if (a.id() == b.id()) return a == b ? a : false_ref;
        const std::uint32_t x = materialize(a);
        const std::uint32_t y = materialize(b);
        return wire_ref{emit<gate_kind::and_gate>(x, y) << 1};
    }

    [[gnu::always_inline]] wire_ref xor_(wire_ref a, wire_ref b) {
        const std::uint32_t flip = (a.v ^ b.v) & 1u;
        if (a.is_constant()) return wire_ref{b.v ^ (a.v & 1u)};
        if (b.is_constant()) return wire_ref{a.v ^ (b.v & 1u)};
        if (a.id() == b.id()) return constant_ref(flip != 0);
        return wire_ref{(emit<gate_kind::xor_gate>(a.id(), b.id()) << 1) | flip};
    }

    /// a | b = a ^ b ^ (a & b): one AND.
    [[gnu::always_inline]] wire_ref or_(wire_ref a, wire_ref b) { return xor_(xor_(a, b), and_(a, b)); }

    /// c ? a : b = b ^ (c & (a ^ b)): one AND.
    [[gnu::always_inline]] wire_ref mux(wire_ref c, wire_ref a, wire_ref b) { return xor_(b, and_(c, xor_(a, b))); }

    /// Declares the next output value from its bits.
    void add_output_value(const wire_ref* bits, std::uint32_t count);

    std::size_t gate_count() const noexcept { return rec_.gate_count(); }

    // ---- Streaming (docs/DESIGN.md §11; dsl/stream.hpp is the user's side) ----

    /// Whether values are tracked and segments cut: a streamed run or a compile laid out by segments.
    bool streaming() const noexcept { return runner_ != nullptr || sink_ != nullptr; }
    /// Whether this builder records a streamed run (tandem::stream), not a compile.
    bool streamed_run() const noexcept { return streaming() && !compile_; }
    /// Whether gates go to a gate_sink as they are made (an eager builder).
    bool eager() const noexcept { return sink_ != nullptr; }

    /// Links a new value's wire references into the live list (or re-points
    /// a linked one), then cuts the segment if it is full and this is a safe
    /// point: the value holding an operation's result is the last thing the
    /// operation makes, so every wire still needed sits in a listed value.
    void track(live_link& l, wire_ref* refs, std::uint32_t n) {
        l.refs_ = refs;
        l.count_ = n;
        if (!l.linked()) {
            l.prev_ = &live_;
            l.next_ = live_.next_;
            if (live_.next_ != nullptr) live_.next_->prev_ = &l;
            live_.next_ = &l;
        }
        safe_point();
    }

    /// A safe point between operations, where every wire still needed sits in
    /// a listed value: a value just made (track), or the end of a parallel
    /// region once its results are stored — a function made of regions only
    /// (a sorting network's layers) makes no value outside them, and would
    /// otherwise record as one segment. Cuts there if a cut is due.
    void safe_point() {
        if (cut_pending_ && holds_ == 0 && !region_ && segment_gates() >= min_cut_gates_) cut({}, std::nullopt);
    }

    /// ANDs per segment of a compile laid out as it is recorded: the
    /// levelling segment below, so cuts change the levels little.
    static constexpr std::uint64_t compile_segment_ands = std::uint64_t{1} << 18;

    /// Makes this streaming builder record a compile (dsl/compile.hpp): the
    /// inputs declared so far sit in slots [0, input_bits) of the pool, as in
    /// any compiled circuit, and a segment is cut only once it also holds as
    /// many gates as the last cut found live wire references — a function
    /// holding a million input values then pays O(1) per gate for the walks.
    void record_compile();

    /// Ends a compile: lays out the last segment, whose outputs are the
    /// values declared with add_output_value (nothing is carried).
    circuit_data finish_compile();

    /// Re-points a linked member at a (shorter) range of its references,
    /// e.g. a sequence chunk whose first elements have been read; never cuts.
    static void repoint(live_link& l, wire_ref* refs, std::uint32_t n) noexcept {
        l.refs_ = refs;
        l.count_ = n;
    }

    /// Defers cuts while tandem makes several values from raw wire references
    /// (a cut would renumber the values made so far, not the references).
    class cut_hold {
    public:
        explicit cut_hold(builder* b) noexcept : b_(b) {
            if (b_ != nullptr) ++b_->holds_;
        }
        ~cut_hold() {
            if (b_ != nullptr) --b_->holds_;
        }
        cut_hold(const cut_hold&) = delete;
        cut_hold& operator=(const cut_hold&) = delete;

    private:
        builder* b_;
    };

    /// Declares `bits` input bits of `owner` in a streamed run (cutting the
    /// segment first if it has gates: a segment's inputs precede its gates);
    /// values[k] is bit k's value where this party knows it (else nullptr).
    wire_ref add_stream_input(party owner, std::uint32_t bits, const std::uint8_t* values);

    /// Ends the segment now: lays it out and hands it to the runner, opening
    /// `opened` to `who` at its end (if who is set). Every live value's
    /// references are renumbered to the next segment's carried inputs (1..C,
    /// in order of first appearance in the live list). Returns the opened
    /// bits where this party learns them.
    std::optional<std::vector<bool>> cut(std::span<const wire_ref> opened, std::optional<reveal> who);

    /// ANDs a laid-out circuit runs: its levels' and every region instance's.
    static std::uint64_t executed_ands(const circuit_data& c);

    /// Segments cut so far.
    std::uint64_t segments() const noexcept { return segments_; }

    /// Hands over what was recorded; the builder is empty afterwards.
    recording take() &&;

    // ---- Parallel regions (docs/DESIGN.md §3; dsl/parallel.hpp is the user's side) ----
    //
    // While an instance is open, gates go to a recording of their own in a
    // canonical form: operands are the instance's own gates or its imports —
    // outer wires numbered by first use. Instances of the same code on
    // different data therefore record identical forms, and each distinct form
    // is laid out once as a body. Instance wire ids start at `base` (the next
    // outer id), and each instance gets a fresh serial for its values, so a
    // value of one instance used in another, or used after the region without
    // being returned, is caught by serial instead of silently aliasing.

    bool in_instance() const noexcept { return instance_open_; }

    /// Serial that new values get: the open instance's, else the builder's.
    std::uint32_t current_serial() const noexcept { return in_instance() ? region_->inst.serial : serial_; }

    /// Whether values owned by `owner` may be used now.
    bool accepts(std::uint32_t owner) const noexcept { return owner == serial_ || owner == current_serial(); }

    /// The error for using a value owned by `owner` here (accepts(owner) is false).
    [[noreturn]] void reject(std::uint32_t owner) const;

    void begin_region(std::string name);

    void begin_instance();

    /// Closes the open instance; `returned` are the bits its body returned.
    void end_instance(std::span<const wire_ref> returned);

    /// Closes the region. Returns the returned bits of every instance, in
    /// order, as references of the outer circuit (to its region outputs).
    std::vector<wire_ref> end_region();

    /// Drops an open region after an exception in its body.
    void abandon_region() noexcept {
        region_.reset();
        instance_open_ = false;
        detour_ = eager();
    }

private:
    static std::uint32_t next_serial() {
        static std::atomic<std::uint32_t> counter{0};
        return ++counter;  // 0 is reserved for "no builder" (public constants)
    }

    /// The id the next outer gate gets.
    [[gnu::always_inline]] std::uint32_t next_wire_id() const {
        const std::size_t id = rec_.wires.size();
        if (id >= (std::size_t{1} << 31) - 1) [[unlikely]]
            too_many_wires();
        return static_cast<std::uint32_t>(id);
    }
    [[noreturn, gnu::noinline, gnu::cold]] static void too_many_wires() {
        throw usage_error("tandem::compile: the circuit exceeds 2^31 wires; split the computation");
    }

    /// The cached NOT gate of wire w (0 if none yet).
    std::uint32_t& not_of(std::uint32_t w) {
        if (in_instance()) {
            instance_recording& in = region_->inst;
            return w >= region_->base ? in.gate_not[w - region_->base] : in.import_not[import(w)];
        }
        return rec_.wires[w].not_of;
    }

    /// Wire id carrying the value of r, adding (once per wire) a NOT gate if r
    /// is complemented. Every AND asks twice, and most operands are not
    /// complemented: that case is inlined into the caller.
    [[gnu::always_inline]] std::uint32_t materialize(wire_ref r) {
        if (!r.negated()) return r.id();
        if (!detour_)  // the cached NOT is in the wire's record
            if (const std::uint32_t n = rec_.wires[r.id()].not_of; n != 0) return n;
        return materialize_complement(r);
    }
    [[gnu::noinline]] std::uint32_t materialize_complement(wire_ref r) {
        const std::uint32_t id = r.id();
        if (eager()) {  // the cached NOT is in eager_not_, kept for the segment's wires
            if (id >= eager_not_.size()) eager_not_.resize(eager_next_, 0u);
            if (eager_not_[id] == 0) {
                const std::uint32_t n = emit_eager<gate_kind::not_gate>(id, id);
                eager_not_[id] = n;
            }
            return eager_not_[id];
        }
        if (not_of(id) == 0) {
            const std::uint32_t n = emit<gate_kind::not_gate>(id, id);
            not_of(id) = n;  // looked up again: emit() may reallocate the gates
        }
        return not_of(id);
    }

    // ---- Common subexpressions (emit) ----
    //
    // A gate kind(x, y) is recorded only if no earlier gate of the segment
    // computes it: exact structural common subexpressions (AND and XOR,
    // operands unordered; NOT gates are one per wire anyway, materialize).
    // Every AND and XOR recorded is on the reader list of each of its
    // operands, kept in the records the gate reads anyway, and a twin reads
    // both operands, so the list of the operand with fewer uses finds it —
    // while that operand has at most `short_list` uses. Lists are walked
    // load after load, and where both operands are widely read (the partial
    // products x_i & y_j of a multiplier) the walks cost more than the rest of
    // the recording: a wire's readers therefore also go into a hash table
    // once it has more than `short_list` uses (all of them, the moment it
    // crosses; later ones as they are made), and a gate whose operands both
    // have that many looks there. Since the twin's wire is returned, later
    // gates fold against it as against any wire (x ^ x = 0), and lay-out
    // needs no merging pass (the pass it replaces hashed every gate after
    // recording, about 100 instructions a gate, most of its probes cache misses).
    static constexpr std::uint32_t short_list = 32;

    /// One more use of w (uses counted elsewhere must come here too).
    void add_use(std::uint32_t w) {
        const std::uint32_t u = ++rec_.uses(w);
        unread_ -= u == 1 ? 1u : 0u;
        if (u == short_list + 1) spread_readers(w);
    }

    /// A gate or region at level `level` above the recording's highest: the
    /// bucket counts grow with it (emit counts without checking bounds).
    [[gnu::noinline]] void raise_max_level(std::uint32_t level) {
        if (level > recorded_gate::max_level)
            throw usage_error("tandem::compile: the circuit is deeper than 2^29 ANDs; split the computation");
        rec_.max_level = level;
        const std::size_t need = 2 * (std::size_t{level} + 1);
        if (rec_.bucket_counts.size() < need) rec_.bucket_counts.resize(std::max<std::size_t>(64, 2 * need), 0u);
    }

    /// Before lay-out: how many of the recording's gates nobody reads (the
    /// wires unread, less the inputs unread). Dead gates are found this way
    /// in O(inputs) per cut; only where there are some (or regions, whose
    /// outputs are wires but not gates) does lay-out walk the gates for them.
    void close_recording();

    /// w's uses just crossed short_list: its readers whose other operand is
    /// widely read too join the hash table. Touches no record's storage.
    [[gnu::noinline, gnu::cold]] void spread_readers(std::uint32_t w) {
        for (std::uint32_t r = rec_.wires[w].readers; r != 0;) {
            const recorded_gate& z = rec_.wires[r];
            if (rec_.uses(z.in0 == w ? z.in1 : z.in0) > short_list) twins_insert(r);
            r = z.in0 == w ? z.next0 : z.next1;
        }
    }

    static std::uint64_t twin_hash(std::uint32_t kind, std::uint32_t a, std::uint32_t b) noexcept {
        const std::uint64_t h = (std::uint64_t{std::min(a, b)} << 32 | std::max(a, b)) * 0x9E3779B97F4A7C15ull;
        return (h ^ (h >> 29) ^ kind) * 0xBF58476D1CE4E5B9ull;
    }

    /// The earlier gate kind(a, b) of the table, or 0.
    std::uint32_t twins_find(std::uint32_t kind, std::uint32_t a, std::uint32_t b) const noexcept;

    /// Adds gate wire r to the table (if it is not there yet), growing it at half load.
    void twins_insert(std::uint32_t r);

    // The kind is a template argument: every property of it folds (gate.hpp).
    // The streamed recorder's cost per gate is mostly here (bench_record
    // --stream-minimum under callgrind): each operand's record is loaded once,
    // the rare events (a wire crossing short_list, a segment's AND milestones,
    // a new top level) leave the straight path through one test each.
    template <gate_kind kind>
    [[gnu::always_inline]] std::uint32_t emit(std::uint32_t x, std::uint32_t y) {
        // Tested before the call: the recording's body saves registers that
        // an eager gate (a few stores) does not need. The eager gate is
        // inlined here, since eager is the streams' default: −3.2 % of an
        // eager run's instructions on the minimum, −6.1 % on the products,
        // for +1.5 % and +1.1 % in the recorder (compiles, levelled streams;
        // bench_record --stream-minimum 20000 / --stream-mul64 16, callgrind).
        if (detour_) [[unlikely]] {
            if (sink_ != nullptr) return emit_eager<kind>(x, y);
            return detour<kind>(x, y);
        }
        return record<kind>(x, y);
    }
    /// emit's other detour, out of line: a gate of an open region instance.
    template <gate_kind kind>
    [[gnu::noinline]] std::uint32_t detour(std::uint32_t x, std::uint32_t y) {
        return emit_in_instance(kind, x, y);
    }
    /// emit's recording: the gate, or its twin, in the segment's records.
    template <gate_kind kind>
    [[gnu::noinline]] std::uint32_t record(std::uint32_t x, std::uint32_t y) {
        constexpr bool is_and = !is_free(kind);  // garbled with a table: one level deeper
        constexpr bool binary = input_count(kind) == 2;  // a NOT reads its operand once and is on no list
        constexpr auto k = static_cast<std::uint32_t>(kind);
        recorded_gate* const gx = &rec_.wires[x];
        recorded_gate* const gy = &rec_.wires[y];
        const std::uint32_t ux = gx->uses, uy = binary ? gy->uses : 0;
        if constexpr (binary) {
            if (std::min(ux, uy) > short_list) {
                if (const std::uint32_t r = twins_find(k, x, y); r != 0) return r;
            } else {
                const bool by_x = ux <= uy;
                const std::uint32_t w = by_x ? x : y, other = by_x ? y : x;
                for (std::uint32_t r = (by_x ? gx : gy)->readers; r != 0;) {
                    const recorded_gate& z = rec_.wires[r];
                    const bool on_in0 = z.in0 == w;
                    if ((z.level_kind & 3u) == k && (on_in0 ? z.in1 : z.in0) == other) return r;
                    r = on_in0 ? z.next0 : z.next1;
                }
            }
        }
        // The larger level_kind has the larger level (the kind is its low bits);
        // no gate goes below the current segment's floor (see segment_ands).
        const std::uint32_t below = std::max({gx->level_kind >> 2, gy->level_kind >> 2, floor_});
        const std::uint32_t lvl = below + (is_and ? 1u : 0u);
        if (is_and && --and_countdown_ == 0) [[unlikely]]
            and_milestone(lvl);
        const std::uint32_t id = next_wire_id();
        // The new gate is unread; an operand read for the first time no longer is.
        unread_ += 1u - (ux == 0 ? 1u : 0u) - (binary && uy == 0 ? 1u : 0u);
        std::uint32_t next0 = 0, next1 = 0;
        if ((ux == short_list) | (binary && uy == short_list)) [[unlikely]] {
            count_reads_spreading(x, binary ? y : 0);  // before the push, which may move the records
        } else {
            gx->uses = ux + 1;
            if constexpr (binary) gy->uses = uy + 1;
        }
        if constexpr (binary) {
            next0 = std::exchange(gx->readers, id);
            next1 = std::exchange(gy->readers, id);
        }
        const std::uint32_t level_kind = lvl << 2 | k;
        rec_.wires.push_back({x, y, level_kind, 0, 0, 0, next0, next1});
        if (chain_gates_) rec_.chain.add(x, y, level_kind);  // a streamed segment's digest (cut)
        if (binary && std::min(ux, uy) >= short_list) twins_insert(id);  // both now read more than short_list times
        if (lvl > rec_.max_level) [[unlikely]]
            raise_max_level(lvl);
        ++rec_.bucket_counts[2 * std::size_t{lvl} + (is_and ? 0 : 1)];
        return id;
    }

    /// emit's uses of x and y (y: 0 for a NOT) counted where one of them
    /// crosses short_list, in order, each spreading its readers as it crosses.
    [[gnu::noinline, gnu::cold]] void count_reads_spreading(std::uint32_t x, std::uint32_t y) {
        if (++rec_.uses(x) == short_list + 1) spread_readers(x);
        if (y != 0 && ++rec_.uses(y) == short_list + 1) spread_readers(y);
    }

    /// emit for an eager builder: the gate gets the next id, joins the
    /// segment's digest and goes to the sink; its ANDs count towards the cut.
    template <gate_kind kind>
    [[gnu::always_inline]] std::uint32_t emit_eager(std::uint32_t x, std::uint32_t y) {
        const std::uint32_t id = eager_next_;
        if (id >= (1u << 31) - 1) [[unlikely]]
            too_many_wires();
        eager_next_ = id + 1;
        rec_.chain.add(x, y, static_cast<std::uint32_t>(kind));
        if (kind == gate_kind::and_gate && ++segment_and_total_ >= stream_limit_) cut_pending_ = true;
        // The gate is stored last: its kind is a byte, whose store may alias
        // any member, which would then be loaded again.
        gate* const slot = eager_made_.get() + eager_count_;
        const bool full = ++eager_count_ == eager_batch;
        *slot = gate{x, y, id, kind};
        if (full) [[unlikely]]
            pass_gates();
        return id;
    }
    /// Hands the gates made since the last call to the sink.
    [[gnu::noinline]] void pass_gates() {
        const std::size_t n = std::exchange(eager_count_, 0);
        if (n != 0) sink_->gates({eager_made_.get(), n});
    }

    /// Gates made in the current segment.
    std::size_t segment_gates() const noexcept { return eager() ? eager_next_ - eager_first_gate_ : rec_.gate_count(); }

    /// A new segment's AND counts, and the gates it must hold before the
    /// next cut (`live_refs`: the references the last cut walked).
    void restart_segment_counts(std::size_t live_refs) noexcept;

    /// cut() for an eager builder.
    std::optional<std::vector<bool>> cut_eager(std::span<const wire_ref> opened, std::optional<reveal> who);

    /// Renumbers every live value's references to the next segment's carried
    /// wires 1..C (in order of first appearance in the live list); returns
    /// the carried wires' ids in this segment, and counts the references walked.
    std::vector<std::uint32_t> carry_live(std::size_t n_wires, std::size_t& live_refs);

    // Both AND counters of a segment — towards the next levelling floor and
    // towards a streamed segment's limit — advance through one countdown, so
    // emit tests one number per AND; and_milestone brings them up to date.
    void sync_and_counts() noexcept {
        const std::uint32_t done = ands_armed_ - and_countdown_;
        segment_and_count_ += done;
        segment_and_total_ += done;
        ands_armed_ = and_countdown_;
    }
    void arm_and_countdown() noexcept {
        std::uint64_t n = segment_ands_ - segment_and_count_;
        if (streaming() && segment_and_total_ < stream_limit_) n = std::min(n, stream_limit_ - segment_and_total_);
        and_countdown_ = ands_armed_ = static_cast<std::uint32_t>(n);
    }
    /// An AND at `lvl` reached a milestone: a new floor, or a streamed segment full (cut at the next safe point).
    [[gnu::noinline]] void and_milestone(std::uint32_t lvl) {
        sync_and_counts();
        if (segment_and_count_ == segment_ands_) {
            segment_and_count_ = 0;
            floor_ = std::max(rec_.max_level, lvl);
        }
        if (streaming() && segment_and_total_ >= stream_limit_) cut_pending_ = true;
        arm_and_countdown();
    }

    // ---- instance recording ----

    struct instance_recording {
        std::uint32_t serial = 0;
        std::vector<std::uint32_t> code;  ///< 3 words per gate: kind, operand, operand
        std::unordered_map<std::uint32_t, std::uint32_t> import_index;  ///< outer wire -> import
        std::vector<std::uint32_t> imports;                             ///< outer wire ids
        std::vector<std::uint32_t> import_not, gate_not;  ///< NOT gates (instance wire ids), 0 = none
    };
    struct open_region {
        std::uint32_t base = 0;  ///< wire id of an instance's first gate
        instance_recording inst;
        std::vector<std::vector<std::uint32_t>> keys;  ///< canonical form of each body
        std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash;
        recorded_region rec;
        std::vector<std::uint64_t> returned;  ///< per returned bit: a ref, or 1<<32 | output<<1 | negated
        std::vector<std::uint32_t> output_counts, returned_counts;
        std::vector<std::uint32_t> output_of_gate;  ///< end_instance's scratch, all zero between calls
    };

    /// Import number of outer wire w in the open instance (numbered by first use).
    std::uint32_t import(std::uint32_t w);

    /// Operand code: instance gate g -> 2g, import k -> 2k + 1.
    std::uint32_t code_of(std::uint32_t w) {
        return w >= region_->base ? (w - region_->base) << 1 : import(w) << 1 | 1u;
    }

    std::uint32_t emit_in_instance(gate_kind kind, std::uint32_t x, std::uint32_t y);

    /// Lays out one body from its canonical form: inputs are the imports,
    /// outputs the given instance gates; levels by AND depth.
    static circuit_data lay_out_body(const std::vector<std::uint32_t>& key, std::size_t imports,
                                     const std::vector<std::uint32_t>& outputs);
    /// Lays out a compile's segment on the compile's pool of slots (layout.hpp),
    /// keeping the first `kept` outputs' slots.
    static circuit_data lay_out_segment(recording&& rec, slot_pool& pool, std::uint32_t kept);
    /// Lays out a streamed run's segment in the slots its wire ids name (layout.hpp).
    static circuit_data lay_out_streamed(recording&& rec, std::uint32_t kept);

    // Levelling is ASAP within segments of `segment_ands` ANDs in record
    // order; each segment starts at the last level of the one before. Without
    // segments, k independent instances of a function (e.g. 10^4 products)
    // would run side by side level by level, all their wires live at once: a
    // working set of gigabytes, read at random (bench_two_party mul64 ran at
    // 19 M AND/s garbling alone). With them, about one segment's wires are
    // live and each level still holds thousands of ANDs for batching.
    // Circuits smaller than a segment are levelled exactly by AND depth.
    // A region also starts a new floor: what follows it is levelled above it.
    // A streaming builder cuts at its own limit, and levels ASAP within it
    // (up to this same bound).
    static constexpr std::uint32_t default_segment_ands = std::uint32_t{1} << 18;
    std::uint32_t segment_ands_ = default_segment_ands;
    std::uint32_t floor_ = 0;
    std::uint32_t segment_and_count_ = 0;   ///< as of the last sync_and_counts
    std::uint32_t and_countdown_ = default_segment_ands;  ///< ANDs to the next and_milestone
    std::uint32_t ands_armed_ = default_segment_ands;     ///< and_countdown_ at the last sync

    // ---- streaming state ----
    segment_runner* runner_ = nullptr;
    gate_sink* sink_ = nullptr;             ///< an eager builder's sink (else null)
    std::uint32_t eager_next_ = 1;          ///< an eager builder's next wire id
    std::uint32_t eager_first_gate_ = 1;    ///< ... and the first id of its segment's gates and inputs
    std::vector<std::uint32_t> eager_not_;  ///< an eager builder's NOT gate of each wire of the segment (0: none yet)
    static constexpr std::size_t eager_batch = 512;  ///< gates an eager builder passes on at once
    std::unique_ptr<gate[]> eager_made_;    ///< ... the gates it has not passed on yet (eager_count_ of them)
    std::size_t eager_count_ = 0;
    std::uint64_t stream_limit_ = 0;        ///< ANDs per streamed segment (K)
    std::uint64_t segment_and_total_ = 0;   ///< ANDs in the segment, regions included, as of the last sync
    bool cut_pending_ = false;
    bool compile_ = false;                  ///< record_compile(): a compile laid out segment by segment
    std::size_t min_cut_gates_ = 0;         ///< cut only segments with at least this many gates (cut())
    std::uint64_t segments_ = 0;
    std::uint32_t holds_ = 0;               ///< open cut_holds
    live_link live_;                        ///< head of the live list (its own prev_ stays null)
    slot_pool pool_;
    std::vector<stream_input_bit> pending_inputs_;
    std::vector<std::uint32_t> carry_of_;   ///< cut(): wire -> carried input number (0: not carried)

    std::uint32_t serial_;
    recording rec_;
    std::vector<std::uint32_t> twins_;          ///< gates reading a widely read wire, by (kind, operands) (emit)
    std::size_t twin_count_ = 0;
    std::uint32_t unread_ = 0;  ///< wires of the recording nobody reads yet, the constant aside (close_recording)
    std::unique_ptr<open_region> region_;   ///< the region being recorded, if any
    bool instance_open_ = false;            ///< an instance of region_ is open
    bool detour_ = false;                   ///< instance_open_ or eager(): emit leaves its straight path (one load)
    /// streamed_run(), cached as one load for emit: only a streamed segment's digest reads rec_.chain
    /// (set by the streaming constructor, cleared by record_compile, the two places streamed_run() changes).
    bool chain_gates_ = false;
    std::vector<std::string> region_names_;  ///< every region begun, recorded or not (for messages)
    std::unordered_map<std::uint32_t, std::uint32_t> instance_region_;  ///< instance serial -> region_names_ index
};

}  // namespace tandem::detail

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/circuit/builder_impl.hpp>
#endif
