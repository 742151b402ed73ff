// tandem/circuit/circuit.hpp — tandem::circuit, the recorded function.
//
// A circuit is immutable once built and shares its data: copying one is a
// reference-count increment, and one circuit may be read from many threads.
// `circuit<>` (circuit<void>) is the untyped form — what Bristol import gives
// and what the engines consume; `tandem::compile` returns a typed
// `circuit<R(input<...>...)>` (dsl/compile.hpp) that also knows the C++ types
// of its inputs and outputs, and converts to circuit<>.
//
// Building a circuit from a circuit_data validates it (circuit/validate.hpp):
// the engines trust every index it holds, so a malformed one is refused here
// with a usage_error naming the first problem. Two producers skip the check
// with the detail::trusted_layout tag: tandem::compile, whose layout is
// valid by construction and for which the check would add ~10 % to every
// compile (bench/RESULTS.md, "Validated circuits"), and the segments of a
// streamed run, whose inputs sit in the run's slots rather than in
// [0, input_bits). Bristol import and flatten are checked: next to parsing
// or replaying the gates the check costs little.
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/circuit/validate.hpp>
#include <tandem/error.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tandem {

template <class Signature = void>
class circuit;

namespace detail {
/// Tag of the constructors that skip validation: for circuit_data that
/// tandem's own layout made (compile, streamed segments), never for data
/// from elsewhere.
struct trusted_layout_t {
    explicit trusted_layout_t() = default;
};
inline constexpr trusted_layout_t trusted_layout{};
}  // namespace detail

/// An untyped circuit: an immutable, validated circuit_data behind a shared
/// pointer, so copies are cheap and threads may share one. Bristol import
/// gives this form and sessions and engines run it; tandem::compile returns
/// the typed form `circuit<R(input_t<P, T>...)>`, which converts to it.
template <>
class circuit<void> {
public:
    /// An empty circuit: no inputs, no outputs, no gates.
    circuit() : circuit(circuit_data{}, detail::trusted_layout) {}
    /// Validates data (circuit/validate.hpp): throws usage_error naming the
    /// first problem if the engines could not run it safely.
    explicit circuit(circuit_data data)
        : circuit((detail::validate_circuit(data), std::move(data)), detail::trusted_layout) {}
    /// For tandem's own use: data laid out by tandem, not validated again.
    circuit(circuit_data data, detail::trusted_layout_t) : impl_(std::make_shared<const impl>(std::move(data))) {}

    /// The IR itself: gates, levels, steps, regions, input and output layouts
    /// (circuit/circuit_data.hpp, docs/DESIGN.md §3).
    const circuit_data& data() const noexcept { return impl_->data; }

    /// The input values, in the circuit's order (argument order for a
    /// compiled circuit): inputs()[i].owner supplies value i, which has
    /// inputs()[i].bits bits. This is the order eval_plain_bits takes them in.
    std::span<const value_layout> inputs() const noexcept { return impl_->data.inputs; }
    /// The output values, in order; outputs()[k].bits is the width of value k.
    std::span<const value_layout> outputs() const noexcept { return impl_->data.outputs; }
    /// The width of every input value, in circuit order (what eval_plain_bits expects).
    std::vector<std::size_t> input_widths() const {
        std::vector<std::size_t> w;
        for (const value_layout& v : inputs()) w.push_back(v.bits);
        return w;
    }
    /// The widths of the input values `who` supplies, in circuit order: what
    /// that party passes to session::run_bits.
    std::vector<std::size_t> input_widths(party who) const {
        std::vector<std::size_t> w;
        for (const value_layout& v : inputs())
            if (v.owner == who) w.push_back(v.bits);
        return w;
    }
    /// The width of every output value, in order.
    std::vector<std::size_t> output_widths() const {
        std::vector<std::size_t> w;
        for (const value_layout& v : outputs()) w.push_back(v.bits);
        return w;
    }
    /// From all input values (one per input of the circuit, in circuit order,
    /// as eval_plain_bits takes them) the ones `who` supplies, in order: what
    /// that party passes to session::run_bits. Checks the count and every
    /// width first (usage_error naming the value).
    ///
    ///   auto all = std::vector<std::vector<bool>>{a_bits, b_bits};
    ///   auto expected = tandem::eval_plain_bits(c, all);
    ///   auto got = s.run_bits(c, c.inputs_of(s.me(), all));
    std::vector<std::vector<bool>> inputs_of(party who, const std::vector<std::vector<bool>>& all) const {
        const auto in = inputs();
        if (all.size() != in.size())
            throw usage_error("inputs_of: the circuit has " + std::to_string(in.size()) +
                              " input value(s) (all parties') but " + std::to_string(all.size()) +
                              " were given; pass every input value in circuit order (input_widths() lists their widths)");
        std::vector<std::vector<bool>> mine;
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (all[i].size() != in[i].bits)
                throw usage_error("inputs_of: input " + std::to_string(i) + " of the circuit (" +
                                  std::string(to_string(in[i].owner)) + "'s) must have " + std::to_string(in[i].bits) +
                                  " bits, got " + std::to_string(all[i].size()));
            if (in[i].owner == who) mine.push_back(all[i]);
        }
        return mine;
    }
    /// Gate counts, levels, working set, bytes a garbled run sends. Computed
    /// on first use (a pass over the gates), then cached; thread-safe.
    const circuit_stats& stats() const {
        std::call_once(impl_->stats_once, [this] { impl_->stats = compute_stats(impl_->data); });
        return impl_->stats;
    }
    /// Digest of the structure, compared by the parties before a run. Cached; thread-safe.
    const circuit_fingerprint& fingerprint() const {
        std::call_once(impl_->fingerprint_once, [this] { impl_->fingerprint = compute_fingerprint(impl_->data); });
        return impl_->fingerprint;
    }

private:
    struct impl {
        explicit impl(circuit_data d) : data(std::move(d)) {}
        circuit_data data;
        mutable std::once_flag stats_once;
        mutable circuit_stats stats;
        mutable std::once_flag fingerprint_once;
        mutable circuit_fingerprint fingerprint;
    };
    std::shared_ptr<const impl> impl_;
};

}  // namespace tandem
