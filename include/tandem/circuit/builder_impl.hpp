// tandem/circuit/builder_impl.hpp — the recorder's definitions that need no
// inlining into the DSL: construction, inputs and outputs, cuts, regions,
// the twin table. The hot path (and_, xor_, emit) stays in builder.hpp.
// Included at the end of builder.hpp header-only; compiled once in
// src/core.cpp otherwise (detail/linkage.hpp).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/detail/linkage.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tandem::detail {

TANDEM_INLINE builder::builder() : serial_(next_serial()) {
    rec_.wires.push_back(recorded_gate{});  // the constant
    rec_.bucket_counts.assign(64, 0);        // levels 0..31 (raise_max_level grows them)
    rec_.deduplicated = true;
}

TANDEM_INLINE builder::builder(std::uint64_t segment_ands, segment_runner& runner) : builder() {
    if (segment_ands == 0) throw usage_error("tandem: segment_ands must be at least 1");
    runner_ = &runner;
    segment_ands_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(segment_ands, default_segment_ands));
    stream_limit_ = segment_ands;
    chain_gates_ = true;  // until record_compile()
    arm_and_countdown();
}

TANDEM_INLINE builder::builder(std::uint64_t segment_ands, gate_sink& sink) : builder() {
    if (segment_ands == 0) throw usage_error("tandem: segment_ands must be at least 1");
    sink_ = &sink;
    eager_made_ = std::make_unique<gate[]>(eager_batch);
    stream_limit_ = segment_ands;
    detour_ = true;
}

TANDEM_INLINE builder::~builder() {
    // Values that outlive the run must not unlink from a freed list.
    for (live_link* l = live_.next_; l != nullptr;) {
        live_link* next = l->next_;
        l->prev_ = l->next_ = nullptr;
        l = next;
    }
    live_.next_ = nullptr;
}

TANDEM_INLINE wire_ref builder::add_input_value(party owner, std::uint32_t bits) {
    if (rec_.gate_count() != 0 || region_)
        internal_error("inputs must be declared before any gate is recorded");
    const std::uint32_t first = rec_.input_bits;
    rec_.inputs.push_back({owner, first, bits});
    rec_.input_bits += bits;
    rec_.wires.resize(1 + std::size_t{rec_.input_bits}, recorded_gate{});
    unread_ += bits;
    return wire_ref{(first + 1) << 1};
}

TANDEM_INLINE void builder::add_output_value(const wire_ref* bits, std::uint32_t count) {
    if (region_) internal_error("outputs declared inside a parallel region");
    rec_.outputs.push_back({party::alice, static_cast<std::uint32_t>(rec_.output_wires.size()), count});
    for (std::uint32_t i = 0; i < count; ++i) {
        const wire_ref r = bits[i];
        if (r.is_constant()) {
            rec_.output_wires.push_back(r.constant_value() ? output_true : output_false);
        } else {
            const std::uint32_t w = materialize(r);
            add_use(w);
            rec_.output_wires.push_back(w);
        }
    }
}

TANDEM_INLINE void builder::record_compile() {
    if (!streaming() || rec_.gate_count() != 0) internal_error("record_compile() after the first gate");
    compile_ = true;
    chain_gates_ = false;
    rec_.input_slots.resize(rec_.input_bits);
    for (std::uint32_t k = 0; k < rec_.input_bits; ++k) rec_.input_slots[k] = k;
    pool_.count = rec_.input_bits;
}

TANDEM_INLINE circuit_data builder::finish_compile() {
    if (!compile_ || region_) internal_error("finish_compile() on a builder that does not compile by segments");
    close_recording();
    return lay_out_segment(std::move(rec_), pool_, 0);
}

TANDEM_INLINE wire_ref builder::add_stream_input(party owner, std::uint32_t bits, const std::uint8_t* values) {
    if (region_)
        throw usage_error("tandem: a streamed input was read inside a parallel region; read it before the region "
                          "and pass the values in");
    if (eager()) {  // inputs enter between gates: nothing waits for a segment's start
        pass_gates();
        const std::uint32_t first = eager_next_;
        if (std::uint64_t{first} + bits >= (std::uint64_t{1} << 31) - 1) too_many_wires();
        eager_next_ = first + bits;
        sink_->inputs(first, owner, bits, values);
        return wire_ref{first << 1};
    }
    if (rec_.gate_count() != 0) cut({}, std::nullopt);
    const wire_ref first = add_input_value(owner, bits);
    for (std::uint32_t k = 0; k < bits; ++k)  // a streamed segment's wires sit in the slots their ids name
        pending_inputs_.push_back({first.id() + k, owner, values != nullptr ? values[k] : std::uint8_t{0}});
    return first;
}

TANDEM_INLINE std::vector<std::uint32_t> builder::carry_live(std::size_t n_wires, std::size_t& live_refs) {
    if (carry_of_.size() < n_wires) carry_of_.resize(n_wires, 0);  // all zero: reset after each walk
    std::vector<std::uint32_t> wires;
    for (live_link* l = live_.next_; l != nullptr; l = l->next_) {
        live_refs += l->count_;
        for (std::uint32_t k = 0; k < l->count_; ++k) {
            wire_ref& r = l->refs_[k];
            if (r.is_constant()) continue;
            const std::uint32_t w = r.id();
            if (w >= n_wires) internal_error("a live value names a wire beyond its segment");
            std::uint32_t& c = carry_of_[w];
            if (c == 0) {
                wires.push_back(w);
                c = static_cast<std::uint32_t>(wires.size());
            }
            r = wire_ref{(c << 1) | (r.v & 1u)};
        }
    }
    for (const std::uint32_t w : wires) carry_of_[w] = 0;
    return wires;
}

TANDEM_INLINE void builder::restart_segment_counts(std::size_t live_refs) noexcept {
    segment_and_count_ = 0;
    segment_and_total_ = 0;
    arm_and_countdown();
    // A cut walks every live reference: the next one waits until the
    // segment has at least that many gates (a compile) or a quarter of
    // that (a streamed run, whose segments stay small while little is
    // live), so a function holding a million values alive — a sort —
    // pays O(1) per gate for the walks instead of O(live) per segment.
    min_cut_gates_ = compile_ ? live_refs : live_refs / 4;
}

TANDEM_INLINE std::optional<std::vector<bool>> builder::cut_eager(std::span<const wire_ref> opened,
                                                                  std::optional<reveal> who) {
    std::vector<std::uint32_t> open_wires;  // a complemented bit opens through its NOT gate, made here
    if (who)
        for (const wire_ref r : opened)
            open_wires.push_back(r.is_constant() ? (r.constant_value() ? output_true : output_false) : materialize(r));
    pass_gates();
    std::size_t live_refs = 0;
    const std::vector<std::uint32_t> wires = carry_live(eager_next_, live_refs);
    const gate_sum digest = rec_.chain.value();
    ++segments_;
    // The next segment: the carried wires are 1..C, its inputs and gates follow.
    eager_next_ = eager_first_gate_ = static_cast<std::uint32_t>(wires.size()) + 1;
    rec_.chain = gate_chain{};
    eager_not_.clear();
    restart_segment_counts(live_refs);
    return sink_->end_segment(wires, open_wires, who, digest);
}

TANDEM_INLINE std::optional<std::vector<bool>> builder::cut(std::span<const wire_ref> opened,
                                                            std::optional<reveal> who) {
    if (!streaming()) internal_error("cut() on a builder that does not stream");
    if (region_) internal_error("segment cut inside a parallel region");
    cut_pending_ = false;
    if (eager()) return cut_eager(opened, who);
    std::size_t live_refs = 0;
    std::vector<std::uint32_t> wires = carry_live(rec_.wires.size(), live_refs);
    const auto n_carried = static_cast<std::uint32_t>(wires.size());
    rec_.outputs.assign(1, {party::alice, 0, n_carried});
    for (const std::uint32_t w : wires) add_use(w);
    rec_.output_wires = std::move(wires);
    if (who) add_output_value(opened.data(), static_cast<std::uint32_t>(opened.size()));
    close_recording();
    stream_segment seg;
    seg.index = segments_++;
    seg.inputs = std::move(pending_inputs_);
    pending_inputs_.clear();
    seg.carried = n_carried;
    seg.open = who;
    if (compile_) {
        seg.data = lay_out_segment(std::move(rec_), pool_, n_carried);
    } else {
        seg.gates_digest = rec_.chain.value();
        seg.data = lay_out_streamed(std::move(rec_), n_carried);
    }
    seg.and_gates = executed_ands(seg.data);  // what runs: dead gates are gone
    // The next segment's inputs are the carried wires, where they are; it
    // records into the same gate storage (lay_out emptied it).
    big_vector<recorded_gate> storage = std::move(rec_.wires);
    std::vector<std::uint32_t> counts = std::move(rec_.bucket_counts);
    rec_ = recording{};
    rec_.wires = std::move(storage);
    rec_.bucket_counts = std::move(counts);
    std::fill(rec_.bucket_counts.begin(), rec_.bucket_counts.end(), 0u);
    rec_.input_bits = n_carried;
    if (compile_) rec_.input_slots.assign(seg.data.output_slots.begin(), seg.data.output_slots.begin() + n_carried);
    rec_.wires.assign(std::size_t{n_carried} + 1, recorded_gate{});
    unread_ = n_carried;
    twins_.clear();
    twin_count_ = 0;
    rec_.deduplicated = true;
    floor_ = 0;
    restart_segment_counts(live_refs);
    return runner_->run(std::move(seg));
}

TANDEM_INLINE std::uint64_t builder::executed_ands(const circuit_data& c) {
    std::uint64_t n = 0;
    for (const level_range& lv : c.levels) n += lv.and_count();
    for (const region_data& r : c.regions)
        for (const region_instance& i : r.instances)
            for (const level_range& lv : r.bodies[i.body].levels) n += lv.and_count();
    return n;
}

TANDEM_INLINE recording builder::take() && {
    close_recording();
    return std::move(rec_);
}

TANDEM_INLINE void builder::reject(std::uint32_t owner) const {
    const auto it = instance_region_.find(owner);
    if (it != instance_region_.end() && in_instance() && it->second + 1 == region_names_.size())
        throw usage_error("tandem: " + region_names_[it->second] +
                          ": an instance reads a value computed by another instance of the same region; "
                          "instances may read only values that existed before the region (compute it before "
                          "the region, or combine the results afterwards, e.g. with tandem::reduce)");
    if (it != instance_region_.end())
        throw usage_error("tandem: " + region_names_[it->second] +
                          ": a value computed inside an instance was used outside it without being returned by "
                          "the body; return everything the rest of the function needs");
    throw usage_error(
        "tandem: a secure value recorded by another tandem::compile call was used in this one (captured "
        "from an earlier or concurrent compile?); pass data between compiles as plain values");
}

TANDEM_INLINE void builder::begin_region(std::string name) {
    if (region_) internal_error("nested parallel region");
    if (eager()) internal_error("a parallel region in an eager stream (record_region runs it inline)");
    region_ = std::make_unique<open_region>();
    region_names_.push_back(std::move(name));
    region_->base = static_cast<std::uint32_t>(rec_.wires.size());
}

TANDEM_INLINE void builder::begin_instance() {
    instance_recording& in = region_->inst;
    // Cleared, not replaced: the buffers are reused by every instance.
    in.code.clear();
    in.import_index.clear();
    in.imports.clear();
    in.import_not.clear();
    in.gate_not.clear();
    in.serial = next_serial();
    instance_region_.emplace(in.serial, static_cast<std::uint32_t>(region_names_.size() - 1));
    instance_open_ = true;
    detour_ = true;
}

TANDEM_INLINE void builder::end_instance(std::span<const wire_ref> returned) {
    open_region& r = *region_;
    instance_recording& in = r.inst;
    instance_open_ = false;
    detour_ = eager();
    // Outputs: the instance's own gates among the returned bits, once each.
    std::vector<std::uint32_t> outputs;
    // output_of_gate[g]: 1 + g's index in outputs, 0 if not yet one
    // (a linear search per returned bit was quadratic in the outputs).
    std::vector<std::uint32_t>& output_of_gate = r.output_of_gate;
    if (output_of_gate.size() < in.code.size() / 3) output_of_gate.resize(in.code.size() / 3);
    // (No reserve(size + returned.size()) here: an exact reserve per
    // instance defeats the vector's geometric growth and made a region of
    // n instances cost O(n²) copying.)
    for (const wire_ref ref : returned) {
        if (ref.is_constant() || ref.id() < r.base) {  // a constant or an outer wire: passes through
            r.returned.push_back(ref.v);
            continue;
        }
        const std::uint32_t g = ref.id() - r.base;
        std::uint32_t j = output_of_gate[g];
        if (j == 0) {
            outputs.push_back(g);
            j = output_of_gate[g] = static_cast<std::uint32_t>(outputs.size());
        }
        --j;
        r.returned.push_back(std::uint64_t{1} << 32 | (j << 1) | (ref.v & 1u));
    }
    for (const std::uint32_t g : outputs) output_of_gate[g] = 0;
    // Canonical key: the gates, the import count, the outputs.
    std::vector<std::uint32_t> key = std::move(in.code);
    key.push_back(static_cast<std::uint32_t>(in.imports.size()));
    key.insert(key.end(), outputs.begin(), outputs.end());
    std::uint64_t h = 0x6a09e667f3bcc908ull ^ key.size();
    for (const std::uint32_t k : key) h = (std::rotl(h, 23) ^ k) * 0x9E3779B97F4A7C15ull;
    std::uint32_t body = static_cast<std::uint32_t>(r.keys.size());
    for (auto [it, last] = r.by_hash.equal_range(h); it != last; ++it)
        if (r.keys[it->second] == key) body = it->second;
    if (body == r.keys.size()) {
        r.rec.bodies.push_back(lay_out_body(key, in.imports.size(), outputs));
        r.by_hash.emplace(h, body);
        r.keys.push_back(std::move(key));
    }
    r.rec.instances.push_back({body, 0, std::move(in.imports)});
    r.output_counts.push_back(static_cast<std::uint32_t>(outputs.size()));
    r.returned_counts.push_back(static_cast<std::uint32_t>(returned.size()));
}

TANDEM_INLINE std::vector<wire_ref> builder::end_region() {
    std::unique_ptr<open_region> r = std::move(region_);
    std::vector<wire_ref> out;
    out.reserve(r->returned.size());
    std::uint32_t outputs = 0;
    for (const std::uint32_t n : r->output_counts) outputs += n;
    if (outputs == 0) {  // nothing computed (constants, pass-through): no region
        for (const std::uint64_t v : r->returned) out.push_back(wire_ref{static_cast<std::uint32_t>(v)});
        return out;
    }
    // The region takes a level of its own after everything recorded so far;
    // gates recorded after it start above it.
    const std::uint32_t level = rec_.max_level + 1;
    if (level + 1 > recorded_gate::max_level)
        throw usage_error("tandem::compile: the circuit is deeper than 2^29 levels; split the computation");
    std::size_t k = 0;
    for (std::size_t i = 0; i < r->rec.instances.size(); ++i) {
        recorded_region::instance& inst = r->rec.instances[i];
        inst.first_output = next_wire_id();
        for (std::uint32_t j = 0; j < r->output_counts[i]; ++j) {
            next_wire_id();  // checks the id space
            rec_.wires.push_back({0, 0, level << 2 | recorded_gate::region_output, 0, 0, 0, 0, 0});
            ++unread_;
        }
        for (const std::uint32_t w : inst.imports) add_use(w);
        for (std::uint32_t m = 0; m < r->returned_counts[i]; ++m, ++k) {
            const std::uint64_t v = r->returned[k];
            out.push_back(v >> 32 ? wire_ref{((inst.first_output + (static_cast<std::uint32_t>(v) >> 1)) << 1) |
                                             (static_cast<std::uint32_t>(v) & 1u)}
                                  : wire_ref{static_cast<std::uint32_t>(v)});
        }
    }
    sync_and_counts();
    if (streaming()) {  // the region's ANDs count towards the segment's limit
        std::vector<std::uint64_t> body_ands;
        for (const circuit_data& body : r->rec.bodies) {
            std::uint64_t n = 0;
            for (const level_range& lv : body.levels) n += lv.and_count();
            body_ands.push_back(n);
        }
        for (const recorded_region::instance& i : r->rec.instances) segment_and_total_ += body_ands[i.body];
        cut_pending_ = cut_pending_ || segment_and_total_ >= stream_limit_;
    }
    r->rec.name = region_names_.back();
    r->rec.level = level;
    rec_.regions.push_back(std::move(r->rec));
    raise_max_level(level);
    floor_ = level + 1;
    segment_and_count_ = 0;
    arm_and_countdown();
    return out;
}

TANDEM_INLINE void builder::close_recording() {
    std::uint32_t unread_inputs = 0;
    for (std::uint32_t w = 1; w <= rec_.input_bits; ++w) unread_inputs += rec_.wires[w].uses == 0 ? 1u : 0u;
    rec_.unread_gates = rec_.regions.empty() ? unread_ - unread_inputs : recording::unread_unknown;
}

TANDEM_INLINE std::uint32_t builder::twins_find(std::uint32_t kind, std::uint32_t a, std::uint32_t b) const noexcept {
    if (twins_.empty()) return 0;
    const std::size_t mask = twins_.size() - 1;
    for (std::size_t i = twin_hash(kind, a, b) >> 32 & mask;; i = (i + 1) & mask) {
        const std::uint32_t r = twins_[i];
        if (r == 0) return 0;
        const recorded_gate& z = rec_.wires[r];
        if ((z.level_kind & 3u) == kind && std::min(z.in0, z.in1) == std::min(a, b) &&
            std::max(z.in0, z.in1) == std::max(a, b))
            return r;
    }
}

TANDEM_INLINE void builder::twins_insert(std::uint32_t r) {
    if (2 * (twin_count_ + 1) > twins_.size()) {
        std::vector<std::uint32_t> old(std::max<std::size_t>(1024, 2 * twins_.size()), 0);
        old.swap(twins_);
        twin_count_ = 0;
        for (const std::uint32_t e : old)
            if (e != 0) twins_insert(e);
    }
    const recorded_gate& z = rec_.wires[r];
    const std::size_t mask = twins_.size() - 1;
    for (std::size_t i = twin_hash(z.level_kind & 3u, z.in0, z.in1) >> 32 & mask;; i = (i + 1) & mask) {
        if (twins_[i] == r) return;
        if (twins_[i] == 0) {
            twins_[i] = r;
            ++twin_count_;
            return;
        }
    }
}

TANDEM_INLINE std::uint32_t builder::import(std::uint32_t w) {
    instance_recording& in = region_->inst;
    const auto [it, fresh] = in.import_index.try_emplace(w, static_cast<std::uint32_t>(in.imports.size()));
    if (fresh) {
        in.imports.push_back(w);
        in.import_not.push_back(0);
    }
    return it->second;
}

TANDEM_INLINE std::uint32_t builder::emit_in_instance(gate_kind kind, std::uint32_t x, std::uint32_t y) {
    instance_recording& in = region_->inst;
    const std::size_t g = in.code.size() / 3;
    if (std::size_t{region_->base} + g >= (std::size_t{1} << 31) - 1)
        throw usage_error("tandem::compile: a region instance exceeds 2^31 wires; split the computation");
    const std::uint32_t cx = code_of(x);
    const std::uint32_t cy = y == x ? cx : code_of(y);
    in.code.insert(in.code.end(), {static_cast<std::uint32_t>(kind), cx, cy});
    in.gate_not.push_back(0);
    return region_->base + static_cast<std::uint32_t>(g);
}

}  // namespace tandem::detail
