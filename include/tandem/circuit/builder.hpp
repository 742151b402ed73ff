// tandem/circuit/builder.hpp — records gates while a secure function runs.
//
// One builder per tandem::compile call (or Bristol import). Values of the DSL
// hold wire references into it. The builder folds constants and trivial gates
// as they are recorded, so what it stores is already free of them:
//   x & 0 = 0, x & 1 = x, x & x = x, x & ~x = 0, x ^ 0 = x, x ^ x = 0, ...
// NOT is recorded lazily as a flag on the reference and becomes a NOT gate only
// where an AND or an output needs the complemented wire (at most one NOT per
// wire), so `~~x`, `~x ^ ~y` and friends cost nothing.
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
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

/// A gate as recorded, before levelling: its output is wire first_gate_wire + index.
struct recorded_gate {
    std::uint32_t in0;  ///< wire id (never complemented, never constant)
    std::uint32_t in1;
    std::uint32_t level_kind;  ///< AND depth << 2 | gate_kind
    std::uint32_t not_of;      ///< wire id of the NOT gate of this wire, 0 if none yet
    std::uint32_t uses;        ///< gates reading this wire, plus one per output naming it

    static constexpr std::uint32_t max_level = (1u << 29) - 1;
    std::uint32_t level() const noexcept { return (level_kind >> 2) & max_level; }
    gate_kind kind() const noexcept { return static_cast<gate_kind>(level_kind & 3u); }
};

/// Everything a builder has recorded; consumed by lay_out() (layout.hpp).
/// Wire 0 is the constant false, wires 1..input_bits the input bits, and wire
/// input_bits + 1 + g the output of gates[g].
struct recording {
    std::uint32_t input_bits = 0;
    chunked_vector<recorded_gate> gates;
    std::vector<value_layout> inputs;
    std::vector<value_layout> outputs;
    std::vector<std::uint32_t> output_wires;  ///< wire ids, or output_false/output_true
    std::vector<std::uint32_t> input_uses;    ///< uses of wire k, for k <= input_bits
    std::uint32_t max_level = 0;

    std::uint32_t first_gate_wire() const noexcept { return input_bits + 1; }
    /// Readers of wire w (gates and outputs).
    std::uint32_t& uses(std::uint32_t w) noexcept {
        return w < first_gate_wire() ? input_uses[w] : gates[w - first_gate_wire()].uses;
    }
};

class builder {
public:
    builder() : serial_(next_serial()) {
        input_not_.push_back(0);
        rec_.input_uses.push_back(0);
    }
    builder(const builder&) = delete;
    builder& operator=(const builder&) = delete;

    /// Identifies this builder; DSL values carry it to catch mixing of compiles.
    std::uint32_t serial() const noexcept { return serial_; }

    /// Declares the next input value; returns the reference of its first bit.
    /// All inputs must be declared before the first gate.
    wire_ref add_input_value(party owner, std::uint32_t bits) {
        if (!rec_.gates.empty())
            internal_error("inputs must be declared before any gate is recorded");
        const std::uint32_t first = rec_.input_bits;
        rec_.inputs.push_back({owner, first, bits});
        rec_.input_bits += bits;
        input_not_.resize(1 + std::size_t{rec_.input_bits}, 0);
        rec_.input_uses.resize(1 + std::size_t{rec_.input_bits}, 0);
        return wire_ref{(first + 1) << 1};
    }

    /// Bit k of the input value whose first bit is `first` (as add_input_value returned it).
    static constexpr wire_ref input_bit(wire_ref first, std::uint32_t k) noexcept { return wire_ref{first.v + 2 * k}; }

    wire_ref and_(wire_ref a, wire_ref b) {
        if (a.is_constant()) return a.constant_value() ? b : false_ref;
        if (b.is_constant()) return b.constant_value() ? a : false_ref;
        if (a.id() == b.id()) return a == b ? a : false_ref;
        const std::uint32_t x = materialize(a);
        const std::uint32_t y = materialize(b);
        return wire_ref{emit(gate_kind::and_gate, x, y, std::max(level(x), level(y)) + 1) << 1};
    }

    wire_ref xor_(wire_ref a, wire_ref b) {
        const std::uint32_t flip = (a.v ^ b.v) & 1u;
        if (a.is_constant()) return wire_ref{b.v ^ (a.v & 1u)};
        if (b.is_constant()) return wire_ref{a.v ^ (b.v & 1u)};
        if (a.id() == b.id()) return constant_ref(flip != 0);
        const std::uint32_t x = a.id();
        const std::uint32_t y = b.id();
        return wire_ref{(emit(gate_kind::xor_gate, x, y, std::max(level(x), level(y))) << 1) | flip};
    }

    /// a | b = a ^ b ^ (a & b): one AND.
    wire_ref or_(wire_ref a, wire_ref b) { return xor_(xor_(a, b), and_(a, b)); }

    /// c ? a : b = b ^ (c & (a ^ b)): one AND.
    wire_ref mux(wire_ref c, wire_ref a, wire_ref b) { return xor_(b, and_(c, xor_(a, b))); }

    /// Declares the next output value from its bits.
    void add_output_value(const wire_ref* bits, std::uint32_t count) {
        rec_.outputs.push_back({party::alice, static_cast<std::uint32_t>(rec_.output_wires.size()), count});
        for (std::uint32_t i = 0; i < count; ++i) {
            const wire_ref r = bits[i];
            if (r.is_constant()) {
                rec_.output_wires.push_back(r.constant_value() ? output_true : output_false);
            } else {
                const std::uint32_t w = materialize(r);
                ++rec_.uses(w);
                rec_.output_wires.push_back(w);
            }
        }
    }

    std::size_t gate_count() const noexcept { return rec_.gates.size(); }

    /// Hands over what was recorded; the builder is empty afterwards.
    recording take() && { return std::move(rec_); }

private:
    static std::uint32_t next_serial() {
        static std::atomic<std::uint32_t> counter{0};
        return ++counter;  // 0 is reserved for "no builder" (public constants)
    }

    /// AND depth of a wire: 0 for the constant and the inputs.
    std::uint32_t level(std::uint32_t w) const noexcept {
        return w < rec_.first_gate_wire() ? 0 : rec_.gates[w - rec_.first_gate_wire()].level();
    }

    /// The cached NOT gate of wire w (0 if none yet).
    std::uint32_t& not_of(std::uint32_t w) noexcept {
        return w < rec_.first_gate_wire() ? input_not_[w] : rec_.gates[w - rec_.first_gate_wire()].not_of;
    }

    /// Wire id carrying the value of r, adding (once per wire) a NOT gate if r is complemented.
    std::uint32_t materialize(wire_ref r) {
        if (!r.negated()) return r.id();
        const std::uint32_t id = r.id();
        if (not_of(id) == 0) {
            const std::uint32_t n = emit(gate_kind::not_gate, id, id, level(id));
            not_of(id) = n;  // looked up again: emit() may reallocate the gates
        }
        return not_of(id);
    }

    std::uint32_t emit(gate_kind kind, std::uint32_t x, std::uint32_t y, std::uint32_t lvl) {
        // Segments: no gate goes below the current segment's floor (see segment_ands).
        const bool is_and = kind == gate_kind::and_gate;
        lvl = std::max(lvl, floor_ + (is_and ? 1u : 0u));
        if (is_and && ++segment_and_count_ == segment_ands) {
            segment_and_count_ = 0;
            floor_ = std::max(rec_.max_level, lvl);
        }
        const std::size_t id = std::size_t{rec_.first_gate_wire()} + rec_.gates.size();
        if (id >= (std::size_t{1} << 31) - 1)
            throw usage_error("tandem::compile: the circuit exceeds 2^31 wires; split the computation");
        if (lvl > recorded_gate::max_level)
            throw usage_error("tandem::compile: the circuit is deeper than 2^29 ANDs; split the computation");
        rec_.gates.push_back({x, y, lvl << 2 | static_cast<std::uint32_t>(kind), 0, 0});
        ++rec_.uses(x);
        if (y != x) ++rec_.uses(y);  // a NOT reads its operand once
        rec_.max_level = std::max(rec_.max_level, lvl);
        return static_cast<std::uint32_t>(id);
    }

    // Levelling is ASAP within segments of `segment_ands` ANDs in record
    // order; each segment starts at the last level of the one before. Without
    // segments, k independent instances of a function (e.g. 10^4 products)
    // would run side by side level by level, all their wires live at once: a
    // working set of gigabytes, read at random (bench_two_party mul64 ran at
    // 19 M AND/s garbling alone). With them, about one segment's wires are
    // live and each level still holds thousands of ANDs for batching.
    // Circuits smaller than a segment are levelled exactly by AND depth.
    static constexpr std::uint32_t segment_ands = std::uint32_t{1} << 18;
    std::uint32_t floor_ = 0;
    std::uint32_t segment_and_count_ = 0;

    std::uint32_t serial_;
    recording rec_;
    std::vector<std::uint32_t> input_not_;  ///< NOT gates of the constant and input wires
};

}  // namespace tandem::detail
